/* map_multisection.c -- level-by-level Scotch multisection (Kurnosov and
 * Paznikov's L12Map / HierarchicMap; docs/design.md, "Where each method
 * comes from").
 *
 * At a tree vertex holding a set of ranks, the ranks are split among the
 * children: each child receives its share (cm_child_shares: the slot count
 * when the vertex is full, otherwise capacity shares, slots x speed),
 * Scotch maps the induced subgraph onto a weighted complete graph whose
 * terminal weights are those shares
 * (SCOTCH_archCmpltw), the part sizes are then repaired exactly by moving
 * the ranks that lose least, and every child is handled the same way.
 * Edges are weighted by the cost of cutting them at the vertex's level, so
 * that the costly levels decide the split.  Vertices whose children are all
 * slots need no partitioning: any order inside them costs the same.
 *
 * The fast variant (for dense patterns whose multisection would not fit
 * the budget) runs on a copy of the graph thinned to each rank's heaviest
 * partners, with Scotch's speed strategy: on fft2d at 16384 ranks (254
 * partners per rank) it takes a third of the time for the same J.
 *
 * Each Scotch call runs in a fresh context seeded from the seed and the
 * vertex id, so the result does not depend on call order or on any
 * process-wide Scotch state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"
#include "scotch_internal.h"

/* Sum of edge weights handed to Scotch (its cost sums are 32-bit; the
 * distance between two terminals of a complete graph is 1). */
#define MS_WEIGHT_TOTAL (1LL << 28)
/* Imbalance Scotch may leave; the repair makes sizes exact anyway.  On the
 * bisections of a wide vertex (split()) too tight a tolerance costs more
 * than the repair: Scotch's refinement cannot shift a boundary, the top
 * cuts of a mesh stay jagged and no later split tiles the pieces well
 * (mapbench: stencil2d at 16384 ranks 3 % above the bound at 0.01, on it
 * at 0.03).  Other sparse splits keep 0.01 (0.03 everywhere lost 24 % on
 * bintree in the fragmented allocation).  Dense subgraphs (all-to-all
 * blocks) gain from a looser one: with room to keep a block together, its
 * split follows the lighter edges (a2a64+ring 0.7 % closer to the bound
 * at 0.05). */
#define MS_BALANCE 0.01
#define MS_BALANCE_BISECT 0.03
#define MS_BALANCE_DENSE 0.05
/* Mean degree from which a subgraph counts as dense, and the largest one
 * that gets the looser tolerance: on the top splits of 16384 ranks it
 * only made Scotch slower (a2a64+ring 1.2 -> 1.6 s, same J). */
#define MS_DENSE_DEG 16
#define MS_DENSE_MAX_N 2048
/* Work units charged per vertex and per arc of each Scotch call (its run
 * time relative to one refinement edge evaluation, measured with mapbench
 * on stencils and fft2d up to 16384 ranks). */
#define MS_UNITS_PER_VERTEX 40
#define MS_UNITS_PER_ARC 12
/* ... and per rank (the many small calls near the leaves). */
#define MS_UNITS_PER_RANK 1500
/* Widest split asked of Scotch in one call; wider vertices are bisected
 * first (split()). */
#define MS_MAX_WAYS 32
/* The fast variant (cm_map_multisection's @p fast) thins dense subgraphs
 * to about this many heaviest partners per rank (cm_sgraph_build). */
#define MS_FAST_DEG 32
/* ... which costs about this many units per entry of the full graph. */
#define MS_UNITS_PER_THIN_ENTRY 4

/* One worker's view of a multisection (cm_walk): the shared problem and
 * mapping, and its own scratch. */
typedef struct ms {
    const cm_problem_t *p;
    const cm_tree_t *t;
    uint64_t seed;
    int *map;
    cm_budget_t *budget;
    int *local;        /* [n] scratch, -1 */
    double *conn;      /* [max children] scratch */
    int flags;         /* Scotch strategy flags */
} ms_t;

/* Relative capacity of every child: sum over its slots of the product of
 * the speeds on the path from the child down to the slot. */
static double vertex_capacity(const cm_tree_t *t, int v, double speed)
{
    speed *= cm_tree_vertex_speed(t, v);
    int nc = cm_tree_vertex_nchildren(t, v);
    if (nc == 0)
        return speed;
    double s = 0;
    for (int k = 0; k < nc; k++)
        s += vertex_capacity(t, cm_tree_vertex_child(t, v, k), speed);
    return s;
}

int cm_place_direct(const cm_tree_t *t, int v, const int *ranks, int count,
                    int *map, int *only, cm_error_t *err)
{
    int nc = cm_tree_vertex_nchildren(t, v), first, nslots;
    *only = -1;
    if (count == 0)
        return 1;
    cm_tree_vertex_slots(t, v, &first, &nslots);
    if (count > nslots)
        return cm_error_set(err, "cm_place_direct: tree vertex %d: %d ranks "
                            "do not fit on its %d slots", v, count, nslots);
    if (nc == 0) {
        map[ranks[0]] = first;
        return 1;
    }
    int all_leaves = 1;
    for (int k = 0; k < nc && all_leaves; k++)
        all_leaves = cm_tree_vertex_nchildren(t, cm_tree_vertex_child(t, v, k)) == 0;
    if (all_leaves) {
        for (int i = 0; i < count; i++)
            map[ranks[i]] = first + i;
        return 1;
    }
    if (nc == 1)
        *only = cm_tree_vertex_child(t, v, 0);
    return 0;
}

int cm_child_shares(const cm_tree_t *t, int v, int count, int *out,
                    cm_error_t *err)
{
    int nc = cm_tree_vertex_nchildren(t, v), first;
    int *cap = malloc(sizeof(int) * (size_t)(nc ? nc : 1));
    double *speed = malloc(sizeof(double) * (size_t)(nc ? nc : 1));
    if (!cap || !speed) {
        free(cap), free(speed);
        return cm_error_set(err, "out of memory for %d children", nc);
    }
    /* A child's speed is the mean speed of its slots, so that its share
     * follows slots x speed however deep the speeds were set. */
    for (int k = 0; k < nc; k++) {
        int c = cm_tree_vertex_child(t, v, k);
        cm_tree_vertex_slots(t, c, &first, &cap[k]);
        speed[k] = cap[k] > 0 ? vertex_capacity(t, c, 1.0) / cap[k] : 1.0;
    }
    int rc = cm_capacity_shares(count, cap, speed, nc, out, err);
    free(cap), free(speed);
    return rc;
}

int cm_child_parts(const cm_tree_t *t, int v, int count, int *child, int *size,
                   cm_error_t *err)
{
    if (cm_child_shares(t, v, count, size, err) < 0)
        return -1;
    /* Compacted in place: entry k is read at index c >= k before entry k
     * is written. */
    int k = 0;
    for (int c = 0; c < cm_tree_vertex_nchildren(t, v); c++)
        if (size[c] > 0) {
            child[k] = c;
            size[k++] = size[c];
        }
    return k;
}

/* A symmetric pseudo-random number in [0, 1) for the pair {i, j}: spreads
 * the thinning evenly over partners of equal weight. */
static double pair_jitter(int i, int j)
{
    uint64_t a = (uint64_t)(i < j ? i : j), c = (uint64_t)(i < j ? j : i);
    uint64_t x = (a << 32 | c) * 0x9e3779b97f4a7c15ULL;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 32;
    return (double)(x >> 11) * 0x1p-53;
}

/* The k-th largest of v[0..len-1] (0-based k < len); reorders v. */
static double kth_largest(double *v, int len, int k)
{
    int lo = 0, hi = len - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] > pivot)
                i++;
            while (v[j] < pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return v[k];
}

/* The problem's symmetric graph thinned to the heaviest partners: an edge
 * stays when it is among the @p maxdeg heaviest of either end (priced at
 * the top level, equal weights ordered by pair_jitter), so every rank keeps
 * maxdeg .. 2 maxdeg partners and the graph stays symmetric.  The partition
 * follows the heavy structure at a fraction of the time (fft2d at 16384
 * ranks has 254 partners per rank). */
static cm_matrix_t *thin_graph(const cm_problem_t *p, int maxdeg,
                               cm_error_t *err)
{
    int n = p->n, maxlen = 0;
    const int *cols;
    const double *b, *m;
    int len;
    for (int i = 0; i < n; i++) {
        cm_matrix_row(p->sym, i, &cols, &b, &m, &len);
        maxlen = len > maxlen ? len : maxlen;
    }
    double *thr = malloc(sizeof(double) * (size_t)n);
    double *sc = malloc(sizeof(double) * (size_t)(maxlen ? maxlen : 1));
    cm_builder_t *bld = cm_builder_new(n, err);
    cm_matrix_t *out = NULL;
    if (!thr || !sc || !bld) {
        if (bld)
            cm_error_set(err, "multisection: out of memory for %d ranks", n);
        goto done;
    }
    int raw = 1;
    for (int l = 0; l < p->costs.nlevels; l++)
        raw &= !(p->costs.cb[l] > 0) && !(p->costs.cm[l] > 0);
#define SCORE(i, k) ((raw ? b[k] + m[k] : cm_edge_cost(p, b[k], m[k], 0)) * \
                     (1 + 1e-9 * pair_jitter(i, cols[k])))
    for (int i = 0; i < n; i++) {
        cm_matrix_row(p->sym, i, &cols, &b, &m, &len);
        for (int k = 0; k < len; k++)
            sc[k] = SCORE(i, k);
        thr[i] = len > maxdeg ? kth_largest(sc, len, maxdeg - 1) : -INFINITY;
    }
    for (int i = 0; i < n; i++) {
        cm_matrix_row(p->sym, i, &cols, &b, &m, &len);
        for (int k = 0; k < len; k++) {
            double x = SCORE(i, k);
            if ((x >= thr[i] || x >= thr[cols[k]]) &&
                cm_builder_add(bld, i, cols[k], b[k], m[k], err) < 0)
                goto done;
        }
    }
#undef SCORE
    cm_builder_set_has_msgs(bld, cm_matrix_has_msgs(p->sym));
    out = cm_builder_finish(bld, err);
done:
    cm_builder_free(bld);
    free(thr);
    free(sc);
    return out;
}

/* Make the part sizes exactly @p size: while a part is over its size, move
 * the rank of an over-full part to an under-full part that loses the least
 * connection (internal edges of @p g). */
static void repair_sizes(ms_t *s, const cm_sgraph_t *g, int k, const int *size,
                         SCOTCH_Num *part)
{
    int n = (int)g->n;
    int *cnt = calloc((size_t)k, sizeof(int));
    double *conn = s->conn;
    if (!cnt)
        return;
    for (int i = 0; i < n; i++)
        cnt[part[i]]++;
    for (;;) {
        int over = 0;
        for (int j = 0; j < k; j++)
            over |= cnt[j] > size[j];
        if (!over)
            break;
        double best = -INFINITY;
        int bi = -1, bj = -1;
        for (int i = 0; i < n; i++) {
            int pi = (int)part[i];
            if (cnt[pi] <= size[pi])
                continue;
            for (SCOTCH_Num a = g->vert[i]; a < g->vert[i + 1]; a++)
                conn[part[g->edge[a]]] += (double)g->edlo[a];
            for (int j = 0; j < k; j++)
                if (cnt[j] < size[j] && conn[j] - conn[pi] > best) {
                    best = conn[j] - conn[pi];
                    bi = i;
                    bj = j;
                }
            for (SCOTCH_Num a = g->vert[i]; a < g->vert[i + 1]; a++)
                conn[part[g->edge[a]]] = 0;
        }
        cm_budget_add(s->budget, (uint64_t)g->narcs + (uint64_t)n);
        if (bi < 0)
            break;   /* cannot happen: sizes sum to n */
        cnt[part[bi]]--;
        part[bi] = bj;
        cnt[bj]++;
    }
    free(cnt);
}

/* Split @p count ranks into @p k parts of exactly @p size (sum = count);
 * @p salt tells the calls at one vertex apart for the seed. */
static int partition(ms_t *s, int v, uint64_t salt, const int *ranks,
                     int count, int k, const int *size, SCOTCH_Num *part,
                     cm_error_t *err)
{
    cm_sgraph_t g;
    int level = cm_tree_vertex_level(s->t, v);
    if (cm_sgraph_build(s->p, ranks, count, level, MS_WEIGHT_TOTAL, s->local, &g,
                        err) < 0)
        return -1;
    cm_budget_add(s->budget, MS_UNITS_PER_ARC * (uint64_t)g.narcs +
                                 MS_UNITS_PER_VERTEX * (uint64_t)count);
    int rc = 0;
    if (g.narcs == 0) {
        /* No communication inside: any split is as good; keep rank order. */
        int j = 0, filled = 0;
        for (int i = 0; i < count; i++) {
            while (filled == size[j]) {
                j++;
                filled = 0;
            }
            part[i] = j;
            filled++;
        }
        cm_sgraph_free(&g);
        return 0;
    }
    SCOTCH_Graph graph, bound;
    SCOTCH_Arch arch;
    SCOTCH_Strat strat;
    SCOTCH_Context ctx;
    SCOTCH_Num *velo = malloc(sizeof(SCOTCH_Num) * (size_t)k);
    int have_graph = 0, have_bound = 0, have_arch = 0, have_strat = 0, have_ctx = 0;
    const char *call = NULL;
    if (!velo) {
        rc = cm_error_set(err, "multisection: out of memory");
        goto out;
    }
    for (int j = 0; j < k; j++)
        velo[j] = size[j];
#define TRY(expr, name) do { if ((expr) != 0) { call = name; goto fail; } } while (0)
    TRY(SCOTCH_graphInit(&graph), "SCOTCH_graphInit");
    have_graph = 1;
    TRY(SCOTCH_graphBuild(&graph, 0, g.n, g.vert, NULL, NULL, NULL, g.narcs, g.edge,
                          g.edlo), "SCOTCH_graphBuild");
    TRY(SCOTCH_archInit(&arch), "SCOTCH_archInit");
    have_arch = 1;
    TRY(SCOTCH_archCmpltw(&arch, k, velo), "SCOTCH_archCmpltw");
    if (cm_scotch_context_init(&ctx, s->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)v +
                               salt * 0xbf58476d1ce4e5b9ULL, err) < 0) {
        rc = -1;
        goto out;
    }
    have_ctx = 1;
    TRY(SCOTCH_contextBindGraph(&ctx, &graph, &bound), "SCOTCH_contextBindGraph");
    have_bound = 1;
    TRY(SCOTCH_stratInit(&strat), "SCOTCH_stratInit");
    have_strat = 1;
    int dense = g.narcs >= (SCOTCH_Num)MS_DENSE_DEG * g.n && g.n <= MS_DENSE_MAX_N;
    double balance = dense ? MS_BALANCE_DENSE
                   : k == 2 ? MS_BALANCE_BISECT : MS_BALANCE;
    TRY(SCOTCH_stratGraphMapBuild(&strat, s->flags, k, balance),
        "SCOTCH_stratGraphMapBuild");
    TRY(SCOTCH_graphMap(&bound, &arch, &strat, part), "SCOTCH_graphMap");
#undef TRY
    for (int i = 0; i < count; i++)
        if (part[i] < 0 || part[i] >= k) {
            rc = cm_error_set(err, "multisection: Scotch put vertex %d in part %d, "
                              "expected 0..%d", i, (int)part[i], k - 1);
            goto out;
        }
    repair_sizes(s, &g, k, size, part);
    goto out;
fail:
    rc = cm_error_set(err, "multisection: %s failed (Scotch printed the reason "
                      "on stderr)", call);
out:
    if (have_strat)
        SCOTCH_stratExit(&strat);
    if (have_bound)
        SCOTCH_graphExit(&bound);
    if (have_ctx)
        SCOTCH_contextExit(&ctx);
    if (have_arch)
        SCOTCH_archExit(&arch);
    if (have_graph)
        SCOTCH_graphExit(&graph);
    free(velo);
    cm_sgraph_free(&g);
    return rc;
}

/* The children of a vertex that a task is to split its ranks among: k of
 * them, from position c0 of the vertex's list of children with a share
 * (which tells the calls at one vertex apart for the seed); child[j] is
 * the child's index under the vertex, size[j] its share.  A walk task's
 * data (cm_walk_child): malloc()ed, freed by the task. */
typedef struct ms_range {
    int c0, k;
    int *child, *size;    /* both inside this allocation */
} ms_range_t;

/* A range with room for @p k children, to be filled by the caller. */
static ms_range_t *range_alloc(int c0, int k, cm_error_t *err)
{
    ms_range_t *r = malloc(sizeof *r + 2 * sizeof(int) * (size_t)(k ? k : 1));
    if (!r) {
        cm_error_set(err, "multisection: out of memory");
        return NULL;
    }
    r->c0 = c0;
    r->k = k;
    r->child = (int *)(r + 1);
    r->size = r->child + (k ? k : 1);
    return r;
}

static ms_range_t *range_new(int c0, int k, const int *child, const int *size,
                             cm_error_t *err)
{
    ms_range_t *r = range_alloc(c0, k, err);
    if (!r)
        return NULL;
    memcpy(r->child, child, sizeof(int) * (size_t)k);
    memcpy(r->size, size, sizeof(int) * (size_t)k);
    return r;
}

/* Split the @p count ranks of vertex @p v among the children of @p r
 * (owned: freed here), and hand each child its part.  A range wider than
 * one Scotch call takes (MS_MAX_WAYS) is bisected first, each half going on
 * as a task of its own: all children of a vertex are equally far apart,
 * so the grouping costs nothing, while one Scotch call for hundreds of
 * parts (512 nodes at 16384 ranks) is both slow and poor (mapbench: 10 %
 * above the static mapping on stencil2d.16384, and 5 s on fft2d.16384).
 * The halves are independent, so a wide vertex's bisections run on all
 * the walk's threads. */
static int split(cm_walk_t *w, ms_t *s, int v, int *ranks, int count,
                 ms_range_t *r, cm_error_t *err)
{
    int k = r->k, kk = k, two[2];
    const int *sz = r->size;
    SCOTCH_Num *part = malloc(sizeof(SCOTCH_Num) * (size_t)(count ? count : 1));
    int *order = malloc(sizeof(int) * (size_t)(count ? count : 1));
    ms_range_t *half[2] = {NULL, NULL};
    int rc = -1;
    if (!part || !order) {
        cm_error_set(err, "multisection: out of memory");
        goto out;
    }
    if (k > MS_MAX_WAYS) {
        two[0] = 0;
        for (int j = 0; j < k / 2; j++)
            two[0] += r->size[j];
        two[1] = count - two[0];
        kk = 2;
        sz = two;
    }
    uint64_t salt = (uint64_t)r->c0 * 4099u + (uint64_t)k;
    if (partition(s, v, salt, ranks, count, kk, sz, part, err) < 0)
        goto out;
    /* Group the ranks by part, stably. */
    int start[MS_MAX_WAYS + 1];
    int off = 0;
    for (int j = 0; j < kk; j++) {
        start[j] = off;
        off += sz[j];
    }
    for (int i = 0; i < count; i++)
        order[start[part[i]]++] = ranks[i];
    memcpy(ranks, order, sizeof(int) * (size_t)count);
    free(part);
    free(order);
    part = NULL;
    order = NULL;
    if (kk == k) {
        off = 0;
        for (int j = 0; j < k; j++) {
            if (cm_walk_child(w, s, cm_tree_vertex_child(s->t, v, r->child[j]),
                              ranks + off, r->size[j], NULL, err) < 0)
                goto out;
            off += r->size[j];
        }
        rc = 0;
        goto out;
    }
    half[0] = range_new(r->c0, k / 2, r->child, r->size, err);
    half[1] = range_new(r->c0 + k / 2, k - k / 2, r->child + k / 2,
                        r->size + k / 2, err);
    if (!half[0] || !half[1]) {
        free(half[0]);
        free(half[1]);
        goto out;
    }
    rc = cm_walk_child(w, s, v, ranks, two[0], half[0], err);
    if (rc == 0)
        rc = cm_walk_child(w, s, v, ranks + two[0], two[1], half[1], err);
    else
        free(half[1]);
out:
    free(part);
    free(order);
    free(r);
    return rc;
}

/* The walk's step (cm_walk_fn): split the ranks of vertex @p v among its
 * children and hand each child its part; with @p data, a part of that
 * split left to do (split()). */
static int place(cm_walk_t *w, void *worker, int v, int *ranks, int count,
                 void *data, cm_error_t *err)
{
    ms_t *s = worker;
    if (data)
        return split(w, s, v, ranks, count, data, err);
    const cm_tree_t *t = s->t;
    int only, direct = cm_place_direct(t, v, ranks, count, s->map, &only, err);
    if (direct != 0)
        return direct < 0 ? -1 : 0;
    if (only >= 0)
        return place(w, s, only, ranks, count, NULL, err);
    /* The range is filled in place: one allocation per vertex. */
    ms_range_t *r = range_alloc(0, cm_tree_vertex_nchildren(t, v), err);
    if (!r)
        return -1;
    int k = cm_child_parts(t, v, count, r->child, r->size, err);
    if (k < 0) {
        free(r);
        return -1;
    }
    r->k = k;
    if (k == 1) {
        int only_child = cm_tree_vertex_child(t, v, r->child[0]);
        free(r);
        return place(w, s, only_child, ranks, count, NULL, err);
    }
    return split(w, s, v, ranks, count, r, err);
}

int cm_map_multisection(const cm_problem_t *p, uint64_t seed, int fast, int threads,
                        int *map, cm_budget_t *b, cm_error_t *err)
{
    int n = p->n;
    if (n > p->nslots)
        return cm_error_set(err, "multisection: %d ranks do not fit on %d slots",
                            n, p->nslots);
    int maxc = 1;
    for (int v = 0; v < cm_tree_nvertices(p->tree); v++)
        if (cm_tree_vertex_nchildren(p->tree, v) > maxc)
            maxc = cm_tree_vertex_nchildren(p->tree, v);
    /* The fast variant works on a thinned copy of the graph. */
    cm_problem_t thin;
    cm_matrix_t *thin_sym = NULL;
    if (fast && cm_matrix_nnz(p->sym) > 2 * (size_t)MS_FAST_DEG * (size_t)n) {
        thin_sym = thin_graph(p, MS_FAST_DEG, err);
        if (!thin_sym)
            return -1;
        cm_budget_add(b, MS_UNITS_PER_THIN_ENTRY * (uint64_t)cm_matrix_nnz(p->sym));
        thin = *p;
        thin.sym = thin_sym;
        p = &thin;
    }
    threads = cm_walk_threads(threads, n);
    ms_t *s = calloc((size_t)threads, sizeof *s);
    void **scratch = calloc((size_t)threads, sizeof *scratch);
    int *ranks = malloc(sizeof(int) * (size_t)(n ? n : 1));
    int rc = -1;
    if (!s || !scratch || !ranks) {
        cm_error_set(err, "multisection: out of memory for %d ranks", n);
        goto out;
    }
    for (int k = 0; k < threads; k++) {
        s[k] = (ms_t){p, p->tree, seed, map, b, NULL, NULL,
                      fast ? SCOTCH_STRATSPEED | SCOTCH_STRATBALANCE
                           : SCOTCH_STRATQUALITY | SCOTCH_STRATBALANCE};
        s[k].local = malloc(sizeof(int) * (size_t)(n ? n : 1));
        s[k].conn = calloc((size_t)maxc, sizeof(double));
        if (!s[k].local || !s[k].conn) {
            cm_error_set(err, "multisection: out of memory for %d ranks", n);
            goto out;
        }
        for (int i = 0; i < n; i++)
            s[k].local[i] = -1;
        scratch[k] = &s[k];
    }
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    /* The root is vertex 0 (added first). */
    rc = cm_walk(threads, place, scratch, 0, ranks, n, err);
    cm_budget_add(b, (uint64_t)MS_UNITS_PER_RANK * (uint64_t)n);
out:
    for (int k = 0; s && k < threads; k++) {
        free(s[k].local);
        free(s[k].conn);
    }
    free(s);
    free(scratch);
    free(ranks);
    cm_matrix_free(thin_sym);
    return rc;
}
