/*
 * testutil.h -- building test inputs in unit tests: machine trees, matrices
 * and engine problems that must exist for the test to mean anything, so
 * each helper fails the running cmocka test (fail_msg) with the library's
 * error message instead of returning NULL.  Every test binary is linked with
 * all of test/unit/lib/.
 */
#ifndef CM_TESTUTIL_H
#define CM_TESTUTIL_H

#include "clustermap.h"
#include "engine_internal.h"

/** cm_tree_from_hierarchy(@p hierarchy, @p distances), e.g. ("4:2:4:2",
 *  "1:2:10:20"). */
cm_tree_t *cm_test_hier(const char *hierarchy, const char *distances);

/** The matrix at @p rel under the test data directory (cm_test_data_path,
 *  e.g. "matrices/cg.S.64.mtx"), format detected. */
cm_matrix_t *cm_test_matrix(const char *rel);

/** cm_builder_finish(@p b), then cm_builder_free(@p b). */
cm_matrix_t *cm_test_finish(cm_builder_t *b);

/** One matrix entry of a hand-written test matrix. */
typedef struct cm_test_entry {
    int src, dst;
    double bytes, msgs;
} cm_test_entry_t;

/** The @p n-rank matrix of the @p ne entries @p e; @p has_msgs says whether
 *  their message counts are measured ones. */
cm_matrix_t *cm_test_matrix_of(int n, const cm_test_entry_t *e, int ne, int has_msgs);

/** Assert that row @p i of @p m has exactly @p len entries with columns
 *  @p cols and byte weights @p bytes, in that order; @p msgs (message
 *  counts) is checked too unless NULL. */
void cm_test_check_row(const cm_matrix_t *m, int i, int len, const int *cols,
                       const double *bytes, const double *msgs);

/** cm_problem_init() of @p m on @p t with the costs cm_costs_from_tree()
 *  gives for @p weight.  Release with cm_problem_fini(). */
void cm_test_problem(cm_problem_t *p, const cm_matrix_t *m, const cm_tree_t *t,
                     cm_weight_t weight);

/** A switch (cost 10 per byte) over @p nnodes nodes (cost 2) labelled
 *  n0, n1, ... with @p cores[i] cores each (cost 0); @p speed (may be NULL)
 *  sets the nodes' relative speeds.  For heterogeneous-capacity tests. */
cm_tree_t *cm_test_nodes(int nnodes, const int *cores, const double *speed);

/** @p count[node] = how many of the @p n ranks @p map puts on each node
 *  (allocation order); @p count has cm_tree_nnodes(@p t) entries. */
void cm_test_per_node(const cm_tree_t *t, const int *map, int n, int *count);

/** 32 ranks talking in cliques of 8, 12, 4 and 8 (10 bytes each way,
 *  ranks scrambled by 13 r mod 32), for nodes of 4, 8, 12 and 8 cores
 *  (cm_test_nodes): the optimum puts every clique whole on the node of its
 *  size. */
cm_matrix_t *cm_test_hetero_cliques(void);

/** Assert that @p map is that optimum: 4, 8, 12, 8 ranks per node and
 *  J = sum g (g - 1) x 10 x 2 (every clique inside one node). */
void cm_test_hetero_cliques_check(const cm_problem_t *p, const cm_tree_t *t,
                                  const int *map);

/** The level names of @p t from the root down, separated by spaces
 *  ("switch node socket core"), in @p buf of @p size bytes. */
const char *cm_test_level_names(const cm_tree_t *t, char *buf, size_t size);

#endif /* CM_TESTUTIL_H */
