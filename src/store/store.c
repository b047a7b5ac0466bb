/* store.c -- the per-user profile store: safe opening, locking, atomic
 * replacement, listing and removal (docs/profile-format.md, "Store"). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "store_internal.h"

struct cm_store {
    uid_t uid;
    int dirfd;            /* the user directory; -1 while it does not exist */
    int rootfd;
    size_t max_bytes;
    int lock_wait_ms;     /* cm_store_set_lock_wait */
    double deadline;      /* cm_store_set_read_deadline */
    char *dir;            /* "<root>/<uid>", for messages */
    char *root;           /* the root path as given */
    char user[CM_PROFILE_MAX_NAME + 1];
    char nompi_key[CM_PROFILE_MAX_NAME + 1]; /* cm_store_set_nompi_key */
};

/* Longest escaped job name kept whole in a file name; longer ones are cut
 * and get a hash, so that "." name "." ntasks ".json" and the temporary
 * name stay well below NAME_MAX (255). */
#define NAME_KEEP 160
#define NAME_CUT 143

void cm_store_fault_point(const char *stage)
{
    const char *want = getenv(CM_ENV_FAULT_INJECT);
    if (want && strcmp(want, stage) == 0)
        raise(SIGKILL);
}

const char *cm_store_default_root(void)
{
    const char *e = getenv(CM_ENV_STORE);
    return e && *e ? e : CM_STORE_DEFAULT_DIR;
}

const char *cm_store_dir(const cm_store_t *s) { return s ? s->dir : NULL; }
const char *cm_store_user(const cm_store_t *s) { return s ? s->user : NULL; }
uid_t cm_store_uid(const cm_store_t *s) { return s ? s->uid : (uid_t)-1; }
size_t cm_store_max_bytes(const cm_store_t *s) { return s ? s->max_bytes : 0; }
int cm_store_dirfd(const cm_store_t *s) { return s ? s->dirfd : -1; }

void cm_store_set_lock_wait(cm_store_t *s, int wait_ms)
{
    if (s)
        s->lock_wait_ms = wait_ms;
}

void cm_store_set_read_deadline(cm_store_t *s, double deadline)
{
    if (s)
        s->deadline = deadline;
}

int cm_store_filename(const char *job_name, int ntasks, char *buf, size_t size,
                      cm_error_t *err)
{
    static const char hex[] = "0123456789ABCDEF";
    char esc[3 * CM_PROFILE_MAX_NAME + 1];
    size_t len = 0, cut;
    int n;

    if (cm_profile_check_name("job name", job_name, 0, err) < 0)
        return -1;
    if (ntasks < 1 || ntasks > CM_PROFILE_MAX_TASKS)
        return cm_error_set(err, "task count: expected 1..%d, got %d",
                            CM_PROFILE_MAX_TASKS, ntasks);
    for (const char *c = job_name; *c; c++) {
        unsigned char u = (unsigned char)*c;
        int plain = (u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') ||
                    (u >= '0' && u <= '9') || u == '_' || u == '-' ||
                    (u == '.' && c != job_name);
        if (plain) {
            esc[len++] = (char)u;
        } else {
            esc[len++] = '%';
            esc[len++] = hex[u >> 4];
            esc[len++] = hex[u & 15];
        }
    }
    esc[len] = '\0';
    if (len > NAME_KEEP) {
        cut = NAME_CUT;
        /* never split a %XX */
        if (esc[cut - 1] == '%')
            cut -= 1;
        else if (esc[cut - 2] == '%')
            cut -= 2;
        n = snprintf(buf, size, "%.*s~%016llx.%d.json", (int)cut, esc,
                     (unsigned long long)cm_fnv1a(CM_FNV1A_START, job_name, strlen(job_name)),
                     ntasks);
    } else {
        n = snprintf(buf, size, "%s.%d.json", esc, ntasks);
    }
    if (n < 0 || (size_t)n >= size)
        return cm_error_set(err, "profile file name: buffer too small");
    return 0;
}

/* The store root is opened component by component from "/", never
 * following a symbolic link, so that nobody can redirect a root-run
 * ingestion by replacing a directory on the way (cm_file_open_dir_safe
 * says what every directory on the way must be).  Only the root's last
 * component is ever created -- a parent the administrator did not create
 * is an error, not something to make. */
#define ROOT_WHAT "store"

/* The user directory must be a real directory of the user, closed to
 * everybody else; a profile file the user's, written by the user only. */
static const cm_file_want_t user_dir = { 1, 0, 077 };
static const cm_file_want_t profile_file = { 0, 0, 022 };

static cm_file_want_t owned_by(cm_file_want_t w, uid_t uid)
{
    w.owner = uid;
    return w;
}

static int open_user_dir(cm_store_t *s, const char *name, int create,
                         cm_error_t *err)
{
    int fd = openat(s->rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                    O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
        if (mkdirat(s->rootfd, name, 0700) < 0 && errno != EEXIST)
            return cm_error_set(err, "%s: cannot create: %s", s->dir,
                                strerror(errno));
        fd = openat(s->rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                    O_CLOEXEC);
        if (fd >= 0 && geteuid() == 0 && s->uid != 0) {
            struct stat st;
            struct passwd pw, *res = NULL;
            char pwbuf[4096];
            gid_t gid = (gid_t)-1;
            if (getpwuid_r(s->uid, &pw, pwbuf, sizeof pwbuf, &res) == 0 && res)
                gid = pw.pw_gid;
            if (fstat(fd, &st) == 0 && st.st_uid == 0 &&
                fchown(fd, s->uid, gid) < 0) {
                close(fd);
                return cm_error_set(err, "%s: cannot give it to uid %lu: %s",
                                    s->dir, (unsigned long)s->uid,
                                    strerror(errno));
            }
        }
    }
    if (fd < 0) {
        if (errno == ENOENT) {
            s->dirfd = -1;   /* no profile yet: an empty store */
            return 0;
        }
        if (errno == ELOOP || errno == ENOTDIR)
            return cm_error_set(err, "%s: a symbolic link or not a directory; "
                                "refusing it", s->dir);
        if (errno == EACCES)
            return cm_error_set(err, "%s: permission denied (the profiles of "
                                "uid %lu belong to that user)", s->dir,
                                (unsigned long)s->uid);
        return cm_error_set(err, "%s: cannot open: %s", s->dir, strerror(errno));
    }
    cm_file_want_t want = owned_by(user_dir, s->uid);
    if (cm_file_check(fd, s->dir, &want, err) < 0) {
        close(fd);
        return -1;
    }
    s->dirfd = fd;
    return 0;
}

cm_store_t *cm_store_open(const char *root, uid_t uid, int flags,
                          size_t max_bytes, cm_error_t *err)
{
    cm_store_t *s;
    char name[32];
    struct passwd pw, *res = NULL;
    char pwbuf[4096];

    if (!root)
        root = cm_store_default_root();
    s = calloc(1, sizeof *s);
    if (!s) {
        cm_error_set(err, "%s: out of memory", root);
        return NULL;
    }
    s->uid = uid;
    s->dirfd = s->rootfd = -1;
    s->max_bytes = max_bytes ? max_bytes : CM_PROFILE_DEFAULT_MAX_BYTES;
    s->lock_wait_ms = geteuid() != uid ? CM_STORE_LOCK_WAIT_MS : -1;
    snprintf(name, sizeof name, "%lu", (unsigned long)uid);
    if (asprintf(&s->dir, "%s/%s", root, name) < 0 ||
        !(s->root = strdup(root))) {
        cm_error_set(err, "%s: out of memory", root);
        goto fail;
    }
    if (getpwuid_r(uid, &pw, pwbuf, sizeof pwbuf, &res) == 0 && res &&
        strlen(pw.pw_name) <= CM_PROFILE_MAX_NAME)
        snprintf(s->user, sizeof s->user, "%s", pw.pw_name);
    else
        snprintf(s->user, sizeof s->user, "%s", name);

    /* O_PATH: the root is 0711, searchable but not readable by users */
    s->rootfd = cm_file_open_dir_safe(root, flags & CM_STORE_CREATE,
                                      ROOT_WHAT, err);
    if (s->rootfd < 0) {
        if (errno == ENOENT && !(flags & CM_STORE_CREATE)) {
            s->dirfd = -1;   /* no store yet: nothing stored */
            return s;
        }
        goto fail;
    }
    if (open_user_dir(s, name, flags & CM_STORE_CREATE, err) < 0)
        goto fail;
    return s;
fail:
    cm_store_close(s);
    return NULL;
}

void cm_store_close(cm_store_t *s)
{
    if (!s)
        return;
    if (s->dirfd >= 0)
        close(s->dirfd);
    if (s->rootfd >= 0)
        close(s->rootfd);
    free(s->dir);
    free(s->root);
    free(s);
}

static int need_dir(const cm_store_t *s, cm_error_t *err)
{
    if (s->dirfd >= 0)
        return 0;
    return cm_error_set(err, "%s: no profile directory for uid %lu (it is "
                        "created at the first ingestion, or by root)", s->dir,
                        (unsigned long)s->uid);
}

/* ---- the lock -------------------------------------------------------------- */

/* Locks taken by this process: how a test sees that one recorded run is
 * one transaction (each take waits for every other writer of the user). */
static unsigned long lock_takes;

unsigned long cm_store_lock_takes(void)
{
    return lock_takes;
}

/* What .lock is found to be when it was there before: the user's regular
 * file with one link, or NULL; else what is wrong with it.  Root gives
 * .lock to the user and locks it: a hard link to another file, a device
 * or a FIFO in its place would make root change or open what it did not
 * create. */
static const char *lock_file_wrong(const struct stat *st, uid_t uid, char *buf,
                                   size_t n)
{
    if (!S_ISREG(st->st_mode))
        return "expected a regular file, got another kind of file";
    if (st->st_nlink != 1) {
        snprintf(buf, n, "expected a file with one link, got %lu links (a hard "
                 "link to another file)", (unsigned long)st->st_nlink);
        return buf;
    }
    if (st->st_uid != uid) {
        snprintf(buf, n, "expected owner uid %lu (the directory's), got uid %lu",
                 (unsigned long)uid, (unsigned long)st->st_uid);
        return buf;
    }
    return NULL;
}

int cm_store_lock_take(cm_store_t *s, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    /* Read-only is enough for flock and fchown; O_NONBLOCK and O_NOCTTY:
     * whatever a user put there cannot block root or become its terminal. */
    int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    int fd = openat(s->dirfd, ".lock", flags | O_CREAT | O_EXCL, 0600), created = 1;
    struct stat st;
    char why[128];
    const char *wrong;

    if (fd < 0 && errno == EEXIST) {
        created = 0;
        fd = openat(s->dirfd, ".lock", flags);
    }
    if (fd < 0) {
        int e = errno;
        cm_error_set(err, "%s/.lock: cannot open: %s%s", s->dir, strerror(e),
                     e == ELOOP ? " (a symbolic link; refusing to follow it)" : "");
        errno = e;
        return -1;
    }
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return cm_error_set(err, "%s/.lock: cannot stat: %s", s->dir, strerror(e));
    }
    /* Only what this call created is given away; anything found is
     * taken as it is or refused. */
    if (created && st.st_uid != s->uid && fchown(fd, s->uid, (gid_t)-1) < 0) {
        int e = errno;
        close(fd);
        return cm_error_set(err, "%s/.lock: cannot give it to uid %lu: %s",
                            s->dir, (unsigned long)s->uid, strerror(e));
    }
    if (!created && (wrong = lock_file_wrong(&st, s->uid, why, sizeof why))) {
        close(fd);
        errno = EPERM;
        return cm_error_set(err, "%s/.lock: %s; refusing to use it", s->dir,
                            wrong);
    }
    if (cm_file_lock(fd, s->lock_wait_ms) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        if (e == ETIMEDOUT)
            return cm_error_set(err, "%s/.lock: held by another process for "
                                "more than %.1f s", s->dir,
                                s->lock_wait_ms / 1e3);
        return cm_error_set(err, "%s/.lock: cannot lock: %s", s->dir,
                            strerror(e));
    }
    lock_takes++;
    return fd;
}

void cm_store_lock_release(int fd)
{
    if (fd >= 0)
        close(fd);   /* drops the flock */
}

/* ---- reading ---------------------------------------------------------------- */

/* Open, check and parse one file of the user directory: 1 found, 0 absent.
 * With @p job_name, the profile of another key is refused before its
 * entries are decoded. */
static int read_file(cm_store_t *s, const char *fname, const char *job_name,
                     int ntasks, cm_profile_t **out, cm_error_t *err)
{
    char path[4096];
    cm_file_want_t want = owned_by(profile_file, s->uid);
    cm_profile_expect_t key = { job_name, job_name ? ntasks : 0, s->deadline };
    int fd;

    snprintf(path, sizeof path, "%s/%s", s->dir, fname);
    fd = cm_file_open_at(s->dirfd, fname, path, &want, err);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    *out = cm_profile_read_fd_expect(fd, path, s->max_bytes, &key, err);
    close(fd);
    if (!*out)
        return -1;
    if ((*out)->uid != s->uid) {
        cm_error_set(err, "%s: field 'uid': expected %lu (the directory's "
                     "owner), got %lu", path, (unsigned long)s->uid,
                     (unsigned long)(*out)->uid);
        cm_profile_free(*out);
        *out = NULL;
        return -1;
    }
    return 1;
}

int cm_store_load(cm_store_t *s, const char *job_name, int ntasks,
                  cm_profile_t **out, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char fname[256];
    int rc;

    if (!out)
        return cm_error_set(err, "store: expected where to put the profile, "
                            "got NULL");
    *out = NULL;
    if (cm_store_filename(job_name, ntasks, fname, sizeof fname, err) < 0)
        return -1;
    if (s->dirfd < 0)
        return 0;
    rc = read_file(s, fname, job_name, ntasks, out, err);
    if (rc == 1 && (strcmp((*out)->job_name, job_name) ||
                    (*out)->ntasks != ntasks)) {
        cm_error_set(err, "%s/%s: holds the profile of '%s' with %d tasks, "
                     "expected '%s' with %d tasks (fields 'job_name', "
                     "'ntasks')", s->dir, fname, (*out)->job_name,
                     (*out)->ntasks, job_name, ntasks);
        cm_profile_free(*out);
        *out = NULL;
        return -1;
    }
    return rc;
}

/* ---- atomic replacement ----------------------------------------------------- */

/* Temporary files of writers that were killed: with the lock held nobody
 * else is writing, so every one of them is stale. */
static void remove_stale_temps(cm_store_t *s)
{
    int fd = dup(s->dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;

    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    rewinddir(d);
    while ((e = readdir(d)))
        if (cm_store_side_temp(e->d_name) || cm_store_explain_temp(e->d_name))
            unlinkat(s->dirfd, e->d_name, 0);
    closedir(d);
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            errno = ENOSPC;
            return -1;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Lock held.  temp file, fsync, rename over, fsync the directory. */
int cm_store_write_locked(cm_store_t *s, const char *fname, const char *text,
                          size_t len, cm_error_t *err)
{
    char tmp[300], path[4096];
    int fd, e;

    remove_stale_temps(s);
    snprintf(tmp, sizeof tmp, ".%s.tmp.%ld", fname, (long)getpid());
    snprintf(path, sizeof path, "%s/%s", s->dir, tmp);
    fd = openat(s->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                O_CLOEXEC, 0600);
    if (fd < 0)
        return cm_error_set(err, "%s: cannot create: %s", path, strerror(errno));
    if (geteuid() == 0 && s->uid != 0 && fchown(fd, s->uid, (gid_t)-1) < 0)
        goto fail;
    cm_store_fault_point("temp-created");
    if (write_all(fd, text, len / 2) < 0)
        goto fail;
    cm_store_fault_point("temp-partial");
    if (write_all(fd, text + len / 2, len - len / 2) < 0)
        goto fail;
    cm_store_fault_point("before-fsync");
    if (fsync(fd) < 0)
        goto fail;
    cm_store_fault_point("before-rename");
    if (close(fd) < 0) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (renameat(s->dirfd, tmp, s->dirfd, fname) < 0)
        goto fail;
    cm_store_fault_point("after-rename");
    if (fsync(s->dirfd) < 0)
        return cm_error_set(err, "%s: cannot sync the directory: %s", s->dir,
                            strerror(errno));
    return 0;
fail:
    e = errno;
    if (fd >= 0)
        close(fd);
    unlinkat(s->dirfd, tmp, 0);
    return cm_error_set(err, "%s: cannot write (temporary file removed, old "
                        "file kept): %s", path, strerror(e));
}

static int write_locked(cm_store_t *s, const cm_profile_t *p, const char *fname,
                        cm_error_t *err)
{
    size_t len;
    /* large profiles in the binary form: a third to a tenth of the JSON
     * bytes, read several times faster (docs/profile-format.md) */
    int64_t entries = cm_matrix_nnz(p->part[0]) + cm_matrix_nnz(p->part[1]);
    /* never a file its own readers would refuse */
    if (entries > CM_PROFILE_MAX_ENTRIES)
        return cm_error_set(err, "%s/%s: %lld entries are above the limit of %d "
                            "entries a profile; not written", s->dir, fname,
                            (long long)entries, CM_PROFILE_MAX_ENTRIES);
    char *text = entries > CM_PROFILE_BIN_MIN_ENTRIES ? cm_profile_to_bin(p, &len, err)
                                                      : cm_profile_to_json(p, &len, err);
    if (!text)
        return -1;
    int rc = cm_store_write_locked(s, fname, text, len, err);
    free(text);
    return rc;
}

static int check_key(const cm_store_t *s, const cm_profile_t *p, char *fname,
                     size_t size, cm_error_t *err)
{
    if (!p)
        return cm_error_set(err, "store: expected a profile, got NULL");
    if (p->uid != s->uid)
        return cm_error_set(err, "profile '%s' belongs to uid %lu, not to the "
                            "store's uid %lu", p->job_name,
                            (unsigned long)p->uid, (unsigned long)s->uid);
    return cm_store_filename(p->job_name, p->ntasks, fname, size, err);
}

int cm_store_save_locked(cm_store_t *s, const cm_profile_t *p,
                         cm_error_t *err)
{
    char fname[256];
    if (need_dir(s, err) < 0 || check_key(s, p, fname, sizeof fname, err) < 0)
        return -1;
    return write_locked(s, p, fname, err);
}

int cm_store_save(cm_store_t *s, const cm_profile_t *p, int replace,
                  cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char fname[256];
    int lock, rc;

    if (need_dir(s, err) < 0 || check_key(s, p, fname, sizeof fname, err) < 0)
        return -1;
    lock = cm_store_lock_take(s, err);
    if (lock < 0)
        return -1;
    if (!replace) {
        struct stat st;
        if (fstatat(s->dirfd, fname, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            cm_store_lock_release(lock);
            return cm_error_set(err, "%s/%s: a profile of '%s' with %d tasks "
                                "exists already (replace it, or merge into "
                                "it)", s->dir, fname, p->job_name, p->ntasks);
        }
    }
    rc = write_locked(s, p, fname, err);
    cm_store_lock_release(lock);
    return rc;
}

int cm_store_merge_locked(cm_store_t *s, const cm_profile_t *run,
                          double weight, int flags, time_t now,
                          long *runs_out, cm_error_t *err)
{
    char fname[256];
    cm_profile_t *old = NULL, *merged = NULL;
    const cm_profile_t *result = run;
    int rc = -1, found;

    if (need_dir(s, err) < 0 || check_key(s, run, fname, sizeof fname, err) < 0)
        return -1;
    found = cm_store_load(s, run->job_name, run->ntasks, &old, err);
    if (found < 0)
        goto out;
    if (found == 0 && (flags & CM_STORE_MUST_EXIST)) {
        cm_error_set(err, "%s/%s: no profile of '%s' with %d tasks to merge "
                     "into", s->dir, fname, run->job_name, run->ntasks);
        goto out;
    }
    if (found) {
        merged = cm_profile_merge(old, run, weight, now, err);
        if (!merged)
            goto out;
        result = merged;
    }
    rc = write_locked(s, result, fname, err);
    if (rc == 0 && runs_out)
        *runs_out = result->runs;
out:
    cm_profile_free(old);
    cm_profile_free(merged);
    return rc;
}

int cm_store_merge(cm_store_t *s, const cm_profile_t *run, double weight,
                   int flags, time_t now, long *runs_out, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char fname[256];
    int lock, rc;

    if (need_dir(s, err) < 0 || check_key(s, run, fname, sizeof fname, err) < 0)
        return -1;
    lock = cm_store_lock_take(s, err);
    if (lock < 0)
        return -1;
    rc = cm_store_merge_locked(s, run, weight, flags, now, runs_out, err);
    cm_store_lock_release(lock);
    return rc;
}

/* ---- listing ------------------------------------------------------------------ */

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const cm_store_entry_t *)a)->file,
                  ((const cm_store_entry_t *)b)->file);
}

/* Size of a regular file of the user directory (0 when there is none). */
static uint64_t file_size(const cm_store_t *s, const char *fname)
{
    struct stat st;
    if (fstatat(s->dirfd, fname, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
        !S_ISREG(st.st_mode))
        return 0;
    return (uint64_t)st.st_size;
}

int64_t cm_store_last_use(int64_t last_update, const cm_run_t *runs, int count)
{
    int64_t t = last_update;
    for (int k = 0; runs && k < count; k++)
        if (runs[k].when > t)
            t = runs[k].when;
    return t;
}

/* A valid entry's bytes on disk and last use.  A history that cannot be
 * read still says when it was last written. */
static void entry_usage(cm_store_t *s, cm_store_entry_t *e)
{
    int64_t mtime = 0;
    int count = 0;
    cm_run_t *runs = malloc(CM_HISTORY_MAX_RUNS * sizeof *runs);

    e->file_bytes = file_size(s, e->file) +
                    cm_store_sides_bytes(s, e->file, &mtime);
    if (runs && cm_store_history_load(s, e->job_name, e->ntasks, runs, &count,
                                      NULL) == 0)
        e->last_use = cm_store_last_use(e->last_update, runs, count);
    else
        e->last_use = mtime > e->last_update ? mtime : e->last_update;
    free(runs);
}

/* Describe the profile file @p fname: 1 valid, 0 missing, -1 invalid (the
 * reason in e->error). */
static int list_one(cm_store_t *s, const char *fname, cm_store_entry_t *e)
{
    cm_profile_t *p = NULL;
    cm_error_t why = { "" };
    char want[256];
    int rc;

    memset(e, 0, sizeof *e);
    snprintf(e->file, sizeof e->file, "%s", fname);
    rc = read_file(s, fname, NULL, 0, &p, &why);
    if (rc != 1) {
        snprintf(e->error, sizeof e->error, "%s", rc == 0 ?
                 "removed while listing" : why.msg);
        return rc;
    }
    if (cm_store_filename(p->job_name, p->ntasks, want, sizeof want, NULL) < 0 ||
        strcmp(want, fname)) {
        snprintf(e->error, sizeof e->error, "%s/%s: the key inside ('%s', %d "
                 "tasks) belongs in file %s", s->dir, fname, p->job_name,
                 p->ntasks, want);
        cm_profile_free(p);
        return -1;
    }
    snprintf(e->job_name, sizeof e->job_name, "%s", p->job_name);
    e->ntasks = p->ntasks;
    e->runs = p->runs;
    e->last_update = p->last_update;
    cm_matrix_totals(p->part[0], &e->p2p_bytes, NULL);
    cm_matrix_totals(p->part[1], &e->coll_bytes, NULL);
    e->valid = 1;
    cm_profile_free(p);
    entry_usage(s, e);
    return 1;
}

int cm_store_list(cm_store_t *s, cm_store_entry_t **entries, int *count,
                  cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    cm_store_entry_t *v = NULL;
    int n = 0, cap = 0, fd;
    DIR *d;
    struct dirent *de;

    if (!entries || !count)
        return cm_error_set(err, "store: expected where to put the list, "
                            "got NULL");
    *entries = NULL;
    *count = 0;
    if (s->dirfd < 0)
        return 0;
    fd = dup(s->dirfd);
    d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return cm_error_set(err, "%s: cannot list: %s", s->dir, strerror(errno));
    }
    rewinddir(d);
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.' || len < 6 ||
            strcmp(de->d_name + len - 5, ".json"))
            continue;
        if (n == cap) {
            int ncap = cap ? 2 * cap : 16;
            cm_store_entry_t *nv = realloc(v, (size_t)ncap * sizeof *v);
            if (!nv) {
                free(v);
                closedir(d);
                return cm_error_set(err, "%s: out of memory", s->dir);
            }
            v = nv;
            cap = ncap;
        }
        list_one(s, de->d_name, &v[n++]);
    }
    closedir(d);
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, entry_cmp);
    *entries = v;
    *count = n;
    return 0;
}

/* ---- removal ------------------------------------------------------------------ */

/* Lock held: the side files of the profile file @p fname of (job_name,
 * ntasks), then the profile file, then sync the directory.  A side file
 * that stays keeps the profile too. */
static int remove_locked(cm_store_t *s, const char *job_name, int ntasks,
                         const char *fname, cm_error_t *err)
{
    if (cm_store_sides_remove_locked(s, fname, err) < 0)
        return -1;
    if (unlinkat(s->dirfd, fname, 0) < 0)
        return cm_error_set(err, "%s/%s: cannot remove the profile of '%s' "
                            "with %d tasks: %s", s->dir, fname, job_name,
                            ntasks, strerror(errno));
    if (fsync(s->dirfd) < 0)
        return cm_error_set(err, "%s: cannot sync the directory: %s", s->dir,
                            strerror(errno));
    return 0;
}

int cm_store_delete_if(cm_store_t *s, const char *job_name, int ntasks,
                       cm_store_pick_fn pick, void *arg, cm_store_entry_t *e,
                       cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char fname[256];
    cm_store_entry_t mine;
    struct stat st;
    int lock, rc;

    if (!e)
        e = &mine;
    memset(e, 0, sizeof *e);
    if (cm_store_filename(job_name, ntasks, fname, sizeof fname, err) < 0)
        return -1;
    snprintf(e->file, sizeof e->file, "%s", fname);
    if (s->dirfd < 0)
        return 0;
    lock = cm_store_lock_take(s, err);
    if (lock < 0)
        return -1;
    if (pick || e != &mine)
        rc = list_one(s, fname, e);
    else   /* plain delete: valid or not, it goes */
        rc = fstatat(s->dirfd, fname, &st, AT_SYMLINK_NOFOLLOW) == 0 ? 1
           : errno == ENOENT ? 0 : -1;
    if (rc < 0 && !pick && e != &mine)
        rc = 1;   /* described as invalid, removed all the same */
    if (rc < 0)
        rc = e->error[0] ? cm_error_set(err, "%s", e->error)
           : cm_error_set(err, "%s/%s: cannot stat: %s", s->dir, fname,
                          strerror(errno));
    else if (rc == 1 && pick && !pick(e, arg))
        rc = 0;
    else if (rc == 1)
        rc = remove_locked(s, job_name, ntasks, fname, err) < 0 ? -1 : 1;
    cm_store_lock_release(lock);
    return rc;
}

int cm_store_delete_locked(cm_store_t *s, const char *job_name, int ntasks,
                           cm_error_t *err)
{
    char fname[256];
    struct stat st;

    if (cm_store_filename(job_name, ntasks, fname, sizeof fname, err) < 0)
        return -1;
    if (s->dirfd < 0)
        return 0;
    if (fstatat(s->dirfd, fname, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0
             : cm_error_set(err, "%s/%s: cannot stat: %s", s->dir, fname,
                            strerror(errno));
    return remove_locked(s, job_name, ntasks, fname, err) < 0 ? -1 : 1;
}

int cm_store_delete(cm_store_t *s, const char *job_name, int ntasks,
                    cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    int rc = cm_store_delete_if(s, job_name, ntasks, NULL, NULL, NULL, err);
    char fname[256];

    if (rc == 0 && cm_store_filename(job_name, ntasks, fname, sizeof fname,
                                     err) == 0)
        cm_error_set(err, "%s/%s: no profile of '%s' with %d tasks", s->dir,
                     fname, job_name, ntasks);
    return rc == 1 ? 0 : -1;
}

/* ---- steps without MPI, and whether a run can be recorded --------------- */

/* "<profile file name>.nompi" of (job_name, ntasks). */
static int nompi_name(const char *job_name, int ntasks, char *buf, size_t n,
                      cm_error_t *err)
{
    return cm_store_sidecar_name(job_name, ntasks, CM_SIDE_NOMPI, buf, n, err);
}

/* Whether the mark @p st has outlived CM_STORE_NOMPI_MAX_AGE. */
static int nompi_expired(const struct stat *st)
{
    return (int64_t)time(NULL) - (int64_t)st->st_mtime > CM_STORE_NOMPI_MAX_AGE;
}

int cm_store_nompi(cm_store_t *s, const char *job_name, int ntasks)
{
    char fname[264];
    struct stat st;
    if (!s || s->dirfd < 0 || nompi_name(job_name, ntasks, fname, sizeof fname, NULL) < 0 ||
        fstatat(s->dirfd, fname, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != s->uid)
        return 0;
    if (nompi_expired(&st)) {
        /* a program may have been rebuilt with MPI since: try it again */
        unlinkat(s->dirfd, fname, 0);
        return 0;
    }
    return 1;
}

/* Keep fewer than CM_STORE_NOMPI_MAX marks: expired ones go, then the
 * oldest.  Best effort: a mark is only a saved run. */
static void nompi_trim(cm_store_t *s)
{
    int fd = dup(s->dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    rewinddir(d);
    const char *suffix = ".json.nompi";
    size_t sl = strlen(suffix);
    char oldest[256] = "";
    time_t oldest_t = 0;
    int n = 0;
    long seen = 0;
    struct dirent *e;
    struct stat st;
    while (seen++ < 100000 && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= sl || strcmp(e->d_name + len - sl, suffix) ||
            fstatat(s->dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (nompi_expired(&st)) {
            unlinkat(s->dirfd, e->d_name, 0);
            continue;
        }
        n++;
        if (!oldest[0] || st.st_mtime < oldest_t) {
            snprintf(oldest, sizeof oldest, "%s", e->d_name);
            oldest_t = st.st_mtime;
        }
    }
    closedir(d);
    if (n >= CM_STORE_NOMPI_MAX && oldest[0])
        unlinkat(s->dirfd, oldest, 0);
}

int cm_store_mark_nompi(cm_store_t *s, const char *job_name, int ntasks,
                        cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char fname[264];
    if (s->nompi_key[0])
        job_name = s->nompi_key;
    if (need_dir(s, err) < 0 ||
        nompi_name(job_name, ntasks, fname, sizeof fname, err) < 0)
        return -1;
    nompi_trim(s);
    /* Its existence is the mark, and its time when it expires: one that is
     * there already is replaced, never opened (it could be a link to any
     * file), so that a mark made again lives its time again. */
    int fd = openat(s->dirfd, fname, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                    O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0 && errno == EEXIST && unlinkat(s->dirfd, fname, 0) == 0)
        fd = openat(s->dirfd, fname, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                    O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0)
        return cm_error_set(err, "%s/%s: cannot create: %s", s->dir, fname,
                            strerror(errno));
    close(fd);
    return 0;
}

int cm_store_set_nompi_key(cm_store_t *s, const char *key, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    if (key && strlen(key) > CM_PROFILE_MAX_NAME)
        return cm_error_set(err, "store: a no-MPI key of %zu bytes, expected at most %d",
                            strlen(key), CM_PROFILE_MAX_NAME);
    snprintf(s->nompi_key, sizeof s->nompi_key, "%s", key ? key : "");
    return 0;
}

/* A missing root is created by root at the step's end when its parent is
 * a safe directory on a writable, real file system (not /proc or /sys). */
static int root_creatable(const char *root, cm_error_t *err)
{
    char *parent = strdup(root), *slash;
    if (!parent)
        return cm_error_set(err, "%s: out of memory", root);
    slash = strrchr(parent, '/');
    if (slash == parent)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    int fd = cm_file_open_dir_safe(parent, 0, ROOT_WHAT, err), rc = 0;
    struct statfs fs;
    if (fd < 0)
        rc = -1;
    else if (fstatfs(fd, &fs) < 0 || (fs.f_flags & ST_RDONLY) ||
             fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC)
        rc = cm_error_set(err, "%s: cannot be created in %s (a read-only or "
                          "pseudo file system)", root, parent);
    if (fd >= 0)
        close(fd);
    free(parent);
    return rc;
}

int cm_store_can_record(cm_store_t *s, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    if (s->rootfd < 0)
        return root_creatable(s->root, err);
    if (s->dirfd < 0)
        return 0;   /* root creates the user directory at the step's end */
    if (faccessat(s->dirfd, ".", W_OK | X_OK, AT_EACCESS) < 0)
        return cm_error_set(err, "%s: not writable: %s", s->dir,
                            strerror(errno));
    return 0;
}
