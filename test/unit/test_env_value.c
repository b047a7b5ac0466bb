/* test_env_value.c -- environment values at their full length and the
 * lists built from them (src/launch/env_value.c): a PATH or LD_PRELOAD
 * of any length comes back whole, never cut to a buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "launch.h"

/* A getter with spank_getenv's contract: it copies what fits and says
 * when the value did not (the copy is then cut: it must not be used). */
typedef struct fake_env {
    const char *name, *value;
    int fail;  /* answer CMP_GET_ERROR */
    int calls; /* how many times it was asked */
} fake_env_t;

static cmp_get_t fake_get(void *ctx, const char *name, char *buf, size_t size)
{
    fake_env_t *e = ctx;
    e->calls++;
    if (e->fail)
        return CMP_GET_ERROR;
    if (!e->value || strcmp(name, e->name))
        return CMP_GET_UNSET;
    snprintf(buf, size, "%s", e->value);
    return strlen(e->value) >= size ? CMP_GET_SHORT : CMP_GET_OK;
}

static char *filled(size_t n, char c)
{
    char *s = malloc(n + 1);
    assert_non_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static void test_read_bad(void **state)
{
    (void)state;
    cm_error_t err;
    fake_env_t e = { "PATH", "/bin", 0, 0 };
    assert_null(cmp_env_value_read(NULL, &e, "PATH", &err));
    assert_non_null(strstr(err.msg, "NULL"));
    assert_null(cmp_env_value_read(fake_get, &e, NULL, &err));
    assert_non_null(strstr(err.msg, "NULL"));
    e.fail = 1;
    assert_null(cmp_env_value_read(fake_get, &e, "PATH", &err));
    assert_string_equal(err.msg, "PATH: cannot be read");
    assert_null(cmp_env_value_read(fake_get, &e, "PATH", NULL));
}

static void test_read_unset(void **state)
{
    (void)state;
    cm_error_t err;
    fake_env_t e = { "PATH", "/bin", 0, 0 };
    assert_null(cmp_env_value_read(fake_get, &e, "LD_PRELOAD", &err));
    assert_string_equal(err.msg, ""); /* unset is not an error */
    char *v = cmp_env_value_read(fake_get, &e, "PATH", &err);
    assert_string_equal(v, "/bin");
    assert_int_equal(e.calls, 2); /* a short value: one call */
    free(v);
}

/* The lengths the issue met (a PATH over 8191 bytes, an LD_PRELOAD over
 * 3071) and the bound itself come back whole. */
static void test_read_long(void **state)
{
    (void)state;
    const size_t len[] = { 255, 256, 3072, 8192, 10000, 128 * 1024, CMP_ENV_VALUE_MAX };
    for (size_t k = 0; k < sizeof len / sizeof len[0]; k++) {
        cm_error_t err;
        char *want = filled(len[k], 'p');
        fake_env_t e = { "PATH", want, 0, 0 };
        char *v = cmp_env_value_read(fake_get, &e, "PATH", &err);
        assert_non_null(v);
        assert_int_equal(strlen(v), len[k]);
        assert_string_equal(v, want);
        free(v);
        free(want);
    }
}

static void test_read_too_long(void **state)
{
    (void)state;
    cm_error_t err;
    char *want = filled(CMP_ENV_VALUE_MAX + 1, 'p');
    fake_env_t e = { "LD_PRELOAD", want, 0, 0 };
    assert_null(cmp_env_value_read(fake_get, &e, "LD_PRELOAD", &err));
    assert_string_equal(err.msg, "LD_PRELOAD: longer than 1048576 bytes");
    free(want);
}

static void test_list_prepend(void **state)
{
    (void)state;
    char *s;
    assert_null(cmp_env_list_prepend(NULL, "/bin", 0));
    s = cmp_env_list_prepend("/opt/cm", NULL, 0);
    assert_string_equal(s, "/opt/cm");
    free(s);
    s = cmp_env_list_prepend("/opt/cm", "", 1);
    assert_string_equal(s, "/opt/cm");
    free(s);
    s = cmp_env_list_prepend("/opt/cm", "/bin:/usr/bin", 0);
    assert_string_equal(s, "/opt/cm:/bin:/usr/bin");
    free(s);
    /* once: a list that holds the item (':' or ' ' separated) stays */
    s = cmp_env_list_prepend("/l/p.so", "/u/a.so /l/p.so", 1);
    assert_string_equal(s, "/u/a.so /l/p.so");
    free(s);
    s = cmp_env_list_prepend("/l/p.so", "/l/p.so.1:/u/a.so", 1);
    assert_string_equal(s, "/l/p.so:/l/p.so.1:/u/a.so");
    free(s);
    s = cmp_env_list_prepend("/l/p.so", "/l/p.so", 0);
    assert_string_equal(s, "/l/p.so:/l/p.so");
    free(s);
    assert_int_equal(cmp_env_list_has(NULL, "x"), 0);
    assert_int_equal(cmp_env_list_has("x", NULL), 0);
    assert_int_equal(cmp_env_list_has("::x: ", "x"), 1);
    assert_int_equal(cmp_env_list_has("xy", "x"), 0);
}

/* A 5000-byte LD_PRELOAD, the user's library first: all of it after the
 * profiler's, in order. */
static void test_list_long(void **state)
{
    (void)state;
    char *pad = filled(5000, 'a');
    memcpy(pad, "/home/u/mark.so:", 16);
    char *s = cmp_env_list_prepend("/usr/lib/libclustermap-prof.so", pad, 1);
    assert_int_equal(strlen(s), strlen("/usr/lib/libclustermap-prof.so:") + 5000);
    assert_string_equal(s + strlen("/usr/lib/libclustermap-prof.so:"), pad);
    free(s);
    free(pad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_bad),     cmocka_unit_test(test_read_unset),
        cmocka_unit_test(test_read_long),    cmocka_unit_test(test_read_too_long),
        cmocka_unit_test(test_list_prepend), cmocka_unit_test(test_list_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
