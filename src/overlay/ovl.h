/*
 * ovl.h -- the communication overlays inside libclustermap-prof.so
 * (docs/overlays.md): MPI calls the profiler's wrappers hand over to a
 * faster algorithm of clustermap's own instead of PMPI.
 *
 * The overlays are independent of the profiler's recording: they run when
 * CLUSTERMAP_OVERLAY asks for them (ovl_config.c), whether or not the
 * profiler records this run.  All they see of the profiler, and all it
 * sees of them, is src/profiler/prof_overlay.h: the profiler's services
 * (clock, printing, mpirun's control file) and the hooks its wrappers call
 * (ovl_pre_init, ovl_start, ovl_finish, the collectives, the tnbc
 * completion point), implemented here.  This header is the overlay's
 * own: the profiler never includes it.
 *
 *  ovl_state.c   the switches (ovl_css_on), set up at MPI_Init, the report
 *                at MPI_Finalize
 *  ovl_agree.c   every rank runs the overlays or none does: PMIx keys
 *                (PMIx_Init interposed) carried by MPI_Init's own fence,
 *                no collective of ours
 *  ovl_css.c     MPI_Alltoallv by contention-free schedules
 *                (css_schedule.h; docs/overlays.md, "The css overlay"),
 *                cached per communicator
 *  ovl_tnbc.c    MPI_Alltoall(v), MPI_Allgather, MPI_Bcast returning
 *                before their data arrived (docs/overlays.md, "The tnbc
 *                overlay"), pages protected until complete; ovl_ivl.c the
 *                protected ranges; ovl_tprio.c its trace and priorities
 *                (call sites, the files), src/trace/trace.h their table
 *                and file format, ovl_waves.c the per-node rule's chains
 *  ovl_config.c, ovl_report.c   the text (ovl_text.h)
 */
#ifndef CM_OVL_H
#define CM_OVL_H

#include <mpi.h>

#include "ovl_text.h"
#include "prof_overlay.h" /* the profiler's services; our hooks */
#include "trace.h"

/* The profiler sees the overlays through prof_overlay.h only, and they
 * see it the same way: a source that has both headers would tie the two
 * together again. */
#ifdef CM_PROF_H
#error "ovl.h: a profiler source includes prof_overlay.h, not ovl.h"
#endif

/* The switches ovl_css_on, ovl_tnbc_on and the hooks ovl_pre_init,
 * ovl_start, ovl_finish, ovl_alltoall(v), ovl_allgather, ovl_bcast and
 * prof_ovl_settle are declared, with their contracts, in prof_overlay.h. */

/* ovl_agree.c: before PMPI init, note the overlays CLUSTERMAP_OVERLAY
 * asks for, which the interposed PMIx_Init then puts under a PMIx key of
 * this rank when the MPI library starts its PMIx client. */
OVL_HIDDEN void ovl_agree_want(void);
/* ovl_agree.c: after PMPI init, the overlays of @p want this rank may run:
 * @p want when every rank of MPI_COMM_WORLD (@p size) published the same,
 * else 0 on every rank, with one line from the lowest rank that published.
 * Local: reads what MPI_Init's fence brought, never waits. */
OVL_HIDDEN unsigned ovl_agree(unsigned want, int rank, int size);

/* One line "clustermap overlay: <message>" on stderr (prof_vsay). */
OVL_HIDDEN void ovl_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ovl_tnbc.c: MPI_Alltoallv by tnbc (ovl_alltoallv calls it when css is
 * off and tnbc on). */
OVL_HIDDEN int ovl_tnbc_alltoallv(const void *sbuf, const int *scounts,
                                  const int *sdispls, MPI_Datatype stype, void *rbuf,
                                  const int *rcounts, const int *rdispls,
                                  MPI_Datatype rtype, MPI_Comm comm);
/* ovl_tnbc.c: the attribute of the private duplicates and the SIGSEGV
 * handler (at MPI_Init); -1 when either cannot be made. */
OVL_HIDDEN int ovl_tnbc_setup(void);
/* ovl_tnbc.c: complete what is pending, stop the progress thread, free the
 * attribute (at MPI_Finalize). */
OVL_HIDDEN void ovl_tnbc_teardown(void);
OVL_HIDDEN void ovl_tnbc_stats(ovl_tnbc_stats_t *out);

/* ovl_waves.c (the per-node rule, CLUSTERMAP_OVERLAY_WAVES;
 * docs/overlays.md, "Waves: the per-node rule"): set at MPI_Init when
 * every rank asked for it and runs tnbc; never changed after, until
 * MPI_Finalize. */
extern OVL_HIDDEN int ovl_waves_on;
/* Non-zero when CLUSTERMAP_OVERLAY_WAVES asks for waves (set, not "0"). */
OVL_HIDDEN int ovl_waves_want(void);
/* The attribute the chains are kept in (at MPI_Init); -1 when it cannot
 * be made.  ovl_waves_teardown frees it (at MPI_Finalize). */
OVL_HIDDEN int ovl_waves_setup(void);
OVL_HIDDEN void ovl_waves_teardown(void);
/* A rank's place in its node's chain of a private duplicate of n ranks:
 * the previous and the next rank of the chain (-1: none), the chain's
 * length, and 2n requests a rank of the chain that runs the call blocking
 * posts its exchange with (calls on one communicator never overlap). */
typedef struct ovl_chain {
    int prev, next, len;
    MPI_Request req[];
} ovl_chain_t;
/* Collective on @p d, tnbc's private duplicate, at its making: when waves
 * are on, work out this rank's chain (the ranks of @p d on its node, in
 * rank order) and keep it on @p d if every rank could, else on no rank;
 * nothing after the ranks agree can fail on one rank alone. */
OVL_HIDDEN void ovl_waves_mark(MPI_Comm d);
/* This rank's chain of @p d, or NULL when @p d runs without waves. */
OVL_HIDDEN ovl_chain_t *ovl_waves_chain(MPI_Comm d);

/* ovl_css.c: create the communicator attribute the schedules are cached in
 * (at MPI_Init); -1 when it cannot be (every call then falls back, decided
 * with the other ranks). */
OVL_HIDDEN int ovl_css_setup(void);
/* ovl_css.c: free every cached schedule and private communicator, and the
 * attribute (at MPI_Finalize). */
OVL_HIDDEN void ovl_css_teardown(void);
/* ovl_css.c: this rank's figures so far. */
OVL_HIDDEN void ovl_css_stats(ovl_css_stats_t *out);

/* ovl_tprio.c (libclustermap-prof.so only): the trace mode and the
 * priorities of the tnbc overlay, driven by CLUSTERMAP_OVERLAY_TRACE and
 * CLUSTERMAP_OVERLAY_PRIO. */

/* At MPI_Init (ovl_tnbc_setup): read the environment, load this rank's
 * priorities (rank @p world_rank of MPI_COMM_WORLD).  Local, never fails:
 * a bad file is reported (its name and line) and ignored. */
OVL_HIDDEN void ovl_tprio_start(int world_rank);

/* At a tnbc call about to post its sub-messages (application thread): the
 * site to record the call's touch order into (*rec, NULL when not
 * tracing) and the priority order of its peers (the result: n - 1 ranks,
 * NULL for rank order).  *aside = 1 when the trace read says the site
 * steps aside (trace_aside; CLUSTERMAP_OVERLAY_ASIDE=0 never): the
 * call then runs blocking, *rec is NULL and, when tracing, the site's
 * record is carried over from the trace read, so that the new trace says
 * the same. */
OVL_HIDDEN const int *ovl_tprio_site(int coll, int n, int me, trace_site_t **rec,
                                     int *aside);

/* At MPI_Init, after every rank turned tnbc on (ovl_start): the
 * agreement above, collective over MPI_COMM_WORLD, so that every rank
 * decides alike which sites step aside, whichever trace it read (its
 * own, another rank's times, none).  One MPI_Allreduce of
 * 2 * TRACE_AGREE_SLOTS + 1 integers, and a second when some rank read a
 * trace; without an agreement each rank decides from its own file. */
OVL_HIDDEN void ovl_tprio_agree(void);

/* At MPI_Finalize (ovl_tnbc_teardown): write this rank's trace when
 * tracing, free everything. */
OVL_HIDDEN void ovl_tprio_finish(void);

#endif /* CM_OVL_H */
