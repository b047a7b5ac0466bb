/* profile.c -- the profile object: construction, merge, accessors, checksum. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

int cm_part_parse(const char *name, cm_part_t *out)
{
    static const struct { const char *name; cm_part_t part; } parts[] = {
        { "p2p", CM_PART_P2P }, { "coll", CM_PART_COLL }, { "all", CM_PART_ALL },
    };
    for (size_t k = 0; name && out && k < sizeof parts / sizeof parts[0]; k++)
        if (strcmp(name, parts[k].name) == 0) {
            *out = parts[k].part;
            return 0;
        }
    return -1;
}

int cm_profile_check_name(const char *what, const char *s, int allow_empty,
                          cm_error_t *err)
{
    size_t len = s ? strlen(s) : 0;
    if (!s || (len == 0 && !allow_empty))
        return cm_error_set(err, "%s: expected a non-empty name", what);
    if (len > CM_PROFILE_MAX_NAME)
        return cm_error_set(err, "%s: expected at most %d bytes, got %zu",
                            what, CM_PROFILE_MAX_NAME, len);
    return 0;
}

int cm_profile_check_jobid(const char *what, const char *s, cm_error_t *err)
{
    if (!s)
        return cm_error_set(err, "%s: expected 1..%d bytes, got none", what,
                            CM_PROFILE_MAX_JOBID);
    size_t len = strlen(s);
    if (len == 0 || len > CM_PROFILE_MAX_JOBID)
        return cm_error_set(err, "%s: expected 1..%d bytes, got %zu", what,
                            CM_PROFILE_MAX_JOBID, len);
    for (size_t k = 0; k < len; k++)
        if (s[k] < 0x21 || s[k] > 0x7e)
            return cm_error_set(err, "%s: expected printable ASCII without "
                                "blanks, got byte 0x%02x at %zu", what,
                                (unsigned char)s[k], k);
    return 0;
}

cm_profile_t *cm_profile_alloc(uid_t uid, const char *user,
                               const char *job_name, int ntasks,
                               cm_error_t *err)
{
    cm_profile_t *p;

    if (cm_profile_check_name("user", user, 1, err) < 0 ||
        cm_profile_check_name("job name", job_name, 0, err) < 0)
        return NULL;
    if (ntasks < 1 || ntasks > CM_PROFILE_MAX_TASKS) {
        cm_error_set(err, "task count: expected 1..%d, got %d",
                     CM_PROFILE_MAX_TASKS, ntasks);
        return NULL;
    }
    p = calloc(1, sizeof *p);
    if (!p) {
        cm_error_set(err, "profile: out of memory");
        return NULL;
    }
    p->uid = uid;
    p->user = strdup(user);
    p->job_name = strdup(job_name);
    p->ntasks = ntasks;
    p->runs = 1;
    p->has_msgs = 1;
    if (!p->user || !p->job_name) {
        cm_profile_free(p);
        cm_error_set(err, "profile: out of memory");
        return NULL;
    }
    return p;
}

/* wa * a + wb * b over the union of both patterns (either may be NULL). */
cm_matrix_t *cm_profile_combine(int n, const cm_matrix_t *a, double wa,
                                const cm_matrix_t *b, double wb, int has_msgs,
                                cm_error_t *err)
{
    const cm_matrix_t *src[2] = { a, b };
    const double w[2] = { wa, wb };
    cm_builder_t *bld = cm_builder_new(n, err);
    cm_matrix_t *m = NULL;

    if (!bld)
        return NULL;
    for (int s = 0; s < 2; s++) {
        if (!src[s])
            continue;
        if (cm_matrix_n(src[s]) != n) {
            cm_error_set(err, "matrix has %d ranks, expected %d",
                         cm_matrix_n(src[s]), n);
            goto out;
        }
        for (int i = 0; i < n; i++) {
            const int *cols;
            const double *bytes, *msgs;
            int len;
            cm_matrix_row(src[s], i, &cols, &bytes, &msgs, &len);
            for (int k = 0; k < len; k++)
                if (cm_builder_add(bld, i, cols[k], w[s] * bytes[k],
                                   has_msgs ? w[s] * msgs[k] : 0.0, err) < 0)
                    goto out;
        }
    }
    cm_builder_set_has_msgs(bld, has_msgs);
    m = cm_builder_finish(bld, err);
out:
    cm_builder_free(bld);
    return m;
}

cm_profile_t *cm_profile_new(uid_t uid, const char *user, const char *job_name,
                             int ntasks, const cm_matrix_t *p2p,
                             const cm_matrix_t *coll, time_t now,
                             cm_error_t *err)
{
    cm_profile_t *p;

    if (!p2p && !coll) {
        cm_error_set(err, "profile: expected at least one matrix");
        return NULL;
    }
    p = cm_profile_alloc(uid, user, job_name, ntasks, err);
    if (!p)
        return NULL;
    p->has_msgs = (!p2p || cm_matrix_has_msgs(p2p)) &&
                  (!coll || cm_matrix_has_msgs(coll));
    p->first_update = p->last_update = (int64_t)now;
    p->part[0] = cm_profile_combine(ntasks, p2p, 1.0, NULL, 0, p->has_msgs, err);
    p->part[1] = p->part[0] ? cm_profile_combine(ntasks, coll, 1.0, NULL, 0,
                                                 p->has_msgs, err) : NULL;
    if (!p->part[1]) {
        cm_profile_free(p);
        return NULL;
    }
    return p;
}

int cm_profile_add_jobid(cm_profile_t *p, const char *jobid, cm_error_t *err)
{
    char *copy;

    if (!p)
        return cm_error_set(err, "profile: expected a profile, got NULL");
    if (cm_profile_check_jobid("job id", jobid, err) < 0)
        return -1;
    copy = strdup(jobid);
    if (!copy)
        return cm_error_set(err, "profile: out of memory");
    if (p->njobids == CM_PROFILE_MAX_JOBIDS) {
        free(p->jobids[0]);
        memmove(p->jobids, p->jobids + 1,
                (CM_PROFILE_MAX_JOBIDS - 1) * sizeof p->jobids[0]);
        p->njobids--;
    }
    p->jobids[p->njobids++] = copy;
    return 0;
}

int cm_profile_set_key(cm_profile_t *p, uid_t uid, const char *user,
                       const char *job_name, cm_error_t *err)
{
    char *u, *j;

    if (!p)
        return cm_error_set(err, "profile: expected a profile, got NULL");
    if (cm_profile_check_name("user", user, 1, err) < 0 ||
        cm_profile_check_name("job name", job_name, 0, err) < 0)
        return -1;
    u = strdup(user);
    j = strdup(job_name);
    if (!u || !j) {
        free(u);
        free(j);
        return cm_error_set(err, "profile: out of memory");
    }
    free(p->user);
    free(p->job_name);
    p->uid = uid;
    p->user = u;
    p->job_name = j;
    return 0;
}

int cm_profile_weight_parse(const char *s, double *out)
{
    char *end;
    double w;

    if (!s || !out)
        return -1;
    if (strcmp(s, "mean") == 0) {
        *out = CM_PROFILE_WEIGHT_MEAN;
        return 0;
    }
    w = strtod(s, &end);
    if (end == s || *end || !(w > 0 && w <= 1))
        return -1;
    *out = w;
    return 0;
}

cm_profile_t *cm_profile_merge(const cm_profile_t *old, const cm_profile_t *run,
                               double weight, time_t now, cm_error_t *err)
{
    cm_profile_t *p;
    double w = weight;

    if (!old || !run) {
        cm_error_set(err, "profile merge: expected two profiles, got NULL");
        return NULL;
    }
    if (old->ntasks != run->ntasks) {
        cm_error_set(err, "cannot merge a run of %d tasks into the profile of "
                     "'%s' with %d tasks: task counts differ", run->ntasks,
                     old->job_name, old->ntasks);
        return NULL;
    }
    if (weight == CM_PROFILE_WEIGHT_MEAN)
        w = (double)run->runs / (double)(old->runs + run->runs);
    else if (!(weight > 0 && weight <= 1)) {
        cm_error_set(err, "merge weight: expected a number in (0, 1] or "
                     "'mean', got %g", weight);
        return NULL;
    }
    if (old->runs > CM_PROFILE_MAX_RUNS - run->runs) {
        cm_error_set(err, "profile '%s': run counter would exceed %ld",
                     old->job_name, (long)CM_PROFILE_MAX_RUNS);
        return NULL;
    }
    p = cm_profile_alloc(old->uid, old->user, old->job_name, old->ntasks, err);
    if (!p)
        return NULL;
    p->has_msgs = old->has_msgs && run->has_msgs;
    p->runs = old->runs + run->runs;
    p->first_update = old->first_update;
    p->last_update = (int64_t)now > old->last_update ? (int64_t)now
                                                     : old->last_update;
    for (int k = 0; k < 2; k++) {
        p->part[k] = cm_profile_combine(p->ntasks, old->part[k], 1.0 - w,
                                        run->part[k], w, p->has_msgs, err);
        if (!p->part[k])
            goto fail;
    }
    for (int k = 0; k < old->njobids; k++)
        if (cm_profile_add_jobid(p, old->jobids[k], err) < 0)
            goto fail;
    for (int k = 0; k < run->njobids; k++)
        if (cm_profile_add_jobid(p, run->jobids[k], err) < 0)
            goto fail;
    return p;
fail:
    cm_profile_free(p);
    return NULL;
}

cm_matrix_t *cm_profile_matrix(const cm_profile_t *p, cm_part_t part,
                               cm_error_t *err)
{
    if (!p) {
        cm_error_set(err, "profile: expected a profile, got NULL");
        return NULL;
    }
    const cm_matrix_t *a = (part & CM_PART_P2P) ? p->part[0] : NULL;
    const cm_matrix_t *b = (part & CM_PART_COLL) ? p->part[1] : NULL;
    return cm_profile_combine(p->ntasks, a, 1.0, b, 1.0, p->has_msgs, err);
}

const cm_matrix_t *cm_profile_part(const cm_profile_t *p, cm_part_t part)
{
    if (!p)
        return NULL;
    return part == CM_PART_COLL ? p->part[1] : p->part[0];
}

uid_t cm_profile_uid(const cm_profile_t *p) { return p ? p->uid : (uid_t)-1; }
const char *cm_profile_user(const cm_profile_t *p) { return p ? p->user : NULL; }
const char *cm_profile_job_name(const cm_profile_t *p) { return p ? p->job_name : NULL; }
int cm_profile_ntasks(const cm_profile_t *p) { return p ? p->ntasks : 0; }
long cm_profile_runs(const cm_profile_t *p) { return p ? p->runs : 0; }
int cm_profile_has_msgs(const cm_profile_t *p) { return p ? p->has_msgs : 0; }
int64_t cm_profile_first_update(const cm_profile_t *p) { return p ? p->first_update : 0; }
int64_t cm_profile_last_update(const cm_profile_t *p) { return p ? p->last_update : 0; }
int cm_profile_njobids(const cm_profile_t *p) { return p ? p->njobids : 0; }

const char *cm_profile_jobid(const cm_profile_t *p, int k)
{
    return p && k >= 0 && k < p->njobids ? p->jobids[k] : NULL;
}

/* ---- checksum: FNV-1a 64 over the byte stream of docs/profile-format.md -- */

static uint64_t put_u64(uint64_t h, uint64_t x)
{
    unsigned char le[8];
    for (int k = 0; k < 8; k++)
        le[k] = (unsigned char)(x >> (8 * k));
    return cm_fnv1a(h, le, 8);
}

static uint64_t put_str(uint64_t h, const char *s)
{
    size_t len = strlen(s);
    return cm_fnv1a(put_u64(h, len), s, len);
}

static uint64_t put_double(uint64_t h, double x)
{
    uint64_t bits;
    x += 0.0;   /* -0 and +0 are the same value */
    memcpy(&bits, &x, sizeof bits);
    return put_u64(h, bits);
}

uint64_t cm_profile_checksum(const cm_profile_t *p)
{
    uint64_t h = CM_FNV1A_START;

    if (!p)
        return 0;
    h = put_str(h, "clustermap-profile");
    h = put_u64(h, CM_PROFILE_VERSION);
    h = put_u64(h, (uint64_t)p->uid);
    h = put_str(h, p->user);
    h = put_str(h, p->job_name);
    h = put_u64(h, (uint64_t)p->ntasks);
    h = put_u64(h, (uint64_t)p->runs);
    h = put_u64(h, (uint64_t)p->first_update);
    h = put_u64(h, (uint64_t)p->last_update);
    h = put_u64(h, (uint64_t)(p->has_msgs != 0));
    h = put_u64(h, (uint64_t)p->njobids);
    for (int k = 0; k < p->njobids; k++)
        h = put_str(h, p->jobids[k]);
    for (int part = 0; part < 2; part++) {
        const cm_matrix_t *m = p->part[part];
        h = put_u64(h, (uint64_t)cm_matrix_nnz(m));
        for (int i = 0; i < p->ntasks; i++) {
            const int *cols;
            const double *bytes, *msgs;
            int len;
            cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
            for (int k = 0; k < len; k++) {
                h = put_u64(h, (uint64_t)i);
                h = put_u64(h, (uint64_t)cols[k]);
                h = put_double(h, bytes[k]);
                h = put_double(h, msgs[k]);
            }
        }
    }
    return h;
}

void cm_profile_free(cm_profile_t *p)
{
    if (!p)
        return;
    free(p->user);
    free(p->job_name);
    for (int k = 0; k < p->njobids; k++)
        free(p->jobids[k]);
    cm_matrix_free(p->part[0]);
    cm_matrix_free(p->part[1]);
    free(p);
}
