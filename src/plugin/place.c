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
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "plugin.h"

/* Seconds since @p t0 (CLOCK_MONOTONIC). */
static double since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* What the tasks of a step placed on GPUs need of GPU k of a node: its
 * nearest NIC and its cores (cmp_plan_out_t.gpu_info). */
static char *gpu_info(const cm_devices_t *d, cm_error_t *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    for (int k = 0; f && k < cm_devices_ngpus(d); k++) {
        int nic = cm_devices_gpu_nic(d, k);
        /* its OpenFabrics name (mlx5_0, cxi2), none for a NIC without */
        const char *name = nic < 0 ? NULL : cm_devices_nic_fabric(d, nic);
        const char *cpus = cm_devices_gpu_cpulist(d, k);
        fprintf(f, "%s%s%s:%s", k ? " " : "",
                name && cm_devices_nic_verbs(d, nic) ? CMP_GPU_INFO_VERBS : "",
                name ? name : "-", cpus ? cpus : "-");
    }
    if (!f || fclose(f) != 0) {
        free(f ? text : NULL);
        text = NULL;
        cm_error_set(err, "out of memory");
    }
    return text;
}

/* Whether gres.conf gives nodes @p a and @p b the same GPUs: as many, each
 * with the same Cores= and Links=. */
static int same_gpus(const cm_gres_t *a, const cm_gres_t *b)
{
    int n = cm_gres_count(a, "gpu");
    if (n != cm_gres_count(b, "gpu"))
        return 0;
    for (int k = 0; k < n; k++) {
        cm_gres_dev_t x, y;
        if (cm_gres_device(a, "gpu", k, &x) < 0 || cm_gres_device(b, "gpu", k, &y) < 0 ||
            x.ncores != y.ncores || x.nlinks != y.nlinks || !x.cores != !y.cores ||
            !x.links != !y.links ||
            (x.ncores && memcmp(x.cores, y.cores, (size_t)x.ncores * sizeof *x.cores)) ||
            (x.nlinks && memcmp(x.links, y.links, (size_t)x.nlinks * sizeof *x.links)))
            return 0;
    }
    return 1;
}

/* Where cm_devices_apply_gres() says what it took: one line each, naming
 * the nodes (all the step's nodes are alike, same_gpus()). */
typedef struct notes {
    FILE *f;
    const char *node; /* the first node */
    int others;       /* the step's other nodes */
} notes_t;

static void note_line(const char *line, void *arg)
{
    notes_t *n = arg;
    if (!n->others)
        fprintf(n->f, "%s: %s\n", n->node, line);
    else
        fprintf(n->f, "%s (and %d other node%s alike): %s\n", n->node, n->others,
                n->others > 1 ? "s" : "", line);
}

/* Slurm's view of the nodes' GPUs comes first: a node that gres.conf
 * (beside slurm.conf) gives another number of GPUs than hwloc_xml= is not
 * the node the file describes, and where the file's Cores= or Links= of
 * a GPU differ from hwloc_xml='s, the file's are taken into @p d
 * (cm_devices_apply_gres(); out->gpu_notes says which).  The step's nodes
 * share one description of their inside, so nodes to which gres.conf
 * gives different Cores= or Links= are placed on nodes only too.  -1 with
 * out->gpu_why then, -2 with @p err on a failure; 0 when the step is
 * placed on GPUs (no gres.conf: GPUs detected by slurmd, hwloc's view).
 * The file is read once for all the step's nodes. */
static int gres_view(const cmp_plan_in_t *in, cm_devices_t *d, cmp_plan_out_t *out,
                     cm_error_t *err)
{
    char *conf = cmp_slurm_conf_path(), *gres = conf ? cmp_slurm_gres_path(conf) : NULL;
    int n = in->alloc->nnodes, ngpus = cm_devices_ngpus(d), rc = 0;
    cm_gres_t **g = NULL;
    cm_error_t e;
    notes_t nt = { NULL, in->alloc->names[0], n - 1 };
    char *text = NULL;
    size_t len = 0;
    if (!gres || access(gres, F_OK) != 0)
        goto out;
    if (!(g = calloc((size_t)n, sizeof *g)) ||
        cm_gres_conf_read_nodes(gres, (const char *const *)in->alloc->names, n, g, &e) < 0) {
        rc = -1;
        if (asprintf(&out->gpu_why, "%s", g ? e.msg : "out of memory") < 0)
            out->gpu_why = NULL;
        goto out;
    }
    for (int i = 0; i < n && !rc; i++) {
        int k = cm_gres_count(g[i], "gpu");
        if (k > 0 && k != ngpus) {
            rc = -1;
            if (asprintf(&out->gpu_why, "%s gives node %s %d GPUs, hwloc_xml= %d", gres,
                         in->alloc->names[i], k, ngpus) < 0)
                out->gpu_why = NULL;
        } else if (i > 0 && !same_gpus(g[0], g[i])) {
            rc = -1;
            if (asprintf(&out->gpu_why, "%s gives nodes %s and %s GPUs of different "
                         "Cores= or Links=", gres, in->alloc->names[0],
                         in->alloc->names[i]) < 0)
                out->gpu_why = NULL;
        }
    }
    if (rc || cm_gres_count(g[0], "gpu") < 1)
        goto out;
    if (!(nt.f = open_memstream(&text, &len))) {
        rc = -2;
        cm_error_set(err, "out of memory");
        goto out;
    }
    int taken = cm_devices_apply_gres(d, g[0], note_line, &nt, &e);
    if (fclose(nt.f) != 0) {
        free(text);
        text = NULL;
        rc = -2;
        cm_error_set(err, "out of memory");
    } else if (taken < 0) {
        /* a file that names cores the node type lacks describes another
         * node: the step is placed on nodes only, with the file's words */
        rc = -1;
        if (asprintf(&out->gpu_why, "%s: %s, hwloc_xml= %s", gres, e.msg,
                     in->config->hwloc_xml) < 0)
            out->gpu_why = NULL;
    }
    if (!rc && taken > 0) {
        out->gpu_notes = text;
        text = NULL;
    }
out:
    for (int i = 0; g && i < n; i++)
        cm_gres_free(g[i]);
    free(g);
    free(gres);
    free(conf);
    free(text);
    return rc;
}

/* The machine of a step placed on GPUs: Slurm's switches and nodes with
 * the GPUs of hwloc_xml= inside each node, as gres.conf corrects them.
 * Only steps that fill their nodes' GPU slots are: which GPUs Slurm gives
 * a step that takes part of a node is known on the node only.  NULL with
 * out->gpu_why when the step is placed on nodes only, or with @p err on a
 * failure. */
static cm_tree_t *gpu_tree(const cmp_plan_in_t *in, const cm_tree_t *outer,
                           cmp_plan_out_t *out, cm_error_t *err)
{
    cm_error_t e;
    const char *xml = in->config->hwloc_xml;
    cm_tree_t *inner = NULL, *t = NULL;
    cm_devices_t *d = cm_devices_from_hwloc(xml, &e);
    if (!d) {
        cm_error_set(err, "hwloc_xml=%s: %s", xml, e.msg);
        return NULL;
    }
    /* a node type without GPUs is refused by the tree's reader first */
    int rc = cm_devices_ngpus(d) < 1 ? 0 : gres_view(in, d, out, err);
    if (rc == -1 && !out->gpu_why)
        cm_error_set(err, "out of memory");
    if (rc < 0)
        goto out;
    if (!(inner = cm_tree_from_gpu_devices(d, xml, 1, in->per_gpu, &e))) {
        cm_error_set(err, "hwloc_xml=%s: %s", xml, e.msg);
        goto out;
    }
    int slots = cm_tree_nslots(inner);
    for (int i = 0; i < in->alloc->nnodes; i++)
        if (in->alloc->slots[i] != slots) {
            if (asprintf(&out->gpu_why, "node %s holds %d of the step's tasks, not the "
                         "%d GPU slots of a node of hwloc_xml=",
                         in->alloc->names[i], in->alloc->slots[i], slots) < 0)
                out->gpu_why = NULL;
            goto out;
        }
    t = cm_tree_graft(outer, inner, &e);
    if (!t)
        cm_error_set(err, "hwloc_xml=%s: %s", xml, e.msg);
    else if (!(out->gpu_info = gpu_info(d, err))) {
        cm_tree_free(t);
        t = NULL;
    }
out:
    if (!t) {
        free(out->gpu_notes);
        out->gpu_notes = NULL;
    }
    cm_tree_free(inner);
    cm_devices_free(d);
    return t;
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

int cmp_place_plan_v5(const cmp_plan_in_t *in, cmp_plan_out_t *out, cm_error_t *err)
{
    const cmp_config_t *c = in->config;
    cm_error_t e;
    int *map = NULL, rc = -1;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cm_tree_t *t = cmp_slurm_tree(in->alloc, in->cpus_per_task, c->topo_cache, &e);
    if (!t)
        return cm_error_set(err, "%s", e.msg);
    if (in->per_gpu > 0) {
        cm_tree_t *g = gpu_tree(in, t, out, err);
        if (!g && !out->gpu_why) {
            cm_tree_free(t);
            return -1;
        }
        if (g) {
            cm_tree_free(t);
            t = g;
        }
    }
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
        if (out->gpu)
            out->gpu[r] = out->gpu_info ? cm_tree_slot_gpu(t, map[r]) : -1;
    }
    rc = 0;
out:
    free(map);
    cm_tree_free(t);
    return rc;
}
