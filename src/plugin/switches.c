/*
 * switches.c -- the controller's switch records as text and back.
 *
 * Records are lines as `scontrol show topology` prints them
 * ("SwitchName=s1 Level=0 LinkSpeed=1 Nodes=n[1-2] Switches=...",
 * "BlockName=b1 BlockIndex=0 Nodes=... BlockSize=...").  Slurm from 23.02
 * on gives its topology only as that text (slurm_topo.c), and the user's
 * topology cache (topo_cache.c) keeps it in the same form, so one parser
 * reads both.  No Slurm symbol: unit tests compile it directly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "cmp_topo.h"

void cmp_switches_free(cmp_switch_t *sw, int n)
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

int cmp_switches_push(cmp_switch_t **sw, int *n, int *cap, const char *name,
                      int level, const char *nodes, const char *switches)
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
    s->block = 0;
    s->name = strdup(name);
    s->nodes = dup_or_null(nodes);
    s->switches = dup_or_null(switches);
    (*n)++;
    if (!s->name || (nodes && *nodes && !s->nodes) ||
        (switches && *switches && !s->switches))
        return -1;
    return 0;
}

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

int cmp_switches_parse(char *text, size_t tlen, cmp_switch_t **out, int *count,
                       cm_error_t *err)
{
    cmp_switch_t *sw = NULL;
    int n = 0, cap = 0, rc = -1;

    *out = NULL;
    *count = 0;
    /* Node and switch lists are host lists of a whole cluster: bounded by
     * the text, not by a fixed buffer. */
    size_t vcap = tlen + 1;
    char *name = malloc(vcap), *nodes = malloc(vcap), *subs = malloc(vcap),
         *level = malloc(vcap);
    if (!name || !nodes || !subs || !level) {
        cm_error_set(err, "topology: out of memory");
        goto out;
    }
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        int lv = 0, block = 0;
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
            block = 1;
        } else {
            continue;   /* a header or a record kind without a name */
        }
        field(line, "Nodes", nodes, vcap);
        /* a block has no children: Switches= of such a line is ignored */
        if (block)
            subs[0] = '\0';
        else
            field(line, "Switches", subs, vcap);
        if (cmp_switches_push(&sw, &n, &cap, name, lv, nodes, subs) < 0) {
            cm_error_set(err, "topology: out of memory");
            goto out;
        }
        sw[n - 1].block = block;
    }
    rc = 0;
out:
    free(name);
    free(nodes);
    free(subs);
    free(level);
    if (rc < 0) {
        cmp_switches_free(sw, n);
        return rc;
    }
    *out = sw;
    *count = n;
    return 0;
}


static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int cmp_switches_cover(const cmp_switch_t *sw, int n, const char *const *nodes, int nn)
{
    if (nn <= 0 || n <= 0)
        return 1;
    if (!sw || !nodes)
        return 0;
    /* the step's nodes sorted, each marked when a leaf lists it */
    const char **want = malloc((size_t)nn * sizeof *want);
    char *seen = calloc((size_t)nn, 1);
    int left = nn;
    if (!want || !seen) {
        free(want);
        free(seen);
        return 0;
    }
    memcpy(want, nodes, (size_t)nn * sizeof *want);
    qsort(want, (size_t)nn, sizeof *want, by_name);
    for (int s = 0; s < n && left > 0; s++) {
        char **names = NULL;
        int count = 0;
        cm_error_t e;
        if (sw[s].level != 0 || !sw[s].nodes || !*sw[s].nodes)
            continue;
        if (cm_hostlist_expand(sw[s].nodes, &names, &count, &e) < 0) {
            left = -1;
            break;
        }
        for (int k = 0; k < count; k++) {
            const char *key = names[k];
            const char **hit = bsearch(&key, want, (size_t)nn, sizeof *want, by_name);
            if (hit && !seen[hit - want]) {
                seen[hit - want] = 1;
                left--;
            }
        }
        cm_hostlist_free(names, count);
    }
    free(want);
    free(seen);
    return left == 0;
}
