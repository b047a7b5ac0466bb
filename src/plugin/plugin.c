/*
 * plugin.c -- the SPANK entry points of clustermap.so.  Thin on purpose:
 * every hook hands over to the file that does the work (see plugin.h) and
 * returns 0, because a placement problem must never fail or hang a job.
 * The one exception is an invalid --mapping value, refused at submit time
 * like any other bad option.
 *
 * The option is registered whatever the plugstack.conf arguments say: a
 * job that says --mapping must keep running when the administrator turns
 * the plugin off (enabled=no) or mistypes an argument.  Such a job gets one
 * line saying its --mapping is ignored; nobody else hears of it, except the
 * administrator in the daemons' logs.
 */
#include <stdio.h>
#include <stdlib.h>

#include <slurm/spank.h>

#include "plugin.h"
#include "plugin_spank.h"

SPANK_PLUGIN(clustermap, 1);

#if defined(SLURM_VERSION_NUMBER) && SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
/* Slurm 25.05 drains the node when a plugin's init fails, unless the plugin
 * asks for the job alone to fail.  clustermap's hooks return 0 whatever
 * happens, but a node must never be lost to this plugin. */
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

static cmp_config_t cfg;
static enum { CFG_UNREAD, CFG_OK, CFG_DISABLED, CFG_INVALID } cfg_state;

/* The plugstack.conf arguments, read by the first hook of the process:
 * not every context calls slurm_spank_init (the job epilog does not).
 * Nonzero when the plugin is to work. */
static int config_ok(int ac, char **av)
{
    cm_error_t err;
    if (cfg_state != CFG_UNREAD)
        return cfg_state == CFG_OK;
    spank_context_t ctx = spank_context();
    cmp_log_set_remote(ctx == S_CTX_REMOTE || ctx == S_CTX_SLURMD ||
                       ctx == S_CTX_JOB_SCRIPT);
    cmp_config_init(&cfg);
    int rc = cmp_config_parse(&cfg, ac, av, &err);
    cmp_log_init(cfg.loglevel);
    cfg_state = !cfg.enabled ? CFG_DISABLED : rc < 0 ? CFG_INVALID : CFG_OK;
    if (rc < 0)
        cmp_admin_error("plugstack.conf: %s; %s", err.msg,
                        cfg.enabled ? "the plugin does nothing"
                                    : "the plugin is off (enabled=no) anyway");
    return cfg_state == CFG_OK;
}

static int mapping_cb(int val, const char *optarg, int remote)
{
    static int told;
    cmp_request_t r;
    cm_error_t err;
    (void)val;
    if (cmp_request_parse(optarg, &r, &err) < 0) {
        if (remote)
            return 0;   /* checked at submit time; never fail a running job */
        fprintf(stderr, "clustermap: %s\nTry --mapping=help.\n", err.msg);
        return -1;
    }
    if (remote)
        return 0;
    /* srun sees the option twice when it is both inherited and given */
    if (cfg_state == CFG_DISABLED || cfg_state == CFG_INVALID) {
        if (!told++)
            cmp_user_notice("%s; --mapping ignored", cfg_state == CFG_DISABLED
                            ? "disabled by the administrator"
                            : "misconfigured (see the administrator's log)");
        return 0;
    }
    if (r.mode == CMP_MODE_HELP) {
        fputs(cmp_help_text, stdout);
        printf("This plugin was built for Slurm %d.%02d.%d.\n",
               SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
               SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
               SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
        exit(0);
    }
    return 0;
}

static struct spank_option mapping_option = {
    "mapping", "mode[,modifier...]",
    "clustermap task placement: cluster, profile, block, cyclic or off, "
    "modifiers name=NAME, verbose, noprofile, pack, css, overlap, nooverlay "
    "(--mapping=help explains)",
    1, 0, mapping_cb
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    int ok = config_ok(ac, av);
    if (spank_option_register(sp, &mapping_option) != ESPANK_SUCCESS)
        slurm_error("clustermap: cannot register --mapping");
    if (ok && spank_context() == S_CTX_LOCAL)
        cmp_srun_step(&cfg);
    else if (ok && spank_context() == S_CTX_REMOTE) {
        cmp_profile_step_init(sp, &cfg);   /* root, before the tasks exist */
        cmp_overlay_step_init(sp, &cfg);   /* after: one preload for both */
        cmp_mpirun_batch_init(sp, &cfg);   /* the batch step's mpirun */
    }
    return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    if (config_ok(ac, av) && spank_remote(sp)) {
        cmp_log_step_fallback(sp);
        cmp_log_step_gpu_notes(sp);
        cmp_profile_user_init(sp, &cfg);
    }
    return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    if (config_ok(ac, av) && spank_remote(sp)) {
        cmp_bind_task(sp, &cfg);
        cmp_bind_gpu_task(sp, &cfg);
    }
    return 0;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
    if (config_ok(ac, av) && spank_remote(sp))
        cmp_profile_task_exit(sp, &cfg);
    return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context();
    if (ctx == S_CTX_LOCAL) {
        int ok = config_ok(ac, av);
        cmp_srun_step_exit(ok ? &cfg : NULL);
        if (ok)
            cmp_profile_report(sp, &cfg);   /* was the profiled run recorded? */
    } else if (ctx == S_CTX_REMOTE && config_ok(ac, av)) {
        cmp_profile_exit(sp, &cfg);
        cmp_mpirun_batch_exit(sp, &cfg);
    }
    return 0;
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    if (config_ok(ac, av))
        cmp_profile_epilog(sp, &cfg);
    return 0;
}
