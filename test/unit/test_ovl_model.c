/* test_ovl_model.c -- the seed's model of the time the tnbc overlay hides
 * (ovl_tnbc_model, src/overlay/ovl_text.h; seed 001, formula 3):
 *   T_overlap = min(T_comm - T_init, T_CURC + T_comm x R_comm / R_CRC),
 * R_comm = D_comm / T_comm, on the five scenarios of the seed's table 1
 * (T_comm 268 ms, D_comm 64 MB) and the limit cases the overlay feeds it
 * (R_CRC unknown, no data, a call whose communication ended before it
 * returned). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ovl_text.h"

#define T_COMM 268.0             /* ms */
#define T_INIT 10.0              /* ms: the overlay's initialisation */
#define D_COMM (64.0 * 1048576)  /* bytes */
#define R_COMM (D_COMM / T_COMM) /* bytes per ms */

static void near(double got, double want)
{
    assert_true(fabs(got - want) < 1e-9 * (fabs(want) + 1));
}

/* The seed's table 1, in its order. */
static void test_table1(void **state)
{
    (void)state;
    double slow = D_COMM / 350.0, fast = D_COMM / 175.0;   /* R_CRC */
    assert_true(slow < R_COMM && fast > R_COMM);
    /* 1: T_CURC longer than the communication: all of it hidden */
    near(ovl_tnbc_model(T_COMM, T_INIT, 445, D_COMM, INFINITY),
         T_COMM - T_INIT);
    /* 2: no T_CURC, data consumed more slowly than they arrive: the
     * program never waits after the initialisation */
    near(ovl_tnbc_model(T_COMM, T_INIT, 0, D_COMM, slow), T_COMM - T_INIT);
    /* 3: no T_CURC, consumed faster than they arrive: only the time of
     * the consumption, T_comm x R_comm / R_CRC = 175 ms */
    near(ovl_tnbc_model(T_COMM, T_INIT, 0, D_COMM, fast),
         T_COMM * R_COMM / fast);
    near(ovl_tnbc_model(T_COMM, T_INIT, 0, D_COMM, fast), 175.0);
    /* 4, 5: T_CURC 177 ms with either rate: 527 or 352 ms of computation,
     * more than the communication left after the initialisation */
    near(ovl_tnbc_model(T_COMM, T_INIT, 177, D_COMM, slow), T_COMM - T_INIT);
    near(ovl_tnbc_model(T_COMM, T_INIT, 177, D_COMM, fast), T_COMM - T_INIT);
    /* 5 with a costlier initialisation (100 ms): still capped */
    near(ovl_tnbc_model(T_COMM, 100, 177, D_COMM, fast), T_COMM - 100);
}

/* Below the cap: the sum T_CURC + D_comm / R_CRC. */
static void test_sum(void **state)
{
    (void)state;
    double r = D_COMM / 50.0;   /* consumed in 50 ms */
    near(ovl_tnbc_model(T_COMM, T_INIT, 30, D_COMM, r), 80.0);
    near(ovl_tnbc_model(T_COMM, T_INIT, 0, D_COMM, r), 50.0);
}

/* The limit cases the overlay feeds it. */
static void test_limits(void **state)
{
    (void)state;
    /* R_CRC unknown (fewer than two first touches): only T_CURC */
    near(ovl_tnbc_model(T_COMM, T_INIT, 40, D_COMM, INFINITY), 40.0);
    near(ovl_tnbc_model(T_COMM, T_INIT, 0, D_COMM, INFINITY), 0.0);
    /* R_CRC 0: nothing consumed, the whole rest of the communication */
    near(ovl_tnbc_model(T_COMM, T_INIT, 0, D_COMM, 0), T_COMM - T_INIT);
    /* nothing received (a Bcast's root): T_CURC, capped */
    near(ovl_tnbc_model(T_COMM, T_INIT, 40, 0, D_COMM / 50.0), 40.0);
    near(ovl_tnbc_model(T_COMM, T_INIT, 400, 0, INFINITY), T_COMM - T_INIT);
    /* the communication ended before the call returned: nothing hidden */
    near(ovl_tnbc_model(T_INIT, T_INIT, 445, D_COMM, INFINITY), 0.0);
    near(ovl_tnbc_model(5, T_INIT, 445, D_COMM, D_COMM / 50.0), 0.0);
    near(ovl_tnbc_model(0, 0, 445, D_COMM, 0), 0.0);
    /* a first touch before the return (another thread): T_CURC 0 */
    near(ovl_tnbc_model(T_COMM, T_INIT, -3, D_COMM, INFINITY), 0.0);
    /* a NaN rate is taken as 0 (never as a figure above the cap) */
    near(ovl_tnbc_model(T_COMM, T_INIT, 0, D_COMM, NAN), T_COMM - T_INIT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table1),
        cmocka_unit_test(test_sum),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
