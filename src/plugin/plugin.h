/*
 * plugin.h -- internals of the clustermap SPANK plugin (clustermap.so).
 *
 * The plugin is split by job: options.c parses `--mapping`, config.c the
 * plugstack.conf arguments, srun_args.c srun's own command line, alloc.c the
 * allocation's environment, slurm_tree.c the machine tree from the
 * controller, place.c the rank -> node decision in srun, bind.c the rank ->
 * core binding in the task, profile_step.c profiling and ingest on the
 * nodes, as_user.c running code as the job's user, log.c messages.
 * plugin.c holds the SPANK entry points and nothing else.
 *
 * options.c, config.c, srun_args.c and alloc.c use no Slurm symbol, so the
 * unit tests compile them directly (test/unit/test_plugin_args.c).
 */
#ifndef CM_PLUGIN_H
#define CM_PLUGIN_H

#include <stddef.h>
#include <sys/types.h>

#include "clustermap.h"

/* ---- --mapping=<mode>[,modifier...] (options.c) ---- */

typedef enum cmp_mode {
    CMP_MODE_UNSET = 0,  /* no --mapping anywhere: the configured default */
    CMP_MODE_OFF,
    CMP_MODE_CLUSTER,
    CMP_MODE_PROFILE,
    CMP_MODE_BLOCK,
    CMP_MODE_CYCLIC,
    CMP_MODE_HELP
} cmp_mode_t;

#define CMP_NAME_MAX 255

typedef struct cmp_request {
    cmp_mode_t mode;
    char name[CMP_NAME_MAX + 1]; /* name=<profile>: "" = the job's name */
    int verbose;
    int noprofile;
} cmp_request_t;

/** Parse a --mapping value.  0, or -1 with @p err naming what is wrong. */
int cmp_request_parse(const char *value, cmp_request_t *out, cm_error_t *err);

/** "cluster", "off", ... */
const char *cmp_mode_name(cmp_mode_t mode);

/** The text of --mapping=help. */
extern const char cmp_help_text[];

/* ---- plugstack.conf arguments (config.c) ---- */

typedef enum cmp_profiling {
    CMP_PROFILE_MISSING = 0, /* cluster/block/cyclic profile a run when the
                                job has no profile yet */
    CMP_PROFILE_ALWAYS,      /* ... every run (keeps profiles current) */
    CMP_PROFILE_NEVER        /* only --mapping=profile profiles */
} cmp_profiling_t;

typedef enum cmp_loglevel {
    CMP_LOG_QUIET = 0,   /* nothing on the job's stderr */
    CMP_LOG_ERROR,       /* fallback lines only (default) */
    CMP_LOG_INFO,        /* and a summary of every placement */
    CMP_LOG_DEBUG        /* and debugging details */
} cmp_loglevel_t;

#define CMP_PATH_MAX 1024
#define CMP_SPEC_MAX 512

typedef struct cmp_config {
    char store[CMP_PATH_MAX];      /* store=DIR */
    cmp_mode_t default_mode;       /* default=off|cluster|profile|block|cyclic */
    char algorithm[32];            /* algorithm=auto|cluster|scotch|... */
    double budget;                 /* budget=SECONDS (engine time budget) */
    cm_weight_t weight;            /* weight=mixed|bytes|msgs */
    double merge_weight;           /* merge_weight=W (0,1] or "mean" */
    size_t max_profile_size;       /* max_profile_size=BYTES */
    char level_costs[CMP_SPEC_MAX];      /* level_costs=name=c,... */
    char level_latencies[CMP_SPEC_MAX];  /* level_latencies=name=l,... */
    char level_bandwidths[CMP_SPEC_MAX]; /* level_bandwidths=name=b,... */
    char prof_lib[CMP_PATH_MAX];   /* prof_lib=PATH of libclustermap-prof.so */
    char prof_dir[CMP_PATH_MAX];   /* prof_dir=DIR node-local base (/tmp) */
    cmp_profiling_t profiling;     /* profile=missing|always|never */
    double ingest_timeout;         /* ingest_timeout=SECONDS */
    int max_tasks;                 /* max_tasks=N: no placement above */
    int bind;                      /* bind=yes|no: rank -> core binding */
    int bind_max_tasks;            /* bind_max_tasks=N: no binding above */
    cmp_loglevel_t loglevel;       /* loglevel=quiet|error|info|debug */
} cmp_config_t;

/** Defaults (documented in docs/admin-guide.md). */
void cmp_config_init(cmp_config_t *c);

/** Parse the plugstack.conf arguments "key=value".  -1 with @p err naming
 *  the bad argument; @p c keeps the defaults of what was not parsed. */
int cmp_config_parse(cmp_config_t *c, int argc, char **argv, cm_error_t *err);

/* ---- srun's own command line (srun_args.c) ---- */

typedef struct cmp_srun_args {
    int ntasks;            /* -n, 0 if absent */
    int nodes_min, nodes_max; /* -N min[-max], 0 if absent */
    int ntasks_per_node;   /* --ntasks-per-node, 0 if absent */
    int cpus_per_task;     /* -c, 0 if absent */
    int nodelist;          /* -w/--nodelist given */
    int exclude;           /* -x/--exclude given */
    int relative;          /* -r/--relative given */
    int distribution;      /* -m/--distribution given */
    int multi_prog;        /* --multi-prog */
    int het;               /* a ':' component separator */
    int jobid;             /* --jobid given (outside the allocation's env) */
    int help;              /* -h/--help/--usage/-V: srun will not launch */
    char job_name[CMP_NAME_MAX + 1];  /* -J, "" if absent */
    char mapping[CMP_SPEC_MAX];       /* the last --mapping value, "" if none */
    int has_mapping;
} cmp_srun_args_t;

/** Parse srun's argv (argv[0] is srun) the way srun's getopt does, up to
 *  the command.  Unknown options are assumed to take no separate argument.
 *  -1 with @p err on a malformed number (srun will refuse it too). */
int cmp_srun_args_parse(int argc, char **argv, cmp_srun_args_t *out,
                        cm_error_t *err);

/** Read /proc/self/cmdline into a NULL-terminated argv (free with
 *  cmp_argv_free).  -1 on error. */
int cmp_argv_self(int *argc, char ***argv, cm_error_t *err);
void cmp_argv_free(int argc, char **argv);

/* ---- the allocation from the environment (alloc.c) ---- */

/** Expand SLURM_JOB_CPUS_PER_NODE ("8(x2),4") into @p n counts.  -1 unless
 *  it describes exactly @p n nodes. */
int cmp_cpus_per_node(const char *spec, int n, int *cpus, cm_error_t *err);

/** Parse a positive integer (at most @p max).  -1 if it is not one. */
int cmp_parse_int(const char *s, int max, int *out);

/* ---- the machine tree of an allocation (slurm_tree.c) ---- */

typedef struct cmp_alloc {
    int nnodes;
    char **names;     /* allocation order */
    int *slots;       /* slots (task places) per node */
} cmp_alloc_t;

/** The tree of @p a from the controller (slurm_load_topo, slurm_load_node):
 *  switch levels, node, socket, slots.  NULL with @p err on failure (the
 *  caller falls back to Slurm's default). */
cm_tree_t *cmp_slurm_tree(const cmp_alloc_t *a, int cpus_per_task,
                          cm_error_t *err);

/* ---- srun (place.c) ---- */

/** Decide and, when the step is to be placed or profiled, write the
 *  hostfile and set the step's environment.  Called once per srun from
 *  slurm_spank_init in local context.  Never fails the step. */
void cmp_place_local(const cmp_config_t *c);

/** srun's end: remove the hostfile written by cmp_place_local. */
void cmp_place_local_exit(void);

/* Variables srun hands to the step (through its environment). */
#define CMP_ENV_CORES     "CLUSTERMAP_CORES"        /* core index per rank */
#define CMP_ENV_PROFILE   "CLUSTERMAP_STEP_PROFILE" /* job name to profile as */
#define CMP_ENV_VERBOSE   "CLUSTERMAP_VERBOSE"      /* 1: print bindings */
#define CMP_ENV_HOSTFILE  "CLUSTERMAP_HOSTFILE"     /* our SLURM_HOSTFILE */
#define CMP_OPTION_ENV    "SLURM_SPANK__SLURM_SPANK_OPTION_clustermap_mapping"

/* ---- logging (log.c) ---- */

void cmp_log_init(cmp_loglevel_t level);
/** One line "clustermap: ..." on the job's stderr (unless quiet) and in
 *  Slurm's log as an error. */
void cmp_user_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** The same at info level (only with loglevel >= info or @p force). */
void cmp_user_info(int force, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** Slurm's log only. */
void cmp_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmp_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmp_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CM_PLUGIN_H */
