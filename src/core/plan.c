/* plan.c -- cm_plan(): the portfolio driver.
 *
 * "auto" reports block as is (always: the guarantee), then runs stages in
 * order of value for the work (measured with bench/engine/mapbench), each
 * constructed and refined (cm_refine) at once:
 *   initial+refine   the caller's incoming mapping (when given)
 *   scotch-ms        level-by-level Scotch multisection: the strong path,
 *                    best on meshes and FFTs, a third of Scotch's cost
 *                    (its fast variant on a thinned graph when the full
 *                    one does not fit: dense patterns at large sizes)
 *   treecut          a maximum spanning forest cut into the children's
 *                    shares by a dynamic program (map_treecut.c): wins on
 *                    tree-shaped patterns; sparse patterns only, refined
 *                    only when its start is near the best so far
 *   cluster          CP-NSC clustering packed level by level
 *                    (cluster_map.c): wins on trees and irregular patterns;
 *                    above small sizes only when refining the multisection
 *                    gained enough to show that it was not at its best
 *   block+refine     the application's own order, when block is within
 *                    BLOCK_REFINE_RATIO of the best (natural orders of
 *                    all-to-all blocks and row-aligned FFTs are near-optimal)
 *   scotch+refine    Scotch's static mapping: small sizes, or as fallback
 * and returns the lowest J (the first on ties), so it is never worse than
 * block under the objective.
 *
 * Budget.  --time-budget is turned into work units at a fixed rate
 * (CM_UNITS_PER_SECOND), so that the same inputs give the same mapping on
 * every machine.  "auto" spends no more than CM_AUTO_UNITS per second of
 * budget (a launch-time figure from n and nnz: 0.1 s at 1024 ranks), a
 * stage starts only when its estimated cost (CM_*_UNITS) fits, the first
 * construction excepted (it only needs to fit the budget itself), and the
 * refinements share what is left, each stopping when converged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster_internal.h"
#include "engine_internal.h"

void cm_plan_options_init(cm_plan_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->algorithm = "auto";
    o->time_budget = 1.0;
    o->seed = 1;
    o->weight = CM_WEIGHT_MIXED;
    o->initial = NULL;
    o->pack_low = CM_PACK_LOW_DEFAULT;
    o->pack_high = CM_PACK_HIGH_DEFAULT;
    o->pack_kmax = CM_PACK_KMAX_DEFAULT;
    o->verbose = 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct planner {
    const cm_matrix_t *m;
    const cm_tree_t *t;
    const cm_plan_options_t *o;
    cm_problem_t p;
    cm_budget_t budget;     /* the whole run */
    cm_plan_report_t *rep;
    int *best;              /* best mapping so far */
    double bestJ;
    int *work;
    int nrefine_left;       /* refinements still to run (budget shares) */
    int strict;             /* a failing candidate fails the plan */
} planner_t;

static cm_plan_candidate_t *add_candidate(planner_t *pl, const char *name)
{
    cm_plan_report_t *r = pl->rep;
    if (r->ncandidates >= CM_PLAN_MAX_CANDIDATES)
        return NULL;
    cm_plan_candidate_t *c = &r->candidates[r->ncandidates++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->J = NAN;
    return c;
}

/* Keep @p map when it beats the best so far. */
static void offer(planner_t *pl, const char *name, const int *map, double J)
{
    if (pl->bestJ >= 0 && !(J < pl->bestJ))
        return;
    pl->bestJ = J;
    memcpy(pl->best, map, sizeof(int) * (size_t)pl->p.n);
    snprintf(pl->rep->winner, sizeof pl->rep->winner, "%s", name);
}

/* Refine pl->work with an equal share of what is left of the budget:
 * local search, then with @p vcycle V-cycles while they pay
 * (cm_refine_vcycle).  "auto" refines flat: V-cycles after every stage
 * left the later stages less (mapbench: bintree at 4096 ranks lost 2 %, as
 * the clustering adapts its search to its budget), and polishing the
 * winner with them gained under 0.2 % (a2a64+ring only) for up to 45 %
 * more time on dense patterns.  A single algorithm gets them: the
 * multisection alone gains 3 % on fragmented allocations. */
static double refine_share(planner_t *pl, int vcycle)
{
    cm_budget_t *B = &pl->budget;
    uint64_t left = B->used < B->limit ? B->limit - B->used : 0;
    int k = pl->nrefine_left > 0 ? pl->nrefine_left : 1;
    cm_budget_t share = {0, left / (uint64_t)k};
    if (pl->nrefine_left > 0)
        pl->nrefine_left--;
    double J = vcycle ? cm_refine_vcycle(&pl->p, pl->work, &share)
                      : cm_refine(&pl->p, pl->work, &share);
    B->used += share.used;
    return J;
}

static int fits(const planner_t *pl, double units)
{
    const cm_budget_t *B = &pl->budget;
    return (double)B->used + units <= (double)B->limit;
}

enum construct { C_BLOCK, C_CYCLIC, C_RANDOM, C_SCOTCH, C_MS, C_MS_FAST,
                 C_CLUSTER, C_INITIAL, C_TREECUT };

/* Build a starting mapping into pl->work. */
static int construct(planner_t *pl, enum construct c, cm_error_t *err)
{
    const cm_problem_t *p = &pl->p;
    int n = p->n;
    switch (c) {
    case C_BLOCK:
        return cm_map_block(pl->t, n, pl->work, err);
    case C_CYCLIC:
        return cm_map_cyclic(pl->t, n, pl->work, err);
    case C_RANDOM:
        return cm_map_random(pl->t, n, pl->o->seed, pl->work, err);
    case C_SCOTCH: {
        int rc = cm_map_scotch(pl->m, pl->t, pl->o->seed, pl->work, err);
        pl->budget.used += (uint64_t)CM_SCOTCH_UNITS((double)n,
                                                     (double)cm_matrix_nnz(p->sym));
        return rc;
    }
    case C_MS:
    case C_MS_FAST:
        return cm_map_multisection(p, pl->o->seed, c == C_MS_FAST, pl->work,
                                   &pl->budget, err);
    case C_CLUSTER: {
        /* It adapts its search to the budget it gets: leave half of what
         * is left for the refinements. */
        cm_budget_t *B = &pl->budget;
        cm_budget_t sub = {0, B->used < B->limit ? (B->limit - B->used) / 2 : 0};
        int rc = cm_map_cluster(p, pl->o, &sub, pl->work, err);
        B->used += sub.used;
        return rc;
    }
    case C_INITIAL:
        memcpy(pl->work, pl->o->initial, sizeof(int) * (size_t)n);
        return 0;
    case C_TREECUT:
        return cm_map_treecut(p, pl->work, &pl->budget, err);
    }
    return cm_error_set(err, "internal: unknown construction %d", (int)c);
}

/* Run one candidate: construct, optionally refine, record. */
static int run_candidate(planner_t *pl, const char *name, enum construct c,
                         int refine, double est_units, cm_error_t *err)
{
    cm_plan_candidate_t *cand = add_candidate(pl, name);
    if (!fits(pl, est_units)) {
        if (refine && pl->nrefine_left > 0)
            pl->nrefine_left--;
        return 0;    /* skipped: ok stays 0 */
    }
    double t0 = now();
    cm_error_t inner = {""};
    if (construct(pl, c, &inner) < 0 ||
        cm_mapping_check(pl->t, pl->work, pl->p.n, &inner) < 0) {
        if (refine && pl->nrefine_left > 0)
            pl->nrefine_left--;
        if (cand)
            cand->seconds = now() - t0;
        /* In "auto" a candidate that cannot run (e.g. Scotch on a tree
         * whose slots are not all at the same depth) is only left out. */
        return pl->strict ? cm_error_set(err, "%s: %s", name, inner.msg) : 0;
    }
    double J = refine ? refine_share(pl, 1) : cm_problem_cost(&pl->p, pl->work);
    if (cand) {
        cand->seconds = now() - t0;
        cand->J = J;
        cand->ok = 1;
    }
    offer(pl, name, pl->work, J);
    return 0;
}


/* Refining a start this much worse than the best J so far rarely wins and
 * costs the most (a far start has the most moves to make): block (often
 * scrambled) is then not refined. */
#define BLOCK_REFINE_RATIO 1.25
/* The clustering costs as much as the multisection and loses to it on
 * meshes and FFTs, where the multisection's result is already a local
 * optimum of the refinement; it wins on trees and irregular patterns, where
 * refining the multisection gains several percent (mapbench: bintree 5 %,
 * stencils 0 %, a2a64+ring and fft2d < 1 %).  Above this size it runs only
 * when that gain reached CLUSTER_GAIN of J. */
#define CLUSTER_ALWAYS_N 512
/* The spanning-tree placement pays where the graph is nearly a tree:
 * sparse patterns only (mean partners per rank), and its start is refined
 * only when it is near the best so far (on meshes it starts 40-60 % above
 * the multisection and refining it does not catch up: mapbench). */
#define TREECUT_MAX_DEG 8
#define TREECUT_REFINE_RATIO 1.1
#define CLUSTER_GAIN 0.02

/* Estimated units of a construction (CM_*_UNITS). */
static double estimate(enum construct c, double n, double nnz)
{
    switch (c) {
    case C_MS:
        return CM_MS_UNITS(n, nnz);
    case C_MS_FAST:
        return CM_MS_FAST_UNITS(n, nnz);
    case C_SCOTCH:
        return CM_SCOTCH_UNITS(n, nnz);
    case C_CLUSTER:
        return CM_CLUSTER_UNITS(n, nnz);
    case C_TREECUT:
        return CM_TREECUT_UNITS(n, nnz);
    default:
        return 0;
    }
}

static int plan_auto(planner_t *pl, cm_error_t *err)
{
    const cm_problem_t *p = &pl->p;
    int n = p->n;
    double nnz = (double)cm_matrix_nnz(p->sym);
    /* In order of value for the work (measured with mapbench): the
     * multisection is as good a start as Scotch's static mapping at a third
     * of its cost and the best on meshes, the clustering wins on trees and
     * irregular patterns, the rest pays only on small inputs or when the
     * application's order is already good. */
    static const struct {
        const char *name;
        enum construct c;
    } stages[] = {
        {"initial+refine", C_INITIAL},
        {"scotch-ms", C_MS},
        {"treecut", C_TREECUT},
        {"cluster", C_CLUSTER},
        {"block+refine", C_BLOCK},
        {"scotch+refine", C_SCOTCH},
    };
    const int nstages = (int)(sizeof stages / sizeof stages[0]);
    int rc;
    double hard = (double)pl->budget.limit;
    double strong_gain = INFINITY;   /* what refining the multisection gained */

    /* Block as is: the guarantee. */
    pl->strict = 1;
    rc = run_candidate(pl, "block", C_BLOCK, 0, 0, err);
    pl->strict = 0;
    if (rc < 0)
        return rc;
    double Jblock = pl->bestJ;

    /* What "auto" spends: the budget, but no more than the work a launch
     * should take for this size (CM_AUTO_UNITS per second of budget, so a
     * larger budget still buys more search).  Stages start while their
     * estimate fits, refinements stop when converged (cm_refine) or at
     * this limit: a fast-converging input ends early. */
    double soft = CM_AUTO_UNITS((double)n, nnz) *
                  (pl->o->time_budget > 1 ? pl->o->time_budget : 1);
    if (soft < (double)pl->budget.limit)
        pl->budget.limit = (uint64_t)soft;
    double soft_units = (double)pl->budget.limit;
    int first = 1;
    for (int k = 0; k < nstages; k++) {
        enum construct c = stages[k].c;
        if (c == C_INITIAL && !pl->o->initial)
            continue;
        cm_plan_candidate_t *cand = add_candidate(pl, stages[k].name);
        double est = estimate(c, (double)n, nnz);
        /* The first real construction runs whenever the hard budget allows
         * it: the strong path is never left out for the soft limit. */
        double cap = first && c != C_INITIAL ? hard : soft_units;
        /* A dense pattern whose multisection does not fit gets the fast
         * one (thinned graph, Scotch's speed strategy): as good on the
         * FFTs measured, at a third of the time. */
        if (c == C_MS && (double)pl->budget.used + est > cap &&
            (double)pl->budget.used + estimate(C_MS_FAST, (double)n, nnz) <= cap) {
            c = C_MS_FAST;
            est = estimate(c, (double)n, nnz);
        }
        if ((double)pl->budget.used + est > cap)
            continue;          /* reported with ok = 0 */
        if (c == C_BLOCK && !(Jblock <= BLOCK_REFINE_RATIO * pl->bestJ))
            continue;
        if (c == C_TREECUT && nnz > TREECUT_MAX_DEG * n)
            continue;
        if (c == C_CLUSTER && n > CLUSTER_ALWAYS_N &&
            !(strong_gain >= CLUSTER_GAIN * pl->bestJ))
            continue;
        /* Scotch's static mapping is the multisection's equal at three
         * times its cost (mapbench): a fallback above small sizes. */
        if (c == C_SCOTCH && n > CLUSTER_ALWAYS_N && isfinite(strong_gain))
            continue;
        if (c != C_INITIAL)
            first = 0;
        double t0 = now();
        cm_error_t inner = {""};
        if (c == C_CLUSTER) {
            /* It adapts its search to what it gets: most of what is left
             * under the soft limit, the rest for its refinement. */
            cm_budget_t *B = &pl->budget;
            double left = cap - (double)B->used;
            cm_budget_t sub = {0, (uint64_t)(left > est ? 0.75 * left : est)};
            rc = cm_map_cluster(p, pl->o, &sub, pl->work, &inner);
            B->used += sub.used;
        } else {
            rc = construct(pl, c, &inner);
        }
        if (rc < 0 || cm_mapping_check(pl->t, pl->work, n, &inner) < 0) {
            if (cand)
                cand->seconds = now() - t0;
            continue;          /* e.g. Scotch on an irregular-depth tree */
        }
        /* Refinements share what is left of the hard budget with the
         * stages still to come; a converged refinement leaves the rest. */
        pl->nrefine_left = nstages - k;
        for (int j = k + 1; j < nstages; j++)   /* a stage that will not run */
            if (stages[j].c == C_TREECUT && nnz > TREECUT_MAX_DEG * n)
                pl->nrefine_left--;
        double J0 = cm_problem_cost(p, pl->work);
        double J = c == C_TREECUT && !(J0 <= TREECUT_REFINE_RATIO * pl->bestJ)
                       ? J0 : refine_share(pl, 0);
        if (c == C_MS || c == C_MS_FAST)
            strong_gain = J0 - J;
        if (cand) {
            cand->J = J;
            cand->ok = 1;
            cand->seconds = now() - t0;
        }
        offer(pl, stages[k].name, pl->work, J);
    }
    (void)err;
    return 0;
}

static const struct {
    const char *name;
    enum construct c;
    int refine;
} single[] = {
    {"block", C_BLOCK, 0},     {"cyclic", C_CYCLIC, 0},
    {"random", C_RANDOM, 0},   {"scotch", C_SCOTCH, 0},
    {"scotch-ms", C_MS, 1},    {"cluster", C_CLUSTER, 1},
    {"treecut", C_TREECUT, 1},
};

int cm_plan(const cm_matrix_t *m, const cm_tree_t *t,
            const cm_plan_options_t *o, int *map, cm_plan_report_t *report,
            cm_error_t *err)
{
    cm_plan_options_t defaults;
    cm_plan_report_t local_report;
    if (!o) {
        cm_plan_options_init(&defaults);
        o = &defaults;
    }
    if (!m || !t || !map)
        return cm_error_set(err, "cm_plan: expected a matrix, a tree and a map, "
                            "got NULL");
    const char *algo = o->algorithm ? o->algorithm : "auto";
    int n = cm_matrix_n(m), nslots = cm_tree_nslots(t);
    if (n > nslots)
        return cm_error_set(err, "cm_plan: %d ranks do not fit on the %d slots "
                            "of the machine", n, nslots);
    if (!(o->time_budget >= 0) || !isfinite(o->time_budget))
        return cm_error_set(err, "cm_plan: time budget must be a finite number "
                            ">= 0 seconds, got %g", o->time_budget);
    int which = -1;
    for (size_t k = 0; k < sizeof single / sizeof single[0]; k++)
        if (strcmp(algo, single[k].name) == 0)
            which = (int)k;
    if (which < 0 && strcmp(algo, "auto") != 0)
        return cm_error_set(err, "cm_plan: unknown algorithm \"%s\" (expected "
                            "auto, cluster, scotch-ms, treecut, block, cyclic, "
                            "random or scotch)", algo);
    if (o->initial && cm_mapping_check(t, o->initial, n, err) < 0)
        return -1;

    planner_t pl;
    memset(&pl, 0, sizeof pl);
    pl.m = m;
    pl.t = t;
    pl.o = o;
    pl.rep = report ? report : &local_report;
    memset(pl.rep, 0, sizeof *pl.rep);
    pl.bestJ = -1;
    cm_costs_t costs;
    cm_costs_from_tree(t, m, o->weight, &costs);
    if (cm_problem_init(&pl.p, m, t, &costs, err) < 0) {
        cm_problem_fini(&pl.p);
        return -1;
    }
    double units = o->time_budget * CM_UNITS_PER_SECOND;
    pl.budget.limit = units >= 1.8e19 ? UINT64_MAX : (uint64_t)units;
    pl.best = malloc(sizeof(int) * (size_t)n);
    pl.work = malloc(sizeof(int) * (size_t)n);
    int rc = 0;
    if (!pl.best || !pl.work) {
        rc = cm_error_set(err, "cm_plan: out of memory for %d ranks", n);
        goto out;
    }
    if (which >= 0) {
        /* One algorithm, as asked: it runs whatever the budget says (the
         * refinement stops when the budget is spent). */
        pl.budget.limit = pl.budget.limit > 0 ? pl.budget.limit : 1;
        pl.nrefine_left = 1;
        pl.strict = 1;
        rc = run_candidate(&pl, single[which].name, single[which].c,
                           single[which].refine, 0, err);
    } else {
        rc = plan_auto(&pl, err);
    }
    if (rc == 0 && pl.bestJ < 0)
        rc = cm_error_set(err, "cm_plan: no candidate produced a mapping");
    if (rc == 0) {
        memcpy(map, pl.best, sizeof(int) * (size_t)n);
        pl.rep->J = pl.bestJ;
    }
out:
    free(pl.best);
    free(pl.work);
    cm_problem_fini(&pl.p);
    return rc;
}
