/* test_profile_bin.c -- the binary form of stored profiles
 * (src/profiles/profile_bin.c): round trip against the JSON form, the
 * reader's dispatch, corruption and hostile headers refused with a message,
 * and the size it reaches on a large profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "cm_store.h"

/* A 3-D halo of x*y*z ranks: 6 partners, bytes by direction, fractional
 * values on one direction (a merged profile's), message counts. */
static cm_profile_t *halo(int x, int y, int z, int has_msgs)
{
    cm_error_t err = { "" };
    int n = x * y * z;
    cm_builder_t *b = cm_builder_new(n, &err);
    assert_non_null(b);
    for (int i = 0; i < n; i++) {
        int cx = i / (y * z), cy = i / z % y, cz = i % z;
        int nb[6][3] = { {cx - 1, cy, cz}, {cx + 1, cy, cz}, {cx, cy - 1, cz},
                         {cx, cy + 1, cz}, {cx, cy, cz - 1}, {cx, cy, cz + 1} };
        for (int k = 0; k < 6; k++) {
            if (nb[k][0] < 0 || nb[k][1] < 0 || nb[k][2] < 0 || nb[k][0] >= x ||
                nb[k][1] >= y || nb[k][2] >= z)
                continue;
            int j = (nb[k][0] * y + nb[k][1]) * z + nb[k][2];
            double bytes = k < 2 ? 65536 : k < 4 ? 32768.5 : 1e20;
            assert_int_equal(cm_builder_add(b, i, j, bytes, has_msgs ? 20 : 0, &err), 0);
        }
    }
    cm_builder_set_has_msgs(b, has_msgs);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    assert_non_null(m);
    cm_builder_free(b);
    cm_profile_t *p = cm_profile_new(1000, "alice", "halo@halo-0123abcd", n, m, NULL,
                                     1700000000, &err);
    assert_non_null(p);
    assert_int_equal(cm_profile_add_jobid(p, "42.0", &err), 0);
    cm_matrix_free(m);
    return p;
}

static void test_round_trip(void **state)
{
    (void)state;
    for (int msgs = 0; msgs < 2; msgs++) {
        cm_error_t err = { "" };
        cm_profile_t *p = halo(6, 5, 4, msgs);
        size_t blen, jlen, jlen2;
        char *bin = cm_profile_to_bin(p, &blen, &err);
        assert_non_null(bin);
        assert_true(cm_profile_is_bin(bin, blen));
        cm_profile_t *q = cm_profile_parse_bin(bin, blen, "t", 1 << 20, &err);
        assert_non_null(q);
        assert_true(cm_profile_checksum(p) == cm_profile_checksum(q));
        char *a = cm_profile_to_json(p, &jlen, &err), *b = cm_profile_to_json(q, &jlen2, &err);
        assert_int_equal(jlen, jlen2);
        assert_memory_equal(a, b, jlen);   /* the same document */
        size_t blen2;
        char *bin2 = cm_profile_to_bin(q, &blen2, &err);
        assert_int_equal(blen, blen2);
        assert_memory_equal(bin, bin2, blen);   /* deterministic */
        free(a);
        free(b);
        free(bin);
        free(bin2);
        cm_profile_free(p);
        cm_profile_free(q);
    }
}

/* What the reader of the store and of `profile import` takes: either form,
 * told by the first bytes. */
static void test_read_dispatch(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_profile_t *p = halo(4, 4, 4, 1);
    char path[] = "/tmp/cm-test-bin.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t len;
    char *bin = cm_profile_to_bin(p, &len, &err);
    assert_int_equal(write(fd, bin, len), (ssize_t)len);
    close(fd);
    cm_profile_t *q = cm_profile_read_json(path, 0, &err);
    assert_non_null(q);
    assert_true(cm_profile_checksum(p) == cm_profile_checksum(q));
    cm_profile_free(q);
    assert_int_equal(cm_profile_write_json(p, path, &err), 0);
    q = cm_profile_read_json(path, 0, &err);
    assert_non_null(q);
    assert_true(cm_profile_checksum(p) == cm_profile_checksum(q));
    unlink(path);
    free(bin);
    cm_profile_free(p);
    cm_profile_free(q);
}

static void expect_refused(const char *bin, size_t len, size_t max_body, const char *want)
{
    cm_error_t err = { "" };
    cm_profile_t *q = cm_profile_parse_bin(bin, len, "f.bin", max_body, &err);
    if (q || !strstr(err.msg, want))
        fail_msg("expected a refusal with \"%s\", got %s", want, q ? "a profile" : err.msg);
    assert_non_null(strstr(err.msg, "f.bin"));
}

static void test_refused(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_profile_t *p = halo(5, 4, 3, 1);
    size_t len;
    char *bin = cm_profile_to_bin(p, &len, &err);
    char *copy = malloc(len);
    assert_non_null(copy);

    expect_refused(bin, 20, 1 << 20, "expected a binary profile");
    memcpy(copy, bin, len);
    copy[8] = 2;
    expect_refused(copy, len, 1 << 20, "expected version 1, got 2");
    memcpy(copy, bin, len);
    copy[12] |= 4;
    expect_refused(copy, len, 1 << 20, "unknown flags");
    expect_refused(bin, len, 100, "above the limit of 100");
    expect_refused(bin, len - 1, 1 << 20, "does not inflate");
    memcpy(copy, bin, len);
    copy[24] ^= 1;   /* the stored checksum */
    expect_refused(copy, len, 1 << 20, "the file was modified or is corrupt");
    memcpy(copy, bin, len);
    copy[len - 3] ^= 0x55;   /* inside the deflated stream */
    expect_refused(copy, len, 1 << 20, "binary profile");

    /* an uncompressed body that claims more entries than it holds */
    unsigned char raw[64] = { 0x89, 'C', 'M', 'P', 'R', 'O', 'F', '\n', 1, 0, 0, 0, 0, 0, 0, 0 };
    unsigned char body[] = { 1, 4, 1, 0, 0, 0, 1, 'u', 1, 'j', 0, 16 };
    memcpy(raw + 32, body, sizeof body);
    raw[16] = sizeof body;
    expect_refused((const char *)raw, 32 + sizeof body, 1 << 20,
                   "cannot fit in what is left of the body");
    /* an entry past the task count */
    unsigned char body2[] = { 1, 4, 1, 0, 0, 0, 1, 'u', 1, 'j', 0, 1, 0, 9, 2, 0 };
    memcpy(raw + 32, body2, sizeof body2);
    raw[16] = sizeof body2;
    expect_refused((const char *)raw, 32 + sizeof body2, 1 << 20, "p2p");
    free(copy);
    free(bin);
    cm_profile_free(p);
}

/* A 64^3 halo (262,144 ranks x 6): the binary form is at most a quarter of
 * the JSON document (issue 14's bound). */
static void test_compact(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_profile_t *p = halo(64, 64, 64, 1);
    size_t blen, jlen;
    char *bin = cm_profile_to_bin(p, &blen, &err), *json = cm_profile_to_json(p, &jlen, &err);
    assert_non_null(bin);
    assert_non_null(json);
    print_message("halo 64^3: JSON %zu bytes, binary %zu (%.3f)\n", jlen, blen,
                  (double)blen / (double)jlen);
    assert_true(blen * 4 <= jlen);
    free(bin);
    free(json);
    cm_profile_free(p);
}

/* A deflated binary profile: header stating @p stated body bytes, the
 * @p n bytes of @p body deflated (what a hostile writer makes). */
static char *deflated(const unsigned char *body, size_t n, uint64_t stated, size_t *len)
{
    uLongf zlen = compressBound((uLong)n);
    unsigned char *out = calloc(1, 32 + zlen);
    assert_non_null(out);
    memcpy(out, "\x89" "CMPROF\n", 8);
    out[8] = 1;
    out[12] = 1;
    for (int k = 0; k < 8; k++)
        out[16 + k] = (unsigned char)(stated >> (8 * k));
    assert_int_equal(compress2(out + 32, &zlen, body, (uLong)n, 9), Z_OK);
    *len = 32 + zlen;
    return (char *)out;
}

/* The header of a body for job "j" with 2^20 tasks, then the p2p count
 * @p nnz as a varint; the length into *n. */
static void bomb_head(unsigned char *b, size_t *n, uint64_t nnz)
{
    static const unsigned char head[] = { 0, 0x80, 0x80, 0x40, 1, 0, 0, 0,
                                          1, 'u', 1, 'j', 0 };
    memcpy(b, head, sizeof head);
    *n = sizeof head;
    do {
        b[(*n)++] = (unsigned char)((nnz & 0x7f) | (nnz > 0x7f ? 0x80 : 0));
        nnz >>= 7;
    } while (nnz);
}

/* A count of entries is never trusted for memory: above the ceiling it is
 * refused at once, below it the reader holds what it decoded (a stream
 * that stops after a few entries fails there, having reserved little). */
static void test_bounded(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    unsigned char body[4096];
    size_t n, len;
    char *bin;

    bomb_head(body, &n, (uint64_t)CM_PROFILE_MAX_ENTRIES + 1);
    bin = deflated(body, n, 3 * ((uint64_t)CM_PROFILE_MAX_ENTRIES + 2) + 64, &len);
    expect_refused(bin, len, (size_t)1 << 30, "above the limit of 16777216 entries a profile");
    free(bin);

    /* 10^7 entries claimed, 4 in the stream: the stream's end is the error */
    bomb_head(body, &n, 10000000);
    for (int k = 0; k < 4; k++) {
        body[n++] = 0;
        body[n++] = 0;
        body[n++] = 2;
    }
    bin = deflated(body, n, 30000100, &len);
    expect_refused(bin, len, (size_t)1 << 30, "does not inflate to the 30000100 bytes");
    free(bin);

    /* a body that inflates past its stated length */
    cm_profile_t *p = halo(4, 4, 4, 1);
    char *good = cm_profile_to_bin(p, &len, &err);
    assert_non_null(good);
    good[16]--;   /* stated one byte shorter than it is */
    expect_refused(good, len, (size_t)1 << 20, "binary profile");
    free(good);
    cm_profile_free(p);
}

/* A reader looking for one key refuses another before any entry is
 * decoded; one past its deadline stops. */
static void test_expect(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_profile_t *p = halo(48, 48, 48, 1), *q;   /* 110,592 ranks, 6 partners */
    size_t len;
    char *bin = cm_profile_to_bin(p, &len, &err);
    assert_non_null(bin);

    cm_profile_expect_t want = { "halo@halo-0123abcd", 110592, 0 };
    q = cm_profile_parse_bin_expect(bin, len, "f.bin", (size_t)1 << 30, &want, &err);
    assert_non_null(q);
    cm_profile_free(q);
    want.job_name = "other";
    q = cm_profile_parse_bin_expect(bin, len, "f.bin", (size_t)1 << 30, &want, &err);
    assert_null(q);
    assert_string_equal(err.msg, "f.bin: holds the profile of 'halo@halo-0123abcd' with "
                                 "110592 tasks, expected 'other' with 110592 tasks "
                                 "(fields 'job_name', 'ntasks')");
    want.job_name = NULL;
    want.ntasks = 7;
    assert_null(cm_profile_parse_bin_expect(bin, len, "f.bin", (size_t)1 << 30, &want, &err));
    assert_non_null(strstr(err.msg, "expected 'halo@halo-0123abcd' with 7 tasks"));

    /* the key is compared before the entries: a bomb of another key costs
     * nothing, whatever its count */
    unsigned char body[64];
    size_t n, blen;
    bomb_head(body, &n, (uint64_t)CM_PROFILE_MAX_ENTRIES + 1);
    char *bomb = deflated(body, n, 3 * ((uint64_t)CM_PROFILE_MAX_ENTRIES + 2) + 64, &blen);
    want.job_name = "mine";
    want.ntasks = 0;
    assert_null(cm_profile_parse_bin_expect(bomb, blen, "b.bin", (size_t)1 << 30, &want, &err));
    assert_non_null(strstr(err.msg, "b.bin: holds the profile of 'j' with 1048576 tasks"));
    free(bomb);

    want.job_name = NULL;
    want.deadline = cm_profile_clock() - 1;   /* already past */
    assert_null(cm_profile_parse_bin_expect(bin, len, "f.bin", (size_t)1 << 30, &want, &err));
    assert_non_null(strstr(err.msg, "f.bin: binary profile: reading stopped at the deadline "
                                    "after 65535 entries"));
    free(bin);
    cm_profile_free(p);
}

/* A checksum error says the content does not match, never which value
 * would: that value would make a hand-made file valid. */
static void test_checksum_hidden(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_profile_t *p = halo(3, 3, 3, 1);
    size_t len;
    char *bin = cm_profile_to_bin(p, &len, &err), hex[32];
    assert_non_null(bin);
    bin[24] ^= 1;
    assert_null(cm_profile_parse_bin(bin, len, "f.bin", (size_t)1 << 20, &err));
    assert_non_null(strstr(err.msg, "checksum does not match the content"));
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)cm_profile_checksum(p));
    assert_null(strstr(err.msg, hex));
    free(bin);

    char *json = cm_profile_to_json(p, &len, &err);
    assert_non_null(json);
    char *at = strstr(json, "fnv1a64:");
    assert_non_null(at);
    at[8] = at[8] == '0' ? '1' : '0';
    assert_null(cm_profile_parse_json(json, len, "f.json", &err));
    assert_non_null(strstr(err.msg, "field 'checksum'"));
    assert_null(strstr(err.msg, hex));
    free(json);
    cm_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_read_dispatch),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_compact),
        cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_expect),
        cmocka_unit_test(test_checksum_hidden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
