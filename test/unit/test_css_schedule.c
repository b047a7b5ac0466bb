/* test_css_schedule.c -- contention-free schedules (src/overlay/):
 * bad arguments first, then the worked examples of the paper (seed 003:
 * its COM and CS tables, entry by entry), then invariants over many random
 * matrices and redistributions (every step a matching, every message
 * exactly once, the number of steps), and the cost model against the
 * classic (i + k) mod n ordering. */
#include <math.h>
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

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static uint64_t next(uint64_t *st)
{
    uint64_t z = (*st += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static int below(uint64_t *st, int n)
{
    return (int)(next(st) % (uint64_t)n);
}

static cm_css_redist_t redist(int Q, int y, int a2, int b2, int P, int x, int a1, int b1,
                              int count, int same)
{
    cm_css_redist_t r = { Q, y, a2, b2, P, x, a1, b1, count, same, 0 };
    return r;
}

/* COM by enumerating the loop, for comparison. */
static uint64_t *brute_com(const cm_css_redist_t *r)
{
    uint64_t *c = calloc((size_t)r->src_procs * (size_t)r->dst_procs, sizeof *c);
    assert_non_null(c);
    for (int64_t i = 0; i < r->count; i++) {
        int64_t g = r->src_stride * i + r->src_offset, h = r->dst_stride * i + r->dst_offset;
        int u = (int)((g / r->src_block) % r->src_procs);
        int v = (int)((h / r->dst_block) % r->dst_procs);
        c[(size_t)u * (size_t)r->dst_procs + (size_t)v]++;
    }
    return c;
}

/* The largest number of messages of one sender or one receiver. */
static int max_degree(int ns, int nr, const uint64_t *b, int skip_diag)
{
    int deg = 0;
    for (int u = 0; u < ns; u++) {
        int d = 0;
        for (int v = 0; v < nr; v++)
            d += b[u * nr + v] && !(skip_diag && u == v);
        deg = d > deg ? d : deg;
    }
    for (int v = 0; v < nr; v++) {
        int d = 0;
        for (int u = 0; u < ns; u++)
            d += b[u * nr + v] && !(skip_diag && u == v);
        deg = d > deg ? d : deg;
    }
    return deg;
}

/* Every step a partial matching, peer and source inverse of each other,
 * every non-zero pair of @p b (off the diagonal when skip_diag) in exactly
 * one step, nothing else; sizes as given. */
static void check_schedule(const cm_css_sched_t *s, const uint64_t *b, int skip_diag)
{
    int ns = cm_css_sched_nsenders(s), nr = cm_css_sched_nreceivers(s);
    int steps = cm_css_sched_nsteps(s);
    assert_true(steps >= 0);
    int *seen = calloc((size_t)ns * (size_t)nr, sizeof *seen);
    int *recv_busy = calloc((size_t)nr, sizeof *recv_busy);
    assert_non_null(seen);
    assert_non_null(recv_busy);
    for (int k = 0; k < steps; k++) {
        int used = 0;
        memset(recv_busy, 0, (size_t)nr * sizeof *recv_busy);
        for (int u = 0; u < ns; u++) {
            int v = cm_css_sched_peer(s, k, u);
            if (v < 0)
                continue;
            assert_true(v < nr);
            assert_false(recv_busy[v]);          /* one sender per receiver */
            recv_busy[v] = 1;
            assert_int_equal(cm_css_sched_source(s, k, v), u);
            assert_false(seen[u * nr + v]);
            seen[u * nr + v] = 1;
            assert_int_equal(cm_css_sched_step_of(s, u, v), k);
            used++;
        }
        for (int v = 0; v < nr; v++) {
            int u = cm_css_sched_source(s, k, v);
            if (u >= 0)
                assert_int_equal(cm_css_sched_peer(s, k, u), v);
        }
        assert_true(used > 0);                    /* no empty step */
    }
    for (int u = 0; u < ns; u++)
        for (int v = 0; v < nr; v++) {
            assert_true(cm_css_sched_size(s, u, v) == b[u * nr + v]);
            int want = b[u * nr + v] != 0 && !(skip_diag && u == v);
            assert_int_equal(seen[u * nr + v], want);
            if (!want)
                assert_int_equal(cm_css_sched_step_of(s, u, v), -1);
        }
    free(seen);
    free(recv_busy);
}

static const uint64_t *sizes(const cm_css_sched_t *s, uint64_t *buf)
{
    int ns = cm_css_sched_nsenders(s), nr = cm_css_sched_nreceivers(s);
    for (int u = 0; u < ns; u++)
        for (int v = 0; v < nr; v++)
            buf[u * nr + v] = cm_css_sched_size(s, u, v);
    return buf;
}

/* ---- bad arguments ---- */

static void test_bad_args(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    assert_null(cm_css_sched_redistribution(NULL, &err));
    assert_non_null(strstr(err.msg, "no parameters"));
    const struct {
        cm_css_redist_t r;
        const char *msg;
    } bad[] = {
        { redist(0, 1, 1, 0, 4, 1, 1, 0, 10, 0), "src_procs = 0" },
        { redist(4, 1, 1, 0, 65537, 1, 1, 0, 10, 0), "dst_procs = 65537" },
        { redist(4, 0, 1, 0, 4, 1, 1, 0, 10, 0), "src_block = 0" },
        { redist(4, 1, 1, 0, 4, -3, 1, 0, 10, 0), "dst_block = -3" },
        { redist(4, 1, 0, 0, 4, 1, 1, 0, 10, 0), "src_stride = 0" },
        { redist(4, 1, 1, 0, 4, 1, -1, 0, 10, 0), "dst_stride = -1" },
        { redist(4, 1, 1, -1, 4, 1, 1, 0, 10, 0), "src_offset = -1" },
        { redist(4, 1, 1, 0, 4, 1, 1, 0, -1, 0), "count = -1" },
        { redist(4096, 1, 1, 0, 4097, 1, 1, 0, 10, 0), "more than the 16777216" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err.msg[0] = 0;
        assert_null(cm_css_sched_redistribution(&bad[k].r, &err));
        if (!strstr(err.msg, bad[k].msg))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", k, err.msg, bad[k].msg);
    }
    /* 64-bit fields beyond what the header allows */
    cm_css_redist_t r = redist(4, 1, 1, 0, 4, 1, 1, 0, 10, 0);
    r.src_block = INT64_C(1) << 31;
    assert_null(cm_css_sched_redistribution(&r, &err));
    assert_non_null(strstr(err.msg, "src_block = 2147483648"));
    r = redist(4, 1, 1, 0, 4, 1, 1, 0, 10, 0);
    r.count = (INT64_C(1) << 62) + 1;
    assert_null(cm_css_sched_redistribution(&r, &err));
    assert_non_null(strstr(err.msg, "count"));
    /* addresses past 2^63 */
    r = redist(4, 1, 2147483647, 0, 4, 1, 1, 0, 10, 0);
    r.count = INT64_C(1) << 40;
    assert_null(cm_css_sched_redistribution(&r, &err));
    assert_non_null(strstr(err.msg, "src addresses pass 2^63"));
    /* a period too long to count: coprime process counts, blocks of 1 */
    r = redist(4093, 1000, 1, 0, 4091, 999, 1, 0, 0, 0);
    r.count = INT64_C(1) << 40;
    assert_null(cm_css_sched_redistribution(&r, &err));
    assert_non_null(strstr(err.msg, "runs to count"));

    uint64_t b[4] = { 0, 1, 2, 0 };
    assert_null(cm_css_sched_general(0, b, &err));
    assert_non_null(strstr(err.msg, "0 ranks"));
    assert_null(cm_css_sched_general(4097, b, &err));
    assert_non_null(strstr(err.msg, "4097 ranks"));
    assert_null(cm_css_sched_general(2, NULL, &err));
    assert_non_null(strstr(err.msg, "no byte table"));
    assert_null(cm_css_sched_general(-5, b, NULL));     /* err may be NULL */

    /* accessors on NULL and out of range */
    cm_css_sched_free(NULL);
    assert_int_equal(cm_css_sched_nsteps(NULL), -1);
    assert_int_equal(cm_css_sched_nsenders(NULL), -1);
    assert_int_equal(cm_css_sched_nreceivers(NULL), -1);
    assert_int_equal(cm_css_sched_method(NULL), 0);
    assert_int_equal(cm_css_sched_peer(NULL, 0, 0), -1);
    assert_int_equal(cm_css_sched_source(NULL, 0, 0), -1);
    assert_true(cm_css_sched_size(NULL, 0, 0) == 0);
    assert_int_equal(cm_css_sched_step_of(NULL, 0, 1), -1);
    cm_css_period_t pd;
    assert_int_equal(cm_css_sched_period(NULL, &pd), -1);
    cm_css_sched_t *s = cm_css_sched_general(2, b, &err);
    assert_non_null(s);
    assert_int_equal(cm_css_sched_nsteps(s), 1);
    assert_int_equal(cm_css_sched_method(s), CM_CSS_GENERAL);
    assert_int_equal(cm_css_sched_peer(s, 1, 0), -1);
    assert_int_equal(cm_css_sched_peer(s, -1, 0), -1);
    assert_int_equal(cm_css_sched_peer(s, 0, 2), -1);
    assert_int_equal(cm_css_sched_source(s, 0, -1), -1);
    assert_true(cm_css_sched_size(s, 2, 0) == 0);
    assert_true(cm_css_sched_size(s, 1, 0) == 2);
    assert_int_equal(cm_css_sched_step_of(s, 0, 0), -1);
    assert_int_equal(cm_css_sched_period(s, &pd), -1);   /* not a redistribution */

    double c = -1;
    assert_int_equal(cm_css_sched_cost(NULL, b, 0, 1, &c, &err), -1);
    assert_non_null(strstr(err.msg, "no schedule"));
    assert_int_equal(cm_css_sched_cost(s, b, -1, 1, &c, &err), -1);
    assert_non_null(strstr(err.msg, "latency -1"));
    assert_int_equal(cm_css_sched_cost(s, b, NAN, 1, &c, &err), -1);
    assert_int_equal(cm_css_sched_cost(s, b, 0, 0, &c, &err), -1);
    assert_non_null(strstr(err.msg, "bandwidth 0"));
    assert_int_equal(cm_css_sched_cost(s, b, 0, INFINITY, &c, &err), -1);
    assert_int_equal(cm_css_sched_cost(s, b, 0, 1, NULL, &err), -1);
    assert_true(c == -1);                               /* untouched on failure */
    assert_int_equal(cm_css_classic_cost(0, 2, b, 1, 0, 1, &c, &err), -1);
    assert_non_null(strstr(err.msg, "0 x 2"));
    assert_int_equal(cm_css_classic_cost(2, 2, NULL, 1, 0, 1, &c, &err), -1);
    assert_int_equal(cm_css_classic_cost(2, 2, b, 1, 0, -2, &c, &err), -1);
    assert_int_equal(cm_css_classic_cost(5000, 5000, b, 1, 0, 1, &c, &err), -1);
    /* and right: one step of 2 bytes at 1 byte/s plus 0.5 s */
    assert_int_equal(cm_css_sched_cost(s, NULL, 0.5, 1, &c, &err), 0);
    assert_true(c == 2.5);
    assert_int_equal(cm_css_classic_cost(2, 2, b, 1, 0.5, 1, &c, &err), 0);
    assert_true(c == 2.5);
    cm_css_sched_free(s);
}

/* ---- the paper's examples ---- */

/* Example 1 (Fig. 2(a)): A(3i+4) = B(2i+1), i = 0..59, B cyclic(3) on five
 * senders Q, A cyclic(4) on five receivers P.  Fig. 2(b) is COM (rows Q),
 * Fig. 4(a) the classic schedule, Fig. 4(c) CSS's. */
static const uint64_t EX1_COM[5][5] = {
    { 2, 2, 3, 3, 2 }, { 3, 3, 2, 2, 2 }, { 2, 2, 2, 3, 3 }, { 2, 3, 3, 2, 2 }, { 3, 2, 2, 2, 3 },
};
static const int EX1_CS[5][5] = {
    { 0, 1, 2, 3, 4 }, { 3, 4, 0, 1, 2 }, { 1, 2, 3, 4, 0 }, { 4, 0, 1, 2, 3 }, { 2, 3, 4, 0, 1 },
};

static void test_paper_example1(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_css_redist_t r = redist(5, 3, 2, 1, 5, 4, 3, 4, 60, 0);
    cm_css_sched_t *s = cm_css_sched_redistribution(&r, &err);
    if (!s)
        fail_msg("%s", err.msg);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            assert_true(cm_css_sched_size(s, i, j) == EX1_COM[i][j]);
    cm_css_period_t pd;
    assert_int_equal(cm_css_sched_period(s, &pd), 0);
    assert_true(pd.period == 60 && pd.m == 8 && pd.n == 9);   /* the paper's m, n */
    assert_int_equal(pd.s, 5);
    assert_int_equal(pd.t, 5);
    assert_true(pd.exact);
    assert_int_equal(cm_css_sched_method(s), CM_CSS_PERIODIC);
    assert_int_equal(cm_css_sched_nsteps(s), 5);
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 5; k++)
            assert_int_equal(cm_css_sched_peer(s, k, i), EX1_CS[i][k]);
    check_schedule(s, &EX1_COM[0][0], 0);

    /* Fig. 4(a), the classic schedule, is (i + k) mod 5; in the model with
     * bandwidth 1 and no latency it takes 3 + 3 + 3 + 3 + 3 = 15 (every
     * step has a 3), CSS 2 + 2 + 3 + 3 + 2 = 12. */
    double css, classic;
    assert_int_equal(cm_css_sched_cost(s, NULL, 0, 1, &css, &err), 0);
    assert_int_equal(cm_css_classic_cost(5, 5, &EX1_COM[0][0], 0, 0, 1, &classic, &err), 0);
    assert_true(css == 12 && classic == 15);
    cm_css_sched_free(s);
}

/* Fig. 2(c): cyclic(3) to cyclic(4) on 5 and 5 processes, A(i) = B(i). */
static void test_paper_fig2c(void **state)
{
    (void)state;
    static const uint64_t com[5][5] = {
        { 3, 3, 2, 2, 2 }, { 2, 2, 3, 3, 2 }, { 3, 2, 2, 2, 3 }, { 2, 3, 3, 2, 2 },
        { 2, 2, 2, 3, 3 },
    };
    cm_error_t err = { "" };
    cm_css_redist_t r = redist(5, 3, 1, 0, 5, 4, 1, 0, 60, 0);
    cm_css_sched_t *s = cm_css_sched_redistribution(&r, &err);
    if (!s)
        fail_msg("%s", err.msg);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            assert_true(cm_css_sched_size(s, i, j) == com[i][j]);
    cm_css_period_t pd;
    assert_int_equal(cm_css_sched_period(s, &pd), 0);
    assert_true(pd.period == 60 && pd.exact);
    assert_int_equal(cm_css_sched_method(s), CM_CSS_PERIODIC);
    check_schedule(s, &com[0][0], 0);
    for (int k = 0; k < cm_css_sched_nsteps(s); k++)   /* equal lengths */
        for (int i = 1; i < 5; i++)
            assert_true(cm_css_sched_size(s, i, cm_css_sched_peer(s, k, i)) ==
                        cm_css_sched_size(s, 0, cm_css_sched_peer(s, k, 0)));
    cm_css_sched_free(s);
}

/* Example 2 (Fig. 6): A(3i+4) = B(2i+1), i = 0..59, B cyclic(5) on three
 * senders, A cyclic(4) on nine receivers.  The paper's Fig. 6(b) lists the
 * rows of Q0 and Q2 exchanged with respect to that loop (its m = 16 instead
 * of 8 says the same: 16 = 1 and 8 = 2 mod 3), so sender i of the paper is
 * our 2 - i; its Fig. 6(c) is then our schedule, step for step up to the
 * order of the steps (the paper's first row is an arbitrary permutation). */
static void test_paper_example2(void **state)
{
    (void)state;
    static const uint64_t paper_com[3][9] = {
        { 2, 3, 2, 2, 3, 2, 1, 4, 1 },
        { 2, 3, 2, 1, 4, 1, 2, 3, 2 },
        { 1, 4, 1, 2, 3, 2, 2, 3, 2 },
    };
    static const int paper_cs[3][9] = {
        { 0, 1, 2, 3, 4, 5, 6, 7, 8 },
        { 6, 7, 8, 0, 1, 2, 3, 4, 5 },
        { 3, 4, 5, 6, 7, 8, 0, 1, 2 },
    };
    cm_error_t err = { "" };
    cm_css_redist_t r = redist(3, 5, 2, 1, 9, 4, 3, 4, 60, 0);
    cm_css_sched_t *s = cm_css_sched_redistribution(&r, &err);
    if (!s)
        fail_msg("%s", err.msg);
    uint64_t com[27];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 9; j++) {
            assert_true(cm_css_sched_size(s, i, j) == paper_com[2 - i][j]);
            com[i * 9 + j] = paper_com[2 - i][j];
        }
    cm_css_period_t pd;
    assert_int_equal(cm_css_sched_period(s, &pd), 0);
    assert_true(pd.period == 60 && pd.exact && pd.m == 8 && pd.n == 15);
    assert_int_equal(pd.s, 3);
    assert_int_equal(pd.t, 3);
    assert_int_equal(cm_css_sched_method(s), CM_CSS_PERIODIC);
    assert_int_equal(cm_css_sched_nsteps(s), 9);
    check_schedule(s, com, 0);
    int used[9] = { 0 };
    for (int k = 0; k < 9; k++) {
        /* the paper's column whose sender 0 (our 2) does what ours does */
        int col = -1;
        for (int c = 0; c < 9; c++)
            if (paper_cs[0][c] == cm_css_sched_peer(s, k, 2))
                col = c;
        assert_true(col >= 0 && !used[col]);
        used[col] = 1;
        for (int i = 0; i < 3; i++)
            assert_int_equal(cm_css_sched_peer(s, k, 2 - i), paper_cs[i][col]);
        for (int i = 1; i < 3; i++)   /* equal lengths in the step */
            assert_true(com[i * 9 + cm_css_sched_peer(s, k, i)] ==
                        com[cm_css_sched_peer(s, k, 0)]);
    }
    /* our first row is the identity, as the paper's */
    for (int k = 0; k < 9; k++)
        assert_int_equal(cm_css_sched_peer(s, k, 0), k);
    cm_css_sched_free(s);
}

/* Example 3 (Fig. 7): A(2i+1) = B(3i+4), i = 0..35, B cyclic(2) on six
 * senders, A cyclic(3) on six receivers: m = 9, n = 4, s = 2, t = 3, so
 * algorithm 2.  Senders 1 and 4 have nothing to send. */
static void test_paper_example3(void **state)
{
    (void)state;
    static const uint64_t com[6][6] = {
        { 1, 2, 1, 2, 1, 2 }, { 0, 0, 0, 0, 0, 0 }, { 1, 2, 1, 2, 1, 2 },
        { 1, 2, 1, 2, 1, 2 }, { 0, 0, 0, 0, 0, 0 }, { 1, 2, 1, 2, 1, 2 },
    };
    cm_error_t err = { "" };
    cm_css_redist_t r = redist(6, 2, 3, 4, 6, 3, 2, 1, 36, 0);
    cm_css_sched_t *s = cm_css_sched_redistribution(&r, &err);
    if (!s)
        fail_msg("%s", err.msg);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            assert_true(cm_css_sched_size(s, i, j) == com[i][j]);
    cm_css_period_t pd;
    assert_int_equal(cm_css_sched_period(s, &pd), 0);
    assert_true(pd.period == 36 && pd.exact && pd.m == 9 && pd.n == 4);
    assert_int_equal(pd.s, 2);
    assert_int_equal(pd.t, 3);
    check_schedule(s, &com[0][0], 0);
    /* Our algorithm 2 keeps one message per sender and step, so it takes
     * more steps than the paper's (which lets Q5 send its two 1s in one
     * step); the colouring takes 6, the largest degree, and is chosen. */
    assert_int_equal(cm_css_sched_method(s), CM_CSS_GENERAL);
    assert_int_equal(cm_css_sched_nsteps(s), 6);
    for (int k = 0; k < 6; k++) {
        assert_int_equal(cm_css_sched_peer(s, k, 1), -1);
        assert_int_equal(cm_css_sched_peer(s, k, 4), -1);
    }
    double general;
    assert_int_equal(cm_css_sched_cost(s, NULL, 0, 1, &general, &err), 0);
    cm_css_sched_free(s);

    /* algorithm 2 itself */
    r.method = CM_CSS_GROUPED;
    s = cm_css_sched_redistribution(&r, &err);
    if (!s)
        fail_msg("%s", err.msg);
    assert_int_equal(cm_css_sched_method(s), CM_CSS_GROUPED);
    check_schedule(s, &com[0][0], 0);
    assert_true(cm_css_sched_nsteps(s) >= 6 && cm_css_sched_nsteps(s) <= 11);
    /* the paper's first step marks the 2s of (0,1), (2,3), (3,5), then a 1
     * of sender 5 (the paper's (5,0); ours (5,4), the first 1 free in the
     * sub-table order of theorem 1, which the extracted text lost) */
    assert_int_equal(cm_css_sched_peer(s, 0, 0), 1);
    assert_int_equal(cm_css_sched_peer(s, 0, 2), 3);
    assert_int_equal(cm_css_sched_peer(s, 0, 3), 5);
    assert_true(cm_css_sched_peer(s, 0, 5) >= 0);
    for (int k = 0; k < cm_css_sched_nsteps(s); k++) {
        assert_int_equal(cm_css_sched_peer(s, k, 1), -1);
        assert_int_equal(cm_css_sched_peer(s, k, 4), -1);
    }
    double grouped;
    assert_int_equal(cm_css_sched_cost(s, NULL, 0, 1, &grouped, &err), 0);
    print_message("example 3: algorithm 2 %d steps, sum of maxima %.0f; colouring 6, %.0f\n",
                  cm_css_sched_nsteps(s), grouped, general);
    cm_css_sched_free(s);

    /* the periodic construction needs s == t */
    r.method = CM_CSS_PERIODIC;
    assert_null(cm_css_sched_redistribution(&r, &err));
    assert_non_null(strstr(err.msg, "needs s == t (here 2 and 3)"));
    r.method = (cm_css_method_t)9;
    assert_null(cm_css_sched_redistribution(&r, &err));
    assert_non_null(strstr(err.msg, "method 9"));
    r.method = 0;
    s = cm_css_sched_redistribution(&r, &err);
    assert_non_null(s);
    double css, classic;
    assert_int_equal(cm_css_sched_cost(s, NULL, 0, 1, &css, &err), 0);
    assert_int_equal(cm_css_classic_cost(6, 6, &com[0][0], 0, 0, 1, &classic, &err), 0);
    print_message("example 3: css %.0f classic %.0f (bandwidth only)\n", css, classic);
    assert_true(css <= classic);
    cm_css_sched_free(s);
}

/* ---- invariants on random inputs ---- */

static void test_random_general(void **state)
{
    (void)state;
    uint64_t st = 15;
    uint64_t *b = malloc(48 * 48 * sizeof *b);
    assert_non_null(b);
    int better = 0, cases = 0;
    for (int iter = 0; iter < 600; iter++) {
        int n = 1 + below(&st, 48);
        int density = below(&st, 101), kind = below(&st, 4);
        for (int i = 0; i < n * n; i++) {
            uint64_t w = 0;
            if (below(&st, 100) < density)
                w = kind == 0 ? 1 + (uint64_t)below(&st, 4)               /* few sizes */
                    : kind == 1 ? 1 + next(&st) % 1000000                  /* uniform */
                    : kind == 2 ? UINT64_C(1) << below(&st, 40)            /* heavy tail */
                    : UINT64_C(1) << 62;                                   /* huge, equal */
            b[i] = w;
        }
        cm_error_t err = { "" };
        cm_css_sched_t *s = cm_css_sched_general(n, b, &err);
        if (!s)
            fail_msg("n %d: %s", n, err.msg);
        check_schedule(s, b, 1);
        assert_int_equal(cm_css_sched_nsteps(s), max_degree(n, n, b, 1));
        double css, classic;
        assert_int_equal(cm_css_sched_cost(s, b, 1e-6, 1e9, &css, &err), 0);
        assert_int_equal(cm_css_classic_cost(n, n, b, 1, 1e-6, 1e9, &classic, &err), 0);
        /* never more steps than the classic ordering: the latency term */
        double lat_css, lat_classic;
        assert_int_equal(cm_css_sched_cost(s, b, 1, 1e300, &lat_css, &err), 0);
        assert_int_equal(cm_css_classic_cost(n, n, b, 1, 1, 1e300, &lat_classic, &err), 0);
        assert_true(lat_css <= lat_classic);
        cases++;
        better += css <= classic * (1 + 1e-12);
        cm_css_sched_free(s);
    }
    print_message("general: %d of %d random matrices no slower than classic\n", better,
                  cases);
    free(b);
}

static void test_random_redistribution(void **state)
{
    (void)state;
    uint64_t st = 3;
    int methods[5] = { 0 };
    double worst = 0;
    for (int iter = 0; iter < 1500; iter++) {
        cm_css_redist_t r = redist(1 + below(&st, 12), 1 + below(&st, 8), 1 + below(&st, 3),
                                   below(&st, 12), 1 + below(&st, 12), 1 + below(&st, 8),
                                   1 + below(&st, 3), below(&st, 12), below(&st, 600),
                                   below(&st, 2));
        if (iter % 3 == 0) {                  /* whole periods: theorem 1 exact */
            r.count = 0;
            cm_error_t e0 = { "" };
            cm_css_sched_t *p = cm_css_sched_redistribution(&r, &e0);
            assert_non_null(p);
            cm_css_period_t pd;
            assert_int_equal(cm_css_sched_period(p, &pd), 0);
            cm_css_sched_free(p);
            if (pd.period == 0 || pd.period > 20000)
                continue;
            r.count = (int64_t)pd.period * (1 + below(&st, 3));
        }
        cm_error_t err = { "" };
        cm_css_sched_t *s = cm_css_sched_redistribution(&r, &err);
        if (!s)
            fail_msg("iter %d: %s", iter, err.msg);
        uint64_t *com = brute_com(&r);
        int Q = r.src_procs, P = r.dst_procs;
        check_schedule(s, com, r.same_ranks);
        cm_css_period_t pd;
        assert_int_equal(cm_css_sched_period(s, &pd), 0);
        assert_int_equal(pd.exact, pd.period && r.count % (int64_t)pd.period == 0);
        cm_css_method_t how = cm_css_sched_method(s);
        if (how == CM_CSS_PERIODIC)
            assert_int_equal(pd.s, pd.t);
        if (how == CM_CSS_GROUPED)
            assert_int_not_equal(pd.s, pd.t);
        if (pd.exact && pd.s == pd.t && pd.m % (uint64_t)Q && gcd_u64(pd.m, Q) == 1 &&
            !r.same_ranks)
            assert_int_equal(how, CM_CSS_PERIODIC);    /* the paper's case: kept */
        methods[how]++;
        if (pd.exact)                          /* theorem 1 */
            for (int i = 0; i < Q; i++)
                for (int j = 0; j < P; j++)
                    assert_true(com[i * P + j] ==
                                com[(int)((i + pd.m) % (uint64_t)Q) * P +
                                    (int)((j + pd.n) % (uint64_t)P)]);
        int deg = max_degree(Q, P, com, r.same_ranks);
        if (cm_css_sched_method(s) == CM_CSS_GENERAL ||
            (cm_css_sched_method(s) == CM_CSS_PERIODIC && pd.exact && !r.same_ranks))
            assert_int_equal(cm_css_sched_nsteps(s), deg);
        else if (how == CM_CSS_GROUPED)      /* greedy: maximal matchings */
            assert_true(cm_css_sched_nsteps(s) <= (deg ? 2 * deg - 1 : 0));
        assert_true(cm_css_sched_nsteps(s) >= deg);
        /* one orbit per step (one coset on a side): one length per step */
        if (how == CM_CSS_PERIODIC && pd.exact && (Q == pd.s || P == pd.t))
            for (int k = 0; k < cm_css_sched_nsteps(s); k++) {
                uint64_t len = 0;
                for (int u = 0; u < Q; u++) {
                    int v = cm_css_sched_peer(s, k, u);
                    if (v < 0 || (r.same_ranks && u == v))
                        continue;
                    if (!len)
                        len = com[u * P + v];
                    assert_true(com[u * P + v] == len);
                }
            }
        /* never worse than the classic ordering, whatever the network */
        static const double model[][2] = { { 0, 1 }, { 1e-6, 1e9 }, { 1e-5, 1e8 },
                                           { 1, 1e300 } };
        for (size_t k = 0; k < sizeof model / sizeof model[0]; k++) {
            double css, classic;
            assert_int_equal(cm_css_sched_cost(s, NULL, model[k][0], model[k][1], &css,
                                               &err), 0);
            assert_int_equal(cm_css_classic_cost(Q, P, com, r.same_ranks, model[k][0],
                                                 model[k][1], &classic, &err), 0);
            if (classic > 0 && css / classic > worst)
                worst = css / classic;
            if (css > classic * (1 + 1e-12))
                fail_msg("iter %d: %d x %d cyclic(%lld)->cyclic(%lld) strides %lld %lld "
                         "count %lld same %d method %d: css %g > classic %g (model %zu)",
                         iter, Q, P, (long long)r.src_block, (long long)r.dst_block,
                         (long long)r.src_stride, (long long)r.dst_stride,
                         (long long)r.count, r.same_ranks, cm_css_sched_method(s), css,
                         classic, k);
        }
        free(com);
        cm_css_sched_free(s);
    }
    print_message("redistributions: periodic %d grouped %d general %d classic %d; worst "
                  "css/classic %.3f\n", methods[CM_CSS_PERIODIC], methods[CM_CSS_GROUPED],
                  methods[CM_CSS_GENERAL], methods[CM_CSS_CLASSIC], worst);
}

/* Each method forced: the same invariants; the classic ordering as a
 * schedule costs what cm_css_classic_cost says. */
static void test_forced_methods(void **state)
{
    (void)state;
    uint64_t st = 7;
    for (int iter = 0; iter < 300; iter++) {
        cm_css_redist_t r = redist(1 + below(&st, 10), 1 + below(&st, 6), 1 + below(&st, 3),
                                   below(&st, 9), 1 + below(&st, 10), 1 + below(&st, 6),
                                   1 + below(&st, 3), below(&st, 9), below(&st, 400),
                                   below(&st, 2));
        uint64_t *com = brute_com(&r);
        int Q = r.src_procs, P = r.dst_procs;
        for (int m = CM_CSS_PERIODIC; m <= CM_CSS_CLASSIC; m++) {
            cm_error_t err = { "" };
            r.method = (cm_css_method_t)m;
            cm_css_sched_t *s = cm_css_sched_redistribution(&r, &err);
            cm_css_period_t pd = { 0 };
            if (!s) {       /* only the periodic construction may refuse */
                assert_int_equal(m, CM_CSS_PERIODIC);
                assert_non_null(strstr(err.msg, "needs s == t"));
                continue;
            }
            assert_int_equal(cm_css_sched_period(s, &pd), 0);
            assert_int_equal(cm_css_sched_method(s), m);
            check_schedule(s, com, r.same_ranks);
            if (m == CM_CSS_GENERAL)
                assert_int_equal(cm_css_sched_nsteps(s), max_degree(Q, P, com, r.same_ranks));
            double a, b;
            assert_int_equal(cm_css_sched_cost(s, com, 1e-6, 1e9, &a, &err), 0);
            assert_int_equal(cm_css_sched_cost(s, NULL, 1e-6, 1e9, &b, &err), 0);
            assert_true(a == b);
            if (m == CM_CSS_CLASSIC) {
                assert_int_equal(cm_css_classic_cost(Q, P, com, r.same_ranks, 1e-6, 1e9, &b,
                                                     &err), 0);
                assert_true(fabs(a - b) <= 1e-12 * b);
            }
            cm_css_sched_free(s);
        }
        free(com);
    }
}

/* Degenerate exchanges and the size limits. */
static void test_edges_and_limits(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    uint64_t one = 5, zero[9] = { 0 }, diag[4] = { 7, 0, 0, 7 };
    const struct {
        int n;
        const uint64_t *b;
    } empty[] = { { 1, &one }, { 3, zero }, { 2, diag } };
    for (size_t k = 0; k < sizeof empty / sizeof empty[0]; k++) {
        cm_css_sched_t *s = cm_css_sched_general(empty[k].n, empty[k].b, &err);
        assert_non_null(s);
        assert_int_equal(cm_css_sched_nsteps(s), 0);
        double c = -1;
        assert_int_equal(cm_css_sched_cost(s, NULL, 1, 1, &c, &err), 0);
        assert_true(c == 0);
        cm_css_sched_free(s);
    }
    /* nothing to move */
    cm_css_redist_t r = redist(4, 2, 1, 0, 3, 5, 1, 0, 0, 0);
    cm_css_sched_t *s = cm_css_sched_redistribution(&r, &err);
    assert_non_null(s);
    assert_int_equal(cm_css_sched_nsteps(s), 0);
    cm_css_sched_free(s);
    /* one process each side, same rank: a local copy only */
    r = redist(1, 2, 1, 0, 1, 5, 1, 0, 100, 1);
    s = cm_css_sched_redistribution(&r, &err);
    assert_non_null(s);
    assert_int_equal(cm_css_sched_nsteps(s), 0);
    assert_true(cm_css_sched_size(s, 0, 0) == 100);
    cm_css_sched_free(s);
    /* a size table that fits, a step table that does not: 65536 senders
     * to 64 receivers, 1024 messages for each receiver */
    r = redist(65536, 1, 1, 0, 64, 1, 1, 0, 65536 * 64, 0);
    assert_null(cm_css_sched_redistribution(&r, &err));
    assert_non_null(strstr(err.msg, "more than 16777216 cells"));
    /* and a large one that fits: 2048 x 2048, cyclic(64) to cyclic(48) */
    r = redist(2048, 64, 1, 0, 2048, 48, 1, 0, INT64_C(1) << 30, 1);
    s = cm_css_sched_redistribution(&r, &err);
    if (!s)
        fail_msg("%s", err.msg);
    assert_true(cm_css_sched_nsteps(s) >= 1 && cm_css_sched_nsteps(s) <= 9);
    cm_css_sched_free(s);
}

/* ---- nodes: several ranks per node ---- */

/* Same peers in every step: the schedules are identical. */
static void assert_same_sched(const cm_css_sched_t *a, const cm_css_sched_t *b)
{
    assert_int_equal(cm_css_sched_nsteps(a), cm_css_sched_nsteps(b));
    for (int k = 0; k < cm_css_sched_nsteps(a); k++)
        for (int u = 0; u < cm_css_sched_nsenders(a); u++)
            assert_int_equal(cm_css_sched_peer(a, k, u), cm_css_sched_peer(b, k, u));
}

static void test_nodes(void **state)
{
    (void)state;
    uint64_t st = 77;
    uint64_t *b = malloc(64 * 64 * sizeof *b), node[64], one[64], own[64];
    assert_non_null(b);
    double gain = 0;
    for (int iter = 0; iter < 200; iter++) {
        int per = 1 + below(&st, 8), n = per * (2 + below(&st, 7));
        int density = 10 + below(&st, 91);
        for (int i = 0; i < n * n; i++)
            b[i] = below(&st, 100) < density ? 1 + next(&st) % 1000000 : 0;
        for (int i = 0; i < n; i++) {
            node[i] = UINT64_C(0xabc) * (uint64_t)(i / per) + 5;   /* any labels */
            one[i] = 42;
            own[i] = (uint64_t)i * 7;
        }
        cm_error_t err = { "" };
        cm_css_sched_t *g = cm_css_sched_general(n, b, &err);
        cm_css_sched_t *s = cm_css_sched_general_nodes(n, b, node, &err);
        cm_css_sched_t *s2 = cm_css_sched_general_nodes(n, b, node, &err);
        if (!g || !s || !s2)
            fail_msg("n %d: %s", n, err.msg);
        check_schedule(s, b, 1);
        assert_same_sched(s, s2);                 /* deterministic */
        assert_int_equal(cm_css_sched_nsteps(s), max_degree(n, n, b, 1));
        /* never worse than the plain colouring in either model */
        double gn, sn, gm, sm;
        assert_int_equal(cm_css_sched_cost_nodes(g, b, node, 0, 1, &gn, &err), 0);
        assert_int_equal(cm_css_sched_cost_nodes(s, b, node, 0, 1, &sn, &err), 0);
        assert_int_equal(cm_css_sched_cost(g, b, 0, 1, &gm, &err), 0);
        assert_int_equal(cm_css_sched_cost(s, b, 0, 1, &sm, &err), 0);
        assert_true(sn <= gn && sm <= gm);
        gain += gn > 0 ? sn / gn : 1;
        /* one node for all, or one per rank: the plain colouring */
        cm_css_sched_t *t = cm_css_sched_general_nodes(n, b, one, &err);
        assert_non_null(t);
        assert_same_sched(t, g);
        cm_css_sched_free(t);
        t = cm_css_sched_general_nodes(n, b, own, &err);
        assert_non_null(t);
        assert_same_sched(t, g);
        cm_css_sched_free(t);
        /* with one node per rank, the node model is the message model */
        double c1, c2;
        assert_int_equal(cm_css_sched_cost_nodes(g, b, NULL, 1e-6, 1e9, &c1, &err), 0);
        assert_int_equal(cm_css_sched_cost(g, b, 1e-6, 1e9, &c2, &err), 0);
        assert_true(c1 == c2);
        assert_int_equal(cm_css_classic_cost_nodes(n, b, own, 1e-6, 1e9, &c1, &err), 0);
        assert_int_equal(cm_css_classic_cost(n, n, b, 1, 1e-6, 1e9, &c2, &err), 0);
        assert_true(fabs(c1 - c2) <= 1e-12 * c2);
        cm_css_sched_free(g);
        cm_css_sched_free(s);
        cm_css_sched_free(s2);
    }
    print_message("nodes: node-model cost %.3f of the plain colouring's on average\n",
                  gain / 200);
    /* a hand case: 2 nodes of 2 ranks (0, 1 | 2, 3), each rank sends 10 to
     * every other rank: 3 steps, 4 messages per node link, so one step
     * carries 20 on it; the plain colouring (one length: any steps do)
     * happens to make that two steps, 20 + 20 + 10 (the two ranks of a
     * node exchanging in the same step); balanced, 20 + 10 + 10 */
    uint64_t h[16] = { 0, 10, 10, 10, 10, 0, 10, 10, 10, 10, 0, 10, 10, 10, 10, 0 };
    uint64_t lab[4] = { 9, 9, 3, 3 };
    cm_error_t err = { "" };
    cm_css_sched_t *s = cm_css_sched_general_nodes(4, h, lab, &err);
    cm_css_sched_t *g = cm_css_sched_general(4, h, &err);
    assert_non_null(s);
    assert_non_null(g);
    check_schedule(s, h, 1);
    double c, cg;
    assert_int_equal(cm_css_sched_cost_nodes(s, h, lab, 0, 1, &c, &err), 0);
    assert_int_equal(cm_css_sched_cost_nodes(g, h, lab, 0, 1, &cg, &err), 0);
    print_message("nodes: hand case %.0f, plain colouring %.0f\n", c, cg);
    assert_true(c == 40 && c <= cg);
    cm_css_sched_free(g);
    /* arguments */
    assert_int_equal(cm_css_sched_cost_nodes(NULL, h, lab, 0, 1, &c, &err), -1);
    assert_int_equal(cm_css_sched_cost_nodes(s, h, lab, -1, 1, &c, &err), -1);
    assert_int_equal(cm_css_classic_cost_nodes(0, h, lab, 0, 1, &c, &err), -1);
    assert_int_equal(cm_css_classic_cost_nodes(4, NULL, lab, 0, 1, &c, &err), -1);
    cm_css_sched_free(s);
    assert_true(cm_css_node_label("n1") == cm_css_node_label("n1"));
    assert_true(cm_css_node_label("n1") != cm_css_node_label("n2"));
    free(b);
}

static void test_nearly_uniform(void **state)
{
    (void)state;
    uint64_t b[9] = { 5, 100, 100, 100, 7, 100, 100, 100, 0 };
    assert_true(cm_css_nearly_uniform(3, b));      /* the diagonal is ignored */
    b[1] = 105;                                    /* 5 % above the smallest */
    assert_true(cm_css_nearly_uniform(3, b));
    b[1] = 106;
    assert_false(cm_css_nearly_uniform(3, b));
    b[1] = 100;
    b[2] = 0;                                      /* not dense */
    assert_false(cm_css_nearly_uniform(3, b));
    uint64_t z[4] = { 3, 0, 0, 3 };                /* nothing to send */
    assert_true(cm_css_nearly_uniform(2, z));
    /* block -> cyclic(48) at 64 ranks (bench/sim/css): 65,280 and 65,664 */
    uint64_t *d = malloc(64 * 64 * sizeof *d);
    assert_non_null(d);
    for (int i = 0; i < 64 * 64; i++)
        d[i] = i % 3 ? 65280 : 65664;
    assert_true(cm_css_nearly_uniform(64, d));
    free(d);
}

/* ---- the model on a few larger cases ---- */

static void test_cost_ratios(void **state)
{
    (void)state;
    const struct {
        cm_css_redist_t r;
        const char *name;
    } cases[] = {
        { redist(5, 3, 2, 1, 5, 4, 3, 4, 60 * 1000, 0), "example 1 x1000" },
        { redist(64, 3, 1, 0, 64, 4, 1, 0, 1 << 20, 1), "64: cyclic(3)->cyclic(4), 1M" },
        { redist(48, 5, 1, 0, 64, 7, 1, 0, 1 << 20, 1), "48->64: cyclic(5)->cyclic(7)" },
        { redist(64, 2, 3, 4, 64, 3, 2, 1, 1 << 20, 1), "64: example 3's loop" },
        { redist(256, 16, 1, 0, 256, 24, 1, 0, 1 << 24, 1), "256: cyclic(16)->cyclic(24)" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cm_error_t err = { "" };
        cm_css_sched_t *s = cm_css_sched_redistribution(&cases[k].r, &err);
        if (!s)
            fail_msg("%s: %s", cases[k].name, err.msg);
        int Q = cases[k].r.src_procs, P = cases[k].r.dst_procs;
        uint64_t *b = malloc((size_t)Q * (size_t)P * sizeof *b);
        assert_non_null(b);
        sizes(s, b);
        for (int i = 0; i < Q * P; i++)
            b[i] *= 8;                        /* doubles */
        double css_bw, cl_bw, css_lat, cl_lat;
        assert_int_equal(cm_css_sched_cost(s, b, 0, 1e9, &css_bw, &err), 0);
        assert_int_equal(cm_css_classic_cost(Q, P, b, cases[k].r.same_ranks, 0, 1e9, &cl_bw,
                                             &err), 0);
        assert_int_equal(cm_css_sched_cost(s, b, 2e-6, 1e9, &css_lat, &err), 0);
        assert_int_equal(cm_css_classic_cost(Q, P, b, cases[k].r.same_ranks, 2e-6, 1e9,
                                             &cl_lat, &err), 0);
        print_message("%-32s method %d steps %3d: css/classic %.3f (bandwidth), %.3f "
                      "(2 us, 1 GB/s)\n", cases[k].name, cm_css_sched_method(s),
                      cm_css_sched_nsteps(s), css_bw / cl_bw, css_lat / cl_lat);
        assert_true(css_bw <= cl_bw && css_lat <= cl_lat);
        free(b);
        cm_css_sched_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_paper_example1),
        cmocka_unit_test(test_paper_fig2c),
        cmocka_unit_test(test_paper_example2),
        cmocka_unit_test(test_paper_example3),
        cmocka_unit_test(test_random_general),
        cmocka_unit_test(test_random_redistribution),
        cmocka_unit_test(test_forced_methods),
        cmocka_unit_test(test_edges_and_limits),
        cmocka_unit_test(test_cost_ratios),
        cmocka_unit_test(test_nodes),
        cmocka_unit_test(test_nearly_uniform),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
