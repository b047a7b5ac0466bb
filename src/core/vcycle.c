/* vcycle.c -- multilevel refinement (cm_refine_vcycle in engine_internal.h).
 *
 * Coarsening.  Level 0 are the ranks.  Level k+1 pairs the units of level
 * k that lie under the same vertex of the matching level ml (first the
 * innermost groups): heaviest connection first, the rest in id order, so
 * that a group ends up as one unit.  When every vertex of level ml holds at
 * most one unit, ml moves one level up (units then span whole groups).
 * Matching never crosses a vertex of level ml, so the current mapping
 * projects exactly onto every level.
 *
 * The coarse problem of a level is a problem of its own: the graph
 * contracted onto the units, the tree cut below level ml with one leaf slot
 * per unit under its level-ml vertex.  Two units under one vertex of level
 * ml are in different vertices of level ml + 1 (or on different slots at
 * the innermost level), so an edge between units costs what its ranks'
 * edges cost on the fine level, and the cost inside the units is fixed:
 * every coarse gain is a fine gain (twice it, as the contracted graph
 * carries both directions of every pair and cm_problem_init() adds its
 * transpose).
 *
 * Kinds.  A unit's kind names its make-up: the matching level and the kinds
 * of its two halves (a unit left unpaired keeps its half's kind).  Units of
 * the same kind are built alike, so when two swap places their halves can
 * take each other's slots, recursively down to the ranks, and the cost
 * inside each unit does not change: cm_refine_kinds() swaps only those.
 *
 * Refinement goes from the coarsest level down: each level is rebuilt from
 * the current mapping (the units stay, their places change), refined, and
 * its moves are projected onto the ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

#define VC_MAX_LEVELS 48
/* No coarse level with fewer units: nothing left to move. */
#define VC_MIN_UNITS 4
/* Units charged per graph entry handled when building a level (contraction,
 * symmetrisation in cm_problem_init). */
#define VC_UNITS_PER_ENTRY 6

typedef struct vlevel {
    int nu;
    int ml;              /* matching level (levels >= 1) */
    int *child;          /* [2 nu]: halves on the level below, [1] = -1 */
    int *kind;           /* [nu] */
    int *rep;            /* [nu]: a rank of the unit */
    cm_matrix_t *m;      /* contracted graph, both directions (owned) */
} vlevel_t;

/* Kinds met so far: keys (ml, a, b) in an open-addressing hash table. */
typedef struct kinds {
    int (*key)[3];
    int *slot;           /* [cap]: key index + 1, 0 when empty */
    int len, cap;
} kinds_t;

static unsigned kind_hash(int ml, int a, int b, int cap)
{
    uint64_t x = ((uint64_t)(unsigned)ml * 0x9e3779b97f4a7c15ULL) ^
                 ((uint64_t)(unsigned)a * 0xbf58476d1ce4e5b9ULL) ^
                 ((uint64_t)(unsigned)b * 0x94d049bb133111ebULL);
    x ^= x >> 31;
    return (unsigned)(x & (uint64_t)(cap - 1));
}

/* Id of the kind (ml, a, b), a <= b (ranks are kind 0); -1 when out of
 * memory. */
static int kind_id(kinds_t *k, int ml, int a, int b)
{
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    if (2 * (k->len + 1) > k->cap) {   /* grow and rehash */
        int cap = k->cap ? 2 * k->cap : 64;
        int (*nk)[3] = realloc(k->key, sizeof *nk * (size_t)cap);
        int *ns = calloc((size_t)cap, sizeof(int));
        if (!nk || !ns) {
            if (nk)
                k->key = nk;
            free(ns);
            return -1;
        }
        k->key = nk;
        free(k->slot);
        k->slot = ns;
        k->cap = cap;
        for (int i = 0; i < k->len; i++) {
            unsigned h = kind_hash(nk[i][0], nk[i][1], nk[i][2], cap);
            while (ns[h])
                h = (h + 1) & (unsigned)(cap - 1);
            ns[h] = i + 1;
        }
    }
    unsigned h = kind_hash(ml, a, b, k->cap);
    for (; k->slot[h]; h = (h + 1) & (unsigned)(k->cap - 1)) {
        const int *key = k->key[k->slot[h] - 1];
        if (key[0] == ml && key[1] == a && key[2] == b)
            return k->slot[h];
    }
    k->key[k->len][0] = ml;
    k->key[k->len][1] = a;
    k->key[k->len][2] = b;
    k->slot[h] = ++k->len;
    return k->len;
}

static void level_free(vlevel_t *v)
{
    free(v->child);
    free(v->kind);
    free(v->rep);
    cm_matrix_free(v->m);
    memset(v, 0, sizeof *v);
}

static int group_of(const cm_problem_t *p, const int *map, int rank, int ml)
{
    return p->anc[(size_t)map[rank] * (size_t)p->nlevels + (size_t)ml];
}

static double link_weight(const cm_problem_t *p, double b, double m, int ml)
{
    double w = cm_edge_cost(p, b, m, ml);
    return w > 0 ? w : b + m;
}

/* Level @p up from @p lo (its graph @p g, n units): pair units under the
 * same vertex of level ml.  0 when built, 1 when no vertex of level ml
 * holds two units, -1 when out of memory. */
static int coarsen(const cm_problem_t *p, const int *map, const vlevel_t *lo,
                   const cm_matrix_t *g, int ml, kinds_t *kinds, vlevel_t *up,
                   cm_budget_t *b)
{
    int n = lo->nu, nv = cm_tree_nvertices(p->tree), rc = -1;
    int *grp = malloc(sizeof(int) * (size_t)n);
    int *mate = malloc(sizeof(int) * (size_t)n);
    int *parent = malloc(sizeof(int) * (size_t)n);
    int *pending = malloc(sizeof(int) * (size_t)nv);
    cm_builder_t *bld = NULL;
    memset(up, 0, sizeof *up);
    if (!grp || !mate || !parent || !pending)
        goto out;
    for (int u = 0; u < n; u++) {
        grp[u] = group_of(p, map, lo->rep[u], ml);
        mate[u] = -1;
    }
    for (int v = 0; v < nv; v++)
        pending[v] = -1;
    /* Heavy-edge matching inside the groups. */
    for (int u = 0; u < n; u++) {
        if (mate[u] >= 0)
            continue;
        const int *cols;
        const double *eb, *em;
        int len, best = -1;
        double bw = 0;
        cm_matrix_row(g, u, &cols, &eb, &em, &len);
        for (int k = 0; k < len; k++) {
            int w = cols[k];
            if (w == u || mate[w] >= 0 || grp[w] != grp[u])
                continue;
            double x = link_weight(p, eb[k], em[k], ml);
            if (x > bw || (x == bw && best >= 0 && w < best)) {
                bw = x;
                best = w;
            }
        }
        if (b)
            b->used += (uint64_t)len;
        if (best >= 0) {
            mate[u] = best;
            mate[best] = u;
        }
    }
    /* The rest pairs up in id order: a group becomes one unit. */
    int pairs = 0;
    for (int u = 0; u < n; u++) {
        if (mate[u] >= 0) {
            pairs += u < mate[u];
            continue;
        }
        int *w = &pending[grp[u]];
        if (*w >= 0) {
            mate[u] = *w;
            mate[*w] = u;
            *w = -1;
            pairs++;
        } else {
            *w = u;
        }
    }
    if (pairs == 0) {
        rc = 1;
        goto out;
    }
    up->nu = n - pairs;
    up->ml = ml;
    up->child = malloc(sizeof(int) * 2 * (size_t)up->nu);
    up->kind = malloc(sizeof(int) * (size_t)up->nu);
    up->rep = malloc(sizeof(int) * (size_t)up->nu);
    if (!up->child || !up->kind || !up->rep)
        goto out;
    int nu = 0;
    for (int u = 0; u < n; u++) {
        int w = mate[u];
        if (w >= 0 && w < u)
            continue;
        up->child[2 * nu] = u;
        up->child[2 * nu + 1] = w;
        up->rep[nu] = lo->rep[u];
        up->kind[nu] = w < 0 ? lo->kind[u]
                             : kind_id(kinds, ml, lo->kind[u], lo->kind[w]);
        if (up->kind[nu] < 0)
            goto out;
        parent[u] = nu;
        if (w >= 0)
            parent[w] = nu;
        nu++;
    }
    /* The contracted graph, both directions of every pair. */
    cm_error_t err = {""};
    bld = cm_builder_new(up->nu, &err);
    if (!bld)
        goto out;
    for (int u = 0; u < n; u++) {
        const int *cols;
        const double *eb, *em;
        int len;
        cm_matrix_row(g, u, &cols, &eb, &em, &len);
        for (int k = 0; k < len; k++)
            if (parent[cols[k]] != parent[u] &&
                cm_builder_add(bld, parent[u], parent[cols[k]], eb[k], em[k],
                               &err) < 0)
                goto out;
        if (b)
            b->used += VC_UNITS_PER_ENTRY * (uint64_t)len;
    }
    cm_builder_set_has_msgs(bld, cm_matrix_has_msgs(g));
    up->m = cm_builder_finish(bld, &err);
    if (!up->m)
        goto out;
    rc = 0;
out:
    if (rc != 0)
        level_free(up);
    cm_builder_free(bld);
    free(grp);
    free(mate);
    free(parent);
    free(pending);
    return rc;
}

/* The tree of a level: the levels 0..ml of the problem's tree (only the
 * vertices that hold units), then one leaf per unit under its vertex of
 * level ml; slot[u] gets unit u's slot.  NULL when out of memory. */
static cm_tree_t *level_tree(const cm_problem_t *p, const int *map,
                             const vlevel_t *lv, int *slot)
{
    const cm_tree_t *t = p->tree;
    int nv = cm_tree_nvertices(t), ml = lv->ml;
    cm_error_t err = {""};
    cm_tree_t *c = cm_tree_new();
    int *newid = malloc(sizeof(int) * (size_t)nv);
    int *leaf = malloc(sizeof(int) * (size_t)lv->nu);
    char *has = calloc((size_t)nv, 1);
    int ok = c && newid && leaf && has;
    for (int l = 0; ok && l <= ml + 1; l++) {
        char name[16];
        snprintf(name, sizeof name, "l%d", l);
        ok = cm_tree_add_level(c, name, p->costs.cb[l], p->costs.cm[l], &err) >= 0;
    }
    for (int u = 0; ok && u < lv->nu; u++)
        for (int v = group_of(p, map, lv->rep[u], ml); v >= 0 && !has[v];
             v = cm_tree_vertex_parent(t, v))
            has[v] = 1;
    /* A parent always has a smaller id than its children. */
    for (int v = 0; ok && v < nv; v++) {
        newid[v] = -1;
        if (!has[v])
            continue;
        int par = cm_tree_vertex_parent(t, v);
        newid[v] = cm_tree_add_vertex(c, par < 0 ? -1 : newid[par],
                                      cm_tree_vertex_level(t, v), NULL, &err);
        ok = newid[v] >= 0;
    }
    for (int u = 0; ok && u < lv->nu; u++) {
        leaf[u] = cm_tree_add_vertex(c, newid[group_of(p, map, lv->rep[u], ml)],
                                     ml + 1, NULL, &err);
        ok = leaf[u] >= 0;
    }
    ok = ok && cm_tree_finalize(c, &err) == 0;
    for (int u = 0; ok && u < lv->nu; u++) {
        int cnt;
        cm_tree_vertex_slots(c, leaf[u], &slot[u], &cnt);
    }
    free(newid);
    free(leaf);
    free(has);
    if (!ok) {
        cm_tree_free(c);
        return NULL;
    }
    return c;
}

/* Unit u of level ku takes the slots of unit w of level kw (same kind):
 * the halves of u take the slots of w's halves of the same kinds, down to
 * the ranks.  An unpaired unit is its half (same kind), hence the levels
 * of the two sides may differ. */
static void assign(const vlevel_t *lv, int ku, int u, int kw, int w,
                   const int *oldmap, int *newmap)
{
    while (ku > 0 && lv[ku].child[2 * u + 1] < 0)
        u = lv[ku--].child[2 * u];
    while (kw > 0 && lv[kw].child[2 * w + 1] < 0)
        w = lv[kw--].child[2 * w];
    if (ku == 0 || kw == 0) {   /* equal kinds: both are ranks */
        newmap[u] = oldmap[w];
        return;
    }
    int a = lv[ku].child[2 * u], b = lv[ku].child[2 * u + 1];
    int a2 = lv[kw].child[2 * w], b2 = lv[kw].child[2 * w + 1];
    if (lv[ku - 1].kind[a] != lv[kw - 1].kind[a2]) {
        int t = a2;
        a2 = b2;
        b2 = t;
    }
    assign(lv, ku - 1, a, kw - 1, a2, oldmap, newmap);
    assign(lv, ku - 1, b, kw - 1, b2, oldmap, newmap);
}

static int level1_vertices(const cm_problem_t *p)
{
    int c = 0, nv = cm_tree_nvertices(p->tree);
    for (int v = 0; v < nv; v++)
        c += cm_tree_vertex_level(p->tree, v) == 1;
    return c;
}

/* Every slot has an ancestor on every level: the coarse trees can be cut
 * at any level. */
static int regular_tree(const cm_problem_t *p)
{
    size_t len = (size_t)p->nslots * (size_t)p->nlevels;
    for (size_t i = 0; i < len; i++)
        if (p->anc[i] < 0)
            return 0;
    return 1;
}

/* Refine level k (built from the current mapping) and project its moves
 * onto @p map.  -1 when out of memory (map unchanged). */
static int refine_level(const cm_problem_t *p, vlevel_t *lv, int k, int *map,
                        int *newmap, cm_budget_t *share)
{
    const vlevel_t *v = &lv[k];
    int nu = v->nu, rc = -1;
    int *slot = malloc(sizeof(int) * (size_t)nu);
    int *cmap = malloc(sizeof(int) * (size_t)nu);
    int *unit_at = malloc(sizeof(int) * (size_t)nu);
    cm_tree_t *ct = NULL;
    cm_problem_t pc;
    int have_pc = 0;
    if (!slot || !cmap || !unit_at)
        goto out;
    ct = level_tree(p, map, v, slot);
    if (!ct)
        goto out;
    cm_costs_t cc;
    memset(&cc, 0, sizeof cc);
    cc.nlevels = v->ml + 2;
    for (int l = 0; l < cc.nlevels; l++) {
        cc.cb[l] = p->costs.cb[l];
        cc.cm[l] = p->costs.cm[l];
    }
    cm_error_t err = {""};
    if (cm_problem_init(&pc, v->m, ct, &cc, &err) < 0) {
        cm_problem_fini(&pc);
        goto out;
    }
    have_pc = 1;
    share->used += VC_UNITS_PER_ENTRY * (uint64_t)cm_matrix_nnz(v->m) +
                   (uint64_t)nu * (uint64_t)pc.nlevels;
    memcpy(cmap, slot, sizeof(int) * (size_t)nu);
    for (int u = 0; u < nu; u++)
        unit_at[slot[u]] = u;
    cm_refine_kinds(&pc, cmap, v->kind, share);
    memcpy(newmap, map, sizeof(int) * (size_t)p->n);
    for (int u = 0; u < nu; u++) {
        int w = unit_at[cmap[u]];
        if (w != u)
            assign(lv, k, u, k, w, map, newmap);
    }
    memcpy(map, newmap, sizeof(int) * (size_t)p->n);
    rc = 0;
out:
    if (have_pc)
        cm_problem_fini(&pc);
    cm_tree_free(ct);
    free(slot);
    free(cmap);
    free(unit_at);
    return rc;
}

/* One V-cycle from @p map (J0): returns the J reached, never above J0. */
static double vcycle(const cm_problem_t *p, int *map, double J0, cm_budget_t *b)
{
    int n = p->n;
    vlevel_t lv[VC_MAX_LEVELS];
    kinds_t kinds = {NULL, NULL, 0, 0};
    memset(lv, 0, sizeof lv);
    int *saved = malloc(sizeof(int) * (size_t)n);
    int *newmap = malloc(sizeof(int) * (size_t)n);
    lv[0].nu = n;
    lv[0].kind = calloc((size_t)n, sizeof(int));
    lv[0].rep = malloc(sizeof(int) * (size_t)n);
    int K = 0;
    if (!saved || !newmap || !lv[0].kind || !lv[0].rep)
        goto done;
    memcpy(saved, map, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        lv[0].rep[i] = i;
    /* Coarsen while a level above the root can still be matched under. */
    for (int ml = p->leaf_level - 1; ml >= 1 && K + 1 < VC_MAX_LEVELS &&
                                      cm_budget_left(b);) {
        int rc = coarsen(p, map, &lv[K], K ? lv[K].m : p->sym, ml, &kinds,
                         &lv[K + 1], b);
        if (rc < 0)
            break;
        if (rc > 0) {
            ml--;
            continue;
        }
        K++;
        if (lv[K].nu < VC_MIN_UNITS)
            break;
    }
    /* A level holding one unit per vertex of level 1 has nothing to gain:
     * those vertices all meet at the root. */
    while (K > 0 && lv[K].ml == 1 && lv[K].nu <= level1_vertices(p)) {
        level_free(&lv[K]);
        K--;
    }
    /* Coarsest first; each level gets an equal share of what is left with
     * the levels below it and the ranks. */
    for (int k = K; k >= 1 && cm_budget_left(b); k--) {
        uint64_t left = b->limit - b->used;
        cm_budget_t share = {0, left / (uint64_t)(k + 1)};
        int rc = refine_level(p, lv, k, map, newmap, &share);
        b->used += share.used;
        if (rc < 0)
            break;
    }
done:;
    double J = cm_refine(p, map, b);
    if (saved && !(J <= J0)) {   /* rounding, or a bug: keep the guarantee */
        memcpy(map, saved, sizeof(int) * (size_t)n);
        J = J0;
    }
    for (int k = 0; k <= K && k < VC_MAX_LEVELS; k++)
        level_free(&lv[k]);
    free(kinds.key);
    free(kinds.slot);
    free(saved);
    free(newmap);
    return J;
}

/* Cycles stop when one gains less than this fraction of J (as cm_refine). */
#define VC_CONVERGED 1e-3
#define VC_MAX_CYCLES 4

double cm_refine_vcycle(const cm_problem_t *p, int *map, cm_budget_t *b)
{
    double J = cm_refine(p, map, b);
    if (p->n < 2 * VC_MIN_UNITS || p->leaf_level < 2 || !regular_tree(p))
        return J;
    for (int c = 0; c < VC_MAX_CYCLES && cm_budget_left(b); c++) {
        double J1 = vcycle(p, map, J, b);
        int more = J - J1 >= VC_CONVERGED * J;
        J = J1;
        if (!more)
            break;
    }
    return J;
}
