/*
 * test_mpirun_record.c -- recording an mpirun run after mpirun returned
 * (src/launch/mpirun_record.c): nothing without srun's record, a record
 * that is not one refused, a run whose mpirun failed never recorded,
 * whatever its ranks staged, and a run whose ranks ran tnbc recorded with
 * their traces (the control file naming the trace they read).
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

#include "launch.h"
#include "teststore.h"

/* <root>/stage with srun's record for a 2-rank run of 'job' in the store
 * (the ranks to read the tnbc trace @p prio, "" none). */
static void stage_prio(const cm_test_store_t *f, char *stage, size_t n,
                       const char *prio)
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
    assert_int_equal(cmp_mpirun_record_write(stage, &r, 1, prio, &err), 0);
}

static void stage_with_record(const cm_test_store_t *f, char *stage, size_t n)
{
    stage_prio(f, stage, n, "");
}

/* @p text as file @p name of directory @p dir. */
static void put(const char *dir, const char *name, const char *text)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* The control file: the mode first (what the profiler reads), then the
 * trace to read when there is one. */
static void test_control_file(void **state)
{
    cm_test_store_t *f = *state;
    char stage[4200], path[4300], text[256];
    stage_prio(f, stage, sizeof stage, "/store/u/job.2.json.tnbc/tnbc");
    snprintf(path, sizeof path, "%s/control", stage);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    size_t len = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[len] = '\0';
    assert_string_equal(text, "traffic\nprio=/store/u/job.2.json.tnbc/tnbc\n");
    /* a run neither profiled nor timed: only the trace to read */
    cm_error_t err;
    assert_int_equal(cmp_mpirun_control_write(stage, "off", "/t/tnbc", &err), 0);
    fp = fopen(path, "r");
    assert_non_null(fp);
    len = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[len] = '\0';
    assert_string_equal(text, "off\nprio=/t/tnbc\n");
}

/* Ranks that ran tnbc left their traces beside their parts (tnbc.<rank>,
 * CLUSTERMAP_OVERLAY_TRACE=<stage>/tnbc): the run keeps them with the
 * profile, every rank's times summed. */
static void test_traces_kept(void **state)
{
    cm_test_store_t *f = *state;
    char stage[4200], msg[512] = "", text[512], name[64], path[4400];
    int verbose;
    stage_with_record(f, stage, sizeof stage);
    for (int t = 0; t < 2; t++) {
        snprintf(text, sizeof text, "clustermap-raw 2\nranks 2\nrank %d\n"
                 "job 7 123\nprogram a\np2p %d %d 64 2\nend 1\n", t, t, 1 - t);
        snprintf(name, sizeof name, "part.%d.txt", t);
        put(stage, name, text);
        snprintf(text, sizeof text, "clustermap-tnbc-trace 1\n"
                 "site app+0x10 alltoall 2 %d 1 %d\n"
                 "time app+0x10 alltoall 2 %d %d 7\n", t, 1 - t, t, 10 * (t + 1));
        snprintf(name, sizeof name, "tnbc.%d", t);
        put(stage, name, text);
    }
    assert_int_equal(cmp_mpirun_record_collect(stage, 0, msg, sizeof msg, &verbose),
                     CM_STEP_RECORDED);
    assert_non_null(strstr(msg, "kept its tnbc trace"));
    cm_trace_info_t ti;
    cm_error_t err;
    assert_int_equal(cm_store_trace_info(f->s, "job", 2, &ti, &err), 1);
    assert_int_equal(ti.ranks, 2);
    assert_int_equal(ti.sites, 1);
    assert_int_equal(cm_store_trace_prefix(f->s, "job", 2, path, sizeof path, &err), 1);
    strcat(path, ".1");
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    size_t len = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[len] = '\0';
    assert_non_null(strstr(text, "\ntime app+0x10 alltoall 2 1 30 14\n"));
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
        CM_TEST_STORE_CASE(test_control_file),
        CM_TEST_STORE_CASE(test_traces_kept),
    };
    return cmocka_run_group_tests_name("test_mpirun_record", tests, NULL, NULL);
}
