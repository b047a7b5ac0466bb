/* test_multisection.c -- the level-by-level Scotch multisection
 * (src/core/map_multisection.c): exact shares, capacities on hand-built
 * heterogeneous trees, determinism. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_internal.h"
#include "testdata.h"
#include "testutil.h"

/* 3 nodes of 4, 8 and 2 cores, speeds 1, 2, 1: shares of 7 ranks follow
 * slots x speed = 4 : 16 : 2. */
static const int HETERO_CORES[3] = { 4, 8, 2 };
static const double HETERO_SPEED[3] = { 1, 2, 1 };

/* A 2-D grid of rows x cols ranks, 5-point. */
static cm_matrix_t *grid(int rows, int cols)
{
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(rows * cols, &err);
    for (int x = 0; x < rows; x++)
        for (int y = 0; y < cols; y++) {
            int i = x * cols + y;
            if (x + 1 < rows) {
                cm_builder_add(b, i, i + cols, 100, 1, &err);
                cm_builder_add(b, i + cols, i, 100, 1, &err);
            }
            if (y + 1 < cols) {
                cm_builder_add(b, i, i + 1, 100, 1, &err);
                cm_builder_add(b, i + 1, i, 100, 1, &err);
            }
        }
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    if (!m)
        fail_msg("grid: %s", err.msg);
    return m;
}

static int run_ms_variant(const cm_matrix_t *m, const cm_tree_t *t,
                          uint64_t seed, int fast, int *map)
{
    cm_error_t err = { "" };
    cm_costs_t c;
    cm_problem_t p;
    cm_costs_from_tree(t, m, CM_WEIGHT_MIXED, &c);
    if (cm_problem_init(&p, m, t, &c, &err) != 0)
        fail_msg("cm_problem_init: %s", err.msg);
    int rc = cm_map_multisection(&p, seed, fast, 1, map, NULL, &err);
    if (rc != 0)
        fail_msg("cm_map_multisection: %s", err.msg);
    assert_int_equal(cm_mapping_check(t, map, cm_matrix_n(m), &err), 0);
    cm_problem_fini(&p);
    return rc;
}

static int run_ms(const cm_matrix_t *m, const cm_tree_t *t, uint64_t seed,
                  int *map)
{
    return run_ms_variant(m, t, seed, 0, map);
}

/* Full machine: every node gets exactly its slots, and the grid is cut
 * into compact pieces (far better than block on a scrambled order is not
 * needed here: the natural order, cut by Scotch, must beat cyclic). */
static void test_full_machine(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("4:8:8", "1:10:100");
    cm_matrix_t *m = grid(16, 16);
    int map[256], cyc[256];
    cm_error_t err = { "" };
    run_ms(m, t, 1, map);
    assert_int_equal(cm_map_cyclic(t, 256, cyc, &err), 0);
    assert_true(cm_cost(m, t, map) < cm_cost(m, t, cyc));
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_determinism(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("4:2:4:2", "1:2:10:20");
    cm_error_t err = { "" };
    char rel[] = "matrices/mg.S.64.mtx";
    cm_matrix_t *m = cm_matrix_read(cm_test_data_path(rel), CM_FORMAT_AUTO, &err);
    assert_non_null(m);
    int a[64], b[64];
    run_ms(m, t, 5, a);
    run_ms(m, t, 5, b);
    assert_memory_equal(a, b, sizeof a);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* A level wider than one Scotch call takes (40 nodes > MS_MAX_WAYS): the
 * children list is bisected first.  Every node still gets exactly its
 * slots (full machine) or its share (partial), the result is
 * deterministic and the grid is cut into compact pieces. */
static void test_wide_level(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:40", "1:10:100");
    cm_matrix_t *m = grid(16, 10);
    int map[160], again[160], cyc[160], cnt[40];
    cm_error_t err = { "" };
    run_ms(m, t, 3, map);
    run_ms(m, t, 3, again);
    assert_memory_equal(map, again, sizeof map);
    memset(cnt, 0, sizeof cnt);
    for (int i = 0; i < 160; i++)
        cnt[map[i] / 4]++;
    for (int k = 0; k < 40; k++)
        assert_int_equal(cnt[k], 4);
    assert_int_equal(cm_map_cyclic(t, 160, cyc, &err), 0);
    /* 2 x 2 tiles cut 134 of the 294 edges at the node level, cyclic all
     * of them: measured 0.52 of cyclic's J. */
    assert_true(cm_cost(m, t, map) < 0.6 * cm_cost(m, t, cyc));
    cm_matrix_free(m);
    /* 150 ranks: the shares of cm_child_shares, never above a node's 4. */
    m = grid(15, 10);
    run_ms(m, t, 3, map);
    memset(cnt, 0, sizeof cnt);
    for (int i = 0; i < 150; i++)
        cnt[map[i] / 4]++;
    int sh[40];
    assert_int_equal(cm_child_shares(t, 0, 150, sh, &err), 0);
    for (int k = 0; k < 40; k++) {
        assert_true(cnt[k] <= 4);
        assert_int_equal(cnt[k], sh[k]);
    }
    cm_matrix_free(m);
    cm_tree_free(t);
}
static void test_shares(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_nodes(3, HETERO_CORES, HETERO_SPEED);
    int sh[3];
    assert_int_equal(cm_child_shares(t, 0, 14, sh, &err), 0);   /* full */
    assert_int_equal(sh[0], 4);
    assert_int_equal(sh[1], 8);
    assert_int_equal(sh[2], 2);
    assert_int_equal(cm_child_shares(t, 0, 11, sh, &err), 0);
    /* cm_capacity_shares (pack.c): the fewest children that hold 11 ranks,
     * by slots x speed (n2: 16, n1: 4), then shares proportional to that,
     * capped: n2 full (8), n1 the other 3, n3 nothing. */
    assert_int_equal(sh[0] + sh[1] + sh[2], 11);
    assert_int_equal(sh[1], 8);
    assert_int_equal(sh[0], 3);
    assert_int_equal(sh[2], 0);
    /* 2 ranks fit on the fastest node alone. */
    assert_int_equal(cm_child_shares(t, 0, 2, sh, &err), 0);
    assert_int_equal(sh[1], 2);
    assert_int_equal(cm_child_shares(t, 0, 0, sh, &err), 0);
    assert_int_equal(sh[0] + sh[1] + sh[2], 0);
    assert_int_equal(cm_child_shares(t, 0, 15, sh, &err), -1);
    assert_non_null(strstr(err.msg, "15"));
    cm_tree_free(t);
}

/* Ranks per node after the multisection equal the shares exactly and never
 * exceed the node's slots. */
static void test_hetero_capacity(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_nodes(3, HETERO_CORES, HETERO_SPEED);
    for (int n = 1; n <= 14; n++) {
        cm_matrix_t *m = grid(1, n);
        int map[14], cnt[3] = { 0, 0, 0 }, sh[3];
        cm_error_t err = { "" };
        run_ms(m, t, 1, map);
        for (int i = 0; i < n; i++)
            cnt[cm_tree_slot_node(t, map[i])]++;
        assert_int_equal(cm_child_shares(t, 0, n, sh, &err), 0);
        for (int k = 0; k < 3; k++)
            assert_int_equal(cnt[k], sh[k]);
        cm_matrix_free(m);
    }
    cm_tree_free(t);
}

/* A graph without edges, and one rank. */
static void test_degenerate(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_hier("4:2:2", "1:2:10");
    cm_builder_t *b = cm_builder_new(10, &err);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    int map[16];
    run_ms(m, t, 1, map);
    cm_matrix_free(m);
    b = cm_builder_new(1, &err);
    m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    run_ms(m, t, 1, map);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* The fast variant thins a dense graph (every rank talks to all 127
 * others) to the heaviest partners: the groups of 4 that exchange 100x more
 * must still land on one node each, capacities exact, deterministic. */
static void test_fast_dense(void **state)
{
    (void)state;
    enum { N = 128 };
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(N, &err);
    /* rank r belongs to group (r * 37 % N) / 4: groups scattered */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (i != j)
                assert_int_equal(cm_builder_add(b, i, j,
                                                (i * 37 % N) / 4 == (j * 37 % N) / 4
                                                    ? 100 : 1, 1, &err), 0);
    cm_matrix_t *m = cm_test_finish(b);
    cm_tree_t *t = cm_test_hier("4:8:4", "1:10:100");
    int a[N], c[N];
    for (int fast = 0; fast < 2; fast++) {
        run_ms_variant(m, t, 3, fast, a);
        run_ms_variant(m, t, 3, fast, c);
        assert_memory_equal(a, c, sizeof a);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                if ((i * 37 % N) / 4 == (j * 37 % N) / 4 && a[i] / 4 != a[j] / 4)
                    fail_msg("fast=%d: ranks %d and %d of one group on nodes "
                             "%d and %d", fast, i, j, a[i] / 4, a[j] / 4);
    }
    cm_matrix_free(m);
    cm_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_machine),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_wide_level),
        cmocka_unit_test(test_shares),
        cmocka_unit_test(test_hetero_capacity),
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_fast_dense),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
