/*
 * prof_fortran.c -- the Fortran entry points.
 *
 * Open MPI 4.1's Fortran bindings (libmpi_mpifh: mpif.h and `use mpi`) call
 * PMPI_* directly, so the C wrappers never see Fortran traffic.  The
 * `use mpi_f08` bindings (libmpi_usempif08: mpi_send_f08_ ...) call the
 * mpif.h implementation by its internal name ompi_send_f.  So every
 * function is wrapped under all the names a Fortran program can reach it
 * by: mpi_send, mpi_send_, mpi_send__, MPI_SEND (the four name-manglings of
 * mpif.h / `use mpi`) and ompi_send_f (`use mpi_f08`).  Each wrapper records
 * the call with the C handles (MPI_*_f2c) and passes it on to Open MPI's
 * own ompi_*_f, found with dlsym(RTLD_NEXT), so argument conversions
 * (MPI_BOTTOM, MPI_IN_PLACE, statuses, ierror) stay exactly Open MPI's.
 * The blocking calls (FWRAP_T) are timed as their C twins are: Recv, Probe,
 * the Waits, Sendrecv(_replace) and the blocking collectives.
 */
#include "prof.h"
#include "prof_overlay.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be an int");

typedef MPI_Fint F;

/* Fortran's MPI_IN_PLACE and MPI_BOTTOM: the addresses of these common
 * blocks (libmpi). */
extern int mpi_fortran_in_place_;
extern int mpi_fortran_bottom_;
#define FIP(b) ((const void *)(b) == (const void *)&mpi_fortran_in_place_)

#define COMM(c) PMPI_Comm_f2c(*(c))
#define TYPE(t) PMPI_Type_f2c(*(t))

static void *lookup(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p)
        prof_say("cannot find %s\n", name);
    return p;
}

/* Define the five names of one Fortran function: BEFORE runs before the
 * real function, AFTER after it (both only while recording).  FWRAP_T is
 * the same for a blocking call, which is also timed (prof.h, "time").
 * FWRAP_CALL is FWRAP_T with CALL, the statement that runs the call, in
 * place of the real function's f ARGS: for a call an overlay may run
 * (prof_overlay.h). */
#define FWRAP(lname, UNAME, PARAMS, ARGS, BEFORE, AFTER)                    \
    FWRAP_(lname, UNAME, PARAMS, ARGS, BEFORE, AFTER, 0, f ARGS)
#define FWRAP_T(lname, UNAME, PARAMS, ARGS, BEFORE, AFTER)                  \
    FWRAP_(lname, UNAME, PARAMS, ARGS, BEFORE, AFTER, 1, f ARGS)
#define FWRAP_CALL(lname, UNAME, PARAMS, ARGS, BEFORE, AFTER, CALL)         \
    FWRAP_(lname, UNAME, PARAMS, ARGS, BEFORE, AFTER, 1, CALL)
#define FWRAP_(lname, UNAME, PARAMS, ARGS, BEFORE, AFTER, TIMED, CALL)      \
static void impl_##lname PARAMS                                             \
{                                                                           \
    static void (*fp) PARAMS;                                               \
    void (*f) PARAMS = __atomic_load_n(&fp, __ATOMIC_ACQUIRE);              \
    if (!f) {                                                               \
        f = (void (*) PARAMS)lookup("ompi_" #lname "_f");                   \
        __atomic_store_n(&fp, f, __ATOMIC_RELEASE);                         \
    }                                                                       \
    if (!f) {                                                               \
        *ierr = MPI_ERR_INTERN;                                             \
        return;                                                             \
    }                                                                       \
    prof_settle();                                                           \
    if (prof_active) {                                                       \
        BEFORE;                                                             \
    }                                                                       \
    uint64_t t0 = (TIMED) ? prof_time_begin() : 0;                           \
    CALL;                                                                   \
    prof_time_end(t0);                                                       \
    if (prof_active && *ierr == MPI_SUCCESS) {                               \
        AFTER;                                                              \
    }                                                                       \
}                                                                           \
void mpi_##lname PARAMS;                                                    \
void mpi_##lname##_ PARAMS;                                                 \
void mpi_##lname##__ PARAMS;                                                \
void UNAME PARAMS;                                                          \
void ompi_##lname##_f PARAMS;                                               \
void mpi_##lname PARAMS { impl_##lname ARGS; }                              \
void mpi_##lname##_ PARAMS { impl_##lname ARGS; }                           \
void mpi_##lname##__ PARAMS { impl_##lname ARGS; }                          \
void UNAME PARAMS { impl_##lname ARGS; }                                    \
void ompi_##lname##_f PARAMS { impl_##lname ARGS; }

#define NOTHING ((void)0)

/* ----------------------------------------------------- init/finalize -- */

/* prof_start and ovl_start are not subject to prof_active: run them
 * unconditionally (the overlays do not depend on the profiler recording). */
static void init_thread_f(F *required, F *provided, F *ierr);

/* With tnbc asked for, MPI_INIT is run as MPI_INIT_THREAD(MULTIPLE), as
 * the C MPI_Init is (prof_init.c). */
static void init_f(F *ierr)
{
    static void (*fp)(F *);
    if (ovl_pre_init(MPI_THREAD_SINGLE) != MPI_THREAD_SINGLE) {
        F req = MPI_THREAD_SINGLE, prov = 0;
        init_thread_f(&req, &prov, ierr);
        return;
    }
    if (!fp)
        fp = (void (*)(F *))lookup("ompi_init_f");
    if (!fp) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    fp(ierr);
    if (*ierr == MPI_SUCCESS) {
        prof_start(MPI_THREAD_SINGLE);
        ovl_start(MPI_THREAD_SINGLE);
    }
}

static void init_thread_f(F *required, F *provided, F *ierr)
{
    static void (*fp)(F *, F *, F *);
    if (!fp)
        fp = (void (*)(F *, F *, F *))lookup("ompi_init_thread_f");
    if (!fp) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    F want = ovl_pre_init(*required), got = 0;
    if (want < *required)
        want = *required;
    fp(&want, &got, ierr);
    if (*ierr == MPI_SUCCESS) {
        /* as MPI_Init_thread (prof_init.c): capped only when raised */
        *provided = want > *required && got > *required ? *required : got;
        prof_start(*provided);
        ovl_start(got);
    }
}

static void finalize_f(F *ierr)
{
    static void (*fp)(F *);
    if (!fp)
        fp = (void (*)(F *))lookup("ompi_finalize_f");
    if (!fp) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    ovl_finish();
    prof_finish();
    fp(ierr);
}

#define FNAMES(lname, UNAME, PARAMS, ARGS)                                  \
void mpi_##lname PARAMS;                                                    \
void mpi_##lname##_ PARAMS;                                                 \
void mpi_##lname##__ PARAMS;                                                \
void UNAME PARAMS;                                                          \
void ompi_##lname##_f PARAMS;                                               \
void mpi_##lname PARAMS { lname##_f ARGS; }                                 \
void mpi_##lname##_ PARAMS { lname##_f ARGS; }                              \
void mpi_##lname##__ PARAMS { lname##_f ARGS; }                             \
void UNAME PARAMS { lname##_f ARGS; }                                       \
void ompi_##lname##_f PARAMS { lname##_f ARGS; }

FNAMES(init, MPI_INIT, (F *ierr), (ierr))
FNAMES(init_thread, MPI_INIT_THREAD, (F *required, F *provided, F *ierr),
       (required, provided, ierr))
FNAMES(finalize, MPI_FINALIZE, (F *ierr), (ierr))

/* ---------------------------------------------------- point-to-point -- */

#define P_SEND (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
#define A_SEND (buf, count, type, dest, tag, comm, ierr)
#define P_ISEND (void *buf, F *count, F *type, F *dest, F *tag, F *comm,    \
                 F *req, F *ierr)
#define A_ISEND (buf, count, type, dest, tag, comm, req, ierr)
#define REC_SEND prof_send_any(COMM(comm), *dest, *count, TYPE(type))
#define REC_INIT prof_persist_new(PMPI_Request_f2c(*req), COMM(comm), *dest, \
                                 *count, TYPE(type))

FWRAP(send, MPI_SEND, P_SEND, A_SEND, REC_SEND, NOTHING)
FWRAP(bsend, MPI_BSEND, P_SEND, A_SEND, REC_SEND, NOTHING)
FWRAP(ssend, MPI_SSEND, P_SEND, A_SEND, REC_SEND, NOTHING)
FWRAP(rsend, MPI_RSEND, P_SEND, A_SEND, REC_SEND, NOTHING)
FWRAP(isend, MPI_ISEND, P_ISEND, A_ISEND, REC_SEND, NOTHING)
FWRAP(ibsend, MPI_IBSEND, P_ISEND, A_ISEND, REC_SEND, NOTHING)
FWRAP(issend, MPI_ISSEND, P_ISEND, A_ISEND, REC_SEND, NOTHING)
FWRAP(irsend, MPI_IRSEND, P_ISEND, A_ISEND, REC_SEND, NOTHING)
FWRAP(send_init, MPI_SEND_INIT, P_ISEND, A_ISEND, NOTHING, REC_INIT)
FWRAP(bsend_init, MPI_BSEND_INIT, P_ISEND, A_ISEND, NOTHING, REC_INIT)
FWRAP(ssend_init, MPI_SSEND_INIT, P_ISEND, A_ISEND, NOTHING, REC_INIT)
FWRAP(rsend_init, MPI_RSEND_INIT, P_ISEND, A_ISEND, NOTHING, REC_INIT)

FWRAP_T(sendrecv, MPI_SENDRECV,
        (void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf,
         F *rcount, F *rtype, F *source, F *rtag, F *comm, F *status, F *ierr),
        (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
         comm, status, ierr),
        prof_send_any(COMM(comm), *dest, *scount, TYPE(stype)), NOTHING)
FWRAP_T(sendrecv_replace, MPI_SENDRECV_REPLACE,
        (void *buf, F *count, F *type, F *dest, F *stag, F *source, F *rtag,
         F *comm, F *status, F *ierr),
        (buf, count, type, dest, stag, source, rtag, comm, status, ierr),
        REC_SEND, NOTHING)

static void start_all(int n, const F *reqs)
{
    for (int k = 0; k < n; k++) {
        MPI_Request r = PMPI_Request_f2c(reqs[k]);
        prof_persist_start(1, &r);
    }
}

FWRAP(start, MPI_START, (F *req, F *ierr), (req, ierr), start_all(1, req),
      NOTHING)
FWRAP(startall, MPI_STARTALL, (F *n, F *reqs, F *ierr), (n, reqs, ierr),
      start_all(*n, reqs), NOTHING)
FWRAP(request_free, MPI_REQUEST_FREE, (F *req, F *ierr), (req, ierr),
      prof_persist_free(PMPI_Request_f2c(*req)), NOTHING)

/* MPI_IRECV: nothing recorded, but a completion point of the tnbc overlay
 * (prof_settle) like every wrapper: a receive into a buffer it protects
 * would fault inside the MPI library. */
FWRAP(irecv, MPI_IRECV,
      (void *buf, F *count, F *type, F *source, F *tag, F *comm, F *req,
       F *ierr),
      (buf, count, type, source, tag, comm, req, ierr), NOTHING, NOTHING)

/* The blocking receive side: timed, nothing recorded. */
FWRAP_T(recv, MPI_RECV,
        (void *buf, F *count, F *type, F *source, F *tag, F *comm, F *status,
         F *ierr),
        (buf, count, type, source, tag, comm, status, ierr), NOTHING, NOTHING)
FWRAP_T(probe, MPI_PROBE, (F *source, F *tag, F *comm, F *status, F *ierr),
        (source, tag, comm, status, ierr), NOTHING, NOTHING)
FWRAP_T(wait, MPI_WAIT, (F *req, F *status, F *ierr), (req, status, ierr),
        NOTHING, NOTHING)
FWRAP_T(waitall, MPI_WAITALL, (F *count, F *reqs, F *statuses, F *ierr),
        (count, reqs, statuses, ierr), NOTHING, NOTHING)
FWRAP_T(waitany, MPI_WAITANY,
        (F *count, F *reqs, F *index, F *status, F *ierr),
        (count, reqs, index, status, ierr), NOTHING, NOTHING)
FWRAP_T(waitsome, MPI_WAITSOME,
        (F *incount, F *reqs, F *outcount, F *indices, F *statuses, F *ierr),
        (incount, reqs, outcount, indices, statuses, ierr), NOTHING, NOTHING)

/* ------------------------------------------------------- collectives -- */


/* MPI_BCAST, MPI_ALLTOALL, MPI_ALLGATHER: run by the tnbc overlay when
 * it is on (ovl_tnbc.c), with the handles converted and Fortran's
 * MPI_IN_PLACE and MPI_BOTTOM made C's (FBUF below). */
#define BCAST_RUN                                                           \
    if (ovl_tnbc_on)                                                        \
        *ierr = ovl_bcast(FBUF(buf), *count, TYPE(type), *root, COMM(comm)); \
    else                                                                    \
        f(buf, count, type, root, comm, ierr)
#define A2A_RUN(FN)                                                         \
    if (ovl_tnbc_on)                                                        \
        *ierr = FN(FBUF(sbuf), *scount, TYPE(stype), FBUF(rbuf), *rcount,   \
                   TYPE(rtype), COMM(comm));                                \
    else                                                                    \
        f(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr)
#define FBUF(b) (FIP(b) ? MPI_IN_PLACE                                      \
                 : (const void *)(b) == (const void *)&mpi_fortran_bottom_  \
                 ? MPI_BOTTOM : (b))

FWRAP_CALL(bcast, MPI_BCAST,
           (void *buf, F *count, F *type, F *root, F *comm, F *ierr),
           (buf, count, type, root, comm, ierr),
           prof_coll_bcast(COMM(comm), *count, TYPE(type), *root), NOTHING,
           BCAST_RUN)
FWRAP(ibcast, MPI_IBCAST,
      (void *buf, F *count, F *type, F *root, F *comm, F *req, F *ierr),
      (buf, count, type, root, comm, req, ierr),
      prof_coll_bcast(COMM(comm), *count, TYPE(type), *root), NOTHING)

FWRAP_T(reduce, MPI_REDUCE,
        (void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm,
         F *ierr),
        (sbuf, rbuf, count, type, op, root, comm, ierr),
        prof_coll_reduce(COMM(comm), *count, TYPE(type), *root), NOTHING)
FWRAP(ireduce, MPI_IREDUCE,
      (void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm,
       F *req, F *ierr),
      (sbuf, rbuf, count, type, op, root, comm, req, ierr),
      prof_coll_reduce(COMM(comm), *count, TYPE(type), *root), NOTHING)

#define P_RED (void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm,   \
               F *ierr)
#define A_RED (sbuf, rbuf, count, type, op, comm, ierr)
#define P_IRED (void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm,  \
                F *req, F *ierr)
#define A_IRED (sbuf, rbuf, count, type, op, comm, req, ierr)

FWRAP_T(allreduce, MPI_ALLREDUCE, P_RED, A_RED,
        prof_coll_allreduce(COMM(comm), *count, TYPE(type)), NOTHING)
FWRAP(iallreduce, MPI_IALLREDUCE, P_IRED, A_IRED,
      prof_coll_allreduce(COMM(comm), *count, TYPE(type)), NOTHING)
FWRAP_T(scan, MPI_SCAN, P_RED, A_RED,
        prof_coll_scan(COMM(comm), *count, TYPE(type)), NOTHING)
FWRAP(iscan, MPI_ISCAN, P_IRED, A_IRED,
      prof_coll_scan(COMM(comm), *count, TYPE(type)), NOTHING)
FWRAP_T(exscan, MPI_EXSCAN, P_RED, A_RED,
        prof_coll_scan(COMM(comm), *count, TYPE(type)), NOTHING)
FWRAP(iexscan, MPI_IEXSCAN, P_IRED, A_IRED,
      prof_coll_scan(COMM(comm), *count, TYPE(type)), NOTHING)
FWRAP_T(reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, P_RED, A_RED,
        prof_coll_reduce_scatter_block(COMM(comm), *count, TYPE(type)), NOTHING)
FWRAP(ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK, P_IRED, A_IRED,
      prof_coll_reduce_scatter_block(COMM(comm), *count, TYPE(type)), NOTHING)
FWRAP_T(reduce_scatter, MPI_REDUCE_SCATTER,
        (void *sbuf, void *rbuf, F *rcounts, F *type, F *op, F *comm, F *ierr),
        (sbuf, rbuf, rcounts, type, op, comm, ierr),
        prof_coll_reduce_scatter(COMM(comm), rcounts, TYPE(type)), NOTHING)
FWRAP(ireduce_scatter, MPI_IREDUCE_SCATTER,
      (void *sbuf, void *rbuf, F *rcounts, F *type, F *op, F *comm, F *req,
       F *ierr),
      (sbuf, rbuf, rcounts, type, op, comm, req, ierr),
      prof_coll_reduce_scatter(COMM(comm), rcounts, TYPE(type)), NOTHING)

/* sendbuf, scount, stype, recvbuf, rcount, rtype, comm */
#define P_A2A (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount,      \
               F *rtype, F *comm, F *ierr)
#define A_A2A (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr)
#define P_IA2A (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount,     \
                F *rtype, F *comm, F *req, F *ierr)
#define A_IA2A (sbuf, scount, stype, rbuf, rcount, rtype, comm, req, ierr)

FWRAP_CALL(alltoall, MPI_ALLTOALL, P_A2A, A_A2A,
           prof_coll_alltoall(COMM(comm), *rcount, TYPE(rtype)), NOTHING,
           A2A_RUN(ovl_alltoall))
FWRAP(ialltoall, MPI_IALLTOALL, P_IA2A, A_IA2A,
      prof_coll_alltoall(COMM(comm), *rcount, TYPE(rtype)), NOTHING)
FWRAP_CALL(allgather, MPI_ALLGATHER, P_A2A, A_A2A,
           prof_coll_allgather(COMM(comm), *rcount, TYPE(rtype)), NOTHING,
           A2A_RUN(ovl_allgather))
FWRAP(iallgather, MPI_IALLGATHER, P_IA2A, A_IA2A,
      prof_coll_allgather(COMM(comm), *rcount, TYPE(rtype)), NOTHING)

/* MPI_ALLTOALLV is recorded as always and run by the css overlay when it
 * is on: the same C function as MPI_Alltoallv's (ovl_alltoallv), with the
 * handles converted and Fortran's MPI_IN_PLACE and MPI_BOTTOM made C's (a
 * call in place is passed through to PMPI_Alltoallv there, and counted). */
#define A2AV_RUN                                                            \
    if (ovl_css_on || ovl_tnbc_on)                                          \
        *ierr = ovl_alltoallv(FBUF(sbuf), scounts, sdispls, TYPE(stype),    \
                              FBUF(rbuf), rcounts, rdispls, TYPE(rtype),    \
                              COMM(comm));                                  \
    else                                                                    \
        f(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,     \
          comm, ierr)

FWRAP_CALL(alltoallv, MPI_ALLTOALLV,
           (void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts,
            F *rdispls, F *rtype, F *comm, F *ierr),
           (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm,
            ierr),
           prof_coll_alltoallv(COMM(comm), FIP(sbuf), scounts, TYPE(stype), rcounts,
                              TYPE(rtype)), NOTHING, A2AV_RUN)
FWRAP(ialltoallv, MPI_IALLTOALLV,
      (void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts,
       F *rdispls, F *rtype, F *comm, F *req, F *ierr),
      (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm,
       req, ierr),
      prof_coll_alltoallv(COMM(comm), FIP(sbuf), scounts, TYPE(stype), rcounts,
                         TYPE(rtype)), NOTHING)

/* Alltoallw carries one Fortran type handle per peer: convert the array
 * that will be used (the only collective that allocates per call). */
static void alltoallw_f(void *sbuf, F *scounts, F *stypes, F *rcounts,
                        F *rtypes, F *comm)
{
    MPI_Comm c = COMM(comm);
    int n = 0, inter = 0, ip = FIP(sbuf);
    if (c == MPI_COMM_NULL || PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS
        || inter || PMPI_Comm_size(c, &n) != MPI_SUCCESS || n <= 0)
        return;
    MPI_Datatype *t = malloc((size_t)n * sizeof *t);
    if (!t)
        return;
    const F *ft = ip ? rtypes : stypes;
    for (int j = 0; j < n; j++)
        t[j] = PMPI_Type_f2c(ft[j]);
    prof_coll_alltoallw(c, ip, scounts, t, rcounts, t);
    free(t);
}

FWRAP_T(alltoallw, MPI_ALLTOALLW,
        (void *sbuf, F *scounts, F *sdispls, F *stypes, void *rbuf, F *rcounts,
         F *rdispls, F *rtypes, F *comm, F *ierr),
        (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm,
         ierr),
        alltoallw_f(sbuf, scounts, stypes, rcounts, rtypes, comm), NOTHING)
FWRAP(ialltoallw, MPI_IALLTOALLW,
      (void *sbuf, F *scounts, F *sdispls, F *stypes, void *rbuf, F *rcounts,
       F *rdispls, F *rtypes, F *comm, F *req, F *ierr),
      (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm,
       req, ierr),
      alltoallw_f(sbuf, scounts, stypes, rcounts, rtypes, comm), NOTHING)

FWRAP_T(allgatherv, MPI_ALLGATHERV,
        (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs,
         F *rtype, F *comm, F *ierr),
        (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr),
        prof_coll_allgatherv(COMM(comm), rcounts, TYPE(rtype)), NOTHING)
FWRAP(iallgatherv, MPI_IALLGATHERV,
      (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs,
       F *rtype, F *comm, F *req, F *ierr),
      (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req, ierr),
      prof_coll_allgatherv(COMM(comm), rcounts, TYPE(rtype)), NOTHING)

#define P_ROOTED (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount,   \
                  F *rtype, F *root, F *comm, F *ierr)
#define A_ROOTED (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr)
#define P_IROOTED (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount,  \
                   F *rtype, F *root, F *comm, F *req, F *ierr)
#define A_IROOTED (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req, \
                   ierr)

FWRAP_T(gather, MPI_GATHER, P_ROOTED, A_ROOTED,
        prof_coll_gather(COMM(comm), *scount, TYPE(stype), *root), NOTHING)
FWRAP(igather, MPI_IGATHER, P_IROOTED, A_IROOTED,
      prof_coll_gather(COMM(comm), *scount, TYPE(stype), *root), NOTHING)
FWRAP_T(scatter, MPI_SCATTER, P_ROOTED, A_ROOTED,
        prof_coll_scatter(COMM(comm), *scount, TYPE(stype), *root), NOTHING)
FWRAP(iscatter, MPI_ISCATTER, P_IROOTED, A_IROOTED,
      prof_coll_scatter(COMM(comm), *scount, TYPE(stype), *root), NOTHING)

FWRAP_T(gatherv, MPI_GATHERV,
        (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs,
         F *rtype, F *root, F *comm, F *ierr),
        (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr),
        prof_coll_gather(COMM(comm), *scount, TYPE(stype), *root), NOTHING)
FWRAP(igatherv, MPI_IGATHERV,
      (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs,
       F *rtype, F *root, F *comm, F *req, F *ierr),
      (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req,
       ierr),
      prof_coll_gather(COMM(comm), *scount, TYPE(stype), *root), NOTHING)
FWRAP_T(scatterv, MPI_SCATTERV,
        (void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount,
         F *rtype, F *root, F *comm, F *ierr),
        (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr),
        prof_coll_scatterv(COMM(comm), scounts, TYPE(stype), *root), NOTHING)
FWRAP(iscatterv, MPI_ISCATTERV,
      (void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount,
       F *rtype, F *root, F *comm, F *req, F *ierr),
      (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req,
       ierr),
      prof_coll_scatterv(COMM(comm), scounts, TYPE(stype), *root), NOTHING)

FWRAP_T(barrier, MPI_BARRIER, (F *comm, F *ierr), (comm, ierr),
        prof_coll_barrier(COMM(comm)), NOTHING)
FWRAP(ibarrier, MPI_IBARRIER, (F *comm, F *req, F *ierr), (comm, req, ierr),
      prof_coll_barrier(COMM(comm)), NOTHING)
