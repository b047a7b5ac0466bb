/*
 * plugin_spank.h -- the parts of the plugin that take a SPANK handle
 * (remote context: slurmstepd, the tasks, the epilog).  See plugin.h.
 */
#ifndef CM_PLUGIN_SPANK_H
#define CM_PLUGIN_SPANK_H

#include <slurm/spank.h>

#include "plugin.h"

/** Messages go to Slurm's log instead of stderr (slurmstepd). */
void cmp_log_set_remote(int remote);

/** slurm_spank_task_init: bind the task to the core srun chose for it
 *  (CLUSTERMAP_CORES).  Keeps Slurm's binding on any problem. */
void cmp_bind_task(spank_t sp, const cmp_config_t *c);

/** slurm_spank_user_init of a step: when srun asked for a profile, make
 *  the step's private directory and preload the profiling library. */
void cmp_profile_user_init(spank_t sp, const cmp_config_t *c);

/** slurm_spank_exit of a step (root): ingest the raw profile written on
 *  this node, as the job's user, within c->ingest_timeout. */
void cmp_profile_exit(spank_t sp, const cmp_config_t *c);

/** slurm_spank_job_epilog (root): remove what killed steps left behind. */
void cmp_profile_epilog(spank_t sp, const cmp_config_t *c);

/** Run @p fn(@p arg) in a child process with the identity of @p uid/@p gid
 *  (no supplementary groups), killed after @p timeout seconds.  Returns
 *  the child's exit status (fn's return value), or -1 when it could not
 *  run, was killed or timed out (@p err says which). */
int cmp_as_user(uid_t uid, gid_t gid, double timeout, int (*fn)(void *),
                void *arg, cm_error_t *err);

#endif /* CM_PLUGIN_SPANK_H */
