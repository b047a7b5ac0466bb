/* tree_hwloc.c -- machine tree of identical nodes described by hwloc.
 *
 * Every core is given a group id per candidate level (package -> "socket",
 * NUMA node -> "numa", L3 -> "l3", L2 -> "l2").  hwloc 2 attaches NUMA nodes
 * as memory children outside the cpuset tree, so a core's NUMA group is the
 * NUMA node whose cpuset contains the core's.  Levels are then ordered from
 * the coarsest to the finest partition and kept only when they
 *  - exist for every core,
 *  - nest with their neighbours (each group inside one group of the level
 *    above and made of whole groups of the level below), and
 *  - split: they have more groups than the level above and fewer than the
 *    level below, so an LCA can actually land on them.
 * "socket" is kept whenever the machine has packages, even without a split,
 * so that trees from hwloc and from slurm.conf name the same levels.  When
 * two levels have the same groups, the first of socket, numa, l3, l2 wins.
 *
 * Leaves are cores (hardware threads are not slots), labelled "core<L>" with
 * hwloc's logical core index; a topology without Core objects uses PUs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "clustermap.h"
#include "hwloc_internal.h"
#include "tree_internal.h"

#define HWLOC_MAX_NODES (1 << 20)
#define HWLOC_MAX_SLOTS (1L << 24)

enum { L_SOCKET, L_NUMA, L_L3, L_L2, NCAND };
static const char *cand_name[NCAND] = {"socket", "numa", "l3", "l2"};


int cm_hwloc_load(hwloc_topology_t *topo, const char *xml_path,
                  enum hwloc_type_filter_e io_filter, cm_error_t *err)
{
    const char *what = xml_path ? xml_path : "the live machine";
    if (xml_path) {
        FILE *f = fopen(xml_path, "r");
        if (!f)
            return cm_error_set(err, "%s: cannot open hwloc XML: %s", xml_path,
                                strerror(errno));
        fclose(f);
    }
    if (hwloc_topology_init(topo) < 0)
        return cm_error_set(err, "%s: hwloc_topology_init failed", what);
    if (xml_path && hwloc_topology_set_xml(*topo, xml_path) < 0) {
        hwloc_topology_destroy(*topo);
        return cm_error_set(err, "%s: hwloc cannot use this XML file: %s", xml_path,
                            strerror(errno));
    }
    hwloc_topology_set_io_types_filter(*topo, io_filter);
    if (hwloc_topology_load(*topo) < 0) {
        hwloc_topology_destroy(*topo);
        return cm_error_set(err, "%s: hwloc cannot load the topology (not an lstopo "
                            "XML export?)", what);
    }
    return 0;
}

/* A core: the leaf "core<i>" (hwloc's logical index) of level *ctx. */
static int add_core(cm_tree_t *t, int parent, int i, void *ctx, cm_error_t *err)
{
    char label[32];
    snprintf(label, sizeof label, "core%d", i);
    return cm_tree_add_vertex(t, parent, *(const int *)ctx, label, err) < 0 ? -1 : 0;
}

int cm_tree_add_grouped_nodes(cm_tree_t *t, int nnodes, int n, const cm_groups_t *cand,
                              const int *chain, int nchain, cm_tree_item_fn item,
                              void *ctx, const char *what, cm_error_t *err)
{
    int maxg = 1, rc = -1;
    for (int k = 0; k < nchain; k++)
        if (cand[chain[k]].ngroups > maxg)
            maxg = cand[chain[k]].ngroups;
    /* the group vertices of the node being built, by level and group */
    int *vid = malloc((size_t)(nchain ? nchain : 1) * (size_t)maxg * sizeof(int));
    if (!vid)
        return cm_error_set(err, "%s: out of memory", what);
    int root = cm_tree_add_vertex(t, -1, 0, "switch0", err);
    char label[32];
    for (int nd = 0; root >= 0 && nd < nnodes; nd++) {
        snprintf(label, sizeof label, "node%d", nd);
        int node = cm_tree_add_vertex(t, root, 1, label, err);
        if (node < 0)
            goto out;
        for (int i = 0; i < nchain * maxg; i++)
            vid[i] = -1;
        for (int i = 0; i < n; i++) {
            int parent = node;
            for (int k = 0; k < nchain; k++) {
                int *slot = &vid[k * maxg + cand[chain[k]].gid[i]];
                if (*slot < 0 && (*slot = cm_tree_add_vertex(t, parent, 2 + k, NULL, err)) < 0)
                    goto out;
                parent = *slot;
            }
            if (item(t, parent, i, ctx, err) < 0)
                goto out;
        }
    }
    rc = root < 0 ? -1 : 0;
out:
    free(vid);
    return rc;
}

/* The node count and, when @p ncores > 0, the slots within bounds. */
static int check_size(const char *what, int nnodes, long ncores, cm_error_t *err)
{
    if (nnodes < 1 || nnodes > HWLOC_MAX_NODES)
        return cm_error_set(err, "%s: node count must be 1..%d, got %d", what,
                            HWLOC_MAX_NODES, nnodes);
    if (ncores * nnodes > HWLOC_MAX_SLOTS)
        return cm_error_set(err, "%s: %d nodes of %ld cores exceed %ld slots", what,
                            nnodes, ncores, HWLOC_MAX_SLOTS);
    return 0;
}

cm_tree_t *cm_tree_from_hwloc(const char *xml_path, int nnodes, cm_error_t *err)
{
    const char *what = xml_path ? xml_path : "live machine";
    if (check_size(what, nnodes, 0, err) < 0)
        return NULL;
    hwloc_topology_t topo;
    if (cm_hwloc_load(&topo, xml_path, HWLOC_TYPE_FILTER_KEEP_NONE, err) < 0)
        return NULL;

    cm_tree_t *t = NULL;
    cm_groups_t cand[NCAND] = {{0}};
    int *raw = NULL;
    hwloc_obj_type_t leaf_type = HWLOC_OBJ_CORE;
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (ncores <= 0) {
        leaf_type = HWLOC_OBJ_PU;
        ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    }
    if (ncores <= 0) {
        cm_error_set(err, "%s: the topology has no cores", what);
        goto out;
    }
    if (check_size(what, nnodes, ncores, err) < 0)
        goto out;
    raw = malloc((size_t)ncores * sizeof(int));
    if (!raw)
        goto oom;

    static const hwloc_obj_type_t anc_type[NCAND] = {
        HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE};
    for (int c = 0; c < NCAND; c++) {
        if (!(cand[c].gid = malloc((size_t)ncores * sizeof(int))))
            goto oom;
        int rawmax = 0;
        for (int i = 0; i < ncores; i++) {
            hwloc_obj_t core = hwloc_get_obj_by_type(topo, leaf_type, (unsigned)i);
            hwloc_obj_t g = NULL;
            if (c == L_NUMA) {
                hwloc_obj_t n = NULL;
                while ((n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)))
                    if (n->cpuset && core->cpuset &&
                        hwloc_bitmap_isincluded(core->cpuset, n->cpuset)) {
                        g = n;
                        break;
                    }
            } else {
                g = hwloc_get_ancestor_obj_by_type(topo, anc_type[c], core);
            }
            raw[i] = g ? (int)g->logical_index : -1;
            if (raw[i] > rawmax)
                rawmax = raw[i];
        }
        cm_groups_number(&cand[c], raw, ncores);
    }

    /* Build the chain of kept levels, coarsest first.  chain[] holds
     * candidate indices; insertion keeps it sorted by group count. */
    int chain[NCAND];
    int nchain = cm_groups_chain(cand, NCAND, ncores, L_SOCKET, chain);

    t = cm_tree_new();
    if (!t)
        goto oom;
    if (cm_tree_add_default_level(t, "switch", "switch", err) < 0 ||
        cm_tree_add_default_level(t, "node", "node", err) < 0)
        goto fail;
    for (int k = 0; k < nchain; k++)
        if (cm_tree_add_default_level(t, cand_name[chain[k]], cand_name[chain[k]],
                                      err) < 0)
            goto fail;
    int leaf_level = cm_tree_add_default_level(t, "core", "core", err);
    if (leaf_level < 0)
        goto fail;

    if (cm_tree_add_grouped_nodes(t, nnodes, ncores, cand, chain, nchain, add_core,
                                  &leaf_level, what, err) < 0)
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
    free(raw);
    hwloc_topology_destroy(topo);
    return t;
}

/* ---- identical nodes as a view (tree_internal.h) ----
 *
 * cm_tree_from_hwloc() adds the switch, then each node with its subtree,
 * so node k's copy of vertex j >= 1 of the one-node tree is vertex
 * 1 + k x per + (j - 1), per being the vertices of one node. */
typedef struct nodes {
    const cm_tree_t *one;   /* the one-node tree */
    int nnodes, per, slots; /* nodes, vertices and slots per node */
} nodes_t;

/* Node of view vertex @p v >= 1 and its vertex in the one-node tree. */
static int nodes_split(const nodes_t *x, int v, int *j)
{
    *j = (v - 1) % x->per + 1;
    return (v - 1) / x->per;
}

static int nodes_join(const nodes_t *x, int node, int j)
{
    return j < 1 ? j : 1 + node * x->per + (j - 1);
}

static int n_nchildren(const void *ctx, int v)
{
    const nodes_t *x = ctx;
    int j;
    if (v == 0)
        return x->nnodes;
    nodes_split(x, v, &j);
    return cm_tree_vertex_nchildren(x->one, j);
}

static int n_child(const void *ctx, int v, int c)
{
    const nodes_t *x = ctx;
    int j;
    if (v == 0)
        return nodes_join(x, c, 1);
    int node = nodes_split(x, v, &j);
    return nodes_join(x, node, cm_tree_vertex_child(x->one, j, c));
}

static int n_parent(const void *ctx, int v)
{
    const nodes_t *x = ctx;
    int j;
    if (v == 0)
        return -1;
    int node = nodes_split(x, v, &j);
    return nodes_join(x, node, cm_tree_vertex_parent(x->one, j));
}

static int n_level(const void *ctx, int v)
{
    const nodes_t *x = ctx;
    int j = 0;
    if (v > 0)
        nodes_split(x, v, &j);
    return cm_tree_vertex_level(x->one, j);
}

static void n_slots(const void *ctx, int v, int *first, int *count)
{
    const nodes_t *x = ctx;
    int j;
    if (v == 0) {
        *first = 0;
        *count = x->nnodes * x->slots;
        return;
    }
    int node = nodes_split(x, v, &j);
    cm_tree_vertex_slots(x->one, j, first, count);
    *first += node * x->slots;
}

static int n_slot_vertex(const void *ctx, int s)
{
    const nodes_t *x = ctx;
    return nodes_join(x, s / x->slots, cm_tree_slot_vertex(x->one, s % x->slots));
}

static int n_node_vertex(const void *ctx, int node)
{
    return nodes_join(ctx, node, 1);
}

static const char *n_label(const void *ctx, int v, char *buf, size_t size)
{
    const nodes_t *x = ctx;
    int j = 0, node = v > 0 ? nodes_split(x, v, &j) : 0;
    if (j != 1)
        return cm_tree_vertex_label(x->one, j);
    snprintf(buf, size, "node%d", node);   /* as cm_tree_from_hwloc() names it */
    return buf;
}

/* The nodes under the switch are alike; inside a node, sort. */
static int n_uniform(const void *ctx, int v)
{
    (void)ctx;
    return v == 0;
}

cm_tree_t *cm_tree_nodes_restricted(const cm_tree_t *one, int nnodes, int n,
                                    const int *keep, int nkeep, const char *what,
                                    cm_error_t *err)
{
    nodes_t x = { one, nnodes, cm_tree_nvertices(one) - 1, cm_tree_nslots(one) };
    if (check_size(what, nnodes, x.slots, err) < 0)
        return NULL;
    const cm_tree_view_t tv = {
        .ctx = &x, .nslots = nnodes * x.slots, .nnodes = nnodes,
        .nchildren = n_nchildren, .child = n_child, .parent = n_parent,
        .level = n_level, .slots = n_slots, .slot_vertex = n_slot_vertex,
        .node_vertex = n_node_vertex, .label = n_label, .uniform = n_uniform,
        .levels = one,
    };
    return cm_tree_restrict_view(&tv, n, 1, keep, nkeep, err);
}

cm_tree_t *cm_tree_from_hwloc_restricted(const char *xml_path, int nnodes,
                                         int n, const int *keep, int nkeep,
                                         cm_error_t *err)
{
    const char *what = xml_path ? xml_path : "live machine";
    if (check_size(what, nnodes, 0, err) < 0)
        return NULL;
    cm_tree_t *one = cm_tree_from_hwloc(xml_path, 1, err);
    if (!one)
        return NULL;
    cm_tree_t *r = cm_tree_nodes_restricted(one, nnodes, n, keep, nkeep, what, err);
    cm_tree_free(one);
    return r;
}
