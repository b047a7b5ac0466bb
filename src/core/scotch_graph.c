/* scotch_graph.c -- Scotch inputs from the engine's problem (see
 * scotch_internal.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scotch_internal.h"

void cm_sgraph_free(cm_sgraph_t *g)
{
    free(g->vert);
    free(g->edge);
    free(g->edlo);
    memset(g, 0, sizeof *g);
}

int cm_sgraph_build(const cm_problem_t *p, const int *ranks, int count,
                    int level, long long total, int *local, cm_sgraph_t *g,
                    cm_error_t *err)
{
    memset(g, 0, sizeof *g);
    for (int k = 0; k < count; k++)
        local[ranks[k]] = k;
    size_t narcs = 0;
    long double wsum = 0, rawsum = 0;
    for (int k = 0; k < count; k++) {
        const int *cols;
        const double *b, *m;
        int len;
        cm_matrix_row(p->sym, ranks[k], &cols, &b, &m, &len);
        for (int e = 0; e < len; e++) {
            if (local[cols[e]] < 0)
                continue;
            narcs++;
            wsum += cm_edge_cost(p, b[e], m[e], level);
            rawsum += b[e] + m[e];
        }
    }
    /* Levels that cost nothing would make every cut free: fall back to the
     * raw volume so that Scotch still keeps partners together. */
    int raw = !(wsum > 0);
    long double sum = raw ? rawsum : wsum;
    int rc = 0;
    if (narcs > (size_t)SCOTCH_NUMMAX / 2) {
        rc = cm_error_set(err, "scotch graph: %zu arcs, more than Scotch's %d",
                          narcs, SCOTCH_NUMMAX / 2);
        goto out;
    }
    g->vert = malloc(((size_t)count + 1) * sizeof *g->vert);
    g->edge = malloc((narcs ? narcs : 1) * sizeof *g->edge);
    g->edlo = malloc((narcs ? narcs : 1) * sizeof *g->edlo);
    if (!g->vert || !g->edge || !g->edlo) {
        rc = cm_error_set(err, "scotch graph: out of memory for %zu arcs", narcs);
        goto out;
    }
    long double target = (long double)total - (long double)narcs;
    if (target < 1)
        target = 1;
    long double scale = sum > 0 ? target / sum : 1;
    SCOTCH_Num a = 0;
    for (int k = 0; k < count; k++) {
        const int *cols;
        const double *b, *m;
        int len;
        cm_matrix_row(p->sym, ranks[k], &cols, &b, &m, &len);
        g->vert[k] = a;
        for (int e = 0; e < len; e++) {
            int j = local[cols[e]];
            if (j < 0)
                continue;
            double w = raw ? b[e] + m[e] : cm_edge_cost(p, b[e], m[e], level);
            if (!(w > 0))
                continue;
            long long v = llroundl((long double)w * scale);
            g->edge[a] = j;
            g->edlo[a] = (SCOTCH_Num)(v < 1 ? 1 : v);
            a++;
        }
    }
    g->vert[count] = a;
    g->n = count;
    g->narcs = a;
out:
    for (int k = 0; k < count; k++)
        local[ranks[k]] = -1;
    if (rc)
        cm_sgraph_free(g);
    return rc;
}

int cm_scotch_context_init(SCOTCH_Context *ctx, uint64_t seed, cm_error_t *err)
{
    if (SCOTCH_contextInit(ctx) != 0)
        return cm_error_set(err, "SCOTCH_contextInit failed");
    /* One thread: Scotch's threaded code paths give other results than its
     * one-thread path, and its default thread count is the machine's core
     * count (or SCOTCH_PTHREAD_NUMBER), so the same inputs gave another
     * mapping on a one-core machine.  clustermap runs the subtrees of a
     * multisection on its own threads instead (cm_walk), whose count
     * changes no result. */
    if (SCOTCH_contextThreadSpawn(ctx, 1, NULL) != 0 ||
        SCOTCH_contextRandomClone(ctx) != 0 ||
        SCOTCH_contextOptionSetNum(ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0) {
        SCOTCH_contextExit(ctx);
        return cm_error_set(err, "setting up a deterministic Scotch context "
                            "failed");
    }
    /* SCOTCH_Num holds 31 bits of seed: fold the 64-bit seed into it. */
    SCOTCH_contextRandomSeed(ctx, (SCOTCH_Num)((seed ^ (seed >> 31) ^ (seed >> 62))
                                               & 0x7fffffff));
    return 0;
}
