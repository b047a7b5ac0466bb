/* test_readers.c -- Matrix Market, METIS and triplet readers, format
 * detection and the Matrix Market writer (src/core/read_*.c,
 * src/core/matrix_io.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testdata.h"
#include "testutil.h"

static char *tmpdir;

static int setup(void **state)
{
    (void)state;
    tmpdir = cm_test_mkdtemp();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cm_test_rmtree(tmpdir);
    tmpdir = NULL;
    return 0;
}

static cm_matrix_t *read_ok(const char *path, cm_format_t fmt)
{
    cm_error_t err = { "" };
    cm_matrix_t *m = cm_matrix_read(path, fmt, &err);
    if (!m)
        fail_msg("reading %s: %s", path, err.msg);
    return m;
}

/* Write @p text to a scratch file, read it, and check the error names the
 * file and @p line, and contains @p what and @p got (NULL: not checked). */
static void expect_error(const char *name, const char *text, cm_format_t fmt,
                         int line, const char *what, const char *got)
{
    const char *path = cm_test_write_file(tmpdir, name, text);
    cm_error_t err = { "" };
    cm_matrix_t *m = cm_matrix_read(path, fmt, &err);
    if (m) {
        cm_matrix_free(m);
        fail_msg("%s: read succeeded, expected an error at line %d", name, line);
    }
    char where[4200];
    snprintf(where, sizeof where, "%s:%d: ", path, line);
    if (!strstr(err.msg, where) || !strstr(err.msg, what) ||
        (got && !strstr(err.msg, got)))
        fail_msg("%s: error '%s' lacks '%s', '%s' or '%s'", name, err.msg,
                 where, what, got ? got : "");
}

/* ---- Matrix Market ------------------------------------------------------ */

/* Values computed from the file, independently of the reader:
 *   awk 'NR>3{c++; s+=$3} END{print c, s}'            -> 48 56131584
 *   awk 'NR>3 && $1!=$2 {s+=$3} END{print s}'         -> 51472384
 *   (no duplicate (i, j) pairs, 4 diagonal entries, no zeros)
 * and row 1 is "1 1 1164800", "1 2 1171712", "1 3 1171712". */
static void test_mtx_cg(void **state)
{
    (void)state;
    cm_matrix_t *m = read_ok(cm_test_data_path("matrices/cg.S.16.mtx"),
                             CM_FORMAT_MTX);
    assert_int_equal(cm_matrix_n(m), 16);
    assert_int_equal(cm_matrix_nnz(m), 48);
    assert_int_equal(cm_matrix_has_msgs(m), 0);
    double tb, tm;
    cm_matrix_totals(m, &tb, &tm);
    assert_true(tb == 56131584.0);
    assert_true(tm == 0);
    cm_test_check_row(m, 0, 3, (int[]){ 0, 1, 2 },
              (double[]){ 1164800, 1171712, 1171712 }, (double[]){ 0, 0, 0 });

    cm_matrix_t *s = cm_matrix_symmetrize(m, NULL);
    cm_matrix_totals(s, &tb, NULL);
    assert_true(tb == 2 * 51472384.0);
    assert_int_equal(cm_matrix_nnz(s), 44);   /* 48 - 4 diagonal, pattern symmetric */
    cm_matrix_free(s);

    /* auto-detection by the banner gives the same matrix */
    cm_matrix_t *a = read_ok(cm_test_data_path("matrices/cg.S.16.mtx"),
                             CM_FORMAT_AUTO);
    assert_int_equal(cm_matrix_nnz(a), 48);
    cm_matrix_totals(a, &tb, NULL);
    assert_true(tb == 56131584.0);
    cm_matrix_free(a);
    cm_matrix_free(m);
}

/* graphs/sym4.mtx: lower triangle (2,1)=10 (3,1)=2.5 (3,3)=7 (4,2)=100;
 * mirrored: 7 entries, total 2 * (10 + 2.5 + 100) + 7 = 232. */
static void test_mtx_symmetric(void **state)
{
    (void)state;
    cm_matrix_t *m = read_ok(cm_test_data_path("graphs/sym4.mtx"), CM_FORMAT_AUTO);
    assert_int_equal(cm_matrix_n(m), 4);
    assert_int_equal(cm_matrix_nnz(m), 7);
    double tb;
    cm_matrix_totals(m, &tb, NULL);
    assert_true(tb == 232);
    cm_test_check_row(m, 0, 2, (int[]){ 1, 2 }, (double[]){ 10, 2.5 }, NULL);
    cm_test_check_row(m, 1, 2, (int[]){ 0, 3 }, (double[]){ 10, 100 }, NULL);
    cm_test_check_row(m, 2, 2, (int[]){ 0, 2 }, (double[]){ 2.5, 7 }, NULL);
    cm_test_check_row(m, 3, 1, (int[]){ 1 }, (double[]){ 100 }, NULL);
    cm_matrix_free(m);
}

static void test_mtx_pattern_and_duplicates(void **state)
{
    (void)state;
    const char *p = cm_test_write_file(tmpdir, "pat.mtx",
        "%%MatrixMarket matrix coordinate pattern general\r\n"
        "% CRLF line ends and a duplicate entry\r\n"
        "\r\n"
        "3 3 3\r\n"
        "1 3\r\n"
        "3 2\r\n"
        "1 3\r\n");
    cm_matrix_t *m = read_ok(p, CM_FORMAT_AUTO);
    assert_int_equal(cm_matrix_n(m), 3);
    assert_int_equal(cm_matrix_nnz(m), 2);
    cm_test_check_row(m, 0, 1, (int[]){ 2 }, (double[]){ 2 }, NULL);
    cm_test_check_row(m, 2, 1, (int[]){ 1 }, (double[]){ 1 }, NULL);
    cm_matrix_free(m);
}

static void test_mtx_errors(void **state)
{
    (void)state;
    const char *gen = "%%MatrixMarket matrix coordinate real general\n";
    char buf[512];

    expect_error("array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n",
                 CM_FORMAT_MTX, 1, "expected format 'coordinate'", "got 'array'");
    expect_error("complex.mtx",
                 "%%MatrixMarket matrix coordinate complex general\n1 1 0\n",
                 CM_FORMAT_MTX, 1, "expected field", "got 'complex'");
    expect_error("herm.mtx",
                 "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n",
                 CM_FORMAT_MTX, 1, "expected symmetry", "got 'hermitian'");
    expect_error("skew.mtx",
                 "%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 0\n",
                 CM_FORMAT_MTX, 1, "expected symmetry", "got 'skew-symmetric'");
    expect_error("nobanner.mtx", "2 2 0\n", CM_FORMAT_MTX, 1,
                 "expected '%%MatrixMarket'", "got '2'");
    expect_error("empty.mtx", "", CM_FORMAT_MTX, 1, "expected a '%%MatrixMarket' header",
                 NULL);

    snprintf(buf, sizeof buf, "%s%% comment\n3 4 1\n1 1 1\n", gen);
    expect_error("nonsquare.mtx", buf, CM_FORMAT_MTX, 3, "expected a square matrix",
                 "got '4'");
    snprintf(buf, sizeof buf, "%s", gen);
    expect_error("nosize.mtx", buf, CM_FORMAT_MTX, 1, "expected a size line", NULL);
    snprintf(buf, sizeof buf, "%s20000000 20000000 0\n", gen);
    expect_error("huge.mtx", buf, CM_FORMAT_MTX, 2,
                 "expected a row count (an integer in 1..16777216)", "got '20000000'");
    snprintf(buf, sizeof buf, "%s2 2 1\n3 1 5\n", gen);
    expect_error("range.mtx", buf, CM_FORMAT_MTX, 3, "expected a row index",
                 "got '3'");
    snprintf(buf, sizeof buf, "%s2 2 1\n1 0 5\n", gen);
    expect_error("range0.mtx", buf, CM_FORMAT_MTX, 3, "expected a column index",
                 "got '0'");
    snprintf(buf, sizeof buf, "%s2 2 3\n1 2 1\n2 1 1\n", gen);
    expect_error("few.mtx", buf, CM_FORMAT_MTX, 4,
                 "expected 3 entries as declared on line 2", "got 2");
    snprintf(buf, sizeof buf, "%s2 2 1\n1 2 1\n2 1 1\n", gen);
    expect_error("many.mtx", buf, CM_FORMAT_MTX, 4,
                 "expected end of file after the 1 entries declared on line 2",
                 "got '2'");
    snprintf(buf, sizeof buf, "%s2 2 1\n1 2 -5\n", gen);
    expect_error("neg.mtx", buf, CM_FORMAT_MTX, 3, "expected a byte count",
                 "got '-5'");
    snprintf(buf, sizeof buf, "%s2 2 1\n1 2 nan\n", gen);
    expect_error("nan.mtx", buf, CM_FORMAT_MTX, 3, "expected a byte count",
                 "got 'nan'");
    snprintf(buf, sizeof buf, "%s2 2 1\n1 2 1e999\n", gen);
    expect_error("inf.mtx", buf, CM_FORMAT_MTX, 3, "expected a byte count",
                 "got '1e999'");
    snprintf(buf, sizeof buf, "%s2 2 1\n1 2 3 4\n", gen);
    expect_error("extra.mtx", buf, CM_FORMAT_MTX, 3, "expected end of line",
                 "got '4'");
    expect_error("int.mtx",
                 "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n",
                 CM_FORMAT_MTX, 3, "expected a byte count", "got '1.5'");
    expect_error("patval.mtx",
                 "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2 7\n",
                 CM_FORMAT_MTX, 3, "expected end of line", "got '7'");
}

/* ---- METIS -------------------------------------------------------------- */

/* graphs/grid4x4.graph: 4 x 4 grid, 24 edges, weight of {u, v} = u + v.
 *   awk '!/^%/ && NR>2 {for(i=1;i<=NF;i+=2){e++; s+=$(i+1)}} END{print e, s}'
 *   -> 48 816 */
static void test_metis_weighted(void **state)
{
    (void)state;
    cm_matrix_t *m = read_ok(cm_test_data_path("graphs/grid4x4.graph"),
                             CM_FORMAT_AUTO);
    assert_int_equal(cm_matrix_n(m), 16);
    assert_int_equal(cm_matrix_nnz(m), 48);
    assert_int_equal(cm_matrix_has_msgs(m), 0);
    double tb;
    cm_matrix_totals(m, &tb, NULL);
    assert_true(tb == 816);
    cm_test_check_row(m, 0, 2, (int[]){ 1, 4 }, (double[]){ 3, 6 }, NULL);
    cm_test_check_row(m, 5, 4, (int[]){ 1, 4, 6, 9 }, (double[]){ 8, 11, 13, 16 }, NULL);
    cm_test_check_row(m, 15, 2, (int[]){ 11, 14 }, (double[]){ 28, 31 }, NULL);
    cm_matrix_free(m);
}

static void test_metis_unweighted(void **state)
{
    (void)state;
    cm_matrix_t *m = read_ok(cm_test_data_path("graphs/grid4x4-unweighted.graph"),
                             CM_FORMAT_METIS);
    assert_int_equal(cm_matrix_n(m), 16);
    assert_int_equal(cm_matrix_nnz(m), 48);
    double tb;
    cm_matrix_totals(m, &tb, NULL);
    assert_true(tb == 48);
    cm_test_check_row(m, 5, 4, (int[]){ 1, 4, 6, 9 }, (double[]){ 1, 1, 1, 1 }, NULL);
    cm_matrix_free(m);
}

/* Vertex sizes and weights (fmt 111, ncon 2) are skipped; an empty line is
 * a vertex without neighbours; comments may sit anywhere. */
static void test_metis_vertex_weights(void **state)
{
    (void)state;
    const char *p = cm_test_write_file(tmpdir, "vw.graph",
        "% path 1 - 2, vertex 3 isolated\n"
        "3 1 111 2\n"
        "9 4 5 2 7\n"
        "% between vertex lines\n"
        "9 4 5 1 7\n"
        "1 0 0\n");
    cm_matrix_t *m = read_ok(p, CM_FORMAT_AUTO);
    assert_int_equal(cm_matrix_n(m), 3);
    assert_int_equal(cm_matrix_nnz(m), 2);
    cm_test_check_row(m, 0, 1, (int[]){ 1 }, (double[]){ 7 }, NULL);
    cm_test_check_row(m, 1, 1, (int[]){ 0 }, (double[]){ 7 }, NULL);
    cm_test_check_row(m, 2, 0, NULL, NULL, NULL);
    cm_matrix_free(m);

    p = cm_test_write_file(tmpdir, "vw10.graph", "3 1 10\n4 2\n5 1\n6\n");
    m = read_ok(p, CM_FORMAT_METIS);
    assert_int_equal(cm_matrix_nnz(m), 2);
    cm_test_check_row(m, 0, 1, (int[]){ 1 }, (double[]){ 1 }, NULL);
    cm_matrix_free(m);
}

static void test_metis_errors(void **state)
{
    (void)state;
    expect_error("range.graph", "3 2\n2\n1 4\n2\n", CM_FORMAT_METIS, 3,
                 "expected a neighbour (an integer in 1..3)", "got '4'");
    expect_error("self.graph", "2 1\n1\n1\n", CM_FORMAT_METIS, 2,
                 "expected a neighbour other than vertex 1", "got '1'");
    expect_error("m.graph", "% comment\n3 3\n2\n1 3\n2\n", CM_FORMAT_METIS, 2,
                 "expected 2*m = 6 adjacency entries", "got 4");
    expect_error("few.graph", "3 2\n2\n1 3\n", CM_FORMAT_METIS, 3,
                 "expected 3 vertex lines as announced on line 1", "got 2");
    expect_error("many.graph", "2 1\n2\n1\n1\n", CM_FORMAT_METIS, 4,
                 "expected end of file after the 2 vertex lines", "got '1'");
    expect_error("weight.graph", "2 1 1\n2 5\n1\n", CM_FORMAT_METIS, 3,
                 "expected an edge weight after neighbour 1", "got end of line");
    expect_error("negw.graph", "2 1 1\n2 -5\n1 5\n", CM_FORMAT_METIS, 2,
                 "expected an edge weight after neighbour 2", "got '-5'");
    expect_error("fmt.graph", "2 1 2\n2\n1\n", CM_FORMAT_METIS, 1,
                 "expected a format", "got '2'");
    expect_error("hdr.graph", "x 1\n", CM_FORMAT_METIS, 1,
                 "expected a vertex count", "got 'x'");
    expect_error("hdr2.graph", "3 1 1 1 9\n", CM_FORMAT_METIS, 1,
                 "expected end of line", "got '9'");
    expect_error("vwt.graph", "2 1 10\n\n1 1\n", CM_FORMAT_METIS, 2,
                 "expected a vertex weight", "got end of line");
    expect_error("empty.graph", "% nothing\n", CM_FORMAT_METIS, 1,
                 "expected a METIS header", "got end of file");
    expect_error("toobig.graph", "16777217 0\n", CM_FORMAT_METIS, 1,
                 "expected a vertex count (an integer in 1..16777216)",
                 "got '16777217'");
}

/* ---- triplets ----------------------------------------------------------- */

/* graphs/ring4.triplets: "# ranks 6", a ring 0->1->2->3->0 with messages and
 * a second 0->1 line: 4 entries, 10024 bytes, 102 messages. */
static void test_triplets_msgs(void **state)
{
    (void)state;
    cm_matrix_t *m = read_ok(cm_test_data_path("graphs/ring4.triplets"),
                             CM_FORMAT_AUTO);
    assert_int_equal(cm_matrix_n(m), 6);
    assert_int_equal(cm_matrix_nnz(m), 4);
    assert_int_equal(cm_matrix_has_msgs(m), 1);
    double tb, tm;
    cm_matrix_totals(m, &tb, &tm);
    assert_true(tb == 10024);
    assert_true(tm == 102);
    cm_test_check_row(m, 0, 1, (int[]){ 1 }, (double[]){ 1024 }, (double[]){ 12 });
    cm_test_check_row(m, 3, 1, (int[]){ 0 }, (double[]){ 4000 }, (double[]){ 40 });
    cm_test_check_row(m, 5, 0, NULL, NULL, NULL);
    cm_matrix_free(m);
}

static void test_triplets_plain(void **state)
{
    (void)state;
    const char *p = cm_test_write_file(tmpdir, "plain.txt",
        "# src dst bytes\n"
        "\n"
        "  4 0 1.5\n"
        "0\t4 2e3\n"
        "# an ordinary comment: ranks talk\n"
        "2 2 8\n");
    cm_matrix_t *m = read_ok(p, CM_FORMAT_AUTO);
    assert_int_equal(cm_matrix_n(m), 5);   /* max index + 1 */
    assert_int_equal(cm_matrix_nnz(m), 3);
    assert_int_equal(cm_matrix_has_msgs(m), 0);
    cm_test_check_row(m, 0, 1, (int[]){ 4 }, (double[]){ 2000 }, NULL);
    cm_test_check_row(m, 2, 1, (int[]){ 2 }, (double[]){ 8 }, NULL);
    cm_test_check_row(m, 4, 1, (int[]){ 0 }, (double[]){ 1.5 }, NULL);
    cm_matrix_free(m);
}

static void test_triplets_errors(void **state)
{
    (void)state;
    expect_error("mix1.txt", "0 1 5 1\n1 0 5\n", CM_FORMAT_TRIPLETS, 2,
                 "expected 4 columns like line 1", "got end of line");
    expect_error("mix2.txt", "# c\n0 1 5\n1 0 5 2\n", CM_FORMAT_TRIPLETS, 3,
                 "expected 3 columns like line 2", "got '2'");
    expect_error("ranks.txt", "# ranks 2\n0 2 1\n", CM_FORMAT_TRIPLETS, 2,
                 "expected a destination rank below '# ranks'", "got '2'");
    expect_error("neg.txt", "0 1 -1\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a byte count", "got '-1'");
    expect_error("negm.txt", "0 1 1 -3\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a message count", "got '-3'");
    expect_error("late.txt", "0 1 1\n# ranks 4\n", CM_FORMAT_TRIPLETS, 2,
                 "expected '# ranks N' before the first entry (line 1)", NULL);
    expect_error("twice.txt", "# ranks 4\n#ranks 5\n", CM_FORMAT_TRIPLETS, 2,
                 "expected a single '# ranks N' line (first on line 1)", NULL);
    expect_error("bigranks.txt", "# ranks 16777217\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a rank count after '# ranks' (at most 2^24)",
                 "got '16777217'");
    expect_error("badranks.txt", "# ranks many\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a rank count", "got 'many'");
    expect_error("bigidx.txt", "0 1 1\n16777216 0 1\n", CM_FORMAT_TRIPLETS, 2,
                 "expected a source rank (at most 2^24 - 1)", "got '16777216'");
    expect_error("word.txt", "0 one 1\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a destination rank", "got 'one'");
    expect_error("short.txt", "0 1\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a byte count", "got end of line");
    expect_error("five.txt", "0 1 2 3 4\n", CM_FORMAT_TRIPLETS, 1,
                 "expected end of line", "got '4'");
    expect_error("none.txt", "# nothing here\n\n", CM_FORMAT_TRIPLETS, 2,
                 "expected at least one", NULL);
}

/* ---- shared line reader limits ----------------------------------------- */

static void test_long_line_and_nul(void **state)
{
    (void)state;
    size_t len = (1u << 20) + 10;
    char *text = malloc(len + 16);
    assert_non_null(text);
    strcpy(text, "0 1 1\n");
    memset(text + 6, '7', len);
    strcpy(text + 6 + len, "\n");
    expect_error("long.txt", text, CM_FORMAT_TRIPLETS, 2,
                 "expected a line of at most 1048576 bytes", NULL);
    free(text);

    /* a line of exactly the limit is fine (it then fails on its content) */
    text = malloc((1u << 20) + 16);
    memset(text, ' ', 1u << 20);
    memcpy(text + (1u << 20) - 5, "0 1 1", 5);
    strcpy(text + (1u << 20), "\n");
    const char *p = cm_test_write_file(tmpdir, "limit.txt", text);
    cm_matrix_t *m = read_ok(p, CM_FORMAT_TRIPLETS);
    assert_int_equal(cm_matrix_nnz(m), 1);
    cm_matrix_free(m);
    free(text);

    char path[4200];
    snprintf(path, sizeof path, "%s/nul.txt", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite("0 1 1\n0 2\0 1\n", 1, 13, f);
    fclose(f);
    cm_error_t err;
    assert_null(cm_matrix_read(path, CM_FORMAT_TRIPLETS, &err));
    assert_non_null(strstr(err.msg, ":2: expected text, got a NUL byte"));
}

/* ---- block reading and the fast number paths --------------------------- */

/* Write @p len bytes (NULs allowed) to a scratch file; its path. */
static const char *write_bytes(const char *name, const char *data, size_t len)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return path;
}

/* The line reader works on 256 KiB blocks: lines longer than a block,
 * lines across block ends, the 1 MiB limit with a '\r' (which counts until
 * it is stripped), a last line without newline, and line numbers far into
 * the file. */
static void test_lines_blocks(void **state)
{
    (void)state;
    const size_t lim = 1u << 20;
    char *text = malloc(4 * lim + 64);
    assert_non_null(text);

    /* three lines of 600 KB (padding, then an entry), CRLF */
    size_t len = 0;
    for (int i = 0; i < 3; i++) {
        memset(text + len, ' ', 600000);
        len += 600000;
        len += (size_t)sprintf(text + len, "%d %d %d\r\n", i, i + 1, 10 + i);
    }
    /* a last line of exactly the limit, without newline */
    memset(text + len, ' ', lim - 5);
    memcpy(text + len + lim - 5, "3 0 7", 5);
    len += lim;
    cm_matrix_t *m = read_ok(write_bytes("blocks.txt", text, len),
                             CM_FORMAT_TRIPLETS);
    assert_int_equal(cm_matrix_n(m), 4);
    assert_int_equal(cm_matrix_nnz(m), 4);
    cm_test_check_row(m, 1, 1, (int[]){ 2 }, (double[]){ 11 }, NULL);
    cm_test_check_row(m, 3, 1, (int[]){ 0 }, (double[]){ 7 }, NULL);
    cm_matrix_free(m);

    /* one byte more at the end of file: too long */
    text[len] = ' ';
    text[len + 1] = '\0';
    expect_error("eof-long.txt", text, CM_FORMAT_TRIPLETS, 4,
                 "expected a line of at most 1048576 bytes", NULL);

    /* limit - 1 bytes and "\r\n" fit; limit bytes and "\r\n" do not */
    memset(text, ' ', lim);
    memcpy(text + lim - 6, "0 1 2\r\n", 8);
    m = read_ok(cm_test_write_file(tmpdir, "cr-fits.txt", text),
                CM_FORMAT_TRIPLETS);
    cm_test_check_row(m, 0, 1, (int[]){ 1 }, (double[]){ 2 }, NULL);
    cm_matrix_free(m);
    memcpy(text + lim - 5, "0 1 2\r\n", 8);
    expect_error("cr-long.txt", text, CM_FORMAT_TRIPLETS, 1,
                 "expected a line of at most 1048576 bytes", NULL);

    /* 200000 short lines, then a bad one: its number is right */
    len = 0;
    for (int i = 0; i < 200000; i++)
        len += (size_t)sprintf(text + len, "%d %d 1\n", i % 7, i % 5);
    strcpy(text + len, "1 2 x\n");
    expect_error("lineno.txt", text, CM_FORMAT_TRIPLETS, 200001,
                 "expected a byte count", "got 'x'");

    /* A NUL is found past block ends; within the first 2^20 + 1 bytes of
     * an overlong line it is what is reported, after them the length. */
    len = 0;
    for (int i = 0; i < 100000; i++)
        len += (size_t)sprintf(text + len, "%d %d 1\n", i % 7, i % 5);
    memcpy(text + len, "1 2\0 3\n", 7);
    const char *p = write_bytes("nul-far.txt", text, len + 7);
    cm_error_t err;
    assert_null(cm_matrix_read(p, CM_FORMAT_TRIPLETS, &err));
    assert_non_null(strstr(err.msg, ":100001: expected text, got a NUL byte"));
    memset(text, '7', 2 * lim);
    text[lim] = '\0';
    p = write_bytes("nul-limit.txt", text, 2 * lim);
    assert_null(cm_matrix_read(p, CM_FORMAT_TRIPLETS, &err));
    assert_non_null(strstr(err.msg, ":1: expected text, got a NUL byte"));
    text[lim] = '7';
    text[lim + 1] = '\0';
    p = write_bytes("nul-after.txt", text, 2 * lim);
    assert_null(cm_matrix_read(p, CM_FORMAT_TRIPLETS, &err));
    assert_non_null(strstr(err.msg, ":1: expected a line of at most"));
    free(text);

    /* the same through a stream: no final newline, a lone '\r' at the end */
    char mem[] = "%%MatrixMarket matrix coordinate real general\r\n2 2 2\r\n"
                 "1 2 5\r\n2 1 6\r";
    FILE *f = fmemopen(mem, strlen(mem), "r");
    m = cm_matrix_read_stream(f, "mem.mtx", CM_FORMAT_AUTO, &err);
    fclose(f);
    assert_non_null(m);
    cm_test_check_row(m, 1, 1, (int[]){ 0 }, (double[]){ 6 }, NULL);
    cm_matrix_free(m);
}

/* Integers: the fast path takes up to 18 digits, strtoll the rest, with
 * the same range errors. */
static void test_integer_limits(void **state)
{
    (void)state;
    const char *p = cm_test_write_file(tmpdir, "ints.txt",
        "# ranks 000000000000000005\n"
        "000000000000000004 0000000000000000000000000003 1\n"
        "+1 -0 2\n");
    cm_matrix_t *m = read_ok(p, CM_FORMAT_TRIPLETS);
    assert_int_equal(cm_matrix_n(m), 5);
    cm_test_check_row(m, 1, 1, (int[]){ 0 }, (double[]){ 2 }, NULL);
    cm_test_check_row(m, 4, 1, (int[]){ 3 }, (double[]){ 1 }, NULL);
    cm_matrix_free(m);

    expect_error("max.txt", "16777215 0 1\n16777216 0 1\n", CM_FORMAT_TRIPLETS, 2,
                 "expected a source rank (at most 2^24 - 1) (an integer in "
                 "0..16777215)", "got '16777216'");
    expect_error("ll.txt", "0 9223372036854775807 1\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a destination rank", "got '9223372036854775807'");
    expect_error("erange.txt", "0 99999999999999999999 1\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a destination rank", "got '99999999999999999999'");
    expect_error("neg-rank.txt", "# ranks 4\n-1 0 1\n", CM_FORMAT_TRIPLETS, 2,
                 "expected a source rank below '# ranks' (an integer in 0..3)",
                 "got '-1'");
    expect_error("glued.txt", "0 1x 1\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a destination rank", "got '1x'");
    expect_error("mtx53.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                 "2 2 1\n1 2 9007199254740993\n", CM_FORMAT_MTX, 3,
                 "expected a byte count (an integer in 0..9007199254740992)",
                 "got '9007199254740993'");
    expect_error("size0.mtx", "%%MatrixMarket matrix coordinate real general\n"
                 "0 0 0\n", CM_FORMAT_MTX, 2, "expected a row count", "got '0'");
}

/* Decimals: every spelling gives the double strtod gives, whether the
 * fast path (m * 10^e exact) or strtod reads it. */
static void test_decimal_values(void **state)
{
    (void)state;
    static const char *vals[] = {
        "0", "7", "0.1", "2.5", "5.", ".5", "1e22", "1e23", "1E+2", "1e-22",
        "1e-23", "+7", "0x1p-3", "9007199254740993", "900719925474099.3",
        "123456789.987654321", "3.14159265358979323846264338327950288",
        "0.000000000000000000000000001", "4.9e-324", "1.7976931348623157e308",
        "100000000000000000000000", "0.30000000000000004", "12e-0",
    };
    enum { NV = sizeof vals / sizeof vals[0] };
    char text[2048];
    size_t len = 0;
    for (int k = 0; k < NV; k++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%d 0 %s 1\n",
                                k, vals[k]);
    cm_matrix_t *m = read_ok(cm_test_write_file(tmpdir, "vals.txt", text),
                             CM_FORMAT_TRIPLETS);
    for (int k = 0; k < NV; k++) {
        const double *bytes;
        int n;
        double want = strtod(vals[k], NULL);
        cm_matrix_row(m, k, NULL, &bytes, NULL, &n);
        assert_int_equal(n, 1);
        if (memcmp(&bytes[0], &want, sizeof want) != 0)
            fail_msg("'%s' read as %.17g, strtod gives %.17g", vals[k], bytes[0],
                     want);
    }
    cm_matrix_free(m);

    /* METIS edge weights take the same paths, and keep their message */
    m = read_ok(cm_test_write_file(tmpdir, "w.graph",
                                   "2 1 1\n2 0x10\n1 16.0\n"), CM_FORMAT_METIS);
    cm_test_check_row(m, 0, 1, (int[]){ 1 }, (double[]){ 16 }, NULL);
    cm_matrix_free(m);
    expect_error("w.graph", "2 1 1\n2 1e\n1 1\n", CM_FORMAT_METIS, 2,
                 "expected an edge weight after neighbour 2 (a finite number "
                 ">= 0)", "got '1e'");
    expect_error("inf.txt", "0 1 1e400\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a byte count", "got '1e400'");
    expect_error("dot.txt", "0 1 .\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a byte count", "got '.'");
    expect_error("comma.txt", "0 1 1,5\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a byte count", "got '1,5'");
}

/* Digits are read eight at a time (src/core/matrix_internal.h): whole
 * and fractional parts of every length from 0 to 21 digits around those
 * steps, with and without exponents, give the double strtod gives; ranks
 * of 1 to 18 digits (leading zeros included) their value, and a number
 * glued to a letter is refused with the usual message.  The last value of
 * the file ends it, without a newline, so its digits are the last bytes
 * read. */
static void test_digit_runs(void **state)
{
    (void)state;
    static const char digits[] = "9876543210123456789012345";
    static const char *exps[] = { "", "e-5", "E+7", "e0" };
    enum { NV = 22 * 22 * 4 };
    static char vals[NV][64];
    size_t cap = 64 * NV + 64, len = 0;
    char *text = malloc(cap);
    int nv = 0;

    assert_non_null(text);
    for (int w = 0; w <= 21; w++)
        for (int f = 0; f <= 21; f++)
            for (int x = 0; x < 4; x++) {
                if (w + f == 0)
                    continue;
                snprintf(vals[nv], sizeof vals[nv], "%.*s%s%.*s%s", w,
                         digits + (w + f) % 5, f || x == 1 ? "." : "", f,
                         digits + 3, exps[x]);
                len += (size_t)snprintf(text + len, cap - len, "%s%d 0 %s",
                                        nv ? "\n" : "", nv, vals[nv]);
                nv++;
            }
    for (int pass = 0; pass < 2; pass++) {
        cm_matrix_t *m;
        if (pass == 0) {
            m = read_ok(write_bytes("runs.txt", text, len), CM_FORMAT_TRIPLETS);
        } else {
            cm_error_t err = { "" };
            FILE *f = fmemopen(text, len, "r");
            m = cm_matrix_read_stream(f, "runs", CM_FORMAT_TRIPLETS, &err);
            fclose(f);
            assert_non_null(m);
        }
        for (int k = 0; k < nv; k++) {
            const double *bytes;
            int n;
            double want = strtod(vals[k], NULL);
            cm_matrix_row(m, k, NULL, &bytes, NULL, &n);
            if (want == 0) {
                assert_int_equal(n, 0);
                continue;
            }
            assert_int_equal(n, 1);
            if (memcmp(&bytes[0], &want, sizeof want) != 0)
                fail_msg("'%s' read as %.17g, strtod gives %.17g", vals[k],
                         bytes[0], want);
        }
        cm_matrix_free(m);
    }

    /* ranks: 000...0<k digits> for every length the fast path takes */
    len = (size_t)sprintf(text, "# ranks 1000000\n");
    for (int w = 1; w <= 18; w++)
        len += (size_t)sprintf(text + len, "%0*d %.*s 1.5\n", w, w,
                               w < 6 ? w : 6, "123456");
    cm_matrix_t *m = read_ok(write_bytes("ranks.txt", text, len),
                             CM_FORMAT_TRIPLETS);
    cm_test_check_row(m, 8, 1, (int[]){ 123456 }, (double[]){ 1.5 }, NULL);
    cm_test_check_row(m, 18, 1, (int[]){ 123456 }, (double[]){ 1.5 }, NULL);
    cm_test_check_row(m, 3, 1, (int[]){ 123 }, (double[]){ 1.5 }, NULL);
    cm_matrix_free(m);
    free(text);

    expect_error("glued8.txt", "0 1 12345678x\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a byte count", "got '12345678x'");
    expect_error("glued9.txt", "0 123456789x 1\n", CM_FORMAT_TRIPLETS, 1,
                 "expected a destination rank", "got '123456789x'");
    expect_error("glued-frac.txt", "0 1 1.23456789012-\n", CM_FORMAT_TRIPLETS,
                 1, "expected a byte count", "got '1.23456789012-'");
}

/* Compare two matrices entry for entry, bit for bit. */
static void assert_same_matrix(const cm_matrix_t *a, const cm_matrix_t *b)
{
    assert_int_equal(cm_matrix_n(a), cm_matrix_n(b));
    assert_int_equal(cm_matrix_nnz(a), cm_matrix_nnz(b));
    assert_int_equal(cm_matrix_has_msgs(a), cm_matrix_has_msgs(b));
    for (int i = 0; i < cm_matrix_n(a); i++) {
        const int *ca, *cb;
        const double *ya, *yb, *ga, *gb;
        int la, lb;
        cm_matrix_row(a, i, &ca, &ya, &ga, &la);
        cm_matrix_row(b, i, &cb, &yb, &gb, &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(ca, cb, (size_t)la * sizeof *ca);
        assert_memory_equal(ya, yb, (size_t)la * sizeof *ya);
        assert_memory_equal(ga, gb, (size_t)la * sizeof *ga);
    }
}

/* Read @p text from a file (size known: the readers reserve room for the
 * entries to come after the first 65536) and from a stream (size unknown:
 * no reservation); both must give the same matrix. */
static void read_both_ways(const char *name, const char *text, size_t len,
                           cm_format_t fmt)
{
    cm_error_t err = { "" };
    cm_matrix_t *a = read_ok(write_bytes(name, text, len), fmt);
    FILE *f = fmemopen((void *)text, len, "r");
    cm_matrix_t *b = cm_matrix_read_stream(f, name, fmt, &err);
    fclose(f);
    if (!b)
        fail_msg("%s as a stream: %s", name, err.msg);
    assert_same_matrix(a, b);
    cm_matrix_free(a);
    cm_matrix_free(b);
}

/* Files of more than 65536 entries: rows in order (with repeats), rows
 * out of order after the reservation, a first part of long lines (the
 * estimate falls short: the arrays grow on), a first part of short lines
 * then long ones, and Matrix Market and METIS files. */
static void test_reserve(void **state)
{
    (void)state;
    enum { ROWS = 30000 };
    size_t cap = 64u << 20, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);

    for (int i = 0; i < ROWS; i++)
        for (int k = 0; k < 4; k++)
            len += (size_t)sprintf(text + len, "%d %d %d.%d %d\n", i,
                                   (i + 7 * k) % ROWS, k + 1, i % 10, k % 3);
    read_both_ways("order.txt", text, len, CM_FORMAT_TRIPLETS);
    len += (size_t)sprintf(text + len, "5 6 0.25 1\n17 3 1 1\n");
    read_both_ways("late.txt", text, len, CM_FORMAT_TRIPLETS);

    len = 0;
    for (int i = 0; i < 70000; i++)
        len += (size_t)sprintf(text + len, "%-200d %d 1\n", i % 1000, i % 977);
    for (int i = 0; i < 300000; i++)
        len += (size_t)sprintf(text + len, "%d %d 2\n", 1000 + i / 3, i % 5);
    read_both_ways("long-first.txt", text, len, CM_FORMAT_TRIPLETS);

    len = 0;
    for (int i = 0; i < 70000; i++)
        len += (size_t)sprintf(text + len, "%d %d 1\n", i / 2, i % 3);
    for (int i = 0; i < 20000; i++)
        len += (size_t)sprintf(text + len, "%-300d %d 1\n", 35000 + i, i % 5);
    read_both_ways("short-first.txt", text, len, CM_FORMAT_TRIPLETS);

    len = (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate real "
                          "symmetric\n%d %d %d\n", ROWS, ROWS, 3 * ROWS);
    for (int i = 0; i < ROWS; i++)
        for (int k = 0; k < 3; k++)
            len += (size_t)sprintf(text + len, "%d %d %d.5\n", i + 1,
                                   (i + 11 * k) % ROWS + 1, k);
    read_both_ways("sym.mtx", text, len, CM_FORMAT_MTX);

    /* a ring of ROWS vertices and chords: 4 neighbours each */
    len = (size_t)sprintf(text, "%d %d 1\n", ROWS, 2 * ROWS);
    for (int i = 0; i < ROWS; i++) {
        int nb[4] = { (i + 1) % ROWS, (i + ROWS - 1) % ROWS,
                      (i + ROWS / 2) % ROWS, (i + ROWS / 2 + 1) % ROWS };
        if (i >= ROWS / 2)
            nb[3] = (i + ROWS / 2 - 1) % ROWS;
        for (int k = 0; k < 4; k++)
            len += (size_t)sprintf(text + len, "%s%d %d.25", k ? " " : "",
                                   nb[k] + 1, (i + nb[k]) % 9);
        text[len++] = '\n';
    }
    read_both_ways("ring.graph", text, len, CM_FORMAT_METIS);
    free(text);
}

/* Repeated entries are summed in the order they were given, whatever the
 * order of the rows, in short rows and in long ones (sorted by radix). */
static void test_duplicates_order(void **state)
{
    (void)state;
    cm_matrix_t *m = read_ok(cm_test_write_file(tmpdir, "up.txt",
        "3 0 1\n0 1 0.1\n3 0 2\n0 1 0.2\n0 0 5\n0 1 0.3\n"), CM_FORMAT_TRIPLETS);
    double up = (0.1 + 0.2) + 0.3, down = (0.3 + 0.2) + 0.1;
    assert_true(up != down);   /* else this test proves nothing */
    cm_test_check_row(m, 0, 2, (int[]){ 0, 1 }, (double[]){ 5, up }, NULL);
    cm_test_check_row(m, 3, 1, (int[]){ 0 }, (double[]){ 3 }, NULL);
    cm_matrix_free(m);
    m = read_ok(cm_test_write_file(tmpdir, "down.txt",
        "0 1 0.3\n0 1 0.2\n0 1 0.1\n"), CM_FORMAT_TRIPLETS);
    cm_test_check_row(m, 0, 1, (int[]){ 1 }, (double[]){ down }, NULL);
    cm_matrix_free(m);

    /* 600 entries in row 2 of 5000 ranks, 200 columns given three times,
     * the rows interleaved with row 1 (out of order) */
    enum { NC = 200, N = 5000 };
    static double want_b[N], want_m[N];
    char *text = malloc(64 * 3 * NC * 2 + 64);
    size_t len = (size_t)sprintf(text, "# ranks %d\n", N);
    cm_builder_t *b = cm_builder_new(N, NULL);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < NC; k++) {
            int c = (k * 997 + 4000) % N;
            double v = 0.1 * (r * NC + k + 1), g = 0.7 * (r + 1);
            want_b[c] += v;
            want_m[c] += g;
            len += (size_t)sprintf(text + len, "2 %d %.17g %.17g\n1 %d 1 1\n",
                                   c, v, g, k);
            assert_int_equal(cm_builder_add(b, 2, c, v, g, NULL), 0);
            assert_int_equal(cm_builder_add(b, 1, k, 1, 1, NULL), 0);
        }
    m = read_ok(cm_test_write_file(tmpdir, "long-row.txt", text),
                CM_FORMAT_TRIPLETS);
    free(text);
    const int *cols;
    const double *bytes, *msgs;
    int n;
    cm_matrix_row(m, 2, &cols, &bytes, &msgs, &n);
    assert_int_equal(n, NC);
    for (int k = 0; k < n; k++) {
        if (k > 0)
            assert_true(cols[k - 1] < cols[k]);
        assert_true(bytes[k] == want_b[cols[k]]);
        assert_true(msgs[k] == want_m[cols[k]]);
    }
    cm_matrix_row(m, 1, NULL, NULL, NULL, &n);
    assert_int_equal(n, NC);

    /* the builder gives the same, and twice (it is left unchanged) */
    cm_builder_set_has_msgs(b, 1);
    for (int pass = 0; pass < 2; pass++) {
        cm_matrix_t *mb = cm_builder_finish(b, NULL);
        assert_non_null(mb);
        assert_int_equal(cm_matrix_nnz(mb), cm_matrix_nnz(m));
        for (int i = 0; i < N; i++) {
            const int *c2;
            const double *b2, *g2;
            int n2;
            cm_matrix_row(m, i, &cols, &bytes, &msgs, &n);
            cm_matrix_row(mb, i, &c2, &b2, &g2, &n2);
            assert_int_equal(n, n2);
            assert_memory_equal(cols, c2, (size_t)n * sizeof *cols);
            assert_memory_equal(bytes, b2, (size_t)n * sizeof *bytes);
            assert_memory_equal(msgs, g2, (size_t)n * sizeof *msgs);
        }
        cm_matrix_free(mb);
    }
    cm_builder_free(b);
    cm_matrix_free(m);
}

/* ---- dispatch, formats, writer ----------------------------------------- */

static void test_format_parse(void **state)
{
    (void)state;
    cm_format_t f = CM_FORMAT_AUTO;
    assert_int_equal(cm_format_parse("mtx", &f), 0);
    assert_int_equal(f, CM_FORMAT_MTX);
    assert_int_equal(cm_format_parse("metis", &f), 0);
    assert_int_equal(f, CM_FORMAT_METIS);
    assert_int_equal(cm_format_parse("triplets", &f), 0);
    assert_int_equal(f, CM_FORMAT_TRIPLETS);
    assert_int_equal(cm_format_parse("auto", &f), 0);
    assert_int_equal(f, CM_FORMAT_AUTO);
    assert_int_equal(cm_format_parse("MTX", &f), -1);
    assert_int_equal(cm_format_parse("", &f), -1);
    assert_int_equal(cm_format_parse(NULL, &f), -1);
}

static void test_read_stream_and_missing(void **state)
{
    (void)state;
    char text[] = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 1 9\n";
    FILE *f = fmemopen(text, strlen(text), "r");
    cm_error_t err;
    cm_matrix_t *m = cm_matrix_read_stream(f, "mem.graph", CM_FORMAT_AUTO, &err);
    fclose(f);
    assert_non_null(m);   /* the banner beats the .graph name */
    cm_test_check_row(m, 1, 1, (int[]){ 0 }, (double[]){ 9 }, NULL);
    cm_matrix_free(m);

    char bad[] = "0 1 x\n";
    f = fmemopen(bad, strlen(bad), "r");
    assert_null(cm_matrix_read_stream(f, "<stdin>", CM_FORMAT_AUTO, &err));
    fclose(f);
    assert_non_null(strstr(err.msg, "<stdin>:1: expected a byte count"));

    char path[4200];
    snprintf(path, sizeof path, "%s/does-not-exist.mtx", tmpdir);
    assert_null(cm_matrix_read(path, CM_FORMAT_AUTO, &err));
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "cannot open"));
}

/* Values survive write + read exactly, including non-integral ones. */
static void test_write_roundtrip(void **state)
{
    (void)state;
    static const double vals[] = { 0.1, 1e20, 3, 123456789012345.0,
                                   1.0 / 3.0, 5e-300, 4503599627370497.0 };
    enum { NV = sizeof vals / sizeof vals[0] };
    cm_builder_t *b = cm_builder_new(NV + 1, NULL);
    for (int k = 0; k < NV; k++)
        assert_int_equal(cm_builder_add(b, k, k + 1, vals[k], 2, NULL), 0);
    assert_int_equal(cm_builder_add(b, NV, NV, 7, 0, NULL), 0);
    cm_matrix_t *m = cm_builder_finish(b, NULL);
    cm_builder_free(b);

    char path[4200];
    snprintf(path, sizeof path, "%s/out.mtx", tmpdir);
    FILE *f = fopen(path, "w");
    cm_error_t err;
    assert_int_equal(cm_matrix_write_mtx(m, f, &err), 0);
    fclose(f);
    cm_matrix_t *r = read_ok(path, CM_FORMAT_AUTO);
    assert_int_equal(cm_matrix_n(r), NV + 1);
    assert_int_equal(cm_matrix_nnz(r), NV + 1);
    assert_int_equal(cm_matrix_has_msgs(r), 0);
    for (int k = 0; k < NV; k++)
        cm_test_check_row(r, k, 1, (int[]){ k + 1 }, (double[]){ vals[k] }, NULL);
    cm_test_check_row(r, NV, 1, (int[]){ NV }, (double[]){ 7 }, NULL);
    cm_matrix_free(r);
    cm_matrix_free(m);

    /* the real file round-trips too */
    m = read_ok(cm_test_data_path("matrices/lammps.peptide.64.mtx"), CM_FORMAT_MTX);
    f = fopen(path, "w");
    assert_int_equal(cm_matrix_write_mtx(m, f, &err), 0);
    fclose(f);
    r = read_ok(path, CM_FORMAT_MTX);
    assert_int_equal(cm_matrix_nnz(r), cm_matrix_nnz(m));
    for (int i = 0; i < cm_matrix_n(m); i++) {
        const int *c1, *c2;
        const double *b1, *b2;
        int l1, l2;
        cm_matrix_row(m, i, &c1, &b1, NULL, &l1);
        cm_matrix_row(r, i, &c2, &b2, NULL, &l2);
        assert_int_equal(l1, l2);
        assert_memory_equal(c1, c2, (size_t)l1 * sizeof *c1);
        assert_memory_equal(b1, b2, (size_t)l1 * sizeof *b1);
    }
    cm_matrix_free(r);
    cm_matrix_free(m);
}

/* Repeated entries are summed; a sum that overflows to infinity is refused
 * (found by fuzz_mtx, fuzz_triplets), not kept as an infinite volume that
 * would turn every cost into inf or NaN. */
static void test_repeated_entries_overflow(void **state)
{
    (void)state;
    static const struct {
        const char *name, *text;
        cm_format_t fmt;
    } cases[] = {
        { "sum.mtx", "%%MatrixMarket matrix coordinate real general\n"
                     "2 2 2\n1 2 1e308\n1 2 1e308\n", CM_FORMAT_MTX },
        { "sum.graph", "3 2 1\n2 1e308 2 1e308\n1 1e308 1 1e308\n\n",
          CM_FORMAT_METIS },
        { "bytes.triplets", "0 1 1e308 1\n0 1 1e308 1\n", CM_FORMAT_TRIPLETS },
        { "msgs.triplets", "0 1 1 1e308\n0 1 1 1e308\n", CM_FORMAT_TRIPLETS },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *path = cm_test_write_file(tmpdir, cases[k].name, cases[k].text);
        cm_error_t err = { "" };
        cm_matrix_t *m = cm_matrix_read(path, cases[k].fmt, &err);
        assert_null(m);
        if (!strstr(err.msg, path) ||
            !strstr(err.msg, "repeated entries from rank 0 to rank 1") ||
            !strstr(err.msg, "to sum to a finite number"))
            fail_msg("%s: error '%s'", cases[k].name, err.msg);
    }
    /* Large finite sums stay. */
    const char *path = cm_test_write_file(tmpdir, "big.triplets",
                                          "0 1 1e308\n0 1 7e307\n");
    cm_matrix_t *m = read_ok(path, CM_FORMAT_TRIPLETS);
    const double *bytes;
    int len;
    cm_matrix_row(m, 0, NULL, &bytes, NULL, &len);
    assert_int_equal(len, 1);
    assert_true(bytes[0] == 1e308 + 7e307);
    cm_matrix_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mtx_cg),
        cmocka_unit_test(test_mtx_symmetric),
        cmocka_unit_test(test_mtx_pattern_and_duplicates),
        cmocka_unit_test(test_mtx_errors),
        cmocka_unit_test(test_metis_weighted),
        cmocka_unit_test(test_metis_unweighted),
        cmocka_unit_test(test_metis_vertex_weights),
        cmocka_unit_test(test_metis_errors),
        cmocka_unit_test(test_triplets_msgs),
        cmocka_unit_test(test_triplets_plain),
        cmocka_unit_test(test_triplets_errors),
        cmocka_unit_test(test_long_line_and_nul),
        cmocka_unit_test(test_lines_blocks),
        cmocka_unit_test(test_integer_limits),
        cmocka_unit_test(test_decimal_values),
        cmocka_unit_test(test_digit_runs),
        cmocka_unit_test(test_reserve),
        cmocka_unit_test(test_duplicates_order),
        cmocka_unit_test(test_format_parse),
        cmocka_unit_test(test_read_stream_and_missing),
        cmocka_unit_test(test_write_roundtrip),
        cmocka_unit_test(test_repeated_entries_overflow),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
