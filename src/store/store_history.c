/*
 * store_history.c -- a profile's run history in the store:
 * "<profile file name>.runs" next to the profile, in the user's directory,
 * replaced atomically under the store's lock like the profile itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_internal.h"

/* A history holds 64 lines of well under 512 bytes. */
#define HISTORY_MAX_BYTES ((size_t)64 << 10)

static int history_name(const char *job_name, int ntasks, char *buf, size_t n,
                        cm_error_t *err)
{
    return cm_store_sidecar_name(job_name, ntasks, CM_SIDE_RUNS, buf, n, err);
}

/* Read the history file @p fname: 0 (count 0 when absent) or -1. */
static int read_history(cm_store_t *s, const char *fname, cm_run_t *runs,
                        int *count, cm_error_t *err)
{
    char path[4096];
    size_t len;
    char *text;
    *count = 0;
    int rc = cm_store_side_read(s, fname, HISTORY_MAX_BYTES, &text, &len, err);
    if (rc <= 0)
        return rc;
    snprintf(path, sizeof path, "%s/%s", cm_store_dir(s), fname);
    rc = cm_history_parse(text, len, path, runs, count, err);
    free(text);
    return rc;
}

int cm_store_history_load(cm_store_t *s, const char *job_name, int ntasks,
                          cm_run_t *runs, int *count, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char fname[300];
    if (!runs || !count)
        return cm_error_set(err, "store: expected where to put the runs, "
                            "got NULL");
    *count = 0;
    if (history_name(job_name, ntasks, fname, sizeof fname, err) < 0)
        return -1;
    if (cm_store_dirfd(s) < 0)
        return 0;
    return read_history(s, fname, runs, count, err);
}

int cm_store_history_add_locked(cm_store_t *s, const char *job_name,
                                int ntasks, const cm_run_t *run,
                                cm_error_t *err)
{
    char fname[300];
    cm_error_t ignored;
    if (cm_run_check(run, err) < 0 ||
        history_name(job_name, ntasks, fname, sizeof fname, err) < 0)
        return -1;
    if (cm_store_dirfd(s) < 0)
        return cm_error_set(err, "%s: no profile directory", cm_store_dir(s));
    cm_run_t *runs = malloc((CM_HISTORY_MAX_RUNS + 1) * sizeof *runs);
    if (!runs)
        return cm_error_set(err, "out of memory");
    int count = 0, rc = -1;
    /* An unreadable history is evidence nobody can use: start again. */
    if (read_history(s, fname, runs, &count, &ignored) < 0)
        count = 0;
    if (count == CM_HISTORY_MAX_RUNS) {
        memmove(runs, runs + 1, (CM_HISTORY_MAX_RUNS - 1) * sizeof *runs);
        count--;
    }
    runs[count++] = *run;
    size_t len;
    char *text = cm_history_format(runs, count, &len, err);
    if (text)
        rc = cm_store_write_locked(s, fname, text, len, err);
    free(text);
    free(runs);
    return rc;
}

int cm_store_history_add(cm_store_t *s, const char *job_name, int ntasks,
                         const cm_run_t *run, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char fname[300];
    if (!run)
        return cm_error_set(err, "store: expected a run, got NULL");
    if (cm_run_check(run, err) < 0 ||
        history_name(job_name, ntasks, fname, sizeof fname, err) < 0)
        return -1;
    if (cm_store_dirfd(s) < 0)
        return cm_error_set(err, "%s: no profile directory", cm_store_dir(s));
    int lock = cm_store_lock_take(s, err);
    if (lock < 0)
        return -1;
    int rc = cm_store_history_add_locked(s, job_name, ntasks, run, err);
    cm_store_lock_release(lock);
    return rc;
}

int cm_store_history_reset_locked(cm_store_t *s, const char *job_name,
                                  int ntasks, cm_error_t *err)
{
    char fname[300];
    if (history_name(job_name, ntasks, fname, sizeof fname, err) < 0)
        return -1;
    if (cm_store_dirfd(s) < 0)
        return 0;
    if (unlinkat(cm_store_dirfd(s), fname, 0) == 0)
        return 1;
    if (errno == ENOENT)
        return 0;
    return cm_error_set(err, "%s/%s: cannot remove: %s", cm_store_dir(s),
                        fname, strerror(errno));
}

int cm_store_history_reset(cm_store_t *s, const char *job_name, int ntasks,
                           cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char fname[300];
    if (history_name(job_name, ntasks, fname, sizeof fname, err) < 0)
        return -1;
    if (cm_store_dirfd(s) < 0)
        return 0;
    int lock = cm_store_lock_take(s, err);
    if (lock < 0)
        return -1;
    int rc = cm_store_history_reset_locked(s, job_name, ntasks, err);
    cm_store_lock_release(lock);
    return rc;
}
