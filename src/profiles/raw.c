/*
 * raw.c -- parse and validate a raw profile (see raw.h).
 *
 * The grammar is strict so that every byte of a valid file is accounted
 * for: one space between fields, '\n' after every line (the last one too),
 * no blank lines or comments, decimal integers without sign or leading
 * zeros (times: the same, then optionally '.' and 1..9 decimals).  A
 * missing or wrong "end N" line means a truncated or tampered file.
 */
#include "raw.h"
#include "cm_file.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
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

/* A time in seconds: a decimal integer (no sign, no leading zero),
 * optionally '.' and 1..9 decimals, at most CM_RAW_MAX_SECONDS.  Parsed by
 * hand: strtod would follow the locale's decimal separator. */
static int seconds_field(parser_t *p, const char *s, const char *what,
                         double *v)
{
    unsigned long long whole = 0, frac = 0, scale = 1;
    const char *c = s;
    if (*c < '0' || *c > '9' || (c[0] == '0' && c[1] >= '0' && c[1] <= '9'))
        return fail(p, what, s);
    for (; *c >= '0' && *c <= '9'; c++) {
        whole = 10 * whole + (unsigned)(*c - '0');
        if (whole > (unsigned long long)CM_RAW_MAX_SECONDS)
            return fail(p, what, s);
    }
    if (*c == '.') {
        if (*++c < '0' || *c > '9')
            return fail(p, what, s);
        for (; *c >= '0' && *c <= '9'; c++) {
            if (scale == 1000000000ull)     /* a tenth decimal */
                return fail(p, what, s);
            frac = 10 * frac + (unsigned)(*c - '0');
            scale *= 10;
        }
    }
    double x = (double)whole + (double)frac / (double)scale;
    if (*c || x > CM_RAW_MAX_SECONDS)
        return fail(p, what, s);
    *v = x;
    return 0;
}

/* Whether line @p l (not split yet) starts with the word @p key. */
static int is_key(const char *l, const char *key)
{
    size_t n = strlen(key);
    return strncmp(l, key, n) == 0 && (l[n] == ' ' || l[n] == '\0');
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

/* Parse @p buf into @p out.  Rows go into @p ext (an assembly's builders)
 * when given, else into builders of the file's own rank count that become
 * out->p2p / out->coll.  A format 2 file (one rank's part) declares its
 * rank and may only hold rows of that source rank; it may say "traffic
 * off" (and then hold no rows) and give its "time", in that order, right
 * after "program". */
static int parse(parser_t *p, char *buf, size_t len, cm_raw_profile_t *out,
                 cm_builder_t *const ext[2])
{
    char *lines = buf, *end = buf + len;
    cm_builder_t *b[2] = { NULL, NULL };
    unsigned long long v, nentries = 0;
    int rc = -1, version;

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
    if (header(p, l, "clustermap-raw", 1, "\"clustermap-raw 1\" or "
               "\"clustermap-raw 2\"") < 0)
        goto out;
    if (strcmp(p->f[1], "1") != 0 && strcmp(p->f[1], "2") != 0) {
        fail(p, "format version 1 or 2", p->f[1]);
        goto out;
    }
    version = p->f[1][0] - '0';
    out->rank = -1;
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
    if (version == 2) {
        NEXT_LINE(l);
        if (header(p, l, "rank", 1, "\"rank R\"") < 0 ||
            uint_field(p, p->f[1], (unsigned long long)out->nranks - 1,
                       "a rank below the rank count", &v) < 0)
            goto out;
        out->rank = (int)v;
        out->nmissing = out->nranks - 1;
    }
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
    out->traffic = 1;
    NEXT_LINE(l);
    if (version == 2 && l && is_key(l, "traffic")) {
        if (header(p, l, "traffic", 1, "\"traffic off\"") < 0)
            goto out;
        if (strcmp(p->f[1], "off") != 0) {
            fail(p, "\"traffic off\"", p->f[1]);
            goto out;
        }
        out->traffic = 0;
        NEXT_LINE(l);
    }
    if (version == 2 && l && is_key(l, "time")) {
        if (header(p, l, "time", 2, "\"time ELAPSED MPI\"") < 0 ||
            seconds_field(p, p->f[1], "elapsed seconds in 0..1e9 (at most "
                          "9 decimals)", &out->elapsed_sum) < 0 ||
            seconds_field(p, p->f[2], "MPI seconds in 0..1e9 (at most 9 "
                          "decimals)", &out->mpi_sum) < 0)
            goto out;
        out->ntimed = 1;
        out->elapsed_max = out->elapsed_sum;
        out->mpi_max = out->mpi_sum;
        NEXT_LINE(l);
    }

    for (int k = 0; k < 2; k++) {
        if (ext)
            continue;
        if (!(b[k] = cm_builder_new(out->nranks, p->err)))
            goto out;
        cm_builder_set_has_msgs(b[k], 1);
    }
    cm_builder_t *const *into = ext ? ext : b;
    for (;;) {
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
        if (!out->traffic) {
            fail(p, "no p2p or coll line after \"traffic off\"", p->f[0]);
            goto out;
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
        if (out->rank >= 0 && s != (unsigned long long)out->rank) {
            fail(p, "rows of the part's own rank only", p->f[1]);
            goto out;
        }
        /* a rank's traffic to itself (libraries before it was left out)
         * is checked and counted, not kept: docs/profile-format.md */
        if (s != d && cm_builder_add(into[kind], (int)s, (int)d, (double)by,
                                     (double)ms, p->err) < 0)
            goto out;
        nentries++;
        NEXT_LINE(l);
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
    if (!ext && (!(out->p2p = cm_builder_finish(b[0], p->err)) ||
                 !(out->coll = cm_builder_finish(b[1], p->err))))
        goto out;
    rc = 0;
out:
    cm_builder_free(b[0]);
    cm_builder_free(b[1]);
    return rc;
#undef NEXT_LINE
}

/* Read the regular file @p fd (at most @p max_bytes) and parse it with
 * parse(); see cm_raw_read_fd. */
static int read_parse(int fd, const char *name, size_t max_bytes,
                      cm_raw_profile_t *out, cm_builder_t *const ext[2],
                      cm_error_t *err)
{
    cm_error_t why = { "" };
    size_t len;
    memset(out, 0, sizeof *out);
    if (max_bytes > SIZE_MAX / 4)
        max_bytes = SIZE_MAX / 4;
    if (!name)
        name = "(raw profile)";
    char *buf = cm_file_read_fd(fd, name, max_bytes, &len, &why);
    if (!buf) {
        /* the raw reader's own words, which its users match */
        if (errno == EINVAL)
            return cm_error_set(err, "%s: expected a regular file, got another "
                                "kind of file", name);
        if (errno == EFBIG && len)
            return cm_error_set(err, "%s: expected at most %zu bytes, got %zu",
                                name, max_bytes, len);
        if (errno == EFBIG)
            return cm_error_set(err, "%s: expected at most %zu bytes, got more",
                                name, max_bytes);
        return cm_error_set(err, "%s", why.msg);
    }
    parser_t p = { name, 0, { NULL }, 0, err };
    int rc = parse(&p, buf, len, out, ext);
    free(buf);
    if (rc < 0)
        cm_raw_release(out);
    return rc;
}

int cm_raw_read_fd(int fd, const char *name, size_t max_bytes,
                   cm_raw_profile_t *out, cm_error_t *err)
{
    return read_parse(fd, name, max_bytes, out, NULL, err);
}

/* ------------------------------------------------------------ assembly -- */

struct cm_raw_assembly {
    int nranks, missing;
    char *seen;                 /* [nranks] part of rank i read */
    cm_builder_t *b[2];
    cm_raw_profile_t whole;     /* no matrices: the ids and traffic flag
                                   of the first part, the timing summed
                                   over the parts added (rank -1: none) */
};

cm_raw_assembly_t *cm_raw_assembly_new(int nranks, cm_error_t *err)
{
    if (nranks < 1 || nranks > CM_RAW_MAX_RANKS) {
        cm_error_set(err, "rank count: expected 1..%d, got %d",
                     CM_RAW_MAX_RANKS, nranks);
        return NULL;
    }
    cm_raw_assembly_t *a = calloc(1, sizeof *a);
    if (!a || !(a->seen = calloc((size_t)nranks, 1)) ||
        !(a->b[0] = cm_builder_new(nranks, err)) ||
        !(a->b[1] = cm_builder_new(nranks, err))) {
        if (!a || !a->seen)
            cm_error_set(err, "out of memory");
        cm_raw_assembly_free(a);
        return NULL;
    }
    for (int k = 0; k < 2; k++)
        cm_builder_set_has_msgs(a->b[k], 1);
    a->nranks = a->missing = nranks;
    a->whole.rank = -1;
    return a;
}

int cm_raw_assembly_add_fd(cm_raw_assembly_t *a, int fd, const char *name,
                           size_t max_bytes, cm_error_t *err)
{
    cm_raw_profile_t part;
    /* Rows go straight into the assembly: check the header first on a
     * copy, so that a part that turns out wrong adds nothing... */
    if (read_parse(fd, name, max_bytes, &part, NULL, err) < 0)
        return -1;
    int rc = -1;
    if (part.rank < 0)
        cm_error_set(err, "%s: expected a one-rank part (format 2), got a "
                     "whole profile", name);
    else if (part.nranks != a->nranks)
        cm_error_set(err, "%s: expected a part of a %d-rank profile, got %d "
                     "ranks", name, a->nranks, part.nranks);
    else if (a->seen[part.rank])
        cm_error_set(err, "%s: rank %d arrived twice", name, part.rank);
    else if (a->whole.rank >= 0 && (strcmp(part.jobid, a->whole.jobid) ||
                                    strcmp(part.stepid, a->whole.stepid)))
        cm_error_set(err, "%s: part of job %s.%s, expected %s.%s", name,
                     part.jobid, part.stepid, a->whole.jobid,
                     a->whole.stepid);
    else if (a->whole.rank >= 0 && part.traffic != a->whole.traffic)
        cm_error_set(err, "%s: rank %d: \"traffic off\" in some parts but "
                     "not in others", name, part.rank);
    else
        rc = 0;
    /* ... then add its (already validated) rows. */
    for (int k = 0; rc == 0 && k < 2; k++) {
        const cm_matrix_t *m = k ? part.coll : part.p2p;
        const int *col;
        const double *by, *ms;
        int cnt;
        cm_matrix_row(m, part.rank, &col, &by, &ms, &cnt);
        for (int e = 0; rc == 0 && e < cnt; e++)
            rc = cm_builder_add(a->b[k], part.rank, col[e], by[e],
                                ms ? ms[e] : 0, err);
    }
    if (rc == 0) {
        a->seen[part.rank] = 1;
        a->missing--;
        /* one step may run several programs (MPMD): then none names it */
        if (a->whole.rank >= 0 && strcmp(part.program, a->whole.program))
            a->whole.program[0] = '\0';
        if (a->whole.rank < 0) {
            a->whole = part;   /* its ids; the matrices stay with part */
            a->whole.p2p = a->whole.coll = NULL;
        } else if (part.ntimed) {
            cm_raw_profile_t *w = &a->whole;
            w->ntimed += part.ntimed;
            w->elapsed_sum += part.elapsed_sum;
            w->mpi_sum += part.mpi_sum;
            if (part.elapsed_max > w->elapsed_max)
                w->elapsed_max = part.elapsed_max;
            if (part.mpi_max > w->mpi_max)
                w->mpi_max = part.mpi_max;
        }
    }
    cm_raw_release(&part);
    return rc;
}

int cm_raw_assembly_missing(const cm_raw_assembly_t *a)
{
    return a->missing;
}

void cm_raw_ranks_text(const char *seen, int only, int nranks, char *buf, size_t size)
{
    /* what is left for the summary: ",... and 16777215 more ranks" */
    enum { TAIL = 48 };
    size_t used = 0;
    int rest = 0;
    if (!buf || !size)
        return;
    buf[0] = '\0';
#define HAS(i) (seen ? seen[i] != 0 : (i) == only)
    int i = 0;
    while (i < nranks && HAS(i))
        i++;
    while (i < nranks) {
        int j = i, next;
        while (j + 1 < nranks && !HAS(j + 1))
            j++;
        for (next = j + 1; next < nranks && HAS(next); next++)
            ;
        char range[32];
        int w = j > i ? snprintf(range, sizeof range, "%s%d-%d", used ? "," : "", i, j)
                      : snprintf(range, sizeof range, "%s%d", used ? "," : "", i);
        /* the last range may use the room kept for the summary */
        size_t room = next < nranks ? (size > TAIL ? size - TAIL : 0) : size;
        if (!rest && used + (size_t)w < room) {
            memcpy(buf + used, range, (size_t)w + 1);
            used += (size_t)w;
        } else {
            rest += j - i + 1;
        }
        i = next;
    }
#undef HAS
    if (rest) {
        int w = snprintf(buf + used, size - used, "%s%d %s rank%s",
                         used ? ",... and " : "", rest, used ? "more" : "missing",
                         rest > 1 ? "s" : "");
        if (w < 0 || (size_t)w >= size - used)
            buf[used] = '\0';   /* a cut count would be a wrong one */
    }
}

void cm_raw_assembly_missing_text(const cm_raw_assembly_t *a, char *buf, size_t size)
{
    cm_raw_ranks_text(a ? a->seen : NULL, -1, a ? a->nranks : 0, buf, size);
}

int cm_raw_assembly_finish(cm_raw_assembly_t *a, cm_raw_profile_t *out,
                           cm_error_t *err)
{
    return cm_raw_assembly_finish_flags(a, 0, out, err);
}

int cm_raw_assembly_finish_flags(cm_raw_assembly_t *a, int flags, cm_raw_profile_t *out,
                                 cm_error_t *err)
{
    memset(out, 0, sizeof *out);
    if (a->missing && !(flags & CM_RAW_PARTIAL))
        return cm_error_set(err, "%d of %d ranks sent no profile",
                            a->missing, a->nranks);
    *out = a->whole;
    out->rank = -1;
    out->nmissing = a->missing;
    out->p2p = out->coll = NULL;
    if (!(out->p2p = cm_builder_finish(a->b[0], err)) ||
        !(out->coll = cm_builder_finish(a->b[1], err))) {
        cm_raw_release(out);
        return -1;
    }
    return 0;
}

void cm_raw_assembly_free(cm_raw_assembly_t *a)
{
    if (!a)
        return;
    cm_builder_free(a->b[0]);
    cm_builder_free(a->b[1]);
    free(a->seen);
    free(a);
}

/* A directory of parts "part.<task>.txt" (what the profiling library
 * leaves when run by hand, e.g. under mpirun): assembled, every rank
 * exactly once. */
static int read_dir(int dfd, const char *path, size_t max_bytes, int flags,
                    cm_raw_profile_t *out, cm_error_t *err)
{
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return cm_error_set(err, "%s: cannot list: %s", path, strerror(errno));
    }
    cm_raw_assembly_t *a = NULL;
    struct dirent *e;
    int rc = 0, nparts = 0;
    char name[4096];
    while (rc == 0 && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "part.", 5) || l < 10 ||
            strcmp(e->d_name + l - 4, ".txt"))
            continue;
        snprintf(name, sizeof name, "%s/%s", path, e->d_name);
        int pf = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
                        O_NONBLOCK);
        if (pf < 0) {
            rc = cm_error_set(err, "%s: cannot open: %s", name, strerror(errno));
            break;
        }
        if (!a) {   /* the first part tells the rank count */
            cm_raw_profile_t first;
            rc = cm_raw_read_fd(pf, name, max_bytes, &first, err);
            if (rc == 0 && first.rank < 0)
                rc = cm_error_set(err, "%s: expected a one-rank part (format "
                                  "2), got a whole profile", name);
            if (rc == 0 && !(a = cm_raw_assembly_new(first.nranks, err)))
                rc = -1;
            cm_raw_release(&first);
            if (rc == 0 && lseek(pf, 0, SEEK_SET) < 0)
                rc = cm_error_set(err, "%s: %s", name, strerror(errno));
        }
        if (rc == 0)
            rc = cm_raw_assembly_add_fd(a, pf, name, max_bytes, err);
        close(pf);
        nparts++;
    }
    closedir(d);
    if (rc == 0 && !nparts)
        rc = cm_error_set(err, "%s: expected part.<rank>.txt files, found none",
                          path);
    if (rc == 0 && cm_raw_assembly_missing(a) && !(flags & CM_RAW_PARTIAL)) {
        char ranks[160];
        cm_raw_assembly_missing_text(a, ranks, sizeof ranks);
        rc = cm_error_set(err, "%s: %d of %d ranks have no part; refusing an "
                          "incomplete profile (missing: %s)", path,
                          cm_raw_assembly_missing(a), a->nranks, ranks);
    }
    if (rc == 0)
        rc = cm_raw_assembly_finish_flags(a, flags, out, err);
    cm_raw_assembly_free(a);
    return rc;
}

int cm_raw_read(const char *path, size_t max_bytes, cm_raw_profile_t *out,
                cm_error_t *err)
{
    return cm_raw_read_flags(path, max_bytes, 0, out, err);
}

int cm_raw_read_flags(const char *path, size_t max_bytes, int flags,
                      cm_raw_profile_t *out, cm_error_t *err)
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
    struct stat st;
    int rc = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)
           ? read_dir(fd, path, max_bytes, flags, out, err)
           : cm_raw_read_fd(fd, path, max_bytes, out, err);
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
