/* matrix.c -- the sparse (CSR) communication matrix and its builder.
 *
 * Everything here is O(n + entries) in time and memory: sorting is done by
 * two stable counting sorts (by column, then by row), so no n x n array and
 * no per-row hash table is ever needed, even for 2^24 ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_internal.h"

struct cm_matrix {
    int n;
    int has_msgs;
    size_t nnz;
    size_t *row_ptr;   /* [n + 1] */
    int *cols;         /* [nnz], ascending within a row */
    double *bytes;     /* [nnz] */
    double *msgs;      /* [nnz], zeros when has_msgs == 0 and none added */
};

struct cm_builder {
    int n;
    int has_msgs;
    int max_index;     /* largest src or dst added, -1 if none */
    size_t len, cap;
    int *src, *dst;
    double *bytes, *msgs;
};

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

/* Build a CSR matrix from @p len triplets (indices already checked to be in
 * [0, n), values non-negative and not both zero).  Duplicates are summed. */
static cm_matrix_t *csr_from_triplets(int n, size_t len, const int *src,
                                      const int *dst, const double *bytes,
                                      const double *msgs, int has_msgs,
                                      cm_error_t *err)
{
    size_t *count = calloc((size_t)n + 1, sizeof *count);
    size_t *by_col = malloc((len + 1) * sizeof *by_col);
    size_t *order = malloc((len + 1) * sizeof *order);
    cm_matrix_t *m = NULL;

    if (!count || !by_col || !order) {
        cm_error_set(err, "out of memory sorting %zu matrix entries", len);
        goto out;
    }
    /* Stable counting sort by column, then by row: rows come out with
     * their columns ascending and duplicates adjacent. */
    for (size_t k = 0; k < len; k++)
        count[dst[k] + 1]++;
    for (int i = 0; i < n; i++)
        count[i + 1] += count[i];
    for (size_t k = 0; k < len; k++)
        by_col[count[dst[k]]++] = k;

    memset(count, 0, ((size_t)n + 1) * sizeof *count);
    for (size_t k = 0; k < len; k++)
        count[src[k] + 1]++;
    for (int i = 0; i < n; i++)
        count[i + 1] += count[i];
    for (size_t k = 0; k < len; k++) {
        size_t t = by_col[k];
        order[count[src[t]]++] = t;
    }

    if (!(m = matrix_alloc(n, len, err)))
        goto out;
    m->has_msgs = has_msgs;
    size_t out = 0, k = 0;
    for (int i = 0; i < n; i++) {
        m->row_ptr[i] = out;
        while (k < len && src[order[k]] == i) {
            size_t t = order[k];
            int j = dst[t];
            double b = bytes[t], g = msgs[t];
            for (k++; k < len && src[order[k]] == i && dst[order[k]] == j; k++) {
                b += bytes[order[k]];
                g += msgs[order[k]];
            }
            m->cols[out] = j;
            m->bytes[out] = b;
            m->msgs[out] = g;
            out++;
        }
    }
    m->row_ptr[n] = out;
    matrix_shrink(m, out);
out:
    free(count);
    free(by_col);
    free(order);
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
    free(b);
}

static int builder_grow(cm_builder_t *b, cm_error_t *err)
{
    size_t cap = b->cap ? b->cap * 2 : 256;
    int *s = realloc(b->src, cap * sizeof *s);
    if (s)
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
    if (!s || !d || !y || !g)
        return cm_error_set(err, "out of memory after %zu matrix entries", b->len);
    b->cap = cap;
    return 0;
}

int cm_builder_add(cm_builder_t *b, int src, int dst, double bytes, double msgs,
                   cm_error_t *err)
{
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
    if (b->len == b->cap && builder_grow(b, err) < 0)
        return -1;
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

cm_matrix_t *cm_builder_finish(const cm_builder_t *b, cm_error_t *err)
{
    return csr_from_triplets(b->n, b->len, b->src, b->dst, b->bytes, b->msgs,
                             b->has_msgs, err);
}

/* ---- queries ------------------------------------------------------------ */

int cm_matrix_n(const cm_matrix_t *m)
{
    return m->n;
}

size_t cm_matrix_nnz(const cm_matrix_t *m)
{
    return m->nnz;
}

int cm_matrix_has_msgs(const cm_matrix_t *m)
{
    return m->has_msgs;
}

void cm_matrix_row(const cm_matrix_t *m, int i, const int **cols,
                   const double **bytes, const double **msgs, int *len)
{
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
    for (size_t k = 0; k < m->nnz; k++) {
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
