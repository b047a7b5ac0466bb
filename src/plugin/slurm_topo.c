/*
 * slurm_topo.c -- the controller's switches, whatever the Slurm release.
 *
 * Slurm 22.05 returns the switches of topology/tree as an array of
 * topo_info_t.  From 23.02 on the answer belongs to the topology plugin
 * (tree, block, and from 25.05 several topologies of topology.yaml) and the
 * array is no longer filled; the one stable way to read it is the text that
 * slurm_print_topo_info_msg() writes, the same as `scontrol show topology`:
 * one record a line, "SwitchName=s1 Level=0 LinkSpeed=1 Nodes=n[1-2]
 * Switches=..." for topology/tree, "BlockName=b1 BlockIndex=0 Nodes=...
 * BlockSize=..." for topology/block.  A block is read as a leaf switch
 * without a parent (the tree then hangs the blocks under one "cluster").
 * topology/default (flat) prints nothing: no switch, every node under one.
 * Slurm 26.05 refuses an arbitrary distribution with topology/block, so
 * there a block is an error: the step keeps Slurm's layout, and says why.
 * 26.05 also takes a topology name in slurm_load_topo() (NULL: the default
 * topology) and a unit in the print call (NULL: all).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "plugin.h"

void cmp_slurm_switches_free(cmp_switch_t *sw, int n)
{
    for (int i = 0; i < n && sw; i++) {
        free(sw[i].name);
        free(sw[i].nodes);
        free(sw[i].switches);
    }
    free(sw);
}

static char *dup_or_null(const char *s)
{
    return s && *s ? strdup(s) : NULL;
}

/* Appends one record; a name is required.  Frees nothing on failure: the
 * caller frees the whole array. */
static int push(cmp_switch_t **sw, int *n, int *cap, const char *name, int level,
                const char *nodes, const char *switches)
{
    if (*n == *cap) {
        int c = *cap ? *cap * 2 : 16;
        cmp_switch_t *g = realloc(*sw, (size_t)c * sizeof *g);
        if (!g)
            return -1;
        *sw = g;
        *cap = c;
    }
    cmp_switch_t *s = &(*sw)[*n];
    s->level = level;
    s->name = strdup(name);
    s->nodes = dup_or_null(nodes);
    s->switches = dup_or_null(switches);
    (*n)++;
    if (!s->name || (nodes && *nodes && !s->nodes) ||
        (switches && *switches && !s->switches))
        return -1;
    return 0;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)

/* The value of KEY= in the blank-separated LINE, copied into BUF (empty
 * when absent).  Values never hold blanks in these records. */
static const char *field(const char *line, const char *key, char *buf, size_t len)
{
    size_t kl = strlen(key);
    const char *p = line;
    buf[0] = '\0';
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *end = p + strcspn(p, " \t\n");
        if ((size_t)(end - p) > kl && !strncmp(p, key, kl) && p[kl] == '=') {
            size_t vl = (size_t)(end - p) - kl - 1;
            if (vl >= len)
                vl = len - 1;
            memcpy(buf, p + kl + 1, vl);
            buf[vl] = '\0';
            return buf;
        }
        p = end;
    }
    return buf;
}

int cmp_slurm_switches(cmp_switch_t **out, int *count, cm_error_t *err)
{
    topo_info_response_msg_t *msg = NULL;
    char *text = NULL;
    size_t tlen = 0;
    cmp_switch_t *sw = NULL;
    int n = 0, cap = 0, rc = -1;

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

    /* Node and switch lists are host lists of a whole cluster: bounded by
     * the text Slurm printed, not by a fixed buffer. */
    size_t vcap = tlen + 1;
    char *name = malloc(vcap), *nodes = malloc(vcap), *subs = malloc(vcap),
         *level = malloc(vcap);
    if (!name || !nodes || !subs || !level) {
        cm_error_set(err, "topology: out of memory");
        goto out;
    }
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        int lv = 0;
        if (*field(line, "SwitchName", name, vcap)) {
            field(line, "Level", level, vcap);
            lv = atoi(level);
        } else if (*field(line, "BlockName", name, vcap)) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
            /* 26.05 refuses the arbitrary distribution (SLURM_HOSTFILE)
             * under topology/block: placing the step would fail it. */
            cm_error_set(err, "topology/block: this Slurm refuses the arbitrary "
                              "layout a placement needs with it");
            rc = CMP_TOPO_REFUSED;
            goto out;
#endif
        } else {
            continue;   /* a header or a record kind without a name */
        }
        field(line, "Nodes", nodes, vcap);
        field(line, "Switches", subs, vcap);
        if (push(&sw, &n, &cap, name, lv, nodes, subs) < 0) {
            cm_error_set(err, "topology: out of memory");
            goto out;
        }
    }
    rc = 0;
out:
    free(name);
    free(nodes);
    free(subs);
    free(level);
    free(text);
    if (rc < 0) {
        cmp_slurm_switches_free(sw, n);
        return rc;
    }
    *out = sw;
    *count = n;
    return 0;
}

#else   /* Slurm 22.05: the array of topology/tree records */

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
        if (push(&sw, &n, &cap, t->name ? t->name : "", t->level, t->nodes,
                 t->switches) < 0) {
            slurm_free_topo_info_msg(msg);
            cmp_slurm_switches_free(sw, n);
            return cm_error_set(err, "topology: out of memory");
        }
    }
    slurm_free_topo_info_msg(msg);
    *out = sw;
    *count = n;
    return 0;
}

#endif
