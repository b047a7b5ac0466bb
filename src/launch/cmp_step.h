/*
 * cmp_step.h -- what srun does with a step, as a pure decision
 * (step_decide.c).
 *
 * The SPANK plugin gathers its inputs once (cmp_step_input_t: srun's
 * command line and every environment value the decision reads), asks the
 * decision, asks the store one question when the decision says so, asks
 * the decision again with the answer, and then only applies what it was
 * told: the lines, the placement, the step's environment.  The decision
 * reads no environment, does no I/O and logs nothing, so a table of
 * inputs and outcomes tests it without Slurm (test/unit/test_step_decide.c).
 */
#ifndef CMP_STEP_H
#define CMP_STEP_H

#include "clustermap.h"
#include "cm_store_step.h"
#include "cmp_alloc.h"
#include "cmp_config.h"
#include "cmp_request.h"
#include "cmp_srun_args.h"

/** One snapshot of a step as srun sees it in slurm_spank_init.  Strings
 *  are borrowed (pointers into the environment, or strings the caller
 *  keeps while the decision lives), NULL when unset; none is copied into a
 *  fixed buffer.  Filled by the plugin (cmp_step_input_read); a test fills
 *  it by hand. */
typedef struct cmp_step_input {
    int args_read;    /* srun's command line was read (else
                                 args_err says why, and sa is zeroed) */
    int args_refused; /* srun refuses it (args_err says why) */
    cm_error_t args_err;
    cmp_srun_args_t sa;        /* srun's own command line (its strings
                                 point into argv) */
    int argc;                  /* srun's argv as read, owned by whoever */
    char **argv;               /* filled the snapshot (NULL for a test) */
    const char *mapping_env;   /* --mapping inherited from sbatch/salloc
                                 (CMP_OPTION_ENV); srun's own wins */
    const char *job_id;        /* SLURM_JOB_ID */
    const char *job_name;      /* SLURM_JOB_NAME */
    const char *overcommit;    /* SLURM_OVERCOMMIT */
    const char *hostfile;      /* SLURM_HOSTFILE */
    const char *our_hostfile;  /* CMP_ENV_HOSTFILE: the hostfile an
                                 enclosing srun of ours wrote */
    const char *cpus_per_task; /* SLURM_CPUS_PER_TASK */
    /* srun's environment that stands for its options (srun(1), "INPUT
     * ENVIRONMENT VARIABLES"): a batch job's GPU options reach its steps
     * this way */
    int gpus_env;                   /* SLURM_GPUS, SLURM_GPUS_PER_NODE, _PER_TASK,
                                 SLURM_NTASKS_PER_GPU, SLURM_CPUS_PER_GPU,
                                 SLURM_MEM_PER_GPU (not "0"), or SLURM_GRES
                                 naming gpu */
    const char *cpu_bind_env;       /* SLURM_CPU_BIND when the user set it: not
                                 when SLURM_CPU_BIND_LIST is set too, as
                                 Slurm (and bind.c) set them in a bound
                                 task, whose own srun would inherit them */
    const char *gpu_bind_env;       /* SLURM_GPU_BIND */
    const char *gpus_per_task_env;  /* SLURM_GPUS_PER_TASK */
    const char *ntasks_per_gpu_env; /* SLURM_NTASKS_PER_GPU */
    cmp_slurm_env_t slurm;          /* the allocation (cmp_alloc_read_of) */
    const char *tmpdir;             /* TMPDIR */
    const char *program;            /* the command srun launches, resolved as
                                 its exec will find it; NULL or "" none */
    const char *parent_pid;         /* srun's parent's pid, decimal */
    int srun_refuses_nodes;         /* this srun refuses -N with the arbitrary
                                 layout a placement needs (Slurm >= 23.11) */
    /* what clustermap's mpirun hands the srun of its daemons (cm_env.h) */
    const char *mpirun_why, *mpirun_rankfile, *mpirun_pid, *mpirun_np, *mpirun_program,
        *mpirun_stage, *mpirun_nodes, *mpirun_tasks, *mpirun_shared, *mpirun_overlay;
} cmp_step_input_t;

/** What the plugin does next. */
typedef enum cmp_step_next {
    CMP_STEP_DONE = 0,  /* nothing more (the line, if any, is in the
                            decision) */
    CMP_STEP_ASK_STORE, /* open the store, ask it cm_store_step_info(key,
                            ntasks, ask) and decide again with the answer */
    CMP_STEP_PLACE      /* plan the step with the placement module */
} cmp_step_next_t;

/** The run's mark for its nodes (CLUSTERMAP_STEP_PROFILE/RUN, or
 *  mpirun's record). */
typedef enum cmp_step_mark {
    CMP_MARK_NONE = 0,
    CMP_MARK_NOW,      /* now, as a run under Slurm's default */
    CMP_MARK_IF_PLACED /* once the placement is written, as placed */
} cmp_step_mark_t;

/** The decision; fields are set as far as the decision got.  Strings are
 *  owned (cmp_step_decision_free) or point into the input, the
 *  configuration or the store's answer, which must outlive it. */
typedef struct cmp_step_decision {
    cmp_step_next_t next;
    const char *debug; /* a line for Slurm's log only (srun will not
                                 launch), or NULL */
    /* --mapping */
    int log_request; /* tell the log who asked: cmp_log_request(
                                 asked, req.verbose) */
    int asked;       /* --mapping given (not plugstack's default=) */
    cmp_request_t req;
    int mark_overlays; /* mark the step with req's overlays */
    int mpirun;        /* the srun of mpirun's daemons */
    int mpirun_stderr; /* the user's lines go to mpirun's stderr */
    /* the step's one line when it is left to Slurm (cmp_fallback) */
    int fallback;      /* 1: there is one */
    int nothing_to_do; /* 1: CMP_NOTHING_TO_DO, 0: CMP_FALLBACK */
    char *reason;      /* owned */
    char *note;        /* owned, may be NULL: follows the suffix */
    /* the step */
    int cpus_per_task;
    int ntasks;
    cmp_alloc_t alloc;                /* owned: the nodes and slots to place on */
    const char *rankfile;             /* mpirun's rank file to write, NULL: srun's
                                 own hostfile */
    const char *job_name;             /* what the user calls it (messages), in
                                 full: into req.name (so @p d is not to
                                 be copied), the input, or "noname" */
    char key[CMP_NAME_MAX + 1];       /* its profile: the job name and program
                                 (cm_profile_program_key), the name cut
                                 to CMP_NAME_MAX as profiles are named */
    const char *key_program;          /* the program in the key, NULL: none */
    char nompi_key[CMP_NAME_MAX + 1]; /* the program's key of a name= step
                                 ("" otherwise: the key): a "no MPI"
                                 mark is the program's, not the name's */
    unsigned ask;                     /* CM_STEP_ASK_* the store is asked */
    /* after the store's answer */
    int set_verbose;     /* CMP_ENV_VERBOSE=1 for the tasks */
    unsigned overlays;   /* the overlays the ranks run */
    int trace;           /* the tnbc trace: 1 use the store's prefix,
                                 -1 say it is unusable, 0 none to use */
    int history_ignored; /* the history was unreadable: the guard
                                 judged an empty one */
    char *place_note;    /* owned: ends the placement's summary line */
    char *bind_kept;     /* owned, NULL when each rank is bound to its
                                 cores: why the step keeps Slurm's or the
                                 user's binding (ranks placed on nodes only) */
    int per_gpu;         /* > 0: placed on GPUs, that many tasks on each
                                 (the GPU slots of plugstack's hwloc_xml=) */
    int bind_kept_said;  /* 1: the user asked for that binding, say the
                                 line whatever the verbosity */
    cmp_step_mark_t mark;
    int traffic;     /* the mark profiles traffic (else time) */
    const char *how; /* CMP_MARK_NOW: the guard's word, or NULL */
    int probe;       /* placed as the guard's probe */
} cmp_step_decision_t;

/** The overlays of a step or job that asked @p r: its modifiers, else
 *  plugstack's overlay= (none for --mapping=off or nooverlay; 0 for a NULL
 *  @p c or @p r). */
unsigned cmp_overlay_bits(const cmp_config_t *c, const cmp_request_t *r);

/** The overlays clustermap's mpirun gives its ranks, from its mark @p mark
 *  (CMP_ENV_MPIRUN_OVERLAY, "<spec> <verbose> <library>", may be NULL):
 *  CMP_OVL_* bits, 0 when unset or bad. */
unsigned cmp_mpirun_overlay_bits_of(const char *mark);

/** Decide what srun does with the step of @p in under configuration @p c.
 *  Call it first with @p info NULL: it stops at CMP_STEP_DONE, or asks for
 *  the store (CMP_STEP_ASK_STORE; d->key, d->ntasks, d->ask).  Then call it
 *  again with the same @p d and the store's answer @p info (its opened
 *  field 0 when the store could not be opened): it ends with CMP_STEP_DONE
 *  or CMP_STEP_PLACE.  The texts of the lines are exactly the user's.  No
 *  environment, no I/O, no logging.  Free @p d with
 *  cmp_step_decision_free (also after an allocation failure, which leaves
 *  the step to Slurm like any other reason).  A NULL @p c or @p in leaves
 *  the step to Slurm too (CMP_STEP_DONE with a reason); a NULL @p d:
 *  nothing done. */
void cmp_step_decide(const cmp_config_t *c, const cmp_step_input_t *in,
                     const cm_store_step_info_t *info, cmp_step_decision_t *d);

/** Free what @p d owns and zero it (NULL: nothing to do). */
void cmp_step_decision_free(cmp_step_decision_t *d);

/** The line of a step with GPUs that keeps Slurm's GPU and CPU binding and
 *  is placed on nodes only, ending with @p why ("no reason given" for
 *  NULL): the decision's and the placement module's reasons read alike.
 *  Malloc'd, NULL out of memory. */
char *cmp_gpu_nodes_only(const char *why);

#endif /* CMP_STEP_H */
