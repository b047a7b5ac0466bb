/* exact.c -- see exact.h.
 *
 * Vertices are grouped into classes: two vertices are in the same class when
 * they have the same level and the same multiset of child classes, i.e. when
 * their subtrees are identical up to the order of children, costs included.
 * For each class c (children before parents) and every set S of ranks that
 * fits, F_c(S) is the least cost of the pairs inside S when S is placed in
 * one vertex of class c:
 *
 *   F_c(S) = W_c(S) + min over splits S = T_1 + ... + T_k of
 *            sum_i (F_{kid i}(T_i) - W_c(T_i))
 *
 * where W_c(T) prices all pairs inside T at c's level: pairs that the split
 * keeps inside one child are re-priced by that child, the others cost c's
 * level.  The children are taken in runs of one class; a run of m identical
 * children is filled bin by bin, the newest bin always holding the lowest
 * rank still to place, so that each split over identical bins is tried once
 * (and a run never uses more than n bins).  Runs of different classes are
 * then merged by a plain subset convolution.  Every table keeps the set it
 * gave to the newest bin or run, which is how the optimal mapping is read
 * back from the root down. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exact.h"

typedef uint32_t mask_t;

/* val[S] for every set S (INFINITY where S cannot be placed); pick[S] the
 * part of S given to the newest bin or run (NULL when there is no choice). */
typedef struct table {
    double *val;
    mask_t *pick;
} table_t;

typedef struct run {
    int kid;      /* class of the children in this run */
    int mult;     /* how many of them the vertex has */
    int bins;     /* min(mult, n): more bins than ranks are never used */
    table_t *h;   /* h[j], 1 <= j <= bins: best split over j of those children */
    table_t g;    /* best split over this run and the runs before it;
                     run 0: the same arrays as h[bins] */
} run_t;

typedef struct klass {
    int level, cap, nkids;
    int *kids;    /* child classes, ascending */
    int nruns;
    run_t *runs;
    double *F;    /* F_c */
} klass_t;

typedef struct solver {
    const cm_tree_t *t;
    int n;
    mask_t full;
    size_t nsets;
    double *B, *M;          /* bytes / messages between the ranks of S */
    unsigned char *pop;     /* |S| */
    int nclasses, maxclasses;
    klass_t *cls;
    int *vclass;            /* class of every tree vertex */
    int root;
    int *map;
} solver_t;

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* Runs of equal classes in the sorted kid list. */
static int make_runs(klass_t *k, int n)
{
    k->nruns = 0;
    k->runs = calloc((size_t)(k->nkids > 0 ? k->nkids : 1), sizeof *k->runs);
    if (!k->runs)
        return -1;
    for (int i = 0; i < k->nkids;) {
        int j = i;
        while (j < k->nkids && k->kids[j] == k->kids[i])
            j++;
        run_t *r = &k->runs[k->nruns++];
        r->kid = k->kids[i];
        r->mult = j - i;
        r->bins = min_int(r->mult, n);
        i = j;
    }
    return 0;
}

/* Class of vertex @p v (children first); -1 when out of memory. */
static int classify(solver_t *s, int v)
{
    const cm_tree_t *t = s->t;
    int nk = cm_tree_vertex_nchildren(t, v);
    int *kids = malloc(sizeof(int) * (size_t)(nk > 0 ? nk : 1));
    if (!kids)
        return -1;
    for (int i = 0; i < nk; i++) {
        kids[i] = classify(s, cm_tree_vertex_child(t, v, i));
        if (kids[i] < 0) {
            free(kids);
            return -1;
        }
    }
    qsort(kids, (size_t)nk, sizeof(int), cmp_int);
    int level = cm_tree_vertex_level(t, v);
    int first, cap;
    cm_tree_vertex_slots(t, v, &first, &cap);
    for (int c = 0; c < s->nclasses; c++) {
        klass_t *k = &s->cls[c];
        if (k->level == level && k->nkids == nk &&
            (nk == 0 || memcmp(k->kids, kids, sizeof(int) * (size_t)nk) == 0)) {
            free(kids);
            s->vclass[v] = c;
            return c;
        }
    }
    if (s->nclasses == s->maxclasses) {
        int nmax = s->maxclasses ? 2 * s->maxclasses : 8;
        klass_t *nc = realloc(s->cls, sizeof *nc * (size_t)nmax);
        if (!nc) {
            free(kids);
            return -1;
        }
        s->cls = nc;
        s->maxclasses = nmax;
    }
    klass_t *k = &s->cls[s->nclasses];
    memset(k, 0, sizeof *k);
    k->level = level;
    k->cap = cap;
    k->nkids = nk;
    k->kids = kids;
    if (make_runs(k, s->n) < 0) {
        free(kids);
        return -1;
    }
    s->vclass[v] = s->nclasses;
    return s->nclasses++;
}

static void solver_free(solver_t *s)
{
    for (int c = 0; c < s->nclasses; c++) {
        klass_t *k = &s->cls[c];
        for (int r = 0; r < k->nruns; r++) {
            run_t *ru = &k->runs[r];
            if (ru->h)
                for (int j = 1; j <= ru->bins; j++) {
                    free(ru->h[j].val);
                    free(ru->h[j].pick);
                }
            free(ru->h);
            if (r > 0) {
                free(ru->g.val);
                free(ru->g.pick);
            }
        }
        free(k->runs);
        free(k->kids);
        free(k->F);
    }
    free(s->cls);
    free(s->vclass);
    free(s->B);
    free(s->M);
    free(s->pop);
}

/* Classes of the tree of @p t for n ranks. */
static int solver_init(solver_t *s, const cm_tree_t *t, int n)
{
    memset(s, 0, sizeof *s);
    s->t = t;
    s->n = n;
    s->nsets = (size_t)1 << n;
    s->full = (mask_t)(s->nsets - 1);
    int nv = cm_tree_nvertices(t);
    s->vclass = malloc(sizeof(int) * (size_t)(nv > 0 ? nv : 1));
    if (!s->vclass || nv < 1)
        return -1;
    s->root = -1;
    for (int v = 0; v < nv && s->root < 0; v++)
        if (cm_tree_vertex_parent(t, v) < 0)
            s->root = v;
    if (s->root < 0 || classify(s, s->root) < 0)
        return -1;
    return 0;
}

/* Largest set each table of class @p k must hold. */
static int run_limit(const solver_t *s, const klass_t *k, int r, int bins)
{
    int cap_kid = s->cls[k->runs[r].kid].cap;
    long lim = (long)bins * cap_kid;
    return (int)(lim < s->n ? lim : s->n);
}

static int g_limit(const solver_t *s, const klass_t *k, int r)
{
    long lim = 0;
    for (int q = 0; q <= r; q++)
        lim += (long)k->runs[q].mult * s->cls[k->runs[q].kid].cap;
    return (int)(lim < s->n ? lim : s->n);
}

/* Steps of a convolution over all sets of size <= lim: each set S costs
 * 2^|S| submasks (2^(|S|-1) when restricted to those holding min S). */
static double conv_work(int n, int lim, int restricted, int only_full)
{
    if (only_full)
        return ldexp(1.0, restricted ? n - 1 : n);
    double w = 0, binom = 1;
    for (int k = 0; k <= lim; k++) {
        w += binom * ldexp(1.0, k > 0 && restricted ? k - 1 : k);
        binom = binom * (n - k) / (k + 1);
    }
    return w;
}

static double solver_work(const solver_t *s)
{
    double w = 0;
    for (int c = 0; c < s->nclasses; c++) {
        const klass_t *k = &s->cls[c];
        int is_root = c == s->vclass[s->root];
        for (int r = 0; r < k->nruns; r++) {
            const run_t *ru = &k->runs[r];
            for (int j = 2; j <= ru->bins; j++) {
                int last = r == 0 && k->nruns == 1 && j == ru->bins;
                w += conv_work(s->n, run_limit(s, k, r, j), 1, is_root && last);
            }
            if (r > 0)
                w += conv_work(s->n, g_limit(s, k, r), 0, is_root && r == k->nruns - 1);
        }
    }
    return w;
}

/* Price of the pairs inside S at @p level (0 x infinite cost is 0). */
static double level_price(const solver_t *s, int level, mask_t S)
{
    double cb = cm_tree_level_byte_cost(s->t, level);
    double cm = cm_tree_level_msg_cost(s->t, level);
    double p = 0;
    if (s->B[S] != 0)
        p += cb * s->B[S];
    if (s->M[S] != 0)
        p += cm * s->M[S];
    return p;
}

/* Pair volumes of every set, from the dense symmetric pair matrix. */
static int solver_volumes(solver_t *s, const cm_matrix_t *m)
{
    int n = s->n;
    double *pb = calloc((size_t)n * n * 2, sizeof *pb);
    s->B = calloc(s->nsets, sizeof *s->B);
    s->M = calloc(s->nsets, sizeof *s->M);
    s->pop = calloc(s->nsets, 1);
    if (!pb || !s->B || !s->M || !s->pop) {
        free(pb);
        return -1;
    }
    double *pm = pb + (size_t)n * n;
    for (int i = 0; i < n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        for (int e = 0; e < len; e++) {
            int j = cols[e];
            if (j == i)
                continue; /* a self-send costs the same wherever i goes */
            pb[(size_t)i * n + j] += bytes[e];
            pb[(size_t)j * n + i] += bytes[e];
            if (msgs) {
                pm[(size_t)i * n + j] += msgs[e];
                pm[(size_t)j * n + i] += msgs[e];
            }
        }
    }
    for (size_t S = 1; S < s->nsets; S++) {
        int lo = __builtin_ctz((unsigned)S);
        mask_t R = (mask_t)(S & (S - 1));
        double b = s->B[R], mm = s->M[R];
        for (mask_t x = R; x; x &= x - 1) {
            int j = __builtin_ctz(x);
            b += pb[(size_t)lo * n + j];
            mm += pm[(size_t)lo * n + j];
        }
        s->B[S] = b;
        s->M[S] = mm;
        s->pop[S] = (unsigned char)(s->pop[R] + 1);
    }
    free(pb);
    return 0;
}

static int table_alloc(table_t *tb, size_t nsets, int with_pick)
{
    tb->val = malloc(sizeof *tb->val * nsets);
    tb->pick = with_pick ? malloc(sizeof *tb->pick * nsets) : NULL;
    return tb->val && (!with_pick || tb->pick) ? 0 : -1;
}

/* out(S) = min over T within S of a(T) + b(S \ T); with @p restricted, T
 * must hold the lowest rank of S (a and b are then splits over identical
 * bins and any split can be reordered so).  Sets above @p lim are left
 * out; with @p only_full only the full set is computed. */
static void convolve(const solver_t *s, const double *a, const double *b,
                     table_t *out, int lim, int restricted, int only_full)
{
    for (size_t i = 0; i < s->nsets; i++) {
        out->val[i] = INFINITY;
        out->pick[i] = 0;
    }
    for (size_t i = only_full ? s->nsets - 1 : 0; i < s->nsets; i++) {
        mask_t S = (mask_t)i;
        if (s->pop[S] > lim)
            continue;
        mask_t lo = restricted ? S & (~S + 1) : 0;
        mask_t R = S ^ lo;
        double best = INFINITY;
        mask_t arg = 0;
        mask_t x = R;
        for (;;) {
            mask_t T = x | lo;
            double v = a[T] + b[S ^ T];
            if (v < best) {
                best = v;
                arg = T;
            }
            if (x == 0)
                break;
            x = (x - 1) & R;
        }
        out->val[S] = best;
        out->pick[S] = arg;
    }
}

static int solve_class(solver_t *s, int c)
{
    klass_t *k = &s->cls[c];
    int n = s->n;
    int is_root = c == s->vclass[s->root];
    k->F = malloc(sizeof *k->F * s->nsets);
    if (!k->F)
        return -1;
    int caplim = min_int(k->cap, n);
    if (k->nkids == 0) { /* a slot: empty or one rank */
        for (size_t S = 0; S < s->nsets; S++)
            k->F[S] = s->pop[S] <= min_int(caplim, 1) ? 0.0 : INFINITY;
        return 0;
    }
    const double *G = NULL;
    for (int r = 0; r < k->nruns; r++) {
        run_t *ru = &k->runs[r];
        const klass_t *kid = &s->cls[ru->kid];
        ru->h = calloc((size_t)ru->bins + 1, sizeof *ru->h);
        if (!ru->h || table_alloc(&ru->h[1], s->nsets, 0) < 0)
            return -1;
        int kidlim = min_int(kid->cap, n);
        for (size_t S = 0; S < s->nsets; S++)
            ru->h[1].val[S] = s->pop[S] <= kidlim
                                  ? kid->F[S] - level_price(s, k->level, (mask_t)S)
                                  : INFINITY;
        for (int j = 2; j <= ru->bins; j++) {
            if (table_alloc(&ru->h[j], s->nsets, 1) < 0)
                return -1;
            int last = r == 0 && k->nruns == 1 && j == ru->bins;
            convolve(s, ru->h[1].val, ru->h[j - 1].val, &ru->h[j],
                     run_limit(s, k, r, j), 1, is_root && last);
        }
        if (r == 0) {
            ru->g = ru->h[ru->bins];
        } else {
            if (table_alloc(&ru->g, s->nsets, 1) < 0)
                return -1;
            convolve(s, ru->h[ru->bins].val, G, &ru->g, g_limit(s, k, r), 0,
                     is_root && r == k->nruns - 1);
        }
        G = ru->g.val;
    }
    for (size_t S = 0; S < s->nsets; S++)
        k->F[S] = s->pop[S] <= caplim && G[S] < INFINITY
                      ? G[S] + level_price(s, k->level, (mask_t)S)
                      : INFINITY;
    return 0;
}

typedef struct kid_order {
    int cls, idx, v;
} kid_order_t;

static int cmp_kid(const void *a, const void *b)
{
    const kid_order_t *x = a, *y = b;
    if (x->cls != y->cls)
        return (x->cls > y->cls) - (x->cls < y->cls);
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Put the ranks of @p S into vertex @p v as the tables chose. */
static int place(solver_t *s, int v, mask_t S)
{
    if (S == 0)
        return 0;
    const klass_t *k = &s->cls[s->vclass[v]];
    if (k->nkids == 0) {
        int first, count;
        cm_tree_vertex_slots(s->t, v, &first, &count);
        s->map[__builtin_ctz(S)] = first;
        return 0;
    }
    kid_order_t *ch = malloc(sizeof *ch * (size_t)k->nkids);
    if (!ch)
        return -1;
    for (int i = 0; i < k->nkids; i++) {
        ch[i].v = cm_tree_vertex_child(s->t, v, i);
        ch[i].cls = s->vclass[ch[i].v];
        ch[i].idx = i;
    }
    qsort(ch, (size_t)k->nkids, sizeof *ch, cmp_kid);
    mask_t rest = S;
    int pos = k->nkids, rc = 0;
    for (int r = k->nruns - 1; r >= 0 && rc == 0; r--) {
        const run_t *ru = &k->runs[r];
        mask_t part = r > 0 ? ru->g.pick[rest] : rest;
        rest ^= part;
        pos -= ru->mult;
        for (int j = ru->bins; j >= 2 && rc == 0; j--) {
            mask_t T = ru->h[j].pick[part];
            rc = place(s, ch[pos + j - 1].v, T);
            part ^= T;
        }
        if (rc == 0)
            rc = place(s, ch[pos].v, part);
    }
    free(ch);
    return rc;
}

double bench_exact_work(const cm_matrix_t *m, const cm_tree_t *t)
{
    if (!m || !t)
        return -1;
    int n = cm_matrix_n(m);
    if (n < 1 || n > BENCH_EXACT_MAX_N)
        return -1;
    solver_t s;
    double w = solver_init(&s, t, n) == 0 ? solver_work(&s) : -1;
    solver_free(&s);
    return w;
}

/* The better of block and Scotch: what the caller gets when the optimum is
 * out of reach. */
static int fallback(const cm_matrix_t *m, const cm_tree_t *t, int *best_map,
                    double *best_J)
{
    int n = cm_matrix_n(m);
    int *alt = malloc(sizeof(int) * (size_t)n);
    if (!alt || cm_map_block(t, n, best_map, NULL) < 0) {
        free(alt);
        return -1;
    }
    double J = cm_cost(m, t, best_map);
    if (cm_map_scotch(m, t, 1, alt, NULL) == 0) {
        double Js = cm_cost(m, t, alt);
        if (Js < J) {
            J = Js;
            memcpy(best_map, alt, sizeof(int) * (size_t)n);
        }
    }
    free(alt);
    if (best_J)
        *best_J = J;
    return 1;
}

int bench_exact_optimum(const cm_matrix_t *m, const cm_tree_t *t,
                        double node_limit, int *best_map, double *best_J)
{
    if (!m || !t || !best_map)
        return -1;
    int n = cm_matrix_n(m);
    if (n < 1 || n > cm_tree_nslots(t))
        return -1;
    if (n > BENCH_EXACT_MAX_N)
        return fallback(m, t, best_map, best_J);
    solver_t s;
    int rc = solver_init(&s, t, n);
    if (rc == 0 && node_limit > 0 && solver_work(&s) > node_limit) {
        solver_free(&s);
        return fallback(m, t, best_map, best_J);
    }
    if (rc == 0)
        rc = solver_volumes(&s, m);
    /* Classes were created children first, so each finds its kids' F. */
    for (int c = 0; c < s.nclasses && rc == 0; c++)
        rc = solve_class(&s, c);
    if (rc == 0 && !(s.cls[s.vclass[s.root]].F[s.full] < INFINITY))
        rc = -1;
    if (rc == 0) {
        s.map = best_map;
        for (int i = 0; i < n; i++)
            best_map[i] = -1;
        rc = place(&s, s.root, s.full);
        for (int i = 0; i < n && rc == 0; i++)
            if (best_map[i] < 0)
                rc = -1;
    }
    solver_free(&s);
    if (rc < 0)
        return -1;
    if (best_J)
        *best_J = cm_cost(m, t, best_map);
    return 0;
}
