/* test_profile_json.c -- profiles (src/profiles/profile.c) and their JSON
 * form (src/profiles/profile_json.c): round trip, checksum, validation,
 * bounded reading, merge arithmetic, file names. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cm_store.h"
#include "testdata.h"

/* A matrix of n ranks from {src, dst, bytes, msgs} rows. */
static cm_matrix_t *mat(int n, int count, const double (*e)[4])
{
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(n, &err);
    cm_matrix_t *m;
    assert_non_null(b);
    for (int k = 0; k < count; k++)
        assert_int_equal(cm_builder_add(b, (int)e[k][0], (int)e[k][1], e[k][2],
                                        e[k][3], &err), 0);
    cm_builder_set_has_msgs(b, 1);
    m = cm_builder_finish(b, &err);
    assert_non_null(m);
    cm_builder_free(b);
    return m;
}

/* The profile most tests start from: 16 tasks, p2p and coll, two job ids. */
static cm_profile_t *sample(void)
{
    static const double p2p[][4] = {
        { 0, 1, 1024, 2 }, { 1, 0, 2048, 4 }, { 15, 3, 0.1, 1 }, { 7, 7, 5, 0 },
    };
    static const double coll[][4] = { { 2, 9, 1e20, 3 } };
    cm_error_t err = { "" };
    cm_matrix_t *a = mat(16, 4, p2p), *c = mat(16, 1, coll);
    cm_profile_t *p = cm_profile_new(1000, "alice", "lammps \"in\".x/1", 16, a,
                                     c, 1700000000, &err);
    assert_non_null(p);
    assert_int_equal(cm_profile_add_jobid(p, "123.0", &err), 0);
    assert_int_equal(cm_profile_add_jobid(p, "124.batch", &err), 0);
    cm_matrix_free(a);
    cm_matrix_free(c);
    return p;
}

static char *sample_json(void)
{
    cm_error_t err = { "" };
    cm_profile_t *p = sample();
    char *text = cm_profile_to_json(p, NULL, &err);
    assert_non_null(text);
    cm_profile_free(p);
    return text;
}

/* @p text with the first occurrence of @p from replaced by @p to. */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    char *out;
    size_t pre;
    if (!at)
        fail_msg("'%s' not in the sample document", from);
    pre = (size_t)(at - text);
    out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
    assert_non_null(out);
    memcpy(out, text, pre);
    strcpy(out + pre, to);
    strcat(out, at + strlen(from));
    return out;
}

static void expect_refused(const char *text, const char *want)
{
    cm_error_t err = { "" };
    cm_profile_t *p = cm_profile_parse_json(text, strlen(text), "doc.json", &err);
    if (p)
        fail_msg("accepted, expected an error with '%s'", want);
    if (strncmp(err.msg, "doc.json: ", 10) || !strstr(err.msg, want))
        fail_msg("error '%s' does not name the file and '%s'", err.msg, want);
}

static void test_round_trip(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_profile_t *p = sample(), *q;
    size_t len, len2;
    char *text = cm_profile_to_json(p, &len, &err), *text2;
    double bytes;

    assert_non_null(text);
    q = cm_profile_parse_json(text, len, "sample", &err);
    if (!q)
        fail_msg("%s", err.msg);
    assert_true(cm_profile_checksum(p) == cm_profile_checksum(q));
    text2 = cm_profile_to_json(q, &len2, &err);
    assert_int_equal(len, len2);
    assert_memory_equal(text, text2, len);
    assert_string_equal(cm_profile_job_name(q), "lammps \"in\".x/1");
    assert_string_equal(cm_profile_user(q), "alice");
    assert_int_equal(cm_profile_uid(q), 1000);
    assert_int_equal(cm_profile_ntasks(q), 16);
    assert_int_equal(cm_profile_runs(q), 1);
    assert_int_equal(cm_profile_njobids(q), 2);
    assert_string_equal(cm_profile_jobid(q, 1), "124.batch");
    assert_true(cm_profile_first_update(q) == 1700000000);
    assert_int_equal(cm_profile_has_msgs(q), 1);
    assert_int_equal(cm_matrix_nnz(cm_profile_part(q, CM_PART_P2P)), 4);
    cm_matrix_totals(cm_profile_part(q, CM_PART_P2P), &bytes, NULL);
    assert_true(bytes == 1024 + 2048 + 0.1 + 5);
    cm_matrix_totals(cm_profile_part(q, CM_PART_COLL), &bytes, NULL);
    assert_true(bytes == 1e20);
    free(text);
    free(text2);
    cm_profile_free(p);
    cm_profile_free(q);
}

static void test_file_round_trip(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    char *dir = cm_test_mkdtemp(), path[4096];
    cm_profile_t *p = sample(), *q;
    snprintf(path, sizeof path, "%s/p.json", dir);
    assert_int_equal(cm_profile_write_json(p, path, &err), 0);
    q = cm_profile_read_json(path, 0, &err);
    if (!q)
        fail_msg("%s", err.msg);
    assert_true(cm_profile_checksum(p) == cm_profile_checksum(q));
    cm_profile_free(p);
    cm_profile_free(q);
    cm_test_rmtree(dir);
}

static void test_checksum_mismatch(void **state)
{
    (void)state;
    char *text = sample_json(), *bad = replace(text, "2048", "2049");
    expect_refused(bad, "field 'checksum'");
    free(bad);
    bad = replace(text, "\"alice\"", "\"alicf\"");
    expect_refused(bad, "field 'checksum'");
    free(bad);
    free(text);
}

static void test_malformed(void **state)
{
    (void)state;
    static const struct { const char *from, *to, *want; } cases[] = {
        { "\"runs\": 1,", "", "field 'runs': missing" },
        { "\"ntasks\": 16", "\"ntasks\": \"16\"", "field 'ntasks': expected" },
        { "\"ntasks\": 16", "\"ntasks\": 0", "field 'ntasks'" },
        { "\"ntasks\": 16", "\"ntasks\": 99999999999999999999", "field 'ntasks'" },
        { "\"version\": 1", "\"version\": 2", "field 'version'" },
        { "\"version\": 1,", "", "field 'version': missing" },
        { "clustermap-profile", "clustermap-prof", "field 'format'" },
        { "\"uid\": 1000", "\"uid\": -1", "field 'uid'" },
        { "\"user\": \"alice\"", "\"user\": 7", "field 'user'" },
        { "\"job_name\": \"lammps", "\"job_name\": \"\\u0000lammps", "field 'job_name'" },
        { "\"has_msgs\": true", "\"has_msgs\": 1", "field 'has_msgs'" },
        { "\"runs\": 1", "\"runs\": 0", "field 'runs'" },
        { "\"runs\": 1", "\"runs\": 1.5", "field 'runs'" },
        { "\"last_update\": 1700000000", "\"last_update\": 1699999999",
          "field 'last_update'" },
        { "\"first_update\": 1700000000", "\"first_update\": -5", "field 'first_update'" },
        { "[\"123.0\"", "[7", "field 'jobids[0]'" },
        { "[\"123.0\"", "[\"12 3\"", "field 'jobids[0]'" },
        { "\"jobids\": [", "\"jobids\": {", "invalid JSON" },
        { "[0, 1, 1024, 2]", "[0, 16, 1024, 2]", "field 'p2p.entries[0][1]'" },
        { "[0, 1, 1024, 2]", "[-1, 1, 1024, 2]", "field 'p2p.entries[0][0]'" },
        { "[0, 1, 1024, 2]", "[0, 1, -1024, 2]", "field 'p2p.entries[0][2]'" },
        { "[0, 1, 1024, 2]", "[0, 1, \"1024\", 2]", "field 'p2p.entries[0][2]'" },
        { "[0, 1, 1024, 2]", "[0, 1, 1024, -2]", "field 'p2p.entries[0][3]'" },
        { "[0, 1, 1024, 2]", "[0, 1, 1024]", "field 'p2p.entries[0]'" },
        { "[0, 1, 1024, 2]", "[0, 1, 0, 0]", "field 'p2p.entries[0]': expected a non-zero" },
        { "[0, 1, 1024, 2]", "[1, 0, 1024, 2]", "field 'p2p.entries[1]': expected entries sorted" },
        { "[0, 1, 1024, 2]", "[0, 1, 1e999, 2]", "field 'p2p.entries[0][2]'" },
        { "\"nnz\": 4", "\"nnz\": 5", "field 'p2p.entries': expected 5" },
        { "\"nnz\": 1", "\"nnz\": -1", "field 'coll.nnz'" },
        { "\"nnz\": 4,", "", "field 'p2p.nnz': missing" },
        { "\"coll\": {", "\"coll\": [", "invalid JSON" },
        { "\"checksum\": \"", "\"checksum\": 5, \"x\": \"", "field 'x': unknown" },
        { "\"checksum\": \"fnv1a64:", "\"checksum\": \"crc32:", "field 'checksum'" },
        { "\"p2p\": {", "\"p2q\": {", "field 'p2q': unknown" },
        { "\"entries\": [", "\"entries\": [], \"more\": [", "field 'p2p.more': unknown" },
    };
    char *text = sample_json();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *bad = replace(text, cases[k].from, cases[k].to);
        expect_refused(bad, cases[k].want);
        free(bad);
    }
    /* has_msgs false but a message count */
    {
        char *bad = replace(text, "\"has_msgs\": true", "\"has_msgs\": false");
        expect_refused(bad, "field 'p2p.entries[0][3]': expected 0");
        free(bad);
    }
    /* truncated, trailing data, not an object, empty */
    {
        char *cut = strdup(text);
        cut[strlen(cut) / 2] = '\0';
        expect_refused(cut, "truncated");
        free(cut);
    }
    {
        char *more = replace(text, "\"\n}\n", "\"\n}\n{}");
        expect_refused(more, "after the JSON document");
        free(more);
    }
    expect_refused("[1, 2]", "expected a JSON object");
    expect_refused("", "truncated");
    free(text);
}

static void test_too_many_jobids(void **state)
{
    (void)state;
    char ids[40 * 8] = "", *text = sample_json(), *bad;
    for (int k = 0; k < 33; k++)
        snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "\"%d\", ", k);
    bad = replace(text, "\"jobids\": [", "");
    free(text);
    text = bad;
    {
        char *with = malloc(strlen(text) + sizeof ids + 32);
        const char *at = strstr(text, "\"123.0\"");
        assert_non_null(at);
        sprintf(with, "%.*s\"jobids\": [%s%s", (int)(at - text), text, ids, at);
        expect_refused(with, "field 'jobids': expected at most 32");
        free(with);
    }
    free(text);
}

static void test_oversized_and_symlink(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    char *dir = cm_test_mkdtemp(), *text = sample_json(), link[4096];
    const char *path = cm_test_write_file(dir, "p.json", text);
    char copy[4096];
    cm_profile_t *p;

    snprintf(copy, sizeof copy, "%s", path);
    p = cm_profile_read_json(copy, 100, &err);
    assert_null(p);
    assert_non_null(strstr(err.msg, "more than the limit of 100 bytes"));
    assert_non_null(strstr(err.msg, copy));
    p = cm_profile_read_json(copy, strlen(text), &err);   /* exactly the limit */
    assert_non_null(p);
    cm_profile_free(p);

    snprintf(link, sizeof link, "%s/link.json", dir);
    assert_int_equal(symlink(copy, link), 0);
    p = cm_profile_read_json(link, 0, &err);
    assert_null(p);
    assert_non_null(strstr(err.msg, "symbolic link"));
    unlink(link);
    p = cm_profile_read_json(dir, 0, &err);
    assert_null(p);
    assert_non_null(strstr(err.msg, "not a regular file"));
    free(text);
    cm_test_rmtree(dir);
}

/* The sample document widened to @p len bytes by blanks after its opening
 * brace, so the parser has to cross every 1 MiB piece to reach its fields. */
static char *padded_json(size_t len)
{
    char *text = sample_json(), *big;
    size_t n = strlen(text);
    assert_true(len > n);
    big = malloc(len + 1);
    assert_non_null(big);
    big[0] = '{';
    memset(big + 1, ' ', len - n);
    memcpy(big + 1 + (len - n), text + 1, n - 1);
    big[len] = '\0';
    free(text);
    return big;
}

static void test_json_size_ceiling(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    char *text = padded_json(CM_PROFILE_JSON_MAX_BYTES);
    cm_profile_t *p = cm_profile_parse_json(text, CM_PROFILE_JSON_MAX_BYTES, "big.json",
                                            &err);

    assert_non_null(p);   /* exactly the limit, parsed in 16 pieces */
    assert_int_equal(cm_profile_ntasks(p), 16);
    cm_profile_free(p);
    free(text);

    text = padded_json(CM_PROFILE_JSON_MAX_BYTES + 1);
    p = cm_profile_parse_json(text, CM_PROFILE_JSON_MAX_BYTES + 1, "big.json", &err);
    assert_null(p);
    assert_string_equal(err.msg, "big.json: JSON profile of 16777217 bytes is above the "
                                 "limit of 16777216 bytes for a JSON profile; delete it "
                                 "(clustermap profile delete) and let the next run record it "
                                 "in the binary form");

    /* an error past the first piece is placed in the whole document */
    text[3 << 20] = 'x';
    p = cm_profile_parse_json(text, CM_PROFILE_JSON_MAX_BYTES, "big.json", &err);
    assert_null(p);
    assert_non_null(strstr(err.msg, "big.json: invalid JSON at byte 3145728: "));
    free(text);
}

static void test_json_deadline(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    char *dir = cm_test_mkdtemp(), *text = padded_json((size_t)3 << 20);
    const char *path = cm_test_write_file(dir, "p.json", text);
    cm_profile_expect_t want = { NULL, 0, 0 };
    cm_profile_t *p;
    int fd = open(path, O_RDONLY);

    assert_true(fd >= 0);
    want.deadline = cm_profile_clock() + 600;
    p = cm_profile_read_fd_expect(fd, "p.json", 0, &want, &err);
    assert_non_null(p);
    cm_profile_free(p);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    want.deadline = cm_profile_clock() - 1;   /* passed: stops after one piece */
    p = cm_profile_read_fd_expect(fd, "p.json", 0, &want, &err);
    assert_null(p);
    assert_string_equal(err.msg, "p.json: JSON profile: reading stopped at the deadline "
                                 "after 1048576 of 3145728 bytes");
    close(fd);
    free(text);
    cm_test_rmtree(dir);
}

static void test_merge_math(void **state)
{
    (void)state;
    static const double old_p2p[][4] = { { 0, 1, 100, 10 }, { 1, 0, 40, 4 } };
    static const double run_p2p[][4] = { { 0, 1, 300, 30 }, { 2, 3, 80, 8 } };
    static const double run_coll[][4] = { { 3, 2, 64, 1 } };
    cm_error_t err = { "" };
    cm_matrix_t *a = mat(4, 2, old_p2p), *b = mat(4, 2, run_p2p),
                *c = mat(4, 1, run_coll);
    cm_profile_t *old = cm_profile_new(7, "u", "app", 4, a, NULL, 100, &err);
    cm_profile_t *run = cm_profile_new(7, "u", "app", 4, b, c, 200, &err);
    cm_profile_t *m;
    const int *cols;
    const double *bytes, *msgs;
    int len;

    assert_non_null(old);
    assert_non_null(run);
    assert_int_equal(cm_profile_add_jobid(old, "1.0", &err), 0);
    assert_int_equal(cm_profile_add_jobid(run, "2.0", &err), 0);
    m = cm_profile_merge(old, run, 0.25, 300, &err);
    assert_non_null(m);
    assert_int_equal(cm_profile_runs(m), 2);
    assert_true(cm_profile_first_update(m) == 100);
    assert_true(cm_profile_last_update(m) == 300);
    assert_int_equal(cm_profile_njobids(m), 2);
    assert_string_equal(cm_profile_jobid(m, 0), "1.0");
    assert_string_equal(cm_profile_jobid(m, 1), "2.0");
    /* (0,1): 0.75*100 + 0.25*300 = 150, msgs 0.75*10 + 0.25*30 = 15 */
    cm_matrix_row(cm_profile_part(m, CM_PART_P2P), 0, &cols, &bytes, &msgs, &len);
    assert_int_equal(len, 1);
    assert_int_equal(cols[0], 1);
    assert_true(bytes[0] == 150 && msgs[0] == 15);
    cm_matrix_row(cm_profile_part(m, CM_PART_P2P), 1, &cols, &bytes, &msgs, &len);
    assert_true(len == 1 && cols[0] == 0 && bytes[0] == 30 && msgs[0] == 3);
    cm_matrix_row(cm_profile_part(m, CM_PART_P2P), 2, &cols, &bytes, &msgs, &len);
    assert_true(len == 1 && cols[0] == 3 && bytes[0] == 20 && msgs[0] == 2);
    cm_matrix_row(cm_profile_part(m, CM_PART_COLL), 3, &cols, &bytes, &msgs, &len);
    assert_true(len == 1 && cols[0] == 2 && bytes[0] == 16 && msgs[0] == 0.25);
    {   /* the "all" matrix sums both parts */
        cm_matrix_t *all = cm_profile_matrix(m, CM_PART_ALL, &err);
        double t;
        assert_non_null(all);
        assert_int_equal(cm_matrix_has_msgs(all), 1);
        cm_matrix_totals(all, &t, NULL);
        assert_true(t == 150 + 30 + 20 + 16);
        cm_matrix_free(all);
    }
    cm_profile_free(m);

    /* weight 1 drops what the run does not have; "mean" = runs / total */
    m = cm_profile_merge(old, run, 1.0, 300, &err);
    assert_non_null(m);
    assert_int_equal(cm_matrix_nnz(cm_profile_part(m, CM_PART_P2P)), 2);
    cm_profile_free(m);
    m = cm_profile_merge(old, run, CM_PROFILE_WEIGHT_MEAN, 300, &err);
    cm_matrix_row(cm_profile_part(m, CM_PART_P2P), 0, &cols, &bytes, &msgs, &len);
    assert_true(bytes[0] == 200);
    cm_profile_free(m);
    assert_null(cm_profile_merge(old, run, 0.0, 300, &err));
    assert_non_null(strstr(err.msg, "weight"));
    assert_null(cm_profile_merge(old, run, 1.5, 300, &err));

    cm_profile_free(old);
    cm_profile_free(run);
    cm_matrix_free(a);
    cm_matrix_free(b);
    cm_matrix_free(c);
}

static void test_merge_ntasks_mismatch(void **state)
{
    (void)state;
    static const double e[][4] = { { 0, 1, 1, 1 } };
    cm_error_t err = { "" };
    cm_matrix_t *a = mat(4, 1, e), *b = mat(8, 1, e);
    cm_profile_t *p = cm_profile_new(7, "u", "app", 4, a, NULL, 1, &err);
    cm_profile_t *q = cm_profile_new(7, "u", "app", 8, b, NULL, 1, &err);
    assert_null(cm_profile_merge(p, q, 0.5, 2, &err));
    assert_non_null(strstr(err.msg, "task counts differ"));
    /* a matrix whose rank count is not the task count */
    assert_null(cm_profile_new(7, "u", "app", 8, a, NULL, 1, &err));
    cm_profile_free(p);
    cm_profile_free(q);
    cm_matrix_free(a);
    cm_matrix_free(b);
}

static void test_jobids_bounded(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_profile_t *p = sample();
    char id[16];
    for (int k = 0; k < 40; k++) {
        snprintf(id, sizeof id, "%d.0", k);
        assert_int_equal(cm_profile_add_jobid(p, id, &err), 0);
    }
    assert_int_equal(cm_profile_njobids(p), CM_PROFILE_MAX_JOBIDS);
    assert_string_equal(cm_profile_jobid(p, 0), "8.0");
    assert_string_equal(cm_profile_jobid(p, 31), "39.0");
    assert_int_equal(cm_profile_add_jobid(p, "a b", &err), -1);
    assert_int_equal(cm_profile_add_jobid(p, "", &err), -1);
    cm_profile_free(p);
}

static void test_weight_parse(void **state)
{
    (void)state;
    double w;
    assert_int_equal(cm_profile_weight_parse("0.25", &w), 0);
    assert_true(w == 0.25);
    assert_int_equal(cm_profile_weight_parse("1", &w), 0);
    assert_int_equal(cm_profile_weight_parse("mean", &w), 0);
    assert_true(w == CM_PROFILE_WEIGHT_MEAN);
    assert_int_equal(cm_profile_weight_parse("0", &w), -1);
    assert_int_equal(cm_profile_weight_parse("1.01", &w), -1);
    assert_int_equal(cm_profile_weight_parse("0.5x", &w), -1);
    assert_int_equal(cm_profile_weight_parse("nan", &w), -1);
}

static void test_filename(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    char buf[256], name[300];
    assert_int_equal(cm_store_filename("cg.S", 16, buf, sizeof buf, &err), 0);
    assert_string_equal(buf, "cg.S.16.json");
    assert_int_equal(cm_store_filename("my job/x", 4, buf, sizeof buf, &err), 0);
    assert_string_equal(buf, "my%20job%2Fx.4.json");
    assert_int_equal(cm_store_filename("..", 4, buf, sizeof buf, &err), 0);
    assert_string_equal(buf, "%2E..4.json");
    assert_int_equal(cm_store_filename("a%b", 1, buf, sizeof buf, &err), 0);
    assert_string_equal(buf, "a%25b.1.json");
    assert_int_equal(cm_store_filename("", 4, buf, sizeof buf, &err), -1);
    assert_int_equal(cm_store_filename("x", 0, buf, sizeof buf, &err), -1);
    memset(name, '/', 255);
    name[255] = '\0';
    assert_int_equal(cm_store_filename(name, 1024, buf, sizeof buf, &err), 0);
    assert_true(strlen(buf) <= 200);
    assert_non_null(strchr(buf, '~'));
    name[0] = 'x';   /* another long name: another file */
    {
        char other[256];
        assert_int_equal(cm_store_filename(name, 1024, other, sizeof other, &err), 0);
        assert_string_not_equal(buf, other);
    }
    memset(name, 'a', 256);
    name[256] = '\0';
    assert_int_equal(cm_store_filename(name, 4, buf, sizeof buf, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_file_round_trip),
        cmocka_unit_test(test_checksum_mismatch),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_too_many_jobids),
        cmocka_unit_test(test_oversized_and_symlink),
        cmocka_unit_test(test_json_size_ceiling),
        cmocka_unit_test(test_json_deadline),
        cmocka_unit_test(test_merge_math),
        cmocka_unit_test(test_merge_ntasks_mismatch),
        cmocka_unit_test(test_jobids_bounded),
        cmocka_unit_test(test_weight_parse),
        cmocka_unit_test(test_filename),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
