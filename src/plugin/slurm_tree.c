/*
 * slurm_tree.c -- the machine tree of an allocation.
 *
 * What a placed srun asks of the controller is bounded by the step, not by
 * the cluster: each node's sockets and cores come from the slurm.conf srun
 * reads (SLURM_CONF, else Slurm's default file, else configless slurmd's
 * copy): the controller schedules by those values, and Slurm wants the
 * file the same on every host.  Only a node the file does not define (a
 * dynamic node; every node when srun has no slurm.conf) costs a
 * slurm_load_node_single(), whose answer the user's cache keeps
 * (topo_cache.c): once per node and topo_cache= seconds.  The switches come from
 * the user's cache (topo_cache.c) or one slurm_load_topo() (slurm_topo.c),
 * then kept.  cm_tree_from_switches() builds the tree, as it does for
 * cm_tree_from_slurm_conf() ("cluster" over several top switches,
 * "switch<k>" or topology/block's "block", "node", "socket", "core"), so
 * `clustermap eval --slurm-conf` prices a placement the same way.  Without any switch (TopologyPlugin
 * topology/default) the nodes hang under one "switch".  A node of the
 * allocation nobody describes, or a topology that leaves it out, is an
 * error: the caller then keeps Slurm's placement.  Part of the placement
 * module (clustermap-place.so); libslurm's functions resolve from srun,
 * which loads it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "plugin.h"

typedef struct named {
    const char *name;
    int idx;
} named_t;

static int cmp_named(const void *a, const void *b)
{
    return strcmp(((const named_t *)a)->name, ((const named_t *)b)->name);
}

static int lookup(const named_t *v, int n, const char *name)
{
    named_t key = { name, -1 };
    const named_t *hit = bsearch(&key, v, (size_t)n, sizeof *v, cmp_named);
    return hit ? hit->idx : -1;
}

typedef struct topo {
    int ns;
    cmp_switch_t *sw;
    int *parent;      /* switch index, -1 at the top */
} topo_t;

/* parent[] from the child lists, leaf_of[] (per allocation node) from the
 * node lists. */
static int link_topology(topo_t *tp, const named_t *nodes, int nn, int *leaf_of,
                         cm_error_t *err)
{
    named_t *byname = malloc((size_t)tp->ns * sizeof *byname);
    if (!byname)
        return cm_error_set(err, "topology: out of memory");
    for (int s = 0; s < tp->ns; s++) {
        byname[s].name = tp->sw[s].name ? tp->sw[s].name : "";
        byname[s].idx = s;
        tp->parent[s] = -1;
    }
    qsort(byname, (size_t)tp->ns, sizeof *byname, cmp_named);
    int rc = 0;
    for (int s = 0; s < tp->ns && rc == 0; s++) {
        char **names = NULL;
        int count = 0;
        cm_error_t e;
        if (tp->sw[s].switches && *tp->sw[s].switches) {
            if (cm_hostlist_expand(tp->sw[s].switches, &names, &count, &e) < 0) {
                rc = cm_error_set(err, "switch %s: child switches: %s", tp->sw[s].name,
                                  e.msg);
                break;
            }
            for (int k = 0; k < count; k++) {
                int c = lookup(byname, tp->ns, names[k]);
                if (c >= 0 && c != s && tp->parent[c] < 0 &&
                    tp->sw[c].level < tp->sw[s].level)
                    tp->parent[c] = s;
            }
            cm_hostlist_free(names, count);
        }
        if (tp->sw[s].level == 0 && tp->sw[s].nodes && *tp->sw[s].nodes) {
            if (cm_hostlist_expand(tp->sw[s].nodes, &names, &count, &e) < 0) {
                rc = cm_error_set(err, "switch %s: nodes: %s", tp->sw[s].name, e.msg);
                break;
            }
            for (int k = 0; k < count; k++) {
                int i = lookup(nodes, nn, names[k]);
                if (i >= 0 && leaf_of[i] < 0)
                    leaf_of[i] = s;
            }
            cm_hostlist_free(names, count);
        }
    }
    free(byname);
    return rc;
}

/* Sockets, cores and threads of every node of @p a, each >= 1: slurm.conf
 * first, then the user's cache @p tc (NULL: none), then the controller
 * (one record each) for what they leave out, whose answers are kept. */
static int node_hardware(const cmp_alloc_t *a, const char *conf, cm_node_hw_t *hw,
                         const cmp_topo_cache_t *tc, cm_error_t *err)
{
    int nn = a->nnodes, found = 0, asked = 0;
    cm_error_t e;
    if (conf)
        found = cm_slurm_conf_node_hw(conf, (const char *const *)a->names, nn, hw, &e);
    if (!conf || found < 0)
        memset(hw, 0, (size_t)nn * sizeof *hw);
    if (tc && (!conf || found < nn)) {
        /* only the nodes slurm.conf left out: the file wins */
        cm_node_hw_t *kept = calloc((size_t)nn, sizeof *kept);
        if (kept && cmp_topo_cache_get_nodes(tc, (const char *const *)a->names, nn, kept))
            for (int i = 0; i < nn; i++)
                if (hw[i].sockets <= 0 && kept[i].sockets > 0)
                    hw[i] = kept[i];
        free(kept);
    }
    cm_node_hw_t *fetched = tc ? calloc((size_t)nn, sizeof *fetched) : NULL;
    for (int i = 0; i < nn; i++) {
        if (hw[i].sockets > 0)
            continue;
        node_info_msg_t *ni = NULL;
        if (slurm_load_node_single(&ni, a->names[i], SHOW_ALL) != SLURM_SUCCESS) {
            free(fetched);
            return cm_error_set(err, "slurm_load_node_single %s: %s", a->names[i],
                                slurm_strerror(errno));
        }
        int ok = ni && ni->record_count >= 1 && ni->node_array[0].name &&
                 !strcmp(ni->node_array[0].name, a->names[i]);
        if (ok) {
            const node_info_t *r = &ni->node_array[0];
            hw[i].sockets = r->sockets > 0 ? r->sockets : 1;
            hw[i].cores_per_socket = r->cores > 0 ? r->cores : 1;
            hw[i].threads_per_core = r->threads > 0 ? r->threads : 1;
            if (fetched) {
                fetched[i] = hw[i];
                asked++;
            }
        }
        slurm_free_node_info_msg(ni);
        if (!ok) {
            free(fetched);
            return cm_error_set(err, "the controller does not describe node %s",
                                a->names[i]);
        }
    }
    if (asked)
        cmp_topo_cache_put_nodes(tc, (const char *const *)a->names, fetched, nn);
    free(fetched);
    return 0;
}

/* The switches: the user's cache while valid and knowing every node of
 * @p a, else the controller (whose answer is then kept): one request at
 * most. */
static int switches(const cmp_topo_cache_t *tc, const cmp_alloc_t *a, cmp_switch_t **sw,
                    int *n, cm_error_t *err)
{
    int rc = 0;
    if (!tc || !cmp_topo_cache_get(tc, (const char *const *)a->names, a->nnodes, sw, n)) {
        rc = cmp_slurm_switches(sw, n, err);
        if (rc == 0 && tc)
            cmp_topo_cache_put(tc, *sw, *n);
    }
    return rc;
}

cm_tree_t *cmp_slurm_tree(const cmp_alloc_t *a, int cpus_per_task, int topo_cache,
                          cm_error_t *err)
{
    cmp_switch_t *sws = NULL;
    int nswitches = 0;
    named_t *nodes = NULL;
    int *leaf_of = NULL;
    cm_node_hw_t *hw = NULL;
    cm_switch_desc_t *sw = NULL;
    cm_node_desc_t *nd = NULL;
    topo_t tp = { 0 };
    cm_tree_t *t = NULL;
    int nn = a->nnodes;
    /* the file srun itself read (libslurm's rules), NULL when the
     * controller sent it (no file) */
    char *conf = cmp_slurm_conf_path();
    cmp_topo_cache_t cache;
    const cmp_topo_cache_t *tc = cmp_topo_cache_open(&cache, conf, topo_cache) == 0 ? &cache
                                                                                     : NULL;

    if (cpus_per_task < 1)
        cpus_per_task = 1;
    int refused = 0, rc = switches(tc, a, &sws, &nswitches, err);
    if (rc < 0) {
        refused = rc == CMP_TOPO_REFUSED;
        goto out;
    }
    if (!(nodes = malloc((size_t)nn * sizeof *nodes)) ||
        !(leaf_of = malloc((size_t)nn * sizeof *leaf_of)) ||
        !(hw = calloc((size_t)nn, sizeof *hw)) ||
        !(nd = malloc((size_t)nn * sizeof *nd)))
        goto oom;
    for (int i = 0; i < nn; i++) {
        nodes[i].name = a->names[i];
        nodes[i].idx = i;
        leaf_of[i] = -1;
    }
    qsort(nodes, (size_t)nn, sizeof *nodes, cmp_named);
    for (int i = 1; i < nn; i++)
        if (!strcmp(nodes[i - 1].name, nodes[i].name)) {
            cm_error_set(err, "node %s appears twice in the allocation", nodes[i].name);
            goto out;
        }
    if (node_hardware(a, conf, hw, tc, err) < 0)
        goto out;

    tp.ns = nswitches;
    tp.sw = sws;
    if (tp.ns > 0) {
        if (!(tp.parent = malloc((size_t)tp.ns * sizeof(int))) ||
            !(sw = malloc((size_t)tp.ns * sizeof *sw)))
            goto oom;
        if (link_topology(&tp, nodes, nn, leaf_of, err) < 0)
            goto out;
        for (int i = 0; i < nn; i++)
            if (leaf_of[i] < 0) {
                cm_error_set(err, "the controller's topology puts node %s in no switch",
                             a->names[i]);
                goto out;
            }
        for (int s = 0; s < tp.ns; s++) {
            sw[s].name = tp.sw[s].name;
            sw[s].level = tp.sw[s].level;
            sw[s].parent = tp.parent[s];
            /* Slurm runs one topology plugin: blocks or switches */
            if (tp.sw[s].block != tp.sw[0].block) {
                cm_error_set(err,
                             "the controller's topology mixes blocks (%s) and "
                             "switches (%s)",
                             tp.sw[s].block ? tp.sw[s].name : tp.sw[0].name,
                             tp.sw[s].block ? tp.sw[0].name : tp.sw[s].name);
                goto out;
            }
        }
    }

    /* Sockets hold the step's slots, cpus_per_task CPUs to a slot. */
    for (int i = 0; i < nn; i++) {
        int sockets = hw[i].sockets;   /* node_hardware(): all >= 1 */
        /* long: 2^20 cores a node times 2^16 threads a core overflow an int;
         * a socket of more CPUs than the step's slots holds them all. */
        long cpus = (long)hw[i].cores_per_socket * hw[i].threads_per_core / cpus_per_task;
        if (cpus > a->slots[i])
            cpus = a->slots[i];
        int per_socket = cpus < 1 ? 1 : (int)cpus;
        if ((long)per_socket * sockets < a->slots[i])
            per_socket = (a->slots[i] + sockets - 1) / sockets;
        nd[i].name = a->names[i];
        nd[i].leaf = leaf_of[i];
        nd[i].cores_per_socket = per_socket;
        nd[i].slots = a->slots[i];
    }
    t = tp.ns > 0 && tp.sw[0].block ? cm_tree_from_blocks(sw, tp.ns, nd, nn, err)
                                    : cm_tree_from_switches(sw, tp.ns, nd, nn, err);
    goto out;

oom:
    cm_error_set(err, "machine tree: out of memory");
out:
    if (!t && !refused) {
        cm_error_t e = *err;
        cm_error_set(err, "controller data unavailable (%s)", e.msg);
    }
    cmp_switches_free(sws, nswitches);
    free(nodes);
    free(leaf_of);
    free(hw);
    free(nd);
    free(sw);
    free(tp.parent);
    if (tc)
        cmp_topo_cache_close(&cache);
    free(conf);
    return t;
}
