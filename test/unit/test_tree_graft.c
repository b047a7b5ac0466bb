/* test_tree_graft.c -- Slurm's switches and nodes, with the inside of a
 * node from another tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testdata.h"
#include "testutil.h"

/* n1, n2, n3 in that order, n1 and n3 under leaf switch s0, n2 under s1,
 * both under top; CPU nodes of 4 cores. */
static cm_tree_t *switches(void)
{
    static const cm_switch_desc_t sw[] = { { "top", 1, -1 },
                                           { "s0", 0, 0 },
                                           { "s1", 0, 0 } };
    static const cm_node_desc_t nodes[] = { { "n1", 1, 2, 4 },
                                            { "n2", 2, 2, 4 },
                                            { "n3", 1, 2, 4 } };
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_from_switches(sw, 3, nodes, 3, &err);
    if (!t)
        fail_msg("%s", err.msg);
    return t;
}

static cm_tree_t *gpu4(int per_gpu)
{
    cm_error_t err = { "" };
    cm_tree_t *t =
        cm_tree_from_hwloc_gpus(cm_test_data_path("nodes/gpu4.xml"), 1, per_gpu, &err);
    if (!t)
        fail_msg("%s", err.msg);
    return t;
}

static void test_switches_with_gpus(void **state)
{
    (void)state;
    char buf[256];
    cm_error_t err = { "" };
    cm_tree_t *outer = switches(), *inner = gpu4(1);
    cm_tree_t *t = cm_tree_graft(outer, inner, &err);
    if (!t)
        fail_msg("%s", err.msg);
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf),
                        "switch1 switch node nvlink gpu");
    assert_int_equal(cm_tree_nslots(t), 12);
    assert_int_equal(cm_tree_nnodes(t), 3);
    static const char *const names[] = { "n1", "n2", "n3" };
    for (int k = 0; k < 3; k++)
        assert_string_equal(cm_tree_vertex_label(t, cm_tree_node_vertex(t, k)), names[k]);
    /* each level priced by the tree that knows it */
    int nv = cm_tree_level_index(t, "nvlink"), sw = cm_tree_level_index(t, "switch");
    assert_true(cm_tree_level_byte_cost(t, nv) ==
                cm_tree_level_byte_cost(inner, cm_tree_level_index(inner, "nvlink")));
    assert_true(cm_tree_level_msg_cost(t, sw) ==
                cm_tree_level_msg_cost(outer, cm_tree_level_index(outer, "switch")));
    assert_true(cm_tree_level_byte_cost(t, cm_tree_level_index(t, "node")) ==
                cm_tree_level_byte_cost(outer, cm_tree_level_index(outer, "node")));
    /* every node holds GPUs 0-3; its slots are the inner node's */
    int first1, count1, first3, count3;
    cm_tree_vertex_slots(t, cm_tree_node_vertex(t, 0), &first1, &count1);
    cm_tree_vertex_slots(t, cm_tree_node_vertex(t, 2), &first3, &count3);
    assert_int_equal(count1, 4);
    assert_int_equal(count3, 4);
    for (int s = 0; s < 4; s++) {
        assert_int_equal(cm_tree_slot_gpu(t, first1 + s), cm_tree_slot_gpu(inner, s));
        assert_int_equal(cm_tree_slot_gpu(t, first3 + s), cm_tree_slot_gpu(inner, s));
    }
    /* n1 and n3 meet at their leaf switch, GPUs 0 and 1 of a node at nvlink */
    assert_int_equal(cm_tree_lca_level(t, first1, first3), sw);
    assert_int_equal(cm_tree_lca_level(t, first1, first1 + 1), nv);
    assert_int_equal(cm_tree_lca_level(t, first1, first1 + 2),
                     cm_tree_level_index(t, "node"));
    cm_tree_free(t);

    /* two tasks per GPU: the task level comes along */
    cm_tree_t *inner2 = gpu4(2);
    t = cm_tree_graft(outer, inner2, &err);
    assert_non_null(t);
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf),
                        "switch1 switch node nvlink gpu task");
    assert_int_equal(cm_tree_nslots(t), 24);
    cm_tree_free(t);
    cm_tree_free(inner2);
    cm_tree_free(outer);
    cm_tree_free(inner);
}

static void test_refusals(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *inner = gpu4(1);
    /* a level named gpu above the nodes clashes with the inner gpu level */
    cm_tree_t *clash = cm_test_hier("core=2,node=2,gpu=2", "1:10:100");
    assert_null(cm_tree_graft(clash, inner, &err));
    assert_non_null(strstr(err.msg, "gpu"));
    /* no node level */
    cm_tree_t *flat = cm_tree_new();
    assert_true(cm_tree_add_level(flat, "root", 0, 0, &err) == 0);
    assert_true(cm_tree_add_level(flat, "core", 0, 0, &err) == 1);
    assert_true(cm_tree_add_vertex(flat, -1, 0, NULL, &err) == 0);
    assert_true(cm_tree_add_vertex(flat, 0, 1, NULL, &err) == 1);
    assert_int_equal(cm_tree_finalize(flat, &err), 0);
    err.msg[0] = '\0';
    assert_null(cm_tree_graft(flat, inner, &err));
    assert_non_null(strstr(err.msg, "\"node\" level"));
    assert_null(cm_tree_graft(inner, flat, &err));
    assert_null(cm_tree_graft(NULL, inner, &err));
    assert_non_null(strstr(err.msg, "two trees are required"));
    assert_null(cm_tree_graft(inner, NULL, NULL));
    /* grafting a machine onto itself gives the same machine */
    cm_tree_t *same = cm_tree_graft(inner, inner, &err);
    assert_non_null(same);
    assert_int_equal(cm_tree_nslots(same), cm_tree_nslots(inner));
    assert_int_equal(cm_tree_nvertices(same), cm_tree_nvertices(inner));
    cm_tree_free(same);
    cm_tree_free(flat);
    cm_tree_free(clash);
    cm_tree_free(inner);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switches_with_gpus),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
