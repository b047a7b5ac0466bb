/* test_history.c -- a profile's run history (src/profiles/history.c,
 * store_history.c), the guard's rule (guard.c), and timed runs recorded
 * at a step's end (store_parts.c). */
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

#include "cm_history.h"
#include "testdata.h"
#include "teststore.h"

#define MAXB CM_TEST_STORE_MAXB

typedef cm_test_store_t fixture_t;

static cm_run_t run_of(int placed, double t)
{
    cm_run_t r;
    memset(&r, 0, sizeof r);
    snprintf(r.jobid, sizeof r.jobid, "7.0");
    r.when = 1700000000;
    r.placed = placed;
    snprintf(r.how, sizeof r.how, "%s", placed ? "scotch" : "-");
    snprintf(r.program, sizeof r.program, "halo");
    r.j_plan = placed ? 10 : 20;
    r.j_default = 20;
    r.elapsed_max = t;
    r.elapsed_mean = t * 0.9;
    r.mpi_max = t / 2;
    r.mpi_mean = t / 3;
    return r;
}

static void test_format_parse_roundtrip(void **state)
{
    (void)state;
    cm_run_t in[3] = { run_of(0, 2.5), run_of(1, 1.25), run_of(1, 1.5) };
    cm_run_t out[CM_HISTORY_MAX_RUNS];
    cm_error_t err = { "" };
    size_t len;
    int n = -1;
    char *text = cm_history_format(in, 3, &len, &err);
    assert_non_null(text);
    assert_int_equal(strncmp(text, "clustermap-runs 1\n", 18), 0);
    assert_int_equal(cm_history_parse(text, len, "h", out, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(out[1].placed, 1);
    assert_string_equal(out[1].how, "scotch");
    assert_true(out[2].elapsed_max == 1.5);
    assert_true(out[0].j_plan == 20);
    free(text);
    /* a mean a rounding error above its maximum (what cm_run_check lets
     * pass) is written so that it reads back: 6 decimals once put it a
     * whole unit above (a fuzz finding) */
    in[0].elapsed_max = 0.0000004999;
    in[0].elapsed_mean = 0.0000005000004;
    in[0].mpi_max = 0.0000004999;
    in[0].mpi_mean = 0.0000005000004;
    assert_int_equal(cm_run_check(&in[0], &err), 0);
    text = cm_history_format(in, 1, &len, &err);
    assert_non_null(text);
    assert_int_equal(cm_history_parse(text, len, "h", out, &n, &err), 0);
    assert_true(out[0].elapsed_mean <= out[0].elapsed_max);
    free(text);
}

static void parse_fails(const char *text, const char *want)
{
    cm_run_t out[CM_HISTORY_MAX_RUNS];
    cm_error_t err = { "" };
    int n = 7;
    assert_int_equal(cm_history_parse(text, strlen(text), "runs", out, &n, &err), -1);
    assert_int_equal(n, 0);
    if (!strstr(err.msg, want))
        fail_msg("'%s' lacks '%s'", err.msg, want);
}

static void test_parse_errors(void **state)
{
    (void)state;
    parse_fails("", "runs:1: expected 'clustermap-runs 1'");
    parse_fails("clustermap-runs 2\n", "runs:1: expected 'clustermap-runs 1'");
    parse_fails("clustermap-runs 1\n7.0 1 placed x p 1 1 1 1 1\n",
                "runs:2: expected 11 fields");
    parse_fails("clustermap-runs 1\n7.0 1 maybe x p 1 1 1 1 1 1\n",
                "runs:2: field 3: expected 'default' or 'placed'");
    parse_fails("clustermap-runs 1\n7.0 1 placed x p 1 1 -1 0 0 0\n",
                "runs:2: field 'elapsed_max'");
    parse_fails("clustermap-runs 1\n7.0 1 placed x p 1 1 1 2 0 0\n",
                "at most the maximum");
    parse_fails("clustermap-runs 1\n7.0 1 placed a/b p 1 1 1 1 1 1\n",
                "runs:2: field 'how'");
    parse_fails("clustermap-runs 1\n7.0 1 placed x p 1 1 nan 1 1 1\n",
                "runs:2: field 8: expected a number");
    parse_fails("clustermap-runs 1\n7.0 1 placed x p 1 1 1 1 1 1", "newline");
    /* a run that ended before the epoch, however far (no conversion of a
     * number past int64_t: a fuzz finding) */
    parse_fails("clustermap-runs 1\n7.0 -1e20 placed x p 1 1 1 1 1 1\n",
                "runs:2: field 'when'");
    parse_fails("clustermap-runs 1\n7.0 -1 placed x p 1 1 1 1 1 1\n",
                "runs:2: field 'when'");
}

static void decide(const cm_run_t *runs, int n, cm_guard_t *g)
{
    cm_guard_rule_t r;
    cm_guard_rule_init(&r);
    r.probe = 2;
    r.recheck = 3;
    cm_guard_decide(runs, n, &r, g);
}

static void test_guard_rule(void **state)
{
    (void)state;
    cm_guard_t g;
    /* no evidence: place */
    decide(NULL, 0, &g);
    assert_int_equal(g.place, 1);
    assert_int_equal(g.reason, CM_GUARD_FEW_PLACED);
    /* one default, one placed: not enough placed runs */
    cm_run_t h[12] = { run_of(0, 1.0), run_of(1, 3.0) };
    decide(h, 2, &g);
    assert_int_equal(g.place, 1);
    assert_non_null(strstr(g.why, "1 timed placed run, 2 needed"));
    /* two placed runs, one default: measure Slurm's default once more */
    h[2] = run_of(1, 3.1);
    decide(h, 3, &g);
    assert_int_equal(g.place, 0);
    assert_int_equal(g.reason, CM_GUARD_MEASURE);
    assert_string_equal(cm_guard_reason_name(g.reason), "measure");
    /* two of each, placed clearly slower: Slurm's default */
    h[3] = run_of(0, 1.2);
    decide(h, 4, &g);
    assert_int_equal(g.slower, 1);
    assert_int_equal(g.place, 0);
    assert_int_equal(g.reason, CM_GUARD_SLOWER);
    assert_true(g.placed_best > 2.99 && g.placed_best < 3.01);
    assert_true(g.default_best > 0.99 && g.default_best < 1.01);
    assert_true(g.spread > 0.09 && g.spread < 0.11);   /* the placed range */
    /* after 2 runs in a row under Slurm's default, a probe */
    h[4] = run_of(0, 1.0);
    decide(h, 5, &g);
    assert_int_equal(g.place, 1);
    assert_int_equal(g.reason, CM_GUARD_PROBE);
    assert_int_equal(g.since_placed, 2);
    /* the probe was slow again: default again */
    h[5] = run_of(1, 3.0);
    decide(h, 6, &g);
    assert_int_equal(g.place, 0);
    assert_int_equal(g.reason, CM_GUARD_SLOWER);
    /* placed runs faster: place, until 3 placed runs in a row: re-check */
    cm_run_t fast[8] = { run_of(0, 3.0), run_of(0, 3.1), run_of(1, 1.0),
                         run_of(1, 1.2) };
    decide(fast, 4, &g);
    assert_int_equal(g.place, 1);
    assert_int_equal(g.reason, CM_GUARD_FASTER);
    fast[4] = run_of(1, 1.1);
    decide(fast, 5, &g);
    assert_int_equal(g.place, 0);
    assert_int_equal(g.reason, CM_GUARD_RECHECK);
    /* within the spread: place */
    cm_run_t noisy[4] = { run_of(0, 1.0), run_of(1, 1.0), run_of(1, 2.0),
                          run_of(0, 1.5) };
    decide(noisy, 4, &g);   /* best 1.0 vs 1.0 */
    assert_int_equal(g.place, 1);
    assert_int_equal(g.slower, 0);
    /* one slow default run (a late start) moves neither the default's
     * figure nor the spread: placed runs are still found slower (the CI
     * run of t0513 in trixie: a cold first run of 17.3 s beside 2.9 s) */
    cm_run_t late[5] = { run_of(0, 17.329), run_of(1, 12.520), run_of(1, 12.229),
                         run_of(0, 2.918), run_of(1, 12.544) };
    decide(late, 5, &g);
    assert_int_equal(g.slower, 1);
    assert_int_equal(g.place, 0);
    assert_true(g.default_best > 2.9 && g.default_best < 2.92);
    assert_true(g.spread > 0.3 && g.spread < 0.32);   /* the placed range */
    /* nor does one slow placed run hide a real gain */
    cm_run_t lucky[4] = { run_of(0, 12.0), run_of(0, 12.1), run_of(1, 15.0),
                          run_of(1, 3.0) };
    decide(lucky, 4, &g);
    assert_int_equal(g.slower, 0);
    assert_int_equal(g.reason, CM_GUARD_FASTER);
    /* below the margin (2 % of the default mean): place */
    cm_run_t close[4] = { run_of(0, 10.0), run_of(0, 10.0), run_of(1, 10.1),
                          run_of(1, 10.1) };
    decide(close, 4, &g);
    assert_int_equal(g.slower, 0);
    /* untimed runs (elapsed 0) are no evidence */
    cm_run_t untimed[3] = { run_of(0, 1.0), run_of(1, 0), run_of(1, 0) };
    decide(untimed, 3, &g);
    assert_int_equal(g.nplaced, 0);
    assert_int_equal(g.place, 1);
}

static void test_store_history(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_run_t runs[CM_HISTORY_MAX_RUNS];
    int n = -1;
    assert_int_equal(cm_store_history_load(f->s, "job", 4, runs, &n, &err), 0);
    assert_int_equal(n, 0);
    for (int k = 0; k < CM_HISTORY_MAX_RUNS + 3; k++) {
        cm_run_t r = run_of(k % 2, 1.0 + k);
        assert_int_equal(cm_store_history_add(f->s, "job", 4, &r, &err), 0);
    }
    assert_int_equal(cm_store_history_load(f->s, "job", 4, runs, &n, &err), 0);
    assert_int_equal(n, CM_HISTORY_MAX_RUNS);
    assert_true(runs[0].elapsed_max == 4.0);   /* the 3 oldest dropped */
    /* a history that is not the user's own text is refused, with its name */
    char path[4200];
    snprintf(path, sizeof path, "%s/job.4.json.runs", cm_store_dir(f->s));
    assert_int_equal(chmod(path, 0666), 0);
    assert_int_equal(cm_store_history_load(f->s, "job", 4, runs, &n, &err), -1);
    assert_non_null(strstr(err.msg, "job.4.json.runs"));
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(cm_store_history_reset(f->s, "job", 4, &err), 1);
    assert_int_equal(cm_store_history_reset(f->s, "job", 4, &err), 0);
    assert_int_equal(cm_store_history_load(f->s, "job", 4, runs, &n, &err), 0);
    assert_int_equal(n, 0);
    /* a link in its place is not followed */
    assert_int_equal(symlink("/etc/passwd", path), 0);
    assert_int_equal(cm_store_history_load(f->s, "job", 4, runs, &n, &err), -1);
    unlink(path);
}

/* Deliver a 2-task step whose parts are timed (and traffic off when
 * @p traffic is 0), as program @p prog. */
static int deliver_timed(fixture_t *f, const char *step, int traffic,
                         const char *prog, const cm_run_t *info, char *msg,
                         size_t size)
{
    cm_error_t err = { "" };
    int rc = -1;
    for (int t = 0; t < 2; t++) {
        char text[256], name[32];
        snprintf(text, sizeof text, "clustermap-raw 2\nranks 2\nrank %d\njob 9 0\n"
                 "program %s\n%stime %d.500000 0.250000\n%send %d\n", t, prog,
                 traffic ? "" : "traffic off\n", 2 + t,
                 traffic ? (t ? "p2p 1 0 64 2\n" : "p2p 0 1 64 2\n") : "",
                 traffic ? 1 : 0);
        snprintf(name, sizeof name, "part.%s.%d.txt", step, t);
        int fd = open(cm_test_write_file(f->root, name, text), O_RDONLY);
        assert_true(fd >= 0);
        assert_int_equal(cm_store_part_put(f->s, step, t, CM_PART_OK, fd, NULL,
                                           &err), 0);
        close(fd);
        rc = cm_store_part_close(f->s, step, "job", 2, 0.5, info, msg, size, &err);
        if (rc < 0)
            fail_msg("%s", err.msg);
    }
    return rc;
}

static void test_timed_runs_recorded(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_run_t runs[CM_HISTORY_MAX_RUNS], info = run_of(0, 0);
    cm_profile_t *p = NULL;
    char msg[512];
    int n = 0;
    /* a profiled run under Slurm's default: profile and history */
    assert_int_equal(deliver_timed(f, "1.0", 1, "halo", &info, msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_non_null(strstr(msg, "recorded the run in the profile of 'job'"));
    assert_int_equal(cm_store_history_load(f->s, "job", 2, runs, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_true(runs[0].elapsed_max == 3.5);
    assert_true(runs[0].elapsed_mean == 3.0);
    assert_true(runs[0].mpi_max == 0.25);
    assert_string_equal(runs[0].jobid, "1.0");
    assert_string_equal(runs[0].program, "halo");
    /* a placed run that is only timed: history only, the profile stays */
    info = run_of(1, 0);
    assert_int_equal(deliver_timed(f, "2.0", 0, "halo", &info, msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_non_null(strstr(msg, "recorded the run's time"));
    assert_int_equal(cm_store_load(f->s, "job", 2, &p, &err), 1);
    assert_int_equal(cm_profile_runs(p), 1);
    cm_profile_free(p);
    assert_int_equal(cm_store_history_load(f->s, "job", 2, runs, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(runs[1].placed, 1);
    /* another program under the same key: the profile starts again */
    info = run_of(1, 0);
    assert_int_equal(deliver_timed(f, "3.0", 0, "other", &info, msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_non_null(strstr(msg, "program changed from halo to other"));
    assert_int_equal(cm_store_load(f->s, "job", 2, &p, &err), 0);
    assert_int_equal(cm_store_history_load(f->s, "job", 2, runs, &n, &err), 0);
    assert_int_equal(n, 0);
    /* without srun's word on the placement: profile, no history */
    assert_int_equal(deliver_timed(f, "4.0", 1, "other", NULL, msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_int_equal(cm_store_history_load(f->s, "job", 2, runs, &n, &err), 0);
    assert_int_equal(n, 0);
    /* delete takes the history with the profile */
    info = run_of(0, 0);
    assert_int_equal(deliver_timed(f, "5.0", 1, "other", &info, msg, sizeof msg),
                     CM_STEP_RECORDED);
    assert_int_equal(cm_store_delete(f->s, "job", 2, &err), 0);
    assert_int_equal(cm_store_history_load(f->s, "job", 2, runs, &n, &err), 0);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_parse_roundtrip),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_guard_rule),
        CM_TEST_STORE_CASE(test_store_history),
        CM_TEST_STORE_CASE(test_timed_runs_recorded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
