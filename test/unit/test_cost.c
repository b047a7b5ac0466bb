/* test_cost.c -- J(pi) and the cost report (src/core/cost.c).
 *
 * Hand-computed cases, then an independent check: the test parses METIS and
 * Matrix Market files itself into a dense matrix and computes J with the
 * VieM/KaHIP arithmetic (slots p and q share their level-i group when
 * p / (a1*...*ai) == q / (a1*...*ai)), which must equal cm_cost() exactly
 * for block, cyclic and random mappings. */
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

/* ---- hand-checked cases ----------------------------------------------- */

/* 8 ranks on "2:2:2" with distances "1:10:100".  Levels root down:
 * switch (0, cost 100), node (1, 10), socket (2, 1), core (3, 0).  Slots
 * 0-1 | 2-3 are the sockets of node 0, 4-5 | 6-7 those of node 1. */
static const cm_test_entry_t hand[] = {
    { 0, 1, 5, 0 },    /* identity: same socket      1 *  5 =    5 */
    { 0, 2, 7, 0 },    /*           same node       10 *  7 =   70 */
    { 0, 4, 11, 0 },   /*           across nodes   100 * 11 = 1100 */
    { 3, 3, 13, 0 },   /*           diagonal         0 * 13 =    0 */
    { 6, 7, 2, 0 },    /*           same socket      1 *  2 =    2 */
    { 7, 0, 3, 0 },    /*           across nodes   100 *  3 =  300 */
};                     /*                               J = 1477 */

static void test_hand_identity(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    assert_int_equal(cm_tree_nlevels(t), 4);
    cm_matrix_t *m = cm_test_matrix_of(8, hand, 6, 0);
    int map[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    assert_true(cm_cost(m, t, map) == 1477.0);

    double lb[4], lm[4];
    cm_cost_report_t r = { .level_bytes = lb, .level_msgs = lm };
    cm_error_t err = { "" };
    assert_int_equal(cm_cost_report(m, t, map, &r, &err), 0);
    assert_true(r.J == 1477.0);
    assert_int_equal(r.nlevels, 4);
    assert_true(lb[0] == 14);   /* 11 + 3 */
    assert_true(lb[1] == 7);
    assert_true(lb[2] == 7);    /* 5 + 2 */
    assert_true(lb[3] == 13);   /* the diagonal sits at the leaf level */
    for (int l = 0; l < 4; l++)
        assert_true(lm[l] == 0);
    /* Node 0 sends 11 off node (0 -> 4), node 1 sends 3 (7 -> 0). */
    assert_int_equal(r.max_node, 0);
    assert_true(r.max_node_out == 11);
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_hand_permuted(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    cm_matrix_t *m = cm_test_matrix_of(8, hand, 6, 0);
    /* rank:          0  1  2  3  4  5  6  7 */
    int map[8] = { 0, 4, 1, 5, 2, 6, 3, 7 };
    /* (0,1) slots 0,4 root 100*5 = 500;  (0,2) slots 0,1 socket 1*7 = 7;
     * (0,4) slots 0,2 node 10*11 = 110;  (3,3) diagonal 0;
     * (6,7) slots 3,7 root 100*2 = 200;  (7,0) slots 7,0 root 100*3 = 300.
     * J = 1117. */
    assert_true(cm_cost(m, t, map) == 1117.0);
    double lb[4];
    cm_cost_report_t r = { .level_bytes = lb, .level_msgs = NULL };
    cm_error_t err = { "" };
    assert_int_equal(cm_cost_report(m, t, map, &r, &err), 0);
    assert_true(r.J == 1117.0);
    assert_true(lb[0] == 10 && lb[1] == 11 && lb[2] == 7 && lb[3] == 13);
    /* Node 0 (slots 0-3) holds ranks 0,2,4,6: 0->1 (5) and 6->7 (2) leave it.
     * Node 1 holds 1,3,5,7: 7->0 (3) leaves it. */
    assert_int_equal(r.max_node, 0);
    assert_true(r.max_node_out == 7);
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_max_node_tie(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    const cm_test_entry_t e[] = { { 5, 1, 4, 0 }, { 1, 5, 4, 0 }, { 1, 2, 100, 0 } };
    cm_matrix_t *m = cm_test_matrix_of(8, e, 3, 0);
    int map[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    double lb[4];
    cm_cost_report_t r = { .level_bytes = lb };
    assert_int_equal(cm_cost_report(m, t, map, &r, NULL), 0);
    assert_int_equal(r.max_node, 0);   /* 4 each way: the lower node wins */
    assert_true(r.max_node_out == 4);
    /* Swap the nodes: still a tie, still node 0. */
    int swapped[8] = { 4, 5, 6, 7, 0, 1, 2, 3 };
    assert_int_equal(cm_cost_report(m, t, swapped, &r, NULL), 0);
    assert_int_equal(r.max_node, 0);
    assert_true(r.max_node_out == 4);
    assert_true(r.J == 4 * 100 + 4 * 100 + 100 * 10);
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_msg_costs(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    const cm_test_entry_t e[] = { { 0, 1, 5, 2 }, { 0, 4, 11, 3 }, { 2, 2, 1, 9 } };
    cm_matrix_t *m = cm_test_matrix_of(8, e, 3, 1);
    int map[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    /* Message costs are 0 until set. */
    assert_true(cm_cost(m, t, map) == 5 * 1 + 11 * 100);
    cm_error_t err = { "" };
    assert_int_equal(cm_tree_set_level_cost(t, 0, 100, 1000, &err), 0);
    assert_int_equal(cm_tree_set_level_cost(t, 2, 1, 50, &err), 0);
    assert_int_equal(cm_tree_set_level_cost(t, 3, 0, 7, &err), 0);
    /* 5*1 + 2*50 + 11*100 + 3*1000 + (diagonal) 1*0 + 9*7 = 4268 */
    assert_true(cm_cost(m, t, map) == 4268.0);
    double lb[4], lm[4];
    cm_cost_report_t r = { .level_bytes = lb, .level_msgs = lm };
    assert_int_equal(cm_cost_report(m, t, map, &r, &err), 0);
    assert_true(r.J == 4268.0);
    assert_true(lm[0] == 3 && lm[1] == 0 && lm[2] == 2 && lm[3] == 9);
    assert_true(lb[0] == 11 && lb[1] == 0 && lb[2] == 5 && lb[3] == 1);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* Summing in plain double order would lose both 1s after 2^53. */
static void test_exact_sum(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    const cm_test_entry_t e[] = {
        { 0, 1, 9007199254740992.0, 0 },   /* 2^53 */
        { 2, 3, 1, 0 },
        { 4, 5, 1, 0 },
    };
    cm_matrix_t *m = cm_test_matrix_of(8, e, 3, 0);
    int map[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    assert_true(cm_cost(m, t, map) == 9007199254740994.0);
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_bad_map(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    cm_matrix_t *m = cm_test_matrix_of(8, hand, 6, 0);
    cm_error_t err = { "" };
    int dup[8] = { 0, 1, 2, 3, 4, 5, 6, 2 };
    assert_int_equal(cm_mapping_check(t, dup, 8, &err), -1);
    assert_non_null(strstr(err.msg, "rank 7"));
    assert_non_null(strstr(err.msg, "slot 2"));
    assert_non_null(strstr(err.msg, "rank 2"));
    int out[8] = { 0, 1, 2, 3, 4, 5, 6, 8 };
    assert_int_equal(cm_mapping_check(t, out, 8, &err), -1);
    assert_non_null(strstr(err.msg, "rank 7"));
    assert_non_null(strstr(err.msg, "slot 8"));
    int neg[2] = { -1, 0 };
    assert_int_equal(cm_mapping_check(t, neg, 2, &err), -1);
    assert_non_null(strstr(err.msg, "rank 0"));
    assert_int_equal(cm_mapping_check(t, neg, 0, &err), -1);
    int ok[8] = { 7, 6, 5, 4, 3, 2, 1, 0 };
    assert_int_equal(cm_mapping_check(t, ok, 8, &err), 0);
    assert_int_equal(cm_mapping_check(t, ok, 3, &err), 0);   /* n < slots */

    assert_true(isnan(cm_cost(m, t, out)));
    double lb[4];
    cm_cost_report_t r = { .level_bytes = lb };
    err.msg[0] = '\0';
    assert_int_equal(cm_cost_report(m, t, dup, &r, &err), -1);
    assert_non_null(strstr(err.msg, "slot 2"));
    r.level_bytes = NULL;
    assert_int_equal(cm_cost_report(m, t, ok, &r, &err), -1);
    assert_non_null(strstr(err.msg, "level_bytes"));
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* A tree without a "node" level: no node traffic to report. */
static void test_no_nodes(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_new();
    assert_int_equal(cm_tree_add_level(t, "cluster", 5, 0, &err), 0);
    assert_int_equal(cm_tree_add_level(t, "core", 0, 0, &err), 1);
    int root = cm_tree_add_vertex(t, -1, 0, "c", &err);
    for (int k = 0; k < 4; k++)
        assert_true(cm_tree_add_vertex(t, root, 1, NULL, &err) > 0);
    assert_int_equal(cm_tree_finalize(t, &err), 0);
    const cm_test_entry_t e[] = { { 0, 1, 3, 0 }, { 2, 2, 4, 0 } };
    cm_matrix_t *m = cm_test_matrix_of(3, e, 2, 0);
    int map[3] = { 3, 1, 0 };
    double lb[2];
    cm_cost_report_t r = { .level_bytes = lb };
    assert_int_equal(cm_cost_report(m, t, map, &r, &err), 0);
    assert_true(r.J == 15);
    assert_int_equal(r.max_node, -1);
    assert_true(r.max_node_out == 0);
    assert_true(lb[0] == 3 && lb[1] == 4);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* ---- independent dense check ------------------------------------------ */

typedef struct dense {
    int n;
    double *a;   /* n x n, row = sender */
} dense_t;

static char *next_data_line(FILE *f, char *buf, int size, char comment)
{
    while (fgets(buf, size, f)) {
        if (buf[0] == comment)
            continue;
        return buf;
    }
    return NULL;
}

/* METIS: header "n m [fmt [ncon]]", then per vertex [size] [ncon weights]
 * (neighbour [weight])*. */
static dense_t dense_metis(const char *rel)
{
    const char *path = cm_test_data_path(rel);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    static char buf[1 << 16];
    assert_non_null(next_data_line(f, buf, sizeof buf, '%'));
    int n = 0, m = 0, ncon = 1;
    char fmt[8] = "0";
    int got = sscanf(buf, "%d %d %7s %d", &n, &m, fmt, &ncon);
    assert_true(got >= 2 && n > 0);
    size_t fl = strlen(fmt);
    int has_ew = fmt[fl - 1] == '1';
    int has_vw = fl >= 2 && fmt[fl - 2] == '1';
    int has_vs = fl >= 3 && fmt[fl - 3] == '1';
    if (!has_vw)
        ncon = 0;
    dense_t d = { n, calloc((size_t)n * n, sizeof(double)) };
    int nent = 0;
    for (int u = 0; u < n; u++) {
        assert_non_null(next_data_line(f, buf, sizeof buf, '%'));
        char *p = buf, *end;
        for (int k = 0; k < has_vs + ncon; k++)
            (void)strtol(p, &p, 10);
        for (;;) {
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            p = end;
            double w = 1;
            if (has_ew) {
                w = strtod(p, &end);
                assert_true(end != p);
                p = end;
            }
            assert_true(v >= 1 && v <= n);
            d.a[(size_t)u * n + (v - 1)] += w;
            nent++;
        }
    }
    assert_int_equal(nent, 2 * m);
    fclose(f);
    return d;
}

/* Matrix Market coordinate general, 1-based. */
static dense_t dense_mtx(const char *rel)
{
    const char *path = cm_test_data_path(rel);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    char buf[256];
    assert_non_null(next_data_line(f, buf, sizeof buf, '%'));
    int rows, cols, nnz;
    assert_int_equal(sscanf(buf, "%d %d %d", &rows, &cols, &nnz), 3);
    assert_int_equal(rows, cols);
    dense_t d = { rows, calloc((size_t)rows * rows, sizeof(double)) };
    for (int k = 0; k < nnz; k++) {
        int i, j;
        double v;
        assert_non_null(next_data_line(f, buf, sizeof buf, '%'));
        assert_int_equal(sscanf(buf, "%d %d %lf", &i, &j, &v), 3);
        d.a[(size_t)(i - 1) * rows + (j - 1)] += v;
    }
    fclose(f);
    return d;
}

/* VieM distance of slots p and q for hierarchy a[] / distances dist[]. */
static double viem_dist(const int *a, const double *dist, int k, int p, int q)
{
    if (p == q)
        return 0;
    long group = 1;
    for (int i = 0; i < k; i++) {
        group *= a[i];
        if (p / group == q / group)
            return dist[i];
    }
    fail_msg("slots %d and %d share no group", p, q);
    return -1;
}

static double dense_J(const dense_t *d, const int *a, const double *dist, int k,
                      const int *map)
{
    double J = 0;
    for (int i = 0; i < d->n; i++)
        for (int j = 0; j < d->n; j++)
            J += d->a[(size_t)i * d->n + j] * viem_dist(a, dist, k, map[i], map[j]);
    return J;
}

/* Compare cm_cost against the dense computation for block, cyclic and
 * three random mappings; the tree is built from the same strings. */
static void check_independent(const char *rel, cm_format_t fmt, dense_t d,
                              const char *hs, const char *ds, const int *a,
                              const double *dist, int k, double *Jout)
{
    cm_error_t err = { "" };
    cm_matrix_t *m = cm_matrix_read(cm_test_data_path(rel), fmt, &err);
    if (!m)
        fail_msg("%s: %s", rel, err.msg);
    assert_int_equal(cm_matrix_n(m), d.n);
    cm_tree_t *t = cm_test_hier(hs, ds);
    int n = d.n;
    int *map = malloc((size_t)n * sizeof *map);
    int nodesize = a[0] * a[1];
    int nnodes = cm_tree_nslots(t) / nodesize;
    for (int kind = 0; kind < 5; kind++) {
        if (kind == 0) {
            assert_int_equal(cm_map_block(t, n, map, &err), 0);
            for (int r = 0; r < n; r++)   /* VieM slots are in node order */
                assert_int_equal(map[r], r);
        } else if (kind == 1) {
            assert_int_equal(cm_map_cyclic(t, n, map, &err), 0);
            for (int r = 0; r < n; r++)
                assert_int_equal(map[r], (r % nnodes) * nodesize + r / nnodes);
        } else {
            assert_int_equal(cm_map_random(t, n, (uint64_t)kind * 7919, map, &err), 0);
        }
        assert_int_equal(cm_mapping_check(t, map, n, &err), 0);
        double J = cm_cost(m, t, map);
        double Jd = dense_J(&d, a, dist, k, map);
        if (J != Jd)
            fail_msg("%s on %s/%s, mapping %d: cm_cost %.17g, dense %.17g", rel, hs, ds,
                     kind, J, Jd);
        if (Jout)
            Jout[kind] = J;
    }
    free(map);
    free(d.a);
    cm_tree_free(t);
    cm_matrix_free(m);
}

static void test_independent_grid(void **state)
{
    (void)state;
    const int a[] = { 2, 2, 2, 2 };
    const double dist[] = { 1, 10, 100, 1000 };
    check_independent("graphs/grid4x4.graph", CM_FORMAT_METIS,
                      dense_metis("graphs/grid4x4.graph"), "2:2:2:2", "1:10:100:1000",
                      a, dist, 4, NULL);
    check_independent("graphs/grid4x4-unweighted.graph", CM_FORMAT_METIS,
                      dense_metis("graphs/grid4x4-unweighted.graph"), "4:2:2",
                      "1:10:100", (const int[]){ 4, 2, 2 }, dist, 3, NULL);
}

static void test_independent_torus(void **state)
{
    (void)state;
    const int a[] = { 4, 2, 4, 2 };
    const double dist[] = { 1, 2, 10, 20 };
    check_independent("graphs/torus8x8-vw.graph", CM_FORMAT_METIS,
                      dense_metis("graphs/torus8x8-vw.graph"), "4:2:4:2", "1:2:10:20",
                      a, dist, 4, NULL);
}

static void test_independent_cg64(void **state)
{
    (void)state;
    const int a[] = { 4, 2, 4, 2 };
    const double dist[] = { 1, 2, 10, 20 };
    double J[5];
    check_independent("matrices/cg.S.64.mtx", CM_FORMAT_MTX,
                      dense_mtx("matrices/cg.S.64.mtx"), "4:2:4:2", "1:2:10:20", a, dist,
                      4, J);
    print_message("cg.S.64 on 4:2:4:2 / 1:2:10:20: block %.0f cyclic %.0f "
                  "random %.0f %.0f %.0f\n", J[0], J[1], J[2], J[3], J[4]);
    /* CG's neighbours are near in rank order: block beats cyclic and random. */
    assert_true(J[0] < J[1]);
    assert_true(J[0] < J[2] && J[0] < J[3] && J[0] < J[4]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_identity),
        cmocka_unit_test(test_hand_permuted),
        cmocka_unit_test(test_max_node_tie),
        cmocka_unit_test(test_msg_costs),
        cmocka_unit_test(test_exact_sum),
        cmocka_unit_test(test_bad_map),
        cmocka_unit_test(test_no_nodes),
        cmocka_unit_test(test_independent_grid),
        cmocka_unit_test(test_independent_torus),
        cmocka_unit_test(test_independent_cg64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
