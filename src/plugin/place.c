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

/* Plan with the engine: the mapping, and for the step's record the figures
 * of the plan and of Slurm's default layout, which the engine computes
 * with the plan and formats (cm_plan_report_format). */
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
    o.figures = 1;
    /* srun's CPUs (inside a job: the batch step's): the mapping is the same
     * for any number, only the launch is quicker. */
    o.threads = cm_plan_threads_available();
    if (cm_plan(in->matrix, t, &o, map, &rep, &e) < 0)
        return cm_error_set(err, "planning failed (%s)", e.msg);
    snprintf(out->how, sizeof out->how, "%s", rep.winner);
    if (!rep.has_figures)
        return 0;   /* no record: the placement stands without it */
    out->j_plan = rep.plan.J;
    out->j_block = rep.slurm_default.J;
    /* no text (no memory): the placement stands without its record */
    out->explain = cm_plan_report_format(&rep, t, CM_PLAN_REPORT_EXPLAIN, &e);
    return 0;
}

int cmp_place_plan_v3(const cmp_plan_in_t *in, cmp_plan_out_t *out, cm_error_t *err)
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
