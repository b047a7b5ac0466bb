/* test_ovl_config.c -- the overlays' text (src/overlay/ovl_text.h):
 * CLUSTERMAP_OVERLAY and CLUSTERMAP_OVERLAY_VERBOSE as ovl_config_parse
 * reads them (what is switched on, the one line rank 0 prints), and the
 * css verbose line of ovl_css_line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ovl_text.h"

/* Parse @p overlay (verbose unset) into a fresh config. */
static ovl_config_t parse(const char *overlay)
{
    ovl_config_t c;
    memset(&c, 0x5a, sizeof c);   /* the parser must set every field */
    ovl_config_parse(overlay, NULL, &c);
    return c;
}

static void test_off_by_default(void **state)
{
    (void)state;
    const char *off[] = { NULL, "", " ", ",", " , ,\t" };
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        ovl_config_t c = parse(off[i]);
        assert_int_equal(c.on, 0);
        assert_int_equal(c.verbose, 0);
        assert_string_equal(c.note, "");
    }
}

static void test_css(void **state)
{
    (void)state;
    const char *on[] = { "css", " css ", "CSS", "css,", ",css", "css,css", "\tcss , Css" };
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
        ovl_config_t c = parse(on[i]);
        assert_int_equal(c.on, OVL_CSS);
        assert_string_equal(c.note, "");
    }
}

/* tnbc is accepted alone and beside css, without a note. */
static void test_tnbc_on(void **state)
{
    (void)state;
    ovl_config_t c = parse("tnbc");
    assert_int_equal(c.on, OVL_TNBC);
    assert_string_equal(c.note, "");
    c = parse("css, tnbc");
    assert_int_equal(c.on, OVL_CSS | OVL_TNBC);
    assert_string_equal(c.note, "");
    c = parse("TNBC,css,tnbc");
    assert_int_equal(c.on, OVL_CSS | OVL_TNBC);
    assert_string_equal(c.note, "");
}

/* Any unknown name: everything off, one line naming it and the accepted
 * names (the first unknown one only; tnbc beside it is off too). */
static void test_unknown(void **state)
{
    (void)state;
    ovl_config_t c = parse("bogus");
    assert_int_equal(c.on, 0);
    assert_string_equal(c.note, "CLUSTERMAP_OVERLAY: unknown overlay 'bogus' "
                                "(accepted: css, tnbc); running without overlays");
    c = parse("css,bogus,other");
    assert_int_equal(c.on, 0);
    assert_non_null(strstr(c.note, "'bogus'"));
    assert_null(strstr(c.note, "other"));
    c = parse("tnbc, cs s");
    assert_int_equal(c.on, 0);
    assert_non_null(strstr(c.note, "'cs s'"));
    assert_null(strstr(c.note, "not available"));
    c = parse("css;tnbc");   /* only commas separate */
    assert_int_equal(c.on, 0);
    assert_non_null(strstr(c.note, "'css;tnbc'"));
}

/* A long or unprintable name is shortened and made printable: the line
 * stays one short line. */
static void test_unknown_shown_safely(void **state)
{
    (void)state;
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ovl_config_t c = parse(longname);
    assert_int_equal(c.on, 0);
    assert_non_null(strstr(c.note, "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"));
    assert_true(strlen(c.note) < 128);
    c = parse("a\nb\033[2J");
    assert_int_equal(c.on, 0);
    assert_non_null(strstr(c.note, "'a?b?[2J'"));
    assert_null(strchr(c.note, '\n'));
}

static void test_verbose(void **state)
{
    (void)state;
    const struct {
        const char *v;
        int on;
    } cases[] = { { NULL, 0 }, { "", 0 }, { "0", 0 }, { "1", 1 }, { "yes", 1 }, { "00", 1 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ovl_config_t c;
        ovl_config_parse("css", cases[i].v, &c);
        assert_int_equal(c.verbose, cases[i].on);
        assert_int_equal(c.on, OVL_CSS);
    }
}

static void test_css_line(void **state)
{
    (void)state;
    char line[512];
    ovl_css_stats_t st = { 0 };
    st.calls = 12;
    st.scheduled = 10;
    st.built = 2;
    st.redist = 4;
    st.recognised = 1;
    st.pass[OVL_PASS_UNIFORM] = 2;
    st.bytes = 3250586;            /* 3.1 MiB */
    st.ns = 12300000;
    ovl_css_line(line, sizeof line, 0, &st);
    assert_string_equal(line, "css: rank 0: 12 MPI_Alltoallv calls, 10 scheduled "
                              "(2 schedules built), 4 as redistributions (1 recognised), "
                              "2 passed through (2 uniform), "
                              "3.1 MiB sent, 0.0123 s inside the calls\n");
    ovl_css_stats_t one = { 0 };
    one.calls = 1;
    one.built = 1;
    one.pass[OVL_PASS_IN_PLACE] = 1;
    one.pass[OVL_PASS_SLOWER] = 3;
    one.pass[OVL_PASS_FALLBACK] = 1;
    ovl_css_line(line, sizeof line, 7, &one);
    assert_string_equal(line, "css: rank 7: 1 MPI_Alltoallv call, 0 scheduled "
                              "(1 schedule built), 0 as redistributions (0 recognised), "
                              "5 passed through (1 in place, "
                              "3 not faster, 1 fallback), 0.0 MiB sent, "
                              "0.0000 s inside the calls\n");
    ovl_css_stats_t none = { 0 };
    ovl_css_line(line, sizeof line, 0, &none);
    assert_string_equal(line, "css: rank 0: 0 MPI_Alltoallv calls, 0 scheduled "
                              "(0 schedules built), 0 as redistributions (0 recognised), "
                              "0 passed through, 0.0 MiB sent, "
                              "0.0000 s inside the calls\n");
}

/* Every reason at its largest still fits the line's buffer, in order. */
static void test_css_line_all_reasons(void **state)
{
    (void)state;
    char line[1024];
    ovl_css_stats_t st;
    memset(&st, 0xff, sizeof st);
    st.ns = 0;
    for (int k = 0; k < OVL_NPASS; k++)
        st.pass[k] = UINT64_MAX / 8;
    int n = ovl_css_line(line, sizeof line, 4095, &st);
    assert_true(n > 0 && (size_t)n < sizeof line);
    const char *order[] = { "intercommunicator", "in place", "communicator size",
                            "uniform", "not faster", "fallback)" };
    const char *at = line;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *p = strstr(at, order[i]);
        assert_non_null(p);
        at = p;
    }
}

/* The tnbc line: every collective named, the reasons in their order,
 * singulars. */
static void test_tnbc_line(void **state)
{
    (void)state;
    char line[640];
    ovl_tnbc_stats_t st;
    memset(&st, 0, sizeof st);
    st.calls[OVL_T_ALLTOALL] = 4;
    st.calls[OVL_T_ALLTOALLV] = 4;
    st.pass[OVL_TP_SMALL] = 3;
    st.pass[OVL_TP_INTER] = 1;
    st.bytes = 3 * 1024 * 1024 + 100000;
    st.ns = 123400000;
    st.faults = 1;
    st.hidden_ns = 4200000;
    st.model_ns = 5100000;
    ovl_tnbc_line(line, sizeof line, 0, &st);
    assert_string_equal(line, "tnbc: rank 0: 8 calls (4 MPI_Alltoall, 4 "
                              "MPI_Alltoallv, 0 MPI_Allgather, 0 MPI_Bcast), 4 "
                              "passed through (1 intercommunicator, 3 small), "
                              "3.1 MiB received, 0.1234 s inside the calls, 1 "
                              "page fault, 0.0042 s hidden (seed's model: "
                              "0.0051 s)\n");
    memset(&st, 0, sizeof st);
    st.calls[OVL_T_BCAST] = 1;
    ovl_tnbc_line(line, sizeof line, 3, &st);
    assert_string_equal(line, "tnbc: rank 3: 1 call (0 MPI_Alltoall, 0 "
                              "MPI_Alltoallv, 0 MPI_Allgather, 1 MPI_Bcast), 0 "
                              "passed through, 0.0 MiB received, 0.0000 s "
                              "inside the calls, 0 page faults, 0.0000 s "
                              "hidden (seed's model: 0.0000 s)\n");
    st.waves = 1;   /* the per-node rule: its part, singular */
    st.wave_len = 1;
    ovl_tnbc_line(line, sizeof line, 3, &st);
    assert_string_equal(line, "tnbc: rank 3: 1 call (0 MPI_Alltoall, 0 "
                              "MPI_Alltoallv, 0 MPI_Allgather, 1 MPI_Bcast), 0 "
                              "passed through, 0.0 MiB received, 0.0000 s "
                              "inside the calls, 0 page faults, 0.0000 s "
                              "hidden (seed's model: 0.0000 s), 1 call in "
                              "waves (1 rank on the node)\n");
    st.waves = 20;
    st.wave_len = 8;
    ovl_tnbc_line(line, sizeof line, 3, &st);
    assert_non_null(strstr(line, "0.0000 s), 20 calls in waves (8 ranks on "
                                 "the node)\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_by_default),
        cmocka_unit_test(test_css),
        cmocka_unit_test(test_tnbc_on),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_unknown_shown_safely),
        cmocka_unit_test(test_verbose),
        cmocka_unit_test(test_css_line),
        cmocka_unit_test(test_css_line_all_reasons),
        cmocka_unit_test(test_tnbc_line),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
