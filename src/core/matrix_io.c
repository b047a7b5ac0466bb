/* matrix_io.c -- reading and writing communication matrices: format
 * detection, the readers' dispatch and the writers (the readers' line
 * reader is text_lines.c). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "matrix_internal.h"

/* ---- format selection --------------------------------------------------- */

int cm_format_parse(const char *name, cm_format_t *out)
{
    static const struct {
        const char *name;
        cm_format_t fmt;
    } names[] = {
        { "auto", CM_FORMAT_AUTO },
        { "mtx", CM_FORMAT_MTX },
        { "metis", CM_FORMAT_METIS },
        { "triplets", CM_FORMAT_TRIPLETS },
    };
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].name) == 0) {
            if (out)
                *out = names[i].fmt;
            return 0;
        }
    return -1;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

/* CM_FORMAT_AUTO: a Matrix Market banner wins, then the file name. */
static int detect(cm_lines_t *l, cm_error_t *err)
{
    int r = cm_lines_next(l, err);
    if (r < 0)
        return -1;
    if (r > 0) {
        int mtx = strncasecmp(l->buf, "%%MatrixMarket", 14) == 0;
        cm_lines_unread(l);
        if (mtx)
            return CM_FORMAT_MTX;
    }
    if (has_suffix(l->name, ".graph") || has_suffix(l->name, ".metis"))
        return CM_FORMAT_METIS;
    return CM_FORMAT_TRIPLETS;
}

/* Every value read is finite, but the builder sums repeated entries
 * ("1 2 1e308" twice): refuse a sum that overflowed to infinity, since the
 * cost model and the placements need finite volumes.  0, or -1 with @p err
 * naming the entry. */
static int check_sums(const cm_matrix_t *m, const char *name, cm_error_t *err)
{
    if (!cm_matrix_merged(m))
        return 0;   /* nothing was summed */
    for (int i = 0; i < cm_matrix_n(m); i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        for (int k = 0; k < len; k++)
            if (!isfinite(bytes[k]) || !isfinite(msgs[k]))
                return cm_error_set(err, "%s: expected the repeated entries from "
                                    "rank %d to rank %d (0-based) to sum to a "
                                    "finite number, got an overflow",
                                    name, i, cols[k]);
    }
    return 0;
}

cm_matrix_t *cm_matrix_read_stream(FILE *f, const char *name, cm_format_t fmt,
                                   cm_error_t *err)
{
    cm_lines_t l;
    cm_matrix_t *m = NULL;

    if (!f) {
        cm_error_set(err, "%s: expected an open stream, got NULL",
                     name ? name : "<stream>");
        return NULL;
    }
    cm_lines_init(&l, f, name);
    if (fmt == CM_FORMAT_AUTO) {
        int d = detect(&l, err);
        if (d < 0) {
            cm_lines_fini(&l);
            return NULL;
        }
        fmt = (cm_format_t)d;
    }
    switch (fmt) {
    case CM_FORMAT_MTX:
        m = cm_read_mtx(&l, err);
        break;
    case CM_FORMAT_METIS:
        m = cm_read_metis(&l, err);
        break;
    case CM_FORMAT_TRIPLETS:
        m = cm_read_triplets(&l, err);
        break;
    default:
        cm_error_set(err, "%s: expected a matrix format (auto, mtx, metis, "
                     "triplets), got format number %d", l.name, (int)fmt);
        break;
    }
    cm_lines_fini(&l);
    if (m && check_sums(m, l.name, err) < 0) {
        cm_matrix_free(m);
        m = NULL;
    }
    return m;
}

cm_matrix_t *cm_matrix_read(const char *path, cm_format_t fmt, cm_error_t *err)
{
    if (!path) {
        cm_error_set(err, "matrix: expected a path, got NULL");
        return NULL;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        cm_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    cm_matrix_t *m = cm_matrix_read_stream(f, path, fmt, err);
    fclose(f);
    return m;
}

/* ---- writer ------------------------------------------------------------- */

/* Integral values print as integers, everything else with 17 significant
 * digits: both read back to the same double. */
static int put_value(FILE *f, double v)
{
    if (v == floor(v) && fabs(v) < 9.0e15)
        return fprintf(f, "%.0f", v);
    return fprintf(f, "%.17g", v);
}

/* One line per entry: "i j bytes[ msgs]", indices counted from @p base. */
static void put_entries(const cm_matrix_t *m, FILE *f, int base, int with_msgs)
{
    for (int i = 0; i < cm_matrix_n(m); i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        for (int k = 0; k < len; k++) {
            fprintf(f, "%d %d ", i + base, cols[k] + base);
            put_value(f, bytes[k]);
            if (with_msgs) {
                putc(' ', f);
                put_value(f, msgs[k]);
            }
            putc('\n', f);
        }
    }
}

static int finish_write(FILE *f, const char *what, cm_error_t *err)
{
    if (fflush(f) != 0 || ferror(f))
        return cm_error_set(err, "writing %s: %s", what, strerror(errno));
    return 0;
}

int cm_matrix_write_mtx(const cm_matrix_t *m, FILE *f, cm_error_t *err)
{
    if (!m || !f)
        return cm_error_set(err, "writing Matrix Market: expected a matrix and "
                            "a stream, got NULL");
    int n = cm_matrix_n(m);
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% bytes sent from rank (row) to rank (column), 1-based\n");
    fprintf(f, "%d %d %zu\n", n, n, cm_matrix_nnz(m));
    put_entries(m, f, 1, 0);
    return finish_write(f, "Matrix Market", err);
}

int cm_matrix_write_triplets(const cm_matrix_t *m, FILE *f, cm_error_t *err)
{
    if (!m || !f)
        return cm_error_set(err, "writing triplets: expected a matrix and a "
                            "stream, got NULL");
    int has_msgs = cm_matrix_has_msgs(m);
    fprintf(f, "# src dst bytes%s (0-based ranks)\n", has_msgs ? " msgs" : "");
    fprintf(f, "# ranks %d\n", cm_matrix_n(m));
    put_entries(m, f, 0, has_msgs);
    return finish_write(f, "triplets", err);
}
