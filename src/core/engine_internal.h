/*
 * engine_internal.h -- what the placement algorithms share inside src/core:
 * the problem they optimise (symmetric graph + tree + effective per-level
 * costs), a deterministic work budget, and the building blocks the
 * portfolio driver (plan.c) combines.  Not part of the public API.
 */
#ifndef CM_ENGINE_INTERNAL_H
#define CM_ENGINE_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "clustermap.h"

#define CM_MAX_LEVELS 32

/** Per-level costs the engine optimises: the tree's byte and message costs,
 *  after the --weight choice has zeroed one of them (see cm_costs_from_tree). */
typedef struct cm_costs {
    int nlevels;
    double cb[CM_MAX_LEVELS]; /**< per byte */
    double cm[CM_MAX_LEVELS]; /**< per message */
} cm_costs_t;

/** The optimisation problem.  J(pi) as cm_cost() defines it equals
 *  diag + sum over the edges {i,j} of `sym` of
 *  bytes_ij * cb[lca] + msgs_ij * cm[lca], because A + A^T carries both
 *  directions of every pair and the diagonal never depends on the mapping. */
typedef struct cm_problem {
    const cm_matrix_t *a;    /**< the matrix as given */
    cm_matrix_t *sym;        /**< A + A^T, diagonal dropped (owned) */
    const cm_tree_t *tree;
    cm_costs_t costs;
    int n;                   /**< ranks */
    int nslots;
    int nlevels;
    int leaf_level;
    double diag;             /**< the mapping-independent diagonal part of J */
    /* Innermost group of each slot: the slots of the leaf's parent. */
    int *group_first;        /**< [nslots] */
    int *group_count;        /**< [nslots] */
    /* anc[s * nlevels + l]: the ancestor of slot s at level l (the leaf
     * itself at the leaf level), -1 when the path skips level l.  Two slots
     * meet at the deepest level where their ancestors agree: an O(levels)
     * lowest common ancestor without walking parent pointers. */
    int *anc;                /**< [nslots * nlevels] */
} cm_problem_t;

/** Effective costs for a weight mode.  CM_WEIGHT_BYTES keeps byte costs and
 *  zeroes message costs; CM_WEIGHT_MSGS the reverse (when the tree has no
 *  message costs at all, its byte costs are used per message);
 *  CM_WEIGHT_MIXED keeps both, and falls back to bytes when the matrix has
 *  no message counts. */
void cm_costs_from_tree(const cm_tree_t *t, const cm_matrix_t *m,
                        cm_weight_t weight, cm_costs_t *c);

int cm_problem_init(cm_problem_t *p, const cm_matrix_t *a, const cm_tree_t *t,
                    const cm_costs_t *c, cm_error_t *err);
void cm_problem_fini(cm_problem_t *p);

/** Level of the lowest common ancestor of slots @p s and @p q (the leaf
 *  level when s == q), as cm_tree_lca_level(). */
static inline int cm_problem_lca(const cm_problem_t *p, int s, int q)
{
    if (s == q)
        return p->leaf_level;
    const int *a = p->anc + (size_t)s * (size_t)p->nlevels;
    const int *b = p->anc + (size_t)q * (size_t)p->nlevels;
    for (int l = p->leaf_level - 1; l > 0; l--)
        if (a[l] == b[l] && a[l] >= 0)
            return l;
    return 0;
}

/** Cost of one symmetric edge at a level. */
static inline double cm_edge_cost(const cm_problem_t *p, double bytes,
                                  double msgs, int level)
{
    return bytes * p->costs.cb[level] + msgs * p->costs.cm[level];
}

/** J of @p map under the problem's effective costs. */
double cm_problem_cost(const cm_problem_t *p, const int *map);

/** cm_cost_max() under per-level costs @p cb (per byte) and @p cm (per
 *  message), cm_tree_nlevels(t) entries each, e.g. a problem's effective
 *  costs (cost.c). */
double cm_cost_max_levels(const cm_matrix_t *m, const cm_tree_t *t,
                          const int *map, const double *cb, const double *cm);

/** cm_cost_report() with J priced at per-level costs @p cb (per byte) and
 *  @p cm (per message), cm_tree_nlevels() entries each, instead of the
 *  tree's (NULL: the tree's): the same sums, so equal to cm_cost_report()
 *  on a tree given those costs (cost.c). */
int cm_cost_report_levels(const cm_matrix_t *m, const cm_tree_t *t, const int *map,
                          const double *cb, const double *cm, cm_cost_report_t *r,
                          cm_error_t *err);

/** cm_cost_links() under per-level byte costs @p cb (cost.c). */
double cm_cost_links_levels(const cm_matrix_t *m, const cm_tree_t *t, const int *map,
                            const double *cb);

/** cm_cost_links_levels(), and with @p load (cm_tree_nvertices(t) entries,
 *  may be NULL) how long each vertex's uplink is busy (0 for vertices
 *  without nodes): the figures whose maximum is L_max (cost.c).  NAN on a
 *  bad argument or out of memory, @p load then undefined. */
double cm_cost_uplink_loads(const cm_matrix_t *m, const cm_tree_t *t, const int *map,
                            const double *cb, double *load);

/** T_max of @p map under the problem's effective costs (its matrix as
 *  given, not the symmetric one: receivers are charged). */
static inline double cm_problem_cost_max(const cm_problem_t *p, const int *map)
{
    return cm_cost_max_levels(p->a, p->tree, map, p->costs.cb, p->costs.cm);
}

/** A work budget counted in edge evaluations, so that the same inputs give
 *  the same mapping on every machine (a wall-clock budget would not).  The
 *  planner converts --time-budget into units with a fixed rate. */
typedef struct cm_budget {
    uint64_t used;
    uint64_t limit;
} cm_budget_t;

/** Work units per second assumed when turning seconds into units (one unit
 *  is one edge looked at by the refinement; measured 80-130 million per
 *  CPU second with bench/engine/mapbench on the development machine). */
#define CM_UNITS_PER_SECOND 80000000.0

/** The slowest rate measured (dense patterns: 44 M/s at 16384 ranks of
 *  fft2d, 57-65 M/s elsewhere under load).  cm_plan()'s time account
 *  converts work units into seconds at this rate, so that work given the
 *  seconds left ends within them on this machine. */
#define CM_UNITS_PER_SECOND_SLOW 50000000.0

/** Estimated units of the constructions, from the rank count and the
 *  entries of the symmetric matrix (measured like CM_UNITS_PER_SECOND):
 *  Scotch's run time has a large per-vertex part, the multisection pays
 *  for many small Scotch calls near the leaves. */
#define CM_SCOTCH_UNITS(n, nnz) (4500.0 * (n) + 30.0 * ((n) + (nnz)))
/* (the multisection's graph arcs go through about three Scotch calls on
 * their way down: the bisections of wide levels and the k-way split) */
#define CM_MS_UNITS(n, nnz) (1540.0 * (n) + 36.0 * (nnz))
/* (the fast variant thins the graph, ~4 units per entry, to about 48
 * arcs per rank) */
#define CM_MS_FAST_UNITS(n, nnz) \
    (1540.0 * (n) + 4.0 * (nnz) + 36.0 * ((nnz) < 48.0 * (n) ? (nnz) : 48.0 * (n)))
/** The clustering placement spends what it is given (it adapts its
 *  candidate cluster counts to the budget): it starts when at least its
 *  cheapest path -- one spectral embedding -- fits. */
#define CM_CLUSTER_UNITS(n, nnz) (2000.0 * (n) + 50.0 * (nnz))
/** The spanning-tree placement: its dynamic program's table per rank (one
 *  unit a cell) and the sort of the entries, at every level. */
#define CM_TREECUT_UNITS(n, nnz) (100.0 * (n) + 10.0 * (nnz))
/** What the default "auto" run spends at most although its budget may
 *  allow more: a launch-time figure per rank and per matrix entry (0.1 s at
 *  1024 ranks of a sparse pattern on the development machine). */
#define CM_AUTO_UNITS(n, nnz) (1e6 + 6000.0 * (n) + 20.0 * (nnz))

/** Predicted CPU seconds of the constructions, which cannot be
 *  interrupted, for the time budget and the deadline of cm_plan(): upper
 *  envelopes of times measured on the development machine (2 shared
 *  cores, docs/machine-costs.md "Bounded planning"), from the ranks @p n,
 *  the entries @p nnz of the symmetric matrix and, for Scotch's static
 *  mapping, the slots of the (restricted) tree.  The work units above
 *  steer the search and are left as they were; these decide what may
 *  start, so that a candidate started within its budget ends within it.
 *  The recursive partitionings cost n log n per rank. */
static inline double cm_log2_at_least_1(double x)
{
    return x > 2.0 ? log2(x) : 1.0;
}

/** The multisection: 50 + 15 log2 n us per rank (many Scotch calls on the
 *  way down), 1.2 us per entry (measured: 92 to 240 us per rank from 64
 *  to 16384 ranks, 0.8 us per entry at 4 M entries). */
static inline double cm_ms_seconds(double n, double nnz)
{
    return 1e-6 * (n * (50.0 + 15.0 * cm_log2_at_least_1(n)) + 1.2 * nnz);
}

/** Its fast variant: the same per rank, 0.2 us per entry to thin the
 *  graph to 48 partners per rank, 1.2 us per entry kept. */
static inline double cm_ms_fast_seconds(double n, double nnz)
{
    return 1e-6 * (n * (50.0 + 15.0 * cm_log2_at_least_1(n)) + 0.2 * nnz +
                   1.2 * fmin(nnz, 48.0 * n));
}

/** Scotch's static mapping of the graph padded to one vertex per slot
 *  (map_scotch.c): 20 + 20 log2 nslots us per slot, 1 us per entry
 *  (measured: up to 190 us per slot at 1024 slots, 280 us at 16384,
 *  33 to 45 us per padding slot on trees 16 to 64 times larger than the
 *  ranks: a restricted tree keeps it near the ranks). */
static inline double cm_scotch_seconds(double nnz, double nslots)
{
    return 1e-6 * (nslots * (20.0 + 20.0 * cm_log2_at_least_1(nslots)) + nnz);
}

/** The clustering, which spends the @p units it is given: its own count
 *  runs up to twice below its time, plus up to 60 us per rank of dense
 *  eigensolves up to 512 ranks (measured 1.5 to 3.4 times its units, the
 *  most at 256 ranks).  It is predicted at its cheapest path
 *  (CM_CLUSTER_UNITS) and charged at what it spent. */
#define CM_CLUSTER_SLOWDOWN 2.0
static inline double cm_cluster_seconds(double units, double n)
{
    return CM_CLUSTER_SLOWDOWN * units / CM_UNITS_PER_SECOND +
           60e-6 * fmin(n, 512.0);
}

static inline int cm_budget_left(const cm_budget_t *b)
{
    return b->used < b->limit;
}

/** Add @p units to @p b (NULL: nothing), atomically: the subtrees of a
 *  threaded walk (cm_walk) count into one budget. */
static inline void cm_budget_add(cm_budget_t *b, uint64_t units)
{
    if (b)
        __atomic_fetch_add(&b->used, units, __ATOMIC_RELAXED);
}

/** Local search on @p map (n ranks on the problem's slots, one per slot),
 *  two kinds of moves, alternated until neither finds a gain or the budget
 *  is spent:
 *   - rank exchange: a rank u goes to a slot in an innermost group near its
 *     communication partners (VieM's N_C neighbourhood, widened to every
 *     innermost group under the partner's parent group), trading places
 *     with the rank there (or taking a free slot).  u's side of the gain is
 *     computed once per candidate group from u's connection to each
 *     ancestor vertex (O(deg(u) x levels)); only the best groups are then
 *     tried slot by slot, with the other rank's side in O(deg(v));
 *   - group exchange: two tree vertices of the same level and the same
 *     slot count swap their whole contents (APE at every level: a tightly
 *     coupled group moves as a unit), gain in O(sum of the degrees).
 *  Stops early once converged: a round of n rank looks, or a whole rank +
 *  group sweep, gained less than 0.1 % of J.
 *  Never increases J: returns the J reached. */
double cm_refine(const cm_problem_t *p, int *map, cm_budget_t *b);

/** cm_refine() where only ranks of the same @p kind may trade places and
 *  none may move to a free slot (@p kind NULL: cm_refine()); a group
 *  exchange needs equal kinds slot by slot.  The coarse levels of
 *  cm_refine_vcycle() use it: their "ranks" are groups of ranks, and only
 *  groups of the same make-up can swap without breaking capacities. */
double cm_refine_kinds(const cm_problem_t *p, int *map, const int *kind,
                       cm_budget_t *b);

/** Trade whole nodes' ranks between switch groups (refine_links.c): two
 *  nodes under different parents with as many ranks each, or two such
 *  pairs at once (each pair under one parent), exchange their ranks slot
 *  by slot, first improvement in a fixed order, while the busiest uplinks
 *  get less busy (sum of (load / L_max)^4 falls, L_max does not rise) and
 *  J and T_max stay within @p tol (relative) of where they started and
 *  within @p capJ and @p capT.  Per-node task counts and occupied slots
 *  never change.  Runs only on at most 64 nodes holding ranks, and only
 *  sweeps that fit @p b (charged; may be NULL).  1 when @p map changed, 0
 *  when not, -1 out of memory (@p map then a valid mapping within the same
 *  bounds, perhaps already changed: cm_plan discards it). */
int cm_refine_links(const cm_problem_t *p, int *map, double capJ, double capT,
                    double tol, cm_budget_t *b);

/** Multilevel refinement (a V-cycle): ranks that share an innermost group
 *  are matched in pairs, heaviest connection first, and the pairs again,
 *  until each group holds one unit, then units under the next level up,
 *  and so on; each coarse level is a problem of its own (contracted graph,
 *  the tree cut above the matching level with one slot per unit) whose J
 *  equals the fine J minus the fixed cost inside the units.  From the
 *  coarsest level down, each level is refined with cm_refine_kinds()
 *  (units of the same make-up swap, so capacities stay exact) and its
 *  moves are projected onto the ranks; the ranks are refined last.  Moves
 *  a tightly coupled group of any size between groups where no single
 *  exchange pays.  Trees whose slots skip a level are refined flat.  Never
 *  increases J: returns the J reached. */
double cm_refine_vcycle(const cm_problem_t *p, int *map, cm_budget_t *b);

/** Level-by-level Scotch multisection (Kurnosov and Paznikov's
 *  L12Map/HierarchicMap):
 *  at each tree vertex the ranks assigned to it are split into parts whose
 *  sizes are the children's shares (cm_child_shares), sizes repaired
 *  exactly, then each child is handled the same way
 *  down to the slots.  A vertex with more than 32 children is first split
 *  by recursive bisection of its children list (one Scotch call per
 *  bisection), since one call for hundreds of parts is slow and poor.
 *  With @p fast, Scotch runs its speed strategy on subgraphs thinned to
 *  the heaviest few dozen partners per rank (for dense patterns whose full
 *  multisection does not fit the budget).  Deterministic for a given
 *  @p seed, whatever @p threads (the subtrees run on up to that many
 *  threads: cm_walk).  Units spent are added to @p b (may be NULL). */
int cm_map_multisection(const cm_problem_t *p, uint64_t seed, int fast, int threads,
                        int *map, cm_budget_t *b, cm_error_t *err);

/** Spanning-tree placement (map_treecut.c): from the root down, the ranks
 *  of a tree vertex are split among its children with exact shares
 *  (cm_child_shares) by cutting a maximum spanning forest of their
 *  subgraph (edges weighted by what cutting them there costs) into
 *  connected pieces of at most the largest share with the least cut (a
 *  dynamic program over the forest, exact on it; Kundu and Misra's greedy
 *  rule for shares too wide for its table), then packing the pieces onto
 *  the children, largest first, carving a piece that fits nowhere with a
 *  second exact program.  Best on tree-shaped patterns (reductions,
 *  broadcasts), where the forest is the whole graph.  Deterministic,
 *  whatever @p threads (as cm_map_multisection); no refinement (the
 *  caller runs cm_refine).  Units spent are added to @p b (may be NULL). */
int cm_map_treecut(const cm_problem_t *p, int threads, int *map, cm_budget_t *b,
                   cm_error_t *err);

/** A top-down walk of the machine tree (map_walk.c), shared by the
 *  multisection and the spanning-tree placement. */
typedef struct cm_walk cm_walk_t;

/** What a walk does at tree vertex @p v with the @p count ranks it
 *  received (ranks[], which it may reorder): place them, handing each
 *  child's share to cm_walk_child().  @p data is what the parent task
 *  passed (NULL for the root): NULL or malloc()ed, and the function's to
 *  free.  @p scratch is the running worker's own (cm_walk's scratch[k]),
 *  @p err the worker's error.  0, or -1 with @p err set. */
typedef int (*cm_walk_fn)(cm_walk_t *w, void *scratch, int v, int *ranks,
                          int count, void *data, cm_error_t *err);

/** Run @p fn from vertex @p root on @p ranks, with up to @p threads workers
 *  (the caller's thread included; <= 1: on the caller's thread only), each
 *  with its own scratch[k] (k < threads).  Subtrees run in any order and at
 *  once, so @p fn must write only its own ranks' entries, keep its
 *  per-worker state in scratch, count work with cm_budget_add() and seed
 *  any random choice from the vertex: the result is then the same for any
 *  thread count.  A thread that cannot be created leaves its share to the
 *  others.  0, or -1 with @p err set (the first failure; the walk stops
 *  taking tasks). */
int cm_walk(int threads, cm_walk_fn fn, void *const *scratch, int root,
            int *ranks, int count, cm_error_t *err);

/** Most workers a walk uses: each has scratch of the problem's size. */
#define CM_WALK_MAX_THREADS 16

/** The workers worth starting for a walk over @p n ranks when the caller
 *  offers @p threads: at most CM_WALK_MAX_THREADS, and 1 when the ranks
 *  are too few to share. */
int cm_walk_threads(int threads, int n);

/** Inside a cm_walk_fn: a task for the @p count ranks of ranks[] at vertex
 *  @p v (a child, or the same vertex with @p data saying which part of its
 *  work is left), run now on this worker (one thread, or a small share) or
 *  later on any worker.  @p ranks must stay valid, and untouched by the
 *  caller, until cm_walk() returns: a part of the array the walk started
 *  with.  @p data (NULL or malloc()ed) goes to the task, or is freed when
 *  a failure stops the walk first.  0, or -1 with @p err set (only when
 *  run now). */
int cm_walk_child(cm_walk_t *w, void *scratch, int v, int *ranks, int count,
                  void *data, cm_error_t *err);

/** The steps of a top-down placement (multisection, treecut, cluster) that
 *  need no split of the @p count ranks given to vertex @p v: none, a slot,
 *  or a vertex whose children are all slots (every pair meets at v, so any
 *  order costs the same) -- placed into @p map, returns 1.  A vertex with
 *  one child: *@p only = that child (descend), returns 0.  Otherwise
 *  *@p only = -1, returns 0: the caller splits.  -1 when count exceeds the
 *  slots of v. */
int cm_place_direct(const cm_tree_t *t, int v, const int *ranks, int count,
                    int *map, int *only, cm_error_t *err);

/** How many ranks each child of @p v should receive when @p count ranks
 *  go to @p v: cm_capacity_shares() (pack.c: every child full when the
 *  vertex is full; otherwise the fewest children that hold them, by slots
 *  x speed, with shares proportional to slots x speed, never above a
 *  child's slots), a child's speed being the mean speed of its slots.  @p out has
 *  cm_tree_vertex_nchildren(v) entries.  Fails when count exceeds the
 *  slots of @p v. */
int cm_child_shares(const cm_tree_t *t, int v, int count, int *out,
                    cm_error_t *err);

/** The children of @p v that receive ranks when @p count ranks go to @p v
 *  (cm_child_shares() above zero): their positions among v's children in
 *  @p child, their shares in @p size, in child order.  Both arrays have
 *  cm_tree_vertex_nchildren(v) entries.  Returns how many, or -1. */
int cm_child_parts(const cm_tree_t *t, int v, int count, int *child, int *size,
                   cm_error_t *err);

/* -- The method table (plan_methods.c) ----------------------------------- */

/** The constructions the planner knows: one per row of the method table,
 *  the public methods first (their order is cm_method_info()'s), then the
 *  variants only the planner picks. */
typedef enum cm_construct {
    CM_C_BLOCK, CM_C_CYCLIC, CM_C_RANDOM, CM_C_SCOTCH, CM_C_MS, CM_C_CLUSTER,
    CM_C_TREECUT, CM_C_AUTO,
    CM_C_MS_FAST,   /* the multisection on a thinned graph (auto only) */
    CM_C_INITIAL,   /* the caller's incoming mapping (auto only) */
    CM_C_COUNT
} cm_construct_t;

/** What a construction reads and where it counts its work: the planner's
 *  state, narrowed to what the run functions need. */
typedef struct cm_method_ctx {
    const cm_problem_t *p;          /**< the problem on the (restricted) tree */
    const cm_matrix_t *m;           /**< the matrix as given (Scotch reads it) */
    const cm_tree_t *t;             /**< p->tree */
    const cm_plan_options_t *o;     /**< seed, threads, packing options */
    const int *initial;             /**< the incoming mapping on t, or NULL */
    const int *random;              /**< the random baseline on t, or NULL */
    cm_budget_t *budget;            /**< the run's budget: units spent go here */
    uint64_t units;                 /**< the clustering only: what it may
                                         spend (cm_method_cluster_units()) */
} cm_method_ctx_t;

/** One row of the method table: everything the planner, the public
 *  listing and the command know about a construction. */
typedef struct cm_method_row {
    cm_method_info_t info;  /**< the public part (name NULL: a variant the
                                 planner alone picks, not listed) */
    cm_construct_t c;       /**< equal to the row's index */
    const char *stage;      /**< its candidate's name in "auto", NULL: none */
    int stage_order;        /**< 1, 2, ...: when "auto" runs it; 0: never */
    /** Estimated work units (CM_*_UNITS) from the ranks and the entries of
     *  the symmetric matrix; NULL: it counts none ahead (a baseline). */
    double (*units)(double n, double nnz);
    /** Predicted seconds (the time account) from ranks, entries and the
     *  restricted tree's slots; NULL: its units at CM_UNITS_PER_SECOND
     *  (it counts its work at least as fast as it runs). */
    double (*seconds)(double n, double nnz, double nslots);
    /** Fill @p map (n entries) from @p x, adding the units it counted to
     *  x->budget.  0, or -1 with @p err set.  NULL: "auto" (plan.c). */
    int (*run)(const cm_method_ctx_t *x, int *map, cm_error_t *err);
    /** Charged to the time account at the units it spent
     *  (cm_cluster_seconds()) rather than at its prediction. */
    int charged_by_units;
    /** For a construction that adapts its search to the units it gets
     *  (the clustering): the share of the units left it is given, the
     *  rest going to its refinement, when it runs alone and when "auto"
     *  runs it (cm_method_share_alone(), cm_method_share_auto()); 0: it
     *  spends what it counts.  Two numbers, on purpose: plan_methods.c. */
    double share_alone, share_auto;
} cm_method_row_t;

/** The row of construction @p c (CM_C_BLOCK .. CM_C_COUNT - 1); NULL when
 *  out of range.  Static storage. */
const cm_method_row_t *cm_method_row(cm_construct_t c);

/** Work units @p r may spend when it is the algorithm asked for, of
 *  @p left units left of the run's budget: r->share_alone of them. */
double cm_method_share_alone(const cm_method_row_t *r, uint64_t left);

/** Work units @p r may spend in "auto", of @p left units left under what
 *  "auto" spends at this point: r->share_auto of them, but never less than
 *  its estimate @p est (its cheapest path, which was found to fit). */
double cm_method_share_auto(const cm_method_row_t *r, double left, double est);

#endif /* CM_ENGINE_INTERNAL_H */
