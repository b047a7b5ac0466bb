/* test_refine.c -- the local search of src/core/refine.c: never increases
 * J, returns the J of the mapping it leaves, keeps a valid mapping, stops
 * on an empty budget, and reaches the known optimum of a tiny instance. */
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_internal.h"
#include "testdata.h"

static cm_tree_t *hier(const char *h, const char *d)
{
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_from_hierarchy(h, d, &err);
    if (!t)
        fail_msg("cm_tree_from_hierarchy(%s, %s): %s", h, d, err.msg);
    return t;
}

static cm_matrix_t *matrix(const char *name)
{
    cm_error_t err = { "" };
    char rel[256];
    snprintf(rel, sizeof rel, "matrices/%s", name);
    cm_matrix_t *m = cm_matrix_read(cm_test_data_path(rel), CM_FORMAT_AUTO, &err);
    if (!m)
        fail_msg("%s: %s", name, err.msg);
    return m;
}

static void problem(cm_problem_t *p, const cm_matrix_t *m, const cm_tree_t *t)
{
    cm_error_t err = { "" };
    cm_costs_t c;
    cm_costs_from_tree(t, m, CM_WEIGHT_MIXED, &c);
    if (cm_problem_init(p, m, t, &c, &err) != 0)
        fail_msg("cm_problem_init: %s", err.msg);
}

static void test_never_worse_real(void **state)
{
    (void)state;
    static const char *names[] = {
        "cg.S.64.mtx", "mg.S.64.mtx", "lu.S.16.mtx", "ft.S.64.mtx",
        "is.S.64.mtx", "lammps.peptide.64.mtx", "gromacs.spce7k.np16.npme4.mtx",
    };
    static const char *dists[] = { "1:2:10:20", "1:10:100:1000" };
    for (size_t d = 0; d < 2; d++) {
        cm_tree_t *t = hier("4:2:4:2", dists[d]);
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            cm_matrix_t *m = matrix(names[k]);
            int n = cm_matrix_n(m);
            int *map = malloc(sizeof(int) * (size_t)n);
            cm_problem_t p;
            problem(&p, m, t);
            for (uint64_t seed = 0; seed < 4; seed++) {
                cm_error_t err = { "" };
                if (seed == 0)
                    assert_int_equal(cm_map_block(t, n, map, &err), 0);
                else
                    assert_int_equal(cm_map_random(t, n, seed, map, &err), 0);
                double J0 = cm_cost(m, t, map);
                cm_budget_t b = { 0, UINT64_MAX };
                double J1 = cm_refine(&p, map, &b);
                assert_int_equal(cm_mapping_check(t, map, n, &err), 0);
                double J = cm_cost(m, t, map);
                assert_true(J <= J0);
                assert_true(fabs(J1 - J) <= 1e-9 * (J > 1 ? J : 1));
                /* From a random start there is always something to gain
                 * (except for ft's uniform all-to-all: every mapping of
                 * 64 ranks on 64 slots costs the same). */
                if (seed > 0 && J0 > 0 && strncmp(names[k], "ft.", 3) != 0 &&
                    !(J < J0))
                    fail_msg("%s %s seed %d: no gain from %g", names[k], dists[d],
                             (int)seed, J0);
            }
            cm_problem_fini(&p);
            free(map);
            cm_matrix_free(m);
        }
        cm_tree_free(t);
    }
}

static void test_empty_budget(void **state)
{
    (void)state;
    cm_tree_t *t = hier("4:2:4:2", "1:2:10:20");
    cm_matrix_t *m = matrix("cg.S.64.mtx");
    cm_problem_t p;
    problem(&p, m, t);
    int map[64], copy[64];
    cm_error_t err = { "" };
    assert_int_equal(cm_map_random(t, 64, 7, map, &err), 0);
    memcpy(copy, map, sizeof map);
    cm_budget_t b = { 0, 0 };
    cm_refine(&p, map, &b);
    assert_memory_equal(map, copy, sizeof map);
    cm_problem_fini(&p);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* 8 ranks in 4 heavy pairs {0,4} {1,5} {2,6} {3,7}; pairs (0,4)-(1,5) and
 * (2,6)-(3,7) talk a little.  On 2 nodes x 2 sockets x 2 cores with costs
 * 1:10:100 the optimum puts each pair in a socket and linked pairs in one
 * node; brute force over all 8! mappings confirms the refined J. */
static void test_tiny_optimum(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = hier("2:2:2", "1:10:100");
    cm_builder_t *b = cm_builder_new(8, &err);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(cm_builder_add(b, i, i + 4, 100, 1, &err), 0);
        assert_int_equal(cm_builder_add(b, i + 4, i, 100, 1, &err), 0);
    }
    assert_int_equal(cm_builder_add(b, 0, 1, 10, 1, &err), 0);
    assert_int_equal(cm_builder_add(b, 5, 4, 10, 1, &err), 0);
    assert_int_equal(cm_builder_add(b, 2, 3, 10, 1, &err), 0);
    assert_int_equal(cm_builder_add(b, 7, 6, 10, 1, &err), 0);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    assert_non_null(m);
    cm_builder_free(b);

    /* Brute force. */
    int perm[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    double best = -1;
    for (;;) {
        double J = cm_cost(m, t, perm);
        if (best < 0 || J < best)
            best = J;
        int i = 6;
        while (i >= 0 && perm[i] > perm[i + 1])
            i--;
        if (i < 0)
            break;
        int j = 7;
        while (perm[j] < perm[i])
            j--;
        int x = perm[i]; perm[i] = perm[j]; perm[j] = x;
        for (int a = i + 1, z = 7; a < z; a++, z--) {
            x = perm[a]; perm[a] = perm[z]; perm[z] = x;
        }
    }
    /* Pairs inside sockets (2 x 100 x 1 each), links inside nodes. */
    assert_true(best == 4 * 200 * 1 + 2 * 20 * 10);

    cm_problem_t p;
    problem(&p, m, t);
    int map[8];
    for (uint64_t seed = 1; seed <= 8; seed++) {
        assert_int_equal(cm_map_random(t, 8, seed, map, &err), 0);
        cm_budget_t bud = { 0, UINT64_MAX };
        double J = cm_refine(&p, map, &bud);
        if (J != best)
            fail_msg("seed %d: J %g, optimum %g", (int)seed, J, best);
        assert_true(cm_cost(m, t, map) == best);
    }
    cm_problem_fini(&p);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* Fewer ranks than slots: ranks move into free slots next to partners. */
static void test_free_slots(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = hier("2:2:2", "1:10:100");
    cm_builder_t *b = cm_builder_new(2, &err);
    assert_int_equal(cm_builder_add(b, 0, 1, 5, 1, &err), 0);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    cm_problem_t p;
    problem(&p, m, t);
    int map[2] = { 0, 7 };   /* different nodes */
    cm_budget_t bud = { 0, UINT64_MAX };
    assert_true(cm_refine(&p, map, &bud) == 5.0);
    assert_int_equal(map[0] / 2, map[1] / 2);   /* same socket */
    cm_problem_fini(&p);
    cm_matrix_free(m);
    cm_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_never_worse_real),
        cmocka_unit_test(test_empty_budget),
        cmocka_unit_test(test_tiny_optimum),
        cmocka_unit_test(test_free_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
