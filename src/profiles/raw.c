/*
 * raw.c -- parse and validate a raw profile (see raw.h).
 *
 * The grammar is strict so that every byte of a valid file is accounted
 * for: one space between fields, '\n' after every line (the last one too),
 * no blank lines or comments, decimal integers without sign or leading
 * zeros.  A missing or wrong "end N" line means a truncated or tampered
 * file.
 */
#include "raw.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FIELDS 6

typedef struct parser {
    const char *name;
    size_t line;
    char *f[MAX_FIELDS];    /* fields of the current line */
    int nf;
    cm_error_t *err;
} parser_t;

/* A printable, bounded rendering of @p s for "got ..." (quotes added). */
static const char *show(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    buf[k++] = '"';
    for (; *s && k + 5 < n; s++)
        buf[k++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    if (*s && k + 4 < n) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k++] = '"';
    buf[k] = '\0';
    return buf;
}

static int fail(parser_t *p, const char *expected, const char *got)
{
    char b[80];
    return cm_error_set(p->err, "%s:%zu: expected %s, got %s", p->name,
                        p->line, expected, got ? show(got, b, sizeof b)
                                               : "end of file");
}

/* As fail(), with a description rather than the offending text. */
static int fail_what(parser_t *p, const char *expected, const char *what)
{
    return cm_error_set(p->err, "%s:%zu: expected %s, got %s", p->name,
                        p->line, expected, what);
}

/* Split @p line (NUL-terminated, no '\n') at single spaces. */
static int split(parser_t *p, char *line)
{
    p->nf = 0;
    for (char *s = line;;) {
        if (p->nf == MAX_FIELDS)
            return fail(p, "at most 5 fields", line);
        p->f[p->nf++] = s;
        char *sp = strchr(s, ' ');
        if (!sp)
            break;
        *sp = '\0';
        s = sp + 1;
    }
    for (int i = 0; i < p->nf; i++)
        if (!p->f[i][0])
            return fail_what(p, "fields separated by single spaces",
                             "an empty field");
    return 0;
}

/* A decimal integer in 0..max, no sign, no leading zero. */
static int uint_field(parser_t *p, const char *s, unsigned long long max,
                      const char *what, unsigned long long *v)
{
    unsigned long long x = 0;
    if (!*s || (s[0] == '0' && s[1]))
        return fail(p, what, s);
    for (const char *c = s; *c; c++) {
        /* max <= 2^53, so 10 * x + 9 cannot wrap */
        if (*c < '0' || *c > '9' || x > max / 10 ||
            10 * x + (unsigned)(*c - '0') > max)
            return fail(p, what, s);
        x = 10 * x + (unsigned)(*c - '0');
    }
    *v = x;
    return 0;
}

/* A name of [A-Za-z0-9._-], 1..n-1 characters, copied to @p out. */
static int name_field(parser_t *p, const char *s, char *out, size_t n,
                      const char *what)
{
    size_t k = strlen(s);
    if (k == 0 || k >= n || strspn(s, "abcdefghijklmnopqrstuvwxyz"
                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
                            != k)
        return fail(p, what, s);
    memcpy(out, s, k + 1);
    return 0;
}

/* Header line @p key with @p nargs arguments. */
static int header(parser_t *p, char *line, const char *key, int nargs,
                  const char *expected)
{
    if (!line)
        return fail(p, expected, NULL);
    if (split(p, line) < 0)
        return -1;
    if (strcmp(p->f[0], key) != 0 || p->nf != nargs + 1)
        return fail(p, expected, p->f[0]);
    return 0;
}

static int parse(parser_t *p, char *buf, size_t len, cm_raw_profile_t *out)
{
    char *lines = buf, *end = buf + len;
    cm_builder_t *b[2] = { NULL, NULL };
    unsigned long long v, nentries = 0;
    int rc = -1;

    /* Hands out the next line, NUL-terminated; NULL at the end. */
#define NEXT_LINE(l)                                                        \
    do {                                                                    \
        p->line++;                                                          \
        if (lines >= end) { (l) = NULL; break; }                            \
        char *nl = memchr(lines, '\n', (size_t)(end - lines));              \
        if (!nl) {                                                          \
            fail(p, "a newline at the end of the line", NULL);           \
            goto out; }                                                     \
        *nl = '\0';                                                         \
        if (memchr(lines, '\0', (size_t)(nl - lines))) {                    \
            fail_what(p, "text", "a NUL byte"); goto out; }                      \
        (l) = lines;                                                        \
        lines = nl + 1;                                                     \
    } while (0)

    char *l;
    NEXT_LINE(l);
    if (header(p, l, "clustermap-raw", 1, "\"clustermap-raw 1\"") < 0)
        goto out;
    if (strcmp(p->f[1], "1") != 0) {
        fail(p, "format version 1", p->f[1]);
        goto out;
    }
    NEXT_LINE(l);
    if (header(p, l, "ranks", 1, "\"ranks N\"") < 0 ||
        uint_field(p, p->f[1], CM_RAW_MAX_RANKS, "a rank count in 1..16777216",
                   &v) < 0)
        goto out;
    if (v == 0) {
        fail(p, "a rank count in 1..16777216", p->f[1]);
        goto out;
    }
    out->nranks = (int)v;
    NEXT_LINE(l);
    if (header(p, l, "job", 2, "\"job JOBID STEPID\"") < 0 ||
        name_field(p, p->f[1], out->jobid, sizeof out->jobid,
                   "a job id of 1..63 characters [A-Za-z0-9._-]") < 0 ||
        name_field(p, p->f[2], out->stepid, sizeof out->stepid,
                   "a step id of 1..63 characters [A-Za-z0-9._-]") < 0)
        goto out;
    NEXT_LINE(l);
    if (header(p, l, "program", 1, "\"program NAME\"") < 0 ||
        name_field(p, p->f[1], out->program, sizeof out->program,
                   "a program name of 1..127 characters [A-Za-z0-9._-]") < 0)
        goto out;

    for (int k = 0; k < 2; k++) {
        if (!(b[k] = cm_builder_new(out->nranks, p->err)))
            goto out;
        cm_builder_set_has_msgs(b[k], 1);
    }
    for (;;) {
        NEXT_LINE(l);
        if (!l) {
            fail(p, "a p2p, coll or end line", NULL);
            goto out;
        }
        if (split(p, l) < 0)
            goto out;
        int kind = !strcmp(p->f[0], "p2p") ? 0 : !strcmp(p->f[0], "coll") ? 1
                 : -1;
        if (kind < 0) {
            if (strcmp(p->f[0], "end") != 0) {
                fail(p, "p2p, coll or end", p->f[0]);
                goto out;
            }
            break;
        }
        unsigned long long s, d, by, ms;
        if (p->nf != 5) {
            fail(p, "\"p2p|coll SRC DST BYTES MSGS\"", l);
            goto out;
        }
        if (uint_field(p, p->f[1], (unsigned long long)out->nranks - 1,
                       "a source rank below the rank count", &s) < 0 ||
            uint_field(p, p->f[2], (unsigned long long)out->nranks - 1,
                       "a destination rank below the rank count", &d) < 0 ||
            uint_field(p, p->f[3], CM_RAW_MAX_VALUE,
                       "a byte count in 0..2^53", &by) < 0 ||
            uint_field(p, p->f[4], CM_RAW_MAX_VALUE,
                       "a message count in 0..2^53", &ms) < 0)
            goto out;
        if (cm_builder_add(b[kind], (int)s, (int)d, (double)by, (double)ms,
                           p->err) < 0)
            goto out;
        nentries++;
    }
    if (p->nf != 2 || uint_field(p, p->f[1], CM_RAW_MAX_VALUE,
                                 "the number of p2p and coll lines", &v) < 0) {
        if (p->nf != 2)
            fail(p, "\"end N\"", p->f[0]);
        goto out;
    }
    if (v != nentries) {
        char got[32];
        snprintf(got, sizeof got, "%llu", v);
        char want[64];
        snprintf(want, sizeof want, "end count %llu", nentries);
        fail(p, want, got);
        goto out;
    }
    NEXT_LINE(l);
    if (l) {
        fail(p, "end of file after the end line", l);
        goto out;
    }
    if (!(out->p2p = cm_builder_finish(b[0], p->err)) ||
        !(out->coll = cm_builder_finish(b[1], p->err)))
        goto out;
    rc = 0;
out:
    cm_builder_free(b[0]);
    cm_builder_free(b[1]);
    return rc;
#undef NEXT_LINE
}

int cm_raw_read_fd(int fd, const char *name, size_t max_bytes,
                   cm_raw_profile_t *out, cm_error_t *err)
{
    struct stat st;
    memset(out, 0, sizeof *out);
    if (max_bytes > SIZE_MAX / 4)
        max_bytes = SIZE_MAX / 4;
    if (!name)
        name = "(raw profile)";
    if (fstat(fd, &st) != 0)
        return cm_error_set(err, "%s: cannot stat: %s", name, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return cm_error_set(err, "%s: expected a regular file, got another "
                            "kind of file", name);
    if ((unsigned long long)st.st_size > max_bytes)
        return cm_error_set(err, "%s: expected at most %zu bytes, got %lld",
                            name, max_bytes, (long long)st.st_size);
    /* Read at most max_bytes + 1, in case the file grows meanwhile. */
    size_t cap = (size_t)st.st_size + 1, len = 0;
    if (cap > max_bytes + 1 || cap == 0)
        cap = max_bytes + 1;
    char *buf = malloc(cap + 1);
    if (!buf)
        return cm_error_set(err, "%s: out of memory", name);
    for (;;) {
        if (len == cap) {
            if (cap > max_bytes)
                break;
            size_t ncap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                return cm_error_set(err, "%s: out of memory", name);
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t k = read(fd, buf + len, cap - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            free(buf);
            return cm_error_set(err, "%s: cannot read: %s", name, strerror(e));
        }
        if (k == 0)
            break;
        len += (size_t)k;
    }
    if (len > max_bytes) {
        free(buf);
        return cm_error_set(err, "%s: expected at most %zu bytes, got more",
                            name, max_bytes);
    }
    buf[len] = '\0';
    parser_t p = { name, 0, { NULL }, 0, err };
    int rc = parse(&p, buf, len, out);
    free(buf);
    if (rc < 0)
        cm_raw_release(out);
    return rc;
}

int cm_raw_read(const char *path, size_t max_bytes, cm_raw_profile_t *out,
                cm_error_t *err)
{
    memset(out, 0, sizeof *out);
    /* O_NONBLOCK: a FIFO planted in place of the file must not hang us;
     * it is refused by the regular-file check. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ELOOP)
            return cm_error_set(err, "%s: expected a regular file, got a "
                                "symbolic link", path);
        return cm_error_set(err, "%s: cannot open: %s", path, strerror(errno));
    }
    int rc = cm_raw_read_fd(fd, path, max_bytes, out, err);
    close(fd);
    return rc;
}

void cm_raw_release(cm_raw_profile_t *p)
{
    if (!p)
        return;
    cm_matrix_free(p->p2p);
    cm_matrix_free(p->coll);
    memset(p, 0, sizeof *p);
}
