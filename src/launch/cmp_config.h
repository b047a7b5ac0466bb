/*
 * cmp_config.h -- the site's configuration: plugstack.conf's arguments
 * (config.c, one table row per argument).  The plugin reads them from
 * Slurm; `clustermap` reads the same line of plugstack.conf
 * (src/cli/site_conf.c) and parses it here too.
 */
#ifndef CMP_CONFIG_H
#define CMP_CONFIG_H

#include <stddef.h>
#include <sys/types.h>

#include "clustermap.h"
#include "cmp_limits.h"
#include "cm_history.h"
#include "cm_store.h"
#include "cmp_request.h"

/* ---- plugstack.conf arguments (config.c) ---- */

typedef enum cmp_profiling {
    CMP_PROFILE_MISSING = 0, /* cluster/block/cyclic profile a run when the
                                job has no profile yet */
    CMP_PROFILE_ALWAYS,      /* ... every run (keeps profiles current) */
    CMP_PROFILE_NEVER        /* only --mapping=profile profiles */
} cmp_profiling_t;

typedef enum cmp_loglevel {
    CMP_LOG_QUIET = 0, /* nothing on the job's stderr */
    CMP_LOG_ERROR,     /* fallback lines only (default) */
    CMP_LOG_INFO,      /* and a summary of every placement */
    CMP_LOG_DEBUG      /* and debugging details */
} cmp_loglevel_t;

typedef struct cmp_config {
    int enabled;                         /* enabled=yes|no: no = --mapping accepted
                                      and ignored (the rollback switch) */
    char store[CMP_PATH_MAX];            /* store=DIR */
    cmp_mode_t default_mode;             /* default=off|cluster|profile|block|cyclic */
    char algorithm[32];                  /* algorithm=auto|cluster|scotch|... */
    double budget;                       /* budget=SECONDS (engine time budget) */
    double deadline;                     /* deadline=SECONDS: hard limit of a placement */
    cm_weight_t weight;                  /* weight=mixed|bytes|msgs */
    double merge_weight;                 /* merge_weight=W (0,1] or "mean" */
    size_t max_profile_size;             /* max_profile_size=BYTES */
    char level_costs[CMP_SPEC_MAX];      /* level_costs=name=c,... */
    char level_latencies[CMP_SPEC_MAX];  /* level_latencies=name=l,... */
    char level_bandwidths[CMP_SPEC_MAX]; /* level_bandwidths=name=b,... */
    char prof_lib[CMP_PATH_MAX];         /* prof_lib=PATH of libclustermap-prof.so */
    char place_lib[CMP_PATH_MAX];        /* place_lib=PATH of clustermap-place.so,
                                      "" = next to clustermap.so */
    char prof_dir[CMP_PATH_MAX];         /* prof_dir=DIR node-local base */
    char hwloc_xml[CMP_PATH_MAX];        /* hwloc_xml=PATH of the GPU nodes' hwloc
                                      XML, "" = GPU steps keep Slurm's binding */
    size_t step_budget;                  /* step_budget=BYTES a step may leave
                                      in its private directory, per node */
    cmp_profiling_t profiling;           /* profile=missing|always|never */
    double ingest_timeout;               /* ingest_timeout=SECONDS */
    int max_tasks;                       /* max_tasks=N: no placement above */
    int bind;                            /* bind=yes|no: rank -> core binding */
    int bind_max_tasks;                  /* bind_max_tasks=N: no binding above */
    int mpirun;                          /* mpirun=yes|no: clustermap's mpirun in
                                      the PATH of placed batch jobs */
    char mpirun_dir[CMP_PATH_MAX];       /* mpirun_dir=DIR holding it */
    cmp_loglevel_t loglevel;             /* loglevel=quiet|error|info|debug */
    int guard;                           /* guard=yes|no: time placed and default
                                      runs, stop placing when slower */
    int guard_window;                    /* guard_window=N runs of each kind */
    int guard_probe;                     /* guard_probe=N: probe after N default
                                      runs (0 never) */
    int guard_recheck;                   /* guard_recheck=N: a default run after N
                                      placed runs (0 never) */
    int topo_cache;                      /* topo_cache=SECONDS the switches are kept
                                      between sruns (0 never) */
    unsigned overlay;                    /* overlay=none|css|tnbc|css,tnbc: the
                                      steps' overlays without a modifier */
} cmp_config_t;

/** Fill @p c with the defaults (documented in docs/admin-guide.md); the
 *  guard's are its rule's (cm_guard_rule_init).  Never fails (a NULL @p c:
 *  nothing done). */
void cmp_config_init(cmp_config_t *c);

/** Parse the plugstack.conf arguments "key=value" into @p c, which
 *  cmp_config_init() filled.  0, or -1 with @p err (may be NULL) naming
 *  the first bad argument.  The arguments after a bad one are still parsed
 *  and a bad one leaves its field as it was (its default), so that
 *  enabled=no takes effect on a line that also holds a typo.  A value that
 *  does not fit its field is refused, never cut.  @p argv is not changed
 *  and not kept.  A NULL @p c, or a NULL @p argv with @p argc > 0, is
 *  refused; a NULL argument is a bad one. */
int cmp_config_parse(cmp_config_t *c, int argc, char **argv, cm_error_t *err);

/** The guard's rule with the site's guard_window=, guard_probe= and
 *  guard_recheck= (the rule's other figures are its defaults) into @p r:
 *  what srun judges a job's runs by, and what `clustermap profile show`
 *  prints.  Never fails (a NULL @p c: the rule's defaults; a NULL @p r:
 *  nothing done). */
void cmp_config_guard_rule(const cmp_config_t *c, cm_guard_rule_t *r);

#endif /* CMP_CONFIG_H */
