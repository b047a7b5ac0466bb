/*
 * guard.c -- the measured guard: from a profile's run history, whether the
 * next run is placed from the profile or left to Slurm's default.
 *
 * The cost model can be wrong (a latency-bound pipeline, memory bandwidth,
 * a noisy neighbour); the measured times of earlier runs are not.  Placed
 * runs are compared with runs under Slurm's default placement of the same
 * job; the comparison must beat the run-to-run spread both kinds show, so
 * that noise alone never turns placement off -- which is why at least two
 * runs of each kind are needed, and why the guard runs Slurm's default
 * itself when it has too few of those.  Each kind is judged by its fastest
 * run and the spread is the tighter of the two groups': what slows a run
 * without being the placement (a node that starts late, a connection
 * retried after a lost SYN, a busy file system at exit) only ever adds
 * time, so one such run must move neither the comparison nor the bar it
 * has to clear.  Once placement is off, a placed run
 * now and then (a probe) keeps a stale verdict from sticking; while it is
 * on, a default run now and then (a re-check) keeps the comparison current.
 * Everything is counted in runs, not days, so that the rule is
 * deterministic (and testable).
 */
#include <stdio.h>
#include <string.h>

#include "cm_history.h"

void cm_guard_rule_init(cm_guard_rule_t *r)
{
    if (!r)
        return;
    r->window = 5;
    r->min_placed = 2;
    r->min_default = 2;
    r->probe = 5;
    r->recheck = 20;
    r->margin = 0.02;
}

const char *cm_guard_reason_name(cm_guard_reason_t r)
{
    static const char *const name[] = { "few-placed", "measure", "faster",
                                        "recheck", "slower", "probe" };
    return (unsigned)r <= CM_GUARD_PROBE ? name[r] : "?";
}

/* Fastest time and range of the last @p window timed runs with placed ==
 * @p placed. */
static int window_stats(const cm_run_t *runs, int count, int placed, int window,
                        double *best, double *range)
{
    int n = 0;
    double lo = 0, hi = 0;
    for (int k = count - 1; k >= 0 && n < window; k--) {
        const cm_run_t *r = &runs[k];
        if (r->placed != placed || r->elapsed_max <= 0)
            continue;
        double t = r->elapsed_max;
        lo = n ? (t < lo ? t : lo) : t;
        hi = n ? (t > hi ? t : hi) : t;
        n++;
    }
    *best = lo;
    *range = hi - lo;
    return n;
}

/* Runs after the last one with placed == @p placed. */
static int runs_since(const cm_run_t *runs, int count, int placed)
{
    int last = count - 1;
    while (last >= 0 && runs[last].placed != placed)
        last--;
    return count - 1 - last;
}

void cm_guard_decide(const cm_run_t *runs, int count, const cm_guard_rule_t *r,
                     cm_guard_t *out)
{
    double prange, drange;
    cm_guard_rule_t dflt;
    if (!out)
        return;
    if (!r) {
        cm_guard_rule_init(&dflt);
        r = &dflt;
    }
    if (!runs || count < 0)
        count = 0;
    memset(out, 0, sizeof *out);
    out->nplaced = window_stats(runs, count, 1, r->window, &out->placed_best,
                                &prange);
    out->ndefault = window_stats(runs, count, 0, r->window, &out->default_best,
                                 &drange);
    out->since_placed = runs_since(runs, count, 1);
    out->since_default = runs_since(runs, count, 0);
    out->spread = prange < drange ? prange : drange;
    if (out->spread < r->margin * out->default_best)
        out->spread = r->margin * out->default_best;
    char figures[160];
    snprintf(figures, sizeof figures, "%.3f s, Slurm's default %.3f s (spread "
             "%.3f s, %d and %d runs)", out->placed_best, out->default_best,
             out->spread, out->nplaced, out->ndefault);
    if (out->nplaced < r->min_placed) {
        out->place = 1;
        out->reason = CM_GUARD_FEW_PLACED;
        snprintf(out->why, sizeof out->why, "%d timed placed run%s, %d needed "
                 "to judge", out->nplaced, out->nplaced == 1 ? "" : "s",
                 r->min_placed);
    } else if (out->ndefault < r->min_default) {
        out->reason = CM_GUARD_MEASURE;
        snprintf(out->why, sizeof out->why, "timing Slurm's default to compare "
                 "with the placed runs (%d and %d runs so far)", out->nplaced,
                 out->ndefault);
    } else if ((out->slower = out->placed_best - out->default_best > out->spread)) {
        out->place = r->probe > 0 && out->since_placed >= r->probe;
        out->reason = out->place ? CM_GUARD_PROBE : CM_GUARD_SLOWER;
        snprintf(out->why, sizeof out->why, "placed runs took %s", figures);
    } else {
        out->place = !(r->recheck > 0 && out->since_default >= r->recheck);
        out->reason = out->place ? CM_GUARD_FASTER : CM_GUARD_RECHECK;
        snprintf(out->why, sizeof out->why, "%splaced runs take %s",
                 out->place ? "" : "re-checking Slurm's default: ", figures);
    }
}
