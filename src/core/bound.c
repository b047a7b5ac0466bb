/* bound.c -- a lower bound on J over all mappings (cm_cost_lower_bound).
 *
 * Why: a ratio to Scotch says nothing about how much is left to gain.  On
 * many patterns the best mapping is provably no better than Scotch's, and
 * the benchmark has to be able to tell "we lost" from "nobody can win".
 *
 * The decomposition.  Let c_0 >= c_1 >= ... be the per-level costs (level 0
 * the root).  For a pair whose lowest common ancestor is at level L,
 *   c_L = c_0 - sum_{l=1..L} (c_{l-1} - c_l),
 * and "lca level >= l" is "both slots in the same level-l group", where the
 * level-l group of a slot is its shallowest ancestor of level >= l (so skipped
 * levels are handled).  Summed over all pairs:
 *   J = c_0 W - sum_l (c_{l-1} - c_l) I_l,
 * with W the total volume and I_l the volume kept inside level-l groups.
 * Any upper bound on each I_l therefore bounds J from below; the bounds per
 * level need not come from one partition, which is what makes this cheap.
 *
 * Upper bounds on I_l, for groups of at most s slots (one rank per slot):
 *  - degree: rank v keeps at most its s-1 heaviest partners in its group,
 *    so I_l <= 1/2 sum_v (sum of v's s-1 heaviest symmetric weights);
 *  - forest: the cut edges F must leave every connected piece of G - F
 *    within one group, so of size <= s.  For any spanning forest T of G,
 *    F n T does the same to T, so w(F) >= the cheapest way to cut T into
 *    pieces of size <= s, which a tree knapsack computes exactly in
 *    O(n s).  T = a maximum spanning forest (heavy edges make cutting dear).
 *    When every group of the level is filled exactly (one rank per slot,
 *    equal groups), the pieces must also pack into bins of exactly s: a
 *    piece of s - t .. s - 1 ranks (t < s/2, so one per bin) shares its bin
 *    only with pieces of at most t ranks, at least one.  So with
 *    phi = +1 for such big pieces and -1 for pieces of at most t ranks,
 *    every bin has sum phi <= 0, and for lambda >= 0 the knapsack that adds
 *    lambda phi(size) per piece is still a lower bound (Lagrangian
 *    relaxation); the best of a few t and lambda is kept.  On a binary tree
 *    this lifts the bound on 4-slot groups by a quarter;
 *  - whatever the caller knows (cut_lb: e.g. edge-isoperimetry of a grid).
 * Bytes and messages are bounded separately (the minimum of a sum is at
 * least the sum of the minima). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"
#include "forest_internal.h"

/* Largest n * s for which the tree knapsack runs (its table is O(n s)). */
#define FOREST_DP_MAX_CELLS 50000000.0

static int double_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* The undirected weighted graph of one volume (bytes or msgs): upper
 * triangle edges with w_uv = a_uv + a_vu > 0, each rank's partners'
 * weights heaviest first as running sums (for the degree bound at every
 * group size), and what ranks send to themselves. */
typedef struct ugraph {
    int n;
    size_t m;
    cm_wedge_t *e;
    size_t *row;  /* [n + 1]: rank i's sums are top[row[i] .. row[i + 1]) */
    double *top;  /* top[row[i] + k]: i's k + 1 heaviest weights summed */
    double diag;  /* volume a rank sends to itself (priced at the leaf) */
    double total; /* off-diagonal volume */
} ugraph_t;

static void ugraph_free(ugraph_t *g)
{
    free(g->e);
    free(g->row);
    free(g->top);
}

/* @p sym is A + A^T of @p m (diagonal dropped), shared by both volumes. */
static int ugraph_build(const cm_matrix_t *m, const cm_matrix_t *sym,
                        int use_msgs, ugraph_t *g, cm_error_t *err)
{
    memset(g, 0, sizeof *g);
    g->n = cm_matrix_n(sym);
    size_t nnz = cm_matrix_nnz(sym);
    g->e = malloc((nnz / 2 + 1) * sizeof *g->e);
    g->row = malloc(((size_t)g->n + 1) * sizeof *g->row);
    g->top = malloc((nnz + 1) * sizeof *g->top);
    if (!g->e || !g->row || !g->top) {
        ugraph_free(g);
        return cm_error_set(err, "out of memory bounding a %d-rank matrix", g->n);
    }
    g->row[0] = 0;
    for (int i = 0; i < g->n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(sym, i, &cols, &bytes, &msgs, &len);
        const double *w = use_msgs ? msgs : bytes;
        double *top = g->top + g->row[i];
        size_t kept = 0;
        for (int k = 0; w && k < len; k++) {
            if (w[k] <= 0)
                continue;
            top[kept++] = w[k];
            if (cols[k] > i) {
                g->e[g->m++] = (cm_wedge_t){i, cols[k], w[k]};
                g->total += w[k];
            }
        }
        qsort(top, kept, sizeof *top, double_desc);
        for (size_t k = 1; k < kept; k++)
            top[k] += top[k - 1];
        g->row[i + 1] = g->row[i] + kept;
    }
    /* The symmetric volume drops the diagonal: take it from m itself. */
    for (int i = 0; i < g->n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        const double *w = use_msgs ? msgs : bytes;
        for (int k = 0; w && k < len; k++)
            if (cols[k] == i)
                g->diag += w[k];
    }
    return 0;
}

/* Degree bound on the volume inside groups of at most s ranks. */
static double inside_by_degree(const ugraph_t *g, int s)
{
    double sum = 0;
    for (int i = 0; i < g->n; i++) {
        size_t len = g->row[i + 1] - g->row[i];
        size_t keep = (size_t)(s - 1) < len ? (size_t)(s - 1) : len;
        if (keep)
            sum += g->top[g->row[i] + keep - 1];
    }
    return sum / 2;
}

/* The knapsack table of a vertex before any child joins: its piece is
 * itself alone, at no cost. */
static double *single_piece(int *size)
{
    double *f = malloc(sizeof(double) * 2);
    if (f) {
        f[0] = INFINITY;
        f[1] = 0;
        *size = 1;
    }
    return f;
}

/* Cheapest cut of forest @p f into pieces of <= s vertices, a closed piece
 * of k vertices adding pen[k] (pen may be NULL: no penalty); -1 on error,
 * -2 when the table would be too large. */
static double forest_cut(const cm_forest_t *f, int s, const double *pen,
                         cm_error_t *err)
{
    int n = f->m;
    if ((double)n * (s + 1) > FOREST_DP_MAX_CELLS)
        return -2;
    int *size = calloc((size_t)n + 1, sizeof(int));
    double **tab = calloc((size_t)n + 1, sizeof *tab);
    double *tmp = malloc(sizeof(double) * ((size_t)s + 1));
    double total = 0, result = -1;
    if (!size || !tab || !tmp)
        goto oom;
    /* tab[v][k]: cheapest cut inside v's subtree with v's open piece of k
     * vertices.  Children come after parents in f->order, so a reverse
     * scan merges each child into its parent before the parent closes;
     * merged tables are freed, so live ones stay within O(n s). */
    for (int idx = n - 1; idx >= 0; idx--) {
        int v = f->order[idx], p = f->parent[v];
        if (!tab[v] && !(tab[v] = single_piece(&size[v])))
            goto oom;
        double best = INFINITY;
        for (int k = 1; k <= size[v]; k++) {
            double x = tab[v][k] + (pen ? pen[k] : 0);
            if (x < best)
                best = x;
        }
        if (p < 0) {
            total += best;
            free(tab[v]);
            tab[v] = NULL;
            continue;
        }
        if (!tab[p] && !(tab[p] = single_piece(&size[p])))
            goto oom;
        int sp = size[p], sv = size[v];
        int ns = sp + sv < s ? sp + sv : s;
        for (int k = 0; k <= ns; k++)
            tmp[k] = INFINITY;
        double cut = best + f->pw[v];
        for (int a = 1; a <= sp; a++) {
            if (tab[p][a] == INFINITY)
                continue;
            /* Cut the edge to v: v's piece closes at its best. */
            if (tab[p][a] + cut < tmp[a])
                tmp[a] = tab[p][a] + cut;
            /* Keep it: the pieces join. */
            for (int b = 1; b <= sv && a + b <= s; b++)
                if (tab[p][a] + tab[v][b] < tmp[a + b])
                    tmp[a + b] = tab[p][a] + tab[v][b];
        }
        double *grown = realloc(tab[p], sizeof(double) * ((size_t)ns + 1));
        if (!grown)
            goto oom;
        tab[p] = grown;
        memcpy(tab[p], tmp, sizeof(double) * ((size_t)ns + 1));
        size[p] = ns;
        free(tab[v]);
        tab[v] = NULL;
    }
    result = total;
    goto out;
oom:
    cm_error_set(err, "out of memory bounding a %d-rank matrix", n);
out:
    if (tab)
        for (int i = 0; i < n; i++)
            free(tab[i]);
    free(tab);
    free(size);
    free(tmp);
    return result;
}

/* Penalties tried when groups are filled exactly (see the top comment):
 * t up to PACK_T_MAX, lambda in PACK_LAMBDA x the mean forest edge. */
#define PACK_T_MAX 8
static const double PACK_LAMBDA[] = { 0.25, 0.5, 0.75, 1.0 };

/* The best forest bound on the cut between groups of @p s (exactly @p s
 * each when @p exact_fill); -1 on error, -2 when too large. */
static double forest_bound(const cm_forest_t *f, int s, int exact_fill,
                           cm_error_t *err)
{
    double best = forest_cut(f, s, NULL, err);
    if (best < 0 || !exact_fill || s < 3)
        return best;
    double wsum = 0;
    int nw = 0;
    for (int v = 0; v < f->m; v++)
        if (f->parent[v] >= 0) {
            wsum += f->pw[v];
            nw++;
        }
    if (!nw)
        return best;
    double *pen = malloc(sizeof(double) * ((size_t)s + 1));
    if (!pen) {
        cm_error_set(err, "out of memory bounding a %d-rank matrix", f->m);
        return -1;
    }
    for (int t = 1; 2 * t < s && t <= PACK_T_MAX; t++)
        for (size_t li = 0; li < sizeof PACK_LAMBDA / sizeof *PACK_LAMBDA; li++) {
            double lambda = PACK_LAMBDA[li] * wsum / nw;
            for (int k = 0; k <= s; k++)
                pen[k] = k >= s - t && k < s ? lambda : k <= t ? -lambda : 0;
            double x = forest_cut(f, s, pen, err);
            if (x == -1) {
                free(pen);
                return -1;
            }
            if (x > best)
                best = x;
        }
    free(pen);
    return best;
}

/* Largest and smallest number of slots in one level-l group (see the top
 * comment). */
static void group_sizes(const cm_tree_t *t, int *smax, int *smin)
{
    int nlev = cm_tree_nlevels(t), nv = cm_tree_nvertices(t);
    for (int l = 0; l < nlev; l++) {
        smax[l] = 1;
        smin[l] = cm_tree_nslots(t);
    }
    smax[0] = cm_tree_nslots(t);
    for (int v = 0; v < nv; v++) {
        int lv = cm_tree_vertex_level(t, v), p = cm_tree_vertex_parent(t, v);
        int plev = p < 0 ? -1 : cm_tree_vertex_level(t, p);
        int first, count;
        cm_tree_vertex_slots(t, v, &first, &count);
        /* v is the level-l group of its slots for every l in (plev, lv]. */
        for (int l = plev + 1; l <= lv; l++) {
            if (l > 0 && count > smax[l])
                smax[l] = count;
            if (count < smin[l])
                smin[l] = count;
        }
    }
}

/* The bound for one volume under per-level costs c[]; @p exact_fill[l]:
 * every level-l group holds exactly smax[l] ranks. */
static int bound_volume(const cm_matrix_t *m, const cm_matrix_t *sym,
                        const cm_tree_t *t, int use_msgs, const double *c,
                        const int *smax, const int *exact_fill,
                        const double *cut_lb, double *out, cm_error_t *err)
{
    ugraph_t g;
    cm_forest_t f;
    int nlev = cm_tree_nlevels(t);
    if (ugraph_build(m, sym, use_msgs, &g, err) < 0)
        return -1;
    /* The forest sorts its edges: give it a copy, the degree bound reads
     * them as they are. */
    cm_wedge_t *e = malloc((g.m + 1) * sizeof *e);
    if (!e || (memcpy(e, g.e, g.m * sizeof *e), cm_forest_build(g.n, e, g.m, &f)) < 0) {
        free(e);
        ugraph_free(&g);
        return cm_error_set(err, "out of memory bounding a %d-rank matrix", g.n);
    }
    free(e);
    double j = c[0] * g.total + c[nlev - 1] * g.diag;
    for (int l = 1; l < nlev && g.total > 0; l++) {
        double gain = c[l - 1] - c[l];
        if (gain <= 0)
            continue; /* I_l >= 0 is the bound that helps here */
        double inside = g.total;
        if (smax[l] <= 1)
            inside = 0;
        else {
            double d = inside_by_degree(&g, smax[l]);
            if (d < inside)
                inside = d;
            double fc = forest_bound(&f, smax[l], exact_fill[l], err);
            if (fc == -1)
                goto fail;
            if (fc >= 0 && g.total - fc < inside)
                inside = g.total - fc;
            if (cut_lb && cut_lb[l] > 0 && g.total - cut_lb[l] < inside)
                inside = g.total - cut_lb[l];
            if (inside < 0)
                inside = 0;
        }
        j -= gain * inside;
    }
    cm_forest_free(&f);
    ugraph_free(&g);
    *out = j;
    return 0;
fail:
    cm_forest_free(&f);
    ugraph_free(&g);
    return -1;
}

double cm_cost_lower_bound(const cm_matrix_t *m, const cm_tree_t *t,
                           const double *cut_lb, cm_error_t *err)
{
    if (!m || !t) {
        cm_error_set(err, "lower bound: expected a matrix and a tree, got NULL");
        return -1;
    }
    int nlev = cm_tree_nlevels(t), n = cm_matrix_n(m);
    int *smax = NULL, *smin = NULL, *exact = NULL;
    double *c = NULL;
    cm_matrix_t *sym = NULL;
    if (n > cm_tree_nslots(t)) {
        cm_error_set(err, "%d ranks do not fit the tree's %d slots", n,
                     cm_tree_nslots(t));
        return -1;
    }
    smax = calloc((size_t)nlev + 1, sizeof(int));
    smin = calloc((size_t)nlev + 1, sizeof(int));
    exact = calloc((size_t)nlev + 1, sizeof(int));
    c = calloc((size_t)nlev + 1, sizeof(double));
    double jb = 0, jm = 0;
    int rc = -1;
    if (!smax || !smin || !exact || !c) {
        cm_error_set(err, "out of memory bounding a %d-rank matrix", n);
        goto out;
    }
    if (!(sym = cm_matrix_symmetrize(m, err)))
        goto out;
    group_sizes(t, smax, smin);
    /* Groups are filled exactly only when every slot holds a rank and the
     * level's groups are all alike. */
    for (int l = 0; l < nlev; l++)
        exact[l] = n == cm_tree_nslots(t) && smin[l] == smax[l];
    int any_msg = 0;
    for (int l = 0; l < nlev; l++) {
        c[l] = cm_tree_level_byte_cost(t, l);
        if (cm_tree_level_msg_cost(t, l) != 0)
            any_msg = 1;
    }
    if (bound_volume(m, sym, t, 0, c, smax, exact, cut_lb, &jb, err) < 0)
        goto out;
    if (any_msg && cm_matrix_has_msgs(m)) {
        for (int l = 0; l < nlev; l++)
            c[l] = cm_tree_level_msg_cost(t, l);
        if (bound_volume(m, sym, t, 1, c, smax, exact, NULL, &jm, err) < 0)
            goto out;
    }
    rc = 0;
out:
    cm_matrix_free(sym);
    free(smax);
    free(smin);
    free(exact);
    free(c);
    return rc < 0 ? -1 : jb + jm;
}
