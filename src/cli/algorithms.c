/*
 * algorithms.c -- the mapping algorithms the command knows, by name.
 *
 * `plan --algorithm NAME` and `eval --mapping NAME` both look names up here,
 * so a new engine algorithm becomes available to every command by adding one
 * line to the table below (plus, if its signature differs from
 * cm_cli_map_fn, a three-line adapter).
 */
#include <string.h>

#include "cli.h"

/* Adapters from the engine's baseline signatures to cm_cli_map_fn. */

static int map_block(const cm_matrix_t *m, const cm_tree_t *t, uint64_t seed,
                     int *map, cm_error_t *err)
{
    (void)seed;
    return cm_map_block(t, cm_matrix_n(m), map, err);
}

static int map_cyclic(const cm_matrix_t *m, const cm_tree_t *t, uint64_t seed,
                      int *map, cm_error_t *err)
{
    (void)seed;
    return cm_map_cyclic(t, cm_matrix_n(m), map, err);
}

static int map_random(const cm_matrix_t *m, const cm_tree_t *t, uint64_t seed,
                      int *map, cm_error_t *err)
{
    return cm_map_random(t, cm_matrix_n(m), seed, map, err);
}

double cm_cli_default_budget(int n)
{
    return n > CM_CLI_BUDGET_RANKS ? (double)n / CM_CLI_BUDGET_RANKS : 1.0;
}

/* Engine algorithms go through cm_plan() with its default options (weight
 * mixed) and plan's default time budget (cm_cli_default_budget); `plan`
 * passes its own options instead. */
static int map_engine(const char *name, const cm_matrix_t *m,
                      const cm_tree_t *t, uint64_t seed, int *map,
                      cm_error_t *err)
{
    cm_plan_options_t o;

    cm_plan_options_init(&o);
    o.algorithm = name;
    o.seed = seed;
    o.time_budget = cm_cli_default_budget(cm_matrix_n(m));
    return cm_plan(m, t, &o, map, NULL, err);
}

static int map_scotch_ms(const cm_matrix_t *m, const cm_tree_t *t,
                         uint64_t seed, int *map, cm_error_t *err)
{
    return map_engine("scotch-ms", m, t, seed, map, err);
}

static int map_cluster(const cm_matrix_t *m, const cm_tree_t *t,
                       uint64_t seed, int *map, cm_error_t *err)
{
    return map_engine("cluster", m, t, seed, map, err);
}

static int map_treecut(const cm_matrix_t *m, const cm_tree_t *t,
                       uint64_t seed, int *map, cm_error_t *err)
{
    return map_engine("treecut", m, t, seed, map, err);
}

static int map_auto(const cm_matrix_t *m, const cm_tree_t *t, uint64_t seed,
                    int *map, cm_error_t *err)
{
    return map_engine("auto", m, t, seed, map, err);
}

static const cm_cli_algorithm_t algorithms[] = {
    { "block",  map_block,     "Slurm's default: fill each node's slots in order" },
    { "cyclic", map_cyclic,    "rank i to node i mod N, round robin over nodes" },
    { "random", map_random,    "uniformly random placement (reproducible with --seed)" },
    { "scotch", cm_map_scotch, "Scotch static mapping onto the machine tree (--seed)" },
    { "scotch-ms", map_scotch_ms, "Scotch multisection level by level, refined" },
    { "cluster", map_cluster,  "spectral clustering packed level by level, refined" },
    { "treecut", map_treecut,  "heaviest spanning forest cut into the levels' shares, refined" },
    { "auto",   map_auto,      "best of the above within --time-budget, never "
                               "worse than block" },
};

#define NALGORITHMS ((int)(sizeof algorithms / sizeof algorithms[0]))

const cm_cli_algorithm_t *cm_cli_algorithm_find(const char *name)
{
    for (int k = 0; k < NALGORITHMS; k++)
        if (strcmp(algorithms[k].name, name) == 0)
            return &algorithms[k];
    return NULL;
}

void cm_cli_algorithm_help(FILE *f)
{
    for (int k = 0; k < NALGORITHMS; k++)
        fprintf(f, "    %-20s %s\n", algorithms[k].name, algorithms[k].summary);
}

const char *cm_cli_algorithm_names(char *buf, size_t len)
{
    size_t used = 0;

    if (len == 0)
        return buf;
    buf[0] = '\0';
    for (int k = 0; k < NALGORITHMS && used < len; k++) {
        int w = snprintf(buf + used, len - used, "%s%s", k ? "|" : "",
                         algorithms[k].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

int cm_cli_algorithm_run(const cm_cli_algorithm_t *a, const cm_matrix_t *m,
                         const cm_tree_t *t, uint64_t seed, int *map,
                         cm_error_t *err)
{
    cm_error_t inner = { "" };

    if (a->map(m, t, seed, map, err) != 0)
        return -1;
    if (cm_mapping_check(t, map, cm_matrix_n(m), &inner) != 0)
        return cm_error_set(err, "algorithm %s returned an invalid mapping: %s",
                            a->name, inner.msg);
    return 0;
}
