/* test_tree.c -- machine-tree builder, slot numbering, LCA, costs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "tree_internal.h"

/* cluster -> 2 switches -> nodes n1..n4 added interleaved (n1,n3 under s1,
 * n2,n4 under s2) with 2, 3, 1, 2 cores; cores added in a scrambled order.
 * DFS slots: n1 0-1, n3 2, n2 3-5, n4 6-7. */
typedef struct hand {
    cm_tree_t *t;
    int root, s1, s2, n[5];
} hand_t;

static void build_hand(hand_t *h)
{
    cm_error_t err = {""};
    cm_tree_t *t = h->t = cm_tree_new();
    assert_non_null(t);
    assert_int_equal(cm_tree_add_level(t, "cluster", 20, 0.5, &err), 0);
    assert_int_equal(cm_tree_add_level(t, "switch", 10, 0.25, &err), 1);
    assert_int_equal(cm_tree_add_level(t, "node", 2, 0, &err), 2);
    assert_int_equal(cm_tree_add_level(t, "core", 0, 0, &err), 3);
    h->root = cm_tree_add_vertex(t, -1, 0, "top", &err);
    h->s1 = cm_tree_add_vertex(t, h->root, 1, "s1", &err);
    h->s2 = cm_tree_add_vertex(t, h->root, 1, "s2", &err);
    h->n[1] = cm_tree_add_vertex(t, h->s1, 2, "n1", &err);
    h->n[2] = cm_tree_add_vertex(t, h->s2, 2, "n2", &err);
    h->n[3] = cm_tree_add_vertex(t, h->s1, 2, "n3", &err);
    h->n[4] = cm_tree_add_vertex(t, h->s2, 2, "n4", &err);
    static const int order[] = {4, 2, 1, 2, 3, 4, 1, 2};
    for (size_t k = 0; k < sizeof order / sizeof *order; k++)
        assert_true(cm_tree_add_vertex(t, h->n[order[k]], 3, NULL, &err) >= 0);
    assert_int_equal(cm_tree_set_speed(t, h->n[2], 2.5, &err), 0);
    assert_int_equal(cm_tree_finalize(t, &err), 0);
}

static void test_dfs_slots_and_allocation_order(void **state)
{
    (void)state;
    hand_t h;
    build_hand(&h);
    cm_tree_t *t = h.t;
    assert_int_equal(cm_tree_nslots(t), 8);
    assert_int_equal(cm_tree_nlevels(t), 4);
    assert_int_equal(cm_tree_nvertices(t), 15);
    int first, count;
    cm_tree_vertex_slots(t, h.s1, &first, &count);
    assert_int_equal(first, 0);
    assert_int_equal(count, 3);
    cm_tree_vertex_slots(t, h.s2, &first, &count);
    assert_int_equal(first, 3);
    assert_int_equal(count, 5);
    static const int nfirst[5] = {0, 0, 3, 2, 6}, ncount[5] = {0, 2, 3, 1, 2};
    for (int k = 1; k <= 4; k++) {
        cm_tree_vertex_slots(t, h.n[k], &first, &count);
        assert_int_equal(first, nfirst[k]);
        assert_int_equal(count, ncount[k]);
    }
    /* allocation order = insertion order of node vertices */
    assert_int_equal(cm_tree_nnodes(t), 4);
    for (int k = 0; k < 4; k++)
        assert_int_equal(cm_tree_node_vertex(t, k), h.n[k + 1]);
    assert_string_equal(cm_tree_vertex_label(t, cm_tree_node_vertex(t, 2)), "n3");
    static const int slot_node[8] = {0, 0, 2, 1, 1, 1, 3, 3};
    for (int s = 0; s < 8; s++) {
        assert_int_equal(cm_tree_slot_node(t, s), slot_node[s]);
        int v = cm_tree_slot_vertex(t, s);
        assert_int_equal(cm_tree_vertex_level(t, v), 3);
        cm_tree_vertex_slots(t, v, &first, &count);
        assert_int_equal(first, s);
        assert_int_equal(count, 1);
    }
    assert_int_equal(cm_tree_slot_node(t, 8), -1);
    assert_int_equal(cm_tree_slot_vertex(t, -1), -1);
    /* children keep insertion order */
    assert_int_equal(cm_tree_vertex_nchildren(t, h.s2), 2);
    assert_int_equal(cm_tree_vertex_child(t, h.s2, 0), h.n[2]);
    assert_int_equal(cm_tree_vertex_child(t, h.s2, 1), h.n[4]);
    assert_int_equal(cm_tree_vertex_child(t, h.s2, 2), -1);
    assert_int_equal(cm_tree_vertex_parent(t, h.n[3]), h.s1);
    assert_int_equal(cm_tree_vertex_parent(t, h.root), -1);
    assert_true(cm_tree_vertex_speed(t, h.n[2]) == 2.5);
    assert_true(cm_tree_vertex_speed(t, h.n[1]) == 1.0);
    assert_string_equal(cm_tree_level_name(t, 1), "switch");
    assert_int_equal(cm_tree_level_index(t, "node"), 2);
    assert_int_equal(cm_tree_level_index(t, "nope"), -1);
    assert_true(cm_tree_level_byte_cost(t, 0) == 20);
    assert_true(cm_tree_level_msg_cost(t, 1) == 0.25);
    cm_tree_free(t);
}

static void test_lca(void **state)
{
    (void)state;
    hand_t h;
    build_hand(&h);
    cm_tree_t *t = h.t;
    for (int pass = 0; pass < 2; pass++) {
        assert_int_equal(cm_tree_has_lca_table(t), pass == 0);
        assert_int_equal(cm_tree_lca_level(t, 0, 1), 2); /* same node n1 */
        assert_int_equal(cm_tree_lca_level(t, 1, 0), 2);
        assert_int_equal(cm_tree_lca_level(t, 0, 2), 1); /* n1, n3 on s1 */
        assert_int_equal(cm_tree_lca_level(t, 2, 3), 0); /* s1 vs s2 */
        assert_int_equal(cm_tree_lca_level(t, 3, 7), 1);
        assert_int_equal(cm_tree_lca_level(t, 3, 5), 2);
        assert_int_equal(cm_tree_lca_level(t, 7, 0), 0);
        assert_int_equal(cm_tree_lca_level(t, 5, 5), 3);
        cm_tree_drop_lca_table(t);
    }
    cm_tree_free(t);
}

/* Leaves at different depths: a node directly under the root next to a
 * switch; both LCA paths must agree on every pair. */
static void test_lca_uneven_depth(void **state)
{
    (void)state;
    cm_error_t err;
    cm_tree_t *t = cm_tree_new();
    cm_tree_add_level(t, "cluster", 20, 0, &err);
    cm_tree_add_level(t, "switch", 10, 0, &err);
    cm_tree_add_level(t, "node", 2, 0, &err);
    cm_tree_add_level(t, "socket", 1, 0, &err);
    cm_tree_add_level(t, "core", 0, 0, &err);
    int r = cm_tree_add_vertex(t, -1, 0, NULL, &err);
    int s = cm_tree_add_vertex(t, r, 1, NULL, &err);
    int a = cm_tree_add_vertex(t, s, 2, "a", &err);
    int b = cm_tree_add_vertex(t, r, 2, "b", &err); /* skips "switch" */
    for (int k = 0; k < 2; k++) {
        int so = cm_tree_add_vertex(t, a, 3, NULL, &err);
        cm_tree_add_vertex(t, so, 4, NULL, &err);
        cm_tree_add_vertex(t, so, 4, NULL, &err);
    }
    cm_tree_add_vertex(t, b, 4, NULL, &err); /* core right under a node */
    int sb = cm_tree_add_vertex(t, b, 3, NULL, &err);
    cm_tree_add_vertex(t, sb, 4, NULL, &err);
    assert_int_equal(cm_tree_finalize(t, &err), 0);
    assert_int_equal(cm_tree_nslots(t), 6);
    int expect[6][6];
    for (int p = 0; p < 6; p++)
        for (int q = 0; q < 6; q++)
            expect[p][q] = cm_tree_lca_level(t, p, q);
    assert_int_equal(expect[0][1], 3);
    assert_int_equal(expect[0][2], 2);
    assert_int_equal(expect[0][4], 0);
    assert_int_equal(expect[4][5], 2);
    assert_int_equal(expect[5][5], 4);
    cm_tree_drop_lca_table(t);
    for (int p = 0; p < 6; p++)
        for (int q = 0; q < 6; q++)
            assert_int_equal(cm_tree_lca_level(t, p, q), expect[p][q]);
    cm_tree_free(t);
}

/* Equal depths, unequal fan-outs (the digits of the path keys are as wide
 * as the widest vertex of their depth): the keyed LCA of a finalized tree
 * agrees with the walk on every pair. */
static void test_lca_keys_match_walk(void **state)
{
    (void)state;
    cm_error_t err;
    cm_tree_t *t = cm_tree_new();
    cm_tree_add_level(t, "top", 20, 0, &err);
    cm_tree_add_level(t, "switch", 10, 0, &err);
    cm_tree_add_level(t, "node", 2, 0, &err);
    cm_tree_add_level(t, "core", 0, 0, &err);
    int r = cm_tree_add_vertex(t, -1, 0, NULL, &err);
    static const int nodes_per_switch[] = {1, 3, 5}, cores[] = {2, 3, 1, 4, 2, 2, 5, 1, 3};
    for (int sw = 0, k = 0; sw < 3; sw++) {
        int s = cm_tree_add_vertex(t, r, 1, NULL, &err);
        for (int nd = 0; nd < nodes_per_switch[sw]; nd++, k++) {
            char name[16];
            snprintf(name, sizeof name, "n%d", k);
            int v = cm_tree_add_vertex(t, s, 2, name, &err);
            for (int c = 0; c < cores[k]; c++)
                cm_tree_add_vertex(t, v, 3, NULL, &err);
        }
    }
    assert_int_equal(cm_tree_finalize(t, &err), 0);
    int ns = cm_tree_nslots(t);
    assert_int_equal(ns, 23);
    int *keyed = malloc(sizeof(int) * (size_t)ns * ns);
    assert_non_null(keyed);
    for (int p = 0; p < ns; p++)
        for (int q = 0; q < ns; q++)
            keyed[p * ns + q] = cm_tree_lca_level(t, p, q);
    assert_int_equal(keyed[0 * ns + 1], 2);   /* n0's two cores */
    assert_int_equal(keyed[0 * ns + 2], 0);   /* n0 (switch 0) vs n1 (switch 1) */
    assert_int_equal(keyed[2 * ns + 5], 1);   /* n1 vs n2, both under switch 1 */
    assert_int_equal(keyed[9 * ns + 10], 0);  /* n3 (switch 1) vs n4 (switch 2) */
    cm_tree_drop_lca_table(t);
    for (int p = 0; p < ns; p++)
        for (int q = 0; q < ns; q++)
            assert_int_equal(cm_tree_lca_level(t, p, q), keyed[p * ns + q]);
    free(keyed);
    cm_tree_free(t);
}

static void test_builder_errors(void **state)
{
    (void)state;
    cm_error_t err;
    cm_tree_t *t = cm_tree_new();
    assert_int_equal(cm_tree_add_level(t, "bad name", 1, 0, &err), -1);
    assert_non_null(strstr(err.msg, "[A-Za-z0-9_]"));
    assert_int_equal(cm_tree_add_level(t, "", 1, 0, &err), -1);
    assert_int_equal(cm_tree_add_level(t, "node", -1, 0, &err), -1);
    assert_non_null(strstr(err.msg, "finite and >= 0"));
    assert_int_equal(cm_tree_add_level(t, "node", 1, 0.0 / 0.0, &err), -1);
    assert_int_equal(cm_tree_add_level(t, "node", 2, 0, &err), 0);
    assert_int_equal(cm_tree_add_level(t, "node", 2, 0, &err), -1);
    assert_non_null(strstr(err.msg, "used twice"));
    assert_int_equal(cm_tree_add_level(t, "socket", 1, 0, &err), 1);
    assert_int_equal(cm_tree_add_level(t, "core", 0, 0, &err), 2);
    assert_int_equal(cm_tree_finalize(t, &err), -1);
    assert_non_null(strstr(err.msg, "no vertices"));
    assert_int_equal(cm_tree_add_vertex(t, -1, 1, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "expected level 0"));
    int r = cm_tree_add_vertex(t, -1, 0, "n1", &err);
    assert_int_equal(r, 0);
    assert_int_equal(cm_tree_add_vertex(t, -1, 0, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "already has a root"));
    assert_int_equal(cm_tree_add_vertex(t, 7, 1, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "parent 7 does not exist"));
    assert_int_equal(cm_tree_add_vertex(t, r, 0, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "below its parent"));
    assert_int_equal(cm_tree_add_vertex(t, r, 5, NULL, &err), -1);
    int so = cm_tree_add_vertex(t, r, 1, "sock0", &err);
    assert_int_equal(cm_tree_set_speed(t, r, 0, &err), -1);
    assert_int_equal(cm_tree_set_speed(t, 99, 1, &err), -1);
    /* no core yet: empty level */
    assert_int_equal(cm_tree_finalize(t, &err), -1);
    assert_non_null(strstr(err.msg, "level core has no vertex"));
    cm_tree_add_vertex(t, so, 2, NULL, &err);
    cm_tree_add_vertex(t, r, 1, "sock1", &err); /* leaf of level socket */
    assert_int_equal(cm_tree_finalize(t, &err), -1);
    assert_non_null(strstr(err.msg, "sock1"));
    assert_non_null(strstr(err.msg, "leaves must be of the last level (core)"));
    cm_tree_free(t);

    t = cm_tree_new();
    assert_int_equal(cm_tree_finalize(t, &err), -1);
    assert_non_null(strstr(err.msg, "no levels"));
    cm_tree_add_level(t, "core", 0, 0, &err);
    assert_int_equal(cm_tree_add_vertex(t, -1, 0, NULL, &err), 0);
    assert_int_equal(cm_tree_finalize(t, &err), 0); /* one slot */
    assert_int_equal(cm_tree_nslots(t), 1);
    assert_int_equal(cm_tree_nnodes(t), 0);
    assert_int_equal(cm_tree_slot_node(t, 0), -1);
    assert_int_equal(cm_tree_lca_level(t, 0, 0), 0);
    assert_int_equal(cm_tree_add_vertex(t, 0, 0, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "finalized"));
    cm_tree_free(t);
    cm_tree_free(NULL);
}

static void test_level_costs(void **state)
{
    (void)state;
    hand_t h;
    cm_error_t err;
    build_hand(&h);
    cm_tree_t *t = h.t;
    assert_int_equal(cm_tree_set_level_costs(t, "node=5,switch=12.5", &err), 0);
    assert_true(cm_tree_level_byte_cost(t, 2) == 5);
    assert_true(cm_tree_level_byte_cost(t, 1) == 12.5);
    assert_true(cm_tree_level_msg_cost(t, 1) == 0.25);
    assert_int_equal(cm_tree_set_level_costs(t, "node=1,foo=3", &err), -1);
    assert_string_equal(err.msg, "level costs 'node=1,foo=3': unknown level 'foo' "
                        "(known: cluster, switch, node, core)");
    assert_true(cm_tree_level_byte_cost(t, 2) == 5); /* unchanged */
    assert_int_equal(cm_tree_set_level_costs(t, "node=-1", &err), -1);
    assert_non_null(strstr(err.msg, "finite and >= 0"));
    assert_int_equal(cm_tree_set_level_costs(t, "node=inf", &err), -1);
    assert_int_equal(cm_tree_set_level_costs(t, "node=abc", &err), -1);
    assert_non_null(strstr(err.msg, "expected a number for node"));
    assert_int_equal(cm_tree_set_level_costs(t, "node", &err), -1);
    assert_int_equal(cm_tree_set_level_costs(t, "node=1,", &err), -1);
    assert_int_equal(cm_tree_set_level_costs(t, "", &err), -1);
    assert_int_equal(cm_tree_set_level_cost(t, 3, 0.5, 1e-6, &err), 0);
    assert_true(cm_tree_level_byte_cost(t, 3) == 0.5);
    assert_true(cm_tree_level_msg_cost(t, 3) == 1e-6);
    assert_int_equal(cm_tree_set_level_cost(t, 4, 1, 1, &err), -1);
    assert_int_equal(cm_tree_set_level_cost(t, 0, 1, -2, &err), -1);
    cm_tree_free(t);
}

static void test_level_latencies_bandwidths(void **state)
{
    (void)state;
    hand_t h;
    cm_error_t err;
    build_hand(&h);
    cm_tree_t *t = h.t;
    double node_bytes = cm_tree_level_byte_cost(t, 2);
    assert_int_equal(cm_tree_set_level_latencies(t, "node=0.5us,switch=2e-6,"
                                                 "cluster=3ms,core=0", &err), 0);
    assert_true(cm_tree_level_msg_cost(t, 2) == 0.5 * 1e-6);
    assert_true(cm_tree_level_msg_cost(t, 1) == 2e-6);
    assert_true(cm_tree_level_msg_cost(t, 0) == 3 * 1e-3);
    assert_true(cm_tree_level_msg_cost(t, 3) == 0);
    assert_true(cm_tree_level_byte_cost(t, 2) == node_bytes); /* bytes untouched */
    assert_int_equal(cm_tree_set_level_latencies(t, "node=7ns,switch=1.5s", &err), 0);
    assert_true(cm_tree_level_msg_cost(t, 2) == 7 * 1e-9);
    assert_true(cm_tree_level_msg_cost(t, 1) == 1.5);

    assert_int_equal(cm_tree_set_level_bandwidths(t, "node=12.5GB/s,switch=100Gb/s,"
                                                  "cluster=2e9,core=inf", &err), 0);
    assert_true(cm_tree_level_byte_cost(t, 2) == 1 / 12.5e9);
    assert_true(cm_tree_level_byte_cost(t, 1) == 1 / (100 * 1.25e8));
    assert_true(cm_tree_level_byte_cost(t, 0) == 1 / 2e9);
    assert_true(cm_tree_level_byte_cost(t, 3) == 0);
    assert_true(cm_tree_level_msg_cost(t, 2) == 7 * 1e-9); /* messages untouched */
    assert_int_equal(cm_tree_set_level_bandwidths(t, "node=1GiB/s,switch=8MB/s", &err), 0);
    assert_true(cm_tree_level_byte_cost(t, 2) == 1 / 1073741824.0);
    assert_true(cm_tree_level_byte_cost(t, 1) == 1 / 8e6);

    /* Errors name the spec and leave the tree unchanged. */
    assert_int_equal(cm_tree_set_level_latencies(t, "node=1us,switch=3parsecs", &err), -1);
    assert_string_equal(err.msg, "level latencies 'node=1us,switch=3parsecs': expected a "
                        "number (optionally with a unit: s, ms, us, ns) for switch, "
                        "got '3parsecs'");
    assert_true(cm_tree_level_msg_cost(t, 2) == 7 * 1e-9);
    assert_int_equal(cm_tree_set_level_latencies(t, "node=-1us", &err), -1);
    assert_non_null(strstr(err.msg, "value of node must be finite and >= 0"));
    assert_int_equal(cm_tree_set_level_latencies(t, "node=inf", &err), -1);
    assert_int_equal(cm_tree_set_level_latencies(t, "rack=1us", &err), -1);
    assert_non_null(strstr(err.msg, "unknown level 'rack' (known: cluster, switch, node, "
                           "core)"));
    assert_int_equal(cm_tree_set_level_bandwidths(t, "node=0GB/s", &err), -1);
    assert_string_equal(err.msg, "level bandwidths 'node=0GB/s': value of node must be "
                        "> 0, got '0GB/s'");
    assert_int_equal(cm_tree_set_level_bandwidths(t, "node=10 GB/s", &err), -1);
    assert_int_equal(cm_tree_set_level_bandwidths(t, "node=10gb/s", &err), -1);
    assert_int_equal(cm_tree_set_level_bandwidths(t, "node=nan", &err), -1);
    assert_int_equal(cm_tree_set_level_bandwidths(t, "node=GB/s", &err), -1);
    assert_int_equal(cm_tree_set_level_bandwidths(t, "", &err), -1);
    assert_int_equal(cm_tree_set_level_bandwidths(NULL, "node=1", &err), -1);
    assert_string_equal(err.msg, "cm_tree_set_level_bandwidths: NULL argument");
    assert_true(cm_tree_level_byte_cost(t, 2) == 1 / 1073741824.0);
    cm_tree_free(t);
}

static void test_default_cost(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double latency, bandwidth;
    } want[] = {
        { "l2", 0.2e-6, 20e9 },      { "l3", 0.2e-6, 20e9 },
        { "numa", 0.3e-6, 16e9 },    { "socket", 0.3e-6, 16e9 },
        { "node", 0.4e-6, 14e9 },    { "switch", 1.05e-6, 12.5e9 },
        { "switch0", 1.05e-6, 12.5e9 },
        { "switch1", 2 * 1.05e-6, 12.5e9 / 2 },
        { "switch2", 3 * 1.05e-6, 12.5e9 / 4 },
        { "switch30", 31 * 1.05e-6, 12.5e9 / 1073741824.0 },
        { "cluster", 2 * 1.05e-6, 12.5e9 / 2 },
        { "root", 2 * 1.05e-6, 12.5e9 / 2 },
        { "nvlink", 0.2e-6, 50e9 },  { "xgmi", 0.2e-6, 50e9 },
        { "xelink", 0.2e-6, 50e9 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_true(cm_tree_default_latency(want[i].name) == want[i].latency);
        assert_true(cm_tree_default_bandwidth(want[i].name) == want[i].bandwidth);
        assert_true(cm_tree_default_cost(want[i].name) == 1 / want[i].bandwidth);
    }
    assert_true(cm_tree_default_latency("core") == 0);
    assert_true(isinf(cm_tree_default_bandwidth("core")));
    assert_true(cm_tree_default_cost("core") == 0);
    assert_true(cm_tree_default_latency("gpu") == 0);
    assert_true(isinf(cm_tree_default_bandwidth("gpu")));
    assert_true(cm_tree_default_latency("task") == 0);
    assert_true(isinf(cm_tree_default_bandwidth("task")));
    /* Costs never fall towards the root. */
    static const char *const up[] = { "core", "l2", "l3", "numa", "socket", "node",
                                      "switch", "switch1", "switch2" };
    for (size_t i = 1; i < sizeof up / sizeof up[0]; i++) {
        assert_true(cm_tree_default_latency(up[i]) >= cm_tree_default_latency(up[i - 1]));
        assert_true(cm_tree_default_cost(up[i]) >= cm_tree_default_cost(up[i - 1]));
    }
    static const char *const unknown[] = { "switchx", "switch31", "switch-1", "bogus",
                                           "Switch", "" };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_true(cm_tree_default_cost(unknown[i]) == -1);
        assert_true(cm_tree_default_latency(unknown[i]) == -1);
        assert_true(cm_tree_default_bandwidth(unknown[i]) == -1);
    }
    assert_true(cm_tree_default_cost(NULL) == -1);
    assert_true(cm_tree_default_latency(NULL) == -1);
    assert_true(cm_tree_default_bandwidth(NULL) == -1);
}

static void test_print(void **state)
{
    (void)state;
    hand_t h;
    build_hand(&h);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cm_tree_print(h.t, f);
    fclose(f);
    assert_non_null(strstr(buf, "tree: 4 levels, 15 vertices, 8 slots, 4 nodes\n"));
    assert_non_null(strstr(buf, "\n  switch s2 slots 3-7\n    node n2 slots 3-5 node#1 speed=2.5\n"
                                 "      core slot 3\n"));
    assert_non_null(strstr(buf, "    node n3 slots 2-2 node#2\n"));
    free(buf);
    cm_tree_free(h.t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dfs_slots_and_allocation_order),
        cmocka_unit_test(test_lca),
        cmocka_unit_test(test_lca_uneven_depth),
        cmocka_unit_test(test_lca_keys_match_walk),
        cmocka_unit_test(test_builder_errors),
        cmocka_unit_test(test_level_costs),
        cmocka_unit_test(test_level_latencies_bandwidths),
        cmocka_unit_test(test_default_cost),
        cmocka_unit_test(test_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
