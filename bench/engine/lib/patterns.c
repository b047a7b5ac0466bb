/* patterns.c -- see patterns.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"


static const char *names[PAT_COUNT] = {
    "stencil2d", "stencil3d", "bintree", "a2a64+ring", "fft2d", "ring", "rgg3d",
};

const char *bench_pattern_name(bench_pattern_t p)
{
    return p < PAT_COUNT ? names[p] : "?";
}

bench_pattern_t bench_pattern_find(const char *name)
{
    int p = 0;
    while (p < PAT_COUNT && strcmp(names[p], name) != 0)
        p++;
    return (bench_pattern_t)p;
}

void bench_factor(int n, int d, int *dims)
{
    /* Greedy: take the largest divisor not above the d-th root of what is
     * left; gives 32x32, 16x8x8, 128x128, 32x32x16 for the benchmark sizes. */
    int left = n;
    for (int k = 0; k < d; k++) {
        int parts = d - k, best = 1;
        for (int f = 1; f <= left; f++) {
            if (left % f)
                continue;
            long long pw = 1;
            for (int e = 0; e < parts; e++)
                pw *= f;
            if (pw <= left)
                best = f;
            else
                break;
        }
        dims[k] = best;
        left /= best;
    }
    dims[d - 1] *= left;
    /* Largest first. */
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++)
            if (dims[j] > dims[i]) {
                int t = dims[i];
                dims[i] = dims[j];
                dims[j] = t;
            }
}

static int add_pair(cm_builder_t *b, const int *lab, int i, int j, double w,
                    cm_error_t *err)
{
    if (cm_builder_add(b, lab[i], lab[j], w, 1, err) < 0)
        return -1;
    return cm_builder_add(b, lab[j], lab[i], w, 1, err);
}

/* PAT_RGG3D: points drawn in rank order from a seeded generator (the
 * points' order carries no locality, as a scrambled stencil's), bucketed
 * in cells of the radius so that only neighbouring cells are compared. */
static int rgg3d(cm_builder_t *b, const int *lab, int n, cm_error_t *err)
{
    double r = cbrt(3.0 * RGG_DEGREE / (4.0 * M_PI * (double)n));
    int g = (int)(1.0 / r);
    g = g < 1 ? 1 : g > 1024 ? 1024 : g;
    size_t ncell = (size_t)g * g * g;
    double *xyz = malloc(sizeof(double) * 3 * (size_t)n);
    int *cell = malloc(sizeof(int) * (size_t)n), *first = calloc(ncell + 1, sizeof(int));
    int *order = malloc(sizeof(int) * (size_t)n), rc = -1;
    if (!xyz || !cell || !first || !order) {
        cm_error_set(err, "rgg3d: out of memory for %d points", n);
        goto out;
    }
    cm_rng_t rng;
    cm_rng_seed(&rng, 20261124);
    for (int i = 0; i < n; i++) {
        int c[3];
        for (int d = 0; d < 3; d++) {
            xyz[3 * i + d] = cm_rng_double(&rng);
            c[d] = (int)(xyz[3 * i + d] * g);
            c[d] = c[d] >= g ? g - 1 : c[d];
        }
        cell[i] = (c[0] * g + c[1]) * g + c[2];
        first[cell[i] + 1]++;
    }
    for (size_t k = 0; k < ncell; k++)
        first[k + 1] += first[k];
    {
        int *fill = malloc(sizeof(int) * ncell);
        if (!fill) {
            cm_error_set(err, "rgg3d: out of memory for %zu cells", ncell);
            goto out;
        }
        memcpy(fill, first, sizeof(int) * ncell);
        for (int i = 0; i < n; i++)
            order[fill[cell[i]]++] = i;
        free(fill);
    }
    for (int i = 0; i < n; i++) {
        int cx = cell[i] / (g * g), cy = cell[i] / g % g, cz = cell[i] % g;
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++) {
                    int x = cx + dx, y = cy + dy, z = cz + dz;
                    if (x < 0 || y < 0 || z < 0 || x >= g || y >= g || z >= g)
                        continue;
                    int c = (x * g + y) * g + z;
                    for (int k = first[c]; k < first[c + 1]; k++) {
                        int j = order[k];
                        if (j <= i)
                            continue;
                        double d2 = 0;
                        for (int d = 0; d < 3; d++) {
                            double e = xyz[3 * i + d] - xyz[3 * j + d];
                            d2 += e * e;
                        }
                        if (d2 < r * r &&
                            add_pair(b, lab, i, j, floor(1000.0 * (1.0 - sqrt(d2) / r)) + 1,
                                     err) < 0)
                            goto out;
                    }
                }
    }
    rc = 0;
out:
    free(xyz);
    free(cell);
    free(first);
    free(order);
    return rc;
}

cm_matrix_t *bench_pattern(bench_pattern_t p, int n, uint64_t scramble_seed,
                           cm_error_t *err)
{
    int *lab = malloc(sizeof(int) * (size_t)n);
    cm_builder_t *b = cm_builder_new(n, err);
    cm_matrix_t *m = NULL;
    if (!lab || !b)
        goto out;
    for (int i = 0; i < n; i++)
        lab[i] = i;
    if (scramble_seed) {
        cm_rng_t r;
        cm_rng_seed(&r, scramble_seed);
        for (int i = n - 1; i > 0; i--) {
            int j = (int)cm_rng_below(&r, (uint64_t)i + 1);
            int t = lab[i];
            lab[i] = lab[j];
            lab[j] = t;
        }
    }
    const double w = 1000;
    int dims[3];
    switch (p) {
    case PAT_STENCIL2D:
        bench_factor(n, 2, dims);
        for (int x = 0; x < dims[0]; x++)
            for (int y = 0; y < dims[1]; y++) {
                int i = x * dims[1] + y;
                if (x + 1 < dims[0] && add_pair(b, lab, i, i + dims[1], w, err))
                    goto out;
                if (y + 1 < dims[1] && add_pair(b, lab, i, i + 1, w, err))
                    goto out;
            }
        break;
    case PAT_STENCIL3D:
        bench_factor(n, 3, dims);
        for (int x = 0; x < dims[0]; x++)
            for (int y = 0; y < dims[1]; y++)
                for (int z = 0; z < dims[2]; z++) {
                    int i = (x * dims[1] + y) * dims[2] + z;
                    if (x + 1 < dims[0] &&
                        add_pair(b, lab, i, i + dims[1] * dims[2], w, err))
                        goto out;
                    if (y + 1 < dims[1] && add_pair(b, lab, i, i + dims[2], w, err))
                        goto out;
                    if (z + 1 < dims[2] && add_pair(b, lab, i, i + 1, w, err))
                        goto out;
                }
        break;
    case PAT_BINTREE:
        for (int i = 0; i < n; i++)
            for (int c = 2 * i + 1; c <= 2 * i + 2 && c < n; c++)
                if (add_pair(b, lab, i, c, w, err))
                    goto out;
        break;
    case PAT_A2A64_RING:
        for (int i = 0; i < n; i++) {
            int base = i - i % 64;
            for (int j = i + 1; j < base + 64 && j < n; j++)
                if (add_pair(b, lab, i, j, w, err))
                    goto out;
            if (n > 1 && add_pair(b, lab, i, (i + 1) % n, w, err))
                goto out;
        }
        break;
    case PAT_FFT2D:
        bench_factor(n, 2, dims);
        for (int r = 0; r < dims[0]; r++)
            for (int c = 0; c < dims[1]; c++) {
                int i = r * dims[1] + c;
                /* Each transpose moves 1/size of the local data to every
                 * partner of the row (or column). */
                for (int c2 = c + 1; c2 < dims[1]; c2++)
                    if (add_pair(b, lab, i, r * dims[1] + c2, w / dims[1], err))
                        goto out;
                for (int r2 = r + 1; r2 < dims[0]; r2++)
                    if (add_pair(b, lab, i, r2 * dims[1] + c, w / dims[0], err))
                        goto out;
            }
        break;
    case PAT_RING:
        for (int i = 0; n > 1 && i < (n > 2 ? n : 1); i++)
            if (add_pair(b, lab, i, (i + 1) % n, w, err))
                goto out;
        break;
    case PAT_RGG3D:
        if (rgg3d(b, lab, n, err) < 0)
            goto out;
        break;
    default:
        cm_error_set(err, "unknown pattern %d", (int)p);
        goto out;
    }
    cm_builder_set_has_msgs(b, 1);
    m = cm_builder_finish(b, err);
out:
    free(lab);
    cm_builder_free(b);
    return m;
}
