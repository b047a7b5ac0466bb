/*
 * config.c -- the plugin's arguments in plugstack.conf ("key=value").
 *
 * One table, keys[], holds every argument: its key, how its value is
 * read, its range, its default, where it goes in cmp_config_t and a line
 * saying what it does.  cmp_config_init() applies the defaults of the
 * table and cmp_config_parse() reads the arguments with it, for the plugin
 * and for the command (`clustermap profile show` judges the guard with
 * the site's settings: src/cli/site_conf.c).  A new argument is one row
 * here and its lines in docs/admin-guide.md and clustermap_spank.8
 * (test/sh/t0009-manpages.t compares the keys of the three).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_store.h"
#include "launch.h"

/* Where `make install` puts the profiling library. */
#ifndef CMP_DEFAULT_PROF_LIB
#define CMP_DEFAULT_PROF_LIB "/usr/local/lib/libclustermap-prof.so"
#endif
/* Where `make install` puts clustermap's mpirun. */
#ifndef CMP_DEFAULT_MPIRUN_DIR
#define CMP_DEFAULT_MPIRUN_DIR "/usr/local/libexec/clustermap/bin"
#endif

/* How a value is read and stored.  The enumerations of cmp_config_t are
 * stored as int (checked below). */
typedef enum cfg_type {
    CFG_BOOL,    /* yes|1|true, no|0|false -> int 1 or 0 */
    CFG_INT,     /* an integer in [lo, hi] -> int; lo is 0 or 1 */
    CFG_SECONDS, /* a number in [lo, hi] -> double */
    CFG_BYTES,   /* a number in [lo, hi] -> size_t */
    CFG_PATH,    /* an absolute path without the characters of .forbid
                    (NULL: any), that fits the field */
    CFG_TEXT,    /* any text that fits the field */
    CFG_LEVELS,  /* a level spec of .levels (cm_level_spec_check) that fits */
    CFG_WORD,    /* one of .choices, copied into the field */
    CFG_CHOICE,  /* one of .choices -> its index, as int */
    CFG_ENUM,    /* .parse() -> an enumeration or bit set, stored as int */
    CFG_REAL     /* .parse() -> double */
} cfg_type_t;

typedef struct cfg_key {
    const char *key;
    cfg_type_t type;
    double lo, hi;                            /* CFG_INT, CFG_SECONDS, CFG_BYTES */
    double def;                               /* default of the numbers, booleans,
                                      choices (an index) and enumerations */
    const char *def_text;                     /* default of the paths, texts and words
                                      (NULL: "") */
    size_t offset, size;                      /* the field in cmp_config_t */
    const char *forbid;                       /* CFG_PATH: characters refused */
    const char *const *choices;               /* CFG_WORD, CFG_CHOICE: NULL-ended */
    cm_level_spec_t levels;                   /* CFG_LEVELS */
    int (*parse)(const char *v, void *field); /* CFG_ENUM, CFG_REAL: 0, or
                                                   -1 with the field unchanged */
    const char *expected;                     /* the message's "expected ..." when it
                                      is not the type's own */
    void (*accepted)(char *buf, size_t n);    /* or when it is computed */
    const char *doc;                          /* what the argument does */
} cfg_key_t;

static int parse_mode(const char *v, void *field)
{
    cmp_request_t r;
    if (cmp_request_parse(v, &r, NULL) < 0 || r.mode == CMP_MODE_HELP || strchr(v, ','))
        return -1;
    *(cmp_mode_t *)field = r.mode;
    return 0;
}

static int parse_weight(const char *v, void *field)
{
    return cm_weight_parse(v, field);
}

static int parse_merge_weight(const char *v, void *field)
{
    return cm_profile_weight_parse(v, field);
}

static int parse_overlay(const char *v, void *field)
{
    return cmp_overlay_parse(v, field);
}

static void overlay_accepted(char *buf, size_t n)
{
    cm_overlay_spec_accepted(CM_OVL_STRICT, buf, n);
}

/* The values of algorithm= (the engine's methods and auto). */
static const char *const algs[] = { "auto",  "cluster", "scotch-ms", "treecut", "scotch",
                                    "block", "cyclic",  "random",    NULL };
/* In the order of cmp_profiling_t and of cmp_loglevel_t. */
static const char *const profilings[] = { "missing", "always", "never", NULL };
static const char *const loglevels[] = { "quiet", "error", "info", "debug", NULL };

#define FIELD(f)                                                                         \
    .offset = offsetof(cmp_config_t, f), .size = sizeof(((cmp_config_t *)0)->f)

/* In the order the "unknown argument" message lists them. */
static const cfg_key_t keys[] = {
    { "enabled", CFG_BOOL, .def = 1, FIELD(enabled),
      .doc = "no: --mapping is accepted and ignored (the rollback switch)" },
    { "store", CFG_PATH, .def_text = CM_STORE_DEFAULT_DIR, FIELD(store),
      .doc = "the profile store's directory" },
    { "default", CFG_ENUM, .def = CMP_MODE_OFF, FIELD(default_mode), .parse = parse_mode,
      .expected = "off, cluster, profile, block or cyclic",
      .doc = "the mode of jobs without --mapping" },
    { "algorithm", CFG_WORD, .def_text = "auto", FIELD(algorithm), .choices = algs,
      .doc = "the planner's method" },
    /* srun waits for the plan: a launch takes ~200 ms, keep us well below */
    { "budget", CFG_SECONDS, 0.001, 60, .def = 0.05, FIELD(budget),
      .doc = "the planner's time budget in seconds: srun waits for it" },
    /* past it the engine stops and Slurm's default is used, with a line */
    { "deadline", CFG_SECONDS, 0.001, 600, .def = 2.0, FIELD(deadline),
      .doc = "the hard limit of a whole placement, in seconds" },
    { "weight", CFG_ENUM, .def = CM_WEIGHT_MIXED, FIELD(weight), .parse = parse_weight,
      .expected = "mixed, bytes or msgs", .doc = "what a link's cost counts" },
    { "merge_weight", CFG_REAL, .def = CM_PROFILE_DEFAULT_WEIGHT, FIELD(merge_weight),
      .parse = parse_merge_weight, .expected = "a number in (0, 1] or 'mean'",
      .doc = "the weight of a new run merged into a profile" },
    { "max_profile_size", CFG_BYTES, 1024, 1e12, .def = CM_PROFILE_DEFAULT_MAX_BYTES,
      FIELD(max_profile_size), .expected = "bytes in [1024, 1e12]",
      .doc = "the largest profile read, in bytes" },
    { "level_costs", CFG_LEVELS, FIELD(level_costs), .levels = CM_LEVEL_COSTS,
      .doc = "name=cost,...: the cost of each level of the machine" },
    { "level_latencies", CFG_LEVELS, FIELD(level_latencies), .levels = CM_LEVEL_LATENCIES,
      .doc = "name=latency,...: the latency of each level" },
    { "level_bandwidths", CFG_LEVELS, FIELD(level_bandwidths),
      .levels = CM_LEVEL_BANDWIDTHS,
      .doc = "name=bandwidth,...: the bandwidth of each level" },
    /* it goes into LD_PRELOAD, whose separators are blanks and ':' */
    { "prof_lib", CFG_PATH, .def_text = CMP_DEFAULT_PROF_LIB, FIELD(prof_lib),
      .forbid = " :", .doc = "the path of libclustermap-prof.so" },
    { "place_lib", CFG_PATH, FIELD(place_lib),
      .doc = "the path of clustermap-place.so (default: next to clustermap.so)" },
    /* what srun cannot see of a GPU node: its GPUs' links, NUMA nodes and
     * NICs (the nodes of a GPU partition are alike) */
    { "hwloc_xml", CFG_PATH, FIELD(hwloc_xml),
      .doc = "an hwloc XML export of the GPU nodes: steps with GPUs are placed on them" },
    /* root-owned, made by root (0711) when missing: see profile_step.c */
    { "prof_dir", CFG_PATH, .def_text = "/run/clustermap", FIELD(prof_dir),
      .doc = "the node-local directory of the runs being profiled" },
    /* prof_dir is RAM on most nodes: what one step may fill of it before
     * its run is dropped (the directory always goes at the step's end) */
    { "step_budget", CFG_BYTES, 4096, 1e12, .def = CMP_DEFAULT_STEP_BUDGET,
      FIELD(step_budget), .expected = "bytes in [4096, 1e12]",
      .doc = "bytes a profiled step may leave in prof_dir on a node" },
    { "profile", CFG_CHOICE, .def = CMP_PROFILE_MISSING, FIELD(profiling),
      .choices = profilings, .doc = "which runs are profiled" },
    { "ingest_timeout", CFG_SECONDS, 0.1, 600, .def = 10.0, FIELD(ingest_timeout),
      .doc = "seconds an ingest may take before it is killed" },
    { "max_tasks", CFG_INT, 1, CM_PROFILE_MAX_TASKS, .def = 65536, FIELD(max_tasks),
      .doc = "no placement above this many tasks" },
    { "bind", CFG_BOOL, .def = 1, FIELD(bind), .doc = "bind each rank to its cores" },
    { "bind_max_tasks", CFG_INT, 1, CM_PROFILE_MAX_TASKS, .def = 65536,
      FIELD(bind_max_tasks), .doc = "no binding above this many tasks" },
    { "mpirun", CFG_BOOL, .def = 1, FIELD(mpirun),
      .doc = "clustermap's mpirun first in the PATH of placed batch jobs" },
    /* it goes into PATH, whose separator is ':' */
    { "mpirun_dir", CFG_PATH, .def_text = CMP_DEFAULT_MPIRUN_DIR, FIELD(mpirun_dir),
      .forbid = ":", .doc = "the directory holding clustermap's mpirun" },
    { "loglevel", CFG_CHOICE, .def = CMP_LOG_ERROR, FIELD(loglevel), .choices = loglevels,
      .doc = "what the plugin prints on the job's stderr" },
    { "guard", CFG_BOOL, .def = 1, FIELD(guard),
      .doc = "time placed and default runs, stop placing when slower" },
    /* the guard's three defaults are its rule's (cm_guard_rule_init) */
    { "guard_window", CFG_INT, 1, CM_HISTORY_MAX_RUNS / 2, FIELD(guard_window),
      .doc = "the guard compares the last N timed runs of each kind" },
    { "guard_probe", CFG_INT, 0, CM_HISTORY_MAX_RUNS, FIELD(guard_probe),
      .doc = "place once again after N runs under Slurm's default (0: never)" },
    { "guard_recheck", CFG_INT, 0, 1000, FIELD(guard_recheck),
      .doc = "a run under Slurm's default after N placed runs (0: never)" },
    /* the switch tree changes with the controller's files; an hour bounds
     * what they do not show (topo_cache.c) */
    { "topo_cache", CFG_INT, 0, 86400, .def = 3600, FIELD(topo_cache),
      .expected = "seconds in [0, 86400]",
      .doc = "how long srun keeps the switches between runs (0: never)" },
    { "overlay", CFG_ENUM, .def = 0, FIELD(overlay), .parse = parse_overlay,
      .accepted = overlay_accepted,
      .doc = "the overlays of steps whose --mapping names none" },
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* The enumerations and the overlay bits are written as int. */
_Static_assert(sizeof(cmp_mode_t) == sizeof(int) && sizeof(cm_weight_t) == sizeof(int) &&
                   sizeof(cmp_profiling_t) == sizeof(int) &&
                   sizeof(cmp_loglevel_t) == sizeof(int) &&
                   sizeof(unsigned) == sizeof(int),
               "config.c stores enumerations as int");

static void set_int(void *field, int v)
{
    memcpy(field, &v, sizeof v);
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_bool(const char *v, int *out)
{
    if (!strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true"))
        *out = 1;
    else if (!strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false"))
        *out = 0;
    else
        return -1;
    return 0;
}

/* The index of @p v in the NULL-ended @p list, or -1. */
static int choice(const char *const *list, const char *v)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(v, list[i]))
            return i;
    return -1;
}

/* "a, b or c" of the NULL-ended @p list into @p buf. */
static void alternatives(const char *const *list, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; list[i] && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s",
                                i == 0            ? ""
                                    : list[i + 1] ? ", "
                                                  : " or ",
                                list[i]);
}

/* The row's "expected ..." for its message, into @p buf. */
static const char *expected(const cfg_key_t *k, char *buf, size_t n)
{
    if (k->expected)
        return k->expected;
    if (k->accepted) {
        k->accepted(buf, n);
        return buf;
    }
    switch (k->type) {
    case CFG_BOOL: return "yes or no";
    case CFG_INT:
        snprintf(buf, n, "an integer in [%d, %d]", (int)k->lo, (int)k->hi);
        return buf;
    case CFG_SECONDS: snprintf(buf, n, "seconds in [%g, %g]", k->lo, k->hi); return buf;
    case CFG_PATH:
        return !k->forbid            ? "an absolute path"
            : strchr(k->forbid, ' ') ? "an absolute path without blanks or ':'"
                                     : "an absolute path without ':'";
    case CFG_WORD:
    case CFG_CHOICE: alternatives(k->choices, buf, n); return buf;
    default: return "a valid value";
    }
}

/* Set the field of @p k from @p v.  0, or -1 with the field unchanged. */
static int set(cmp_config_t *c, const cfg_key_t *k, const char *v)
{
    char *field = (char *)c + k->offset;
    size_t len = strlen(v);
    double d;
    int n;
    switch (k->type) {
    case CFG_BOOL: return parse_bool(v, (int *)(void *)field);
    case CFG_INT:
        /* "0" is where 0 means never or off */
        if (k->lo == 0 && !strcmp(v, "0"))
            n = 0;
        else if (cmp_parse_int(v, (int)k->hi, &n) < 0)
            return -1;
        set_int(field, n);
        return 0;
    case CFG_SECONDS: return parse_double(v, k->lo, k->hi, (double *)(void *)field);
    case CFG_BYTES:
        if (parse_double(v, k->lo, k->hi, &d) < 0)
            return -1;
        *(size_t *)(void *)field = (size_t)d;
        return 0;
    case CFG_PATH:
        if (v[0] != '/' || (k->forbid && strpbrk(v, k->forbid)))
            return -1;
        /* fall through */
    case CFG_TEXT:
    case CFG_LEVELS:
        if (len >= k->size)
            return -1;
        memcpy(field, v, len + 1);
        return 0;
    case CFG_WORD:
        if (choice(k->choices, v) < 0 || len >= k->size)
            return -1;
        memcpy(field, v, len + 1);
        return 0;
    case CFG_CHOICE:
        if ((n = choice(k->choices, v)) < 0)
            return -1;
        set_int(field, n);
        return 0;
    case CFG_ENUM:
    case CFG_REAL: return k->parse(v, field);
    }
    return -1;
}

void cmp_config_init(cmp_config_t *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < NKEYS; i++) {
        const cfg_key_t *k = &keys[i];
        char *field = (char *)c + k->offset;
        switch (k->type) {
        case CFG_SECONDS:
        case CFG_REAL: *(double *)(void *)field = k->def; break;
        case CFG_BYTES: *(size_t *)(void *)field = (size_t)k->def; break;
        case CFG_PATH:
        case CFG_TEXT:
        case CFG_LEVELS:
        case CFG_WORD:
            snprintf(field, k->size, "%s", k->def_text ? k->def_text : "");
            break;
        default: set_int(field, (int)k->def); break;
        }
    }
    cm_guard_rule_t r;
    cm_guard_rule_init(&r);
    c->guard_window = r.window;
    c->guard_probe = r.probe;
    c->guard_recheck = r.recheck;
}

void cmp_config_guard_rule(const cmp_config_t *c, cm_guard_rule_t *r)
{
    if (!r)
        return;
    cm_guard_rule_init(r);
    if (!c)
        return;
    r->window = c->guard_window;
    r->probe = c->guard_probe;
    r->recheck = c->guard_recheck;
}

static int one(cmp_config_t *c, const char *key, const char *v, cm_error_t *err)
{
    const cfg_key_t *k = NULL;
    char buf[1024];
    for (size_t i = 0; i < NKEYS && !k; i++)
        if (!strcmp(key, keys[i].key))
            k = &keys[i];
    if (!k) {
        size_t len = 0;
        for (size_t i = 0; i < NKEYS; i++)
            len += (size_t)snprintf(buf + len, len < sizeof buf ? sizeof buf - len : 0,
                                    "%s%s", i ? ", " : "", keys[i].key);
        return cm_error_set(err, "unknown argument '%s=' (expected %s)", key, buf);
    }
    /* the form is judged here, once, so that a bad spec is a
     * misconfiguration rather than a fallback at every placement; the
     * level names can only be judged against the step's machine */
    cm_error_t form;
    if (k->type == CFG_LEVELS && strlen(v) < k->size &&
        cm_level_spec_check(k->levels, v, &form) < 0)
        return cm_error_set(err, "%s=: %s", k->key, form.msg);
    if (set(c, k, v) == 0)
        return 0;
    if (k->type == CFG_TEXT || k->type == CFG_LEVELS)
        return cm_error_set(err, "%s=: longer than %zu bytes", k->key, k->size - 1);
    return cm_error_set(err, "%s=: expected %s, got '%s'", k->key,
                        expected(k, buf, sizeof buf), v);
}

int cmp_config_parse(cmp_config_t *c, int argc, char **argv, cm_error_t *err)
{
    int rc = 0;
    if (!c || (argc > 0 && !argv))
        return cm_error_set(err,
                            "plugstack.conf arguments: expected a "
                            "configuration and its arguments, got NULL");
    for (int i = 0; i < argc; i++) {
        const char *eq = argv[i] ? strchr(argv[i], '=') : NULL;
        char key[64];
        cm_error_t e;
        if (!argv[i]) {
            cm_error_set(&e,
                         "plugstack.conf argument %d: expected key=value, "
                         "got NULL",
                         i + 1);
        } else if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof key) {
            cm_error_set(&e,
                         "plugstack.conf argument %d: expected key=value, "
                         "got '%.100s'",
                         i + 1, argv[i]);
        } else {
            memcpy(key, argv[i], (size_t)(eq - argv[i]));
            key[eq - argv[i]] = '\0';
            if (one(c, key, eq + 1, &e) == 0)
                continue;
        }
        if (rc == 0 && err) /* the first bad argument is the one reported */
            *err = e;
        rc = -1;
    }
    return rc;
}
