/*
 * overlay_trace.c -- the tnbc overlay's traces and priorities of a step
 * (T-NBC's section 5; docs/overlays.md, "Trace and priorities", "In the
 * profile store").
 *
 * srun (the user; srun_step.c from the store's answer, cm_store_step_info):
 * when the step runs tnbc and its profile has a complete
 * trace for its task count in the store, it marks the step with the
 * trace's prefix (CLUSTERMAP_STEP_PRIO) -- or, for the srun of mpirun's
 * daemons, writes it into the control file clustermap's mpirun gave the
 * ranks ("prio=<prefix>", mpirun_record.c): mpirun, not slurmstepd,
 * starts those ranks, and their environment was fixed before this srun.
 * The ranks read their files there themselves, as the user: the store is
 * on a file system every node shares at the same path
 * (docs/admin-guide.md, "Installing"; each node writes its tasks' parts
 * into it at the step's end), so nothing is copied.  A node that cannot reach it only runs its ranks in rank order
 * (rank 0 says so once, docs/overlays.md).
 *
 * slurmstepd (root, after the overlays are preloaded): the tasks get
 * CLUSTERMAP_OVERLAY_PRIO=<the mark> and, when the step is profiled or
 * timed on this node, CLUSTERMAP_OVERLAY_TRACE=<the node's private
 * directory>/tnbc, so that each rank writes its trace where its part goes.
 * Root neither opens nor reads either: the node's user child delivers the
 * traces with the parts (profile_step.c, cmp_trace_put).  mpirun's ranks
 * write theirs into the run's staging directory
 * (CLUSTERMAP_OVERLAY_TRACE=<stage>/tnbc, set by clustermap's mpirun),
 * which records them with the parts (mpirun_record.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "plugin.h"
#include "plugin_spank.h"

void cmp_overlay_trace_env(spank_t sp, unsigned bits, const char *prio)
{
    char trace[CMP_PATH_MAX + 80];
    const char *dir = cmp_profile_private_dir();
    if (!(bits & CMP_OVL_TNBC))
        return;
    if (prio[0] && spank_setenv(sp, CM_ENV_OVERLAY_PRIO, prio, 1) !=
                       ESPANK_SUCCESS)
        slurm_debug("clustermap: tnbc: cannot set " CM_ENV_OVERLAY_PRIO "; "
                    "this node's ranks run in rank order");
    if (dir && snprintf(trace, sizeof trace, "%s/" CM_TRACE_PREFIX, dir) <
                   (int)sizeof trace &&
        spank_setenv(sp, CM_ENV_OVERLAY_TRACE, trace, 1) !=
            ESPANK_SUCCESS)
        slurm_debug("clustermap: tnbc: cannot set " CM_ENV_OVERLAY_TRACE "; "
                    "no trace from this node");
}
