/*
 * store_prune.c -- retention: which profiles a store can do without (the
 * rule over last update and last use), removing them from one user's store
 * under its lock, and the uids of a store root for a walk over all users
 * (docs/profile-format.md, "Retention"; `clustermap profile prune`).
 *
 * The selection is made twice: on a listing without the lock, then again
 * by cm_store_delete_if() under the lock on the profile as it is then, so
 * that a run recorded in between keeps its profile.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_internal.h"

int cm_prune_rule_match(const cm_prune_rule_t *r, const cm_store_entry_t *e)
{
    if (!r || !e || !e->valid || (r->older_than < 0 && r->unused_for < 0))
        return 0;
    if (r->older_than >= 0 && r->now - e->last_update <= r->older_than)
        return 0;
    if (r->unused_for >= 0 && r->now - e->last_use <= r->unused_for)
        return 0;
    return 1;
}

static int pick(const cm_store_entry_t *e, void *rule)
{
    return cm_prune_rule_match(rule, e);
}

int cm_store_prune(cm_store_t *s, const cm_prune_rule_t *r, int flags,
                   cm_prune_fn fn, void *arg, cm_prune_total_t *total,
                   cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    if (!r)
        return cm_error_set(err, "store: expected a prune rule, got NULL");
    cm_prune_total_t ignored = { 0, 0, 0, 0 };
    if (!total)
        total = &ignored;
    cm_store_entry_t *e, now;
    cm_error_t why = { "" };
    int n, failed = 0;

    if (cm_store_list(s, &e, &n, err) < 0)
        return -1;
    for (int k = 0; k < n; k++) {
        int rc = 1;
        if (!e[k].valid) {
            cm_error_set(&why, "%s; not pruned", e[k].error);
            rc = -1;
            now = e[k];
        } else if (!cm_prune_rule_match(r, &e[k])) {
            continue;
        } else if (flags & CM_PRUNE_DRY_RUN) {
            now = e[k];
        } else {
            rc = cm_store_delete_if(s, e[k].job_name, e[k].ntasks, pick,
                                    (void *)r, &now, &why);
            if (rc < 0 && errno == ETIMEDOUT) {
                /* The user holds the lock: every other profile of this
                 * store would wait as long; the next store goes on. */
                total->skipped++;
                cm_error_set(err, "%s; the profiles of %s (uid %lu) are not "
                             "pruned this time", why.msg, cm_store_user(s),
                             (unsigned long)cm_store_uid(s));
                free(e);
                errno = ETIMEDOUT;
                return -1;
            }
        }
        if (rc == 0)
            continue;   /* used or removed since the listing */
        if (rc < 0) {
            failed++;
            total->failed++;
            cm_error_set(err, "%s", why.msg);
        } else {
            total->removed++;
            total->bytes += now.file_bytes;
        }
        if (fn)
            fn(&now, rc < 0 ? CM_PRUNE_FAILED : CM_PRUNE_REMOVED,
               rc < 0 ? why.msg : NULL, arg);
    }
    free(e);
    return failed ? -1 : 0;
}

/* A uid as cm_store_open() names its directory: decimal, no leading zero,
 * at most 4294967294. */
static int uid_name(const char *name, uid_t *out)
{
    unsigned long long v = 0;
    const char *c = name;

    if (!*c || (*c == '0' && c[1]))
        return 0;
    for (; *c; c++) {
        if (*c < '0' || *c > '9' || c - name >= 10)
            return 0;
        v = 10 * v + (unsigned)(*c - '0');
    }
    if (v > 4294967294ULL)
        return 0;
    *out = (uid_t)v;
    return 1;
}

static int uid_cmp(const void *a, const void *b)
{
    uid_t x = *(const uid_t *)a, y = *(const uid_t *)b;
    return (x > y) - (x < y);
}

int cm_store_uids(const char *root, uid_t **uids, int *count, cm_error_t *err)
{
    uid_t *v = NULL, uid;
    int n = 0, cap = 0, pfd, fd;
    DIR *d;
    struct dirent *de;

    if (!uids || !count)
        return cm_error_set(err, "store: expected where to put the uids, "
                            "got NULL");
    *uids = NULL;
    *count = 0;
    if (!root)
        root = cm_store_default_root();
    errno = 0;   /* ENOENT below only from the open of a component */
    pfd = cm_file_open_dir_safe(root, 0, "store", err);
    if (pfd < 0)
        return errno == ENOENT ? 0 : -1;   /* no store yet: no users */
    fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    close(pfd);
    d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return cm_error_set(err, "%s: cannot list the store's users: %s", root,
                            strerror(e));
    }
    while ((de = readdir(d))) {
        if (!uid_name(de->d_name, &uid))
            continue;
        if (n == cap) {
            int ncap = cap ? 2 * cap : 16;
            uid_t *nv = realloc(v, (size_t)ncap * sizeof *v);
            if (!nv) {
                free(v);
                closedir(d);
                return cm_error_set(err, "%s: out of memory", root);
            }
            v = nv;
            cap = ncap;
        }
        v[n++] = uid;
    }
    closedir(d);
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, uid_cmp);
    *uids = v;
    *count = n;
    return 0;
}
