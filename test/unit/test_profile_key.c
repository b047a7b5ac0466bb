/* test_profile_key.c -- profiles keyed by job name and program
 * (src/profiles/profile_key.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "cm_store.h"

static void test_program_key(void **state)
{
    (void)state;
    char a[CM_PROFILE_MAX_NAME + 1], b[CM_PROFILE_MAX_NAME + 1];
    cm_error_t err = { "" };
    size_t nl;
    assert_int_equal(cm_profile_program_key("job.sh", "/home/u/a/halo", a, sizeof a,
                                            &err), 0);
    assert_int_equal(strncmp(a, "job.sh@halo-", 12), 0);
    assert_int_equal(strlen(a), 12 + 8);
    /* another directory, another program: another key */
    assert_int_equal(cm_profile_program_key("job.sh", "/home/u/b/halo", b, sizeof b,
                                            &err), 0);
    assert_string_not_equal(a, b);
    /* the same path: the same key */
    assert_int_equal(cm_profile_program_key("job.sh", "/home/u/b/halo", a, sizeof a,
                                            &err), 0);
    assert_string_equal(a, b);
    assert_string_equal(cm_profile_key_program(a, &nl), a + 7);
    assert_int_equal(nl, 6);
    /* names without a program part */
    assert_null(cm_profile_key_program("halo", &nl));
    assert_int_equal(nl, 4);
    assert_null(cm_profile_key_program("me@site", &nl));
    assert_null(cm_profile_key_program("x@p-12345678x", &nl));
    assert_non_null(cm_profile_key_program("a@b@p-0123abcd", &nl));
    assert_int_equal(nl, 3);
    /* odd characters in the program's name are replaced; long job names cut */
    char longname[400];
    memset(longname, 'j', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_int_equal(cm_profile_program_key(longname, "./my prog", a, sizeof a, &err), 0);
    assert_int_equal(strlen(a), CM_PROFILE_MAX_NAME);
    assert_non_null(strstr(a, "@my_prog-"));
    assert_int_equal(cm_profile_program_key("", "x", a, sizeof a, &err), -1);
    assert_int_equal(cm_profile_program_key("j", "", a, sizeof a, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
