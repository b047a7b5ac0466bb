/*
 * scotch_internal.h -- building Scotch's inputs from the engine's problem:
 * the (sub)graph of a set of ranks in Scotch's CSR arrays with integer edge
 * weights, and a seeded, deterministic Scotch context.  Shared by the
 * multisection backend (map_multisection.c); map_scotch.c has its own copy
 * of the graph code for the static-mapping baseline and could switch to
 * this one.  Not part of the public API.
 */
#ifndef CM_SCOTCH_INTERNAL_H
#define CM_SCOTCH_INTERNAL_H

#include <stdint.h>
#include <stdio.h>   /* before scotch.h: Scotch 7.0.12 uses FILE without it */

#include <scotch.h>

#include "engine_internal.h"

/** A graph in Scotch's CSR arrays (vertices 0..n-1, both arcs of every
 *  edge, no self loops, integer weights >= 1). */
typedef struct cm_sgraph {
    SCOTCH_Num n, narcs;
    SCOTCH_Num *vert;   /**< [n + 1] */
    SCOTCH_Num *edge;   /**< [narcs] */
    SCOTCH_Num *edlo;   /**< [narcs] */
} cm_sgraph_t;

/** The graph induced by @p count ranks @p ranks of the problem's symmetric
 *  matrix (rank ranks[k] becomes vertex k).  An edge weighs
 *  bytes * cb[level] + msgs * cm[level] (the price of cutting it at that
 *  tree level), or bytes + msgs when that is 0 for every edge; weights are
 *  scaled so that they sum to at most @p total (>= 1 each), so that Scotch's
 *  32-bit cost sums cannot overflow.  Zero-weight entries are left out.
 *  @p local is caller scratch of n ints, all -1 on entry and on return. */
int cm_sgraph_build(const cm_problem_t *p, const int *ranks, int count,
                    int level, long long total, int *local, cm_sgraph_t *g,
                    cm_error_t *err);

void cm_sgraph_free(cm_sgraph_t *g);

/** A Scotch context with its own random state seeded from @p seed, the
 *  deterministic option set and one thread, so that no process-wide Scotch
 *  state is used and the same seed gives the same result on any machine
 *  (Scotch's threaded paths differ from its one-thread path).  Contexts
 *  are independent: several may run at once on different threads.  0 or
 *  -1 (err filled). */
int cm_scotch_context_init(SCOTCH_Context *ctx, uint64_t seed, cm_error_t *err);

#endif /* CM_SCOTCH_INTERNAL_H */
