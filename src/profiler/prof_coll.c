/*
 * prof_coll.c -- collectives as point-to-point-equivalent traffic.
 *
 * Each rank records only what IT sends under a fixed reference algorithm
 * (documented in docs/profile-format.md, "Raw profile"), so that the rows of
 * all ranks together give the whole collective traffic without any extra
 * communication.  Non-blocking collectives are recorded when they are called.
 *
 *  Bcast            binomial tree rooted at root
 *  Reduce           binomial tree towards root (each non-root sends once,
 *                   to its relative rank with the lowest set bit cleared)
 *  Allreduce        recursive doubling; for a size that is not a power of
 *                   two the MPICH fold: of the first 2*rem ranks the even
 *                   ones send their vector to the odd neighbour, which joins
 *                   the doubling among 2^floor(log2 n) ranks and sends the
 *                   result back at the end
 *  Alltoall(v,w)    direct: a block to every other rank
 *  Allgather(v)     ring: n-1 steps to the right neighbour, forwarding in
 *                   step k the block of rank (me - k) mod n
 *  Gather(v)        direct to root;  Scatter(v): direct from root
 *  Reduce_scatter(_block)  direct: block j of the input to rank j
 *  Barrier          dissemination: ceil(log2 n) rounds, in round k a
 *                   0-byte message to (me + 2^k) mod n
 *  Scan, Exscan     recursive doubling: in round k a vector to me + 2^k
 *
 * A block of zero bytes is not a message (except in Barrier).  Traffic a rank
 * would send to itself is not recorded.  Collectives on intercommunicators
 * are passed through without being recorded.  The blocking collectives are
 * timed (prof.h, "time"), the non-blocking ones are not.
 */
#include "prof.h"
#include "prof_overlay.h"

/* Set up for recording on @p comm: the lock is held on success. */
static int begin(MPI_Comm comm, prof_comm_t *c)
{
    prof_lock();
    if (prof_active && prof_comm_get(comm, c) == 0 && !c->inter)
        return 0;
    prof_unlock();
    return -1;
}

/* @p bytes in @p msgs messages to rank @p r of the communicator. */
static void put_n(const prof_comm_t *c, int r, uint64_t bytes, uint64_t msgs)
{
    if (r == c->rank || r < 0 || r >= c->size)
        return;
    prof_add(PROF_COLL, c->world ? c->world[r] : r, bytes, msgs);
}

static void put(const prof_comm_t *c, int r, uint64_t bytes)
{
    if (bytes)
        put_n(c, r, bytes, 1);
}

void prof_coll_bcast(MPI_Comm comm, int count, MPI_Datatype type, int root)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    int n = c.size;
    uint64_t b = prof_bytes(count, type);
    if (root >= 0 && root < n && b) {
        int vr = (c.rank - root + n) % n, mask = 1;
        while (mask < n && !(vr & mask))
            mask <<= 1;
        /* vr received from vr - mask; it sends to vr + m for m < mask */
        for (int m = mask >> 1; m > 0; m >>= 1)
            if (vr + m < n)
                put(&c, (vr + m + root) % n, b);
    }
    prof_unlock();
}

void prof_coll_reduce(MPI_Comm comm, int count, MPI_Datatype type, int root)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    int n = c.size;
    if (root >= 0 && root < n) {
        int vr = (c.rank - root + n) % n;
        if (vr)
            put(&c, ((vr & (vr - 1)) + root) % n, prof_bytes(count, type));
    }
    prof_unlock();
}

void prof_coll_allreduce(MPI_Comm comm, int count, MPI_Datatype type)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    int n = c.size, me = c.rank, p2 = 1;
    uint64_t b = prof_bytes(count, type);
    while (2 * p2 <= n)
        p2 *= 2;
    int rem = n - p2, vr;
    if (me < 2 * rem) {
        if (me % 2 == 0) {          /* folds into me + 1, then waits */
            put(&c, me + 1, b);
            vr = -1;
        } else {
            vr = me / 2;
        }
    } else {
        vr = me - rem;
    }
    if (vr >= 0) {
        for (int mask = 1; mask < p2; mask <<= 1) {
            int vd = vr ^ mask;
            put(&c, vd < rem ? 2 * vd + 1 : vd + rem, b);
        }
        if (me < 2 * rem)           /* the result back to the folded rank */
            put(&c, me - 1, b);
    }
    prof_unlock();
}

void prof_coll_alltoall(MPI_Comm comm, int rcount, MPI_Datatype rtype)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    uint64_t b = prof_bytes(rcount, rtype);
    for (int j = 0; j < c.size; j++)
        put(&c, j, b);
    prof_unlock();
}

void prof_coll_alltoallv(MPI_Comm comm, int in_place, const int *scounts,
                        MPI_Datatype stype, const int *rcounts,
                        MPI_Datatype rtype)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    const int *cnt = in_place ? rcounts : scounts;
    MPI_Datatype t = in_place ? rtype : stype;
    for (int j = 0; cnt && j < c.size; j++)
        if (j != c.rank)
            put(&c, j, prof_bytes(cnt[j], t));
    prof_unlock();
}

void prof_coll_alltoallw(MPI_Comm comm, int in_place, const int *scounts,
                        const MPI_Datatype *stypes, const int *rcounts,
                        const MPI_Datatype *rtypes)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    const int *cnt = in_place ? rcounts : scounts;
    const MPI_Datatype *t = in_place ? rtypes : stypes;
    for (int j = 0; cnt && t && j < c.size; j++)
        if (j != c.rank)
            put(&c, j, prof_bytes(cnt[j], t[j]));
    prof_unlock();
}

void prof_coll_allgather(MPI_Comm comm, int rcount, MPI_Datatype rtype)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    uint64_t b = prof_bytes(rcount, rtype);
    if (b && c.size > 1)
        put_n(&c, (c.rank + 1) % c.size, b * (uint64_t)(c.size - 1),
              (uint64_t)(c.size - 1));
    prof_unlock();
}

void prof_coll_allgatherv(MPI_Comm comm, const int *rcounts, MPI_Datatype rtype)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    int n = c.size, right = (c.rank + 1) % n;
    for (int k = 0; rcounts && k < n - 1; k++)
        put(&c, right, prof_bytes(rcounts[(c.rank - k + n) % n], rtype));
    prof_unlock();
}

void prof_coll_gather(MPI_Comm comm, int scount, MPI_Datatype stype, int root)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    if (c.rank != root)
        put(&c, root, prof_bytes(scount, stype));
    prof_unlock();
}

void prof_coll_scatter(MPI_Comm comm, int scount, MPI_Datatype stype, int root)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    if (c.rank == root) {
        uint64_t b = prof_bytes(scount, stype);
        for (int j = 0; j < c.size; j++)
            put(&c, j, b);
    }
    prof_unlock();
}

void prof_coll_scatterv(MPI_Comm comm, const int *scounts, MPI_Datatype stype,
                       int root)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    for (int j = 0; c.rank == root && scounts && j < c.size; j++)
        put(&c, j, prof_bytes(scounts[j], stype));
    prof_unlock();
}

void prof_coll_reduce_scatter(MPI_Comm comm, const int *rcounts,
                             MPI_Datatype type)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    for (int j = 0; rcounts && j < c.size; j++)
        put(&c, j, prof_bytes(rcounts[j], type));
    prof_unlock();
}

void prof_coll_reduce_scatter_block(MPI_Comm comm, int rcount,
                                   MPI_Datatype type)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    uint64_t b = prof_bytes(rcount, type);
    for (int j = 0; j < c.size; j++)
        put(&c, j, b);
    prof_unlock();
}

void prof_coll_barrier(MPI_Comm comm)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    for (int d = 1; d < c.size; d <<= 1)
        put_n(&c, (c.rank + d) % c.size, 0, 1);
    prof_unlock();
}

void prof_coll_scan(MPI_Comm comm, int count, MPI_Datatype type)
{
    prof_comm_t c;
    if (begin(comm, &c))
        return;
    uint64_t b = prof_bytes(count, type);
    for (int d = 1; d < c.size; d <<= 1)
        if (c.rank + d < c.size)
            put(&c, c.rank + d, b);
    prof_unlock();
}

/* ------------------------------------------------------- C wrappers -- */

#define IP(buf) ((buf) == MPI_IN_PLACE)

/* A collective wrapper records with HOOK while recording, then calls
 * PMPI_NAME, timed.  PARAMS/ARGS: the full parameter and argument lists, as
 * in mpi.h.  COLL_WRAPPER_CALL is the same with CALL, the expression that
 * runs the collective, instead of PMPI_NAME ARGS: for a collective an
 * overlay may run (prof_overlay.h).  ICOLL_WRAPPER, for the
 * non-blocking twin of a collective, records the same traffic when it is
 * called, and is not timed (the wait for it is). */
#define COLL_WRAPPER(NAME, PARAMS, ARGS, HOOK)                               \
    COLL_WRAPPER_CALL(NAME, PARAMS, HOOK, PMPI_##NAME ARGS)
#define COLL_WRAPPER_CALL(NAME, PARAMS, HOOK, CALL)                          \
int MPI_##NAME PARAMS                                                        \
{                                                                            \
    prof_settle();                                                            \
    if (prof_active)                                                          \
        HOOK;                                                                \
    uint64_t t0 = prof_time_begin();                                          \
    int rc = CALL;                                                           \
    prof_time_end(t0);                                                        \
    return rc;                                                               \
}
#define ICOLL_WRAPPER(NAME, PARAMS, ARGS, HOOK)                              \
int MPI_##NAME PARAMS                                                        \
{                                                                            \
    prof_settle();                                                            \
    if (prof_active)                                                          \
        HOOK;                                                                \
    return PMPI_##NAME ARGS;                                                 \
}

/* The parameter lists most collectives share, blocking and with a request
 * (I). */
#define P_RED (const void *sbuf, void *rbuf, int count, MPI_Datatype type,   \
               MPI_Op op, MPI_Comm comm)
#define A_RED (sbuf, rbuf, count, type, op, comm)
#define P_IRED (const void *sbuf, void *rbuf, int count, MPI_Datatype type,  \
                MPI_Op op, MPI_Comm comm, MPI_Request *req)
#define A_IRED (sbuf, rbuf, count, type, op, comm, req)
#define P_A2A (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, \
               int rcount, MPI_Datatype rtype, MPI_Comm comm)
#define A_A2A (sbuf, scount, stype, rbuf, rcount, rtype, comm)
#define P_IA2A (const void *sbuf, int scount, MPI_Datatype stype,            \
                void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm,   \
                MPI_Request *req)
#define A_IA2A (sbuf, scount, stype, rbuf, rcount, rtype, comm, req)
#define P_ROOTED (const void *sbuf, int scount, MPI_Datatype stype,          \
                  void *rbuf, int rcount, MPI_Datatype rtype, int root,      \
                  MPI_Comm comm)
#define A_ROOTED (sbuf, scount, stype, rbuf, rcount, rtype, root, comm)
#define P_IROOTED (const void *sbuf, int scount, MPI_Datatype stype,         \
                   void *rbuf, int rcount, MPI_Datatype rtype, int root,     \
                   MPI_Comm comm, MPI_Request *req)
#define A_IROOTED (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req)

/* Bcast, Alltoall, Allgather: recorded as always; run by the tnbc overlay
 * when it is on (ovl_tnbc.c), else by PMPI. */
COLL_WRAPPER_CALL(Bcast,
                  (void *buf, int count, MPI_Datatype type, int root,
                   MPI_Comm comm),
                  prof_coll_bcast(comm, count, type, root),
                  ovl_bcast(buf, count, type, root, comm))
ICOLL_WRAPPER(Ibcast,
              (void *buf, int count, MPI_Datatype type, int root,
               MPI_Comm comm, MPI_Request *req),
              (buf, count, type, root, comm, req),
              prof_coll_bcast(comm, count, type, root))

COLL_WRAPPER(Reduce,
             (const void *sbuf, void *rbuf, int count, MPI_Datatype type,
              MPI_Op op, int root, MPI_Comm comm),
             (sbuf, rbuf, count, type, op, root, comm),
             prof_coll_reduce(comm, count, type, root))
ICOLL_WRAPPER(Ireduce,
              (const void *sbuf, void *rbuf, int count, MPI_Datatype type,
               MPI_Op op, int root, MPI_Comm comm, MPI_Request *req),
              (sbuf, rbuf, count, type, op, root, comm, req),
              prof_coll_reduce(comm, count, type, root))

COLL_WRAPPER(Allreduce, P_RED, A_RED, prof_coll_allreduce(comm, count, type))
ICOLL_WRAPPER(Iallreduce, P_IRED, A_IRED,
              prof_coll_allreduce(comm, count, type))

COLL_WRAPPER_CALL(Alltoall, P_A2A, prof_coll_alltoall(comm, rcount, rtype),
                  ovl_alltoall A_A2A)
ICOLL_WRAPPER(Ialltoall, P_IA2A, A_IA2A,
              prof_coll_alltoall(comm, rcount, rtype))

#define P_A2AV (const void *sbuf, const int scounts[], const int sdispls[],  \
                MPI_Datatype stype, void *rbuf, const int rcounts[],         \
                const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
#define A_A2AV (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, \
                comm)
#define P_IA2AV (const void *sbuf, const int scounts[], const int sdispls[], \
                 MPI_Datatype stype, void *rbuf, const int rcounts[],        \
                 const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,     \
                 MPI_Request *req)
#define A_IA2AV (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,      \
                 rtype, comm, req)

/* Recorded as always; run by the css overlay when it is on (ovl_css.c),
 * else by tnbc when it is on (ovl_tnbc.c), else by PMPI_Alltoallv. */
COLL_WRAPPER_CALL(Alltoallv, P_A2AV,
                  prof_coll_alltoallv(comm, IP(sbuf), scounts, stype, rcounts,
                                     rtype),
                  ovl_alltoallv A_A2AV)
ICOLL_WRAPPER(Ialltoallv, P_IA2AV, A_IA2AV,
              prof_coll_alltoallv(comm, IP(sbuf), scounts, stype, rcounts,
                                 rtype))

#define P_A2AW (const void *sbuf, const int scounts[], const int sdispls[],  \
                const MPI_Datatype stypes[], void *rbuf,                     \
                const int rcounts[], const int rdispls[],                    \
                const MPI_Datatype rtypes[], MPI_Comm comm)
#define A_A2AW (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,      \
                rtypes, comm)
#define P_IA2AW (const void *sbuf, const int scounts[], const int sdispls[], \
                 const MPI_Datatype stypes[], void *rbuf,                    \
                 const int rcounts[], const int rdispls[],                   \
                 const MPI_Datatype rtypes[], MPI_Comm comm,                 \
                 MPI_Request *req)
#define A_IA2AW (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,     \
                 rtypes, comm, req)

COLL_WRAPPER(Alltoallw, P_A2AW, A_A2AW,
             prof_coll_alltoallw(comm, IP(sbuf), scounts, stypes, rcounts,
                                rtypes))
ICOLL_WRAPPER(Ialltoallw, P_IA2AW, A_IA2AW,
              prof_coll_alltoallw(comm, IP(sbuf), scounts, stypes, rcounts,
                                 rtypes))

COLL_WRAPPER_CALL(Allgather, P_A2A, prof_coll_allgather(comm, rcount, rtype),
                  ovl_allgather A_A2A)
ICOLL_WRAPPER(Iallgather, P_IA2A, A_IA2A,
              prof_coll_allgather(comm, rcount, rtype))

COLL_WRAPPER(Allgatherv,
             (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
              const int rcounts[], const int displs[], MPI_Datatype rtype,
              MPI_Comm comm),
             (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm),
             prof_coll_allgatherv(comm, rcounts, rtype))
ICOLL_WRAPPER(Iallgatherv,
              (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
               const int rcounts[], const int displs[], MPI_Datatype rtype,
               MPI_Comm comm, MPI_Request *req),
              (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req),
              prof_coll_allgatherv(comm, rcounts, rtype))

COLL_WRAPPER(Gather, P_ROOTED, A_ROOTED,
             prof_coll_gather(comm, scount, stype, root))
ICOLL_WRAPPER(Igather, P_IROOTED, A_IROOTED,
              prof_coll_gather(comm, scount, stype, root))

COLL_WRAPPER(Gatherv,
             (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
              const int rcounts[], const int displs[], MPI_Datatype rtype,
              int root, MPI_Comm comm),
             (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm),
             prof_coll_gather(comm, scount, stype, root))
ICOLL_WRAPPER(Igatherv,
              (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
               const int rcounts[], const int displs[], MPI_Datatype rtype,
               int root, MPI_Comm comm, MPI_Request *req),
              (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm,
               req),
              prof_coll_gather(comm, scount, stype, root))

COLL_WRAPPER(Scatter, P_ROOTED, A_ROOTED,
             prof_coll_scatter(comm, scount, stype, root))
ICOLL_WRAPPER(Iscatter, P_IROOTED, A_IROOTED,
              prof_coll_scatter(comm, scount, stype, root))

COLL_WRAPPER(Scatterv,
             (const void *sbuf, const int scounts[], const int displs[],
              MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
              int root, MPI_Comm comm),
             (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm),
             prof_coll_scatterv(comm, scounts, stype, root))
ICOLL_WRAPPER(Iscatterv,
              (const void *sbuf, const int scounts[], const int displs[],
               MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
               int root, MPI_Comm comm, MPI_Request *req),
              (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm,
               req),
              prof_coll_scatterv(comm, scounts, stype, root))

COLL_WRAPPER(Reduce_scatter,
             (const void *sbuf, void *rbuf, const int rcounts[],
              MPI_Datatype type, MPI_Op op, MPI_Comm comm),
             (sbuf, rbuf, rcounts, type, op, comm),
             prof_coll_reduce_scatter(comm, rcounts, type))
ICOLL_WRAPPER(Ireduce_scatter,
              (const void *sbuf, void *rbuf, const int rcounts[],
               MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req),
              (sbuf, rbuf, rcounts, type, op, comm, req),
              prof_coll_reduce_scatter(comm, rcounts, type))

COLL_WRAPPER(Reduce_scatter_block, P_RED, A_RED,
             prof_coll_reduce_scatter_block(comm, count, type))
ICOLL_WRAPPER(Ireduce_scatter_block, P_IRED, A_IRED,
              prof_coll_reduce_scatter_block(comm, count, type))

COLL_WRAPPER(Barrier, (MPI_Comm comm), (comm), prof_coll_barrier(comm))
ICOLL_WRAPPER(Ibarrier, (MPI_Comm comm, MPI_Request *req), (comm, req),
              prof_coll_barrier(comm))

COLL_WRAPPER(Scan, P_RED, A_RED, prof_coll_scan(comm, count, type))
ICOLL_WRAPPER(Iscan, P_IRED, A_IRED, prof_coll_scan(comm, count, type))
COLL_WRAPPER(Exscan, P_RED, A_RED, prof_coll_scan(comm, count, type))
ICOLL_WRAPPER(Iexscan, P_IRED, A_IRED, prof_coll_scan(comm, count, type))
