/*
 * cm_env.h -- every environment variable clustermap reads or writes: those
 * users set (the store, the profiler's and the overlays' switches) and
 * those its parts hand to each other (srun's side of the plugin to the
 * tasks and the nodes, clustermap's mpirun to the srun that starts its
 * daemons).  Each group says who writes its variables and who reads them.
 * A variable is spelled only here: test/sh/t0012-env.t fails on a
 * "CLUSTERMAP_... literal anywhere else in src/, and on a variable marked
 * "user:" below that the document it names does not mention.
 *
 * CM_ENV_X spells CLUSTERMAP_X; the plugin's own hand-offs keep their
 * CMP_ENV_ names, which say what they carry (CMP_ENV_OVERLAY is
 * CLUSTERMAP_STEP_OVERLAY, srun's mark, not the library's
 * CLUSTERMAP_OVERLAY).
 *
 * Header-only, macros only: the plugin, the mpirun wrapper, the command,
 * the store and the MPI-compiled profiler and overlays include it.
 */
#ifndef CM_ENV_H
#define CM_ENV_H

/* A table kept in columns, one variable a line (t0012 reads it so). */
/* clang-format off */
/* The profile store's directory (docs/profile-format.md): set by the user
 * or the site; read by the store (cm_store_default_root, src/store/) and
 * the command (src/cli/site_conf.c: before plugstack.conf's store=). */
#define CM_ENV_STORE "CLUSTERMAP_STORE"               /* user: docs/admin-guide.md */
/* A test hook of the store (docs/profile-format.md, "Test hook"): set by
 * the tests, read by src/store/store.c. */
#define CM_ENV_FAULT_INJECT "CLUSTERMAP_FAULT_INJECT"

/* The PMPI profiler's (libclustermap-prof.so, src/profiler/prof_state.c
 * and prof_write.c reading; docs/profile-format.md).  Written by
 * slurmstepd's side of the plugin (src/plugin/profile_step.c), by
 * clustermap's mpirun for a staged run (src/mpirun/mpirun.c), or by a user
 * who runs the library by hand. */
#define CM_ENV_PROFILE_DIR "CLUSTERMAP_PROFILE_DIR"   /* user: docs/profile-format.md */
#define CM_ENV_PROFILE_TRAFFIC "CLUSTERMAP_PROFILE_TRAFFIC" /* user: docs/profile-format.md */
#define CM_ENV_PROF_DENSE_MAX "CLUSTERMAP_PROF_DENSE_MAX"   /* user: docs/profile-format.md */
/* the control file of a staged mpirun run: written by src/mpirun/ only */
#define CM_ENV_PROFILE_CONTROL "CLUSTERMAP_PROFILE_CONTROL"

/* The communication overlays' (src/overlay/ reading: ovl_state.c,
 * ovl_agree.c, ovl_tprio.c, ovl_waves.c; docs/overlays.md).  Written by
 * the user (mpirun -x), by slurmstepd's side of the plugin
 * (src/plugin/overlay_step.c, overlay_trace.c) and by clustermap's mpirun
 * (src/mpirun/mpirun.c, with_overlay). */
#define CM_ENV_OVERLAY "CLUSTERMAP_OVERLAY"                 /* user: docs/overlays.md */
#define CM_ENV_OVERLAY_VERBOSE "CLUSTERMAP_OVERLAY_VERBOSE" /* user: docs/overlays.md */
#define CM_ENV_OVERLAY_TRACE "CLUSTERMAP_OVERLAY_TRACE"     /* user: docs/overlays.md */
#define CM_ENV_OVERLAY_PRIO "CLUSTERMAP_OVERLAY_PRIO"       /* user: docs/overlays.md */
#define CM_ENV_OVERLAY_ASIDE "CLUSTERMAP_OVERLAY_ASIDE"     /* user: docs/overlays.md */
#define CM_ENV_OVERLAY_WAVES "CLUSTERMAP_OVERLAY_WAVES"     /* user: docs/overlays.md */
/* "plugin": the launcher switched the overlays on (the plugin and
 * clustermap's mpirun write it; ovl_agree.c reads it) */
#define CM_ENV_OVERLAY_FROM "CLUSTERMAP_OVERLAY_FROM"

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
#define CMP_ENV_GPUS      "CLUSTERMAP_GPUS"         /* GPU index per rank, of a
                                                       step placed on GPUs */
#define CMP_ENV_GPU_INFO  "CLUSTERMAP_GPU_INFO"     /* per GPU of a node:
                                                       "NIC:CPULIST ..." */
#define CMP_ENV_PROFILE   "CLUSTERMAP_STEP_PROFILE" /* job name to profile as */
#define CMP_ENV_RUN       "CLUSTERMAP_STEP_RUN"     /* how the step was placed,
                                                       for its run history */
#define CMP_ENV_NOMPI_KEY "CLUSTERMAP_STEP_NOMPI_KEY" /* the program's key a
                                                       "no MPI" mark goes
                                                       under, when not the
                                                       profile's (name=) */
#define CMP_ENV_VERBOSE   "CLUSTERMAP_VERBOSE"      /* 1: print bindings */
#define CMP_ENV_HOSTFILE  "CLUSTERMAP_HOSTFILE"     /* our SLURM_HOSTFILE */
#define CMP_ENV_FALLBACK  "CLUSTERMAP_FALLBACK"     /* why the step is left to
                                                       Slurm: logged once by
                                                       slurmstepd (log.c) */
#define CMP_ENV_GPU_NOTES "CLUSTERMAP_GPU_NOTES"    /* what gres.conf corrected
                                                       of hwloc_xml=, lines:
                                                       logged once by
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

/* clang-format on */

#endif /* CM_ENV_H */
