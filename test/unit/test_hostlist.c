/* test_hostlist.c -- Slurm hostlist expansion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"

/* Expand @p expr and compare with the space-separated @p want. */
static void expect(const char *expr, const char *want)
{
    char **names;
    int n;
    cm_error_t err = {""};
    assert_int_equal(cm_hostlist_expand(expr, &names, &n, &err), 0);
    char joined[4096] = "";
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(joined, " ");
        strcat(joined, names[i]);
    }
    assert_string_equal(joined, want);
    cm_hostlist_free(names, n);
}

static void expect_error(const char *expr, const char *fragment)
{
    char **names = (char **)1;
    int n = 7;
    cm_error_t err = {""};
    assert_int_equal(cm_hostlist_expand(expr, &names, &n, &err), -1);
    assert_null(names);
    assert_int_equal(n, 0);
    if (!strstr(err.msg, fragment))
        fail_msg("'%s': error '%s' lacks '%s'", expr, err.msg, fragment);
}

static void test_expand(void **state)
{
    (void)state;
    expect("gpu01", "gpu01");
    expect("n[1-3,5]", "n1 n2 n3 n5");
    expect("n[01-10]", "n01 n02 n03 n04 n05 n06 n07 n08 n09 n10");
    expect("n[8-11]", "n8 n9 n10 n11");
    expect("n[098-101]", "n098 n099 n100 n101");
    expect("a[1-2]b[3-4]", "a1b3 a1b4 a2b3 a2b4");
    expect("n[1-2],gpu01,m[7]", "n1 n2 gpu01 m7");
    expect("rack[1-2]-n[1,3]x", "rack1-n1x rack1-n3x rack2-n1x rack2-n3x");
    expect("[1-2]", "1 2");
    expect("n0", "n0");
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("", "expected at least one name");
    expect_error("n[1-3", "'[' without ']'");
    expect_error("n1-3]", "unexpected ']'");
    expect_error("n[[1]]", "nested '['");
    expect_error("n[]", "empty brackets");
    expect_error("n[a-b]", "expected a number");
    expect_error("n[3-1]", "range 3-1 goes down");
    expect_error("n[1-]", "expected a number after '-'");
    expect_error("n[1,]", "empty range");
    expect_error("n[1;2]", "expected ',' or ']'");
    expect_error("n1,,n2", "empty name");
    expect_error("n1,", "empty name");
    expect_error("n1 n2", "white space");
    expect_error("n[0-1048576]", "more than 1048576 names");
    expect_error("a[0-1023]b[0-1024]", "more than 1048576 names");
    expect_error("n[1-2],m[1-", "'[' without ']'");
}

static void test_bound_exact(void **state)
{
    (void)state;
    char **names;
    int n;
    cm_error_t err;
    assert_int_equal(cm_hostlist_expand("a[0-1023]b[0-1023]", &names, &n, &err), 0);
    assert_int_equal(n, 1 << 20);
    assert_string_equal(names[0], "a0b0");
    assert_string_equal(names[(1 << 20) - 1], "a1023b1023");
    assert_string_equal(names[1025], "a1b1");
    cm_hostlist_free(names, n);
    cm_hostlist_free(NULL, 0);
}

/* Random expressions over the grammar's alphabet: each either expands or
 * fails with a message, and never crashes (run under ASan in CI). */
static void test_random(void **state)
{
    (void)state;
    static const char alphabet[] = "n[]-,0123456789ab";
    cm_rng_t r;
    cm_rng_seed(&r, 42);
    int ok = 0, bad = 0;
    for (int it = 0; it < 3000; it++) {
        char expr[24];
        int len = 1 + (int)cm_rng_below(&r, sizeof expr - 1);
        for (int i = 0; i < len; i++)
            expr[i] = alphabet[cm_rng_below(&r, sizeof alphabet - 1)];
        expr[len] = '\0';
        char **names;
        int n;
        cm_error_t err = {""};
        if (cm_hostlist_expand(expr, &names, &n, &err) == 0) {
            assert_true(n >= 1);
            for (int i = 0; i < n; i++)
                assert_null(strpbrk(names[i], "[],"));
            cm_hostlist_free(names, n);
            ok++;
        } else {
            assert_true(err.msg[0] != '\0');
            bad++;
        }
    }
    assert_true(ok > 100);
    assert_true(bad > 100);
}

/* Leading zeros widen a number without raising its value: a width past
 * 30 digits overflowed the digit buffer (found by fuzz_hostlist). */
static void test_wide_numbers(void **state)
{
    (void)state;
    char expr[128], want[512];
    /* 30 digits: the widest accepted, kept as written */
    snprintf(expr, sizeof expr, "n[%030d-%d]", 1, 2);
    snprintf(want, sizeof want, "n%030d n%030d", 1, 2);
    expect(expr, want);
    snprintf(expr, sizeof expr, "n[%031d]", 0);
    expect_error(expr, "expected a number in brackets");
    snprintf(expr, sizeof expr, "n[%054d]", 0);
    expect_error(expr, "expected a number in brackets");
    snprintf(expr, sizeof expr, "n[1-%040d]", 5);
    expect_error(expr, "expected a number after '-'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_bound_exact),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_wide_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
