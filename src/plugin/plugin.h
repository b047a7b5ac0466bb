/*
 * plugin.h -- internals of the clustermap SPANK plugin.
 *
 * Two shared objects.  clustermap.so, which every Slurm client and daemon
 * that reads plugstack.conf loads, is thin: plugin.c holds the SPANK entry
 * points, options.c parses `--mapping`, config.c the plugstack.conf
 * arguments, srun_args.c srun's own command line, alloc.c the allocation's
 * environment, step_input.c the snapshot of a step srun takes (the only
 * place srun's side reads the environment), srun_step.c applies what
 * src/launch/step_decide.c decides about it (which steps are left to Slurm
 * and why, the profile, the hostfile), bind.c the rank -> core
 * binding in the task, profile_step.c profiling and ingest on the nodes,
 * as_user.c running code as the job's user, log.c messages.  The
 * placement module clustermap-place.so holds what needs the heavy
 * libraries (Scotch, OpenBLAS, LAPACKE): place.c plans a step on its
 * allocation, slurm_tree.c builds the allocation's machine tree from the
 * controller, with the core engine (libclustermap.a).  srun_step.c
 * dlopen()s it only when a step is to be placed.
 *
 * options.c, config.c, srun_args.c and alloc.c use no Slurm symbol, so the
 * unit tests compile them directly (test/unit/test_plugin_args.c).
 */
#ifndef CM_PLUGIN_H
#define CM_PLUGIN_H

#include <stddef.h>
#include <sys/types.h>

#include "clustermap.h"
#include "cm_store.h"
#include "launch.h"
#include "place_abi.h"

/* ---- srun (srun_step.c) ---- */

/** Decide and, when the step is to be placed or profiled, write the
 *  hostfile and set the step's environment.  Called once per srun from
 *  slurm_spank_init in local context.  Never fails the step; every step
 *  left to Slurm gets its line (cmp_fallback). */
void cmp_srun_step(const cmp_config_t *c);

/** srun: mark the step with the overlays it runs (CMP_ENV_OVERLAY) --
 *  @p r's modifiers, else plugstack's overlay= -- for every node to
 *  preload them (overlay_step.c).  Independent of placement: a step left
 *  to Slurm runs them too. */
void cmp_overlay_mark(const cmp_config_t *c, const cmp_request_t *r);
/** Take the step's snapshot for cmp_step_decide (step_input.c, the one
 *  place srun's side reads the environment): srun's command line (from
 *  /proc/self/cmdline) and the environment's values, borrowed from the
 *  environment, which must not change while @p in is used.  Free it with
 *  cmp_step_input_free. */
void cmp_step_input_read(cmp_step_input_t *in);
void cmp_step_input_free(cmp_step_input_t *in);
/** srun's end: the job's and the step's ids srun keeps in its
 *  environment (NULL when unset). */
void cmp_step_exit_ids(const char **job, const char **step);

/** srun's end: remove the hostfile written by cmp_srun_step, and keep
 *  the placement's record for `clustermap explain` (the step id is known
 *  by now). */
void cmp_srun_step_exit(const cmp_config_t *c);



/* ---- logging (log.c) ----
 * Every line is escaped once formatted (cm_text.h): callers pass the
 * users' values as they are. */

void cmp_log_init(cmp_loglevel_t level);
/** srun: whether the user asked for placement (a --mapping on srun, or
 *  inherited from sbatch/salloc, as opposed to plugstack's default=) and
 *  with `verbose`.  Decides which lines reach the job's stderr. */
void cmp_log_request(int asked, int verbose);

/** srun: where the user's lines go instead of stderr (@p fd stays open). */
void cmp_log_user_fd(int fd);

typedef enum cmp_fallback_kind {
    CMP_FALLBACK,       /* placement was wanted and is not done: a line for
                           the user who asked, a record for the admin */
    CMP_NOTHING_TO_DO   /* nothing to place (one task, no MPI, off): a line
                           with `verbose` only */
} cmp_fallback_kind_t;

/** srun leaves the step to Slurm: the one place that writes "<reason>;
 *  using Slurm's default placement<note>" -- on the job's stderr (see
 *  cmp_log_request), in srun's log at debug level and, for CMP_FALLBACK, in
 *  CLUSTERMAP_FALLBACK for slurmstepd to log (cmp_log_step_fallback).
 *  @p note (may be NULL) follows the suffix, e.g. " (profiling this run)".
 *  Only the first call of a process counts. */
void cmp_fallback(cmp_fallback_kind_t kind, const char *note, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** slurmstepd, user_init of a step: log the reason srun handed over in
 *  CLUSTERMAP_FALLBACK once, at info level, on the step's first node, and
 *  take it out of the tasks' environment.  (spank_t without spank.h.) */
struct spank_handle;
void cmp_log_step_fallback(struct spank_handle *sp);
/** The same for CLUSTERMAP_GPU_NOTES, what gres.conf corrected of
 *  hwloc_xml= for a step placed on GPUs: a log line each. */
void cmp_log_step_gpu_notes(struct spank_handle *sp);
/** One line "clustermap: ..." on the job's stderr when the user asked
 *  (see cmp_log_request) and at debug level in srun's log; slurm_error in
 *  the daemons. */
void cmp_user_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** The same at info level (on stderr with loglevel >= info, `verbose` or
 *  @p force; slurm_info in the daemons). */
void cmp_user_info(int force, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** One line on the user's stderr whatever the loglevel (the user asked for
 *  something that is not done: --mapping while disabled or misconfigured),
 *  and at debug level in Slurm's log. */
void cmp_user_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** A problem for the administrator: slurm_error in the daemons
 *  (slurmd, slurmstepd, prolog/epilog), debug level in srun/sbatch/salloc,
 *  whose Slurm log is the user's terminal. */
void cmp_admin_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Slurm's log only. */
void cmp_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmp_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmp_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CM_PLUGIN_H */
