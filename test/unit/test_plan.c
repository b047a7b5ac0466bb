/* test_plan.c -- cm_plan() (src/core/plan.c): auto is never worse than
 * block and keeps it when it gains too little, determinism, degenerate
 * inputs, heterogeneous nodes, weight modes;
 * bounded planning: the part of a machine a step can use
 * (cm_tree_restrict and kin), time budgets and the deadline. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* An all-to-all with one pair between nodes sending a little more: moving
 * that pair onto one node lowers J by a fraction of a per cent, which the
 * summed profile cannot tell from noise: auto keeps block and says why
 * (the candidate "min-gain"); with that pair heavy enough, it moves. */
static void test_min_gain(void **state)
{
    (void)state;
    static const double extra[] = { 200, 400000 };
    for (int k = 0; k < 2; k++) {
        cm_error_t err = { "" };
        int n = 16, map[16], blk[16];
        cm_builder_t *b = cm_builder_new(n, &err);
        assert_non_null(b);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j)
                    assert_int_equal(cm_builder_add(b, i, j, 1000, 1, &err), 0);
        assert_int_equal(cm_builder_add(b, 0, 15, extra[k], 1, &err), 0);
        assert_int_equal(cm_builder_add(b, 15, 0, extra[k], 1, &err), 0);
        cm_matrix_t *m = cm_builder_finish(b, &err);
        cm_builder_free(b);
        assert_non_null(m);
        cm_tree_t *t = cm_test_hier("4:4", "1:10");
        cm_plan_report_t rep;
        assert_int_equal(plan(m, t, "auto", map, &rep, &err), 0);
        assert_int_equal(cm_map_block(t, n, blk, &err), 0);
        double J = cm_cost(m, t, map), Jb = cm_cost(m, t, blk);
        int kept = -1;
        for (int c = 0; c < rep.ncandidates; c++)
            if (!strcmp(rep.candidates[c].name, "min-gain"))
                kept = c;
        if (k == 0) {
            assert_string_equal(rep.winner, "block");
            assert_memory_equal(map, blk, sizeof map);
            assert_true(kept >= 0);
            assert_false(rep.candidates[kept].ok);
            if (!strstr(rep.candidates[kept].why, "kept block: ") ||
                !strstr(rep.candidates[kept].why, "% of J, under 1 %"))
                fail_msg("min-gain: %s", rep.candidates[kept].why);
        } else {
            assert_true(J < 0.99 * Jb);
            assert_int_equal(kept, -1);
        }
        cm_tree_free(t);
        cm_matrix_free(m);
    }
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

/* ---- bounded planning: a small step in a large machine (issue 9) ---- */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sanitizers slow the engine several times; its cost model does not know. */
#if defined(__SANITIZE_ADDRESS__)
#define SLOWDOWN 6.0
#else
#define SLOWDOWN 1.0
#endif

static const char *const all_algos[] = {
    "auto", "scotch", "scotch-ms", "cluster", "treecut", "block", "cyclic", "random",
};
#define NALGOS ((int)(sizeof all_algos / sizeof all_algos[0]))

/* A ring of @p n ranks, rank i sending i + 1 bytes to its successor and a
 * little to the rank n / 2 further. */
static cm_matrix_t *ring(int n)
{
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(n, &err);
    for (int i = 0; i < n && n > 1; i++) {
        cm_builder_add(b, i, (i + 1) % n, i + 1, 1, &err);
        cm_builder_add(b, i, (i + n / 2) % n, 0.5, 1, &err);
    }
    return cm_test_finish(b);
}

/* A w x h 5-point stencil, ranks scrambled by a stride coprime with w h. */
static cm_matrix_t *stencil(int w, int h)
{
    cm_error_t err = { "" };
    int n = w * h;
    cm_builder_t *b = cm_builder_new(n, &err);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int r = (int)((long)(y * w + x) * 97 % n);
            if (x + 1 < w)
                cm_builder_add(b, r, (int)((long)(y * w + x + 1) * 97 % n), 100, 1, &err);
            if (y + 1 < h)
                cm_builder_add(b, r, (int)((long)((y + 1) * w + x) * 97 % n), 100, 1, &err);
        }
    return cm_test_finish(b);
}

/* @p map (slots of @p r) as slots of the tree r was cut from: distinct and
 * within its @p nslots. */
static void check_origin_map(const cm_tree_t *r, const int *map, int n, int nslots)
{
    cm_error_t err = { "" };
    int *orig = malloc(sizeof(int) * (size_t)n);
    assert_int_equal(cm_tree_map_to_origin(r, map, n, orig, &err), 0);
    for (int i = 0; i < n; i++) {
        assert_true(orig[i] >= 0 && orig[i] < nslots);
        for (int j = 0; j < i; j++)
            assert_int_not_equal(orig[i], orig[j]);
    }
    free(orig);
}

/* 3 ranks on 4096 x 4096 slots and its kin: the machine is built only as
 * far as the ranks need, and every algorithm plans in well under a second
 * with a valid mapping of the whole machine's slots. */
static void test_small_step_huge_machine(void **state)
{
    (void)state;
    static const struct {
        const char *hier, *dist;
        int n, nslots;
    } cases[] = {
        { "4096:4096", "1:10", 3, 4096 * 4096 },
        { "1024:1024", "1:10", 64, 1024 * 1024 },
        { "16:256:4096", "1:10:100", 5, 16 * 256 * 4096 },
        { "4:2:256:8192", "1:2:10:20", 7, 4 * 2 * 256 * 8192 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cm_error_t err = { "" };
        int n = cases[k].n;
        cm_matrix_t *m = ring(n);
        double t0 = wall_now();
        cm_tree_t *r = cm_tree_from_hierarchy_restricted(cases[k].hier, cases[k].dist,
                                                         n, NULL, 0, &err);
        if (!r)
            fail_msg("%s: %s", cases[k].hier, err.msg);
        assert_int_equal(cm_tree_origin_nslots(r), cases[k].nslots);
        /* The rule keeps at most 2n slots per level that splits, the
         * baselines n per node: a few times n, not the machine. */
        assert_true(cm_tree_nslots(r) <= 16 * n);
        for (int a = 0; a < NALGOS; a++) {
            int *map = malloc(sizeof(int) * (size_t)n);
            if (plan(m, r, all_algos[a], map, NULL, &err) != 0)
                fail_msg("%s on %s: %s", all_algos[a], cases[k].hier, err.msg);
            assert_int_equal(cm_mapping_check(r, map, n, &err), 0);
            check_origin_map(r, map, n, cases[k].nslots);
            free(map);
        }
        double dt = wall_now() - t0;
        if (dt > 1.0 * SLOWDOWN)
            fail_msg("%s, %d ranks: %.3f s", cases[k].hier, n, dt);
        cm_tree_free(r);
        cm_matrix_free(m);
    }
}

/* cm_plan() cuts a large tree itself: 3 ranks on a tree of a million
 * slots plan fast, as they do on the part cut beforehand. */
static void test_plan_cuts_the_machine(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_hier("256:4096", "1:10");
    cm_matrix_t *m = ring(3);
    for (int a = 0; a < NALGOS; a++) {
        int whole[3], part[3];
        double t0 = wall_now();
        assert_int_equal(plan(m, t, all_algos[a], whole, NULL, &err), 0);
        double dt = wall_now() - t0;
        if (dt > 1.0 * SLOWDOWN)
            fail_msg("%s: %.3f s on %d slots", all_algos[a], dt, cm_tree_nslots(t));
        assert_int_equal(cm_mapping_check(t, whole, 3, &err), 0);
        /* Random is drawn over the whole tree, which the part cannot do. */
        if (strcmp(all_algos[a], "random") == 0)
            continue;
        cm_tree_t *r = cm_tree_restrict(t, 3, NULL, 0, &err);
        assert_non_null(r);
        assert_int_equal(plan(m, r, all_algos[a], part, NULL, &err), 0);
        assert_int_equal(cm_tree_map_to_origin(r, part, 3, part, &err), 0);
        assert_memory_equal(whole, part, sizeof whole);
        assert_true(cm_cost(m, t, whole) == cm_cost(m, r, (int[3]){
            cm_tree_slot_from_origin(r, whole[0]), cm_tree_slot_from_origin(r, whole[1]),
            cm_tree_slot_from_origin(r, whole[2]) }));
        cm_tree_free(r);
    }
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* Everything a restricted tree promises, against the whole tree: slots and
 * nodes map back in order, levels and lowest common ancestors are those of
 * the whole tree, block and cyclic give the same slots, kept slots are
 * there, and cutting without building gives the same part. */
static void check_restriction(const cm_tree_t *t, const cm_tree_t *r, int n,
                              const int *keep, int nkeep)
{
    cm_error_t err = { "" };
    int ns = cm_tree_nslots(r);
    assert_int_equal(cm_tree_origin_nslots(r), cm_tree_nslots(t));
    assert_int_equal(cm_tree_origin_nnodes(r), cm_tree_nnodes(t));
    assert_int_equal(cm_tree_nlevels(r), cm_tree_nlevels(t));
    for (int l = 0; l < cm_tree_nlevels(t); l++) {
        assert_string_equal(cm_tree_level_name(r, l), cm_tree_level_name(t, l));
        assert_true(cm_tree_level_byte_cost(r, l) == cm_tree_level_byte_cost(t, l));
    }
    for (int s = 0; s < ns; s++) {
        int o = cm_tree_slot_origin(r, s);
        assert_true(o >= 0 && o < cm_tree_nslots(t));
        assert_true(s == 0 || o > cm_tree_slot_origin(r, s - 1));
        assert_int_equal(cm_tree_slot_from_origin(r, o), s);
        int node = cm_tree_slot_node(r, s);
        assert_int_equal(cm_tree_node_origin(r, node), cm_tree_slot_node(t, o));
        for (int q = 0; q < ns; q += 1 + ns / 64)
            assert_int_equal(cm_tree_lca_level(r, s, q),
                             cm_tree_lca_level(t, o, cm_tree_slot_origin(r, q)));
    }
    for (int i = 0; i < nkeep; i++)
        assert_true(cm_tree_slot_from_origin(r, keep[i]) >= 0);
    int nn = n < cm_tree_nslots(t) ? n : cm_tree_nslots(t);
    int *a = malloc(sizeof(int) * (size_t)nn), *b = malloc(sizeof(int) * (size_t)nn);
    assert_int_equal(cm_map_block(t, nn, a, &err), 0);
    assert_int_equal(cm_map_block(r, nn, b, &err), 0);
    assert_int_equal(cm_tree_map_to_origin(r, b, nn, b, &err), 0);
    assert_memory_equal(a, b, sizeof(int) * (size_t)nn);
    assert_int_equal(cm_map_cyclic(t, nn, a, &err), 0);
    assert_int_equal(cm_map_cyclic(r, nn, b, &err), 0);
    assert_int_equal(cm_tree_map_to_origin(r, b, nn, b, &err), 0);
    assert_memory_equal(a, b, sizeof(int) * (size_t)nn);
    free(a);
    free(b);
}

/* The same part, slot for slot and node for node. */
static void check_same_part(const cm_tree_t *a, const cm_tree_t *b)
{
    assert_int_equal(cm_tree_nslots(a), cm_tree_nslots(b));
    assert_int_equal(cm_tree_nvertices(a), cm_tree_nvertices(b));
    assert_int_equal(cm_tree_nnodes(a), cm_tree_nnodes(b));
    for (int s = 0; s < cm_tree_nslots(a); s++)
        assert_int_equal(cm_tree_slot_origin(a, s), cm_tree_slot_origin(b, s));
    for (int k = 0; k < cm_tree_nnodes(a); k++)
        assert_int_equal(cm_tree_node_origin(a, k), cm_tree_node_origin(b, k));
}

static void test_restriction_maps_back(void **state)
{
    (void)state;
    static const struct {
        const char *hier, *dist;
        int n;
        int keep[3];    /* -1: none */
    } cases[] = {
        { "4:2:4:2", "1:2:10:20", 3, { -1, -1, -1 } },
        { "4:2:4:2", "1:2:10:20", 9, { 63, 17, -1 } },
        { "4:2:4:2", "1:2:10:20", 64, { -1, -1, -1 } },
        { "8:4:16", "1:10:100", 5, { 511, 0, 300 } },
        { "8:4:16", "1:10:100", 100, { -1, -1, -1 } },
        { "3:5:7", "1:2:3", 11, { 104, -1, -1 } },
        { "64", "1", 6, { 60, -1, -1 } },
        { "2:2:2:2:2:2", "1:2:3:4:5:6", 13, { -1, -1, -1 } },
        { "5:1:9", "1:2:3", 17, { 44, -1, -1 } },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cm_error_t err = { "" };
        int nkeep = 0;
        while (nkeep < 3 && cases[k].keep[nkeep] >= 0)
            nkeep++;
        cm_tree_t *t = cm_test_hier(cases[k].hier, cases[k].dist);
        cm_tree_t *r = cm_tree_restrict(t, cases[k].n, cases[k].keep, nkeep, &err);
        cm_tree_t *h = cm_tree_from_hierarchy_restricted(cases[k].hier, cases[k].dist,
                                                         cases[k].n, cases[k].keep,
                                                         nkeep, &err);
        if (!r || !h)
            fail_msg("%s, %d ranks: %s", cases[k].hier, cases[k].n, err.msg);
        check_restriction(t, r, cases[k].n, cases[k].keep, nkeep);
        check_same_part(r, h);
        /* Cutting the part again keeps it. */
        int rkeep[3];
        if (nkeep)
            assert_int_equal(cm_tree_map_from_origin(r, cases[k].keep, nkeep, rkeep,
                                                     &err), 0);
        cm_tree_t *rr = cm_tree_restrict(r, cases[k].n, rkeep, nkeep, &err);
        assert_non_null(rr);
        assert_int_equal(cm_tree_nslots(rr), cm_tree_nslots(r));
        cm_tree_free(rr);
        cm_tree_free(h);
        cm_tree_free(r);
        cm_tree_free(t);
    }
}

/* Nodes of 4, 8 and 2 cores, then 16 nodes of 1: the bigger nodes are
 * kept first; nodes interleaved over two switches (allocation order is
 * not tree order) keep block and cyclic; identical hwloc nodes are cut
 * without being built. */
static void test_restriction_irregular(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    int cores[19] = { 4, 8, 2 };
    for (int i = 3; i < 19; i++)
        cores[i] = 1;
    cm_tree_t *t = cm_test_nodes(19, cores, NULL);
    cm_tree_t *r = cm_tree_restrict(t, 6, NULL, 0, &err);
    assert_non_null(r);
    check_restriction(t, r, 6, NULL, 0);
    int first, count;   /* the 8-core node, capped at 6 slots, kept */
    cm_tree_vertex_slots(t, cm_tree_node_vertex(t, 1), &first, &count);
    assert_true(cm_tree_slot_from_origin(r, first + 5) >= 0);
    cm_tree_free(r);
    cm_tree_free(t);

    cm_switch_desc_t sw[3] = { { "top", 1, -1 }, { "s0", 0, 0 }, { "s1", 0, 0 } };
    cm_node_desc_t nd[8];
    char names[8][8];
    for (int i = 0; i < 8; i++) {
        snprintf(names[i], sizeof names[i], "n%d", i);
        nd[i] = (cm_node_desc_t){ names[i], 1 + i % 2, 4, 4 + 4 * (i % 3) };
    }
    t = cm_tree_from_switches(sw, 3, nd, 8, &err);
    assert_non_null(t);
    for (int n = 1; n <= cm_tree_nslots(t); n += 3) {
        r = cm_tree_restrict(t, n, NULL, 0, &err);
        assert_non_null(r);
        check_restriction(t, r, n, NULL, 0);
        cm_tree_free(r);
    }
    cm_tree_free(t);

    const char *xml = cm_test_data_path("hwloc/2s-2numa-6c.xml");
    t = cm_tree_from_hwloc(xml, 40, &err);
    assert_non_null(t);
    static const int keep[2] = { 239, 100 };
    for (int n = 1; n <= 50; n += 7) {
        r = cm_tree_restrict(t, n, keep, 2, &err);
        cm_tree_t *h = cm_tree_from_hwloc_restricted(xml, 40, n, keep, 2, &err);
        if (!r || !h)
            fail_msg("hwloc, %d ranks: %s", n, err.msg);
        check_restriction(t, r, n, keep, 2);
        check_same_part(r, h);
        for (int v = 0; v < cm_tree_nvertices(h); v++) {
            const char *a = cm_tree_vertex_label(r, v), *b = cm_tree_vertex_label(h, v);
            assert_true((!a && !b) || (a && b && strcmp(a, b) == 0));
        }
        cm_tree_free(h);
        cm_tree_free(r);
    }
    cm_tree_free(t);
}

/* Mappings in and out of a part: checked like cm_mapping_check() on the
 * whole tree, naming its slots. */
static void test_restriction_mappings(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_hier("8:4:16", "1:10:100");
    static const int keep[3] = { 511, 0, 300 };
    cm_tree_t *r = cm_tree_restrict(t, 3, keep, 3, &err);
    assert_non_null(r);
    int map[3];
    assert_int_equal(cm_tree_map_from_origin(r, keep, 3, map, &err), 0);
    assert_int_equal(cm_mapping_check(r, map, 3, &err), 0);
    assert_int_equal(cm_tree_map_to_origin(r, map, 3, map, &err), 0);
    assert_memory_equal(map, keep, sizeof map);
    static const struct { int orig[3]; const char *msg; } bad[] = {
        { { 511, 0, 512 }, "rank 2 is on slot 512, expected a slot in 0..511" },
        { { 511, 0, 511 }, "rank 2 is on slot 511, which rank 0 already holds" },
        { { 511, 0, 299 }, "rank 2 is on slot 299, which the restricted machine" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        assert_int_equal(cm_tree_map_from_origin(r, bad[k].orig, 3, map, &err), -1);
        if (!strstr(err.msg, bad[k].msg))
            fail_msg("expected '%s', got '%s'", bad[k].msg, err.msg);
    }
    /* An incoming mapping anywhere in the machine is kept by cm_plan. */
    cm_matrix_t *m = ring(3);
    cm_plan_options_t o;
    cm_plan_options_init(&o);
    o.initial = keep;
    assert_int_equal(cm_plan(m, t, &o, map, NULL, &err), 0);
    assert_int_equal(cm_mapping_check(t, map, 3, &err), 0);
    assert_true(cm_cost(m, t, map) <= cm_cost(m, t, keep));
    cm_matrix_free(m);
    cm_tree_free(r);
    cm_tree_free(t);
}

/* Every algorithm, Scotch included, ends within its time budget (CPU
 * seconds, with slack for a loaded machine), or is not started when its
 * predicted cost does not fit, and says so. */
static void test_budget_honoured(void **state)
{
    (void)state;
    static const double budgets[] = { 0.05, 0.25 };
    cm_tree_t *t = cm_test_hier("4:8:32", "1:10:100");
    cm_matrix_t *m = stencil(32, 32);
    int n = cm_matrix_n(m);
    int *map = malloc(sizeof(int) * (size_t)n);
    int started = 0, refused = 0;
    for (int a = 0; a < NALGOS; a++)
        for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
            cm_error_t err = { "" };
            cm_plan_options_t o;
            cm_plan_report_t rep;
            cm_plan_options_init(&o);
            o.algorithm = all_algos[a];
            o.time_budget = budgets[b];
            double c0 = cpu_now();
            int rc = cm_plan(m, t, &o, map, &rep, &err);
            double dt = cpu_now() - c0;
            if (dt > (2.0 * budgets[b] + 0.1) * SLOWDOWN)
                fail_msg("%s: %.3f s for a budget of %g s", all_algos[a], dt, budgets[b]);
            if (rc == 0) {
                assert_int_equal(cm_mapping_check(t, map, n, &err), 0);
                started++;
            } else {
                if (!strstr(err.msg, "skipped: predicted"))
                    fail_msg("%s: %s", all_algos[a], err.msg);
                refused++;
            }
            for (int k = 0; k < rep.ncandidates && rc == 0; k++) {
                const cm_plan_candidate_t *c = &rep.candidates[k];
                assert_true(c->ok || c->why[0]);
                if (c->ok && c->predicted > 0)
                    assert_true(c->predicted <= budgets[b]);
            }
        }
    /* Both happen on this input: the budgets are not trivial. */
    assert_true(started > 0 && refused > 0);
    free(map);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* A wall-clock deadline: auto returns the best complete mapping by then,
 * a single algorithm that cannot finish by then is not started, and the
 * option is checked. */
static void test_deadline(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("4:8:128", "1:10:100");
    cm_matrix_t *m = stencil(64, 64);
    int n = cm_matrix_n(m);
    int *map = malloc(sizeof(int) * (size_t)n);
    static const struct {
        const char *algo;
        double deadline;
        int ok;
        const char *why;    /* in the error, or in some candidate */
    } cases[] = {
        { "auto", 0.15, 1, "deadline" },
        { "auto", 1e-6, 1, "deadline" },
        { "scotch", 0.01, 0, "deadline" },
        { "scotch-ms", 0.01, 0, "deadline" },
        { "block", 1e-6, 1, NULL },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cm_error_t err = { "" };
        cm_plan_options_t o;
        cm_plan_report_t rep;
        cm_plan_options_init(&o);
        o.algorithm = cases[k].algo;
        o.time_budget = 30;
        o.deadline = cases[k].deadline;
        double t0 = wall_now();
        int rc = cm_plan(m, t, &o, map, &rep, &err);
        double dt = wall_now() - t0;
        if (dt > (1.5 * cases[k].deadline + 0.1) * SLOWDOWN)
            fail_msg("%s: %.3f s for a deadline of %g s", cases[k].algo, dt,
                     cases[k].deadline);
        assert_int_equal(rc == 0, cases[k].ok);
        int said = !cases[k].why || (rc < 0 && strstr(err.msg, cases[k].why));
        if (rc == 0) {
            assert_int_equal(cm_mapping_check(t, map, n, &err), 0);
            for (int c = 0; c < rep.ncandidates; c++)
                said |= cases[k].why && strstr(rep.candidates[c].why, cases[k].why);
        }
        if (!said)
            fail_msg("%s: nothing says why it stopped (%s)", cases[k].algo, err.msg);
    }
    static const double bad[] = { -1, NAN, INFINITY };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        cm_error_t err = { "" };
        cm_plan_options_t o;
        cm_plan_options_init(&o);
        o.deadline = bad[k];
        assert_int_equal(cm_plan(m, t, &o, map, NULL, &err), -1);
        assert_non_null(strstr(err.msg, "deadline"));
    }
    free(map);
    cm_matrix_free(m);
    cm_tree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_auto_never_worse_than_block),
        cmocka_unit_test(test_min_gain),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_heterogeneous),
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_small_step_huge_machine),
        cmocka_unit_test(test_plan_cuts_the_machine),
        cmocka_unit_test(test_restriction_maps_back),
        cmocka_unit_test(test_restriction_irregular),
        cmocka_unit_test(test_restriction_mappings),
        cmocka_unit_test(test_budget_honoured),
        cmocka_unit_test(test_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
