/*
 * plugin.h -- internals of the clustermap SPANK plugin.
 *
 * Two shared objects.  clustermap.so, which every Slurm client and daemon
 * that reads plugstack.conf loads, is thin: plugin.c holds the SPANK entry
 * points, options.c parses `--mapping`, config.c the plugstack.conf
 * arguments, srun_args.c srun's own command line, alloc.c the allocation's
 * environment, srun_step.c what srun does with a step (which steps are left
 * to Slurm and why, the profile, the hostfile), bind.c the rank -> core
 * binding in the task, profile_step.c profiling and ingest on the nodes,
 * as_user.c running code as the job's user, log.c messages.  The
 * placement module clustermap-place.so holds what needs the heavy
 * libraries (Scotch, OpenBLAS, LAPACKE): place.c plans a step on its
 * allocation, slurm_tree.c builds the allocation's machine tree from the
 * controller, with the core engine (libclustermap.a).  srun_step.c
 * dlopen()s it only when a step is to be placed.
 *
 * options.c, config.c, srun_args.c and alloc.c use no Slurm symbol, so the
 * unit tests compile them directly (test/unit/test_plugin_args.c).
 */
#ifndef CM_PLUGIN_H
#define CM_PLUGIN_H

#include <stddef.h>
#include <sys/types.h>

#include "clustermap.h"
#include "cm_profiles.h"

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
    int pack;         /* may run more tasks on a node than Slurm would */
    unsigned overlay; /* css, overlap: CMP_OVL_* the step runs */
    int nooverlay;    /* nooverlay: not even plugstack's overlay= */
} cmp_request_t;

/* The communication overlays of libclustermap-prof.so (docs/overlays.md)
 * a step may ask for: the same bits and names as CLUSTERMAP_OVERLAY's. */
#define CMP_OVL_CSS  1u   /* --mapping=...,css;     overlay=css */
#define CMP_OVL_TNBC 2u   /* --mapping=...,overlap; overlay=tnbc */

/** plugstack's overlay=: none, css, tnbc, css,tnbc (either order).  0 with
 *  *@p out, or -1. */
int cmp_overlay_parse(const char *v, unsigned *out);

/** The CLUSTERMAP_OVERLAY value of @p bits ("css", "tnbc", "css,tnbc",
 *  "" for none) into @p buf. */
void cmp_overlay_spec(unsigned bits, char *buf, size_t size);

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
    int enabled;                   /* enabled=yes|no: no = --mapping accepted
                                      and ignored (the rollback switch) */
    char store[CMP_PATH_MAX];      /* store=DIR */
    cmp_mode_t default_mode;       /* default=off|cluster|profile|block|cyclic */
    char algorithm[32];            /* algorithm=auto|cluster|scotch|... */
    double budget;                 /* budget=SECONDS (engine time budget) */
    double deadline;               /* deadline=SECONDS: hard limit of a placement */
    cm_weight_t weight;            /* weight=mixed|bytes|msgs */
    double merge_weight;           /* merge_weight=W (0,1] or "mean" */
    size_t max_profile_size;       /* max_profile_size=BYTES */
    char level_costs[CMP_SPEC_MAX];      /* level_costs=name=c,... */
    char level_latencies[CMP_SPEC_MAX];  /* level_latencies=name=l,... */
    char level_bandwidths[CMP_SPEC_MAX]; /* level_bandwidths=name=b,... */
    char prof_lib[CMP_PATH_MAX];   /* prof_lib=PATH of libclustermap-prof.so */
    char place_lib[CMP_PATH_MAX];  /* place_lib=PATH of clustermap-place.so,
                                      "" = next to clustermap.so */
    char prof_dir[CMP_PATH_MAX];   /* prof_dir=DIR node-local base */
    cmp_profiling_t profiling;     /* profile=missing|always|never */
    double ingest_timeout;         /* ingest_timeout=SECONDS */
    int max_tasks;                 /* max_tasks=N: no placement above */
    int bind;                      /* bind=yes|no: rank -> core binding */
    int bind_max_tasks;            /* bind_max_tasks=N: no binding above */
    int mpirun;                    /* mpirun=yes|no: clustermap's mpirun in
                                      the PATH of placed batch jobs */
    char mpirun_dir[CMP_PATH_MAX]; /* mpirun_dir=DIR holding it */
    cmp_loglevel_t loglevel;       /* loglevel=quiet|error|info|debug */
    int guard;                     /* guard=yes|no: time placed and default
                                      runs, stop placing when slower */
    int guard_window;              /* guard_window=N runs of each kind */
    int guard_probe;               /* guard_probe=N: probe after N default
                                      runs (0 never) */
    int guard_recheck;             /* guard_recheck=N: a default run after N
                                      placed runs (0 never) */
    int topo_cache;                /* topo_cache=SECONDS the switches are kept
                                      between sruns (0 never) */
    unsigned overlay;              /* overlay=none|css|tnbc|css,tnbc: the
                                      steps' overlays without a modifier */
} cmp_config_t;

/** Defaults (documented in docs/admin-guide.md). */
void cmp_config_init(cmp_config_t *c);

/** Parse the plugstack.conf arguments "key=value".  -1 with @p err naming
 *  the first bad argument.  The arguments after a bad one are still parsed
 *  (a bad one keeps its default), so that enabled=no takes effect on a line
 *  that also holds a typo. */
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
    int overcommit;        /* -O/--overcommit */
    char job_name[CMP_NAME_MAX + 1];  /* -J, "" if absent */
    char command[64];      /* the command's file name without its directory */
    char command_arg[CMP_PATH_MAX];   /* the command as given ("" if none) */
    char mapping[CMP_SPEC_MAX];       /* the last --mapping value, "" if none */
    int has_mapping;
} cmp_srun_args_t;

/** Parse srun's argv (argv[0] is srun) the way srun's getopt does, up to
 *  the command.  Unknown options are assumed to take no separate argument.
 *  -1 with @p err on a malformed number (srun will refuse it too). */
int cmp_srun_args_parse(int argc, char **argv, cmp_srun_args_t *out,
                        cm_error_t *err);

/** Open MPI's mpirun starting its daemons: one orted (4.x) or prted (5.x)
 *  per node, on the nodes it names. */
int cmp_srun_is_mpirun(const cmp_srun_args_t *a);

/** The executable a launcher will start for command @p cmd, as its exec
 *  would find it: a name with a '/' from the current directory, else the
 *  first match in $PATH; the text as given when it cannot be resolved. */
void cmp_resolve_command(const char *cmd, char *out, size_t n);

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

/** The positive integer in environment variable @p name, 0 if unset or
 *  not one. */
int cmp_env_int(const char *name, int max);

typedef struct cmp_alloc {
    int nnodes;
    char **names;     /* allocation order */
    int *slots;       /* slots (task places) per node */
    int nnames;       /* names[] entries to free */
} cmp_alloc_t;

/** The nodes of the allocation (SLURM_JOB_NODELIST) that the step of @p sa
 *  may use -- the first -N of them -- and its slots on each
 *  (SLURM_JOB_CPUS_PER_NODE divided by @p cpus_per_task, capped by the
 *  tasks per node).  0, or -1 with @p err (free @p a either way). */
int cmp_alloc_read(const cmp_srun_args_t *sa, int cpus_per_task, cmp_alloc_t *a,
                   cm_error_t *err);
void cmp_alloc_free(cmp_alloc_t *a);

/** The allocation's nodes (environment variable @p nodes_var, as
 *  SLURM_JOB_NODELIST) with a count for each (@p tasks_var, as
 *  SLURM_TASKS_PER_NODE -- the tasks Slurm gave the job there, the slots
 *  mpirun fills -- or SLURM_JOB_CPUS_PER_NODE) in @p a->slots.  0, or -1
 *  with @p err (free @p a either way). */
int cmp_alloc_tasks(const char *nodes_var, const char *tasks_var, cmp_alloc_t *a,
                    cm_error_t *err);

/* ---- mpirun (mpirun_args.c, rankfile.c; the launcher in src/shim/) ---- */

typedef struct cmp_mpirun_args {
    int np;            /* -np/-n/-c, 0 if absent (mpirun fills every slot) */
    int program;       /* argv index of the program, 0 if none */
    int query;         /* --help, --version: nothing is launched */
    char why[192];     /* why the layout is not clustermap's to decide: the
                          user's own mapping or binding, an MPMD line, an
                          option not known; "" if it is */
} cmp_mpirun_args_t;

/** Read Open MPI 4.1 mpirun's argv (argv[0] is mpirun) up to the program.
 *  -1 with @p err only when mpirun will refuse it (a missing argument, a
 *  bad rank count). */
int cmp_mpirun_args_parse(int argc, char **argv, cmp_mpirun_args_t *out,
                          cm_error_t *err);

/** Whether MCA parameter @p name (without OMPI_MCA_) chooses the layout. */
int cmp_mpirun_layout_param(const char *name);

/** mpirun's default layout: node i gets the next min(left, @p slots[i])
 *  ranks.  Writes @p count[nnodes]; -1 when @p np exceeds the slots. */
int cmp_mpirun_fill(const int *slots, int nnodes, int np, int *count);

/** Write Open MPI's rank file @p path atomically: rank r on
 *  @p names[node[r]], bound to core @p core[r] -- or, with @p shared > 0,
 *  to all the cores 0..shared-1 of its node.  0, or -1 with @p err. */
int cmp_rankfile_write(const char *path, char *const *names, const int *node,
                       const int *core, int n, int shared, cm_error_t *err);

/** What the srun of mpirun's daemons decided about an mpirun run, for the
 *  launcher that records it (mpirun_record.c). */
typedef struct cmp_mpirun_record {
    char store[CMP_PATH_MAX];      /* the store's root */
    char key[CMP_NAME_MAX + 1];    /* the profile */
    int ntasks;
    char step[64];                 /* "<jobid>.<mpirun pid>" */
    double weight;                 /* merge_weight= */
    size_t max_bytes;              /* max_profile_size= */
    int verbose;                   /* lines for the user: 0 none, 1 errors,
                                      2 every line */
    char run[128];                 /* as CLUSTERMAP_STEP_RUN */
} cmp_mpirun_record_t;

/** srun: the ranks' control file of the run staged in @p stage: @p mode
 *  ("traffic", "time", "off") and, when @p prio is not "", the line
 *  "prio=@p prio" (the tnbc trace the ranks read).  0, or -1. */
int cmp_mpirun_control_write(const char *stage, const char *mode, const char *prio,
                             cm_error_t *err);

/** srun: write @p r and then the ranks' control file ("traffic" or
 *  "time", then "prio=@p prio" when @p prio is not "": the tnbc trace
 *  the ranks read, docs/overlays.md) into the run's staging directory
 *  @p stage.  0, or -1. */
int cmp_mpirun_record_write(const char *stage, const cmp_mpirun_record_t *r,
                            int traffic, const char *prio, cm_error_t *err);

/** The launcher, after mpirun returned with exit code @p status (128 + N
 *  for signal N): record the run staged in @p stage (the ranks' parts into
 *  the user's store, as any profiled step's) -- unless @p status is not 0:
 *  a failed run is never recorded, as a step with a failed task is not.
 *  Returns 0 when there was nothing to record, a cm_step_result_t with its
 *  line in @p msg, or -1 with the reason in @p msg; @p verbose: which
 *  lines the user sees (0 none, 1 errors, 2 every line). */
int cmp_mpirun_record_collect(const char *stage, int status, char *msg, size_t n,
                              int *verbose);

/** Remove the files (and empty subdirectories) of directory @p fd. */
void cmp_empty_dir(int fd);

/** As the user (a cmp_as_user function): remove the files of the directory
 *  at path @p p if the user owns it (it is opened without following a
 *  link).  Returns 0. */
int cmp_empty_private(void *p);

/** @p name of the private directory @p dir, a regular file opened without
 *  following a link (O_NONBLOCK: a FIFO put there never blocks): its
 *  descriptor, or -1 with errno ENOENT when there is nothing under that
 *  name, EINVAL when it is something else. */
int cmp_private_file(int dir, const char *name);

/** The part task @p task left in directory @p dir (part.<task>.txt, or the
 *  "no MPI" mark part.<task>.nompi): CM_PART_OK with the part open in
 *  *@p fd, CM_PART_NOMPI, or CM_PART_MISSING with why in @p detail. */
cm_part_status_t cmp_part_find(int dir, int task, int *fd, char *detail, size_t n);

/** As the user: the tnbc trace task @p task left in directory @p dir
 *  (tnbc.<task>, CLUSTERMAP_OVERLAY_TRACE=<dir>/tnbc), when it wrote one,
 *  into the staging directory of step @p step of store @p s, before the
 *  task's part (cm_store_trace_put).  A bad one is left out: the store then
 *  says how many tasks sent none and keeps the older trace. */
void cmp_trace_put(cm_store_t *s, const char *step, int dir, int task);

/* What clustermap's mpirun hands to the srun that starts mpirun's daemons
 * (through mpirun's environment), and the batch step to it. */
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

/** srun's task count for the step of @p sa on @p nnodes nodes (see
 *  docs/admin-guide.md). */
int cmp_step_ntasks(const cmp_srun_args_t *sa, int nnodes);

/** The number of tasks Slurm's default (block) layout runs on each of
 *  @p nnodes nodes that hold @p cap[i] tasks at most: one task to each node
 *  in turn, skipping full nodes (step_layout.c).  Writes @p count[nnodes];
 *  -1 when the tasks do not fit (an overcommitted step). */
int cmp_step_layout(const int *cap, int nnodes, int ntasks, int *count);

/* ---- the placement module (clustermap-place.so: place.c, slurm_tree.c) ---- */

/** One switch (or block) of the controller's topology. */
typedef struct cmp_switch {
    char *name;
    int level;        /**< Slurm's level, leaf = 0 (blocks: 0) */
    char *nodes;      /**< host list of the nodes below, or NULL */
    char *switches;   /**< host list of the child switches, or NULL */
} cmp_switch_t;

/** cmp_slurm_switches(): this Slurm refuses the arbitrary layout a
 *  placement needs with this topology (26.05 with topology/block). */
#define CMP_TOPO_REFUSED (-2)

/** The controller's switches (slurm_load_topo), read the way the Slurm
 *  release built against provides them (slurm_topo.c).  Caller frees with
 *  cmp_switches_free(); none (topology/default) is not an error.
 *  Returns 0, -1 with @p err, or CMP_TOPO_REFUSED with @p err. */
int cmp_slurm_switches(cmp_switch_t **out, int *count, cm_error_t *err);
void cmp_switches_free(cmp_switch_t *sw, int n);

/** Append one record to @p sw (@p n used of @p cap, grown as needed);
 *  -1 when out of memory, and the caller frees the whole array with
 *  cmp_switches_free(). */
int cmp_switches_push(cmp_switch_t **sw, int *n, int *cap, const char *name,
                      int level, const char *nodes, const char *switches);

/** Switch records from text, one a line, as `scontrol show topology`
 *  prints them ("SwitchName=s1 Level=0 Nodes=n[1-2] Switches=...",
 *  "BlockName=b1 Nodes=..."); other lines are skipped.  Modifies @p text.
 *  Same returns as cmp_slurm_switches(). */
int cmp_switches_parse(char *text, size_t len, cmp_switch_t **out, int *count,
                       cm_error_t *err);

/** The user's cache of the controller's switches (topo_cache.c: where it
 *  lives, when it is valid, what is checked). */
typedef struct cmp_topo_cache {
    int dirfd;        /* the cache directory, -1: no cache */
    int ttl;          /* seconds an answer is kept */
    char name[64];    /* file name in it */
    char key[320];    /* what slurm.conf and topology files looked like */
} cmp_topo_cache_t;

/** Open the cache for @p slurm_conf (absolute path) with answers kept
 *  @p ttl seconds.  -1 (and nothing to close) when there is no usable
 *  cache: ttl 0, no slurm.conf, no private directory. */
int cmp_topo_cache_open(cmp_topo_cache_t *tc, const char *slurm_conf, int ttl);
void cmp_topo_cache_close(cmp_topo_cache_t *tc);

/** 1 and the kept switches (free with cmp_switches_free()) while the kept
 *  answer is valid, else 0. */
int cmp_topo_cache_get(const cmp_topo_cache_t *tc, cmp_switch_t **sw, int *n);

/** Keep @p sw as the answer for later sruns (silently nothing on error). */
void cmp_topo_cache_put(const cmp_topo_cache_t *tc, const cmp_switch_t *sw, int n);

/** The tree of @p a: sockets and cores of each node from the slurm.conf
 *  srun reads (slurm_load_node_single() for a node it does not define),
 *  switches from the user's cache or the controller (slurm_load_topo):
 *  switch levels, node, socket, slots.  No request whose size grows with
 *  the cluster.  NULL with @p err on failure (the caller falls back to
 *  Slurm's default): "controller data unavailable (...)", or why this Slurm
 *  refuses a placement here.  @p topo_cache: seconds the switches are kept
 *  (0: ask the controller every time). */
cm_tree_t *cmp_slurm_tree(const cmp_alloc_t *a, int cpus_per_task, int topo_cache,
                          cm_error_t *err);

/** What srun asks the module to plan. */
typedef struct cmp_plan_in {
    const cmp_config_t *config;   /* algorithm, budget, weight, level costs */
    cmp_mode_t mode;              /* cluster, block or cyclic */
    const cmp_alloc_t *alloc;
    int cpus_per_task;
    int ntasks;
    const cm_matrix_t *matrix;    /* cluster: the profile's traffic */
} cmp_plan_in_t;

/** The plan: arrays of ntasks entries, allocated by the caller. */
typedef struct cmp_plan_out {
    int *node;                    /* rank -> node (index in alloc->names) */
    int *core;                    /* rank -> slot on that node */
    char how[32];                 /* the winning algorithm, or the layout */
    double j_plan, j_block;       /* cluster: predicted cost, and block's */
    char explain[6144];           /* cluster: key=value lines for the step's
                                     record (`clustermap explain`) */
} cmp_plan_out_t;

/** The module's one entry point.  0, or -1 with @p err saying why (the
 *  caller falls back to Slurm's default placement).  Both objects come
 *  from one build and share the structures above and the engine's: the
 *  symbol's name carries the interface's version, so that a module of
 *  another version fails to load instead of misreading them. */
typedef int cmp_plan_fn(const cmp_plan_in_t *in, cmp_plan_out_t *out,
                        cm_error_t *err);
#define CMP_PLAN_SYMBOL "cmp_place_plan_v2"
cmp_plan_fn cmp_place_plan_v2;

/** The module's file name, installed next to clustermap.so. */
#define CMP_PLACE_LIB_NAME "clustermap-place.so"

/* ---- srun (srun_step.c) ---- */

/** Decide and, when the step is to be placed or profiled, write the
 *  hostfile and set the step's environment.  Called once per srun from
 *  slurm_spank_init in local context.  Never fails the step; every step
 *  left to Slurm gets its line (cmp_fallback). */
void cmp_srun_step(const cmp_config_t *c);

/** srun: mark the step with the overlays it runs (CMP_ENV_OVERLAY) --
 *  @p r's modifiers, else plugstack's overlay= -- for every node to
 *  preload them (overlay_step.c).  Independent of placement: a step left
 *  to Slurm runs them too. */
void cmp_overlay_mark(const cmp_config_t *c, const cmp_request_t *r);
/** The overlays of a step or job that asked @p r. */
unsigned cmp_overlay_bits(const cmp_config_t *c, const cmp_request_t *r);

/** srun, after cmp_overlay_mark: when the step's overlays @p bits hold
 *  tnbc and the store @p st (may be NULL) keeps a complete trace of
 *  profile @p key with @p ntasks tasks, its prefix (for
 *  CLUSTERMAP_OVERLAY_PRIO) into @p prio (size @p n) and 1; otherwise ""
 *  and 0 (overlay_trace.c).  An unusable trace: rank order, one line (to
 *  a user who gave --mapping, or with verbose). */
int cmp_overlay_prio_find(unsigned bits, cm_store_t *st, const char *key,
                          const char *job_name, int ntasks, char *prio,
                          size_t n);
/** The overlays clustermap's mpirun gives its ranks (CMP_ENV_MPIRUN_OVERLAY,
 *  "<spec> <verbose> <library>"): CMP_OVL_* bits, 0 when unset or bad. */
unsigned cmp_mpirun_overlay_bits(void);

/** srun's end: remove the hostfile written by cmp_srun_step, and keep
 *  the placement's record for `clustermap explain` (the step id is known
 *  by now). */
void cmp_srun_step_exit(const cmp_config_t *c);

/** srun's CLUSTERMAP_STEP_RUN ("placed|default|other TRAFFIC HOW J_PLAN
 *  J_DEFAULT"), checked: @p traffic gets TRAFFIC (1 when unreadable), and
 *  for placed and default runs @p run is filled for the history of step
 *  @p stepkey ("jobid.stepid").  1 when @p run is usable, else 0. */
int cmp_run_parse(const char *text, const char *stepkey, cm_run_t *run,
                  int *traffic);

/* Variables srun hands to the step (through its environment). */
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
#define CMP_OPTION_ENV    "SLURM_SPANK__SLURM_SPANK_OPTION_clustermap_mapping"

/* ---- logging (log.c) ---- */

void cmp_log_init(cmp_loglevel_t level);
/** srun: whether the user asked for placement (a --mapping on srun, or
 *  inherited from sbatch/salloc, as opposed to plugstack's default=) and
 *  with `verbose`.  Decides which lines reach the job's stderr. */
void cmp_log_request(int asked, int verbose);

/** srun: where the user's lines go instead of stderr (@p fd stays open). */
void cmp_log_user_fd(int fd);

typedef enum cmp_fallback_kind {
    CMP_FALLBACK,       /* placement was wanted and is not done: a line for
                           the user who asked, a record for the admin */
    CMP_NOTHING_TO_DO   /* nothing to place (one task, no MPI, off): a line
                           with `verbose` only */
} cmp_fallback_kind_t;

/** srun leaves the step to Slurm: the one place that writes "<reason>;
 *  using Slurm's default placement<note>" -- on the job's stderr (see
 *  cmp_log_request), in srun's log at debug level and, for CMP_FALLBACK, in
 *  CLUSTERMAP_FALLBACK for slurmstepd to log (cmp_log_step_fallback).
 *  @p note (may be NULL) follows the suffix, e.g. " (profiling this run)".
 *  Only the first call of a process counts. */
void cmp_fallback(cmp_fallback_kind_t kind, const char *note, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** slurmstepd, user_init of a step: log the reason srun handed over in
 *  CLUSTERMAP_FALLBACK once, at info level, on the step's first node, and
 *  take it out of the tasks' environment.  (spank_t without spank.h.) */
struct spank_handle;
void cmp_log_step_fallback(struct spank_handle *sp);
/** One line "clustermap: ..." on the job's stderr when the user asked
 *  (see cmp_log_request) and at debug level in srun's log; slurm_error in
 *  the daemons. */
void cmp_user_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** The same at info level (on stderr with loglevel >= info, `verbose` or
 *  @p force; slurm_info in the daemons). */
void cmp_user_info(int force, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** One line on the user's stderr whatever the loglevel (the user asked for
 *  something that is not done: --mapping while disabled or misconfigured),
 *  and at debug level in Slurm's log. */
void cmp_user_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** A problem for the administrator: slurm_error in the daemons
 *  (slurmd, slurmstepd, prolog/epilog), debug level in srun/sbatch/salloc,
 *  whose Slurm log is the user's terminal. */
void cmp_admin_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Slurm's log only. */
void cmp_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmp_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmp_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CM_PLUGIN_H */
