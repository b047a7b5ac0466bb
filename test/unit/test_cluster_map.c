/* test_cluster_map.c -- the clustering placement (src/core/cluster_map.c)
 * and APE (src/core/ape.c): exact optimum on separable cases, capacities on
 * heterogeneous machines, fewer ranks than slots, determinism, degenerate
 * inputs, and a real matrix against the baselines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cluster_internal.h"
#include "testdata.h"
#include "testutil.h"

/* Nodes of 4, 8, 12 and 8 cores under one switch. */
static const int HETERO_CORES[4] = { 4, 8, 12, 8 };

#define BIG_BUDGET 400000000ULL

static void add(cm_builder_t *b, int i, int j, double bytes)
{
    cm_error_t err = { "" };
    if (cm_builder_add(b, i, j, bytes, 0, &err) != 0)
        fail_msg("cm_builder_add: %s", err.msg);
}

/* @p ncl cliques of @p size ranks, ranks scrambled by (r * mult) mod n. */
static cm_matrix_t *cliques(int ncl, int size, int mult)
{
    int n = ncl * size;
    cm_builder_t *b = cm_builder_new(n, NULL);
    for (int c = 0; c < ncl; c++)
        for (int x = 0; x < size; x++)
            for (int y = 0; y < size; y++)
                if (x != y)
                    add(b, (c * size + x) * mult % n, (c * size + y) * mult % n,
                        100.0);
    return cm_test_finish(b);
}

/* The end of every test: the problem, its tree and its matrix. */
static void release(cm_problem_t *p, cm_tree_t *t, cm_matrix_t *m)
{
    cm_problem_fini(p);
    cm_tree_free(t);
    cm_matrix_free(m);
}

static void map_cluster(const cm_problem_t *p, uint64_t seed, int *map)
{
    cm_error_t err = { "" };
    cm_plan_options_t o;
    memset(&o, 0, sizeof o);
    o.seed = seed;
    o.pack_low = CM_PACK_LOW_DEFAULT;
    o.pack_high = CM_PACK_HIGH_DEFAULT;
    o.pack_kmax = CM_PACK_KMAX_DEFAULT;
    cm_budget_t b = {0, BIG_BUDGET};
    if (cm_map_cluster(p, &o, &b, map, &err) != 0)
        fail_msg("cm_map_cluster: %s", err.msg);
    if (cm_mapping_check(p->tree, map, p->n, &err) != 0)
        fail_msg("invalid mapping: %s", err.msg);
}

/* 4 cliques of 8 (scrambled) on 4 nodes x 8 cores: each clique on its own
 * node, so J = 4 x 56 directed entries x 100 bytes x cost 1 (same node). */
static void test_cliques_on_nodes(void **state)
{
    (void)state;
    cm_matrix_t *m = cliques(4, 8, 5);
    cm_tree_t *t = cm_test_hier("8:4", "1:10");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[32];
    map_cluster(&p, 1, map);
    for (int r = 0; r < 32; r++)
        for (int s = 0; s < 32; s++) {
            /* ranks of one clique: (c*8+x)*5 mod 32 share c */
            int cr = -1, cs = -1;
            for (int i = 0; i < 32; i++) {
                if (i * 5 % 32 == r)
                    cr = i / 8;
                if (i * 5 % 32 == s)
                    cs = i / 8;
            }
            int nr = cm_tree_slot_node(t, map[r]), ns = cm_tree_slot_node(t, map[s]);
            if (cr == cs)
                assert_int_equal(nr, ns);
        }
    assert_true(cm_problem_cost(&p, map) == 4 * 56 * 100.0);
    assert_true(cm_cost(m, t, map) == 4 * 56 * 100.0);
    release(&p, t, m);
}

/* Two levels: 8 cliques of 4 on 2 switches x 2 nodes x 2 sockets x 4 cores:
 * every clique inside one socket, J = 8 x 12 x 100 x 1. */
static void test_cliques_deep(void **state)
{
    (void)state;
    cm_matrix_t *m = cliques(8, 4, 7);
    cm_tree_t *t = cm_test_hier("4:2:2:2", "1:2:10:20");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[32];
    map_cluster(&p, 3, map);
    assert_true(cm_problem_cost(&p, map) == 8 * 12 * 100.0);
    release(&p, t, m);
}

/* 32 ranks on 4 + 8 + 12 + 8 cores, groups of 4/8/12/8 that talk inside:
 * capacities hold and every group lands on the node of its size. */
static void test_heterogeneous_nodes(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_nodes(4, HETERO_CORES, NULL);
    cm_matrix_t *m = cm_test_hetero_cliques();
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[32];
    map_cluster(&p, 1, map);
    cm_test_hetero_cliques_check(&p, t, map);
    release(&p, t, m);
}

/* Fewer ranks than slots: 16 ranks (a ring) on 32 slots.  Only the fewest
 * nodes that hold 16 take part (12 + 8 cores), shares proportional to
 * slots x speed among them (seed 002): 16 x 8/20, 16 x 12/20 -> 6, 10.
 * With node 0 four times as fast (cap x speed 16 8 12 8): nodes 0 and 2
 * hold exactly 16 and are filled. */
static void test_fewer_ranks_than_slots(void **state)
{
    (void)state;
    cm_builder_t *b = cm_builder_new(16, NULL);
    for (int r = 0; r < 16; r++)
        add(b, r, (r + 1) % 16, 5.0);
    cm_matrix_t *m = cm_test_finish(b);
    cm_tree_t *t = cm_test_nodes(4, HETERO_CORES, NULL);
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[16], count[4];
    map_cluster(&p, 1, map);
    cm_test_per_node(t, map, 16, count);
    assert_int_equal(count[0], 0);
    assert_int_equal(count[1], 6);
    assert_int_equal(count[2], 10);
    assert_int_equal(count[3], 0);
    /* The ring cut into two arcs: 2 entries cross nodes (cost 10), the
     * other 14 stay inside one (cost 2). */
    assert_true(cm_problem_cost(&p, map) == 2 * 5.0 * 10 + 14 * 5.0 * 2);
    cm_problem_fini(&p);
    cm_tree_free(t);

    static const double speed[] = {4, 1, 1, 1};
    t = cm_test_nodes(4, HETERO_CORES, speed);
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    map_cluster(&p, 1, map);
    cm_test_per_node(t, map, 16, count);
    assert_int_equal(count[0], 4);
    assert_int_equal(count[1], 0);
    assert_int_equal(count[2], 12);
    assert_int_equal(count[3], 0);
    release(&p, t, m);
}

static void test_deterministic(void **state)
{
    (void)state;
    cm_matrix_t *m = cm_test_matrix("matrices/mg.S.64.mtx");
    cm_tree_t *t = cm_test_hier("4:2:4:2", "1:2:10:20");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int a[64], b[64];
    map_cluster(&p, 9, a);
    map_cluster(&p, 9, b);
    assert_memory_equal(a, b, sizeof a);
    release(&p, t, m);
}

static void test_degenerate(void **state)
{
    (void)state;
    /* One rank. */
    cm_builder_t *b = cm_builder_new(1, NULL);
    cm_matrix_t *m = cm_test_finish(b);
    cm_tree_t *t = cm_test_hier("4:2", "1:10");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[8];
    map_cluster(&p, 1, map);
    assert_true(map[0] >= 0 && map[0] < 8);
    cm_problem_fini(&p);
    cm_matrix_free(m);

    /* No communication at all: any valid mapping, J = 0. */
    b = cm_builder_new(8, NULL);
    m = cm_test_finish(b);
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    map_cluster(&p, 1, map);
    assert_true(cm_problem_cost(&p, map) == 0.0);
    cm_problem_fini(&p);
    cm_matrix_free(m);

    /* Disconnected: two pairs and a triple, 1 rank alone (8 ranks on 2
     * nodes of 4): the triple + the loner on one node, the pairs on the
     * other: no traffic crosses nodes. */
    b = cm_builder_new(8, NULL);
    add(b, 0, 5, 1);
    add(b, 1, 6, 1);
    add(b, 2, 3, 1);
    add(b, 3, 7, 1);
    m = cm_test_finish(b);
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    map_cluster(&p, 1, map);
    assert_true(cm_problem_cost(&p, map) == 4.0);
    release(&p, t, m);
}

/* APE on a hand-made case: two singletons on the wrong nodes swap. */
static void test_ape_swaps_noise(void **state)
{
    (void)state;
    cm_builder_t *b = cm_builder_new(4, NULL);
    add(b, 0, 1, 10);   /* 0 and 1 should share a node */
    add(b, 2, 3, 10);
    cm_matrix_t *m = cm_test_finish(b);
    cm_tree_t *t = cm_test_hier("2:2", "1:10");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[4] = {0, 2, 1, 3};           /* 0|2 on node 0, 1|3 on node 1 */
    int cluster[4] = {0, 1, 2, 3};
    cm_budget_t bud = {0, BIG_BUDGET};
    double before = cm_problem_cost(&p, map);
    assert_true(before == 200.0);
    int swaps = cm_ape(&p, cluster, 4, 1, 4, map, &bud);
    assert_true(swaps >= 1);
    assert_true(cm_problem_cost(&p, map) == 20.0);
    assert_true(bud.used > 0);
    /* Clusters of different sizes never swap: {0,1} (2) and {2} {3}. */
    int map2[4] = {0, 2, 1, 3};
    int cl2[4] = {0, 0, 1, 2};
    swaps = cm_ape(&p, cl2, 3, 2, 4, map2, &bud);
    assert_int_equal(map2[0], 0);
    assert_int_equal(map2[1], 2);
    assert_true(cm_problem_cost(&p, map2) <= before);
    release(&p, t, m);
}

/* A real matrix: valid, at least as good as cyclic; the ratios to block
 * and Scotch are printed, not asserted. */
static void test_real_matrix(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_matrix_t *m = cm_test_matrix("matrices/cg.S.64.mtx");
    cm_tree_t *t = cm_test_hier("4:2:4:2", "1:2:10:20");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[64], base[64];
    map_cluster(&p, 1, map);
    double J = cm_cost(m, t, map);
    assert_int_equal(cm_map_cyclic(t, 64, base, &err), 0);
    double Jc = cm_cost(m, t, base);
    assert_true(J <= Jc);
    assert_int_equal(cm_map_block(t, 64, base, &err), 0);
    double Jb = cm_cost(m, t, base);
    assert_int_equal(cm_map_scotch(m, t, 1, base, &err), 0);
    double Js = cm_cost(m, t, base);
    print_message("cg.S.64 on 4:2:4:2: J/J_block %.3f  J/J_scotch %.3f  "
                  "J/J_cyclic %.3f\n", J / Jb, J / Js, J / Jc);
    release(&p, t, m);
}

/* A budget too small for any spectral step still gives a valid mapping. */
static void test_tiny_budget(void **state)
{
    (void)state;
    cm_matrix_t *m = cliques(4, 8, 5);
    cm_tree_t *t = cm_test_hier("8:4", "1:10");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[32];
    cm_error_t err = { "" };
    cm_budget_t b = {0, 10};
    assert_int_equal(cm_map_cluster(&p, NULL, &b, map, &err), 0);
    assert_int_equal(cm_mapping_check(t, map, 32, &err), 0);
    release(&p, t, m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cliques_on_nodes),
        cmocka_unit_test(test_cliques_deep),
        cmocka_unit_test(test_heterogeneous_nodes),
        cmocka_unit_test(test_fewer_ranks_than_slots),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_ape_swaps_noise),
        cmocka_unit_test(test_real_matrix),
        cmocka_unit_test(test_tiny_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
