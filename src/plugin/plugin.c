/*
 * plugin.c -- the SPANK entry points of clustermap.so.  Thin on purpose:
 * every hook hands over to the file that does the work (see plugin.h) and
 * returns 0, because a placement problem must never fail or hang a job.
 * The one exception is an invalid --mapping value, refused at submit time
 * like any other bad option.
 */
#include <stdio.h>
#include <stdlib.h>

#include <slurm/spank.h>

#include "plugin.h"
#include "plugin_spank.h"

SPANK_PLUGIN(clustermap, 1);

static cmp_config_t cfg;
static int cfg_state;   /* 0 not read, 1 usable, -1 invalid */

/* The plugstack.conf arguments, read by the first hook of the process:
 * not every context calls slurm_spank_init (the job epilog does not). */
static int config_ok(int ac, char **av)
{
    cm_error_t err;
    if (cfg_state)
        return cfg_state > 0;
    spank_context_t ctx = spank_context();
    cmp_log_set_remote(ctx == S_CTX_REMOTE || ctx == S_CTX_SLURMD ||
                       ctx == S_CTX_JOB_SCRIPT);
    cmp_config_init(&cfg);
    if (cmp_config_parse(&cfg, ac, av, &err) == 0) {
        cfg_state = 1;
    } else {
        cfg_state = -1;
        slurm_error("clustermap: plugstack.conf: %s; placement disabled", err.msg);
    }
    cmp_log_init(cfg.loglevel);
    return cfg_state > 0;
}

static int mapping_cb(int val, const char *optarg, int remote)
{
    cmp_request_t r;
    cm_error_t err;
    (void)val;
    if (cmp_request_parse(optarg, &r, &err) < 0) {
        if (remote)
            return 0;   /* checked at submit time; never fail a running job */
        fprintf(stderr, "clustermap: %s\nTry --mapping=help.\n", err.msg);
        return -1;
    }
    if (r.mode == CMP_MODE_HELP && !remote) {
        fputs(cmp_help_text, stdout);
        exit(0);
    }
    return 0;
}

static struct spank_option mapping_option = {
    "mapping", "mode[,modifier...]",
    "clustermap task placement: cluster, profile, block, cyclic or off, "
    "modifiers name=NAME, verbose, noprofile (--mapping=help explains)",
    1, 0, mapping_cb
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    int ok = config_ok(ac, av);
    /* Registered even when misconfigured: jobs that ask for --mapping
     * must still run. */
    if (spank_option_register(sp, &mapping_option) != ESPANK_SUCCESS)
        slurm_error("clustermap: cannot register --mapping");
    if (ok && spank_context() == S_CTX_LOCAL)
        cmp_place_local(&cfg);
    return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    if (config_ok(ac, av) && spank_remote(sp))
        cmp_profile_user_init(sp, &cfg);
    return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    if (config_ok(ac, av) && spank_remote(sp))
        cmp_bind_task(sp, &cfg);
    return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context();
    if (ctx == S_CTX_LOCAL)
        cmp_place_local_exit();
    else if (ctx == S_CTX_REMOTE && config_ok(ac, av))
        cmp_profile_exit(sp, &cfg);
    return 0;
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    if (config_ok(ac, av))
        cmp_profile_epilog(sp, &cfg);
    return 0;
}
