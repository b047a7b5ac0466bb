/*
 * test_mpirun_record.c -- recording an mpirun run after mpirun returned
 * (src/plugin/mpirun_record.c): nothing without srun's record, a record
 * that is not one refused, and a run whose mpirun failed never recorded,
 * whatever its ranks staged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/plugin/mpirun_record.c"
#include "../../src/plugin/private_dir.c"
#include "../../src/plugin/srun_args.c"
#include "../../src/plugin/step_run.c"
#include "teststore.h"

/* <root>/stage with srun's record for a 2-rank run of 'job' in the store. */
static void stage_with_record(const cm_test_store_t *f, char *stage, size_t n)
{
    cmp_mpirun_record_t r;
    cm_error_t err;
    snprintf(stage, n, "%s/stage", f->root);
    assert_int_equal(mkdir(stage, 0700), 0);
    memset(&r, 0, sizeof r);
    snprintf(r.store, sizeof r.store, "%.1000s", f->store);
    snprintf(r.key, sizeof r.key, "job");
    snprintf(r.step, sizeof r.step, "7.123");
    snprintf(r.run, sizeof r.run, "placed 1 scotch-ms 0.1 0.2");
    r.ntasks = 2;
    r.weight = 1;
    r.max_bytes = CM_TEST_STORE_MAXB;
    r.verbose = 2;
    assert_int_equal(cmp_mpirun_record_write(stage, &r, 1, &err), 0);
}

static void test_no_record_nothing_to_do(void **state)
{
    cm_test_store_t *f = *state;
    char stage[4200], msg[512] = "";
    int verbose = -1;
    snprintf(stage, sizeof stage, "%s/stage", f->root);
    assert_int_equal(mkdir(stage, 0700), 0);
    assert_int_equal(cmp_mpirun_record_collect(stage, 0, msg, sizeof msg, &verbose), 0);
    assert_int_equal(verbose, 0);
}

static void test_bad_record_refused(void **state)
{
    cm_test_store_t *f = *state;
    char stage[4200], path[4300], msg[512] = "";
    int verbose;
    snprintf(stage, sizeof stage, "%s/stage", f->root);
    assert_int_equal(mkdir(stage, 0700), 0);
    snprintf(path, sizeof path, "%s/record", stage);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("store=relative\nprofile=job\n", fp);
    fclose(fp);
    assert_int_equal(cmp_mpirun_record_collect(stage, 0, msg, sizeof msg, &verbose), -1);
    assert_non_null(strstr(msg, "the run of mpirun is not recorded: record: bad store"));
}

static void test_failed_mpirun_not_recorded(void **state)
{
    cm_test_store_t *f = *state;
    char stage[4200], msg[512] = "";
    int verbose;
    cm_profile_t *p = NULL;
    cm_error_t err;
    stage_with_record(f, stage, sizeof stage);
    assert_int_equal(cmp_mpirun_record_collect(stage, 3, msg, sizeof msg, &verbose),
                     CM_STEP_REFUSED);
    assert_string_equal(msg, "mpirun failed (exit code 3): the run of 'job' is not "
                             "recorded");
    assert_int_equal(verbose, 2);
    assert_int_equal(cm_store_load(f->s, "job", 2, &p, &err), 0);
}

/* The same stage with mpirun's exit code 0 gets as far as the ranks'
 * parts (none here): the failure above stopped before them. */
static void test_succeeded_mpirun_reads_parts(void **state)
{
    cm_test_store_t *f = *state;
    char stage[4200], msg[512] = "";
    int verbose;
    stage_with_record(f, stage, sizeof stage);
    assert_int_equal(cmp_mpirun_record_collect(stage, 0, msg, sizeof msg, &verbose),
                     CM_STEP_REFUSED);
    assert_non_null(strstr(msg, "2 of 2 tasks sent no profile"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CM_TEST_STORE_CASE(test_no_record_nothing_to_do),
        CM_TEST_STORE_CASE(test_bad_record_refused),
        CM_TEST_STORE_CASE(test_failed_mpirun_not_recorded),
        CM_TEST_STORE_CASE(test_succeeded_mpirun_reads_parts),
    };
    return cmocka_run_group_tests_name("test_mpirun_record", tests, NULL, NULL);
}
