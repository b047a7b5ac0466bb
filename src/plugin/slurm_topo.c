/*
 * slurm_topo.c -- the controller's switches, whatever the Slurm release.
 *
 * Slurm 22.05 and 23.02 return the switches of topology/tree as an array
 * of topo_info_t (topo_array, record_count).  From 23.11 on the answer
 * belongs to the topology plugin (tree, and the new block; from 25.05
 * several topologies of topology.yaml) and the array is no longer filled;
 * the one stable way to read it is the text that
 * slurm_print_topo_info_msg() writes, the same as `scontrol show topology`
 * (23.11 gave it the node_list argument, 25.05 the unit one):
 * one record a line, "SwitchName=s1 Level=0 LinkSpeed=1 Nodes=n[1-2]
 * Switches=..." for topology/tree, "BlockName=b1 BlockIndex=0 Nodes=...
 * BlockSize=..." for topology/block.  A block is read as a leaf switch
 * without a parent whose level is named "block" (the tree then hangs the
 * blocks under one "cluster").
 * topology/default (23.11) and topology/flat (25.05) print nothing: no
 * switch, every node under one.  Slurm 26.05 refuses an arbitrary
 * distribution with topology/block, so there a block is an error: the
 * step keeps Slurm's layout, and says why.  From 25.05 slurm_load_topo()
 * takes a topology name (NULL: the default topology) and the print call a
 * unit (NULL: all).  (Read in Slurm's slurm.h and src/api/topo_info.c of
 * tags slurm-23-02-0-1, slurm-23-11-0-1, slurm-25-05-0-1.)
 *
 * The records are read by cmp_switches_parse() (switches.c), which also
 * reads what topo_cache.c keeps between sruns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "plugin.h"

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)

int cmp_slurm_switches(cmp_switch_t **out, int *count, cm_error_t *err)
{
    topo_info_response_msg_t *msg = NULL;
    char *text = NULL;
    size_t tlen = 0;

    *out = NULL;
    *count = 0;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
    if (slurm_load_topo(&msg, NULL) != SLURM_SUCCESS)
#else
    if (slurm_load_topo(&msg) != SLURM_SUCCESS)
#endif
        return cm_error_set(err, "slurm_load_topo: %s", slurm_strerror(errno));
    FILE *f = open_memstream(&text, &tlen);
    if (!f) {
        slurm_free_topo_info_msg(msg);
        return cm_error_set(err, "topology: out of memory");
    }
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
    slurm_print_topo_info_msg(f, msg, NULL, NULL, 1);
#else
    slurm_print_topo_info_msg(f, msg, NULL, 1);
#endif
    fclose(f);
    slurm_free_topo_info_msg(msg);
    if (!text)
        return cm_error_set(err, "topology: out of memory");
    int rc = cmp_switches_parse(text, tlen, out, count, err);
    free(text);
    return rc;
}

#else /* Slurm 22.05 and 23.02: the array of topology/tree records */

int cmp_slurm_switches(cmp_switch_t **out, int *count, cm_error_t *err)
{
    topo_info_response_msg_t *msg = NULL;
    cmp_switch_t *sw = NULL;
    int n = 0, cap = 0;

    *out = NULL;
    *count = 0;
    if (slurm_load_topo(&msg) != SLURM_SUCCESS)
        return cm_error_set(err, "slurm_load_topo: %s", slurm_strerror(errno));
    for (uint32_t i = 0; i < msg->record_count; i++) {
        const topo_info_t *t = &msg->topo_array[i];
        if (cmp_switches_push(&sw, &n, &cap, t->name ? t->name : "", t->level, t->nodes,
                 t->switches) < 0) {
            slurm_free_topo_info_msg(msg);
            cmp_switches_free(sw, n);
            return cm_error_set(err, "topology: out of memory");
        }
    }
    slurm_free_topo_info_msg(msg);
    *out = sw;
    *count = n;
    return 0;
}

#endif
