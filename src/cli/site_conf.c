/*
 * site_conf.c -- the store the site's plugin uses, for `clustermap
 * profile` run without --store: one configuration for every tool.  The
 * plugin's arguments live on its line of Slurm's plugstack.conf (the file
 * next to $SLURM_CONF, else /etc/slurm/plugstack.conf, and the files its
 * `include` lines name); the command reads the same line and takes its
 * store= (docs/admin-guide.md, "One configuration").
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cm_store.h"

#define MAX_DEPTH 4

static int scan_file(const char *path, char *out, size_t n, int depth);

/* One plugstack.conf line: "required|optional PATH ARGS...", or "include
 * PATTERN".  1 when it is clustermap's line and names a store. */
static int scan_line(char *line, const char *dir, char *out, size_t n, int depth)
{
    char *save = NULL, *w = strtok_r(line, " \t\r\n", &save);
    if (!w || w[0] == '#')
        return 0;
    if (!strcmp(w, "include")) {
        char *pat = strtok_r(NULL, " \t\r\n", &save), full[8192 + 4096];
        glob_t g;
        if (!pat || depth >= MAX_DEPTH)
            return 0;
        snprintf(full, sizeof full, "%s%s%s", pat[0] == '/' ? "" : dir,
                 pat[0] == '/' ? "" : "/", pat);
        int found = 0;
        if (glob(full, 0, NULL, &g) == 0)
            for (size_t k = 0; k < g.gl_pathc && !found; k++)
                found = scan_file(g.gl_pathv[k], out, n, depth + 1);
        globfree(&g);
        return found;
    }
    if (strcmp(w, "required") && strcmp(w, "optional"))
        return 0;
    char *plugin = strtok_r(NULL, " \t\r\n", &save);
    size_t pl = plugin ? strlen(plugin) : 0;
    if (pl < 13 || strcmp(plugin + pl - 13, "clustermap.so") ||
        (pl > 13 && plugin[pl - 14] != '/'))
        return 0;
    for (char *a; (a = strtok_r(NULL, " \t\r\n", &save));)
        if (!strncmp(a, "store=", 6) && a[6] == '/' && strlen(a + 6) < n) {
            snprintf(out, n, "%s", a + 6);
            return 1;
        }
    return 0;
}

static int scan_file(const char *path, char *out, size_t n, int depth)
{
    FILE *f = fopen(path, "re");
    char line[8192], dir[4096];
    int found = 0;
    if (!f)
        return 0;
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    while (!found && fgets(line, sizeof line, f))
        found = scan_line(line, dir, out, n, depth);
    fclose(f);
    return found;
}

const char *cm_cli_site_store(char *buf, size_t n)
{
    const char *conf = getenv("SLURM_CONF");
    char path[4096];
    if (conf && *conf && strrchr(conf, '/'))
        snprintf(path, sizeof path, "%.*s/plugstack.conf",
                 (int)(strrchr(conf, '/') - conf), conf);
    else
        snprintf(path, sizeof path, "/etc/slurm/plugstack.conf");
    return scan_file(path, buf, n, 0) ? buf : NULL;
}

const char *cm_cli_store_root(const char *given)
{
    static char site[4096];
    const char *env = getenv(CM_STORE_ENV);
    if (given)
        return given;
    if (!(env && *env) && cm_cli_site_store(site, sizeof site))
        return site;
    return cm_store_default_root();
}
