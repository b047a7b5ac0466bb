/* tree_restrict.c -- the part of a machine tree that n ranks can use
 * (cm_tree_restrict), so that planning a small step in a large allocation
 * costs what the step costs.
 *
 * The rule.  From the root down, a vertex that must hold q ranks keeps its
 * children in order of preference until their capacities, each capped at
 * q, sum to RESTRICT_SPARE x q, but never more than q children; each kept
 * child must hold its capped capacity.  Why it keeps quality:
 *  - q ranks never use more than q children, and children that are alike
 *    (same shape: every subtree of a --hierarchy or hwloc level, the slots
 *    under one node) can be swapped without changing any lowest common
 *    ancestor, so any mapping of the whole tree has a copy of equal J
 *    that uses the first children only; the count cap loses nothing;
 *  - a child never holds more than q ranks, so capping its capacity at q
 *    loses nothing either;
 *  - with costs that fall with depth, packing ranks into fewer children
 *    never costs more except where a child's capacity splits a tightly
 *    coupled group: the spare (twice what is needed at every level) gives
 *    packing the room to keep such groups whole.  Mappings that need more
 *    than twice the room at some level are lost (docs/machine-costs.md).
 * The order of preference is larger capped capacity x speed first, tree
 * order on ties: the order in which cm_capacity_shares() fills children,
 * and tree order for children that are alike.
 *
 * Baselines.  cm_map_block() and cm_map_cyclic() must give the same slots
 * on the result, because the planner and the plugin compare against them:
 * the first min(n, nodes) nodes in allocation order are kept, each with
 * its first max(block's ranks on it, cyclic's passes) slots (at most its
 * slots).  Both then walk the same nodes and find the same slots first
 * (the proof is in docs/machine-costs.md).
 *
 * The tree is walked through a view (tree_internal.h), so that --hierarchy
 * and hwloc descriptions are restricted without being built: the work is
 * the vertices kept plus the children of the vertices visited, sorted. */
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"
#include "tree_internal.h"

/* Capacity kept per rank to hold at every vertex (see above). */
#define RESTRICT_SPARE 2

/* A growing list of vertex ids of the viewed tree. */
typedef struct idlist {
    int *v;
    size_t len, cap;
} idlist_t;

static int push(idlist_t *l, int v)
{
    if (l->len == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        int *nv = realloc(l->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->len++] = v;
    return 0;
}

/* @p v and every ancestor of it. */
static int push_path(const cm_tree_view_t *tv, idlist_t *l, int v)
{
    for (; v >= 0; v = tv->parent(tv->ctx, v))
        if (push(l, v) < 0)
            return -1;
    return 0;
}

static int push_slot(const cm_tree_view_t *tv, idlist_t *l, int s)
{
    return push_path(tv, l, tv->slot_vertex(tv->ctx, s));
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void sort_unique(idlist_t *l)
{
    if (l->len == 0)
        return;
    qsort(l->v, l->len, sizeof *l->v, cmp_int);
    size_t w = 1;
    for (size_t r = 1; r < l->len; r++)
        if (l->v[r] != l->v[w - 1])
            l->v[w++] = l->v[r];
    l->len = w;
}

/* ---- the rule --------------------------------------------------------- */

/* How many of @p nc children to keep, in order of preference, for q
 * ranks; the k-th has capped capacity cap[k] (read up to min(nc, q)). */
static int keep_count(const int *cap, int nc, int q)
{
    long sum = 0;
    int k = 0;
    while (k < nc && k < q && sum < (long)RESTRICT_SPARE * q)
        sum += cap[k++];
    return k;
}

typedef struct pref {
    double key;   /* capped capacity x speed */
    int cap, k;   /* capped capacity, child index */
} pref_t;

static int cmp_pref(const void *a, const void *b)
{
    const pref_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return (x->k > y->k) - (x->k < y->k);
}

static int capped(const cm_tree_view_t *tv, int v, int q)
{
    int first, count;
    tv->slots(tv->ctx, v, &first, &count);
    return count < q ? count : q;
}

/* The children of @p v to keep for q ranks, in order of preference, into
 * @p kid / @p kcap (room = min(nc, q) entries); returns how many, -1 when
 * out of memory.  Alike children are taken in tree order unsorted, so a
 * vertex with millions of them costs what is kept. */
static int choose(const cm_tree_view_t *tv, int v, int nc, int q, int *kid,
                  int *kcap)
{
    int room = nc < q ? nc : q;
    if (tv->uniform && tv->uniform(tv->ctx, v)) {
        int cap = capped(tv, tv->child(tv->ctx, v, 0), q);
        for (int i = 0; i < room; i++)
            kcap[i] = cap;
        int k = keep_count(kcap, nc, q);
        for (int i = 0; i < k; i++)
            kid[i] = tv->child(tv->ctx, v, i);
        return k;
    }
    pref_t *pr = malloc((size_t)nc * sizeof *pr);
    if (!pr)
        return -1;
    for (int i = 0; i < nc; i++) {
        int c = tv->child(tv->ctx, v, i);
        pr[i].cap = capped(tv, c, q);
        pr[i].key = pr[i].cap * (tv->speed ? tv->speed(tv->ctx, c) : 1.0);
        pr[i].k = i;
    }
    qsort(pr, (size_t)nc, sizeof *pr, cmp_pref);
    for (int i = 0; i < room; i++) {
        kid[i] = tv->child(tv->ctx, v, pr[i].k);
        kcap[i] = pr[i].cap;
    }
    free(pr);
    return keep_count(kcap, nc, q);
}

/* Keep @p v, which must hold q ranks, and what the rule keeps below it. */
static int visit(const cm_tree_view_t *tv, idlist_t *l, int v, int q)
{
    if (push(l, v) < 0)
        return -1;
    int nc = tv->nchildren(tv->ctx, v);
    if (nc == 0)
        return 0;
    /* At most q children are kept: a small list even under wide vertices. */
    int room = nc < q ? nc : q;
    int *kid = malloc(2 * (size_t)room * sizeof *kid);
    if (!kid)
        return -1;
    int *kcap = kid + room;
    int k = choose(tv, v, nc, q, kid, kcap), rc = k < 0 ? -1 : 0;
    for (int i = 0; i < k && rc == 0; i++)
        rc = visit(tv, l, kid[i], kcap[i]);
    free(kid);
    return rc;
}

/* ---- the baselines ---------------------------------------------------- */

/* Passes of cm_map_cyclic() over nodes of @p count slots: the fewest p
 * with sum of min(count, p) >= n (the nodes hold n). */
static int cyclic_passes(const int *count, int nn, int n)
{
    int lo = 1, hi = n;
    while (lo < hi) {
        int p = lo + (hi - lo) / 2;
        long held = 0;
        for (int k = 0; k < nn && held < n; k++)
            held += count[k] < p ? count[k] : p;
        if (held >= n)
            hi = p;
        else
            lo = p + 1;
    }
    return lo;
}

/* The slots block and cyclic use, as prefixes of the first nodes. */
static int keep_baselines(const cm_tree_view_t *tv, idlist_t *l, int n)
{
    int nn = tv->nnodes < n ? tv->nnodes : n;
    if (nn == 0) {   /* no nodes: both are the identity */
        for (int s = 0; s < n && s < tv->nslots; s++)
            if (push_slot(tv, l, s) < 0)
                return -1;
        return 0;
    }
    /* With more nodes than ranks, cyclic gives each of the first n nodes
     * one rank: the first nn nodes are all it and block touch. */
    int *first = malloc(2 * (size_t)nn * sizeof *first);
    if (!first)
        return -1;
    int *count = first + nn;
    for (int k = 0; k < nn; k++)
        tv->slots(tv->ctx, tv->node_vertex(tv->ctx, k), &first[k], &count[k]);
    int passes = cyclic_passes(count, nn, n), rc = 0, left = n;
    for (int k = 0; k < nn && rc == 0; k++) {
        int blk = count[k] < left ? count[k] : left;
        left -= blk;
        int len = blk > passes ? blk : passes;
        if (len > count[k])
            len = count[k];
        for (int s = first[k]; s < first[k] + len && rc == 0; s++)
            rc = push_slot(tv, l, s);
    }
    free(first);
    return rc;
}

/* ---- building the result ---------------------------------------------- */

static int copy_levels(const cm_tree_t *from, cm_tree_t *to, cm_error_t *err)
{
    for (int lv = 0; lv < cm_tree_nlevels(from); lv++)
        if (cm_tree_add_level(to, cm_tree_level_name(from, lv),
                              cm_tree_level_byte_cost(from, lv),
                              cm_tree_level_msg_cost(from, lv), err) < 0)
            return -1;
    return 0;
}

/* Index of @p v in the increasing @p ids. */
static int index_of(const idlist_t *ids, int v)
{
    const int *p = bsearch(&v, ids->v, ids->len, sizeof *ids->v, cmp_int);
    return p ? (int)(p - ids->v) : -1;
}

/* Allocation index of node vertex @p v: node ids increase with it. */
static int node_index(const cm_tree_view_t *tv, int v)
{
    int lo = 0, hi = tv->nnodes - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (tv->node_vertex(tv->ctx, mid) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The vertices @p ids (sorted, closed under parents) as a tree. */
static cm_tree_t *build(const cm_tree_view_t *tv, const idlist_t *ids,
                        cm_error_t *err)
{
    cm_tree_t *r = cm_tree_new();
    if (!r) {
        cm_error_set(err, "restricting the machine: out of memory");
        return NULL;
    }
    if ((tv->levels ? copy_levels(tv->levels, r, err)
                    : tv->add_levels(tv->ctx, r, err)) < 0)
        goto fail;
    char buf[64];
    for (size_t i = 0; i < ids->len; i++) {
        int v = ids->v[i], p = tv->parent(tv->ctx, v);
        int id = cm_tree_add_vertex(r, p < 0 ? -1 : index_of(ids, p),
                                    tv->level(tv->ctx, v),
                                    tv->label(tv->ctx, v, buf, sizeof buf), err);
        if (id < 0)
            goto fail;
        double speed = tv->speed ? tv->speed(tv->ctx, v) : 1.0;
        if (speed != 1.0 && cm_tree_set_speed(r, id, speed, err) < 0)
            goto fail;
    }
    cm_tree_allow_empty_levels(r);
    if (cm_tree_finalize(r, err) < 0)
        goto fail;
    int ns = cm_tree_nslots(r), nn = cm_tree_nnodes(r), count;
    int *origin = malloc(((size_t)ns + 1) * sizeof *origin);
    if (!origin) {
        cm_error_set(err, "restricting the machine: out of memory");
        goto fail;
    }
    for (int s = 0; s < ns; s++)
        tv->slots(tv->ctx, ids->v[cm_tree_slot_vertex(r, s)], &origin[s], &count);
    int *node_origin = malloc(((size_t)nn + 1) * sizeof *node_origin);
    if (!node_origin) {
        free(origin);
        cm_error_set(err, "restricting the machine: out of memory");
        goto fail;
    }
    for (int k = 0; k < nn; k++)
        node_origin[k] = node_index(tv, ids->v[cm_tree_node_vertex(r, k)]);
    cm_tree_set_origin(r, origin, node_origin, tv->nslots, tv->nnodes);
    return r;
fail:
    cm_tree_free(r);
    return NULL;
}

cm_tree_t *cm_tree_restrict_view(const cm_tree_view_t *tv, int n,
                                 int baselines, const int *keep, int nkeep,
                                 cm_error_t *err)
{
    if (n < 1) {
        cm_error_set(err, "restricting the machine: expected at least 1 rank, "
                     "got %d", n);
        return NULL;
    }
    idlist_t ids = {NULL, 0, 0};
    int rc = visit(tv, &ids, 0, n < tv->nslots ? n : tv->nslots);
    if (rc == 0 && baselines)
        rc = keep_baselines(tv, &ids, n);
    for (int i = 0; i < nkeep && keep && rc == 0; i++)
        if (keep[i] >= 0 && keep[i] < tv->nslots)
            rc = push_slot(tv, &ids, keep[i]);
    cm_tree_t *r = NULL;
    if (rc < 0) {
        cm_error_set(err, "restricting the machine: out of memory");
    } else {
        sort_unique(&ids);
        r = build(tv, &ids, err);
    }
    free(ids.v);
    return r;
}

/* ---- a built tree as a view ------------------------------------------- */

static int t_nchildren(const void *c, int v) { return cm_tree_vertex_nchildren(c, v); }
static int t_child(const void *c, int v, int k) { return cm_tree_vertex_child(c, v, k); }
static int t_parent(const void *c, int v) { return cm_tree_vertex_parent(c, v); }
static int t_level(const void *c, int v) { return cm_tree_vertex_level(c, v); }
static int t_slot_vertex(const void *c, int s) { return cm_tree_slot_vertex(c, s); }
static int t_node_vertex(const void *c, int k) { return cm_tree_node_vertex(c, k); }
static double t_speed(const void *c, int v) { return cm_tree_vertex_speed(c, v); }

static void t_slots(const void *c, int v, int *first, int *count)
{
    cm_tree_vertex_slots(c, v, first, count);
}

static const char *t_label(const void *c, int v, char *buf, size_t size)
{
    (void)buf, (void)size;
    return cm_tree_vertex_label(c, v);
}

/* cm_tree_restrict() with or without the baselines. */
static cm_tree_t *restrict_tree(const cm_tree_t *t, int n, int baselines,
                                const int *keep, int nkeep, cm_error_t *err)
{
    if (!t || cm_tree_nslots(t) == 0) {
        cm_error_set(err, "cm_tree_restrict: expected a finalized tree");
        return NULL;
    }
    const cm_tree_view_t tv = {
        .ctx = t, .nslots = cm_tree_nslots(t), .nnodes = cm_tree_nnodes(t),
        .nchildren = t_nchildren, .child = t_child, .parent = t_parent,
        .level = t_level, .slots = t_slots, .slot_vertex = t_slot_vertex,
        .node_vertex = t_node_vertex, .label = t_label, .speed = t_speed,
        .levels = t,
    };
    return cm_tree_restrict_view(&tv, n, baselines, keep, nkeep, err);
}

cm_tree_t *cm_tree_restrict(const cm_tree_t *t, int n, const int *keep,
                            int nkeep, cm_error_t *err)
{
    return restrict_tree(t, n, 1, keep, nkeep, err);
}

cm_tree_t *cm_tree_cut(const cm_tree_t *t, int n, int baselines, const int *keep,
                       int nkeep, int *rc, cm_error_t *err)
{
    *rc = 0;
    if (n >= cm_tree_nslots(t))   /* every slot may be needed */
        return NULL;
    cm_tree_t *r = restrict_tree(t, n, baselines, keep, nkeep, err);
    if (!r)
        *rc = -1;
    else if (cm_tree_nslots(r) == cm_tree_nslots(t)) {
        cm_tree_free(r);
        r = NULL;
    }
    return r;
}

/* ---- mappings between a restricted tree and its origin ---------------- */

int cm_tree_map_from_origin(const cm_tree_t *t, const int *orig, int n,
                            int *map, cm_error_t *err)
{
    if (!t || !orig || !map || n < 1)
        return cm_error_set(err, "mapping: expected a tree, a mapping and at "
                            "least 1 rank");
    int ns = cm_tree_nslots(t), on = cm_tree_origin_nslots(t);
    int *owner = malloc((size_t)ns * sizeof *owner);
    if (!owner)
        return cm_error_set(err, "mapping: out of memory for %d slots", ns);
    for (int s = 0; s < ns; s++)
        owner[s] = -1;
    int rc = 0;
    for (int r = 0; r < n && rc == 0; r++) {
        int o = orig[r], s = cm_tree_slot_from_origin(t, o);
        if (o < 0 || o >= on)
            rc = cm_error_set(err, "mapping: rank %d is on slot %d, expected a "
                              "slot in 0..%d", r, o, on - 1);
        else if (s < 0)
            rc = cm_error_set(err, "mapping: rank %d is on slot %d, which the "
                              "restricted machine does not keep", r, o);
        else if (owner[s] >= 0)
            rc = cm_error_set(err, "mapping: rank %d is on slot %d, which rank "
                              "%d already holds", r, o, owner[s]);
        else
            owner[s] = r, map[r] = s;
    }
    free(owner);
    return rc;
}

int cm_tree_map_to_origin(const cm_tree_t *t, const int *map, int n,
                          int *orig, cm_error_t *err)
{
    if (!t || !map || !orig)
        return cm_error_set(err, "mapping: expected a tree and two mappings, "
                            "got NULL");
    for (int r = 0; r < n; r++) {
        int o = cm_tree_slot_origin(t, map[r]);
        if (o < 0)
            return cm_error_set(err, "mapping: rank %d is on slot %d, which "
                                "the machine does not have", r, map[r]);
        orig[r] = o;
    }
    return 0;
}
