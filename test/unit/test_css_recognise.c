/* test_css_recognise.c -- cm_css_recognise (src/overlay/
 * css_recognise.c): the byte matrices of block-cyclic redistributions over
 * one communicator are recognised, and the parameters found give the same
 * table again; anything else (random matrices, a recognised one changed by
 * one byte, rows out of order, a uniform exchange with no local part) is
 * not.  Tables are built by the project's own counting,
 * cm_css_sched_redistribution's size table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "css_schedule.h"

/* ---- helpers ---- */

static uint64_t next(uint64_t *st)
{
    uint64_t z = (*st += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static int64_t between(uint64_t *st, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next(st) % (uint64_t)(hi - lo + 1));
}

/* The bytes of cyclic(y) -> cyclic(x) over n ranks, m elements of e bytes:
 * the size table of the project's redistribution schedule, times e. */
static uint64_t *table_of(int n, int64_t y, int64_t x, int64_t m, uint64_t e)
{
    cm_css_redist_t r = { n, y, 1, 0, n, x, 1, 0, m, 1, CM_CSS_CLASSIC };
    cm_error_t err = { 0 };
    cm_css_sched_t *s = cm_css_sched_redistribution(&r, &err);
    assert_non_null(s);
    uint64_t *b = malloc((size_t)n * (size_t)n * sizeof *b);
    assert_non_null(b);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            b[(size_t)i * (size_t)n + (size_t)j] = cm_css_sched_size(s, i, j) * e;
    cm_css_sched_free(s);
    return b;
}

/* @p b is recognised, as a redistribution over n ranks whose own table is
 * @p b again. */
static void assert_recognised(int n, const uint64_t *b)
{
    cm_css_redist_t r;
    uint64_t e = 0;
    cm_error_t err = { 0 };
    int got = cm_css_recognise(n, b, &r, &e, &err);
    if (got != 1)
        fail_msg("n = %d: not recognised (%d)", n, got);
    assert_int_equal(r.src_procs, n);
    assert_int_equal(r.dst_procs, n);
    assert_int_equal(r.src_stride, 1);
    assert_int_equal(r.dst_stride, 1);
    assert_int_equal(r.src_offset, 0);
    assert_int_equal(r.dst_offset, 0);
    assert_int_equal(r.same_ranks, 1);
    assert_int_equal(r.method, 0);
    assert_true(e >= 1);
    uint64_t *again = table_of(n, r.src_block, r.dst_block, r.count, e);
    assert_memory_equal(again, b, (size_t)n * (size_t)n * sizeof *b);
    free(again);
}

static void assert_rejected(int n, const uint64_t *b)
{
    cm_css_redist_t r;
    uint64_t e = 0;
    assert_int_equal(cm_css_recognise(n, b, &r, &e, NULL), 0);
}

/* The redistribution is recognised, and its parameters come back up to
 * the scaling the table cannot tell apart: x / y and the bytes. */
static void check(int n, int64_t y, int64_t x, int64_t m, uint64_t e)
{
    uint64_t *b = table_of(n, y, x, m, e);
    assert_recognised(n, b);
    cm_css_redist_t r;
    uint64_t got = 0;
    assert_int_equal(cm_css_recognise(n, b, &r, &got, NULL), 1);
    /* the same total: M elements of e bytes */
    assert_true((uint64_t)r.count * got == (uint64_t)m * e);
    free(b);
}

/* ---- recognised ---- */

static void test_cyclic3_cyclic5(void **state)
{
    (void)state;
    const int ns[] = { 2, 4, 7, 8, 16, 64 };
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        int n = ns[k];
        check(n, 3, 5, 15 * n * 7, 8);           /* whole periods */
        check(n, 3, 5, 100003, 8);               /* mini_redist's M */
        check(n, 3, 5, 15 * n * 7 + 11, 1);      /* a partial period */
        check(n, 5, 3, 100003, 8);               /* and back */
        check(n, 3, 5, 4, 24);                   /* fewer elements than ranks */
    }
    /* the ratio comes back when the table has whole periods of
     * coprime blocks: one period of larger elements */
    uint64_t *b = table_of(64, 3, 5, 64 * 15 * 1000, 8);
    cm_css_redist_t r;
    uint64_t e = 0;
    assert_int_equal(cm_css_recognise(64, b, &r, &e, NULL), 1);
    assert_int_equal(r.src_block, 3);
    assert_int_equal(r.dst_block, 5);
    assert_int_equal(r.count * (int64_t)e, 64 * 15 * 1000 * 8);
    free(b);
}

static void test_cyclic4_cyclic6_and_back(void **state)
{
    (void)state;
    const int ns[] = { 3, 8, 12, 64, 128 };
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        int n = ns[k];
        check(n, 4, 6, 12 * n * 5, 8);
        check(n, 4, 6, 12 * n * 5 + 7, 8);
        check(n, 6, 4, 999983, 4);
        check(n, 4, 3, 12 * n * 3 + 5, 8);       /* the seed's example 1 */
    }
}

static void test_block_cyclic48(void **state)
{
    (void)state;
    const int ns[] = { 4, 8, 64, 128 };
    const int64_t ms[] = { 100000, 131072, 1000003 };
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
            int n = ns[k];
            int64_t blk = (ms[i] + n - 1) / n;
            check(n, blk, 48, ms[i], 8);         /* block -> cyclic(48) */
            check(n, 48, blk, ms[i], 8);         /* and back */
        }
    /* the bench's exchange: 64 KiB between every pair at 64 ranks */
    check(64, 64 * 8192, 48, 64 * 64 * 8192, 8);
}

static void test_same_block(void **state)
{
    (void)state;
    /* cyclic(x) -> cyclic(x): only local copies; still a redistribution */
    check(4, 7, 7, 1000, 8);
    check(16, 1, 1, 16 * 9 + 3, 8);
    check(5, 100, 100, 12345, 2);
}

static void test_property(void **state)
{
    (void)state;
    uint64_t st = 42;
    const uint64_t es[] = { 1, 2, 4, 8, 12, 16 };
    for (int t = 0; t < 400; t++) {
        int n = (int)between(&st, 2, 40);
        int64_t y = between(&st, 1, 60), x = between(&st, 1, 60);
        int64_t m = between(&st, 1, 20000);
        if (t % 4 == 0)                          /* whole periods */
            m = (int64_t)n * y * x * between(&st, 1, 5);
        uint64_t e = es[next(&st) % (sizeof es / sizeof es[0])];
        uint64_t *b = table_of(n, y, x, m, e);
        assert_recognised(n, b);
        free(b);
    }
}

/* ---- rejected ---- */

static void test_random_rejected(void **state)
{
    (void)state;
    uint64_t st = 7;
    for (int t = 0; t < 200; t++) {
        int n = (int)between(&st, 2, 32);
        uint64_t *b = malloc((size_t)n * (size_t)n * sizeof *b);
        assert_non_null(b);
        for (int k = 0; k < n * n; k++)
            b[k] = (next(&st) % 4 == 0) ? 0 : 8 * (uint64_t)between(&st, 1, 1000);
        assert_rejected(n, b);
        free(b);
    }
}

/* One byte more or less in one entry.  Mostly no redistribution at all;
 * but one byte less for the pair that holds the last byte of the array is
 * the same redistribution of one byte fewer (elements of 1 byte), and
 * likewise at the end of a rank's local part: then the answer must be
 * exactly that other table (assert_recognised checks it), never a near
 * one. */
static void test_one_byte_off(void **state)
{
    (void)state;
    const struct { int n; int64_t y, x, m; } c[] = {
        { 8, 3, 5, 100003 }, { 64, 3, 5, 64 * 15 * 7 }, { 12, 4, 6, 12 * 12 * 5 },
        { 8, 12500, 48, 100000 }, { 4, 7, 7, 1000 }, { 16, 4, 3, 16 * 12 * 4 + 5 },
    };
    uint64_t st = 3;
    int tried = 0, rejected = 0;
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        int n = c[k].n;
        uint64_t *b = table_of(n, c[k].y, c[k].x, c[k].m, 8);
        for (int t = 0; t < 40; t++) {
            size_t at = (size_t)between(&st, 0, (int64_t)n * n - 1);
            uint64_t keep = b[at];
            for (int d = -1; d <= 1; d += 2) {
                if (d < 0 && keep == 0)
                    continue;
                b[at] = keep + (uint64_t)(int64_t)d;
                cm_css_redist_t r;
                uint64_t e = 0;
                tried++;
                if (cm_css_recognise(n, b, &r, &e, NULL) == 0)
                    rejected++;
                else
                    assert_recognised(n, b);
            }
            b[at] = keep;
        }
        /* mini_redist's exchange: the pair of the first element changed
         * is no table (with whole periods it can be: the byte after the
         * last one goes to the pair of the first) */
        if (k == 0) {
            b[0] += 1;
            assert_rejected(n, b);
            b[0] -= 2;
            assert_rejected(n, b);
            b[0] += 1;
        }
        assert_recognised(n, b);
        free(b);
    }
    /* the exceptions are a few end pairs */
    assert_true(rejected >= tried * 9 / 10);
}

static void test_uniform(void **state)
{
    (void)state;
    /* no local part: not a redistribution (and the overlay steps aside
     * before asking, cm_css_nearly_uniform) */
    const int n = 16;
    uint64_t b[16 * 16];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            b[i * n + j] = i == j ? 0 : 65536;
    assert_rejected(n, b);
    /* every pair, the local one included, the same: that is exactly
     * cyclic(1) -> cyclic(n) (element e from e mod n to (e / n) mod n), a
     * true answer; the overlay never gets here with it (step-aside first) */
    for (int k = 0; k < n * n; k++)
        b[k] = 65536;
    assert_true(cm_css_nearly_uniform(n, b));
    assert_recognised(n, b);
}

static void test_transposed(void **state)
{
    (void)state;
    const int n = 8;
    uint64_t *b = table_of(n, 3, 5, 100003, 8);
    uint64_t *t = malloc((size_t)n * n * sizeof *t);
    assert_non_null(t);
    /* the transpose is the way back, cyclic(5) -> cyclic(3) */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            t[i * n + j] = b[j * n + i];
    cm_css_redist_t r;
    uint64_t e = 0;
    assert_int_equal(cm_css_recognise(n, t, &r, &e, NULL), 1);
    uint64_t *back = table_of(n, 5, 3, 100003, 8);
    assert_memory_equal(back, t, (size_t)n * n * sizeof *t);
    assert_recognised(n, t);
    /* rows in reverse order: no distribution starts at the last rank */
    for (int i = 0; i < n; i++)
        memcpy(&t[i * n], &b[(n - 1 - i) * n], (size_t)n * sizeof *t);
    assert_rejected(n, t);
    /* transposed, then two receivers swapped: sums fine, table not */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            t[i * n + j] = b[j * n + i];
    for (int i = 0; i < n; i++) {
        uint64_t v = t[i * n + 1];
        t[i * n + 1] = t[i * n + 2];
        t[i * n + 2] = v;
    }
    assert_rejected(n, t);
    free(back);
    free(t);
    free(b);
}

static void test_bounds(void **state)
{
    (void)state;
    cm_css_redist_t r;
    uint64_t e = 0, one = 8, zero[4] = { 0 };
    assert_int_equal(cm_css_recognise(1, &one, &r, &e, NULL), 0);
    assert_int_equal(cm_css_recognise(2, zero, &r, &e, NULL), 0);
    assert_int_equal(cm_css_recognise(2, NULL, &r, &e, NULL), 0);
    assert_int_equal(cm_css_recognise(5000, zero, &r, &e, NULL), 0);
    /* sums too large to factor (gcd 1, above 2^40): gives up */
    uint64_t big[4] = { UINT64_C(1) << 41, 1, 1, UINT64_C(1) << 41 };
    assert_int_equal(cm_css_recognise(2, big, &r, &e, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cyclic3_cyclic5),
        cmocka_unit_test(test_cyclic4_cyclic6_and_back),
        cmocka_unit_test(test_block_cyclic48),
        cmocka_unit_test(test_same_block),
        cmocka_unit_test(test_property),
        cmocka_unit_test(test_random_rejected),
        cmocka_unit_test(test_one_byte_off),
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_transposed),
        cmocka_unit_test(test_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
