/*
 * css_schedule.h -- contention-free schedules for irregular all-to-all
 * exchanges (CSS), the building block of the MPI_Alltoallv overlay.
 *
 * A schedule splits one exchange into steps.  In every step each sender
 * sends to at most one receiver and each receiver receives from at most one
 * sender (a partial matching), so that no receiver is a bottleneck; within a
 * step the message lengths are kept as equal as possible, so that no rank
 * waits long for the slowest pair.  An overlay runs step k as one
 * Isend/Irecv pair per rank: cm_css_sched_peer() is whom a rank sends to,
 * cm_css_sched_source() whom it receives from.
 *
 * Two constructions:
 *  - cm_css_sched_redistribution(): the exchange of an array redistribution
 *    between two block-cyclic distributions, whose communication table is
 *    periodic; the schedule follows that structure (docs/algorithms.md,
 *    "003").
 *  - cm_css_sched_general(): any matrix of message sizes, by bipartite edge
 *    colouring with the minimum number of steps.
 * cm_css_recognise() finds the first case in a bare byte matrix (what the
 * overlay sees), and cm_css_sched_overlay() chooses between the two.
 *
 * Files: css_sched.c (the schedule object, accessors, cost model),
 * css_redist.c (the block-cyclic construction), css_general.c (the
 * colouring), css_nodes.c (the node model: loads per node and step),
 * css_recognise.c (a byte matrix recognised as a redistribution);
 * css_internal.h is what they share.
 *
 * Conventions as in clustermap.h: opaque handle, caller-owned inputs (never
 * kept: the schedule copies what it needs), cm_error_t last, NULL or -1 on
 * failure, no global state (distinct schedules may be built concurrently).
 * Limits: at most CM_CSS_MAX_PROCS senders and as many receivers; the size
 * table (senders x receivers) and the step tables (steps x the larger of
 * the two) at most CM_CSS_MAX_CELLS entries each, because they are dense
 * for O(1) lookups in the overlay.  In practice: up to 4096 ranks on the
 * larger side of a dense exchange, and more when a schedule needs few
 * steps.
 */
#ifndef CM_CSS_SCHEDULE_H
#define CM_CSS_SCHEDULE_H

#include <stdint.h>

#include "clustermap.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most senders (and most receivers) a schedule may have. */
#define CM_CSS_MAX_PROCS 65536
/** Most entries of a size table or of a step table (4096 x 4096). */
#define CM_CSS_MAX_CELLS (1 << 24)

/** A schedule: steps, and for each step who sends to whom.  Immutable. */
typedef struct cm_css_sched cm_css_sched_t;

/** How a schedule was built. */
typedef enum cm_css_method {
    /** One orbit of the periodic communication table per step, whose
     *  messages all have one length over whole periods (the paper's
     *  algorithm 1); when the table splits into independent blocks on both
     *  sides, a step joins one orbit of each, of similar lengths. */
    CM_CSS_PERIODIC = 1,
    /** Grouping of equal sub-tables, heaviest first, traversal direction
     *  alternating from step to step; greedy, so it may take more steps than
     *  the busiest rank has messages. */
    CM_CSS_GROUPED,
    /** Bipartite edge colouring: exactly as many steps as the busiest rank
     *  has messages. */
    CM_CSS_GENERAL,
    /** The classic ordering (step k: i sends to (i + k) mod n), steps that
     *  fit together merged, then improved like CM_CSS_GENERAL: what a
     *  redistribution falls back to when the constructions above would be
     *  slower than the classic ordering for some network. */
    CM_CSS_CLASSIC,
} cm_css_method_t;

/** A one-dimensional array redistribution, in the form
 *
 *      for (i = 0; i < count; i++)
 *          dst[dst_stride * i + dst_offset] = src[src_stride * i + src_offset];
 *
 *  where src is distributed cyclic(src_block) over src_procs processes (the
 *  senders: element e lives on process (e / src_block) mod src_procs) and
 *  dst cyclic(dst_block) over dst_procs processes (the receivers).  A plain
 *  redistribution of M elements has strides 1, offsets 0 and count M.
 *
 *  Bounds: 1 <= procs <= CM_CSS_MAX_PROCS, 1 <= block, stride <= 2^31 - 1,
 *  0 <= offset <= 2^62, 0 <= count <= 2^62, and every address the loop
 *  touches below 2^63. */
typedef struct cm_css_redist {
    int     src_procs;
    int64_t src_block;
    int64_t src_stride;
    int64_t src_offset;
    int     dst_procs;
    int64_t dst_block;
    int64_t dst_stride;
    int64_t dst_offset;
    int64_t count;
    /** Non-zero when sender k and receiver k are the same rank (one
     *  communicator): the pair (k, k) is a local copy, sized but not
     *  scheduled.  Zero: two disjoint groups of processes. */
    int     same_ranks;
    /** 0: the paper's construction (CM_CSS_PERIODIC when s == t,
     *  CM_CSS_GROUPED otherwise), replaced by CM_CSS_GENERAL or
     *  CM_CSS_CLASSIC when one of those is no worse in both terms of the
     *  cost model (steps, sum of step maxima) and better in one, or when the
     *  construction is worse than the classic ordering in either term.
     *  Any other value builds that method only (CM_CSS_PERIODIC needs
     *  s == t): for comparisons and tests. */
    cm_css_method_t method;
} cm_css_redist_t;

/** The periodic structure of a redistribution's communication table
 *  COM(i, j) (elements sender i sends to receiver j). */
typedef struct cm_css_period {
    /** Iterations after which the (sender, receiver) pattern repeats; 0 when
     *  that number exceeds 2^64. */
    uint64_t period;
    /** Over whole periods, COM(i, j) = COM((i + k m) mod src_procs,
     *  (j + k n) mod dst_procs) for every k. */
    uint64_t m, n;
    /** The periods of those two progressions: src_procs / gcd(m, src_procs)
     *  and dst_procs / gcd(n, dst_procs). */
    int s, t;
    /** Non-zero when count is a multiple of period, so that the equalities
     *  above are exact (otherwise only the step structure relies on them). */
    int exact;
} cm_css_period_t;

/** The schedule of the redistribution @p r: the communication table first
 *  (exact, counted run by run over one period and scaled), then steps as
 *  r->method says.  With method 0 the result is never slower than the
 *  classic ordering in the model of cm_css_sched_cost(), for any latency
 *  and bandwidth; in the paper's case of CM_CSS_PERIODIC (gcd(m, src_procs)
 *  = 1 and s == t) over whole periods with no local copy, it has as few
 *  steps as the largest degree and one message length per step.  Fails on
 *  a bad parameter, on tables too large (CM_CSS_MAX_CELLS) and when one
 *  period would take more than 2^27 runs of contiguous elements to count
 *  (periods of lcm(src_procs * src_block, dst_procs * dst_block) scale,
 *  with small blocks).  Time: milliseconds for hundreds of processes, a
 *  few seconds at 4096 x 4096.  Free with cm_css_sched_free(). */
cm_css_sched_t *cm_css_sched_redistribution(const cm_css_redist_t *r, cm_error_t *err);

/** The schedule of an arbitrary exchange among @p n ranks: @p bytes has n x n
 *  entries, bytes[i * n + j] what rank i sends to rank j (copied, not
 *  kept).  The diagonal is a local copy and is not scheduled; every non-zero
 *  off-diagonal entry is, exactly once.  Steps: the maximum over ranks of
 *  the number of messages sent or received, which is the least possible;
 *  lengths within a step balanced heuristically (css_general.c).
 *  1 <= n <= 4096 (CM_CSS_MAX_CELLS).  Time: about a second for n = 256 and
 *  ten for a dense n = 1024; compute once per call site.  Free with
 *  cm_css_sched_free(). */
cm_css_sched_t *cm_css_sched_general(int n, const uint64_t *bytes, cm_error_t *err);

/** The schedule of cm_css_sched_general(), with the steps then rearranged
 *  for the network links of nodes that several ranks share: @p node[i] is
 *  a label of rank i's node (any value; ranks with equal labels share a
 *  node and its link), or NULL for one node per rank (the same schedule as
 *  cm_css_sched_general()).  Within each step the bytes that every node
 *  sends off node, receives from off node and moves inside itself are
 *  balanced (exchanges of alternating paths between pairs of steps, as for
 *  message lengths: the number of steps stays the least possible, and no
 *  step's longest message grows), so that a one-to-one step does not put
 *  eight flows on one node's link while another's idles.  Never costlier
 *  than cm_css_sched_general()'s schedule in either cost model.  Time:
 *  that of cm_css_sched_general() plus well under a second (a work
 *  budget).  Every rank that builds it from the same bytes and labels
 *  gets the same schedule. */
cm_css_sched_t *cm_css_sched_general_nodes(int n, const uint64_t *bytes, const uint64_t *node,
                                           cm_error_t *err);

/** A node label for cm_css_sched_general_nodes() from the name of the
 *  node a rank runs on (MPI_Get_processor_name): a 64-bit FNV-1a hash, so
 *  equal names give equal labels everywhere. */
uint64_t cm_css_node_label(const char *name);

/** Whether the square exchange @p bytes (n x n) is nearly uniform: no
 *  off-diagonal entry is 0 and the largest is at most CM_CSS_UNIFORM_TOL
 *  (1/20) above the smallest, or every off-diagonal entry is 0.  For such
 *  an exchange every schedule has n - 1 steps, as the classic ordering, and
 *  each step lasts at least the smallest message, so a schedule can save
 *  at most 1 - min / max (under 5 %) of the classic ordering's modelled
 *  time: less than what running separate steps costs against an MPI
 *  library's own algorithm (bench/sim/README.md, "CSS schedules"). */
int cm_css_nearly_uniform(int n, const uint64_t *bytes);
/** The tolerance of cm_css_nearly_uniform(): max - min <= min / this. */
#define CM_CSS_UNIFORM_TOL 20

/** Whether the square exchange @p bytes (n x n, bytes[i * n + j] what rank
 *  i sends to rank j, the diagonal included) is exactly the table of a
 *  one-dimensional block-cyclic redistribution over one communicator:
 *  cyclic(y) over the n ranks to cyclic(x) over the same ranks, M elements
 *  of E bytes, strides 1, offsets 0 (a block distribution is
 *  cyclic(ceil(M / n))).  Returns 1 and fills *r (src_procs = dst_procs =
 *  n, src_block y, dst_block x, count M, same_ranks 1, method 0) and
 *  *elem (E) when every entry equals E times the table counted by
 *  cm_css_sched_redistribution(); 0 when not, or when the search gives up
 *  (below); -1 out of memory.  Never a false positive: every candidate is
 *  verified entry by entry.  The table does not determine (E, x, y, M)
 *  (k-fold blocks of k-fold smaller elements, or one period of larger
 *  elements, have the same table), and all of them give the same
 *  schedule: the answer is the one with the fewest elements found.
 *  Bounds: 2 <= n, n * n <= CM_CSS_MAX_CELLS; gives up (0) when a row or
 *  column sum exceeds 2^40 units or when verifying the candidates would
 *  take more than 2^25 runs and compared cells in all (css_recognise.c).
 *  Cost: O(n^2) to reject a matrix whose row or column sums cannot be a
 *  distribution's (any random one); else up to 2^20 trial divisions per
 *  sum, O(n) per candidate pair of blocks, and for the few that pass, one
 *  period's count plus n^2 comparisons each: a few hundredths of a second
 *  at 1024 ranks, a few tenths at worst (the budget).
 *  Deterministic: the same bytes give the same answer on every rank.
 *  @p bytes is read, not kept. */
int cm_css_recognise(int n, const uint64_t *bytes, cm_css_redist_t *r, uint64_t *elem,
                     cm_error_t *err);

/** The network the css overlay models when it chooses (ovl_css.c,
 *  cm_css_sched_overlay()): a typical cluster interconnect, about 2 us of
 *  latency and 10 GB/s (100 Gb/s InfiniBand or Ethernet with RDMA).  A
 *  comparison needs a representative ratio of the two, not the machine's
 *  exact figures: with the schedule's steps at most the classic ordering's
 *  in number, the schedule wins whenever its step maxima add up to less.
 *  Seconds per step, bytes per second. */
#define CM_CSS_OVERLAY_LATENCY   2e-6
#define CM_CSS_OVERLAY_BANDWIDTH 10e9

/** What cm_css_sched_overlay() chose. */
typedef enum cm_css_choice {
    /** The node-aware colouring; not a redistribution. */
    CM_CSS_COLOURED = 0,
    /** The node-aware colouring, although cm_css_recognise() recognised a
     *  redistribution: its schedule was not cheaper in the node model. */
    CM_CSS_COLOURED_RECOGNISED,
    /** The recognised redistribution's schedule. */
    CM_CSS_REDISTRIBUTED,
} cm_css_choice_t;

/** The schedule the css overlay runs for the square exchange @p bytes
 *  (n x n, the diagonal a local copy) with node labels @p node (as for
 *  cm_css_sched_general_nodes()): the node-aware colouring, unless
 *  cm_css_recognise() finds a redistribution whose schedule
 *  (cm_css_sched_redistribution(), method 0, sizes in elements: cost it
 *  with @p bytes) is strictly cheaper in the node model of
 *  cm_css_sched_cost_nodes() at @p latency and @p bandwidth; *how says
 *  which.  Why a comparison: the redistribution's construction knows
 *  nothing of nodes, and where the colouring balances the nodes' links
 *  better (cyclic(4) -> cyclic(3) on 8 ranks a node: the redistribution's
 *  schedule takes 1.3 times as long in bench/sim/README.md, "CSS
 *  schedules"; docs/overlays.md, "Redistributions") the model
 *  says so; on ties the colouring stays (cyclic(4) -> cyclic(6): the
 *  model ties, the simulator prefers the colouring).  Time: that of the
 *  colouring, plus the recognition (css_recognise.c) and, when
 *  recognised, the redistribution's construction.  The same bytes and
 *  labels give the same schedule everywhere.  NULL on failure.  Free with
 *  cm_css_sched_free(). */
cm_css_sched_t *cm_css_sched_overlay(int n, const uint64_t *bytes, const uint64_t *node,
                                     double latency, double bandwidth, cm_css_choice_t *how,
                                     cm_error_t *err);

/** Release @p s; NULL is a no-op. */
void cm_css_sched_free(cm_css_sched_t *s);

/** Number of steps (0 when nothing is to be sent); -1 when @p s is NULL. */
int cm_css_sched_nsteps(const cm_css_sched_t *s);

/** Number of senders (rows of the size table); -1 when @p s is NULL. */
int cm_css_sched_nsenders(const cm_css_sched_t *s);

/** Number of receivers (columns of the size table); -1 when @p s is NULL. */
int cm_css_sched_nreceivers(const cm_css_sched_t *s);

/** How @p s was built; 0 when @p s is NULL. */
cm_css_method_t cm_css_sched_method(const cm_css_sched_t *s);

/** The receiver @p sender sends to in step @p step; -1 when it is idle in
 *  that step or when an argument is out of range. */
int cm_css_sched_peer(const cm_css_sched_t *s, int step, int sender);

/** The sender @p receiver receives from in step @p step (the inverse of
 *  cm_css_sched_peer); -1 when idle or when an argument is out of range. */
int cm_css_sched_source(const cm_css_sched_t *s, int step, int receiver);

/** What @p sender sends to @p receiver in the whole exchange: elements for
 *  a redistribution, the given bytes for a general schedule (diagonal
 *  included); 0 when an argument is out of range. */
uint64_t cm_css_sched_size(const cm_css_sched_t *s, int sender, int receiver);

/** The step in which @p sender sends to @p receiver; -1 when that pair is
 *  not scheduled (no data, a local copy, or an argument out of range).
 *  O(steps). */
int cm_css_sched_step_of(const cm_css_sched_t *s, int sender, int receiver);

/** Fill @p out with the periodic structure of a redistribution schedule.
 *  Returns 0, or -1 (out untouched) when @p s is NULL or not built by
 *  cm_css_sched_redistribution(). */
int cm_css_sched_period(const cm_css_sched_t *s, cm_css_period_t *out);

/** Modelled time of @p s: the sum over its steps of
 *  latency + (largest message of the step) / bandwidth.  @p bytes is a
 *  senders x receivers row-major table of the bytes of each pair, or NULL
 *  for the schedule's own sizes (then bandwidth is in elements per second
 *  for a redistribution).  @p latency >= 0 and @p bandwidth > 0, both
 *  finite.  Returns 0 and sets *cost, or -1. */
int cm_css_sched_cost(const cm_css_sched_t *s, const uint64_t *bytes, double latency,
                      double bandwidth, double *cost, cm_error_t *err);

/** The model of cm_css_sched_cost() with nodes: a step costs latency plus
 *  the largest, over nodes, of the bytes the node sends off node, receives
 *  from off node, and of its largest message inside the node, over the
 *  bandwidth.  @p node as for cm_css_sched_general_nodes() (NULL: one node
 *  per rank, which is cm_css_sched_cost()); a square schedule only. */
int cm_css_sched_cost_nodes(const cm_css_sched_t *s, const uint64_t *bytes, const uint64_t *node,
                            double latency, double bandwidth, double *cost, cm_error_t *err);

/** The same node model for the classic ordering of the square exchange
 *  @p bytes (n x n, the diagonal a local copy). */
int cm_css_classic_cost_nodes(int n, const uint64_t *bytes, const uint64_t *node,
                              double latency, double bandwidth, double *cost, cm_error_t *err);

/** The same model for the classic ordering of the exchange @p bytes
 *  (@p nsend x @p nrecv, row-major): with n = max(nsend, nrecv), step k
 *  (k = 0..n-1) has sender i send to (i + k) mod n when that is a receiver.
 *  Steps that carry no byte are not counted; with @p local_diag non-zero,
 *  pairs (i, i) are local copies and carry none.  Returns 0 and sets *cost,
 *  or -1. */
int cm_css_classic_cost(int nsend, int nrecv, const uint64_t *bytes, int local_diag,
                        double latency, double bandwidth, double *cost,
                        cm_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* CM_CSS_SCHEDULE_H */
