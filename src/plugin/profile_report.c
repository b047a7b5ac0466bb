/*
 * profile_report.c -- srun's end of a profiled step (local context, as the
 * user): the line saying whether the run was recorded.
 *
 * srun announced "profiling this run" when it marked the step; the nodes
 * decide at the step's end (profile_step.c) and the one that completes the
 * set leaves the outcome in the store (cm_store_part_result).  slurmstepd
 * runs its exit hooks before it reports the step complete, but srun may
 * see its tasks end a moment earlier, so srun waits for the outcome a short,
 * bounded time; it never holds the job up longer than that, and an outcome
 * it does not see is still in slurmd's log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cm_store.h"
#include "plugin_spank.h"

/* How long srun waits for the nodes' verdict, at most. */
#define REPORT_WAIT_S 3.0

void cmp_profile_report(spank_t sp, const cmp_config_t *c)
{
    /* In srun's exit hook the S_JOB_* items are not available (3009); srun
     * keeps the ids of the step it created in its own environment. */
    const char *name = getenv(CMP_ENV_PROFILE), *job = getenv("SLURM_JOB_ID"),
               *stp = getenv("SLURM_STEP_ID");
    int jobid, stepid;
    (void)sp;
    if (!name || !*name || !job || !stp || cmp_parse_int(job, 1 << 30, &jobid) < 0 ||
        (strcmp(stp, "0") && cmp_parse_int(stp, 1 << 30, &stepid) < 0))
        return;
    if (!strcmp(stp, "0"))
        stepid = 0;
    int verbose = getenv(CMP_ENV_VERBOSE) != NULL;
    char key[32], msg[1024];
    snprintf(key, sizeof key, "%d.%d", jobid, stepid);
    cm_error_t err;
    struct timespec nap = { 0, 50 * 1000 * 1000 };
    int res = 0;
    /* Reopened each time: root may create the user directory meanwhile. */
    for (int i = 0; res == 0 && i < (int)(REPORT_WAIT_S / 0.05); i++) {
        if (i)
            nanosleep(&nap, NULL);
        cm_store_t *s = cm_store_open(c->store, getuid(), 0, c->max_profile_size,
                                      &err);
        if (!s)
            return;
        res = cm_store_part_result(s, key, msg, sizeof msg);
        cm_store_close(s);
    }
    if (res == CM_STEP_REFUSED)
        cmp_user_error("%s", msg);
    else if (res != 0)
        cmp_user_info(verbose, "%s", msg);
}
