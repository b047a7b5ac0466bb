/*
 * store_side.c -- the files kept beside a profile, one row each.
 *
 * A profile "<escaped name>.<ntasks>.json" owns the entries of the user
 * directory named by its file name and a suffix: its run history, its
 * "no MPI" mark, the program its imported parts named, its tnbc traces.  Listing counts their bytes, removal
 * (delete, prune) takes them before the profile file: both walk the table
 * below, so that a new kind of side file is one row here and the functions
 * that write and read it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_internal.h"

/* Bytes of the regular file @p name of the user directory (0 when there
 * is none), its modification time in *mtime (may be NULL). */
static uint64_t file_bytes(cm_store_t *s, const char *name, int64_t *mtime)
{
    struct stat st;
    if (fstatat(cm_store_dirfd(s), name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
        !S_ISREG(st.st_mode))
        return 0;
    if (mtime)
        *mtime = (int64_t)st.st_mtime;
    return (uint64_t)st.st_size;
}

/* Lock held: unlink the file @p name; a missing one is not an error. */
static int file_remove(cm_store_t *s, const char *name, cm_error_t *err)
{
    if (unlinkat(cm_store_dirfd(s), name, 0) == 0)
        return 1;
    if (errno == ENOENT)
        return 0;
    return cm_error_set(err, "%s/%s: cannot remove: %s (the profile is kept)",
                        cm_store_dir(s), name, strerror(errno));
}

/* The order is the order of removal: the history first (a profile left
 * without it only loses the guard's evidence), the trace last. */
const cm_store_side_t cm_store_sides[CM_SIDE_COUNT] = {
    [CM_SIDE_RUNS] = { ".runs", file_bytes, file_remove,
                       CM_SIDE_REPLACED | CM_SIDE_DATED },
    [CM_SIDE_NOMPI] = { ".nompi", file_bytes, file_remove, 0 },
    [CM_SIDE_PROGRAM] = { ".program", file_bytes, file_remove, CM_SIDE_REPLACED },
    [CM_SIDE_TRACE] = { CM_TRACE_SUFFIX, cm_store_trace_bytes,
                        cm_store_trace_remove_locked, 0 },
};

int cm_store_side_name(const char *fname, int kind, char *buf, size_t n, cm_error_t *err)
{
    int w = snprintf(buf, n, "%s%s", fname, cm_store_sides[kind].suffix);
    if (w < 0 || (size_t)w >= n)
        return cm_error_set(err, "%s%s: name too long", fname,
                            cm_store_sides[kind].suffix);
    return 0;
}

int cm_store_sidecar_name(const char *job_name, int ntasks, int kind, char *buf, size_t n,
                          cm_error_t *err)
{
    size_t sl = strlen(cm_store_sides[kind].suffix);
    if (n <= sl || cm_store_filename(job_name, ntasks, buf, n - sl, err) < 0)
        return -1;
    strcat(buf, cm_store_sides[kind].suffix);
    return 0;
}

uint64_t cm_store_sides_bytes(cm_store_t *s, const char *fname, int64_t *mtime)
{
    char side[CM_STORE_SIDE_NAME];
    uint64_t bytes = 0;
    for (int k = 0; k < CM_SIDE_COUNT; k++)
        if (cm_store_side_name(fname, k, side, sizeof side, NULL) == 0)
            bytes += cm_store_sides[k].bytes(
                s, side, (cm_store_sides[k].flags & CM_SIDE_DATED) ? mtime : NULL);
    return bytes;
}

int cm_store_sides_remove_locked(cm_store_t *s, const char *fname, cm_error_t *err)
{
    char side[CM_STORE_SIDE_NAME];
    for (int k = 0; k < CM_SIDE_COUNT; k++)
        if (cm_store_side_name(fname, k, side, sizeof side, err) < 0 ||
            cm_store_sides[k].remove(s, side, err) < 0)
            return -1;
    return 0;
}

int cm_store_side_temp(const char *name)
{
    /* ".<profile file name><suffix>.tmp.<pid>" (cm_store_write_locked) */
    if (name[0] != '.')
        return 0;
    if (strstr(name, ".json.tmp."))
        return 1;
    for (int k = 0; k < CM_SIDE_COUNT; k++) {
        char pat[32];
        if (!(cm_store_sides[k].flags & CM_SIDE_REPLACED))
            continue;
        snprintf(pat, sizeof pat, "%s.tmp.", cm_store_sides[k].suffix);
        if (strstr(name, pat))
            return 1;
    }
    return 0;
}

/* ---- the program an import's parts named --------------------------------- */

/* A name the store keeps: what a raw part may name (raw.c), nothing a
 * reader could take for a second line or a path. */
static int program_check(const char *what, const char *program, cm_error_t *err)
{
    size_t n = strlen(program);
    if (n == 0 || n >= CM_STORE_PROGRAM_MAX)
        return cm_error_set(err,
                            "%s: program name: expected 1..%d characters, "
                            "got %zu",
                            what, CM_STORE_PROGRAM_MAX - 1, n);
    for (size_t k = 0; k < n; k++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789._-",
                    program[k]))
            return cm_error_set(err,
                                "%s: program name: expected characters "
                                "[A-Za-z0-9._-], got byte 0x%02x at offset %zu",
                                what, (unsigned char)program[k], k);
    return 0;
}

int cm_store_program_set(cm_store_t *s, const char *job_name, int ntasks,
                         const char *program, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char fname[CM_STORE_SIDE_NAME], text[CM_STORE_PROGRAM_MAX + 1];
    if ((program && program_check("store", program, err) < 0) ||
        cm_store_sidecar_name(job_name, ntasks, CM_SIDE_PROGRAM, fname, sizeof fname,
                              err) < 0)
        return -1;
    if (cm_store_dirfd(s) < 0)
        return cm_error_set(err, "%s: no profile directory", cm_store_dir(s));
    int lock = cm_store_lock_take(s, err);
    if (lock < 0)
        return -1;
    int rc;
    if (program) {
        int len = snprintf(text, sizeof text, "%s\n", program);
        rc = cm_store_write_locked(s, fname, text, (size_t)len, err);
    } else {
        rc = file_remove(s, fname, err) < 0 ? -1 : 0;
    }
    cm_store_lock_release(lock);
    return rc;
}

int cm_store_side_read(cm_store_t *s, const char *fname, size_t max, char **text,
                       size_t *len, cm_error_t *err)
{
    char path[4096];
    /* the user's own file: nobody else may have written a line of it */
    cm_file_want_t want = { 0, cm_store_uid(s), 022 };
    *text = NULL;
    *len = 0;
    if (cm_store_dirfd(s) < 0)
        return 0;
    snprintf(path, sizeof path, "%s/%s", cm_store_dir(s), fname);
    int fd = cm_file_open_at(cm_store_dirfd(s), fname, path, &want, err);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    *text = cm_file_read_fd(fd, path, max, len, err);
    close(fd);
    return *text ? 1 : -1;
}

int cm_store_program_get(cm_store_t *s, const char *job_name, int ntasks, char *buf,
                         size_t n, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char fname[CM_STORE_SIDE_NAME], path[4096];
    if (!buf || n < CM_STORE_PROGRAM_MAX)
        return cm_error_set(err,
                            "store: expected a buffer of %d bytes for a program "
                            "name",
                            CM_STORE_PROGRAM_MAX);
    buf[0] = '\0';
    if (cm_store_sidecar_name(job_name, ntasks, CM_SIDE_PROGRAM, fname, sizeof fname,
                              err) < 0)
        return -1;
    size_t len;
    char *text;
    int rc = cm_store_side_read(s, fname, CM_STORE_PROGRAM_MAX, &text, &len, err);
    if (rc <= 0)
        return rc;
    snprintf(path, sizeof path, "%s/%s", cm_store_dir(s), fname);
    if (len == 0 || text[len - 1] != '\n' || strlen(text) != len)
        rc = cm_error_set(err, "%s: expected one line ending in a newline", path);
    else
        text[len - 1] = '\0';
    if (rc == 1 && program_check(path, text, err) < 0)
        rc = -1;
    if (rc == 1)
        memcpy(buf, text, len);
    free(text);
    return rc;
}
