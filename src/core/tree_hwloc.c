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
#include "tree_internal.h"

#define HWLOC_MAX_NODES (1 << 20)
#define HWLOC_MAX_SLOTS (1L << 24)

enum { L_SOCKET, L_NUMA, L_L3, L_L2, NCAND };
static const char *cand_name[NCAND] = {"socket", "numa", "l3", "l2"};

typedef struct cand {
    int *gid;     /* [ncores] group id, numbered by first appearance */
    int ngroups;
    int present;  /* every core has a group */
} cand_t;

/* Renumber raw ids (>= 0, -1 = none) by first appearance. */
static void renumber(cand_t *c, const int *raw, int ncores, int rawmax)
{
    int *map = malloc(((size_t)rawmax + 1) * sizeof(int));
    c->present = map != NULL;
    c->ngroups = 0;
    if (!map)
        return;
    for (int i = 0; i <= rawmax; i++)
        map[i] = -1;
    for (int i = 0; i < ncores; i++) {
        if (raw[i] < 0) {
            c->present = 0;
            break;
        }
        if (map[raw[i]] < 0)
            map[raw[i]] = c->ngroups++;
        c->gid[i] = map[raw[i]];
    }
    free(map);
}

/* Does every group of @p inner lie inside one group of @p outer? */
static int nests(const cand_t *inner, const cand_t *outer, int ncores)
{
    int *up = malloc((size_t)inner->ngroups * sizeof(int));
    if (!up)
        return 0;
    for (int g = 0; g < inner->ngroups; g++)
        up[g] = -1;
    int ok = 1;
    for (int i = 0; i < ncores && ok; i++) {
        int g = inner->gid[i];
        if (up[g] < 0)
            up[g] = outer->gid[i];
        else if (up[g] != outer->gid[i])
            ok = 0;
    }
    free(up);
    return ok;
}

static int load(hwloc_topology_t *topo, const char *xml_path, cm_error_t *err)
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
    hwloc_topology_set_io_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(*topo) < 0) {
        hwloc_topology_destroy(*topo);
        return cm_error_set(err, "%s: hwloc cannot load the topology (not an lstopo "
                            "XML export?)", what);
    }
    return 0;
}

cm_tree_t *cm_tree_from_hwloc(const char *xml_path, int nnodes, cm_error_t *err)
{
    const char *what = xml_path ? xml_path : "live machine";
    if (nnodes < 1 || nnodes > HWLOC_MAX_NODES) {
        cm_error_set(err, "%s: node count must be 1..%d, got %d", what,
                     HWLOC_MAX_NODES, nnodes);
        return NULL;
    }
    hwloc_topology_t topo;
    if (load(&topo, xml_path, err) < 0)
        return NULL;

    cm_tree_t *t = NULL;
    cand_t cand[NCAND] = {{0}};
    int *raw = NULL, *vid = NULL;
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
    if ((long)ncores * nnodes > HWLOC_MAX_SLOTS) {
        cm_error_set(err, "%s: %d nodes of %d cores exceed %ld slots", what, nnodes,
                     ncores, HWLOC_MAX_SLOTS);
        goto out;
    }
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
        renumber(&cand[c], raw, ncores, rawmax);
    }

    /* Build the chain of kept levels, coarsest first.  chain[] holds
     * candidate indices; insertion keeps it sorted by group count. */
    int chain[NCAND], nchain = 0;
    if (cand[L_SOCKET].present)
        chain[nchain++] = L_SOCKET;
    for (int c = 0; c < NCAND; c++) {
        if (c == L_SOCKET || !cand[c].present)
            continue;
        int pos = 0;
        while (pos < nchain && cand[chain[pos]].ngroups <= cand[c].ngroups)
            pos++;
        int above = pos > 0 ? cand[chain[pos - 1]].ngroups : 1;
        int below = pos < nchain ? cand[chain[pos]].ngroups : ncores;
        if (cand[c].ngroups <= above || cand[c].ngroups >= below)
            continue;
        if (pos > 0 && !nests(&cand[c], &cand[chain[pos - 1]], ncores))
            continue;
        if (pos < nchain && !nests(&cand[chain[pos]], &cand[c], ncores))
            continue;
        memmove(chain + pos + 1, chain + pos, (size_t)(nchain - pos) * sizeof(int));
        chain[pos] = c;
        nchain++;
    }

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

    int maxg = 1;
    for (int k = 0; k < nchain; k++)
        if (cand[chain[k]].ngroups > maxg)
            maxg = cand[chain[k]].ngroups;
    vid = malloc((size_t)(nchain ? nchain : 1) * (size_t)maxg * sizeof(int));
    if (!vid)
        goto oom;
    int root = cm_tree_add_vertex(t, -1, 0, "switch0", err);
    if (root < 0)
        goto fail;
    char label[48];
    for (int n = 0; n < nnodes; n++) {
        snprintf(label, sizeof label, "node%d", n);
        int node = cm_tree_add_vertex(t, root, 1, label, err);
        if (node < 0)
            goto fail;
        for (int i = 0; i < nchain * maxg; i++)
            vid[i] = -1;
        for (int i = 0; i < ncores; i++) {
            int parent = node;
            for (int k = 0; k < nchain; k++) {
                int *slot = &vid[k * maxg + cand[chain[k]].gid[i]];
                if (*slot < 0 && (*slot = cm_tree_add_vertex(t, parent, 2 + k, NULL, err)) < 0)
                    goto fail;
                parent = *slot;
            }
            snprintf(label, sizeof label, "core%d", i);
            if (cm_tree_add_vertex(t, parent, leaf_level, label, err) < 0)
                goto fail;
        }
    }
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
    free(vid);
    hwloc_topology_destroy(topo);
    return t;
}
