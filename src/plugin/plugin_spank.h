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

/** The value of @p name in the job's environment, whatever its length
 *  (cmp_env_value_read through spank_getenv): malloc'd, or NULL -- unset
 *  when @p err's message is empty, else @p err says why (longer than
 *  CMP_ENV_VALUE_MAX, out of memory, not readable here). */
char *cmp_spank_getenv_all(spank_t sp, const char *name, cm_error_t *err);

/** slurm_spank_task_init: bind the task to the core srun chose for it
 *  (CLUSTERMAP_CORES).  Keeps Slurm's binding on any problem. */
void cmp_bind_task(spank_t sp, const cmp_config_t *c);
/** slurm_spank_task_init of a step placed on GPUs: the task's GPU
 *  (CLUSTERMAP_GPUS) in the visible-devices variable Slurm set, its NIC in
 *  UCX_NET_DEVICES (unless set), its cores from CLUSTERMAP_GPU_INFO when
 *  the node allows them all.  Only when the step holds all the node's
 *  GPUs; keeps Slurm's binding on any problem. */
void cmp_bind_gpu_task(spank_t sp, const cmp_config_t *c);

/** slurm_spank_init of a step (remote, root): when srun asked for a
 *  profile, make this node's private directory and preload the profiling
 *  library; on failure the node's tasks run unprofiled (logged). */
void cmp_profile_step_init(spank_t sp, const cmp_config_t *c);

/** slurm_spank_init of a step (remote, root), after
 *  cmp_profile_step_init: when srun marked the step with overlays, preload
 *  the library and set CLUSTERMAP_OVERLAY for the tasks; on failure the
 *  node's tasks run without (logged), and the overlays' agreement turns
 *  them off on every rank (docs/overlays.md). */
void cmp_overlay_step_init(spank_t sp, const cmp_config_t *c);

/** cmp_overlay_step_init, once the overlays @p bits are set up: with tnbc,
 *  give the tasks CLUSTERMAP_OVERLAY_PRIO=@p prio (srun's mark; "" none)
 *  and, when this node has the step's private directory, a
 *  CLUSTERMAP_OVERLAY_TRACE there (overlay_trace.c). */
void cmp_overlay_trace_env(spank_t sp, unsigned bits, const char *prio);

/** The step's private directory on this node (cmp_profile_step_init),
 *  NULL when the step is not profiled or timed here. */
const char *cmp_profile_private_dir(void);

/** slurm_spank_user_init of a step: drop srun's hostfile variables, which
 *  only srun's host can use. */
void cmp_profile_user_init(spank_t sp, const cmp_config_t *c);

/** slurm_spank_task_exit (root, per task): remember this node's ranks and
 *  whether each exited 0, so that a failed step is not recorded. */
void cmp_profile_task_exit(spank_t sp, const cmp_config_t *c);

/** slurm_spank_exit of a step (root): deliver this node's tasks' parts and
 *  statuses to the store, as the job's user, within c->ingest_timeout; the
 *  node that completes the set records or refuses the run. */
void cmp_profile_exit(spank_t sp, const cmp_config_t *c);

/** slurm_spank_exit in srun (local, the user): print whether the step srun
 *  profiled was recorded (waits a bounded time for the nodes' verdict). */
void cmp_profile_report(spank_t sp, const cmp_config_t *c);

/** slurm_spank_job_epilog (root): remove what killed steps left behind. */
void cmp_profile_epilog(spank_t sp, const cmp_config_t *c);

/** slurm_spank_init of the batch step (root): when the job places
 *  (mpirun=yes), a private directory for mpirun's rank files, made by the
 *  user, and clustermap's mpirun first in the script's PATH
 *  (mpirun_batch.c).  On any problem the script runs as it would have. */
void cmp_mpirun_batch_init(spank_t sp, const cmp_config_t *c);

/** slurm_spank_exit of the batch step (root): the user removes that
 *  directory. */
void cmp_mpirun_batch_exit(spank_t sp, const cmp_config_t *c);

/** Run @p fn(@p arg) in a child process with the identity of @p uid/@p gid
 *  (no supplementary groups), killed after @p timeout seconds.  Returns
 *  the child's exit status (fn's return value), or -1 when it could not
 *  run, was killed or timed out (@p err says which). */
int cmp_as_user(uid_t uid, gid_t gid, double timeout, int (*fn)(void *),
                void *arg, cm_error_t *err);

/** As cmp_as_user, with the child's standard output and error captured
 *  into @p out (at most @p outsize - 1 bytes, NUL-terminated). */
int cmp_as_user_output(uid_t uid, gid_t gid, double timeout, int (*fn)(void *),
                       void *arg, char *out, size_t outsize, cm_error_t *err);

#endif /* CM_PLUGIN_SPANK_H */
