/*
 * cmp_alloc.h -- the allocation a step runs in, from the environment (alloc.c), and
 * the tasks Slurm's default layout puts on each node (step_layout.c).
 */
#ifndef CMP_ALLOC_H
#define CMP_ALLOC_H

#include <stddef.h>
#include <sys/types.h>

#include "clustermap.h"
#include "cmp_srun_args.h"

/* ---- the allocation from the environment (alloc.c) ---- */

/** Expand SLURM_JOB_CPUS_PER_NODE ("8(x2),4") into @p n counts.  -1 unless
 *  it describes exactly @p n nodes. */
int cmp_cpus_per_node(const char *spec, int n, int *cpus, cm_error_t *err);

/** Parse a positive integer (at most @p max).  -1 if it is not one. */
int cmp_parse_int(const char *s, int max, int *out);

/** The positive integer in environment variable @p name, 0 if unset or
 *  not one. */
int cmp_env_int(const char *name, int max);

typedef struct cmp_alloc {
    int nnodes;
    char **names;     /* allocation order */
    int *slots;       /* slots (task places) per node */
    int nnames;       /* names[] entries to free */
} cmp_alloc_t;

/** The nodes of the allocation (SLURM_JOB_NODELIST) that the step of @p sa
 *  may use -- the first -N of them -- and its slots on each
 *  (SLURM_JOB_CPUS_PER_NODE divided by @p cpus_per_task, capped by the
 *  tasks per node).  0, or -1 with @p err (free @p a either way). */
int cmp_alloc_read(const cmp_srun_args_t *sa, int cpus_per_task, cmp_alloc_t *a,
                   cm_error_t *err);
void cmp_alloc_free(cmp_alloc_t *a);

/** The allocation's nodes (environment variable @p nodes_var, as
 *  SLURM_JOB_NODELIST) with a count for each (@p tasks_var, as
 *  SLURM_TASKS_PER_NODE -- the tasks Slurm gave the job there, the slots
 *  mpirun fills -- or SLURM_JOB_CPUS_PER_NODE) in @p a->slots.  0, or -1
 *  with @p err (free @p a either way). */
int cmp_alloc_tasks(const char *nodes_var, const char *tasks_var, cmp_alloc_t *a,
                    cm_error_t *err);

/** srun's task count for the step of @p sa on @p nnodes nodes (see
 *  docs/admin-guide.md). */
int cmp_step_ntasks(const cmp_srun_args_t *sa, int nnodes);

/** The number of tasks Slurm's default (block) layout runs on each of
 *  @p nnodes nodes that hold @p cap[i] tasks at most: one task to each node
 *  in turn, skipping full nodes (step_layout.c).  Writes @p count[nnodes];
 *  -1 when the tasks do not fit (an overcommitted step). */
int cmp_step_layout(const int *cap, int nnodes, int ntasks, int *count);

#endif /* CMP_ALLOC_H */
