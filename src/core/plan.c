/* plan.c -- cm_plan(): the portfolio driver.
 *
 * The methods, their work estimates, predicted times, budget shares and
 * run functions are rows of the method table (plan_methods.c); this file
 * decides which run and when.
 *
 * "auto" reports block as is (always: the guarantee), then runs stages in
 * order of value for the work (measured with bench/engine/mapbench; the
 * rows' stage_order), each constructed and refined (cm_refine) at once:
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
 * and returns the lowest J (the first on ties) among the candidates whose
 * T_max (cm_cost_max: the slowest rank's receives) is no higher than
 * block's, so it is never worse than block in either figure, after
 * relieving its busiest uplinks (relieve_links, cm_refine_links: whole
 * nodes traded between switches, J and T_max within LINKS_TOL and
 * block's).  J alone
 * misleads on latency-bound pipelines: a wavefront's 2x4 tiles per node
 * send a third fewer messages off node than block's rows (J 0.63-0.71 of
 * block) but make the tiles' corner ranks receive both inputs off node,
 * and the pipeline runs at the pace of those ranks (1.5-1.8x slower under
 * SMPI's default protocol; T_max predicted it within 3 %).  A halo's
 * tiles lower T_max too: its bytes from other nodes, which T_max counts
 * per node (they share its network interface), are fewer.
 *
 * Budget.  --time-budget is turned into work units at a fixed rate
 * (CM_UNITS_PER_SECOND), so that the same inputs give the same mapping on
 * every machine.  "auto" spends no more than CM_AUTO_UNITS per second of
 * budget (a launch-time figure from n and nnz: 0.1 s at 1024 ranks), a
 * stage starts only when its estimated cost (CM_*_UNITS) fits, the first
 * construction excepted (it only needs to fit the budget itself), and the
 * refinements share what is left, each stopping when converged.
 *
 * Time.  The units steer the search; what a candidate costs in time is
 * kept in a second account, in seconds: a construction (which cannot be
 * interrupted) starts only when its predicted time (cm_*_seconds(),
 * engine_internal.h, measured upper envelopes) fits what is left of the
 * time budget, is charged the larger of that prediction and the units it
 * counted, and refinements get no more units than the seconds left.  A
 * candidate that does not fit is reported as "skipped: predicted X s >
 * budget Y s"; a single algorithm that does not fit fails.  With a
 * deadline (o->deadline) the clock is read before every candidate and
 * refinements run in slices of a quarter of the time left; past it,
 * nothing starts and the best complete mapping is returned.
 *
 * Bounded machine.  The candidates run on cm_tree_restrict() of the tree:
 * the part the n ranks can use, with the slots block and cyclic use (so
 * those baselines are unchanged) and those of the incoming mapping and of
 * the random baseline, which is drawn on the whole tree.  The mapping is
 * translated back to the tree's slots at the end.
 *
 * Figures.  With o->figures the report also gets the returned mapping's
 * and Slurm's default layout's figures on the caller's tree, by the public
 * cost functions' sums (fill_figures), for the placement record
 * (cm_plan_report_format, plan_report.c). */
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster_internal.h"
#include "engine_internal.h"
#include "tree_internal.h"

void cm_plan_options_init(cm_plan_options_t *o)
{
    if (!o)
        return;
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
    o->deadline = 0;
    o->threads = 1;
}

int cm_plan_threads_available(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n < 1 ? 1 : n > CM_WALK_MAX_THREADS ? CM_WALK_MAX_THREADS : n;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct planner {
    const cm_matrix_t *m;
    const cm_tree_t *t;     /* what the candidates map onto */
    cm_tree_t *cut;         /* t when it was cut from the caller's (owned) */
    const cm_plan_options_t *o;
    cm_problem_t p;
    cm_budget_t budget;     /* the whole run, in work units */
    double spent, allowed;  /* the whole run, in predicted seconds */
    double deadline;        /* CLOCK_MONOTONIC seconds, INFINITY: none */
    double rate;            /* units per second refinements achieved */
    cm_plan_report_t *rep;
    int *best;              /* best mapping so far */
    double bestJ, bestT;
    double capJ;            /* block's J: what relieve_links may not pass */
    double cap;             /* T_max a candidate may have to be chosen:
                               block's in "auto", INFINITY otherwise */
    int *work;
    int *initial;           /* the incoming mapping on t (owned) */
    int *random;            /* the random baseline on t (owned) */
    int nrefine_left;       /* refinements still to run (budget shares) */
    int strict;             /* a failing candidate fails the plan */
} planner_t;

static cm_plan_candidate_t *add_candidate(planner_t *pl, const char *name)
{
    cm_plan_report_t *r = pl->rep;
    if (pl->o->progress)
        pl->o->progress(name, pl->o->progress_arg);
    if (r->ncandidates >= CM_PLAN_MAX_CANDIDATES)
        return NULL;
    cm_plan_candidate_t *c = &r->candidates[r->ncandidates++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->J = NAN;
    c->T_max = NAN;
    return c;
}

/* Why @p c did not run (c may be NULL: the report is full). */
static void skipped(cm_plan_candidate_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void skipped(cm_plan_candidate_t *c, const char *fmt, ...)
{
    if (!c)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
}

/* How far J and T_max may rise when the busiest uplinks are relieved
 * (relieve_links): the 3-D halo's quads cost 0.007 % more J and 0.2 %
 * more T_max than the slabs they replace, for a quarter less on the
 * busiest uplink. */
#define LINKS_TOL 0.005

/* Relative slack on the T_max cap: the same per-rank sums visited in
 * another order may differ in the last bits. */
#define TMAX_TOL 1e-9

/* Keep @p map when its T_max is within the cap and its J beats the best
 * so far (the first offer, block in "auto", is always kept); @p cand (may
 * be NULL) gets its T_max, and with o->verbose its L_max (reported only:
 * the busiest uplink does not steer the choice yet, so it is not computed
 * for a launch).  O(nnz), not counted as work: it steers no search, and
 * each candidate's refinement costs many times more. */
static void offer(planner_t *pl, cm_plan_candidate_t *cand, const char *name,
                  const int *map, double J)
{
    double T = cm_problem_cost_max(&pl->p, map);
    if (cand) {
        cand->T_max = T;
        cand->L_max = pl->o->verbose ? cm_cost_links_levels(pl->p.a, pl->p.tree, map,
                                                            pl->p.costs.cb)
                                     : NAN;
    }
    if (pl->bestJ >= 0 && !(T <= pl->cap * (1 + TMAX_TOL))) {
        if (cand)
            cand->over_tmax = 1;
        return;
    }
    if (pl->bestJ >= 0 && !(J < pl->bestJ))
        return;
    pl->bestJ = J;
    pl->bestT = T;
    memcpy(pl->best, map, sizeof(int) * (size_t)pl->p.n);
    snprintf(pl->rep->winner, sizeof pl->rep->winner, "%s", name);
}

/* The chosen mapping's busiest uplinks relieved (cm_refine_links), at J
 * and T_max within LINKS_TOL of the choice and within block's: the
 * winner's name gets "+links" when it changed.  Reported as the
 * candidate "links". */
static void relieve_links(planner_t *pl)
{
    if (pl->bestJ < 0 || pl->deadline <= now())
        return;
    cm_plan_candidate_t *cand = add_candidate(pl, "links");
    double t0 = now();
    memcpy(pl->work, pl->best, sizeof(int) * (size_t)pl->p.n);
    int rc = cm_refine_links(&pl->p, pl->work, pl->capJ, pl->cap, LINKS_TOL, &pl->budget);
    if (rc <= 0) {
        skipped(cand, rc < 0 ? "failed: out of memory" : "no uplink relieved");
        return;
    }
    double J = cm_problem_cost(&pl->p, pl->work);
    pl->bestJ = J;
    pl->bestT = cm_problem_cost_max(&pl->p, pl->work);
    memcpy(pl->best, pl->work, sizeof(int) * (size_t)pl->p.n);
    size_t len = strlen(pl->rep->winner);
    snprintf(pl->rep->winner + len, sizeof pl->rep->winner - len, "+links");
    if (cand) {
        cand->J = J;
        cand->T_max = pl->bestT;
        cand->L_max = pl->o->verbose ? cm_cost_links_levels(pl->p.a, pl->p.tree, pl->best,
                                                            pl->p.costs.cb)
                                     : NAN;
        cand->ok = 1;
        cand->seconds = now() - t0;
    }
}

/* Seconds the time account may still spend: what is left of the budget
 * and, with a deadline, the wall time left, scaled by how much faster than
 * the account's slow rate refinements ran (slower: less). */
static double seconds_left(const planner_t *pl)
{
    double left = pl->allowed - pl->spent;
    if (isfinite(pl->deadline))
        left = fmin(left, (pl->deadline - now()) * pl->rate /
                              CM_UNITS_PER_SECOND_SLOW);
    return left > 0 ? left : 0;
}

/* Work units a refinement may still spend by the time account. */
static double units_by_time(const planner_t *pl)
{
    return seconds_left(pl) * CM_UNITS_PER_SECOND_SLOW;
}

/* Refine pl->work within @p units, @p vcycle as refine_share() says.
 * Without a deadline in one call (deterministic); with one in slices of a
 * quarter of the time left, reading the clock between them: the
 * refinement counts work, not time, and the rate it achieves here is what
 * converts the time left into units for the next slice. */
static double refine_units(planner_t *pl, uint64_t units, int vcycle)
{
    const cm_problem_t *p = &pl->p;
    uint64_t used = 0;
    double J;
    do {
        uint64_t slice = units - used;
        if (isfinite(pl->deadline))
            slice = (uint64_t)fmin((double)slice, 0.25 * units_by_time(pl)) + 1;
        cm_budget_t b = {0, slice};
        double t0 = now();
        J = vcycle && used == 0 ? cm_refine_vcycle(p, pl->work, &b)
                                : cm_refine(p, pl->work, &b);
        double dt = now() - t0;
        used += b.used;
        if (dt > 1e-3 && b.used > 0)
            pl->rate = fmin(CM_UNITS_PER_SECOND, (double)b.used / dt);
        if (b.used < slice)
            break;    /* converged */
    } while (isfinite(pl->deadline) && used < units && now() < pl->deadline);
    pl->budget.used += used;
    pl->spent += (double)used / CM_UNITS_PER_SECOND_SLOW;
    return J;
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
    if (pl->nrefine_left > 0)
        pl->nrefine_left--;
    double units = fmin((double)(left / (uint64_t)k), units_by_time(pl));
    return refine_units(pl, (uint64_t)units, vcycle);
}

/* Estimated work units of a construction (its row's CM_*_UNITS): what it
 * counts. */
static double estimate(cm_construct_t c, double n, double nnz)
{
    const cm_method_row_t *r = cm_method_row(c);
    return r->units ? r->units(n, nnz) : 0;
}

/* Predicted seconds of a construction on the planner's problem (its row's
 * time model). */
static double predict(const planner_t *pl, cm_construct_t c)
{
    const cm_method_row_t *r = cm_method_row(c);
    double n = pl->p.n, nnz = (double)cm_matrix_nnz(pl->p.sym);
    if (r->seconds)
        return r->seconds(n, nnz, pl->p.nslots);
    return estimate(c, n, nnz) / CM_UNITS_PER_SECOND;
}

/* Whether a construction predicted to take @p secs may start: it must fit
 * the seconds left of the time budget and, with a deadline, the wall time
 * left (seconds_left()).  When not, @p cand says why. */
static int affordable(const planner_t *pl, cm_plan_candidate_t *cand, double secs)
{
    double budget = pl->allowed - pl->spent;
    if (cand)
        cand->predicted = secs;
    if (secs > budget) {
        skipped(cand, "skipped: predicted %.3g s > budget %.3g s", secs,
                budget > 0 ? budget : 0);
        return 0;
    }
    if (isfinite(pl->deadline) && secs > seconds_left(pl)) {
        double wall = pl->deadline - now();
        if (wall <= 0)
            skipped(cand, "skipped: the deadline has passed");
        else
            skipped(cand, "skipped: predicted %.3g s > %.3g s left before the "
                    "deadline", secs * CM_UNITS_PER_SECOND_SLOW / pl->rate, wall);
        return 0;
    }
    return 1;
}

/* Charge a construction to the time account: the larger of its
 * prediction and the units it counted (which some count low). */
static void charge(planner_t *pl, uint64_t used_before, double secs)
{
    double counted = (double)(pl->budget.used - used_before) / CM_UNITS_PER_SECOND_SLOW;
    pl->spent += fmax(secs, counted);
}

/* What a construction reads and counts into: the planner's state. */
static cm_method_ctx_t method_ctx(planner_t *pl)
{
    cm_method_ctx_t x = {&pl->p, pl->m, pl->t, pl->o, pl->initial, pl->random,
                         &pl->budget, 0};
    return x;
}

/* The clustering within @p units of work, and no more than the time left
 * allows (it adapts its search to what it gets); charged to the time
 * account at what it spent. */
static int run_cluster(planner_t *pl, double units, cm_error_t *err)
{
    cm_budget_t *B = &pl->budget;
    double secs = seconds_left(pl) - cm_cluster_seconds(0, pl->p.n);
    units = fmin(units, secs * CM_UNITS_PER_SECOND / CM_CLUSTER_SLOWDOWN);
    cm_method_ctx_t x = method_ctx(pl);
    x.units = units > 0 ? (uint64_t)units : 0;
    uint64_t before = B->used;
    int rc = cm_method_row(CM_C_CLUSTER)->run(&x, pl->work, err);
    pl->spent += cm_cluster_seconds((double)(B->used - before), pl->p.n);
    return rc;
}

/* Build a starting mapping into pl->work: the row's run function; a
 * construction that adapts its search to its budget gets its share of
 * what is left of it (the rest is for the refinements). */
static int construct(planner_t *pl, cm_construct_t c, cm_error_t *err)
{
    const cm_method_row_t *r = cm_method_row(c);
    if (!r || !r->run)
        return cm_error_set(err, "cm_plan: no construction for method %d", (int)c);
    if (r->share_alone > 0) {
        cm_budget_t *B = &pl->budget;
        return run_cluster(pl, cm_method_share_alone(r, B->used < B->limit ?
                                                            B->limit - B->used : 0),
                           err);
    }
    cm_method_ctx_t x = method_ctx(pl);
    return r->run(&x, pl->work, err);
}

/* Construct, check and charge; @p cand (may be NULL) gets the time and
 * why it failed.  0, or -1 with @p err set. */
static int build_start(planner_t *pl, cm_plan_candidate_t *cand,
                       cm_construct_t c, double secs, cm_error_t *err)
{
    uint64_t before = pl->budget.used;
    double t0 = now();
    int rc = construct(pl, c, err);
    if (rc == 0)
        rc = cm_mapping_check(pl->t, pl->work, pl->p.n, err);
    if (!cm_method_row(c)->charged_by_units)   /* run_cluster() charged it */
        charge(pl, before, secs);
    if (cand) {
        cand->seconds = now() - t0;
        if (rc < 0)
            skipped(cand, "failed: %s", err->msg);
    }
    return rc;
}

/* Run one candidate: construct, optionally refine, record. */
static int run_candidate(planner_t *pl, const char *name, cm_construct_t c,
                         int refine, cm_error_t *err)
{
    cm_plan_candidate_t local, *cand = add_candidate(pl, name);
    if (!cand) {
        memset(&local, 0, sizeof local);
        cand = &local;
    }
    double secs = predict(pl, c);
    if (!affordable(pl, cand, secs)) {
        if (refine && pl->nrefine_left > 0)
            pl->nrefine_left--;
        return pl->strict ? cm_error_set(err, "cm_plan: %s: %s", name, cand->why) : 0;
    }
    double t0 = now();
    cm_error_t inner = {""};
    if (build_start(pl, cand, c, secs, &inner) < 0) {
        if (refine && pl->nrefine_left > 0)
            pl->nrefine_left--;
        /* In "auto" a candidate that cannot run (e.g. Scotch on a tree
         * whose slots are not all at the same depth) is only left out. */
        return pl->strict ? cm_error_set(err, "%s: %s", name, inner.msg) : 0;
    }
    double J = refine ? refine_share(pl, 1) : cm_problem_cost(&pl->p, pl->work);
    cand->seconds = now() - t0;
    cand->J = J;
    cand->ok = 1;
    offer(pl, cand, name, pl->work, J);
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

/* Whether the spanning tree is left out as too dense for it: only where
 * the multisection ran (@p ms_ran).  Where it did not -- too large for the
 * budget -- the spanning tree is the only construction left, and it pays
 * on denser patterns too: 0.08 of block's J on a 3-D random geometric
 * graph of 12 partners per rank at 1,048,576 ranks (bench-large). */
static int treecut_too_dense(int n, double nnz, int ms_ran)
{
    return nnz > TREECUT_MAX_DEG * (double)n && ms_ran;
}

/* Whether stage @p c of "auto" applies at all; when not, why in @p cand.
 * @p strong_gain is what refining the multisection gained (INFINITY when
 * it did not run). */
static int stage_applies(const planner_t *pl, cm_plan_candidate_t *cand,
                         cm_construct_t c, double Jblock, double strong_gain)
{
    int n = pl->p.n;
    double nnz = (double)cm_matrix_nnz(pl->p.sym);
    if (c == CM_C_BLOCK && !(Jblock <= BLOCK_REFINE_RATIO * pl->bestJ)) {
        skipped(cand, "skipped: block is far above the best");
        return 0;
    }
    if (c == CM_C_TREECUT && treecut_too_dense(n, nnz, isfinite(strong_gain))) {
        skipped(cand, "skipped: not a sparse pattern");
        return 0;
    }
    if (c == CM_C_CLUSTER && n > CLUSTER_ALWAYS_N &&
        !(strong_gain >= CLUSTER_GAIN * pl->bestJ)) {
        skipped(cand, "skipped: the multisection was near its best");
        return 0;
    }
    /* Scotch's static mapping is the multisection's equal at three
     * times its cost (mapbench): a fallback above small sizes. */
    if (c == CM_C_SCOTCH && n > CLUSTER_ALWAYS_N && isfinite(strong_gain)) {
        skipped(cand, "skipped: the multisection ran (Scotch is its fallback)");
        return 0;
    }
    return 1;
}

/* Whether stage @p c fits @p cap work units and the time left (the
 * multisection's fast variant may stand in for it: *@p c is then changed). */
static int stage_fits(const planner_t *pl, cm_plan_candidate_t *cand,
                      cm_construct_t *c, double cap)
{
    double n = pl->p.n, nnz = (double)cm_matrix_nnz(pl->p.sym);
    double used = (double)pl->budget.used;
    /* A dense pattern whose multisection does not fit gets the fast
     * one (thinned graph, Scotch's speed strategy): as good on the
     * FFTs measured, at a third of the time. */
    if (*c == CM_C_MS && (used + estimate(CM_C_MS, n, nnz) > cap ||
                       !affordable(pl, NULL, predict(pl, CM_C_MS))) &&
        used + estimate(CM_C_MS_FAST, n, nnz) <= cap)
        *c = CM_C_MS_FAST;
    if (used + estimate(*c, n, nnz) > cap) {
        skipped(cand, "skipped: work estimate above what auto spends here");
        return 0;
    }
    return affordable(pl, cand, predict(pl, *c));
}

/* Least share of block's J a placement must save for "auto" to leave
 * Slurm's layout.  J sums the whole run; the time is made by each
 * moment's busiest link, which a summed profile cannot see, so between
 * placements a few tenths of a per cent apart in J the simulated time
 * spreads by several per cent either way (bench/sim/README.md, "GPU
 * platforms": a mixture-of-experts layer at J 0.995 and 0.9996 of
 * block's ran 1.0-1.9 % slower than block, another at 0.997 ran 2.8 %
 * faster).  Below this gain the prediction says nothing, and Slurm's
 * layout is what the user would get without clustermap. */
#define AUTO_MIN_GAIN 0.01

/* With the best candidate's J less than AUTO_MIN_GAIN below @p Jblock,
 * block itself is returned; the candidate "min-gain" says why (ok = 0:
 * it is a decision, not a mapping of its own). */
static void keep_block_unless_gain(planner_t *pl, double Jblock, cm_error_t *err)
{
    if (!strcmp(pl->rep->winner, "block") || !(pl->bestJ > (1 - AUTO_MIN_GAIN) * Jblock))
        return;
    cm_plan_candidate_t *cand = add_candidate(pl, "min-gain");
    if (cm_map_block(pl->t, pl->p.n, pl->work, err) < 0) {
        skipped(cand, "failed: %s", err->msg);
        return;
    }
    skipped(cand, "kept block: %s saves %.2f %% of J, under %g %%", pl->rep->winner,
            100 * (1 - pl->bestJ / Jblock), 100 * AUTO_MIN_GAIN);
    memcpy(pl->best, pl->work, sizeof(int) * (size_t)pl->p.n);
    pl->bestJ = Jblock;
    pl->bestT = pl->cap;   /* block's T_max, the cap every candidate met */
    snprintf(pl->rep->winner, sizeof pl->rep->winner, "block");
}

static int plan_auto(planner_t *pl, cm_error_t *err)
{
    const cm_problem_t *p = &pl->p;
    int n = p->n;
    double nnz = (double)cm_matrix_nnz(p->sym);
    /* The stages, in their rows' stage_order (plan_methods.c: in order of
     * value for the work, measured with mapbench). */
    const cm_method_row_t *stages[CM_C_COUNT];
    int nstages = 0;
    for (int order = 1; order <= CM_C_COUNT; order++)
        for (int c = 0; c < CM_C_COUNT; c++)
            if (cm_method_row((cm_construct_t)c)->stage_order == order)
                stages[nstages++] = cm_method_row((cm_construct_t)c);
    int rc;
    double hard = (double)pl->budget.limit;
    double strong_gain = INFINITY;   /* what refining the multisection gained */

    /* Block as is: the guarantee. */
    pl->strict = 1;
    rc = run_candidate(pl, "block", CM_C_BLOCK, 0, err);
    pl->strict = 0;
    if (rc < 0)
        return rc;
    double Jblock = pl->bestJ;
    pl->cap = pl->bestT;   /* no candidate may make the slowest rank slower */
    pl->capJ = Jblock;

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
        cm_construct_t c = stages[k]->c;
        if (c == CM_C_INITIAL && !pl->initial)
            continue;
        cm_plan_candidate_t *cand = add_candidate(pl, stages[k]->stage);
        /* The first real construction runs whenever the hard budget allows
         * it: the strong path is never left out for the soft limit. */
        double cap = first && c != CM_C_INITIAL ? hard : soft_units;
        if (!stage_fits(pl, cand, &c, cap) ||
            !stage_applies(pl, cand, c, Jblock, strong_gain))
            continue;          /* reported with ok = 0 */
        if (c != CM_C_INITIAL)
            first = 0;
        double t0 = now(), secs = predict(pl, c);
        cm_error_t inner = {""};
        if (stages[k]->share_auto > 0) {
            /* It adapts its search to what it gets: its share of what is
             * left under the soft limit, the rest for its refinement. */
            double left = cap - (double)pl->budget.used;
            rc = run_cluster(pl, cm_method_share_auto(stages[k], left,
                                                      estimate(c, n, nnz)),
                             &inner);
            if (rc == 0)
                rc = cm_mapping_check(pl->t, pl->work, n, &inner);
            if (rc < 0)
                skipped(cand, "failed: %s", inner.msg);
        } else {
            rc = build_start(pl, cand, c, secs, &inner);
        }
        if (rc < 0) {
            if (cand)
                cand->seconds = now() - t0;
            continue;          /* e.g. Scotch on an irregular-depth tree */
        }
        /* Refinements share what is left of the hard budget with the
         * stages still to come; a converged refinement leaves the rest. */
        pl->nrefine_left = nstages - k;
        for (int j = k + 1; j < nstages; j++)   /* a stage that will not run */
            if (stages[j]->c == CM_C_TREECUT &&
                treecut_too_dense(n, nnz, isfinite(strong_gain) || c == CM_C_MS ||
                                              c == CM_C_MS_FAST))
                pl->nrefine_left--;
        double J0 = cm_problem_cost(p, pl->work);
        double J = c == CM_C_TREECUT && !(J0 <= TREECUT_REFINE_RATIO * pl->bestJ)
                       ? J0 : refine_share(pl, 0);
        if (c == CM_C_MS || c == CM_C_MS_FAST)
            strong_gain = J0 - J;
        if (cand) {
            cand->J = J;
            cand->ok = 1;
            cand->seconds = now() - t0;
        }
        offer(pl, cand, stages[k]->stage, pl->work, J);
    }
    relieve_links(pl);
    keep_block_unless_gain(pl, Jblock, err);
    return 0;
}

/* The incoming mapping on pl->t (cut from @p t or @p t itself), checked. */
static int take_initial(planner_t *pl, const cm_tree_t *t, cm_error_t *err)
{
    int n = cm_matrix_n(pl->m);
    if (!(pl->initial = malloc(sizeof(int) * (size_t)n)))
        return cm_error_set(err, "cm_plan: out of memory for %d ranks", n);
    if (pl->cut)
        return cm_tree_map_from_origin(pl->cut, pl->o->initial, n, pl->initial, err);
    memcpy(pl->initial, pl->o->initial, sizeof(int) * (size_t)n);
    return cm_mapping_check(t, pl->initial, n, err);
}

/* The machine the candidates run on: the part of @p t the n ranks can use
 * (cm_tree_restrict), with the slots of the incoming mapping and, for
 * "random", of the random mapping drawn on @p t itself (a random placement
 * over the whole allocation is that baseline, not one over the part kept),
 * or @p t itself when nothing would be cut. */
static int cut_machine(planner_t *pl, const cm_tree_t *t, int random,
                       cm_error_t *err)
{
    int n = cm_matrix_n(pl->m), nkeep = 0, rc = 0;
    int *keep = malloc(2 * sizeof(int) * (size_t)n);
    if (!keep)
        return cm_error_set(err, "cm_plan: out of memory for %d ranks", n);
    if (pl->o->initial) {
        memcpy(keep, pl->o->initial, sizeof(int) * (size_t)n);
        nkeep = n;
    }
    if (random)
        rc = cm_map_random(t, n, pl->o->seed, keep + nkeep, err);
    if (rc == 0)
        pl->cut = cm_tree_cut(t, n, 1, keep, nkeep + (random ? n : 0), &rc, err);
    pl->t = pl->cut ? pl->cut : t;
    if (rc == 0 && pl->o->initial)
        rc = take_initial(pl, t, err);
    if (rc == 0 && random) {
        if (!(pl->random = malloc(sizeof(int) * (size_t)n)))
            rc = cm_error_set(err, "cm_plan: out of memory for %d ranks", n);
        else if (pl->cut)
            rc = cm_tree_map_from_origin(pl->cut, keep + nkeep, n, pl->random, err);
        else
            memcpy(pl->random, keep + nkeep, sizeof(int) * (size_t)n);
    }
    free(keep);
    return rc;
}

_Static_assert(CM_PLAN_MAX_LEVELS == CM_MAX_LEVELS,
               "a report's figures hold every level the planner accepts");

/* @p map's figures on @p t priced at @p c: the sums of cm_cost_report()
 * and cm_cost_max() themselves, not the planner's own J and T_max, which
 * add the symmetrised matrix's entries on the machine's usable part in
 * another order and may differ in the last bits from what cm_cost() says
 * of the same mapping.  Two O(nnz) passes. */
static int fill_figures(const cm_matrix_t *m, const cm_tree_t *t,
                        const cm_costs_t *c, const int *map, cm_plan_figures_t *f,
                        cm_error_t *err)
{
    cm_cost_report_t r = { 0, c->nlevels, f->level_bytes, NULL, 0, -1 };
    f->nlevels = c->nlevels;
    if (cm_cost_report_levels(m, t, map, c->cb, c->cm, &r, err) < 0)
        return -1;
    f->J = r.J;
    f->max_node_out = r.max_node_out;
    f->T_max = cm_cost_max_levels(m, t, map, c->cb, c->cm);
    if (isnan(f->T_max))
        return cm_error_set(err, "cm_plan: T_max: out of memory");
    return 0;
}

/* With o->figures: the figures of @p map (on @p t) and of Slurm's default
 * layout, block on @p t, under the costs of o->weight; has_figures stays 0
 * when they cannot be had (the mapping is returned all the same). */
static void plan_figures(const cm_matrix_t *m, const cm_tree_t *t,
                         const cm_plan_options_t *o, const int *map,
                         cm_plan_report_t *r)
{
    int n = cm_matrix_n(m);
    cm_error_t e;
    cm_costs_t c;
    if (cm_tree_nlevels(t) > CM_PLAN_MAX_LEVELS)
        return;
    cm_costs_from_tree(t, m, o->weight, &c);
    int *block = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    r->has_figures = block && cm_map_block(t, n, block, &e) == 0 &&
                     fill_figures(m, t, &c, map, &r->plan, &e) == 0 &&
                     fill_figures(m, t, &c, block, &r->slurm_default, &e) == 0;
    free(block);
}

/* The options' numbers and the algorithm's row (-1: auto). */
static int check_options(const cm_matrix_t *m, const cm_tree_t *t,
                         const cm_plan_options_t *o, int *which, cm_error_t *err)
{
    const char *algo = o->algorithm ? o->algorithm : "auto";
    int n = cm_matrix_n(m), nslots = cm_tree_nslots(t);
    if (n > nslots)
        return cm_error_set(err, "cm_plan: %d ranks do not fit on the %d slots "
                            "of the machine", n, nslots);
    if (!(o->time_budget >= 0) || !isfinite(o->time_budget))
        return cm_error_set(err, "cm_plan: time budget must be a finite number "
                            ">= 0 seconds, got %g", o->time_budget);
    if (!(o->deadline >= 0) || !isfinite(o->deadline))
        return cm_error_set(err, "cm_plan: deadline must be a finite number "
                            ">= 0 seconds (0: none), got %g", o->deadline);
    if (o->threads < 1)
        return cm_error_set(err, "cm_plan: threads must be at least 1, got %d",
                            o->threads);
    int k = cm_method_by_name(algo);
    if (k < 0) {
        /* The names fit: a few short words (the user's goes through
         * cm_error_t, which cuts any message at its size). */
        char names[256];
        cm_method_names(names, sizeof names, ", ", " or ");
        return cm_error_set(err, "cm_plan: unknown algorithm \"%s\" (expected "
                            "%s)", algo, names);
    }
    *which = cm_method_info(k)->is_portfolio ? -1 : k;
    return 0;
}

int cm_plan(const cm_matrix_t *m, const cm_tree_t *t,
            const cm_plan_options_t *o, int *map, cm_plan_report_t *report,
            cm_error_t *err)
{
    cm_plan_options_t defaults;
    cm_plan_report_t local_report;
    double start = now();
    if (!o) {
        cm_plan_options_init(&defaults);
        o = &defaults;
    }
    if (!m || !t || !map)
        return cm_error_set(err, "cm_plan: expected a matrix, a tree and a map, "
                            "got NULL");
    int which = -1, n = cm_matrix_n(m);
    if (check_options(m, t, o, &which, err) < 0)
        return -1;

    planner_t pl;
    memset(&pl, 0, sizeof pl);
    pl.m = m;
    pl.o = o;
    pl.rep = report ? report : &local_report;
    memset(pl.rep, 0, sizeof *pl.rep);
    /* A method's name (check_options): it fits. */
    snprintf(pl.rep->algorithm, sizeof pl.rep->algorithm, "%s",
             o->algorithm ? o->algorithm : "auto");
    pl.bestJ = -1;
    pl.bestT = NAN;
    pl.cap = INFINITY;
    pl.allowed = o->time_budget;
    pl.deadline = o->deadline > 0 ? start + o->deadline : INFINITY;
    pl.rate = CM_UNITS_PER_SECOND_SLOW;
    int rc = cut_machine(&pl, t, which == CM_C_RANDOM, err);
    cm_costs_t costs;
    cm_costs_from_tree(pl.t, m, o->weight, &costs);
    if (rc < 0 || cm_problem_init(&pl.p, m, pl.t, &costs, err) < 0) {
        rc = -1;
        goto out;
    }
    double units = o->time_budget * CM_UNITS_PER_SECOND;
    pl.budget.limit = units >= 1.8e19 ? UINT64_MAX : (uint64_t)units;
    pl.best = malloc(sizeof(int) * (size_t)n);
    pl.work = malloc(sizeof(int) * (size_t)n);
    if (!pl.best || !pl.work) {
        rc = cm_error_set(err, "cm_plan: out of memory for %d ranks", n);
        goto out;
    }
    if (which >= 0) {
        /* One algorithm, as asked: it runs when its construction fits the
         * budget (the refinement stops when the budget is spent). */
        pl.budget.limit = pl.budget.limit > 0 ? pl.budget.limit : 1;
        pl.nrefine_left = 1;
        pl.strict = 1;
        const cm_method_info_t *info = cm_method_info(which);
        rc = run_candidate(&pl, info->name, (cm_construct_t)which, info->refined, err);
    } else {
        rc = plan_auto(&pl, err);
    }
    if (rc == 0 && pl.bestJ < 0)
        rc = cm_error_set(err, "cm_plan: no candidate produced a mapping");
    if (rc == 0) {
        if (pl.cut)
            rc = cm_tree_map_to_origin(pl.cut, pl.best, n, map, err);
        else
            memcpy(map, pl.best, sizeof(int) * (size_t)n);
        pl.rep->J = pl.bestJ;
        pl.rep->T_max = pl.bestT;
        /* reported only: a launch does not pay for it (10 s at 10^6
         * scrambled ranks before the walk was cached) */
        pl.rep->L_max = o->verbose ? cm_cost_links_levels(pl.p.a, pl.p.tree, pl.best,
                                                          pl.p.costs.cb)
                                   : NAN;
        if (rc == 0 && o->figures && report)
            plan_figures(m, t, o, map, pl.rep);
    }
out:
    free(pl.best);
    free(pl.work);
    free(pl.initial);
    free(pl.random);
    cm_problem_fini(&pl.p);
    cm_tree_free(pl.cut);
    return rc;
}
