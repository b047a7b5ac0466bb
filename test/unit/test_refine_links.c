/* test_refine_links.c -- cm_refine_links() (src/core/refine_links.c): from
 * the 3-D halo's slabs it reaches leaves of equal load at the same J; it
 * never raises L_max, keeps J and T_max within the tolerance and T_max
 * within the cap, never changes a node's task count or the occupied slots,
 * is deterministic, and does nothing without budget or with one switch. */
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_internal.h"
#include "testutil.h"

#define TOL 0.005

/* The natural 3-D halo on an 8x4x4 grid (rank = x*16 + y*4 + z), one
 * unit each way between neighbours. */
static cm_matrix_t *halo843(void)
{
    cm_test_entry_t e[2 * 3 * 128];
    int ne = 0;
    for (int r = 0; r < 128; r++) {
        int x = r / 16, y = r / 4 % 4, z = r % 4;
        if (x < 7)
            e[ne++] = (cm_test_entry_t){ r, r + 16, 1, 0 };
        if (y < 3)
            e[ne++] = (cm_test_entry_t){ r, r + 4, 1, 0 };
        if (z < 3)
            e[ne++] = (cm_test_entry_t){ r, r + 1, 1, 0 };
    }
    int half = ne;
    for (int k = 0; k < half; k++)
        e[ne++] = (cm_test_entry_t){ e[k].dst, e[k].src, 1, 0 };
    return cm_test_matrix_of(128, e, ne, 0);
}

/* 16 nodes of 8 cores, 4 nodes per leaf switch, leaf uplinks four times
 * a node's link (a 4:1 fat tree). */
static cm_tree_t *ft16(void)
{
    return cm_test_hier("8:1:4:4", "1:1:4:16");
}

/* The multisection's answer: leaf x/2 holds the slab of x, its node
 * (y/2, z/2) the 2x2x2 cube. */
static void slabs(int *map)
{
    int used[16] = { 0 };
    for (int r = 0; r < 128; r++) {
        int x = r / 16, y = r / 4 % 4, z = r % 4;
        int node = (x / 2) * 4 + (y / 2) * 2 + z / 2;
        map[r] = node * 8 + used[node]++;
    }
}

/* What must hold of any result: a valid mapping, every node's slots as
 * occupied as before, L_max not raised, J and T_max within TOL, T_max
 * within @p cap. */
static void check_bounds(const cm_problem_t *p, const int *before, const int *after,
                         double cap)
{
    const cm_tree_t *t = p->tree;
    cm_error_t err = { "" };
    assert_int_equal(cm_mapping_check(t, after, p->n, &err), 0);
    int ns = cm_tree_nslots(t);
    char *occ = calloc((size_t)ns, 1);
    assert_non_null(occ);
    for (int i = 0; i < p->n; i++)
        occ[before[i]] ^= 1;
    for (int i = 0; i < p->n; i++)
        occ[after[i]] ^= 1;
    for (int s = 0; s < ns; s++)
        assert_int_equal(occ[s], 0);
    free(occ);
    double L0 = cm_cost_links_levels(p->a, t, before, p->costs.cb);
    double L1 = cm_cost_links_levels(p->a, t, after, p->costs.cb);
    assert_true(L1 <= L0 * (1 + 1e-9));
    assert_true(cm_problem_cost(p, after) <= cm_problem_cost(p, before) * (1 + TOL) + 1e-12);
    double T0 = cm_problem_cost_max(p, before), T1 = cm_problem_cost_max(p, after);
    assert_true(T1 <= fmin(T0 * (1 + TOL), cap) * (1 + 1e-9));
}

static void test_halo_quads(void **state)
{
    (void)state;
    cm_matrix_t *m = halo843();
    cm_tree_t *t = ft16();
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[128], start[128], again[128];
    slabs(map);
    memcpy(start, map, sizeof map);
    double J0 = cm_problem_cost(&p, map);
    double L0 = cm_cost_links_levels(m, t, map, p.costs.cb);
    cm_budget_t b = { 0, UINT64_MAX };
    assert_int_equal(cm_refine_links(&p, map, INFINITY, INFINITY, TOL, &b), 1);
    check_bounds(&p, start, map, INFINITY);
    /* the same 48 faces cross leaves; the middle slabs' 32 become 24 */
    assert_true(fabs(cm_problem_cost(&p, map) - J0) <= 1e-9 * J0);
    assert_true(fabs(cm_cost_links_levels(m, t, map, p.costs.cb) - 0.75 * L0) <= 1e-9 * L0);
    assert_true(b.used > 0);
    /* deterministic */
    memcpy(again, start, sizeof again);
    cm_budget_t b2 = { 0, UINT64_MAX };
    assert_int_equal(cm_refine_links(&p, again, INFINITY, INFINITY, TOL, &b2), 1);
    assert_memory_equal(again, map, sizeof map);
    /* converged: a second run finds nothing */
    cm_budget_t b3 = { 0, UINT64_MAX };
    assert_int_equal(cm_refine_links(&p, again, INFINITY, INFINITY, TOL, &b3), 0);
    assert_memory_equal(again, map, sizeof map);
    cm_problem_fini(&p);
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_no_budget_no_switch(void **state)
{
    (void)state;
    cm_matrix_t *m = halo843();
    cm_tree_t *t = ft16();
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    int map[128], start[128];
    slabs(map);
    memcpy(start, map, sizeof map);
    cm_budget_t none = { 0, 1000 };
    assert_int_equal(cm_refine_links(&p, map, INFINITY, INFINITY, TOL, &none), 0);
    assert_memory_equal(map, start, sizeof map);
    assert_int_equal(none.used, 0);
    /* a cap below the start's T_max leaves no move acceptable */
    cm_budget_t b = { 0, UINT64_MAX };
    assert_int_equal(cm_refine_links(&p, map, INFINITY, 0.5 * cm_problem_cost_max(&p, map), TOL, &b), 0);
    assert_memory_equal(map, start, sizeof map);
    cm_problem_fini(&p);
    cm_tree_free(t);
    /* one switch: nothing to trade */
    t = cm_test_hier("8:1:16", "1:1:4");
    cm_test_problem(&p, m, t, CM_WEIGHT_BYTES);
    cm_error_t err = { "" };
    assert_int_equal(cm_map_block(t, 128, map, &err), 0);
    memcpy(start, map, sizeof map);
    b.used = 0;
    assert_int_equal(cm_refine_links(&p, map, INFINITY, INFINITY, TOL, &b), 0);
    assert_memory_equal(map, start, sizeof map);
    cm_problem_fini(&p);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* Random sparse patterns from random placements, some nodes part full:
 * whatever it does stays within the bounds. */
static void test_random_bounds(void **state)
{
    (void)state;
    cm_rng_t rng;
    cm_rng_seed(&rng, 7);
    cm_tree_t *t = cm_test_hier("4:1:2:6", "1:1:5:20");   /* 12 nodes of 4 */
    int changed = 0;
    for (int trial = 0; trial < 40; trial++) {
        int n = 20 + (int)(cm_rng_next(&rng) % 29);          /* 20..48 ranks */
        cm_test_entry_t e[400];
        int ne = 0;
        for (int k = 0; k < 3 * n && ne < 400; k++) {
            int a = (int)(cm_rng_next(&rng) % (uint64_t)n);
            int c = (int)(cm_rng_next(&rng) % (uint64_t)n);
            if (a != c)
                e[ne++] = (cm_test_entry_t){ a, c, 1 + (double)(cm_rng_next(&rng) % 100),
                                             1 + (double)(cm_rng_next(&rng) % 3) };
        }
        cm_matrix_t *m = cm_test_matrix_of(n, e, ne, 1);
        cm_problem_t p;
        cm_test_problem(&p, m, t, CM_WEIGHT_MIXED);
        int map[48], start[48];
        cm_error_t err = { "" };
        assert_int_equal(cm_map_random(t, n, 1 + (uint64_t)trial, map, &err), 0);
        memcpy(start, map, sizeof(int) * (size_t)n);
        double cap = cm_problem_cost_max(&p, map) * (trial % 2 ? 1.0 : 1.002);
        double capJ = cm_problem_cost(&p, map) * (trial % 3 ? 1.001 : 1.0);
        cm_budget_t b = { 0, UINT64_MAX };
        int rc = cm_refine_links(&p, map, capJ, cap, TOL, &b);
        assert_true(rc == 0 || rc == 1);
        changed += rc;
        if (rc == 0)
            assert_memory_equal(map, start, sizeof(int) * (size_t)n);
        check_bounds(&p, start, map, cap);
        assert_true(cm_problem_cost(&p, map) <= capJ * (1 + 1e-9));
        int c0[12] = { 0 }, c1[12] = { 0 };
        cm_test_per_node(t, start, n, c0);
        cm_test_per_node(t, map, n, c1);
        assert_memory_equal(c0, c1, sizeof c0);
        cm_problem_fini(&p);
        cm_matrix_free(m);
    }
    assert_true(changed > 0);   /* the bounds were checked on real moves */
    cm_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_halo_quads),
        cmocka_unit_test(test_no_budget_no_switch),
        cmocka_unit_test(test_random_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
