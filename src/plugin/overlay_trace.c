/*
 * overlay_trace.c -- the tnbc overlay's traces and priorities of a step
 * (seed 001, section 5; docs/overlays.md, "Trace and priorities", "In the
 * profile store").
 *
 * srun (the user): when the step runs tnbc and its profile has a complete
 * trace for its task count in the store, it marks the step with the
 * trace's prefix (CLUSTERMAP_STEP_PRIO).  The ranks read their files
 * there themselves, as the user: the store is on a file system every node
 * shares at the same path (docs/admin-guide.md, "Installing"; each node
 * writes its tasks' parts into it at the step's end), so nothing is
 * copied.  A node that cannot reach it only runs its ranks in rank order
 * (rank 0 says so once, docs/overlays.md).
 *
 * slurmstepd (root, after the overlays are preloaded): the tasks get
 * CLUSTERMAP_OVERLAY_PRIO=<the mark> and, when the step is profiled or
 * timed on this node, CLUSTERMAP_OVERLAY_TRACE=<the node's private
 * directory>/tnbc, so that each rank writes its trace where its part goes.
 * Root neither opens nor reads either: the node's user child delivers the
 * traces with the parts (profile_step.c, cm_store_trace_put).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "plugin.h"
#include "plugin_spank.h"

void cmp_overlay_prio_mark(const cmp_config_t *c, const cmp_request_t *r,
                           cm_store_t *st, const char *key,
                           const char *job_name, int ntasks)
{
    char prefix[2 * CMP_PATH_MAX];
    cm_error_t err;
    if (!(cmp_overlay_bits(c, r) & CMP_OVL_TNBC) || !st)
        return;
    int rc = cm_store_trace_prefix(st, key, ntasks, prefix, sizeof prefix,
                                   &err);
    if (rc == 1) {
        setenv(CMP_ENV_OVERLAY_PRIO, prefix, 1);
        cmp_user_info(0, "tnbc: priorities from the trace of job '%s' with %d "
                      "tasks", job_name, ntasks);
    } else if (rc < 0) {
        /* said as a fallback is: to the user who asked, or with verbose */
        cmp_user_error("tnbc: not using the trace of job '%s' with %d tasks: "
                       "%s; running in rank order", job_name, ntasks, err.msg);
    } else {
        cmp_debug("tnbc: no trace of job '%s' with %d tasks yet", job_name,
                  ntasks);
    }
}

void cmp_overlay_trace_env(spank_t sp, unsigned bits, const char *prio)
{
    char trace[CMP_PATH_MAX + 80];
    const char *dir = cmp_profile_private_dir();
    if (!(bits & CMP_OVL_TNBC))
        return;
    if (prio[0] && spank_setenv(sp, "CLUSTERMAP_OVERLAY_PRIO", prio, 1) !=
                       ESPANK_SUCCESS)
        slurm_debug("clustermap: tnbc: cannot set CLUSTERMAP_OVERLAY_PRIO; "
                    "this node's ranks run in rank order");
    if (dir && snprintf(trace, sizeof trace, "%s/" CM_TRACE_PREFIX, dir) <
                   (int)sizeof trace &&
        spank_setenv(sp, "CLUSTERMAP_OVERLAY_TRACE", trace, 1) !=
            ESPANK_SUCCESS)
        slurm_debug("clustermap: tnbc: cannot set CLUSTERMAP_OVERLAY_TRACE; "
                    "no trace from this node");
}
