/*
 * cm_store.h -- the per-user profile store and what it keeps beside each
 * profile (run history, no-MPI marks, tnbc traces, explain records).
 *
 * The store is a directory tree  <root>/<uid>/<escaped job name>.<ntasks>.json
 * where every <uid> directory belongs to that user and has mode 0700, so the
 * kernel keeps users out of each other's profiles.  Updates take an flock on
 * <root>/<uid>/.lock, write a temporary file, fsync it, rename it over the
 * old one and fsync the directory: a crash leaves the old or the new profile,
 * never a torn one.
 *
 * Conventions are those of clustermap.h: opaque handles, cm_error_t last,
 * NULL/-1 on failure with a message naming the file and the field.  A NULL
 * store handle, name or output pointer is refused the same way (-1, or
 * NULL for cm_store_explain_get), never dereferenced; the calls that
 * cannot fail say what they give for one.
 */
#ifndef CM_STORE_H
#define CM_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "clustermap.h"
#include "cm_env.h"
#include "cm_history.h"
#include "cm_profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default store root (documented in docs/profile-format.md); the
 *  environment variable CM_ENV_STORE (cm_env.h) overrides it for the
 *  command. */
#define CM_STORE_DEFAULT_DIR "/var/spool/slurm/clustermap"

/* ------------------------------------------------------------------------ */
/* Store                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct cm_store cm_store_t;

/** cm_store_open() flags. */
#define CM_STORE_CREATE 1   /**< create the root (mode 0711) and the user's
                                 directory (0700; chowned to the user when
                                 the caller is root) when missing */

/** Open user @p uid's part of the store under @p root (NULL: the default
 *  directory, see cm_store_default_root()).  The user directory is opened
 *  with O_DIRECTORY|O_NOFOLLOW and must be owned by @p uid with no group or
 *  world permission bits; every file is then opened relative to it.
 *  @p max_bytes bounds profile files read (0: the default).  Works as the
 *  user or as root. */
cm_store_t *cm_store_open(const char *root, uid_t uid, int flags,
                          size_t max_bytes, cm_error_t *err);

/** $CLUSTERMAP_STORE when set and non-empty, else CM_STORE_DEFAULT_DIR. */
const char *cm_store_default_root(void);

/** The file name (not path) of a profile: the job name with every byte
 *  outside [A-Za-z0-9._-] (and a leading '.') written as %XX, then
 *  ".<ntasks>.json".  Escaped names longer than 160 bytes are cut and
 *  followed by "~" and 16 hex digits of the name's FNV-1a 64 hash (the key
 *  inside the file resolves the rare collision).  Fails on an empty name or
 *  a name longer than CM_PROFILE_MAX_NAME. */
int cm_store_filename(const char *job_name, int ntasks, char *buf, size_t size,
                      cm_error_t *err);

/** The store's user directory path and user name (for messages); NULL for
 *  a NULL store, whose uid is (uid_t)-1 and bound 0. */
const char *cm_store_dir(const cm_store_t *s);
const char *cm_store_user(const cm_store_t *s);
uid_t cm_store_uid(const cm_store_t *s);
/** The bound on files read through the store (raw and JSON profiles). */
size_t cm_store_max_bytes(const cm_store_t *s);

/** How long a process waits for the lock of a store that is not its own
 *  (root over a user's store: prune --all-users, delete --user), in
 *  milliseconds.  The user can hold their own lock for ever; past this
 *  bound the call fails with errno ETIMEDOUT and the caller goes on with
 *  the other users.  A user's own commands wait as long as it takes. */
#define CM_STORE_LOCK_WAIT_MS 5000

/** Set the store's lock wait (milliseconds; < 0: as long as it takes);
 *  cm_store_open() sets CM_STORE_LOCK_WAIT_MS when the caller's effective
 *  uid is not the store's, else -1.  No effect on a NULL store. */
void cm_store_set_lock_wait(cm_store_t *s, int wait_ms);

/** Profiles read through the store from now on stop being decoded at
 *  @p deadline (CLOCK_MONOTONIC seconds, cm_profile_clock(); 0: none):
 *  a launch reads its profile inside its placement deadline.  No effect
 *  on a NULL store. */
void cm_store_set_read_deadline(cm_store_t *s, double deadline);

/** Load the profile (job name, ntasks): 1 and *out set when found, 0 when
 *  there is none, -1 on error (invalid, unreadable, wrong owner, key
 *  mismatch, ...). */
int cm_store_load(cm_store_t *s, const char *job_name, int ntasks,
                  cm_profile_t **out, cm_error_t *err);

/** Write @p p (its key must be the store's uid) replacing any profile of the
 *  same key, atomically and under the lock.  With @p replace 0, an existing
 *  profile is an error. */
int cm_store_save(cm_store_t *s, const cm_profile_t *p, int replace,
                  cm_error_t *err);

/** cm_store_merge() flags. */
#define CM_STORE_MUST_EXIST 1   /**< fail when there is no profile yet */

/** Under the lock: load the profile of @p run's key, merge @p run into it
 *  with @p weight (cm_profile_merge) or take @p run as it is when there is
 *  none, write the result.  *runs_out (may be NULL) receives the new run
 *  count. */
int cm_store_merge(cm_store_t *s, const cm_profile_t *run, double weight,
                   int flags, time_t now, long *runs_out, cm_error_t *err);

/** Read the raw profile @p raw_path (at most the store's max_bytes), make
 *  it a one-run profile of (store user, @p job_name, its rank count) with its
 *  job id, and cm_store_merge() it.  What the plugin calls at job end. */
int cm_store_ingest(cm_store_t *s, const char *raw_path, const char *job_name,
                    double weight, long *runs_out, cm_error_t *err);

/** One profile found by cm_store_list(). */
typedef struct cm_store_entry {
    char file[256];            /**< file name in the user directory */
    char job_name[CM_PROFILE_MAX_NAME + 1];
    int ntasks;
    long runs;
    int64_t last_update;
    double p2p_bytes, coll_bytes;
    uint64_t file_bytes;       /**< bytes on disk: the profile file and its
                                    side files (run history, "no MPI" mark,
                                    program, tnbc trace) */
    int64_t last_use;          /**< cm_store_last_use() of the profile and
                                    its run history */
    int valid;                 /**< 0: unreadable or invalid, see error */
    char error[512];
} cm_store_entry_t;

/** Every *.json file of the user directory, sorted by file name.  Invalid
 *  files are listed with valid = 0 and the reason.  last_use reads the run
 *  history; an unreadable history counts by its file's modification time.
 *  Free *entries with free(). */
int cm_store_list(cm_store_t *s, cm_store_entry_t **entries, int *count,
                  cm_error_t *err);

/** Room for a program name kept beside a profile, its NUL included. */
#define CM_STORE_PROGRAM_MAX 128

/** Keep beside the profile (job name, ntasks) the name of the program its
 *  imported parts named: "<profile file name>.program", one line
 *  (@p program of 1..127 characters [A-Za-z0-9._-]), replaced atomically
 *  under the store's lock; a NULL @p program removes it.  The file goes
 *  with the profile (delete, prune).  0, or -1 with @p err. */
int cm_store_program_set(cm_store_t *s, const char *job_name, int ntasks,
                         const char *program, cm_error_t *err);

/** The program kept by cm_store_program_set() into @p buf (at least
 *  CM_STORE_PROGRAM_MAX bytes).  The file is opened without following a
 *  symbolic link and must be a regular file of the store's user, not
 *  writable by others, of at most CM_STORE_PROGRAM_MAX bytes, one valid
 *  name on one line.  1 found, 0 there is none (@p buf ""), -1 with
 *  @p err. */
int cm_store_program_get(cm_store_t *s, const char *job_name, int ntasks, char *buf,
                         size_t n, cm_error_t *err);

/** Remove the profile (job name, ntasks) with its side files, as
 *  cm_store_delete_if() does without asking.  The profile need not be
 *  valid; a missing one is an error. */
int cm_store_delete(cm_store_t *s, const char *job_name, int ntasks,
                    cm_error_t *err);

/** What cm_store_delete_if() asks, under the lock, about the profile as it
 *  is then (@p e, a valid entry): nonzero to remove it. */
typedef int (*cm_store_pick_fn)(const cm_store_entry_t *e, void *arg);

/** Under the lock: describe the profile (job name, ntasks) in @p e (may be
 *  NULL) as cm_store_list() does and, when @p pick (NULL:
 *  always) agrees, remove it with its side files: the run history, the
 *  tnbc trace, the "no MPI" mark and the program name first, the profile file last, so that a failure keeps the
 *  profile (still listed, and removed by the next try).  1 removed; 0 kept
 *  because @p pick said no or there is no such profile (e->valid 0); -1 on
 *  an invalid profile (with @p pick) or a file that cannot be removed,
 *  named in @p err. */
int cm_store_delete_if(cm_store_t *s, const char *job_name, int ntasks,
                       cm_store_pick_fn pick, void *arg, cm_store_entry_t *e,
                       cm_error_t *err);

/* -- retention (store_prune.c; docs/profile-format.md, "Retention") ------- */

/** Which profiles cm_store_prune() removes: those matching every condition
 *  given (at least one must be). */
typedef struct cm_prune_rule {
    int64_t now;          /**< the time to judge by, seconds since the epoch */
    int64_t older_than;   /**< last update more than this many seconds
                               before @c now; -1: no such condition */
    int64_t unused_for;   /**< last use (cm_store_last_use) more than this
                               many seconds before @c now; -1: none */
} cm_prune_rule_t;

/** 1 when the valid entry @p e matches @p r, else 0 (also for an invalid
 *  entry, a rule without any condition, or a NULL @p r or @p e). */
int cm_prune_rule_match(const cm_prune_rule_t *r, const cm_store_entry_t *e);

/** cm_store_prune() flags. */
#define CM_PRUNE_DRY_RUN 1   /**< decide and report, remove nothing */

/** What became of one profile in cm_store_prune(). */
typedef enum cm_prune_status {
    CM_PRUNE_REMOVED = 0,  /**< removed (with CM_PRUNE_DRY_RUN: would be) */
    CM_PRUNE_FAILED        /**< invalid, or could not be removed: kept */
} cm_prune_status_t;

/** Called by cm_store_prune() for each profile removed or failed; @p msg
 *  is the reason of a failure (naming the file), NULL otherwise. */
typedef void (*cm_prune_fn)(const cm_store_entry_t *e, cm_prune_status_t st,
                            const char *msg, void *arg);

/** Totals of one or more cm_store_prune() calls (which add to them). */
typedef struct cm_prune_total {
    int removed;          /**< profiles removed (or that would be) */
    uint64_t bytes;       /**< their file_bytes */
    int failed;           /**< profiles kept because of an error */
    int skipped;          /**< stores left as they were: their lock stayed
                               held for CM_STORE_LOCK_WAIT_MS */
} cm_prune_total_t;

/** Remove every profile of the store's user that matches @p r, each one
 *  through cm_store_delete_if() with the rule judged again under the lock
 *  (a profile updated meanwhile stays), reporting each to @p fn (may be
 *  NULL) and adding to @p total.  Invalid profiles are kept and reported
 *  as failed.  When the store's lock stays held past its wait
 *  (cm_store_set_lock_wait), the rest of this store is skipped: -1 with
 *  errno ETIMEDOUT, @p err naming the store and its user, total->skipped
 *  counted (not failed).  0, or -1 when the store cannot be listed or a
 *  profile failed (@p err holds the last failure).  @p total may be NULL; a NULL
 *  @p r is refused. */
int cm_store_prune(cm_store_t *s, const cm_prune_rule_t *r, int flags,
                   cm_prune_fn fn, void *arg, cm_prune_total_t *total,
                   cm_error_t *err);

/** The uids that have a directory in the store @p root (NULL: the default
 *  root), ascending, into *uids (malloc'd; free() it): every entry named by
 *  a uid in decimal (as cm_store_open() names them), whatever it is --
 *  opening it with cm_store_open() checks it.  The root is opened as
 *  cm_store_open() does and must be readable (root's).  A missing root has
 *  no uids.  0, or -1 with @p err naming the root. */
int cm_store_uids(const char *root, uid_t **uids, int *count,
                  cm_error_t *err);

/** What became of one task of a profiled step, as its node saw it. */
typedef enum cm_part_status {
    CM_PART_OK = 0,     /**< it wrote its part of the raw profile */
    CM_PART_NOMPI,      /**< it ran, exited 0 and never called MPI_Init */
    CM_PART_FAILED,     /**< it exited non-zero or was killed */
    CM_PART_MISSING     /**< no part (profiling not set up on its node, ...) */
} cm_part_status_t;

/** Deliver task @p task's outcome for step @p step (its "<jobid>.<stepid>")
 *  into the staging directory ".step.<step>" of the user directory: with
 *  CM_PART_OK the part is first copied from @p fd (a regular file of at
 *  most the store's max_bytes), then the status (with @p detail, may be
 *  NULL) is written, each atomically.  Run as the user.  0 or -1. */
int cm_store_part_put(cm_store_t *s, const char *step, int task,
                      cm_part_status_t status, int fd, const char *detail,
                      cm_error_t *err);

/* -- tnbc traces (store_trace.c; docs/overlays.md, "Trace and priorities") -- */

/** The traces of a profile live in the directory "<profile file
 *  name>.tnbc" of the user directory, one file "tnbc.<rank>" per rank in
 *  the overlay's own format, so that the ranks of a later run read them
 *  with CLUSTERMAP_OVERLAY_PRIO=<that directory>/tnbc. */
#define CM_TRACE_SUFFIX ".tnbc"
#define CM_TRACE_PREFIX "tnbc"

/** Deliver task @p task's tnbc trace for step @p step ("<jobid>.<stepid>")
 *  into its staging directory as "<task>.tnbc": read from @p fd (a regular
 *  file of at most the store's max_bytes and the overlay's own bound),
 *  checked by the overlay's parser (trace_parse), written atomically.
 *  Deliver it before the task's status (cm_store_part_put), which closes
 *  the task.  Run as the user.  0, or -1 with @p err: nothing staged. */
int cm_store_trace_put(cm_store_t *s, const char *step, int task, int fd,
                       cm_error_t *err);

/** What is kept of the trace of (job name, ntasks). */
typedef struct cm_trace_info {
    int ranks;        /**< rank files present, of ntasks */
    int complete;     /**< every rank's file is there, the user's, regular */
    int sites;        /**< call sites of rank 0's file (-1: unreadable) */
    uint64_t bytes;   /**< bytes of all its files */
} cm_trace_info_t;

/** Describe the trace of (@p job_name, @p ntasks): 1 and @p out filled
 *  when one is kept, 0 when none, -1 with @p err. */
int cm_store_trace_info(cm_store_t *s, const char *job_name, int ntasks,
                        cm_trace_info_t *out, cm_error_t *err);

/** The prefix for CLUSTERMAP_OVERLAY_PRIO ("<user dir>/<profile file
 *  name>.tnbc/tnbc") into @p buf: 1 when the trace of (@p job_name,
 *  @p ntasks) is complete (every rank's file there, the user's, regular,
 *  within the bound), 0 when there is none, -1 with @p err when it is
 *  incomplete or unusable. */
int cm_store_trace_prefix(cm_store_t *s, const char *job_name, int ntasks,
                          char *buf, size_t size, cm_error_t *err);

/** Under the lock: forget the trace of (@p job_name, @p ntasks).  1 when
 *  there was one, 0 when not, -1 with @p err. */
int cm_store_trace_remove(cm_store_t *s, const char *job_name, int ntasks,
                          cm_error_t *err);

/** What cm_store_part_close() did. */
typedef enum cm_step_result {
    CM_STEP_PENDING = 0,  /**< tasks of other nodes have not reported yet */
    CM_STEP_RECORDED,     /**< all parts arrived and were merged */
    CM_STEP_NOMPI,        /**< no task called MPI_Init: marked (cm_store_nompi) */
    CM_STEP_REFUSED       /**< a task failed or sent no part: not recorded */
} cm_step_result_t;

/** Under the staging directory's lock: when all @p ntasks tasks of @p step
 *  have reported, decide -- assemble the parts and merge them into the
 *  profile (@p job_name, @p ntasks) with @p weight, or mark the job as not
 *  using MPI, or refuse -- remove the staging directory, and describe the
 *  outcome in @p msg (one line).  Parts that say "traffic off" (a run
 *  that was only timed) leave the profile as it is.  With @p info (how
 *  srun placed the step; may be NULL) and every rank timed, the run is
 *  added to the profile's history (cm_store_history_add) with its measured
 *  times.  A run of another program than the history's last one starts
 *  the profile and its history again.  Profile, history and trace change
 *  in one transaction: one take of the store's lock, after the traces'
 *  own work on the staged files.  Whichever node completes the set
 *  does this; the others get CM_STEP_PENDING.  -1 with @p err on an I/O
 *  error (the staging directory is then removed too). */
struct cm_run;
int cm_store_part_close(cm_store_t *s, const char *step, const char *job_name,
                        int ntasks, double weight, const struct cm_run *info,
                        char *msg, size_t msgsize, cm_error_t *err);

/** The outcome cm_store_part_close() left for @p step (read once: the file
 *  is removed): a cm_step_result_t with its line in @p msg, or 0 when there
 *  is none (yet), and for a NULL store, step or @p msg.  What srun shows
 *  its user at the step's end. */
int cm_store_part_result(cm_store_t *s, const char *step, char *msg,
                         size_t msgsize);

/** Remove the staging directories of steps whose name starts with
 *  @p prefix (e.g. "1234." for a job's steps) that never completed; each
 *  one is described in @p msg (the last one).  Returns the number removed,
 *  or -1. */
int cm_store_part_drop(cm_store_t *s, const char *prefix, char *msg,
                       size_t msgsize, cm_error_t *err);

/** How long a "no MPI" mark counts, in seconds (7 days): after that the
 *  program is profiled once more (it may have been rebuilt with MPI). */
#define CM_STORE_NOMPI_MAX_AGE (7 * 24 * 3600)
/** The marks a user directory keeps at most: making one more removes the
 *  oldest. */
#define CM_STORE_NOMPI_MAX 64

/** 1 when an earlier run of (@p job_name, @p ntasks) -- the key of the
 *  program that ran (cm_profile_program_key), so that a name never
 *  disables another program's profile -- was recorded as a step that never
 *  called MPI_Init (cm_store_mark_nompi) less than CM_STORE_NOMPI_MAX_AGE
 *  ago, so it is neither profiled nor placed again; 0 otherwise (including
 *  on any error, a NULL store or name: a missing mark only costs one more
 *  profiled run).  An expired mark is removed.  Documented rule:
 *  docs/profile-format.md, "Steps without MPI". */
int cm_store_nompi(cm_store_t *s, const char *job_name, int ntasks);

/** Record that (@p job_name, @p ntasks) ran without calling MPI_Init: an
 *  empty file "<profile file name>.nompi" in the user directory, dated
 *  now; under the key given to cm_store_set_nompi_key() instead, when one
 *  was.  Expired marks go, and the oldest when CM_STORE_NOMPI_MAX are
 *  there.  0 or -1. */
int cm_store_mark_nompi(cm_store_t *s, const char *job_name, int ntasks,
                        cm_error_t *err);

/** The key a "no MPI" mark made through @p s (cm_store_part_close) is
 *  filed under: the program key of the step when its profile is looked up
 *  under another (a name= profile).  NULL or "": the job name given.
 *  0, or -1 with @p err (a key longer than CM_PROFILE_MAX_NAME). */
int cm_store_set_nompi_key(cm_store_t *s, const char *key, cm_error_t *err);

/** A profile's last use: the newest of its @p last_update and the @c when
 *  of the @p count runs of its history (@p runs NULL: no runs, whatever
 *  @p count says).  A profile that srun keeps placing is used even when no run
 *  changes it (timed runs only add to the history). */
int64_t cm_store_last_use(int64_t last_update, const cm_run_t *runs,
                          int count);

/** The runs of (@p job_name, @p ntasks) into @p runs (room for
 *  CM_HISTORY_MAX_RUNS), oldest first: 0 with *count = 0 when there is no
 *  history, -1 on an invalid or unreadable file.  The file is
 *  "<profile file name>.runs" in the user directory (a regular file of the
 *  user, no group/world write, at most 64 KiB). */
int cm_store_history_load(cm_store_t *s, const char *job_name, int ntasks,
                          cm_run_t *runs, int *count, cm_error_t *err);

/** Under the lock: append @p run (the oldest run is dropped past
 *  CM_HISTORY_MAX_RUNS).  An unreadable old history is replaced.  0 or -1. */
int cm_store_history_add(cm_store_t *s, const char *job_name, int ntasks,
                         const cm_run_t *run, cm_error_t *err);

/** Under the lock: forget the history (and so the guard's decision).
 *  1 when there was one, 0 when not, -1 on error. */
int cm_store_history_reset(cm_store_t *s, const char *job_name, int ntasks,
                           cm_error_t *err);

/* ------------------------------------------------------------------------ */
/* Explain records                                                          */
/* ------------------------------------------------------------------------ */

/** Records of placed steps kept per user (the oldest go first). */
#define CM_EXPLAIN_MAX_RECORDS 64
/** Largest record, in bytes. */
#define CM_EXPLAIN_MAX_BYTES 65536

/** Under the lock, write @p text as the record of @p step ("<jobid>.<stepid>")
 *  in the user directory (".explain.<step>", replaced atomically), then drop
 *  the oldest records past CM_EXPLAIN_MAX_RECORDS.  0 or -1. */
int cm_store_explain_put(cm_store_t *s, const char *step, const char *text,
                         cm_error_t *err);

/** The record of @p key: "<jobid>.<stepid>", or "<jobid>" for every step
 *  of the job, each preceded by a line "== step <jobid>.<stepid>".  A
 *  malloc'd string, or NULL with @p err (none, or a malformed key). */
char *cm_store_explain_get(cm_store_t *s, const char *key, cm_error_t *err);

/** 0 when a run of the store's user can be recorded: the root is safe
 *  (see cm_store_open) and the user directory either exists, is the
 *  user's and writable by the caller, or is missing and will be created
 *  by root at the step's end.  -1 with the reason otherwise.  What srun
 *  checks before it announces "profiling this run". */
int cm_store_can_record(cm_store_t *s, cm_error_t *err);

/** Close @p s (NULL: nothing to do). */
void cm_store_close(cm_store_t *s);

#ifdef __cplusplus
}
#endif

#endif /* CM_STORE_H */
