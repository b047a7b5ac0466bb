/* test_cost_max.c -- T_max(pi), the slowest rank's receives with the bytes
 * from other nodes shared by the node (cm_cost_max, src/core/cost.c), and
 * how "auto" uses it (src/core/plan.c).
 *
 * Hand-computed cases, the weight modes, bad input, an independent
 * per-rank sum on real matrices, and a latency-bound wavefront on which
 * the lowest J makes the slowest rank slower: auto must not choose it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testdata.h"
#include "testutil.h"

/* 8 ranks on "2:2:2": levels switch (0), node (1), socket (2), core (3),
 * byte costs 100, 10, 1, 0 and message costs 1000, 0, 50, 7.  Slots 0-1 |
 * 2-3 are the sockets of node 0, 4-5 | 6-7 those of node 1. */
static cm_tree_t *hand_tree(void)
{
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    cm_error_t err = { "" };
    assert_int_equal(cm_tree_set_level_cost(t, 0, 100, 1000, &err), 0);
    assert_int_equal(cm_tree_set_level_cost(t, 2, 1, 50, &err), 0);
    assert_int_equal(cm_tree_set_level_cost(t, 3, 0, 7, &err), 0);
    return t;
}

/* Under the identity each entry is charged to its receiver, the bytes of
 * the entries that cross the switch to the receiver's node:
 *   0 -> 1  socket   5 x 1 +  2 x 50        =  105  rank 1
 *   0 -> 4  switch  11 x 100 | 3 x 1000     = 1100 node 1 | 3000 rank 4
 *   2 -> 2  core     1 x 0 +  9 x 7         =   63  rank 2
 *   5 -> 4  socket   2 x 1 +  1 x 50        =   52  rank 4
 *   4 -> 0  switch  20 x 100                = 2000 node 0
 *   1 -> 0  socket   1 x 1 + 10 x 50        =  501  rank 0
 *   6 -> 3  switch   3 x 100 | 1 x 1000     =  300 node 0 | 1000 rank 3
 * Node 0 (ranks 0-3) 2300, node 1 (4-7) 1100: rank 0 2801, rank 1 2405,
 * rank 2 2363, rank 3 3300, rank 4 3052 + 1100 = 4152, ranks 5-7 1100.
 * T_max = 4152; J = 8121, the sum of all parts.  Charging senders alone,
 * all bytes to ranks, would give rank 0 105 + 4100 = 4205. */
static const cm_test_entry_t hand[] = {
    { 0, 1, 5, 2 },  { 0, 4, 11, 3 }, { 2, 2, 1, 9 }, { 5, 4, 2, 1 },
    { 4, 0, 20, 0 }, { 1, 0, 1, 10 }, { 6, 3, 3, 1 },
};
#define NHAND ((int)(sizeof hand / sizeof hand[0]))

static void test_hand_identity(void **state)
{
    (void)state;
    cm_tree_t *t = hand_tree();
    cm_matrix_t *m = cm_test_matrix_of(8, hand, NHAND, 1);
    int map[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    assert_true(cm_cost(m, t, map) == 8121.0);
    assert_true(cm_cost_max(m, t, map) == 4152.0);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* rank -> slot 0 4 1 5 2 6 3 7 (node 0: ranks 0 2 4 6, node 1: 1 3 5 7):
 *   0 -> 1  slots 0,4 switch  5 x 100 | 2 x 1000   = 500 node 1 | 2000 rank 1
 *   0 -> 4  slots 0,2 node   11 x 10               = 110  rank 4
 *   2 -> 2  diagonal                               =  63  rank 2
 *   5 -> 4  slots 6,2 switch  2 x 100 | 1 x 1000   = 200 node 0 | 1000 rank 4
 *   4 -> 0  slots 2,0 node   20 x 10               = 200  rank 0
 *   1 -> 0  slots 4,0 switch  1 x 100 | 10 x 1000  = 100 node 0 | 10000 rank 0
 *   6 -> 3  slots 3,5 switch  3 x 100 | 1 x 1000   = 300 node 1 | 1000 rank 3
 * Node 0 300, node 1 800: rank 0 10200 + 300 = 10500, rank 1 2800,
 * rank 3 1800, rank 4 1110 + 300 = 1410.  T_max = 10500, J = 15473. */
static void test_hand_permuted(void **state)
{
    (void)state;
    cm_tree_t *t = hand_tree();
    cm_matrix_t *m = cm_test_matrix_of(8, hand, NHAND, 1);
    int map[8] = { 0, 4, 1, 5, 2, 6, 3, 7 };
    assert_true(cm_cost(m, t, map) == 15473.0);
    assert_true(cm_cost_max(m, t, map) == 10500.0);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* The figure follows the costs --weight leaves (cm_tree_apply_weight),
 * under the identity:
 * bytes: node 0 2300 + rank 1's 5 = 2305 (rank 0 2301, node 1 1100 + 2);
 * msgs:  rank 4 3 x 1000 + 1 x 50 = 3050, rank 3 1000, rank 0 500. */
static void test_weights(void **state)
{
    (void)state;
    cm_matrix_t *m = cm_test_matrix_of(8, hand, NHAND, 1);
    int map[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    cm_error_t err = { "" };
    cm_tree_t *t = hand_tree();
    assert_int_equal(cm_tree_apply_weight(t, m, CM_WEIGHT_BYTES, &err), 0);
    assert_true(cm_cost_max(m, t, map) == 2305.0);
    cm_tree_free(t);
    t = hand_tree();
    assert_int_equal(cm_tree_apply_weight(t, m, CM_WEIGHT_MSGS, &err), 0);
    assert_true(cm_cost_max(m, t, map) == 3050.0);
    cm_tree_free(t);
    t = hand_tree();
    assert_int_equal(cm_tree_apply_weight(t, m, CM_WEIGHT_MIXED, &err), 0);
    assert_true(cm_cost_max(m, t, map) == 4152.0);
    cm_tree_free(t);
    cm_matrix_free(m);
}

static void test_bad_input(void **state)
{
    (void)state;
    cm_tree_t *t = hand_tree();
    cm_matrix_t *m = cm_test_matrix_of(8, hand, NHAND, 1);
    int map[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    int out[8] = { 0, 1, 2, 3, 4, 5, 6, 8 };
    int neg[8] = { -1, 1, 2, 3, 4, 5, 6, 7 };
    assert_true(isnan(cm_cost_max(NULL, t, map)));
    assert_true(isnan(cm_cost_max(m, NULL, map)));
    assert_true(isnan(cm_cost_max(m, t, NULL)));
    assert_true(isnan(cm_cost_max(m, t, out)));
    assert_true(isnan(cm_cost_max(m, t, neg)));
    /* No traffic at all: every rank receives nothing. */
    cm_matrix_t *none = cm_test_matrix_of(8, hand, 0, 1);
    assert_true(cm_cost_max(none, t, map) == 0.0);
    cm_matrix_free(none);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* Independently: per-rank and per-node sums over the column of each rank,
 * from the public lookups, on real matrices and three mappings.  Every
 * part of J is charged once, so J / n <= T_max <= J. */
static void check_independent(const char *rel, const char *hier,
                              const char *dist)
{
    cm_tree_t *t = cm_test_hier(hier, dist);
    cm_matrix_t *m = cm_test_matrix(rel);
    int n = cm_matrix_n(m);
    int *map = malloc(sizeof(int) * (size_t)n);
    int nnodes = cm_tree_nnodes(t);
    assert_true(nnodes > 1);
    double *recv = malloc(sizeof(double) * (size_t)(n + nnodes));
    assert_non_null(map);
    assert_non_null(recv);
    double *node_in = recv + n;
    cm_error_t err = { "" };
    for (int which = 0; which < 3; which++) {
        if (which == 0)
            assert_int_equal(cm_map_block(t, n, map, &err), 0);
        else if (which == 1)
            assert_int_equal(cm_map_cyclic(t, n, map, &err), 0);
        else
            assert_int_equal(cm_map_random(t, n, 7, map, &err), 0);
        for (int i = 0; i < n + nnodes; i++)
            recv[i] = 0;
        for (int i = 0; i < n; i++) {
            const int *cols;
            const double *bytes, *msgs;
            int len;
            cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
            for (int k = 0; k < len; k++) {
                int j = cols[k], l = cm_tree_lca_level(t, map[i], map[j]);
                int to = cm_tree_slot_node(t, map[j]);
                double b = bytes[k] * cm_tree_level_byte_cost(t, l);
                if (to != cm_tree_slot_node(t, map[i]))
                    node_in[to] += b;
                else
                    recv[j] += b;
                recv[j] += msgs ? msgs[k] * cm_tree_level_msg_cost(t, l) : 0;
            }
        }
        double want = 0;
        for (int i = 0; i < n; i++)
            want = fmax(want, recv[i] + node_in[cm_tree_slot_node(t, map[i])]);
        double T = cm_cost_max(m, t, map), J = cm_cost(m, t, map);
        assert_true(fabs(T - want) <= 1e-12 * want);
        assert_true(T <= J * (1 + 1e-12));
        assert_true(T * n >= J * (1 - 1e-12));
    }
    free(map);
    free(recv);
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_independent(void **state)
{
    (void)state;
    check_independent("matrices/cg.S.64.mtx", "4:2:4:2", "1:2:10:20");
    check_independent("matrices/mg.S.64.mtx", "4:2:4:2", "1:10:100:1000");
}

/* The judge's wavefront (bench/sim/apps/wavefront.c): 8 x 8 ranks, each
 * receiving 100 messages of 64 bytes from north and west, on 4 leaves of
 * 2 nodes of 8 cores with the 25 GbE platform's costs.  Block puts a row
 * on each node: every rank receives one message off node.  Tiles of 2 x 4
 * per node send a third fewer messages off node (lower J) but their corner
 * ranks receive both off node, and the pipeline runs at their pace. */
static void test_auto_wavefront(void **state)
{
    (void)state;
    /* Levels group4 (0, across leaves), switch (1, a leaf), node (2, 8
     * slots), socket (3, one slot each), core (4). */
    cm_tree_t *t = cm_test_hier("1:8:2:4", "1:2:3:4");
    cm_error_t err = { "" };
    assert_int_equal(cm_tree_nnodes(t), 8);
    assert_int_equal(cm_tree_set_level_cost(t, 0, 1 / 1.5625e9, 8e-6, &err), 0);
    assert_int_equal(cm_tree_set_level_cost(t, 1, 1 / 3.125e9, 4e-6, &err), 0);
    assert_int_equal(cm_tree_set_level_cost(t, 2, 1 / 20e9, 0.2e-6, &err), 0);
    assert_int_equal(cm_tree_set_level_cost(t, 3, 0, 0, &err), 0);
    assert_int_equal(cm_tree_set_level_cost(t, 4, 0, 0, &err), 0);
    cm_builder_t *b = cm_builder_new(64, &err);
    assert_non_null(b);
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) {
            if (r + 1 < 8)
                assert_int_equal(cm_builder_add(b, r * 8 + c, (r + 1) * 8 + c,
                                                6400, 100, &err), 0);
            if (c + 1 < 8)
                assert_int_equal(cm_builder_add(b, r * 8 + c, r * 8 + c + 1,
                                                6400, 100, &err), 0);
        }
    cm_builder_set_has_msgs(b, 1);
    cm_matrix_t *m = cm_test_finish(b);

    int block[64], map[64];
    assert_int_equal(cm_map_block(t, 64, block, &err), 0);
    double Jb = cm_cost(m, t, block), Tb = cm_cost_max(m, t, block);
    /* Block: the worst rank receives from north across the leaves
     * (100 x 8 us; its node takes in 8 x 6400 bytes at 1.5625 GB/s) and
     * from west inside its node (100 x 0.2 us + 6400 bytes at 20 GB/s). */
    double want = 100 * 8e-6 + 8 * 6400 / 1.5625e9 + 100 * 0.2e-6 + 6400 / 20e9;
    assert_true(fabs(Tb - want) <= 1e-12 * want);

    cm_plan_options_t o;
    cm_plan_options_init(&o);
    o.time_budget = 0.2;
    cm_plan_report_t rep;
    assert_int_equal(cm_plan(m, t, &o, map, &rep, &err), 0);
    double J = cm_cost(m, t, map), T = cm_cost_max(m, t, map);
    assert_true(J <= Jb);
    assert_true(T <= Tb * (1 + 1e-9));
    assert_true(fabs(rep.T_max - T) <= 1e-12 * T);
    assert_true(fabs(rep.J - J) <= 1e-12 * J);

    /* Some candidate had a lower J and a slower worst rank, and was
     * reported so; every candidate within block's T_max was eligible. */
    int over = 0;
    for (int k = 0; k < rep.ncandidates; k++) {
        const cm_plan_candidate_t *c = &rep.candidates[k];
        if (!c->ok)
            continue;
        assert_false(isnan(c->T_max));
        assert_int_equal(c->over_tmax, c->T_max > Tb * (1 + 1e-9));
        if (c->over_tmax) {
            over++;
            assert_true(c->J < rep.J);
        } else {
            assert_true(c->J >= rep.J);
        }
    }
    assert_true(over > 0);

    /* A single algorithm is what was asked for: no cap. */
    o.algorithm = "scotch-ms";
    assert_int_equal(cm_plan(m, t, &o, map, &rep, &err), 0);
    assert_true(rep.T_max > Tb);
    assert_true(rep.J < Jb);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* L_max (cm_cost_links): under the identity on hand_tree the bytes that
 * cross the switch are 0 -> 4 (11) and 4 -> 0, 6 -> 3 (20 + 3): node 0
 * sends 11 and takes in 23, node 1 the reverse, at the switch's byte cost
 * 100, one node each: L_max = 2300. */
static void test_links_hand(void **state)
{
    (void)state;
    cm_tree_t *t = hand_tree();
    cm_matrix_t *m = cm_test_matrix_of(8, hand, NHAND, 1);
    int map[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    assert_true(cm_cost_links(m, t, map) == 2300.0);
    assert_true(isnan(cm_cost_links(NULL, t, map)));
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* A group's uplink is priced at its parent's level and shared by its
 * nodes: 2 switches of 2 nodes; one byte from node 0 to node 2 leaves
 * node 0 at the switch level's cost (100, one node) and switch 0 at the
 * root's (1000, two nodes): L_max = max(100, 500) = 500. */
static void test_links_groups(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2:2", "1:10:100:1000");
    cm_error_t err = { "" };
    static const double cost[] = { 1000, 100, 10, 1, 0 };
    for (int l = 0; l < 5; l++)
        assert_int_equal(cm_tree_set_level_cost(t, l, cost[l], 0, &err), 0);
    static const cm_test_entry_t e[] = { { 0, 8, 1, 0 } };
    cm_matrix_t *m = cm_test_matrix_of(16, e, 1, 0);
    int map[16];
    for (int i = 0; i < 16; i++)
        map[i] = i;
    assert_true(cm_cost_links(m, t, map) == 500.0);
    cm_matrix_free(m);
    cm_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_identity),
        cmocka_unit_test(test_hand_permuted),
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_independent),
        cmocka_unit_test(test_auto_wavefront),
        cmocka_unit_test(test_links_hand),
        cmocka_unit_test(test_links_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
