/* plan_report.c -- cm_plan_report_format(): cm_plan()'s report as text,
 * the one writer of the placement record's key=value lines (`clustermap
 * explain`) and of the portfolio lines of `clustermap plan --verbose`.
 *
 * The text goes to a memory stream, so it grows with the machine's levels
 * and the candidates' messages and is never cut; a caller with a bounded
 * field cuts it there itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clustermap.h"

/* The command's number format (`eval`, `plan --verbose`): below 2^53 every
 * integer is exact, so "%.0f" prints it digit for digit; anything else
 * gets the shortest form that reads back equal. */
static void put_number(FILE *f, double x)
{
    if (isfinite(x) && x == floor(x) && fabs(x) < 9007199254740992.0)
        fprintf(f, "%.0f", x == 0 ? 0.0 : x);
    else
        fprintf(f, "%.17g", x);
}

/* Why a candidate did not run, when the planner did not say. */
static const char *why(const cm_plan_candidate_t *c)
{
    return c->why[0] ? c->why : "skipped (budget or not applicable)";
}

/* The record of a placement: why the winner won, against Slurm's default
 * layout level by level.  Six significant digits: the record is read by
 * people and compared by the tests' patterns, not read back. */
static void explain(FILE *f, const cm_plan_report_t *r, const cm_tree_t *t)
{
    const cm_plan_figures_t *p = &r->plan, *d = &r->slurm_default;
    fprintf(f, "algorithm=%s\nwinner=%s\nJ=%.6g\nJ_default=%.6g\nJ_ratio=%.4f\n",
            r->algorithm, r->winner, p->J, d->J, d->J > 0 ? p->J / d->J : 1.0);
    fprintf(f, "T_max=%.6g\nT_max_default=%.6g\n", p->T_max, d->T_max);
    for (int l = 0; l < p->nlevels; l++)
        fprintf(f, "level.%s.bytes=%.6g default=%.6g\n", cm_tree_level_name(t, l),
                p->level_bytes[l], d->level_bytes[l]);
    fprintf(f, "max_node_out=%.6g default=%.6g\n", p->max_node_out, d->max_node_out);
    for (int k = 0; k < r->ncandidates; k++) {
        const cm_plan_candidate_t *c = &r->candidates[k];
        if (c->ok)
            fprintf(f, "candidate=%s J=%.6g T_max=%.6g time=%.4f s%s\n", c->name, c->J,
                    c->T_max, c->seconds,
                    c->over_tmax ? " (T_max above Slurm's default: not chosen)" : "");
        else
            fprintf(f, "candidate=%s %s\n", c->name, why(c));
    }
}

/* The portfolio as `plan --verbose` shows it: names padded into a column,
 * numbers exact. */
static void verbose(FILE *f, const cm_plan_report_t *r)
{
    fprintf(f, "winner=%s\n", r->winner);
    for (int k = 0; k < r->ncandidates; k++) {
        const cm_plan_candidate_t *c = &r->candidates[k];
        fprintf(f, "candidate %-16s ", c->name);
        if (!c->ok) {
            fprintf(f, "%s\n", why(c));
            continue;
        }
        fputs("J=", f);
        put_number(f, c->J);
        fputs(" T_max=", f);
        put_number(f, c->T_max);
        fputs(" L_max=", f);
        put_number(f, c->L_max);
        fprintf(f, " time=%.6f s%s\n", c->seconds,
                c->over_tmax ? " (T_max above block's: not chosen)" : "");
    }
}

char *cm_plan_report_format(const cm_plan_report_t *r, const cm_tree_t *t,
                            cm_plan_report_style_t style, cm_error_t *err)
{
    if (!r) {
        cm_error_set(err, "cm_plan_report_format: expected a report, got NULL");
        return NULL;
    }
    if (style != CM_PLAN_REPORT_EXPLAIN && style != CM_PLAN_REPORT_VERBOSE) {
        cm_error_set(err,
                     "cm_plan_report_format: unknown style %d (expected "
                     "CM_PLAN_REPORT_EXPLAIN or CM_PLAN_REPORT_VERBOSE)",
                     (int)style);
        return NULL;
    }
    if (r->ncandidates < 0 || r->ncandidates > CM_PLAN_MAX_CANDIDATES) {
        cm_error_set(err, "cm_plan_report_format: %d candidates (expected 0 to %d)",
                     r->ncandidates, CM_PLAN_MAX_CANDIDATES);
        return NULL;
    }
    if (style == CM_PLAN_REPORT_EXPLAIN) {
        if (!r->has_figures) {
            cm_error_set(err,
                         "cm_plan_report_format: the record needs the "
                         "report's figures (cm_plan_options_t.figures), it has none");
            return NULL;
        }
        if (!t) {
            cm_error_set(err,
                         "cm_plan_report_format: the record needs the tree "
                         "that was planned on, got NULL");
            return NULL;
        }
        if (r->plan.nlevels != cm_tree_nlevels(t) ||
            r->slurm_default.nlevels != r->plan.nlevels ||
            r->plan.nlevels > CM_PLAN_MAX_LEVELS) {
            cm_error_set(err,
                         "cm_plan_report_format: the figures have %d and %d "
                         "levels, the tree %d (expected the tree planned on, at "
                         "most %d levels)",
                         r->plan.nlevels, r->slurm_default.nlevels, cm_tree_nlevels(t),
                         CM_PLAN_MAX_LEVELS);
            return NULL;
        }
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        cm_error_set(err, "cm_plan_report_format: out of memory");
        return NULL;
    }
    if (style == CM_PLAN_REPORT_EXPLAIN)
        explain(f, r, t);
    else
        verbose(f, r);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(text);
        cm_error_set(err, "cm_plan_report_format: out of memory");
        return NULL;
    }
    return text;
}
