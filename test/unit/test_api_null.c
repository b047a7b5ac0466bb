/* test_api_null.c -- every public function of clustermap.h called with NULL
 * handles, NULL pointers and out-of-range sizes and indices: each must give
 * the failure its note in the header documents (NULL, -1, NAN, 0 or a
 * no-op, with a message in the error record when it takes one) and never
 * crash.  test/sh/t0014-api-null.t fails when a function the header
 * declares is not called here, so a new function comes with its row.
 *
 * The checks are FAILS and FAILS_NULL (test/unit/lib/testnull.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testnull.h"
#include "clustermap.h"
#include "testdata.h"
#include "testutil.h"

/* Four slots: two sockets of two cores (levels socket... core). */
static cm_tree_t *small_tree(void)
{
    return cm_test_hier("2:2", "1:10");
}

/* Four ranks in a ring, with message counts. */
static cm_matrix_t *small_matrix(void)
{
    static const cm_test_entry_t e[] = {
        { 0, 1, 10, 1 },
        { 1, 2, 10, 1 },
        { 2, 3, 10, 1 },
        { 3, 0, 10, 1 },
    };
    return cm_test_matrix_of(4, e, 4, 1);
}

static void test_error(void **state)
{
    (void)state;
    assert_int_equal(cm_error_set(NULL, "ignored %d", 1), -1);
    cm_error_t e = { "" };
    assert_int_equal(cm_error_set(&e, "kept %d", 1), -1);
    assert_string_equal(e.msg, "kept 1");
}

static void test_builder(void **state)
{
    (void)state;
    FAILS_NULL(cm_builder_new(0, err));
    FAILS_NULL(cm_builder_new(-1, err));
    FAILS_NULL(cm_builder_new(INT32_MAX, err));
    cm_builder_reserve(NULL, 10);
    cm_builder_set_has_msgs(NULL, 1);
    cm_builder_free(NULL);
    FAILS(cm_builder_add(NULL, 0, 0, 1, 1, err));
    FAILS_NULL(cm_builder_finish(NULL, err));

    cm_builder_t *b = cm_builder_new(2, NULL);
    assert_non_null(b);
    cm_builder_reserve(b, -5);
    cm_builder_reserve(b, INT64_MAX);
    FAILS(cm_builder_add(b, -1, 0, 1, 1, err));
    FAILS(cm_builder_add(b, 0, 2, 1, 1, err));
    FAILS(cm_builder_add(b, 0, 1, -1, 1, err));
    FAILS(cm_builder_add(b, 0, 1, NAN, 1, err));
    FAILS(cm_builder_add(b, 0, 1, 1, INFINITY, err));
    /* the refusals left nothing behind */
    cm_matrix_t *m = cm_builder_finish(b, NULL);
    assert_non_null(m);
    assert_int_equal(cm_matrix_nnz(m), 0);
    cm_matrix_free(m);
    cm_builder_free(b);
}

static void test_matrix_queries(void **state)
{
    (void)state;
    assert_int_equal(cm_matrix_n(NULL), 0);
    assert_int_equal(cm_matrix_nnz(NULL), 0);
    assert_int_equal(cm_matrix_has_msgs(NULL), 0);
    cm_matrix_free(NULL);

    const int *cols = (const int *)&cols;
    const double *bytes = (const double *)&bytes, *msgs = (const double *)&msgs;
    int len = 7;
    cm_matrix_row(NULL, 0, &cols, &bytes, &msgs, &len);
    assert_null(cols);
    assert_null(bytes);
    assert_null(msgs);
    assert_int_equal(len, 0);
    cm_matrix_row(NULL, 0, NULL, NULL, NULL, NULL);

    double tb = -1, tm = -1;
    cm_matrix_totals(NULL, &tb, &tm);
    assert_true(tb == 0 && tm == 0);
    cm_matrix_totals(NULL, NULL, NULL);

    cm_matrix_t *m = small_matrix();
    for (int i = -1; i <= 4; i += 5) { /* -1 and n */
        len = 7;
        cols = (const int *)&cols;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        assert_int_equal(len, 0);
        assert_null(cols);
    }
    cm_matrix_totals(m, NULL, NULL);
    FAILS_NULL(cm_matrix_symmetrize(NULL, err));
    const int ranks[] = { 0, 1 }, bad[] = { 0, 4 }, twice[] = { 1, 1 };
    FAILS_NULL(cm_matrix_sub(NULL, ranks, 2, err));
    FAILS_NULL(cm_matrix_sub(m, NULL, 2, err));
    FAILS_NULL(cm_matrix_sub(m, ranks, 0, err));
    FAILS_NULL(cm_matrix_sub(m, ranks, 5, err));
    FAILS_NULL(cm_matrix_sub(m, bad, 2, err));
    FAILS_NULL(cm_matrix_sub(m, twice, 2, err));
    cm_matrix_free(m);
}

static void test_matrix_io(void **state)
{
    (void)state;
    cm_format_t f = CM_FORMAT_MTX;
    assert_int_equal(cm_format_parse(NULL, &f), -1);
    assert_int_equal(cm_format_parse("", &f), -1);
    assert_int_equal(cm_format_parse("csv", &f), -1);
    assert_int_equal(f, CM_FORMAT_MTX); /* untouched */
    assert_int_equal(cm_format_parse("metis", NULL), 0);

    const char *mtx = cm_test_data_path("graphs/sym4.mtx");
    FAILS_NULL(cm_matrix_read(NULL, CM_FORMAT_AUTO, err));
    FAILS_NULL(cm_matrix_read(cm_test_data_path("none.mtx"), CM_FORMAT_AUTO, err));
    FAILS_NULL(cm_matrix_read(mtx, (cm_format_t)99, err));
    FAILS_NULL(cm_matrix_read_stream(NULL, "x", CM_FORMAT_AUTO, err));
    FILE *in = fopen(mtx, "r");
    assert_non_null(in);
    FAILS_NULL(cm_matrix_read_stream(in, NULL, (cm_format_t)-1, err));
    fclose(in);

    cm_matrix_t *m = small_matrix();
    FILE *out = tmpfile();
    assert_non_null(out);
    FAILS(cm_matrix_write_mtx(NULL, out, err));
    FAILS(cm_matrix_write_mtx(m, NULL, err));
    FAILS(cm_matrix_write_triplets(NULL, out, err));
    FAILS(cm_matrix_write_triplets(m, NULL, err));
    assert_int_equal(ftell(out), 0); /* nothing written */
    fclose(out);
    cm_matrix_free(m);
}

static void test_tree_build(void **state)
{
    (void)state;
    cm_tree_free(NULL);
    FAILS(cm_tree_add_level(NULL, "node", 1, 0, err));
    FAILS(cm_tree_add_vertex(NULL, -1, 0, "r", err));
    FAILS(cm_tree_set_speed(NULL, 0, 1.0, err));
    FAILS(cm_tree_finalize(NULL, err));

    cm_tree_t *t = cm_tree_new();
    assert_non_null(t);
    FAILS(cm_tree_finalize(t, err)); /* no levels */
    FAILS(cm_tree_add_level(t, NULL, 1, 0, err));
    FAILS(cm_tree_add_level(t, "", 1, 0, err));
    FAILS(cm_tree_add_level(t, "a b", 1, 0, err));
    FAILS(cm_tree_add_level(t, "x", NAN, 0, err));
    FAILS(cm_tree_add_level(t, "x", 1, -1, err));
    char name[80];
    memset(name, 'a', 64);
    name[64] = '\0'; /* 64 bytes: one too many */
    FAILS(cm_tree_add_level(t, name, 1, 0, err));
    name[63] = '\0';
    assert_int_equal(cm_tree_add_level(t, name, 1, 0, NULL), 0);
    FAILS(cm_tree_add_level(t, name, 1, 0, err)); /* twice */
    for (int l = 1; l < 64; l++) {
        snprintf(name, sizeof name, "l%d", l);
        assert_int_equal(cm_tree_add_level(t, name, 1, 0, NULL), l);
    }
    FAILS(cm_tree_add_level(t, "l64", 1, 0, err)); /* 64 levels at most */
    assert_int_equal(cm_tree_nlevels(t), 64);

    FAILS(cm_tree_finalize(t, err)); /* no vertices */
    FAILS(cm_tree_add_vertex(t, -1, 64, "r", err));
    FAILS(cm_tree_add_vertex(t, -1, -1, "r", err));
    FAILS(cm_tree_add_vertex(t, -1, 1, "r", err)); /* a root not of level 0 */
    FAILS(cm_tree_add_vertex(t, 0, 1, "c", err));  /* no vertex 0 yet */
    assert_int_equal(cm_tree_add_vertex(t, -1, 0, NULL, NULL), 0);
    FAILS(cm_tree_add_vertex(t, -1, 0, "r", err)); /* a second root */
    FAILS(cm_tree_add_vertex(t, 0, 0, "c", err));  /* not below its parent */
    FAILS(cm_tree_add_vertex(t, 5, 1, "c", err));
    FAILS(cm_tree_set_speed(t, 1, 1.0, err));
    FAILS(cm_tree_set_speed(t, -1, 1.0, err));
    FAILS(cm_tree_set_speed(t, 0, 0.0, err));
    FAILS(cm_tree_set_speed(t, 0, NAN, err));
    FAILS(cm_tree_finalize(t, err)); /* levels without vertices */
    cm_tree_free(t);

    t = small_tree();
    FAILS(cm_tree_add_level(t, "late", 1, 0, err)); /* finalized */
    FAILS(cm_tree_add_vertex(t, 0, 1, "late", err));
    cm_tree_free(t);
}

static void test_tree_readers(void **state)
{
    (void)state;
    FAILS_NULL(cm_tree_from_hierarchy(NULL, "1", err));
    FAILS_NULL(cm_tree_from_hierarchy("2", NULL, err));
    FAILS_NULL(cm_tree_from_hierarchy("", "", err));
    FAILS_NULL(cm_tree_from_hierarchy("2:2", "1", err));
    FAILS_NULL(cm_tree_from_hierarchy("x:y", "1:2", err));
    FAILS_NULL(cm_tree_from_hierarchy("0:2", "1:2", err));

    const char *xml = cm_test_data_path("hwloc/1s-4c.xml");
    FAILS_NULL(cm_tree_from_hwloc(cm_test_data_path("hwloc/none.xml"), 1, err));
    FAILS_NULL(cm_tree_from_hwloc(cm_test_data_path("hwloc/broken.xml"), 1, err));
    FAILS_NULL(cm_tree_from_hwloc(xml, 0, err));
    FAILS_NULL(cm_tree_from_hwloc(xml, -1, err));
    FAILS_NULL(cm_tree_from_hwloc(NULL, 0, err)); /* NULL: the live machine */

    const char *conf = cm_test_data_path("slurm/slurm.conf");
    FAILS_NULL(cm_tree_from_slurm_conf(NULL, NULL, "n1", err));
    FAILS_NULL(cm_tree_from_slurm_conf(conf, NULL, NULL, err));
    FAILS_NULL(cm_tree_from_slurm_conf(conf, NULL, "n[", err));
    FAILS_NULL(cm_tree_from_slurm_conf(conf, NULL, "nowhere", err));
    FAILS_NULL(
        cm_tree_from_slurm_conf(cm_test_data_path("slurm/none.conf"), NULL, "n1", err));

    const char *names[] = { "n1", NULL, "nowhere" };
    cm_node_hw_t hw[3];
    FAILS(cm_slurm_conf_node_hw(NULL, names, 3, hw, err));
    FAILS(cm_slurm_conf_node_hw(conf, NULL, 3, hw, err));
    FAILS(cm_slurm_conf_node_hw(conf, names, 3, NULL, err));
    FAILS(cm_slurm_conf_node_hw(conf, names, -1, hw, err));
    assert_int_equal(cm_slurm_conf_node_hw(conf, names, 3, hw, NULL), 1);
    assert_true(hw[1].sockets == 0 && hw[2].cores_per_socket == 0);

    cm_gres_dev_t dev = { 0 };
    FAILS_NULL(cm_gres_conf_read(NULL, "n1", err));
    FAILS_NULL(cm_gres_conf_read(conf, NULL, err));
    FAILS_NULL(cm_gres_conf_read(conf, "", err));
    FAILS_NULL(cm_gres_conf_read(cm_test_data_path("slurm/none.conf"), "n1", err));
    assert_null(cm_gres_conf_read(NULL, NULL, NULL));
    const char *gnodes[] = { "n1", "" };
    cm_gres_t *gout[2] = { NULL, NULL };
    FAILS(cm_gres_conf_read_nodes(NULL, gnodes, 1, gout, err));
    FAILS(cm_gres_conf_read_nodes(conf, NULL, 1, gout, err));
    FAILS(cm_gres_conf_read_nodes(conf, gnodes, 1, NULL, err));
    FAILS(cm_gres_conf_read_nodes(conf, gnodes, 0, gout, err));
    FAILS(cm_gres_conf_read_nodes(conf, gnodes, 2, gout, err)); /* an empty name */
    assert_null(gout[0]);
    cm_gres_free(NULL);
    assert_null(cm_gres_autodetect(NULL));
    assert_int_equal(cm_gres_count(NULL, "gpu"), -1);
    assert_int_equal(cm_gres_device(NULL, "gpu", 0, &dev), -1);
    cm_error_t gerr = { "" };
    cm_gres_t *g = cm_gres_conf_read(conf, "n1", &gerr);
    assert_null(g); /* slurm.conf is no gres.conf: its keys are refused */
    assert_non_null(strstr(gerr.msg, "unknown key"));

    const cm_switch_desc_t sw[] = { { "s0", 0, -1 }, { "s1", 0, 0 } };
    const cm_node_desc_t nodes[] = { { "n1", 0, 2, 4 } };
    const cm_node_desc_t bad_leaf[] = { { "n1", 2, 2, 4 } };
    const cm_node_desc_t bad_cores[] = { { "n1", 0, 0, 4 } };
    FAILS_NULL(cm_tree_from_switches(NULL, 0, NULL, 0, err));
    FAILS_NULL(cm_tree_from_switches(NULL, 1, nodes, 1, err));
    FAILS_NULL(cm_tree_from_switches(sw, -1, nodes, 1, err));
    FAILS_NULL(cm_tree_from_switches(NULL, 0, nodes, 0, err));
    FAILS_NULL(cm_tree_from_switches(sw, 2, nodes, 1, err)); /* parent not higher */
    FAILS_NULL(cm_tree_from_switches(sw, 1, bad_leaf, 1, err));
    FAILS_NULL(cm_tree_from_switches(NULL, 0, bad_cores, 1, err));
    const cm_switch_desc_t blocks[] = { { "b1", 0, -1 } };
    FAILS_NULL(cm_tree_from_blocks(NULL, 1, nodes, 1, err));
    FAILS_NULL(cm_tree_from_blocks(sw + 1, 1, nodes, 1, err)); /* a parent */
    FAILS_NULL(cm_tree_from_blocks(blocks, 0, nodes, 1, err));
    FAILS_NULL(cm_tree_from_blocks(blocks, 1, NULL, 1, err));
    FAILS_NULL(cm_tree_from_blocks(blocks, 1, nodes, 0, err));
    FAILS_NULL(cm_tree_from_blocks(blocks, 1, bad_leaf, 1, err));
}

static void test_tree_costs(void **state)
{
    (void)state;
    assert_true(cm_tree_default_latency(NULL) == -1);
    assert_true(cm_tree_default_latency("bogus") == -1);
    assert_true(cm_tree_default_latency("switch31") == -1);
    assert_true(cm_tree_default_bandwidth(NULL) == -1);
    assert_true(cm_tree_default_bandwidth("") == -1);
    assert_true(cm_tree_default_cost(NULL) == -1);
    assert_true(cm_tree_default_cost("switch-1") == -1);

    FAILS(cm_tree_set_level_costs(NULL, "core=1", err));
    FAILS(cm_tree_set_level_latencies(NULL, "core=1us", err));
    FAILS(cm_tree_set_level_bandwidths(NULL, "core=1GB/s", err));
    FAILS(cm_tree_set_level_cost(NULL, 0, 1, 1, err));

    cm_tree_t *t = small_tree();
    int nl = cm_tree_nlevels(t);
    double before = cm_tree_level_byte_cost(t, 0);
    FAILS(cm_tree_set_level_costs(t, NULL, err));
    FAILS(cm_tree_set_level_latencies(t, NULL, err));
    FAILS(cm_tree_set_level_bandwidths(t, NULL, err));
    FAILS(cm_tree_set_level_costs(t, "", err));
    FAILS(cm_tree_set_level_costs(t, "core=1,bogus=2", err));
    FAILS(cm_tree_set_level_latencies(t, "core=1parsec", err));
    FAILS(cm_tree_set_level_bandwidths(t, "core=0", err));
    FAILS(cm_level_spec_check(CM_LEVEL_COSTS, NULL, err));
    FAILS(cm_level_spec_check((cm_level_spec_t)7, "core=1", err));
    FAILS(cm_level_spec_check((cm_level_spec_t)-1, "core=1", err));
    FAILS(cm_level_spec_check(CM_LEVEL_LATENCIES, "debug", err));
    FAILS(cm_level_spec_check(CM_LEVEL_LATENCIES, "core=1parsec", err));
    FAILS(cm_level_spec_check(CM_LEVEL_BANDWIDTHS, "core=0", err));
    FAILS(cm_level_spec_check(CM_LEVEL_COSTS, "", err));
    FAILS(cm_level_spec_check(CM_LEVEL_COSTS, "core=1,", err));
    FAILS(cm_tree_set_level_cost(t, -1, 1, 1, err));
    FAILS(cm_tree_set_level_cost(t, nl, 1, 1, err));
    FAILS(cm_tree_set_level_cost(t, 0, -1, 1, err));
    FAILS(cm_tree_set_level_cost(t, 0, 1, INFINITY, err));
    assert_true(cm_tree_level_byte_cost(t, 0) == before); /* unchanged */

    cm_matrix_t *m = small_matrix();
    FAILS(cm_tree_apply_weight(NULL, m, CM_WEIGHT_MIXED, err));
    FAILS(cm_tree_apply_weight(t, NULL, CM_WEIGHT_MIXED, err));
    cm_weight_t w = CM_WEIGHT_MSGS;
    assert_int_equal(cm_weight_parse(NULL, &w), -1);
    assert_int_equal(cm_weight_parse("heavy", &w), -1);
    assert_int_equal(cm_weight_parse("bytes", NULL), 0); /* out may be NULL */
    assert_int_equal(w, CM_WEIGHT_MSGS);                 /* untouched */
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* Every query, on NULL and on bad indices of a finalized tree. */
static void test_tree_queries(void **state)
{
    (void)state;
    assert_int_equal(cm_tree_nslots(NULL), 0);
    assert_int_equal(cm_tree_nlevels(NULL), 0);
    assert_int_equal(cm_tree_nvertices(NULL), 0);
    assert_int_equal(cm_tree_nnodes(NULL), 0);
    assert_null(cm_tree_level_name(NULL, 0));
    assert_int_equal(cm_tree_level_index(NULL, "core"), -1);
    assert_true(cm_tree_level_byte_cost(NULL, 0) == 0);
    assert_true(cm_tree_level_msg_cost(NULL, 0) == 0);
    assert_int_equal(cm_tree_vertex_level(NULL, 0), -1);
    assert_int_equal(cm_tree_vertex_parent(NULL, 0), -1);
    assert_int_equal(cm_tree_vertex_nchildren(NULL, 0), 0);
    assert_int_equal(cm_tree_vertex_child(NULL, 0, 0), -1);
    assert_null(cm_tree_vertex_label(NULL, 0));
    assert_true(cm_tree_vertex_speed(NULL, 0) == 0);
    int first = 7, count = 7;
    cm_tree_vertex_slots(NULL, 0, &first, &count);
    assert_true(first == 0 && count == 0);
    cm_tree_vertex_slots(NULL, 0, NULL, NULL);
    assert_int_equal(cm_tree_slot_vertex(NULL, 0), -1);
    assert_int_equal(cm_tree_lca_level(NULL, 0, 0), -1);
    assert_int_equal(cm_tree_node_vertex(NULL, 0), -1);
    assert_int_equal(cm_tree_slot_node(NULL, 0), -1);
    cm_tree_print(NULL, stdout);

    cm_tree_t *t = small_tree();
    int nl = cm_tree_nlevels(t), nv = cm_tree_nvertices(t), ns = cm_tree_nslots(t);
    assert_int_equal(ns, 4);
    int bad_level[] = { -1, nl }, bad_vertex[] = { -1, nv }, bad_slot[] = { -1, ns };
    for (int i = 0; i < 2; i++) {
        assert_null(cm_tree_level_name(t, bad_level[i]));
        assert_true(cm_tree_level_byte_cost(t, bad_level[i]) == 0);
        assert_true(cm_tree_level_msg_cost(t, bad_level[i]) == 0);
        int v = bad_vertex[i];
        assert_int_equal(cm_tree_vertex_level(t, v), -1);
        assert_int_equal(cm_tree_vertex_parent(t, v), -1);
        assert_int_equal(cm_tree_vertex_nchildren(t, v), 0);
        assert_int_equal(cm_tree_vertex_child(t, v, 0), -1);
        assert_null(cm_tree_vertex_label(t, v));
        assert_true(cm_tree_vertex_speed(t, v) == 0);
        first = count = 7;
        cm_tree_vertex_slots(t, v, &first, &count);
        assert_true(first == 0 && count == 0);
        int s = bad_slot[i];
        assert_int_equal(cm_tree_slot_vertex(t, s), -1);
        assert_int_equal(cm_tree_slot_node(t, s), -1);
        assert_int_equal(cm_tree_lca_level(t, s, 0), -1);
        assert_int_equal(cm_tree_lca_level(t, 0, s), -1);
        assert_int_equal(cm_tree_lca_level(t, s, s), -1);
        assert_int_equal(cm_tree_node_vertex(t, i ? cm_tree_nnodes(t) : -1), -1);
    }
    assert_int_equal(cm_tree_level_index(t, NULL), -1);
    assert_int_equal(cm_tree_level_index(t, "bogus"), -1);
    assert_int_equal(cm_tree_vertex_child(t, 0, -1), -1);
    assert_int_equal(cm_tree_vertex_child(t, 0, cm_tree_vertex_nchildren(t, 0)), -1);
    cm_tree_print(t, NULL);
    cm_tree_free(t);

    /* Before cm_tree_finalize(): the queries of a finalized tree give
     * their bad-index answers. */
    t = cm_tree_new();
    assert_int_equal(cm_tree_add_level(t, "node", 1, 0, NULL), 0);
    assert_int_equal(cm_tree_add_vertex(t, -1, 0, "n0", NULL), 0);
    assert_int_equal(cm_tree_nslots(t), 0);
    assert_int_equal(cm_tree_nnodes(t), 0);
    assert_int_equal(cm_tree_slot_vertex(t, 0), -1);
    assert_int_equal(cm_tree_lca_level(t, 0, 0), -1);
    assert_int_equal(cm_tree_node_vertex(t, 0), -1);
    assert_int_equal(cm_tree_slot_node(t, 0), -1);
    first = count = 7;
    cm_tree_vertex_slots(t, 0, &first, &count);
    assert_true(first == 0 && count == 0);
    cm_tree_free(t);
}

static void test_cost(void **state)
{
    (void)state;
    cm_tree_t *t = small_tree();
    cm_matrix_t *m = small_matrix();
    int map[4] = { 0, 1, 2, 3 }, out[4] = { 0, 1, 2, 5 }, dup[4] = { 0, 1, 1, 2 };

    FAILS(cm_mapping_check(NULL, map, 4, err));
    FAILS(cm_mapping_check(t, NULL, 4, err));
    FAILS(cm_mapping_check(t, map, 0, err));
    FAILS(cm_mapping_check(t, map, 5, err));
    FAILS(cm_mapping_check(t, out, 4, err));
    FAILS(cm_mapping_check(t, dup, 4, err));

    assert_true(isnan(cm_cost(NULL, t, map)));
    assert_true(isnan(cm_cost(m, NULL, map)));
    assert_true(isnan(cm_cost(m, t, NULL)));
    assert_true(isnan(cm_cost(m, t, out)));
    assert_true(isnan(cm_cost_max(NULL, t, map)));
    assert_true(isnan(cm_cost_max(m, NULL, map)));
    assert_true(isnan(cm_cost_max(m, t, NULL)));
    assert_true(isnan(cm_cost_max(m, t, out)));
    assert_true(isnan(cm_cost_links(NULL, t, map)));
    assert_true(isnan(cm_cost_links(m, NULL, map)));
    assert_true(isnan(cm_cost_links(m, t, NULL)));
    assert_true(isnan(cm_cost_links(m, t, out)));

    double lb[8], lm[8];
    cm_cost_report_t r = { .level_bytes = lb, .level_msgs = lm };
    cm_cost_report_t no_arrays = { .level_bytes = NULL };
    FAILS(cm_cost_report(NULL, t, map, &r, err));
    FAILS(cm_cost_report(m, NULL, map, &r, err));
    FAILS(cm_cost_report(m, t, NULL, &r, err));
    FAILS(cm_cost_report(m, t, map, NULL, err));
    FAILS(cm_cost_report(m, t, map, &no_arrays, err));
    FAILS(cm_cost_report(m, t, dup, &r, err));

    FAILS(cm_cost_lower_bound(NULL, t, NULL, err));
    FAILS(cm_cost_lower_bound(m, NULL, NULL, err));
    cm_tree_t *two = cm_test_hier("2", "1");
    FAILS(cm_cost_lower_bound(m, two, NULL, err)); /* 4 ranks, 2 slots */
    cm_tree_free(two);
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_baselines(void **state)
{
    (void)state;
    cm_tree_t *t = small_tree();
    cm_matrix_t *m = small_matrix();
    int map[5];
    FAILS(cm_map_block(NULL, 4, map, err));
    FAILS(cm_map_block(t, 4, NULL, err));
    FAILS(cm_map_block(t, 0, map, err));
    FAILS(cm_map_block(t, 5, map, err));
    FAILS(cm_map_cyclic(NULL, 4, map, err));
    FAILS(cm_map_cyclic(t, 4, NULL, err));
    FAILS(cm_map_cyclic(t, -1, map, err));
    FAILS(cm_map_cyclic(t, 5, map, err));
    FAILS(cm_map_random(NULL, 4, 1, map, err));
    FAILS(cm_map_random(t, 4, 1, NULL, err));
    FAILS(cm_map_random(t, 0, 1, map, err));
    FAILS(cm_map_random(t, 5, 1, map, err));
    FAILS(cm_map_scotch(NULL, t, 1, map, err));
    FAILS(cm_map_scotch(m, NULL, 1, map, err));
    FAILS(cm_map_scotch(m, t, 1, NULL, err));
    cm_tree_t *two = cm_test_hier("2", "1");
    FAILS(cm_map_scotch(m, two, 1, map, err));
    cm_tree_free(two);
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_plan(void **state)
{
    (void)state;
    cm_plan_options_init(NULL);
    assert_true(cm_plan_threads_available() >= 1);
    assert_true(cm_plan_threads_available() <= 16);

    cm_tree_t *t = small_tree();
    cm_matrix_t *m = small_matrix();
    cm_plan_options_t o;
    int map[4] = { 9, 9, 9, 9 };
    cm_plan_report_t rep;
    FAILS(cm_plan(NULL, t, NULL, map, NULL, err));
    FAILS(cm_plan(m, NULL, NULL, map, NULL, err));
    FAILS(cm_plan(m, t, NULL, NULL, NULL, err));

    /* Each bad option fails, and cm_plan() leaves the map untouched. */
    cm_plan_options_init(&o);
    o.algorithm = "fastest";
    FAILS(cm_plan(m, t, &o, map, &rep, err));
    cm_plan_options_init(&o);
    o.time_budget = NAN;
    FAILS(cm_plan(m, t, &o, map, &rep, err));
    cm_plan_options_init(&o);
    o.time_budget = -1;
    FAILS(cm_plan(m, t, &o, map, &rep, err));
    cm_plan_options_init(&o);
    o.deadline = INFINITY;
    FAILS(cm_plan(m, t, &o, map, &rep, err));
    cm_plan_options_init(&o);
    o.threads = 0;
    FAILS(cm_plan(m, t, &o, map, &rep, err));
    cm_tree_t *two = cm_test_hier("2", "1");
    FAILS(cm_plan(m, two, NULL, map, &rep, err)); /* 4 ranks, 2 slots */
    cm_tree_free(two);
    for (int i = 0; i < 4; i++)
        assert_int_equal(map[i], 9);

    /* The report's text: no report, an unknown style, the record without
     * figures or without its tree. */
    memset(&rep, 0, sizeof rep);
    FAILS_NULL(cm_plan_report_format(NULL, t, CM_PLAN_REPORT_VERBOSE, err));
    FAILS_NULL(cm_plan_report_format(&rep, t, (cm_plan_report_style_t)7, err));
    FAILS_NULL(cm_plan_report_format(&rep, t, CM_PLAN_REPORT_EXPLAIN, err));
    rep.ncandidates = -1;
    FAILS_NULL(cm_plan_report_format(&rep, NULL, CM_PLAN_REPORT_VERBOSE, err));
    cm_plan_options_init(&o);
    o.figures = 1;
    int planned[4];
    assert_int_equal(cm_plan(m, t, &o, planned, &rep, NULL), 0);
    FAILS_NULL(cm_plan_report_format(&rep, NULL, CM_PLAN_REPORT_EXPLAIN, err));

    /* More than the planner's 32 levels. */
    cm_tree_t *deep = cm_tree_new();
    char name[16];
    for (int l = 0; l < 33; l++) {
        snprintf(name, sizeof name, "l%d", l);
        assert_int_equal(cm_tree_add_level(deep, name, 1, 0, NULL), l);
        assert_int_equal(cm_tree_add_vertex(deep, l - 1, l, NULL, NULL), l);
    }
    for (int k = 0; k < 3; k++)
        assert_true(cm_tree_add_vertex(deep, 31, 32, NULL, NULL) > 0);
    assert_int_equal(cm_tree_finalize(deep, NULL), 0);
    assert_int_equal(cm_tree_nslots(deep), 4);
    FAILS(cm_plan(m, deep, NULL, map, &rep, err));
    for (int i = 0; i < 4; i++)
        assert_int_equal(map[i], 9);
    cm_tree_free(deep);
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_methods(void **state)
{
    (void)state;
    int count = cm_method_count();
    assert_true(count >= 1);
    assert_null(cm_method_info(-1));
    assert_null(cm_method_info(count));
    assert_int_equal(cm_method_by_name(NULL), -1);
    assert_int_equal(cm_method_by_name(""), -1);
    assert_int_equal(cm_method_by_name("AUTO"), -1);
    /* no buffer: only the length, as snprintf() */
    size_t whole = cm_method_names(NULL, 0, NULL, NULL);
    assert_true(whole > 0);
    assert_int_equal(cm_method_names(NULL, 8, ", ", " or "),
                     cm_method_names(NULL, 0, ", ", " or "));
    char one[1] = { 'x' };
    assert_int_equal(cm_method_names(one, sizeof one, NULL, NULL), whole);
    assert_int_equal(one[0], '\0');
}

static void test_rng(void **state)
{
    (void)state;
    cm_rng_seed(NULL, 1);
    assert_int_equal(cm_rng_next(NULL), 0);
    assert_int_equal(cm_rng_below(NULL, 10), 0);
    assert_true(cm_rng_double(NULL) == 0);
    cm_rng_t r;
    cm_rng_seed(&r, 1);
    assert_int_equal(cm_rng_below(&r, 0), 0);
    assert_int_equal(cm_rng_below(&r, 1), 0);
}

static void test_hostlist(void **state)
{
    (void)state;
    char **names = (char **)&names;
    int count = 7;
    FAILS(cm_hostlist_expand(NULL, &names, &count, err));
    FAILS(cm_hostlist_expand("n1", NULL, &count, err));
    FAILS(cm_hostlist_expand("n1", &names, NULL, err));
    FAILS(cm_hostlist_expand("", &names, &count, err));
    assert_null(names);
    assert_int_equal(count, 0);
    FAILS(cm_hostlist_expand("n[1-", &names, &count, err));
    FAILS(cm_hostlist_expand("n[3-1]", &names, &count, err));
    cm_hostlist_free(NULL, 3);
}

static void test_mapping_files(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    char path[4096];
    snprintf(path, sizeof path, "%s/map", dir);
    int map[4] = { 0, 1, 2, 3 }, neg[2] = { 0, -1 };
    cm_tree_t *t = small_tree();

    FAILS(cm_mapping_read(NULL, 4, map, err));
    FAILS(cm_mapping_read(path, 4, NULL, err));
    FAILS(cm_mapping_read(path, 0, map, err));
    FAILS(cm_mapping_read(path, 4, map, err)); /* no such file */
    FAILS(cm_mapping_write(NULL, map, 4, err));
    FAILS(cm_mapping_write(path, NULL, 4, err));
    FAILS(cm_mapping_write(path, map, 0, err));
    FAILS(cm_mapping_write(path, neg, 2, err));
    FAILS(cm_mapping_write("", map, 4, err));
    FAILS(cm_hostfile_write(NULL, t, map, 4, err));
    FAILS(cm_hostfile_write(path, NULL, map, 4, err));
    FAILS(cm_hostfile_write(path, t, NULL, 4, err));
    FAILS(cm_hostfile_write(path, t, map, 0, err));
    FAILS(cm_hostfile_write(path, t, map, 4, err)); /* --hierarchy: no names */

    FAILS_NULL(cm_file_atomic_open(NULL, err));
    FAILS_NULL(cm_file_atomic_open("", err));
    FAILS_NULL(cm_file_atomic_open(dir, err)); /* a directory */
    assert_null(cm_file_atomic_stream(NULL));
    FAILS(cm_file_atomic_commit(NULL, err));
    cm_file_atomic_abort(NULL);

    /* Nothing was created by the refusals. */
    FILE *f = fopen(path, "r");
    assert_null(f);
    cm_tree_free(t);
    cm_test_rmtree(dir);
}

static void test_devices(void **state)
{
    (void)state;
    FAILS_NULL(cm_devices_from_hwloc(cm_test_data_path("nodes/none.xml"), err));
    FAILS_NULL(cm_devices_from_hwloc(cm_test_data_path("hwloc/broken.xml"), err));
    cm_devices_free(NULL);
    FAILS(cm_devices_apply_gres(NULL, NULL, NULL, NULL, err));
    FAILS_NULL(cm_tree_from_gpu_devices(NULL, NULL, 1, 1, err));
    assert_int_equal(cm_devices_ngpus(NULL), 0);
    assert_int_equal(cm_devices_nnics(NULL), 0);
    assert_null(cm_devices_link_name(NULL));
    const int *ids = (const int *)&ids;
    cm_devices_t *d = cm_devices_from_hwloc(cm_test_data_path("nodes/gpu4.xml"), NULL);
    assert_non_null(d);
    const cm_devices_t *each[] = { NULL, d };
    for (int i = 0; i < 2; i++) {
        const cm_devices_t *x = each[i];
        int bad = i ? 4 : 0; /* gpu4 has GPUs 0..3, NICs 0..1 */
        assert_null(cm_devices_gpu_name(x, bad));
        assert_null(cm_devices_gpu_name(x, -1));
        assert_null(cm_devices_gpu_busid(x, bad));
        assert_int_equal(cm_devices_gpu_vendor(x, bad), -1);
        assert_int_equal(cm_devices_gpu_numa(x, -1), -1);
        assert_int_equal(cm_devices_gpu_package(x, bad), -1);
        assert_int_equal(cm_devices_gpu_cores(x, bad, &ids), 0);
        assert_null(ids);
        ids = (const int *)&ids;
        assert_int_equal(cm_devices_gpu_pus(x, -1, &ids), 0);
        assert_null(ids);
        assert_int_equal(cm_devices_gpu_cores(x, bad, NULL), 0);
        assert_null(cm_devices_gpu_cpulist(x, bad));
        assert_int_equal(cm_devices_gpu_nic(x, bad), -1);
        assert_true(cm_devices_gpu_bandwidth(x, 0, bad) == 0);
        assert_true(cm_devices_gpu_bandwidth(x, -1, 0) == 0);
        assert_null(cm_devices_nic_name(x, i ? 2 : 0));
        assert_null(cm_devices_nic_fabric(x, -1));
        assert_int_equal(cm_devices_nic_verbs(x, -1), 0);
        assert_null(cm_devices_nic_busid(x, i ? 2 : 0));
        assert_int_equal(cm_devices_nic_numa(x, -1), -1);
        assert_null(cm_devices_nic_cpulist(x, i ? 2 : 0));
    }
    cm_devices_free(d);

    const char *xml = cm_test_data_path("nodes/gpu4.xml");
    FAILS_NULL(cm_tree_from_hwloc_gpus(cm_test_data_path("nodes/none.xml"), 1, 1, err));
    FAILS_NULL(cm_tree_from_hwloc_gpus(xml, 0, 1, err));
    FAILS_NULL(cm_tree_from_hwloc_gpus(xml, 1, 0, err));
    FAILS_NULL(cm_tree_from_hwloc_gpus(xml, 1, 1025, err));
    FAILS_NULL(cm_tree_from_hwloc_gpus_restricted(xml, 0, 1, 4, NULL, 0, err));
    FAILS_NULL(cm_tree_from_hwloc_gpus_restricted(xml, 1, 0, 4, NULL, 0, err));
    FAILS_NULL(cm_tree_from_hwloc_gpus_restricted(xml, 2, 1, 0, NULL, 0, err));
    FAILS_NULL(cm_tree_from_hwloc_gpus_restricted(cm_test_data_path("hwloc/1s-4c.xml"), 1,
                                                  1, 1, NULL, 0, err));
    assert_int_equal(cm_tree_slot_gpu(NULL, 0), -1);
    cm_tree_t *t = cm_tree_from_hwloc_gpus(xml, 1, 1, NULL);
    assert_non_null(t);
    assert_int_equal(cm_tree_slot_gpu(t, -1), -1);
    assert_int_equal(cm_tree_slot_gpu(t, 4), -1);
    FAILS_NULL(cm_tree_graft(NULL, t, err));
    FAILS_NULL(cm_tree_graft(t, NULL, err));
    cm_tree_t *unfinished = cm_tree_new();
    FAILS_NULL(cm_tree_graft(unfinished, t, err));
    FAILS_NULL(cm_tree_graft(t, unfinished, err));
    cm_tree_free(unfinished);
    cm_tree_free(t);
}

static void test_restrict(void **state)
{
    (void)state;
    cm_tree_t *t = small_tree();
    int keep[] = { -1, 99 };
    FAILS_NULL(cm_tree_restrict(NULL, 2, NULL, 0, err));
    FAILS_NULL(cm_tree_restrict(t, 0, NULL, 0, err));
    FAILS_NULL(cm_tree_restrict(t, -1, keep, 2, err));
    cm_tree_t *unfinished = cm_tree_new();
    FAILS_NULL(cm_tree_restrict(unfinished, 2, NULL, 0, err));
    cm_tree_free(unfinished);
    /* bad keep entries are ignored, as documented */
    cm_tree_t *r = cm_tree_restrict(t, 2, keep, 2, NULL);
    assert_non_null(r);
    cm_tree_free(r);

    FAILS_NULL(cm_tree_from_hierarchy_restricted(NULL, "1:2", 2, NULL, 0, err));
    FAILS_NULL(cm_tree_from_hierarchy_restricted("2:2", NULL, 2, NULL, 0, err));
    FAILS_NULL(cm_tree_from_hierarchy_restricted("2:2", "1:2", 0, NULL, 0, err));
    FAILS_NULL(cm_tree_from_hwloc_restricted(cm_test_data_path("hwloc/none.xml"), 2, 2,
                                             NULL, 0, err));
    FAILS_NULL(cm_tree_from_hwloc_restricted(cm_test_data_path("hwloc/1s-4c.xml"), 0, 2,
                                             NULL, 0, err));
    FAILS_NULL(cm_tree_from_hwloc_restricted(cm_test_data_path("hwloc/1s-4c.xml"), 2, 0,
                                             NULL, 0, err));

    assert_int_equal(cm_tree_origin_nslots(NULL), 0);
    assert_int_equal(cm_tree_origin_nnodes(NULL), 0);
    assert_int_equal(cm_tree_slot_origin(NULL, 0), -1);
    assert_int_equal(cm_tree_slot_from_origin(NULL, 0), -1);
    assert_int_equal(cm_tree_node_origin(NULL, 0), -1);
    assert_int_equal(cm_tree_slot_origin(t, -1), -1);
    assert_int_equal(cm_tree_slot_origin(t, 4), -1);
    assert_int_equal(cm_tree_slot_from_origin(t, -1), -1);
    assert_int_equal(cm_tree_slot_from_origin(t, 4), -1);
    assert_int_equal(cm_tree_node_origin(t, -1), -1);
    assert_int_equal(cm_tree_node_origin(t, cm_tree_nnodes(t)), -1);

    int map[4] = { 0, 1, 2, 3 }, out[4] = { 0, 1, 2, 4 }, got[4];
    FAILS(cm_tree_map_from_origin(NULL, map, 4, got, err));
    FAILS(cm_tree_map_from_origin(t, NULL, 4, got, err));
    FAILS(cm_tree_map_from_origin(t, map, 4, NULL, err));
    FAILS(cm_tree_map_from_origin(t, map, 0, got, err));
    FAILS(cm_tree_map_from_origin(t, out, 4, got, err));
    FAILS(cm_tree_map_to_origin(NULL, map, 4, got, err));
    FAILS(cm_tree_map_to_origin(t, NULL, 4, got, err));
    FAILS(cm_tree_map_to_origin(t, map, 4, NULL, err));
    FAILS(cm_tree_map_to_origin(t, out, 4, got, err));
    cm_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error),
        cmocka_unit_test(test_builder),
        cmocka_unit_test(test_matrix_queries),
        cmocka_unit_test(test_matrix_io),
        cmocka_unit_test(test_tree_build),
        cmocka_unit_test(test_tree_readers),
        cmocka_unit_test(test_tree_costs),
        cmocka_unit_test(test_tree_queries),
        cmocka_unit_test(test_cost),
        cmocka_unit_test(test_baselines),
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_methods),
        cmocka_unit_test(test_rng),
        cmocka_unit_test(test_hostlist),
        cmocka_unit_test(test_mapping_files),
        cmocka_unit_test(test_restrict),
        cmocka_unit_test(test_devices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
