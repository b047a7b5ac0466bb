/*
 * prof.h -- internals of libclustermap-prof.so, the PMPI profiling library.
 *
 * The library is LD_PRELOADed into unmodified MPI programs.  Every wrapper
 * (C in prof_p2p.c / prof_coll.c, Fortran in prof_fortran.c) first checks
 * prof_active, records the traffic the call stands for with the functions
 * below, and passes the call on to PMPI (C) or to Open MPI's own Fortran
 * binding (Fortran) -- or, for a call a communication overlay may run
 * (MPI_Alltoall(v), MPI_Allgather, MPI_Bcast), to the overlay's hook,
 * which is independent of the recording.  What the profiler and the
 * overlays offer each other is prof_overlay.h, the only header the two
 * share.  Every wrapper first calls prof_settle (below), the tnbc overlay's
 * completion point.  The blocking calls are also timed (prof_timing, "time"
 * below).  prof_state.c owns all state; prof_write.c gathers it at
 * MPI_Finalize and writes the raw profile (docs/profile-format.md).
 *
 * Everything here is private to the .so: the only exported symbols are the
 * MPI/Fortran entry points being wrapped.
 */
#ifndef CM_PROF_H
#define CM_PROF_H

#include <mpi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>

#include "prof_overlay.h"   /* PROF_HIDDEN, PROF_INLINE, prof_now, the hooks */

/* The overlays see the profiler through prof_overlay.h only: a source
 * that has both headers would tie the two together again. */
#ifdef CM_OVL_H
#error "prof.h: an overlay source includes prof_overlay.h, not prof.h"
#endif

#define PROF_LIKELY(x) __builtin_expect(!!(x), 1)
#define PROF_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The two rows every rank keeps: what it sent point-to-point, and what the
 * collectives it called stand for under the reference algorithms. */
enum { PROF_P2P = 0, PROF_COLL = 1, PROF_NKINDS = 2 };

/* Non-zero between a profiled MPI_Init and the start of MPI_Finalize, when
 * CLUSTERMAP_PROFILE_DIR is set and CLUSTERMAP_PROFILE_TRAFFIC is not "0".
 * Zero means no wrapper records traffic. */
extern PROF_HIDDEN volatile int prof_active;

/* Called by the init wrappers after a successful PMPI init (any language),
 * with the thread level provided (MPI_THREAD_SINGLE for MPI_Init). */
PROF_HIDDEN void prof_start(int provided);
/* Called by the finalize wrappers before PMPI_Finalize: gathers and writes
 * the profile, frees everything, and sets prof_active to 0. */
PROF_HIDDEN void prof_finish(void);

/* First thing in every wrapper: complete the tnbc overlay's pending call,
 * if any (prof_ovl_pending, prof_ovl_settle: prof_overlay.h). */
PROF_INLINE void prof_settle(void)
{
    if (PROF_UNLIKELY(__atomic_load_n(&prof_ovl_pending, __ATOMIC_RELAXED)))
        prof_ovl_settle();
}

/* Non-zero once MPI_Init (any language) returned successfully. */
extern PROF_HIDDEN int prof_mpi_seen;

/* prof_write.c: MPI_Init was called: this task uses MPI after all (the
 * "part.<task>.nompi" mark made when the library was loaded goes). */
PROF_HIDDEN void prof_nompi_clear(void);

/** One line "clustermap-prof: <message>" on stderr: prof_vsay
 *  (prof_overlay.h) with the profiler's prefix. */
PROF_HIDDEN void prof_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* prof_write.c: write this rank's part of the raw profile (format 2) into
 * @p dir: when @p traffic, the @p nmine quadruples kind, world dst, bytes,
 * msgs of @p mine, else a "traffic off" line and no rows; always the "time"
 * line, from @p elapsed_ns and @p mpi_ns.  Local: no other rank is
 * involved, so a rank that cannot profile never makes another one wait.
 * Never fails the program. */
PROF_HIDDEN void prof_write_part(int rank, int size, int traffic,
                               const uint64_t *mine, size_t nmine,
                               uint64_t elapsed_ns, uint64_t mpi_ns,
                               const char *dir);

/* ------------------------------------------------------------ time --
 * Each rank measures, on CLOCK_MONOTONIC, the time from the return of
 * MPI_Init (C or Fortran, prof_start) to the entry of MPI_Finalize
 * (prof_finish), and the part of it spent inside the blocking calls:
 *
 *   timed      MPI_Recv, Wait, Waitall, Waitany, Waitsome, Probe, Sendrecv,
 *              Sendrecv_replace, and the blocking collectives (Barrier,
 *              Bcast, Reduce, Allreduce, Alltoall(v,w), Allgather(v),
 *              Gather(v), Scatter(v), Reduce_scatter(_block), Scan,
 *              Exscan), in C and Fortran (all bindings);
 *   not timed  the sends (Send, Isend, ... and their persistent forms,
 *              Start(all)), whose fast path stays as cheap as above; the
 *              non-blocking collectives (their wait is timed); Test*,
 *              Iprobe, Mprobe/Mrecv, one-sided, I/O and everything else
 *              not wrapped.
 *
 * Calls that overlap in several threads each count (MPI time can then
 * exceed the elapsed time).
 *
 * A timed call costs one clock_gettime pair and an atomic add, and only
 * while prof_timing is set: between a profiled MPI_Init and MPI_Finalize,
 * whether or not traffic is recorded (CLUSTERMAP_PROFILE_TRAFFIC=0 turns
 * recording off and leaves the timing: "time only" mode).  The time spent
 * recording a collective's traffic is outside the timed interval. */
extern PROF_HIDDEN volatile int prof_timing;
/* Nanoseconds spent in timed calls so far (atomic adds). */
extern PROF_HIDDEN uint64_t prof_mpi_ns;

/* Start of a timed call: a time stamp, or 0 when not timing. */
PROF_INLINE uint64_t prof_time_begin(void)
{
    return prof_timing ? prof_now() : 0;
}

/* End of the timed call begun at @p t0 (0: not timed). */
PROF_INLINE void prof_time_end(uint64_t t0)
{
    if (t0 && prof_timing)
        __atomic_fetch_add(&prof_mpi_ns, prof_now() - t0, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------ hot state --
 * Everything the common case of a send needs, in one hidden global (reached
 * PC-relative, no GOT), so that recording it costs ~20 instructions: a
 * send on the "hot" communicator (the last one a send, send-init or
 * collective used, initially MPI_COMM_WORLD) of the "hot" datatype (the
 * last named datatype sent), in a job small enough for dense rows, without
 * MPI_THREAD_MULTIPLE.  Anything else takes the out-of-line path
 * (prof_send), which refreshes both.  Fields are written only by
 * prof_state.c, always with the lock held. */

/* Traffic to one destination: the two counters sit together so that a send
 * touches one cache line. */
typedef struct prof_cell {
    uint64_t bytes, msgs;
} prof_cell_t;

/* Type cache (types[], sizes[] below): direct-mapped, keyed by the handle.
 * It and the hot datatype hold only named (predefined) datatypes, which are
 * never freed, so an entry can never go stale (a derived type's handle can
 * come back as another type after MPI_Type_free); derived types are always
 * sized by PMPI_Type_size_x. */
#define PROF_TCACHE_BITS 6
#define PROF_TCACHE_SIZE (1 << PROF_TCACHE_BITS)

typedef struct prof_hot {
    MPI_Comm comm;       /* hot communicator, MPI_COMM_NULL = none */
    unsigned ndest;      /* its destination group size (0 = none) */
    unsigned ndense;     /* dense rows: world size; 0 = rows are hashed */
    const int *world;    /* [ndest] world rank of each of its destinations,
                            all valid (a communicator reaching outside
                            MPI_COMM_WORLD is never hot) */
    prof_cell_t *dense[PROF_NKINDS];  /* [ndense] the dense rows */
    MPI_Datatype type;   /* hot datatype (named), and its size in bytes */
    uint64_t size;
    MPI_Datatype types[PROF_TCACHE_SIZE];  /* MPI_DATATYPE_NULL = empty */
    uint64_t sizes[PROF_TCACHE_SIZE];      /* size in bytes of types[i] */
} prof_hot_t;

extern PROF_HIDDEN prof_hot_t prof_hot;

/* Serialise recording when the program runs MPI_THREAD_MULTIPLE.  There is
 * no hot communicator then, so the inlined send path needs no lock. */
extern PROF_HIDDEN int prof_multi;
extern PROF_HIDDEN pthread_mutex_t prof_mutex;

PROF_INLINE void prof_lock(void)
{
    if (PROF_UNLIKELY(prof_multi))
        pthread_mutex_lock(&prof_mutex);
}

PROF_INLINE void prof_unlock(void)
{
    if (PROF_UNLIKELY(prof_multi))
        pthread_mutex_unlock(&prof_mutex);
}

/* The type cache slot of @p type. */
PROF_INLINE size_t prof_tslot(MPI_Datatype type)
{
    uint64_t h = (uint64_t)(uintptr_t)type * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> (64 - PROF_TCACHE_BITS));
}

/* Traffic to world ranks outside the dense rows (out of range, or hashed
 * rows); called by prof_add. */
PROF_HIDDEN void prof_add_slow(int kind, int wdst, uint64_t bytes,
                             uint64_t msgs);

/* Add traffic to world rank @p wdst of row @p kind (lock held). */
PROF_INLINE void prof_add(int kind, int wdst, uint64_t bytes, uint64_t msgs)
{
    if (PROF_LIKELY((unsigned)wdst < prof_hot.ndense)) {
        prof_cell_t *c = &prof_hot.dense[kind][wdst];
        c->bytes += bytes;
        c->msgs += msgs;
        return;
    }
    prof_add_slow(kind, wdst, bytes, msgs);
}

/* prof_bytes for a type missing from the type cache (lock held). */
PROF_HIDDEN uint64_t prof_bytes_slow(int count, MPI_Datatype type);

/* Make @p type the hot datatype if it is in the type cache (lock held). */
PROF_HIDDEN void prof_hot_type(MPI_Datatype type);

/* Bytes of @p count elements of @p type (0 on a bad type or count); call
 * with the lock held (it may fill the type cache). */
PROF_INLINE uint64_t prof_bytes(int count, MPI_Datatype type)
{
    size_t i = prof_tslot(type);
    if (PROF_LIKELY(prof_hot.types[i] == type))
        return count > 0 ? (uint64_t)count * prof_hot.sizes[i] : 0;
    return prof_bytes_slow(count, type);
}

/* A communicator's view used to turn its ranks into MPI_COMM_WORLD ranks. */
typedef struct prof_comm {
    int size;          /* local group size */
    int rank;          /* my rank in it */
    int inter;         /* intercommunicator: destinations are remote ranks */
    int ndest;         /* size of the destination group */
    const int *world;  /* [ndest] world rank of each destination rank, or
                          NULL when it is the identity (MPI_COMM_WORLD) */
} prof_comm_t;

/* Fill @p c for @p comm (cached per communicator with an attribute; call
 * with the lock held) and make it the hot communicator when it can be.
 * Returns -1 when the communicator cannot be used. */
PROF_HIDDEN int prof_comm_get(MPI_Comm comm, prof_comm_t *c);

/* -- point-to-point (prof_p2p.c) -- */

/* One send of @p count x @p type to @p dest of @p comm, while recording:
 * the general case of prof_send_hot. */
PROF_HIDDEN void prof_send(MPI_Comm comm, int dest, int count, MPI_Datatype type);

/* Record one send in the common case (see "hot state" above): no call, no
 * lock.  Returns 0 when the send is not covered, and the caller must then
 * call prof_send (if prof_active).  A negative count is left to prof_send.
 * The C wrappers test it in their own body and leave the rest to an
 * out-of-line function, so that the common case needs no stack frame
 * either. */
PROF_INLINE int prof_send_hot(MPI_Comm comm, int dest, int count,
                            MPI_Datatype type)
{
    if (PROF_UNLIKELY(comm != prof_hot.comm || (unsigned)dest >= prof_hot.ndest ||
                     prof_hot.type != type || count < 0))
        return 0;
    uint64_t bytes = (uint64_t)count * prof_hot.size;
    prof_cell_t *c = &prof_hot.dense[PROF_P2P][prof_hot.world[dest]];
    c->bytes += bytes;
    c->msgs++;
    return 1;
}

/* Record one send, whatever the case (a no-op unless recording). */
PROF_INLINE void prof_send_any(MPI_Comm comm, int dest, int count,
                             MPI_Datatype type)
{
    if (!prof_send_hot(comm, dest, count, type) && prof_active)
        prof_send(comm, dest, count, type);
}

/* A persistent send request was created / started / freed. */
PROF_HIDDEN void prof_persist_new(MPI_Request req, MPI_Comm comm, int dest,
                                int count, MPI_Datatype type);
PROF_HIDDEN void prof_persist_start(int n, const MPI_Request *reqs);
PROF_HIDDEN void prof_persist_free(MPI_Request req);
/* Forget all persistent requests (at finish). */
PROF_HIDDEN void prof_persist_clear(void);

/* -- collectives (prof_coll.c): the traffic this rank sends under the
 *    reference algorithm of each collective.  @p in_place is non-zero when
 *    the send buffer was MPI_IN_PLACE. -- */
PROF_HIDDEN void prof_coll_bcast(MPI_Comm comm, int count, MPI_Datatype type,
                               int root);
PROF_HIDDEN void prof_coll_reduce(MPI_Comm comm, int count, MPI_Datatype type,
                                int root);
PROF_HIDDEN void prof_coll_allreduce(MPI_Comm comm, int count, MPI_Datatype type);
/* Alltoall and Allgather blocks are measured on the receive side, which
 * is valid with and without MPI_IN_PLACE (type signatures must match). */
PROF_HIDDEN void prof_coll_alltoall(MPI_Comm comm, int rcount, MPI_Datatype rtype);
PROF_HIDDEN void prof_coll_alltoallv(MPI_Comm comm, int in_place,
                                   const int *scounts, MPI_Datatype stype,
                                   const int *rcounts, MPI_Datatype rtype);
PROF_HIDDEN void prof_coll_alltoallw(MPI_Comm comm, int in_place,
                                   const int *scounts,
                                   const MPI_Datatype *stypes,
                                   const int *rcounts,
                                   const MPI_Datatype *rtypes);
PROF_HIDDEN void prof_coll_allgather(MPI_Comm comm, int rcount, MPI_Datatype rtype);
PROF_HIDDEN void prof_coll_allgatherv(MPI_Comm comm, const int *rcounts,
                                    MPI_Datatype rtype);
PROF_HIDDEN void prof_coll_gather(MPI_Comm comm, int scount, MPI_Datatype stype,
                                int root);
PROF_HIDDEN void prof_coll_scatter(MPI_Comm comm, int scount, MPI_Datatype stype,
                                 int root);
PROF_HIDDEN void prof_coll_scatterv(MPI_Comm comm, const int *scounts,
                                  MPI_Datatype stype, int root);
PROF_HIDDEN void prof_coll_reduce_scatter(MPI_Comm comm, const int *rcounts,
                                        MPI_Datatype type);
PROF_HIDDEN void prof_coll_reduce_scatter_block(MPI_Comm comm, int rcount,
                                              MPI_Datatype type);
PROF_HIDDEN void prof_coll_barrier(MPI_Comm comm);
PROF_HIDDEN void prof_coll_scan(MPI_Comm comm, int count, MPI_Datatype type);

#endif /* CM_PROF_H */
