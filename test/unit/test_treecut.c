/* test_treecut.c -- the spanning-tree placement (src/core/map_treecut.c):
 * the optimum on trees it solves exactly, exact capacities on
 * heterogeneous machines and when pieces must be carved, fewer ranks than
 * slots, the greedy rule for wide shares, determinism, refinement never
 * making it worse, and degenerate inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_internal.h"
#include "testdata.h"
#include "testutil.h"

/* Nodes of 4, 8, 12 and 8 cores under one switch. */
static const int HETERO_CORES[4] = { 4, 8, 12, 8 };

static void add(cm_builder_t *b, int i, int j, double bytes)
{
    cm_error_t err = { "" };
    if (cm_builder_add(b, i, j, bytes, 0, &err) != 0 ||
        cm_builder_add(b, j, i, bytes, 0, &err) != 0)
        fail_msg("cm_builder_add: %s", err.msg);
}

/* The rank that label r gets: a fixed scramble (mult coprime to n). */
static int scr(int r, int n, int mult)
{
    return (int)((long)r * mult % n);
}

static void map_treecut(const cm_problem_t *p, int *map)
{
    cm_error_t err = { "" };
    cm_budget_t b = {0, UINT64_MAX};
    if (cm_map_treecut(p, 1, map, &b, &err) != 0)
        fail_msg("cm_map_treecut: %s", err.msg);
    if (cm_mapping_check(p->tree, map, p->n, &err) != 0)
        fail_msg("invalid mapping: %s", err.msg);
    assert_true(b.used > 0 || p->n <= 1);
}

static void release(cm_problem_t *p, cm_tree_t *t, cm_matrix_t *m)
{
    cm_problem_fini(p);
    cm_tree_free(t);
    cm_matrix_free(m);
}

/* A path of n ranks in scrambled order on a full machine: the optimum
 * puts consecutive ranks together (block on the unscrambled order), and
 * the program finds it. */
static void path_optimum(const char *hier, const char *dist, int n)
{
    cm_builder_t *b = cm_builder_new(n, NULL);
    for (int r = 0; r + 1 < n; r++)
        add(b, scr(r, n, 7), scr(r + 1, n, 7), 10.0);
    cm_matrix_t *m = cm_test_finish(b);
    cm_tree_t *t = cm_test_hier(hier, dist);
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int *map = malloc(sizeof(int) * (size_t)n);
    int *opt = malloc(sizeof(int) * (size_t)n);
    map_treecut(&p, map);
    for (int r = 0; r < n; r++)
        opt[scr(r, n, 7)] = r;     /* slots in order along the path */
    assert_true(cm_problem_cost(&p, map) == cm_problem_cost(&p, opt));
    free(map);
    free(opt);
    release(&p, t, m);
}

static void test_path_optimum(void **state)
{
    (void)state;
    path_optimum("4:2:4", "1:10:100", 32);
    path_optimum("4:8:8", "1:10:100", 256);
}

/* Shares too wide for the table (4 nodes of 1024 slots): Kundu and
 * Misra's rule cuts the path into four arcs, the optimum again. */
static void test_wide_shares(void **state)
{
    (void)state;
    path_optimum("1024:4", "1:10", 4096);
}

/* Cliques of 8, 12, 4 and 8 ranks (scrambled) on nodes of 4, 8, 12 and 8
 * cores: every clique lands whole on the node of its size. */
static void test_heterogeneous_nodes(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_nodes(4, HETERO_CORES, NULL);
    cm_matrix_t *m = cm_test_hetero_cliques();
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[32];
    map_treecut(&p, map);
    cm_test_hetero_cliques_check(&p, t, map);
    release(&p, t, m);
}

/* 16 ranks in a ring on 32 slots: the fewest nodes that hold them take
 * part (cm_child_shares: 6 and 10), and the ring is cut into two arcs. */
static void test_fewer_ranks_than_slots(void **state)
{
    (void)state;
    cm_builder_t *b = cm_builder_new(16, NULL);
    for (int r = 0; r < 16; r++)
        add(b, scr(r, 16, 5), scr((r + 1) % 16, 16, 5), 5.0);
    cm_matrix_t *m = cm_test_finish(b);
    cm_tree_t *t = cm_test_nodes(4, HETERO_CORES, NULL);
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[16], count[4];
    map_treecut(&p, map);
    cm_test_per_node(t, map, 16, count);
    assert_int_equal(count[0], 0);
    assert_int_equal(count[1], 6);
    assert_int_equal(count[2], 10);
    assert_int_equal(count[3], 0);
    assert_true(cm_problem_cost(&p, map) == 2 * 2 * 5.0 * 10 + 2 * 14 * 5.0 * 2);
    cm_problem_fini(&p);
    cm_tree_free(t);

    /* Node 0 four times as fast: nodes 0 and 2 take 4 and 12. */
    static const double speed[] = {4, 1, 1, 1};
    t = cm_test_nodes(4, HETERO_CORES, speed);
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    map_treecut(&p, map);
    cm_test_per_node(t, map, 16, count);
    assert_int_equal(count[0], 4);
    assert_int_equal(count[1], 0);
    assert_int_equal(count[2], 12);
    assert_int_equal(count[3], 0);
    release(&p, t, m);
}

/* Cliques of 6, 5 and 5 ranks on 4 nodes of 4 cores: no piece fits a
 * node, every one is carved, and every node still gets exactly 4. */
static void test_carving(void **state)
{
    (void)state;
    static const int gsize[] = {6, 5, 5};
    cm_builder_t *b = cm_builder_new(16, NULL);
    int base = 0;
    for (int g = 0; g < 3; g++) {
        for (int x = 0; x < gsize[g]; x++)
            for (int y = x + 1; y < gsize[g]; y++)
                add(b, scr(base + x, 16, 3), scr(base + y, 16, 3), 1.0);
        base += gsize[g];
    }
    cm_matrix_t *m = cm_test_finish(b);
    cm_tree_t *t = cm_test_hier("4:4", "1:10");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[16], count[4] = {0};
    map_treecut(&p, map);
    for (int r = 0; r < 16; r++)
        count[map[r] / 4]++;
    for (int k = 0; k < 4; k++)
        assert_int_equal(count[k], 4);
    release(&p, t, m);
}

/* A binary reduction tree (rank i <-> 2i+1, 2i+2, scrambled): the start
 * beats cyclic by far, the same inputs give the same mapping, and the
 * refinement the planner runs after it never makes it worse. */
static void test_bintree_refine(void **state)
{
    (void)state;
    int n = 256;
    cm_builder_t *b = cm_builder_new(n, NULL);
    for (int i = 0; i < n; i++)
        for (int c = 2 * i + 1; c <= 2 * i + 2 && c < n; c++)
            add(b, scr(i, n, 37), scr(c, n, 37), 8.0);
    cm_matrix_t *m = cm_test_finish(b);
    cm_tree_t *t = cm_test_hier("4:8:8", "1:10:100");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[256], again[256], cyc[256];
    cm_error_t err = { "" };
    map_treecut(&p, map);
    map_treecut(&p, again);
    assert_memory_equal(map, again, sizeof map);
    assert_int_equal(cm_map_cyclic(t, n, cyc, &err), 0);
    double J0 = cm_problem_cost(&p, map);
    assert_true(J0 < 0.2 * cm_problem_cost(&p, cyc));
    cm_budget_t bud = {0, 100000000ULL};
    double J1 = cm_refine(&p, map, &bud);
    assert_true(J1 <= J0);
    assert_true(cm_problem_cost(&p, map) == J1);
    assert_int_equal(cm_mapping_check(t, map, n, &err), 0);
    release(&p, t, m);
}

static void test_deterministic_real(void **state)
{
    (void)state;
    cm_matrix_t *m = cm_test_matrix("matrices/mg.S.64.mtx");
    cm_tree_t *t = cm_test_hier("4:2:4:2", "1:2:10:20");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_MIXED);
    int a[64], b[64];
    map_treecut(&p, a);
    map_treecut(&p, b);
    assert_memory_equal(a, b, sizeof a);
    release(&p, t, m);
}

/* Through the planner: "treecut" as a single algorithm, and "auto" on a
 * tree never worse than it. */
static void test_plan(void **state)
{
    (void)state;
    int n = 128;
    cm_builder_t *b = cm_builder_new(n, NULL);
    for (int i = 1; i < n; i++)
        add(b, scr(i, n, 11), scr((i - 1) / 2, n, 11), 4.0);
    cm_matrix_t *m = cm_test_finish(b);
    cm_tree_t *t = cm_test_hier("4:4:8", "1:10:100");
    cm_plan_options_t o;
    cm_plan_report_t rep;
    cm_error_t err = { "" };
    int map[128], amap[128];
    cm_plan_options_init(&o);
    o.algorithm = "treecut";
    assert_int_equal(cm_plan(m, t, &o, map, &rep, &err), 0);
    double Jt = cm_cost(m, t, map);
    o.algorithm = "auto";
    assert_int_equal(cm_plan(m, t, &o, amap, &rep, &err), 0);
    assert_true(cm_cost(m, t, amap) <= Jt);
    cm_matrix_free(m);
    cm_tree_free(t);
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
    map_treecut(&p, map);
    assert_true(map[0] >= 0 && map[0] < 8);
    cm_problem_fini(&p);
    cm_matrix_free(m);

    /* No communication at all: any valid mapping, J = 0. */
    b = cm_builder_new(8, NULL);
    m = cm_test_finish(b);
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    map_treecut(&p, map);
    assert_true(cm_problem_cost(&p, map) == 0.0);
    cm_problem_fini(&p);
    cm_matrix_free(m);

    /* Disconnected: two pairs, a triple and a loner (8 ranks on 2 nodes
     * of 4): the triple and the loner on one node, the pairs on the
     * other, so nothing crosses nodes (4 entries of cost 1). */
    b = cm_builder_new(8, NULL);
    add(b, 0, 5, 0.5);
    add(b, 1, 6, 0.5);
    add(b, 2, 3, 0.5);
    add(b, 3, 7, 0.5);
    m = cm_test_finish(b);
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    map_treecut(&p, map);
    assert_true(cm_problem_cost(&p, map) == 4.0);
    release(&p, t, m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_optimum),
        cmocka_unit_test(test_wide_shares),
        cmocka_unit_test(test_heterogeneous_nodes),
        cmocka_unit_test(test_fewer_ranks_than_slots),
        cmocka_unit_test(test_carving),
        cmocka_unit_test(test_bintree_refine),
        cmocka_unit_test(test_deterministic_real),
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
