/* test_profiles_null.c -- every public function of cm_profile.h and
 * cm_history.h called with NULL handles, NULL pointers, out-of-range
 * indices and garbage text: each must give the failure its note in the
 * header documents (NULL, -1, 0 or a no-op, with a message in the error
 * record when it takes one), leave its outputs as the note says, and never
 * crash.  test/sh/t0014-api-null.t fails when a function those headers
 * declare is not called here, so a new function comes with its row.
 *
 * FAILS(call) runs @p call twice, once with `err` pointing to a record
 * (which must then hold a message) and once with `err` NULL, and expects
 * -1 both times; FAILS_NULL does the same for calls that return a
 * pointer. */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testnull.h"
#include "cm_history.h"
#include "raw.h"
#include "testutil.h"

/* Four ranks in a ring, with message counts. */
static cm_matrix_t *ring(int n)
{
    cm_test_entry_t e[8];
    for (int k = 0; k < n && k < 8; k++)
        e[k] = (cm_test_entry_t){ k, (k + 1) % n, 10, 1 };
    return cm_test_matrix_of(n, e, n < 8 ? n : 8, 1);
}

/* A valid four-task profile with one job id. */
static cm_profile_t *small_profile(void)
{
    cm_matrix_t *m = ring(4);
    cm_profile_t *p = cm_profile_new(1000, "alice", "job", 4, m, NULL, 100, NULL);
    cm_matrix_free(m);
    assert_non_null(p);
    assert_int_equal(cm_profile_add_jobid(p, "7.0", NULL), 0);
    return p;
}

/* A name of @p len bytes 'x' (malloc'd). */
static char *long_name(size_t len)
{
    char *s = malloc(len + 1);
    assert_non_null(s);
    memset(s, 'x', len);
    s[len] = '\0';
    return s;
}

static void test_part_parse(void **state)
{
    (void)state;
    static const char *const bad[] = { "", "P2P", "p2p ", "al", "both", "\xff" };
    cm_part_t out = (cm_part_t)99;
    assert_int_equal(cm_part_parse(NULL, &out), -1);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        assert_int_equal(cm_part_parse(bad[k], &out), -1);
    assert_int_equal(out, 99); /* untouched */
    assert_int_equal(cm_part_parse("p2p", NULL), -1);
    assert_int_equal(cm_part_parse("coll", &out), 0);
    assert_int_equal(out, CM_PART_COLL);
}

static void test_new(void **state)
{
    (void)state;
    cm_matrix_t *m = ring(4);
    char *name256 = long_name(CM_PROFILE_MAX_NAME + 1);
    char *name255 = long_name(CM_PROFILE_MAX_NAME);

    FAILS_NULL(cm_profile_new(1, "u", "j", 4, NULL, NULL, 0, err));
    FAILS_NULL(cm_profile_new(1, NULL, "j", 4, m, NULL, 0, err));
    FAILS_NULL(cm_profile_new(1, "u", NULL, 4, m, NULL, 0, err));
    FAILS_NULL(cm_profile_new(1, "u", "", 4, m, NULL, 0, err));
    FAILS_NULL(cm_profile_new(1, name256, "j", 4, m, NULL, 0, err));
    FAILS_NULL(cm_profile_new(1, "u", name256, 4, m, NULL, 0, err));
    FAILS_NULL(cm_profile_new(1, "u", "j", 0, m, NULL, 0, err));
    FAILS_NULL(cm_profile_new(1, "u", "j", -1, m, NULL, 0, err));
    FAILS_NULL(cm_profile_new(1, "u", "j", CM_PROFILE_MAX_TASKS + 1, m, NULL, 0, err));
    FAILS_NULL(cm_profile_new(1, "u", "j", 3, m, NULL, 0, err));
    FAILS_NULL(cm_profile_new(1, "u", "j", 5, NULL, m, 0, err));

    /* the limits themselves are accepted: an empty user, 255-byte names */
    cm_profile_t *p = cm_profile_new(1, "", name255, 4, NULL, m, 0, NULL);
    assert_non_null(p);
    cm_profile_free(p);
    p = cm_profile_new(1, name255, "j", 4, m, m, 0, NULL);
    assert_non_null(p);
    cm_profile_free(p);
    free(name255);
    free(name256);
    cm_matrix_free(m);
}

static void test_from_raw(void **state)
{
    (void)state;
    cm_raw_profile_t raw;

    memset(&raw, 0, sizeof raw); /* no ranks, no matrices */
    FAILS_NULL(cm_profile_from_raw(NULL, 1, "u", "j", 0, err));
    FAILS_NULL(cm_profile_from_raw(&raw, 1, "u", "j", 0, err));
    raw.nranks = 4;
    raw.p2p = ring(4);
    FAILS_NULL(cm_profile_from_raw(&raw, 1, NULL, "j", 0, err));
    FAILS_NULL(cm_profile_from_raw(&raw, 1, "u", NULL, 0, err));
    raw.nranks = 3;
    FAILS_NULL(cm_profile_from_raw(&raw, 1, "u", "j", 0, err));
    raw.nranks = 4;
    snprintf(raw.jobid, sizeof raw.jobid, "a b"); /* not a job id */
    FAILS_NULL(cm_profile_from_raw(&raw, 1, "u", "j", 0, err));
    snprintf(raw.jobid, sizeof raw.jobid, "12");
    snprintf(raw.stepid, sizeof raw.stepid, "0");
    cm_profile_t *p = cm_profile_from_raw(&raw, 1, "u", "j", 0, NULL);
    assert_non_null(p);
    assert_string_equal(cm_profile_jobid(p, 0), "12.0");
    cm_profile_free(p);
    cm_matrix_free(raw.p2p);
}

static void test_jobids(void **state)
{
    (void)state;
    cm_profile_t *p = small_profile();
    char *id130 = long_name(CM_PROFILE_MAX_JOBID + 1);
    char *id129 = long_name(CM_PROFILE_MAX_JOBID);
    static const char *const bad[] = { "",      "1 0",  "1\t0",    "\x01",
                                       "1.0\n", "\x7f", "\xc3\xa9" };

    FAILS(cm_profile_add_jobid(NULL, "1.0", err));
    FAILS(cm_profile_add_jobid(p, NULL, err));
    FAILS(cm_profile_add_jobid(p, id130, err));
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        FAILS(cm_profile_add_jobid(p, bad[k], err));
    assert_int_equal(cm_profile_njobids(p), 1); /* the list unchanged */
    assert_string_equal(cm_profile_jobid(p, 0), "7.0");

    assert_null(cm_profile_jobid(p, -1));
    assert_null(cm_profile_jobid(p, 1));
    assert_null(cm_profile_jobid(p, INT_MAX));
    assert_null(cm_profile_jobid(p, INT_MIN));
    assert_null(cm_profile_jobid(NULL, 0));

    /* the limits: 129 bytes is a job id; the list keeps the last 32 */
    assert_int_equal(cm_profile_add_jobid(p, id129, NULL), 0);
    for (int k = 0; k < CM_PROFILE_MAX_JOBIDS + 3; k++) {
        char id[16];
        snprintf(id, sizeof id, "%d.0", k);
        assert_int_equal(cm_profile_add_jobid(p, id, NULL), 0);
    }
    assert_int_equal(cm_profile_njobids(p), CM_PROFILE_MAX_JOBIDS);
    assert_string_equal(cm_profile_jobid(p, 0), "3.0");
    assert_null(cm_profile_jobid(p, CM_PROFILE_MAX_JOBIDS));
    free(id129);
    free(id130);
    cm_profile_free(p);
}

static void test_set_key(void **state)
{
    (void)state;
    cm_profile_t *p = small_profile();
    char *name256 = long_name(CM_PROFILE_MAX_NAME + 1);

    FAILS(cm_profile_set_key(NULL, 1, "u", "j", err));
    FAILS(cm_profile_set_key(p, 1, NULL, "j", err));
    FAILS(cm_profile_set_key(p, 1, "u", NULL, err));
    FAILS(cm_profile_set_key(p, 1, "u", "", err));
    FAILS(cm_profile_set_key(p, 1, name256, "j", err));
    FAILS(cm_profile_set_key(p, 1, "u", name256, err));
    /* the key unchanged */
    assert_int_equal(cm_profile_uid(p), 1000);
    assert_string_equal(cm_profile_user(p), "alice");
    assert_string_equal(cm_profile_job_name(p), "job");
    free(name256);
    cm_profile_free(p);
}

static void test_merge(void **state)
{
    (void)state;
    cm_profile_t *p = small_profile();
    cm_matrix_t *m3 = ring(3);
    cm_profile_t *q3 = cm_profile_new(1000, "alice", "job", 3, m3, NULL, 0, NULL);
    assert_non_null(q3);
    const uint64_t sum = cm_profile_checksum(p);

    FAILS_NULL(cm_profile_merge(NULL, p, 0.5, 0, err));
    FAILS_NULL(cm_profile_merge(p, NULL, 0.5, 0, err));
    FAILS_NULL(cm_profile_merge(NULL, NULL, 0.5, 0, err));
    FAILS_NULL(cm_profile_merge(p, q3, 0.5, 0, err));
    const double bad[] = { 0, -0.5, 1.0000001, 2, NAN, INFINITY, -INFINITY };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        FAILS_NULL(cm_profile_merge(p, p, bad[k], 0, err));
    assert_true(cm_profile_checksum(p) == sum); /* inputs unchanged */

    cm_profile_t *m = cm_profile_merge(p, p, CM_PROFILE_WEIGHT_MEAN, 200, NULL);
    assert_non_null(m);
    assert_int_equal(cm_profile_runs(m), 2);
    cm_profile_free(m);
    cm_profile_free(q3);
    cm_matrix_free(m3);
    cm_profile_free(p);
}

static void test_weight_parse(void **state)
{
    (void)state;
    static const char *const bad[] = { "",    "0",   "-1",   "1.5",  "1e9",
                                       "nan", "inf", "0.5x", "Mean", "mean ",
                                       "x",   "0x",  "--1" };
    double w = 7;
    assert_int_equal(cm_profile_weight_parse(NULL, &w), -1);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        if (cm_profile_weight_parse(bad[k], &w) != -1)
            fail_msg("weight '%s' accepted", bad[k]);
    assert_true(w == 7); /* untouched */
    assert_int_equal(cm_profile_weight_parse("0.5", NULL), -1);
    assert_int_equal(cm_profile_weight_parse("mean", NULL), -1);
    assert_int_equal(cm_profile_weight_parse("1", &w), 0);
    assert_true(w == 1);
}

static void test_queries(void **state)
{
    (void)state;
    assert_true(cm_profile_uid(NULL) == (uid_t)-1);
    assert_null(cm_profile_user(NULL));
    assert_null(cm_profile_job_name(NULL));
    assert_int_equal(cm_profile_ntasks(NULL), 0);
    assert_int_equal(cm_profile_runs(NULL), 0);
    assert_int_equal(cm_profile_has_msgs(NULL), 0);
    assert_int_equal(cm_profile_first_update(NULL), 0);
    assert_int_equal(cm_profile_last_update(NULL), 0);
    assert_int_equal(cm_profile_njobids(NULL), 0);
    assert_true(cm_profile_checksum(NULL) == 0);
    assert_null(cm_profile_part(NULL, CM_PART_P2P));
    assert_null(cm_profile_part(NULL, CM_PART_COLL));
    FAILS_NULL(cm_profile_matrix(NULL, CM_PART_ALL, err));
    cm_profile_free(NULL);

    cm_profile_t *p = small_profile();
    /* out-of-range parts: the p2p part, an empty matrix */
    assert_ptr_equal(cm_profile_part(p, (cm_part_t)0), cm_profile_part(p, CM_PART_P2P));
    assert_ptr_equal(cm_profile_part(p, (cm_part_t)-1), cm_profile_part(p, CM_PART_P2P));
    assert_non_null(cm_profile_part(p, CM_PART_COLL));
    cm_matrix_t *m = cm_profile_matrix(p, (cm_part_t)0, NULL);
    assert_non_null(m);
    assert_int_equal(cm_matrix_n(m), 4);
    assert_int_equal(cm_matrix_nnz(m), 0);
    cm_matrix_free(m);
    cm_profile_free(p);
}

static void test_program_key(void **state)
{
    (void)state;
    char out[CM_PROFILE_MAX_NAME + 1] = "untouched";

    FAILS(cm_profile_program_key(NULL, "/bin/a", out, sizeof out, err));
    FAILS(cm_profile_program_key("", "/bin/a", out, sizeof out, err));
    FAILS(cm_profile_program_key("job", NULL, out, sizeof out, err));
    FAILS(cm_profile_program_key("job", "", out, sizeof out, err));
    FAILS(cm_profile_program_key("job", "/bin/a", NULL, sizeof out, err));
    FAILS(cm_profile_program_key("job", "/bin/a", NULL, 0, err));
    FAILS(cm_profile_program_key("job", "/bin/a", out, 0, err));
    FAILS(cm_profile_program_key("job", "/bin/a", out, 5, err));
    assert_string_equal(out, "untouched");

    /* a long job name is cut to fit; a long file name is cut to 63 bytes */
    char *name = long_name(1000), *path = long_name(1000);
    path[0] = '/';
    assert_int_equal(cm_profile_program_key(name, path, out, sizeof out, NULL), 0);
    assert_int_equal(strlen(out), CM_PROFILE_MAX_NAME);
    size_t nl = 0;
    const char *prog = cm_profile_key_program(out, &nl);
    assert_non_null(prog);
    assert_int_equal(strlen(prog), 63 + 1 + 8);
    assert_int_equal(nl, CM_PROFILE_MAX_NAME - 1 - strlen(prog));
    free(name);
    free(path);

    nl = 99;
    assert_null(cm_profile_key_program(NULL, &nl));
    assert_int_equal(nl, 0);
    assert_null(cm_profile_key_program(NULL, NULL));
    static const char *const none[] = { "",
                                        "@",
                                        "job",
                                        "job@",
                                        "@a-12345678",
                                        "job@a",
                                        "job@a-",
                                        "job@-12345678",
                                        "job@a-1234567",
                                        "job@a-123456789",
                                        "job@a-1234567g",
                                        "job@a-ABCDEF01" };
    for (size_t k = 0; k < sizeof none / sizeof none[0]; k++) {
        nl = 99;
        if (cm_profile_key_program(none[k], &nl) != NULL)
            fail_msg("'%s' has a program part", none[k]);
        assert_int_equal(nl, strlen(none[k]));
        assert_null(cm_profile_key_program(none[k], NULL));
    }
}

/* The JSON document of a valid profile: every proper prefix that is not
 * the whole document without its final newline is refused. */
static void test_json(void **state)
{
    (void)state;
    cm_profile_t *p = small_profile();
    size_t len = 12345;

    FAILS_NULL(cm_profile_to_json(NULL, &len, err));
    FAILS_NULL(cm_profile_to_json(NULL, NULL, err));
    assert_int_equal(len, 12345); /* untouched */

    FAILS_NULL(cm_profile_parse_json(NULL, 0, "null", err));
    FAILS_NULL(cm_profile_parse_json(NULL, 10, "null", err));
    static const char *const bad[] = {
        "",
        " ",
        "{",
        "}",
        "null",
        "[]",
        "{}",
        "1",
        "\"x\"",
        "{\"format\": 1}",
        "[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]",
        "{} {}",
        "{\"a\":}",
        "\xff\xfe",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        FAILS_NULL(cm_profile_parse_json(bad[k], strlen(bad[k]), "garbage", err));
    FAILS_NULL(cm_profile_parse_json("{\0}", 3, "nul", err));

    char *text = cm_profile_to_json(p, &len, NULL);
    assert_non_null(text);
    assert_true(len > 2 && text[len - 1] == '\n');
    for (size_t cut = 0; cut + 1 < len; cut++)
        FAILS_NULL(cm_profile_parse_json(text, cut, "prefix", err));
    /* one byte changed anywhere but in blanks: refused (checksum, syntax) */
    for (size_t k = 0; k < len; k++) {
        if (text[k] == ' ' || text[k] == '\n')
            continue;
        char *copy = malloc(len);
        assert_non_null(copy);
        memcpy(copy, text, len);
        copy[k] = (char)(copy[k] == '0' ? '1' : copy[k] ^ 0x01);
        cm_profile_t *q = cm_profile_parse_json(copy, len, "flip", NULL);
        if (q)
            fail_msg("byte %zu of the JSON document changed, still accepted", k);
        free(copy);
    }
    cm_profile_t *q = cm_profile_parse_json(text, len, "whole", NULL);
    assert_non_null(q);
    assert_true(cm_profile_checksum(q) == cm_profile_checksum(p));
    cm_profile_free(q);
    free(text);
    cm_profile_free(p);
}

static void test_bin(void **state)
{
    (void)state;
    cm_profile_t *p = small_profile();
    size_t len = 12345;

    FAILS_NULL(cm_profile_to_bin(NULL, &len, err));
    FAILS_NULL(cm_profile_to_bin(p, NULL, err));
    assert_int_equal(len, 12345);

    assert_int_equal(cm_profile_is_bin(NULL, 0), 0);
    assert_int_equal(cm_profile_is_bin(NULL, 100), 0);
    assert_int_equal(cm_profile_is_bin("", 0), 0);
    assert_int_equal(cm_profile_is_bin("{\"format\"", 10), 0);

    FAILS_NULL(cm_profile_parse_bin(NULL, 0, "null", 1000, err));
    FAILS_NULL(cm_profile_parse_bin(NULL, 100, "null", 1000, err));
    FAILS_NULL(cm_profile_parse_bin("", 0, "empty", 1000, err));
    FAILS_NULL(cm_profile_parse_bin("{}", 2, "json", 1000, err));
    cm_profile_expect_t any = { NULL, 0, 0 };
    FAILS_NULL(cm_profile_parse_bin_expect(NULL, 0, "null", 1000, NULL, err));
    FAILS_NULL(cm_profile_parse_bin_expect("{}", 2, "json", 1000, &any, err));
    FAILS_NULL(cm_profile_read_fd_expect(-1, "bad fd", 100, &any, err));
    assert_true(cm_profile_clock() > 0);

    char *bin = cm_profile_to_bin(p, &len, NULL);
    assert_non_null(bin);
    assert_int_equal(cm_profile_is_bin(bin, len), 1);
    assert_int_equal(cm_profile_is_bin(bin, 7), 0);
    for (size_t cut = 0; cut < len; cut++)
        FAILS_NULL(cm_profile_parse_bin(bin, cut, "prefix", 1 << 20, err));
    FAILS_NULL(cm_profile_parse_bin(bin, len, "small", 0, err));
    /* one bit changed anywhere: refused, unless it is a padding bit of the
     * deflate stream and the content is the same */
    for (size_t k = 0; k < len; k++) {
        char *copy = malloc(len);
        assert_non_null(copy);
        memcpy(copy, bin, len);
        copy[k] ^= 0x10;
        cm_profile_t *q = cm_profile_parse_bin(copy, len, "flip", 1 << 20, NULL);
        if (q && cm_profile_checksum(q) != cm_profile_checksum(p))
            fail_msg("byte %zu of the binary form changed, other content "
                     "accepted",
                     k);
        cm_profile_free(q);
        free(copy);
    }
    cm_profile_t *q = cm_profile_parse_bin(bin, len, "whole", 1 << 20, NULL);
    assert_non_null(q);
    assert_true(cm_profile_checksum(q) == cm_profile_checksum(p));
    cm_profile_free(q);
    free(bin);
    cm_profile_free(p);
}

static void test_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/cm-profiles-null.XXXXXX", path[128], link[160];
    cm_profile_t *p = small_profile();

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/p.json", dir);
    snprintf(link, sizeof link, "%s/link.json", dir);

    FAILS(cm_profile_write_json_fd(NULL, 1, "stdout", err));
    FAILS(cm_profile_write_json_fd(p, -1, "bad fd", err));
    FAILS(cm_profile_write_json(NULL, path, err));
    FAILS(cm_profile_write_json(p, NULL, err));
    FAILS(cm_profile_write_json(p, "/nonexistent/clustermap/p.json", err));
    assert_int_equal(access(path, F_OK), -1); /* nothing written */

    FAILS_NULL(cm_profile_read_json(NULL, 0, err));
    FAILS_NULL(cm_profile_read_json(path, 0, err)); /* absent */
    FAILS_NULL(cm_profile_read_json(dir, 0, err));  /* a directory */
    FAILS_NULL(cm_profile_read_json_fd(-1, "bad fd", 0, err));
    int fd = open("/dev/null", O_RDONLY);
    assert_true(fd >= 0);
    FAILS_NULL(cm_profile_read_json_fd(fd, "/dev/null", 0, err));
    close(fd);

    assert_int_equal(cm_profile_write_json(p, path, NULL), 0);
    assert_int_equal(symlink(path, link), 0);
    FAILS_NULL(cm_profile_read_json(link, 0, err));
    FAILS_NULL(cm_profile_read_json(path, 10, err)); /* above the bound */
    cm_profile_t *q = cm_profile_read_json(path, 0, NULL);
    assert_non_null(q);
    cm_profile_free(q);

    unlink(link);
    unlink(path);
    rmdir(dir);
    cm_profile_free(p);
}

#define HEADER "clustermap-runs 1\n"
#define LINE "7.0 100 placed scotch a.out 1 2 3 2 1 0.5\n"

static void test_history_parse(void **state)
{
    (void)state;
    cm_run_t runs[CM_HISTORY_MAX_RUNS];
    int count = 5;

    FAILS(cm_history_parse(NULL, 0, "null", runs, &count, err));
    assert_int_equal(count, 0);
    count = 5;
    FAILS(cm_history_parse(HEADER, strlen(HEADER), "h", NULL, &count, err));
    assert_int_equal(count, 0);
    FAILS(cm_history_parse(HEADER, strlen(HEADER), "h", runs, NULL, err));

    static const char *const bad[] = {
        "",
        "\n",
        "clustermap-runs 1",
        "clustermap-runs 2\n",
        HEADER "x\n",
        HEADER "7.0 100 placed scotch a.out 1 2 3 2 1\n",
        HEADER "7.0 100 placed scotch a.out 1 2 3 2 1 0.5 9\n",
        HEADER "7.0 -1 placed scotch a.out 1 2 3 2 1 0.5\n",
        HEADER "7.0 100 maybe scotch a.out 1 2 3 2 1 0.5\n",
        HEADER "7.0 100 placed sc/otch a.out 1 2 3 2 1 0.5\n",
        HEADER "7.0 100 placed scotch a.out nan 2 3 2 1 0.5\n",
        HEADER "7.0 100 placed scotch a.out 1 2 3 4 1 0.5\n",
        HEADER "7.0 100 placed scotch a.out 1 2 3 2 1 0.5",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        count = 5;
        FAILS(cm_history_parse(bad[k], strlen(bad[k]), "garbage", runs, &count, err));
        assert_int_equal(count, 0);
    }
    FAILS(cm_history_parse(HEADER "\0", strlen(HEADER) + 1, "nul", runs, &count, err));

    /* one run more than the limit */
    size_t cap = strlen(HEADER) + (CM_HISTORY_MAX_RUNS + 1) * strlen(LINE) + 1;
    char *text = malloc(cap);
    assert_non_null(text);
    strcpy(text, HEADER);
    for (int k = 0; k <= CM_HISTORY_MAX_RUNS; k++)
        strcat(text, LINE);
    FAILS(cm_history_parse(text, strlen(text), "long", runs, &count, err));
    assert_int_equal(
        cm_history_parse(text, strlen(text) - strlen(LINE), "full", runs, &count, NULL),
        0);
    assert_int_equal(count, CM_HISTORY_MAX_RUNS);
    free(text);
}

static void test_history_format(void **state)
{
    (void)state;
    cm_run_t run;
    int count;
    size_t len = 12345;

    assert_int_equal(
        cm_history_parse(HEADER LINE, strlen(HEADER LINE), "h", &run, &count, NULL), 0);
    assert_int_equal(count, 1);

    FAILS_NULL(cm_history_format(NULL, 1, &len, err));
    FAILS_NULL(cm_history_format(&run, -1, &len, err));
    FAILS_NULL(cm_history_format(NULL, INT_MIN, NULL, err));
    assert_int_equal(len, 12345);
    char *text = cm_history_format(NULL, 0, &len, NULL);
    assert_non_null(text);
    assert_string_equal(text, HEADER);
    assert_int_equal(len, strlen(HEADER));
    free(text);

    FAILS(cm_run_check(NULL, err));
    cm_run_t bad;
    memset(&bad, 0, sizeof bad); /* empty words */
    FAILS(cm_run_check(&bad, err));
    FAILS_NULL(cm_history_format(&bad, 1, NULL, err));
    bad = run;
    bad.placed = 2;
    FAILS(cm_run_check(&bad, err));
    bad = run;
    bad.when = -1;
    FAILS(cm_run_check(&bad, err));
    bad = run;
    bad.elapsed_max = INFINITY;
    FAILS(cm_run_check(&bad, err));
    bad = run;
    bad.mpi_mean = -0.5;
    FAILS(cm_run_check(&bad, err));
    bad = run;
    memset(bad.how, 'x', sizeof bad.how); /* not terminated within */
    bad.how[sizeof bad.how - 1] = '\0';
    bad.how[3] = ' ';
    FAILS(cm_run_check(&bad, err));
    assert_int_equal(cm_run_check(&run, NULL), 0);
}

static void test_guard(void **state)
{
    (void)state;
    cm_guard_rule_t r;
    cm_guard_t out;

    cm_guard_rule_init(NULL);
    cm_guard_rule_init(&r);
    assert_int_equal(r.window, 5);

    assert_string_equal(cm_guard_reason_name((cm_guard_reason_t)-1), "?");
    assert_string_equal(cm_guard_reason_name((cm_guard_reason_t)6), "?");
    assert_string_equal(cm_guard_reason_name((cm_guard_reason_t)INT_MAX), "?");
    assert_string_equal(cm_guard_reason_name(CM_GUARD_PROBE), "probe");

    cm_guard_decide(NULL, 0, NULL, NULL);
    cm_guard_decide(NULL, 5, &r, NULL);
    memset(&out, 0x55, sizeof out);
    cm_guard_decide(NULL, 5, NULL, &out); /* no runs, the default rule */
    assert_int_equal(out.place, 1);
    assert_int_equal(out.reason, CM_GUARD_FEW_PLACED);
    assert_int_equal(out.nplaced, 0);
    assert_non_null(memchr(out.why, '\0', sizeof out.why));

    cm_run_t run;
    int count;
    assert_int_equal(
        cm_history_parse(HEADER LINE, strlen(HEADER LINE), "h", &run, &count, NULL), 0);
    memset(&out, 0x55, sizeof out);
    cm_guard_decide(&run, -3, &r, &out);
    assert_int_equal(out.place, 1);
    assert_int_equal(out.reason, CM_GUARD_FEW_PLACED);
    assert_int_equal(out.nplaced, 0);
    cm_guard_decide(&run, 1, NULL, &out);
    assert_int_equal(out.nplaced, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_part_parse),    cmocka_unit_test(test_new),
        cmocka_unit_test(test_from_raw),      cmocka_unit_test(test_jobids),
        cmocka_unit_test(test_set_key),       cmocka_unit_test(test_merge),
        cmocka_unit_test(test_weight_parse),  cmocka_unit_test(test_queries),
        cmocka_unit_test(test_program_key),   cmocka_unit_test(test_json),
        cmocka_unit_test(test_bin),           cmocka_unit_test(test_files),
        cmocka_unit_test(test_history_parse), cmocka_unit_test(test_history_format),
        cmocka_unit_test(test_guard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
