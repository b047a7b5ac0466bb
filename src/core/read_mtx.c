/* read_mtx.c -- Matrix Market "coordinate" files as communication matrices.
 *
 * Entry (i, j) = bytes rank i-1 sent to rank j-1; pattern entries count 1,
 * symmetric files are mirrored.  The diagonal (self-sends) is kept. */
#include <string.h>
#include <strings.h>

#include "matrix_internal.h"

enum mtx_field { MTX_REAL, MTX_INTEGER, MTX_PATTERN };

/* "%%MatrixMarket matrix coordinate <field> <symmetry>" (case-insensitive,
 * as the format allows). */
static int read_banner(cm_lines_t *l, enum mtx_field *field, int *symmetric,
                       cm_error_t *err)
{
    int r = cm_lines_next(l, err);
    if (r < 0)
        return -1;
    if (r == 0)
        return cm_error_set(err, "%s:1: expected a '%%%%MatrixMarket' header, "
                            "got an empty file", l->name);
    char *cur = l->buf, *tok = cm_token(&cur);
    if (!tok || strcasecmp(tok, "%%MatrixMarket") != 0)
        return cm_lines_fail(l, err, "'%%MatrixMarket'", tok);
    tok = cm_token(&cur);
    if (!tok || strcasecmp(tok, "matrix") != 0)
        return cm_lines_fail(l, err, "object 'matrix'", tok);
    tok = cm_token(&cur);
    if (!tok || strcasecmp(tok, "coordinate") != 0)
        return cm_lines_fail(l, err, "format 'coordinate' (dense 'array' "
                             "files are not supported)", tok);
    tok = cm_token(&cur);
    if (tok && strcasecmp(tok, "real") == 0)
        *field = MTX_REAL;
    else if (tok && strcasecmp(tok, "integer") == 0)
        *field = MTX_INTEGER;
    else if (tok && strcasecmp(tok, "pattern") == 0)
        *field = MTX_PATTERN;
    else
        return cm_lines_fail(l, err, "field 'real', 'integer' or 'pattern' "
                             "(complex values are not supported)", tok);
    tok = cm_token(&cur);
    if (tok && strcasecmp(tok, "general") == 0)
        *symmetric = 0;
    else if (tok && strcasecmp(tok, "symmetric") == 0)
        *symmetric = 1;
    else
        return cm_lines_fail(l, err, "symmetry 'general' or 'symmetric' "
                             "(skew-symmetric and hermitian are not supported)",
                             tok);
    return cm_expect_eol(l, &cur, err);
}

/* Next line that is neither a comment nor blank: 1, 0 at EOF, -1 error. */
static int next_data_line(cm_lines_t *l, cm_error_t *err)
{
    int r;
    while ((r = cm_lines_next(l, err)) > 0)
        if (l->buf[0] != '%' && !cm_blank(l->buf))
            return 1;
    return r;
}

/* The usual entry line in one pass: indices of plain digits in
 * [1, rows], then per @p field a plain decimal, up to 18 plain digits not
 * above 2^53, or nothing; blanks or tabs around them.  1 with *i, *j, *v
 * set, 0 for any other line. */
static int fast_entry(const char *p, long long rows, enum mtx_field field,
                      long long *i, long long *j, double *v)
{
    long long iv;

    p = cm_skip_blanks((char *)p);
    if (!cm_scan_long(&p, i) || *i < 1 || *i > rows)
        return 0;
    p = cm_skip_blanks((char *)p);
    if (!cm_scan_long(&p, j) || *j < 1 || *j > rows)
        return 0;
    p = cm_skip_blanks((char *)p);
    if (field == MTX_REAL) {
        if (!cm_scan_value(&p, v))
            return 0;
    } else if (field == MTX_INTEGER) {
        if (!cm_scan_long(&p, &iv) || iv > 1LL << 53)
            return 0;
        *v = (double)iv;
    }
    return *cm_skip_blanks((char *)p) == '\0';
}

/* An entry line field by field, with every check and message; a line
 * after the last entry declared (on line @p size_line, nonzero then) is
 * an error.  0, or -1 with @p err set. */
static int read_entry(cm_lines_t *l, long long rows, enum mtx_field field,
                      long size_line, long long nnz, long long *i,
                      long long *j, double *v, cm_error_t *err)
{
    char *cur = l->buf;

    if (size_line) {
        char what[128];
        snprintf(what, sizeof what, "end of file after the %lld entries "
                 "declared on line %ld", nnz, size_line);
        return cm_lines_fail(l, err, what, cm_token(&cur));
    }
    if (cm_next_long(l, &cur, 1, rows, "a row index", i, err) < 0 ||
        cm_next_long(l, &cur, 1, rows, "a column index", j, err) < 0)
        return -1;
    if (field == MTX_INTEGER) {
        long long iv;
        if (cm_next_long(l, &cur, 0, 1LL << 53, "a byte count", &iv, err) < 0)
            return -1;
        *v = (double)iv;
    } else if (field == MTX_REAL) {
        if (cm_next_value(l, &cur, "a byte count", v, err) < 0)
            return -1;
    }
    return cm_expect_eol(l, &cur, err);
}

cm_matrix_t *cm_read_mtx(cm_lines_t *l, cm_error_t *err)
{
    enum mtx_field field = MTX_REAL;
    int symmetric = 0;
    long long rows, cols, nnz, seen = 0;
    long size_line;
    cm_builder_t *b = NULL;
    cm_matrix_t *m = NULL;
    char *cur;
    int r;

    if (read_banner(l, &field, &symmetric, err) < 0)
        return NULL;

    if ((r = next_data_line(l, err)) < 0)
        return NULL;
    if (r == 0) {
        cm_error_set(err, "%s:%ld: expected a size line 'rows cols entries', "
                     "got end of file", l->name, l->lineno);
        return NULL;
    }
    size_line = l->lineno;
    cur = l->buf;
    if (cm_next_long(l, &cur, 1, CM_MAX_RANKS, "a row count", &rows, err) < 0)
        return NULL;
    char *save = cur;
    if (cm_next_long(l, &cur, 1, CM_MAX_RANKS, "a column count", &cols, err) < 0)
        return NULL;
    if (cols != rows) {
        char what[96];
        snprintf(what, sizeof what, "a square matrix (columns = rows = %lld)",
                 rows);
        cur = save;
        cm_lines_fail(l, err, what, cm_token(&cur));
        return NULL;
    }
    if (cm_next_long(l, &cur, 0, rows * rows, "an entry count (at most rows^2)",
                     &nnz, err) < 0 || cm_expect_eol(l, &cur, err) < 0)
        return NULL;

    if (!(b = cm_builder_new((int)rows, err)))
        return NULL;
    while ((r = cm_lines_next(l, err)) > 0) {
        long long i, j;
        double v = 1;
        /* the usual line in one pass; comments, blank lines, every other
         * spelling and every error as they always were */
        if (seen == nnz || !fast_entry(l->buf, rows, field, &i, &j, &v)) {
            if (l->buf[0] == '%' || cm_blank(l->buf))
                continue;
            if (read_entry(l, rows, field, seen == nnz ? size_line : 0, nnz,
                           &i, &j, &v, err) < 0)
                goto out;
        }
        if (cm_builder_add(b, (int)i - 1, (int)j - 1, v, 0, err) < 0)
            goto out;
        if (symmetric && i != j &&
            cm_builder_add(b, (int)j - 1, (int)i - 1, v, 0, err) < 0)
            goto out;
        if (++seen == CM_RESERVE_AFTER)
            cm_lines_reserve(l, b);
    }
    if (r < 0)
        goto out;
    if (seen < nnz) {
        cm_error_set(err, "%s:%ld: expected %lld entries as declared on line "
                     "%ld, got %lld before end of file", l->name, l->lineno,
                     nnz, size_line, seen);
        goto out;
    }
    m = cm_builder_finish_take(b, err);
out:
    cm_builder_free(b);
    return m;
}
