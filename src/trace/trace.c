/*
 * ovl_trace.c -- the touch-order table of the tnbc overlay and its file
 * (ovl_trace.h; the format in docs/overlays.md, "Trace and priorities"):
 *
 *   clustermap-tnbc-trace 1
 *   # comments and blank lines anywhere
 *   site KEY COLLECTIVE N ME CALLS PEER...
 *   time KEY COLLECTIVE N ME HIDDEN_NS INIT_NS
 *
 * one "site" line per call site, with exactly N - 1 distinct PEERs in
 * [0, N) other than ME, the first touched first; at most one "time" line
 * per site, after it: the time its traced calls hid and spent inside the
 * call (trace_aside).  The parser is strict: a
 * trace steers only the order of the sub-messages, never their content,
 * but a file that is not what this code wrote is more likely a wrong file
 * than a right one, and the user is told which line is wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm_hash.h"
#include "trace.h"

static const char *const coll_name[] = { "alltoall", "alltoallv",
                                         "allgather" };
#define NCOLL (int)(sizeof coll_name / sizeof coll_name[0])

const char *trace_coll_name(int coll)
{
    return coll >= 0 && coll < NCOLL ? coll_name[coll] : NULL;
}

trace_site_t *trace_find(const trace_t *t, const char *key, int coll,
                            int n, int me)
{
    for (int i = 0; i < t->nsite; i++) {
        trace_site_t *s = t->site[i];
        if (s->coll == coll && s->n == n && s->me == me &&
            strcmp(s->key, key) == 0)
            return s;
    }
    return NULL;
}

static void site_free(trace_site_t *s)
{
    if (!s)
        return;
    free(s->sum);
    free(s->order);
    free(s);
}

trace_site_t *trace_add(trace_t *t, const char *key, int coll, int n,
                           int me)
{
    trace_site_t *s = trace_find(t, key, coll, n, me);
    if (s)
        return s;
    if (!trace_coll_name(coll) || n < 2 || n > TRACE_NMAX ||
        me < 0 || me >= n || strlen(key) >= TRACE_KEYMAX)
        return NULL;
    if (t->nsite == t->cap) {
        int cap = t->cap ? 2 * t->cap : 8;
        trace_site_t **v = realloc(t->site, (size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        t->site = v;
        t->cap = cap;
    }
    s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->sum = calloc((size_t)n, sizeof *s->sum);
    s->order = malloc((size_t)(n - 1) * sizeof *s->order);
    if (!s->sum || !s->order) {
        site_free(s);
        return NULL;
    }
    strcpy(s->key, key);
    s->coll = coll;
    s->n = n;
    s->me = me;
    trace_order(s);
    t->site[t->nsite++] = s;
    return s;
}

/* The rule that steps a site aside, on one rank's times or on all ranks'
 * summed: it hid no more than it spent inside the calls. */
static int hid_no_more(uint64_t hidden_ns, uint64_t init_ns)
{
    return hidden_ns <= init_ns;
}

int trace_aside(const trace_site_t *s)
{
    return s->timed && hid_no_more(s->hidden_ns, s->init_ns);
}

void trace_order(trace_site_t *s)
{
    /* insertion by sum, stable in rank order: n is a communicator's size
     * and this runs once per site at MPI_Finalize */
    int k = 0;
    for (int j = 0; j < s->n; j++) {
        if (j == s->me)
            continue;
        int i = k++;
        while (i > 0 && s->sum[s->order[i - 1]] > s->sum[j]) {
            s->order[i] = s->order[i - 1];
            i--;
        }
        s->order[i] = j;
    }
}

void trace_free(trace_t *t)
{
    for (int i = 0; i < t->nsite; i++)
        site_free(t->site[i]);
    free(t->site);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------ parsing -- */

typedef struct cursor {
    const char *p, *end;   /* the rest of the current line */
} cursor_t;

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The next blank-separated token of the line: its start and length in
 * *tok, *len; 0 at the end of the line. */
static int token(cursor_t *c, const char **tok, size_t *len)
{
    while (c->p < c->end && blank(*c->p))
        c->p++;
    const char *s = c->p;
    while (c->p < c->end && !blank(*c->p))
        c->p++;
    *tok = s;
    *len = (size_t)(c->p - s);
    return *len > 0;
}

/* A decimal in [0, max] as the next token; -1 when absent or not one. */
static long long number(cursor_t *c, long long max)
{
    const char *s;
    size_t len;
    long long v = 0;
    if (!token(c, &s, &len) || len > 19)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        /* compared before it grows, so that no digit overflows v */
        int d = s[i] - '0';
        if (max - d < 0 || v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    return v;
}

static int fail(char *err, size_t errn, const char *name, int line,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail(char *err, size_t errn, const char *name, int line,
                const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err, errn, "%s:%d: %s", name, line, what);
    return -1;
}

/* A site's name on a line (KEY COLLECTIVE N ME), after the line's first
 * word @p kind: into @p key, *coll, *n, *me; NULL, or the reason it is
 * wrong. */
static const char *site_id(cursor_t *c, const char *kind, char *key,
                           int *coll, long long *n, long long *me)
{
    int site = strcmp(kind, "site") == 0;
    const char *s;
    size_t len;
    *coll = -1;
    if (!token(c, &s, &len))
        return site ? "a site line without its key"
                    : "a time line without its key";
    if (len >= TRACE_KEYMAX)
        return "a key longer than 127 bytes";
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
            return "a key with a character that is not printable";
    memcpy(key, s, len);
    key[len] = '\0';
    if (!token(c, &s, &len))
        return site ? "a site line without its collective"
                    : "a time line without its collective";
    for (int k = 0; k < NCOLL; k++)
        if (strlen(coll_name[k]) == len && memcmp(coll_name[k], s, len) == 0)
            *coll = k;
    if (*coll < 0)
        return "an unknown collective (alltoall, alltoallv, allgather)";
    *n = number(c, TRACE_NMAX);
    if (*n < 2)
        return "a communicator size that is not a number from 2 to 16777216";
    *me = number(c, *n - 1);
    if (*me < 0)
        return "a rank that is not a number below the size";
    return NULL;
}

/* One "site" line after its first word, into @p t; NULL, or the reason
 * it is wrong. */
static const char *site_line(trace_t *t, cursor_t *c)
{
    const char *s;
    size_t len;
    char key[TRACE_KEYMAX];
    int coll;
    long long n, me;
    const char *why = site_id(c, "site", key, &coll, &n, &me);
    if (why)
        return why;
    if (number(c, (long long)1 << 62) < 1)
        return "a call count that is not a positive number";
    if (trace_find(t, key, coll, (int)n, (int)me))
        return "the same site twice";
    trace_site_t *st = trace_add(t, key, coll, (int)n, (int)me);
    if (!st)
        return "out of memory";
    /* sum[] marks the peers seen: the order as read is the order kept */
    for (int i = 0; i < n - 1; i++) {
        long long j = number(c, n - 1);
        if (j < 0)
            return "fewer peers than the size minus one, or one that is "
                   "not a rank";
        if (j == me || st->sum[j])
            return "a peer twice, or the rank itself";
        st->sum[j] = 1;
        st->order[i] = (int)j;
    }
    if (token(c, &s, &len))
        return "more peers than the size minus one";
    memset(st->sum, 0, (size_t)n * sizeof *st->sum);
    st->calls = 0;   /* the order is what was read; nothing recorded */
    return NULL;
}

/* One "time" line after its first word, onto its site in @p t; NULL, or
 * the reason it is wrong. */
static const char *time_line(trace_t *t, cursor_t *c)
{
    const char *s;
    size_t len;
    char key[TRACE_KEYMAX];
    int coll;
    long long n, me;
    const char *why = site_id(c, "time", key, &coll, &n, &me);
    if (why)
        return why;
    trace_site_t *st = trace_find(t, key, coll, (int)n, (int)me);
    if (!st)
        return "a time line before its site line";
    if (st->timed)
        return "the same site's time twice";
    long long hid = number(c, (long long)1 << 62);
    long long init = hid < 0 ? -1 : number(c, (long long)1 << 62);
    if (init < 0)
        return "a time line without its two times (hidden, inside the "
               "call: numbers of nanoseconds)";
    if (token(c, &s, &len))
        return "more than two times on a time line";
    st->hidden_ns = (uint64_t)hid;
    st->init_ns = (uint64_t)init;
    st->timed = 1;
    return NULL;
}

int trace_parse(trace_t *t, const char *text, size_t len,
                    const char *name, char *err, size_t errn)
{
    const char *p = text, *end = text + len;
    int line = 0, header = 0;
    if (memchr(text, '\0', len))
        return fail(err, errn, name, 1, "not a text file (a NUL byte)");
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        cursor_t c = { p, nl ? nl : end };
        const char *s;
        size_t tl;
        line++;
        p = nl ? nl + 1 : end;
        if (!token(&c, &s, &tl) || *s == '#')
            continue;
        if (!header) {
            cursor_t h = { s, c.end };
            while (h.end > h.p && blank(h.end[-1]))
                h.end--;
            if ((size_t)(h.end - h.p) != strlen(TRACE_MAGIC) ||
                memcmp(h.p, TRACE_MAGIC, strlen(TRACE_MAGIC)) != 0) {
                trace_free(t);
                return fail(err, errn, name, line,
                            "not a tnbc trace (expected \"" TRACE_MAGIC
                            "\")");
            }
            header = 1;
            continue;
        }
        const char *why = tl == 4 && memcmp(s, "site", 4) == 0
                              ? site_line(t, &c)
                          : tl == 4 && memcmp(s, "time", 4) == 0
                              ? time_line(t, &c)
                              : "a line that is neither a site nor a time";
        if (why) {
            trace_free(t);
            return fail(err, errn, name, line, "%s", why);
        }
    }
    if (!header)
        return fail(err, errn, name, line ? line : 1,
                    "empty (expected \"" TRACE_MAGIC "\")");
    return 0;
}

/* ------------------------------------------- every rank's times -- */

/* The site's identity for the agreement: (key, collective, size), never
 * 0 nor ~0 (the marks of an empty and of a shared slot). */
static uint64_t agree_id(const char *key, int coll, int n)
{
    uint64_t h = cm_fnv1a(CM_FNV1A_START, key, strlen(key) + 1);
    h = cm_fnv1a(h, &coll, sizeof coll);
    h = cm_fnv1a(h, &n, sizeof n);
    return h == 0 ? 1 : h == UINT64_MAX ? UINT64_MAX - 1 : h;
}

void trace_agree_mine(const trace_t *t, uint64_t *ids,
                          uint64_t *sums)
{
    memset(ids, 0, 2 * TRACE_AGREE_SLOTS * sizeof *ids);
    memset(sums, 0, 2 * TRACE_AGREE_SLOTS * sizeof *sums);
    for (int i = 0; t && i < t->nsite; i++) {
        const trace_site_t *s = t->site[i];
        if (!s->timed)
            continue;
        uint64_t h = agree_id(s->key, s->coll, s->n);
        size_t k = h % TRACE_AGREE_SLOTS;
        if (ids[k] && ids[k] != h)   /* two of this rank's sites: shared */
            ids[k] = ids[TRACE_AGREE_SLOTS + k] = UINT64_MAX;
        else if (!ids[k]) {
            ids[k] = h;
            ids[TRACE_AGREE_SLOTS + k] = ~h;
        }
        sums[k] += s->hidden_ns;
        sums[TRACE_AGREE_SLOTS + k] += s->init_ns;
    }
}

int trace_agreed(const uint64_t *ids, const uint64_t *sums,
                     const char *key, int coll, int n)
{
    uint64_t h = agree_id(key, coll, n);
    size_t k = h % TRACE_AGREE_SLOTS;
    /* every rank that had a site in the slot had this one: the largest id
     * is it, and so is the smallest (the largest of the complements) */
    if (ids[k] != h || ~ids[TRACE_AGREE_SLOTS + k] != h)
        return -1;
    return hid_no_more(sums[k], sums[TRACE_AGREE_SLOTS + k]);
}

/* The time line of site (@p key, @p coll, @p n, @p me) with its two times
 * into @p buf (size @p size): what snprintf returns.  The one spelling of
 * the line, for the writer and for trace_retime. */
static int time_text(char *buf, size_t size, const char *key, int coll, int n,
                     int me, uint64_t hidden_ns, uint64_t init_ns)
{
    return snprintf(buf, size, "time %s %s %d %d %llu %llu\n", key,
                    coll_name[coll], n, me, (unsigned long long)hidden_ns,
                    (unsigned long long)init_ns);
}

int trace_total(trace_t *tot, const trace_t *t)
{
    for (int i = 0; i < t->nsite; i++) {
        const trace_site_t *s = t->site[i];
        if (!s->timed)
            continue;
        trace_site_t *m = trace_add(tot, s->key, s->coll, s->n, 0);
        if (!m)
            return -1;
        m->hidden_ns += s->hidden_ns;
        m->init_ns += s->init_ns;
        m->timed = 1;
        m->calls++;
    }
    return 0;
}

char *trace_retime(const char *text, size_t len, const trace_t *tot,
                       size_t *outlen)
{
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    /* a rewritten line is at most 40 bytes longer: two 20-digit numbers */
    size_t cap = len + 40 * lines + 1, used = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *next = nl ? nl + 1 : end;
        cursor_t c = { p, nl ? nl : end };
        const char *w;
        size_t wl;
        char key[TRACE_KEYMAX];
        int coll;
        long long n, me;
        const trace_site_t *m = NULL;
        if (token(&c, &w, &wl) && wl == 4 && memcmp(w, "time", 4) == 0 &&
            !site_id(&c, "time", key, &coll, &n, &me))
            m = trace_find(tot, key, coll, (int)n, 0);
        if (m && m->timed)
            used += (size_t)time_text(out + used, cap - used, key, coll,
                                      (int)n, (int)me, m->hidden_ns,
                                      m->init_ns);
        else {
            memcpy(out + used, p, (size_t)(next - p));
            used += (size_t)(next - p);
        }
        p = next;
    }
    out[used] = '\0';
    *outlen = used;
    return out;
}

/* ------------------------------------------------------ the file -- */

int trace_load(trace_t *t, const char *path, char *err, size_t errn)
{
    /* Every rank opens it in MPI_Init: a FIFO or a device in its place
     * must not hold them there (O_NONBLOCK), nor a link lead elsewhere. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errn, "%s: %s", path,
                 e == ELOOP ? "is a symbolic link; refusing to follow it"
                            : strerror(e));
        return -2;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(err, errn, "%s: not a regular file", path);
        close(fd);
        return -2;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        snprintf(err, errn, "%s: %s", path, strerror(e));
        close(fd);
        return -2;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    int rc = 0;
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
        if (cap >= TRACE_MAXFILE) {
            snprintf(err, errn, "%s: longer than %u bytes", path,
                     TRACE_MAXFILE);
            rc = -1;
            break;
        }
        char *nb = realloc(buf, 2 * cap);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    if (!buf) {
        snprintf(err, errn, "%s: out of memory", path);
        rc = -1;
    } else if (!rc && ferror(f)) {
        snprintf(err, errn, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    fclose(f);
    if (!rc)
        rc = trace_parse(t, buf, len, path, err, errn);
    free(buf);
    return rc;
}

int trace_write(trace_t *t, const char *path, char *err, size_t errn)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >=
        (int)sizeof tmp) {
        snprintf(err, errn, "%s: %s", path, strerror(ENAMETOOLONG));
        return -1;
    }
    /* a new file only: whatever is already there under the temporary
     * name (a link, a FIFO that would block) is not written through */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {   /* named as the user named it, not by the temporary */
        snprintf(err, errn, "%s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        return -1;
    }
    fprintf(f, TRACE_MAGIC "\n"
               "# site KEY COLLECTIVE N ME CALLS PEER... (first touched "
               "first; docs/overlays.md)\n"
               "# time KEY COLLECTIVE N ME HIDDEN_NS INIT_NS\n");
    for (int i = 0; i < t->nsite; i++) {
        trace_site_t *s = t->site[i];
        if (!s->calls)
            continue;
        trace_order(s);
        fprintf(f, "site %s %s %d %d %llu", s->key, coll_name[s->coll], s->n,
                s->me, (unsigned long long)s->calls);
        for (int k = 0; k < s->n - 1; k++)
            fprintf(f, " %d", s->order[k]);
        fputc('\n', f);
        char tl[TRACE_KEYMAX + 96];   /* the key and 5 numbers */
        if (s->timed) {
            time_text(tl, sizeof tl, s->key, s->coll, s->n, s->me,
                      s->hidden_ns, s->init_ns);
            fputs(tl, f);
        }
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        snprintf(err, errn, "%s: %s", path, strerror(errno ? errno : EIO));
        unlink(tmp);
        return -1;
    }
    return 0;
}
