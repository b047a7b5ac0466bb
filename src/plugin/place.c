/*
 * place.c -- the entry point of the placement module, clustermap-place.so.
 *
 * Only this module links the engine's heavy libraries (Scotch, OpenBLAS,
 * LAPACKE): every Slurm client and daemon loads clustermap.so, but only an
 * srun whose step is to be placed loads this (srun_step.c), once.  It
 * builds the allocation's machine tree from the controller (slurm_tree.c),
 * plans the step -- from the profile's traffic in cluster mode, Slurm's
 * block or cyclic layout otherwise -- and hands back each rank's node and
 * slot.  It writes nothing and prints nothing: srun_step.c writes the
 * hostfile, and says why when this fails.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>

#include "plugin.h"

/* Seconds since @p t0 (CLOCK_MONOTONIC). */
static double since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* Append printf-style to @p buf (size @p n, used *@p at), silently cut. */
static void add(char *buf, size_t n, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t n, size_t *at, const char *fmt, ...)
{
    va_list ap;
    if (*at >= n)
        return;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *at, n - *at, fmt, ap);
    va_end(ap);
    *at = w < 0 ? n : *at + (size_t)w < n ? *at + (size_t)w : n;
}

/* The record of a cluster placement: why the winner won, against Slurm's
 * default (block with Slurm's counts) level by level. */
static void explain(const cmp_plan_in_t *in, cm_tree_t *t, const int *map,
                    const int *bmap, const cm_plan_report_t *rep, cmp_plan_out_t *out)
{
    size_t at = 0, n = sizeof out->explain;
    char *b = out->explain;
    int nl = cm_tree_nlevels(t);
    double *lp = calloc((size_t)nl, sizeof *lp), *lb = calloc((size_t)nl, sizeof *lb);
    cm_cost_report_t rp = { 0, nl, lp, NULL, 0, -1 }, rb = { 0, nl, lb, NULL, 0, -1 };
    cm_error_t e;
    add(b, n, &at, "algorithm=%s\nwinner=%s\nJ=%.6g\nJ_default=%.6g\nJ_ratio=%.4f\n",
        in->config->algorithm, rep->winner, out->j_plan, out->j_block,
        out->j_block > 0 ? out->j_plan / out->j_block : 1.0);
    add(b, n, &at, "T_max=%.6g\nT_max_default=%.6g\n", cm_cost_max(in->matrix, t, map),
        cm_cost_max(in->matrix, t, bmap));
    if (lp && lb && cm_cost_report(in->matrix, t, map, &rp, &e) == 0 &&
        cm_cost_report(in->matrix, t, bmap, &rb, &e) == 0) {
        for (int l = 0; l < nl; l++)
            add(b, n, &at, "level.%s.bytes=%.6g default=%.6g\n",
                cm_tree_level_name(t, l), lp[l], lb[l]);
        add(b, n, &at, "max_node_out=%.6g default=%.6g\n", rp.max_node_out,
            rb.max_node_out);
    }
    for (int k = 0; k < rep->ncandidates; k++) {
        const cm_plan_candidate_t *c = &rep->candidates[k];
        if (c->ok)
            add(b, n, &at, "candidate=%s J=%.6g T_max=%.6g time=%.4f s%s\n", c->name,
                c->J, c->T_max, c->seconds,
                c->over_tmax ? " (T_max above Slurm's default: not chosen)" : "");
        else
            add(b, n, &at, "candidate=%s %s\n", c->name,
                c->why[0] ? c->why : "skipped (budget or not applicable)");
    }
    free(lp);
    free(lb);
}

/* Plan with the engine; J of the plan and of block when the profile allows. */
static int plan_cluster(const cmp_plan_in_t *in, cm_tree_t *t, int *map,
                        cmp_plan_out_t *out, double deadline, cm_error_t *err)
{
    const cmp_config_t *c = in->config;
    cm_plan_options_t o;
    cm_plan_report_t rep;
    cm_error_t e;
    cm_plan_options_init(&o);
    o.algorithm = c->algorithm;
    o.time_budget = c->budget;
    o.deadline = deadline;
    o.weight = c->weight;
    /* srun's CPUs (inside a job: the batch step's): the mapping is the same
     * for any number, only the launch is quicker. */
    o.threads = cm_plan_threads_available();
    if (cm_plan(in->matrix, t, &o, map, &rep, &e) < 0)
        return cm_error_set(err, "planning failed (%s)", e.msg);
    snprintf(out->how, sizeof out->how, "%s", rep.winner);
    int *bmap = malloc((size_t)in->ntasks * sizeof *bmap);
    if (bmap && cm_map_block(t, in->ntasks, bmap, &e) == 0 &&
        cm_tree_apply_weight(t, in->matrix, c->weight, &e) == 0) {
        out->j_plan = cm_cost(in->matrix, t, map);
        out->j_block = cm_cost(in->matrix, t, bmap);
        explain(in, t, map, bmap, &rep, out);
    }
    free(bmap);
    return 0;
}

int cmp_place_plan_v2(const cmp_plan_in_t *in, cmp_plan_out_t *out, cm_error_t *err)
{
    const cmp_config_t *c = in->config;
    cm_error_t e;
    int *map = NULL, rc = -1;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cm_tree_t *t = cmp_slurm_tree(in->alloc, in->cpus_per_task, c->topo_cache, &e);
    if (!t)
        return cm_error_set(err, "%s", e.msg);
    /* The deadline covers the whole placement: what reading the machine
     * took is no longer the engine's. */
    double left = c->deadline - since(&t0);
    if (left <= 0) {
        cm_error_set(err, "the placement deadline (deadline=%g s) passed while "
                     "reading the allocation", c->deadline);
        cm_tree_free(t);
        return -1;
    }
    if ((c->level_costs[0] && cm_tree_set_level_costs(t, c->level_costs, &e) < 0) ||
        (c->level_latencies[0] &&
         cm_tree_set_level_latencies(t, c->level_latencies, &e) < 0) ||
        (c->level_bandwidths[0] &&
         cm_tree_set_level_bandwidths(t, c->level_bandwidths, &e) < 0)) {
        cm_error_set(err, "plugstack.conf level costs: %s", e.msg);
        goto out;
    }
    if (cm_tree_nslots(t) < in->ntasks) {
        cm_error_set(err, "%d tasks do not fit the %d slots of the allocation",
                     in->ntasks, cm_tree_nslots(t));
        goto out;
    }
    if (!(map = malloc((size_t)in->ntasks * sizeof *map))) {
        cm_error_set(err, "out of memory");
        goto out;
    }
    if (in->mode == CMP_MODE_CLUSTER) {
        if (plan_cluster(in, t, map, out, left, err) < 0)
            goto out;
        /* The engine stops at the deadline with the best mapping so far;
         * the plugin's promise is Slurm's own placement past it. */
        if (since(&t0) > c->deadline) {
            cm_error_set(err, "the placement took %.3f s, past its deadline "
                         "(deadline=%g s)", since(&t0), c->deadline);
            goto out;
        }
    } else {
        int cyclic = in->mode == CMP_MODE_CYCLIC;
        snprintf(out->how, sizeof out->how, "%s", cyclic ? "cyclic" : "block");
        if ((cyclic ? cm_map_cyclic(t, in->ntasks, map, &e)
                    : cm_map_block(t, in->ntasks, map, &e)) < 0) {
            cm_error_set(err, "%s layout failed (%s)", out->how, e.msg);
            goto out;
        }
    }
    for (int r = 0; r < in->ntasks; r++) {
        int first, count;
        out->node[r] = cm_tree_slot_node(t, map[r]);   /* allocation order */
        cm_tree_vertex_slots(t, cm_tree_node_vertex(t, out->node[r]), &first, &count);
        out->core[r] = map[r] - first;
    }
    rc = 0;
out:
    free(map);
    cm_tree_free(t);
    return rc;
}
