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
 *    O(n s).  T = a maximum spanning forest (heavy edges make cutting dear);
 *  - whatever the caller knows (cut_lb: e.g. edge-isoperimetry of a grid).
 * Bytes and messages are bounded separately (the minimum of a sum is at
 * least the sum of the minima). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"

/* Largest n * s for which the tree knapsack runs (its table is O(n s)). */
#define FOREST_DP_MAX_CELLS 50000000.0

typedef struct edge {
    int u, v;
    double w;
} edge_t;

static int edge_heavier_first(const void *a, const void *b)
{
    const edge_t *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

static int double_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static int uf_find(int *p, int x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

/* The undirected weighted graph of one volume (bytes or msgs): upper
 * triangle edges with w_uv = a_uv + a_vu > 0, plus what ranks send to
 * themselves. */
typedef struct ugraph {
    int n;
    size_t m;
    edge_t *e;
    double diag;  /* volume a rank sends to itself (priced at the leaf) */
    double total; /* off-diagonal volume */
} ugraph_t;

static int ugraph_build(const cm_matrix_t *m, int use_msgs, ugraph_t *g,
                        cm_error_t *err)
{
    cm_matrix_t *s = cm_matrix_symmetrize(m, err);
    memset(g, 0, sizeof *g);
    if (!s)
        return -1;
    g->n = cm_matrix_n(s);
    g->e = malloc((cm_matrix_nnz(s) / 2 + 1) * sizeof *g->e);
    if (!g->e) {
        cm_matrix_free(s);
        return cm_error_set(err, "out of memory bounding a %d-rank matrix", g->n);
    }
    for (int i = 0; i < g->n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(s, i, &cols, &bytes, &msgs, &len);
        const double *w = use_msgs ? msgs : bytes;
        if (!w)
            continue;
        for (int k = 0; k < len; k++) {
            if (cols[k] > i && w[k] > 0) {
                g->e[g->m++] = (edge_t){i, cols[k], w[k]};
                g->total += w[k];
            }
        }
    }
    cm_matrix_free(s);
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
static double inside_by_degree(const ugraph_t *g, int s, cm_error_t *err)
{
    size_t *deg = calloc((size_t)g->n + 1, sizeof *deg);
    double *w = malloc((2 * g->m + 1) * sizeof *w);
    double sum = 0;
    if (!deg || !w) {
        free(deg);
        free(w);
        cm_error_set(err, "out of memory bounding a %d-rank matrix", g->n);
        return -1;
    }
    for (size_t k = 0; k < g->m; k++) {
        deg[g->e[k].u + 1]++;
        deg[g->e[k].v + 1]++;
    }
    for (int i = 0; i < g->n; i++)
        deg[i + 1] += deg[i];
    size_t *pos = malloc(((size_t)g->n + 1) * sizeof *pos);
    if (!pos) {
        free(deg);
        free(w);
        cm_error_set(err, "out of memory bounding a %d-rank matrix", g->n);
        return -1;
    }
    memcpy(pos, deg, ((size_t)g->n + 1) * sizeof *pos);
    for (size_t k = 0; k < g->m; k++) {
        w[pos[g->e[k].u]++] = g->e[k].w;
        w[pos[g->e[k].v]++] = g->e[k].w;
    }
    for (int i = 0; i < g->n; i++) {
        size_t len = deg[i + 1] - deg[i];
        size_t keep = (size_t)(s - 1) < len ? (size_t)(s - 1) : len;
        if (keep < len)
            qsort(w + deg[i], len, sizeof *w, double_desc);
        for (size_t k = 0; k < keep; k++)
            sum += w[deg[i] + k];
    }
    free(pos);
    free(deg);
    free(w);
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

/* Cheapest cut of the maximum spanning forest into pieces of <= s vertices
 * (tree knapsack); -1 on error, -2 when the table would be too large. */
static double forest_cut(const ugraph_t *g, int s, cm_error_t *err)
{
    int n = g->n;
    if ((double)n * (s + 1) > FOREST_DP_MAX_CELLS)
        return -2;
    edge_t *e = malloc((g->m + 1) * sizeof *e);
    int *uf = malloc(sizeof(int) * (size_t)n);
    int *adj_start = calloc((size_t)n + 1, sizeof(int));
    int *adj = malloc(sizeof(int) * 2 * (size_t)n);
    double *adj_w = malloc(sizeof(double) * 2 * (size_t)n);
    int *order = malloc(sizeof(int) * (size_t)n);
    int *parent = malloc(sizeof(int) * (size_t)n);
    double *parent_w = malloc(sizeof(double) * (size_t)n);
    int *size = malloc(sizeof(int) * (size_t)n);
    double **f = calloc((size_t)n, sizeof *f);
    double *tmp = malloc(sizeof(double) * ((size_t)s + 1));
    edge_t *tree = malloc(sizeof(edge_t) * (size_t)n);
    double result = -1;
    if (!e || !uf || !adj_start || !adj || !adj_w || !order || !parent ||
        !parent_w || !size || !f || !tmp || !tree) {
        cm_error_set(err, "out of memory bounding a %d-rank matrix", n);
        goto out;
    }
    /* Kruskal, heaviest first. */
    memcpy(e, g->e, g->m * sizeof *e);
    qsort(e, g->m, sizeof *e, edge_heavier_first);
    for (int i = 0; i < n; i++)
        uf[i] = i;
    int nt = 0;
    for (size_t k = 0; k < g->m; k++) {
        int a = uf_find(uf, e[k].u), b = uf_find(uf, e[k].v);
        if (a == b)
            continue;
        uf[a] = b;
        tree[nt++] = e[k];
    }
    for (int k = 0; k < nt; k++) {
        adj_start[tree[k].u + 1]++;
        adj_start[tree[k].v + 1]++;
    }
    for (int i = 0; i < n; i++)
        adj_start[i + 1] += adj_start[i];
    {
        int *fill = order; /* borrowed as a cursor before the traversal */
        for (int i = 0; i < n; i++)
            fill[i] = adj_start[i];
        for (int k = 0; k < nt; k++) {
            adj[fill[tree[k].u]] = tree[k].v;
            adj_w[fill[tree[k].u]++] = tree[k].w;
            adj[fill[tree[k].v]] = tree[k].u;
            adj_w[fill[tree[k].v]++] = tree[k].w;
        }
    }
    /* Breadth-first order from each root; children come after parents. */
    for (int i = 0; i < n; i++)
        parent[i] = -2;
    int head = 0, tail = 0;
    for (int r = 0; r < n; r++) {
        if (parent[r] != -2)
            continue;
        parent[r] = -1;
        parent_w[r] = 0;
        order[tail++] = r;
        while (head < tail) {
            int v = order[head++];
            for (int k = adj_start[v]; k < adj_start[v + 1]; k++)
                if (parent[adj[k]] == -2) {
                    parent[adj[k]] = v;
                    parent_w[adj[k]] = adj_w[k];
                    order[tail++] = adj[k];
                }
        }
    }
    /* f[v][k]: cheapest cut inside v's subtree with v's piece of size k.
     * Processed in reverse BFS order; a child's table is merged into its
     * parent's and freed, so live tables stay within O(n s). */
    double total = 0;
    for (int i = 0; i < n; i++)
        size[i] = 0;
    for (int idx = n - 1; idx >= 0; idx--) {
        int v = order[idx];
        if (!f[v] && !(f[v] = single_piece(&size[v]))) {
            cm_error_set(err, "out of memory bounding a %d-rank matrix", n);
            goto out;
        }
        int p = parent[v];
        double best = INFINITY;
        for (int k = 1; k <= size[v]; k++)
            if (f[v][k] < best)
                best = f[v][k];
        if (p < 0) {
            total += best;
            free(f[v]);
            f[v] = NULL;
            continue;
        }
        if (!f[p] && !(f[p] = single_piece(&size[p]))) {
            cm_error_set(err, "out of memory bounding a %d-rank matrix", n);
            goto out;
        }
        int sp = size[p], sv = size[v];
        int ns = sp + sv < s ? sp + sv : s;
        for (int k = 0; k <= ns; k++)
            tmp[k] = INFINITY;
        double cut = best + parent_w[v];
        for (int a = 1; a <= sp; a++) {
            if (f[p][a] == INFINITY)
                continue;
            /* Cut the edge to v: v's subtree closes at its best. */
            if (f[p][a] + cut < tmp[a])
                tmp[a] = f[p][a] + cut;
            /* Keep it: the pieces join. */
            for (int b = 1; b <= sv && a + b <= s; b++)
                if (f[p][a] + f[v][b] < tmp[a + b])
                    tmp[a + b] = f[p][a] + f[v][b];
        }
        double *grown = realloc(f[p], sizeof(double) * ((size_t)ns + 1));
        if (!grown) {
            cm_error_set(err, "out of memory bounding a %d-rank matrix", n);
            goto out;
        }
        f[p] = grown;
        memcpy(f[p], tmp, sizeof(double) * ((size_t)ns + 1));
        size[p] = ns;
        free(f[v]);
        f[v] = NULL;
    }
    result = total;
out:
    if (f)
        for (int i = 0; i < n; i++)
            free(f[i]);
    free(f);
    free(e);
    free(uf);
    free(adj_start);
    free(adj);
    free(adj_w);
    free(order);
    free(parent);
    free(parent_w);
    free(size);
    free(tmp);
    free(tree);
    return result;
}

/* Largest number of slots in one level-l group (see the top comment). */
static void group_sizes(const cm_tree_t *t, int *smax)
{
    int nlev = cm_tree_nlevels(t), nv = cm_tree_nvertices(t);
    for (int l = 0; l < nlev; l++)
        smax[l] = 1;
    smax[0] = cm_tree_nslots(t);
    for (int v = 0; v < nv; v++) {
        int lv = cm_tree_vertex_level(t, v), p = cm_tree_vertex_parent(t, v);
        int plev = p < 0 ? -1 : cm_tree_vertex_level(t, p);
        int first, count;
        cm_tree_vertex_slots(t, v, &first, &count);
        /* v is the level-l group of its slots for every l in (plev, lv]. */
        for (int l = plev + 1; l <= lv; l++)
            if (l > 0 && count > smax[l])
                smax[l] = count;
    }
}

/* The bound for one volume under per-level costs c[]. */
static int bound_volume(const cm_matrix_t *m, const cm_tree_t *t, int use_msgs,
                        const double *c, const int *smax, const double *cut_lb,
                        double *out, cm_error_t *err)
{
    ugraph_t g;
    int nlev = cm_tree_nlevels(t);
    if (ugraph_build(m, use_msgs, &g, err) < 0)
        return -1;
    double j = c[0] * g.total + c[nlev - 1] * g.diag;
    for (int l = 1; l < nlev && g.total > 0; l++) {
        double gain = c[l - 1] - c[l];
        if (gain <= 0)
            continue; /* I_l >= 0 is the bound that helps here */
        double inside = g.total;
        if (smax[l] <= 1)
            inside = 0;
        else {
            double d = inside_by_degree(&g, smax[l], err);
            if (d < 0)
                goto fail;
            if (d < inside)
                inside = d;
            double fc = forest_cut(&g, smax[l], err);
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
    free(g.e);
    *out = j;
    return 0;
fail:
    free(g.e);
    return -1;
}

double cm_cost_lower_bound(const cm_matrix_t *m, const cm_tree_t *t,
                           const double *cut_lb, cm_error_t *err)
{
    int nlev = cm_tree_nlevels(t), n = cm_matrix_n(m);
    int *smax = NULL;
    double *c = NULL;
    if (n > cm_tree_nslots(t)) {
        cm_error_set(err, "%d ranks do not fit the tree's %d slots", n,
                     cm_tree_nslots(t));
        return -1;
    }
    smax = calloc((size_t)nlev + 1, sizeof(int));
    c = calloc((size_t)nlev + 1, sizeof(double));
    double jb = 0, jm = 0;
    int rc = -1;
    if (!smax || !c) {
        cm_error_set(err, "out of memory bounding a %d-rank matrix", n);
        goto out;
    }
    group_sizes(t, smax);
    int any_msg = 0;
    for (int l = 0; l < nlev; l++) {
        c[l] = cm_tree_level_byte_cost(t, l);
        if (cm_tree_level_msg_cost(t, l) != 0)
            any_msg = 1;
    }
    if (bound_volume(m, t, 0, c, smax, cut_lb, &jb, err) < 0)
        goto out;
    if (any_msg && cm_matrix_has_msgs(m)) {
        for (int l = 0; l < nlev; l++)
            c[l] = cm_tree_level_msg_cost(t, l);
        if (bound_volume(m, t, 1, c, smax, NULL, &jm, err) < 0)
            goto out;
    }
    rc = 0;
out:
    free(smax);
    free(c);
    return rc < 0 ? -1 : jb + jm;
}
