/*
 * store_internal.h -- what the store's files share: the lock, locked
 * writes, the table of the files kept beside a profile, the locked forms
 * of the writes a recorded run makes in one transaction, the staging
 * directories of profiled steps, the tnbc traces.  Private to src/store/.
 */
#ifndef CM_STORE_INTERNAL_H
#define CM_STORE_INTERNAL_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>

#include "cm_file.h"
#include "cm_store.h"
#include "profile_internal.h"

/* The public calls refuse a NULL store handle (a caller that went on after
 * cm_store_open failed): -1 with this message rather than a crash. */
#define CM_STORE_NEED(s, err)                                                            \
    do {                                                                                 \
        if (!(s))                                                                        \
            return cm_error_set((err), "store: expected a store, got NULL");             \
    } while (0)

/** The store's lock (flock on <user dir>/.lock): a descriptor to pass to
 *  cm_store_lock_release, or -1 with @p err. */
int cm_store_lock_take(cm_store_t *s, cm_error_t *err);
void cm_store_lock_release(int fd);

/** How many times this process took the store's lock (any store): what
 *  the unit tests count to check that one recorded run is one
 *  transaction. */
unsigned long cm_store_lock_takes(void);

/** Lock held: replace @p fname of the user directory with @p len bytes of
 *  @p text (temporary file, fsync, rename, fsync of the directory; given
 *  to the store's user when root writes). */
int cm_store_write_locked(cm_store_t *s, const char *fname, const char *text, size_t len,
                          cm_error_t *err);

/* -- the files kept beside a profile (store_side.c) -- */

/** The kinds of side file, in the order removal takes them. */
enum {
    CM_SIDE_RUNS = 0, /**< the run history (store_history.c) */
    CM_SIDE_NOMPI,    /**< the "no MPI" mark (store.c) */
    CM_SIDE_PROGRAM,  /**< the program an import's parts named (store_side.c) */
    CM_SIDE_TRACE,    /**< the tnbc traces, a directory (store_trace.c) */
    CM_SIDE_COUNT
};

/** cm_store_side_t flags. */
#define CM_SIDE_REPLACED                                                                 \
    1 /**< written by cm_store_write_locked: a killed
                                  writer may leave ".<name>.tmp.<pid>" */
#define CM_SIDE_DATED                                                                    \
    2 /**< its modification time is a use of the
                                  profile when it cannot be read */

/** One kind of side file: "<profile file name><suffix>" in the user
 *  directory. */
typedef struct cm_store_side {
    const char *suffix;
    /** Bytes on disk of the side file @p name (0: there is none); its
     *  modification time into *mtime when @p mtime (may be NULL). */
    uint64_t (*bytes)(cm_store_t *s, const char *name, int64_t *mtime);
    /** Lock held: remove the side file @p name.  1 removed, 0 there was
     *  none, -1 with @p err (the profile is then kept). */
    int (*remove)(cm_store_t *s, const char *name, cm_error_t *err);
    int flags; /**< CM_SIDE_* */
} cm_store_side_t;

/** The table, indexed by CM_SIDE_*. */
extern const cm_store_side_t cm_store_sides[CM_SIDE_COUNT];

/** Room for a side file's name: a profile file name (at most 255 bytes)
 *  and a suffix. */
#define CM_STORE_SIDE_NAME 300

/** The side file of kind @p kind of the profile file @p fname into @p buf.
 *  0, or -1 with @p err when it does not fit. */
int cm_store_side_name(const char *fname, int kind, char *buf, size_t n, cm_error_t *err);

/** The same from the profile's key (job_name, ntasks).  0 or -1 with
 *  @p err. */
int cm_store_sidecar_name(const char *job_name, int ntasks, int kind, char *buf, size_t n,
                          cm_error_t *err);

/** Read the user's side file @p fname of the store's directory, at most
 *  @p max bytes: opened without following a link, a regular file of the
 *  store's user that nobody else may write.  1 with *text (malloc'd,
 *  NUL-ended) and *len, 0 when there is none (*text NULL), -1 with
 *  @p err naming the file. */
int cm_store_side_read(cm_store_t *s, const char *fname, size_t max, char **text,
                       size_t *len, cm_error_t *err);

/** Bytes on disk of every side file of the profile file @p fname; the
 *  modification time of the dated one (the history) into *mtime (left as
 *  it is when that file is missing). */
uint64_t cm_store_sides_bytes(cm_store_t *s, const char *fname, int64_t *mtime);

/** Lock held: remove every side file of the profile file @p fname, in the
 *  table's order.  0, or -1 with @p err at the first that stays. */
int cm_store_sides_remove_locked(cm_store_t *s, const char *fname, cm_error_t *err);

/** 1 when @p name (an entry of the user directory) is what a killed writer
 *  of a profile or of a replaced side file left, else 0. */
int cm_store_side_temp(const char *name);

/** The same for an explain record (store_explain.c). */
int cm_store_explain_temp(const char *name);

/* -- one transaction: what recording a run does under one lock -- */

/** Lock held: cm_store_merge, cm_store_save (replacing), cm_store_delete
 *  (1 removed, 0 there was none), cm_store_history_add and
 *  cm_store_history_reset without taking the lock. */
int cm_store_merge_locked(cm_store_t *s, const cm_profile_t *run, double weight,
                          int flags, time_t now, long *runs_out, cm_error_t *err);
int cm_store_save_locked(cm_store_t *s, const cm_profile_t *p, cm_error_t *err);
int cm_store_delete_locked(cm_store_t *s, const char *job_name, int ntasks,
                           cm_error_t *err);
int cm_store_history_add_locked(cm_store_t *s, const char *job_name, int ntasks,
                                const cm_run_t *run, cm_error_t *err);
int cm_store_history_reset_locked(cm_store_t *s, const char *job_name, int ntasks,
                                  cm_error_t *err);

/* -- a profiled step's staging directory (store_parts.c) -- */

/** Open (creating with @p create) the staging directory ".step.<step>" of
 *  the user directory; @p step must be "<jobid>.<stepid>".  Its
 *  descriptor, or -1 with @p err (errno ENOENT when it is missing). */
int cm_store_stage_open(cm_store_t *s, const char *step, int create, cm_error_t *err);

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

/** What cm_store_trace_stage() found in a step's staging directory. */
typedef struct cm_trace_staged {
    int have;        /**< tasks that sent a trace */
    char fname[256]; /**< the profile's file name ("": none) */
} cm_trace_staged_t;

/** Under the staging lock, before the store's lock: count the traces
 *  staged in @p dir ("<task>.tnbc") and, when every task sent one, give
 *  each file the times of all ranks.  Fills @p t for
 *  cm_store_trace_keep_locked. */
void cm_store_trace_stage(cm_store_t *s, int dir, const char *job_name, int ntasks,
                          cm_trace_staged_t *t);

/** Store's lock held, after the run was recorded: the staged traces of
 *  @p t replace the profile's (exchanged whole) when every task sent one;
 *  with some missing the kept one stays; with none it stays too, unless
 *  @p drop (the program changed).  With @p no_lock (why the lock could
 *  not be taken) the store is left as it is.  What was done is appended
 *  to @p note ("; ..."), never an error of the run. */
void cm_store_trace_keep_locked(cm_store_t *s, int dir, int ntasks,
                                const cm_trace_staged_t *t, int drop, const char *no_lock,
                                char *note, size_t n);

/** Lock held: remove the trace directory @p side of the user directory
 *  (and what killed writers left of it).  1 removed, 0 there was none,
 *  -1 with @p err. */
int cm_store_trace_remove_locked(cm_store_t *s, const char *side, cm_error_t *err);

/** Bytes of the files of the trace directory @p side (0: none); @p mtime
 *  is not set (a trace is no use of its own). */
uint64_t cm_store_trace_bytes(cm_store_t *s, const char *side, int64_t *mtime);

/** The store's open user directory (-1 when it does not exist). */
int cm_store_dirfd(const cm_store_t *s);

/** Test hook: when $CLUSTERMAP_FAULT_INJECT equals @p stage, the process
 *  kills itself with SIGKILL (docs/profile-format.md lists the stages). */
void cm_store_fault_point(const char *stage);

#endif /* CM_STORE_INTERNAL_H */
