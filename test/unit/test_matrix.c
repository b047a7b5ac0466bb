/* test_matrix.c -- the CSR matrix and its builder (src/core/matrix.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testutil.h"

static void test_builder_basic(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(4, &err);
    assert_non_null(b);
    assert_int_equal(cm_builder_add(b, 2, 3, 5, 1, &err), 0);
    assert_int_equal(cm_builder_add(b, 0, 1, 10, 1, &err), 0);
    assert_int_equal(cm_builder_add(b, 2, 0, 7, 2, &err), 0);
    assert_int_equal(cm_builder_add(b, 0, 1, 30, 3, &err), 0);  /* duplicate */
    assert_int_equal(cm_builder_add(b, 2, 2, 1, 1, &err), 0);   /* self-send */
    assert_int_equal(cm_builder_add(b, 1, 3, 0, 0, &err), 0);   /* kept out */
    cm_builder_set_has_msgs(b, 1);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    assert_non_null(m);
    assert_int_equal(cm_matrix_n(m), 4);
    assert_int_equal(cm_matrix_nnz(m), 4);
    assert_int_equal(cm_matrix_has_msgs(m), 1);

    cm_test_check_row(m, 0, 1, (int[]){ 1 }, (double[]){ 40 }, (double[]){ 4 });
    cm_test_check_row(m, 1, 0, NULL, NULL, NULL);
    cm_test_check_row(m, 2, 3, (int[]){ 0, 2, 3 }, (double[]){ 7, 1, 5 },
              (double[]){ 2, 1, 1 });
    cm_test_check_row(m, 3, 0, NULL, NULL, NULL);

    double tb = -1, tm = -1;
    cm_matrix_totals(m, &tb, &tm);
    assert_true(tb == 53);
    assert_true(tm == 8);
    cm_matrix_totals(m, NULL, &tm);   /* either pointer may be NULL */
    assert_true(tm == 8);

    /* The builder is unchanged by finish: a second finish is identical. */
    cm_matrix_t *m2 = cm_builder_finish(b, &err);
    assert_non_null(m2);
    assert_int_equal(cm_matrix_nnz(m2), 4);
    cm_test_check_row(m2, 2, 3, (int[]){ 0, 2, 3 }, (double[]){ 7, 1, 5 }, NULL);
    cm_matrix_free(m2);
    cm_matrix_free(m);
    cm_builder_free(b);
}

static void test_builder_no_msgs(void **state)
{
    (void)state;
    cm_builder_t *b = cm_builder_new(2, NULL);
    assert_int_equal(cm_builder_add(b, 1, 0, 3, 0, NULL), 0);
    cm_matrix_t *m = cm_builder_finish(b, NULL);
    assert_int_equal(cm_matrix_has_msgs(m), 0);
    assert_int_equal(cm_matrix_nnz(m), 1);
    cm_matrix_free(m);
    cm_builder_free(b);
}

static void test_builder_empty(void **state)
{
    (void)state;
    cm_builder_t *b = cm_builder_new(3, NULL);
    cm_matrix_t *m = cm_builder_finish(b, NULL);
    assert_non_null(m);
    assert_int_equal(cm_matrix_n(m), 3);
    assert_int_equal(cm_matrix_nnz(m), 0);
    for (int i = 0; i < 3; i++)
        cm_test_check_row(m, i, 0, NULL, NULL, NULL);
    cm_matrix_t *s = cm_matrix_symmetrize(m, NULL);
    assert_int_equal(cm_matrix_nnz(s), 0);
    cm_matrix_free(s);
    cm_matrix_free(m);
    cm_builder_free(b);
}

static void test_builder_refuses(void **state)
{
    (void)state;
    cm_error_t err;
    assert_null(cm_builder_new(0, &err));
    assert_non_null(strstr(err.msg, "expected a rank count"));
    assert_null(cm_builder_new(-3, NULL));
    assert_null(cm_builder_new((1 << 24) + 1, &err));

    cm_builder_t *b = cm_builder_new(3, &err);
    assert_int_equal(cm_builder_add(b, 3, 0, 1, 0, &err), -1);
    assert_non_null(strstr(err.msg, "0..2"));
    assert_int_equal(cm_builder_add(b, 0, -1, 1, 0, &err), -1);
    assert_int_equal(cm_builder_add(b, -1, 0, 1, 0, &err), -1);
    assert_int_equal(cm_builder_add(b, 0, 1, -1, 0, &err), -1);
    assert_non_null(strstr(err.msg, "non-negative byte count"));
    assert_int_equal(cm_builder_add(b, 0, 1, 1, -2, &err), -1);
    assert_non_null(strstr(err.msg, "non-negative message count"));
    assert_int_equal(cm_builder_add(b, 0, 1, NAN, 0, &err), -1);
    assert_int_equal(cm_builder_add(b, 0, 1, INFINITY, 0, &err), -1);
    assert_int_equal(cm_builder_add(b, 0, 1, 1, NAN, NULL), -1);
    /* nothing refused was stored */
    cm_matrix_t *m = cm_builder_finish(b, &err);
    assert_int_equal(cm_matrix_nnz(m), 0);
    cm_matrix_free(m);
    cm_builder_free(b);
    cm_builder_free(NULL);
    cm_matrix_free(NULL);
}

/* Random entries added in two different orders give identical matrices,
 * equal to a dense reference. */
static void test_builder_order_and_reference(void **state)
{
    (void)state;
    enum { N = 37, E = 3000 };
    static int src[E], dst[E];
    static double val[E], dense[N][N], dmsg[N][N];
    cm_rng_t r;
    cm_rng_seed(&r, 42);
    memset(dense, 0, sizeof dense);
    memset(dmsg, 0, sizeof dmsg);
    for (int k = 0; k < E; k++) {
        src[k] = (int)cm_rng_below(&r, N);
        dst[k] = (int)cm_rng_below(&r, N);
        val[k] = (double)cm_rng_below(&r, 1000);   /* integers: exact sums */
        dense[src[k]][dst[k]] += val[k];
        dmsg[src[k]][dst[k]] += 1;
    }
    cm_builder_t *fw = cm_builder_new(N, NULL), *bw = cm_builder_new(N, NULL);
    for (int k = 0; k < E; k++) {
        assert_int_equal(cm_builder_add(fw, src[k], dst[k], val[k], 1, NULL), 0);
        int q = E - 1 - k;
        assert_int_equal(cm_builder_add(bw, src[q], dst[q], val[q], 1, NULL), 0);
    }
    cm_matrix_t *a = cm_builder_finish(fw, NULL), *b = cm_builder_finish(bw, NULL);
    assert_int_equal(cm_matrix_nnz(a), cm_matrix_nnz(b));
    size_t count = 0;
    for (int i = 0; i < N; i++) {
        const int *ca, *cb;
        const double *ba, *bb, *ga, *gb;
        int la, lb;
        cm_matrix_row(a, i, &ca, &ba, &ga, &la);
        cm_matrix_row(b, i, &cb, &bb, &gb, &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(ca, cb, (size_t)la * sizeof *ca);
        assert_memory_equal(ba, bb, (size_t)la * sizeof *ba);
        assert_memory_equal(ga, gb, (size_t)la * sizeof *ga);
        int k = 0;
        for (int j = 0; j < N; j++) {
            if (dmsg[i][j] == 0)
                continue;
            assert_true(k < la);
            assert_int_equal(ca[k], j);
            assert_true(ba[k] == dense[i][j]);
            assert_true(ga[k] == dmsg[i][j]);
            k++;
        }
        assert_int_equal(k, la);
        count += (size_t)k;
    }
    assert_int_equal(count, cm_matrix_nnz(a));

    /* symmetrize against the dense reference, too */
    cm_matrix_t *s = cm_matrix_symmetrize(a, NULL);
    for (int i = 0; i < N; i++) {
        const int *c;
        const double *y, *g;
        int len, k = 0;
        cm_matrix_row(s, i, &c, &y, &g, &len);
        for (int j = 0; j < N; j++) {
            if (j == i || dmsg[i][j] + dmsg[j][i] == 0)
                continue;
            assert_true(k < len);
            assert_int_equal(c[k], j);
            assert_true(y[k] == dense[i][j] + dense[j][i]);
            assert_true(g[k] == dmsg[i][j] + dmsg[j][i]);
            k++;
        }
        assert_int_equal(k, len);
    }
    cm_matrix_free(s);
    cm_matrix_free(a);
    cm_matrix_free(b);
    cm_builder_free(fw);
    cm_builder_free(bw);
}

/* Entries that come in row order are sorted and summed row by row as
 * they come, the others at the end (src/core/matrix.c): either way every
 * repeated entry is summed in the order it was added.  Checked bit for bit
 * against sums in add order (values that are not integers, so the order
 * shows), with rows long enough for the radix sort, entries of zero kept
 * out, and three orders: rows in order, in order until a late entry goes
 * back to an earlier row, and reversed.  Each builder is finished twice. */
static void test_builder_row_order(void **state)
{
    (void)state;
    enum { N = 300, E = 20000 };
    static int src[E], dst[E];
    static double val[E], msg[E], sum_b[N][N], sum_m[N][N];
    static unsigned char seen[N][N];
    cm_rng_t r;
    int e = 0;

    cm_rng_seed(&r, 7);
    for (int i = 0; i < N && e < E; i++) {
        if (cm_rng_below(&r, 5) == 0)
            continue;   /* rows without entries */
        int len = (int)cm_rng_below(&r, i % 10 == 0 ? 150 : 12);
        for (int k = 0; k < len && e < E; k++, e++) {
            src[e] = i;
            dst[e] = (int)(cm_rng_below(&r, 60) * 7 % N);   /* repeats */
            val[e] = cm_rng_below(&r, 9) == 0 ? 0 : 0.1 * (double)(e % 977 + 1);
            msg[e] = cm_rng_below(&r, 3) == 0 ? 0 : 0.3 * (double)(k + 1);
        }
    }
    for (int order = 0; order < 3; order++) {
        cm_builder_t *b = cm_builder_new(N, NULL);
        memset(sum_b, 0, sizeof sum_b);
        memset(sum_m, 0, sizeof sum_m);
        memset(seen, 0, sizeof seen);
        for (int q = 0; q < e; q++) {
            int k = order == 2 ? e - 1 - q : q;
            if (order == 1 && q == e - 40)
                k = e / 3;   /* back to an earlier row, then on */
            else if (order == 1 && q == e / 3)
                k = e - 40;
            assert_int_equal(cm_builder_add(b, src[k], dst[k], val[k], msg[k],
                                            NULL), 0);
            if (val[k] != 0 || msg[k] != 0) {
                sum_b[src[k]][dst[k]] += val[k];
                sum_m[src[k]][dst[k]] += msg[k];
                seen[src[k]][dst[k]] = 1;
            }
        }
        cm_builder_set_has_msgs(b, 1);
        for (int pass = 0; pass < 2; pass++) {
            cm_matrix_t *m = cm_builder_finish(b, NULL);
            size_t count = 0;
            assert_non_null(m);
            for (int i = 0; i < N; i++) {
                const int *c;
                const double *y, *g;
                int len, k = 0;
                cm_matrix_row(m, i, &c, &y, &g, &len);
                for (int j = 0; j < N; j++) {
                    if (!seen[i][j])
                        continue;
                    assert_true(k < len);
                    assert_int_equal(c[k], j);
                    assert_memory_equal(&y[k], &sum_b[i][j], sizeof y[k]);
                    assert_memory_equal(&g[k], &sum_m[i][j], sizeof g[k]);
                    k++;
                }
                assert_int_equal(k, len);
                count += (size_t)len;
            }
            assert_int_equal(count, cm_matrix_nnz(m));
            cm_matrix_free(m);
        }
        cm_builder_free(b);
    }
}

/* A = [[1 2 0]   bytes         A + A^T, diagonal dropped:  [[0  2  4]
 *      [0 5 3]                                              [2  0  9]
 *      [4 6 0]]                                             [4  9  0]] */
static void test_symmetrize_3x3(void **state)
{
    (void)state;
    cm_builder_t *b = cm_builder_new(3, NULL);
    cm_builder_add(b, 0, 0, 1, 1, NULL);
    cm_builder_add(b, 0, 1, 2, 1, NULL);
    cm_builder_add(b, 1, 1, 5, 1, NULL);
    cm_builder_add(b, 1, 2, 3, 2, NULL);
    cm_builder_add(b, 2, 0, 4, 4, NULL);
    cm_builder_add(b, 2, 1, 6, 8, NULL);
    cm_builder_set_has_msgs(b, 1);
    cm_matrix_t *a = cm_builder_finish(b, NULL);
    cm_matrix_t *s = cm_matrix_symmetrize(a, NULL);
    assert_non_null(s);
    assert_int_equal(cm_matrix_n(s), 3);
    assert_int_equal(cm_matrix_nnz(s), 6);
    assert_int_equal(cm_matrix_has_msgs(s), 1);
    cm_test_check_row(s, 0, 2, (int[]){ 1, 2 }, (double[]){ 2, 4 }, (double[]){ 1, 4 });
    cm_test_check_row(s, 1, 2, (int[]){ 0, 2 }, (double[]){ 2, 9 }, (double[]){ 1, 10 });
    cm_test_check_row(s, 2, 2, (int[]){ 0, 1 }, (double[]){ 4, 9 }, (double[]){ 4, 10 });
    double tb, tm;
    cm_matrix_totals(s, &tb, &tm);
    assert_true(tb == 30);   /* 2 * (2 + 3 + 4 + 6) */
    assert_true(tm == 30);   /* 2 * (1 + 2 + 4 + 8) */
    cm_matrix_free(s);
    cm_matrix_free(a);
    cm_builder_free(b);
}

static void test_sub(void **state)
{
    (void)state;
    /* 5 ranks: i -> j with bytes 10 * i + j for j = i + 1 and j = 0 */
    cm_builder_t *b = cm_builder_new(5, NULL);
    for (int i = 0; i < 5; i++) {
        if (i + 1 < 5)
            cm_builder_add(b, i, i + 1, 10 * i + i + 1, 1, NULL);
        cm_builder_add(b, i, 0, 10 * i + 100, 2, NULL);
    }
    cm_matrix_t *a = cm_builder_finish(b, NULL);
    cm_error_t err;
    /* ranks {3, 0, 4}: 3 -> 4 (k 0 -> 2), 3 -> 0 (0 -> 1), 0 -> 0 (1 -> 1),
     * 4 -> 0 (2 -> 1); 0 -> 1 is dropped (1 is outside). */
    cm_matrix_t *s = cm_matrix_sub(a, (int[]){ 3, 0, 4 }, 3, &err);
    assert_non_null(s);
    assert_int_equal(cm_matrix_n(s), 3);
    assert_int_equal(cm_matrix_nnz(s), 4);
    cm_test_check_row(s, 0, 2, (int[]){ 1, 2 }, (double[]){ 130, 34 }, (double[]){ 2, 1 });
    cm_test_check_row(s, 1, 1, (int[]){ 1 }, (double[]){ 100 }, (double[]){ 2 });
    cm_test_check_row(s, 2, 1, (int[]){ 1 }, (double[]){ 140 }, (double[]){ 2 });
    cm_matrix_free(s);

    assert_null(cm_matrix_sub(a, (int[]){ 1, 1 }, 2, &err));
    assert_non_null(strstr(err.msg, "distinct"));
    assert_null(cm_matrix_sub(a, (int[]){ 1, 5 }, 2, &err));
    assert_non_null(strstr(err.msg, "ranks[1]"));
    assert_null(cm_matrix_sub(a, (int[]){ 0 }, 0, &err));
    cm_matrix_free(a);
    cm_builder_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builder_basic),
        cmocka_unit_test(test_builder_no_msgs),
        cmocka_unit_test(test_builder_empty),
        cmocka_unit_test(test_builder_refuses),
        cmocka_unit_test(test_builder_order_and_reference),
        cmocka_unit_test(test_builder_row_order),
        cmocka_unit_test(test_symmetrize_3x3),
        cmocka_unit_test(test_sub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
