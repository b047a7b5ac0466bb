/* profile_json.c -- the stored profile as a JSON document: writer, bounded
 * reader and the validating parser (docs/profile-format.md). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm_file.h"
#include "profile_internal.h"

#define FORMAT_NAME "clustermap-profile"
/* Timestamps: seconds since the epoch up to the end of year 9999. */
#define MAX_TIME INT64_C(253402300799)

/* ---- writer -------------------------------------------------------------- */

static void sb_str(cm_sbuf_t *b, const char *s)
{
    cm_sbuf_add(b, s, strlen(s));
}

static void sb_printf(cm_sbuf_t *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sb_printf(cm_sbuf_t *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        b->failed = 1;
    else
        cm_sbuf_add(b, tmp, (size_t)n);
}

static void sb_string(cm_sbuf_t *b, const char *s)
{
    cm_sbuf_add(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char esc[2] = { '\\', (char)c };
            cm_sbuf_add(b, esc, 2);
        } else if (c < 0x20 || c == 0x7f) {
            sb_printf(b, "\\u%04x", c);
        } else {
            cm_sbuf_add(b, s, 1);
        }
    }
    cm_sbuf_add(b, "\"", 1);
}

/* The shortest "%.Ng" that reads back as the same double. */
static void sb_double(cm_sbuf_t *b, double x)
{
    char tmp[40];
    x += 0.0;
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, x);
        if (strtod(tmp, NULL) == x)
            break;
    }
    cm_sbuf_add(b, tmp, strlen(tmp));
}

static void sb_part(cm_sbuf_t *b, const char *key, const cm_matrix_t *m)
{
    size_t nnz = cm_matrix_nnz(m), done = 0;
    sb_printf(b, "  \"%s\": {\n    \"nnz\": %zu,\n    \"entries\": [", key, nnz);
    for (int i = 0; i < cm_matrix_n(m); i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        for (int k = 0; k < len; k++) {
            sb_printf(b, "%s\n      [%d, %d, ", done++ ? "," : "", i, cols[k]);
            sb_double(b, bytes[k]);
            sb_str(b, ", ");
            sb_double(b, msgs[k]);
            sb_str(b, "]");
        }
    }
    sb_str(b, nnz ? "\n    ]\n  }" : "]\n  }");
}

char *cm_profile_to_json(const cm_profile_t *p, size_t *len, cm_error_t *err)
{
    cm_sbuf_t b = { 0 };

    if (!p) {
        cm_error_set(err, "profile: expected a profile, got NULL");
        return NULL;
    }
    sb_printf(&b, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n",
              FORMAT_NAME, CM_PROFILE_VERSION);
    sb_printf(&b, "  \"uid\": %lu,\n  \"user\": ", (unsigned long)p->uid);
    sb_string(&b, p->user);
    sb_str(&b, ",\n  \"job_name\": ");
    sb_string(&b, p->job_name);
    sb_printf(&b, ",\n  \"ntasks\": %d,\n  \"runs\": %ld,\n", p->ntasks, p->runs);
    sb_printf(&b, "  \"first_update\": %" PRId64 ",\n  \"last_update\": %"
              PRId64 ",\n", p->first_update, p->last_update);
    sb_printf(&b, "  \"has_msgs\": %s,\n  \"jobids\": [",
              p->has_msgs ? "true" : "false");
    for (int k = 0; k < p->njobids; k++) {
        if (k)
            sb_str(&b, ", ");
        sb_string(&b, p->jobids[k]);
    }
    sb_str(&b, "],\n");
    sb_part(&b, "p2p", p->part[0]);
    sb_str(&b, ",\n");
    sb_part(&b, "coll", p->part[1]);
    sb_printf(&b, ",\n  \"checksum\": \"fnv1a64:%016" PRIx64 "\"\n}\n",
              cm_profile_checksum(p));
    if (b.failed) {
        free(b.s);
        cm_error_set(err, "profile '%s': out of memory writing JSON",
                     p->job_name);
        return NULL;
    }
    if (len)
        *len = b.len;
    return b.s;
}

int cm_profile_write_json_fd(const cm_profile_t *p, int fd, const char *name,
                             cm_error_t *err)
{
    size_t len, done = 0;
    char *text = cm_profile_to_json(p, &len, err);

    if (!text)
        return -1;
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : ENOSPC;
            free(text);
            return cm_error_set(err, "%s: write failed: %s", name, strerror(e));
        }
        done += (size_t)n;
    }
    free(text);
    return 0;
}

int cm_profile_write_json(const cm_profile_t *p, const char *path,
                          cm_error_t *err)
{
    if (!p || !path)
        return cm_error_set(err, "profile: expected a profile and a path, got "
                            "NULL");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                  0644);
    if (fd < 0)
        return cm_error_set(err, "%s: cannot create: %s", path, strerror(errno));
    if (cm_profile_write_json_fd(p, fd, path, err) < 0) {
        close(fd);
        return -1;
    }
    if (close(fd) < 0)
        return cm_error_set(err, "%s: write failed: %s", path, strerror(errno));
    return 0;
}

/* ---- bounded reading ------------------------------------------------------ */

static cm_profile_t *parse_json(const char *text, size_t len, const char *name,
                                double deadline, cm_error_t *err);

cm_profile_t *cm_profile_read_fd_expect(int fd, const char *name, size_t max_bytes,
                                        const cm_profile_expect_t *want, cm_error_t *err)
{
    size_t len, max = max_bytes ? max_bytes : CM_PROFILE_DEFAULT_MAX_BYTES;
    char *text = cm_file_read_fd(fd, name, max, &len, err);
    cm_profile_t *p;

    if (!text)
        return NULL;
    if (cm_profile_is_bin(text, len)) {
        p = cm_profile_parse_bin_expect(text, len, name, 16 * max, want, err);
    } else {
        p = parse_json(text, len, name, want ? want->deadline : 0, err);
        if (p && want && ((want->job_name && strcmp(want->job_name, p->job_name)) ||
                          (want->ntasks > 0 && want->ntasks != p->ntasks))) {
            cm_error_set(err, "%s: holds the profile of '%s' with %d tasks, expected "
                         "'%s' with %d tasks (fields 'job_name', 'ntasks')", name,
                         p->job_name, p->ntasks,
                         want->job_name ? want->job_name : p->job_name,
                         want->ntasks > 0 ? want->ntasks : p->ntasks);
            cm_profile_free(p);
            p = NULL;
        }
    }
    free(text);
    return p;
}

cm_profile_t *cm_profile_read_json_fd(int fd, const char *name,
                                      size_t max_bytes, cm_error_t *err)
{
    return cm_profile_read_fd_expect(fd, name, max_bytes, NULL, err);
}

cm_profile_t *cm_profile_read_json(const char *path, size_t max_bytes,
                                   cm_error_t *err)
{
    static const cm_file_want_t any_file = { 0, CM_FILE_ANY_OWNER, 0 };
    cm_profile_t *p;
    if (!path) {
        cm_error_set(err, "profile: expected a path, got NULL");
        return NULL;
    }
    int fd = cm_file_open_at(AT_FDCWD, path, path, &any_file, err);

    if (fd < 0) {
        if (errno == ENOENT)
            cm_error_set(err, "%s: cannot open: %s", path, strerror(ENOENT));
        return NULL;
    }
    p = cm_profile_read_json_fd(fd, path, max_bytes, err);
    close(fd);
    return p;
}

/* ---- validating parser ---------------------------------------------------- */

typedef struct jctx {
    const char *name;
    cm_error_t *err;
} jctx_t;

static int bad(const jctx_t *c, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(const jctx_t *c, const char *field, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cm_error_set(c->err, "%s: field '%s': %s", c->name, field, what);
}

static const char *a_type(json_type t)
{
    switch (t) {
    case json_type_int: return "an integer";
    case json_type_double: return "a number";
    case json_type_string: return "a string";
    case json_type_boolean: return "a boolean";
    case json_type_object: return "an object";
    case json_type_array: return "an array";
    default: return "null";
    }
}

static const char *type_name(json_object *o)
{
    return o ? a_type(json_object_get_type(o)) : "null";
}

static json_object *field(const jctx_t *c, json_object *obj, const char *key,
                          json_type type, const char *path)
{
    json_object *v;
    if (!json_object_object_get_ex(obj, key, &v)) {
        bad(c, path, "missing");
        return NULL;
    }
    if (!v || !json_object_is_type(v, type)) {
        bad(c, path, "expected %s, got %s", a_type(type), type_name(v));
        return NULL;
    }
    return v;
}

static int get_int(const jctx_t *c, json_object *v, const char *path,
                   int64_t min, int64_t max, int64_t *out)
{
    int64_t x;
    if (!v || !json_object_is_type(v, json_type_int))
        return bad(c, path, "expected an integer, got %s", type_name(v));
    errno = 0;
    x = json_object_get_int64(v);
    if (x < min || x > max || (errno == ERANGE) ||
        (x == INT64_MAX && json_object_get_uint64(v) != (uint64_t)INT64_MAX))
        return bad(c, path, "expected an integer in [%" PRId64 ", %" PRId64
                   "], got %s", min, max, json_object_get_string(v));
    *out = x;
    return 0;
}

static int int_field(const jctx_t *c, json_object *obj, const char *key,
                     int64_t min, int64_t max, int64_t *out)
{
    json_object *v = field(c, obj, key, json_type_int, key);
    return v ? get_int(c, v, key, min, max, out) : -1;
}

static int get_number(const jctx_t *c, json_object *v, const char *path,
                      double *out)
{
    double x;
    if (!v || !(json_object_is_type(v, json_type_int) ||
                json_object_is_type(v, json_type_double)))
        return bad(c, path, "expected a number, got %s", type_name(v));
    x = json_object_get_double(v);
    if (!isfinite(x) || x < 0)
        return bad(c, path, "expected a finite non-negative number, got %s",
                   json_object_get_string(v));
    *out = x + 0.0;
    return 0;
}

static int get_string(const jctx_t *c, json_object *obj, const char *key,
                      const char **out)
{
    json_object *v = field(c, obj, key, json_type_string, key);
    if (!v)
        return -1;
    if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
        return bad(c, key, "expected a string without NUL characters");
    *out = json_object_get_string(v);
    return 0;
}

static cm_matrix_t *parse_part(const jctx_t *c, json_object *root,
                               const char *key, int n, int has_msgs)
{
    char path[96];
    json_object *part = field(c, root, key, json_type_object, key), *entries;
    cm_builder_t *b = NULL;
    cm_matrix_t *m = NULL;
    int64_t nnz;
    size_t len;
    long psrc = -1, pdst = -1;

    if (!part)
        return NULL;
    json_object_object_foreach(part, k, v) {
        (void)v;
        if (strcmp(k, "nnz") && strcmp(k, "entries")) {
            snprintf(path, sizeof path, "%s.%.40s", key, k);
            bad(c, path, "unknown field in schema version %d",
                CM_PROFILE_VERSION);
            return NULL;
        }
    }
    snprintf(path, sizeof path, "%s.nnz", key);
    if (!json_object_object_get_ex(part, "nnz", NULL)) {
        bad(c, path, "missing");
        return NULL;
    }
    if (get_int(c, json_object_object_get(part, "nnz"), path, 0,
                (int64_t)n * n, &nnz) < 0)
        return NULL;
    snprintf(path, sizeof path, "%s.entries", key);
    entries = field(c, part, "entries", json_type_array, path);
    if (!entries)
        return NULL;
    len = json_object_array_length(entries);
    if ((int64_t)len != nnz) {
        bad(c, path, "expected %" PRId64 " entries (%s.nnz), got %zu", nnz,
            key, len);
        return NULL;
    }
    b = cm_builder_new(n, c->err);
    if (!b)
        return NULL;
    for (size_t k = 0; k < len; k++) {
        json_object *e = json_object_array_get_idx(entries, k);
        int64_t src, dst;
        double bytes, msgs;

        snprintf(path, sizeof path, "%s.entries[%zu]", key, k);
        if (!e || !json_object_is_type(e, json_type_array) ||
            json_object_array_length(e) != 4) {
            bad(c, path, "expected an array [src, dst, bytes, msgs], got %s",
                e && json_object_is_type(e, json_type_array) ?
                "an array of another length" : type_name(e));
            goto out;
        }
        snprintf(path, sizeof path, "%s.entries[%zu][0]", key, k);
        if (get_int(c, json_object_array_get_idx(e, 0), path, 0, n - 1, &src) < 0)
            goto out;
        snprintf(path, sizeof path, "%s.entries[%zu][1]", key, k);
        if (get_int(c, json_object_array_get_idx(e, 1), path, 0, n - 1, &dst) < 0)
            goto out;
        snprintf(path, sizeof path, "%s.entries[%zu][2]", key, k);
        if (get_number(c, json_object_array_get_idx(e, 2), path, &bytes) < 0)
            goto out;
        snprintf(path, sizeof path, "%s.entries[%zu][3]", key, k);
        if (get_number(c, json_object_array_get_idx(e, 3), path, &msgs) < 0)
            goto out;
        if (!has_msgs && msgs != 0) {
            bad(c, path, "expected 0 (has_msgs is false), got %s",
                json_object_get_string(json_object_array_get_idx(e, 3)));
            goto out;
        }
        snprintf(path, sizeof path, "%s.entries[%zu]", key, k);
        if (src < psrc || (src == psrc && dst <= pdst)) {
            bad(c, path, "expected entries sorted by (src, dst) without "
                "duplicates, got (%" PRId64 ", %" PRId64 ") after (%ld, %ld)",
                src, dst, psrc, pdst);
            goto out;
        }
        if (bytes == 0 && msgs == 0) {
            bad(c, path, "expected a non-zero entry, got bytes = msgs = 0");
            goto out;
        }
        psrc = (long)src;
        pdst = (long)dst;
        if (cm_builder_add(b, (int)src, (int)dst, bytes, msgs, c->err) < 0)
            goto out;
    }
    cm_builder_set_has_msgs(b, has_msgs);
    m = cm_builder_finish(b, c->err);
out:
    cm_builder_free(b);
    return m;
}

static const char *const known_fields[] = {
    "format", "version", "uid", "user", "job_name", "ntasks", "runs",
    "first_update", "last_update", "has_msgs", "jobids", "p2p", "coll",
    "checksum", NULL
};

static cm_profile_t *parse_root(const jctx_t *c, json_object *root)
{
    cm_profile_t *p = NULL;
    const char *format, *user, *job_name, *sum;
    int64_t version, uid, ntasks, runs, first, last;
    json_object *has_msgs, *jobids;
    char want[40];
    uint64_t h;

    if (!json_object_is_type(root, json_type_object)) {
        cm_error_set(c->err, "%s: expected a JSON object at the top level, "
                     "got %s", c->name, type_name(root));
        return NULL;
    }
    json_object_object_foreach(root, key, val) {
        int k = 0;
        (void)val;
        while (known_fields[k] && strcmp(known_fields[k], key))
            k++;
        if (!known_fields[k]) {
            char path[64];
            snprintf(path, sizeof path, "%.60s", key);
            bad(c, path, "unknown field in schema version %d",
                CM_PROFILE_VERSION);
            return NULL;
        }
    }
    if (get_string(c, root, "format", &format) < 0)
        return NULL;
    if (strcmp(format, FORMAT_NAME)) {
        bad(c, "format", "expected \"%s\", got \"%.64s\"", FORMAT_NAME, format);
        return NULL;
    }
    if (!field(c, root, "version", json_type_int, "version"))
        return NULL;
    version = json_object_get_int64(json_object_object_get(root, "version"));
    if (version != CM_PROFILE_VERSION) {
        bad(c, "version", "expected schema version %d, got %s",
            CM_PROFILE_VERSION,
            json_object_get_string(json_object_object_get(root, "version")));
        return NULL;
    }
    if (int_field(c, root, "uid", 0, UINT32_MAX - 1, &uid) < 0 ||
        get_string(c, root, "user", &user) < 0 ||
        get_string(c, root, "job_name", &job_name) < 0 ||
        int_field(c, root, "ntasks", 1, CM_PROFILE_MAX_TASKS, &ntasks) < 0 ||
        int_field(c, root, "runs", 1, CM_PROFILE_MAX_RUNS, &runs) < 0 ||
        int_field(c, root, "first_update", 0, MAX_TIME, &first) < 0 ||
        int_field(c, root, "last_update", first, MAX_TIME, &last) < 0)
        return NULL;
    if (cm_profile_check_name("x", user, 1, NULL) < 0) {
        bad(c, "user", "expected at most %d bytes", CM_PROFILE_MAX_NAME);
        return NULL;
    }
    if (cm_profile_check_name("x", job_name, 0, NULL) < 0) {
        bad(c, "job_name", "expected 1..%d bytes", CM_PROFILE_MAX_NAME);
        return NULL;
    }
    has_msgs = field(c, root, "has_msgs", json_type_boolean, "has_msgs");
    jobids = has_msgs ? field(c, root, "jobids", json_type_array, "jobids") : NULL;
    if (!jobids || get_string(c, root, "checksum", &sum) < 0)
        return NULL;
    if (json_object_array_length(jobids) > CM_PROFILE_MAX_JOBIDS) {
        bad(c, "jobids", "expected at most %d job ids, got %zu",
            CM_PROFILE_MAX_JOBIDS, json_object_array_length(jobids));
        return NULL;
    }
    p = cm_profile_alloc((uid_t)uid, user, job_name, (int)ntasks, c->err);
    if (!p)
        return NULL;
    p->runs = (long)runs;
    p->first_update = first;
    p->last_update = last;
    p->has_msgs = json_object_get_boolean(has_msgs);
    for (size_t k = 0; k < json_object_array_length(jobids); k++) {
        json_object *j = json_object_array_get_idx(jobids, k);
        char path[32];
        cm_error_t why;
        snprintf(path, sizeof path, "jobids[%zu]", k);
        if (!j || !json_object_is_type(j, json_type_string)) {
            bad(c, path, "expected a string, got %s", type_name(j));
            goto fail;
        }
        if (strlen(json_object_get_string(j)) !=
                (size_t)json_object_get_string_len(j) ||
            cm_profile_check_jobid("job id", json_object_get_string(j), &why) < 0) {
            bad(c, path, "%s", why.msg + strlen("job id: "));
            goto fail;
        }
        if (cm_profile_add_jobid(p, json_object_get_string(j), c->err) < 0)
            goto fail;
    }
    p->part[0] = parse_part(c, root, "p2p", p->ntasks, p->has_msgs);
    if (!p->part[0])
        goto fail;
    p->part[1] = parse_part(c, root, "coll", p->ntasks, p->has_msgs);
    if (!p->part[1])
        goto fail;
    h = cm_profile_checksum(p);
    snprintf(want, sizeof want, "fnv1a64:%016" PRIx64, h);
    if (strcmp(sum, want)) {
        /* the computed value is not printed: it would make a hand-made
         * file valid at the next try */
        bad(c, "checksum", "does not match the content: the file was "
            "modified or is corrupt");
        goto fail;
    }
    return p;
fail:
    cm_profile_free(p);
    return NULL;
}

/* json-c is fed this much at a time, so that a reader with a deadline
 * looks at the clock between pieces (at most about 45 MB of objects). */
#define PARSE_CHUNK ((size_t)1 << 20)

static cm_profile_t *parse_json(const char *text, size_t len, const char *name,
                                double deadline, cm_error_t *err)
{
    /* Depth 8 covers the schema (root > part > entries > entry) and stops
     * deeply nested hostile input before it costs stack. */
    json_tokener *tok;
    json_object *root;
    cm_profile_t *p = NULL;
    jctx_t c = { name, err };
    size_t end, off = 0, piece;

    if (!text) {
        cm_error_set(err, "%s: expected a JSON document, got NULL", name);
        return NULL;
    }
    /* json-c holds the whole tree, 17 to 45 bytes a byte of document: the
     * size is the only bound on its memory, so it is checked before any
     * parsing (the binary form's bound is CM_PROFILE_MAX_ENTRIES). */
    if (len > CM_PROFILE_JSON_MAX_BYTES) {
        cm_error_set(err, "%s: JSON profile of %zu bytes is above the limit of %zu "
                     "bytes for a JSON profile; delete it (clustermap profile "
                     "delete) and let the next run record it in the binary form",
                     name, len, CM_PROFILE_JSON_MAX_BYTES);
        return NULL;
    }
    if (memchr(text, '\0', len)) {
        cm_error_set(err, "%s: NUL byte at offset %zu: not a JSON document",
                     name, (size_t)((const char *)memchr(text, '\0', len) - text));
        return NULL;
    }
    tok = json_tokener_new_ex(8);
    if (!tok) {
        cm_error_set(err, "%s: out of memory", name);
        return NULL;
    }
    do {
        if (off && deadline > 0 && cm_profile_clock() > deadline) {
            cm_error_set(err, "%s: JSON profile: reading stopped at the deadline "
                         "after %zu of %zu bytes", name, off, len);
            json_tokener_free(tok);
            return NULL;
        }
        piece = len - off < PARSE_CHUNK ? len - off : PARSE_CHUNK;
        root = json_tokener_parse_ex(tok, text + off, (int)piece);
        off += piece;
    } while (!root && json_tokener_get_error(tok) == json_tokener_continue && off < len);
    /* where the parser stopped, counted from the start of the document */
    end = off - piece + json_tokener_get_parse_end(tok);
    if (!root) {
        enum json_tokener_error e = json_tokener_get_error(tok);
        if (e == json_tokener_continue)
            cm_error_set(err, "%s: truncated JSON document (ends at byte %zu)",
                         name, len);
        else
            cm_error_set(err, "%s: invalid JSON at byte %zu: %s", name, end,
                         json_tokener_error_desc(e));
        json_tokener_free(tok);
        return NULL;
    }
    json_tokener_free(tok);
    while (end < len && (text[end] == ' ' || text[end] == '\n' ||
                         text[end] == '\t' || text[end] == '\r'))
        end++;
    if (end < len)
        cm_error_set(err, "%s: unexpected data after the JSON document at byte "
                     "%zu", name, end);
    else
        p = parse_root(&c, root);
    json_object_put(root);
    return p;
}

cm_profile_t *cm_profile_parse_json(const char *text, size_t len,
                                    const char *name, cm_error_t *err)
{
    return parse_json(text, len, name, 0, err);
}
