/* test_tree_gpu.c -- GPU trees of the synthetic GPU nodes (test/data/nodes). */
#include <math.h>
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

/* The tree of @p file for @p nnodes nodes and @p per tasks per GPU, with
 * its level names (space-separated) and slot count checked. */
static cm_tree_t *check(const char *file, int nnodes, int per, const char *levels,
                        int nslots)
{
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_from_hwloc_gpus(cm_test_data_path(file), nnodes, per, &err);
    if (!t)
        fail_msg("%s: %s", file, err.msg);
    char joined[256] = "";
    for (int l = 0; l < cm_tree_nlevels(t); l++) {
        if (l)
            strcat(joined, " ");
        strcat(joined, cm_tree_level_name(t, l));
    }
    assert_string_equal(joined, levels);
    assert_int_equal(cm_tree_nslots(t), nslots);
    assert_int_equal(cm_tree_nnodes(t), nnodes);
    return t;
}

/* Level @p name costs 1 / @p bw per byte and @p lat per message. */
static void costs(const cm_tree_t *t, const char *name, double bw, double lat)
{
    int l = cm_tree_level_index(t, name);
    assert_true(l >= 0);
    assert_true(fabs(cm_tree_level_byte_cost(t, l) - 1 / bw) <= 1e-9 / bw);
    assert_true(cm_tree_level_msg_cost(t, l) == lat);
}

/* The GPU of every slot, as the string "g0 g1 ...". */
static void slot_gpus(const cm_tree_t *t, const char *want)
{
    char got[512] = "";
    size_t len = 0;
    for (int s = 0; s < cm_tree_nslots(t); s++)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%d", s ? " " : "",
                                cm_tree_slot_gpu(t, s));
    assert_string_equal(got, want);
}

static void test_gpu4(void **state)
{
    (void)state;
    /* NVLink pairs = NUMA nodes = packages: the interconnect names them */
    cm_tree_t *t = check("nodes/gpu4.xml", 2, 1, "switch node nvlink gpu", 8);
    costs(t, "nvlink", 100e9, cm_tree_default_latency("nvlink"));
    costs(t, "node", cm_tree_default_bandwidth("node"), cm_tree_default_latency("node"));
    costs(t, "gpu", INFINITY, 0);
    assert_int_equal(cm_tree_lca_level(t, 0, 1), 2);
    assert_int_equal(cm_tree_lca_level(t, 1, 2), 1);
    assert_int_equal(cm_tree_lca_level(t, 3, 4), 0);
    slot_gpus(t, "0 1 2 3 0 1 2 3");
    assert_string_equal(cm_tree_vertex_label(t, cm_tree_slot_vertex(t, 6)), "gpu2");
    cm_tree_free(t);
}

static void test_dgx(void **state)
{
    (void)state;
    /* the NVSwitch joins all 8 GPUs: no interconnect level, and every level
     * between two GPUs is priced at the switch's bandwidth */
    cm_tree_t *t = check("nodes/dgx.xml", 1, 1, "switch node socket numa gpu", 8);
    costs(t, "node", 300e9, cm_tree_default_latency("nvlink"));
    costs(t, "socket", 300e9, cm_tree_default_latency("nvlink"));
    costs(t, "numa", 300e9, cm_tree_default_latency("nvlink"));
    assert_int_equal(cm_tree_lca_level(t, 0, 1), 3);
    assert_int_equal(cm_tree_lca_level(t, 1, 2), 2);
    assert_int_equal(cm_tree_lca_level(t, 3, 4), 1);
    slot_gpus(t, "0 1 2 3 4 5 6 7");
    cm_tree_free(t);
}

static void test_frontier(void **state)
{
    (void)state;
    /* slots follow the locality (GCDs 4, 5 have cores 0-15), not the
     * GPU index; the MI250X pairs are the NUMA nodes and the 200 GB/s
     * links; the 100 and 50 GB/s links do not join every pair of a node */
    cm_tree_t *t = check("nodes/frontier.xml", 2, 1, "switch node xgmi gpu", 16);
    costs(t, "xgmi", 200e9, cm_tree_default_latency("xgmi"));
    costs(t, "node", cm_tree_default_bandwidth("node"), cm_tree_default_latency("node"));
    slot_gpus(t, "4 5 2 3 6 7 0 1 4 5 2 3 6 7 0 1");
    assert_int_equal(cm_tree_lca_level(t, 0, 1), 2);
    assert_int_equal(cm_tree_lca_level(t, 1, 2), 1);
    cm_tree_free(t);

    /* two tasks per GCD: a "task" leaf under each "gpu" */
    t = check("nodes/frontier.xml", 1, 2, "switch node xgmi gpu task", 16);
    slot_gpus(t, "4 4 5 5 2 2 3 3 6 6 7 7 0 0 1 1");
    assert_int_equal(cm_tree_lca_level(t, 0, 1), 3);
    assert_int_equal(cm_tree_lca_level(t, 1, 2), 2);
    assert_string_equal(cm_tree_vertex_label(t, cm_tree_slot_vertex(t, 15)), "gpu1.1");
    costs(t, "task", INFINITY, 0);
    cm_tree_free(t);
}

static void test_gh200(void **state)
{
    (void)state;
    /* one GPU per package and NUMA node: no split; all-to-all NVLink */
    cm_tree_t *t = check("nodes/gh200.xml", 3, 1, "switch node gpu", 12);
    costs(t, "node", 150e9, cm_tree_default_latency("nvlink"));
    slot_gpus(t, "0 1 2 3 0 1 2 3 0 1 2 3");
    cm_tree_free(t);
}

static void test_restricted(void **state)
{
    (void)state;
    /* a cut tree keeps the labels: the slot's GPU is still known */
    cm_tree_t *t = check("nodes/frontier.xml", 4, 1, "switch node xgmi gpu", 32);
    cm_error_t err = { "" };
    cm_tree_t *r = cm_tree_restrict(t, 3, NULL, 0, &err);
    assert_non_null(r);
    for (int s = 0; s < cm_tree_nslots(r); s++)
        assert_int_equal(cm_tree_slot_gpu(r, s),
                         cm_tree_slot_gpu(t, cm_tree_slot_origin(r, s)));
    cm_tree_free(r);
    cm_tree_free(t);
}

static void test_restricted_view(void **state)
{
    (void)state;
    /* built from one node: the same part as cutting the whole tree, labels,
     * levels, costs and GPUs included */
    const char *xml = cm_test_data_path("nodes/frontier.xml");
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_from_hwloc_gpus(xml, 50, 2, &err);
    assert_non_null(t);
    int keep[] = { 333, 17 };
    cm_tree_t *a = cm_tree_restrict(t, 20, keep, 2, &err);
    cm_tree_t *b = cm_tree_from_hwloc_gpus_restricted(xml, 50, 2, 20, keep, 2, &err);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(cm_tree_nslots(a), cm_tree_nslots(b));
    assert_int_equal(cm_tree_origin_nslots(b), 800);
    assert_int_equal(cm_tree_nlevels(a), cm_tree_nlevels(b));
    for (int l = 0; l < cm_tree_nlevels(a); l++) {
        assert_string_equal(cm_tree_level_name(a, l), cm_tree_level_name(b, l));
        assert_true(cm_tree_level_byte_cost(a, l) == cm_tree_level_byte_cost(b, l));
    }
    for (int s = 0; s < cm_tree_nslots(a); s++) {
        assert_int_equal(cm_tree_slot_origin(a, s), cm_tree_slot_origin(b, s));
        assert_int_equal(cm_tree_slot_gpu(a, s), cm_tree_slot_gpu(b, s));
        assert_string_equal(cm_tree_vertex_label(a, cm_tree_slot_vertex(a, s)),
                            cm_tree_vertex_label(b, cm_tree_slot_vertex(b, s)));
    }
    assert_true(cm_tree_slot_from_origin(b, 333) >= 0);
    cm_tree_free(a);
    cm_tree_free(b);
    cm_tree_free(t);
}

static void test_errors(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    const char *cpu = cm_test_data_path("hwloc/2s-8c-smt2.xml");
    assert_null(cm_tree_from_hwloc_gpus(cpu, 1, 1, &err));
    assert_non_null(strstr(err.msg, "2s-8c-smt2.xml: hwloc finds no GPU"));
    const char *broken = cm_test_data_path("hwloc/broken.xml");
    assert_null(cm_tree_from_hwloc_gpus(broken, 1, 1, &err));
    assert_non_null(strstr(err.msg, broken));
    const char *xml = cm_test_data_path("nodes/gpu4.xml");
    assert_null(cm_tree_from_hwloc_gpus(xml, 0, 1, &err));
    assert_non_null(strstr(err.msg, "node count"));
    assert_null(cm_tree_from_hwloc_gpus(xml, 1, 0, &err));
    assert_non_null(strstr(err.msg, "tasks per GPU must be 1..1024, got 0"));
    assert_null(cm_tree_from_hwloc_gpus(xml, 1 << 20, 1024, &err));
    assert_non_null(strstr(err.msg, "exceed"));
    /* a CPU tree has no "gpu" level */
    cm_tree_t *t = cm_tree_from_hwloc(cpu, 1, &err);
    assert_int_equal(cm_tree_slot_gpu(t, 0), -1);
    cm_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu4),       cmocka_unit_test(test_dgx),
        cmocka_unit_test(test_frontier),   cmocka_unit_test(test_gh200),
        cmocka_unit_test(test_restricted), cmocka_unit_test(test_restricted_view),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
