/* gridbound.c -- see gridbound.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gridbound.h"

#define MAXS 64

/* Down-sets of N^3 are plane partitions: heights h[i][j] that never grow
 * along a row or a column.  Edges inside one: h - 1 vertical ones per
 * column, and min(h, h') = the later height towards each earlier neighbour.
 * With hmax = 1 they are the Young diagrams of N^2. */
typedef struct search {
    int s, hmax, best;
    int h[MAXS + 1][MAXS + 1];
} search_t;

static void dfs(search_t *st, int i, int j, int left, int edges)
{
    if (left == 0) {
        if (edges > st->best)
            st->best = edges;
        return;
    }
    int cap = st->hmax;
    if (i > 0 && st->h[i - 1][j] < cap)
        cap = st->h[i - 1][j];
    if (j > 0 && st->h[i][j - 1] < cap)
        cap = st->h[i][j - 1];
    if (cap > left)
        cap = left;
    if (cap == 0) {
        /* Row i ends here; start row i + 1 (it needs a cell under (i, 0)). */
        if (j == 0 || i + 1 > MAXS)
            return;
        dfs(st, i + 1, 0, left, edges);
        return;
    }
    for (int v = cap; v >= 1; v--) {
        st->h[i][j] = v;
        int e = edges + (v - 1) + (i > 0 ? v : 0) + (j > 0 ? v : 0);
        if (j + 1 <= MAXS)
            dfs(st, i, j + 1, left - v, e);
        st->h[i][j] = 0;
    }
    /* Or end row i before (i, j) -- only if the row is not empty. */
    if (j > 0 && i + 1 <= MAXS)
        dfs(st, i + 1, 0, left, edges);
}

/* Above MAXS the search is out of reach; Loomis-Whitney still bounds it.
 * A set of s cells has projections of sizes p_k along each axis with
 * prod p_k >= s^(d-1), and at least 2 p_k boundary edges along axis k, so
 * E <= d s - sum p_k at the least sum the product allows (searched over
 * integers). */
static long grid_inside_lw(int d, long s)
{
    double need = d == 2 ? (double)s : (double)s * (double)s;
    long best = -1;
    for (long a = 1; a <= s; a++) {
        if (d == 2) {
            long b = (long)ceil(need / (double)a);
            if (best < 0 || a + b < best)
                best = a + b;
            continue;
        }
        for (long b = a; b <= s; b++) {
            long c = (long)ceil(need / ((double)a * (double)b));
            if (c < b)
                break;
            if (best < 0 || a + b + c < best)
                best = a + b + c;
        }
    }
    return (long)d * s - best;
}

long bench_grid_max_inside(int d, long s)
{
    if ((d != 2 && d != 3) || s < 1)
        return -1;
    if (s > MAXS)
        return grid_inside_lw(d, s);
    search_t *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->s = (int)s;
    st->hmax = d == 3 ? s : 1;
    st->best = -1;
    dfs(st, 0, 0, (int)s, 0);
    long best = st->best;
    free(st);
    return best;
}

/* Full rows of length b first: q rows and r cells of the next. */
static long rook_lex(long a, long b, long s)
{
    long q = s / b, r = s % b;
    long rows = q * (b * (b - 1) / 2) + r * (r - 1) / 2;
    long cols = r * ((q + 1) * q / 2) + (b - r) * (q * (q - 1) / 2);
    (void)a;
    return rows + cols;
}

long bench_rook_max_inside(int a, int b, long s)
{
    long x = rook_lex(a, b, s), y = rook_lex(b, a, s);
    return x > y ? x : y;
}

int bench_grid_cut_lb(bench_pattern_t p, int n, const cm_matrix_t *m,
                      const cm_tree_t *t, double *cut_lb)
{
    int nlev = cm_tree_nlevels(t), d;
    memset(cut_lb, 0, sizeof(double) * (size_t)nlev);
    if (p == PAT_STENCIL2D || p == PAT_FFT2D)
        d = 2;
    else if (p == PAT_STENCIL3D)
        d = 3;
    else
        return -1;
    if (cm_tree_nslots(t) != n || cm_matrix_n(m) != n)
        return -1;
    /* Every edge must carry the same volume (fft2d: square grids only). */
    double w = -1, edges = 0;
    for (int i = 0; i < n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        for (int k = 0; k < len; k++) {
            if (w < 0)
                w = bytes[k];
            if (bytes[k] != w)
                return -1;
        }
        edges += len;
    }
    if (w <= 0)
        return -1;
    edges /= 2;
    int dims[3] = {1, 1, 1};
    bench_factor(n, d, dims);
    for (int l = 1; l < nlev; l++) {
        /* All groups of a level must have the same size s. */
        int s = -1, ok = 1;
        for (int v = 0; v < cm_tree_nvertices(t); v++) {
            if (cm_tree_vertex_level(t, v) != l)
                continue;
            int first, count;
            cm_tree_vertex_slots(t, v, &first, &count);
            if (s < 0)
                s = count;
            else if (count != s)
                ok = 0;
        }
        if (!ok || s < 2 || n % s)
            continue;
        double inside = p == PAT_FFT2D ? (double)bench_rook_max_inside(dims[0], dims[1], s)
                                       : (double)bench_grid_max_inside(d, s);
        if (inside < 0)
            continue;
        double cut_edges = edges - (double)(n / s) * inside;
        if (cut_edges > 0)
            cut_lb[l] = 2 * w * cut_edges;
    }
    return 0;
}
