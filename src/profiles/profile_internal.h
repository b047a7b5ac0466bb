/*
 * profile_internal.h -- what profile.c, profile_json.c and the store share.
 * Not part of the public API (src/profiles/cm_profiles.h).
 */
#ifndef CM_PROFILE_INTERNAL_H
#define CM_PROFILE_INTERNAL_H

#include <dirent.h>

#include "cm_profiles.h"

/** Upper bound of the run counter (fits every JSON integer reader). */
#define CM_PROFILE_MAX_RUNS 2147483647L

struct cm_profile {
    uid_t uid;
    char *user;
    char *job_name;
    int ntasks;
    long runs;
    int has_msgs;
    int64_t first_update, last_update;
    int njobids;
    char *jobids[CM_PROFILE_MAX_JOBIDS];   /* oldest first */
    cm_matrix_t *part[2];                  /* p2p, coll; never NULL once built */
};

/** A profile with its key checked and set, runs = 1, no matrices yet. */
cm_profile_t *cm_profile_alloc(uid_t uid, const char *user,
                               const char *job_name, int ntasks,
                               cm_error_t *err);

/** wa * a + wb * b over the union of both patterns (either may be NULL);
 *  message counts are dropped (zero) unless @p has_msgs. */
cm_matrix_t *cm_profile_combine(int n, const cm_matrix_t *a, double wa,
                                const cm_matrix_t *b, double wb, int has_msgs,
                                cm_error_t *err);

/** "<what>: expected ..." unless @p s is a name of at most
 *  CM_PROFILE_MAX_NAME bytes (non-empty unless @p allow_empty). */
int cm_profile_check_name(const char *what, const char *s, int allow_empty,
                          cm_error_t *err);

/** Same for a job id: 1..CM_PROFILE_MAX_JOBID printable ASCII bytes. */
int cm_profile_check_jobid(const char *what, const char *s, cm_error_t *err);

/** A growable byte buffer, NUL-terminated (the JSON and binary writers):
 *  after a failed allocation it is marked failed and adds nothing more. */
typedef struct cm_sbuf {
    char *s;
    size_t len, cap;
    int failed;
} cm_sbuf_t;

void cm_sbuf_add(cm_sbuf_t *b, const void *data, size_t len);

/** FNV-1a 64 step over @p len bytes, starting from hash @p h. */
uint64_t cm_fnv1a64(uint64_t h, const void *data, size_t len);

/** Read at most @p max_bytes of a regular file from @p fd into a malloc'd,
 *  NUL-terminated buffer.  The size is checked with fstat before reading and
 *  again while reading (the file may grow).  *len gets the byte count. */
char *cm_profile_slurp_fd(int fd, const char *name, size_t max_bytes,
                          size_t *len, cm_error_t *err);

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

#endif /* CM_PROFILE_INTERNAL_H */
