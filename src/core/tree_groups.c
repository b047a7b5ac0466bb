/* tree_groups.c -- which groupings of a node's items become levels of the
 * tree, for the hwloc readers (tree_hwloc.c: cores by package, NUMA node
 * and cache; tree_gpu.c: GPUs by package, NUMA node and links).
 *
 * A grouping becomes a level only where it splits: more groups than the
 * level above it, fewer than the one below, and nesting with both, so
 * that the tree stays a tree and no level repeats another.
 */
#include <stdlib.h>
#include <string.h>

#include "tree_internal.h"

typedef struct raw_item {
    int raw, index;
} raw_item_t;

static int by_raw(const void *a, const void *b)
{
    const raw_item_t *x = a, *y = b;
    if (x->raw != y->raw)
        return x->raw < y->raw ? -1 : 1;
    return x->index - y->index;
}

void cm_groups_number(cm_groups_t *g, const int *raw, int n)
{
    g->present = 1;
    g->ngroups = 0;
    for (int i = 0; i < n; i++)
        if (raw[i] < 0)
            g->present = 0;
    raw_item_t *it = g->present && n > 0 ? malloc((size_t)n * sizeof *it) : NULL;
    if (!it) {
        g->present = g->present && n <= 0;
        return;
    }
    for (int i = 0; i < n; i++)
        it[i] = (raw_item_t){ raw[i], i };
    /* sorted by id, each run's first entry is its first appearance: gid
     * holds that first index for now, then a second pass numbers the
     * first indexes in order */
    qsort(it, (size_t)n, sizeof *it, by_raw);
    for (int k = 0, first = 0; k < n; k++) {
        if (k == 0 || it[k].raw != it[k - 1].raw)
            first = it[k].index;
        g->gid[it[k].index] = first;
    }
    free(it);
    for (int i = 0; i < n; i++)
        g->gid[i] = g->gid[i] == i ? g->ngroups++ : g->gid[g->gid[i]];
}

int cm_groups_nest(const cm_groups_t *inner, const cm_groups_t *outer, int n)
{
    int *up = malloc((size_t)(inner->ngroups ? inner->ngroups : 1) * sizeof(int));
    if (!up)
        return 0;
    for (int g = 0; g < inner->ngroups; g++)
        up[g] = -1;
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        int g = inner->gid[i];
        if (up[g] < 0)
            up[g] = outer->gid[i];
        else if (up[g] != outer->gid[i])
            ok = 0;
    }
    free(up);
    return ok;
}

int cm_groups_chain(const cm_groups_t *cand, int ncand, int n, int forced, int *chain)
{
    int nchain = 0;
    if (forced >= 0 && forced < ncand && cand[forced].present)
        chain[nchain++] = forced;
    for (int c = 0; c < ncand; c++) {
        if (c == forced || !cand[c].present)
            continue;
        int pos = 0;
        while (pos < nchain && cand[chain[pos]].ngroups <= cand[c].ngroups)
            pos++;
        int above = pos > 0 ? cand[chain[pos - 1]].ngroups : 1;
        int below = pos < nchain ? cand[chain[pos]].ngroups : n;
        if (cand[c].ngroups <= above || cand[c].ngroups >= below)
            continue;
        if (pos > 0 && !cm_groups_nest(&cand[c], &cand[chain[pos - 1]], n))
            continue;
        if (pos < nchain && !cm_groups_nest(&cand[chain[pos]], &cand[c], n))
            continue;
        memmove(chain + pos + 1, chain + pos, (size_t)(nchain - pos) * sizeof(int));
        chain[pos] = c;
        nchain++;
    }
    return nchain;
}
