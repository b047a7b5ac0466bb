/*
 * prof_overlay.h -- the one header the PMPI profiler and the communication
 * overlays share inside libclustermap-prof.so (docs/overlays.md).
 *
 * The profiler owns it.  An overlay includes this header and never prof.h;
 * the profiler's sources include prof.h and this header and never an
 * overlay's: at the include level the overlays depend on the profiler and
 * not the other way round.  It holds two lists:
 *
 *  (a) services: what the profiler offers an overlay -- a clock, its way
 *      of printing a line, the control file of clustermap's mpirun, the
 *      datatype size call of the MPI version built against;
 *  (b) hooks: what the profiler's wrappers call and the overlays
 *      implement (src/overlay/ovl_state.c, ovl_css.c, ovl_tnbc.c), with
 *      when, from which thread, and whether the call is collective.
 *
 * The overlays are independent of the profiler's recording: a hook runs
 * whether or not this run is profiled (prof_active in prof.h), and the
 * wrappers record a call before they hand it to a hook; the overlays'
 * own messages are PMPI calls, which no wrapper sees.
 *
 * Everything here is private to the .so (hidden): the version script
 * exports the MPI and Fortran entry points only.
 */
#ifndef CM_PROF_OVERLAY_H
#define CM_PROF_OVERLAY_H

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define PROF_HIDDEN __attribute__((visibility("hidden")))
/* The recording fast path is inlined into every wrapper: a call would cost
 * as much as the work itself (see bench/prof_overhead.sh). */
#define PROF_INLINE static inline __attribute__((always_inline))

/* ============================================ (a) services, profiler -- */

/* CLOCK_MONOTONIC in nanoseconds.  Any thread; never fails (the clock
 * exists on every Linux). */
PROF_INLINE uint64_t prof_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* prof_write.c: one line "<prefix><message>" on stderr in a single
 * write(2), so that the lines of ranks sharing a launcher's stderr never
 * interleave (Open MPI 5's mpirun forwarded a long line in two pieces).
 * @p prefix is a short constant ("clustermap overlay: "); @p fmt should end
 * in a newline.  A line longer than 1023 bytes is written whole from the
 * heap (not from a signal handler, then); only when memory runs out is it
 * cut there, ending in " [line cut at 1023 bytes]" and a newline.  A short
 * or failed write is not retried (a lost line is better than a program
 * held up).  Any thread, no MPI call. */
PROF_HIDDEN void prof_vsay(const char *prefix, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* prof_state.c: the text of the control file clustermap's mpirun gives
 * its ranks (CLUSTERMAP_PROFILE_CONTROL: the srun of mpirun's daemons
 * writes it before any rank starts, src/launch/mpirun_record.c): its
 * first @p size - 1 bytes into @p buf, NUL-terminated ("" when the file
 * cannot be read); @p size is at least 1.  PROF_CONTROL_MAX holds every
 * file mpirun writes: a mode line and a trace prefix of fewer than
 * 2 x CMP_PATH_MAX bytes (src/launch/cmp_limits.h).  -1 when the
 * variable is unset or empty, else 0.  Reads the file again at every
 * call; local, no MPI call. */
#define PROF_CONTROL_MAX 8192
PROF_HIDDEN int prof_control_read(char *buf, size_t size);

/* A datatype's size as an MPI_Count, (type, MPI_Count *size) -> MPI
 * error code: MPI-4.1 deprecates MPI_Type_size_x for MPI_Type_size_c
 * (Open MPI 6).  A PMPI call, which no wrapper sees. */
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
#define PROF_TYPE_SIZE PMPI_Type_size_c
#else
#define PROF_TYPE_SIZE PMPI_Type_size_x
#endif

/* ========================================== (b) hooks, the overlays -- */

/* ovl_state.c: non-zero when the css overlay runs.  Set in ovl_start and
 * never changed until ovl_finish, so that every call of the run takes the
 * same path on every rank with the same environment.  The Fortran
 * MPI_ALLTOALLV reads it (with ovl_tnbc_on) to choose ovl_alltoallv over
 * Open MPI's own binding. */
extern PROF_HIDDEN int ovl_css_on;
/* ovl_tnbc.c: non-zero when the tnbc overlay runs (asked for, and
 * MPI_THREAD_MULTIPLE granted on every rank); set in ovl_start, cleared in
 * ovl_finish.  The Fortran MPI_BCAST, MPI_ALLTOALL(V) and MPI_ALLGATHER
 * read it to choose the hooks below over Open MPI's own bindings. */
extern PROF_HIDDEN int ovl_tnbc_on;

/* ovl_state.c: called by the init wrappers (C and Fortran), in the thread
 * that calls MPI_Init, before PMPI init: note the overlays asked for
 * (their agreement's key, published during PMPI init) and return the
 * thread level to ask PMPI for, given the program's @p required:
 * MPI_THREAD_MULTIPLE when CLUSTERMAP_OVERLAY names tnbc (its progress
 * thread calls MPI), else @p required.  The wrappers report to the
 * program min(required, granted).  Local; may be called twice (Fortran's
 * MPI_INIT runs as MPI_INIT_THREAD). */
PROF_HIDDEN int ovl_pre_init(int required);

/* ovl_state.c: called by the init wrappers after a successful PMPI init
 * (any language) and prof_start, with the level PMPI granted: read the
 * environment, print rank 0's note about it, agree with every rank on the
 * overlays to run, set them up.  With tnbc asked for it is collective
 * over MPI_COMM_WORLD (allreduces: whether every rank could set tnbc up,
 * then which call sites step aside), reached only when the agreement
 * found the library on every rank, which all call it then.  A
 * second call does nothing.  Never fails the program: what cannot be set
 * up on some rank makes the overlay step aside on every rank. */
PROF_HIDDEN void ovl_start(int granted);

/* ovl_state.c: called by the finalize wrappers before prof_finish and
 * PMPI_Finalize, in the thread that calls MPI_Finalize: complete what tnbc
 * left pending, stop its progress thread, print rank 0's verbose lines,
 * free everything the overlays hold; ovl_css_on and ovl_tnbc_on are 0
 * after it.  Local: no collective, so a rank without the library never
 * makes another wait. */
PROF_HIDDEN void ovl_finish(void);

/* The collectives an overlay may run, with the arguments and result of
 * the MPI call of the same name; called by the C wrappers always and by
 * the Fortran bindings when the overlay's switch above is on (handles
 * converted, Fortran's MPI_IN_PLACE and MPI_BOTTOM made C's), after the
 * call was recorded, in the program's calling thread.  Collective as the
 * MPI call is: every rank of @p comm calls them alike, and an overlay
 * decides with the other ranks of @p comm or not at all, so that every
 * rank takes the same path.  With its overlay off each is the PMPI call
 * unchanged.
 *
 * ovl_css.c: MPI_Alltoallv under a contention-free schedule when css is on
 * and the exchange qualifies, else by tnbc when it is on, else
 * PMPI_Alltoallv. */
PROF_HIDDEN int ovl_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                              MPI_Datatype stype, void *rbuf, const int *rcounts,
                              const int *rdispls, MPI_Datatype rtype, MPI_Comm comm);
/* ovl_tnbc.c: MPI_Alltoall, MPI_Allgather, MPI_Bcast by tnbc when it is on
 * (the call may return before its data arrived; see prof_ovl_settle), else
 * PMPI. */
PROF_HIDDEN int ovl_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             int rcount, MPI_Datatype rtype, MPI_Comm comm);
PROF_HIDDEN int ovl_allgather(const void *sbuf, int scount, MPI_Datatype stype,
                              void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm);
PROF_HIDDEN int ovl_bcast(void *buf, int count, MPI_Datatype type, int root,
                          MPI_Comm comm);

/* ovl_tnbc.c: the tnbc overlay's completion point.  prof_ovl_pending is
 * non-zero while a collective it runs is pending (at most one per
 * process); every wrapper first calls prof_settle (prof.h), which calls
 * prof_ovl_settle when it is set: that completes the call (its data in the
 * program's buffers, the pages open) before the program's call goes on.
 * Application threads only, never tnbc's progress thread; no collective
 * (it waits for the pending call's own sub-messages, and posts the sends
 * it held back under waves); a no-op when nothing is pending.  Every
 * MPI entry point reaches it: the wrappers, and the catch-all's
 * trampolines for all the others (prof_tramp.c).  The names
 * are the profiler's (cmp_) because its wrappers call them: they are the
 * profiler's hook, which the overlay fills in. */
extern PROF_HIDDEN int prof_ovl_pending;
PROF_HIDDEN void prof_ovl_settle(void);

/* ovl_tnbc.c: the tnbc overlay's guard for memory handed to the kernel.
 * The kernel does not raise SIGSEGV for a protected page, it fails the
 * system call (EFAULT), and another process reading it (Open MPI's
 * single-copy CMA, process_vm_readv) fails likewise; so prof_sys.c's
 * wrappers of the system calls that read or write a program's buffer
 * call this first on each buffer: every protected page of the pending
 * call within [@p p, @p p + @p n) is filled and opened, as a touch would
 * (the handler's path: no lock, no allocation, no MPI; any thread, in a
 * signal handler too).  One atomic load when nothing is pending; nothing
 * on tnbc's progress thread. */
PROF_HIDDEN void prof_ovl_touch(const void *p, size_t n);

/* prof_tramp.c: the number of MPI entry points its trampolines make
 * completion points (every one the MPI library exports that no wrapper
 * defines); 0 when this build has none (a target other than x86-64, or
 * no library found at build time): tnbc then refuses to run, since a
 * call it does not see could meet a protected buffer. */
extern PROF_HIDDEN const int prof_catchall;

#endif /* CM_PROF_OVERLAY_H */
