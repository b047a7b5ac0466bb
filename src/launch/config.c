/* config.c -- the plugin's arguments in plugstack.conf ("key=value"). */
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

void cmp_config_init(cmp_config_t *c)
{
    memset(c, 0, sizeof *c);
    c->enabled = 1;
    snprintf(c->store, sizeof c->store, "%s", CM_STORE_DEFAULT_DIR);
    c->default_mode = CMP_MODE_OFF;
    snprintf(c->algorithm, sizeof c->algorithm, "auto");
    /* srun waits for the plan: a launch takes ~200 ms, keep us well below */
    c->budget = 0.05;
    /* past it the engine stops and Slurm's default is used, with a line */
    c->deadline = 2.0;
    c->weight = CM_WEIGHT_MIXED;
    c->merge_weight = CM_PROFILE_DEFAULT_WEIGHT;
    c->max_profile_size = CM_PROFILE_DEFAULT_MAX_BYTES;
    snprintf(c->prof_lib, sizeof c->prof_lib, "%s", CMP_DEFAULT_PROF_LIB);
    /* root-owned, made by root (0711) when missing: see profile_step.c */
    snprintf(c->prof_dir, sizeof c->prof_dir, "/run/clustermap");
    c->profiling = CMP_PROFILE_MISSING;
    c->ingest_timeout = 10.0;
    c->max_tasks = 65536;
    c->bind = 1;
    c->bind_max_tasks = 65536;
    c->mpirun = 1;
    snprintf(c->mpirun_dir, sizeof c->mpirun_dir, "%s", CMP_DEFAULT_MPIRUN_DIR);
    c->loglevel = CMP_LOG_ERROR;
    cm_guard_rule_t r;
    cm_guard_rule_init(&r);
    c->guard = 1;
    c->guard_window = r.window;
    c->guard_probe = r.probe;
    c->guard_recheck = r.recheck;
    /* the switch tree changes with the controller's files; an hour bounds
     * what they do not show (topo_cache.c) */
    c->topo_cache = 3600;
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

static int copy(char *dst, size_t size, const char *v)
{
    if (strlen(v) >= size)
        return -1;
    memcpy(dst, v, strlen(v) + 1);
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

/* An integer in [0, max] ("0" is where 0 means never or off). */
static int parse_int0(const char *v, int max, int *out)
{
    if (!strcmp(v, "0")) {
        *out = 0;
        return 0;
    }
    return cmp_parse_int(v, max, out);
}

static int one(cmp_config_t *c, const char *key, const char *v, cm_error_t *err)
{
    int n;
    if (!strcmp(key, "enabled")) {
        if (parse_bool(v, &c->enabled) < 0)
            return cm_error_set(err, "enabled=: expected yes or no, got '%s'", v);
    } else if (!strcmp(key, "store")) {
        if (v[0] != '/' || copy(c->store, sizeof c->store, v) < 0)
            return cm_error_set(err, "store=: expected an absolute path, got '%s'", v);
    } else if (!strcmp(key, "default")) {
        cmp_request_t r;
        if (cmp_request_parse(v, &r, NULL) < 0 || r.mode == CMP_MODE_HELP ||
            strchr(v, ','))
            return cm_error_set(err, "default=: expected off, cluster, profile, block "
                                "or cyclic, got '%s'", v);
        c->default_mode = r.mode;
    } else if (!strcmp(key, "algorithm")) {
        static const char *const algs[] = { "auto", "cluster", "scotch-ms", "treecut",
                                            "scotch", "block", "cyclic", "random" };
        size_t i;
        for (i = 0; i < sizeof algs / sizeof algs[0]; i++)
            if (!strcmp(v, algs[i]))
                break;
        if (i == sizeof algs / sizeof algs[0])
            return cm_error_set(err, "algorithm=: expected auto, cluster, scotch-ms, "
                                "treecut, scotch, block, cyclic or random, got '%s'", v);
        copy(c->algorithm, sizeof c->algorithm, v);
    } else if (!strcmp(key, "deadline")) {
        if (parse_double(v, 0.001, 600, &c->deadline) < 0)
            return cm_error_set(err, "deadline=: expected seconds in [0.001, 600], got '%s'", v);
    } else if (!strcmp(key, "budget")) {
        if (parse_double(v, 0.001, 60, &c->budget) < 0)
            return cm_error_set(err, "budget=: expected seconds in [0.001, 60], got '%s'", v);
    } else if (!strcmp(key, "weight")) {
        if (cm_weight_parse(v, &c->weight) < 0)
            return cm_error_set(err, "weight=: expected mixed, bytes or msgs, got '%s'", v);
    } else if (!strcmp(key, "merge_weight")) {
        if (cm_profile_weight_parse(v, &c->merge_weight) < 0)
            return cm_error_set(err, "merge_weight=: expected a number in (0, 1] or "
                                "'mean', got '%s'", v);
    } else if (!strcmp(key, "max_profile_size")) {
        double d;
        if (parse_double(v, 1024, 1e12, &d) < 0)
            return cm_error_set(err, "max_profile_size=: expected bytes in [1024, 1e12], "
                                "got '%s'", v);
        c->max_profile_size = (size_t)d;
    } else if (!strcmp(key, "level_costs")) {
        if (copy(c->level_costs, sizeof c->level_costs, v) < 0)
            return cm_error_set(err, "level_costs=: longer than %zu bytes",
                                sizeof c->level_costs - 1);
    } else if (!strcmp(key, "level_latencies")) {
        if (copy(c->level_latencies, sizeof c->level_latencies, v) < 0)
            return cm_error_set(err, "level_latencies=: longer than %zu bytes",
                                sizeof c->level_latencies - 1);
    } else if (!strcmp(key, "level_bandwidths")) {
        if (copy(c->level_bandwidths, sizeof c->level_bandwidths, v) < 0)
            return cm_error_set(err, "level_bandwidths=: longer than %zu bytes",
                                sizeof c->level_bandwidths - 1);
    } else if (!strcmp(key, "prof_lib")) {
        if (v[0] != '/' || copy(c->prof_lib, sizeof c->prof_lib, v) < 0 ||
            strpbrk(v, " :"))
            return cm_error_set(err, "prof_lib=: expected an absolute path without "
                                "blanks or ':', got '%s'", v);
    } else if (!strcmp(key, "place_lib")) {
        if (v[0] != '/' || copy(c->place_lib, sizeof c->place_lib, v) < 0)
            return cm_error_set(err, "place_lib=: expected an absolute path, got '%s'", v);
    } else if (!strcmp(key, "prof_dir")) {
        if (v[0] != '/' || copy(c->prof_dir, sizeof c->prof_dir, v) < 0)
            return cm_error_set(err, "prof_dir=: expected an absolute path, got '%s'", v);
    } else if (!strcmp(key, "profile")) {
        if (!strcmp(v, "missing"))
            c->profiling = CMP_PROFILE_MISSING;
        else if (!strcmp(v, "always"))
            c->profiling = CMP_PROFILE_ALWAYS;
        else if (!strcmp(v, "never"))
            c->profiling = CMP_PROFILE_NEVER;
        else
            return cm_error_set(err, "profile=: expected missing, always or never, "
                                "got '%s'", v);
    } else if (!strcmp(key, "ingest_timeout")) {
        if (parse_double(v, 0.1, 600, &c->ingest_timeout) < 0)
            return cm_error_set(err, "ingest_timeout=: expected seconds in [0.1, 600], "
                                "got '%s'", v);
    } else if (!strcmp(key, "max_tasks")) {
        if (cmp_parse_int(v, CM_PROFILE_MAX_TASKS, &n) < 0)
            return cm_error_set(err, "max_tasks=: expected an integer in [1, %d], got '%s'",
                                CM_PROFILE_MAX_TASKS, v);
        c->max_tasks = n;
    } else if (!strcmp(key, "bind")) {
        if (parse_bool(v, &c->bind) < 0)
            return cm_error_set(err, "bind=: expected yes or no, got '%s'", v);
    } else if (!strcmp(key, "bind_max_tasks")) {
        if (cmp_parse_int(v, CM_PROFILE_MAX_TASKS, &n) < 0)
            return cm_error_set(err, "bind_max_tasks=: expected an integer in [1, %d], "
                                "got '%s'", CM_PROFILE_MAX_TASKS, v);
        c->bind_max_tasks = n;
    } else if (!strcmp(key, "mpirun")) {
        if (parse_bool(v, &c->mpirun) < 0)
            return cm_error_set(err, "mpirun=: expected yes or no, got '%s'", v);
    } else if (!strcmp(key, "mpirun_dir")) {
        if (v[0] != '/' || copy(c->mpirun_dir, sizeof c->mpirun_dir, v) < 0 ||
            strchr(v, ':'))
            return cm_error_set(err, "mpirun_dir=: expected an absolute path without "
                                "':', got '%s'", v);
    } else if (!strcmp(key, "loglevel")) {
        if (!strcmp(v, "quiet"))
            c->loglevel = CMP_LOG_QUIET;
        else if (!strcmp(v, "error"))
            c->loglevel = CMP_LOG_ERROR;
        else if (!strcmp(v, "info"))
            c->loglevel = CMP_LOG_INFO;
        else if (!strcmp(v, "debug"))
            c->loglevel = CMP_LOG_DEBUG;
        else
            return cm_error_set(err, "loglevel=: expected quiet, error, info or debug, "
                                "got '%s'", v);
    } else if (!strcmp(key, "guard")) {
        if (parse_bool(v, &c->guard) < 0)
            return cm_error_set(err, "guard=: expected yes or no, got '%s'", v);
    } else if (!strcmp(key, "guard_window")) {
        if (cmp_parse_int(v, CM_HISTORY_MAX_RUNS / 2, &n) < 0)
            return cm_error_set(err, "guard_window=: expected an integer in [1, %d], "
                                "got '%s'", CM_HISTORY_MAX_RUNS / 2, v);
        c->guard_window = n;
    } else if (!strcmp(key, "guard_probe")) {
        if (parse_int0(v, CM_HISTORY_MAX_RUNS, &c->guard_probe) < 0)
            return cm_error_set(err, "guard_probe=: expected an integer in [0, %d], "
                                "got '%s'", CM_HISTORY_MAX_RUNS, v);
    } else if (!strcmp(key, "guard_recheck")) {
        if (parse_int0(v, 1000, &c->guard_recheck) < 0)
            return cm_error_set(err, "guard_recheck=: expected an integer in [0, 1000], "
                                "got '%s'", v);
    } else if (!strcmp(key, "overlay")) {
        if (cmp_overlay_parse(v, &c->overlay) < 0)
            return cm_error_set(err, "overlay=: expected none, css, tnbc or css,tnbc, "
                                "got '%s'", v);
    } else if (!strcmp(key, "topo_cache")) {
        if (parse_int0(v, 86400, &c->topo_cache) < 0)
            return cm_error_set(err, "topo_cache=: expected seconds in [0, 86400], "
                                "got '%s'", v);
    } else {
        return cm_error_set(err, "unknown argument '%s=' (expected enabled, store, "
                            "default, algorithm, budget, deadline, weight, merge_weight, "
                            "max_profile_size, level_costs, level_latencies, "
                            "level_bandwidths, prof_lib, place_lib, prof_dir, profile, "
                            "ingest_timeout, max_tasks, bind, bind_max_tasks, mpirun, mpirun_dir, "
                            "loglevel, guard, "
                            "guard_window, guard_probe, guard_recheck, topo_cache, overlay)",
                            key);
    }
    return 0;
}

int cmp_config_parse(cmp_config_t *c, int argc, char **argv, cm_error_t *err)
{
    int rc = 0;
    for (int i = 0; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        char key[64];
        cm_error_t e;
        if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof key) {
            cm_error_set(&e, "plugstack.conf argument %d: expected key=value, "
                         "got '%.100s'", i + 1, argv[i]);
        } else {
            memcpy(key, argv[i], (size_t)(eq - argv[i]));
            key[eq - argv[i]] = '\0';
            if (one(c, key, eq + 1, &e) == 0)
                continue;
        }
        if (rc == 0 && err)   /* the first bad argument is the one reported */
            *err = e;
        rc = -1;
    }
    return rc;
}
