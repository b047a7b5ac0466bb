/*
 * cm_file.h -- opening and reading files that someone else may have put in
 * the way: no symbolic link is followed, owners and permission bits are
 * checked on the descriptor (never on the name), whole-file reads are
 * bounded.  What the store, the profiles and the plugin read with; no
 * Slurm and no store in here (libcm-util.a, errors through cm_error_t of
 * clustermap.h).
 */
#ifndef CM_FILE_H
#define CM_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "clustermap.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Open the directory @p path (absolute) component by component from "/"
 *  without following any symbolic link; every directory on the way must
 *  belong to root or the caller and not be writable by others unless
 *  sticky, and @p path itself must belong to root (to the caller when not
 *  root) with no group or world write permission.  Only its last
 *  component is created (mode 0711) when missing and @p create; a parent
 *  is never made.  Messages call it "the @p what directory" and refuse
 *  "the @p what" (@p what: "store").  Returns an O_PATH descriptor, or -1
 *  with @p err and errno (ENOENT when a component is missing, EPERM when
 *  one fails a check, EINVAL for a NULL @p path or @p what or a relative
 *  path). */
int cm_file_open_dir_safe(const char *path, int create, const char *what,
                          cm_error_t *err);

/** What cm_file_open_at() requires of what it opens. */
typedef struct cm_file_want {
    int dir;          /**< 1: a directory; 0: a regular file */
    uid_t owner;      /**< its owner, or CM_FILE_ANY_OWNER */
    mode_t forbidden; /**< permission bits it must not have (022, 077) */
} cm_file_want_t;

#define CM_FILE_ANY_OWNER ((uid_t)-1)

/** Open @p name relative to @p dirfd (AT_FDCWD: a path) read-only,
 *  without following a symbolic link in its last component (O_NOFOLLOW;
 *  O_NONBLOCK for a file, so that a FIFO put in its place cannot block
 *  the caller), then check on the descriptor that it is what @p want
 *  says.  @p shown names it in messages ("<dir>/<name>"; NULL: @p name).
 *  A NULL @p name or @p want is refused (EINVAL).  Returns the
 *  descriptor, or -1 with errno: ENOENT (it does not exist: @p err is not
 *  set), ELOOP (a link in place of a file: "is a symbolic link; refusing
 *  to follow it"), ENOTDIR (a link or a file in place of a directory),
 *  EPERM (not a regular file or not a directory, another owner, a
 *  forbidden permission bit: the message says which), or open's errno
 *  ("cannot open: ..."). */
int cm_file_open_at(int dirfd, const char *name, const char *shown,
                    const cm_file_want_t *want, cm_error_t *err);

/** Check the open descriptor @p fd as cm_file_open_at() does: 0, or -1
 *  with @p err naming @p shown and errno EPERM (EINVAL: a NULL @p want;
 *  fstat's errno: a bad descriptor). */
int cm_file_check(int fd, const char *shown, const cm_file_want_t *want, cm_error_t *err);

/** Read the regular file open at @p fd whole, at most @p max_bytes bytes
 *  (checked with fstat before reading, and again while reading: the file
 *  may grow), into a malloc'd buffer with a NUL after the *len bytes.
 *  @p name names it in messages (may be NULL), @p len may be NULL.  The
 *  caller frees the buffer.  NULL on
 *  failure, with @p err and errno: EINVAL not a regular file, EFBIG
 *  larger than @p max_bytes (*len then holds the size fstat saw, or 0
 *  when the file grew past the bound while being read), ENOMEM, or the
 *  errno of fstat or read. */
char *cm_file_read_fd(int fd, const char *name, size_t max_bytes, size_t *len,
                      cm_error_t *err);

/** Take an exclusive flock on @p fd, waiting at most @p wait_ms
 *  milliseconds (< 0: as long as it takes; 0: one try).  Whoever else can
 *  open the file can hold its lock for ever: a caller that must go on
 *  (root over a user's file) gives a bound.  0, or -1 with errno
 *  ETIMEDOUT (still held by another open file at the bound) or flock's
 *  errno. */
int cm_file_lock(int fd, int wait_ms);

#ifdef __cplusplus
}
#endif

#endif /* CM_FILE_H */
