/* fuzz_matrix.h -- what the three matrix-reader targets (fuzz_mtx.c,
 * fuzz_metis.c, fuzz_triplets.c) check on every matrix a reader accepts.
 *
 * Invariants (abort() on violation, so libFuzzer reports a crash):
 *  - 1 <= n <= 2^24 and the rows hold exactly nnz entries;
 *  - columns are in [0, n) and strictly ascending within a row (duplicates
 *    of the input were summed);
 *  - bytes and messages are finite and >= 0, and no entry is all zero;
 *  - the triplet writer's output reads back (as triplets) to the same
 *    matrix, entry for entry and bit for bit: what we accept we can store
 *    (whether message counts were given is compared only when there are
 *    entries to carry them).
 *
 * Header-only (static inline functions) so that each target stays one file plus
 * this header. */
#ifndef FUZZ_MATRIX_H
#define FUZZ_MATRIX_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"

/* Run a reader on the fuzz input as a stream; NULL when it refuses it
 * (then the error must say something). */
static inline cm_matrix_t *fuzz_read(const uint8_t *data, size_t size, const char *name,
                              cm_format_t fmt)
{
    static char empty[1];
    cm_error_t err = {""};
    /* fmemopen never writes through a "r" stream; the cast only drops
     * const for its prototype. */
    FILE *f = fmemopen(size ? (void *)data : empty, size, "r");
    if (!f)
        abort();
    cm_matrix_t *m = cm_matrix_read_stream(f, name, fmt, &err);
    fclose(f);
    if (!m && err.msg[0] == '\0')
        abort();   /* a refusal without a message */
    return m;
}

static inline void fuzz_check_matrix(const cm_matrix_t *m)
{
    int n = cm_matrix_n(m);
    size_t total = 0;
    if (n < 1 || n > (1 << 24))
        abort();
    for (int i = 0; i < n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        if (len < 0 || len > n)
            abort();
        for (int k = 0; k < len; k++) {
            if (cols[k] < 0 || cols[k] >= n || (k && cols[k] <= cols[k - 1]))
                abort();
            if (!isfinite(bytes[k]) || bytes[k] < 0 || !isfinite(msgs[k]) ||
                msgs[k] < 0 || (bytes[k] == 0 && msgs[k] == 0))
                abort();
        }
        total += (size_t)len;
    }
    if (total != cm_matrix_nnz(m))
        abort();
}

/* Same ranks, same entries, same values (bit for bit). */
static inline void fuzz_check_equal(const cm_matrix_t *a, const cm_matrix_t *b)
{
    int n = cm_matrix_n(a);
    if (cm_matrix_n(b) != n || cm_matrix_nnz(b) != cm_matrix_nnz(a))
        abort();
    /* Whether message counts were given shows only in the entries: an
     * empty "src dst 0 0" file has them, its written form cannot say so. */
    if (cm_matrix_nnz(a) && cm_matrix_has_msgs(b) != cm_matrix_has_msgs(a))
        abort();
    for (int i = 0; i < n; i++) {
        const int *ca, *cb;
        const double *ba, *bb, *ma, *mb;
        int la, lb;
        cm_matrix_row(a, i, &ca, &ba, &ma, &la);
        cm_matrix_row(b, i, &cb, &bb, &mb, &lb);
        if (la != lb || memcmp(ca, cb, (size_t)la * sizeof *ca) ||
            memcmp(ba, bb, (size_t)la * sizeof *ba))
            abort();
        if (cm_matrix_has_msgs(a) && memcmp(ma, mb, (size_t)la * sizeof *ma))
            abort();
    }
}

/* Write @p m as triplets and read that back. */
static inline void fuzz_check_roundtrip(const cm_matrix_t *m)
{
    char *text = NULL;
    size_t len = 0;
    cm_error_t err = {""};
    FILE *f = open_memstream(&text, &len);
    if (!f)
        abort();
    if (cm_matrix_write_triplets(m, f, &err) < 0)
        abort();
    fclose(f);
    f = fmemopen(text, len, "r");
    if (!f)
        abort();
    cm_matrix_t *again = cm_matrix_read_stream(f, "roundtrip", CM_FORMAT_TRIPLETS,
                                               &err);
    fclose(f);
    if (!again) {
        fprintf(stderr, "round trip refused: %s\n", err.msg);
        abort();
    }
    fuzz_check_equal(m, again);
    cm_matrix_free(again);
    free(text);
}

/* The whole of one matrix target: read, then check what was accepted. */
static inline int fuzz_matrix_one(const uint8_t *data, size_t size, const char *name,
                           cm_format_t fmt)
{
    cm_matrix_t *m = fuzz_read(data, size, name, fmt);
    if (!m)
        return 0;
    fuzz_check_matrix(m);
    fuzz_check_roundtrip(m);
    cm_matrix_free(m);
    return 0;
}

#endif /* FUZZ_MATRIX_H */
