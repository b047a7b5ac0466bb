/*
 * overlay_step.c -- the communication overlays of a step (docs/overlays.md,
 * "Switching it on in Slurm").
 *
 * srun decides once for the whole step which overlays it runs (--mapping's
 * css / overlap, else plugstack's overlay=) and marks the step with
 * CLUSTERMAP_STEP_OVERLAY="<spec> <verbose>".  On every node, slurmstepd
 * (root, before the tasks exist) preloads libclustermap-prof.so and hands
 * the tasks CLUSTERMAP_OVERLAY=<spec> and CLUSTERMAP_OVERLAY_FROM=plugin.
 *
 * With tnbc, the tasks also get the trace to read and the place to write
 * one (overlay_trace.c).
 *
 * A node that cannot (prof_lib missing there, the environment not set)
 * runs its tasks without the library, and says so in slurmd's log: nothing
 * here waits for another node.  The library's agreement at MPI_Init
 * (src/overlay/ovl_agree.c) then finds those ranks without the
 * overlay and turns it off on every rank, with one line for the user.  In
 * a program that never calls MPI_Init the library does nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <slurm/slurm.h>

#include "plugin.h"
#include "plugin_spank.h"

void cmp_overlay_mark(const cmp_config_t *c, const cmp_request_t *r)
{
    char mark[64], spec[32];
    unsigned bits = cmp_overlay_bits(c, r);
    if (!bits)
        return;
    cmp_overlay_spec(bits, spec, sizeof spec);
    snprintf(mark, sizeof mark, "%s %d", spec, r->verbose ? 1 : 0);
    setenv(CMP_ENV_OVERLAY, mark, 1);
    cmp_debug("overlays %s for this step", spec);
}

void cmp_overlay_step_init(spank_t sp, const cmp_config_t *c)
{
    char mark[64], spec[32];
    char prio[2 * CMP_PATH_MAX] = "";
    cm_error_t err;
    uint32_t jobid = 0, stepid = 0;
    unsigned bits;
    int verbose = 0;
    struct stat st;
    /* srun's other mark, the trace to read (overlay_trace.c): only for a
     * step whose overlays are set up here, never for the tasks as it is */
    if (spank_getenv(sp, CMP_ENV_OVERLAY_PRIO, prio, sizeof prio) !=
        ESPANK_SUCCESS)
        prio[0] = '\0';
    spank_unsetenv(sp, CMP_ENV_OVERLAY_PRIO);
    if (spank_getenv(sp, CMP_ENV_OVERLAY, mark, sizeof mark) != ESPANK_SUCCESS)
        return;
    spank_unsetenv(sp, CMP_ENV_OVERLAY);
    /* srun's mark, checked: the user can set it, and gets no more than
     * the modifiers would give */
    if (sscanf(mark, "%31s %d", spec, &verbose) != 2 ||
        cmp_overlay_parse(spec, &bits) < 0 || !bits)
        return;
    spank_get_item(sp, S_JOB_ID, &jobid);
    if (spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS ||
        stepid == SLURM_BATCH_SCRIPT || stepid == SLURM_EXTERN_CONT)
        return;
    errno = 0;
    if (stat(c->prof_lib, &st) < 0 || !S_ISREG(st.st_mode)) {
        cmp_log_error("job %u.%u: overlay %s: profiling library %s: %s; this "
                      "node's tasks run without it, and so every rank does",
                      jobid, stepid, spec, c->prof_lib,
                      errno ? strerror(errno) : "not a file");
        return;
    }
    /* The user's preload whole, after the library (the profiling set-up
     * of the same step may have put it first already), or no overlay:
     * never a cut one. */
    char *old = cmp_spank_getenv_all(sp, "LD_PRELOAD", &err), *pre = NULL;
    if ((!old && err.msg[0]) || !(pre = cmp_env_list_prepend(c->prof_lib, old, 1))) {
        const char *why = old || !err.msg[0] ? "LD_PRELOAD: out of memory" : err.msg;
        cmp_log_error("job %u.%u: overlay %s: %s; this node's tasks run without it, "
                      "and so every rank does", jobid, stepid, spec, why);
        free(old);
        return;
    }
    free(old);
    if (spank_setenv(sp, CM_ENV_OVERLAY, spec, 1) != ESPANK_SUCCESS ||
        spank_setenv(sp, CM_ENV_OVERLAY_FROM, "plugin", 1) != ESPANK_SUCCESS ||
        (verbose && spank_setenv(sp, CM_ENV_OVERLAY_VERBOSE, "1", 1) !=
                        ESPANK_SUCCESS) ||
        spank_setenv(sp, "LD_PRELOAD", pre, 1) != ESPANK_SUCCESS) {
        free(pre);
        /* without the library's variables the library does nothing */
        spank_unsetenv(sp, CM_ENV_OVERLAY);
        cmp_log_error("job %u.%u: overlay %s: cannot set the tasks' environment; "
                      "this node's tasks run without it, and so every rank does",
                      jobid, stepid, spec);
        return;
    }
    free(pre);
    cmp_overlay_trace_env(sp, bits, prio);
    slurm_debug("clustermap: job %u.%u: overlay %s preloaded", jobid, stepid, spec);
}
