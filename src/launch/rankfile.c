/*
 * rankfile.c -- Open MPI's rank file: "rank R=HOST slot=CORE", one line per
 * rank.  clustermap's mpirun (src/mpirun/) writes mpirun's own default
 * layout there before mpirun starts; srun, when mpirun launches its
 * daemons, replaces it with the plan (srun_step.c).  Open MPI reads the
 * file only when it maps the job, after its daemons are up, so the plan
 * arrives in time; and the default is there already when no daemon is
 * launched (a one-node job) or the plan is not made.
 */
#include <stdio.h>
#include <string.h>

#include "launch.h"

int cmp_mpirun_fill(const int *slots, int nnodes, int np, int *count)
{
    int left = np;
    if (!slots || !count || nnodes < 0)
        return -1;
    for (int i = 0; i < nnodes; i++) {
        count[i] = left < slots[i] ? left : slots[i];
        left -= count[i];
    }
    return left > 0 || np < 1 ? -1 : 0;
}

int cmp_rankfile_write(const char *path, char *const *names, const int *node,
                       const int *core, int n, int shared, cm_error_t *err)
{
    if (!path || (n > 0 && (!names || !node || (shared < 1 && !core))))
        return cm_error_set(err,
                            "rank file: expected a path, the node names, "
                            "each rank's node and core, got NULL");
    cm_file_atomic_t *a = cm_file_atomic_open(path, err);
    if (!a)
        return -1;
    FILE *f = cm_file_atomic_stream(a);
    for (int r = 0; r < n; r++)
        if (shared > 1)
            fprintf(f, "rank %d=%s slot=0-%d\n", r, names[node[r]], shared - 1);
        else if (shared == 1)
            fprintf(f, "rank %d=%s slot=0\n", r, names[node[r]]);
        else
            fprintf(f, "rank %d=%s slot=%d\n", r, names[node[r]], core[r]);
    return cm_file_atomic_commit(a, err);
}
