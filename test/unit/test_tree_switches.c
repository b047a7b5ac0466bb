/* test_tree_switches.c -- cm_tree_from_switches(), the tree builder shared
 * by the slurm.conf reader and the plugin.  The slurm.conf shapes are covered
 * by test_tree_slurmconf.c; here the plugin's: partial sockets, no switch,
 * unused switches, several tops, bad input, and cm_tree_from_blocks(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testutil.h"

/* Parent label of node @p k's vertex. */
static const char *node_parent(const cm_tree_t *t, int k)
{
    return cm_tree_vertex_label(t, cm_tree_vertex_parent(t, cm_tree_node_vertex(t, k)));
}

/* No switch: one "switch" root; 5 slots at 2 per socket are 2 + 2 + 1. */
static void test_no_switch(void **state)
{
    (void)state;
    char buf[128];
    cm_error_t err = {""};
    cm_node_desc_t nodes[] = {{"b", -1, 2, 5}, {"a", -1, 4, 4}};
    cm_tree_t *t = cm_tree_from_switches(NULL, 0, nodes, 2, &err);
    if (!t)
        fail_msg("%s", err.msg);
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf), "switch node socket core");
    assert_int_equal(cm_tree_nslots(t), 9);
    assert_int_equal(cm_tree_nnodes(t), 2);
    assert_string_equal(cm_tree_vertex_label(t, cm_tree_node_vertex(t, 0)), "b");
    assert_string_equal(node_parent(t, 0), "switch");
    int v = cm_tree_node_vertex(t, 0);
    assert_int_equal(cm_tree_vertex_nchildren(t, v), 3);
    static const int per_socket[3] = {2, 2, 1};
    for (int k = 0; k < 3; k++)
        assert_int_equal(cm_tree_vertex_nchildren(t, cm_tree_vertex_child(t, v, k)),
                         per_socket[k]);
    assert_int_equal(cm_tree_vertex_nchildren(t, cm_tree_node_vertex(t, 1)), 1);
    cm_tree_free(t);
}

/* Two level-1 tops over three leaves; leaf "l9" and top "unused" hold no
 * node and are dropped, so the "cluster" root joins t1 and t2. */
static void test_cluster_over_tops(void **state)
{
    (void)state;
    char buf[128];
    cm_error_t err = {""};
    cm_switch_desc_t sw[] = {
        {"t1", 1, -1}, {"l1", 0, 0}, {"l2", 0, 0}, {"t2", 1, -1},
        {"l3", 0, 3},  {"l9", 0, 6}, {"unused", 2, -1},
    };
    cm_node_desc_t nodes[] = {{"n3", 4, 2, 2}, {"n1", 1, 2, 2}, {"n2", 2, 2, 2},
                              {"n4", 4, 2, 2}};
    cm_tree_t *t = cm_tree_from_switches(sw, 7, nodes, 4, &err);
    if (!t)
        fail_msg("%s", err.msg);
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf), "cluster switch1 switch node socket core");
    /* "cluster" costs what switch2 would. */
    assert_true(cm_tree_level_msg_cost(t, 0) == cm_tree_default_latency("switch2"));
    assert_true(cm_tree_level_byte_cost(t, 0) == cm_tree_default_cost("switch2"));
    assert_string_equal(cm_tree_vertex_label(t, cm_tree_node_vertex(t, 0)), "n3");
    assert_string_equal(node_parent(t, 0), "l3");
    assert_string_equal(node_parent(t, 1), "l1");
    assert_string_equal(node_parent(t, 2), "l2");
    assert_string_equal(node_parent(t, 3), "l3");
    /* t2 was created first, so it and its nodes come first in DFS order. */
    int f, c;
    cm_tree_vertex_slots(t, cm_tree_node_vertex(t, 3), &f, &c);
    assert_int_equal(f, 2);
    assert_int_equal(c, 2);
    assert_int_equal(cm_tree_vertex_nchildren(t, 0), 2);
    cm_tree_free(t);
}

/* One top: no "cluster", the top switch is the root; Slurm level 1 unused
 * by any kept switch is skipped. */
static void test_single_top_skips_levels(void **state)
{
    (void)state;
    char buf[128];
    cm_error_t err = {""};
    cm_switch_desc_t sw[] = {{"core", 2, -1}, {"leaf", 0, 0}};
    cm_node_desc_t nodes[] = {{"n1", 1, 1, 1}};
    cm_tree_t *t = cm_tree_from_switches(sw, 2, nodes, 1, &err);
    if (!t)
        fail_msg("%s", err.msg);
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf), "switch2 switch node socket core");
    assert_string_equal(cm_tree_vertex_label(t, 0), "core");
    cm_tree_free(t);
}

/* Blocks (topology/block): the level is "block", priced as a leaf switch,
 * under "cluster" when several hold nodes; block "b9" holds none and is
 * dropped.  The same records as switches name the level "switch". */
static void test_blocks(void **state)
{
    (void)state;
    char buf[128];
    cm_error_t err = { "" };
    cm_switch_desc_t sw[] = { { "b1", 0, -1 }, { "b9", 0, -1 }, { "b2", 0, -1 } };
    cm_node_desc_t nodes[] = { { "n3", 2, 2, 2 }, { "n1", 0, 2, 2 }, { "n4", 2, 2, 2 } };
    cm_tree_t *t = cm_tree_from_blocks(sw, 3, nodes, 3, &err);
    if (!t)
        fail_msg("%s", err.msg);
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf),
                        "cluster block node socket core");
    assert_true(cm_tree_level_msg_cost(t, 1) == cm_tree_default_latency("switch"));
    assert_true(cm_tree_level_byte_cost(t, 1) == cm_tree_default_cost("switch"));
    assert_true(cm_tree_level_msg_cost(t, 0) == cm_tree_default_latency("switch1"));
    assert_int_equal(cm_tree_vertex_nchildren(t, 0), 2);
    assert_string_equal(node_parent(t, 0), "b2");
    assert_string_equal(node_parent(t, 1), "b1");
    assert_string_equal(node_parent(t, 2), "b2");
    cm_tree_free(t);

    t = cm_tree_from_switches(sw, 3, nodes, 3, &err);
    if (!t)
        fail_msg("%s", err.msg);
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf),
                        "cluster switch node socket core");
    cm_tree_free(t);

    assert_null(cm_tree_from_blocks(sw, 0, nodes, 3, &err));
    assert_string_equal(err.msg,
                        "cm_tree_from_blocks: expected at least one block, got 0");
    sw[1].level = 1;
    assert_null(cm_tree_from_blocks(sw, 3, nodes, 3, &err));
    assert_string_equal(
        err.msg, "block b9: expected level 0 and no parent, got level 1 and parent -1");
    sw[1].level = 0;
    nodes[0].leaf = 3;
    assert_null(cm_tree_from_blocks(sw, 3, nodes, 3, &err));
    assert_non_null(strstr(err.msg, "node n3: expected a switch index 0..2, got 3"));
}

static void expect_error(const cm_switch_desc_t *sw, int nsw, const cm_node_desc_t *nodes,
                         int nnodes, const char *what)
{
    cm_error_t err = {""};
    cm_tree_t *t = cm_tree_from_switches(sw, nsw, nodes, nnodes, &err);
    assert_null(t);
    if (!strstr(err.msg, what))
        fail_msg("expected '%s' in '%s'", what, err.msg);
}

static void test_bad_input(void **state)
{
    (void)state;
    cm_switch_desc_t loop[] = {{"a", 0, 1}, {"b", 0, 0}};
    cm_switch_desc_t ok[] = {{"a", 0, -1}};
    cm_node_desc_t n[] = {{"n1", 0, 1, 1}};
    cm_node_desc_t bad_leaf[] = {{"n1", 1, 1, 1}};
    cm_node_desc_t bad_cores[] = {{"n1", 0, 0, 1}};
    expect_error(loop, 2, n, 1, "switch a (level 0): parent b has level 0");
    expect_error(ok, 1, bad_leaf, 1, "node n1: expected a switch index 0..0, got 1");
    expect_error(ok, 1, bad_cores, 1, "node n1: expected cores per socket >= 1");
    expect_error(ok, 1, n, 0, "expected at least one node");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_switch),
        cmocka_unit_test(test_cluster_over_tops),
        cmocka_unit_test(test_single_top_skips_levels),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
