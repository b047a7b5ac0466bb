/* test_pack.c -- cluster packing (src/core/pack.c): the three rules of
 * seed 000 on the three scenarios its section 4.4.2 uses to motivate them,
 * the adaptive choice, capacities, and seed 002's capacity shares.
 *
 * Notation in the comments: clusters c0..c(k-1) (index = order of their
 * smallest rank), children ch0.., "ch0 (3)" = 3 free slots left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cluster_internal.h"

#define LOW  CM_PACK_LOW_DEFAULT
#define HIGH CM_PACK_HIGH_DEFAULT
#define KMAX CM_PACK_KMAX_DEFAULT

typedef struct result {
    int npieces;
    int assign[64];
    cm_pack_piece_t pieces[128];
    int load[16];      /* ranks per child */
    int splits;        /* clusters split */
    int untouched;     /* children that received nothing */
} result_t;

static void run(cm_pack_rule_t rule, const int *sizes, int k,
                const int *free_slots, int nchildren, result_t *r)
{
    cm_error_t err = { "" };
    memset(r, 0, sizeof *r);
    r->npieces = cm_pack(rule, sizes, NULL, k, free_slots, nchildren,
                         r->assign, r->pieces, &err);
    if (r->npieces < 0)
        fail_msg("cm_pack(%s): %s", cm_pack_rule_name(rule), err.msg);
    assert_true(r->npieces <= CM_PACK_MAX_PIECES(k, nchildren));
    int got[64] = {0};
    for (int i = 0; i < r->npieces; i++) {
        const cm_pack_piece_t *pc = &r->pieces[i];
        assert_true(pc->count >= 1);
        r->load[pc->child] += pc->count;
        got[pc->cluster] += pc->count;
    }
    for (int c = 0; c < k; c++) {
        assert_int_equal(got[c], sizes[c]);
        r->splits += r->assign[c] < 0;
    }
    for (int ch = 0; ch < nchildren; ch++) {
        assert_true(r->load[ch] <= free_slots[ch]);   /* capacity */
        r->untouched += r->load[ch] == 0;
    }
}

/* Expected pieces, as {cluster, child, count} triples in placement order. */
static void expect(const result_t *r, const int (*want)[3], int n)
{
    assert_int_equal(r->npieces, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(r->pieces[i].cluster, want[i][0]);
        assert_int_equal(r->pieces[i].child, want[i][1]);
        assert_int_equal(r->pieces[i].count, want[i][2]);
    }
}

/* Scenario (a), balanced sizes without noise: Plain keeps every cluster
 * whole where First-Fit, by sorting, breaks one.
 * sizes 9 10 11 10 9 11 on two children of 30; mean 10, stdev sqrt(4/6)
 * = 0.816, spread 0.082 < 0.10 -> Plain.
 * Plain: c0 c1 c2 = 30 fill ch0, c3 c4 c5 = 30 fill ch1: no split.
 * First-Fit: order c2(11) c5(11) c1(10) c3(10) c0(9) c4(9):
 *   c2 -> ch0 (19), c5 -> ch0 (8), c1 -> ch1 (20), c3 -> ch1 (10),
 *   c0 -> ch1 (1), c4 fits nowhere (8, 1): split, most room first:
 *   8 -> ch0, 1 -> ch1.
 * Most-Reservation places in rank order into the child in use: as Plain. */
static void test_scenario_balanced(void **state)
{
    (void)state;
    const int sizes[] = {9, 10, 11, 10, 9, 11}, fr[] = {30, 30};
    assert_int_equal(cm_pack_choose(sizes, 6, LOW, HIGH, KMAX), CM_PACK_PLAIN);
    result_t r;
    run(CM_PACK_PLAIN, sizes, 6, fr, 2, &r);
    static const int plain[][3] = {
        {0, 0, 9}, {1, 0, 10}, {2, 0, 11}, {3, 1, 10}, {4, 1, 9}, {5, 1, 11}};
    expect(&r, plain, 6);
    assert_int_equal(r.splits, 0);

    run(CM_PACK_FIRST_FIT, sizes, 6, fr, 2, &r);
    static const int ff[][3] = {
        {2, 0, 11}, {5, 0, 11}, {1, 1, 10}, {3, 1, 10}, {0, 1, 9},
        {4, 0, 8}, {4, 1, 1}};
    expect(&r, ff, 7);
    assert_int_equal(r.splits, 1);
    assert_int_equal(r.assign[4], -1);

    run(CM_PACK_MOST_RESERVATION, sizes, 6, fr, 2, &r);
    expect(&r, plain, 6);
}

/* Scenario (b), very unequal sizes and much noise: First-Fit places the
 * big clusters first and keeps them whole, the others break them.
 * sizes 2 1 7 3 7 1 2 1 on three children of 8; mean 3, variance 46/8,
 * spread 2.398/3 = 0.80 > 0.50 and k = 8 < 64 -> First-Fit.
 * First-Fit: order c2(7) c4(7) c3(3) c0(2) c6(2) c1 c5 c7 (1 each):
 *   c2 -> ch0 (1), c4 -> ch1 (1), c3 -> ch2 (5), c0 -> ch2 (3),
 *   c6 -> ch2 (1), c1 -> ch0 (0), c5 -> ch1 (0), c7 -> ch2 (0): no split.
 * Plain: c0 c1 -> ch0 (5); c2: 5 -> ch0, 2 -> ch1; c3 -> ch1 (3);
 *   c4: 3 -> ch1, 4 -> ch2; c5 c6 c7 -> ch2: both big clusters broken.
 * Most-Reservation: c0 -> ch0 (6), c1 -> ch0 (5), c2 -> ch1 (1),
 *   c3 -> ch0 (2), c4 -> ch2 (1), c5 -> ch0 (1), c6 (2) fits nowhere:
 *   holes of 1 in ch0 and ch1; c7 -> ch2: one noise cluster split. */
static void test_scenario_noise(void **state)
{
    (void)state;
    const int sizes[] = {2, 1, 7, 3, 7, 1, 2, 1}, fr[] = {8, 8, 8};
    assert_int_equal(cm_pack_choose(sizes, 8, LOW, HIGH, KMAX),
                     CM_PACK_FIRST_FIT);
    result_t r;
    run(CM_PACK_FIRST_FIT, sizes, 8, fr, 3, &r);
    static const int ff[][3] = {
        {2, 0, 7}, {4, 1, 7}, {3, 2, 3}, {0, 2, 2}, {6, 2, 2},
        {1, 0, 1}, {5, 1, 1}, {7, 2, 1}};
    expect(&r, ff, 8);
    assert_int_equal(r.splits, 0);

    run(CM_PACK_PLAIN, sizes, 8, fr, 3, &r);
    static const int plain[][3] = {
        {0, 0, 2}, {1, 0, 1}, {2, 0, 5}, {2, 1, 2}, {3, 1, 3},
        {4, 1, 3}, {4, 2, 4}, {5, 2, 1}, {6, 2, 2}, {7, 2, 1}};
    expect(&r, plain, 10);
    assert_int_equal(r.assign[2], -1);
    assert_int_equal(r.assign[4], -1);

    run(CM_PACK_MOST_RESERVATION, sizes, 8, fr, 3, &r);
    static const int mr[][3] = {
        {0, 0, 2}, {1, 0, 1}, {2, 1, 7}, {3, 0, 3}, {4, 2, 7},
        {5, 0, 1}, {6, 0, 1}, {6, 1, 1}, {7, 2, 1}};
    expect(&r, mr, 9);
    assert_int_equal(r.splits, 1);
    assert_int_equal(r.assign[6], -1);
    /* With more clusters than T_k the same spread selects MR. */
    assert_int_equal(cm_pack_choose(sizes, 8, LOW, HIGH, 8),
                     CM_PACK_MOST_RESERVATION);
}

/* Scenario (c), sizes in between on children of unequal room (seed 002:
 * heterogeneous nodes): Most-Reservation splits fewer clusters than both.
 * sizes 4 5 5 4 4, free 8 4 5 5; mean 4.4, variance 1.2/5, spread 0.111
 * in [0.10, 0.50] -> Most-Reservation.
 * MR: c0 -> ch0 (4); c1: no child in use fits, first untouched with room
 *   5 is ch2 (0); c2 -> ch3 (0); c3 -> ch0, in use (0); c4 -> ch1: none split.
 * Plain: c0 -> ch0 (4); c1: 4 -> ch0, 1 -> ch1; c2: 3 -> ch1, 2 -> ch2;
 *   c3: 3 -> ch2, 1 -> ch3; c4 -> ch3: three split.
 * First-Fit: c1 -> ch0 (3), c2 -> ch2 (0), c0 -> ch1 (0), c3 -> ch3 (1),
 *   c4 fits nowhere (3, 0, 0, 1): 3 -> ch0, 1 -> ch3: one split. */
static void test_scenario_between(void **state)
{
    (void)state;
    const int sizes[] = {4, 5, 5, 4, 4}, fr[] = {8, 4, 5, 5};
    assert_int_equal(cm_pack_choose(sizes, 5, LOW, HIGH, KMAX),
                     CM_PACK_MOST_RESERVATION);
    result_t r;
    run(CM_PACK_MOST_RESERVATION, sizes, 5, fr, 4, &r);
    static const int mr[][3] = {
        {0, 0, 4}, {1, 2, 5}, {2, 3, 5}, {3, 0, 4}, {4, 1, 4}};
    expect(&r, mr, 5);
    assert_int_equal(r.splits, 0);

    run(CM_PACK_PLAIN, sizes, 5, fr, 4, &r);
    static const int plain[][3] = {
        {0, 0, 4}, {1, 0, 4}, {1, 1, 1}, {2, 1, 3}, {2, 2, 2},
        {3, 2, 3}, {3, 3, 1}, {4, 3, 4}};
    expect(&r, plain, 8);
    assert_int_equal(r.splits, 3);

    run(CM_PACK_FIRST_FIT, sizes, 5, fr, 4, &r);
    static const int ff[][3] = {
        {1, 0, 5}, {2, 2, 5}, {0, 1, 4}, {3, 3, 4}, {4, 0, 3}, {4, 3, 1}};
    expect(&r, ff, 6);
    assert_int_equal(r.splits, 1);
}

/* Room to spare: two clusters of 4 on children with 3, 8, 5, 8 free.
 * Plain: c0: 3 -> ch0, 1 -> ch1; c1 -> ch1: ch2, ch3 stay whole (2).
 * MR: c0 -> ch1 (first with room), c1 -> ch1 (in use): ch0, ch2, ch3
 * stay whole (3), and nothing is split. */
static void test_reservation_keeps_children_whole(void **state)
{
    (void)state;
    const int sizes[] = {4, 4}, fr[] = {3, 8, 5, 8};
    result_t plain, mr, ff;
    run(CM_PACK_PLAIN, sizes, 2, fr, 4, &plain);
    run(CM_PACK_MOST_RESERVATION, sizes, 2, fr, 4, &mr);
    assert_int_equal(plain.untouched, 2);
    assert_int_equal(mr.untouched, 3);
    assert_int_equal(mr.assign[0], 1);
    assert_int_equal(mr.assign[1], 1);
    /* Against First-Fit: sizes 5 3 on free 4 8.  FF: c0 -> ch1 (3),
     * c1 -> ch0, the first child with room: nothing stays whole.
     * MR: c0 -> ch1 (3), c1 -> ch1, in use: ch0 stays whole. */
    const int s2[] = {5, 3}, f2[] = {4, 8};
    run(CM_PACK_FIRST_FIT, s2, 2, f2, 2, &ff);
    run(CM_PACK_MOST_RESERVATION, s2, 2, f2, 2, &mr);
    assert_int_equal(ff.untouched, 0);
    assert_int_equal(mr.untouched, 1);
    assert_int_equal(mr.assign[1], 1);
}

/* First-Fit splits only when no child has room for the whole cluster. */
static void test_first_fit_splits_only_when_needed(void **state)
{
    (void)state;
    /* 6 fits ch1 although ch0 (5) comes first: whole into ch1. */
    const int s1[] = {6}, f1[] = {5, 6, 6};
    result_t r;
    run(CM_PACK_FIRST_FIT, s1, 1, f1, 3, &r);
    assert_int_equal(r.npieces, 1);
    assert_int_equal(r.assign[0], 1);
    /* 7 fits nowhere (5, 6, 6): split, most room first: 6 -> ch1, 1 -> ch2. */
    const int s2[] = {7}, f2[] = {5, 6, 6};
    run(CM_PACK_FIRST_FIT, s2, 1, f2, 3, &r);
    static const int want[][3] = {{0, 1, 6}, {0, 2, 1}};
    expect(&r, want, 2);
    assert_int_equal(r.assign[0], -1);
}

/* Most-Reservation's split: the holes of children in use take what they
 * can before an untouched child is opened.  c0(6) -> ch0 (2), c1(6) ->
 * ch1 (2), c2(4) fits no child in use; untouched ch2 has room: whole.
 * c3(4): holes 2 + 2 + 4 (ch2 in use) -> ch2. */
static void test_reservation_split(void **state)
{
    (void)state;
    const int s[] = {6, 6, 4, 4, 3}, f[] = {8, 8, 8, 8};
    result_t r;
    run(CM_PACK_MOST_RESERVATION, s, 5, f, 4, &r);
    /* c4(3): no child in use has 3 (2, 2, 0); untouched ch3 -> whole. */
    static const int want[][3] = {
        {0, 0, 6}, {1, 1, 6}, {2, 2, 4}, {3, 2, 4}, {4, 3, 3}};
    expect(&r, want, 5);
    /* 12 on 8 8 8, nothing in use: an untouched child (most room, lowest
     * index) takes 8; no hole is left, so ch1 takes the other 4. */
    const int s2[] = {12}, f2[] = {8, 8, 8};
    run(CM_PACK_MOST_RESERVATION, s2, 1, f2, 3, &r);
    static const int want2[][3] = {{0, 0, 8}, {0, 1, 4}};
    expect(&r, want2, 2);
    assert_int_equal(r.untouched, 1);
    /* c0(5) -> ch0 (3); c1(12): the hole (3) cannot take 12: ch1 takes 8,
     * the rest 4 still exceeds the hole: ch2 takes it. */
    const int s3[] = {5, 12}, f3[] = {8, 8, 8};
    run(CM_PACK_MOST_RESERVATION, s3, 2, f3, 3, &r);
    static const int want3[][3] = {{0, 0, 5}, {1, 1, 8}, {1, 2, 4}};
    expect(&r, want3, 3);
    /* c0(5) -> ch0 (3); c1(11): holes 3 < 11: ch1 takes 8, rest 3 = holes:
     * into ch0's hole, ch2 stays whole (Plain would end in ch2). */
    const int s4[] = {5, 11}, f4[] = {8, 8, 8};
    run(CM_PACK_MOST_RESERVATION, s4, 2, f4, 3, &r);
    static const int want4[][3] = {{0, 0, 5}, {1, 1, 8}, {1, 0, 3}};
    expect(&r, want4, 3);
    assert_int_equal(r.untouched, 1);
}

static void test_min_rank_order(void **state)
{
    (void)state;
    /* Plain follows the smallest ranks, not the index. */
    const int sizes[] = {2, 3}, minr[] = {7, 0}, fr[] = {3, 2};
    int assign[2];
    cm_pack_piece_t pc[4];
    int np = cm_pack(CM_PACK_PLAIN, sizes, minr, 2, fr, 2, assign, pc, NULL);
    assert_int_equal(np, 2);
    assert_int_equal(assign[1], 0);
    assert_int_equal(assign[0], 1);
}

static void test_errors(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    int assign[2];
    cm_pack_piece_t pc[4];
    const int sizes[] = {3, 3}, fr[] = {2, 3};
    assert_int_equal(cm_pack(CM_PACK_PLAIN, sizes, NULL, 2, fr, 2, assign, pc,
                             &err), -1);
    assert_non_null(strstr(err.msg, "do not fit"));
    assert_string_equal(err.msg, "cm_pack: 6 ranks in 2 clusters do not fit "
                        "in the 5 free slots of 2 children");
    const int bad[] = {0, 1};
    assert_int_equal(cm_pack(CM_PACK_FIRST_FIT, bad, NULL, 2, fr, 2, assign,
                             pc, &err), -1);
    assert_non_null(strstr(err.msg, "size >= 1"));
    assert_int_equal(cm_pack(CM_PACK_NRULES, sizes, NULL, 2, fr, 2, assign,
                             pc, &err), -1);
    assert_string_equal(err.msg, "cm_pack: unknown rule 3 (expected 0 to 2)");
}

static void test_choose_and_spread(void **state)
{
    (void)state;
    const int eq[] = {4, 4, 4, 4};
    assert_true(cm_pack_spread(eq, 4) == 0.0);
    assert_int_equal(cm_pack_choose(eq, 4, LOW, HIGH, KMAX), CM_PACK_PLAIN);
    const int one[] = {5};
    assert_int_equal(cm_pack_choose(one, 1, LOW, HIGH, KMAX), CM_PACK_PLAIN);
    /* 1 and 3: mean 2, stdev 1, spread 0.5: not above T_h -> MR. */
    const int two[] = {1, 3};
    assert_int_equal(cm_pack_choose(two, 2, LOW, HIGH, KMAX),
                     CM_PACK_MOST_RESERVATION);
    const int far[] = {1, 9};
    assert_int_equal(cm_pack_choose(far, 2, LOW, HIGH, KMAX),
                     CM_PACK_FIRST_FIT);
    assert_int_equal(cm_pack_choose(far, 2, LOW, HIGH, 2),
                     CM_PACK_MOST_RESERVATION);
    assert_string_equal(cm_pack_rule_name(CM_PACK_FIRST_FIT), "first-fit");
}

/* Randomised: every rule respects capacity and places every rank, and
 * First-Fit splits a cluster only when, at its turn, no child had room. */
static void test_random_capacity(void **state)
{
    (void)state;
    cm_rng_t rng;
    cm_rng_seed(&rng, 42);
    for (int it = 0; it < 300; it++) {
        int nc = 1 + (int)cm_rng_below(&rng, 6), fr[8], room = 0;
        for (int ch = 0; ch < nc; ch++) {
            fr[ch] = (int)cm_rng_below(&rng, 10);
            room += fr[ch];
        }
        int sizes[32], k = 0, need = 0;
        int fill = room - (int)cm_rng_below(&rng, 3);
        while (k < 32 && need < fill) {
            int s = 1 + (int)cm_rng_below(&rng, 7);
            if (need + s > fill)
                s = fill - need;
            sizes[k++] = s;
            need += s;
        }
        for (int rule = 0; rule < CM_PACK_NRULES; rule++) {
            result_t r;
            run((cm_pack_rule_t)rule, sizes, k, fr, nc, &r);
            if (rule != CM_PACK_FIRST_FIT)
                continue;
            /* Replay: before each split, no child had room. */
            int left[8];
            memcpy(left, fr, sizeof left);
            for (int i = 0; i < r.npieces;) {
                int c = r.pieces[i].cluster, j = i;
                while (j < r.npieces && r.pieces[j].cluster == c)
                    j++;
                if (j - i > 1)
                    for (int ch = 0; ch < nc; ch++)
                        assert_true(left[ch] < sizes[c]);
                for (; i < j; i++)
                    left[r.pieces[i].child] -= r.pieces[i].count;
            }
        }
    }
}

static void test_capacity_shares(void **state)
{
    (void)state;
    int share[4];
    const int cap[] = {4, 8, 12, 8};
    /* Full: every child full. */
    assert_int_equal(cm_capacity_shares(32, cap, NULL, 4, share, NULL), 0);
    assert_int_equal(share[0], 4);
    assert_int_equal(share[2], 12);
    /* 16 of 32 slots: the fewest children that hold 16 are ch2 (12) and
     * ch1 (8, first of the 8s); 16 x 8/20 = 6.4, 16 x 12/20 = 9.6 -> 6 9,
     * the larger remainder (.6) rounds up: 0 6 10 0. */
    assert_int_equal(cm_capacity_shares(16, cap, NULL, 4, share, NULL), 0);
    assert_int_equal(share[0], 0);
    assert_int_equal(share[1], 6);
    assert_int_equal(share[2], 10);
    assert_int_equal(share[3], 0);
    /* Speed: cap x speed = 8 8 12 8: ch2 then ch0 (first of the 8s) hold
     * exactly 16: both full. */
    const double speed[] = {2, 1, 1, 1};
    assert_int_equal(cm_capacity_shares(16, cap, speed, 4, share, NULL), 0);
    assert_int_equal(share[0], 4);
    assert_int_equal(share[1], 0);
    assert_int_equal(share[2], 12);
    assert_int_equal(share[3], 0);
    /* 20 with ch0 100x as fast: ch0 (400), ch2 (12), ch1 (8) take part;
     * ch0 is capped at its 4 slots, 16 left over 8 : 12 -> 6 10. */
    const double fast[] = {100, 1, 1, 1};
    assert_int_equal(cm_capacity_shares(20, cap, fast, 4, share, NULL), 0);
    assert_int_equal(share[0], 4);
    assert_int_equal(share[1], 6);
    assert_int_equal(share[2], 10);
    assert_int_equal(share[3], 0);
    cm_error_t err = { "" };
    assert_int_equal(cm_capacity_shares(33, cap, NULL, 4, share, &err), -1);
    assert_non_null(strstr(err.msg, "do not fit"));
    assert_string_equal(err.msg, "cm_capacity_shares: 33 ranks do not fit in "
                        "the 32 slots of 4 children");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenario_balanced),
        cmocka_unit_test(test_scenario_noise),
        cmocka_unit_test(test_scenario_between),
        cmocka_unit_test(test_reservation_keeps_children_whole),
        cmocka_unit_test(test_first_fit_splits_only_when_needed),
        cmocka_unit_test(test_reservation_split),
        cmocka_unit_test(test_min_rank_order),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_choose_and_spread),
        cmocka_unit_test(test_random_capacity),
        cmocka_unit_test(test_capacity_shares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
