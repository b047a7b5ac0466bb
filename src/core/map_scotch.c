/* map_scotch.c -- the "scotch" baseline: Scotch's static mapping of the
 * symmetric communication volume onto a tree-leaf architecture built from
 * the machine tree.
 *
 * Target.  A Scotch "tleaf" is a regular tree given root-down by the fanout
 * of each level and the cost of the links below it; the distance of two
 * leaves is the sum of the link costs from their common ancestor down.  So
 * the link below level l gets cost[l] - cost[l'] (l' the next level that
 * splits), and the distance of two slots with lowest common ancestor at
 * level l becomes cost[l] - cost[leaf]: e.g. byte costs 100:10:1 (root
 * down) give links 90, 9, 1.  Levels that never split (every vertex has one
 * child) cannot be a lowest common ancestor and are left out.  Link costs
 * must be non-negative integers: differences are scaled so that the
 * smallest non-zero one becomes 1 (and the total at most LINK_TOTAL_MAX),
 * negative differences (a level dearer than the one above it) are clamped
 * to 0.  Only byte costs are used; message costs do not enter Scotch.
 *
 * An irregular tree (heterogeneous nodes, a pruned allocation) is padded to
 * the maximum fanout of each level; each real slot gets the index of its
 * leaf in the padded tree, and SCOTCH_archSub restricts the tleaf to those
 * leaves (in slot order, so Scotch's terminal numbers are our slots).
 *
 * Source graph.  cm_sgraph_build() (scotch_graph.c) over all ranks of the
 * engine's problem (so trees of at most CM_MAX_LEVELS levels) with a unit
 * byte cost and no message cost: the symmetric bytes, no self loops,
 * zero-byte entries left out (a matrix without any byte falls back to
 * bytes + messages there).  SCOTCH_Num is a 32-bit int and Scotch
 * accumulates (edge weight x distance) sums in it, so edge weights are
 * scaled so that their total times the largest distance stays below 2^30.
 *
 * With fewer ranks than slots the graph is padded with isolated vertices up
 * to one vertex per slot: Scotch balances vertex load over the terminals,
 * and without the padding it would spread the ranks over the whole machine
 * in proportion to each part's size instead of packing communicating ranks
 * together.  The padding vertices' terminals are ignored.  Scotch's time
 * follows that padded graph (and cannot be interrupted), so the target is
 * the part of the tree the ranks can use (cm_tree_restrict(): a few times
 * n slots), whatever the size of the machine; the mapping is translated
 * back to the tree's slots.
 *
 * One-to-one.  Scotch balances load but may still put two vertices on one
 * terminal.  Collisions are
 * repaired deterministically: the lowest rank keeps the slot, every other
 * rank (in rank order) moves to the free slot with the deepest lowest
 * common ancestor with its Scotch slot, the lowest such slot on ties.
 *
 * Reproducibility.  Scotch runs in its own context (cm_scotch_context_init:
 * a cloned random state seeded from @p seed, the deterministic option set),
 * so no process-wide Scotch state is touched and the same seed gives the
 * same mapping.  Errors go through libscotcherr, which prints and returns
 * (libscotcherrexit would exit the process). */
#include <limits.h>
#include <math.h>
#include <stdio.h>   /* before scotch.h: Scotch 7.0.12 uses FILE without it */
#include <stdlib.h>
#include <string.h>

#include <scotch.h>

#include "clustermap.h"
#include "map_scotch_internal.h"
#include "scotch_internal.h"
#include "tree_internal.h"

/* Cap of the sum of all link costs (the largest leaf distance), before it
 * is lowered further for large graphs. */
#define LINK_TOTAL_MAX 1024
/* Budget for (total edge weight) x (largest distance). */
#define COST_BUDGET (1LL << 30)

void cm_tleaf_free(cm_tleaf_t *tg)
{
    free(tg->size);
    free(tg->diff);
    free(tg->link);
    free(tg->term);
}

int cm_tleaf_build(const cm_tree_t *t, cm_tleaf_t *tg, cm_error_t *err)
{
    int L = cm_tree_nlevels(t), nv = cm_tree_nvertices(t), nslots = cm_tree_nslots(t);
    int *maxfan = calloc((size_t)L, sizeof *maxfan);
    int *childidx = calloc((size_t)nv, sizeof *childidx);
    long long *stride = calloc((size_t)L, sizeof *stride);
    int *keep = calloc((size_t)L, sizeof *keep); /* tleaf level of tree level, -1 */
    memset(tg, 0, sizeof *tg);
    int rc = 0;
    if (!maxfan || !childidx || !stride || !keep) {
        rc = cm_error_set(err, "scotch mapping: out of memory");
        goto out;
    }
    for (int v = 0; v < nv; v++) {
        int l = cm_tree_vertex_level(t, v), nc = cm_tree_vertex_nchildren(t, v);
        if (nc > maxfan[l])
            maxfan[l] = nc;
        for (int k = 0; k < nc; k++) {
            int c = cm_tree_vertex_child(t, v, k);
            if (cm_tree_vertex_level(t, c) != l + 1) {
                rc = cm_error_set(err, "scotch mapping: vertex %d (level \"%s\") is not one "
                                  "level below its parent (level \"%s\"): a tree-leaf "
                                  "architecture needs all slots at the same depth",
                                  c, cm_tree_level_name(t, cm_tree_vertex_level(t, c)),
                                  cm_tree_level_name(t, l));
                goto out;
            }
            childidx[c] = k;
        }
    }
    for (int l = 0; l < L - 1; l++)
        keep[l] = maxfan[l] > 1 ? tg->nlev++ : -1;
    keep[L - 1] = -1;
    if (tg->nlev == 0) {
        tg->nterm = 1;
        goto out;   /* a single slot: nothing for Scotch to do */
    }
    tg->size = malloc((size_t)tg->nlev * sizeof *tg->size);
    tg->diff = malloc((size_t)tg->nlev * sizeof *tg->diff);
    tg->link = malloc((size_t)tg->nlev * sizeof *tg->link);
    tg->term = malloc((size_t)nslots * sizeof *tg->term);
    if (!tg->size || !tg->diff || !tg->link || !tg->term) {
        rc = cm_error_set(err, "scotch mapping: out of memory");
        goto out;
    }
    long long prod = 1;
    int below = L - 1;  /* next splitting level below, or the leaf level */
    for (int l = L - 2; l >= 0; l--) {
        if (keep[l] < 0)
            continue;
        stride[l] = prod;
        prod *= maxfan[l];
        if (prod > SCOTCH_NUMMAX) {
            rc = cm_error_set(err, "scotch mapping: the tree padded to its largest fanout "
                              "per level has more than %d leaves", SCOTCH_NUMMAX);
            goto out;
        }
        double d = cm_tree_level_byte_cost(t, l) - cm_tree_level_byte_cost(t, below);
        tg->size[keep[l]] = maxfan[l];
        tg->diff[keep[l]] = d > 0 && isfinite(d) ? d : 0;
        below = l;
    }
    tg->nterm = (SCOTCH_Num)prod;
    for (int s = 0; s < nslots; s++) {
        long long idx = 0;
        for (int v = cm_tree_slot_vertex(t, s), p; (p = cm_tree_vertex_parent(t, v)) >= 0;
             v = p) {
            int l = cm_tree_vertex_level(t, p);
            if (keep[l] >= 0)
                idx += childidx[v] * stride[l];
        }
        tg->term[s] = (SCOTCH_Num)idx;
    }
out:
    free(maxfan);
    free(childidx);
    free(stride);
    free(keep);
    return rc;
}

long long cm_tleaf_scale_links(cm_tleaf_t *tg, long long cap)
{
    double dmin = 0, dsum = 0;
    for (int k = 0; k < tg->nlev; k++) {
        if (tg->diff[k] > 0 && (dmin == 0 || tg->diff[k] < dmin))
            dmin = tg->diff[k];
        dsum += tg->diff[k];
    }
    long long total = 0;
    for (int k = 0; k < tg->nlev; k++) {
        double r;
        if (dmin == 0)
            r = 1;  /* all levels cost the same: any mapping is as good */
        else if (dsum / dmin <= (double)cap)
            r = tg->diff[k] / dmin;
        else
            r = tg->diff[k] * (double)cap / dsum;
        long long v = llround(r);
        if (v < 1 && tg->diff[k] > 0)
            v = 1;
        if (dmin == 0)
            v = 1;
        tg->link[k] = (SCOTCH_Num)v;
        total += v;
    }
    return total > 0 ? total : 1;
}

int cm_map_repair(const cm_tree_t *t, int n, int *map, cm_error_t *err)
{
    int nslots = cm_tree_nslots(t);
    char *used = calloc((size_t)nslots, 1);
    int *moved = malloc((size_t)n * sizeof *moved);
    if (!used || !moved) {
        free(used);
        free(moved);
        return cm_error_set(err, "scotch mapping: out of memory");
    }
    int nmoved = 0;
    for (int r = 0; r < n; r++) {
        if (used[map[r]])
            moved[nmoved++] = r;
        else
            used[map[r]] = 1;
    }
    int rc = 0;
    for (int k = 0; k < nmoved && rc == 0; k++) {
        int r = moved[k], found = -1;
        /* The first ancestor with a free slot below it: every free slot in
         * its range has it as lowest common ancestor (deeper ones were
         * searched first), so take the lowest. */
        for (int v = cm_tree_slot_vertex(t, map[r]); v >= 0 && found < 0;
             v = cm_tree_vertex_parent(t, v)) {
            int first, count;
            cm_tree_vertex_slots(t, v, &first, &count);
            for (int s = first; s < first + count; s++)
                if (!used[s]) {
                    found = s;
                    break;
                }
        }
        if (found < 0)
            rc = cm_error_set(err, "scotch mapping: no free slot left for rank %d", r);
        else {
            used[found] = 1;
            map[r] = found;
        }
    }
    free(used);
    free(moved);
    return rc;
}

/* The source graph: vertices 0..n-1 are the ranks weighted by their
 * symmetric byte volume (cm_sgraph_build() under a unit byte cost), then
 * isolated padding vertices up to @p nvert.  @p total bounds the sum of the
 * integer edge weights plus the number of arcs. */
static int source_graph(const cm_problem_t *p, int nvert, long long total,
                        cm_sgraph_t *g, cm_error_t *err)
{
    int n = p->n;
    int *ranks = malloc((size_t)n * sizeof *ranks);
    int *local = malloc((size_t)n * sizeof *local);
    int rc = 0;

    memset(g, 0, sizeof *g);
    if (!ranks || !local) {
        rc = cm_error_set(err, "scotch mapping: out of memory for %d ranks", n);
        goto out;
    }
    for (int i = 0; i < n; i++) {
        ranks[i] = i;
        local[i] = -1;
    }
    if (cm_sgraph_build(p, ranks, n, 0, total, local, g, err) < 0) {
        rc = -1;
        goto out;
    }
    if (nvert > n) {
        SCOTCH_Num *vert = realloc(g->vert, ((size_t)nvert + 1) * sizeof *vert);
        if (!vert) {
            rc = cm_error_set(err, "scotch mapping: out of memory for %d vertices", nvert);
            goto out;
        }
        for (int i = n + 1; i <= nvert; i++)
            vert[i] = g->narcs;
        g->vert = vert;
        g->n = nvert;
    }
out:
    free(ranks);
    free(local);
    return rc;
}

/* Scotch's static mapping of the n <= nslots ranks onto @p t itself. */
static int map_onto(const cm_matrix_t *m, const cm_tree_t *t, uint64_t seed, int *map,
                    cm_error_t *err)
{
    int n = cm_matrix_n(m), nslots = cm_tree_nslots(t);
    cm_tleaf_t tg;
    if (cm_tleaf_build(t, &tg, err) < 0) {
        cm_tleaf_free(&tg);
        return -1;
    }
    if (tg.nlev == 0) {   /* one slot, one rank */
        cm_tleaf_free(&tg);
        map[0] = 0;
        return 0;
    }
    /* Edge weights are bytes only: one unit cost on every level. */
    cm_costs_t unit = { .nlevels = cm_tree_nlevels(t) };
    for (int l = 0; l < CM_MAX_LEVELS; l++)
        unit.cb[l] = 1;
    cm_problem_t p;
    if (cm_problem_init(&p, m, t, &unit, err) < 0) {
        cm_tleaf_free(&tg);
        return -1;
    }

    /* Fit (edge weights) x (distance) into the budget: first spend it on
     * weight resolution, and coarsen the link costs only when there are so
     * many arcs that even weight 1 each would not fit.  The symmetric
     * matrix's entries bound the number of arcs. */
    long long narcs = (long long)cm_matrix_nnz(p.sym);
    long long cap = LINK_TOTAL_MAX, maxdist, budget;
    for (;;) {
        maxdist = cm_tleaf_scale_links(&tg, cap);
        budget = COST_BUDGET / maxdist;
        if (budget >= 2LL * narcs + 2)
            break;
        if (cap <= tg.nlev) {
            int rc = cm_error_set(err, "scotch mapping: %lld arcs are too many for Scotch's "
                                  "32-bit cost sums", narcs);
            cm_problem_fini(&p);
            cm_tleaf_free(&tg);
            return rc;
        }
        cap /= 2;
    }
    cm_sgraph_t g;
    int rc = source_graph(&p, nslots, budget, &g, err);
    cm_problem_fini(&p);
    if (rc < 0) {
        cm_tleaf_free(&tg);
        return -1;
    }

    const char *call = NULL;
    SCOTCH_Graph graph, cgraph;
    SCOTCH_Arch tleaf, sub;
    SCOTCH_Strat strat;
    SCOTCH_Context ctx;
    int have_graph = 0, have_cgraph = 0, have_tleaf = 0, have_sub = 0, have_strat = 0,
        have_ctx = 0;
    SCOTCH_Num *part = malloc((size_t)nslots * sizeof *part);
    if (!part) {
        rc = cm_error_set(err, "scotch mapping: out of memory");
        goto out;
    }

#define SCOTCH_TRY(expr, name)                                                  \
    do {                                                                        \
        if ((expr) != 0) {                                                      \
            call = name;                                                        \
            goto fail;                                                          \
        }                                                                       \
    } while (0)

    SCOTCH_TRY(SCOTCH_graphInit(&graph), "SCOTCH_graphInit");
    have_graph = 1;
    SCOTCH_TRY(SCOTCH_graphBuild(&graph, 0, g.n, g.vert, NULL, NULL, NULL, g.narcs, g.edge,
                                 g.narcs ? g.edlo : NULL),
               "SCOTCH_graphBuild");
    SCOTCH_TRY(SCOTCH_graphCheck(&graph), "SCOTCH_graphCheck");
    SCOTCH_TRY(SCOTCH_archInit(&tleaf), "SCOTCH_archInit");
    have_tleaf = 1;
    SCOTCH_TRY(SCOTCH_archTleaf(&tleaf, tg.nlev, tg.size, tg.link), "SCOTCH_archTleaf");
    const SCOTCH_Arch *arch = &tleaf;
    if (tg.nterm != nslots) {
        SCOTCH_TRY(SCOTCH_archInit(&sub), "SCOTCH_archInit");
        have_sub = 1;
        SCOTCH_TRY(SCOTCH_archSub(&sub, &tleaf, nslots, tg.term), "SCOTCH_archSub");
        arch = &sub;
    }
    if (cm_scotch_context_init(&ctx, seed, err) < 0) {
        rc = -1;
        goto out;
    }
    have_ctx = 1;
    SCOTCH_TRY(SCOTCH_contextBindGraph(&ctx, &graph, &cgraph), "SCOTCH_contextBindGraph");
    have_cgraph = 1;
    SCOTCH_TRY(SCOTCH_stratInit(&strat), "SCOTCH_stratInit");
    have_strat = 1;
    /* Empty strategy: Scotch's default mapping strategy. */
    SCOTCH_TRY(SCOTCH_graphMap(&cgraph, arch, &strat, part), "SCOTCH_graphMap");
#undef SCOTCH_TRY

    for (int i = 0; i < n; i++) {
        if (part[i] < 0 || part[i] >= nslots) {
            rc = cm_error_set(err, "scotch mapping: SCOTCH_graphMap put rank %d on "
                              "terminal %d, expected 0..%d", i, (int)part[i], nslots - 1);
            goto out;
        }
        map[i] = (int)part[i];
    }
    rc = cm_map_repair(t, n, map, err);
    goto out;

fail:
    rc = cm_error_set(err, "scotch mapping: %s failed (Scotch printed the reason on "
                      "stderr)", call);
out:
    if (have_strat)
        SCOTCH_stratExit(&strat);
    if (have_cgraph)
        SCOTCH_graphExit(&cgraph);
    if (have_ctx)
        SCOTCH_contextExit(&ctx);
    if (have_sub)
        SCOTCH_archExit(&sub);
    if (have_tleaf)
        SCOTCH_archExit(&tleaf);
    if (have_graph)
        SCOTCH_graphExit(&graph);
    free(part);
    cm_sgraph_free(&g);
    cm_tleaf_free(&tg);
    return rc;
}

int cm_map_scotch(const cm_matrix_t *m, const cm_tree_t *t, uint64_t seed, int *map,
                  cm_error_t *err)
{
    if (!m || !t || !map)
        return cm_error_set(err, "scotch mapping: expected a matrix, a tree and a map, "
                            "got NULL");
    int n = cm_matrix_n(m), nslots = cm_tree_nslots(t), rc;
    if (n < 1)
        return cm_error_set(err, "scotch mapping: expected at least 1 rank, got %d", n);
    if (n > nslots)
        return cm_error_set(err, "scotch mapping: %d ranks but the tree has only %d slots",
                            n, nslots);
    /* Scotch's time follows the padded graph, one vertex per slot: map onto
     * the part of the tree the ranks can use, whose size follows n (without
     * the baselines' thin nodes, over which it would spread the ranks). */
    cm_tree_t *part = cm_tree_cut(t, n, 0, NULL, 0, &rc, err);
    if (rc < 0)
        return -1;
    rc = map_onto(m, part ? part : t, seed, map, err);
    if (rc == 0 && part)
        rc = cm_tree_map_to_origin(part, map, n, map, err);
    cm_tree_free(part);
    return rc;
}
