/* tree_internal.h -- machine-tree internals shared with the unit tests. */
#ifndef CM_TREE_INTERNAL_H
#define CM_TREE_INTERNAL_H

#include "clustermap.h"

/** Drop the per-slot ancestor table so that cm_tree_lca_level() takes the
 *  walk-up path used for trees too large for the table (tests compare both
 *  paths on the same tree). */
void cm_tree_drop_lca_table(cm_tree_t *t);

/** Non-zero when cm_tree_lca_level() uses the per-slot ancestor table. */
int cm_tree_has_lca_table(const cm_tree_t *t);

/** Append level @p name with the default costs of level name @p costs_of
 *  (usually the same name): byte cost 1 / cm_tree_default_bandwidth(),
 *  message cost cm_tree_default_latency().  Used by the hwloc and
 *  slurm.conf readers; fails for a name without defaults. */
int cm_tree_add_default_level(cm_tree_t *t, const char *name, const char *costs_of,
                              cm_error_t *err);

/* ---- restriction (tree_restrict.c) ---------------------------------- */

/** Let cm_tree_finalize() accept levels without vertices: a restricted
 *  tree keeps every level of the tree it was cut from, so that level
 *  indices, names and costs stay the same, even when all the vertices of
 *  a level were cut. */
void cm_tree_allow_empty_levels(cm_tree_t *t);

/** Record where a finalized restricted tree was cut from: @p origin[s]
 *  (increasing) is the slot of that tree its slot s stands for,
 *  @p node_origin[k] (increasing) the allocation index of its node k.
 *  Takes ownership of both arrays. */
void cm_tree_set_origin(cm_tree_t *t, int *origin, int *node_origin,
                        int origin_nslots, int origin_nnodes);

/** A read-only view of a machine tree, for cm_tree_restrict_view(): a
 *  built tree (cm_tree_restrict) or a description whose vertices are
 *  computed when asked for (--hierarchy, identical hwloc nodes), so that
 *  the part n ranks can use is found without building the rest.  Vertex
 *  ids follow the rules of a built tree: the root is 0, a parent's id is
 *  below its children's, children are in id order, "node" vertices in id
 *  order are the allocation order, slots are numbered depth-first. */
typedef struct cm_tree_view {
    const void *ctx;
    int nslots, nnodes;
    int (*nchildren)(const void *ctx, int v);
    int (*child)(const void *ctx, int v, int k);
    int (*parent)(const void *ctx, int v);       /* -1 for the root */
    int (*level)(const void *ctx, int v);
    void (*slots)(const void *ctx, int v, int *first, int *count);
    int (*slot_vertex)(const void *ctx, int s);
    int (*node_vertex)(const void *ctx, int node);
    /* may return NULL; @p buf is there for computed labels */
    const char *(*label)(const void *ctx, int v, char *buf, size_t size);
    double (*speed)(const void *ctx, int v);
    /* non-zero when all children of v are alike (same shape and speed),
     * so that tree order is the order of preference; may be NULL */
    int (*uniform)(const void *ctx, int v);
    /* the levels, root first: copied from @p levels when it is not NULL,
     * else added by @p add_levels */
    const cm_tree_t *levels;
    int (*add_levels)(const void *ctx, cm_tree_t *r, cm_error_t *err);
} cm_tree_view_t;

/** cm_tree_restrict() of @p nnodes copies of the one-node tree @p one
 *  (a root, vertex 1 its node "node0", as cm_tree_from_hwloc() and
 *  cm_tree_from_hwloc_gpus() build it for one node) under its root,
 *  without building them: nodes labelled "node<i>".  @p what names the
 *  machine in errors (more than 2^20 nodes or 2^24 slots). */
cm_tree_t *cm_tree_nodes_restricted(const cm_tree_t *one, int nnodes, int n,
                                    const int *keep, int nkeep, const char *what,
                                    cm_error_t *err);

/** cm_tree_restrict() of the tree @p view describes; without @p baselines
 *  the slots of block and cyclic are not added (the rule and @p keep
 *  only). */
cm_tree_t *cm_tree_restrict_view(const cm_tree_view_t *view, int n,
                                 int baselines, const int *keep, int nkeep,
                                 cm_error_t *err);

/** cm_tree_restrict(@p t, ...), with or without @p baselines, when it cuts
 *  something off: the part, or NULL with *@p rc = 0 when it would keep all
 *  of @p t (then t is the part), or NULL with *@p rc = -1 and @p err set.
 *  cm_map_scotch() maps onto the part without baselines: the nodes kept
 *  with a slot or two for cyclic make Scotch, which balances its padded
 *  graph over every slot, spread the ranks (measured: up to 17 times the
 *  J; without them, within 0.3 % of the whole tree's J). */
cm_tree_t *cm_tree_cut(const cm_tree_t *t, int n, int baselines, const int *keep,
                       int nkeep, int *rc, cm_error_t *err);

/** One way of grouping a node's n items (cores, GPUs) that may become a
 *  level of the tree (tree_groups.c). */
typedef struct cm_groups {
    int *gid;    /**< [n] each item's group, numbered by first appearance */
    int ngroups;
    int present; /**< every item has a group */
} cm_groups_t;

/** Number the ids raw[0..n) (-1: the item has none) into @p g->gid (n
 *  entries, the caller's) by first appearance; g->present is 0 when an
 *  item has none or memory runs out. */
void cm_groups_number(cm_groups_t *g, const int *raw, int n);

/** 1 when every group of @p inner lies inside one group of @p outer. */
int cm_groups_nest(const cm_groups_t *inner, const cm_groups_t *outer, int n);

/** The groupings among @p cand[0..ncand) that become levels, coarsest
 *  first, into @p chain (room for ncand): a present one is kept where it
 *  has more groups than the kept one above, fewer than the one below (or
 *  than the n items) and nests with both; of two with the same groups the
 *  earlier candidate is kept.  @p forced (-1: none) is kept whenever it is
 *  present.  Returns how many were kept. */
int cm_groups_chain(const cm_groups_t *cand, int ncand, int n, int forced, int *chain);

/** Adds item @p i's own vertices under @p parent, its deepest group (or
 *  its node); 0, or -1 with @p err. */
typedef int (*cm_tree_item_fn)(cm_tree_t *t, int parent, int i, void *ctx, cm_error_t *err);

/** The identical nodes of an hwloc reader: a root "switch0" of level 0,
 *  @p nnodes nodes "node<k>" of level 1 under it, and in each the @p n
 *  items of one node grouped by the @p nchain levels 2, 3...: item i's
 *  group at level 2 + k is cand[chain[k]].gid[i] (a group's vertex made
 *  when its first item comes); @p item adds the item's own vertices.  For
 *  a tree whose levels are added, not yet finalized.  0, or -1 with
 *  @p err ("@p what: out of memory" or the tree's refusal). */
int cm_tree_add_grouped_nodes(cm_tree_t *t, int nnodes, int n, const cm_groups_t *cand,
                              const int *chain, int nchain, cm_tree_item_fn item,
                              void *ctx, const char *what, cm_error_t *err);

#endif /* CM_TREE_INTERNAL_H */
