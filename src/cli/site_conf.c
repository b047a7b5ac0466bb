/*
 * site_conf.c -- the site's configuration, for `clustermap`: one
 * configuration for every tool.  The plugin's arguments live on its line
 * of Slurm's plugstack.conf (slurm.conf's PlugStackConfig=, else the
 * file beside slurm.conf -- $SLURM_CONF, else the file libslurm was built
 * with, else configless slurmd's copy, src/launch/slurm_conf.c -- and the
 * files its `include` lines name); the
 * command reads the same line and parses it with the plugin's own parser
 * (cmp_config_parse, src/launch/config.c), so that `clustermap profile`
 * uses the site's store= and judges the guard with the site's settings
 * (docs/admin-guide.md, "One configuration").
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cm_env.h"
#include "cm_store.h"
#include "launch.h"

/* How deep `include` lines are followed: a file that includes itself
 * stops there. */
#define MAX_DEPTH 4
#define BLANKS " \t\r\n"

/* The site's configuration, read once by cm_cli_site_config(). */
static struct {
    int read;             /* plugstack.conf was looked at */
    int found;            /* it has a clustermap line */
    int has_store;        /* the line sets store= (valid) */
    cmp_config_t cfg;
} site;

static int scan_file(const char *path, int depth);

/* clustermap's line: its arguments (after the plugin's path, in @p save's
 * rest of the line) into site.cfg, as the plugin parses them (a bad one
 * keeps its default there too). */
static void take_line(char *save)
{
    size_t n = 0, cap = 0;
    char **argv = NULL;
    for (char *a; (a = strtok_r(NULL, BLANKS, &save));) {
        if (n == cap) {
            char **more = realloc(argv, (cap = cap ? 2 * cap : 16) * sizeof *argv);
            if (!more)
                break;   /* the arguments so far: the defaults for the rest */
            argv = more;
        }
        argv[n++] = a;
    }
    site.found = 1;
    cmp_config_init(&site.cfg);
    cmp_config_parse(&site.cfg, (int)n, argv, NULL);
    /* store= given and taken (the last one given, as the plugin does) */
    for (size_t i = n; i-- > 0 && !site.has_store;)
        if (!strncmp(argv[i], "store=", 6))
            site.has_store = !strcmp(site.cfg.store, argv[i] + 6);
    free(argv);
}

/* One plugstack.conf line: "required|optional PATH ARGS...", or "include
 * PATTERN".  1 when it is clustermap's line (or an included file holds
 * it): the search ends there. */
static int scan_line(char *line, const char *dir, int depth)
{
    char *save = NULL, *w = strtok_r(line, BLANKS, &save);
    if (!w || w[0] == '#')
        return 0;
    if (!strcmp(w, "include")) {
        char *pat = strtok_r(NULL, BLANKS, &save), *full;
        glob_t g;
        if (!pat || depth >= MAX_DEPTH ||
            asprintf(&full, "%s%s%s", pat[0] == '/' ? "" : dir,
                     pat[0] == '/' ? "" : "/", pat) < 0)
            return 0;
        int found = 0;
        if (glob(full, 0, NULL, &g) == 0)
            for (size_t k = 0; k < g.gl_pathc && !found; k++)
                found = scan_file(g.gl_pathv[k], depth + 1);
        globfree(&g);
        free(full);
        return found;
    }
    if (strcmp(w, "required") && strcmp(w, "optional"))
        return 0;
    char *plugin = strtok_r(NULL, BLANKS, &save);
    size_t pl = plugin ? strlen(plugin) : 0;
    if (pl < 13 || strcmp(plugin + pl - 13, "clustermap.so") ||
        (pl > 13 && plugin[pl - 14] != '/'))
        return 0;
    take_line(save);
    return 1;
}

static int scan_file(const char *path, int depth)
{
    FILE *f = fopen(path, "re");
    char *line = NULL, *dir = strdup(path);
    size_t cap = 0;
    int found = 0;
    if (!f || !dir) {
        if (f)
            fclose(f);
        free(dir);
        return 0;
    }
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    while (!found && getline(&line, &cap, f) >= 0)
        found = scan_line(line, slash ? dir : ".", depth);
    free(line);
    free(dir);
    fclose(f);
    return found;
}

const cmp_config_t *cm_cli_site_config(int *found)
{
    if (!site.read) {
        /* slurm.conf and its PlugStackConfig= as Slurm's clients find
         * them; none when the controller sends them (configless) */
        char *conf = cmp_slurm_conf_path();
        char *path = cmp_slurm_plugstack_path(conf);
        site.read = 1;
        cmp_config_init(&site.cfg);
        if (path)
            scan_file(path, 0);
        free(path);
        free(conf);
    }
    if (found)
        *found = site.found;
    return &site.cfg;
}

const char *cm_cli_site_store(void)
{
    cm_cli_site_config(NULL);
    return site.has_store ? site.cfg.store : NULL;
}

const char *cm_cli_store_root(const char *given)
{
    const char *env = getenv(CM_ENV_STORE), *conf;
    if (given)
        return given;
    if (!(env && *env) && (conf = cm_cli_site_store()))
        return conf;
    return cm_store_default_root();
}
