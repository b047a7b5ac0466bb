/*
 * store_trace.c -- the tnbc overlay's touch-order traces kept beside a
 * profile (T-NBC's section 5; docs/overlays.md, "Trace and priorities").
 *
 * A step run with tnbc by the plugin has each rank write its trace into
 * the node's private directory; at the step's end each node delivers, as
 * the user, every local task's trace into the step's staging directory
 * (cm_store_trace_put, before the task's status), checked by the overlay's
 * own parser (ovl_trace.c is plain C, linked into this library too).  The
 * node that records the run moves them, when every task sent one, into a
 * new directory and exchanges it with the profile's "<profile>.tnbc"
 * under the store's lock (renameat2 RENAME_EXCHANGE; on a file system
 * without it, two renames with a moment without a trace, which a reader
 * takes for "no trace").  Readers are the ranks of a later step
 * (CLUSTERMAP_OVERLAY_PRIO=<dir>/tnbc, each opens its own file): a
 * directory is never changed in place, so each file a rank opens is whole.
 * Before the move, every file's time lines get the times of all ranks
 * summed (agree_times), so that the ranks of a later step, each reading
 * its own file, decide alike whether a site steps aside.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"
#include "store_internal.h"

/* A staged or kept rank's file: the directory it is in is the user's
 * private one (checked when opened), so any regular file of it. */
static const cm_file_want_t any_file = { 0, CM_FILE_ANY_OWNER, 0 };

/* The largest trace file taken: the store's bound and the overlay's. */
static size_t trace_bound(const cm_store_t *s)
{
    size_t b = cm_store_max_bytes(s);
    return b && b < TRACE_MAXFILE ? b : TRACE_MAXFILE;
}

/* Parse @p len bytes of @p text (named @p name): its call sites, or -1
 * with @p err. */
static int trace_check(const char *text, size_t len, const char *name,
                       cm_error_t *err)
{
    trace_t t = { 0 };
    char why[512];
    if (trace_parse(&t, text, len, name, why, sizeof why) < 0)
        return cm_error_set(err, "%s", why);
    int sites = t.nsite;
    trace_free(&t);
    return sites;
}

int cm_store_trace_put(cm_store_t *s, const char *step, int task, int fd,
                       cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char name[32], shown[48];
    size_t len;
    if (task < 0 || task >= CM_PROFILE_MAX_TASKS)
        return cm_error_set(err, "task %d: out of range", task);
    snprintf(shown, sizeof shown, "task %d's trace", task);
    char *text = cm_file_read_fd(fd, shown, trace_bound(s), &len, err);
    if (!text)
        return -1;
    int rc = trace_check(text, len, shown, err) < 0 ? -1 : 0;
    int dir = rc == 0 ? cm_store_stage_open(s, step, 1, err) : -1;
    if (dir < 0)
        rc = -1;
    else {
        snprintf(name, sizeof name, "%d" CM_TRACE_SUFFIX, task);
        /* no NUL in it (the parser refused one): the text is one string */
        rc = cm_store_put_file(dir, name, -1, text, len, err);
        close(dir);
    }
    free(text);
    return rc;
}

/* "<profile file name>.tnbc" of (job_name, ntasks). */
static int trace_name(const char *job_name, int ntasks, char *buf, size_t n,
                      cm_error_t *err)
{
    return cm_store_sidecar_name(job_name, ntasks, CM_SIDE_TRACE, buf, n, err);
}

/* Open the trace directory @p side of the user directory: the user's, no
 * link, no group or world bits.  Its descriptor; -1 with errno ENOENT
 * when there is none, other errno (EPERM: not the user's private
 * directory) otherwise. */
static int trace_open(const cm_store_t *s, const char *side)
{
    cm_file_want_t want = { 1, cm_store_uid(s), 077 };
    return cm_file_open_at(cm_store_dirfd(s), side, side, &want, NULL);
}

/* Remove the entry @p name of the user directory: a trace directory (or
 * what a killed writer left under a temporary name), or whatever a user
 * put there instead. */
static void remove_entry(const cm_store_t *s, const char *name)
{
    int dfd = cm_store_dirfd(s);
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        unlinkat(dfd, name, 0);
        return;
    }
    cm_store_dir_remove(dfd, fd, name);
    close(fd);
}

/* Lock held: the temporary directories of this profile's trace that
 * killed writers left (".<side>.new.<pid>", ".<side>.old.<pid>"). */
static void remove_stale(const cm_store_t *s, const char *side)
{
    char pre[320];
    DIR *d = cm_store_list_dir(cm_store_dirfd(s));
    if (!d)
        return;
    snprintf(pre, sizeof pre, ".%s.", side);
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, pre, strlen(pre)))
            remove_entry(s, e->d_name);
    closedir(d);
}

int cm_store_trace_remove_locked(cm_store_t *s, const char *side,
                                 cm_error_t *err)
{
    struct stat st;
    remove_stale(s, side);
    if (fstatat(cm_store_dirfd(s), side, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0
             : cm_error_set(err, "%s/%s: cannot stat: %s", cm_store_dir(s),
                            side, strerror(errno));
    remove_entry(s, side);
    if (fstatat(cm_store_dirfd(s), side, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return cm_error_set(err, "%s/%s: cannot remove it", cm_store_dir(s),
                            side);
    return 1;
}

int cm_store_trace_remove(cm_store_t *s, const char *job_name, int ntasks,
                          cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char side[CM_STORE_SIDE_NAME];
    if (trace_name(job_name, ntasks, side, sizeof side, err) < 0)
        return -1;
    if (cm_store_dirfd(s) < 0)
        return 0;
    int lock = cm_store_lock_take(s, err);
    if (lock < 0)
        return -1;
    int rc = cm_store_trace_remove_locked(s, side, err);
    cm_store_lock_release(lock);
    return rc;
}

/* Lock held: the staged traces of tasks [0, ntasks) of @p stage into a new
 * directory, exchanged with @p side.  0 or -1 with @p err. */
static int replace_locked(cm_store_t *s, int stage, const char *side,
                          int ntasks, cm_error_t *err)
{
    int dfd = cm_store_dirfd(s);
    char tmp[320], from[32], to[48];
    remove_stale(s, side);
    snprintf(tmp, sizeof tmp, ".%s.new.%ld", side, (long)getpid());
    if (mkdirat(dfd, tmp, 0700) < 0)
        return cm_error_set(err, "%s/%s: cannot create: %s", cm_store_dir(s),
                            tmp, strerror(errno));
    int nd = openat(dfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = nd < 0 ? cm_error_set(err, "%s/%s: cannot open: %s",
                                   cm_store_dir(s), tmp, strerror(errno))
                    : 0;
    /* the staging directory is in the same user directory: renames */
    for (int t = 0; rc == 0 && t < ntasks; t++) {
        snprintf(from, sizeof from, "%d" CM_TRACE_SUFFIX, t);
        snprintf(to, sizeof to, CM_TRACE_PREFIX ".%d", t);
        if (renameat(stage, from, nd, to) < 0)
            rc = cm_error_set(err, "task %d's trace: %s", t, strerror(errno));
    }
    if (rc == 0 && fsync(nd) < 0)
        rc = cm_error_set(err, "%s/%s: cannot sync: %s", cm_store_dir(s), tmp,
                          strerror(errno));
    if (nd >= 0)
        close(nd);
    if (rc == 0 && renameat2(dfd, tmp, dfd, side, RENAME_EXCHANGE) == 0) {
        remove_entry(s, tmp);   /* the old trace, under the temporary name */
    } else if (rc == 0 && errno != ENOENT) {
        /* no exchange here (NFS before 4.2, ...): the old one goes first */
        char old[320];
        snprintf(old, sizeof old, ".%s.old.%ld", side, (long)getpid());
        if (renameat(dfd, side, dfd, old) < 0 ||
            renameat(dfd, tmp, dfd, side) < 0)
            rc = cm_error_set(err, "%s/%s: cannot replace: %s", cm_store_dir(s),
                              side, strerror(errno));
        remove_entry(s, old);
    } else if (rc == 0 && renameat(dfd, tmp, dfd, side) < 0) {
        rc = cm_error_set(err, "%s/%s: cannot create: %s", cm_store_dir(s),
                          side, strerror(errno));
    }
    if (rc < 0)
        remove_entry(s, tmp);
    if (rc == 0 && fsync(dfd) < 0)
        rc = cm_error_set(err, "%s: cannot sync the directory: %s",
                          cm_store_dir(s), strerror(errno));
    return rc;
}

/* Staged trace "<task>.tnbc" of @p stage: its text (malloc'd, *len
 * bytes) when it is a regular file within the bound and, with @p t, when
 * it parses (into @p t); else NULL.  Without @p t it is not parsed again:
 * trace_retime changes only the lines that parse as time lines. */
static char *staged_text(const cm_store_t *s, int stage, int task,
                         trace_t *t, size_t *len)
{
    char name[32], why[512];
    cm_error_t err = { "" };
    snprintf(name, sizeof name, "%d" CM_TRACE_SUFFIX, task);
    int fd = cm_file_open_at(stage, name, name, &any_file, NULL);
    if (fd < 0)
        return NULL;
    char *text = cm_file_read_fd(fd, name, trace_bound(s), len, &err);
    close(fd);
    if (text && t && trace_parse(t, text, *len, name, why, sizeof why) < 0) {
        free(text);
        text = NULL;
    }
    return text;
}

/* Every staged trace of tasks [0, ntasks) of @p stage rewritten with each
 * site's two times summed over the ranks (trace_total, _retime): a
 * rank decides alone from its own file (trace_aside), and ranks that
 * decide differently stay correct (their sub-messages match) but run at
 * the pace of the slower choice.  Best effort: on any failure the files
 * keep the ranks' own times (a file already rewritten keeps the sums). */
static void agree_times(const cm_store_t *s, int stage, int ntasks)
{
    trace_t tot = { 0 };
    size_t len;
    int ok = 1;
    for (int task = 0; ok && task < ntasks; task++) {
        trace_t t = { 0 };
        char *text = staged_text(s, stage, task, &t, &len);
        ok = text && trace_total(&tot, &t) == 0;
        trace_free(&t);
        free(text);
    }
    for (int task = 0; ok && tot.nsite && task < ntasks; task++) {
        char name[32];
        cm_error_t err = { "" };
        char *text = staged_text(s, stage, task, NULL, &len), *out;
        size_t olen;
        out = text ? trace_retime(text, len, &tot, &olen) : NULL;
        snprintf(name, sizeof name, "%d" CM_TRACE_SUFFIX, task);
        ok = out && cm_store_put_file(stage, name, -1, out, trace_bound(s),
                                      &err) == 0;
        free(out);
        free(text);
    }
    trace_free(&tot);
}

/* How many of tasks [0, ntasks) have a staged trace in @p stage. */
static int staged(int stage, int ntasks)
{
    char name[32];
    struct stat st;
    int k = 0;
    for (int t = 0; t < ntasks; t++) {
        snprintf(name, sizeof name, "%d" CM_TRACE_SUFFIX, t);
        k += fstatat(stage, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
             S_ISREG(st.st_mode);
    }
    return k;
}

void cm_store_trace_stage(cm_store_t *s, int dir, const char *job_name,
                          int ntasks, cm_trace_staged_t *t)
{
    memset(t, 0, sizeof *t);
    t->have = staged(dir, ntasks);
    if (cm_store_filename(job_name, ntasks, t->fname, sizeof t->fname,
                          NULL) < 0)
        t->fname[0] = '\0';
    else if (t->have == ntasks)
        agree_times(s, dir, ntasks);
}

void cm_store_trace_keep_locked(cm_store_t *s, int dir, int ntasks,
                                const cm_trace_staged_t *t, int drop,
                                const char *no_lock, char *note, size_t n)
{
    char side[CM_STORE_SIDE_NAME];
    cm_error_t err = { "" };
    size_t at = strlen(note);
    int rc;
    if ((!t->have && !drop) || !t->fname[0])
        return;
    if (t->have && t->have < ntasks) {
        snprintf(note + at, n - at, "; %d of %d tasks sent no tnbc trace: the "
                 "kept trace is unchanged", ntasks - t->have, ntasks);
        return;
    }
    if (no_lock)
        rc = cm_error_set(&err, "%s", no_lock);
    else if (cm_store_side_name(t->fname, CM_SIDE_TRACE, side, sizeof side,
                                &err) < 0)
        rc = -1;
    else if (!t->have)
        rc = cm_store_trace_remove_locked(s, side, &err) < 0 ? -1 : 0;
    else
        rc = replace_locked(s, dir, side, ntasks, &err);
    if (rc < 0)
        snprintf(note + at, n - at, "; tnbc trace not kept: %s", err.msg);
    else if (t->have)
        snprintf(note + at, n - at, "; kept its tnbc trace");
}

/* Every rank's file of the open trace directory @p fd: how many there are
 * (regular, the user's, within the bound) and their bytes. */
static int count_ranks(const cm_store_t *s, int fd, int ntasks,
                       uint64_t *bytes)
{
    char name[48];
    struct stat st;
    int k = 0;
    *bytes = 0;
    for (int t = 0; t < ntasks; t++) {
        snprintf(name, sizeof name, CM_TRACE_PREFIX ".%d", t);
        if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) && st.st_uid == cm_store_uid(s) &&
            (uint64_t)st.st_size <= trace_bound(s)) {
            k++;
            *bytes += (uint64_t)st.st_size;
        }
    }
    return k;
}

/* The call sites of rank 0's file, -1 when it cannot be read. */
static int rank0_sites(const cm_store_t *s, int fd)
{
    cm_error_t err;
    size_t len;
    int f = cm_file_open_at(fd, CM_TRACE_PREFIX ".0", "rank 0's trace",
                            &any_file, NULL);
    char *text = f >= 0 ? cm_file_read_fd(f, "rank 0's trace", trace_bound(s),
                                          &len, &err)
                        : NULL;
    if (f >= 0)
        close(f);
    int sites = text ? trace_check(text, len, "rank 0's trace", &err) : -1;
    free(text);
    return sites;
}

/* cm_store_trace_info, the call sites only when @p sites (srun needs
 * the files, not their content: each rank parses its own). */
static int describe(cm_store_t *s, const char *job_name, int ntasks,
                    int sites, cm_trace_info_t *out, cm_error_t *err)
{
    char side[300];
    memset(out, 0, sizeof *out);
    if (trace_name(job_name, ntasks, side, sizeof side, err) < 0)
        return -1;
    if (cm_store_dirfd(s) < 0)
        return 0;
    int fd = trace_open(s, side);
    if (fd < 0)
        return errno == ENOENT ? 0
             : cm_error_set(err, "%s/%s: %s", cm_store_dir(s), side,
                            errno == EPERM ? "not a private directory of the "
                            "store's user" : strerror(errno));
    out->ranks = count_ranks(s, fd, ntasks, &out->bytes);
    out->complete = out->ranks == ntasks;
    out->sites = sites ? rank0_sites(s, fd) : -1;
    close(fd);
    return 1;
}

int cm_store_trace_info(cm_store_t *s, const char *job_name, int ntasks,
                        cm_trace_info_t *out, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    if (!out)
        return cm_error_set(err, "store: expected where to describe the "
                            "trace, got NULL");
    return describe(s, job_name, ntasks, 1, out, err);
}

int cm_store_trace_prefix(cm_store_t *s, const char *job_name, int ntasks,
                          char *buf, size_t size, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    cm_trace_info_t ti;
    char side[300];
    if (!buf || !size)
        return cm_error_set(err, "store: expected a buffer for the trace's "
                            "prefix, got NULL");
    buf[0] = '\0';
    int rc = describe(s, job_name, ntasks, 0, &ti, err);
    if (rc <= 0)
        return rc;
    trace_name(job_name, ntasks, side, sizeof side, NULL);
    if (!ti.complete)
        return cm_error_set(err, "%s/%s: the files of %d of its %d ranks",
                            cm_store_dir(s), side, ti.ranks, ntasks);
    if (snprintf(buf, size, "%s/%s/" CM_TRACE_PREFIX, cm_store_dir(s), side) >=
        (int)size) {
        buf[0] = '\0';
        return cm_error_set(err, "%s/%s: path too long", cm_store_dir(s), side);
    }
    return 1;
}

uint64_t cm_store_trace_bytes(cm_store_t *s, const char *side,
                              int64_t *mtime)
{
    uint64_t bytes = 0;
    int fd = trace_open(s, side);
    if (fd < 0)
        return 0;
    /* every file, whatever the task count: what prune frees */
    DIR *d = cm_store_list_dir(fd);
    struct dirent *e;
    struct stat st;
    while (d && (e = readdir(d)))
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode))
            bytes += (uint64_t)st.st_size;
    if (d)
        closedir(d);
    close(fd);
    return bytes;
}
