/*
 * cmd_profile_runs.c -- the run history of a profile, the guard's decision
 * and the tnbc trace kept beside it, as `clustermap profile show` prints
 * them (key=value lines after the profile's own).
 */
#include <stdlib.h>

#include "cli.h"
#include "cm_store.h"
#include "cm_text.h"

int cm_cli_print_runs(FILE *f, const char *cmd, cm_store_t *s, const char *name,
                      int ntasks)
{
    cm_error_t err = { "" };
    cm_guard_rule_t rule;
    cm_guard_t g;
    int count = 0;
    cm_run_t *runs = malloc(CM_HISTORY_MAX_RUNS * sizeof *runs);
    if (!runs)
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "out of memory");
    if (cm_store_history_load(s, name, ntasks, runs, &count, &err) < 0) {
        free(runs);
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s", err.msg);
    }
    /* the rule srun applies: the site's plugstack.conf settings */
    int found = 0;
    const cmp_config_t *site = cm_cli_site_config(&found);
    cmp_config_guard_rule(site, &rule);
    cm_guard_decide(runs, count, &rule, &g);
    fprintf(f, "history.runs=%d\n", count);
    /* a history is what the user's file says: its text is escaped (cm_text.h) */
    for (int k = 0; k < count; k++) {
        const cm_run_t *r = &runs[k];
        fprintf(f, "run.%d=", k + 1);
        cm_text_fputs(r->jobid, f);
        fputc(' ', f);
        cm_cli_print_time(f, r->when);
        fprintf(f, " %s how=", r->placed ? "placed" : "default");
        cm_text_fputs(r->how, f);
        fputs(" program=", f);
        cm_text_fputs(r->program, f);
        fprintf(f, " elapsed_max=%.3f elapsed_mean=%.3f "
                "mpi_max=%.3f mpi_mean=%.3f J=%.6g J_default=%.6g\n",
                r->elapsed_max, r->elapsed_mean, r->mpi_max, r->mpi_mean,
                r->j_plan, r->j_default);
    }
    /* The last run's how ("guard", "probe:...") says what srun decided;
     * the rule's note says where its figures come from, and that a site
     * without the guard places whatever the history says. */
    fprintf(f, "guard=%s\nguard.reason=%s\nguard.why=", g.place ? "place" : "default",
            cm_guard_reason_name(g.reason));
    cm_text_fputs(g.why, f);
    fprintf(f, "\nguard.rule=window %d, "
            "min_placed %d, min_default %d, probe after %d, recheck after %d, "
            "margin %g (%s%s)\n",
            rule.window, rule.min_placed, rule.min_default, rule.probe,
            rule.recheck, rule.margin,
            found ? "plugstack.conf's guard_window, guard_probe and guard_recheck"
                  : "the defaults: no clustermap line in plugstack.conf",
            site->guard ? "" : "; guard=no there: jobs are placed without it");
    free(runs);
    return CM_EXIT_OK;
}

int cm_cli_print_trace(FILE *f, const char *cmd, cm_store_t *s, const char *name,
                       int ntasks)
{
    cm_error_t err = { "" };
    cm_trace_info_t ti;
    int rc = cm_store_trace_info(s, name, ntasks, &ti, &err);
    if (rc < 0)
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s", err.msg);
    if (rc == 0) {
        fprintf(f, "tnbc.trace=none\n");
        return CM_EXIT_OK;
    }
    /* the call sites of rank 0's file: every rank runs the same program */
    fprintf(f, "tnbc.trace=%s\ntnbc.trace.ranks=%d\ntnbc.trace.sites=%d\n"
            "tnbc.trace.bytes=%llu\n", ti.complete ? "kept" : "incomplete",
            ti.ranks, ti.sites, (unsigned long long)ti.bytes);
    return CM_EXIT_OK;
}
