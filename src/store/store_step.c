/*
 * store_step.c -- what srun asks the store about a step, in one call
 * (cm_store_step.h).  Only public store calls: the store's own files keep
 * their formats and their locks.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "cm_store_step.h"

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int cm_store_profile_counts(cm_store_t *s, const char *key, int ntasks, int **counts,
                            int *n, cm_error_t *err)
{
    if (!s)
        return cm_error_set(err, "store_step: expected a store, got NULL");
    char file[512];
    if (!counts || !n)
        return cm_error_set(err,
                            "store_step: expected where to put the "
                            "counts, got NULL");
    *counts = NULL;
    *n = 0;
    /* "<escaped key>.1.json" less its count and suffix: the prefix every
     * profile file of the key starts with */
    if (cm_store_filename(key, 1, file, sizeof file, err) < 0)
        return -1;
    size_t plen = strlen(file) - strlen("1.json");
    file[plen] = '\0';
    DIR *d = opendir(cm_store_dir(s));
    if (!d)
        return cm_error_set(err, "store_step: %s: cannot list it", cm_store_dir(s));
    struct dirent *e;
    int *list = NULL, cap = 0, k = 0;
    while ((e = readdir(d))) {
        const char *rest = e->d_name + plen;
        char *end;
        if (strncmp(e->d_name, file, plen) || *rest < '1' || *rest > '9')
            continue;
        long cnt = strtol(rest, &end, 10);
        if (strcmp(end, ".json") || cnt > CM_PROFILE_MAX_TASKS || cnt == ntasks)
            continue;
        if (k == cap) {
            int *more = realloc(list, (size_t)(cap = cap ? 2 * cap : 8) * sizeof *list);
            if (!more) {
                free(list);
                closedir(d);
                return cm_error_set(err, "store_step: the task counts: out of memory");
            }
            list = more;
        }
        list[k++] = (int)cnt;
    }
    closedir(d);
    if (k)
        qsort(list, (size_t)k, sizeof *list, by_value);
    *counts = list;
    *n = k;
    return 0;
}

/* The profile of (@p key, @p ntasks), else of its job name alone. */
static void load_profile(cm_store_t *s, const char *key, int ntasks,
                         cm_store_step_info_t *out)
{
    out->profile = cm_store_load(s, key, ntasks, &out->prof, &out->profile_err);
    size_t nlen;
    if (out->profile != 0 || !key || !cm_profile_key_program(key, &nlen))
        return;
    char *name = strndup(key, nlen);
    cm_error_t err;
    cm_profile_t *p = NULL;
    if (name && cm_store_load(s, name, ntasks, &p, &err) == 1) {
        out->profile = 1;
        out->prof = p;
        out->found_key = name;
        return;
    }
    free(name);
}

void cm_store_step_info(cm_store_t *s, const cm_error_t *open_err, const char *key,
                        const char *nompi_key, int ntasks, unsigned ask,
                        cm_store_step_info_t *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!s) {
        if (open_err)
            out->open_err = *open_err;
        else
            cm_error_set(&out->open_err, "store_step: no store");
        return;
    }
    out->opened = 1;
    if ((out->nompi = cm_store_nompi(s, nompi_key ? nompi_key : key, ntasks)))
        return; /* neither placed nor profiled: nothing else counts */
    out->can_record = cm_store_can_record(s, &out->record_err) == 0;
    if (ask & CM_STEP_ASK_PROFILE) {
        load_profile(s, key, ntasks, out);
        cm_error_t err;
        /* only a message's detail: a directory that cannot be listed
         * names no other count */
        if (out->profile == 0 &&
            cm_store_profile_counts(s, key, ntasks, &out->counts, &out->ncounts, &err) <
                0)
            out->ncounts = 0;
    }
    if (ask & CM_STEP_ASK_HISTORY) {
        out->runs = malloc(CM_HISTORY_MAX_RUNS * sizeof *out->runs);
        if (!out->runs)
            out->history = cm_error_set(&out->history_err,
                                        "store_step: the run "
                                        "history: out of memory");
        else if (cm_store_history_load(s, key, ntasks, out->runs, &out->nruns,
                                       &out->history_err) < 0) {
            out->history = -1;
            out->nruns = 0;
        } else {
            out->history = 1;
        }
    }
    if (ask & CM_STEP_ASK_TRACE) {
        /* the user directory, the profile file's name and its side's */
        size_t size = strlen(cm_store_dir(s)) + 320;
        if (!(out->trace_prefix = malloc(size)))
            out->trace = cm_error_set(&out->trace_err,
                                      "store_step: the trace: out "
                                      "of memory");
        else
            out->trace = cm_store_trace_prefix(s, key, ntasks, out->trace_prefix, size,
                                               &out->trace_err);
        if (out->trace != 1) {
            free(out->trace_prefix);
            out->trace_prefix = NULL;
        }
    }
}

void cm_store_step_info_free(cm_store_step_info_t *info)
{
    if (!info)
        return;
    cm_profile_free(info->prof);
    free(info->found_key);
    free(info->counts);
    free(info->runs);
    free(info->trace_prefix);
    memset(info, 0, sizeof *info);
}
