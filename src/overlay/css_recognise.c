/*
 * css_recognise.c -- is a byte matrix the exchange of a block-cyclic
 * redistribution?  (css_schedule.h, cm_css_recognise)
 *
 * The css overlay sees only the n x n byte counts of an MPI_Alltoallv.
 * When they are exactly the table of cyclic(y) -> cyclic(x) over the same
 * n ranks (M elements of E bytes, strides 1, offsets 0), the periodic
 * construction of css_redist.c applies, and it can beat the colouring of
 * the bare counts (bench/sim/README.md, "CSS schedules").
 *
 * The table does not determine (E, x, y, M): cyclic(y) -> cyclic(x) over
 * M elements of E bytes has the table of cyclic(k y) -> cyclic(k x) over
 * k M elements of E / k bytes, and R whole periods of a table with
 * gcd(x, y) = g are the table of one period of cyclic(y / g) ->
 * cyclic(x / g) over elements R g times larger.  Any of them gives the
 * same schedule (theorem 1's m and n, the period's shape and the sizes'
 * ratios are the same), so we look for one and never for "the" element
 * size: in units u of bytes, u from a short list (the gcd G of the
 * non-zero entries, which gives one period of coprime blocks when the
 * exchange is whole periods; G's gcd with the row and column sums, which
 * also divides a partial period's; 1 byte, which any exchange of this kind
 * admits), then normalised to the fewest elements (x, y and M divided by
 * their gcd).
 *
 * Candidates.  Under cyclic(b) over n ranks, rank i holds
 * F b + clamp(rem - i b, 0, b) of the M elements (F = M / (n b),
 * rem = M mod (n b)): the sums are non-increasing in i, with at most three
 * values, and b divides the first sum (F + 1 blocks, or F blocks and the
 * remainder on rank 0 only when everything is there, b = M then) or the
 * last one (F b, when only rank 0 holds a partial block).  So the sender's
 * block y is a divisor of the first or last row sum that reproduces every
 * row sum, and the receiver's block x likewise from the column sums; every
 * pair (y, x), largest blocks first (they are the cheapest to count),
 * that passes an O(n) test (the first blocks of sender 0 and receiver 0
 * are where they must be, first_blocks_fit) is then verified by counting
 * its whole table (css_redist.c) and comparing every entry: a matrix is
 * recognised only when it is exactly such a table.
 *
 * Cost.  O(n^2) to sum; trial division up to the square root of a row or
 * column sum (in units, at most 2^40 per sum, so at most 2^20 divisions;
 * larger sums give up); O(n) per divisor to check it against the sums; and
 * the verifications, each O(n) for the test of the first blocks and, for
 * the pairs that pass it, the count of one period (about
 * period (1 / x + 1 / y) runs) plus n^2 cells cleared and compared,
 * within a budget of RECOG_WORK (2^25) runs and cells for all of them:
 * a few hundredths of a second for hundreds of ranks, a few tenths at
 * worst (measured: under 0.02 s for a redistribution at 1024 ranks).  Beyond the budget the answer
 * is 0.  A matrix whose sums have the wrong shape (any random one) is
 * rejected after the O(n^2) sums.  All integer arithmetic and a fixed
 * order: the same bytes give the same answer everywhere, which the overlay
 * needs (every rank decides alone).
 */
#include <stdlib.h>
#include <string.h>

#include "css_internal.h"

/* Runs counted plus table cells compared, for all verifications of one
 * matrix: at most a few tenths of a second. */
#define RECOG_WORK (INT64_C(1) << 25)
/* Largest row or column sum (in units) whose divisors we enumerate. */
#define RECOG_MAX_SUM (UINT64_C(1) << 40)
/* Divisors of two sums below RECOG_MAX_SUM (at most 6720 each). */
#define RECOG_ROOM 16384
/* Largest block (cm_css_redist_t's bound). */
#define RECOG_MAX_BLOCK UINT64_C(2147483647)
/* Largest element count (cm_css_redist_t's bound). */
#define RECOG_MAX_COUNT (UINT64_C(1) << 62)

/* What one search shares: the matrix, its sums, the work left. */
typedef struct recog {
    int n;
    const uint64_t *bytes;
    uint64_t *rows, *cols;   /* [n] byte sums of rows (senders), columns */
    uint64_t total;
    uint64_t *table;         /* [n * n] scratch for a candidate's table */
    int64_t work;            /* budget left (RECOG_WORK) */
} recog_t;

/* Elements of rank @p i under cyclic(@p b) over @p n ranks, of @p m. */
static uint64_t held(uint64_t m, int n, uint64_t b, int i)
{
    uint64_t nb = (uint64_t)n * b;       /* n <= 2^16, b < 2^31 */
    uint64_t rem = m % nb, lo = (uint64_t)i * b, part = 0;
    if (rem > lo)
        part = rem - lo < b ? rem - lo : b;
    return m / nb * b + part;
}

/* Whether the sums @p s (in bytes) are non-increasing with at most three
 * values, as every distribution cyclic(b) makes them. */
static int shaped(const uint64_t *s, int n)
{
    int values = 1;
    for (int i = 1; i < n; i++) {
        if (s[i] > s[i - 1])
            return 0;
        values += s[i] != s[i - 1];
    }
    return values <= 3;
}

static int desc_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a < b) - (a > b);
}

/* Add @p d to @p out (of *len) when cyclic(d) reproduces every sum of
 * @p s in units of @p u over @p m elements; charges the check to the
 * budget. */
static void keep_block(recog_t *g, const uint64_t *s, uint64_t u, uint64_t m, uint64_t d,
                       uint64_t *out, int *len)
{
    if (d > RECOG_MAX_BLOCK)
        return;
    int i = 0;
    while (i < g->n && held(m, g->n, d, i) * u == s[i])
        i++;
    g->work -= i + 1;
    if (i == g->n)
        out[(*len)++] = d;
}

/* The blocks b for which cyclic(b) reproduces the sums @p s (bytes, in
 * units of @p u, @p m elements), largest first and each once, into
 * @p out (room for RECOG_ROOM: the divisors of two numbers below 2^40,
 * fewer than 6800 each); the count, or 0 when a sum is too large to
 * factor. */
static int blocks_for(recog_t *g, const uint64_t *s, uint64_t u, uint64_t m, uint64_t *out)
{
    int len = 0;
    const uint64_t ends[2] = { s[0] / u, s[g->n - 1] / u };
    for (int e = 0; e < 2; e++) {
        uint64_t v = ends[e], d = 1;
        if (v == 0 || (e == 1 && v == ends[0]))
            continue;
        if (v > RECOG_MAX_SUM)
            return 0;
        for (; d * d <= v; d++) {
            if (v % d)
                continue;
            keep_block(g, s, u, m, d, out, &len);
            if (d * d != v)
                keep_block(g, s, u, m, v / d, out, &len);
        }
        g->work -= (int64_t)d;               /* the divisions */
    }
    qsort(out, (size_t)len, sizeof *out, desc_u64);
    int kept = 0;
    for (int k = 0; k < len; k++)
        if (kept == 0 || out[kept - 1] != out[k])
            out[kept++] = out[k];
    return kept;
}

/* A necessary condition, in O(n) where a count costs O(n^2): the first
 * block of sender 0, [0, y), goes to receivers 0, 1, ... in pieces of x
 * (before any wraps around), and the first block of receiver 0 comes from
 * senders 0, 1, ... in pieces of y, so those entries are at least that. */
static int first_blocks_fit(const recog_t *g, uint64_t y, uint64_t x, uint64_t m, uint64_t u)
{
    for (int side = 0; side < 2; side++) {
        uint64_t own = side ? x : y, step = side ? y : x, end = own < m ? own : m;
        for (int k = 0; k < g->n && (uint64_t)k * step < end; k++) {
            uint64_t hi = ((uint64_t)k + 1) * step < end ? ((uint64_t)k + 1) * step : end;
            size_t at = side ? (size_t)k * (size_t)g->n : (size_t)k;
            if (g->bytes[at] < (hi - (uint64_t)k * step) * u)
                return 0;
        }
    }
    return 1;
}

/* Whether the table of cyclic(y) -> cyclic(x) over @p m elements, in
 * units of @p u, is exactly the matrix; 0 too when the budget does not
 * cover its count. */
static int matches(recog_t *g, uint64_t y, uint64_t x, uint64_t m, uint64_t u)
{
    g->work -= g->n;
    if (!first_blocks_fit(g, y, x, m, u))
        return 0;
    cm_css_redist_t r = { g->n, (int64_t)y, 1, 0, g->n, (int64_t)x, 1, 0, (int64_t)m, 1, 0 };
    size_t cells = (size_t)g->n * (size_t)g->n;
    double runs = 0;
    if (g->work <= (int64_t)cells) {
        g->work = 0;                         /* not even one more table */
        return 0;
    }
    int rc = cm_css_redist_table(&r, g->table, (double)(g->work - (int64_t)cells), &runs, NULL);
    g->work -= (int64_t)cells + (rc ? 0 : (int64_t)runs);
    if (rc)
        return 0;
    for (size_t k = 0; k < cells; k++)
        if (g->table[k] * u != g->bytes[k])   /* table[k] * u <= total */
            return 0;
    return 1;
}

/* One unit @p u: 1 with *r filled when some pair of blocks matches, 0
 * otherwise, -1 out of memory. */
static int try_unit(recog_t *g, uint64_t u, cm_css_redist_t *r, cm_error_t *err)
{
    uint64_t m = g->total / u;
    if (g->total % u || m > RECOG_MAX_COUNT)
        return 0;
    uint64_t *ys = malloc(RECOG_ROOM * sizeof *ys), *xs = malloc(RECOG_ROOM * sizeof *xs);
    if (!ys || !xs) {
        free(ys);
        free(xs);
        return cm_error_set(err, "css recognise: out of memory");
    }
    int ny = blocks_for(g, g->rows, u, m, ys);
    int nx = ny ? blocks_for(g, g->cols, u, m, xs) : 0;
    int found = 0;
    for (int a = 0; a < ny && !found && g->work > 0; a++)
        for (int b = 0; b < nx && !found && g->work > 0; b++)
            if (matches(g, ys[a], xs[b], m, u)) {
                *r = (cm_css_redist_t){ g->n, (int64_t)ys[a], 1, 0, g->n, (int64_t)xs[b],
                                        1, 0, (int64_t)m, 1, 0 };
                found = 1;
            }
    free(ys);
    free(xs);
    return found;
}

/* The sums, the gcd of the non-zero entries and the total into @p g; -1
 * when the total overflows. */
static int sums(recog_t *g, uint64_t *gcd)
{
    *gcd = 0;
    g->total = 0;
    for (int i = 0; i < g->n; i++)
        for (int j = 0; j < g->n; j++) {
            uint64_t v = g->bytes[(size_t)i * (size_t)g->n + (size_t)j];
            if (__builtin_add_overflow(g->total, v, &g->total))
                return -1;
            g->rows[i] += v;
            g->cols[j] += v;
            *gcd = cm_css_gcd(v, *gcd);
        }
    return 0;
}

int cm_css_recognise(int n, const uint64_t *bytes, cm_css_redist_t *r, uint64_t *elem,
                     cm_error_t *err)
{
    if (n < 2 || (uint64_t)n * (uint64_t)n > CM_CSS_MAX_CELLS || !bytes || !r || !elem)
        return 0;
    recog_t g = { n, bytes, calloc((size_t)n, sizeof(uint64_t)),
                  calloc((size_t)n, sizeof(uint64_t)), 0,
                  malloc((size_t)n * (size_t)n * sizeof(uint64_t)), RECOG_WORK };
    uint64_t gcd = 0;
    int found = 0;
    if (!g.rows || !g.cols || !g.table)
        found = cm_error_set(err, "css recognise: out of memory for %d x %d", n, n);
    else if (sums(&g, &gcd) == 0 && g.total > 0 && shaped(g.rows, n) && shaped(g.cols, n)) {
        uint64_t units[3] = { gcd, gcd, 1 };
        for (int i = 0; i < n; i++)
            units[1] = cm_css_gcd(cm_css_gcd(units[1], g.rows[i]), g.cols[i]);
        for (int k = 0; k < 3 && !found; k++) {
            if (k > 0 && (units[k] == units[k - 1] || (k == 2 && units[k] == units[0])))
                continue;
            found = try_unit(&g, units[k], r, err);
            if (found == 1) {
                /* the fewest elements: the same table (see above) */
                uint64_t c = cm_css_gcd(cm_css_gcd((uint64_t)r->src_block,
                                                   (uint64_t)r->dst_block),
                                        (uint64_t)r->count);
                r->src_block /= (int64_t)c;
                r->dst_block /= (int64_t)c;
                r->count /= (int64_t)c;
                *elem = units[k] * c;
            }
        }
    }
    free(g.rows);
    free(g.cols);
    free(g.table);
    return found;
}

/* The redistribution schedule of @p bytes when it is recognised (*out
 * NULL when not); -1 on a failure. */
static int redist_sched(int n, const uint64_t *bytes, cm_css_sched_t **out, cm_error_t *err)
{
    cm_css_redist_t r;
    uint64_t elem = 0;
    *out = NULL;
    int found = cm_css_recognise(n, bytes, &r, &elem, err);
    if (found != 1)
        return found;
    *out = cm_css_sched_redistribution(&r, err);
    return *out ? 0 : -1;
}

cm_css_sched_t *cm_css_sched_overlay(int n, const uint64_t *bytes, const uint64_t *node,
                                     double latency, double bandwidth, cm_css_choice_t *how,
                                     cm_error_t *err)
{
    cm_css_sched_t *red = NULL, *col = NULL;
    double c_red = 0, c_col = 0;
    *how = CM_CSS_COLOURED;
    if (redist_sched(n, bytes, &red, err) ||
        !(col = cm_css_sched_general_nodes(n, bytes, node, err)) ||
        cm_css_sched_cost_nodes(col, bytes, node, latency, bandwidth, &c_col, err) ||
        (red && cm_css_sched_cost_nodes(red, bytes, node, latency, bandwidth, &c_red, err))) {
        cm_css_sched_free(red);
        cm_css_sched_free(col);
        return NULL;
    }
    if (red && c_red < c_col) {
        cm_css_sched_free(col);
        *how = CM_CSS_REDISTRIBUTED;
        return red;
    }
    if (red)
        *how = CM_CSS_COLOURED_RECOGNISED;
    cm_css_sched_free(red);
    return col;
}
