/* step_run.c -- how srun placed a step, as it tells the step's nodes (and
 * clustermap's mpirun) for the run's history.  No Slurm symbol: the
 * launcher (src/mpirun/) links it too. */
#include <stdio.h>
#include <string.h>

#include "cm_store.h"
#include "launch.h"

int cmp_run_parse(const char *text, const char *stepkey, cm_run_t *run, int *traffic)
{
    char kind[16], how[32];
    int tr;
    cm_error_t err;
    int ignored;
    if (!traffic)
        traffic = &ignored;
    *traffic = 1;
    if (!run || !text || !stepkey)
        return 0;
    memset(run, 0, sizeof *run);
    if (sscanf(text, "%15s %d %31s %lf %lf", kind, &tr, how, &run->j_plan,
               &run->j_default) != 5 || (tr != 0 && tr != 1))
        return 0;
    *traffic = tr;
    if (strcmp(kind, "placed") && strcmp(kind, "default"))
        return 0;
    run->placed = !strcmp(kind, "placed");
    for (char *h = how; *h; h++)   /* the history's field alphabet */
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789._:-", *h))
            *h = '_';
    snprintf(run->how, sizeof run->how, "%s", how);
    snprintf(run->jobid, sizeof run->jobid, "%s", stepkey);
    snprintf(run->program, sizeof run->program, "-");
    return cm_run_check(run, &err) == 0;
}

