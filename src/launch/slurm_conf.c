/*
 * slurm_conf.c -- where Slurm's configuration files are (cmp_slurm_conf.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cmp_slurm_conf.h"

static int exists(const char *path)
{
    struct stat st;
    return path && path[0] && stat(path, &st) == 0;
}

char *cmp_slurm_conf_find(const char *env, const char *builtin, const char *cached)
{
    /* Slurm takes SLURM_CONF even when it names no file (and fails) */
    if (env && env[0])
        return strdup(env);
    if (exists(builtin))
        return strdup(builtin);
    if (exists(cached))
        return strdup(cached);
    return NULL;
}

char *cmp_slurm_conf_path(void)
{
    return cmp_slurm_conf_find(getenv("SLURM_CONF"), CMP_SLURM_CONF_DEFAULT,
                               CMP_SLURM_CONF_CACHED);
}

/* @p name beside @p file (in its directory); malloc'd. */
static char *beside(const char *file, const char *name)
{
    const char *slash = strrchr(file, '/');
    char *s = NULL;
    if (asprintf(&s, "%.*s%s", slash ? (int)(slash - file + 1) : 0, file, name) < 0)
        return NULL;
    return s;
}

/* The value of "PlugStackConfig=" on @p line, NULL when the line sets
 * none; blanks around it and a pair of double quotes are not part of it. */
static char *plugstack_of(char *line)
{
    static const char key[] = "PlugStackConfig";
    char *p = line + strspn(line, " \t");
    if (strncasecmp(p, key, sizeof key - 1))
        return NULL;
    p += sizeof key - 1;
    p += strspn(p, " \t");
    if (*p++ != '=')
        return NULL;
    p += strspn(p, " \t");
    char *end = p + strcspn(p, "#\r\n");
    while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if (end - p >= 2 && *p == '"' && end[-1] == '"') {
        p++;
        end--;
    }
    *end = '\0';
    return p[0] ? p : NULL;
}

char *cmp_slurm_plugstack_path(const char *slurm_conf)
{
    if (!slurm_conf)
        return NULL;
    FILE *f = fopen(slurm_conf, "re");
    char *line = NULL, *found = NULL;
    size_t cap = 0;
    while (f && getline(&line, &cap, f) >= 0) {
        char *v = plugstack_of(line);
        if (v) {
            free(found);
            found = strdup(v);
        }
    }
    free(line);
    if (f)
        fclose(f);
    return found ? found : beside(slurm_conf, "plugstack.conf");
}

char *cmp_slurm_gres_path(const char *slurm_conf)
{
    return slurm_conf ? beside(slurm_conf, "gres.conf") : NULL;
}
