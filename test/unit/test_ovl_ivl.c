/* test_ovl_ivl.c -- the tnbc overlay's protected ranges
 * (src/overlay/ovl_ivl.h): sorted insertion, overlap and
 * capacity refusals, removal, lookup at every boundary, against a brute
 * force model on random operations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ovl_ivl.h"

static int tag[OVL_IVL_MAX + 8];

static void test_empty(void **state)
{
    (void)state;
    ovl_ivlset_t s;
    ovl_ivl_init(&s);
    assert_null(ovl_ivl_find(&s, 0, NULL, NULL));
    assert_null(ovl_ivl_find(&s, 4096, NULL, NULL));
    assert_int_equal(ovl_ivl_remove(&s, 4096), -1);
    assert_int_equal(ovl_ivl_add(&s, 10, 10, tag), -1);   /* empty range */
    assert_int_equal(ovl_ivl_add(&s, 11, 10, tag), -1);
}

static void test_bounds(void **state)
{
    (void)state;
    ovl_ivlset_t s;
    uintptr_t lo = 0, hi = 0;
    ovl_ivl_init(&s);
    assert_int_equal(ovl_ivl_add(&s, 8192, 16384, &tag[1]), 0);
    assert_int_equal(ovl_ivl_add(&s, 0, 4096, &tag[0]), 0);
    assert_int_equal(ovl_ivl_add(&s, 16384, 20480, &tag[2]), 0);  /* adjacent */
    assert_int_equal(s.n, 3);
    assert_true(s.v[0].lo == 0 && s.v[1].lo == 8192 && s.v[2].lo == 16384);
    assert_ptr_equal(ovl_ivl_find(&s, 0, &lo, &hi), &tag[0]);
    assert_true(lo == 0 && hi == 4096);
    assert_ptr_equal(ovl_ivl_find(&s, 4095, NULL, NULL), &tag[0]);
    assert_null(ovl_ivl_find(&s, 4096, NULL, NULL));
    assert_null(ovl_ivl_find(&s, 8191, NULL, NULL));
    assert_ptr_equal(ovl_ivl_find(&s, 8192, &lo, &hi), &tag[1]);
    assert_true(lo == 8192 && hi == 16384);
    assert_ptr_equal(ovl_ivl_find(&s, 16383, NULL, NULL), &tag[1]);
    assert_ptr_equal(ovl_ivl_find(&s, 16384, NULL, NULL), &tag[2]);
    assert_null(ovl_ivl_find(&s, 20480, NULL, NULL));
    /* next: the range holding the address, else the first above it */
    assert_ptr_equal(ovl_ivl_next(&s, 100, &lo, &hi), &tag[0]);
    assert_true(lo == 0 && hi == 4096);
    assert_ptr_equal(ovl_ivl_next(&s, 4096, &lo, &hi), &tag[1]);
    assert_true(lo == 8192 && hi == 16384);
    assert_ptr_equal(ovl_ivl_next(&s, 16383, NULL, NULL), &tag[1]);
    assert_ptr_equal(ovl_ivl_next(&s, 16384, NULL, NULL), &tag[2]);
    assert_null(ovl_ivl_next(&s, 20480, NULL, NULL));
    assert_null(ovl_ivl_next(&s, UINTPTR_MAX, NULL, NULL));
    /* overlaps are refused, the set unchanged */
    assert_int_equal(ovl_ivl_add(&s, 4000, 4100, &tag[3]), -1);
    assert_int_equal(ovl_ivl_add(&s, 12000, 13000, &tag[3]), -1);
    assert_int_equal(ovl_ivl_add(&s, 4096, 8193, &tag[3]), -1);
    assert_int_equal(ovl_ivl_add(&s, 0, 100000, &tag[3]), -1);
    assert_int_equal(s.n, 3);
    assert_int_equal(ovl_ivl_add(&s, 4096, 8192, &tag[3]), 0);   /* the gap */
    assert_ptr_equal(ovl_ivl_find(&s, 5000, NULL, NULL), &tag[3]);
    /* removal by start only */
    assert_int_equal(ovl_ivl_remove(&s, 8193), -1);
    assert_int_equal(ovl_ivl_remove(&s, 8192), 0);
    assert_null(ovl_ivl_find(&s, 8192, NULL, NULL));
    assert_ptr_equal(ovl_ivl_find(&s, 16384, NULL, NULL), &tag[2]);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.seq % 2, 0);
}

static void test_capacity(void **state)
{
    (void)state;
    ovl_ivlset_t s;
    ovl_ivl_init(&s);
    for (int k = 0; k < OVL_IVL_MAX; k++)
        assert_int_equal(ovl_ivl_add(&s, (uintptr_t)(OVL_IVL_MAX - k) * 100,
                                     (uintptr_t)(OVL_IVL_MAX - k) * 100 + 50,
                                     &tag[k]), 0);
    assert_int_equal(ovl_ivl_add(&s, 1, 2, &tag[0]), -1);
    for (int k = 0; k < OVL_IVL_MAX; k++)
        assert_ptr_equal(ovl_ivl_find(&s, (uintptr_t)(OVL_IVL_MAX - k) * 100 + 49,
                                      NULL, NULL), &tag[k]);
    assert_int_equal(ovl_ivl_remove(&s, 100), 0);
    assert_int_equal(ovl_ivl_add(&s, 1, 2, &tag[0]), 0);
}

/* Random adds and removes against a model: one byte per address of a
 * small space says which tag covers it. */
static void test_random_model(void **state)
{
    (void)state;
    enum { SPACE = 2048 };
    static int owner[SPACE];
    ovl_ivlset_t s;
    ovl_ivl_init(&s);
    for (int a = 0; a < SPACE; a++)
        owner[a] = -1;
    srand(15);
    for (int step = 0; step < 20000; step++) {
        int lo = rand() % SPACE, len = 1 + rand() % 64;
        int hi = lo + len > SPACE ? SPACE : lo + len;
        if (rand() % 3) {
            int free_ = 1;
            for (int a = lo; a < hi; a++)
                free_ &= owner[a] < 0;
            int t = rand() % OVL_IVL_MAX;
            int rc = ovl_ivl_add(&s, (uintptr_t)lo, (uintptr_t)hi, &tag[t]);
            if (free_ && s.n <= OVL_IVL_MAX && rc == 0)
                for (int a = lo; a < hi; a++)
                    owner[a] = t;
            else
                assert_true(rc == -1 && (!free_ || s.n == OVL_IVL_MAX));
        } else if (s.n) {
            unsigned i = (unsigned)rand() % s.n;
            uintptr_t a = s.v[i].lo, b = s.v[i].hi;
            assert_int_equal(ovl_ivl_remove(&s, a), 0);
            for (uintptr_t x = a; x < b; x++)
                owner[x] = -1;
        }
        int probe = rand() % SPACE;
        void *got = ovl_ivl_find(&s, (uintptr_t)probe, NULL, NULL);
        if (owner[probe] < 0)
            assert_null(got);
        else
            assert_ptr_equal(got, &tag[owner[probe]]);
    }
    for (unsigned i = 1; i < s.n; i++)
        assert_true(s.v[i - 1].hi <= s.v[i].lo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_random_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
