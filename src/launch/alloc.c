/* alloc.c -- the allocation as Slurm describes it in the environment. */
#include <stdlib.h>
#include <string.h>

#include "launch.h"

/* SLURM_JOB_CPUS_PER_NODE and SLURM_TASKS_PER_NODE (@p var): comma-separated
 * "count" or "count(xrepeat)", in SLURM_JOB_NODELIST order, e.g. "8(x2),4". */
static int counts_per_node(const char *var, const char *spec, int n, int *cpus,
                           cm_error_t *err)
{
    if (!spec || !*spec)
        return cm_error_set(err, "%s is not set", var);
    int k = 0;
    const char *p = spec;
    while (*p) {
        char *end;
        long c = strtol(p, &end, 10);
        if (end == p || c < 1 || c > 1 << 20)
            return cm_error_set(err, "%s '%.100s': expected a count at "
                                "offset %d", var, spec, (int)(p - spec));
        long rep = 1;
        p = end;
        if (*p == '(') {
            if (p[1] != 'x')
                return cm_error_set(err, "%s '%.100s': expected '(x' at offset %d",
                                    var, spec, (int)(p - spec));
            rep = strtol(p + 2, &end, 10);
            if (end == p + 2 || *end != ')' || rep < 1 || rep > 1 << 24)
                return cm_error_set(err, "%s '%.100s': expected '(xN)' at offset "
                                    "%d", var, spec, (int)(p - spec));
            p = end + 1;
        }
        for (long r = 0; r < rep; r++) {
            if (k >= n)
                return cm_error_set(err, "%s '%.100s' describes more than the %d "
                                    "nodes of SLURM_JOB_NODELIST", var, spec, n);
            cpus[k++] = (int)c;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return cm_error_set(err, "%s '%.100s': unexpected '%c' at offset %d",
                                var, spec, *p, (int)(p - spec));
    }
    if (k != n)
        return cm_error_set(err, "%s '%.100s' describes %d nodes, SLURM_JOB_NODELIST "
                            "%d", var, spec, k, n);
    return 0;
}

int cmp_cpus_per_node(const char *spec, int n, int *cpus, cm_error_t *err)
{
    if (!cpus && n > 0)
        return cm_error_set(err, "SLURM_JOB_CPUS_PER_NODE: expected room for "
                            "%d counts, got NULL", n);
    return counts_per_node("SLURM_JOB_CPUS_PER_NODE", spec, n, cpus, err);
}

/* The positive integer @p s (an environment value, may be NULL), 0 if it
 * is not one. */
static int env_int(const char *s, int max)
{
    int v;
    return s && cmp_parse_int(s, max, &v) == 0 ? v : 0;
}

int cmp_env_int(const char *name, int max)
{
    return name ? env_int(getenv(name), max) : 0;
}

void cmp_alloc_free(cmp_alloc_t *a)
{
    if (!a)
        return;
    cm_hostlist_free(a->names, a->nnames);
    free(a->slots);
    memset(a, 0, sizeof *a);
}

int cmp_alloc_tasks_of(const char *nodes_var, const char *nl, const char *var,
                       const char *spec, cmp_alloc_t *a, cm_error_t *err)
{
    cm_error_t e;
    int n = 0;
    if (!a || !nodes_var || !var)
        return cm_error_set(err, "the allocation: expected the variables' "
                            "names and where to put it, got NULL");
    memset(a, 0, sizeof *a);
    if (!nl)
        return cm_error_set(err, "%s is not set", nodes_var);
    if (cm_hostlist_expand(nl, &a->names, &n, &e) < 0 || n < 1)
        return cm_error_set(err, "%s '%.100s': %s", nodes_var, nl,
                            n < 1 ? "no node" : e.msg);
    a->nnames = n;
    a->nnodes = n;
    if (!(a->slots = malloc((size_t)n * sizeof *a->slots)))
        return cm_error_set(err, "the allocation's nodes: out of memory");
    return counts_per_node(var, spec, n, a->slots, err);
}

int cmp_alloc_tasks(const char *nodes_var, const char *var, cmp_alloc_t *a,
                    cm_error_t *err)
{
    if (!nodes_var || !var)
        return cmp_alloc_tasks_of(nodes_var, NULL, var, NULL, a, err);
    return cmp_alloc_tasks_of(nodes_var, getenv(nodes_var), var, getenv(var), a, err);
}

int cmp_alloc_read_of(const cmp_srun_args_t *sa, int cpus_per_task,
                      const cmp_slurm_env_t *env, cmp_alloc_t *a, cm_error_t *err)
{
    if (a)
        memset(a, 0, sizeof *a);
    if (!sa || !env || !a)
        return cm_error_set(err, "the allocation: expected srun's command line, "
                            "the environment and where to put it, got NULL");
    if (cpus_per_task < 1)
        return cm_error_set(err, "the allocation: expected at least 1 CPU per "
                            "task, got %d", cpus_per_task);
    if (cmp_alloc_tasks_of("SLURM_JOB_NODELIST", env->job_nodelist,
                           "SLURM_JOB_CPUS_PER_NODE", env->job_cpus_per_node, a, err) < 0)
        return -1;
    int n = a->nnames, *cpus = a->slots;   /* the counts become slots below */
    if (!(a->slots = malloc((size_t)n * sizeof *a->slots))) {
        a->slots = cpus;
        return cm_error_set(err, "the allocation's nodes: out of memory");
    }
    int nn = n;
    if (sa->nodes_max > 0 && sa->nodes_max < nn)
        nn = sa->nodes_max;   /* srun -N: Slurm takes the first nodes too */
    int per_node = sa->ntasks_per_node;
    if (!per_node && !sa->ntasks)
        per_node = env_int(env->ntasks_per_node, 1 << 24);
    int k = 0;
    for (int i = 0; i < nn; i++) {
        int slots = cpus[i] / cpus_per_task;
        if (per_node > 0 && slots > per_node)
            slots = per_node;
        if (slots < 1)
            continue;
        if (k != i) {   /* keep names[] a prefix of usable nodes */
            char *tmp = a->names[k];
            a->names[k] = a->names[i];
            a->names[i] = tmp;
        }
        a->slots[k++] = slots;
    }
    a->nnodes = k;
    free(cpus);
    if (k == 0)
        return cm_error_set(err, "no node of the allocation has %d CPUs for a task",
                            cpus_per_task);
    return 0;
}

int cmp_alloc_read(const cmp_srun_args_t *sa, int cpus_per_task, cmp_alloc_t *a,
                   cm_error_t *err)
{
    cmp_slurm_env_t env;
    cmp_slurm_env_read(&env);
    return cmp_alloc_read_of(sa, cpus_per_task, &env, a, err);
}

int cmp_step_ntasks_of(const cmp_srun_args_t *sa, int nnodes, const cmp_slurm_env_t *env)
{
    int n, per_node;
    if (sa && sa->ntasks)
        return sa->ntasks;
    if (sa && sa->ntasks_per_node)
        return sa->ntasks_per_node * nnodes;
    if (!env)
        return nnodes;
    if ((n = env_int(env->ntasks, 1 << 24)) || (n = env_int(env->nprocs, 1 << 24)))
        return n;
    if ((per_node = env_int(env->ntasks_per_node, 1 << 24)) > 0)
        return per_node * nnodes;
    return nnodes;
}

int cmp_step_ntasks(const cmp_srun_args_t *sa, int nnodes)
{
    cmp_slurm_env_t env;
    cmp_slurm_env_read(&env);
    return cmp_step_ntasks_of(sa, nnodes, &env);
}

void cmp_slurm_env_read(cmp_slurm_env_t *env)
{
    if (!env)
        return;
    env->job_nodelist = getenv("SLURM_JOB_NODELIST");
    env->job_cpus_per_node = getenv("SLURM_JOB_CPUS_PER_NODE");
    env->ntasks = getenv("SLURM_NTASKS");
    env->nprocs = getenv("SLURM_NPROCS");
    env->ntasks_per_node = getenv("SLURM_NTASKS_PER_NODE");
}
