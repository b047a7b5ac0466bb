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
 * are passed through without being recorded.
 */
#include "prof.h"

/* Set up for recording on @p comm: the lock is held on success. */
static int begin(MPI_Comm comm, cmp_comm_t *c)
{
    cmp_lock();
    if (cmp_active && cmp_comm_get(comm, c) == 0 && !c->inter)
        return 0;
    cmp_unlock();
    return -1;
}

/* @p bytes in @p msgs messages to rank @p r of the communicator. */
static void put_n(const cmp_comm_t *c, int r, uint64_t bytes, uint64_t msgs)
{
    if (r == c->rank || r < 0 || r >= c->size)
        return;
    cmp_add(CMP_COLL, c->world ? c->world[r] : r, bytes, msgs);
}

static void put(const cmp_comm_t *c, int r, uint64_t bytes)
{
    if (bytes)
        put_n(c, r, bytes, 1);
}

void cmp_coll_bcast(MPI_Comm comm, int count, MPI_Datatype type, int root)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    int n = c.size;
    uint64_t b = cmp_bytes(count, type);
    if (root >= 0 && root < n && b) {
        int vr = (c.rank - root + n) % n, mask = 1;
        while (mask < n && !(vr & mask))
            mask <<= 1;
        /* vr received from vr - mask; it sends to vr + m for m < mask */
        for (int m = mask >> 1; m > 0; m >>= 1)
            if (vr + m < n)
                put(&c, (vr + m + root) % n, b);
    }
    cmp_unlock();
}

void cmp_coll_reduce(MPI_Comm comm, int count, MPI_Datatype type, int root)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    int n = c.size;
    if (root >= 0 && root < n) {
        int vr = (c.rank - root + n) % n;
        if (vr)
            put(&c, ((vr & (vr - 1)) + root) % n, cmp_bytes(count, type));
    }
    cmp_unlock();
}

void cmp_coll_allreduce(MPI_Comm comm, int count, MPI_Datatype type)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    int n = c.size, me = c.rank, p2 = 1;
    uint64_t b = cmp_bytes(count, type);
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
    cmp_unlock();
}

void cmp_coll_alltoall(MPI_Comm comm, int rcount, MPI_Datatype rtype)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    uint64_t b = cmp_bytes(rcount, rtype);
    for (int j = 0; j < c.size; j++)
        put(&c, j, b);
    cmp_unlock();
}

void cmp_coll_alltoallv(MPI_Comm comm, int in_place, const int *scounts,
                        MPI_Datatype stype, const int *rcounts,
                        MPI_Datatype rtype)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    const int *cnt = in_place ? rcounts : scounts;
    MPI_Datatype t = in_place ? rtype : stype;
    for (int j = 0; cnt && j < c.size; j++)
        if (j != c.rank)
            put(&c, j, cmp_bytes(cnt[j], t));
    cmp_unlock();
}

void cmp_coll_alltoallw(MPI_Comm comm, int in_place, const int *scounts,
                        const MPI_Datatype *stypes, const int *rcounts,
                        const MPI_Datatype *rtypes)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    const int *cnt = in_place ? rcounts : scounts;
    const MPI_Datatype *t = in_place ? rtypes : stypes;
    for (int j = 0; cnt && t && j < c.size; j++)
        if (j != c.rank)
            put(&c, j, cmp_bytes(cnt[j], t[j]));
    cmp_unlock();
}

void cmp_coll_allgather(MPI_Comm comm, int rcount, MPI_Datatype rtype)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    uint64_t b = cmp_bytes(rcount, rtype);
    if (b && c.size > 1)
        put_n(&c, (c.rank + 1) % c.size, b * (uint64_t)(c.size - 1),
              (uint64_t)(c.size - 1));
    cmp_unlock();
}

void cmp_coll_allgatherv(MPI_Comm comm, const int *rcounts, MPI_Datatype rtype)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    int n = c.size, right = (c.rank + 1) % n;
    for (int k = 0; rcounts && k < n - 1; k++)
        put(&c, right, cmp_bytes(rcounts[(c.rank - k + n) % n], rtype));
    cmp_unlock();
}

void cmp_coll_gather(MPI_Comm comm, int scount, MPI_Datatype stype, int root)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    if (c.rank != root)
        put(&c, root, cmp_bytes(scount, stype));
    cmp_unlock();
}

void cmp_coll_scatter(MPI_Comm comm, int scount, MPI_Datatype stype, int root)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    if (c.rank == root) {
        uint64_t b = cmp_bytes(scount, stype);
        for (int j = 0; j < c.size; j++)
            put(&c, j, b);
    }
    cmp_unlock();
}

void cmp_coll_scatterv(MPI_Comm comm, const int *scounts, MPI_Datatype stype,
                       int root)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    for (int j = 0; c.rank == root && scounts && j < c.size; j++)
        put(&c, j, cmp_bytes(scounts[j], stype));
    cmp_unlock();
}

void cmp_coll_reduce_scatter(MPI_Comm comm, const int *rcounts,
                             MPI_Datatype type)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    for (int j = 0; rcounts && j < c.size; j++)
        put(&c, j, cmp_bytes(rcounts[j], type));
    cmp_unlock();
}

void cmp_coll_reduce_scatter_block(MPI_Comm comm, int rcount,
                                   MPI_Datatype type)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    uint64_t b = cmp_bytes(rcount, type);
    for (int j = 0; j < c.size; j++)
        put(&c, j, b);
    cmp_unlock();
}

void cmp_coll_barrier(MPI_Comm comm)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    for (int d = 1; d < c.size; d <<= 1)
        put_n(&c, (c.rank + d) % c.size, 0, 1);
    cmp_unlock();
}

void cmp_coll_scan(MPI_Comm comm, int count, MPI_Datatype type)
{
    cmp_comm_t c;
    if (begin(comm, &c))
        return;
    uint64_t b = cmp_bytes(count, type);
    for (int d = 1; d < c.size; d <<= 1)
        if (c.rank + d < c.size)
            put(&c, c.rank + d, b);
    cmp_unlock();
}

/* ------------------------------------------------------- C wrappers -- */

#define IP(buf) ((buf) == MPI_IN_PLACE)

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_bcast(comm, count, type, root);
    return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root,
               MPI_Comm comm, MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_bcast(comm, count, type, root);
    return PMPI_Ibcast(buf, count, type, root, comm, req);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
               MPI_Op op, int root, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_reduce(comm, count, type, root);
    return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                MPI_Op op, int root, MPI_Comm comm, MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_reduce(comm, count, type, root);
    return PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                  MPI_Op op, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_allreduce(comm, count, type);
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                   MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_allreduce(comm, count, type);
    return PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                 int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_alltoall(comm, rcount, rtype);
    return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype,
                  void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm,
                  MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_alltoall(comm, rcount, rtype);
    return PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                  MPI_Datatype stype, void *rbuf, const int rcounts[],
                  const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_alltoallv(comm, IP(sbuf), scounts, stype, rcounts, rtype);
    return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts,
                          rdispls, rtype, comm);
}

int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                   MPI_Datatype stype, void *rbuf, const int rcounts[],
                   const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                   MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_alltoallv(comm, IP(sbuf), scounts, stype, rcounts, rtype);
    return PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts,
                           rdispls, rtype, comm, req);
}

int MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                  const MPI_Datatype stypes[], void *rbuf,
                  const int rcounts[], const int rdispls[],
                  const MPI_Datatype rtypes[], MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_alltoallw(comm, IP(sbuf), scounts, stypes, rcounts, rtypes);
    return PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts,
                          rdispls, rtypes, comm);
}

int MPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype stypes[], void *rbuf,
                   const int rcounts[], const int rdispls[],
                   const MPI_Datatype rtypes[], MPI_Comm comm,
                   MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_alltoallw(comm, IP(sbuf), scounts, stypes, rcounts, rtypes);
    return PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts,
                           rdispls, rtypes, comm, req);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype,
                  void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_allgather(comm, rcount, rtype);
    return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype,
                   void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm,
                   MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_allgather(comm, rcount, rtype);
    return PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm,
                           req);
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype,
                   void *rbuf, const int rcounts[], const int displs[],
                   MPI_Datatype rtype, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_allgatherv(comm, rcounts, rtype);
    return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype,
                           comm);
}

int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype,
                    void *rbuf, const int rcounts[], const int displs[],
                    MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_allgatherv(comm, rcounts, rtype);
    return PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype,
                            comm, req);
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
               int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_gather(comm, scount, stype, root);
    return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_gather(comm, scount, stype, root);
    return PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm,
                        req);
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                const int rcounts[], const int displs[], MPI_Datatype rtype,
                int root, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_gather(comm, scount, stype, root);
    return PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype,
                        root, comm);
}

int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                 const int rcounts[], const int displs[], MPI_Datatype rtype,
                 int root, MPI_Comm comm, MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_gather(comm, scount, stype, root);
    return PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype,
                         root, comm, req);
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_scatter(comm, scount, stype, root);
    return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                 int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                 MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_scatter(comm, scount, stype, root);
    return PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm,
                         req);
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
                 MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_scatterv(comm, scounts, stype, root);
    return PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype,
                         root, comm);
}

int MPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[],
                  MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, int root, MPI_Comm comm,
                  MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_scatterv(comm, scounts, stype, root);
    return PMPI_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype,
                          root, comm, req);
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_reduce_scatter(comm, rcounts, type);
    return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm);
}

int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                        MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_reduce_scatter(comm, rcounts, type);
    return PMPI_Ireduce_scatter(sbuf, rbuf, rcounts, type, op, comm, req);
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_reduce_scatter_block(comm, rcount, type);
    return PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm);
}

int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                              MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_reduce_scatter_block(comm, rcount, type);
    return PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, type, op, comm, req);
}

int MPI_Barrier(MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_barrier(comm);
    return PMPI_Barrier(comm);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_barrier(comm);
    return PMPI_Ibarrier(comm, req);
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
             MPI_Op op, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_scan(comm, count, type);
    return PMPI_Scan(sbuf, rbuf, count, type, op, comm);
}

int MPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
              MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_scan(comm, count, type);
    return PMPI_Iscan(sbuf, rbuf, count, type, op, comm, req);
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
               MPI_Op op, MPI_Comm comm)
{
    if (cmp_active)
        cmp_coll_scan(comm, count, type);
    return PMPI_Exscan(sbuf, rbuf, count, type, op, comm);
}

int MPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    if (cmp_active)
        cmp_coll_scan(comm, count, type);
    return PMPI_Iexscan(sbuf, rbuf, count, type, op, comm, req);
}
