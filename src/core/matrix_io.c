/* matrix_io.c -- reading and writing communication matrices: the line
 * reader and number checks shared by the three readers, format detection,
 * and the Matrix Market writer. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "matrix_internal.h"

/* ---- line reader -------------------------------------------------------- */

void cm_lines_init(cm_lines_t *l, FILE *f, const char *name)
{
    struct stat st;
    off_t at;
    int fd = fileno(f);

    memset(l, 0, sizeof *l);
    l->f = f;
    l->name = name ? name : "<stream>";
    l->nul = SIZE_MAX;
    l->size = -1;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (at = ftello(f)) >= 0 && st.st_size >= at)
        l->size = (long long)(st.st_size - at);
}

void cm_lines_fini(cm_lines_t *l)
{
    free(l->mem);
    l->mem = l->buf = NULL;
    l->cap = l->pos = l->end = 0;
}

void cm_lines_reserve(const cm_lines_t *l, cm_builder_t *b)
{
    long long used = l->got - (long long)(l->end - l->pos);
    /* 5 % more, for files whose first lines are longer than the rest */
    if (l->size > 0 && used > 0)
        cm_builder_expect(b, (double)l->size / (double)used * 1.05);
}

void cm_lines_unread(cm_lines_t *l)
{
    if (l->buf && l->lineno > 0)
        l->again = 1;
}

/* Move the unread bytes to the front of the buffer, make room (doubling
 * up to a block, then only when a long line fills the buffer) and read
 * more.  0, or -1 on out of memory. */
static int lines_fill(cm_lines_t *l, cm_error_t *err)
{
    size_t avail = l->end - l->pos;

    if (l->pos > 0) {
        memmove(l->mem, l->mem + l->pos, avail);
        if (l->nul != SIZE_MAX)
            l->nul -= l->pos;
        l->pos = 0;
        l->end = avail;
    }
    if (l->cap < CM_LINES_BLOCK || avail + 1 >= l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16384;
        if (cap > (size_t)CM_MAX_LINE + 2 && cap > CM_LINES_BLOCK)
            cap = (size_t)CM_MAX_LINE + 2;
        char *p = realloc(l->mem, cap + CM_LINES_PAD);
        if (!p)
            return cm_error_set(err, "%s: out of memory", l->name);
        l->mem = p;
        l->cap = cap;
    }
    /* one byte stays free for the NUL that ends a last line */
    size_t want = l->cap - 1 - l->end;
    if (want > CM_LINES_BLOCK)
        want = CM_LINES_BLOCK;
    size_t got = fread(l->mem + l->end, 1, want, l->f);
    if (got < want)
        l->eof = 1;
    l->got += (long long)got;
    if (l->nul == SIZE_MAX && got > 0) {
        char *z = memchr(l->mem + l->end, '\0', got);
        if (z)
            l->nul = (size_t)(z - l->mem);
    }
    l->end += got;
    memset(l->mem + l->end, 0, CM_LINES_PAD);   /* see cm_lines_t */
    return 0;
}

int cm_lines_next(cm_lines_t *l, cm_error_t *err)
{
    const size_t limit = (size_t)CM_MAX_LINE + 1;   /* bytes that decide */
    size_t len;
    char *nl;

    if (l->again) {
        l->again = 0;
        return 1;
    }
    for (;;) {
        size_t avail = l->end - l->pos;
        nl = avail ? memchr(l->mem + l->pos, '\n',
                            avail < limit ? avail : limit) : NULL;
        if (nl || avail >= limit || l->eof)
            break;
        if (lines_fill(l, err) < 0)
            return -1;
    }
    /* The line is mem[pos, pos + len); without a newline it is either too
     * long (its first CM_MAX_LINE + 1 bytes are in the buffer) or the last
     * one.  A NUL among those bytes is reported first, as reading byte by
     * byte would find it before the excess or the end. */
    if (nl)
        len = (size_t)(nl - (l->mem + l->pos));
    else
        len = l->end - l->pos < limit ? l->end - l->pos : limit;
    if (l->nul != SIZE_MAX && l->nul < l->pos + len)
        return cm_error_set(err, "%s:%ld: expected text, got a NUL byte",
                            l->name, l->lineno + 1);
    if (len > (size_t)CM_MAX_LINE)
        return cm_error_set(err, "%s:%ld: expected a line of at most %d "
                            "bytes, got a longer one", l->name,
                            l->lineno + 1, CM_MAX_LINE);
    if (!nl && ferror(l->f))
        return cm_error_set(err, "%s:%ld: read error: %s", l->name,
                            l->lineno + 1, strerror(errno));
    if (!nl && len == 0)
        return 0;
    l->buf = l->mem + l->pos;
    l->pos += len + (nl != NULL);
    if (len > 0 && l->buf[len - 1] == '\r')
        len--;
    l->buf[len] = '\0';
    l->lineno++;
    return 1;
}

char *cm_token(char **cur)
{
    char *p = *cur;
    while (*p && isspace((unsigned char)*p))
        p++;
    if (!*p) {
        *cur = p;
        return NULL;
    }
    char *tok = p;
    while (*p && !isspace((unsigned char)*p))
        p++;
    if (*p)
        *p++ = '\0';
    *cur = p;
    return tok;
}

int cm_blank_slow(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

int cm_lines_fail(const cm_lines_t *l, cm_error_t *err, const char *what,
                  const char *tok)
{
    if (!tok)
        return cm_error_set(err, "%s:%ld: expected %s, got end of line",
                            l->name, l->lineno, what);
    return cm_error_set(err, "%s:%ld: expected %s, got '%.64s%s'", l->name,
                        l->lineno, what, tok, strlen(tok) > 64 ? "..." : "");
}

/* ---- numbers (fast paths: matrix_internal.h) ---------------------------- */

const double cm_pow10_exact[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

int cm_next_long_slow(cm_lines_t *l, char **cur, long long lo, long long hi,
                      const char *what, long long *out, cm_error_t *err)
{
    char expect[200];
    char *tok = cm_token(cur), *end;
    long long v;

    snprintf(expect, sizeof expect, "%s (an integer in %lld..%lld)", what, lo, hi);
    if (!tok)
        return cm_lines_fail(l, err, expect, NULL);
    errno = 0;
    v = strtoll(tok, &end, 10);
    if (end == tok || *end || errno == ERANGE || v < lo || v > hi)
        return cm_lines_fail(l, err, expect, tok);
    *out = v;
    return 0;
}

int cm_next_value_slow(cm_lines_t *l, char **cur, const char *what,
                       double *out, cm_error_t *err)
{
    char expect[200];
    char *tok = cm_token(cur), *end;
    double v;

    snprintf(expect, sizeof expect, "%s (a finite number >= 0)", what);
    if (!tok)
        return cm_lines_fail(l, err, expect, NULL);
    errno = 0;
    v = strtod(tok, &end);
    if (end == tok || *end || !isfinite(v) || v < 0)
        return cm_lines_fail(l, err, expect, tok);
    *out = v;
    return 0;
}

int cm_expect_eol_slow(cm_lines_t *l, char **cur, cm_error_t *err)
{
    char *tok = cm_token(cur);
    if (tok)
        return cm_lines_fail(l, err, "end of line", tok);
    return 0;
}

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
    int n = cm_matrix_n(m);
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% bytes sent from rank (row) to rank (column), 1-based\n");
    fprintf(f, "%d %d %zu\n", n, n, cm_matrix_nnz(m));
    put_entries(m, f, 1, 0);
    return finish_write(f, "Matrix Market", err);
}

int cm_matrix_write_triplets(const cm_matrix_t *m, FILE *f, cm_error_t *err)
{
    int has_msgs = cm_matrix_has_msgs(m);
    fprintf(f, "# src dst bytes%s (0-based ranks)\n", has_msgs ? " msgs" : "");
    fprintf(f, "# ranks %d\n", cm_matrix_n(m));
    put_entries(m, f, 0, has_msgs);
    return finish_write(f, "triplets", err);
}
