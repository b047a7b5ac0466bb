/*
 * algorithms.c -- the mapping algorithms the command knows, by name.
 *
 * The names, their order and their one-line summaries are the engine's
 * method table (cm_method_info(), src/core/plan_methods.c): a new engine
 * method is listed by `plan --help` and accepted by `plan --algorithm`,
 * `eval --mapping` and `render --mapping` without a line here.  `plan`
 * runs every method through cm_plan(); eval and render run the
 * baselines below directly on the machine as given (direct[]), and the
 * others through cm_plan() with its default options.
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

/* The baselines eval and render run directly on the whole machine (the
 * engine's block, cyclic and random are those of the whole machine too;
 * its Scotch maps onto the part the ranks can use).  Each name is an
 * engine method's (test_methods checks it). */
static const struct {
    const char *name;
    cm_cli_map_fn map;
} direct[] = {
    { "block",  map_block },
    { "cyclic", map_cyclic },
    { "random", map_random },
    { "scotch", cm_map_scotch },
};

#define NDIRECT ((int)(sizeof direct / sizeof direct[0]))

const cm_cli_algorithm_t *cm_cli_algorithm_find(const char *name)
{
    return cm_method_info(cm_method_by_name(name));
}

cm_cli_map_fn cm_cli_algorithm_direct(const char *name)
{
    for (int k = 0; k < NDIRECT; k++)
        if (name && strcmp(direct[k].name, name) == 0)
            return direct[k].map;
    return NULL;
}

void cm_cli_algorithm_help(FILE *f)
{
    for (int k = 0; k < cm_method_count(); k++)
        fprintf(f, "    %-20s %s\n", cm_method_info(k)->name, cm_method_info(k)->summary);
}

const char *cm_cli_algorithm_names(char *buf, size_t len)
{
    cm_method_names(buf, len, "|", "|");
    return buf;
}

int cm_cli_algorithm_run(const cm_cli_algorithm_t *a, const cm_matrix_t *m,
                         const cm_tree_t *t, uint64_t seed, int *map,
                         cm_error_t *err)
{
    cm_error_t inner = { "" };
    cm_cli_map_fn fn = cm_cli_algorithm_direct(a->name);
    int rc = fn ? fn(m, t, seed, map, err) : map_engine(a->name, m, t, seed, map, err);

    if (rc != 0)
        return -1;
    if (cm_mapping_check(t, map, cm_matrix_n(m), &inner) != 0)
        return cm_error_set(err, "algorithm %s returned an invalid mapping: %s",
                            a->name, inner.msg);
    return 0;
}
