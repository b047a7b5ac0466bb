/*
 * store_explain.c -- what the plugin chose for a placed step, kept for
 * `clustermap explain`: ".explain.<jobid>.<stepid>" in the user's store
 * directory, a few KiB of text written by srun (as the user) at its end,
 * when the step id is known.  At most CM_EXPLAIN_MAX_RECORDS are kept: the
 * oldest go first, so the store does not grow with the number of jobs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_internal.h"

#define PREFIX ".explain."

/* "<jobid>.<stepid>" or "<jobid>": digits and at most one inner dot. */
static int check_key(const char *key, int need_step, cm_error_t *err)
{
    size_t n = key ? strlen(key) : 0;
    const char *dot = key ? strchr(key, '.') : NULL;
    if (n == 0 || n > 40 || strspn(key, "0123456789.") != n || key[0] == '.' ||
        key[n - 1] == '.' || (dot && strchr(dot + 1, '.')) || (need_step && !dot))
        return cm_error_set(err, "'%s': expected JOBID%s", key ? key : "",
                            need_step ? ".STEP" : "[.STEP]");
    return 0;
}

int cm_store_explain_temp(const char *name)
{
    /* ".<record name>.tmp.<pid>" (cm_store_write_locked) */
    return name[0] == '.' && !strncmp(name + 1, PREFIX, strlen(PREFIX)) &&
           strstr(name, ".tmp.") != NULL;
}

/* Remove the oldest records past the bound (lock held). */
static void prune(cm_store_t *s)
{
    int fd = dup(cm_store_dirfd(s));
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    for (;;) {
        struct dirent *e;
        char oldest[256] = "";
        time_t when = 0;
        int count = 0;
        rewinddir(d);
        while ((e = readdir(d))) {
            struct stat st;
            if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) || strstr(e->d_name, ".tmp.") ||
                fstatat(cm_store_dirfd(s), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                continue;
            count++;
            if (!oldest[0] || st.st_mtime < when) {
                when = st.st_mtime;
                snprintf(oldest, sizeof oldest, "%s", e->d_name);
            }
        }
        if (count <= CM_EXPLAIN_MAX_RECORDS || !oldest[0])
            break;
        unlinkat(cm_store_dirfd(s), oldest, 0);
    }
    closedir(d);
}

int cm_store_explain_put(cm_store_t *s, const char *step, const char *text,
                         cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char name[64];
    if (check_key(step, 1, err) < 0)
        return -1;
    if (cm_store_dirfd(s) < 0)
        return cm_error_set(err, "%s: no profile directory", cm_store_dir(s));
    if (!text)
        return cm_error_set(err, "explain record of %s: expected a text, got "
                            "NULL", step);
    size_t len = strlen(text);
    if (len > CM_EXPLAIN_MAX_BYTES)
        return cm_error_set(err, "explain record of %s: %zu bytes, more than %d",
                            step, len, CM_EXPLAIN_MAX_BYTES);
    snprintf(name, sizeof name, PREFIX "%s", step);
    int lock = cm_store_lock_take(s, err);
    if (lock < 0)
        return -1;
    int rc = cm_store_write_locked(s, name, text, len, err);
    if (rc == 0)
        prune(s);
    cm_store_lock_release(lock);
    return rc;
}

char *cm_store_explain_get(cm_store_t *s, const char *key, cm_error_t *err)
{
    if (!s) {
        cm_error_set(err, "store: expected a store, got NULL");
        return NULL;
    }
    if (check_key(key, 0, err) < 0)
        return NULL;
    if (cm_store_dirfd(s) < 0) {
        cm_error_set(err, "%s: no profile directory", cm_store_dir(s));
        return NULL;
    }
    /* what srun wrote as the user: a record of anybody else is skipped */
    cm_file_want_t want = { 0, cm_store_uid(s), 022 };
    size_t klen = strlen(key), used = 0, cap = 0;
    int step = strchr(key, '.') != NULL;
    char *out = NULL;
    int fd = dup(cm_store_dirfd(s));
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        cm_error_set(err, "%s: cannot list: %s", cm_store_dir(s), strerror(errno));
        return NULL;
    }
    rewinddir(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *k = e->d_name + strlen(PREFIX);
        if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) || strstr(k, ".tmp.") ||
            strncmp(k, key, klen) || (step ? k[klen] != '\0' : k[klen] != '.'))
            continue;
        int f = cm_file_open_at(cm_store_dirfd(s), e->d_name, e->d_name,
                                &want, NULL);
        if (f < 0)
            continue;
        size_t len;
        char *text = cm_file_read_fd(f, e->d_name, CM_EXPLAIN_MAX_BYTES, &len,
                                     NULL);
        close(f);
        if (!text)
            continue;
        if (used + len + 64 > cap) {
            cap = 2 * (used + len + 64);
            char *n = realloc(out, cap);
            if (!n) {
                free(text);
                break;
            }
            out = n;
        }
        used += (size_t)snprintf(out + used, cap - used, "%s== step %s\n%s",
                                 used ? "\n" : "", k, text);
        free(text);
    }
    closedir(d);
    if (!out)
        cm_error_set(err, "%s: no record of %s %s (records are kept for placed "
                     "steps, the last %d)", cm_store_dir(s), step ? "step" : "job",
                     key, CM_EXPLAIN_MAX_RECORDS);
    return out;
}
