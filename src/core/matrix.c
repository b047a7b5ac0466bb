/* matrix.c -- the sparse (CSR) communication matrix and its builder.
 *
 * Everything here is O(n + entries) in time and memory: sorting is done by
 * a stable counting sort by row (skipped when the rows come in order: then
 * each row is sorted as it is completed, see struct cm_builder) and a
 * stable sort of each row by column (insertion or radix), so no n x n
 * array, no per-row hash table and no index array is ever needed, even for
 * 2^24 ranks. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "matrix_internal.h"

struct cm_matrix {
    int n;
    int has_msgs;
    int merged;        /* the build summed repeated entries */
    size_t nnz;
    size_t *row_ptr;   /* [n + 1] */
    int *cols;         /* [nnz], ascending within a row */
    double *bytes;     /* [nnz] */
    double *msgs;      /* [nnz], zeros when has_msgs == 0 and none added */
};

/* Scratch space for sorting the long rows, grown to the longest one. */
struct row_tmp {
    size_t cap;
    int *cols;
    double *bytes, *msgs;
};

/* While entries come in row order (src never below the last one's, and
 * not far beyond it: ROW_JUMP_MAX), as files and most callers give them,
 * the builder keeps no src array:
 * row i's entries are [starts[i], starts[i + 1]) (the last row's end is
 * len), and each row is sorted and merged (finish_row) as soon as the next
 * one starts, while it is still in the cache.  finish then has nothing
 * left to sort, and the arrays become the matrix's.  The first entry out
 * of order writes src out from starts, and everything goes on as for any
 * order: a counting sort by row at the end.  Rows finished early merged
 * their repeated columns in the order added, as the end would have, so
 * every sum is the same whichever way it went. */
struct cm_builder {
    int n;
    int has_msgs;
    int max_index;     /* largest src or dst added, -1 if none */
    int merged;        /* a row finished early summed repeated entries */
    size_t len, cap;
    size_t ready;      /* entries [0, ready) are prefaulted (see prefault) */
    int *src;          /* [cap]; NULL while the rows come in order */
    int *dst;
    double *bytes, *msgs;
    /* in row order only: */
    int row;           /* row of the last entry, -1 before the first */
    int rows_done;     /* every row before `row` is sorted and merged
                          (0 after a row's sort ran out of memory) */
    size_t *starts;    /* [starts_cap]: where rows 0..row start */
    size_t starts_cap;
    struct row_tmp tmp;
};

/* ---- memory ------------------------------------------------------------ */

/* Entries the builder prefaults at a time: 1 MiB of doubles. */
#define PREFAULT_ENTRIES ((size_t)1 << 17)

/* Map the whole pages of [p + from, p + to) now, in one system call,
 * instead of one page fault per 4 KiB page when they are first written:
 * the arrays here are filled front to back right after they are allocated
 * or grown, and a page fault costs a microsecond or more (tens of them in
 * some virtual machines).  Advice only: nothing happens where the kernel
 * (before Linux 5.14) or the C library does not know it. */
static void prefault(void *p, size_t from, size_t to)
{
#ifdef MADV_POPULATE_WRITE
    const uintptr_t page = 4096;
    uintptr_t a = ((uintptr_t)p + from + page - 1) & ~(page - 1);
    uintptr_t e = ((uintptr_t)p + to) & ~(page - 1);
    if (p && e > a)
        (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)from;
    (void)to;
#endif
}

/* ---- matrix allocation ------------------------------------------------- */

static cm_matrix_t *matrix_alloc(int n, size_t nnz, cm_error_t *err)
{
    cm_matrix_t *m = calloc(1, sizeof *m);
    if (!m) {
        cm_error_set(err, "out of memory for a %d-rank matrix", n);
        return NULL;
    }
    m->n = n;
    m->nnz = nnz;
    m->row_ptr = calloc((size_t)n + 1, sizeof *m->row_ptr);
    /* +1: never ask malloc for 0 bytes, so NULL always means failure */
    m->cols = malloc((nnz + 1) * sizeof *m->cols);
    m->bytes = malloc((nnz + 1) * sizeof *m->bytes);
    m->msgs = malloc((nnz + 1) * sizeof *m->msgs);
    if (!m->row_ptr || !m->cols || !m->bytes || !m->msgs) {
        cm_matrix_free(m);
        cm_error_set(err, "out of memory for a %d-rank matrix with %zu entries",
                     n, nnz);
        return NULL;
    }
    return m;
}

/* Give back the unused tail after entries were merged. */
static void matrix_shrink(cm_matrix_t *m, size_t nnz)
{
    void *p;
    m->nnz = nnz;
    if ((p = realloc(m->cols, (nnz + 1) * sizeof *m->cols)))
        m->cols = p;
    if ((p = realloc(m->bytes, (nnz + 1) * sizeof *m->bytes)))
        m->bytes = p;
    if ((p = realloc(m->msgs, (nnz + 1) * sizeof *m->msgs)))
        m->msgs = p;
}

void cm_matrix_free(cm_matrix_t *m)
{
    if (!m)
        return;
    free(m->row_ptr);
    free(m->cols);
    free(m->bytes);
    free(m->msgs);
    free(m);
}

/* ---- triplets -> CSR ---------------------------------------------------- */

#define RADIX_BITS 12
#define INSERTION_MAX 32

/* Sort one row's entries by column, stably (repeated columns keep the
 * order they were added in, so their sum is the same as before).  Short
 * rows by insertion, long ones by LSD radix sort on 12-bit digits of the
 * column (< 2^24: at most two passes), O(len) with a 4096-entry count.
 * 0, or -1 when the scratch space cannot be had. */
static int sort_row(int *cols, double *bytes, double *msgs, size_t len, int n,
                    struct row_tmp *t)
{
    if (len <= INSERTION_MAX) {
        for (size_t k = 1; k < len; k++) {
            int c = cols[k];
            double y = bytes[k], g = msgs[k];
            size_t j = k;
            for (; j > 0 && cols[j - 1] > c; j--) {
                cols[j] = cols[j - 1];
                bytes[j] = bytes[j - 1];
                msgs[j] = msgs[j - 1];
            }
            cols[j] = c;
            bytes[j] = y;
            msgs[j] = g;
        }
        return 0;
    }
    if (t->cap < len) {
        int *c = realloc(t->cols, len * sizeof *c);
        if (c)
            t->cols = c;
        double *y = realloc(t->bytes, len * sizeof *y);
        if (y)
            t->bytes = y;
        double *g = realloc(t->msgs, len * sizeof *g);
        if (g)
            t->msgs = g;
        if (!c || !y || !g)
            return -1;
        t->cap = len;
    }
    int *fc = cols, *tc = t->cols;
    double *fy = bytes, *ty = t->bytes, *fg = msgs, *tg = t->msgs;
    for (int shift = 0; shift == 0 || (n - 1) >> shift; shift += RADIX_BITS) {
        size_t count[(1 << RADIX_BITS) + 1] = { 0 };
        const unsigned mask = (1u << RADIX_BITS) - 1;
        for (size_t k = 0; k < len; k++)
            count[((unsigned)fc[k] >> shift & mask) + 1]++;
        for (unsigned d = 0; d < mask; d++)
            count[d + 1] += count[d];
        for (size_t k = 0; k < len; k++) {
            size_t p = count[(unsigned)fc[k] >> shift & mask]++;
            tc[p] = fc[k];
            ty[p] = fy[k];
            tg[p] = fg[k];
        }
        int *sc = fc;
        double *sy = fy, *sg = fg;
        fc = tc, fy = ty, fg = tg;
        tc = sc, ty = sy, tg = sg;
    }
    if (fc != cols) {   /* an odd number of passes */
        memcpy(cols, fc, len * sizeof *cols);
        memcpy(bytes, fy, len * sizeof *bytes);
        memcpy(msgs, fg, len * sizeof *msgs);
    }
    return 0;
}

/* Row [start, end) of the arrays: sorted by column (sort_row) unless it
 * is already, then moved down to @p out (<= start) with its repeated
 * columns summed in the order added (*merged set then).  Returns where the
 * row now ends, or SIZE_MAX (row unchanged) when the scratch space for
 * sorting cannot be had. */
static size_t finish_row(int *cols, double *y, double *g, size_t out,
                         size_t start, size_t end, int n, struct row_tmp *t,
                         int *merged)
{
    size_t first = out, k = start + 1;

    while (k < end && cols[k - 1] < cols[k])
        k++;
    if (k >= end && out == start)
        return end;   /* in order, no repeated column, nowhere to move */
    while (k < end && cols[k - 1] <= cols[k])
        k++;
    if (k < end && sort_row(cols + start, y + start, g + start, end - start,
                            n, t) < 0)
        return SIZE_MAX;
    for (k = start; k < end; k++) {
        if (out > first && cols[out - 1] == cols[k]) {
            y[out - 1] += y[k];
            g[out - 1] += g[k];
            *merged = 1;
        } else {
            cols[out] = cols[k];
            y[out] = y[k];
            g[out] = g[k];
            out++;
        }
    }
    return out;
}

static void row_tmp_free(struct row_tmp *t)
{
    free(t->cols);
    free(t->bytes);
    free(t->msgs);
}

/* Second half of every build: @p m holds its entries grouped by row, each
 * row in the order the entries were added, and m->row_ptr where each row
 * starts.  Sort each row not yet in column order, merge repeated columns
 * in place (finish_row), give back the unused tail.  0, or -1 (@p m left
 * to the caller to free). */
static int csr_finish_rows(cm_matrix_t *m, cm_error_t *err)
{
    struct row_tmp t = { 0, NULL, NULL, NULL };
    size_t *rp = m->row_ptr;
    size_t out = 0, start = 0;
    int rc = 0;

    for (int i = 0; i < m->n; i++) {
        size_t end = rp[i + 1];
        size_t e = finish_row(m->cols, m->bytes, m->msgs, out, start, end,
                              m->n, &t, &m->merged);
        if (e == SIZE_MAX) {
            rc = cm_error_set(err, "out of memory sorting %zu matrix entries",
                              m->nnz);
            goto out;
        }
        rp[i] = out;
        out = e;
        start = end;
    }
    rp[m->n] = out;
    matrix_shrink(m, out);
out:
    row_tmp_free(&t);
    return rc;
}

/* Count each row's entries into m->row_ptr (zeroed) and turn the counts
 * into starts.  1 when @p src is in row order already. */
static int csr_count_rows(cm_matrix_t *m, size_t len, const int *src)
{
    size_t *rp = m->row_ptr;
    int in_order = 1;

    for (size_t k = 0; k < len; k++) {
        rp[src[k] + 1]++;
        in_order &= k == 0 || src[k - 1] <= src[k];
    }
    for (int i = 0; i < m->n; i++)
        rp[i + 1] += rp[i];
    return in_order;
}

/* Build a CSR matrix from @p len triplets (indices already checked to be in
 * [0, n), values non-negative and not both zero).  Duplicates are summed in
 * the order they were added.
 *
 * The entries go straight into the matrix's arrays: copied when the rows
 * come in order (the usual case for files), else placed by a counting sort
 * by row; then csr_finish_rows().  No index array: the only memory beyond
 * the matrix is the scratch space of the longest unsorted long row. */
static cm_matrix_t *csr_from_triplets(int n, size_t len, const int *src,
                                      const int *dst, const double *bytes,
                                      const double *msgs, int has_msgs,
                                      cm_error_t *err)
{
    cm_matrix_t *m = matrix_alloc(n, len, err);
    size_t *rp;

    if (!m)
        return NULL;
    prefault(m->row_ptr, 0, ((size_t)n + 1) * sizeof *m->row_ptr);
    prefault(m->cols, 0, len * sizeof *m->cols);
    prefault(m->bytes, 0, len * sizeof *m->bytes);
    prefault(m->msgs, 0, len * sizeof *m->msgs);
    m->has_msgs = has_msgs;
    rp = m->row_ptr;
    if (len == 0) {
        /* nothing to place (and the arrays may be NULL) */
    } else if (csr_count_rows(m, len, src)) {
        memcpy(m->cols, dst, len * sizeof *dst);
        memcpy(m->bytes, bytes, len * sizeof *bytes);
        memcpy(m->msgs, msgs, len * sizeof *msgs);
    } else {
        /* rp[i] walks row i; afterwards it is where row i + 1 starts */
        for (size_t k = 0; k < len; k++) {
            size_t p = rp[src[k]]++;
            m->cols[p] = dst[k];
            m->bytes[p] = bytes[k];
            m->msgs[p] = msgs[k];
        }
        memmove(rp + 1, rp, (size_t)n * sizeof *rp);
        rp[0] = 0;
    }
    if (csr_finish_rows(m, err) < 0) {
        cm_matrix_free(m);
        return NULL;
    }
    return m;
}

/* ---- builder ------------------------------------------------------------ */

cm_builder_t *cm_builder_new(int n, cm_error_t *err)
{
    if (n < 1 || n > CM_MAX_RANKS) {
        cm_error_set(err, "matrix: expected a rank count in 1..%d, got %d",
                     CM_MAX_RANKS, n);
        return NULL;
    }
    cm_builder_t *b = calloc(1, sizeof *b);
    if (!b) {
        cm_error_set(err, "out of memory for a matrix builder");
        return NULL;
    }
    b->n = n;
    b->max_index = -1;
    b->row = -1;
    b->rows_done = 1;
    return b;
}

void cm_builder_free(cm_builder_t *b)
{
    if (!b)
        return;
    free(b->src);
    free(b->dst);
    free(b->bytes);
    free(b->msgs);
    free(b->starts);
    row_tmp_free(&b->tmp);
    free(b);
}

/* Make the arrays hold @p cap entries (> len).  0, or -1 when some could
 * not be had (those that could are longer than b->cap: harmless). */
static int builder_resize(cm_builder_t *b, size_t cap)
{
    int *s = NULL;
    if (b->src && (s = realloc(b->src, cap * sizeof *s)))
        b->src = s;
    int *d = realloc(b->dst, cap * sizeof *d);
    if (d)
        b->dst = d;
    double *y = realloc(b->bytes, cap * sizeof *y);
    if (y)
        b->bytes = y;
    double *g = realloc(b->msgs, cap * sizeof *g);
    if (g)
        b->msgs = g;
    if ((b->src && !s) || !d || !y || !g)
        return -1;
    b->cap = cap;
    return 0;
}

static int builder_grow(cm_builder_t *b, cm_error_t *err)
{
    if (builder_resize(b, b->cap ? b->cap * 2 : 256) < 0)
        return cm_error_set(err, "out of memory after %zu matrix entries", b->len);
    return 0;
}

/* Room for row starts 0..@p rows - 1 (in row order). */
static int starts_resize(cm_builder_t *b, size_t rows)
{
    size_t *p = realloc(b->starts, rows * sizeof *p);
    if (!p)
        return -1;
    b->starts = p;
    b->starts_cap = rows;
    return 0;
}

void cm_builder_expect(cm_builder_t *b, double times)
{
    double entries = (double)b->len * times + 4096;
    double rows = (double)(b->row + 1) * times + 1024;

    if (!(times >= 1))
        return;
    if (entries < (double)(SIZE_MAX / 64) && (size_t)entries > b->cap)
        (void)builder_resize(b, (size_t)entries);
    if (rows > (double)b->n + 1)
        rows = (double)b->n + 1;
    if (!b->src && (size_t)rows > b->starts_cap)
        (void)starts_resize(b, (size_t)rows);
}

void cm_builder_reserve(cm_builder_t *b, int64_t nnz)
{
    if (!b || nnz <= 0 || (double)nnz > (double)(SIZE_MAX / 64))
        return;
    if ((size_t)nnz > b->cap)
        (void)builder_resize(b, (size_t)nnz);
    if (!b->src && (size_t)b->n + 1 > b->starts_cap)
        (void)starts_resize(b, (size_t)b->n + 1);
}

/* Prefault the next PREFAULT_ENTRIES entries of the arrays (or up to
 * their capacity): few system calls, and never more than 1 MiB an array
 * mapped ahead of use. */
static void builder_prefault(cm_builder_t *b)
{
    size_t from = b->ready, to = b->ready + PREFAULT_ENTRIES;
    if (to > b->cap)
        to = b->cap;
    if (b->src)
        prefault(b->src, from * sizeof *b->src, to * sizeof *b->src);
    prefault(b->dst, from * sizeof *b->dst, to * sizeof *b->dst);
    prefault(b->bytes, from * sizeof *b->bytes, to * sizeof *b->bytes);
    prefault(b->msgs, from * sizeof *b->msgs, to * sizeof *b->msgs);
    b->ready = to;
}

/* In row order: sort and merge the last row (finish_row), unless a sort
 * already failed for want of memory (then the end sorts every row, or
 * says it cannot). */
static void builder_finish_row(cm_builder_t *b)
{
    if (b->row < 0 || !b->rows_done)
        return;
    size_t e = finish_row(b->dst, b->bytes, b->msgs, b->starts[b->row],
                          b->starts[b->row], b->len, b->n, &b->tmp, &b->merged);
    if (e == SIZE_MAX)
        b->rows_done = 0;
    else
        b->len = e;
}

/* In row order: finish the last row and let @p src (> row) start at the
 * current end. */
static int builder_next_row(cm_builder_t *b, int src, cm_error_t *err)
{
    builder_finish_row(b);
    if ((size_t)src >= b->starts_cap) {
        size_t cap = b->starts_cap ? b->starts_cap * 2 : 1024;
        if (cap <= (size_t)src)
            cap = (size_t)src + 1;
        if (starts_resize(b, cap) < 0)
            return cm_error_set(err, "out of memory after %zu matrix entries",
                                b->len);
    }
    size_t *starts = b->starts, len = b->len;   /* locals: no reloads */
    for (int i = b->row + 1; i <= src; i++)
        starts[i] = len;
    b->row = src;
    return 0;
}

/* Row order is given up as well for a row more than 2 len + ROW_JUMP_MAX
 * rows past the last: the starts of the rows skipped would cost more than
 * the entries (inputs such as "8000000 0 1", then "1 0 1"). */
#define ROW_JUMP_MAX 1024

/* The first entry out of row order: write src out from starts and go on
 * as for any order. */
static int builder_unorder(cm_builder_t *b, cm_error_t *err)
{
    int *s = malloc((b->cap + 1) * sizeof *s);
    if (!s)
        return cm_error_set(err, "out of memory after %zu matrix entries", b->len);
    prefault(s, 0, b->ready * sizeof *s);
    const size_t *starts = b->starts;
    for (int i = 0, last = b->row; i <= last; i++) {
        size_t end = i < last ? starts[i + 1] : b->len;
        for (size_t k = starts[i]; k < end; k++)
            s[k] = i;
    }
    b->src = s;
    free(b->starts);
    b->starts = NULL;
    b->starts_cap = 0;
    return 0;
}

/* In row order, an entry of another row than the last: the next row, or
 * the end of row order. */
static int builder_new_row(cm_builder_t *b, int src, cm_error_t *err)
{
    if (src > b->row && (size_t)(src - b->row) <= 2 * b->len + ROW_JUMP_MAX)
        return builder_next_row(b, src, err);
    return builder_unorder(b, err);
}

int cm_builder_add(cm_builder_t *b, int src, int dst, double bytes, double msgs,
                   cm_error_t *err)
{
    if (!b)
        return cm_error_set(err, "matrix: expected a builder, got NULL");
    if (src < 0 || src >= b->n || dst < 0 || dst >= b->n)
        return cm_error_set(err, "matrix entry (%d, %d): expected ranks in "
                            "0..%d", src, dst, b->n - 1);
    if (!isfinite(bytes) || bytes < 0)
        return cm_error_set(err, "matrix entry (%d, %d): expected a finite "
                            "non-negative byte count, got %g", src, dst, bytes);
    if (!isfinite(msgs) || msgs < 0)
        return cm_error_set(err, "matrix entry (%d, %d): expected a finite "
                            "non-negative message count, got %g", src, dst, msgs);
    if (bytes == 0 && msgs == 0)
        return 0;
    if (!b->src && src != b->row && builder_new_row(b, src, err) < 0)
        return -1;
    if (b->len == b->cap && builder_grow(b, err) < 0)
        return -1;
    if (b->len == b->ready)
        builder_prefault(b);
    if (b->src)
        b->src[b->len] = src;
    b->dst[b->len] = dst;
    b->bytes[b->len] = bytes;
    b->msgs[b->len] = msgs;
    b->len++;
    if (src > b->max_index)
        b->max_index = src;
    if (dst > b->max_index)
        b->max_index = dst;
    return 0;
}

void cm_builder_set_has_msgs(cm_builder_t *b, int has_msgs)
{
    if (b)
        b->has_msgs = has_msgs != 0;
}

int cm_builder_set_n(cm_builder_t *b, int n, cm_error_t *err)
{
    if (n < 1 || n > CM_MAX_RANKS)
        return cm_error_set(err, "matrix: expected a rank count in 1..%d, got %d",
                            CM_MAX_RANKS, n);
    if (n <= b->max_index)
        return cm_error_set(err, "matrix: expected a rank count above the "
                            "largest rank %d, got %d", b->max_index, n);
    b->n = n;
    return 0;
}

/* Row i's start in row order: starts[i] up to the last row, then len. */
static void rows_to_ptr(const cm_builder_t *b, size_t *rp)
{
    size_t len = b->len;
    if (rp != b->starts && b->row >= 0)
        memcpy(rp, b->starts, ((size_t)b->row + 1) * sizeof *rp);
    for (int i = b->row + 1, n = b->n; i <= n; i++)
        rp[i] = len;
}

/* cm_builder_finish() in row order: a copy, the last row (or every row
 * after a failed sort) sorted and merged by csr_finish_rows. */
static cm_matrix_t *finish_in_order(const cm_builder_t *b, cm_error_t *err)
{
    cm_matrix_t *m = matrix_alloc(b->n, b->len, err);
    if (!m)
        return NULL;
    prefault(m->row_ptr, 0, ((size_t)b->n + 1) * sizeof *m->row_ptr);
    prefault(m->cols, 0, b->len * sizeof *m->cols);
    prefault(m->bytes, 0, b->len * sizeof *m->bytes);
    prefault(m->msgs, 0, b->len * sizeof *m->msgs);
    m->has_msgs = b->has_msgs;
    m->merged = b->merged;
    if (b->len) {
        memcpy(m->cols, b->dst, b->len * sizeof *m->cols);
        memcpy(m->bytes, b->bytes, b->len * sizeof *m->bytes);
        memcpy(m->msgs, b->msgs, b->len * sizeof *m->msgs);
    }
    rows_to_ptr(b, m->row_ptr);
    if (csr_finish_rows(m, err) < 0) {
        cm_matrix_free(m);
        return NULL;
    }
    return m;
}

cm_matrix_t *cm_builder_finish(const cm_builder_t *b, cm_error_t *err)
{
    if (!b) {
        cm_error_set(err, "matrix: expected a builder, got NULL");
        return NULL;
    }
    if (!b->src)
        return finish_in_order(b, err);
    cm_matrix_t *m = csr_from_triplets(b->n, b->len, b->src, b->dst, b->bytes,
                                       b->msgs, b->has_msgs, err);
    if (m && b->merged)
        m->merged = 1;
    return m;
}

cm_matrix_t *cm_builder_finish_take(cm_builder_t *b, cm_error_t *err)
{
    cm_matrix_t *m;
    size_t *rp;

    if (b->src || b->len == 0)
        return cm_builder_finish(b, err);
    builder_finish_row(b);
    if (!(m = calloc(1, sizeof *m)) ||
        !(rp = realloc(b->starts, ((size_t)b->n + 1) * sizeof *rp))) {
        free(m);
        cm_error_set(err, "out of memory for a %d-rank matrix", b->n);
        return NULL;
    }
    b->starts = rp;
    rows_to_ptr(b, rp);
    /* the builder's arrays become the matrix's */
    m->n = b->n;
    m->nnz = b->len;
    m->has_msgs = b->has_msgs;
    m->merged = b->merged;
    m->row_ptr = rp;
    m->cols = b->dst;
    m->bytes = b->bytes;
    m->msgs = b->msgs;
    b->starts = NULL;
    b->dst = NULL;
    b->bytes = b->msgs = NULL;
    b->len = b->cap = b->ready = b->starts_cap = 0;
    b->max_index = b->row = -1;
    if (!b->rows_done) {
        if (csr_finish_rows(m, err) < 0) {
            cm_matrix_free(m);
            return NULL;
        }
    } else {
        matrix_shrink(m, m->nnz);   /* give back the unused capacity */
    }
    return m;
}

/* ---- queries ------------------------------------------------------------ */

int cm_matrix_n(const cm_matrix_t *m)
{
    return m ? m->n : 0;
}

size_t cm_matrix_nnz(const cm_matrix_t *m)
{
    return m ? m->nnz : 0;
}

int cm_matrix_has_msgs(const cm_matrix_t *m)
{
    return m ? m->has_msgs : 0;
}

int cm_matrix_merged(const cm_matrix_t *m)
{
    return m->merged;
}

void cm_matrix_row(const cm_matrix_t *m, int i, const int **cols,
                   const double **bytes, const double **msgs, int *len)
{
    if (!m || i < 0 || i >= m->n) {
        if (cols)
            *cols = NULL;
        if (bytes)
            *bytes = NULL;
        if (msgs)
            *msgs = NULL;
        if (len)
            *len = 0;
        return;
    }
    size_t a = m->row_ptr[i];
    if (cols)
        *cols = m->cols + a;
    if (bytes)
        *bytes = m->bytes + a;
    if (msgs)
        *msgs = m->msgs + a;
    if (len)
        *len = (int)(m->row_ptr[i + 1] - a);
}

void cm_matrix_totals(const cm_matrix_t *m, double *bytes, double *msgs)
{
    double b = 0, g = 0;
    for (size_t k = 0; m && k < m->nnz; k++) {
        b += m->bytes[k];
        g += m->msgs[k];
    }
    if (bytes)
        *bytes = b;
    if (msgs)
        *msgs = g;
}

/* ---- derived matrices --------------------------------------------------- */

cm_matrix_t *cm_matrix_symmetrize(const cm_matrix_t *m, cm_error_t *err)
{
    if (!m) {
        cm_error_set(err, "matrix: expected a matrix, got NULL");
        return NULL;
    }
    int n = m->n;
    size_t nnz = m->nnz;
    cm_matrix_t *t = matrix_alloc(n, nnz, err);   /* A^T */
    cm_matrix_t *s = NULL;
    size_t *next = NULL;

    if (!t)
        return NULL;
    if (!(next = malloc(((size_t)n + 1) * sizeof *next))) {
        cm_error_set(err, "out of memory transposing a %d-rank matrix", n);
        goto out;
    }
    /* Counting sort by column; scanning rows in order keeps each
     * transposed row sorted. */
    for (size_t k = 0; k < nnz; k++)
        t->row_ptr[m->cols[k] + 1]++;
    for (int i = 0; i < n; i++)
        t->row_ptr[i + 1] += t->row_ptr[i];
    memcpy(next, t->row_ptr, ((size_t)n + 1) * sizeof *next);
    for (int i = 0; i < n; i++)
        for (size_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
            size_t p = next[m->cols[k]]++;
            t->cols[p] = i;
            t->bytes[p] = m->bytes[k];
            t->msgs[p] = m->msgs[k];
        }

    if (!(s = matrix_alloc(n, 2 * nnz, err)))
        goto out;
    s->has_msgs = m->has_msgs;
    size_t out = 0;
    for (int i = 0; i < n; i++) {
        size_t a = m->row_ptr[i], ae = m->row_ptr[i + 1];
        size_t b = t->row_ptr[i], be = t->row_ptr[i + 1];
        s->row_ptr[i] = out;
        while (a < ae || b < be) {
            int ca = a < ae ? m->cols[a] : n;
            int cb = b < be ? t->cols[b] : n;
            int j = ca < cb ? ca : cb;
            double y = 0, g = 0;
            if (ca == j) {
                y += m->bytes[a];
                g += m->msgs[a++];
            }
            if (cb == j) {
                y += t->bytes[b];
                g += t->msgs[b++];
            }
            if (j == i)
                continue;
            s->cols[out] = j;
            s->bytes[out] = y;
            s->msgs[out] = g;
            out++;
        }
    }
    s->row_ptr[n] = out;
    matrix_shrink(s, out);
out:
    free(next);
    cm_matrix_free(t);
    return s;
}

cm_matrix_t *cm_matrix_sub(const cm_matrix_t *m, const int *ranks, int count,
                           cm_error_t *err)
{
    int *pos = NULL;
    int *src = NULL, *dst = NULL;
    double *bytes = NULL, *msgs = NULL;
    cm_matrix_t *s = NULL;
    size_t len = 0, cap = 0;

    if (!m || !ranks) {
        cm_error_set(err, "sub-matrix: expected a matrix and ranks, got NULL");
        return NULL;
    }
    if (count < 1 || count > m->n) {
        cm_error_set(err, "sub-matrix: expected 1..%d ranks, got %d", m->n, count);
        return NULL;
    }
    if (!(pos = malloc((size_t)m->n * sizeof *pos))) {
        cm_error_set(err, "out of memory for a sub-matrix");
        return NULL;
    }
    for (int i = 0; i < m->n; i++)
        pos[i] = -1;
    for (int k = 0; k < count; k++) {
        int r = ranks[k];
        if (r < 0 || r >= m->n) {
            cm_error_set(err, "sub-matrix: ranks[%d]: expected a rank in 0..%d, "
                         "got %d", k, m->n - 1, r);
            goto out;
        }
        if (pos[r] >= 0) {
            cm_error_set(err, "sub-matrix: ranks[%d]: expected distinct ranks, "
                         "got %d again (first at ranks[%d])", k, r, pos[r]);
            goto out;
        }
        pos[r] = k;
        cap += m->row_ptr[r + 1] - m->row_ptr[r];
    }
    src = malloc((cap + 1) * sizeof *src);
    dst = malloc((cap + 1) * sizeof *dst);
    bytes = malloc((cap + 1) * sizeof *bytes);
    msgs = malloc((cap + 1) * sizeof *msgs);
    if (!src || !dst || !bytes || !msgs) {
        cm_error_set(err, "out of memory for a sub-matrix");
        goto out;
    }
    for (int k = 0; k < count; k++) {
        int r = ranks[k];
        for (size_t e = m->row_ptr[r]; e < m->row_ptr[r + 1]; e++) {
            int j = pos[m->cols[e]];
            if (j < 0)
                continue;
            src[len] = k;
            dst[len] = j;
            bytes[len] = m->bytes[e];
            msgs[len] = m->msgs[e];
            len++;
        }
    }
    s = csr_from_triplets(count, len, src, dst, bytes, msgs, m->has_msgs, err);
out:
    free(pos);
    free(src);
    free(dst);
    free(bytes);
    free(msgs);
    return s;
}
