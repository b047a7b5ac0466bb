/* step_layout.c -- how many of a step's tasks Slurm runs on each node.
 *
 * Slurm's default block distribution decides the counts as a cyclic one
 * would -- one task to each node in turn, skipping nodes whose CPUs are
 * used up -- and only then numbers the tasks node by node (Slurm's step
 * layout "fakes a cyclic distribution" so that heterogeneous nodes are
 * dealt with).  So `-N4 -n16` on nodes of 8 CPUs runs 4 tasks on each node,
 * not 8 on the first two, and `-N2 -n8` in an allocation of 7 + 1 CPUs runs
 * 7 and 1.  clustermap keeps these counts unless the user asks for `pack`:
 * it decides which rank goes where, not how many run on a node. */
#include <string.h>

#include "launch.h"

int cmp_step_layout(const int *cap, int nnodes, int ntasks, int *count)
{
    if (!cap || !count || nnodes < 1 || ntasks < 0)
        return -1;
    memset(count, 0, (size_t)nnodes * sizeof *count);
    int placed = 0;
    while (placed < ntasks) {
        int progress = 0;
        for (int i = 0; i < nnodes && placed < ntasks; i++)
            if (count[i] < cap[i]) {
                count[i]++;
                placed++;
                progress = 1;
            }
        if (!progress)
            return -1;   /* more tasks than CPUs: an overcommitted step */
    }
    return 0;
}
