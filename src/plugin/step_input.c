/*
 * step_input.c -- the step as srun sees it in slurm_spank_init, taken
 * once (cmp_step_input_t, src/launch/cmp_step.h): srun's command line and
 * every environment value srun's side reads.  The one place on srun's
 * side that reads the environment, so that the decision and the code that
 * applies it read only the snapshot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm_version.h>

#include "plugin.h"

void cmp_step_input_read(cmp_step_input_t *in)
{
    char parent[32];
    memset(in, 0, sizeof *in);
    /* argv is kept: srun_args' strings point into it, whole */
    in->args_read = cmp_argv_self(&in->argc, &in->argv, &in->args_err) == 0;
    if (in->args_read)
        in->args_refused =
            cmp_srun_args_parse(in->argc, in->argv, &in->sa, &in->args_err) < 0;
    in->mapping_env = getenv(CMP_OPTION_ENV);
    in->job_id = getenv("SLURM_JOB_ID");
    in->job_name = getenv("SLURM_JOB_NAME");
    in->overcommit = getenv("SLURM_OVERCOMMIT");
    in->hostfile = getenv("SLURM_HOSTFILE");
    in->our_hostfile = getenv(CMP_ENV_HOSTFILE);
    in->cpus_per_task = getenv("SLURM_CPUS_PER_TASK");
    static const char *const gpu_env[] = { "SLURM_GPUS",          "SLURM_GPUS_PER_NODE",
                                           "SLURM_GPUS_PER_TASK", "SLURM_NTASKS_PER_GPU",
                                           "SLURM_CPUS_PER_GPU",  "SLURM_MEM_PER_GPU" };
    for (size_t k = 0; k < sizeof gpu_env / sizeof gpu_env[0]; k++) {
        const char *v = getenv(gpu_env[k]);
        in->gpus_env |= v && *v && strcmp(v, "0") != 0;
    }
    in->gpus_env |= cmp_names_gpu(getenv("SLURM_GRES"));
    if (!getenv("SLURM_CPU_BIND_LIST"))
        in->cpu_bind_env = getenv("SLURM_CPU_BIND");
    in->gpu_bind_env = getenv("SLURM_GPU_BIND");
    in->gpus_per_task_env = getenv("SLURM_GPUS_PER_TASK");
    in->ntasks_per_gpu_env = getenv("SLURM_NTASKS_PER_GPU");
    cmp_slurm_env_read(&in->slurm);
    in->tmpdir = getenv("TMPDIR");
    in->mpirun_why = getenv(CMP_ENV_MPIRUN_WHY);
    in->mpirun_rankfile = getenv(CMP_ENV_MPIRUN_RANKFILE);
    in->mpirun_pid = getenv(CMP_ENV_MPIRUN_PID);
    in->mpirun_np = getenv(CMP_ENV_MPIRUN_NP);
    in->mpirun_program = getenv(CMP_ENV_MPIRUN_PROGRAM);
    in->mpirun_stage = getenv(CMP_ENV_MPIRUN_STAGE);
    in->mpirun_nodes = getenv(CMP_ENV_MPIRUN_NODES);
    in->mpirun_tasks = getenv(CMP_ENV_MPIRUN_TASKS);
    in->mpirun_shared = getenv(CMP_ENV_MPIRUN_SHARED);
    in->mpirun_overlay = getenv(CMP_ENV_MPIRUN_OVERLAY);
    snprintf(parent, sizeof parent, "%ld", (long)getppid());
    in->parent_pid = strdup(parent);
    /* as srun's exec will find it, for the profile's key */
    if (in->sa.command_arg && in->sa.command_arg[0])
        in->program = cmp_resolve_command(in->sa.command_arg);
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
    in->srun_refuses_nodes = 1;
#endif
}

void cmp_step_input_free(cmp_step_input_t *in)
{
    free((char *)in->parent_pid);
    free((char *)in->program);
    cmp_argv_free(in->argc, in->argv);
    memset(in, 0, sizeof *in);
}

void cmp_step_exit_ids(const char **job, const char **step)
{
    *job = getenv("SLURM_JOB_ID");
    *step = getenv("SLURM_STEP_ID");
}
