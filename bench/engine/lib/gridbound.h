/* gridbound.h -- what edge-isoperimetry says about cutting the generated
 * patterns.
 *
 * If no s ranks of a pattern share more than E(s) of its edges, a level
 * made of n/s groups of s slots keeps at most (n/s) E(s) edges inside and
 * cuts the rest -- a bound the generic ones of cm_cost_lower_bound() cannot
 * see.  E(s) is known for two families:
 *  - stencils (grids): compressions turn any set of cells into a down-set
 *    without losing edges, so a search over down-sets of N^d finds E(s)
 *    (up to 64 cells; larger groups use the weaker Loomis-Whitney bound);
 *  - fft2d (all-to-all in each row and column: the rook's graph K_a x K_b):
 *    by Lindsey's theorem an initial segment of a lexicographic order is
 *    optimal, i.e. full rows (or full columns) first. */
#ifndef CM_BENCH_GRIDBOUND_H
#define CM_BENCH_GRIDBOUND_H

#include "clustermap.h"
#include "patterns.h"

/** Most edges among @p s cells of Z^d (d = 2 or 3): exact up to 64 cells,
 *  above that an upper bound from the Loomis-Whitney inequality. */
long bench_grid_max_inside(int d, long s);

/** Most edges among @p s cells of the rook's graph of an a x b grid. */
long bench_rook_max_inside(int a, int b, long s);

/** Fill cut_lb[cm_tree_nlevels(t)] for pattern @p p on @p n ranks and tree
 *  @p t (the volume of one edge, both directions, is read from @p m).
 *  Returns 0, or -1 when the bound does not apply (another pattern,
 *  n != slots, unequal groups or edge volumes): cut_lb is then all zero. */
int bench_grid_cut_lb(bench_pattern_t p, int n, const cm_matrix_t *m,
                      const cm_tree_t *t, double *cut_lb);

#endif
