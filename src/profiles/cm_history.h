/*
 * cm_history.h -- a profile's run history (one line per timed run, as the
 * nodes recorded it at the step's end) and the guard that decides from it
 * whether the next run is placed (docs/user-guide.md, "The guard").  Pure
 * functions over caller-owned arrays: the store reads and writes the
 * history file (cm_store.h).
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
    char jobid[CM_PROFILE_MAX_JOBID + 1]; /**< "jobid.stepid" */
    int64_t when;            /**< end of the step, seconds since the epoch */
    int placed;              /**< 1: clustermap's placement, 0: Slurm's default */
    char how[32];            /**< the placement's algorithm, "-" for default */
    char program[128];       /**< what called MPI_Init, "-" when unknown */
    double j_plan;           /**< predicted J of the placement used (0: unknown) */
    double j_default;        /**< predicted J of Slurm's default (0: unknown) */
    double elapsed_max;      /**< seconds from MPI_Init to MPI_Finalize, slowest rank */
    double elapsed_mean;     /**< ... mean over the ranks */
    double mpi_max;          /**< seconds in blocking MPI calls, max over ranks */
    double mpi_mean;         /**< ... mean over the ranks */
} cm_run_t;

/** How many runs a history keeps (the most recent ones). */
#define CM_HISTORY_MAX_RUNS 64

/** Parse a history file's text (@p len bytes) into @p runs (room for
 *  CM_HISTORY_MAX_RUNS), oldest first, *count set.  Every field is checked;
 *  errors read "NAME:LINE: expected ..., got ...".  0 or -1. */
int cm_history_parse(const char *text, size_t len, const char *name,
                     cm_run_t *runs, int *count, cm_error_t *err);

/** The text of a history (malloc'd, NUL-terminated; *len without the NUL). */
char *cm_history_format(const cm_run_t *runs, int count, size_t *len,
                        cm_error_t *err);

/** Check one run's fields (what cm_history_parse accepts).  0 or -1. */
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

/** window 5, min_placed 2, min_default 2, probe 5, recheck 20, margin
 *  0.02. */
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
    int place;            /**< 1: place from the profile, 0: Slurm's default */
    cm_guard_reason_t reason;
    int slower;           /**< the evidence says placed runs are slower */
    int nplaced, ndefault;          /**< timed runs in the windows */
    double placed_best, default_best; /**< their fastest elapsed_max,
                                           seconds */
    double spread;        /**< the run-to-run spread the difference must beat */
    int since_placed;     /**< runs since the last placed one */
    int since_default;    /**< runs since the last one under Slurm's default */
    char why[256];        /**< one line saying why */
} cm_guard_t;

/** The reason's word in the history's HOW field and in `profile show`:
 *  "few-placed", "measure", "faster", "recheck", "slower", "probe". */
const char *cm_guard_reason_name(cm_guard_reason_t r);

/** Decide from @p runs (oldest first), in this order: fewer than
 *  min_placed timed placed runs in the window -- place; fewer than
 *  min_default timed default runs -- Slurm's default, to measure it;
 *  placed runs slower (the fastest placed run is slower than the fastest
 *  default run by more than the spread, max(the smaller of the two
 *  groups' ranges, margin x the fastest default time): one slow run of
 *  either kind moves neither) -- Slurm's default, except a
 *  probe once @c probe runs in a row were not placed; otherwise place,
 *  except a re-check once @c recheck runs in a row were placed.
 *  Deterministic. */
void cm_guard_decide(const cm_run_t *runs, int count, const cm_guard_rule_t *r,
                     cm_guard_t *out);

#ifdef __cplusplus
}
#endif

#endif /* CM_HISTORY_H */
