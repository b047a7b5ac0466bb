/*
 * slurm_tree.c -- the machine tree of an allocation, from the controller.
 *
 * One slurm_load_topo() (through slurm_topo.c) and one slurm_load_node()
 * per srun: switches (with Slurm's levels, leaf = 0), then per node its sockets and the slots the
 * step may use there.  cm_tree_from_switches() builds the tree, as it does
 * for cm_tree_from_slurm_conf() ("cluster" over several top switches,
 * "switch<k>", "node", "socket", "core"), so `clustermap eval --slurm-conf`
 * prices a placement the same way.  Without any switch (TopologyPlugin
 * topology/none) the nodes hang under one "switch".  A node of the
 * allocation the controller does not describe, or a topology that leaves it
 * out, is an error: the caller then keeps Slurm's placement.  Part of the
 * placement module (clustermap-place.so); libslurm's functions resolve
 * from srun, which loads it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

cm_tree_t *cmp_slurm_tree(const cmp_alloc_t *a, int cpus_per_task, cm_error_t *err)
{
    cmp_switch_t *switches = NULL;
    int nswitches = 0;
    node_info_msg_t *ninfo = NULL;
    named_t *nodes = NULL, *known = NULL;
    int *leaf_of = NULL, *info_of = NULL;
    cm_switch_desc_t *sw = NULL;
    cm_node_desc_t *nd = NULL;
    topo_t tp = { 0 };
    cm_tree_t *t = NULL;
    int nn = a->nnodes;

    if (cpus_per_task < 1)
        cpus_per_task = 1;
    int refused = 0, rc = cmp_slurm_switches(&switches, &nswitches, err);
    if (rc < 0) {
        refused = rc == CMP_TOPO_REFUSED;
        goto out;
    }
    if (slurm_load_node((time_t)0, &ninfo, SHOW_ALL) != SLURM_SUCCESS) {
        cm_error_set(err, "slurm_load_node: %s", slurm_strerror(errno));
        goto out;
    }
    if (!(nodes = malloc((size_t)nn * sizeof *nodes)) ||
        !(leaf_of = malloc((size_t)nn * sizeof *leaf_of)) ||
        !(info_of = malloc((size_t)nn * sizeof *info_of)) ||
        !(nd = malloc((size_t)nn * sizeof *nd)) ||
        !(known = malloc(((size_t)ninfo->record_count + 1) * sizeof *known)))
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
    int nk = 0;
    for (uint32_t r = 0; r < ninfo->record_count; r++)
        if (ninfo->node_array[r].name) {
            known[nk].name = ninfo->node_array[r].name;
            known[nk++].idx = (int)r;
        }
    qsort(known, (size_t)nk, sizeof *known, cmp_named);
    for (int i = 0; i < nn; i++) {
        info_of[i] = lookup(known, nk, a->names[i]);
        if (info_of[i] < 0) {
            cm_error_set(err, "the controller does not describe node %s", a->names[i]);
            goto out;
        }
    }

    tp.ns = nswitches;
    tp.sw = switches;
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
        }
    }

    /* Sockets hold the step's slots, cpus_per_task CPUs to a slot. */
    for (int i = 0; i < nn; i++) {
        const node_info_t *ni = &ninfo->node_array[info_of[i]];
        int sockets = ni->sockets > 0 ? ni->sockets : 1;
        int per_socket = ((ni->cores > 0 ? ni->cores : 1) *
                          (ni->threads > 0 ? ni->threads : 1)) / cpus_per_task;
        if (per_socket < 1)
            per_socket = 1;
        if ((long)per_socket * sockets < a->slots[i])
            per_socket = (a->slots[i] + sockets - 1) / sockets;
        nd[i].name = a->names[i];
        nd[i].leaf = leaf_of[i];
        nd[i].cores_per_socket = per_socket;
        nd[i].slots = a->slots[i];
    }
    t = cm_tree_from_switches(sw, tp.ns, nd, nn, err);
    goto out;

oom:
    cm_error_set(err, "machine tree: out of memory");
out:
    if (!t && !refused) {
        cm_error_t e = *err;
        cm_error_set(err, "controller data unavailable (%s)", e.msg);
    }
    cmp_slurm_switches_free(switches, nswitches);
    if (ninfo)
        slurm_free_node_info_msg(ninfo);
    free(nodes);
    free(known);
    free(leaf_of);
    free(info_of);
    free(nd);
    free(sw);
    free(tp.parent);
    return t;
}
