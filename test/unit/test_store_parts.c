/* test_store_parts.c -- a profiled step's parts put together in the store
 * (src/store/store_parts.c), the steps-without-MPI mark, whether a run
 * can be recorded, and the checks on the store root (store.c): links,
 * foreign owners and writable directories are refused, parents are never
 * created. */
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

#define MAXB CM_TEST_STORE_MAXB

typedef cm_test_store_t fixture_t;

/* A part file of task @p rank of a @p n-task step, opened for reading. */
static int part_fd(const fixture_t *f, int rank, int n)
{
    char text[256], name[32];
    snprintf(text, sizeof text, "clustermap-raw 2\nranks %d\nrank %d\njob 9 0\n"
             "program a\np2p %d %d 64 2\nend 1\n", n, rank, rank, (rank + 1) % n);
    snprintf(name, sizeof name, "part.%d.txt", rank);
    int fd = open(cm_test_write_file(f->root, name, text), O_RDONLY);
    assert_true(fd >= 0);
    return fd;
}

/* Deliver @p n tasks with statuses @p st ("o"k, "n"ompi, "f"ailed,
 * "m"issing), closing after each; returns the last close's result. */
static int deliver(fixture_t *f, const char *step, const char *st, char *msg,
                   size_t size)
{
    cm_error_t err = { "" };
    int n = (int)strlen(st), rc = -1;
    for (int t = 0; t < n; t++) {
        cm_part_status_t ps = st[t] == 'o' ? CM_PART_OK : st[t] == 'n'
                            ? CM_PART_NOMPI : st[t] == 'f' ? CM_PART_FAILED
                            : CM_PART_MISSING;
        int fd = ps == CM_PART_OK ? part_fd(f, t, n) : -1;
        assert_int_equal(cm_store_part_put(f->s, step, t, ps, fd,
                                           ps == CM_PART_FAILED ? "exit code 3"
                                           : ps == CM_PART_MISSING ? "no lib" : NULL,
                                           &err), 0);
        if (fd >= 0)
            close(fd);
        rc = cm_store_part_close(f->s, step, "job", n, 0.5, NULL, msg, size, &err);
        assert_true(rc >= 0);
        if (t + 1 < n)
            assert_int_equal(rc, CM_STEP_PENDING);
    }
    return rc;
}

static void test_bad_keys(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    char msg[512];
    assert_int_equal(cm_store_part_put(f->s, "../x", 0, CM_PART_OK, -1, NULL,
                                       &err), -1);
    assert_non_null(strstr(err.msg, "expected <jobid>.<stepid>"));
    assert_int_equal(cm_store_part_put(f->s, "1.0", -1, CM_PART_OK, -1, NULL,
                                       &err), -1);
    assert_int_equal(cm_store_part_close(f->s, "", "job", 2, 0.5, NULL, msg,
                                         sizeof msg, &err), -1);
    /* nothing delivered: pending, not an error */
    assert_int_equal(cm_store_part_close(f->s, "5.0", "job", 2, 0.5, NULL, msg,
                                         sizeof msg, &err), CM_STEP_PENDING);
}

static void test_all_parts_recorded(void **state)
{
    fixture_t *f = *state;
    char msg[512];
    cm_profile_t *p = NULL;
    cm_error_t err = { "" };
    assert_int_equal(deliver(f, "9.0", "oooo", msg, sizeof msg), CM_STEP_RECORDED);
    assert_non_null(strstr(msg, "recorded the run in the profile of 'job' with 4 "
                           "tasks (runs=1)"));
    assert_int_equal(cm_store_load(f->s, "job", 4, &p, &err), 1);
    cm_profile_free(p);
    /* the staging directory is gone, the outcome is read once */
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/.step.9.0", cm_store_dir(f->s));
    assert_int_equal(stat(path, &st), -1);
    assert_int_equal(cm_store_part_result(f->s, "9.0", msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_int_equal(cm_store_part_result(f->s, "9.0", msg, sizeof msg), 0);
}

static void test_failed_or_missing_refused(void **state)
{
    fixture_t *f = *state;
    char msg[512];
    cm_profile_t *p = NULL;
    cm_error_t err = { "" };
    assert_int_equal(deliver(f, "9.1", "ofom", msg, sizeof msg), CM_STEP_REFUSED);
    assert_non_null(strstr(msg, "task 1 failed (exit code 3)"));
    assert_int_equal(deliver(f, "9.2", "oomo", msg, sizeof msg), CM_STEP_REFUSED);
    assert_non_null(strstr(msg, "1 of 4 tasks sent no profile (task 2: no lib)"));
    assert_int_equal(deliver(f, "9.3", "onoo", msg, sizeof msg), CM_STEP_REFUSED);
    assert_int_equal(cm_store_load(f->s, "job", 4, &p, &err), 0);
    assert_int_equal(cm_store_nompi(f->s, "job", 4), 0);
}

static void test_nompi_marked(void **state)
{
    fixture_t *f = *state;
    char msg[512];
    assert_int_equal(cm_store_nompi(f->s, "job", 3), 0);
    assert_int_equal(deliver(f, "9.4", "nnn", msg, sizeof msg), CM_STEP_NOMPI);
    assert_non_null(strstr(msg, "does not call MPI_Init"));
    assert_int_equal(cm_store_nompi(f->s, "job", 3), 1);
    assert_int_equal(cm_store_nompi(f->s, "job", 4), 0);
}

static void test_drop_incomplete(void **state)
{
    fixture_t *f = *state;
    char msg[512];
    cm_error_t err = { "" };
    int fd = part_fd(f, 0, 2);
    assert_int_equal(cm_store_part_put(f->s, "12.0", 0, CM_PART_OK, fd, NULL,
                                       &err), 0);
    close(fd);
    assert_int_equal(cm_store_part_drop(f->s, "13.", msg, sizeof msg, &err), 0);
    assert_int_equal(cm_store_part_drop(f->s, "12.", msg, sizeof msg, &err), 1);
    assert_non_null(strstr(msg, "step 12.0: only 1 task reported"));
}

static void test_part_not_regular(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    int fd = open(f->root, O_RDONLY | O_DIRECTORY);
    assert_int_equal(cm_store_part_put(f->s, "1.0", 0, CM_PART_OK, fd, NULL,
                                       &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file"));
    close(fd);
}

/* The store root: a link, a world-writable directory, a missing parent. */
static void test_root_checks(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    char link[4200], open_dir[4200], deep[4200];
    snprintf(link, sizeof link, "%s/link", f->root);
    assert_int_equal(symlink(f->store, link), 0);
    assert_null(cm_store_open(link, getuid(), 0, MAXB, &err));
    assert_non_null(strstr(err.msg, "a symbolic link or not a directory"));
    snprintf(open_dir, sizeof open_dir, "%s/open", f->root);
    assert_int_equal(mkdir(open_dir, 0777), 0);
    assert_int_equal(chmod(open_dir, 0777), 0);
    assert_null(cm_store_open(open_dir, getuid(), 0, MAXB, &err));
    assert_non_null(strstr(err.msg, "expected no group or world write"));
    snprintf(deep, sizeof deep, "%s/no/such/store", f->root);
    assert_null(cm_store_open(deep, getuid(), CM_STORE_CREATE, MAXB, &err));
    assert_non_null(strstr(err.msg, "cannot open the store directory"));
    assert_int_equal(access(deep, F_OK), -1);
    assert_null(cm_store_open("relative", getuid(), 0, MAXB, &err));
    assert_non_null(strstr(err.msg, "expected an absolute path"));
}

static void test_can_record(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    assert_int_equal(cm_store_can_record(f->s, &err), 0);
    cm_store_t *s = cm_store_open("/proc/clustermap-store", getuid(), 0, MAXB,
                                  &err);
    assert_non_null(s);
    assert_int_equal(cm_store_can_record(s, &err), -1);
    assert_non_null(strstr(err.msg, "pseudo file system"));
    cm_store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CM_TEST_STORE_CASE(test_bad_keys),
        CM_TEST_STORE_CASE(test_all_parts_recorded),
        CM_TEST_STORE_CASE(test_failed_or_missing_refused),
        CM_TEST_STORE_CASE(test_nompi_marked),
        CM_TEST_STORE_CASE(test_drop_incomplete),
        CM_TEST_STORE_CASE(test_part_not_regular),
        CM_TEST_STORE_CASE(test_root_checks),
        CM_TEST_STORE_CASE(test_can_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
