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
#include "testutil.h"

/* Map the @p n ranks of @p m on @p t by block (@p seed 0) or at random
 * (@p seed), run @p refine with an unlimited budget, and check that the
 * mapping stays valid, J does not grow and @p refine returns the J it
 * leaves; the J before and after go to @p J0 and @p J. */
static void refine_from(const cm_problem_t *p, const cm_matrix_t *m,
                        const cm_tree_t *t, int n, uint64_t seed,
                        double (*refine)(const cm_problem_t *, int *,
                                         cm_budget_t *),
                        int *map, double *J0, double *J)
{
    cm_error_t err = { "" };
    if (seed == 0)
        assert_int_equal(cm_map_block(t, n, map, &err), 0);
    else
        assert_int_equal(cm_map_random(t, n, seed, map, &err), 0);
    *J0 = cm_cost(m, t, map);
    cm_budget_t b = { 0, UINT64_MAX };
    double J1 = refine(p, map, &b);
    assert_int_equal(cm_mapping_check(t, map, n, &err), 0);
    *J = cm_cost(m, t, map);
    assert_true(*J <= *J0);
    assert_true(fabs(J1 - *J) <= 1e-9 * (*J > 1 ? *J : 1));
}

static void test_never_worse_real(void **state)
{
    (void)state;
    static const char *names[] = {
        "matrices/cg.S.64.mtx", "matrices/mg.S.64.mtx",
        "matrices/lu.S.16.mtx", "matrices/ft.S.64.mtx",
        "matrices/is.S.64.mtx", "matrices/lammps.peptide.64.mtx",
        "matrices/gromacs.spce7k.np16.npme4.mtx",
    };
    static const char *dists[] = { "1:2:10:20", "1:10:100:1000" };
    for (size_t d = 0; d < 2; d++) {
        cm_tree_t *t = cm_test_hier("4:2:4:2", dists[d]);
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            cm_matrix_t *m = cm_test_matrix(names[k]);
            int n = cm_matrix_n(m);
            int *map = malloc(sizeof(int) * (size_t)n);
            cm_problem_t p;
            cm_test_problem(&p, m, t, CM_WEIGHT_MIXED);
            for (uint64_t seed = 0; seed < 4; seed++) {
                double J0, J;
                refine_from(&p, m, t, n, seed, cm_refine, map, &J0, &J);
                /* From a random start there is always something to gain
                 * (except for ft's uniform all-to-all: every mapping of
                 * 64 ranks on 64 slots costs the same). */
                if (seed > 0 && J0 > 0 && !strstr(names[k], "/ft.") &&
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
    cm_tree_t *t = cm_test_hier("4:2:4:2", "1:2:10:20");
    cm_matrix_t *m = cm_test_matrix("matrices/cg.S.64.mtx");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_MIXED);
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
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
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
    cm_test_problem(&p, m, t, CM_WEIGHT_MIXED);
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
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    cm_builder_t *b = cm_builder_new(2, &err);
    assert_int_equal(cm_builder_add(b, 0, 1, 5, 1, &err), 0);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_MIXED);
    int map[2] = { 0, 7 };   /* different nodes */
    cm_budget_t bud = { 0, UINT64_MAX };
    assert_true(cm_refine(&p, map, &bud) == 5.0);
    assert_int_equal(map[0] / 2, map[1] / 2);   /* same socket */
    cm_problem_fini(&p);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* The V-cycle never increases J, keeps a valid mapping (capacities) and
 * returns the J it leaves, from block and random starts on real matrices,
 * on a full machine and with free slots (lu.S.16: 16 ranks on 64 slots). */
static void test_vcycle_never_worse(void **state)
{
    (void)state;
    static const char *names[] = {
        "matrices/cg.S.64.mtx", "matrices/lu.S.16.mtx",
        "matrices/lammps.peptide.64.mtx", "matrices/mg.S.64.mtx",
    };
    static const char *hiers[][2] = {
        { "4:2:4:2", "1:2:10:20" }, { "2:2:2:2:2:2", "1:2:4:10:20:40" },
    };
    for (size_t h = 0; h < 2; h++) {
        cm_tree_t *t = cm_test_hier(hiers[h][0], hiers[h][1]);
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            cm_matrix_t *m = cm_test_matrix(names[k]);
            int n = cm_matrix_n(m);
            int *map = malloc(sizeof(int) * (size_t)n);
            cm_problem_t p;
            cm_test_problem(&p, m, t, CM_WEIGHT_MIXED);
            for (uint64_t seed = 0; seed < 3; seed++) {
                double J0, J;
                refine_from(&p, m, t, n, seed, cm_refine_vcycle, map, &J0, &J);
            }
            cm_problem_fini(&p);
            free(map);
            cm_matrix_free(m);
        }
        cm_tree_free(t);
    }
}

/* Two nodes of 4 slots, pairs A = {0,1}, B = {2,3}, C = {4,5}, D = {6,7}
 * bound by heavy edges, A talking to C and B to D.  From block (A, B on
 * one node, C, D on the other) every rank exchange splits a pair and the
 * node swap changes nothing: the flat search is stuck.  The V-cycle's pair
 * level swaps B and C whole. */
static void test_vcycle_moves_pairs(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    static const int e[][3] = {
        {0, 1, 100}, {2, 3, 100}, {4, 5, 100}, {6, 7, 100},
        {0, 4, 5}, {1, 5, 5}, {2, 6, 5}, {3, 7, 5},
    };
    cm_builder_t *b = cm_builder_new(8, &err);
    for (size_t k = 0; k < sizeof e / sizeof e[0]; k++) {
        assert_int_equal(cm_builder_add(b, e[k][0], e[k][1], e[k][2], 0, &err), 0);
        assert_int_equal(cm_builder_add(b, e[k][1], e[k][0], e[k][2], 0, &err), 0);
    }
    cm_matrix_t *m = cm_test_finish(b);
    cm_tree_t *t = cm_test_hier("4:2", "1:10");
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_MIXED);
    int map[8], best[8] = { 0, 1, 4, 5, 2, 3, 6, 7 };
    assert_int_equal(cm_map_block(t, 8, map, &err), 0);
    double Jblock = cm_cost(m, t, map);
    cm_budget_t bud = { 0, UINT64_MAX };
    assert_true(cm_refine(&p, map, &bud) == Jblock);
    cm_budget_t bud2 = { 0, UINT64_MAX };
    double J = cm_refine_vcycle(&p, map, &bud2);
    double Jbest = cm_cost(m, t, best);
    assert_true(Jbest < Jblock);
    assert_true(J == Jbest);
    assert_true(cm_cost(m, t, map) == Jbest);
    for (int i = 0; i < 8; i += 2)   /* pairs stay together */
        assert_int_equal(map[i] / 4, map[i + 1] / 4);
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
        cmocka_unit_test(test_vcycle_never_worse),
        cmocka_unit_test(test_vcycle_moves_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
