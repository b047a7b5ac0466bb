/* patterns.c -- see patterns.h. */
#include <stdlib.h>

#include "patterns.h"

static const char *names[PAT_COUNT] = {
    "stencil2d", "stencil3d", "bintree", "a2a64+ring", "fft2d",
};

const char *bench_pattern_name(bench_pattern_t p)
{
    return p < PAT_COUNT ? names[p] : "?";
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
