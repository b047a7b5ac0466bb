/*
 * cmp_srun_args.h -- srun's own command line, as srun will read it (srun_args.c).
 */
#ifndef CMP_SRUN_ARGS_H
#define CMP_SRUN_ARGS_H

#include <stddef.h>
#include <sys/types.h>

#include "clustermap.h"
#include "cmp_limits.h"

/* ---- srun's own command line (srun_args.c) ---- */

typedef struct cmp_srun_args {
    int ntasks;               /* -n, 0 if absent */
    int nodes_min, nodes_max; /* -N min[-max], 0 if absent */
    int ntasks_per_node;      /* --ntasks-per-node, 0 if absent */
    int cpus_per_task;        /* -c, 0 if absent */
    int nodelist;             /* -w/--nodelist given */
    int exclude;              /* -x/--exclude given */
    int relative;             /* -r/--relative given */
    int distribution;         /* -m/--distribution given */
    int multi_prog;           /* --multi-prog */
    int het;                  /* a ':' component separator */
    int jobid;                /* --jobid given (outside the allocation's env) */
    int help;                 /* -h/--help/--usage/-V: srun will not launch */
    int overcommit;           /* -O/--overcommit */
    int gpus;                 /* asks for GPUs: -G, --gpus*, --ntasks-per-gpu,
                                 --cpus-per-gpu, --mem-per-gpu, or --gres /
                                 --tres-per-task naming gpu */
    int gpus_per_task;        /* --gpus-per-task=N (a plain count), 0 otherwise */
    int ntasks_per_gpu;       /* --ntasks-per-gpu=N, 0 if absent or not a count */
    /* The strings point into the argv given to cmp_srun_args_parse, whole
     * (never copied, never cut), or are "" -- never NULL after a parse;
     * readers here take a NULL, as in a struct zeroed by hand, as "". */
    const char *job_name;    /* -J, "" if absent */
    const char *command;     /* the command's file name without its directory */
    const char *command_arg; /* the command as given ("" if none) */
    const char *mapping;     /* the last --mapping value, "" if none */
    const char *cpu_bind;    /* the last --cpu-bind value, "" if none */
    const char *gpu_bind;    /* the last --gpu-bind value, "" if none */
    const char *tres_bind;   /* the last --tres-bind value, "" if none */
    int has_mapping;
} cmp_srun_args_t;

/** Parse srun's argv (argv[0] is srun) the way srun's getopt does, up to
 *  the command.  @p out's strings point into @p argv, which must outlive
 *  them.  Unknown options are assumed to take no separate argument.
 *  -1 with @p err on a malformed number (srun will refuse it too), or a
 *  NULL @p out, or a NULL @p argv with @p argc > 0.  @p argv ends at its
 *  first NULL entry, whatever @p argc says. */
int cmp_srun_args_parse(int argc, char **argv, cmp_srun_args_t *out, cm_error_t *err);

/** 1 when the comma-separated --gres or --tres-per-task value @p list
 *  names the gpu resource ("gpu:2", "gpu:a100:1", "gres/gpu=2"), else 0
 *  (also for NULL). */
int cmp_names_gpu(const char *list);

/** Open MPI's mpirun starting its daemons: one orted (4.x) or prted (5.x)
 *  per node, on the nodes it names.  0 for a NULL @p a. */
int cmp_srun_is_mpirun(const cmp_srun_args_t *a);

/** The executable a launcher will start for command @p cmd, as its exec
 *  would find it: a name with a '/' from the current directory, else the
 *  first match in $PATH; the text as given when it cannot be resolved.
 *  A malloc'd string of any length, never cut (the caller frees it); NULL
 *  for a NULL @p cmd or when memory runs out. */
char *cmp_resolve_command(const char *cmd);

/** Read /proc/self/cmdline into a NULL-terminated argv (free with
 *  cmp_argv_free).  -1 on error (a NULL @p argc or @p argv included). */
int cmp_argv_self(int *argc, char ***argv, cm_error_t *err);
/** Free what cmp_argv_self() gave (a NULL @p argv: nothing to do). */
void cmp_argv_free(int argc, char **argv);

#endif /* CMP_SRUN_ARGS_H */
