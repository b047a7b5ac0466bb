/*
 * cm_history.h -- a profile's run history (one line per timed run, as the
 * nodes recorded it at the step's end) and the guard that decides from it
 * whether the next run is placed (docs/user-guide.md, "The guard").  Pure
 * functions over caller-owned arrays: the store reads and writes the
 * history file (cm_store.h).
 *
 * Conventions are those of clustermap.h: cm_error_t last (may be NULL), 0
 * or -1 (NULL) on failure with a message; a NULL required pointer is such
 * a failure, never a crash (test/unit/test_profiles_null.c).  Functions
 * without an error record answer NULL pointers as their note says.
 */
#ifndef CM_HISTORY_H
#define CM_HISTORY_H

#include <stdint.h>

#include "clustermap.h"
#include "cm_profile.h"

#ifdef __cplusplus
extern "C" {
#endif
/* ------------------------------------------------------------------------ */
/* Run history and the guard                                                */
/* ------------------------------------------------------------------------ */

/** One run of a profile's job, as its nodes recorded it at the step's end
 *  (docs/profile-format.md, "Run history"). */
typedef struct cm_run {
    char jobid[CM_PROFILE_MAX_JOBID + 1]; /**< "jobid.stepid", 1..129 bytes
                                               of [A-Za-z0-9._:-] */
    int64_t when;                         /**< end of the step, seconds since the epoch */
    int placed;          /**< 1: clustermap's placement, 0: Slurm's default */
    char how[32];        /**< the placement's algorithm, "-" for default;
                                  1..31 bytes of [A-Za-z0-9._:-] */
    char program[128];   /**< what called MPI_Init, "-" when unknown;
                                  1..127 bytes of [A-Za-z0-9._:-] */
    double j_plan;       /**< predicted J of the placement used (0: unknown) */
    double j_default;    /**< predicted J of Slurm's default (0: unknown) */
    double elapsed_max;  /**< seconds from MPI_Init to MPI_Finalize, slowest rank */
    double elapsed_mean; /**< ... mean over the ranks */
    double mpi_max;      /**< seconds in blocking MPI calls, max over ranks */
    double mpi_mean;     /**< ... mean over the ranks */
} cm_run_t;

/** How many runs a history keeps (the most recent ones). */
#define CM_HISTORY_MAX_RUNS 64

/** Parse a history file's text (@p len bytes, need not be NUL-terminated;
 *  only read) into @p runs, an array of the caller's with room for
 *  CM_HISTORY_MAX_RUNS, oldest first, *count set.  Every field is checked
 *  as cm_run_check() checks it; errors read "NAME:LINE: expected ..., got
 *  ...", NAME being @p name.  0, or -1 with @p err and *count = 0 (the
 *  entries of @p runs are then unspecified): a NUL byte, a bad header or
 *  line, no final newline, more than CM_HISTORY_MAX_RUNS runs, a NULL
 *  @p text or @p runs; a NULL @p count fails the same way. */
int cm_history_parse(const char *text, size_t len, const char *name, cm_run_t *runs,
                     int *count, cm_error_t *err);

/** The text of a history of @p count runs (oldest first), every run checked
 *  with cm_run_check(): malloc'd, NUL-terminated, the caller frees it with
 *  free(); *len without the NUL when @p len is not NULL.  @p count 0 gives
 *  the header line alone.  NULL with @p err (and *len untouched) for a
 *  refused run, @p count < 0, a NULL @p runs with @p count > 0, or out of
 *  memory. */
char *cm_history_format(const cm_run_t *runs, int count, size_t *len, cm_error_t *err);

/** Check one run's fields (what cm_history_parse accepts): the words
 *  above, when >= 0, placed 0 or 1, the J values in 0..1e300, the times in
 *  0..1e9 seconds, each mean at most its maximum.  0, or -1 with @p err
 *  naming the field (also for a NULL @p run). */
int cm_run_check(const cm_run_t *run, cm_error_t *err);

/** The guard's rule (docs/user-guide.md, "The guard"). */
typedef struct cm_guard_rule {
    int window;      /**< the last @c window timed runs of each kind count */
    int min_placed;  /**< placed runs needed before a verdict */
    int min_default; /**< runs under Slurm's default needed before a verdict */
    int probe;       /**< with a "slower" verdict, place again after this
                          many runs in a row under Slurm's default; 0 never */
    int recheck;     /**< without one, run Slurm's default again after this
                          many placed runs in a row; 0 never */
    double margin;   /**< smallest difference that counts, as a fraction of
                          the fastest default run's time */
} cm_guard_rule_t;

/** Fill @p r with the default rule: window 5, min_placed 2, min_default
 *  2, probe 5, recheck 20, margin 0.02.  No-op on NULL. */
void cm_guard_rule_init(cm_guard_rule_t *r);

/** Why the guard decided what it decided. */
typedef enum cm_guard_reason {
    CM_GUARD_FEW_PLACED = 0, /**< place: too few placed runs to judge */
    CM_GUARD_MEASURE,        /**< default: too few default runs to compare */
    CM_GUARD_FASTER,         /**< place: not slower beyond the spread */
    CM_GUARD_RECHECK,        /**< default: re-measure after many placed runs */
    CM_GUARD_SLOWER,         /**< default: placed runs were slower */
    CM_GUARD_PROBE           /**< place: slower, but probing again */
} cm_guard_reason_t;

/** The guard's decision for the next run. */
typedef struct cm_guard {
    int place; /**< 1: place from the profile, 0: Slurm's default */
    cm_guard_reason_t reason;
    int slower;                       /**< the evidence says placed runs are slower */
    int nplaced, ndefault;            /**< timed runs in the windows */
    double placed_best, default_best; /**< their fastest elapsed_max,
                                           seconds */
    double spread;     /**< the run-to-run spread the difference must beat */
    int since_placed;  /**< runs since the last placed one */
    int since_default; /**< runs since the last one under Slurm's default */
    char why[256];     /**< one line saying why (figures the guard
                               computed, not user text) */
} cm_guard_t;

/** The reason's word in the history's HOW field and in `profile show`:
 *  "few-placed", "measure", "faster", "recheck", "slower", "probe"; "?"
 *  for a value out of the enumeration.  A static string, never NULL. */
const char *cm_guard_reason_name(cm_guard_reason_t r);

/** Decide from the @p count runs at @p runs (oldest first; only read) into
 *  *@p out, which is overwritten entirely, in this order: fewer than
 *  min_placed timed placed runs in the window -- place; fewer than
 *  min_default timed default runs -- Slurm's default, to measure it;
 *  placed runs slower (the fastest placed run is slower than the fastest
 *  default run by more than the spread, max(the smaller of the two
 *  groups' ranges, margin x the fastest default time): one slow run of
 *  either kind moves neither) -- Slurm's default, except a
 *  probe once @c probe runs in a row were not placed; otherwise place,
 *  except a re-check once @c recheck runs in a row were placed.
 *  Deterministic.  A NULL @p r decides with the default rule
 *  (cm_guard_rule_init()); a NULL @p runs or @p count < 0 is a history of
 *  no runs; a NULL @p out makes the call a no-op. */
void cm_guard_decide(const cm_run_t *runs, int count, const cm_guard_rule_t *r,
                     cm_guard_t *out);

#ifdef __cplusplus
}
#endif

#endif /* CM_HISTORY_H */
