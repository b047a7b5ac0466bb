/*
 * prof.h -- internals of libclustermap-prof.so, the PMPI profiling library.
 *
 * The library is LD_PRELOADed into unmodified MPI programs.  Every wrapper
 * (C in prof_p2p.c / prof_coll.c, Fortran in prof_fortran.c) first checks
 * cmp_active, records the traffic the call stands for with the functions
 * below, and passes the call on to PMPI (C) or to Open MPI's own Fortran
 * binding (Fortran).  prof_state.c owns all state; prof_write.c gathers it at
 * MPI_Finalize and writes the raw profile (docs/profile-format.md).
 *
 * Everything here is private to the .so: the only exported symbols are the
 * MPI/Fortran entry points being wrapped.
 */
#ifndef CMP_PROF_H
#define CMP_PROF_H

#include <mpi.h>
#include <stdint.h>

#define CMP_HIDDEN __attribute__((visibility("hidden")))

/* The two rows every rank keeps: what it sent point-to-point, and what the
 * collectives it called stand for under the reference algorithms. */
enum { CMP_P2P = 0, CMP_COLL = 1, CMP_NKINDS = 2 };

/* Non-zero between a profiled MPI_Init and the start of MPI_Finalize, when
 * CLUSTERMAP_PROFILE_DIR is set.  Zero means every wrapper only passes on. */
extern CMP_HIDDEN volatile int cmp_active;

/* Called by the init wrappers after a successful PMPI init (any language),
 * with the thread level provided (MPI_THREAD_SINGLE for MPI_Init). */
CMP_HIDDEN void cmp_start(int provided);
/* Called by the finalize wrappers before PMPI_Finalize: gathers and writes
 * the profile, frees everything, and sets cmp_active to 0. */
CMP_HIDDEN void cmp_finish(void);

/* prof_write.c: gather every rank's quadruples (kind, world dst, bytes,
 * msgs), @p nmine of them from this rank, to rank 0 of @p comm (a duplicate
 * of MPI_COMM_WORLD), which writes the raw profile into @p dir.  Collective
 * over @p comm; never fails the program. */
CMP_HIDDEN void cmp_write_profile(MPI_Comm comm, int rank, int size,
                                  const uint64_t *mine, size_t nmine,
                                  const char *dir);

/* Serialise recording when the program runs MPI_THREAD_MULTIPLE (no-ops
 * otherwise). */
CMP_HIDDEN void cmp_lock(void);
CMP_HIDDEN void cmp_unlock(void);

/* A communicator's view used to turn its ranks into MPI_COMM_WORLD ranks. */
typedef struct cmp_comm {
    int size;          /* local group size */
    int rank;          /* my rank in it */
    int inter;         /* intercommunicator: destinations are remote ranks */
    int ndest;         /* size of the destination group */
    const int *world;  /* [ndest] world rank of each destination rank, or
                          NULL when it is the identity (MPI_COMM_WORLD) */
} cmp_comm_t;

/* Fill @p c for @p comm (cached per communicator with an attribute; call
 * with the lock held).  Returns -1 when the communicator cannot be used. */
CMP_HIDDEN int cmp_comm_get(MPI_Comm comm, cmp_comm_t *c);

/* Add traffic to world rank @p wdst of row @p kind (lock held). */
CMP_HIDDEN void cmp_add(int kind, int wdst, uint64_t bytes, uint64_t msgs);

/* Bytes of @p count elements of @p type (0 on a bad type or count). */
CMP_HIDDEN uint64_t cmp_bytes(int count, MPI_Datatype type);

/* -- point-to-point (prof_p2p.c) -- */

/* One send of @p count x @p type to @p dest of @p comm. */
CMP_HIDDEN void cmp_send(MPI_Comm comm, int dest, int count, MPI_Datatype type);
/* A persistent send request was created / started / freed. */
CMP_HIDDEN void cmp_persist_new(MPI_Request req, MPI_Comm comm, int dest,
                                int count, MPI_Datatype type);
CMP_HIDDEN void cmp_persist_start(int n, const MPI_Request *reqs);
CMP_HIDDEN void cmp_persist_free(MPI_Request req);
/* Forget all persistent requests (at finish). */
CMP_HIDDEN void cmp_persist_clear(void);

/* -- collectives (prof_coll.c): the traffic this rank sends under the
 *    reference algorithm of each collective.  @p in_place is non-zero when
 *    the send buffer was MPI_IN_PLACE. -- */
CMP_HIDDEN void cmp_coll_bcast(MPI_Comm comm, int count, MPI_Datatype type,
                               int root);
CMP_HIDDEN void cmp_coll_reduce(MPI_Comm comm, int count, MPI_Datatype type,
                                int root);
CMP_HIDDEN void cmp_coll_allreduce(MPI_Comm comm, int count, MPI_Datatype type);
/* Alltoall and Allgather blocks are measured on the receive side, which
 * is valid with and without MPI_IN_PLACE (type signatures must match). */
CMP_HIDDEN void cmp_coll_alltoall(MPI_Comm comm, int rcount, MPI_Datatype rtype);
CMP_HIDDEN void cmp_coll_alltoallv(MPI_Comm comm, int in_place,
                                   const int *scounts, MPI_Datatype stype,
                                   const int *rcounts, MPI_Datatype rtype);
CMP_HIDDEN void cmp_coll_alltoallw(MPI_Comm comm, int in_place,
                                   const int *scounts,
                                   const MPI_Datatype *stypes,
                                   const int *rcounts,
                                   const MPI_Datatype *rtypes);
CMP_HIDDEN void cmp_coll_allgather(MPI_Comm comm, int rcount, MPI_Datatype rtype);
CMP_HIDDEN void cmp_coll_allgatherv(MPI_Comm comm, const int *rcounts,
                                    MPI_Datatype rtype);
CMP_HIDDEN void cmp_coll_gather(MPI_Comm comm, int scount, MPI_Datatype stype,
                                int root);
CMP_HIDDEN void cmp_coll_scatter(MPI_Comm comm, int scount, MPI_Datatype stype,
                                 int root);
CMP_HIDDEN void cmp_coll_scatterv(MPI_Comm comm, const int *scounts,
                                  MPI_Datatype stype, int root);
CMP_HIDDEN void cmp_coll_reduce_scatter(MPI_Comm comm, const int *rcounts,
                                        MPI_Datatype type);
CMP_HIDDEN void cmp_coll_reduce_scatter_block(MPI_Comm comm, int rcount,
                                              MPI_Datatype type);
CMP_HIDDEN void cmp_coll_barrier(MPI_Comm comm);
CMP_HIDDEN void cmp_coll_scan(MPI_Comm comm, int count, MPI_Datatype type);

#endif /* CMP_PROF_H */
