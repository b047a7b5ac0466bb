/* test_store_explain.c -- records of placed steps for `clustermap explain`
 * (src/store/store_explain.c). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cm_store.h"
#include "testdata.h"
#include "teststore.h"

static void test_put_get(void **state)
{
    cm_test_store_t *f = *state;
    cm_error_t err = { "" };
    assert_int_equal(cm_store_explain_put(f->s, "12.0", "winner=scotch\n", &err), 0);
    assert_int_equal(cm_store_explain_put(f->s, "12.1", "winner=cluster\n", &err), 0);
    char *one = cm_store_explain_get(f->s, "12.1", &err);
    assert_non_null(one);
    assert_string_equal(one, "== step 12.1\nwinner=cluster\n");
    free(one);
    char *all = cm_store_explain_get(f->s, "12", &err);
    assert_non_null(all);
    assert_non_null(strstr(all, "== step 12.0\nwinner=scotch\n"));
    assert_non_null(strstr(all, "== step 12.1\nwinner=cluster\n"));
    free(all);
    /* job 1 is not job 12 */
    assert_null(cm_store_explain_get(f->s, "1", &err));
    assert_non_null(strstr(err.msg, "no record of job 1"));
    /* keys are job and step numbers only */
    assert_int_equal(cm_store_explain_put(f->s, "../x", "x", &err), -1);
    assert_non_null(strstr(err.msg, "expected JOBID.STEP"));
    assert_int_equal(cm_store_explain_put(f->s, "12", "x", &err), -1);
    assert_null(cm_store_explain_get(f->s, "12.0.1", &err));
    /* a record that is not the user's own text is not read */
    char path[4200];
    snprintf(path, sizeof path, "%s/.explain.12.0", cm_store_dir(f->s));
    assert_int_equal(chmod(path, 0666), 0);
    char *t = cm_store_explain_get(f->s, "12.0", &err);
    assert_null(t);
}

static void test_bounded(void **state)
{
    cm_test_store_t *f = *state;
    cm_error_t err = { "" };
    char key[32], path[4200];
    for (int k = 0; k < CM_EXPLAIN_MAX_RECORDS + 5; k++) {
        snprintf(key, sizeof key, "%d.0", 100 + k);
        assert_int_equal(cm_store_explain_put(f->s, key, "x=1\n", &err), 0);
        /* distinct modification times, oldest first */
        snprintf(path, sizeof path, "%s/.explain.%s", cm_store_dir(f->s), key);
        struct timespec ts[2] = { { 1000 + k, 0 }, { 1000 + k, 0 } };
        assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
    }
    int count = 0;
    for (int k = 0; k < CM_EXPLAIN_MAX_RECORDS + 5; k++) {
        snprintf(path, sizeof path, "%s/.explain.%d.0", cm_store_dir(f->s), 100 + k);
        count += access(path, F_OK) == 0;
    }
    assert_int_equal(count, CM_EXPLAIN_MAX_RECORDS);
    snprintf(path, sizeof path, "%s/.explain.%d.0", cm_store_dir(f->s), 100);
    assert_int_not_equal(access(path, F_OK), 0);   /* the oldest went */
    /* too large a record is refused */
    char *big = malloc(CM_EXPLAIN_MAX_BYTES + 2);
    memset(big, 'a', CM_EXPLAIN_MAX_BYTES + 1);
    big[CM_EXPLAIN_MAX_BYTES + 1] = '\0';
    assert_int_equal(cm_store_explain_put(f->s, "7.0", big, &err), -1);
    free(big);
}

/* A locked write first sweeps what killed writers left: temporaries of
 * profiles, replaced side files and records, nothing else. */
static void test_stale_temps_swept(void **state)
{
    cm_test_store_t *f = *state;
    cm_error_t err = { "" };
    char path[4400];
    static const struct { const char *name; int stale; } rows[] = {
        { ".job.4.json.tmp.99999", 1 },
        { ".job.4.json.runs.tmp.99999", 1 },
        { "..explain.3.0.tmp.99999", 1 },
        { ".job.4.json.nompi.tmp.99999", 0 },   /* never written so */
        { ".result.3.0", 0 },
        { ".tmp..result.3.0.99999", 0 },   /* a writer without the lock */
        { "job.4.json.runs", 0 },
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
        cm_test_write_file(cm_store_dir(f->s), rows[k].name, "x");
    assert_int_equal(cm_store_explain_put(f->s, "3.1", "winner=scotch\n",
                                          &err), 0);
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", cm_store_dir(f->s), rows[k].name);
        if ((access(path, F_OK) != 0) != rows[k].stale)
            fail_msg("%s: expected %s", rows[k].name,
                     rows[k].stale ? "removed" : "kept");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CM_TEST_STORE_CASE(test_put_get),
        CM_TEST_STORE_CASE(test_bounded),
        CM_TEST_STORE_CASE(test_stale_temps_swept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
