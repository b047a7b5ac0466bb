/* plan_methods.c -- the placement methods, one row each (Scotch's method
 * tables are the model): the name cm_plan_options_t.algorithm accepts,
 * the one-line summary the command's --help prints, whether and when
 * "auto" runs it, its work estimate and predicted time (the two accounts
 * of cm_plan(), docs/machine-costs.md), how it is charged, its budget
 * share, and the function that builds its mapping.  The planner
 * (plan.c), the public listing (cm_method_info()), the command
 * (src/cli/algorithms.c) and the checks of the documentation read this
 * table and nothing else, so a new method is one row here, its run
 * function and its paragraph in the docs.
 *
 * The public rows come first, in the order every listing shows; the
 * variants only the planner picks (the multisection's fast variant, the
 * caller's incoming mapping) follow without a public name. */
#include <string.h>

#include "cluster_internal.h"
#include "engine_internal.h"

/* -- work estimates (CM_*_UNITS, engine_internal.h) ----------------------- */

static double units_scotch(double n, double nnz)
{
    return CM_SCOTCH_UNITS(n, nnz);
}
static double units_ms(double n, double nnz)
{
    return CM_MS_UNITS(n, nnz);
}
static double units_ms_fast(double n, double nnz)
{
    return CM_MS_FAST_UNITS(n, nnz);
}
static double units_cluster(double n, double nnz)
{
    return CM_CLUSTER_UNITS(n, nnz);
}
static double units_treecut(double n, double nnz)
{
    return CM_TREECUT_UNITS(n, nnz);
}

/* -- predicted seconds (cm_*_seconds, engine_internal.h) ------------------ */

static double secs_scotch(double n, double nnz, double nslots)
{
    (void)n;
    return cm_scotch_seconds(nnz, nslots);
}

static double secs_ms(double n, double nnz, double nslots)
{
    (void)nslots;
    return cm_ms_seconds(n, nnz);
}

static double secs_ms_fast(double n, double nnz, double nslots)
{
    (void)nslots;
    return cm_ms_fast_seconds(n, nnz);
}

/* The clustering is predicted at its cheapest path and charged at what it
 * spent (charged_by_units). */
static double secs_cluster(double n, double nnz, double nslots)
{
    (void)nslots;
    return cm_cluster_seconds(CM_CLUSTER_UNITS(n, nnz), n);
}

/* -- run functions -------------------------------------------------------- */

static int run_block(const cm_method_ctx_t *x, int *map, cm_error_t *err)
{
    return cm_map_block(x->t, x->p->n, map, err);
}

static int run_cyclic(const cm_method_ctx_t *x, int *map, cm_error_t *err)
{
    return cm_map_cyclic(x->t, x->p->n, map, err);
}

/* The random baseline was drawn on the caller's whole tree (cm_plan():
 * a random placement over the allocation, not over the part kept). */
static int run_random(const cm_method_ctx_t *x, int *map, cm_error_t *err)
{
    if (!x->random)
        return cm_error_set(err, "cm_plan: random: no random mapping was drawn");
    memcpy(map, x->random, sizeof(int) * (size_t)x->p->n);
    return 0;
}

/* Scotch counts no units of its own: it is charged its estimate. */
static int run_scotch(const cm_method_ctx_t *x, int *map, cm_error_t *err)
{
    int rc = cm_map_scotch(x->m, x->t, x->o->seed, map, err);
    x->budget->used +=
        (uint64_t)CM_SCOTCH_UNITS((double)x->p->n, (double)cm_matrix_nnz(x->p->sym));
    return rc;
}

static int run_ms(const cm_method_ctx_t *x, int *map, cm_error_t *err)
{
    return cm_map_multisection(x->p, x->o->seed, 0, x->o->threads, map, x->budget, err);
}

static int run_ms_fast(const cm_method_ctx_t *x, int *map, cm_error_t *err)
{
    return cm_map_multisection(x->p, x->o->seed, 1, x->o->threads, map, x->budget, err);
}

static int run_cluster(const cm_method_ctx_t *x, int *map, cm_error_t *err)
{
    cm_budget_t sub = { 0, x->units };
    int rc = cm_map_cluster(x->p, x->o, &sub, map, err);
    x->budget->used += sub.used;
    return rc;
}

static int run_treecut(const cm_method_ctx_t *x, int *map, cm_error_t *err)
{
    return cm_map_treecut(x->p, x->o->threads, map, x->budget, err);
}

static int run_initial(const cm_method_ctx_t *x, int *map, cm_error_t *err)
{
    if (!x->initial)
        return cm_error_set(err, "cm_plan: initial: no incoming mapping was given");
    memcpy(map, x->initial, sizeof(int) * (size_t)x->p->n);
    return 0;
}

/* -- the table ------------------------------------------------------------ */

/* The clustering's budget share, alone and in "auto".  It adapts its
 * search (the cluster counts it tries) to the units it is given, so what
 * it gets is a split between it and its refinement, and the split is not
 * the same in the two places, on purpose:
 *  - alone, the refinement that follows is the only one and runs
 *    V-cycles (cm_refine_vcycle), which keep paying with more units:
 *    half of the budget is left to it;
 *  - in "auto", the refinement is flat and stops when converged, sharing
 *    what is left with the stages still to come, and the share is of what
 *    "auto" spends (its launch-time limit), not of the whole budget: the
 *    clustering gets three quarters, and at least its estimate (its
 *    cheapest path, which the stage checked fits).
 * Either number is part of the mappings: changing one changes "cluster"
 * or "auto" on the inputs where the clustering wins (trees, irregular
 * patterns). */
#define CLUSTER_SHARE_ALONE 0.5
#define CLUSTER_SHARE_AUTO 0.75

/* "auto"'s stages run in stage_order: the multisection first (the
 * strongest start for its cost, the best on meshes), the spanning tree
 * (trees), the clustering (trees and irregular patterns), then block
 * refined and Scotch, which pay only on small inputs or when the
 * application's order is already good (mapbench); the caller's incoming
 * mapping, when given, before all.  Its "block" (as is, the guarantee) is
 * not a stage: plan.c runs it first, unrefined. */
static const cm_method_row_t rows[CM_C_COUNT] = {
    [CM_C_BLOCK] = { { "block", "Slurm's default: fill each node's slots in order", 0, 1,
                       0 },
                     CM_C_BLOCK,
                     "block+refine",
                     5,
                     NULL,
                     NULL,
                     run_block,
                     0,
                     0,
                     0 },
    [CM_C_CYCLIC] = { { "cyclic", "rank i to node i mod N, round robin over nodes", 0, 0,
                        0 },
                      CM_C_CYCLIC,
                      NULL,
                      0,
                      NULL,
                      NULL,
                      run_cyclic,
                      0,
                      0,
                      0 },
    [CM_C_RANDOM] = { { "random", "uniformly random placement (reproducible with --seed)",
                        0, 0, 0 },
                      CM_C_RANDOM,
                      NULL,
                      0,
                      NULL,
                      NULL,
                      run_random,
                      0,
                      0,
                      0 },
    [CM_C_SCOTCH] = { { "scotch", "Scotch static mapping onto the machine tree (--seed)",
                        0, 1, 0 },
                      CM_C_SCOTCH,
                      "scotch+refine",
                      6,
                      units_scotch,
                      secs_scotch,
                      run_scotch,
                      0,
                      0,
                      0 },
    [CM_C_MS] = { { "scotch-ms", "Scotch multisection level by level, refined", 1, 1, 0 },
                  CM_C_MS,
                  "scotch-ms",
                  2,
                  units_ms,
                  secs_ms,
                  run_ms,
                  0,
                  0,
                  0 },
    [CM_C_CLUSTER] = { { "cluster", "spectral clustering packed level by level, refined",
                         1, 1, 0 },
                       CM_C_CLUSTER,
                       "cluster",
                       4,
                       units_cluster,
                       secs_cluster,
                       run_cluster,
                       1,
                       CLUSTER_SHARE_ALONE,
                       CLUSTER_SHARE_AUTO },
    [CM_C_TREECUT] = { { "treecut",
                         "heaviest spanning forest cut into the levels' shares, refined",
                         1, 1, 0 },
                       CM_C_TREECUT,
                       "treecut",
                       3,
                       units_treecut,
                       NULL,
                       run_treecut,
                       0,
                       0,
                       0 },
    [CM_C_AUTO] = { { "auto",
                      "best of the above within --time-budget, never worse than block", 0,
                      0, 1 },
                    CM_C_AUTO,
                    NULL,
                    0,
                    NULL,
                    NULL,
                    NULL,
                    0,
                    0,
                    0 },
    [CM_C_MS_FAST] = { { NULL, NULL, 0, 1, 0 },
                       CM_C_MS_FAST,
                       NULL,
                       0,
                       units_ms_fast,
                       secs_ms_fast,
                       run_ms_fast,
                       0,
                       0,
                       0 },
    [CM_C_INITIAL] = { { NULL, NULL, 0, 1, 0 },
                       CM_C_INITIAL,
                       "initial+refine",
                       1,
                       NULL,
                       NULL,
                       run_initial,
                       0,
                       0,
                       0 },
};

/* The public rows: those before the first variant. */
#define NPUBLIC ((int)CM_C_MS_FAST)

const cm_method_row_t *cm_method_row(cm_construct_t c)
{
    return (int)c >= 0 && c < CM_C_COUNT ? &rows[c] : NULL;
}

double cm_method_share_alone(const cm_method_row_t *r, uint64_t left)
{
    return r->share_alone * (double)left;
}

double cm_method_share_auto(const cm_method_row_t *r, double left, double est)
{
    return left > est ? r->share_auto * left : est;
}

int cm_method_count(void)
{
    return NPUBLIC;
}

const cm_method_info_t *cm_method_info(int i)
{
    return i >= 0 && i < NPUBLIC ? &rows[i].info : NULL;
}

int cm_method_by_name(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < NPUBLIC; i++)
        if (strcmp(rows[i].info.name, name) == 0)
            return i;
    return -1;
}

size_t cm_method_names(char *buf, size_t len, const char *sep, const char *last)
{
    size_t used = 0;
    if (!sep)
        sep = ", ";
    if (!last)
        last = sep;
    if (buf && len > 0)
        buf[0] = '\0';
    for (int i = 0; i < NPUBLIC; i++) {
        const char *pre = i == 0 ? "" : i == NPUBLIC - 1 ? last : sep;
        const char *parts[2] = { pre, rows[i].info.name };
        for (int k = 0; k < 2; k++) {
            size_t w = strlen(parts[k]);
            if (buf && used < len) {
                size_t room = len - used - 1;
                size_t c = w < room ? w : room;
                memcpy(buf + used, parts[k], c);
                buf[used + c] = '\0';
            }
            used += w;
        }
    }
    return used;
}
