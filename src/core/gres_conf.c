/* gres_conf.c -- one node's generic resources (GPUs, NICs, ...) as Slurm's
 * gres.conf describes them.
 *
 * Slurm's view of a node's devices takes precedence over hwloc's where
 * the two differ: the controller allocates GPUs by the Cores= of this
 * file, and numbers them in the order the file lists them when nothing
 * is detected.  So the reader keeps that order, expands File= ranges the
 * way Slurm does (one device per file), and keeps Cores= as Slurm's
 * logical core indexes and Links= as written.
 *
 * Only the lines that apply to the node are kept: those without NodeName=
 * and those whose NodeName= hostlist names it.  Keys are case-insensitive,
 * as in Slurm.  A key this reader does not know is refused with the
 * line: a file Slurm reads differently must not be read half.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clustermap.h"
#include "conf_lines_internal.h"

/* Slurm limits a node's File= devices of one name to 1024; Count= alone
 * (MPS shares, licences) may be larger, so the whole node is bounded. */
#define GC_MAX_DEVICES (1 << 16)
#define GC_MAX_CORE (1 << 20)
/* Cores= of all the node's lines together: a few bytes of text may name a
 * million cores, so the memory is bounded by this, not by the file. */
#define GC_MAX_CORE_ENTRIES (1L << 22)
#define GC_MAX_LINKS 1024
#define GC_MAX_COUNT (1L << 20)
#define GC_MAX_NODES (1 << 20)

/* A line's Cores= and Links=, shared by the devices of that line: a
 * range of files or a Count= does not copy them. */
typedef struct gres_attr {
    int *cores; /* sorted, unique; NULL when Cores= was not given */
    int ncores;
    int *links;
    int nlinks;
} gres_attr_t;

typedef struct gres_dev {
    char *name; /* Name=, as written */
    char *type; /* Type= or NULL */
    char *file; /* one device file, or NULL */
    int attr;   /* index in cm_gres.attr */
    int line;
} gres_dev_t;

struct cm_gres {
    gres_dev_t *dev;
    int n, cap;
    gres_attr_t *attr;
    int nattr, attr_cap;
    long core_entries;
    char *autodetect; /* the last AutoDetect= that applies, or NULL */
};

/* What one line says, before it is turned into devices. */
typedef struct gres_line {
    const char *nodename, *name, *type, *file, *multiple, *cores, *links, *autodetect,
        *count;
} gres_line_t;

/* A node asked, for the search by name. */
typedef struct named {
    const char *name;
    int index;
} named_t;

typedef struct gres_read {
    cm_gres_t **g;  /* one per node asked */
    named_t *order; /* the nodes asked, sorted by name */
    int n;
    char *hit; /* the nodes the line being read applies to */
} gres_read_t;

static void dev_free(gres_dev_t *d)
{
    free(d->name);
    free(d->type);
    free(d->file);
}

void cm_gres_free(cm_gres_t *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n; i++)
        dev_free(&g->dev[i]);
    free(g->dev);
    for (int i = 0; i < g->nattr; i++) {
        free(g->attr[i].cores);
        free(g->attr[i].links);
    }
    free(g->attr);
    free(g->autodetect);
    free(g);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* "0-3,8" into a sorted list of unique indexes. */
static int parse_cores(const char *s, int **out, int *n, const char *path, int line,
                       cm_error_t *err)
{
    int *v = NULL, nv = 0, cap = 0;
    const char *p = s;
    *out = NULL;
    *n = 0;
    if (!*s)
        return cm_error_set(err,
                            "%s:%d: Cores: expected core indexes such as 0-3,8, "
                            "got nothing",
                            path, line);
    while (*p) {
        char *end;
        errno = 0;
        long a = strtol(p, &end, 10), b;
        if (end == p || *p == '-' || *p == '+' || errno || a < 0 || a >= GC_MAX_CORE)
            goto bad;
        b = a;
        if (*end == '-') {
            p = end + 1;
            errno = 0;
            b = strtol(p, &end, 10);
            if (end == p || *p == '-' || *p == '+' || errno || b < a || b >= GC_MAX_CORE)
                goto bad;
        }
        if (*end && *end != ',')
            goto bad;
        if (b - a + 1 > GC_MAX_CORE - nv)
            goto bad;
        if (nv + (b - a + 1) > cap) {
            int ncap = (int)(nv + (b - a + 1)) * 2;
            int *nvv = realloc(v, (size_t)ncap * sizeof *v);
            if (!nvv) {
                free(v);
                return cm_error_set(err, "%s:%d: out of memory", path, line);
            }
            v = nvv;
            cap = ncap;
        }
        for (long c = a; c <= b; c++)
            v[nv++] = (int)c;
        p = *end ? end + 1 : end;
        if (*end == ',' && !*p)
            goto bad;
    }
    qsort(v, (size_t)nv, sizeof *v, cmp_int);
    int u = 0;
    for (int i = 0; i < nv; i++)
        if (!u || v[u - 1] != v[i])
            v[u++] = v[i];
    *out = v;
    *n = u;
    return 0;
bad:
    free(v);
    return cm_error_set(err,
                        "%s:%d: Cores: expected core indexes 0..%d such as 0-3,8, "
                        "got '%s'",
                        path, line, GC_MAX_CORE - 1, s);
}

/* "-1,2,0,2": one count of connections per device of the node. */
static int parse_links(const char *s, int **out, int *n, const char *path, int line,
                       cm_error_t *err)
{
    int *v = malloc(GC_MAX_LINKS * sizeof *v), nv = 0;
    const char *p = s;
    if (!v)
        return cm_error_set(err, "%s:%d: out of memory", path, line);
    while (*p || !nv) {
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (end == p || errno || x < -1 || x > 1000000 || (*end && *end != ',') ||
            nv == GC_MAX_LINKS) {
            free(v);
            return cm_error_set(err,
                                "%s:%d: Links: expected at most %d comma-separated "
                                "counts >= -1 such as -1,2,0,2, got '%s'",
                                path, line, GC_MAX_LINKS, s);
        }
        v[nv++] = (int)x;
        p = *end ? end + 1 : end;
        if (*end == ',' && !*p) {
            free(v);
            return cm_error_set(err,
                                "%s:%d: Links: a count after the last ',' expected, "
                                "got '%s'",
                                path, line, s);
        }
    }
    *out = v;
    *n = nv;
    return 0;
}

static int parse_count(const char *s, long *out, const char *path, int line,
                       cm_error_t *err)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10), mult = 1;
    if (*end == 'k' || *end == 'K')
        mult = 1024, end++;
    else if (*end == 'm' || *end == 'M')
        mult = 1024 * 1024, end++;
    if (end == s || *s == '-' || *s == '+' || *end || errno || v < 0 ||
        v > GC_MAX_COUNT / mult)
        return cm_error_set(err,
                            "%s:%d: Count: expected a count 0..%ld (K and M "
                            "suffixes allowed), got '%s'",
                            path, line, GC_MAX_COUNT, s);
    *out = v * mult;
    return 0;
}

static int add_dev(cm_gres_t *g, const gres_line_t *l, const char *file, const char *path,
                   int line, cm_error_t *err)
{
    if (g->n >= GC_MAX_DEVICES)
        return cm_error_set(err, "%s:%d: more than %d devices on one node", path, line,
                            GC_MAX_DEVICES);
    if (g->n == g->cap) {
        int ncap = g->cap ? g->cap * 2 : 16;
        gres_dev_t *nd = realloc(g->dev, (size_t)ncap * sizeof *nd);
        if (!nd)
            return cm_error_set(err, "%s:%d: out of memory", path, line);
        g->dev = nd;
        g->cap = ncap;
    }
    gres_dev_t *d = &g->dev[g->n];
    memset(d, 0, sizeof *d);
    d->line = line;
    d->attr = g->nattr - 1;
    d->name = strdup(l->name);
    d->type = l->type ? strdup(l->type) : NULL;
    d->file = file ? strdup(file) : NULL;
    if (!d->name || (l->type && !d->type) || (file && !d->file)) {
        dev_free(d);
        return cm_error_set(err, "%s:%d: out of memory", path, line);
    }
    g->n++;
    return 0;
}

/* Keep a line's Cores= and Links= (taking the arrays) for its devices. */
static int add_attr(cm_gres_t *g, int *cores, int ncores, int *links, int nlinks,
                    const char *path, int line, cm_error_t *err)
{
    if (g->nattr == g->attr_cap) {
        int ncap = g->attr_cap ? g->attr_cap * 2 : 8;
        gres_attr_t *na = realloc(g->attr, (size_t)ncap * sizeof *na);
        if (!na) {
            free(cores);
            free(links);
            return cm_error_set(err, "%s:%d: out of memory", path, line);
        }
        g->attr = na;
        g->attr_cap = ncap;
    }
    g->attr[g->nattr++] = (gres_attr_t){ cores, ncores, links, nlinks };
    return 0;
}

/* Mark in r->hit the nodes asked that NodeName= @p expr names. */
static int mark_nodes(gres_read_t *r, const char *expr, const char *path, int line,
                      cm_error_t *err)
{
    char **names;
    int count;
    cm_error_t herr;
    if (cm_hostlist_expand(expr, &names, &count, &herr) < 0)
        return cm_error_set(err, "%s:%d: NodeName: %s", path, line, herr.msg);
    for (int i = 0; i < count; i++) {
        int lo = 0, hi = r->n - 1;
        while (lo <= hi) {
            int mid = lo + (hi - lo) / 2, c = strcmp(names[i], r->order[mid].name);
            if (!c) {
                /* every copy of a name asked twice */
                for (int k = mid; k >= 0 && !strcmp(names[i], r->order[k].name); k--)
                    r->hit[r->order[k].index] = 1;
                for (int k = mid + 1; k < r->n && !strcmp(names[i], r->order[k].name);
                     k++)
                    r->hit[r->order[k].index] = 1;
                break;
            }
            if (c < 0)
                hi = mid - 1;
            else
                lo = mid + 1;
        }
    }
    cm_hostlist_free(names, count);
    return 0;
}

static int set_key(gres_line_t *l, const cm_conf_token_t *t, const char *path, int line,
                   cm_error_t *err)
{
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {
        { "NodeName", offsetof(gres_line_t, nodename) },
        { "Name", offsetof(gres_line_t, name) },
        { "Type", offsetof(gres_line_t, type) },
        { "File", offsetof(gres_line_t, file) },
        { "MultipleFiles", offsetof(gres_line_t, multiple) },
        { "Cores", offsetof(gres_line_t, cores) },
        { "Links", offsetof(gres_line_t, links) },
        { "AutoDetect", offsetof(gres_line_t, autodetect) },
        { "Count", offsetof(gres_line_t, count) },
    };
    if (cm_conf_check_kv(t, path, line, err) < 0)
        return -1;
    /* Flags= change how Slurm sets the environment, not which device is
     * where. */
    if (!strcasecmp(t->key, "Flags"))
        return 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (strcasecmp(t->key, keys[k].key))
            continue;
        const char **slot = (const char **)((char *)l + keys[k].off);
        if (*slot)
            return cm_error_set(err, "%s:%d: %s given twice", path, line, keys[k].key);
        *slot = t->val;
        return 0;
    }
    return cm_error_set(err,
                        "%s:%d: unknown key '%s' (expected NodeName, Name, Type, "
                        "File, MultipleFiles, Count, Cores, Links, Flags or "
                        "AutoDetect)",
                        path, line, t->key);
}

/* One device per file of File=, one for MultipleFiles= (its first file),
 * Count= devices without a file when neither is given. */
static int line_devices(cm_gres_t *g, const gres_line_t *l, int nlinks, const char *path,
                        int line, cm_error_t *err)
{
    long count = -1;
    if (l->count && parse_count(l->count, &count, path, line, err) < 0)
        return -1;
    if (l->file && l->multiple)
        return cm_error_set(err,
                            "%s:%d: File and MultipleFiles given together (give "
                            "one)",
                            path, line);
    if (!l->file && !l->multiple) {
        if (nlinks)
            return cm_error_set(err, "%s:%d: Links needs a single File", path, line);
        for (long i = 0; i < (count < 0 ? 1 : count); i++)
            if (add_dev(g, l, NULL, path, line, err) < 0)
                return -1;
        return 0;
    }
    char **files;
    int nfiles;
    cm_error_t herr;
    const char *expr = l->file ? l->file : l->multiple;
    if (cm_hostlist_expand(expr, &files, &nfiles, &herr) < 0)
        return cm_error_set(err, "%s:%d: %s: %s", path, line,
                            l->file ? "File" : "MultipleFiles", herr.msg);
    int rc = 0, nexpanded = nfiles;
    if (l->multiple)
        nfiles = nfiles ? 1 : 0;
    if (nlinks && nfiles != 1)
        rc = cm_error_set(err, "%s:%d: Links needs a single File, got %d files", path,
                          line, nfiles);
    /* Count= must match the files, except for shares of a GPU (mps,
     * shard), where it counts the shares. */
    else if (l->file && count >= 0 && count != nfiles && strcasecmp(l->name, "mps") &&
             strcasecmp(l->name, "shard"))
        rc = cm_error_set(err, "%s:%d: Count=%ld but File names %d files", path, line,
                          count, nfiles);
    for (int i = 0; i < nfiles && rc == 0; i++)
        rc = add_dev(g, l, files[i], path, line, err);
    cm_hostlist_free(files, nexpanded);
    return rc;
}

/* What line @p l says, for one node's @p g. */
static int apply_line(cm_gres_t *g, const gres_line_t *l, const char *path, int line,
                      cm_error_t *err)
{
    if (l->autodetect) {
        char *a = strdup(l->autodetect);
        if (!a)
            return cm_error_set(err, "%s:%d: out of memory", path, line);
        free(g->autodetect);
        g->autodetect = a;
    }
    if (!l->name)
        return 0;
    int *cores = NULL, ncores = 0, *links = NULL, nlinks = 0;
    if (l->cores && parse_cores(l->cores, &cores, &ncores, path, line, err) < 0)
        return -1;
    if (l->links && parse_links(l->links, &links, &nlinks, path, line, err) < 0) {
        free(cores);
        return -1;
    }
    if (ncores > GC_MAX_CORE_ENTRIES - g->core_entries) {
        free(cores);
        free(links);
        return cm_error_set(err,
                            "%s:%d: Cores: more than %ld core indexes on one node's "
                            "lines",
                            path, line, GC_MAX_CORE_ENTRIES);
    }
    g->core_entries += ncores;
    if (add_attr(g, cores, ncores, links, nlinks, path, line, err) < 0)
        return -1;
    return line_devices(g, l, nlinks, path, line, err);
}

static int gres_line(void *ctx, cm_conf_token_t *tok, int ntok, const char *path,
                     int line, cm_error_t *err)
{
    gres_read_t *r = ctx;
    gres_line_t l = { 0 };
    for (int i = 0; i < ntok; i++)
        if (set_key(&l, &tok[i], path, line, err) < 0)
            return -1;
    if (!l.name &&
        !(l.autodetect && !l.type && !l.file && !l.multiple && !l.cores && !l.links &&
          !l.count))
        return cm_error_set(err, "%s:%d: Name= expected (the resource: gpu, nic, ...)",
                            path, line);
    memset(r->hit, !l.nodename, (size_t)r->n);
    if (l.nodename && mark_nodes(r, l.nodename, path, line, err) < 0)
        return -1;
    for (int k = 0; k < r->n; k++)
        if (r->hit[k] && apply_line(r->g[k], &l, path, line, err) < 0)
            return -1;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    const named_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->index - y->index;
}

int cm_gres_conf_read_nodes(const char *gres_conf, const char *const *nodes, int n,
                            cm_gres_t **out, cm_error_t *err)
{
    if (!gres_conf || !nodes || !out || n < 1 || n > GC_MAX_NODES)
        return cm_error_set(err, "gres.conf: a file and 1 to %d node names are required",
                            GC_MAX_NODES);
    for (int i = 0; i < n; i++)
        out[i] = NULL;
    for (int i = 0; i < n; i++)
        if (!nodes[i] || !*nodes[i])
            return cm_error_set(err, "gres.conf: node name %d is empty", i);
    gres_read_t r = { calloc((size_t)n, sizeof *r.g), malloc((size_t)n * sizeof(named_t)),
                      n, malloc((size_t)n) };
    int rc = -1;
    if (!r.g || !r.order || !r.hit) {
        cm_error_set(err, "%s: out of memory", gres_conf);
        goto out;
    }
    for (int i = 0; i < n; i++) {
        r.order[i] = (named_t){ nodes[i], i };
        if (!(r.g[i] = calloc(1, sizeof *r.g[i]))) {
            cm_error_set(err, "%s: out of memory", gres_conf);
            goto out;
        }
    }
    qsort(r.order, (size_t)n, sizeof *r.order, by_name);
    rc = cm_conf_read_lines(gres_conf, gres_line, &r, err);
out:
    for (int i = 0; r.g && i < n; i++) {
        if (rc < 0)
            cm_gres_free(r.g[i]);
        out[i] = rc < 0 ? NULL : r.g[i];
    }
    free(r.g);
    free(r.order);
    free(r.hit);
    return rc < 0 ? -1 : 0;
}

cm_gres_t *cm_gres_conf_read(const char *gres_conf, const char *node, cm_error_t *err)
{
    cm_gres_t *g = NULL;
    if (!node || !*node) {
        cm_error_set(err, "gres.conf: a file and a node name are required");
        return NULL;
    }
    return cm_gres_conf_read_nodes(gres_conf, &node, 1, &g, err) < 0 ? NULL : g;
}

const char *cm_gres_autodetect(const cm_gres_t *g)
{
    return g ? g->autodetect : NULL;
}

static const gres_dev_t *nth(const cm_gres_t *g, const char *name, int i)
{
    if (!g || !name || i < 0)
        return NULL;
    for (int k = 0; k < g->n; k++)
        if (!strcasecmp(g->dev[k].name, name) && i-- == 0)
            return &g->dev[k];
    return NULL;
}

int cm_gres_count(const cm_gres_t *g, const char *name)
{
    int n = 0;
    if (!g || !name)
        return -1;
    for (int k = 0; k < g->n; k++)
        n += !strcasecmp(g->dev[k].name, name);
    return n;
}

int cm_gres_device(const cm_gres_t *g, const char *name, int i, cm_gres_dev_t *out)
{
    const gres_dev_t *d = nth(g, name, i);
    if (!d || !out)
        return -1;
    out->type = d->type;
    out->file = d->file;
    const gres_attr_t *a = &g->attr[d->attr];
    out->cores = a->cores;
    out->ncores = a->ncores;
    out->links = a->links;
    out->nlinks = a->nlinks;
    out->line = d->line;
    return 0;
}
