/* test_store_null.c -- every public function of the profile store
 * (cm_store.h, cm_store_step.h) and of the safe-open helpers (cm_file.h)
 * called with NULL handles and pointers, bad names (empty, "..", "a/b",
 * over-long), out-of-range task counts and garbage: each must give the
 * failure its note in the header documents and never crash.
 * test/sh/t0014-api-null.t fails when a function those headers declare is
 * not called here, so a new function comes with its row.
 *
 * FAILS(call) runs @p call twice, once with `err` pointing to a record
 * (which must then hold a message) and once with `err` NULL, and expects
 * -1 both times; FAILS_NULL does the same for calls that return a pointer. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testnull.h"
#include "cm_file.h"
#include "cm_store.h"
#include "cm_store_step.h"
#include "teststore.h"

/* A name one byte longer than a profile's name may be. */
static char long_name[CM_PROFILE_MAX_NAME + 2];

/* The names no profile may have (NULL among them): each call with one of
 * them fails. */
static const char *bad_names[] = { "", long_name, NULL };

/* Task counts out of 1..CM_PROFILE_MAX_TASKS. */
static const int bad_counts[] = { 0, -1, CM_PROFILE_MAX_TASKS + 1 };

static void test_store_handle_null(void **state)
{
    (void)state;
    char buf[64] = "x";
    cm_profile_t *p = NULL;
    cm_store_entry_t *ents = (cm_store_entry_t *)1, e;
    int count = -1;
    long runs = -1;
    cm_prune_rule_t r = { 0, 1, -1 };
    cm_prune_total_t tot = { 0, 0, 0, 0 };
    cm_trace_info_t ti;
    cm_run_t runsv[CM_HISTORY_MAX_RUNS], run;
    int *counts = (int *)1;

    memset(&run, 0, sizeof run);
    assert_null(cm_store_dir(NULL));
    assert_null(cm_store_user(NULL));
    assert_int_equal(cm_store_uid(NULL), (uid_t)-1);
    assert_int_equal(cm_store_max_bytes(NULL), 0);
    cm_store_set_lock_wait(NULL, 1); /* no effect, no crash */
    cm_store_set_read_deadline(NULL, 1);
    FAILS(cm_store_load(NULL, "job", 4, &p, err));
    FAILS(cm_store_set_nompi_key(NULL, "job@a-00000000", err));
    assert_null(p);
    FAILS(cm_store_save(NULL, NULL, 1, err));
    FAILS(cm_store_merge(NULL, NULL, 1.0, 0, 0, &runs, err));
    FAILS(cm_store_ingest(NULL, "/nonexistent", "job", 1.0, &runs, err));
    FAILS(cm_store_list(NULL, &ents, &count, err));
    FAILS(cm_store_delete(NULL, "job", 4, err));
    FAILS(cm_store_delete_if(NULL, "job", 4, NULL, NULL, &e, err));
    FAILS(cm_store_prune(NULL, &r, 0, NULL, NULL, &tot, err));
    FAILS(cm_store_part_put(NULL, "1.0", 0, CM_PART_NOMPI, -1, NULL, err));
    FAILS(cm_store_trace_put(NULL, "1.0", 0, -1, err));
    FAILS(cm_store_trace_info(NULL, "job", 4, &ti, err));
    FAILS(cm_store_trace_prefix(NULL, "job", 4, buf, sizeof buf, err));
    FAILS(cm_store_trace_remove(NULL, "job", 4, err));
    FAILS(cm_store_part_close(NULL, "1.0", "job", 4, 1.0, NULL, buf, sizeof buf, err));
    assert_int_equal(cm_store_part_result(NULL, "1.0", buf, sizeof buf), 0);
    FAILS(cm_store_part_drop(NULL, "1.", buf, sizeof buf, err));
    assert_int_equal(cm_store_nompi(NULL, "job", 4), 0);
    FAILS(cm_store_mark_nompi(NULL, "job", 4, err));
    FAILS(cm_store_program_set(NULL, "job", 4, "prog", err));
    FAILS(cm_store_program_get(NULL, "job", 4, buf, sizeof buf, err));
    FAILS(cm_store_history_load(NULL, "job", 4, runsv, &count, err));
    FAILS(cm_store_history_add(NULL, "job", 4, &run, err));
    FAILS(cm_store_history_reset(NULL, "job", 4, err));
    FAILS(cm_store_explain_put(NULL, "1.0", "text", err));
    FAILS_NULL(cm_store_explain_get(NULL, "1.0", err));
    FAILS(cm_store_can_record(NULL, err));
    FAILS(cm_store_profile_counts(NULL, "job", 4, &counts, &count, err));
    cm_store_close(NULL);
}

/* Store-independent functions: names, the default root, the prune rule,
 * the last use, the uids of a root that is not there. */
static void test_store_plain(void **state)
{
    (void)state;
    char buf[512];
    cm_store_entry_t e;
    cm_prune_rule_t none = { 100, -1, -1 }, old = { 100, 10, -1 };
    uid_t *uids = NULL;
    int count = -1;

    assert_non_null(cm_store_default_root());
    for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++)
        FAILS(cm_store_filename(bad_names[i], 4, buf, sizeof buf, err));
    FAILS(cm_store_filename(NULL, 4, buf, sizeof buf, err));
    for (size_t i = 0; i < sizeof bad_counts / sizeof *bad_counts; i++)
        FAILS(cm_store_filename("job", bad_counts[i], buf, sizeof buf, err));
    FAILS(cm_store_filename("job", 4, NULL, 0, err));
    FAILS(cm_store_filename("job", 4, buf, 4, err));
    /* a name that looks like a path is escaped, never a path */
    assert_int_equal(cm_store_filename("a/b", 4, buf, sizeof buf, NULL), 0);
    assert_null(strchr(buf, '/'));
    assert_int_equal(cm_store_filename("..", 4, buf, sizeof buf, NULL), 0);
    assert_true(buf[0] != '.');

    memset(&e, 0, sizeof e);
    e.valid = 1;
    assert_int_equal(cm_prune_rule_match(NULL, &e), 0);
    assert_int_equal(cm_prune_rule_match(&old, NULL), 0);
    assert_int_equal(cm_prune_rule_match(&none, &e), 0);
    e.valid = 0;
    assert_int_equal(cm_prune_rule_match(&old, &e), 0);

    assert_int_equal(cm_store_last_use(5, NULL, 0), 5);
    assert_int_equal(cm_store_last_use(5, NULL, 3), 5);
    assert_int_equal(cm_store_last_use(5, NULL, -1), 5);

    assert_int_equal(cm_store_uids("/nonexistent-cm-root", &uids, &count, NULL), 0);
    assert_int_equal(count, 0);
    free(uids);
    FAILS(cm_store_uids("/nonexistent-cm-root", NULL, &count, err));
    FAILS(cm_store_uids("/nonexistent-cm-root", &uids, NULL, err));
    FAILS(cm_store_uids("relative/root", &uids, &count, err));

    FAILS_NULL(cm_store_open("relative/root", getuid(), 0, 0, err));
    FAILS_NULL(cm_store_open("", getuid(), 0, 0, err));
}

/* A real store: bad names and task counts fail, NULL outputs fail. */
static void test_store_bad_args(void **state)
{
    cm_test_store_t *ts = *state;
    cm_store_t *s = ts->s;
    char buf[512];
    cm_profile_t *p = (cm_profile_t *)1;
    cm_store_entry_t e;
    cm_trace_info_t ti;
    cm_run_t runs[CM_HISTORY_MAX_RUNS], run;
    int count = 0;
    int *counts = NULL;
    long nruns;
    cm_prune_total_t tot = { 0, 0, 0, 0 };
    cm_prune_rule_t r = { 0, 1, -1 };

    memset(&run, 0, sizeof run);
    assert_non_null(cm_store_dir(s));
    assert_non_null(cm_store_user(s));
    assert_int_equal(cm_store_uid(s), getuid());
    assert_true(cm_store_max_bytes(s) > 0);

    for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
        const char *n = bad_names[i];
        FAILS(cm_store_load(s, n, 4, &p, err));
        FAILS(cm_store_delete(s, n, 4, err));
        FAILS(cm_store_delete_if(s, n, 4, NULL, NULL, &e, err));
        FAILS(cm_store_trace_info(s, n, 4, &ti, err));
        FAILS(cm_store_trace_prefix(s, n, 4, buf, sizeof buf, err));
        FAILS(cm_store_trace_remove(s, n, 4, err));
        FAILS(cm_store_mark_nompi(s, n, 4, err));
        assert_int_equal(cm_store_nompi(s, n, 4), 0);
        FAILS(cm_store_program_set(s, n, 4, "prog", err));
        FAILS(cm_store_program_get(s, n, 4, buf, sizeof buf, err));
        FAILS(cm_store_history_load(s, n, 4, runs, &count, err));
        FAILS(cm_store_history_add(s, n, 4, &run, err));
        FAILS(cm_store_history_reset(s, n, 4, err));
        FAILS(cm_store_ingest(s, "/nonexistent", n, 1.0, &nruns, err));
    }
    for (size_t i = 0; i < sizeof bad_counts / sizeof *bad_counts; i++) {
        int n = bad_counts[i];
        FAILS(cm_store_load(s, "job", n, &p, err));
        FAILS(cm_store_delete(s, "job", n, err));
        FAILS(cm_store_trace_info(s, "job", n, &ti, err));
        FAILS(cm_store_trace_prefix(s, "job", n, buf, sizeof buf, err));
        FAILS(cm_store_trace_remove(s, "job", n, err));
        FAILS(cm_store_mark_nompi(s, "job", n, err));
        assert_int_equal(cm_store_nompi(s, "job", n), 0);
        FAILS(cm_store_program_set(s, "job", n, "prog", err));
        FAILS(cm_store_program_get(s, "job", n, buf, sizeof buf, err));
        FAILS(cm_store_history_load(s, "job", n, runs, &count, err));
        FAILS(cm_store_history_add(s, "job", n, &run, err));
        FAILS(cm_store_history_reset(s, "job", n, err));
        FAILS(cm_store_part_close(s, "1.0", "job", n, 1.0, NULL, buf, sizeof buf, err));
    }
    /* NULL names and NULL outputs */
    FAILS(cm_store_load(s, NULL, 4, &p, err));
    FAILS(cm_store_load(s, "job", 4, NULL, err));
    FAILS(cm_store_save(s, NULL, 1, err));
    FAILS(cm_store_merge(s, NULL, 1.0, 0, 0, &nruns, err));
    FAILS(cm_store_ingest(s, NULL, "job", 1.0, &nruns, err));
    FAILS(cm_store_ingest(s, "/nonexistent", NULL, 1.0, &nruns, err));
    FAILS(cm_store_list(s, NULL, &count, err));
    FAILS(cm_store_list(s, (cm_store_entry_t **)&p, NULL, err));
    FAILS(cm_store_delete(s, NULL, 4, err));
    FAILS(cm_store_prune(s, NULL, 0, NULL, NULL, &tot, err));
    /* a rule without any condition matches nothing */
    r.older_than = -1;
    assert_int_equal(cm_store_prune(s, &r, 0, NULL, NULL, &tot, NULL), 0);
    assert_int_equal(tot.removed, 0);
    FAILS(cm_store_trace_info(s, "job", 4, NULL, err));
    FAILS(cm_store_trace_prefix(s, "job", 4, NULL, 0, err));
    FAILS(cm_store_history_load(s, "job", 4, NULL, &count, err));
    FAILS(cm_store_history_load(s, "job", 4, runs, NULL, err));
    FAILS(cm_store_history_add(s, "job", 4, NULL, err));
    FAILS(cm_store_profile_counts(s, NULL, 4, &counts, &count, err));
    FAILS(cm_store_profile_counts(s, "job", 4, NULL, &count, err));
    FAILS(cm_store_profile_counts(s, "job", 4, &counts, NULL, err));

    /* step names: NULL, empty, a path, over-long; task out of range */
    static const char *bad_steps[] = { "", "..", "a/b", "1.0/../x" };
    for (size_t i = 0; i < sizeof bad_steps / sizeof *bad_steps; i++) {
        const char *st = bad_steps[i];
        FAILS(cm_store_part_put(s, st, 0, CM_PART_NOMPI, -1, NULL, err));
        FAILS(cm_store_trace_put(s, st, 0, -1, err));
        FAILS(cm_store_part_close(s, st, "job", 4, 1.0, NULL, buf, sizeof buf, err));
        assert_int_equal(cm_store_part_result(s, st, buf, sizeof buf), 0);
        FAILS(cm_store_explain_put(s, st, "text", err));
        FAILS_NULL(cm_store_explain_get(s, st, err));
    }
    FAILS(cm_store_part_put(s, NULL, 0, CM_PART_NOMPI, -1, NULL, err));
    FAILS(cm_store_part_put(s, "1.0", -1, CM_PART_NOMPI, -1, NULL, err));
    FAILS(cm_store_part_put(s, "1.0", 0, CM_PART_OK, -1, NULL, err));
    FAILS(cm_store_part_put(s, "1.0", 0, (cm_part_status_t)99, -1, NULL, err));
    FAILS(cm_store_trace_put(s, NULL, 0, -1, err));
    FAILS(cm_store_trace_put(s, "1.0", -1, -1, err));
    FAILS(cm_store_trace_put(s, "1.0", 0, -1, err));
    FAILS(cm_store_part_close(s, NULL, "job", 4, 1.0, NULL, buf, sizeof buf, err));
    assert_int_equal(cm_store_part_result(s, NULL, buf, sizeof buf), 0);
    assert_int_equal(cm_store_part_result(s, "1.0", NULL, 0), 0);
    FAILS(cm_store_part_drop(s, NULL, buf, sizeof buf, err));
    FAILS(cm_store_part_drop(s, "1.", NULL, 0, err));
    FAILS(cm_store_part_close(s, "1.0", NULL, 4, 1.0, NULL, buf, sizeof buf, err));
    FAILS(cm_store_part_close(s, "1.0", "job", 4, 1.0, NULL, NULL, 0, err));
    FAILS(cm_store_explain_put(s, NULL, "text", err));
    FAILS(cm_store_explain_put(s, "1.0", NULL, err));
    FAILS_NULL(cm_store_explain_get(s, NULL, err));
    FAILS_NULL(cm_store_explain_get(s, "1.0", err)); /* none kept */
    assert_int_equal(cm_store_can_record(s, NULL), 0);
}

/* The step's one question: a NULL store, a NULL answer, NULL keys. */
static void test_store_step(void **state)
{
    cm_test_store_t *ts = *state;
    cm_store_step_info_t info;
    cm_error_t oe = { "no store" };

    cm_store_step_info(NULL, &oe, "job", NULL, 4, CM_STEP_ASK_PROFILE, &info);
    assert_int_equal(info.opened, 0);
    assert_string_equal(info.open_err.msg, "no store");
    cm_store_step_info_free(&info);
    cm_store_step_info(NULL, NULL, "job", NULL, 4, CM_STEP_ASK_PROFILE, &info);
    assert_int_equal(info.opened, 0);
    cm_store_step_info_free(&info);
    cm_store_step_info(ts->s, NULL, "job", NULL, 4, 0, NULL); /* no-op */
    cm_store_step_info_free(NULL);                            /* no-op */

    for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
        cm_store_step_info(ts->s, NULL, bad_names[i], NULL, 4,
                           CM_STEP_ASK_PROFILE | CM_STEP_ASK_HISTORY | CM_STEP_ASK_TRACE,
                           &info);
        assert_int_equal(info.opened, 1);
        assert_int_equal(info.profile, -1);
        assert_true(info.profile_err.msg[0] != '\0');
        cm_store_step_info_free(&info);
    }
    cm_store_step_info(ts->s, NULL, NULL, NULL, 4, CM_STEP_ASK_PROFILE, &info);
    assert_int_equal(info.profile, -1);
    cm_store_step_info_free(&info);
    cm_store_step_info(ts->s, NULL, "job", NULL, 0, CM_STEP_ASK_PROFILE, &info);
    assert_int_equal(info.profile, -1);
    cm_store_step_info_free(&info);
}

/* cm_file.h: NULL paths and names, relative or garbage paths, bad
 * descriptors. */
static void test_file(void **state)
{
    (void)state;
    cm_file_want_t want = { 0, CM_FILE_ANY_OWNER, 022 };
    size_t len = 1;
    int fd;

    FAILS(cm_file_open_dir_safe(NULL, 0, "store", err));
    FAILS(cm_file_open_dir_safe("", 0, "store", err));
    FAILS(cm_file_open_dir_safe("relative", 0, "store", err));
    FAILS(cm_file_open_dir_safe("/nonexistent-cm/x", 0, "store", err));
    FAILS(cm_file_open_dir_safe("/", 0, NULL, err));
    errno = 0;
    FAILS(cm_file_open_at(AT_FDCWD, NULL, "x", &want, err));
    FAILS(cm_file_open_at(AT_FDCWD, "/etc/passwd", "x", NULL, err));
    FAILS(cm_file_open_at(-5, "passwd", "x", &want, err));
    FAILS(cm_file_open_at(AT_FDCWD, "/", NULL, &want, err)); /* a directory */
    FAILS(cm_file_check(-1, "x", &want, err));
    fd = open("/etc/passwd", O_RDONLY);
    assert_true(fd >= 0);
    FAILS(cm_file_check(fd, "x", NULL, err));
    assert_int_equal(cm_file_check(fd, NULL, &want, NULL), 0);
    FAILS_NULL(cm_file_read_fd(fd, "x", 1, &len, err)); /* too large */
    FAILS_NULL(cm_file_read_fd(-1, "x", 100, &len, err));
    assert_int_equal(cm_file_lock(-1, 0), -1);
    close(fd);
    fd = open("/etc/passwd", O_RDONLY);
    char *t = cm_file_read_fd(fd, NULL, 1 << 20, NULL, NULL);
    assert_non_null(t);
    free(t);
    close(fd);
    fd = open("/", O_RDONLY | O_DIRECTORY);
    FAILS_NULL(cm_file_read_fd(fd, "/", 100, &len, err));
    close(fd);
}

int main(void)
{
    memset(long_name, 'a', sizeof long_name - 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_handle_null),
        cmocka_unit_test(test_store_plain),
        CM_TEST_STORE_CASE(test_store_bad_args),
        CM_TEST_STORE_CASE(test_store_step),
        cmocka_unit_test(test_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
