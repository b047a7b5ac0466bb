/*
 * profile_bin.c -- the binary form of a stored profile (docs/profile-format.md,
 * "Binary form"): what the store writes for profiles of more
 * than CM_PROFILE_BIN_MIN_ENTRIES entries, where JSON costs 30-45 bytes an
 * entry and seconds to parse.  The same content as the JSON document, the
 * same content checksum (cm_profile_checksum), the same checks on reading;
 * entries delta-coded, integral values as varints, the body deflated.
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "profile_internal.h"

static const unsigned char MAGIC[8] = { 0x89, 'C', 'M', 'P', 'R', 'O', 'F', '\n' };
#define HEADER_LEN 32          /* magic, u32 version, u32 flags, u64 body, u64 sum */
#define FLAG_DEFLATE 1u
#define MAX_TIME INT64_C(253402300799)

/* ---- writing ---- */

static void put(cm_sbuf_t *b, const void *data, size_t len)
{
    cm_sbuf_add(b, data, len);
}

static void put_varint(cm_sbuf_t *b, uint64_t x)
{
    unsigned char v[10];
    int k = 0;
    do {
        v[k] = (unsigned char)(x & 0x7f);
        x >>= 7;
        if (x)
            v[k] |= 0x80;
        k++;
    } while (x);
    put(b, v, (size_t)k);
}

static void put_u64le(unsigned char *at, uint64_t x)
{
    for (int k = 0; k < 8; k++)
        at[k] = (unsigned char)(x >> (8 * k));
}

static void put_str(cm_sbuf_t *b, const char *s)
{
    size_t n = strlen(s);
    put_varint(b, n);
    put(b, s, n);
}

/* A value: an integer below 2^53 as varint(2x); anything else as
 * varint(1) and its 8 bytes (finite, non-negative: the profile's own). */
static void put_value(cm_sbuf_t *b, double x)
{
    if (x == floor(x) && x < 9007199254740992.0) {
        put_varint(b, (uint64_t)x << 1);
    } else {
        unsigned char raw[8];
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        put_u64le(raw, bits);
        put_varint(b, 1);
        put(b, raw, 8);
    }
}

char *cm_profile_to_bin(const cm_profile_t *p, size_t *len, cm_error_t *err)
{
    cm_sbuf_t body = { NULL, 0, 0, 0 };
    if (!p || !len) {
        cm_error_set(err, "profile: expected a profile and a length, got NULL");
        return NULL;
    }
    put_varint(&body, (uint64_t)p->uid);
    put_varint(&body, (uint64_t)p->ntasks);
    put_varint(&body, (uint64_t)p->runs);
    put_varint(&body, (uint64_t)p->first_update);
    put_varint(&body, (uint64_t)p->last_update);
    put_varint(&body, p->has_msgs ? 1 : 0);
    put_str(&body, p->user);
    put_str(&body, p->job_name);
    put_varint(&body, (uint64_t)p->njobids);
    for (int k = 0; k < p->njobids; k++)
        put_str(&body, p->jobids[k]);
    for (int part = 0; part < 2; part++) {
        const cm_matrix_t *m = p->part[part];
        put_varint(&body, (uint64_t)cm_matrix_nnz(m));
        /* (src, dst) in order: the source's step, then the destination
         * from the row's start or from the previous one */
        int psrc = 0, pdst = -1;
        for (int i = 0; i < cm_matrix_n(m); i++) {
            const int *cols;
            const double *bytes, *msgs;
            int rl;
            cm_matrix_row(m, i, &cols, &bytes, &msgs, &rl);
            for (int k = 0; k < rl; k++) {
                put_varint(&body, (uint64_t)(i - psrc));
                put_varint(&body, (uint64_t)(i != psrc ? cols[k] : cols[k] - pdst - 1));
                if (i != psrc)
                    psrc = i;
                pdst = cols[k];
                put_value(&body, bytes[k]);
                if (p->has_msgs)
                    put_value(&body, msgs ? msgs[k] : 0);
            }
        }
    }
    if (body.failed) {
        free(body.s);
        cm_error_set(err, "profile '%s': out of memory for its binary form", p->job_name);
        return NULL;
    }
    uLongf zlen = compressBound((uLong)body.len);
    unsigned char *out = malloc(HEADER_LEN + (size_t)zlen);
    if (!out || compress2(out + HEADER_LEN, &zlen, (const Bytef *)body.s, (uLong)body.len, 6) != Z_OK) {
        free(out);
        free(body.s);
        cm_error_set(err, "profile '%s': cannot compress its binary form", p->job_name);
        return NULL;
    }
    memcpy(out, MAGIC, sizeof MAGIC);
    out[8] = CM_PROFILE_VERSION;
    out[9] = out[10] = out[11] = 0;
    out[12] = FLAG_DEFLATE;
    out[13] = out[14] = out[15] = 0;
    put_u64le(out + 16, (uint64_t)body.len);
    put_u64le(out + 24, cm_profile_checksum(p));
    free(body.s);
    *len = HEADER_LEN + (size_t)zlen;
    return (char *)out;
}

/* ---- reading ---- */

/* Inflated a window at a time: a reader holds the window and what it has
 * decoded, never the whole body (a deflated body of minimal entries
 * inflates a thousand times). */
#define WINDOW 65536
/* Entries reserved ahead in a part: the matrices then grow with what is
 * decoded, whatever count the body claims. */
#define RESERVE_AHEAD 65536
/* Entries between two looks at the clock. */
#define CLOCK_EVERY 65536

typedef struct ibuf {
    const unsigned char *d; /* the window, or the whole stored body */
    size_t have, pos;       /* bytes in d, the next one */
    uint64_t len, at;       /* the body's stated length, bytes consumed */
    z_stream *z;            /* NULL: a stored body, all in d */
    unsigned char *win;
    int zend;               /* the stream ended */
    uint64_t entries;       /* decoded so far, both parts */
    const cm_profile_expect_t *want;
    const char *name;
    cm_error_t *err;
} ibuf_t;

double cm_profile_clock(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int bad(ibuf_t *b, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(ibuf_t *b, const char *what, const char *fmt, ...)
{
    char why[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return cm_error_set(b->err, "%s: binary profile, %s at byte %" PRIu64 " of the body: %s",
                        b->name, what, b->at, why);
}

static int short_body(ibuf_t *b)
{
    return cm_error_set(b->err, "%s: binary profile: the body does not inflate to the "
                        "%" PRIu64 " bytes the header says", b->name, b->len);
}

/* The next window of a deflated body.  0, or -1 when the stream ends or
 * breaks before the stated length. */
static int refill(ibuf_t *b)
{
    if (!b->z || b->zend)
        return short_body(b);
    b->z->next_out = b->win;
    b->z->avail_out = WINDOW;
    int rc = inflate(b->z, Z_NO_FLUSH);
    b->have = WINDOW - b->z->avail_out;
    b->pos = 0;
    if (rc == Z_STREAM_END)
        b->zend = 1;
    else if (rc != Z_OK && rc != Z_BUF_ERROR)
        return short_body(b);
    return b->have ? 0 : short_body(b);
}

/* After the last field: the stream must end exactly at the stated length. */
static int body_ends(ibuf_t *b)
{
    if (!b->z)
        return 0;
    if (b->pos == b->have && !b->zend) {
        unsigned char extra;
        b->z->next_out = &extra;
        b->z->avail_out = 1;
        int rc = inflate(b->z, Z_FINISH);
        b->have = 1 - b->z->avail_out;
        b->pos = 0;
        b->zend = rc == Z_STREAM_END;
    }
    return b->pos == b->have && b->zend ? 0 : short_body(b);
}

static int get_byte(ibuf_t *b, const char *what, const char *expected, unsigned char *c)
{
    if (b->at >= b->len)
        return bad(b, what, "expected %s, got the end of the body", expected);
    if (b->pos == b->have && refill(b) < 0)
        return -1;
    *c = b->d[b->pos++];
    b->at++;
    return 0;
}

static int get_varint(ibuf_t *b, const char *what, uint64_t max, uint64_t *x)
{
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        unsigned char c;
        if (get_byte(b, what, "a number", &c) < 0)
            return -1;
        if (shift == 63 && c > 1)
            return bad(b, what, "expected a number below 2^64");
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            break;
        if (shift >= 63)
            return bad(b, what, "expected a number below 2^64");
    }
    if (v > max)
        return bad(b, what, "expected at most the field's bound, got %" PRIu64, v);
    *x = v;
    return 0;
}

/* A string of at most @p max bytes into a malloc'd, NUL-terminated copy. */
static char *get_str(ibuf_t *b, const char *what, size_t max)
{
    uint64_t n;
    if (get_varint(b, what, max, &n) < 0)
        return NULL;
    if (n > b->len - b->at) {
        bad(b, what, "a string of %" PRIu64 " bytes runs past the end of the body", n);
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        cm_error_set(b->err, "%s: out of memory", b->name);
        return NULL;
    }
    for (uint64_t k = 0; k < n; k++) {
        unsigned char c;
        if (get_byte(b, what, "the string's bytes", &c) < 0) {
            free(s);
            return NULL;
        }
        s[k] = (char)c;
    }
    s[n] = '\0';
    if (strlen(s) != (size_t)n) {
        bad(b, what, "a string holds a NUL byte");
        free(s);
        return NULL;
    }
    return s;
}

static int get_value(ibuf_t *b, const char *what, double *x)
{
    uint64_t v;
    if (get_varint(b, what, UINT64_MAX, &v) < 0)
        return -1;
    if (v & 1) {
        if (v != 1)
            return bad(b, what, "expected tag 1 before a raw value, got %" PRIu64, v);
        if (b->len - b->at < 8)
            return bad(b, what, "a raw value runs past the end of the body");
        uint64_t bits = 0;
        for (int k = 0; k < 8; k++) {
            unsigned char c;
            if (get_byte(b, what, "a raw value", &c) < 0)
                return -1;
            bits |= (uint64_t)c << (8 * k);
        }
        memcpy(x, &bits, sizeof *x);
        if (!isfinite(*x) || *x < 0)
            return bad(b, what, "expected a finite non-negative number, got bits %" PRIx64, bits);
        *x += 0.0;
        return 0;
    }
    if ((v >> 1) >= (UINT64_C(1) << 53))
        return bad(b, what, "expected an integral value below 2^53, got %" PRIu64, v >> 1);
    *x = (double)(v >> 1);
    return 0;
}

static cm_matrix_t *get_part(ibuf_t *b, const char *key, int n, int has_msgs)
{
    uint64_t nnz, ds, dd;
    if (get_varint(b, key, (uint64_t)n * (uint64_t)n, &nnz) < 0)
        return NULL;
    /* every entry takes at least 3 bytes of the body */
    if (nnz > (b->len - b->at) / 3) {
        bad(b, key, "%" PRIu64 " entries cannot fit in what is left of the body", nnz);
        return NULL;
    }
    if (nnz > (uint64_t)CM_PROFILE_MAX_ENTRIES - b->entries) {
        bad(b, key, "%" PRIu64 " entries (%" PRIu64 " before them) are above the limit of %d "
            "entries a profile", nnz, b->entries, CM_PROFILE_MAX_ENTRIES);
        return NULL;
    }
    cm_builder_t *bl = cm_builder_new(n, b->err);
    cm_matrix_t *m = NULL;
    if (!bl)
        return NULL;
    /* a little ahead of what is decoded: the arrays double as they fill */
    cm_builder_reserve(bl, (int64_t)(nnz < RESERVE_AHEAD ? nnz : RESERVE_AHEAD));
    double deadline = b->want ? b->want->deadline : 0;
    int64_t src = 0, dst = -1;
    for (uint64_t k = 0; k < nnz; k++) {
        double bytes, msgs = 0;
        if (deadline > 0 && (b->entries + k) % CLOCK_EVERY == CLOCK_EVERY - 1 &&
            cm_profile_clock() > deadline) {
            cm_error_set(b->err, "%s: binary profile: reading stopped at the deadline "
                         "after %" PRIu64 " entries", b->name, b->entries + k);
            goto out;
        }
        if (get_varint(b, key, (uint64_t)n, &ds) < 0 || get_varint(b, key, (uint64_t)n, &dd) < 0)
            goto out;
        if (ds > 0) {
            src += (int64_t)ds;
            dst = (int64_t)dd;
        } else {
            dst += (int64_t)dd + 1;
        }
        if (src >= n || dst >= n) {
            bad(b, key, "an entry's rank is past the task count (entry %" PRIu64 ")", k);
            goto out;
        }
        if (get_value(b, key, &bytes) < 0 || (has_msgs && get_value(b, key, &msgs) < 0))
            goto out;
        if (bytes == 0 && msgs == 0) {
            bad(b, key, "expected a non-zero entry (entry %" PRIu64 ")", k);
            goto out;
        }
        if (cm_builder_add(bl, (int)src, (int)dst, bytes, msgs, b->err) < 0)
            goto out;
    }
    b->entries += nnz;
    cm_builder_set_has_msgs(bl, has_msgs);
    m = cm_builder_finish(bl, b->err);
out:
    cm_builder_free(bl);
    return m;
}

int cm_profile_is_bin(const void *data, size_t len)
{
    return data && len >= sizeof MAGIC && memcmp(data, MAGIC, sizeof MAGIC) == 0;
}

/* The header fields decoded: the key a reader looks for is compared here,
 * before any entry. */
static int key_matches(ibuf_t *b, const char *job, uint64_t ntasks)
{
    const cm_profile_expect_t *w = b->want;
    if (!w || ((!w->job_name || !strcmp(w->job_name, job)) &&
               (w->ntasks <= 0 || (uint64_t)w->ntasks == ntasks)))
        return 0;
    return cm_error_set(b->err, "%s: holds the profile of '%s' with %" PRIu64 " tasks, "
                        "expected '%s' with %d tasks (fields 'job_name', 'ntasks')",
                        b->name, job, ntasks, w->job_name ? w->job_name : job,
                        w->ntasks > 0 ? w->ntasks : (int)ntasks);
}

cm_profile_t *cm_profile_parse_bin(const void *data, size_t len, const char *name,
                                   size_t max_body, cm_error_t *err)
{
    return cm_profile_parse_bin_expect(data, len, name, max_body, NULL, err);
}

cm_profile_t *cm_profile_parse_bin_expect(const void *data, size_t len, const char *name,
                                          size_t max_body, const cm_profile_expect_t *want,
                                          cm_error_t *err)
{
    const unsigned char *d = data;
    if (!name)
        name = "(profile)";
    if (!data || len < HEADER_LEN || !cm_profile_is_bin(data, len)) {
        cm_error_set(err, "%s: expected a binary profile (magic and a %d-byte header), "
                     "got %zu bytes of something else", name, HEADER_LEN, len);
        return NULL;
    }
    uint32_t version = d[8] | d[9] << 8 | d[10] << 16 | (uint32_t)d[11] << 24;
    uint32_t flags = d[12] | d[13] << 8 | d[14] << 16 | (uint32_t)d[15] << 24;
    uint64_t body_len = 0, sum = 0;
    for (int k = 0; k < 8; k++) {
        body_len |= (uint64_t)d[16 + k] << (8 * k);
        sum |= (uint64_t)d[24 + k] << (8 * k);
    }
    if (version != CM_PROFILE_VERSION) {
        cm_error_set(err, "%s: binary profile: expected version %d, got %" PRIu32, name,
                     CM_PROFILE_VERSION, version);
        return NULL;
    }
    if (flags & ~FLAG_DEFLATE) {
        cm_error_set(err, "%s: binary profile: unknown flags 0x%" PRIx32, name, flags);
        return NULL;
    }
    if (body_len > max_body) {
        cm_error_set(err, "%s: binary profile: a body of %" PRIu64 " bytes is above the "
                     "limit of %zu", name, body_len, max_body);
        return NULL;
    }
    ibuf_t b = { d + HEADER_LEN, len - HEADER_LEN, 0, body_len, 0, NULL, NULL, 0, 0,
                 want, name, err };
    z_stream z;
    memset(&z, 0, sizeof z);
    if (flags & FLAG_DEFLATE) {
        if (len - HEADER_LEN > UINT_MAX || inflateInit(&z) != Z_OK ||
            !(b.win = malloc(WINDOW))) {
            if (b.win == NULL && z.state)
                inflateEnd(&z);
            cm_error_set(err, "%s: binary profile: cannot start inflating its body", name);
            return NULL;
        }
        z.next_in = (Bytef *)(d + HEADER_LEN);
        z.avail_in = (uInt)(len - HEADER_LEN);
        b.z = &z;
        b.d = b.win;
        b.have = 0;
    } else if (body_len != len - HEADER_LEN) {
        cm_error_set(err, "%s: binary profile: expected a body of %" PRIu64 " bytes, got %zu",
                     name, body_len, len - HEADER_LEN);
        return NULL;
    }
    uint64_t uid, ntasks, runs, first, last, has_msgs, njobids;
    cm_profile_t *p = NULL;
    char *user = NULL, *job = NULL;
    if (get_varint(&b, "uid", UINT32_MAX - 1, &uid) < 0 ||
        get_varint(&b, "ntasks", CM_PROFILE_MAX_TASKS, &ntasks) < 0 ||
        get_varint(&b, "runs", CM_PROFILE_MAX_RUNS, &runs) < 0 ||
        get_varint(&b, "first_update", (uint64_t)MAX_TIME, &first) < 0 ||
        get_varint(&b, "last_update", (uint64_t)MAX_TIME, &last) < 0 ||
        get_varint(&b, "has_msgs", 1, &has_msgs) < 0)
        goto out;
    if (ntasks < 1 || runs < 1 || last < first) {
        bad(&b, "header fields", "expected ntasks >= 1, runs >= 1 and last_update >= "
            "first_update");
        goto out;
    }
    if (!(user = get_str(&b, "user", CM_PROFILE_MAX_NAME)) ||
        !(job = get_str(&b, "job_name", CM_PROFILE_MAX_NAME)) ||
        key_matches(&b, job, ntasks) < 0 ||
        get_varint(&b, "jobids", CM_PROFILE_MAX_JOBIDS, &njobids) < 0)
        goto out;
    if (!(p = cm_profile_alloc((uid_t)uid, user, job, (int)ntasks, err)))
        goto out;
    p->runs = (long)runs;
    p->first_update = (int64_t)first;
    p->last_update = (int64_t)last;
    p->has_msgs = (int)has_msgs;
    for (uint64_t k = 0; k < njobids; k++) {
        char *j = get_str(&b, "jobids", CM_PROFILE_MAX_JOBID);
        if (!j || cm_profile_check_jobid("job id", j, err) < 0 ||
            cm_profile_add_jobid(p, j, err) < 0) {
            free(j);
            goto fail;
        }
        free(j);
    }
    if (!(p->part[0] = get_part(&b, "p2p", p->ntasks, p->has_msgs)) ||
        !(p->part[1] = get_part(&b, "coll", p->ntasks, p->has_msgs)))
        goto fail;
    if (b.at != b.len) {
        bad(&b, "end", "%" PRIu64 " bytes follow the last entry", b.len - b.at);
        goto fail;
    }
    if (body_ends(&b) < 0)
        goto fail;
    /* Neither value is printed: the computed one would make a hand-made
     * file valid at the next try. */
    if (cm_profile_checksum(p) != sum) {
        cm_error_set(err, "%s: binary profile: the checksum does not match the content: "
                     "the file was modified or is corrupt", name);
        goto fail;
    }
    goto out;
fail:
    cm_profile_free(p);
    p = NULL;
out:
    free(user);
    free(job);
    if (b.z)
        inflateEnd(b.z);
    free(b.win);
    return p;
}
