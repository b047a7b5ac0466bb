/*
 * cm_env.h -- the environment variables clustermap's parts hand to each
 * other: srun's side of the plugin writes them for the tasks and the
 * nodes, clustermap's mpirun for the srun that starts its daemons.  Each
 * name says who writes it and who reads it; a variable is spelled only
 * here.  Header-only: the plugin, the mpirun wrapper and the command
 * include it.
 */
#ifndef CM_ENV_H
#define CM_ENV_H

/* Written by clustermap's mpirun (src/mpirun/) into its own environment,
 * read by the srun that starts its daemons (src/plugin/srun_step.c), and
 * by the batch step that prepared it (src/plugin/mpirun_batch.c). */
#define CMP_ENV_MPIRUN_DIR      "CLUSTERMAP_MPIRUN_DIR"      /* private directory */
#define CMP_ENV_MPIRUN_RANKFILE "CLUSTERMAP_MPIRUN_RANKFILE" /* the rank file */
#define CMP_ENV_MPIRUN_NP       "CLUSTERMAP_MPIRUN_NP"       /* its rank count */
#define CMP_ENV_MPIRUN_PROGRAM  "CLUSTERMAP_MPIRUN_PROGRAM"  /* the program */
#define CMP_ENV_MPIRUN_WHY      "CLUSTERMAP_MPIRUN_WHY"      /* why not steered */
#define CMP_ENV_MPIRUN_PID      "CLUSTERMAP_MPIRUN_PID"      /* mpirun's pid */
#define CMP_ENV_MPIRUN_NODES    "CLUSTERMAP_MPIRUN_NODES"    /* the job's nodes */
#define CMP_ENV_MPIRUN_TASKS    "CLUSTERMAP_MPIRUN_TASKS"    /* tasks per node */
#define CMP_ENV_MPIRUN_PROF_LIB "CLUSTERMAP_MPIRUN_PROF_LIB" /* prof_lib= */
#define CMP_ENV_MPIRUN_STORE    "CLUSTERMAP_MPIRUN_STORE"    /* the user's store
                                                               directory */
#define CMP_ENV_MPIRUN_STAGE    "CLUSTERMAP_MPIRUN_STAGE"    /* this mpirun's
                                                               parts, in it */
#define CMP_MPIRUN_STAGE_PREFIX ".mpirun."                   /* + <jobid>.XXXXXX */
#define CMP_ENV_MPIRUN_OVERLAY  "CLUSTERMAP_MPIRUN_OVERLAY"  /* "<spec> <verbose>
                                                               <prof_lib>"
                                                               (overlay_step.c) */
#define CMP_ENV_MPIRUN_SHARED   "CLUSTERMAP_MPIRUN_SHARED"   /* cores every rank
                                                               shares, 0: one
                                                               core each */

/* Written by srun's side of the plugin (src/plugin/srun_step.c) into the
 * step's environment; read by the tasks' side of the plugin on the nodes
 * (bind.c, profile_step.c, overlay_step.c, overlay_trace.c, log.c). */
#define CMP_ENV_CORES     "CLUSTERMAP_CORES"        /* core index per rank */
#define CMP_ENV_PROFILE   "CLUSTERMAP_STEP_PROFILE" /* job name to profile as */
#define CMP_ENV_RUN       "CLUSTERMAP_STEP_RUN"     /* how the step was placed,
                                                       for its run history */
#define CMP_ENV_VERBOSE   "CLUSTERMAP_VERBOSE"      /* 1: print bindings */
#define CMP_ENV_HOSTFILE  "CLUSTERMAP_HOSTFILE"     /* our SLURM_HOSTFILE */
#define CMP_ENV_FALLBACK  "CLUSTERMAP_FALLBACK"     /* why the step is left to
                                                       Slurm: logged once by
                                                       slurmstepd (log.c) */
#define CMP_ENV_OVERLAY   "CLUSTERMAP_STEP_OVERLAY" /* "<spec> <verbose>": the
                                                       overlays to preload
                                                       (overlay_step.c) */
#define CMP_ENV_OVERLAY_PRIO "CLUSTERMAP_STEP_PRIO"  /* the stored tnbc trace's
                                                       prefix, for the ranks
                                                       (overlay_trace.c) */

/* Written by Slurm (sbatch/salloc pass --mapping down as a SPANK option):
 * read by srun's side of the plugin when srun itself has no --mapping. */
#define CMP_OPTION_ENV    "SLURM_SPANK__SLURM_SPANK_OPTION_clustermap_mapping"

#endif /* CM_ENV_H */
