/* test_store_trace.c -- the tnbc traces kept beside a profile
 * (src/store/store_trace.c; docs/overlays.md, "Trace and priorities"):
 * staged with a step's parts, checked by the overlay's parser, kept when
 * every task sent one and the run was recorded, replaced whole, left as
 * they were by an incomplete set, dropped when the program changes,
 * removed with the profile, described for `profile show` and handed to
 * srun as a prefix only when complete. */
#include <dirent.h>
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
#include "store_internal.h"
#include "testdata.h"
#include "teststore.h"

typedef cm_test_store_t fixture_t;

/* Open @p text written as @p name in the fixture's directory. */
static int text_fd(const fixture_t *f, const char *name, const char *text)
{
    int fd = open(cm_test_write_file(f->root, name, text), O_RDONLY);
    assert_true(fd >= 0);
    return fd;
}

/* The trace of rank @p me of @p n: one site, the peers from the last
 * rank's to the first (@p down), or the other way; its time line with
 * the rank's own times (10 (me + 1) ns hidden, 7 inside), or with every
 * rank's summed (@p total: as the store keeps it, agree_times). */
static void trace_text(char *buf, size_t size, int me, int n, int down,
                       int total)
{
    int at = snprintf(buf, size, "clustermap-tnbc-trace 1\n# a comment\n"
                      "site tnbc_order+0x1a2b alltoall %d %d 3", n, me);
    for (int k = 0; k < n; k++) {
        int j = down ? n - 1 - k : k;
        if (j != me)
            at += snprintf(buf + at, size - (size_t)at, " %d", j);
    }
    snprintf(buf + at, size - (size_t)at,
             "\ntime tnbc_order+0x1a2b alltoall %d %d %d %d\n", n, me,
             total ? 5 * n * (n + 1) : 10 * (me + 1), total ? 7 * n : 7);
}

/* Deliver a step of @p n tasks of program @p prog, all ok; tasks below
 * @p traced also send their trace (order @p down).  The last close's
 * result, its line in @p msg. */
static int run(fixture_t *f, const char *step, int n, const char *prog,
               int traced, int down, char *msg, size_t size)
{
    cm_error_t err = { "" };
    int rc = -1;
    for (int t = 0; t < n; t++) {
        char text[512], name[64];
        if (t < traced) {
            trace_text(text, sizeof text, t, n, down, 0);
            snprintf(name, sizeof name, "tnbc.%d", t);
            int fd = text_fd(f, name, text);
            assert_int_equal(cm_store_trace_put(f->s, step, t, fd, &err), 0);
            close(fd);
        }
        snprintf(text, sizeof text, "clustermap-raw 2\nranks %d\nrank %d\n"
                 "job 9 0\nprogram %s\np2p %d %d 64 2\nend 1\n", n, t, prog, t,
                 (t + 1) % n);
        snprintf(name, sizeof name, "part.%d.txt", t);
        int fd = text_fd(f, name, text);
        assert_int_equal(cm_store_part_put(f->s, step, t, CM_PART_OK, fd, NULL,
                                           &err), 0);
        close(fd);
        rc = cm_store_part_close(f->s, step, "job", n, 0.5, NULL, msg, size,
                                 &err);
        assert_true(rc >= 0);
    }
    return rc;
}

/* Step 9.0: 4 tasks of program "a", every one traced (last rank first). */
static void first_run(fixture_t *f, char *msg, size_t size)
{
    assert_int_equal(run(f, "9.0", 4, "a", 4, 1, msg, size), CM_STEP_RECORDED);
}

/* The kept file of rank @p rank, read whole into @p buf. */
static void kept(const fixture_t *f, int rank, char *buf, size_t size)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/job.4.json.tnbc/tnbc.%d", cm_store_dir(f->s),
             rank);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    size_t k = fread(buf, 1, size - 1, fp);
    buf[k] = '\0';
    fclose(fp);
}

/* Entries of the user directory whose name starts with @p prefix. */
static int entries(const fixture_t *f, const char *prefix)
{
    DIR *d = opendir(cm_store_dir(f->s));
    struct dirent *e;
    int k = 0;
    assert_non_null(d);
    while ((e = readdir(d)))
        k += !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return k;
}

static void test_kept_whole(void **state)
{
    fixture_t *f = *state;
    char msg[600], buf[4500], want[4400], prefix[4400];
    cm_trace_info_t ti;
    cm_error_t err = { "" };
    first_run(f, msg, sizeof msg);
    assert_non_null(strstr(msg, "(runs=1); kept its tnbc trace"));
    assert_int_equal(cm_store_trace_info(f->s, "job", 4, &ti, &err), 1);
    assert_int_equal(ti.complete, 1);
    assert_int_equal(ti.ranks, 4);
    assert_int_equal(ti.sites, 1);
    assert_true(ti.bytes > 0);
    for (int r = 0; r < 4; r++) {
        kept(f, r, buf, sizeof buf);
        trace_text(want, sizeof want, r, 4, 1, 1);
        assert_string_equal(buf, want);
    }
    /* the ranks read <prefix>.<rank> (ovl_tprio.c) */
    assert_int_equal(cm_store_trace_prefix(f->s, "job", 4, prefix,
                                           sizeof prefix, &err), 1);
    snprintf(want, sizeof want, "%s/job.4.json.tnbc/tnbc", cm_store_dir(f->s));
    assert_string_equal(prefix, want);
    struct stat st;
    snprintf(buf, sizeof buf, "%s.3", prefix);
    assert_int_equal(stat(buf, &st), 0);
    assert_int_equal(st.st_mode & 077, 0);
    /* the listing counts it in the profile's bytes */
    cm_store_entry_t *e = NULL;
    int count = 0;
    assert_int_equal(cm_store_list(f->s, &e, &count, &err), 0);
    assert_int_equal(count, 1);
    assert_true(e[0].file_bytes > ti.bytes);
    free(e);
    /* another task count has none */
    assert_int_equal(cm_store_trace_prefix(f->s, "job", 8, prefix,
                                           sizeof prefix, &err), 0);
    assert_string_equal(prefix, "");
}

static void test_replaced_atomically(void **state)
{
    fixture_t *f = *state;
    char msg[600], buf[512], want[512], stale[4400];
    first_run(f, msg, sizeof msg);
    /* what a writer killed in the middle left */
    snprintf(stale, sizeof stale, "%s/.job.4.json.tnbc.new.99999",
             cm_store_dir(f->s));
    assert_int_equal(mkdir(stale, 0700), 0);
    assert_non_null(cm_test_write_file(stale, "tnbc.0", "x"));
    assert_int_equal(run(f, "9.1", 4, "a", 4, 0, msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_non_null(strstr(msg, "(runs=2); kept its tnbc trace"));
    for (int r = 0; r < 4; r++) {
        kept(f, r, buf, sizeof buf);
        trace_text(want, sizeof want, r, 4, 0, 1);
        assert_string_equal(buf, want);
    }
    /* no temporary directory left, no staging */
    assert_int_equal(entries(f, ".job.4.json.tnbc"), 0);
    assert_int_equal(entries(f, ".step."), 0);
    assert_int_equal(entries(f, "job.4.json.tnbc"), 1);
}

static void test_incomplete_keeps_old(void **state)
{
    fixture_t *f = *state;
    char msg[600], buf[512], want[512];
    cm_trace_info_t ti;
    cm_error_t err = { "" };
    first_run(f, msg, sizeof msg);
    assert_int_equal(run(f, "9.1", 4, "a", 3, 0, msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_non_null(strstr(msg, "(runs=2); 1 of 4 tasks sent no tnbc trace: "
                           "the kept trace is unchanged"));
    kept(f, 0, buf, sizeof buf);
    trace_text(want, sizeof want, 0, 4, 1, 1);
    assert_string_equal(buf, want);
    /* a run without any trace changes nothing, says nothing */
    assert_int_equal(run(f, "9.2", 4, "a", 0, 0, msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_null(strstr(msg, "tnbc"));
    assert_int_equal(cm_store_trace_info(f->s, "job", 4, &ti, &err), 1);
    assert_int_equal(ti.complete, 1);
}

static void test_program_change_drops(void **state)
{
    fixture_t *f = *state;
    char msg[600];
    cm_trace_info_t ti;
    cm_error_t err = { "" };
    first_run(f, msg, sizeof msg);
    /* the history knows the program only from timed runs: give it one */
    cm_run_t r;
    memset(&r, 0, sizeof r);
    snprintf(r.jobid, sizeof r.jobid, "9.0");
    snprintf(r.how, sizeof r.how, "-");
    snprintf(r.program, sizeof r.program, "a");
    r.elapsed_max = r.elapsed_mean = 1;
    assert_int_equal(cm_store_history_add(f->s, "job", 4, &r, &err), 0);
    assert_int_equal(run(f, "9.1", 4, "b", 0, 0, msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_non_null(strstr(msg, "the program changed from a to b"));
    assert_int_equal(cm_store_trace_info(f->s, "job", 4, &ti, &err), 0);
}

static void test_bad_traces_refused(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    char text[512];
    int fd = text_fd(f, "bad", "something else\n");
    assert_int_equal(cm_store_trace_put(f->s, "9.0", 0, fd, &err), -1);
    assert_non_null(strstr(err.msg, "task 0's trace:1: not a tnbc trace"));
    close(fd);
    /* a NUL byte */
    trace_text(text, sizeof text, 1, 4, 1, 0);
    const char *path = cm_test_write_file(f->root, "nul", text);
    FILE *fp = fopen(path, "a");
    fputc('\0', fp);
    fclose(fp);
    fd = open(path, O_RDONLY);
    assert_int_equal(cm_store_trace_put(f->s, "9.0", 1, fd, &err), -1);
    assert_non_null(strstr(err.msg, "a NUL byte"));
    close(fd);
    /* a peer twice */
    fd = text_fd(f, "twice", "clustermap-tnbc-trace 1\n"
                 "site p+0x1 alltoall 3 0 1 1 1\n");
    assert_int_equal(cm_store_trace_put(f->s, "9.0", 2, fd, &err), -1);
    assert_non_null(strstr(err.msg, ":2: a peer twice"));
    close(fd);
    /* over the store's bound (1 MiB in the tests) */
    path = cm_test_write_file(f->root, "big", "clustermap-tnbc-trace 1\n");
    assert_int_equal(truncate(path, (CM_TEST_STORE_MAXB) + 1), 0);
    fd = open(path, O_RDONLY);
    assert_int_equal(cm_store_trace_put(f->s, "9.0", 3, fd, &err), -1);
    assert_non_null(strstr(err.msg, "more than the limit"));
    close(fd);
    /* not a regular file */
    fd = open(f->root, O_RDONLY | O_DIRECTORY);
    assert_int_equal(cm_store_trace_put(f->s, "9.0", 3, fd, &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file"));
    close(fd);
    /* a step key that is not one */
    trace_text(text, sizeof text, 0, 4, 1, 0);
    fd = text_fd(f, "good", text);
    assert_int_equal(cm_store_trace_put(f->s, "../x", 0, fd, &err), -1);
    close(fd);
    /* nothing was staged */
    assert_int_equal(entries(f, ".step."), 0);
}

static void test_removed_with_profile(void **state)
{
    fixture_t *f = *state;
    char msg[600];
    cm_trace_info_t ti;
    cm_error_t err = { "" };
    first_run(f, msg, sizeof msg);
    assert_int_equal(cm_store_trace_remove(f->s, "job", 4, &err), 1);
    assert_int_equal(cm_store_trace_remove(f->s, "job", 4, &err), 0);
    assert_int_equal(cm_store_trace_info(f->s, "job", 4, &ti, &err), 0);
    assert_int_equal(run(f, "9.1", 4, "a", 4, 1, msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_int_equal(entries(f, "job.4.json.tnbc"), 1);
    assert_int_equal(cm_store_delete(f->s, "job", 4, &err), 0);
    assert_int_equal(entries(f, "job.4.json"), 0);
}

static void test_incomplete_dir_not_used(void **state)
{
    fixture_t *f = *state;
    char msg[600], path[4400], prefix[4400];
    cm_trace_info_t ti;
    cm_error_t err = { "" };
    first_run(f, msg, sizeof msg);
    snprintf(path, sizeof path, "%s/job.4.json.tnbc/tnbc.2", cm_store_dir(f->s));
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink("/etc/passwd", path), 0);   /* not counted */
    assert_int_equal(cm_store_trace_info(f->s, "job", 4, &ti, &err), 1);
    assert_int_equal(ti.complete, 0);
    assert_int_equal(ti.ranks, 3);
    assert_int_equal(cm_store_trace_prefix(f->s, "job", 4, prefix,
                                           sizeof prefix, &err), -1);
    assert_non_null(strstr(err.msg, "job.4.json.tnbc: the files of 3 of its 4 "
                           "ranks"));
    /* a directory others may write is not the user's trace */
    snprintf(path, sizeof path, "%s/job.4.json.tnbc", cm_store_dir(f->s));
    assert_int_equal(chmod(path, 0777), 0);
    assert_int_equal(cm_store_trace_info(f->s, "job", 4, &ti, &err), -1);
    assert_non_null(strstr(err.msg, "not a private directory"));
    /* the next complete run replaces it all the same */
    assert_int_equal(run(f, "9.1", 4, "a", 4, 1, msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_int_equal(cm_store_trace_prefix(f->s, "job", 4, prefix,
                                           sizeof prefix, &err), 1);
}

/* A step of 4 tasks of program @p prog, every task traced and timed,
 * with srun's word on the placement: the store's locks taken by the
 * close that records it (the others only stage). */
static unsigned long run_counted(fixture_t *f, const char *step,
                                 const char *prog, char *msg, size_t size)
{
    cm_error_t err = { "" };
    cm_run_t info;
    unsigned long before = 0;
    memset(&info, 0, sizeof info);
    snprintf(info.how, sizeof info.how, "-");
    for (int t = 0; t < 4; t++) {
        char text[512], name[64];
        trace_text(text, sizeof text, t, 4, 1, 0);
        snprintf(name, sizeof name, "tnbc.%s.%d", step, t);
        int fd = text_fd(f, name, text);
        assert_int_equal(cm_store_trace_put(f->s, step, t, fd, &err), 0);
        close(fd);
        snprintf(text, sizeof text, "clustermap-raw 2\nranks 4\nrank %d\n"
                 "job 9 0\nprogram %s\ntime 2.5 0.25\np2p %d %d 64 2\n"
                 "end 1\n", t, prog, t, (t + 1) % 4);
        snprintf(name, sizeof name, "part.%s.%d.txt", step, t);
        fd = text_fd(f, name, text);
        assert_int_equal(cm_store_part_put(f->s, step, t, CM_PART_OK, fd, NULL,
                                           &err), 0);
        close(fd);
        before = cm_store_lock_takes();
        int rc = cm_store_part_close(f->s, step, "job", 4, 0.5, &info, msg,
                                     size, &err);
        if (rc < 0)
            fail_msg("%s", err.msg);
        assert_int_equal(rc, t < 3 ? CM_STEP_PENDING : CM_STEP_RECORDED);
    }
    return cm_store_lock_takes() - before;
}

/* Recording a run -- profile, history, trace, and starting them again
 * when the program changed -- is one transaction: one take of the lock. */
static void test_one_transaction(void **state)
{
    fixture_t *f = *state;
    char msg[600];
    cm_run_t runs[CM_HISTORY_MAX_RUNS];
    cm_trace_info_t ti;
    cm_error_t err = { "" };
    int n = 0;
    assert_int_equal(run_counted(f, "9.0", "a", msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "(runs=1, Slurm's default); kept its tnbc "
                           "trace"));
    assert_int_equal(run_counted(f, "9.1", "a", msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "(runs=2, Slurm's default); kept its tnbc "
                           "trace"));
    assert_int_equal(cm_store_history_load(f->s, "job", 4, runs, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(run_counted(f, "9.2", "b", msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "(runs=1, Slurm's default); the program "
                           "changed from a to b, so the profile starts "
                           "again; kept its tnbc trace"));
    assert_int_equal(cm_store_history_load(f->s, "job", 4, runs, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(runs[0].program, "b");
    assert_int_equal(cm_store_trace_info(f->s, "job", 4, &ti, &err), 1);
    assert_int_equal(ti.complete, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CM_TEST_STORE_CASE(test_kept_whole),
        CM_TEST_STORE_CASE(test_replaced_atomically),
        CM_TEST_STORE_CASE(test_incomplete_keeps_old),
        CM_TEST_STORE_CASE(test_program_change_drops),
        CM_TEST_STORE_CASE(test_bad_traces_refused),
        CM_TEST_STORE_CASE(test_removed_with_profile),
        CM_TEST_STORE_CASE(test_incomplete_dir_not_used),
        CM_TEST_STORE_CASE(test_one_transaction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
