/* tree_switches.c -- machine tree from a Slurm-style switch tree and nodes.
 *
 * The common back end of cm_tree_from_slurm_conf() (files) and the plugin's
 * tree from the controller: both reduce their source to switches with
 * Slurm levels and parents plus nodes hanging from leaf switches, and must
 * name and price the levels the same way so that a placement computed in
 * srun and one evaluated offline agree.
 *
 * Only the switches some node sits under are kept.  Each Slurm level among
 * them becomes one tree level ("switch" for level 0, "switch<k>" above);
 * several top switches are joined under a "cluster" root, which costs what
 * the switch level above the top one would.  The blocks of topology/block
 * (cm_tree_from_blocks()) are leaf switches without parents whose level is
 * named "block": the one place that names it, so the plugin and the file
 * reader agree.  Switch vertices are created when the first node below
 * them is added, so compute nodes keep the order they are given in.
 */
#include <stdio.h>
#include <stdlib.h>

#include "clustermap.h"
#include "tree_internal.h"

/* Slurm stores switch levels in 16 bits. */
#define SW_MAX_LEVEL 65535

/* A block costs what a leaf switch does until the admin says otherwise
 * (the caller passes "switch" as costs_of); its own name is what lets
 * level_latencies=block=... price an NVLink rack apart from a switch. */
static void level_name(int k, int block, char *buf, size_t size)
{
    if (k == 0 && block)
        snprintf(buf, size, "block");
    else if (k == 0)
        snprintf(buf, size, "switch");
    else
        snprintf(buf, size, "switch%d", k);
}

/* Parents must lie strictly higher, which also rules out loops, so the
 * walks below always reach a top switch. */
static int check_input(const cm_switch_desc_t *sw, int nsw, const cm_node_desc_t *nodes,
                       int nnodes, cm_error_t *err)
{
    if (nnodes < 1 || !nodes || nsw < 0 || (nsw > 0 && !sw))
        return cm_error_set(err, "cm_tree_from_switches: expected at least one node and "
                            "a switch array of %d entries", nsw);
    for (int s = 0; s < nsw; s++) {
        const char *name = sw[s].name ? sw[s].name : "(null)";
        if (sw[s].level < 0 || sw[s].level > SW_MAX_LEVEL)
            return cm_error_set(err, "switch %s: expected a level 0..%d, got %d", name,
                                SW_MAX_LEVEL, sw[s].level);
        int p = sw[s].parent;
        if (p < -1 || p >= nsw)
            return cm_error_set(err, "switch %s: expected a parent index -1..%d, got %d",
                                name, nsw - 1, p);
        if (p >= 0 && sw[p].level <= sw[s].level)
            return cm_error_set(err, "switch %s (level %d): parent %s has level %d, "
                                "expected a higher one", name, sw[s].level,
                                sw[p].name ? sw[p].name : "(null)", sw[p].level);
    }
    for (int i = 0; i < nnodes; i++) {
        const char *name = nodes[i].name ? nodes[i].name : "(null)";
        if (nsw > 0 && (nodes[i].leaf < 0 || nodes[i].leaf >= nsw))
            return cm_error_set(err, "node %s: expected a switch index 0..%d, got %d",
                                name, nsw - 1, nodes[i].leaf);
        if (nodes[i].cores_per_socket < 1 || nodes[i].slots < 0)
            return cm_error_set(err, "node %s: expected cores per socket >= 1 and slots "
                                ">= 0, got %d and %d", name, nodes[i].cores_per_socket,
                                nodes[i].slots);
    }
    return 0;
}

/* Add the switch levels, top first, and set level_of[k] to the tree level
 * of Slurm level k (-1 when no kept switch has it).  *cluster is set when
 * the kept switches have several tops. */
static int add_switch_levels(cm_tree_t *t, const cm_switch_desc_t *sw, int nsw,
                             const cm_node_desc_t *nodes, int nnodes, int block,
                             int **level_of, int *cluster, cm_error_t *err)
{
    int maxlevel = 0, ntops = 0;
    int *used = calloc((size_t)nsw, sizeof *used);
    if (!used)
        return cm_error_set(err, "machine tree: out of memory");
    for (int i = 0; i < nnodes; i++)
        for (int s = nodes[i].leaf; s >= 0 && !used[s]; s = sw[s].parent) {
            used[s] = 1;
            if (sw[s].parent < 0)
                ntops++;
            if (sw[s].level > maxlevel)
                maxlevel = sw[s].level;
        }
    int *lv = malloc(((size_t)maxlevel + 1) * sizeof *lv);
    if (!lv) {
        free(used);
        return cm_error_set(err, "machine tree: out of memory");
    }
    for (int k = 0; k <= maxlevel; k++)
        lv[k] = -1;
    for (int s = 0; s < nsw; s++)
        if (used[s])
            lv[sw[s].level] = 1;
    free(used);
    *level_of = lv;
    *cluster = ntops > 1;

    char lname[32], costs_of[32];
    if (*cluster) {
        /* Joining the top switches is one more switch level up. */
        level_name(maxlevel + 1, 0, costs_of, sizeof costs_of);
        if (cm_tree_add_default_level(t, "cluster", costs_of, err) < 0)
            return -1;
    }
    for (int k = maxlevel; k >= 0; k--) {
        if (lv[k] < 0)
            continue;
        level_name(k, block, lname, sizeof lname);
        level_name(k, 0, costs_of, sizeof costs_of);
        if ((lv[k] = cm_tree_add_default_level(t, lname, costs_of, err)) < 0)
            return -1;
    }
    return 0;
}

/* The vertex a node under switch @p leaf hangs from, creating the missing
 * switches above it from the top down; -1 on error. */
static int switch_vertex(cm_tree_t *t, const cm_switch_desc_t *sw, int nsw, int leaf,
                         int root, const int *level_of, int *vertex_of, int *chain,
                         cm_error_t *err)
{
    int len = 0;
    for (int s = leaf; s >= 0 && vertex_of[s] < 0 && len < nsw; s = sw[s].parent)
        chain[len++] = s;
    int parent = root;
    if (len == 0)
        parent = vertex_of[leaf];
    else if (sw[chain[len - 1]].parent >= 0)
        parent = vertex_of[sw[chain[len - 1]].parent];
    while (len > 0) {
        int s = chain[--len];
        vertex_of[s] = cm_tree_add_vertex(t, parent, level_of[sw[s].level], sw[s].name,
                                          err);
        if (vertex_of[s] < 0)
            return -1;
        parent = vertex_of[s];
    }
    return parent;
}

/* A node with ceil(slots / cores_per_socket) sockets, the last one holding
 * what is left. */
static int add_node(cm_tree_t *t, int parent, const cm_node_desc_t *n, int node_level,
                    int socket_level, int core_level, cm_error_t *err)
{
    int nv = cm_tree_add_vertex(t, parent, node_level, n->name, err);
    if (nv < 0)
        return -1;
    for (int left = n->slots; left > 0; left -= n->cores_per_socket) {
        int sv = cm_tree_add_vertex(t, nv, socket_level, NULL, err);
        if (sv < 0)
            return -1;
        for (int k = 0; k < n->cores_per_socket && k < left; k++)
            if (cm_tree_add_vertex(t, sv, core_level, NULL, err) < 0)
                return -1;
    }
    return 0;
}

/* The tree of both public entries; @p block names level 0 "block". */
static cm_tree_t *from_switches(const cm_switch_desc_t *sw, int nsw,
                                const cm_node_desc_t *nodes, int nnodes, int block,
                                cm_error_t *err)
{
    if (check_input(sw, nsw, nodes, nnodes, err) < 0)
        return NULL;
    cm_tree_t *t = cm_tree_new();
    int *level_of = NULL, *vertex_of = NULL, *chain = NULL;
    int cluster = 0;
    if (!t)
        goto oom;

    if (nsw > 0) {
        if (add_switch_levels(t, sw, nsw, nodes, nnodes, block, &level_of, &cluster,
                              err) < 0)
            goto fail;
    } else if (cm_tree_add_default_level(t, "switch", "switch", err) < 0) {
        goto fail;
    }
    int node_level = cm_tree_add_default_level(t, "node", "node", err);
    int socket_level = cm_tree_add_default_level(t, "socket", "socket", err);
    int core_level = cm_tree_add_default_level(t, "core", "core", err);
    if (node_level < 0 || socket_level < 0 || core_level < 0)
        goto fail;

    int root = -1;
    if (cluster && (root = cm_tree_add_vertex(t, -1, 0, "cluster", err)) < 0)
        goto fail;
    if (nsw == 0 && (root = cm_tree_add_vertex(t, -1, 0, "switch", err)) < 0)
        goto fail;
    if (nsw > 0) {
        if (!(vertex_of = malloc((size_t)nsw * sizeof *vertex_of)) ||
            !(chain = malloc((size_t)nsw * sizeof *chain)))
            goto oom;
        for (int s = 0; s < nsw; s++)
            vertex_of[s] = -1;
    }
    for (int i = 0; i < nnodes; i++) {
        int parent = root;
        if (nsw > 0 && (parent = switch_vertex(t, sw, nsw, nodes[i].leaf, root, level_of,
                                               vertex_of, chain, err)) < 0)
            goto fail;
        if (add_node(t, parent, &nodes[i], node_level, socket_level, core_level, err) < 0)
            goto fail;
    }
    if (cm_tree_finalize(t, err) < 0)
        goto fail;
    goto out;

oom:
    cm_error_set(err, "machine tree: out of memory");
fail:
    cm_tree_free(t);
    t = NULL;
out:
    free(level_of);
    free(vertex_of);
    free(chain);
    return t;
}

cm_tree_t *cm_tree_from_switches(const cm_switch_desc_t *sw, int nsw,
                                 const cm_node_desc_t *nodes, int nnodes, cm_error_t *err)
{
    return from_switches(sw, nsw, nodes, nnodes, 0, err);
}

cm_tree_t *cm_tree_from_blocks(const cm_switch_desc_t *blocks, int nblocks,
                               const cm_node_desc_t *nodes, int nnodes, cm_error_t *err)
{
    if (!blocks || nblocks < 1) {
        cm_error_set(err, "cm_tree_from_blocks: expected at least one block, got %d",
                     blocks ? nblocks : 0);
        return NULL;
    }
    for (int b = 0; b < nblocks; b++)
        if (blocks[b].level != 0 || blocks[b].parent != -1) {
            cm_error_set(err,
                         "block %s: expected level 0 and no parent, got level %d "
                         "and parent %d",
                         blocks[b].name ? blocks[b].name : "(null)", blocks[b].level,
                         blocks[b].parent);
            return NULL;
        }
    return from_switches(blocks, nblocks, nodes, nnodes, 1, err);
}
