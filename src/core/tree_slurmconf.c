/* tree_slurmconf.c -- machine tree from slurm.conf and topology.conf.
 *
 * For offline tools (no controller): the NodeName lines of slurm.conf give
 * each node's sockets and cores, the SwitchName lines of topology.conf give
 * the switch tree.  Only the nodes of the allocation's node list are kept;
 * switches none of them sit under are pruned.
 *
 * A topology.conf of topology/block (BlockName=NAME Nodes=HOSTLIST lines,
 * one optional BlockSizes=N[,N...] line; topology.conf(5) of Slurm 24.11)
 * gives blocks, which cm_tree_from_blocks() turns into a level named
 * "block".  Slurm reads one topology plugin's lines, so a file mixing
 * SwitchName and BlockName lines is refused.  A node in no block is
 * refused as a node in no switch is: Slurm's topology/block warns at
 * start-up that its blocks "lack access" to such a node, and a tree that
 * left it out would price its pairs as if it shared no network with the
 * rest.
 *
 * Switch levels follow Slurm's topology/tree: a switch with Nodes= is level
 * 0, a switch with Switches= is one above its highest child.  A node in no
 * switch is an error (Slurm's topology/tree cannot place it either).  A
 * switch listed under several parents hangs under the first one in file
 * order.
 *
 * This file only reads and links; cm_tree_from_switches() (tree_switches.c)
 * turns the switches and nodes into the tree, as it does for the plugin.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clustermap.h"
#include "conf_lines_internal.h"

#define SC_MAX_INCLUDE_DEPTH 8
#define SC_MAX_INCLUDES 256
#define SC_MAX_NODES (1 << 20)
#define SC_MAX_SWITCHES (1 << 16)
#define SC_MAX_SLOTS (1L << 24)

/* ---- a small string -> int hash map ---- */

typedef struct strmap {
    char **keys;
    int *vals;
    size_t cap, n;
} strmap_t;

static size_t hash_str(const char *s)
{
    size_t h = 1469598103934665603ULL;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h;
}

static int *strmap_find(strmap_t *m, const char *key)
{
    if (!m->cap)
        return NULL;
    for (size_t i = hash_str(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->keys[i])
            return NULL;
        if (!strcmp(m->keys[i], key))
            return &m->vals[i];
    }
}

/* Insert; the key is borrowed (must outlive the map). */
static int strmap_put(strmap_t *m, char *key, int val)
{
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        char **keys = calloc(cap, sizeof *keys);
        int *vals = malloc(cap * sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->keys[i])
                continue;
            size_t j = hash_str(m->keys[i]) & (cap - 1);
            while (keys[j])
                j = (j + 1) & (cap - 1);
            keys[j] = m->keys[i];
            vals[j] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = keys;
        m->vals = vals;
        m->cap = cap;
    }
    size_t i = hash_str(key) & (m->cap - 1);
    while (m->keys[i])
        i = (i + 1) & (m->cap - 1);
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return 0;
}

static void strmap_free(strmap_t *m)
{
    free(m->keys);
    free(m->vals);
}

/* ---- records ---- */

/* Node hardware as written; 0 = not given. */
typedef struct hw {
    long sockets, cores, threads, cpus, boards, sockets_per_board, weight;
} hw_t;

typedef struct node {
    char *name;
    int sockets, cores; /* cores per socket */
    int threads;        /* per core */
} node_t;

typedef struct sw {
    char *name;
    char **nodes;
    int nnodes;
    char **children;
    int nchildren;
    int level;   /* -1 unknown, -2 being computed */
    int parent;  /* first switch listing this one, -1 */
    int line;
    int block; /* a BlockName line */
} sw_t;

typedef struct conf {
    node_t *nodes;
    int nn, ncap;
    strmap_t node_index;
    hw_t defaults;
    int includes;   /* Include lines followed so far, all files together */
} conf_t;

/* ---- slurm.conf ---- */

static int add_node(conf_t *c, const char *name, const hw_t *hw, const char *path,
                    int line, cm_error_t *err)
{
    if (strmap_find(&c->node_index, name))
        return cm_error_set(err, "%s:%d: node %s is defined twice", path, line, name);
    if (c->nn >= SC_MAX_NODES)
        return cm_error_set(err, "%s:%d: more than %d nodes", path, line, SC_MAX_NODES);
    long threads = hw->threads ? hw->threads : 1;
    long sockets = hw->sockets;
    if (!sockets && hw->sockets_per_board)
        sockets = hw->sockets_per_board * (hw->boards ? hw->boards : 1);
    long cores = hw->cores;
    if (!sockets && !cores && hw->cpus) {
        /* Only CPUs: one socket holding every core. */
        sockets = 1;
        cores = hw->cpus / threads;
    }
    if (!sockets)
        sockets = 1;
    if (!cores)
        cores = hw->cpus ? hw->cpus / (threads * sockets) : 1;
    if (cores < 1)
        return cm_error_set(err, "%s:%d: node %s: CPUs=%ld is fewer than Sockets=%ld x "
                            "ThreadsPerCore=%ld", path, line, name, hw->cpus, sockets,
                            threads);
    if (sockets * cores > 1 << 20)
        return cm_error_set(err, "%s:%d: node %s: more than %d cores", path, line, name,
                            1 << 20);
    if (c->nn == c->ncap) {
        int cap = c->ncap ? 2 * c->ncap : 64;
        node_t *v = realloc(c->nodes, (size_t)cap * sizeof *v);
        if (!v)
            return cm_error_set(err, "%s: out of memory", path);
        c->nodes = v;
        c->ncap = cap;
    }
    node_t *n = &c->nodes[c->nn];
    if (!(n->name = strdup(name)))
        return cm_error_set(err, "%s: out of memory", path);
    n->sockets = (int)sockets;
    n->cores = (int)cores;
    n->threads = (int)threads;
    if (strmap_put(&c->node_index, n->name, c->nn) < 0) {
        free(n->name);
        return cm_error_set(err, "%s: out of memory", path);
    }
    c->nn++;
    return 0;
}

static int nodename_line(conf_t *c, cm_conf_token_t *tok, int ntok, const char *path,
                         int line, cm_error_t *err)
{
    hw_t hw = c->defaults;
    for (int i = 1; i < ntok; i++) {
        cm_conf_token_t *t = &tok[i];
        if (cm_conf_check_kv(t, path, line, err) < 0)
            return -1;
        long *field = NULL, max = 1 << 16;
        if (!strcasecmp(t->key, "Sockets"))
            field = &hw.sockets;
        else if (!strcasecmp(t->key, "CoresPerSocket"))
            field = &hw.cores;
        else if (!strcasecmp(t->key, "ThreadsPerCore"))
            field = &hw.threads;
        else if (!strcasecmp(t->key, "CPUs") || !strcasecmp(t->key, "Procs"))
            field = &hw.cpus, max = 1 << 20;
        else if (!strcasecmp(t->key, "Boards"))
            field = &hw.boards;
        else if (!strcasecmp(t->key, "SocketsPerBoard"))
            field = &hw.sockets_per_board;
        else if (!strcasecmp(t->key, "Weight"))
            field = &hw.weight, max = UINT32_MAX;
        if (field && cm_conf_parse_count(t, max, field, path, line, err) < 0)
            return -1;
        if (field && field != &hw.weight && field != &hw.boards && *field == 0)
            return cm_error_set(err, "%s:%d: %s: expected a positive integer, got '%s'",
                                path, line, t->key, t->val);
    }
    const char *expr = tok[0].val;
    if (!strcasecmp(expr, "DEFAULT")) {
        c->defaults = hw;
        return 0;
    }
    char **names;
    int count;
    cm_error_t herr;
    if (cm_hostlist_expand(expr, &names, &count, &herr) < 0)
        return cm_error_set(err, "%s:%d: NodeName: %s", path, line, herr.msg);
    int rc = 0;
    for (int k = 0; k < count && rc == 0; k++)
        rc = add_node(c, names[k], &hw, path, line, err);
    cm_hostlist_free(names, count);
    return rc;
}

static int read_slurm_conf(conf_t *c, const char *path, int depth, cm_error_t *err);

/* What read_slurm_conf() hands to slurm_conf_line(). */
typedef struct slurm_read {
    conf_t *c;
    int depth;   /* of Include */
} slurm_read_t;

/* "Include FILE", relative to the including file's directory. */
static int include_line(const slurm_read_t *s, const cm_conf_token_t *tok, int ntok,
                        const char *path, int line, cm_error_t *err)
{
    if (ntok != 2 || tok[1].val)
        return cm_error_set(err, "%s:%d: expected 'Include FILE'", path, line);
    /* The depth bound alone allows k^8 reads from 8 files of k Include
     * lines each (a few small files kept the reader busy for hours). */
    if (++s->c->includes > SC_MAX_INCLUDES)
        return cm_error_set(err, "%s:%d: more than %d Include lines in all", path,
                            line, SC_MAX_INCLUDES);
    const char *inc = tok[1].key;
    char *full = NULL;
    const char *slash = strrchr(path, '/');
    if (inc[0] != '/' && slash) {
        if (asprintf(&full, "%.*s/%s", (int)(slash - path), path, inc) < 0)
            full = NULL;
    } else {
        full = strdup(inc);
    }
    if (!full)
        return cm_error_set(err, "%s: out of memory", path);
    cm_error_t ierr;
    int rc = read_slurm_conf(s->c, full, s->depth + 1, &ierr);
    free(full);
    if (rc < 0)
        return cm_error_set(err, "%s:%d: in Include: %s", path, line, ierr.msg);
    return 0;
}

static int slurm_conf_line(void *ctx, cm_conf_token_t *tok, int ntok, const char *path,
                           int line, cm_error_t *err)
{
    const slurm_read_t *s = ctx;
    if (!tok[0].val && !strcasecmp(tok[0].key, "Include"))
        return include_line(s, tok, ntok, path, line, err);
    if (cm_conf_check_kv(&tok[0], path, line, err) < 0)
        return -1;
    if (!strcasecmp(tok[0].key, "NodeName"))
        return nodename_line(s->c, tok, ntok, path, line, err);
    return 0;
}

static int read_slurm_conf(conf_t *c, const char *path, int depth, cm_error_t *err)
{
    if (depth > SC_MAX_INCLUDE_DEPTH)
        return cm_error_set(err, "%s: Include nested more than %d deep", path,
                            SC_MAX_INCLUDE_DEPTH);
    slurm_read_t s = {c, depth};
    return cm_conf_read_lines(path, slurm_conf_line, &s, err);
}

/* ---- topology.conf ---- */

typedef struct topo {
    sw_t *sw;
    int ns, cap;
    strmap_t index;
    int first_switch, first_block; /* line of the first of each, 0: none */
    int sizes_line;                /* of BlockSizes, 0: none */
} topo_t;

static void topo_free(topo_t *tp)
{
    for (int s = 0; s < tp->ns; s++) {
        free(tp->sw[s].name);
        cm_hostlist_free(tp->sw[s].nodes, tp->sw[s].nnodes);
        cm_hostlist_free(tp->sw[s].children, tp->sw[s].nchildren);
    }
    free(tp->sw);
    strmap_free(&tp->index);
}

/* A SwitchName line, or with @p block a BlockName line (only Nodes=,
 * which topology.conf(5) requires). */
static int switch_line(topo_t *tp, cm_conf_token_t *tok, int ntok, const char *path,
                       int line, int block, cm_error_t *err)
{
    const char *name = tok[0].val;
    const char *what = block ? "block" : "switch";
    if (!*name || strpbrk(name, "[],"))
        return cm_error_set(err, "%s:%d: %s: expected one %s name, got '%s'", path, line,
                            tok[0].key, what, name);
    if (strmap_find(&tp->index, name))
        return cm_error_set(err, "%s:%d: %s %s is defined twice", path, line, what, name);
    if (tp->ns >= SC_MAX_SWITCHES)
        return cm_error_set(err, "%s:%d: more than %d switches", path, line,
                            SC_MAX_SWITCHES);
    if (tp->ns == tp->cap) {
        int cap = tp->cap ? 2 * tp->cap : 16;
        sw_t *v = realloc(tp->sw, (size_t)cap * sizeof *v);
        if (!v)
            return cm_error_set(err, "%s: out of memory", path);
        tp->sw = v;
        tp->cap = cap;
    }
    sw_t *s = &tp->sw[tp->ns];
    memset(s, 0, sizeof *s);
    s->level = -1;
    s->parent = -1;
    s->line = line;
    s->block = block;
    if (!(s->name = strdup(name)) || strmap_put(&tp->index, s->name, tp->ns) < 0) {
        free(s->name);
        return cm_error_set(err, "%s: out of memory", path);
    }
    tp->ns++; /* from here on topo_free owns s */
    for (int i = 1; i < ntok; i++) {
        cm_conf_token_t *t = &tok[i];
        if (cm_conf_check_kv(t, path, line, err) < 0)
            return -1;
        char ***list = NULL;
        int *count = NULL;
        if (!strcasecmp(t->key, "Nodes"))
            list = &s->nodes, count = &s->nnodes;
        else if (block)
            return cm_error_set(err, "%s:%d: unknown key '%s' (expected Nodes)", path,
                                line, t->key);
        else if (!strcasecmp(t->key, "Switches"))
            list = &s->children, count = &s->nchildren;
        else if (strcasecmp(t->key, "LinkSpeed"))
            return cm_error_set(err, "%s:%d: unknown key '%s' (expected Nodes, Switches "
                                "or LinkSpeed)", path, line, t->key);
        if (!list)
            continue;
        if (*list)
            return cm_error_set(err, "%s:%d: %s given twice", path, line, t->key);
        cm_error_t herr;
        if (cm_hostlist_expand(t->val, list, count, &herr) < 0)
            return cm_error_set(err, "%s:%d: %s: %s", path, line, t->key, herr.msg);
    }
    return 0;
}

/* BlockSizes=N[,N...]: positive, each a power-of-two multiple (> 1) of the
 * one before, as topology.conf(5) asks.  It only tells Slurm's scheduler
 * which runs of adjacent blocks it may hand out together; those share no
 * link faster than the fabric between any two blocks, so the tree keeps
 * one "block" level and the sizes are only checked. */
static int block_sizes_line(topo_t *tp, const cm_conf_token_t *tok, int ntok,
                            const char *path, int line, cm_error_t *err)
{
    if (tp->sizes_line)
        return cm_error_set(err, "%s:%d: BlockSizes given twice (first at line %d)", path,
                            line, tp->sizes_line);
    if (ntok != 1)
        return cm_error_set(err, "%s:%d: expected BlockSizes=N[,N...] alone on its line",
                            path, line);
    tp->sizes_line = line;
    long prev = 0;
    const char *p = tok[0].val;
    for (;;) {
        char *end;
        errno = 0;
        long v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : 0;
        if (v <= 0 || errno || v > INT32_MAX || (*end && *end != ','))
            return cm_error_set(err,
                                "%s:%d: BlockSizes: expected positive integers "
                                "separated by commas, got '%s'",
                                path, line, tok[0].val);
        long ratio = prev ? v / prev : 2;
        if (prev && (v % prev || ratio < 2 || (ratio & (ratio - 1))))
            return cm_error_set(err,
                                "%s:%d: BlockSizes: expected %ld to be %ld times a "
                                "power of two (2, 4, 8...), got '%s'",
                                path, line, v, prev, tok[0].val);
        prev = v;
        if (!*end)
            return 0;
        p = end + 1;
    }
}

static int topology_line(void *ctx, cm_conf_token_t *tok, int ntok, const char *path,
                         int line, cm_error_t *err)
{
    topo_t *tp = ctx;
    if (cm_conf_check_kv(&tok[0], path, line, err) < 0)
        return -1;
    int block = !strcasecmp(tok[0].key, "BlockName");
    int sizes = !strcasecmp(tok[0].key, "BlockSizes");
    if (!block && !sizes && strcasecmp(tok[0].key, "SwitchName"))
        return cm_error_set(err,
                            "%s:%d: expected SwitchName=..., BlockName=... or "
                            "BlockSizes=..., got '%s='",
                            path, line, tok[0].key);
    /* Slurm runs one topology plugin: tree reads SwitchName lines, block
     * the other two. */
    int *mine = block || sizes ? &tp->first_block : &tp->first_switch;
    int other = block || sizes ? tp->first_switch : tp->first_block;
    if (other)
        return cm_error_set(err,
                            "%s:%d: %s= in a file of %s lines (line %d): expected "
                            "the lines of one topology plugin, tree or block",
                            path, line, tok[0].key,
                            block || sizes ? "SwitchName" : "BlockName/BlockSizes",
                            other);
    if (!*mine)
        *mine = line;
    if (sizes)
        return block_sizes_line(tp, tok, ntok, path, line, err);
    if (switch_line(tp, tok, ntok, path, line, block, err) < 0)
        return -1;
    if (block && !tp->sw[tp->ns - 1].nodes)
        return cm_error_set(err, "%s:%d: block %s: expected Nodes=HOSTLIST", path, line,
                            tok[0].val);
    return 0;
}

static int read_topology(topo_t *tp, const char *path, cm_error_t *err)
{
    return cm_conf_read_lines(path, topology_line, tp, err);
}

/* Link children to parents and compute Slurm levels (iterative DFS so that
 * deep or looping configurations cannot blow the stack). */
static int topo_levels(topo_t *tp, const char *path, cm_error_t *err)
{
    for (int s = 0; s < tp->ns; s++)
        for (int k = 0; k < tp->sw[s].nchildren; k++) {
            int *c = strmap_find(&tp->index, tp->sw[s].children[k]);
            if (!c)
                return cm_error_set(err, "%s:%d: switch %s: unknown child switch %s",
                                    path, tp->sw[s].line, tp->sw[s].name,
                                    tp->sw[s].children[k]);
            if (*c == s)
                return cm_error_set(err, "%s:%d: switch %s lists itself", path,
                                    tp->sw[s].line, tp->sw[s].name);
            if (tp->sw[*c].parent < 0)
                tp->sw[*c].parent = s;
        }
    int *stack = malloc(((size_t)tp->ns + 1) * sizeof(int));
    int *next = calloc((size_t)tp->ns + 1, sizeof(int));
    if (!stack || !next) {
        free(stack);
        free(next);
        return cm_error_set(err, "%s: out of memory", path);
    }
    int rc = 0;
    for (int root = 0; root < tp->ns && rc == 0; root++) {
        if (tp->sw[root].level >= 0)
            continue;
        int top = 0;
        stack[top++] = root;
        tp->sw[root].level = -2;
        next[root] = 0;
        while (top > 0 && rc == 0) {
            int s = stack[top - 1];
            sw_t *w = &tp->sw[s];
            if (next[s] < w->nchildren) {
                int c = *strmap_find(&tp->index, w->children[next[s]++]);
                if (tp->sw[c].level == -2) {
                    rc = cm_error_set(err, "%s:%d: switch loop: %s is below itself "
                                      "(through %s)", path, tp->sw[c].line,
                                      tp->sw[c].name, w->name);
                } else if (tp->sw[c].level == -1) {
                    tp->sw[c].level = -2;
                    next[c] = 0;
                    stack[top++] = c;
                }
                continue;
            }
            int level = 0;
            for (int k = 0; k < w->nchildren; k++) {
                int c = *strmap_find(&tp->index, w->children[k]);
                if (tp->sw[c].level + 1 > level)
                    level = tp->sw[c].level + 1;
            }
            w->level = level;
            top--;
        }
    }
    free(stack);
    free(next);
    return rc;
}

static void conf_free(conf_t *c)
{
    for (int i = 0; i < c->nn; i++)
        free(c->nodes[i].name);
    free(c->nodes);
    strmap_free(&c->node_index);
}

/* ---- what srun's placement reads ---- */

int cm_slurm_conf_node_hw(const char *slurm_conf, const char *const *names, int n,
                          cm_node_hw_t *hw, cm_error_t *err)
{
    if (!slurm_conf || !names || !hw || n < 0)
        return cm_error_set(err, "cm_slurm_conf_node_hw: slurm.conf, names and hw are "
                            "required");
    conf_t c = {0};
    if (read_slurm_conf(&c, slurm_conf, 0, err) < 0) {
        conf_free(&c);
        return -1;
    }
    int found = 0;
    for (int i = 0; i < n; i++) {
        const int *idx = names[i] ? strmap_find(&c.node_index, names[i]) : NULL;
        if (!idx) {
            hw[i].sockets = hw[i].cores_per_socket = hw[i].threads_per_core = 0;
            continue;
        }
        hw[i].sockets = c.nodes[*idx].sockets;
        hw[i].cores_per_socket = c.nodes[*idx].cores;
        hw[i].threads_per_core = c.nodes[*idx].threads;
        found++;
    }
    conf_free(&c);
    return found;
}

/* ---- the tree ---- */

cm_tree_t *cm_tree_from_slurm_conf(const char *slurm_conf, const char *topology_conf,
                                   const char *nodelist, cm_error_t *err)
{
    if (!slurm_conf || !nodelist) {
        cm_error_set(err, "cm_tree_from_slurm_conf: slurm.conf and node list are required");
        return NULL;
    }
    conf_t c = {0};
    topo_t tp = {0};
    cm_tree_t *t = NULL;
    char **names = NULL;
    int nnames = 0;
    cm_node_desc_t *nodes = NULL;
    cm_switch_desc_t *sw = NULL;
    strmap_t seen = {0}, node_switch = {0};

    if (read_slurm_conf(&c, slurm_conf, 0, err) < 0)
        goto out;
    cm_error_t herr;
    if (cm_hostlist_expand(nodelist, &names, &nnames, &herr) < 0) {
        cm_error_set(err, "node list: %s", herr.msg);
        goto out;
    }
    if (!(nodes = calloc((size_t)nnames, sizeof *nodes)))
        goto oom;
    long total = 0;
    for (int i = 0; i < nnames; i++) {
        int *idx = strmap_find(&c.node_index, names[i]);
        if (!idx) {
            cm_error_set(err, "node list: node %s is not defined in %s", names[i],
                         slurm_conf);
            goto out;
        }
        if (strmap_find(&seen, names[i])) {
            cm_error_set(err, "node list '%.200s': node %s appears twice", nodelist,
                         names[i]);
            goto out;
        }
        if (strmap_put(&seen, names[i], i) < 0)
            goto oom;
        const node_t *n = &c.nodes[*idx];
        nodes[i].name = n->name;
        nodes[i].leaf = -1;
        nodes[i].cores_per_socket = n->cores;
        nodes[i].slots = n->sockets * n->cores;
        total += nodes[i].slots;
        if (total > SC_MAX_SLOTS) {
            cm_error_set(err, "node list '%.200s': more than %ld cores", nodelist,
                         SC_MAX_SLOTS);
            goto out;
        }
    }

    if (topology_conf) {
        if (read_topology(&tp, topology_conf, err) < 0 ||
            topo_levels(&tp, topology_conf, err) < 0)
            goto out;
        for (int s = 0; s < tp.ns; s++)
            for (int k = 0; k < tp.sw[s].nnodes; k++) {
                int *prev = strmap_find(&node_switch, tp.sw[s].nodes[k]);
                if (prev) {
                    cm_error_set(err, "%s:%d: node %s is already in %s %s", topology_conf,
                                 tp.sw[s].line, tp.sw[s].nodes[k],
                                 tp.sw[*prev].block ? "block" : "switch",
                                 tp.sw[*prev].name);
                    goto out;
                }
                if (strmap_put(&node_switch, tp.sw[s].nodes[k], s) < 0)
                    goto oom;
            }
        for (int i = 0; i < nnames; i++) {
            int *s = strmap_find(&node_switch, names[i]);
            if (!s) {
                cm_error_set(err, "%s: node %s is in no %s", topology_conf, names[i],
                             tp.first_block ? "block" : "switch");
                goto out;
            }
            nodes[i].leaf = *s;
        }
        if (tp.ns && !(sw = malloc((size_t)tp.ns * sizeof *sw)))
            goto oom;
        for (int s = 0; s < tp.ns; s++) {
            sw[s].name = tp.sw[s].name;
            sw[s].level = tp.sw[s].level;
            sw[s].parent = tp.sw[s].parent;
        }
    }
    /* Every node is in a block (checked above), so there is one. */
    t = tp.first_block ? cm_tree_from_blocks(sw, tp.ns, nodes, nnames, err)
                       : cm_tree_from_switches(sw, tp.ns, nodes, nnames, err);
    goto out;

oom:
    cm_error_set(err, "%s: out of memory", slurm_conf);
out:
    conf_free(&c);
    topo_free(&tp);
    strmap_free(&seen);
    strmap_free(&node_switch);
    cm_hostlist_free(names, nnames);
    free(nodes);
    free(sw);
    return t;
}
