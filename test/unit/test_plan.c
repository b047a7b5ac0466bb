/* test_plan.c -- cm_plan() (src/core/plan.c): auto is never worse than
 * block, determinism, degenerate inputs, heterogeneous nodes, weight modes. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testdata.h"
#include "testutil.h"

static int plan(const cm_matrix_t *m, const cm_tree_t *t, const char *algo,
                int *map, cm_plan_report_t *rep, cm_error_t *err)
{
    cm_plan_options_t o;
    cm_plan_options_init(&o);
    o.algorithm = algo;
    o.time_budget = 0.2;
    return cm_plan(m, t, &o, map, rep, err);
}

static void test_defaults(void **state)
{
    (void)state;
    cm_plan_options_t o;
    cm_plan_options_init(&o);
    assert_string_equal(o.algorithm, "auto");
    assert_true(o.time_budget == 1.0);
    assert_true(o.seed == 1);
    assert_int_equal(o.weight, CM_WEIGHT_MIXED);
    assert_null(o.initial);
    cm_weight_t w;
    assert_int_equal(cm_weight_parse("bytes", &w), 0);
    assert_int_equal(w, CM_WEIGHT_BYTES);
    assert_int_equal(cm_weight_parse("msgs", &w), 0);
    assert_int_equal(w, CM_WEIGHT_MSGS);
    assert_int_equal(cm_weight_parse("latency", &w), -1);
}

/* Every real matrix, both machines' distance sets. */
static void test_auto_never_worse_than_block(void **state)
{
    (void)state;
    const char *dir = cm_test_data_path("matrices");
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int count = 0;
    static const char *dists[] = { "1:2:10:20", "1:10:100:1000" };
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".mtx") != 0)
            continue;
        char rel[512];
        cm_error_t err = { "" };
        snprintf(rel, sizeof rel, "matrices/%s", e->d_name);
        cm_matrix_t *m = cm_matrix_read(cm_test_data_path(rel), CM_FORMAT_AUTO, &err);
        if (!m)
            fail_msg("%s: %s", e->d_name, err.msg);
        int n = cm_matrix_n(m);
        for (int k = 0; k < 2; k++) {
            cm_tree_t *t = cm_test_hier(n <= 64 ? "4:2:4:2" : "4:2:8:2", dists[k]);
            int *map = malloc(sizeof(int) * (size_t)n);
            int *blk = malloc(sizeof(int) * (size_t)n);
            cm_plan_report_t rep;
            assert_int_equal(plan(m, t, "auto", map, &rep, &err), 0);
            assert_int_equal(cm_mapping_check(t, map, n, &err), 0);
            assert_int_equal(cm_map_block(t, n, blk, &err), 0);
            double J = cm_cost(m, t, map), Jb = cm_cost(m, t, blk);
            if (!(J <= Jb))
                fail_msg("%s %s: auto %g > block %g", e->d_name, dists[k], J, Jb);
            assert_true(fabs(rep.J - J) <= 1e-9 * (J > 1 ? J : 1));
            assert_string_equal(rep.candidates[0].name, "block");
            assert_true(rep.candidates[0].ok);
            assert_true(rep.candidates[0].J == Jb);
            free(map);
            free(blk);
            cm_tree_free(t);
        }
        cm_matrix_free(m);
        count++;
    }
    closedir(d);
    assert_true(count >= 20);
}

static void test_determinism(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_hier("4:2:8:2", "1:2:10:20");
    cm_matrix_t *m = cm_matrix_read(cm_test_data_path("matrices/mg.S.128.mtx"),
                                    CM_FORMAT_AUTO, &err);
    assert_non_null(m);
    static const char *algos[] = { "auto", "scotch-ms", "scotch", "random" };
    for (size_t k = 0; k < 4; k++) {
        int a[128], b[128];
        assert_int_equal(plan(m, t, algos[k], a, NULL, &err), 0);
        assert_int_equal(plan(m, t, algos[k], b, NULL, &err), 0);
        assert_memory_equal(a, b, sizeof a);
    }
    cm_matrix_free(m);
    cm_tree_free(t);
}

static cm_matrix_t *build(int n, const int (*e)[2], int ne, double w)
{
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(n, &err);
    for (int k = 0; k < ne; k++) {
        cm_builder_add(b, e[k][0], e[k][1], w, 1, &err);
        cm_builder_add(b, e[k][1], e[k][0], w, 1, &err);
    }
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    assert_non_null(m);
    return m;
}

static void test_degenerate(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_hier("4:2:2", "1:2:10");
    static const char *algos[] = { "auto", "scotch-ms", "block", "scotch" };
    /* One rank. */
    cm_matrix_t *m = build(1, NULL, 0, 1);
    for (size_t k = 0; k < 4; k++) {
        int map[1] = { -1 };
        assert_int_equal(plan(m, t, algos[k], map, NULL, &err), 0);
        assert_int_equal(cm_mapping_check(t, map, 1, &err), 0);
    }
    cm_matrix_free(m);
    /* No communication. */
    m = build(16, NULL, 0, 1);
    for (size_t k = 0; k < 4; k++) {
        int map[16];
        cm_plan_report_t rep;
        assert_int_equal(plan(m, t, algos[k], map, &rep, &err), 0);
        assert_int_equal(cm_mapping_check(t, map, 16, &err), 0);
        assert_true(rep.J == 0);
    }
    cm_matrix_free(m);
    /* Disconnected: two 4-cliques, each must land on one socket. */
    int e[12][2], ne = 0;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 4; i++)
            for (int j = i + 1; j < 4; j++) {
                e[ne][0] = c * 4 + i;
                e[ne][1] = c * 4 + j;
                ne++;
            }
    static const int scramble[8] = { 0, 4, 1, 5, 2, 6, 3, 7 };
    for (int k = 0; k < ne; k++) {
        e[k][0] = scramble[e[k][0]];
        e[k][1] = scramble[e[k][1]];
    }
    m = build(8, (const int (*)[2])e, ne, 1);
    int map[8];
    assert_int_equal(plan(m, t, "auto", map, NULL, &err), 0);
    assert_true(cm_cost(m, t, map) == 24);   /* 12 pairs x 2 directions x 1 */
    cm_matrix_free(m);
    /* More ranks than slots: a clear error. */
    m = build(17, NULL, 0, 1);
    int big[17];
    assert_int_equal(plan(m, t, "auto", big, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "17 ranks do not fit on the 16 slots"));
    cm_matrix_free(m);
    /* Unknown algorithm, bad initial mapping. */
    m = build(4, NULL, 0, 1);
    assert_int_equal(plan(m, t, "magic", big, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "unknown algorithm \"magic\""));
    cm_plan_options_t o;
    cm_plan_options_init(&o);
    int bad[4] = { 0, 0, 1, 2 };
    o.initial = bad;
    assert_int_equal(cm_plan(m, t, &o, big, NULL, &err), -1);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* Nodes of 4, 8 and 2 cores: no node ever gets more ranks than slots, and
 * an incoming mapping that is already optimal is kept. */
static void test_heterogeneous(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_new();
    static const int cores[3] = { 4, 8, 2 };
    assert_true(cm_tree_add_level(t, "switch", 10, 0, &err) >= 0);
    assert_true(cm_tree_add_level(t, "node", 2, 0, &err) >= 0);
    assert_true(cm_tree_add_level(t, "core", 0, 0, &err) >= 0);
    int root = cm_tree_add_vertex(t, -1, 0, "s1", &err);
    for (int k = 0; k < 3; k++) {
        int nd = cm_tree_add_vertex(t, root, 1, NULL, &err);
        for (int c = 0; c < cores[k]; c++)
            assert_true(cm_tree_add_vertex(t, nd, 2, NULL, &err) >= 0);
    }
    assert_int_equal(cm_tree_finalize(t, &err), 0);
    /* A ring of 12. */
    int e[12][2];
    for (int i = 0; i < 12; i++) {
        e[i][0] = i;
        e[i][1] = (i + 5) % 12;
    }
    cm_matrix_t *m = build(12, (const int (*)[2])e, 12, 3);
    static const char *algos[] = { "auto", "scotch-ms", "scotch" };
    for (size_t k = 0; k < 3; k++) {
        int map[12], cnt[3] = { 0, 0, 0 };
        assert_int_equal(plan(m, t, algos[k], map, NULL, &err), 0);
        assert_int_equal(cm_mapping_check(t, map, 12, &err), 0);
        for (int i = 0; i < 12; i++)
            cnt[cm_tree_slot_node(t, map[i])]++;
        for (int j = 0; j < 3; j++)
            assert_true(cnt[j] <= cores[j]);
    }
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* Ranks 0-1 and 2-3 exchange many bytes in one message; 0-2 and 1-3 few
 * bytes in many messages.  Two nodes of two cores, crossing nodes costs 1
 * per byte and 100 per message: bytes pairs 0-1, msgs and mixed pair 0-2. */
static void test_weights(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_new();
    assert_true(cm_tree_add_level(t, "switch", 1, 100, &err) >= 0);
    assert_true(cm_tree_add_level(t, "node", 0, 0, &err) >= 0);
    assert_true(cm_tree_add_level(t, "core", 0, 0, &err) >= 0);
    int root = cm_tree_add_vertex(t, -1, 0, NULL, &err);
    for (int k = 0; k < 2; k++) {
        int nd = cm_tree_add_vertex(t, root, 1, NULL, &err);
        for (int c = 0; c < 2; c++)
            assert_true(cm_tree_add_vertex(t, nd, 2, NULL, &err) >= 0);
    }
    assert_int_equal(cm_tree_finalize(t, &err), 0);
    cm_builder_t *b = cm_builder_new(4, &err);
    static const struct { int i, j; double bytes, msgs; } e[] = {
        { 0, 1, 1000, 1 }, { 2, 3, 1000, 1 }, { 0, 2, 1, 100 }, { 1, 3, 1, 100 },
    };
    for (int k = 0; k < 4; k++) {
        cm_builder_add(b, e[k].i, e[k].j, e[k].bytes, e[k].msgs, &err);
        cm_builder_add(b, e[k].j, e[k].i, e[k].bytes, e[k].msgs, &err);
    }
    cm_builder_set_has_msgs(b, 1);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    static const struct { cm_weight_t w; int partner; } cases[] = {
        { CM_WEIGHT_BYTES, 1 }, { CM_WEIGHT_MSGS, 2 }, { CM_WEIGHT_MIXED, 2 },
    };
    for (int k = 0; k < 3; k++) {
        cm_plan_options_t o;
        cm_plan_options_init(&o);
        o.weight = cases[k].w;
        int map[4];
        cm_plan_report_t rep;
        assert_int_equal(cm_plan(m, t, &o, map, &rep, &err), 0);
        assert_int_equal(cm_tree_slot_node(t, map[0]),
                         cm_tree_slot_node(t, map[cases[k].partner]));
        /* The report's J is the objective of the weight. */
        cm_tree_t *tw = cm_tree_new();
        assert_true(cm_tree_add_level(tw, "switch", 1, 100, &err) >= 0);
        assert_true(cm_tree_add_level(tw, "node", 0, 0, &err) >= 0);
        assert_true(cm_tree_add_level(tw, "core", 0, 0, &err) >= 0);
        int r = cm_tree_add_vertex(tw, -1, 0, NULL, &err);
        for (int nd = 0; nd < 2; nd++) {
            int v = cm_tree_add_vertex(tw, r, 1, NULL, &err);
            cm_tree_add_vertex(tw, v, 2, NULL, &err);
            cm_tree_add_vertex(tw, v, 2, NULL, &err);
        }
        assert_int_equal(cm_tree_finalize(tw, &err), 0);
        assert_int_equal(cm_tree_apply_weight(tw, m, cases[k].w, &err), 0);
        assert_true(rep.J == cm_cost(m, tw, map));
        cm_tree_free(tw);    }
    /* eval --weight's helper: bytes-only J of the bytes-optimal mapping. */
    int map[4] = { 0, 1, 2, 3 };   /* 0-1 and 2-3 together */
    assert_true(cm_cost(m, t, map) == 2 * (2 * 1 + 2 * 100 * 100));
    assert_int_equal(cm_tree_apply_weight(t, m, CM_WEIGHT_BYTES, &err), 0);
    assert_true(cm_cost(m, t, map) == 4);
    cm_matrix_free(m);
    cm_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_auto_never_worse_than_block),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_heterogeneous),
        cmocka_unit_test(test_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
