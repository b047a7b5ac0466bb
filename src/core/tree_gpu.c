/* tree_gpu.c -- machine tree of identical GPU nodes: slots are GPUs.
 *
 * The GPUs of a node (cm_devices_from_hwloc()) are grouped, as
 * tree_hwloc.c groups cores, by candidate levels: the package of their
 * locality ("socket"), its NUMA node ("numa") and the GPUs joined by the
 * fastest links of the interconnect matrix ("nvlink", "xgmi", "xelink").
 * A level is kept when it splits and nests with its neighbours; of two
 * levels with the same groups the interconnect wins, then numa: it names
 * the path the bytes take between two GPUs of the group.
 *
 * A level's cost is that of the path between the GPUs whose lowest common
 * ancestor it is: when every such pair has a direct link, the slowest of
 * those links (NVSwitch: the whole node); else the level's default, the
 * way through the host.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"
#include "tree_internal.h"

#define GPU_MAX_NODES (1 << 20)
#define GPU_MAX_SLOTS (1L << 24)
#define GPU_MAX_PER 1024

enum { C_LINK, C_NUMA, C_SOCKET, NCAND };

typedef struct gpu_order {
    int gpu, first_pu;
} gpu_order_t;

static int cmp_order(const void *a, const void *b)
{
    const gpu_order_t *x = a, *y = b;
    if (x->first_pu != y->first_pu)
        return x->first_pu < y->first_pu ? -1 : 1;
    return x->gpu - y->gpu;
}

/* Components of the links of the highest bandwidth, in tree order @p ord:
 * raw[i] = the smallest tree position of i's component. */
static void link_groups(const cm_devices_t *d, const gpu_order_t *ord, int n, int *raw)
{
    double top = 0;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            if (cm_devices_gpu_bandwidth(d, a, b) > top)
                top = cm_devices_gpu_bandwidth(d, a, b);
    for (int i = 0; i < n; i++)
        raw[i] = top > 0 ? i : -1;
    if (top <= 0)
        return;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (raw[j] < raw[i] &&
                    cm_devices_gpu_bandwidth(d, ord[i].gpu, ord[j].gpu) >= top &&
                    cm_devices_gpu_bandwidth(d, ord[j].gpu, ord[i].gpu) >= top) {
                    raw[i] = raw[j];
                    changed = 1;
                }
    }
}

/* What add_gpu needs: the GPUs in slot order, the "gpu" level, the
 * slots of a GPU. */
typedef struct gpu_items {
    const gpu_order_t *ord;
    int gpu_level, per_gpu;
} gpu_items_t;

/* GPU @p i of the slot order: its vertex "gpu<k>" (k its index on the
 * node) and, with several tasks a GPU, their leaves "gpu<k>.<j>". */
static int add_gpu(cm_tree_t *t, int parent, int i, void *ctx, cm_error_t *err)
{
    const gpu_items_t *it = ctx;
    char label[48];
    snprintf(label, sizeof label, "gpu%d", it->ord[i].gpu);
    int gv = cm_tree_add_vertex(t, parent, it->gpu_level, label, err);
    if (gv < 0)
        return -1;
    for (int j = 0; it->per_gpu > 1 && j < it->per_gpu; j++) {
        snprintf(label, sizeof label, "gpu%d.%d", it->ord[i].gpu, j);
        if (cm_tree_add_vertex(t, gv, it->gpu_level + 1, label, err) < 0)
            return -1;
    }
    return 0;
}

/* Level costs of kept level @p k (index into chain, -1 = node): the
 * slowest link between two GPUs whose lowest common group is that level,
 * when they all have one; else the defaults of @p name. */
static int add_priced_level(cm_tree_t *t, const cm_devices_t *d, const gpu_order_t *ord,
                            int n, const cm_groups_t *cand, const int *chain, int nchain,
                            int k, const char *name, const char *link, cm_error_t *err)
{
    double minbw = INFINITY;
    int pairs = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j)
                continue;
            int lca = -1; /* deepest kept level where i and j share a group */
            for (int c = 0; c < nchain; c++)
                if (cand[chain[c]].gid[i] == cand[chain[c]].gid[j])
                    lca = c;
            if (lca != k)
                continue;
            pairs++;
            double bw = cm_devices_gpu_bandwidth(d, ord[i].gpu, ord[j].gpu);
            if (bw < minbw)
                minbw = bw;
        }
    if (link && pairs > 0 && minbw > 0 && minbw < INFINITY)
        return cm_tree_add_level(t, name, 1.0 / minbw, cm_tree_default_latency(link),
                                 err);
    return cm_tree_add_default_level(t, name, name, err);
}

/* The node count and tasks per GPU of a GPU tree, in range. */
static int check_sizes(const char *what, int nnodes, int per_gpu, cm_error_t *err)
{
    if (nnodes < 1 || nnodes > GPU_MAX_NODES)
        return cm_error_set(err, "%s: node count must be 1..%d, got %d", what,
                            GPU_MAX_NODES, nnodes);
    if (per_gpu < 1 || per_gpu > GPU_MAX_PER)
        return cm_error_set(err, "%s: tasks per GPU must be 1..%d, got %d", what,
                            GPU_MAX_PER, per_gpu);
    return 0;
}

cm_tree_t *cm_tree_from_gpu_devices(const cm_devices_t *d, const char *what, int nnodes,
                                    int per_gpu, cm_error_t *err)
{
    if (!what)
        what = "devices";
    if (!d) {
        cm_error_set(err, "%s: no device list", what);
        return NULL;
    }
    if (check_sizes(what, nnodes, per_gpu, err) < 0)
        return NULL;
    int n = cm_devices_ngpus(d);
    cm_tree_t *t = NULL;
    gpu_order_t *ord = NULL;
    int *raw = NULL;
    cm_groups_t cand[NCAND] = { { 0 } };
    const char *name[NCAND] = { NULL };
    if (n < 1) {
        cm_error_set(err,
                     "%s: hwloc finds no GPU in this topology (no CUDA, NVML, RSMI, "
                     "LevelZero or OpenCL device, no NVIDIA/AMD/Intel display "
                     "controller; an lstopo export made with --no-io has none)",
                     what);
        goto out;
    }
    if ((long)nnodes * n * per_gpu > GPU_MAX_SLOTS) {
        cm_error_set(err, "%s: %d nodes of %d GPUs x %d tasks exceed %ld slots", what,
                     nnodes, n, per_gpu, GPU_MAX_SLOTS);
        goto out;
    }
    ord = malloc((size_t)n * sizeof *ord);
    raw = malloc((size_t)n * sizeof(int));
    if (!ord || !raw)
        goto oom;
    for (int g = 0; g < n; g++) {
        const int *pus;
        ord[g].gpu = g;
        ord[g].first_pu = cm_devices_gpu_pus(d, g, &pus) > 0 ? pus[0] : INT_MAX;
    }
    qsort(ord, (size_t)n, sizeof *ord, cmp_order);

    const char *link = cm_devices_link_name(d);
    name[C_LINK] = link;
    name[C_NUMA] = "numa";
    name[C_SOCKET] = "socket";
    for (int c = 0; c < NCAND; c++) {
        if (!(cand[c].gid = malloc((size_t)n * sizeof(int))))
            goto oom;
        for (int i = 0; i < n; i++)
            raw[i] = c == C_NUMA ? cm_devices_gpu_numa(d, ord[i].gpu)
                : c == C_SOCKET  ? cm_devices_gpu_package(d, ord[i].gpu)
                                 : -1;
        if (c == C_LINK)
            link_groups(d, ord, n, raw);
        cm_groups_number(&cand[c], raw, n);
        if (!name[c])
            cand[c].present = 0; /* no link between the GPUs */
    }

    /* Kept levels, coarsest first; candidates in order of preference, so
     * that a later one with the same groups as a kept one does not split. */
    int chain[NCAND];
    int nchain = cm_groups_chain(cand, NCAND, n, -1, chain);

    t = cm_tree_new();
    if (!t)
        goto oom;
    if (cm_tree_add_default_level(t, "switch", "switch", err) < 0 ||
        add_priced_level(t, d, ord, n, cand, chain, nchain, -1, "node", link, err) < 0)
        goto fail;
    for (int k = 0; k < nchain; k++)
        if (add_priced_level(t, d, ord, n, cand, chain, nchain, k, name[chain[k]], link,
                             err) < 0)
            goto fail;
    int gpu_level = cm_tree_add_default_level(t, "gpu", "gpu", err);
    if (gpu_level < 0 ||
        (per_gpu > 1 && cm_tree_add_default_level(t, "task", "task", err) < 0))
        goto fail;

    gpu_items_t items = { ord, gpu_level, per_gpu };
    if (cm_tree_add_grouped_nodes(t, nnodes, n, cand, chain, nchain, add_gpu, &items,
                                  what, err) < 0)
        goto fail;
    if (cm_tree_finalize(t, err) < 0)
        goto fail;
    goto out;

oom:
    cm_error_set(err, "%s: out of memory", what);
fail:
    cm_tree_free(t);
    t = NULL;
out:
    for (int c = 0; c < NCAND; c++)
        free(cand[c].gid);
    free(ord);
    free(raw);
    return t;
}

cm_tree_t *cm_tree_from_hwloc_gpus(const char *xml_path, int nnodes, int per_gpu,
                                   cm_error_t *err)
{
    const char *what = xml_path ? xml_path : "live machine";
    if (check_sizes(what, nnodes, per_gpu, err) < 0)
        return NULL;
    cm_devices_t *d = cm_devices_from_hwloc(xml_path, err);
    if (!d)
        return NULL;
    cm_tree_t *t = cm_tree_from_gpu_devices(d, what, nnodes, per_gpu, err);
    cm_devices_free(d);
    return t;
}

int cm_tree_slot_gpu(const cm_tree_t *t, int s)
{
    int gl = cm_tree_level_index(t, "gpu");
    int v = cm_tree_slot_vertex(t, s);
    while (v >= 0 && cm_tree_vertex_level(t, v) > gl)
        v = cm_tree_vertex_parent(t, v);
    if (gl < 0 || v < 0 || cm_tree_vertex_level(t, v) != gl)
        return -1;
    const char *label = cm_tree_vertex_label(t, v);
    if (!label || strncmp(label, "gpu", 3) != 0 || label[3] < '0' || label[3] > '9')
        return -1;
    char *end;
    long k = strtol(label + 3, &end, 10);
    return *end == '\0' && k <= INT_MAX ? (int)k : -1;
}

cm_tree_t *cm_tree_from_hwloc_gpus_restricted(const char *xml_path, int nnodes,
                                              int per_gpu, int n, const int *keep,
                                              int nkeep, cm_error_t *err)
{
    const char *what = xml_path ? xml_path : "live machine";
    if (nnodes < 1 || nnodes > GPU_MAX_NODES) {
        cm_error_set(err, "%s: node count must be 1..%d, got %d", what, GPU_MAX_NODES,
                     nnodes);
        return NULL;
    }
    cm_tree_t *one = cm_tree_from_hwloc_gpus(xml_path, 1, per_gpu, err);
    if (!one)
        return NULL;
    cm_tree_t *r = NULL;
    if ((long)nnodes * cm_tree_nslots(one) > GPU_MAX_SLOTS)
        cm_error_set(err, "%s: %d nodes of %d GPU slots exceed %ld slots", what, nnodes,
                     cm_tree_nslots(one), GPU_MAX_SLOTS);
    else
        r = cm_tree_nodes_restricted(one, nnodes, n, keep, nkeep, what, err);
    cm_tree_free(one);
    return r;
}
