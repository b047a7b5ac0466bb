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
 *  it describes exactly @p n nodes (a NULL or empty @p spec, a NULL
 *  @p cpus, garbage: -1 with @p err). */
int cmp_cpus_per_node(const char *spec, int n, int *cpus, cm_error_t *err);

/** Parse a positive integer (at most @p max).  -1 if it is not one (NULL
 *  included), or @p out is NULL: *@p out is then unchanged. */
int cmp_parse_int(const char *s, int max, int *out);

/** The positive integer in environment variable @p name, 0 if unset or
 *  not one (a NULL @p name included). */
int cmp_env_int(const char *name, int max);

/** The values of the allocation's environment that the functions below
 *  read (pointers into the environment, or any strings that outlive the
 *  call; NULL when unset), so that a caller can take them once, in one
 *  place, and the functions stay free of getenv. */
typedef struct cmp_slurm_env {
    const char *job_nodelist;      /* SLURM_JOB_NODELIST */
    const char *job_cpus_per_node; /* SLURM_JOB_CPUS_PER_NODE */
    const char *ntasks;            /* SLURM_NTASKS */
    const char *nprocs;            /* SLURM_NPROCS */
    const char *ntasks_per_node;   /* SLURM_NTASKS_PER_NODE */
} cmp_slurm_env_t;

/** Fill @p env from the process's environment (the pointers live as long
 *  as the variables are not changed).  A NULL @p env: nothing done. */
void cmp_slurm_env_read(cmp_slurm_env_t *env);

typedef struct cmp_alloc {
    int nnodes;
    char **names; /* allocation order */
    int *slots;   /* slots (task places) per node */
    int nnames;   /* names[] entries to free */
} cmp_alloc_t;

/** The nodes of the allocation (SLURM_JOB_NODELIST) that the step of @p sa
 *  may use -- the first -N of them -- and its slots on each
 *  (SLURM_JOB_CPUS_PER_NODE divided by @p cpus_per_task, capped by the
 *  tasks per node).  0, or -1 with @p err (free @p a either way): a NULL
 *  @p sa or @p a, or @p cpus_per_task below 1, is refused. */
int cmp_alloc_read(const cmp_srun_args_t *sa, int cpus_per_task, cmp_alloc_t *a,
                   cm_error_t *err);
/** cmp_alloc_read() from the values in @p env instead of the environment
 *  (a NULL @p env is refused). */
int cmp_alloc_read_of(const cmp_srun_args_t *sa, int cpus_per_task,
                      const cmp_slurm_env_t *env, cmp_alloc_t *a, cm_error_t *err);
/** Free what @p a holds and zero it (NULL: nothing to do). */
void cmp_alloc_free(cmp_alloc_t *a);

/** The allocation's nodes (environment variable @p nodes_var, as
 *  SLURM_JOB_NODELIST) with a count for each (@p tasks_var, as
 *  SLURM_TASKS_PER_NODE -- the tasks Slurm gave the job there, the slots
 *  mpirun fills -- or SLURM_JOB_CPUS_PER_NODE) in @p a->slots.  0, or -1
 *  with @p err (free @p a either way; a NULL variable name or @p a is
 *  refused). */
int cmp_alloc_tasks(const char *nodes_var, const char *tasks_var, cmp_alloc_t *a,
                    cm_error_t *err);
/** cmp_alloc_tasks() from the values @p nodes and @p tasks (may be NULL:
 *  unset) of the variables named @p nodes_var and @p tasks_var (for the
 *  messages) instead of the environment. */
int cmp_alloc_tasks_of(const char *nodes_var, const char *nodes, const char *tasks_var,
                       const char *tasks, cmp_alloc_t *a, cm_error_t *err);

/** srun's task count for the step of @p sa on @p nnodes nodes (see
 *  docs/admin-guide.md).  A NULL @p sa counts as a command line without
 *  counts. */
int cmp_step_ntasks(const cmp_srun_args_t *sa, int nnodes);
/** cmp_step_ntasks() from the values in @p env instead of the environment
 *  (NULL: none set). */
int cmp_step_ntasks_of(const cmp_srun_args_t *sa, int nnodes, const cmp_slurm_env_t *env);

/** The number of tasks Slurm's default (block) layout runs on each of
 *  @p nnodes nodes that hold @p cap[i] tasks at most: one task to each node
 *  in turn, skipping full nodes (step_layout.c).  Writes @p count[nnodes];
 *  -1 when the tasks do not fit (an overcommitted step), or for a NULL
 *  @p cap or @p count, @p nnodes below 1 or @p ntasks below 0. */
int cmp_step_layout(const int *cap, int nnodes, int ntasks, int *count);

#endif /* CMP_ALLOC_H */
