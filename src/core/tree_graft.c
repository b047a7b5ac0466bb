/* tree_graft.c -- one machine from two descriptions: the switches and
 * nodes of one tree, the inside of a node from another.
 *
 * Slurm knows the switches and the nodes of an allocation but sees a node
 * only as sockets and cores; hwloc sees a node's GPUs, NUMA nodes and
 * links but not the switches.  Grafting a copy of the node of the second
 * under every node of the first gives the machine a placement needs, with
 * each level priced by the description that knows it.
 *
 * Only the public tree interface is used: the result is built like any
 * tree, so every check cm_tree_add_level() and cm_tree_add_vertex() make
 * holds for it.
 */
#include <stdlib.h>

#include "clustermap.h"

/* Copy the subtree under template vertex @p tv (its children, not @p tv
 * itself) under vertex @p parent of @p out, levels shifted by @p shift. */
static int copy_below(const cm_tree_t *in, int tv, cm_tree_t *out, int parent, int shift,
                      cm_error_t *err)
{
    int n = cm_tree_vertex_nchildren(in, tv);
    for (int k = 0; k < n; k++) {
        int c = cm_tree_vertex_child(in, tv, k);
        int v = cm_tree_add_vertex(out, parent, cm_tree_vertex_level(in, c) + shift,
                                   cm_tree_vertex_label(in, c), err);
        if (v < 0 || copy_below(in, c, out, v, shift, err) < 0)
            return -1;
    }
    return 0;
}

cm_tree_t *cm_tree_graft(const cm_tree_t *outer, const cm_tree_t *inner, cm_error_t *err)
{
    if (!outer || !inner) {
        cm_error_set(err, "tree graft: two trees are required");
        return NULL;
    }
    int on = cm_tree_level_index(outer, "node"),
        in_node = cm_tree_level_index(inner, "node");
    if (on < 0 || in_node < 0 || cm_tree_nnodes(outer) < 1 || cm_tree_nnodes(inner) < 1) {
        cm_error_set(err,
                     "tree graft: both trees need a \"node\" level with nodes (a "
                     "finalized tree)");
        return NULL;
    }
    int tpl = cm_tree_node_vertex(inner, 0);
    if (cm_tree_vertex_nchildren(inner, tpl) < 1) {
        cm_error_set(err, "tree graft: the inner tree's first node has nothing inside");
        return NULL;
    }
    cm_tree_t *t = cm_tree_new();
    if (!t) {
        cm_error_set(err, "tree graft: out of memory");
        return NULL;
    }
    /* the outer levels down to "node", then the inner ones below it; a
     * name twice is refused by cm_tree_add_level() */
    for (int l = 0; l <= on; l++)
        if (cm_tree_add_level(t, cm_tree_level_name(outer, l),
                              cm_tree_level_byte_cost(outer, l),
                              cm_tree_level_msg_cost(outer, l), err) < 0)
            goto fail;
    for (int l = in_node + 1; l < cm_tree_nlevels(inner); l++)
        if (cm_tree_add_level(t, cm_tree_level_name(inner, l),
                              cm_tree_level_byte_cost(inner, l),
                              cm_tree_level_msg_cost(inner, l), err) < 0)
            goto fail;
    /* Vertices in the outer tree's id order: a parent always comes before
     * its children there, and the nodes keep their allocation order. */
    int nv = cm_tree_nvertices(outer);
    int *id = malloc((size_t)nv * sizeof *id);
    if (!id) {
        cm_error_set(err, "tree graft: out of memory");
        goto fail;
    }
    for (int v = 0; v < nv; v++) {
        int level = cm_tree_vertex_level(outer, v);
        id[v] = -1;
        if (level > on)
            continue;
        int p = cm_tree_vertex_parent(outer, v);
        id[v] = cm_tree_add_vertex(t, p < 0 ? -1 : id[p], level,
                                   cm_tree_vertex_label(outer, v), err);
        if (id[v] < 0 ||
            cm_tree_set_speed(t, id[v], cm_tree_vertex_speed(outer, v), err) < 0 ||
            (level == on && copy_below(inner, tpl, t, id[v], on - in_node, err) < 0)) {
            free(id);
            goto fail;
        }
    }
    free(id);
    if (cm_tree_finalize(t, err) < 0)
        goto fail;
    return t;
fail:
    cm_tree_free(t);
    return NULL;
}
