/*
 * cmp_limits.h -- the sizes of the launch model's fixed fields (names,
 * paths and value lists of srun's command line and the configuration).
 */
#ifndef CMP_LIMITS_H
#define CMP_LIMITS_H

#define CMP_NAME_MAX 255  /* a job or profile name, without its NUL */
#define CMP_PATH_MAX 1024 /* a path of the site's configuration */
#define CMP_SPEC_MAX 512  /* a value list of the configuration */

/* What a profiled step may leave in its private directory on a node
 * (prof_dir, RAM on most nodes): step_budget= bytes (this default), and
 * at most CMP_STEP_MAX_ENTRIES entries -- a part, a "no MPI" mark and a
 * trace per task are a few per task.  Past either, the step's run is not
 * recorded; the directory goes at the step's end whatever it holds. */
#define CMP_DEFAULT_STEP_BUDGET (256.0 * 1024 * 1024)
#define CMP_STEP_MAX_ENTRIES 16384L
/* The entries one removal of a private directory looks at (a walk over a
 * million entries on a RAM file system takes about a second); what is
 * left goes at the next walk: the job epilog runs CMP_EPILOG_WALKS. */
#define CMP_REMOVE_MAX_ENTRIES 1000000L
#define CMP_EPILOG_WALKS 4

#endif /* CMP_LIMITS_H */
