/* test_overlay_spec.c -- the one parser and printer of overlay specs
 * (src/util/cm_overlay_spec.h): the strict syntax of overlay= and the
 * launcher's marks, the lenient one of CLUSTERMAP_OVERLAY, the printer,
 * the --mapping modifiers and the lists the messages give. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cm_overlay_spec.h"

#define BOTH (CM_OVL_CSS | CM_OVL_TNBC)

/* Bad and odd inputs first: what each syntax refuses, and the item it
 * names. */
static void test_refused(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        cm_overlay_syntax_t syntax;
        const char *bad; /* the item named */
    } rows[] = {
        { NULL, CM_OVL_STRICT, "" },
        { "", CM_OVL_STRICT, "" },
        { "css,", CM_OVL_STRICT, "" },
        { ",css", CM_OVL_STRICT, "" },
        { "css,,tnbc", CM_OVL_STRICT, "" },
        { " css", CM_OVL_STRICT, " css" },
        { "CSS", CM_OVL_STRICT, "CSS" },
        { "css,css", CM_OVL_STRICT, "css" },
        { "none,css", CM_OVL_STRICT, "none" },
        { "tnbc,none", CM_OVL_STRICT, "none" },
        { "fast", CM_OVL_STRICT, "fast" },
        { "overlap", CM_OVL_STRICT, "overlap" },
        { "none", CM_OVL_LENIENT, "none" },
        { " bogus ,css", CM_OVL_LENIENT, "bogus" },
        { "css, tn bc", CM_OVL_LENIENT, "tn bc" },
        { "css;tnbc", CM_OVL_LENIENT, "css;tnbc" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        unsigned bits = 99;
        const char *bad = NULL;
        size_t len = 99;
        assert_int_equal(
            cm_overlay_spec_parse(rows[i].s, rows[i].syntax, &bits, &bad, &len), -1);
        assert_int_equal(bits, 99); /* unchanged */
        assert_non_null(bad);
        assert_int_equal(len, strlen(rows[i].bad));
        assert_memory_equal(bad, rows[i].bad, len);
        /* bad and bad_len are optional */
        assert_int_equal(
            cm_overlay_spec_parse(rows[i].s, rows[i].syntax, &bits, NULL, NULL), -1);
    }
}

static void test_accepted(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        cm_overlay_syntax_t syntax;
        unsigned bits;
    } rows[] = {
        { "none", CM_OVL_STRICT, 0 },
        { "css", CM_OVL_STRICT, CM_OVL_CSS },
        { "tnbc", CM_OVL_STRICT, CM_OVL_TNBC },
        { "css,tnbc", CM_OVL_STRICT, BOTH },
        { "tnbc,css", CM_OVL_STRICT, BOTH },
        { NULL, CM_OVL_LENIENT, 0 },
        { "", CM_OVL_LENIENT, 0 },
        { " , ,\t", CM_OVL_LENIENT, 0 },
        { "\tcss , Css", CM_OVL_LENIENT, CM_OVL_CSS },
        { "TNBC,css,tnbc", CM_OVL_LENIENT, BOTH },
        { "css,", CM_OVL_LENIENT, CM_OVL_CSS },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        unsigned bits = 99;
        assert_int_equal(
            cm_overlay_spec_parse(rows[i].s, rows[i].syntax, &bits, NULL, NULL), 0);
        assert_int_equal(bits, rows[i].bits);
    }
}

/* The strict syntax accepts exactly none, css, tnbc and the two of them
 * in either order: every list of up to three items drawn from names,
 * near-names and empty items. */
static void test_strict_exactly(void **state)
{
    (void)state;
    static const char *const item[] = { "", "css", "tnbc", "none", "CSS", " css", "x" };
    static const char *const ok[] = { "none", "css", "tnbc", "css,tnbc", "tnbc,css" };
    const size_t ni = sizeof item / sizeof item[0];
    char s[64];
    for (size_t a = 0; a < ni; a++)
        for (size_t b = 0; b <= ni; b++)
            for (size_t c = 0; c <= ni; c++) {
                if (b == ni && c < ni)
                    continue;
                snprintf(s, sizeof s, "%s%s%s%s%s", item[a], b < ni ? "," : "",
                         b < ni ? item[b] : "", c < ni ? "," : "", c < ni ? item[c] : "");
                int want = 0;
                for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++)
                    want |= !strcmp(s, ok[k]);
                unsigned bits;
                int rc = cm_overlay_spec_parse(s, CM_OVL_STRICT, &bits, NULL, NULL);
                if ((rc == 0) != want)
                    fail_msg("strict '%s': %d", s, rc);
            }
}

static void test_print(void **state)
{
    (void)state;
    char buf[16];
    assert_int_equal(cm_overlay_spec_print(0, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_int_equal(cm_overlay_spec_print(CM_OVL_TNBC, buf, sizeof buf), 4);
    assert_string_equal(buf, "tnbc");
    assert_int_equal(cm_overlay_spec_print(BOTH | 64u, buf, sizeof buf), 8);
    assert_string_equal(buf, "css,tnbc");
    /* cut to fit, the whole length returned */
    assert_int_equal(cm_overlay_spec_print(BOTH, buf, 5), 8);
    assert_string_equal(buf, "css,");
    assert_int_equal(cm_overlay_spec_print(BOTH, NULL, 0), 8);
    /* what it prints, the strict parser reads back */
    for (unsigned bits = 0; bits <= BOTH; bits++) {
        unsigned back = 99;
        cm_overlay_spec_print(bits, buf, sizeof buf);
        assert_int_equal(
            cm_overlay_spec_parse(bits ? buf : "none", CM_OVL_STRICT, &back, NULL, NULL),
            0);
        assert_int_equal(back, bits);
    }
}

static void test_modifier_and_lists(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(cm_overlay_modifier("css", 3), CM_OVL_CSS);
    assert_int_equal(cm_overlay_modifier("overlap,x", 7), CM_OVL_TNBC);
    assert_int_equal(cm_overlay_modifier("tnbc", 4), 0);
    assert_int_equal(cm_overlay_modifier("cs", 2), 0);
    cm_overlay_spec_accepted(CM_OVL_STRICT, buf, sizeof buf);
    assert_string_equal(buf, "none, css, tnbc or css,tnbc");
    cm_overlay_spec_accepted(CM_OVL_LENIENT, buf, sizeof buf);
    assert_string_equal(buf, "css, tnbc");
    cm_overlay_spec_accepted(CM_OVL_STRICT, buf, 8);
    assert_string_equal(buf, "none, c");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_accepted),
        cmocka_unit_test(test_strict_exactly),
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_modifier_and_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
