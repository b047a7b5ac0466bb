/* tree_hierarchy.c -- machine tree from a VieM/KaHIP "a1:a2:...:ak" hierarchy,
 * or from one that names its levels, "core=8,node=2,switch=4" (8 cores per
 * node, 2 nodes per switch, 4 switches): the named form says where the
 * nodes are instead of leaving the reader to guess.
 *
 * a1 slots per innermost group, a2 innermost groups per level-2 group, ...,
 * ak level-(k-1) groups in the single top group, which is the root.  The
 * groups are named, innermost first, socket, node, switch, group4, group5 ...
 * (a single entry names its group "node") and carry the matching distance as
 * byte cost.  Vertices are added level by level in order, so slot p sits in
 * innermost group p / a1 and nodes are numbered left to right.  The same
 * numbering, computed, lets cm_tree_from_hierarchy_restricted() cut out the
 * part n ranks can use without building the rest.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"
#include "tree_internal.h"

#define HIER_MAX_LEVELS 32
#define HIER_MAX_SLOTS (1L << 24)

/* Split "x:y:z" (or "x,y,z" when @p sep is ',') into at most
 * HIER_MAX_LEVELS non-empty fields. */
static int split_by(const char *what, const char *s, char sep, char fields[][64],
                    int *n, cm_error_t *err)
{
    *n = 0;
    if (!s || !*s)
        return cm_error_set(err, "%s: expected a ':'-separated list, got an empty string",
                            what);
    const char *p = s;
    for (;;) {
        const char *colon = strchr(p, sep);
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        if (len == 0)
            return cm_error_set(err, "%s '%s': field %d is empty", what, s, *n + 1);
        if (len >= 64)
            return cm_error_set(err, "%s '%s': field %d is too long", what, s, *n + 1);
        if (*n >= HIER_MAX_LEVELS)
            return cm_error_set(err, "%s '%s': more than %d fields", what, s,
                                HIER_MAX_LEVELS);
        memcpy(fields[*n], p, len);
        fields[*n][len] = '\0';
        (*n)++;
        if (!colon)
            return 0;
        p = colon + 1;
    }
}

static int split(const char *what, const char *s, char fields[][64], int *n,
                 cm_error_t *err)
{
    return split_by(what, s, ':', fields, n, err);
}

static const char *group_name(int i, int k, char *buf, size_t size)
{
    static const char *names[] = {"socket", "node", "switch"};
    if (k == 1)
        return "node";
    if (i < 3)
        return names[i];
    snprintf(buf, size, "group%d", i + 1);
    return buf;
}

/* A parsed hierarchy as a regular tree, levels root first: level j < k is
 * group k - 1 - j (innermost first), level k the slots.  Vertices are
 * numbered level by level, so the vertices of level j are the ids
 * off[j] .. off[j + 1] - 1 and the c-th child of the i-th is the
 * (i x fan[j] + c)-th of level j + 1: what cm_tree_from_hierarchy() builds,
 * computed without building it (cm_tree_from_hierarchy_restricted). */
typedef struct hier {
    int k;                             /* groups */
    double d[HIER_MAX_LEVELS];         /* distances, innermost first */
    int fan[HIER_MAX_LEVELS + 1];      /* children of a vertex of level j */
    int off[HIER_MAX_LEVELS + 2];      /* first id of level j; off[k + 1]: all */
    int span[HIER_MAX_LEVELS + 1];     /* slots under a vertex of level j */
    int node_level;
    int named;                         /* names[] given by the user */
    char names[HIER_MAX_LEVELS][32];   /* group names, innermost first */
} hier_t;

/* "core=8,node=2,switch=4": field 1 must be core=N (cores per innermost
 * group); field i > 1 names the group that holds field i - 1's items
 * ("node=2": 2 nodes per next group); the root holding the last field's
 * items is "cluster".  Exactly one field is node=.  Writes the counts to
 * @p a (innermost first) and the group names to h->names. */
static int parse_named(const char *hierarchy, long *a, int *k, hier_t *h,
                       cm_error_t *err)
{
    char f[HIER_MAX_LEVELS][64];
    int n, nodes = 0;
    if (split_by("hierarchy", hierarchy, ',', f, &n, err) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        char *eq = strchr(f[i], '='), *end;
        if (!eq || eq == f[i] || (size_t)(eq - f[i]) >= sizeof h->names[0])
            return cm_error_set(err, "hierarchy '%s': field %d: expected LEVEL=COUNT, "
                                "got '%s'", hierarchy, i + 1, f[i]);
        *eq = '\0';
        a[i] = strtol(eq + 1, &end, 10);
        if (*end || eq[1] == '-' || eq[1] == '+' || !eq[1] || a[i] <= 0)
            return cm_error_set(err, "hierarchy '%s': field %d: expected a positive "
                                "integer after '%s=', got '%s'", hierarchy, i + 1,
                                f[i], eq + 1);
        if (strspn(f[i], "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(f[i]))
            return cm_error_set(err, "hierarchy '%s': field %d: level name '%s': "
                                "expected [a-z0-9_]", hierarchy, i + 1, f[i]);
        if (i == 0 && strcmp(f[i], "core"))
            return cm_error_set(err, "hierarchy '%s': field 1: expected core=N "
                                "(cores per innermost group), got '%s='", hierarchy,
                                f[i]);
        if (i > 0 && !strcmp(f[i], "core"))
            return cm_error_set(err, "hierarchy '%s': field %d: only field 1 is core=",
                                hierarchy, i + 1);
        for (int j = 1; j < i; j++)
            if (!strcmp(f[j], f[i]))
                return cm_error_set(err, "hierarchy '%s': level '%s' named twice",
                                    hierarchy, f[i]);
        if (i > 0)
            snprintf(h->names[i - 1], sizeof h->names[0], "%.31s", f[i]);
        nodes += !strcmp(f[i], "node");
    }
    if (nodes != 1)
        return cm_error_set(err, "hierarchy '%s': expected exactly one node=COUNT "
                            "field (which level is a node must be said)", hierarchy);
    snprintf(h->names[n - 1], sizeof h->names[0], "cluster");
    for (int g = 0; g < n; g++)
        if (!strcmp(h->names[g], "node"))
            h->node_level = n - 1 - g;
    *k = n;
    h->named = 1;
    return 0;
}

static int parse(const char *hierarchy, const char *distances, hier_t *h,
                 cm_error_t *err)
{
    char hf[HIER_MAX_LEVELS][64], df[HIER_MAX_LEVELS][64];
    int k, kd;
    long a[HIER_MAX_LEVELS];
    int named = hierarchy && strchr(hierarchy, '=');
    memset(h, 0, sizeof *h);
    if ((named ? parse_named(hierarchy, a, &k, h, err)
               : split("hierarchy", hierarchy, hf, &k, err)) < 0 ||
        split("distances", distances, df, &kd, err) < 0)
        return -1;
    if (k != kd)
        return cm_error_set(err, "hierarchy '%s' has %d levels but distances '%s' has %d",
                            hierarchy, k, distances, kd);
    long total = 1;
    for (int i = 0; i < k; i++) {
        char *end;
        if (!named)
            a[i] = strtol(hf[i], &end, 10);
        if (!named && (*end || hf[i][0] == '-' || hf[i][0] == '+'))
            return cm_error_set(err, "hierarchy '%s': field %d: expected a positive "
                                "integer, got '%s'", hierarchy, i + 1, hf[i]);
        if (a[i] <= 0)
            return cm_error_set(err, "hierarchy '%s': field %d: expected a positive "
                                "integer, got %ld", hierarchy, i + 1, a[i]);
        if (a[i] > HIER_MAX_SLOTS || total * a[i] > HIER_MAX_SLOTS)
            return cm_error_set(err, "hierarchy '%s': more than %ld slots", hierarchy,
                                HIER_MAX_SLOTS);
        total *= a[i];
        h->d[i] = strtod(df[i], &end);
        if (*end || !isfinite(h->d[i]) || h->d[i] < 0)
            return cm_error_set(err, "distances '%s': field %d: expected a finite "
                                "number >= 0, got '%s'", distances, i + 1, df[i]);
    }
    /* At most HIER_MAX_SLOTS vertices per level and 33 levels: ids fit. */
    h->k = k;
    h->off[0] = 0;
    int count = 1;
    for (int j = 0; j <= k; j++) {
        h->fan[j] = j < k ? (int)a[k - 1 - j] : 0;
        h->off[j + 1] = h->off[j] + count;
        count *= j < k ? h->fan[j] : 1;
    }
    h->span[k] = 1;
    for (int j = k - 1; j >= 0; j--)
        h->span[j] = h->span[j + 1] * h->fan[j];
    if (!named)
        h->node_level = k == 1 ? 0 : k - 2;
    return 0;
}

static int add_levels(const void *ctx, cm_tree_t *t, cm_error_t *err)
{
    const hier_t *h = ctx;
    char buf[32];
    for (int i = h->k - 1; i >= 0; i--)
        if (cm_tree_add_level(t, h->named ? h->names[i]
                                          : group_name(i, h->k, buf, sizeof buf),
                              h->d[i], 0.0, err) < 0)
            return -1;
    return cm_tree_add_level(t, "core", 0.0, 0.0, err) < 0 ? -1 : 0;
}

cm_tree_t *cm_tree_from_hierarchy(const char *hierarchy, const char *distances,
                                  cm_error_t *err)
{
    hier_t h;
    if (parse(hierarchy, distances, &h, err) < 0)
        return NULL;
    cm_tree_t *t = cm_tree_new();
    if (!t) {
        cm_error_set(err, "hierarchy: out of memory");
        return NULL;
    }
    if (add_levels(&h, t, err) < 0 || cm_tree_add_vertex(t, -1, 0, NULL, err) < 0)
        goto fail;
    /* Level by level, so that ids are those hier_t computes. */
    for (int j = 0; j < h.k; j++)
        for (int v = h.off[j]; v < h.off[j + 1]; v++)
            for (int c = 0; c < h.fan[j]; c++)
                if (cm_tree_add_vertex(t, v, j + 1, NULL, err) < 0)
                    goto fail;
    if (cm_tree_finalize(t, err) < 0)
        goto fail;
    return t;
fail:
    cm_tree_free(t);
    return NULL;
}

/* ---- the hierarchy as a view (tree_internal.h) ---- */

static int h_level(const void *ctx, int v)
{
    const hier_t *h = ctx;
    int j = 0;
    while (v >= h->off[j + 1])
        j++;
    return j;
}

static int h_nchildren(const void *ctx, int v)
{
    return ((const hier_t *)ctx)->fan[h_level(ctx, v)];
}

static int h_child(const void *ctx, int v, int c)
{
    const hier_t *h = ctx;
    int j = h_level(ctx, v);
    return h->off[j + 1] + (v - h->off[j]) * h->fan[j] + c;
}

static int h_parent(const void *ctx, int v)
{
    const hier_t *h = ctx;
    int j = h_level(ctx, v);
    return j == 0 ? -1 : h->off[j - 1] + (v - h->off[j]) / h->fan[j - 1];
}

static void h_slots(const void *ctx, int v, int *first, int *count)
{
    const hier_t *h = ctx;
    int j = h_level(ctx, v);
    *first = (v - h->off[j]) * h->span[j];
    *count = h->span[j];
}

static int h_slot_vertex(const void *ctx, int s)
{
    const hier_t *h = ctx;
    return h->off[h->k] + s;
}

static int h_node_vertex(const void *ctx, int node)
{
    const hier_t *h = ctx;
    return h->off[h->node_level] + node;
}

static const char *h_label(const void *ctx, int v, char *buf, size_t size)
{
    (void)ctx, (void)v, (void)buf, (void)size;
    return NULL;
}

static int h_uniform(const void *ctx, int v)
{
    (void)ctx, (void)v;
    return 1;
}

cm_tree_t *cm_tree_from_hierarchy_restricted(const char *hierarchy,
                                             const char *distances, int n,
                                             const int *keep, int nkeep,
                                             cm_error_t *err)
{
    hier_t h;
    if (parse(hierarchy, distances, &h, err) < 0)
        return NULL;
    const cm_tree_view_t tv = {
        .ctx = &h, .nslots = h.span[0],
        .nnodes = h.off[h.node_level + 1] - h.off[h.node_level],
        .nchildren = h_nchildren, .child = h_child, .parent = h_parent,
        .level = h_level, .slots = h_slots, .slot_vertex = h_slot_vertex,
        .node_vertex = h_node_vertex, .label = h_label, .uniform = h_uniform,
        .add_levels = add_levels,
    };
    return cm_tree_restrict_view(&tv, n, 1, keep, nkeep, err);
}
