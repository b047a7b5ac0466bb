/*
 * profile_key.c -- which profile a step uses: its job name and the program
 * it launches.  Slurm's default job name is the batch script's name, and
 * many users call every script job.sh: keyed by job name and task count
 * alone, two programs would blend into one profile.
 */
#include <stdio.h>
#include <string.h>

#include "profile_internal.h"

#define HASH_HEX 8

int cm_profile_program_key(const char *job_name, const char *path, char *out,
                           size_t size, cm_error_t *err)
{
    if (!out)
        return cm_error_set(err, "profile key: expected a buffer, got NULL");
    if (!job_name || !*job_name || !path || !*path)
        return cm_error_set(err, "profile key: expected a job name and a "
                            "program, got '%s' and '%s'", job_name ? job_name : "",
                            path ? path : "");
    const char *base = strrchr(path, '/');
    base = base && base[1] ? base + 1 : path;
    char prog[64];
    snprintf(prog, sizeof prog, "%s", base);
    for (char *c = prog; *c; c++)   /* the history's alphabet (history.c) */
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789._-", *c))
            *c = '_';
    unsigned long long h = cm_fnv1a(CM_FNV1A_START, path, strlen(path));
    char tail[96];
    int tl = snprintf(tail, sizeof tail, "@%s-%0*llx", prog, HASH_HEX,
                      h & 0xffffffffull);
    size_t room = CM_PROFILE_MAX_NAME - (size_t)tl;
    size_t nl = strlen(job_name);
    if (nl > room)
        nl = room;
    if (size < nl + (size_t)tl + 1)
        return cm_error_set(err, "profile key: buffer too small");
    memcpy(out, job_name, nl);
    memcpy(out + nl, tail, (size_t)tl + 1);
    return 0;
}

const char *cm_profile_key_program(const char *key, size_t *name_len)
{
    if (!key) {
        if (name_len)
            *name_len = 0;
        return NULL;
    }
    const char *at = strrchr(key, '@');
    if (name_len)
        *name_len = strlen(key);
    if (!at || at == key)
        return NULL;
    const char *dash = strrchr(at, '-');
    if (!dash || dash == at + 1 || strlen(dash + 1) != HASH_HEX ||
        strspn(dash + 1, "0123456789abcdef") != HASH_HEX)
        return NULL;
    if (name_len)
        *name_len = (size_t)(at - key);
    return at + 1;
}
