/* kmeans.c -- deterministic k-means (k-means++ seeding, Lloyd iterations),
 * the last step of CP-NSC.  Distances to the centres are computed for a
 * block of points at once as |x|^2 + |c|^2 - 2 x.c with one dgemm, which
 * keeps an iteration at O(n k d) flops but runs at BLAS speed. */
#include <cblas.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "spectral_internal.h"

/* Points per dgemm block: bounds the scratch to BLOCK x k doubles. */
#define BLOCK 2048

typedef struct kmeans_ws {
    const double *X;
    int n, d, k;
    double *C;     /* k x d centres */
    double *xx;    /* |x_i|^2 */
    double *cc;    /* |c_j|^2 */
    double *G;     /* BLOCK x k products */
    double *dist;  /* squared distance of each point to its centre */
    int *count;    /* points per cluster */
} kmeans_ws_t;

static double sqdist(const double *a, const double *b, int d)
{
    double s = 0.0;
    for (int t = 0; t < d; t++) {
        double e = a[t] - b[t];
        s += e * e;
    }
    return s;
}

/* k-means++: first centre uniform, then each next one drawn with
 * probability proportional to the squared distance to the nearest centre
 * chosen so far.  When every point already sits on a centre (fewer
 * distinct points than k) the draw falls back to uniform. */
static void seed_plusplus(kmeans_ws_t *w, cm_rng_t *rng, double *near)
{
    int n = w->n, d = w->d;
    int first = (int)cm_rng_below(rng, (uint64_t)n);
    memcpy(w->C, w->X + (size_t)first * d, sizeof(double) * d);
    for (int i = 0; i < n; i++)
        near[i] = sqdist(w->X + (size_t)i * d, w->C, d);
    for (int c = 1; c < w->k; c++) {
        double total = 0.0;
        for (int i = 0; i < n; i++)
            total += near[i];
        int pick = n - 1;
        if (total > 0.0) {
            double r = cm_rng_double(rng) * total, acc = 0.0;
            for (int i = 0; i < n; i++) {
                acc += near[i];
                if (near[i] > 0.0 && r < acc) {
                    pick = i;
                    break;
                }
            }
            /* Rounding can leave r >= acc at the end: take the last point
             * with positive weight. */
            while (near[pick] <= 0.0 && pick > 0)
                pick--;
        } else {
            pick = (int)cm_rng_below(rng, (uint64_t)n);
        }
        double *cent = w->C + (size_t)c * d;
        memcpy(cent, w->X + (size_t)pick * d, sizeof(double) * d);
        for (int i = 0; i < n; i++) {
            double e = sqdist(w->X + (size_t)i * d, cent, d);
            if (e < near[i])
                near[i] = e;
        }
    }
}

/* Assign every point to its nearest centre; a labelled point moves only
 * when another centre is strictly closer, so ties never oscillate.
 * Returns the number of points that changed cluster. */
static long assign(kmeans_ws_t *w, int *labels)
{
    int n = w->n, d = w->d, k = w->k;
    long changes = 0;
    for (int c = 0; c < k; c++)
        w->cc[c] = cblas_ddot(d, w->C + (size_t)c * d, 1, w->C + (size_t)c * d, 1);
    for (int i0 = 0; i0 < n; i0 += BLOCK) {
        int rows = n - i0 < BLOCK ? n - i0 : BLOCK;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, k, d, 1.0,
                    w->X + (size_t)i0 * d, d, w->C, d, 0.0, w->G, k);
        for (int r = 0; r < rows; r++) {
            int i = i0 + r;
            const double *g = w->G + (size_t)r * k;
            int best = labels[i];
            double bd = DBL_MAX;
            if (best >= 0)
                bd = w->xx[i] + w->cc[best] - 2.0 * g[best];
            for (int c = 0; c < k; c++) {
                double e = w->xx[i] + w->cc[c] - 2.0 * g[c];
                if (e < bd) {
                    bd = e;
                    best = c;
                }
            }
            if (best != labels[i]) {
                labels[i] = best;
                changes++;
            }
            w->dist[i] = bd > 0.0 ? bd : 0.0;
        }
    }
    return changes;
}

/* Give every empty cluster the point farthest from its centre among the
 * clusters that keep at least one point (lowest index on ties). */
static long fix_empty(kmeans_ws_t *w, int *labels)
{
    int n = w->n, d = w->d, k = w->k;
    long changes = 0;
    memset(w->count, 0, sizeof(int) * k);
    for (int i = 0; i < n; i++)
        w->count[labels[i]]++;
    for (int c = 0; c < k; c++) {
        if (w->count[c] > 0)
            continue;
        int far = -1;
        for (int i = 0; i < n; i++)
            if (w->count[labels[i]] >= 2 && (far < 0 || w->dist[i] > w->dist[far]))
                far = i;
        if (far < 0)
            break; /* n < k: cannot happen, the caller checks */
        w->count[labels[far]]--;
        labels[far] = c;
        w->count[c] = 1;
        w->dist[far] = 0.0;
        memcpy(w->C + (size_t)c * d, w->X + (size_t)far * d, sizeof(double) * d);
        changes++;
    }
    return changes;
}

static void update_centres(kmeans_ws_t *w, const int *labels)
{
    int n = w->n, d = w->d, k = w->k;
    memset(w->C, 0, sizeof(double) * (size_t)k * d);
    memset(w->count, 0, sizeof(int) * k);
    for (int i = 0; i < n; i++) {
        double *cent = w->C + (size_t)labels[i] * d;
        const double *x = w->X + (size_t)i * d;
        for (int t = 0; t < d; t++)
            cent[t] += x[t];
        w->count[labels[i]]++;
    }
    for (int c = 0; c < k; c++)
        if (w->count[c] > 0)
            for (int t = 0; t < d; t++)
                w->C[(size_t)c * d + t] /= w->count[c];
}

/* Number clusters in order of their smallest point. */
static void canonical_labels(int *labels, int n, int k, int *map)
{
    for (int c = 0; c < k; c++)
        map[c] = -1;
    int next = 0;
    for (int i = 0; i < n; i++) {
        if (map[labels[i]] < 0)
            map[labels[i]] = next++;
        labels[i] = map[labels[i]];
    }
}

int cm_kmeans(const double *X, int n, int d, int k, int restarts,
              uint64_t seed, int max_iter, int *labels, double *inertia,
              cm_error_t *err)
{
    if (!X || !labels || n < 1 || d < 1)
        return cm_error_set(err, "cm_kmeans: expected points and labels (n >= 1, d >= 1), got n=%d d=%d",
                            n, d);
    if (k < 1 || k > n)
        return cm_error_set(err, "cm_kmeans: expected 1 <= k <= n=%d, got k=%d",
                            n, k);
    if (restarts < 1 || max_iter < 1)
        return cm_error_set(err, "cm_kmeans: expected restarts >= 1 and max_iter >= 1, got %d and %d",
                            restarts, max_iter);

    kmeans_ws_t w = { .X = X, .n = n, .d = d, .k = k };
    int blk = n < BLOCK ? n : BLOCK;
    w.C = malloc(sizeof(double) * (size_t)k * d);
    w.xx = malloc(sizeof(double) * n);
    w.cc = malloc(sizeof(double) * k);
    w.G = malloc(sizeof(double) * (size_t)blk * k);
    w.dist = malloc(sizeof(double) * n);
    w.count = malloc(sizeof(int) * k);
    int *cur = malloc(sizeof(int) * n);
    if (!w.C || !w.xx || !w.cc || !w.G || !w.dist || !w.count || !cur) {
        free(w.C); free(w.xx); free(w.cc); free(w.G); free(w.dist);
        free(w.count); free(cur);
        return cm_error_set(err, "cm_kmeans: out of memory for %d points of "
                            "%d dimensions in %d clusters", n, d, k);
    }
    for (int i = 0; i < n; i++)
        w.xx[i] = cblas_ddot(d, X + (size_t)i * d, 1, X + (size_t)i * d, 1);

    cm_rng_t rng;
    cm_rng_seed(&rng, seed);
    double best = DBL_MAX;
    for (int run = 0; run < restarts; run++) {
        seed_plusplus(&w, &rng, w.dist);
        for (int i = 0; i < n; i++)
            cur[i] = -1;
        for (int it = 0;; it++) {
            long changes = assign(&w, cur);
            changes += fix_empty(&w, cur);
            if (changes == 0 || it + 1 >= max_iter)
                break;
            update_centres(&w, cur);
        }
        update_centres(&w, cur);
        double sse = 0.0;
        for (int i = 0; i < n; i++)
            sse += sqdist(X + (size_t)i * d, w.C + (size_t)cur[i] * d, d);
        if (run == 0 || sse < best) {
            best = sse;
            memcpy(labels, cur, sizeof(int) * n);
        }
    }
    canonical_labels(labels, n, k, w.count);
    if (inertia)
        *inertia = best;
    free(w.C); free(w.xx); free(w.cc); free(w.G); free(w.dist);
    free(w.count); free(cur);
    return 0;
}
