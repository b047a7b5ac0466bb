/*
 * cmp_mpirun.h -- mpirun: its command line (mpirun_args.c), the rank file (rankfile.c),
 * the record of an mpirun run (mpirun_record.c), its private directory
 * (private_dir.c) and the parts its ranks leave (step_run.c).  Shared by
 * the plugin and clustermap's mpirun (src/mpirun/).
 */
#ifndef CMP_MPIRUN_H
#define CMP_MPIRUN_H

#include <stddef.h>
#include <sys/types.h>

#include "clustermap.h"
#include "cm_env.h"
#include "cm_store.h"

/* ---- mpirun (mpirun_args.c, rankfile.c; the launcher in src/mpirun/) ---- */

typedef struct cmp_mpirun_args {
    int np;        /* -np/-n/-c, 0 if absent (mpirun fills every slot) */
    int program;   /* argv index of the program, 0 if none */
    int query;     /* --help, --version: nothing is launched */
    char why[192]; /* why the layout is not clustermap's to decide: the
                          user's own mapping or binding, an MPMD line, an
                          option not known; "" if it is */
} cmp_mpirun_args_t;

/** Read Open MPI 4.1 mpirun's argv (argv[0] is mpirun) up to the program.
 *  -1 with @p err only when mpirun will refuse it (a missing argument, a
 *  bad rank count), or for a NULL @p out, or a NULL @p argv with
 *  @p argc > 0.  @p argv ends at its first NULL entry. */
int cmp_mpirun_args_parse(int argc, char **argv, cmp_mpirun_args_t *out, cm_error_t *err);

/** Whether MCA parameter @p name (without OMPI_MCA_) chooses the layout
 *  (0 for NULL). */
int cmp_mpirun_layout_param(const char *name);

/** mpirun's default layout: node i gets the next min(left, @p slots[i])
 *  ranks.  Writes @p count[nnodes]; -1 when @p np exceeds the slots or is
 *  below 1, or for a NULL @p slots or @p count. */
int cmp_mpirun_fill(const int *slots, int nnodes, int np, int *count);

/** Write Open MPI's rank file @p path atomically: rank r on
 *  @p names[node[r]], bound to core @p core[r] -- or, with @p shared > 0,
 *  to all the cores 0..shared-1 of its node (@p core may then be NULL).
 *  0, or -1 with @p err (a NULL @p path, @p names or @p node refused). */
int cmp_rankfile_write(const char *path, char *const *names, const int *node,
                       const int *core, int n, int shared, cm_error_t *err);

/** What the srun of mpirun's daemons decided about an mpirun run, for the
 *  launcher that records it (mpirun_record.c). */
typedef struct cmp_mpirun_record {
    char store[CMP_PATH_MAX];   /* the store's root */
    char key[CMP_NAME_MAX + 1]; /* the profile */
    int ntasks;
    char step[64];    /* "<jobid>.<mpirun pid>" */
    double weight;    /* merge_weight= */
    size_t max_bytes; /* max_profile_size= */
    int verbose;      /* lines for the user: 0 none, 1 errors,
                                      2 every line */
    char run[128];    /* as CLUSTERMAP_STEP_RUN */
} cmp_mpirun_record_t;

/** srun: the ranks' control file of the run staged in @p stage: @p mode
 *  ("traffic", "time", "off") and, when @p prio is not "", the line
 *  "prio=@p prio" (the tnbc trace the ranks read; NULL: none).  0, or -1
 *  with @p err: a NULL @p stage or @p mode, or a stage too long for its
 *  files' paths (CMP_PATH_MAX: refused, never cut). */
int cmp_mpirun_control_write(const char *stage, const char *mode, const char *prio,
                             cm_error_t *err);

/** srun: write @p r and then the ranks' control file ("traffic" or
 *  "time", then "prio=@p prio" when @p prio is not "": the tnbc trace
 *  the ranks read, docs/overlays.md) into the run's staging directory
 *  @p stage.  0, or -1 (a NULL @p stage or @p r, a stage too long: as
 *  cmp_mpirun_control_write). */
int cmp_mpirun_record_write(const char *stage, const cmp_mpirun_record_t *r, int traffic,
                            const char *prio, cm_error_t *err);

/** The launcher, after mpirun returned with exit code @p status (128 + N
 *  for signal N): record the run staged in @p stage (the ranks' parts into
 *  the user's store, as any profiled step's) -- unless @p status is not 0:
 *  a failed run is never recorded, as a step with a failed task is not.
 *  Returns 0 when there was nothing to record, a cm_step_result_t with its
 *  line in @p msg, or -1 with the reason in @p msg; @p verbose: which
 *  lines the user sees (0 none, 1 errors, 2 every line).  A NULL or too
 *  long @p stage: -1; @p msg (with @p n 0) and @p verbose may be NULL. */
int cmp_mpirun_record_collect(const char *stage, int status, char *msg, size_t n,
                              int *verbose);

/** Remove the files (and empty subdirectories) of directory @p fd (a bad
 *  descriptor: nothing done). */
void cmp_empty_dir(int fd);

/** As the user (a cmp_as_user function): remove the files of the directory
 *  at path @p p if the user owns it (it is opened without following a
 *  link).  Returns 0 (also for a NULL @p p, which is left alone). */
int cmp_empty_private(void *p);

/** @p name of the private directory @p dir, a regular file opened without
 *  following a link (O_NONBLOCK: a FIFO put there never blocks): its
 *  descriptor, or -1 with errno ENOENT when there is nothing under that
 *  name, EINVAL when it is something else or @p name is NULL. */
int cmp_private_file(int dir, const char *name);

/** The part task @p task left in directory @p dir (part.<task>.txt, or the
 *  "no MPI" mark part.<task>.nompi): CM_PART_OK with the part open in
 *  *@p fd, CM_PART_NOMPI, or CM_PART_MISSING with why in @p detail (@p fd
 *  and @p detail may be NULL, a bad @p dir is a missing part).  A part the
 *  profiler could not write for want of space (its mark part.<task>.nospace,
 *  or the directory's file system full now) is missing with "no space left
 *  in <dir>", not blamed on the program. */
cm_part_status_t cmp_part_find(int dir, int task, int *fd, char *detail, size_t n);

/** As the user: the tnbc trace task @p task left in directory @p dir
 *  (tnbc.<task>, CLUSTERMAP_OVERLAY_TRACE=<dir>/tnbc), when it wrote one,
 *  into the staging directory of step @p step of store @p s, before the
 *  task's part (cm_store_trace_put).  A bad one is left out: the store then
 *  says how many tasks sent none and keeps the older trace (as does a NULL
 *  @p s or @p step). */
void cmp_trace_put(cm_store_t *s, const char *step, int dir, int task);

/* What clustermap's mpirun hands to the srun that starts mpirun's daemons
 * (through mpirun's environment), and the batch step to it. */

/** step_run.c: srun's CLUSTERMAP_STEP_RUN ("placed|default|other TRAFFIC HOW J_PLAN
 *  J_DEFAULT"), checked: @p traffic gets TRAFFIC (1 when unreadable), and
 *  for placed and default runs @p run is filled for the history of step
 *  @p stepkey ("jobid.stepid").  1 when @p run is usable, else 0 (a NULL
 *  @p text, @p stepkey or @p run included; @p traffic may be NULL). */
int cmp_run_parse(const char *text, const char *stepkey, cm_run_t *run, int *traffic);

#endif /* CMP_MPIRUN_H */
