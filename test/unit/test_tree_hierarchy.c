/* test_tree_hierarchy.c -- trees from "a1:...:ak" hierarchies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"

static void test_four_levels(void **state)
{
    (void)state;
    cm_error_t err = {""};
    cm_tree_t *t = cm_tree_from_hierarchy("4:2:4:2", "1:2:10:20", &err);
    assert_non_null(t);
    static const char *names[] = {"group4", "switch", "node", "socket", "core"};
    static const double cost[] = {20, 10, 2, 1, 0};
    assert_int_equal(cm_tree_nlevels(t), 5);
    for (int l = 0; l < 5; l++) {
        assert_string_equal(cm_tree_level_name(t, l), names[l]);
        assert_true(cm_tree_level_byte_cost(t, l) == cost[l]);
        assert_true(cm_tree_level_msg_cost(t, l) == 0);
    }
    assert_int_equal(cm_tree_nslots(t), 64);
    /* 1 root + 2 switches + 8 nodes + 16 sockets + 64 cores */
    assert_int_equal(cm_tree_nvertices(t), 91);
    assert_int_equal(cm_tree_vertex_nchildren(t, 0), 2);
    assert_int_equal(cm_tree_nnodes(t), 8);
    for (int k = 0; k < 8; k++) {
        int first, count;
        cm_tree_vertex_slots(t, cm_tree_node_vertex(t, k), &first, &count);
        assert_int_equal(first, 8 * k);
        assert_int_equal(count, 8);
    }
    for (int p = 0; p < 64; p++) {
        assert_int_equal(cm_tree_slot_node(t, p), p / 8);
        for (int q = 0; q < 64; q++) {
            int want = p == q ? 4 : p / 4 == q / 4 ? 3 : p / 8 == q / 8 ? 2
                     : p / 32 == q / 32 ? 1 : 0;
            assert_int_equal(cm_tree_lca_level(t, p, q), want);
        }
    }
    cm_tree_free(t);
}

static void test_small(void **state)
{
    (void)state;
    cm_error_t err = {""};
    cm_tree_t *t = cm_tree_from_hierarchy("16", "3.5", &err);
    assert_non_null(t);
    assert_int_equal(cm_tree_nlevels(t), 2);
    assert_string_equal(cm_tree_level_name(t, 0), "node");
    assert_string_equal(cm_tree_level_name(t, 1), "core");
    assert_true(cm_tree_level_byte_cost(t, 0) == 3.5);
    assert_int_equal(cm_tree_nslots(t), 16);
    assert_int_equal(cm_tree_nnodes(t), 1);
    assert_int_equal(cm_tree_lca_level(t, 0, 15), 0);
    cm_tree_free(t);

    t = cm_tree_from_hierarchy("4:8:32", "1:10:100", &err);
    assert_non_null(t);
    assert_string_equal(cm_tree_level_name(t, 0), "switch");
    assert_string_equal(cm_tree_level_name(t, 1), "node");
    assert_string_equal(cm_tree_level_name(t, 2), "socket");
    assert_int_equal(cm_tree_nslots(t), 1024);
    assert_int_equal(cm_tree_nnodes(t), 32);
    assert_int_equal(cm_tree_lca_level(t, 3, 4), 1);
    assert_int_equal(cm_tree_lca_level(t, 31, 32), 0);
    assert_int_equal(cm_tree_slot_node(t, 1023), 31);
    cm_tree_free(t);

    t = cm_tree_from_hierarchy("2:2:2:2:2", "1:1:1:1:1", &err);
    assert_non_null(t);
    assert_string_equal(cm_tree_level_name(t, 0), "group5");
    assert_string_equal(cm_tree_level_name(t, 1), "group4");
    cm_tree_free(t);
}

static void expect_error(const char *h, const char *d, const char *fragment)
{
    cm_error_t err = {""};
    assert_null(cm_tree_from_hierarchy(h, d, &err));
    if (!strstr(err.msg, fragment))
        fail_msg("'%s' '%s': error '%s' lacks '%s'", h, d, err.msg, fragment);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("", "1", "hierarchy: expected a ':'-separated list");
    expect_error("4::2", "1:2:3", "hierarchy '4::2': field 2 is empty");
    expect_error("4:2:", "1:2:3", "field 3 is empty");
    expect_error("4:x", "1:2", "field 2: expected a positive integer, got 'x'");
    expect_error("4:2.5", "1:2", "got '2.5'");
    expect_error("4:0", "1:2", "field 2: expected a positive integer, got 0");
    expect_error("4:-2", "1:2", "got '-2'");
    expect_error("4:2", "1:2:3", "has 2 levels but distances '1:2:3' has 3");
    expect_error("4:2", "1:y", "distances '1:y': field 2: expected a finite number >= 0");
    expect_error("4:2", "1:-1", "field 2");
    expect_error("4:2", "1:inf", "field 2");
    expect_error("4096:4097", "1:2", "more than 16777216 slots");
    expect_error("99999999999999999999", "1", "more than");
    expect_error("4:2", NULL, "distances: expected");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_levels),
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
