/*
 * cluster_internal.h -- the clustering placement "cluster" (Wang et al.'s
 * CP-NSC + AQAP, with Hao and Zeng's capacity shares; docs/design.md,
 * "Where each method comes from"): adaptive packing of clusters
 * onto the children of a tree vertex (pack.c), the level-by-level driver
 * (cluster_map.c) and the aggregated pair exchange APE (ape.c).  Internal
 * to src/core; the planner (plan.c) calls cm_map_cluster().
 * docs/cluster-packing.md describes the rules and their defaults.
 */
#ifndef CM_CLUSTER_INTERNAL_H
#define CM_CLUSTER_INTERNAL_H

#include "engine_internal.h"

/* ---- packing (pack.c) -------------------------------------------------- */

/** Default thresholds of the choice rule (cm_plan_options_t.pack_low,
 *  pack_high, pack_kmax).  The spread of the cluster sizes is measured as
 *  their relative standard deviation (stdev / mean), so that the same
 *  thresholds hold at 64 and at 16384 ranks. */
#define CM_PACK_LOW_DEFAULT  0.10 /**< below: sizes balanced -> Plain */
#define CM_PACK_HIGH_DEFAULT 0.50 /**< above, with few clusters -> First-Fit */
#define CM_PACK_KMAX_DEFAULT 64   /**< "few clusters": k < this */

/** The three packing rules of Wang et al. (section 4.4.2). */
typedef enum cm_pack_rule {
    CM_PACK_PLAIN = 0,        /**< clusters by smallest rank, slots filled
                                   in sequence: a cluster that reaches the
                                   end of a child continues in the next */
    CM_PACK_FIRST_FIT,        /**< largest cluster first (stable), each into
                                   the first child with room for all of it;
                                   split only when no child has room */
    CM_PACK_MOST_RESERVATION, /**< clusters by smallest rank, each into the
                                   first child already in use that has room,
                                   else the first untouched child with room,
                                   so that untouched children stay whole */
    CM_PACK_NRULES
} cm_pack_rule_t;

/** "plain", "first-fit", "most-reservation". */
const char *cm_pack_rule_name(cm_pack_rule_t rule);

/** Relative standard deviation (population stdev / mean) of @p k sizes;
 *  0 when k < 2 or the mean is 0. */
double cm_pack_spread(const int *sizes, int k);

/** The adaptive choice rule of Wang et al.: spread < @p t_low -> Plain;
 *  spread > @p t_high and k < @p t_k -> First-Fit; otherwise
 *  Most-Reservation.  spread = cm_pack_spread(sizes, k). */
cm_pack_rule_t cm_pack_choose(const int *sizes, int k, double t_low,
                              double t_high, int t_k);

/** One piece of a packing: @p count ranks of cluster @p cluster go to child
 *  @p child. */
typedef struct cm_pack_piece {
    int cluster;
    int child;
    int count;
} cm_pack_piece_t;

/** Upper bound on the pieces cm_pack() writes for k clusters and
 *  nchildren children (every piece but one per cluster fills a child). */
#define CM_PACK_MAX_PIECES(k, nchildren) ((k) + (nchildren))

/** Pack @p k clusters of @p sizes[c] >= 1 ranks onto @p nchildren children
 *  with @p free_slots[ch] >= 0 free slots each (the idle table), by @p rule.
 *  @p min_rank[c] (the cluster's smallest rank, for the order of Plain and
 *  Most-Reservation) may be NULL: cluster order is then index order.
 *  Out: @p assign[c] = the child that receives all of cluster c, or -1 when
 *  it is split; @p pieces (CM_PACK_MAX_PIECES(k, nchildren) entries,
 *  caller-allocated) lists every (cluster, child, count), in the order they
 *  were placed, so the pieces of one cluster appear in the order its ranks
 *  should fill them.  A split cluster goes first into the children with
 *  the most room (First-Fit), or first into untouched children as far as
 *  the holes of children in use cannot take it, then into those holes
 *  (Most-Reservation).  No child receives more than its free slots.
 *  Returns the number of pieces, -1 when the clusters do not fit (sum of
 *  sizes > sum of free slots) or an argument is invalid. */
int cm_pack(cm_pack_rule_t rule, const int *sizes, const int *min_rank, int k,
            const int *free_slots, int nchildren, int *assign,
            cm_pack_piece_t *pieces, cm_error_t *err);

/* ---- capacity shares (pack.c) ------------------------------------------ */

/** Split @p m ranks over @p nchildren children of capacities @p cap (slots)
 *  and relative speeds @p speed (NULL: all 1) into @p share[ch].  Only the
 *  fewest children needed take part (by decreasing cap x speed, ties to
 *  the lower index, until their slots hold m): spreading a job over more
 *  nodes than it fills only adds traffic between them.  Among those, the
 *  shares are proportional to cap x speed, so that every child finishes
 *  its work at the same time (Hao and Zeng; largest remainder, ties to the
 *  lower index), never above cap.  When m == sum of cap every
 *  child is full.  -1 when m > sum of cap. */
int cm_capacity_shares(int m, const int *cap, const double *speed,
                       int nchildren, int *share, cm_error_t *err);

/* ---- the driver (cluster_map.c) ---------------------------------------- */

/** Most children (or groups of children) one clustering step places onto;
 *  a wider vertex (e.g. 512 nodes under one switch) is split into this
 *  many groups of consecutive children first, recursively, so that the
 *  spectral step never needs more than a few dozen eigenvectors. */
#define CM_CLUSTER_FANOUT 8

/** Candidate cluster counts per step, as multiples of the number of parts
 *  (x2 fixed point: 2 = 1.0 x parts, 3 = 1.5 x, ...). */
#define CM_CLUSTER_K_FACTORS {2, 3, 4, 6, 8}

/** The clustering placement: Wang et al.'s hierarchical designated mapping.
 *  At every vertex of the tree (from the root down) the ranks it received
 *  are clustered with CP-NSC into k clusters for several candidate k >= the
 *  number of children (children x {1, 1.5, 2, 3, 4}, as far as the budget
 *  allows), plus two clusterings that cost nothing: the clusters inherited
 *  from the level above (AQAP: clusters are units, never split when they
 *  fit) and the ranks in their incoming order.  Each candidate is packed
 *  onto the children with each of the three rules (the adaptive choice
 *  first); the one with the smallest cut between the children, weighted by
 *  the vertex's level cost, is kept.  Children receive capacity shares
 *  (cm_capacity_shares: slots x speed), never more ranks than
 *  their slots.  Below the innermost groups ranks take the slots in order.
 *  Then APE (cm_ape) swaps equal-size small clusters while J drops.
 *  Work is charged to @p b (edge-evaluation units); when the budget runs
 *  short the remaining steps use the cheap candidates only.  @p o may be
 *  NULL (defaults); o->seed makes the result reproducible, o->pack_* set
 *  the choice rule (0 or negative: the defaults above).  @p map[p->n] is
 *  filled with a valid mapping.  Returns 0, or -1 with @p err filled. */
int cm_map_cluster(const cm_problem_t *p, const cm_plan_options_t *o,
                   cm_budget_t *b, int *map, cm_error_t *err);

/* ---- APE (ape.c) ------------------------------------------------------- */

/** Aggregated pair exchange (Wang et al., algorithm 4).  @p cluster[n] labels
 *  each rank with its cluster (0..nclusters-1).  Clusters of at most
 *  @p noise_max ranks are "noise"; two noise clusters of equal size whose
 *  ranks, taken in rank order, trade slots one for one, are swapped when
 *  that lowers J.  The gain is computed from the members' edges only
 *  (O(sum of their degrees)).  Sweeps until no swap gains, @p max_sweeps
 *  sweeps, or the budget is spent.  Never increases J; returns the number
 *  of swaps made, -1 on allocation failure. */
int cm_ape(const cm_problem_t *p, const int *cluster, int nclusters,
           int noise_max, int max_sweeps, int *map, cm_budget_t *b);

#endif /* CM_CLUSTER_INTERNAL_H */
