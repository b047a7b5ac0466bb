/*
 * store_internal.h -- what the store's files share: the lock, locked
 * writes, the names of the files kept beside a profile, the staging
 * directories of profiled steps, the tnbc traces.  Private to src/store/.
 */
#ifndef CM_STORE_INTERNAL_H
#define CM_STORE_INTERNAL_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>

#include "cm_store.h"
#include "profile_internal.h"

/** Open the directory @p path (absolute) component by component from "/"
 *  without following any symbolic link; every directory on the way must
 *  belong to root or the caller and not be writable by others unless
 *  sticky, and @p path itself must belong to root (to the caller when not
 *  root) with no group or world write permission.  Only its last component
 *  is created (mode 0711) when missing and @p create.  Returns an O_PATH
 *  descriptor, or -1 with @p err (errno ENOENT when it is missing). */
int cm_dir_open_safe(const char *path, int create, cm_error_t *err);

/** The store's lock (flock on <user dir>/.lock): a descriptor to pass to
 *  cm_store_lock_release, or -1 with @p err. */
int cm_store_lock_take(cm_store_t *s, cm_error_t *err);
void cm_store_lock_release(int fd);

/** Lock held: replace @p fname of the user directory with @p len bytes of
 *  @p text (temporary file, fsync, rename, fsync of the directory; given
 *  to the store's user when root writes). */
int cm_store_write_locked(cm_store_t *s, const char *fname, const char *text,
                          size_t len, cm_error_t *err);

/** The name of a file kept next to the profile file of (@p job_name,
 *  @p ntasks): its name followed by @p suffix (".nompi", ".runs").  0 or
 *  -1 with @p err. */
int cm_store_sidecar_name(const char *job_name, int ntasks, const char *suffix,
                          char *buf, size_t n, cm_error_t *err);

/* -- a profiled step's staging directory (store_parts.c) -- */

/** Open (creating with @p create) the staging directory ".step.<step>" of
 *  the user directory; @p step must be "<jobid>.<stepid>".  Its
 *  descriptor, or -1 with @p err (errno ENOENT when it is missing). */
int cm_store_stage_open(cm_store_t *s, const char *step, int create,
                        cm_error_t *err);

/** Write @p name in @p dirfd through a temporary file and rename: the
 *  bytes read from @p src, or the string @p text when src < 0, at most
 *  @p max_bytes of them.  0 or -1. */
int cm_store_put_file(int dirfd, const char *name, int src, const char *text,
                      size_t max_bytes, cm_error_t *err);

/** A stream over the entries of the open directory @p dir, from its
 *  start (a duplicate descriptor: @p dir stays open); NULL on failure. */
DIR *cm_store_list_dir(int dir);

/** Remove every file of the open directory @p dir, then the directory,
 *  @p name of @p parent (no recursion: the store's directories are flat). */
void cm_store_dir_remove(int parent, int dir, const char *name);

/* -- tnbc traces kept beside a profile (store_trace.c) -- */

/** Under the staging lock, after the run of @p ntasks tasks was recorded:
 *  the traces staged in @p dir ("<task>.tnbc") replace the profile's,
 *  atomically under the store's lock, when every task sent one; with none
 *  staged the old one stays, unless @p drop (the program changed).  What
 *  was done is appended to @p note ("; ..."), never an error of the run. */
void cm_store_trace_keep(cm_store_t *s, int dir, const char *job_name,
                         int ntasks, int drop, char *note, size_t n);

/** Lock held: remove the trace kept beside the profile file @p fname.
 *  1 removed, 0 there was none, -1 with @p err. */
int cm_store_trace_remove_locked(cm_store_t *s, const char *fname,
                                 cm_error_t *err);

/** Bytes of the trace kept beside the profile file @p fname (0: none). */
uint64_t cm_store_trace_bytes(cm_store_t *s, const char *fname);

/** The store's open user directory (-1 when it does not exist). */
int cm_store_dirfd(const cm_store_t *s);

/** Test hook: when $CLUSTERMAP_FAULT_INJECT equals @p stage, the process
 *  kills itself with SIGKILL (docs/profile-format.md lists the stages). */
void cm_store_fault_point(const char *stage);

#endif /* CM_STORE_INTERNAL_H */
