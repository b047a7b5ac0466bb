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
};

cm_tree_t *cm_tree_new(void)
{
    return calloc(1, sizeof(cm_tree_t));
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
    free(t->child_start);
    free(t->child_list);
    free(t->slot_first);
    free(t->slot_count);
    free(t->depth);
    free(t->vnode);
    free(t->slot_vertex);
    free(t->node_vertex);
    free(t->anc);
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
    if (t->nv == 0)
        return cm_error_set(err, "machine tree: no vertices");
    for (int l = 0; l < t->nlevels; l++)
        if (t->levels[l].nvertices == 0)
            return cm_error_set(err, "machine tree: level %s has no vertex",
                                t->levels[l].name);
    int nv = t->nv, last = t->nlevels - 1;
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
    t->finalized = 1;
    return 0;

oom:
    cm_error_set(err, "machine tree: out of memory while finalizing %d vertices", nv);
fail:
    free(t->child_start);
    free(t->child_list);
    free(t->slot_first);
    free(t->slot_count);
    free(t->depth);
    free(t->vnode);
    free(t->slot_vertex);
    free(t->node_vertex);
    free(t->anc);
    t->child_start = t->child_list = t->slot_first = t->slot_count = NULL;
    t->depth = t->vnode = t->slot_vertex = t->node_vertex = t->anc = NULL;
    t->nslots = t->nnodes = 0;
    return -1;
}

/* ---- level costs ---- */

double cm_tree_default_cost(const char *name)
{
    if (!name)
        return -1.0;
    if (!strcmp(name, "core"))
        return 0.0;
    if (!strcmp(name, "l2") || !strcmp(name, "l3") || !strcmp(name, "numa") ||
        !strcmp(name, "socket"))
        return 1.0;
    if (!strcmp(name, "node"))
        return 2.0;
    if (!strcmp(name, "switch"))
        return 10.0;
    if (!strncmp(name, "switch", 6)) {
        char *end;
        long k = strtol(name + 6, &end, 10);
        if (*end == '\0' && end != name + 6 && isdigit((unsigned char)name[6]) &&
            k >= 0 && k <= 30)
            return 10.0 * (double)(1L << k);
        return -1.0;
    }
    /* Without a tree at hand the highest switch is the leaf switch: the
     * readers that know better (slurm.conf) use twice their top switch. */
    if (!strcmp(name, "cluster") || !strcmp(name, "root"))
        return 20.0;
    return -1.0;
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

int cm_tree_set_level_costs(cm_tree_t *t, const char *spec, cm_error_t *err)
{
    if (!t || !spec)
        return cm_error_set(err, "cm_tree_set_level_costs: NULL argument");
    /* Validate everything first so a bad item leaves the tree unchanged. */
    double cost[LEVELS_MAX];
    int set[LEVELS_MAX] = {0};
    const char *p = spec;
    if (!*p)
        return cm_error_set(err, "level costs '': expected name=cost[,name=cost...]");
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq || eq == p || eq == p + len - 1)
            return cm_error_set(err, "level costs '%s': expected name=cost, got '%.*s'",
                                spec, (int)len, p);
        char name[LEVEL_NAME_MAX + 1];
        size_t nlen = (size_t)(eq - p);
        if (nlen > LEVEL_NAME_MAX)
            return cm_error_set(err, "level costs '%s': level name too long", spec);
        memcpy(name, p, nlen);
        name[nlen] = '\0';
        int level = cm_tree_level_index(t, name);
        if (level < 0) {
            char known[400] = "";
            size_t used = 0;
            for (int l = 0; l < t->nlevels && used < sizeof known; l++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                         l ? ", " : "", t->levels[l].name);
            return cm_error_set(err, "level costs '%s': unknown level '%s' (known: %s)",
                                spec, name, known);
        }
        char num[64];
        size_t vlen = len - nlen - 1;
        if (vlen >= sizeof num)
            return cm_error_set(err, "level costs '%s': cost of %s too long", spec, name);
        memcpy(num, eq + 1, vlen);
        num[vlen] = '\0';
        char *end;
        double c = strtod(num, &end);
        if (*end != '\0' || end == num)
            return cm_error_set(err, "level costs '%s': expected a number for %s, got '%s'",
                                spec, name, num);
        if (!isfinite(c) || c < 0)
            return cm_error_set(err, "level costs '%s': cost of %s must be finite and >= 0, "
                                "got '%s'", spec, name, num);
        cost[level] = c;
        set[level] = 1;
        p += len;
        if (*p == ',') {
            p++;
            if (!*p)
                return cm_error_set(err, "level costs '%s': trailing ','", spec);
        }
    }
    for (int l = 0; l < t->nlevels; l++)
        if (set[l])
            t->levels[l].byte_cost = cost[l];
    return 0;
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
    const int *sv = t->slot_vertex;
    if (p == q)
        return t->nlevels - 1;
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
        t->anc = NULL;
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

void cm_tree_print(const cm_tree_t *t, FILE *f)
{
    if (!t || !f)
        return;
    fprintf(f, "tree: %d levels, %d vertices, %d slots, %d nodes\n",
            t->nlevels, t->nv, t->nslots, t->finalized ? t->nnodes : 0);
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
