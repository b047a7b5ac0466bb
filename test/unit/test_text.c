/* test_text.c -- the escape of text from users (src/util/cm_text.c): what
 * each byte and character becomes, that the result holds no control byte
 * and is its own escape, that nothing is cut without the return value
 * saying so, and that long input comes out whole. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cm_text.h"

/* The escape of @p len bytes at @p s, checked against the other two entry
 * points: the caller frees it. */
static char *escape(const char *s, size_t len)
{
    size_t need = cm_text_escape_to(NULL, 0, s, len);
    assert_true(need != (size_t)-1);
    char *out = malloc(need + 1);
    assert_non_null(out);
    assert_int_equal(cm_text_escape_to(out, need + 1, s, len), need);
    assert_int_equal(strlen(out), need);

    char *mem = NULL;
    size_t memlen = 0;
    FILE *f = open_memstream(&mem, &memlen);
    assert_non_null(f);
    assert_int_equal(cm_text_fwrite(s, len, f), (long)need);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(memlen, need);
    assert_memory_equal(mem, out, need);
    free(mem);

    if (memchr(s, '\0', len) == NULL) {
        char *copy = strndup(s ? s : "", len);
        assert_non_null(copy);
        char *str = cm_text_escape(copy);
        assert_non_null(str);
        assert_string_equal(str, out);
        free(str);
        free(copy);
    }
    return out;
}

/* What the escape guarantees of @p t: no byte below 0x20, no DEL, and
 * escaping it again gives it back. */
static void check_safe(const char *t)
{
    for (const unsigned char *p = (const unsigned char *)t; *p; p++)
        assert_true(*p >= 0x20 && *p != 0x7f);
    char *again = escape(t, strlen(t));
    assert_string_equal(again, t);
    free(again);
}

/* One row: input bytes (with their length, for NUL) and the escape. */
#define ROW(in, out)                                                                     \
    {                                                                                    \
        in, sizeof in - 1, out                                                           \
    }

static void test_rows(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t len;
        const char *out;
    } rows[] = {
        ROW("", ""),
        ROW("job-1 a_b.c", "job-1 a_b.c"),
        ROW("~ !\"#$%&'()*+,-./:;<=>?@[]^_`{|}", "~ !\"#$%&'()*+,-./:;<=>?@[]^_`{|}"),
        /* a backslash is kept: the escape is for reading */
        ROW("a\\x1b\\n", "a\\x1b\\n"),
        ROW("\x1b[2J\x1b]0;title\a", "\\x1b[2J\\x1b]0;title\\x07"),
        ROW("x\nslurmd: error: fake", "x\\nslurmd: error: fake"),
        ROW("a\tb\rc", "a\\tb\\rc"),
        ROW("a\0b", "a\\x00b"),
        ROW("\x7f", "\\x7f"),
        /* well-formed UTF-8 is kept: 2, 3 and 4 bytes, the last of each */
        ROW("caf\xc3\xa9", "caf\xc3\xa9"),
        ROW("\xc2\xa0", "\xc2\xa0"),
        ROW("\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac"),
        ROW("\xef\xbf\xbf", "\xef\xbf\xbf"),
        ROW("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"),
        ROW("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"),
        /* C1 controls (U+009B is CSI to some terminals) */
        ROW("\xc2\x80", "\\xc2\\x80"),
        ROW("\xc2\x9b"
            "2J",
            "\\xc2\\x9b2J"),
        ROW("\xc2\x9f", "\\xc2\\x9f"),
        /* what reorders or breaks the displayed line */
        ROW("\xd8\x9c", "\\xd8\\x9c"),
        ROW("\xe2\x80\x8e\xe2\x80\x8f", "\\xe2\\x80\\x8e\\xe2\\x80\\x8f"),
        ROW("\xe2\x80\xa8", "\\xe2\\x80\\xa8"),
        ROW("\xe2\x80\xae"
            "cod.exe",
            "\\xe2\\x80\\xaecod.exe"),
        ROW("\xe2\x81\xa6\xe2\x81\xa9", "\\xe2\\x81\\xa6\\xe2\\x81\\xa9"),
        /* ... and their neighbours are not */
        ROW("\xe2\x80\xa7\xe2\x80\xaf", "\xe2\x80\xa7\xe2\x80\xaf"),
        /* ill-formed: each byte that is not part of a valid sequence */
        ROW("\xff", "\\xff"),
        ROW("\xfe\xc0\xc1\xf5", "\\xfe\\xc0\\xc1\\xf5"),
        ROW("\xc3", "\\xc3"),                            /* cut at the end */
        ROW("\xe6\x97", "\\xe6\\x97"),                   /* cut at the end */
        ROW("\xc3(", "\\xc3("),                          /* no continuation */
        ROW("\xe2\x28\xa1", "\\xe2(\\xa1"),              /* continuation missing */
        ROW("\x80x", "\\x80x"),                          /* lone continuation */
        ROW("\xc0\xaf", "\\xc0\\xaf"),                   /* overlong '/' */
        ROW("\xe0\x80\xaf", "\\xe0\\x80\\xaf"),          /* overlong '/' */
        ROW("\xf0\x82\x82\xac", "\\xf0\\x82\\x82\\xac"), /* overlong */
        ROW("\xed\xa0\x80", "\\xed\\xa0\\x80"),          /* surrogate */
        ROW("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"), /* > U+10FFFF */
        ROW("\xc3\xa9\xff\xc3\xa9", "\xc3\xa9\\xff\xc3\xa9"),
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        char *got = escape(rows[k].in, rows[k].len);
        if (strcmp(got, rows[k].out) != 0)
            fail_msg("row %zu: got '%s', expected '%s'", k, got, rows[k].out);
        check_safe(got);
        free(got);
    }
}

/* Every single byte: printable ASCII stays, the rest is "\xHH" (or one of
 * the three letters). */
static void test_every_byte(void **state)
{
    (void)state;
    for (int b = 0; b < 256; b++) {
        char in = (char)b, want[8];
        if (b >= 0x20 && b < 0x7f)
            snprintf(want, sizeof want, "%c", b);
        else if (b == '\n' || b == '\t' || b == '\r')
            snprintf(want, sizeof want, "\\%c", b == '\n' ? 'n' : b == '\t' ? 't' : 'r');
        else
            snprintf(want, sizeof want, "\\x%02x", b);
        char *got = escape(&in, 1);
        if (strcmp(got, want) != 0)
            fail_msg("byte 0x%02x: got '%s', expected '%s'", b, got, want);
        free(got);
    }
}

/* Random bytes (a fixed seed): whatever comes in, what comes out is safe
 * and is its own escape. */
static void test_random(void **state)
{
    (void)state;
    uint32_t x = 12345;
    unsigned char in[64];
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)(round % (int)sizeof in);
        for (size_t i = 0; i < len; i++) {
            x = x * 1664525u + 1013904223u;
            /* more bytes of UTF-8's ranges than uniform bytes would give */
            uint32_t r = x >> 24;
            in[i] = (unsigned char)(r < 96        ? 0x80 + (r & 0x7f)
                                        : r < 160 ? 0xc0 + (r & 0x3f)
                                                  : r);
        }
        char *got = escape((const char *)in, len);
        check_safe(got);
        free(got);
    }
}

/* A buffer too small: the return value is the whole length, the buffer
 * holds whole characters and a NUL. */
static void test_small_buffer(void **state)
{
    (void)state;
    const char *in = "ab\x1b"
                     "c\xc3\xa9";
    char out[16];
    static const struct {
        size_t size;
        const char *out;
    } rows[] = {
        { 1, "" },         { 2, "a" },
        { 3, "ab" },       { 6, "ab" },
        { 7, "ab\\x1b" },  { 8, "ab\\x1bc" },
        { 9, "ab\\x1bc" }, { 10, "ab\\x1bc\xc3\xa9" },
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        memset(out, 'Z', sizeof out);
        assert_int_equal(cm_text_escape_to(out, rows[k].size, in, strlen(in)), 9);
        assert_string_equal(out, rows[k].out);
    }
    assert_int_equal(cm_text_escape_to(NULL, 0, in, strlen(in)), 9);
    memset(out, 'Z', sizeof out);
    assert_int_equal(cm_text_escape_to(out, 0, in, strlen(in)), 9);
    assert_int_equal(out[0], 'Z'); /* size 0: nothing written */
}

/* Bad arguments: refused, never a crash. */
static void test_refused(void **state)
{
    (void)state;
    char out[4] = "Z";
    assert_int_equal(cm_text_escape_to(out, sizeof out, NULL, 3), (size_t)-1);
    assert_string_equal(out, "");
    assert_int_equal(cm_text_escape_to(out, sizeof out, "x", CM_TEXT_MAX_INPUT + 1),
                     (size_t)-1);
    assert_int_equal(cm_text_escape_to(out, sizeof out, NULL, 0), 0);
    assert_string_equal(out, "");
    errno = 0;
    assert_null(cm_text_escape(NULL));
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_int_equal(cm_text_fputs(NULL, stdout), -1);
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_int_equal(cm_text_fwrite("x", 1, NULL), -1);
    assert_int_equal(errno, EINVAL);
    FILE *ro = fopen("/dev/null", "r");
    assert_non_null(ro);
    assert_int_equal(cm_text_fputs("x", ro), -1);
    fclose(ro);
}

/* Long input is escaped whole: 1 MiB of ESC is 4 MiB of "\x1b", 1 MiB of
 * text is itself. */
static void test_long(void **state)
{
    (void)state;
    size_t n = 1 << 20;
    char *in = malloc(n + 1);
    assert_non_null(in);
    memset(in, 0x1b, n);
    in[n] = '\0';
    char *out = cm_text_escape(in);
    assert_non_null(out);
    assert_int_equal(strlen(out), 4 * n);
    for (size_t i = 0; i < 4 * n; i += 4)
        assert_memory_equal(out + i, "\\x1b", 4);
    free(out);
    for (size_t i = 0; i < n; i++)
        in[i] = (char)('a' + i % 26);
    out = cm_text_escape(in);
    assert_non_null(out);
    assert_string_equal(out, in);
    free(out);
    free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),    cmocka_unit_test(test_every_byte),
        cmocka_unit_test(test_random),  cmocka_unit_test(test_small_buffer),
        cmocka_unit_test(test_refused), cmocka_unit_test(test_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
