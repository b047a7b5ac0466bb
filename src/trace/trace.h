/*
 * trace.h -- touch-order traces of collective calls (docs/overlays.md,
 * "Trace and priorities"): per call site, the order
 * in which the program first touched the sub-messages it received, kept
 * in a table, written to and read from one text file per rank.
 *
 * A call site is a key (the program's return address relative to its
 * module, ovl_tprio.c), a collective (OVL_T_*), the communicator's size n
 * and the rank's rank in it.  Recording adds, for every traced call, each
 * peer's position in the touch order (0 for the sub-message touched
 * first; those never touched share the position after the last touched);
 * the priority order is the peers sorted by the sum of their positions
 * (the mean, as every peer of a site has the same number of calls), ties
 * by rank.  A traced call also adds its time inside the call (T_init) and
 * the time it hid (its return to its last sub-message's completion, less
 * what the program waited for it); a site that hid no more than it cost
 * steps aside in the runs that read the trace (trace_aside).
 *
 * Plain C, no MPI: a module of its own (libcm-trace.a) that the overlay
 * writes and reads and the profile store keeps (src/store/store_trace.c).  Nothing
 * here is async-signal-safe: the handler only marks the pending call's
 * blocks (ovl_tnbc.c); the table is changed by the application thread.
 */
#ifndef CM_TRACE_H
#define CM_TRACE_H

#include <stddef.h>
#include <stdint.h>

/* Private to whatever links it (the profiler library, the store): no
 * symbol of this module is part of an exported interface. */
#define TRACE_HIDDEN __attribute__((visibility("hidden")))

/* The collectives a trace names (a site's coll): the overlay's own
 * OVL_T_ALLTOALL .. OVL_T_ALLGATHER have the same values. */
enum { TRACE_ALLTOALL, TRACE_ALLTOALLV, TRACE_ALLGATHER, TRACE_NCOLL };


#define TRACE_MAGIC   "clustermap-tnbc-trace 1"
#define TRACE_KEYMAX  128        /* bytes of a key, with its NUL */
#define TRACE_NMAX    (1 << 24)  /* the largest communicator read */
#define TRACE_MAXFILE (64u << 20) /* bytes: a longer file is refused */

typedef struct trace_site {
    char key[TRACE_KEYMAX];   /* no blank, printable */
    int coll;                     /* OVL_T_ALLTOALL ... OVL_T_ALLGATHER */
    int n, me;                    /* communicator size, this rank's rank */
    uint64_t calls;               /* traced calls folded in */
    uint64_t *sum;                /* [n]: per peer, its positions summed */
    int *order;                   /* [n - 1]: the peers, first touched
                                   * first (trace_order, or read) */
    int timed;                    /* the two sums below hold figures (a
                                   * "time" line read, or calls timed) */
    uint64_t hidden_ns;           /* traced calls: the time they hid */
    uint64_t init_ns;             /* ... and their time inside the call */
} trace_site_t;

typedef struct trace {
    int nsite, cap;
    trace_site_t **site;
} trace_t;

/* The collective's word in a trace file ("alltoall", "alltoallv",
 * "allgather"), NULL for one that is never traced (MPI_Bcast). */
TRACE_HIDDEN const char *trace_coll_name(int coll);

/* The site (key, coll, n, me) of @p t, or NULL. */
TRACE_HIDDEN trace_site_t *trace_find(const trace_t *t, const char *key,
                                       int coll, int n, int me);

/* The site (key, coll, n, me) of @p t, added (no calls, sums 0, order by
 * rank) when absent; NULL when memory fails or an argument is out of
 * range (n < 2, me outside [0, n), key too long). */
TRACE_HIDDEN trace_site_t *trace_add(trace_t *t, const char *key,
                                      int coll, int n, int me);

/* 1 when site @p s steps aside: its traced calls hid no more time than
 * they spent inside the call (timed, hidden_ns <= init_ns), so the
 * overlay costs it more than it gains; 0 otherwise (no figures: keep). */
TRACE_HIDDEN int trace_aside(const trace_site_t *s);

/* Recompute s->order from s->sum (peers by sum, ties by rank). */
TRACE_HIDDEN void trace_order(trace_site_t *s);

/* Parse the text of a trace file (@p text, @p len bytes, named @p name in
 * messages) into @p t (empty before).  0, or -1 with t emptied and
 * "<name>:<line>: <what>" in @p err (size @p errn). */
TRACE_HIDDEN int trace_parse(trace_t *t, const char *text, size_t len,
                               const char *name, char *err, size_t errn);

/* Read and parse the file @p path into @p t (empty before).  0; -2 when
 * it cannot be opened (missing, unreadable: "<path>: <errno text>" in
 * @p err; "<path>: is a symbolic link; refusing to follow it", "<path>:
 * not a regular file": opened without following a link in its last
 * component and without blocking, so a FIFO in its place returns at
 * once); -1 when it is bad (the parser's message, or "<path>: <errno
 * text>" for a read error, "<path>: longer than ..."). */
TRACE_HIDDEN int trace_load(trace_t *t, const char *path, char *err,
                              size_t errn);

/* Write @p t (the orders recomputed) to @p path, through a temporary file
 * renamed over it.  0, or -1 with "<path>: <errno text>" in @p err. */
TRACE_HIDDEN int trace_write(trace_t *t, const char *path, char *err,
                               size_t errn);

/* Every rank's times in one table (the store, cm_store_trace_stage): the
 * timed sites of @p t added into @p tot as (key, collective, size, rank
 * 0), their two times summed, calls counting the ranks.  0, or -1 when
 * memory fails. */
TRACE_HIDDEN int trace_total(trace_t *tot, const trace_t *t);

/* The trace text @p text (@p len bytes, accepted by trace_parse) with
 * the two times of every time line whose site is in @p tot (as
 * trace_total made it) replaced by the totals; every other byte as
 * it was.  A malloc'd string of *outlen bytes, or NULL when memory
 * fails. */
TRACE_HIDDEN char *trace_retime(const char *text, size_t len,
                                  const trace_t *tot, size_t *outlen);

/* The agreement of every rank at MPI_Init (ovl_tprio_agree): each rank's
 * timed sites go into TRACE_AGREE_SLOTS slots by a hash of (key, collective,
 * size); an MPI_MAX reduction of the ids (each slot's id and its
 * complement: the largest and the smallest) tells the slots that hold one
 * site on every rank that has one, an MPI_SUM reduction of the times
 * gives that site's times over all ranks.  A slot two sites share, on one
 * rank or across ranks, decides nothing. */
#define TRACE_AGREE_SLOTS 128

/* This rank's part: the ids of @p t's timed sites (NULL: none) into
 * @p ids [2 * TRACE_AGREE_SLOTS], to be reduced with MPI_MAX, and their two
 * times into @p sums [2 * TRACE_AGREE_SLOTS] (hidden, then inside the
 * call), to be reduced with MPI_SUM. */
TRACE_HIDDEN void trace_agree_mine(const trace_t *t, uint64_t *ids,
                                     uint64_t *sums);

/* With @p ids and @p sums reduced over every rank: 1 when site (@p key,
 * @p coll, @p n) steps aside (hidden no more than inside the call, summed
 * over the ranks, as trace_aside), 0 when it keeps the overlay, -1
 * when the reductions do not decide it (no rank timed it, or its slot is
 * shared). */
TRACE_HIDDEN int trace_agreed(const uint64_t *ids, const uint64_t *sums,
                                const char *key, int coll, int n);

/* Free every site; @p t is then empty. */
TRACE_HIDDEN void trace_free(trace_t *t);

#endif /* CM_TRACE_H */
