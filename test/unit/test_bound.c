/* test_bound.c -- the lower bound on J over all mappings (src/core/bound.c).
 *
 * The bound must never exceed the true optimum, which brute force over every
 * injective mapping finds on small trees (random matrices, message costs,
 * a tree that skips a level); it must be exact where the optimum is known
 * (uniform all-to-all: every mapping costs the same; a path: consecutive
 * ranks fill consecutive groups), and below what every algorithm reaches on
 * real matrices. */
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

static double bound(const cm_matrix_t *m, const cm_tree_t *t, const double *cut_lb)
{
    cm_error_t err = { "" };
    double lb = cm_cost_lower_bound(m, t, cut_lb, &err);
    if (lb < 0)
        fail_msg("cm_cost_lower_bound: %s", err.msg);
    return lb;
}

/* A random matrix on n ranks: each ordered pair talks with probability
 * 1/2, bytes and messages drawn from small ranges. */
static cm_matrix_t *random_matrix(int n, uint64_t seed, int with_msgs)
{
    cm_error_t err = { "" };
    cm_rng_t r;
    cm_rng_seed(&r, seed);
    cm_builder_t *b = cm_builder_new(n, &err);
    assert_non_null(b);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (cm_rng_below(&r, 2) == 0) {
                double bytes = (double)(1 + cm_rng_below(&r, 1000));
                double msgs = (double)(1 + cm_rng_below(&r, 20));
                assert_int_equal(cm_builder_add(b, i, j, bytes, msgs, &err), 0);
            }
    cm_builder_set_has_msgs(b, with_msgs);
    return cm_test_finish(b);
}

/* Lowest J over all injective maps of n ranks onto the tree's slots. */
static void brute(const cm_matrix_t *m, const cm_tree_t *t, int *map, int *used,
                  int k, double *best)
{
    int n = cm_matrix_n(m), ns = cm_tree_nslots(t);
    if (k == n) {
        double j = cm_cost(m, t, map);
        if (j < *best)
            *best = j;
        return;
    }
    for (int s = 0; s < ns; s++) {
        if (used[s])
            continue;
        used[s] = 1;
        map[k] = s;
        brute(m, t, map, used, k + 1, best);
        used[s] = 0;
    }
}

static double optimum(const cm_matrix_t *m, const cm_tree_t *t)
{
    int map[16], used[64] = { 0 };
    double best = INFINITY;
    assert_true(cm_tree_nslots(t) <= 64 && cm_matrix_n(m) <= 16);
    brute(m, t, map, used, 0, &best);
    return best;
}

static void check_against_brute_force(cm_tree_t *t, int n, int with_msgs)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        cm_matrix_t *m = random_matrix(n, seed, with_msgs);
        double lb = bound(m, t, NULL), opt = optimum(m, t);
        if (!(lb <= opt * (1 + 1e-12)))
            fail_msg("seed %llu: bound %.17g above the optimum %.17g",
                     (unsigned long long)seed, lb, opt);
        assert_true(lb > 0);
        cm_matrix_free(m);
    }
}

static void test_brute_force_full(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    check_against_brute_force(t, 8, 0);
    cm_tree_free(t);
}

static void test_brute_force_spare_slots(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2:2", "1:10:100:1000");
    check_against_brute_force(t, 5, 0);
    cm_tree_free(t);
}

static void test_brute_force_messages(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    if (cm_tree_set_level_latencies(t, "socket=3,node=40,switch=500", &err) != 0)
        fail_msg("%s", err.msg);
    check_against_brute_force(t, 8, 1);
    cm_tree_free(t);
}

/* A random tree (rank i > 0 hangs under a random earlier rank) with random
 * weights: the shape where the packing-aware forest cut does the work. */
static cm_matrix_t *random_tree(int n, uint64_t seed)
{
    cm_error_t err = { "" };
    cm_rng_t r;
    cm_rng_seed(&r, seed);
    cm_builder_t *b = cm_builder_new(n, &err);
    assert_non_null(b);
    for (int i = 1; i < n; i++) {
        int p = (int)cm_rng_below(&r, (uint64_t)i);
        double w = (double)(1 + cm_rng_below(&r, 4));
        assert_int_equal(cm_builder_add(b, i, p, w, 1, &err), 0);
        assert_int_equal(cm_builder_add(b, p, i, w, 1, &err), 0);
    }
    return cm_test_finish(b);
}

static void test_brute_force_trees(void **state)
{
    (void)state;
    static const char *hier[][2] = { { "4:2", "1:10" }, { "2:2:2", "1:10:100" },
                                     { "8", "1" } };
    for (size_t h = 0; h < sizeof hier / sizeof *hier; h++) {
        cm_tree_t *t = cm_test_hier(hier[h][0], hier[h][1]);
        for (uint64_t seed = 1; seed <= 8; seed++) {
            cm_matrix_t *m = random_tree(8, seed);
            double lb = bound(m, t, NULL), opt = optimum(m, t);
            if (!(lb <= opt * (1 + 1e-12)))
                fail_msg("%s seed %llu: bound %.17g above the optimum %.17g",
                         hier[h][0], (unsigned long long)seed, lb, opt);
            cm_matrix_free(m);
        }
        cm_tree_free(t);
    }
}

/* root -> { switch -> 2 nodes, node directly under the root }: the lone
 * node skips the switch level, so its slots form their own switch-level
 * group. */
static cm_tree_t *skipping_tree(void)
{
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_new();
    assert_non_null(t);
    assert_int_equal(cm_tree_add_level(t, "cluster", 1000, 0, &err), 0);
    assert_int_equal(cm_tree_add_level(t, "switch", 100, 0, &err), 1);
    assert_int_equal(cm_tree_add_level(t, "node", 10, 0, &err), 2);
    assert_int_equal(cm_tree_add_level(t, "core", 0, 0, &err), 3);
    int root = cm_tree_add_vertex(t, -1, 0, "cluster", &err);
    int sw = cm_tree_add_vertex(t, root, 1, "s1", &err);
    int nodes[3] = { cm_tree_add_vertex(t, sw, 2, "n1", &err),
                     cm_tree_add_vertex(t, sw, 2, "n2", &err),
                     cm_tree_add_vertex(t, root, 2, "n3", &err) };
    for (int k = 0; k < 3; k++) {
        assert_true(nodes[k] >= 0);
        for (int c = 0; c < 2 + (k == 2); c++)
            assert_true(cm_tree_add_vertex(t, nodes[k], 3, NULL, &err) >= 0);
    }
    if (cm_tree_finalize(t, &err) < 0)
        fail_msg("%s", err.msg);
    return t;
}

static void test_brute_force_skipped_level(void **state)
{
    (void)state;
    cm_tree_t *t = skipping_tree();
    assert_int_equal(cm_tree_nslots(t), 7);
    check_against_brute_force(t, 7, 0);
    check_against_brute_force(t, 5, 0);
    cm_tree_free(t);
}

/* Uniform all-to-all: every mapping has the same J, and the heaviest
 * partners a rank can keep are exactly what any group holds. */
static void test_exact_all_to_all(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_hier("4:2:4", "1:10:100");
    int n = cm_tree_nslots(t);
    cm_builder_t *b = cm_builder_new(n, &err);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j)
                assert_int_equal(cm_builder_add(b, i, j, 64, 1, &err), 0);
    cm_matrix_t *m = cm_test_finish(b);
    int *map = malloc(sizeof(int) * (size_t)n);
    assert_int_equal(cm_map_random(t, n, 7, map, &err), 0);
    assert_float_equal(bound(m, t, NULL), cm_cost(m, t, map), 1e-6);
    free(map);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* A path in rank order: block keeps every group a run of the path, which
 * the spanning-forest cut shows optimal at every level. */
static void test_exact_path(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_hier("2:4:4", "1:10:100");
    int n = cm_tree_nslots(t);
    cm_builder_t *b = cm_builder_new(n, &err);
    for (int i = 0; i + 1 < n; i++) {
        assert_int_equal(cm_builder_add(b, i, i + 1, 100, 1, &err), 0);
        assert_int_equal(cm_builder_add(b, i + 1, i, 100, 1, &err), 0);
    }
    cm_matrix_t *m = cm_test_finish(b);
    int *map = malloc(sizeof(int) * (size_t)n);
    assert_int_equal(cm_map_block(t, n, map, &err), 0);
    assert_float_equal(bound(m, t, NULL), cm_cost(m, t, map), 1e-9);
    free(map);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* What the caller knows is used, and only where it is stronger. */
static void test_caller_cut_bound(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    cm_matrix_t *m = random_matrix(8, 3, 0);
    double none = bound(m, t, NULL);
    double zero[4] = { 0, 0, 0, 0 };
    assert_float_equal(bound(m, t, zero), none, 0);
    double total;
    cm_matrix_totals(m, &total, NULL);
    /* Everything cut at the node level (cost 10 -> 100 for all of it). */
    double all[4] = { 0, 2 * total, 0, 0 };
    double with = bound(m, t, all);
    assert_true(with > none);
    assert_true(with <= 100 * total * (1 + 1e-12));
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_below_algorithms_on_real_matrices(void **state)
{
    (void)state;
    static const char *files[] = { "matrices/cg.S.64.mtx", "matrices/mg.S.64.mtx",
                                   "matrices/lammps.peptide.64.mtx",
                                   "matrices/is.S.64.mtx" };
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        cm_error_t err = { "" };
        cm_matrix_t *m = cm_test_matrix(files[f]);
        cm_tree_t *t = cm_test_hier("4:2:4:2", "1:2:10:20");
        int n = cm_matrix_n(m);
        int *map = malloc(sizeof(int) * (size_t)n);
        double lb = bound(m, t, NULL);
        assert_true(lb > 0);
        assert_int_equal(cm_map_block(t, n, map, &err), 0);
        assert_true(lb <= cm_cost(m, t, map));
        assert_int_equal(cm_map_scotch(m, t, 1, map, &err), 0);
        assert_true(lb <= cm_cost(m, t, map));
        cm_plan_options_t o;
        cm_plan_options_init(&o);
        assert_int_equal(cm_plan(m, t, &o, map, NULL, &err), 0);
        assert_true(lb <= cm_cost(m, t, map));
        free(map);
        cm_matrix_free(m);
        cm_tree_free(t);
    }
}

static void test_too_many_ranks(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_hier("2:2", "1:10");
    cm_matrix_t *m = random_matrix(5, 1, 0);
    assert_true(cm_cost_lower_bound(m, t, NULL, &err) < 0);
    assert_non_null(strstr(err.msg, "5 ranks"));
    assert_non_null(strstr(err.msg, "4 slots"));
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_no_communication(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_hier("2:2", "1:10");
    cm_builder_t *b = cm_builder_new(3, &err);
    cm_matrix_t *m = cm_test_finish(b);
    assert_float_equal(bound(m, t, NULL), 0, 0);
    cm_matrix_free(m);
    cm_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brute_force_full),
        cmocka_unit_test(test_brute_force_spare_slots),
        cmocka_unit_test(test_brute_force_messages),
        cmocka_unit_test(test_brute_force_skipped_level),
        cmocka_unit_test(test_brute_force_trees),
        cmocka_unit_test(test_exact_all_to_all),
        cmocka_unit_test(test_exact_path),
        cmocka_unit_test(test_caller_cut_bound),
        cmocka_unit_test(test_below_algorithms_on_real_matrices),
        cmocka_unit_test(test_too_many_ranks),
        cmocka_unit_test(test_no_communication),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
