/* exact.h -- the true optimum of J for small instances, so the benchmark can
 * show how far the mappers are from it.
 *
 * J only depends on which ranks share which vertex of the machine tree, so
 * the optimum is a hierarchical partition: the best cost of a set S of ranks
 * inside a vertex v is the best split of S over v's children (each within
 * its slot count) plus v's level cost for the pairs the split separates.  A
 * dynamic program over all subsets of ranks computes it per class of
 * identical subtrees (same shape, same level costs), so it is exact over
 * every slot of the tree -- unused slots included -- and, since identical
 * children are interchangeable, each split of a set over them is visited
 * once.  Work ~ (children per vertex) x 3^n / 2 and does not depend on the
 * matrix: 6.7e7 steps, about 0.1 s, at n = 16 on 4:2:4:2. */
#ifndef CM_BENCH_EXACT_H
#define CM_BENCH_EXACT_H

#include "clustermap.h"

/** Largest n the solver accepts (memory: ~ a few 2^n tables per class). */
#define BENCH_EXACT_MAX_N 20

/** Work units (submask steps) bench_exact_optimum() would spend on @p m and
 *  @p t; -1 when n is out of range or the tree cannot be read. */
double bench_exact_work(const cm_matrix_t *m, const cm_tree_t *t);

/** The minimum of cm_cost() over every injective mapping of the ranks of
 *  @p m onto the slots of @p t.  @p best_map (n entries, caller-allocated)
 *  receives an optimal mapping and @p best_J (may be NULL) its cm_cost().
 *  Returns 0 when proven optimal; 1 when the work would exceed
 *  @p node_limit work units (<= 0: no limit) or n > BENCH_EXACT_MAX_N, in
 *  which case best_map is the better of block and Scotch (seed 1), not
 *  proven; -1 on error (more ranks than slots, out of memory). */
int bench_exact_optimum(const cm_matrix_t *m, const cm_tree_t *t,
                        double node_limit, int *best_map, double *best_J);

#endif
