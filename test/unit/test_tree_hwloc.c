/* test_tree_hwloc.c -- trees from hwloc XML exports (test/data/hwloc). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testdata.h"

/* Load @p file for @p nnodes nodes and check the level names (a
 * space-separated list), the slot count and a few LCAs {p, q, level}. */
static cm_tree_t *check(const char *file, int nnodes, const char *levels, int nslots)
{
    cm_error_t err = {""};
    cm_tree_t *t = cm_tree_from_hwloc(cm_test_data_path(file), nnodes, &err);
    if (!t)
        fail_msg("%s: %s", file, err.msg);
    char joined[256] = "";
    for (int l = 0; l < cm_tree_nlevels(t); l++) {
        if (l)
            strcat(joined, " ");
        strcat(joined, cm_tree_level_name(t, l));
        assert_true(cm_tree_level_byte_cost(t, l) ==
                    cm_tree_default_cost(cm_tree_level_name(t, l)));
        assert_true(cm_tree_level_msg_cost(t, l) ==
                    cm_tree_default_latency(cm_tree_level_name(t, l)));
    }
    assert_string_equal(joined, levels);
    assert_int_equal(cm_tree_nslots(t), nslots);
    assert_int_equal(cm_tree_nnodes(t), nnodes);
    char label[32];
    for (int n = 0; n < nnodes; n++) {
        snprintf(label, sizeof label, "node%d", n);
        assert_string_equal(cm_tree_vertex_label(t, cm_tree_node_vertex(t, n)), label);
    }
    return t;
}

static void test_2s_8c_smt2(void **state)
{
    (void)state;
    /* L3 is per package: no split, dropped; PUs are not slots. */
    cm_tree_t *t = check("hwloc/2s-8c-smt2.xml", 2, "switch node socket core", 32);
    assert_int_equal(cm_tree_lca_level(t, 0, 7), 2);
    assert_int_equal(cm_tree_lca_level(t, 7, 8), 1);
    assert_int_equal(cm_tree_lca_level(t, 15, 16), 0);
    assert_int_equal(cm_tree_lca_level(t, 31, 31), 3);
    assert_int_equal(cm_tree_slot_node(t, 16), 1);
    assert_string_equal(cm_tree_vertex_label(t, cm_tree_slot_vertex(t, 21)), "core5");
    cm_tree_free(t);
}

static void test_2s_2numa_6c(void **state)
{
    (void)state;
    /* NUMA and L3 coincide: "numa" wins the tie, "l3" is dropped. */
    cm_tree_t *t = check("hwloc/2s-2numa-6c.xml", 1, "switch node socket numa core", 24);
    /* Seconds: latency per message, 1 / bandwidth per byte. */
    assert_true(cm_tree_level_msg_cost(t, 0) == 1.05e-6);
    assert_true(cm_tree_level_byte_cost(t, 0) == 1 / 12.5e9);
    assert_true(cm_tree_level_msg_cost(t, 1) == 0.4e-6);
    assert_true(cm_tree_level_byte_cost(t, 1) == 1 / 14e9);
    assert_true(cm_tree_level_msg_cost(t, 3) == 0.3e-6);
    assert_true(cm_tree_level_byte_cost(t, 3) == 1 / 16e9);
    assert_true(cm_tree_level_msg_cost(t, 4) == 0);
    assert_true(cm_tree_level_byte_cost(t, 4) == 0);
    assert_int_equal(cm_tree_lca_level(t, 0, 5), 3);
    assert_int_equal(cm_tree_lca_level(t, 5, 6), 2);
    assert_int_equal(cm_tree_lca_level(t, 6, 11), 3);
    assert_int_equal(cm_tree_lca_level(t, 11, 12), 1);
    assert_int_equal(cm_tree_lca_level(t, 0, 23), 1);
    assert_int_equal(cm_tree_vertex_nchildren(t, cm_tree_node_vertex(t, 0)), 2);
    cm_tree_free(t);
}

static void test_1s_4c(void **state)
{
    (void)state;
    /* One package: "socket" is kept anyway. */
    cm_tree_t *t = check("hwloc/1s-4c.xml", 3, "switch node socket core", 12);
    assert_int_equal(cm_tree_lca_level(t, 0, 3), 2);
    assert_int_equal(cm_tree_lca_level(t, 3, 4), 0);
    assert_int_equal(cm_tree_slot_node(t, 11), 2);
    cm_tree_free(t);
}

static void test_l2_pairs(void **state)
{
    (void)state;
    cm_tree_t *t = check("hwloc/2s-l2pairs.xml", 2, "switch node socket l2 core", 16);
    assert_int_equal(cm_tree_lca_level(t, 0, 1), 3);
    assert_int_equal(cm_tree_lca_level(t, 1, 2), 2);
    assert_int_equal(cm_tree_lca_level(t, 3, 4), 1);
    assert_int_equal(cm_tree_lca_level(t, 7, 8), 0);
    assert_int_equal(cm_tree_lca_level(t, 14, 15), 3);
    cm_tree_free(t);
}

static void test_ccx(void **state)
{
    (void)state;
    /* One package split by two L3s; private L2s do not split. */
    cm_tree_t *t = check("hwloc/1s-2ccx-8c.xml", 2, "switch node socket l3 core", 16);
    assert_int_equal(cm_tree_lca_level(t, 0, 3), 3);
    assert_int_equal(cm_tree_lca_level(t, 3, 4), 2);
    assert_int_equal(cm_tree_lca_level(t, 7, 8), 0);
    assert_int_equal(cm_tree_lca_level(t, 12, 15), 3);
    cm_tree_free(t);
}

static void test_this_machine(void **state)
{
    (void)state;
    /* Private L2 per core and one NUMA/L3 per package: neither splits. */
    cm_tree_t *t = check("hwloc/this-machine.xml", 4, "switch node socket core", 8);
    assert_int_equal(cm_tree_lca_level(t, 0, 1), 2);
    assert_int_equal(cm_tree_lca_level(t, 1, 2), 0);
    cm_tree_free(t);
}

static void test_live(void **state)
{
    (void)state;
    cm_error_t err = {""};
    cm_tree_t *t = cm_tree_from_hwloc(NULL, 2, &err);
    if (!t)
        fail_msg("live: %s", err.msg);
    int last = cm_tree_nlevels(t) - 1;
    assert_string_equal(cm_tree_level_name(t, 0), "switch");
    assert_string_equal(cm_tree_level_name(t, 1), "node");
    assert_string_equal(cm_tree_level_name(t, last), "core");
    assert_true(cm_tree_nslots(t) >= 2);
    assert_int_equal(cm_tree_nslots(t) % 2, 0);
    assert_int_equal(cm_tree_nnodes(t), 2);
    cm_tree_free(t);
}

static void test_errors(void **state)
{
    (void)state;
    cm_error_t err = {""};
    const char *missing = cm_test_data_path("hwloc/missing.xml");
    assert_null(cm_tree_from_hwloc(missing, 1, &err));
    assert_non_null(strstr(err.msg, missing));
    assert_non_null(strstr(err.msg, "cannot open"));
    const char *broken = cm_test_data_path("hwloc/broken.xml");
    assert_null(cm_tree_from_hwloc(broken, 1, &err));
    assert_non_null(strstr(err.msg, broken));
    assert_null(cm_tree_from_hwloc(cm_test_data_path("hwloc/1s-4c.xml"), 0, &err));
    assert_non_null(strstr(err.msg, "node count must be 1.."));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_2s_8c_smt2),
        cmocka_unit_test(test_2s_2numa_6c),
        cmocka_unit_test(test_1s_4c),
        cmocka_unit_test(test_l2_pairs),
        cmocka_unit_test(test_ccx),
        cmocka_unit_test(test_this_machine),
        cmocka_unit_test(test_live),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
