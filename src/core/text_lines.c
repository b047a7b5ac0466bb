/* text_lines.c -- the line reader and number checks the three matrix
 * readers share (read_mtx.c, read_metis.c, read_triplets.c; declared in
 * matrix_internal.h).  Kept apart from matrix_io.c, which calls the
 * readers, so that no reader and its caller depend on each other. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (at = ftello(f)) >= 0 &&
        st.st_size >= at)
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
    memset(l->mem + l->end, 0, CM_LINES_PAD); /* see cm_lines_t */
    return 0;
}

int cm_lines_next(cm_lines_t *l, cm_error_t *err)
{
    const size_t limit = (size_t)CM_MAX_LINE + 1; /* bytes that decide */
    size_t len;
    char *nl;

    if (l->again) {
        l->again = 0;
        return 1;
    }
    for (;;) {
        size_t avail = l->end - l->pos;
        nl = avail ? memchr(l->mem + l->pos, '\n', avail < limit ? avail : limit) : NULL;
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
        return cm_error_set(err, "%s:%ld: expected text, got a NUL byte", l->name,
                            l->lineno + 1);
    if (len > (size_t)CM_MAX_LINE)
        return cm_error_set(err,
                            "%s:%ld: expected a line of at most %d "
                            "bytes, got a longer one",
                            l->name, l->lineno + 1, CM_MAX_LINE);
    if (!nl && ferror(l->f))
        return cm_error_set(err, "%s:%ld: read error: %s", l->name, l->lineno + 1,
                            strerror(errno));
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

int cm_lines_fail(const cm_lines_t *l, cm_error_t *err, const char *what, const char *tok)
{
    if (!tok)
        return cm_error_set(err, "%s:%ld: expected %s, got end of line", l->name,
                            l->lineno, what);
    return cm_error_set(err, "%s:%ld: expected %s, got '%.64s%s'", l->name, l->lineno,
                        what, tok, strlen(tok) > 64 ? "..." : "");
}

/* ---- numbers (fast paths: matrix_internal.h) ---------------------------- */

const double cm_pow10_exact[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
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

int cm_next_value_slow(cm_lines_t *l, char **cur, const char *what, double *out,
                       cm_error_t *err)
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
