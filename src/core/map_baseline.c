/* map_baseline.c -- the mappings clustermap is compared against: Slurm's
 * "block" and "cyclic" task distributions and a seeded random permutation.
 *
 * Block and cyclic follow the compute nodes in allocation order (the order
 * of the job's node list), not the depth-first slot order, because that is
 * what Slurm does when switches interleave the node list.  Within a node,
 * slots are used in slot order.  On a tree without a "node" level there is
 * no node list to follow, and both fall back to the identity rank i -> slot
 * i (a round robin over some other level would be a guess at what the
 * caller means). */
#include <stdlib.h>

#include "clustermap.h"

static int check_size(const cm_tree_t *t, int n, const int *map, const char *who,
                      cm_error_t *err)
{
    if (!t || !map)
        return cm_error_set(err, "%s mapping: expected a tree and a map, got NULL", who);
    if (n < 1)
        return cm_error_set(err, "%s mapping: expected at least 1 rank, got %d", who, n);
    int nslots = cm_tree_nslots(t);
    if (n > nslots)
        return cm_error_set(err, "%s mapping: %d ranks but the tree has only %d slots",
                            who, n, nslots);
    return 0;
}

static void identity(int n, int *map)
{
    for (int i = 0; i < n; i++)
        map[i] = i;
}

int cm_map_block(const cm_tree_t *t, int n, int *map, cm_error_t *err)
{
    if (check_size(t, n, map, "block", err) < 0)
        return -1;
    int nnodes = cm_tree_nnodes(t);
    if (nnodes == 0) {
        identity(n, map);
        return 0;
    }
    int r = 0;
    for (int k = 0; k < nnodes && r < n; k++) {
        int first, count;
        cm_tree_vertex_slots(t, cm_tree_node_vertex(t, k), &first, &count);
        for (int s = 0; s < count && r < n; s++)
            map[r++] = first + s;
    }
    if (r < n)   /* only if some slots hang outside every node */
        return cm_error_set(err, "block mapping: %d ranks but the nodes hold only %d slots",
                            n, r);
    return 0;
}

int cm_map_cyclic(const cm_tree_t *t, int n, int *map, cm_error_t *err)
{
    if (check_size(t, n, map, "cyclic", err) < 0)
        return -1;
    int nnodes = cm_tree_nnodes(t);
    if (nnodes == 0) {
        identity(n, map);
        return 0;
    }
    int *first = malloc(2 * (size_t)nnodes * sizeof *first);
    if (!first)
        return cm_error_set(err, "cyclic mapping: out of memory for %d nodes", nnodes);
    int *count = first + nnodes;
    int maxcount = 0;
    for (int k = 0; k < nnodes; k++) {
        cm_tree_vertex_slots(t, cm_tree_node_vertex(t, k), &first[k], &count[k]);
        if (count[k] > maxcount)
            maxcount = count[k];
    }
    /* Pass p gives its p-th slot to every node that still has one: the
     * round robin of Slurm's cyclic distribution, skipping full nodes. */
    int r = 0;
    for (int p = 0; p < maxcount && r < n; p++)
        for (int k = 0; k < nnodes && r < n; k++)
            if (p < count[k])
                map[r++] = first[k] + p;
    free(first);
    if (r < n)
        return cm_error_set(err, "cyclic mapping: %d ranks but the nodes hold only %d slots",
                            n, r);
    return 0;
}

int cm_map_random(const cm_tree_t *t, int n, uint64_t seed, int *map, cm_error_t *err)
{
    if (check_size(t, n, map, "random", err) < 0)
        return -1;
    int nslots = cm_tree_nslots(t);
    int *perm = malloc((size_t)nslots * sizeof *perm);
    if (!perm)
        return cm_error_set(err, "random mapping: out of memory for %d slots", nslots);
    for (int s = 0; s < nslots; s++)
        perm[s] = s;
    /* The first n steps of a forward Fisher-Yates shuffle: perm[0..n-1] is
     * then a uniformly random n-subset of the slots in uniformly random
     * order. */
    cm_rng_t rng;
    cm_rng_seed(&rng, seed);
    for (int i = 0; i < n; i++) {
        int j = i + (int)cm_rng_below(&rng, (uint64_t)(nslots - i));
        int tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
        map[i] = perm[i];
    }
    free(perm);
    return 0;
}
