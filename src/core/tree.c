/* tree.c -- the machine tree: builder, slot numbering, LCA queries.
 *
 * Vertices are stored in insertion order (vertex id = insertion index), and a
 * parent always exists before its children, so every parent id is smaller
 * than its children's ids.  That lets finalize compute subtree sizes with one
 * backward sweep and slot ranges / depths with one forward sweep, and keeps
 * compute nodes in allocation order for free (they are the "node" vertices in
 * id order).  A child's level must be deeper than its parent's; levels may be
 * skipped (e.g. a node directly under an artificial "cluster" root).
 *
 * LCA queries run O(nnz) times during cost evaluation, so finalize builds a
 * per-slot table of inner ancestors by depth: anc[s * adepth + d] is the
 * ancestor of slot s at depth d (-1 past a shallow leaf).  The LCA is the
 * deepest depth where two slots share their ancestor.  When that table would
 * be too large, the query walks up from one leaf, testing slot ranges.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"
#include "tree_internal.h"

/* Largest ancestor table (entries) built at finalize; 32 MiB of ints. */
#define ANC_TABLE_MAX ((size_t)1 << 23)
#define LEVEL_NAME_MAX 63
#define LEVELS_MAX 64

typedef struct level {
    char name[LEVEL_NAME_MAX + 1];
    double byte_cost, msg_cost;
    int nvertices;
} level_t;

struct cm_tree {
    int nlevels;
    level_t levels[LEVELS_MAX];

    int nv, cap;
    int *vlevel, *vparent;
    char **vlabel;
    double *vspeed;

    int finalized;
    int *child_start, *child_list; /* CSR of children, in insertion order */
    int *slot_first, *slot_count, *depth;
    int *vnode;                     /* node index of the node ancestor, -1 */
    int nslots;
    int *slot_vertex;
    int nnodes;
    int *node_vertex;
    int adepth;                     /* depth of the deepest leaf */
    int *anc;                       /* [nslots * adepth] or NULL */
    uint64_t *skey;                 /* [nslots] path keys, or NULL */
    signed char lev_of_clz[64];     /* LCA level by leading equal key bits */

    /* A tree made by cm_tree_restrict() and its kin: the slot and node of
     * the tree it was cut from for each of its own (NULL: not cut). */
    int allow_empty_levels;         /* levels whose vertices were all cut */
    int *origin;                    /* [nslots], increasing */
    int *node_origin;               /* [nnodes], increasing */
    int origin_nslots, origin_nnodes;
};

cm_tree_t *cm_tree_new(void)
{
    return calloc(1, sizeof(cm_tree_t));
}

/* Per-slot path keys, so that the lowest common ancestor of two slots
 * costs two loads, not a walk: the key of a slot is the index of each of
 * its ancestors among its parent's children, root side first, in a fixed
 * number of bits per depth, so the leading bits two keys share say how
 * deep their paths agree.  The cost functions ask it for every matrix
 * entry; at 10^6 slots the ancestor table's walk, about seven cache misses
 * an entry, was a third of a plan's time.  Built only when a vertex's
 * level follows from its depth, every leaf is equally deep and the digits
 * fit 64 bits (a tree of any shape falls back to the table).  0 also when
 * not built; -1 out of memory. */
static int build_path_keys(cm_tree_t *t)
{
    int D = t->adepth, last = t->nlevels - 1, nv = t->nv;
    int lev_at[65], bits[65];
    if (D < 1 || D > 64)
        return 0;
    for (int d = 0; d <= D; d++)
        lev_at[d] = -1, bits[d] = 0;
    for (int v = 0; v < nv; v++) {
        int d = t->depth[v];
        if (d > D || (lev_at[d] >= 0 && lev_at[d] != t->vlevel[v]) ||
            (t->vlevel[v] == last && d != D))
            return 0;
        lev_at[d] = t->vlevel[v];
        int nc = t->child_start[v + 1] - t->child_start[v], b = 0;
        while ((1 << b) < nc && b < 31)
            b++;
        if (d < D && b > bits[d + 1])
            bits[d + 1] = b;
    }
    int total = 0, shift[65];
    for (int d = 1; d <= D; d++)
        total += bits[d];
    if (total < 1 || total > 64)
        return 0;
    /* shift[d]: where depth d's digit starts; the leading zeros of two
     * keys' xor fall in the digit of the first depth they differ at, whose
     * parent is the common ancestor */
    for (int d = 1, used = 0; d <= D; d++) {
        used += bits[d];
        shift[d] = total - used;
        for (int b = 0; b < bits[d]; b++)
            t->lev_of_clz[64 - total + (used - bits[d]) + b] = (signed char)lev_at[d - 1];
    }
    int *cidx = malloc(sizeof(int) * (size_t)nv);
    t->skey = malloc(sizeof(uint64_t) * (size_t)t->nslots);
    if (!cidx || !t->skey) {
        free(cidx);
        free(t->skey);
        t->skey = NULL;
        return -1;
    }
    for (int v = 0; v < nv; v++)
        for (int k = t->child_start[v]; k < t->child_start[v + 1]; k++)
            cidx[t->child_list[k]] = k - t->child_start[v];
    for (int s = 0; s < t->nslots; s++) {
        uint64_t key = 0;
        for (int v = t->slot_vertex[s]; t->depth[v] > 0; v = t->vparent[v])
            key |= (uint64_t)cidx[v] << shift[t->depth[v]];
        t->skey[s] = key;
    }
    free(cidx);
    return 0;
}

/* Release what cm_tree_finalize() builds, leaving the tree as before it. */
static void free_finalized(cm_tree_t *t)
{
    free(t->child_start);
    free(t->child_list);
    free(t->slot_first);
    free(t->slot_count);
    free(t->depth);
    free(t->vnode);
    free(t->slot_vertex);
    free(t->node_vertex);
    free(t->anc);
    free(t->skey);
    t->skey = NULL;
    t->child_start = t->child_list = t->slot_first = t->slot_count = NULL;
    t->depth = t->vnode = t->slot_vertex = t->node_vertex = t->anc = NULL;
    t->nslots = t->nnodes = 0;
}

void cm_tree_free(cm_tree_t *t)
{
    if (!t)
        return;
    for (int v = 0; v < t->nv; v++)
        free(t->vlabel[v]);
    free(t->vlevel);
    free(t->vparent);
    free(t->vlabel);
    free(t->vspeed);
    free(t->origin);
    free(t->node_origin);
    free_finalized(t);
    free(t);
}

static int check_costs(const char *what, double byte_cost, double msg_cost,
                       cm_error_t *err)
{
    if (!isfinite(byte_cost) || byte_cost < 0)
        return cm_error_set(err, "level %s: byte cost must be finite and >= 0, got %g",
                            what, byte_cost);
    if (!isfinite(msg_cost) || msg_cost < 0)
        return cm_error_set(err, "level %s: message cost must be finite and >= 0, got %g",
                            what, msg_cost);
    return 0;
}

int cm_tree_add_level(cm_tree_t *t, const char *name, double byte_cost,
                      double msg_cost, cm_error_t *err)
{
    if (!t || !name)
        return cm_error_set(err, "cm_tree_add_level: NULL argument");
    if (t->finalized)
        return cm_error_set(err, "cm_tree_add_level: tree is already finalized");
    size_t len = strlen(name);
    if (len == 0 || len > LEVEL_NAME_MAX)
        return cm_error_set(err, "level name '%s': expected 1 to %d characters",
                            name, LEVEL_NAME_MAX);
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_')
            return cm_error_set(err, "level name '%s': expected only [A-Za-z0-9_]",
                                name);
    if (cm_tree_level_index(t, name) >= 0)
        return cm_error_set(err, "level name '%s' is used twice", name);
    if (t->nlevels >= LEVELS_MAX)
        return cm_error_set(err, "level '%s': at most %d levels", name, LEVELS_MAX);
    if (check_costs(name, byte_cost, msg_cost, err) < 0)
        return -1;
    level_t *l = &t->levels[t->nlevels];
    memcpy(l->name, name, len + 1);
    l->byte_cost = byte_cost;
    l->msg_cost = msg_cost;
    l->nvertices = 0;
    return t->nlevels++;
}

static int grow_vertices(cm_tree_t *t, cm_error_t *err)
{
    if (t->nv < t->cap)
        return 0;
    if (t->cap >= (1 << 28))
        return cm_error_set(err, "machine tree: more than %d vertices", 1 << 28);
    int cap = t->cap ? 2 * t->cap : 64;
    int *lv = realloc(t->vlevel, (size_t)cap * sizeof *lv);
    if (lv)
        t->vlevel = lv;
    int *pa = realloc(t->vparent, (size_t)cap * sizeof *pa);
    if (pa)
        t->vparent = pa;
    char **lb = realloc(t->vlabel, (size_t)cap * sizeof *lb);
    if (lb)
        t->vlabel = lb;
    double *sp = realloc(t->vspeed, (size_t)cap * sizeof *sp);
    if (sp)
        t->vspeed = sp;
    if (!lv || !pa || !lb || !sp)
        return cm_error_set(err, "machine tree: out of memory for %d vertices", cap);
    t->cap = cap;
    return 0;
}

int cm_tree_add_vertex(cm_tree_t *t, int parent, int level, const char *label,
                       cm_error_t *err)
{
    if (!t)
        return cm_error_set(err, "cm_tree_add_vertex: NULL tree");
    if (t->finalized)
        return cm_error_set(err, "cm_tree_add_vertex: tree is already finalized");
    if (level < 0 || level >= t->nlevels)
        return cm_error_set(err, "vertex %s: level %d does not exist (tree has %d levels)",
                            label ? label : "(unlabelled)", level, t->nlevels);
    if (parent < 0) {
        if (t->nv > 0)
            return cm_error_set(err, "vertex %s: the tree already has a root",
                                label ? label : "(unlabelled)");
        if (level != 0)
            return cm_error_set(err, "root vertex: expected level 0 (%s), got level %d (%s)",
                                t->levels[0].name, level, t->levels[level].name);
    } else {
        if (parent >= t->nv)
            return cm_error_set(err, "vertex %s: parent %d does not exist",
                                label ? label : "(unlabelled)", parent);
        if (t->vlevel[parent] >= level)
            return cm_error_set(err,
                "vertex %s: level %s must be below its parent's level %s",
                label ? label : "(unlabelled)", t->levels[level].name,
                t->levels[t->vlevel[parent]].name);
    }
    if (grow_vertices(t, err) < 0)
        return -1;
    char *copy = NULL;
    if (label && !(copy = strdup(label)))
        return cm_error_set(err, "machine tree: out of memory");
    int v = t->nv++;
    t->vlevel[v] = level;
    t->vparent[v] = parent;
    t->vlabel[v] = copy;
    t->vspeed[v] = 1.0;
    t->levels[level].nvertices++;
    return v;
}

int cm_tree_set_speed(cm_tree_t *t, int vertex, double speed, cm_error_t *err)
{
    if (!t || vertex < 0 || vertex >= t->nv)
        return cm_error_set(err, "cm_tree_set_speed: vertex %d does not exist", vertex);
    if (!isfinite(speed) || speed <= 0)
        return cm_error_set(err, "vertex %d: speed must be finite and > 0, got %g",
                            vertex, speed);
    t->vspeed[vertex] = speed;
    return 0;
}

int cm_tree_finalize(cm_tree_t *t, cm_error_t *err)
{
    if (!t)
        return cm_error_set(err, "cm_tree_finalize: NULL tree");
    if (t->finalized)
        return 0;
    if (t->nlevels == 0)
        return cm_error_set(err, "machine tree: no levels");
    /* nv is checked on the local copy: gcc 14 cannot see that t->nv keeps
     * its sign across the allocations below and warns on the memcpy. */
    int nv = t->nv, last = t->nlevels - 1;
    if (nv <= 0)
        return cm_error_set(err, "machine tree: no vertices");
    for (int l = 0; l < t->nlevels && !t->allow_empty_levels; l++)
        if (t->levels[l].nvertices == 0)
            return cm_error_set(err, "machine tree: level %s has no vertex",
                                t->levels[l].name);
    t->child_start = calloc((size_t)nv + 1, sizeof(int));
    t->child_list = malloc((size_t)nv * sizeof(int));
    t->slot_first = malloc((size_t)nv * sizeof(int));
    t->slot_count = calloc((size_t)nv, sizeof(int));
    t->depth = malloc((size_t)nv * sizeof(int));
    t->vnode = malloc((size_t)nv * sizeof(int));
    if (!t->child_start || !t->child_list || !t->slot_first || !t->slot_count ||
        !t->depth || !t->vnode)
        goto oom;

    /* Children CSR, stable in insertion order. */
    for (int v = 1; v < nv; v++)
        t->child_start[t->vparent[v] + 1]++;
    for (int v = 0; v < nv; v++)
        t->child_start[v + 1] += t->child_start[v];
    {
        int *fill = malloc((size_t)nv * sizeof(int));
        if (!fill)
            goto oom;
        memcpy(fill, t->child_start, (size_t)nv * sizeof(int));
        for (int v = 1; v < nv; v++)
            t->child_list[fill[t->vparent[v]]++] = v;
        free(fill);
    }

    /* Leaves must be of the last level (the last level cannot have children,
     * since children are strictly deeper). */
    for (int v = 0; v < nv; v++) {
        int leaf = t->child_start[v + 1] == t->child_start[v];
        if (leaf && t->vlevel[v] != last) {
            const char *lb = t->vlabel[v];
            cm_error_set(err, "machine tree: vertex %d%s%s%s of level %s has no "
                         "children; leaves must be of the last level (%s)",
                         v, lb ? " (" : "", lb ? lb : "", lb ? ")" : "",
                         t->levels[t->vlevel[v]].name, t->levels[last].name);
            goto fail;
        }
    }

    /* Subtree slot counts (children have larger ids than parents). */
    for (int v = nv - 1; v >= 0; v--) {
        if (t->vlevel[v] == last)
            t->slot_count[v] = 1;
        if (v > 0) {
            long long c = (long long)t->slot_count[t->vparent[v]] + t->slot_count[v];
            if (c > (1 << 28)) {
                cm_error_set(err, "machine tree: more than %d slots", 1 << 28);
                goto fail;
            }
            t->slot_count[t->vparent[v]] = (int)c;
        }
    }
    t->nslots = t->slot_count[0];

    /* Slot ranges in depth-first order, depths, node indices. */
    t->slot_vertex = malloc((size_t)t->nslots * sizeof(int));
    if (!t->slot_vertex)
        goto oom;
    int node_level = cm_tree_level_index(t, "node");
    t->nnodes = node_level >= 0 ? t->levels[node_level].nvertices : 0;
    t->node_vertex = malloc(((size_t)t->nnodes + 1) * sizeof(int));
    if (!t->node_vertex)
        goto oom;
    t->slot_first[0] = 0;
    t->depth[0] = 0;
    t->adepth = 0;
    int nodes = 0;
    for (int v = 0; v < nv; v++) {
        if (v > 0)
            t->depth[v] = t->depth[t->vparent[v]] + 1;
        if (t->vlevel[v] == node_level) {
            t->vnode[v] = nodes;
            t->node_vertex[nodes++] = v;
        } else {
            t->vnode[v] = v > 0 ? t->vnode[t->vparent[v]] : -1;
        }
        int next = t->slot_first[v];
        for (int k = t->child_start[v]; k < t->child_start[v + 1]; k++) {
            int c = t->child_list[k];
            t->slot_first[c] = next;
            next += t->slot_count[c];
        }
        if (t->vlevel[v] == last) {
            t->slot_vertex[t->slot_first[v]] = v;
            if (t->depth[v] > t->adepth)
                t->adepth = t->depth[v];
        }
    }

    /* Per-slot inner-ancestor table, when it fits. */
    size_t entries = (size_t)t->nslots * (size_t)t->adepth;
    if (entries > 0 && entries <= ANC_TABLE_MAX) {
        t->anc = malloc(entries * sizeof(int));
        if (!t->anc)
            goto oom;
        for (size_t i = 0; i < entries; i++)
            t->anc[i] = -1;
        for (int v = 0; v < nv; v++) {
            if (t->vlevel[v] == last)
                continue;
            int d = t->depth[v];
            for (int s = t->slot_first[v]; s < t->slot_first[v] + t->slot_count[v]; s++)
                t->anc[(size_t)s * t->adepth + d] = v;
        }
    }
    if (build_path_keys(t) < 0)
        goto oom;
    t->finalized = 1;
    return 0;

oom:
    cm_error_set(err, "machine tree: out of memory while finalizing %d vertices", nv);
fail:
    free_finalized(t);
    return -1;
}

/* ---- level costs ---- */

/* Default latency and bandwidth of the named levels (docs/machine-costs.md).
 * The anchors are one-way 8-byte and 16 MiB ping-pong times measured on the
 * project's reference platform (docs/simulation.md: 100 Gb/s 2:1 fat tree,
 * 0.5 us per hop): 0.21 us and 19 GB/s inside a node, 1.05 us and 11.9 GB/s
 * through one leaf switch, 2.10 us across leaves.  Inside a node each step
 * out (cache -> NUMA/socket -> other socket) adds latency and loses
 * bandwidth, so that a pair placed deeper never costs more; the scotch
 * baseline's tree-leaf target needs costs that grow towards the root.
 * Each switch level up: two more 0.5 us hops, and a 2:1 oversubscribed
 * uplink stage that halves what a node can count on. */
#define SWITCH_LATENCY 1.05e-6     /* s, the leaf switch */
#define SWITCH_BANDWIDTH 12.5e9    /* bytes/s, the leaf switch (100 Gb/s) */
#define SWITCH_LEVEL_MAX 30

static const struct {
    const char *name;
    double latency, bandwidth;     /* s, bytes/s */
} node_levels[] = {
    { "core",   0,       INFINITY },  /* two ranks on one slot */
    { "l2",     0.2e-6,  20e9 },
    { "l3",     0.2e-6,  20e9 },
    { "numa",   0.3e-6,  16e9 },
    { "socket", 0.3e-6,  16e9 },
    { "node",   0.4e-6,  14e9 },
    /* GPU trees: two ranks on one GPU share its memory; a direct GPU link
     * is priced from hwloc's bandwidth matrix by the reader, these are
     * for trees that name the level without one (one NVLink 3 pair). */
    { "gpu",    0,       INFINITY },
    { "task",   0,       INFINITY },
    { "nvlink", 0.2e-6,  50e9 },
    { "xgmi",   0.2e-6,  50e9 },
    { "xelink", 0.2e-6,  50e9 },
};

/* Switch level of a name: 0 for "switch", k for "switch<k>", 1 for
 * "cluster" and "root" (above a single switch level: the readers that know
 * their top switch level use the one above it); -1 for other names. */
static int switch_level(const char *name)
{
    if (!strcmp(name, "switch"))
        return 0;
    if (!strcmp(name, "cluster") || !strcmp(name, "root"))
        return 1;
    if (!strncmp(name, "switch", 6) && isdigit((unsigned char)name[6])) {
        char *end;
        long k = strtol(name + 6, &end, 10);
        if (*end == '\0' && k >= 0 && k <= SWITCH_LEVEL_MAX)
            return (int)k;
    }
    return -1;
}

/* 0 and the defaults of @p name, or -1 for a name without defaults. */
static int level_defaults(const char *name, double *latency, double *bandwidth)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof node_levels / sizeof node_levels[0]; i++)
        if (!strcmp(name, node_levels[i].name)) {
            *latency = node_levels[i].latency;
            *bandwidth = node_levels[i].bandwidth;
            return 0;
        }
    int k = switch_level(name);
    if (k < 0)
        return -1;
    *latency = (k + 1) * SWITCH_LATENCY;
    *bandwidth = ldexp(SWITCH_BANDWIDTH, -k);
    return 0;
}

double cm_tree_default_latency(const char *name)
{
    double lat, bw;
    return level_defaults(name, &lat, &bw) == 0 ? lat : -1.0;
}

double cm_tree_default_bandwidth(const char *name)
{
    double lat, bw;
    return level_defaults(name, &lat, &bw) == 0 ? bw : -1.0;
}

double cm_tree_default_cost(const char *name)
{
    double bw = cm_tree_default_bandwidth(name);
    return bw < 0 ? -1.0 : 1.0 / bw;   /* 1 / inf = 0 */
}

int cm_tree_add_default_level(cm_tree_t *t, const char *name, const char *costs_of,
                              cm_error_t *err)
{
    double lat, bw;
    if (level_defaults(costs_of, &lat, &bw) < 0)
        return cm_error_set(err, "level %s: no default costs for level '%s'",
                            name ? name : "(null)", costs_of ? costs_of : "(null)");
    return cm_tree_add_level(t, name, 1.0 / bw, lat, err);
}

int cm_tree_set_level_cost(cm_tree_t *t, int level, double byte_cost,
                           double msg_cost, cm_error_t *err)
{
    if (!t || level < 0 || level >= t->nlevels)
        return cm_error_set(err, "cm_tree_set_level_cost: level %d does not exist", level);
    if (check_costs(t->levels[level].name, byte_cost, msg_cost, err) < 0)
        return -1;
    t->levels[level].byte_cost = byte_cost;
    t->levels[level].msg_cost = msg_cost;
    return 0;
}

/* A value with an optional unit suffix: the units' factors, "" for none. */
typedef struct unit {
    const char *suffix;
    double factor;
} unit_t;

static const unit_t latency_units[] = {
    { "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 },
    { NULL, 0 }
};

/* Decimal and binary bytes, and bits ("100Gb/s" = "12.5GB/s"). */
static const unit_t bandwidth_units[] = {
    { "", 1 }, { "B/s", 1 }, { "kB/s", 1e3 }, { "KB/s", 1e3 }, { "MB/s", 1e6 },
    { "GB/s", 1e9 }, { "TB/s", 1e12 }, { "KiB/s", 1024.0 },
    { "MiB/s", 1048576.0 }, { "GiB/s", 1073741824.0 }, { "b/s", 0.125 },
    { "kb/s", 125.0 }, { "Kb/s", 125.0 }, { "Mb/s", 1.25e5 }, { "Gb/s", 1.25e8 },
    { "Tb/s", 1.25e11 }, { NULL, 0 }
};

/* What one kind of "name=value,..." spec means and sets. */
typedef struct spec_kind {
    const char *fn;        /* the public function, for argument errors */
    const char *what;      /* for messages: "level costs", ... */
    const unit_t *units;   /* NULL: a plain number */
    int positive;          /* 0 is not allowed (bandwidth) */
    int allow_inf;         /* "inf" is allowed (bandwidth: free bytes) */
    int msg;               /* sets the message cost, else the byte cost */
    int invert;            /* the cost is 1 / value (bandwidth) */
} spec_kind_t;

static const spec_kind_t byte_cost_spec = {
    "cm_tree_set_level_costs", "level costs", NULL, 0, 0, 0, 0 };
static const spec_kind_t latency_spec = {
    "cm_tree_set_level_latencies", "level latencies", latency_units, 0, 0, 1, 0 };
static const spec_kind_t bandwidth_spec = {
    "cm_tree_set_level_bandwidths", "level bandwidths", bandwidth_units, 1, 1, 0, 1 };

/* A number followed by one of @p units (no unit list: a plain number). */
static int parse_value(const char *num, const unit_t *units, double *out)
{
    char *end;
    double v = strtod(num, &end);
    if (end == num)
        return -1;
    if (!units)
        return *end == '\0' ? (*out = v, 0) : -1;
    for (const unit_t *u = units; u->suffix; u++)
        if (!strcmp(end, u->suffix)) {
            *out = v * u->factor;
            return 0;
        }
    return -1;
}

static void unit_list(const unit_t *units, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const unit_t *u = units; u && u->suffix && used < size; u++)
        if (*u->suffix)
            used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                     used ? ", " : "", u->suffix);
}

/* Parse "name=value[,name=value...]" against the levels of @p t into
 * value[] / set[] (indexed by level).  Nothing is changed on error.  With
 * no tree only the form is judged and value and set may be NULL. */
static int parse_level_spec(const cm_tree_t *t, const char *spec, const spec_kind_t *k,
                            double *value, int *set, cm_error_t *err)
{
    const char *p = spec;
    if (!*p)
        return cm_error_set(err, "%s '': expected name=value[,name=value...]", k->what);
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq || eq == p || eq == p + len - 1)
            return cm_error_set(err, "%s '%s': expected name=value, got '%.*s'",
                                k->what, spec, (int)len, p);
        char name[LEVEL_NAME_MAX + 1];
        size_t nlen = (size_t)(eq - p);
        if (nlen > LEVEL_NAME_MAX)
            return cm_error_set(err, "%s '%s': level name too long", k->what, spec);
        memcpy(name, p, nlen);
        name[nlen] = '\0';
        /* without a machine only the form is judged: names are the machine's */
        int level = t ? cm_tree_level_index(t, name) : 0;
        if (level < 0) {
            char known[400] = "";
            size_t used = 0;
            for (int l = 0; l < t->nlevels && used < sizeof known; l++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                         l ? ", " : "", t->levels[l].name);
            return cm_error_set(err, "%s '%s': unknown level '%s' (known: %s)",
                                k->what, spec, name, known);
        }
        char num[64];
        size_t vlen = len - nlen - 1;
        if (vlen >= sizeof num)
            return cm_error_set(err, "%s '%s': value of %s too long", k->what, spec, name);
        memcpy(num, eq + 1, vlen);
        num[vlen] = '\0';
        double v;
        if (parse_value(num, k->units, &v) < 0) {
            char units[200];
            unit_list(k->units, units, sizeof units);
            return cm_error_set(err, "%s '%s': expected a number%s%s%s for %s, got '%s'",
                                k->what, spec, *units ? " (optionally with a unit: " : "",
                                units, *units ? ")" : "", name, num);
        }
        if (isnan(v) || v < 0 || (k->positive && v == 0) || (!k->allow_inf && isinf(v)))
            return cm_error_set(err, "%s '%s': value of %s must be %s, got '%s'", k->what,
                                spec, name,
                                k->positive ? "> 0" : "finite and >= 0", num);
        if (value)
            value[level] = v;
        if (set)
            set[level] = 1;
        p += len;
        if (*p == ',') {
            p++;
            if (!*p)
                return cm_error_set(err, "%s '%s': trailing ','", k->what, spec);
        }
    }
    return 0;
}

/* Validate the whole spec first so that a bad item leaves the tree as it was. */
static int set_from_spec(cm_tree_t *t, const char *spec, const spec_kind_t *k,
                         cm_error_t *err)
{
    double v[LEVELS_MAX];
    int set[LEVELS_MAX] = {0};
    if (!t || !spec)
        return cm_error_set(err, "%s: NULL argument", k->fn);
    if (parse_level_spec(t, spec, k, v, set, err) < 0)
        return -1;
    for (int l = 0; l < t->nlevels; l++) {
        if (!set[l])
            continue;
        double c = k->invert ? 1.0 / v[l] : v[l];
        if (k->msg)
            t->levels[l].msg_cost = c;
        else
            t->levels[l].byte_cost = c;
    }
    return 0;
}

int cm_tree_set_level_costs(cm_tree_t *t, const char *spec, cm_error_t *err)
{
    return set_from_spec(t, spec, &byte_cost_spec, err);
}

int cm_tree_set_level_latencies(cm_tree_t *t, const char *spec, cm_error_t *err)
{
    return set_from_spec(t, spec, &latency_spec, err);
}

int cm_tree_set_level_bandwidths(cm_tree_t *t, const char *spec, cm_error_t *err)
{
    return set_from_spec(t, spec, &bandwidth_spec, err);
}

int cm_level_spec_check(cm_level_spec_t kind, const char *spec, cm_error_t *err)
{
    static const spec_kind_t *const kinds[] = {
        [CM_LEVEL_COSTS] = &byte_cost_spec,
        [CM_LEVEL_LATENCIES] = &latency_spec,
        [CM_LEVEL_BANDWIDTHS] = &bandwidth_spec,
    };
    if ((unsigned)kind >= sizeof kinds / sizeof kinds[0])
        return cm_error_set(err, "cm_level_spec_check: unknown kind %d", (int)kind);
    if (!spec)
        return cm_error_set(err, "%s: NULL argument", "cm_level_spec_check");
    return parse_level_spec(NULL, spec, kinds[kind], NULL, NULL, err);
}

/* ---- queries ---- */

int cm_tree_nslots(const cm_tree_t *t) { return t ? t->nslots : 0; }
int cm_tree_nlevels(const cm_tree_t *t) { return t ? t->nlevels : 0; }

const char *cm_tree_level_name(const cm_tree_t *t, int level)
{
    if (!t || level < 0 || level >= t->nlevels)
        return NULL;
    return t->levels[level].name;
}

int cm_tree_level_index(const cm_tree_t *t, const char *name)
{
    if (!t || !name)
        return -1;
    for (int l = 0; l < t->nlevels; l++)
        if (!strcmp(t->levels[l].name, name))
            return l;
    return -1;
}

double cm_tree_level_byte_cost(const cm_tree_t *t, int level)
{
    return t && level >= 0 && level < t->nlevels ? t->levels[level].byte_cost : 0.0;
}

double cm_tree_level_msg_cost(const cm_tree_t *t, int level)
{
    return t && level >= 0 && level < t->nlevels ? t->levels[level].msg_cost : 0.0;
}

int cm_tree_nvertices(const cm_tree_t *t) { return t ? t->nv : 0; }

static int valid_vertex(const cm_tree_t *t, int v)
{
    return t && v >= 0 && v < t->nv;
}

int cm_tree_vertex_level(const cm_tree_t *t, int v)
{
    return valid_vertex(t, v) ? t->vlevel[v] : -1;
}

int cm_tree_vertex_parent(const cm_tree_t *t, int v)
{
    return valid_vertex(t, v) ? t->vparent[v] : -1;
}

int cm_tree_vertex_nchildren(const cm_tree_t *t, int v)
{
    if (!valid_vertex(t, v) || !t->finalized)
        return 0;
    return t->child_start[v + 1] - t->child_start[v];
}

int cm_tree_vertex_child(const cm_tree_t *t, int v, int k)
{
    if (k < 0 || k >= cm_tree_vertex_nchildren(t, v))
        return -1;
    return t->child_list[t->child_start[v] + k];
}

const char *cm_tree_vertex_label(const cm_tree_t *t, int v)
{
    return valid_vertex(t, v) ? t->vlabel[v] : NULL;
}

double cm_tree_vertex_speed(const cm_tree_t *t, int v)
{
    return valid_vertex(t, v) ? t->vspeed[v] : 0.0;
}

void cm_tree_vertex_slots(const cm_tree_t *t, int v, int *first, int *count)
{
    int f = 0, c = 0;
    if (valid_vertex(t, v) && t->finalized) {
        f = t->slot_first[v];
        c = t->slot_count[v];
    }
    if (first)
        *first = f;
    if (count)
        *count = c;
}

int cm_tree_slot_vertex(const cm_tree_t *t, int s)
{
    if (!t || !t->finalized || s < 0 || s >= t->nslots)
        return -1;
    return t->slot_vertex[s];
}

int cm_tree_lca_level(const cm_tree_t *t, int p, int q)
{
    if (!t || !t->finalized || p < 0 || q < 0 || p >= t->nslots || q >= t->nslots)
        return -1;
    const int *sv = t->slot_vertex;
    if (p == q)
        return t->nlevels - 1;
    if (t->skey)
        return t->lev_of_clz[__builtin_clzll(t->skey[p] ^ t->skey[q])];
    if (t->anc) {
        const int *ap = t->anc + (size_t)p * t->adepth;
        const int *aq = t->anc + (size_t)q * t->adepth;
        int dp = t->depth[sv[p]], dq = t->depth[sv[q]];
        int d = (dp < dq ? dp : dq) - 1;
        while (ap[d] != aq[d])
            d--;
        return t->vlevel[ap[d]];
    }
    int v = t->vparent[sv[p]];
    while (q < t->slot_first[v] || q >= t->slot_first[v] + t->slot_count[v])
        v = t->vparent[v];
    return t->vlevel[v];
}

void cm_tree_drop_lca_table(cm_tree_t *t)
{
    if (t) {
        free(t->anc);
        free(t->skey);
        t->anc = NULL;
        t->skey = NULL;
    }
}

int cm_tree_has_lca_table(const cm_tree_t *t)
{
    return t && t->anc != NULL;
}

int cm_tree_nnodes(const cm_tree_t *t) { return t && t->finalized ? t->nnodes : 0; }

int cm_tree_node_vertex(const cm_tree_t *t, int node)
{
    if (!t || !t->finalized || node < 0 || node >= t->nnodes)
        return -1;
    return t->node_vertex[node];
}

int cm_tree_slot_node(const cm_tree_t *t, int s)
{
    if (!t || !t->finalized || s < 0 || s >= t->nslots)
        return -1;
    return t->vnode[t->slot_vertex[s]];
}

/* ---- the tree a restricted tree was cut from ---- */

void cm_tree_allow_empty_levels(cm_tree_t *t)
{
    if (t)
        t->allow_empty_levels = 1;
}

void cm_tree_set_origin(cm_tree_t *t, int *origin, int *node_origin,
                        int origin_nslots, int origin_nnodes)
{
    free(t->origin);
    free(t->node_origin);
    t->origin = origin;
    t->node_origin = node_origin;
    t->origin_nslots = origin_nslots;
    t->origin_nnodes = origin_nnodes;
}

int cm_tree_origin_nslots(const cm_tree_t *t)
{
    return !t ? 0 : t->origin ? t->origin_nslots : cm_tree_nslots(t);
}

int cm_tree_origin_nnodes(const cm_tree_t *t)
{
    return !t ? 0 : t->origin ? t->origin_nnodes : cm_tree_nnodes(t);
}

int cm_tree_slot_origin(const cm_tree_t *t, int s)
{
    if (!t || !t->finalized || s < 0 || s >= t->nslots)
        return -1;
    return t->origin ? t->origin[s] : s;
}

int cm_tree_node_origin(const cm_tree_t *t, int node)
{
    if (!t || !t->finalized || node < 0 || node >= t->nnodes)
        return -1;
    return t->node_origin ? t->node_origin[node] : node;
}

static int cmp_slot(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int cm_tree_slot_from_origin(const cm_tree_t *t, int origin)
{
    if (!t || !t->finalized || origin < 0 || origin >= cm_tree_origin_nslots(t))
        return -1;
    if (!t->origin)
        return origin;
    /* Origins increase with the slots: a binary search. */
    const int *p = bsearch(&origin, t->origin, (size_t)t->nslots, sizeof origin,
                           cmp_slot);
    return p ? (int)(p - t->origin) : -1;
}

void cm_tree_print(const cm_tree_t *t, FILE *f)
{
    if (!t || !f)
        return;
    fprintf(f, "tree: %d levels, %d vertices, %d slots, %d nodes\n",
            t->nlevels, t->nv, t->nslots, t->finalized ? t->nnodes : 0);
    if (t->origin)
        fprintf(f, "restricted from a tree of %d slots, %d nodes\n",
                t->origin_nslots, t->origin_nnodes);
    for (int l = 0; l < t->nlevels; l++)
        fprintf(f, "level %d %s byte_cost=%g msg_cost=%g vertices=%d\n", l,
                t->levels[l].name, t->levels[l].byte_cost, t->levels[l].msg_cost,
                t->levels[l].nvertices);
    if (!t->finalized)
        return;
    /* Iterative depth-first walk: deep trees must not overflow the stack. */
    int *stack = malloc((size_t)t->nv * sizeof(int));
    if (!stack)
        return;
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        int v = stack[--top];
        int l = t->vlevel[v];
        fprintf(f, "%*s%s", 2 * t->depth[v], "", t->levels[l].name);
        if (t->vlabel[v])
            fprintf(f, " %s", t->vlabel[v]);
        if (l == t->nlevels - 1)
            fprintf(f, " slot %d", t->slot_first[v]);
        else
            fprintf(f, " slots %d-%d", t->slot_first[v],
                    t->slot_first[v] + t->slot_count[v] - 1);
        if (t->vnode[v] >= 0 && l == cm_tree_level_index(t, "node"))
            fprintf(f, " node#%d", t->vnode[v]);
        if (t->vspeed[v] != 1.0)
            fprintf(f, " speed=%g", t->vspeed[v]);
        fputc('\n', f);
        for (int k = t->child_start[v + 1] - 1; k >= t->child_start[v]; k--)
            stack[top++] = t->child_list[k];
    }
    free(stack);
}
