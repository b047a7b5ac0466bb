/*
 * cm_store_step.h -- what srun asks the store about a step, in one call
 * (store_step.c): the "no MPI" mark, the profile, whether a run can be
 * recorded, the run history the guard reads, the task counts the job has
 * other profiles for, and the tnbc trace.  Composed of the public store
 * calls of cm_store.h; the answer is plain data, so that the step's
 * decision (src/launch/cmp_step.h) is a pure function of it.
 */
#ifndef CM_STORE_STEP_H
#define CM_STORE_STEP_H

#include "cm_store.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What cm_store_step_info() is asked (or'ed). */
#define CM_STEP_ASK_PROFILE                                                              \
    1u                         /**< load the profile; and, when there is
                                     none, the other task counts */
#define CM_STEP_ASK_HISTORY 2u /**< the run history (the guard's) */
#define CM_STEP_ASK_TRACE 4u   /**< the prefix of a complete tnbc trace */

/** The store's answer about one profile (key, ntasks).  Each part has its
 *  own error: one unreadable file never hides the others. */
typedef struct cm_store_step_info {
    int opened; /**< 0: no store (open_err says why); every
                                   other field is then 0 */
    cm_error_t open_err;
    int nompi;          /**< an earlier run of the same program never
                                   called MPI_Init (cm_store_nompi of the
                                   no-MPI key): nothing else is read */
    int profile;        /**< 1 found (@c prof), 0 none, -1 unusable
                                   (@c profile_err); 0 when not asked */
    cm_profile_t *prof; /**< owned: cm_store_step_info_free */
    cm_error_t profile_err;
    char *found_key; /**< owned: the key the profile was found under
                                   when it is not the key asked (the job
                                   name alone: an import or a name=
                                   profile), NULL otherwise */
    int *counts;     /**< other task counts with a profile of the
                                   key, ascending (asked with the profile,
                                   read only when it is missing); owned */
    int ncounts;
    int can_record; /**< cm_store_can_record: 1 yes, 0 no
                                   (@c record_err says why) */
    cm_error_t record_err;
    cm_run_t *runs; /**< the history, oldest first; owned */
    int nruns;
    int history; /**< 1 read (maybe empty), -1 unreadable
                                   (@c history_err), 0 not asked */
    cm_error_t history_err;
    int trace;          /**< 1 complete (@c trace_prefix), 0 none or
                                   not asked, -1 unusable (@c trace_err) */
    char *trace_prefix; /**< for CLUSTERMAP_OVERLAY_PRIO; owned */
    cm_error_t trace_err;
} cm_store_step_info_t;

/** Ask store @p s (NULL: none could be opened, @p open_err (may be NULL)
 *  says why) about profile (@p key, @p ntasks): the "no MPI" mark of
 *  (@p nompi_key, @p ntasks) always -- the program's key, NULL: @p key --
 *  and the parts @p ask names (CM_STEP_ASK_*) unless the mark is set.  A
 *  profile missing under a program key ("<name>@<program>-<hash>") is
 *  looked up under its job name alone, where `clustermap profile import`
 *  and name= put profiles: found there, it is the answer (found_key says
 *  so) -- only when the mark of @p nompi_key is not set, so a program that
 *  does not call MPI_Init never disables it for another.
 *  Fills @p out completely whatever happens (free it with
 *  cm_store_step_info_free); the store's failures are in its fields,
 *  never a return: a step is never failed by its store.  A NULL @p key is
 *  an unusable profile (-1 in the parts asked); a NULL @p out: nothing is
 *  done. */
void cm_store_step_info(cm_store_t *s, const cm_error_t *open_err, const char *key,
                        const char *nompi_key, int ntasks, unsigned ask,
                        cm_store_step_info_t *out);

/** Free what @p info owns (it may be zeroed or filled, or NULL: nothing to
 *  do); it is zeroed. */
void cm_store_step_info_free(cm_store_step_info_t *info);

/** The task counts, other than @p ntasks, that (@p key, count) has a
 *  profile file for, ascending, into *counts (malloc'd, NULL when none;
 *  free() it).  Read from the user directory's file names, which the store
 *  names (cm_store_filename); a long key whose names were cut to a hash may
 *  show a colliding key's counts too.  0, or -1 with @p err. */
int cm_store_profile_counts(cm_store_t *s, const char *key, int ntasks, int **counts,
                            int *n, cm_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* CM_STORE_STEP_H */
