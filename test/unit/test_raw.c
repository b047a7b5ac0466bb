/* test_raw.c -- the raw profile reader (src/profiles/raw.c). */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "clustermap.h"
#include "raw.h"
#include "testdata.h"

#define MAXB (1u << 20)

static const char good[] =
    "clustermap-raw 1\n"
    "ranks 4\n"
    "job 1234 0\n"
    "program halo2d\n"
    "p2p 0 1 800 10\n"
    "p2p 1 0 800 10\n"
    "p2p 3 2 0 1\n"
    "p2p 0 3 16 2\n"
    "coll 0 1 0 2\n"
    "coll 2 3 9007199254740992 1\n"
    "end 6\n";

static void check_entry(const cm_matrix_t *m, int i, int k, int col,
                        double bytes, double msgs)
{
    const int *c;
    const double *b, *g;
    int n;
    cm_matrix_row(m, i, &c, &b, &g, &n);
    assert_true(k < n);
    assert_int_equal(c[k], col);
    assert_true(b[k] == bytes);
    assert_true(g[k] == msgs);
}

static int row_len(const cm_matrix_t *m, int i)
{
    const int *c;
    const double *b, *g;
    int n;
    cm_matrix_row(m, i, &c, &b, &g, &n);
    return n;
}

static void test_good(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    const char *path = cm_test_write_file(dir, "good.txt", good);
    cm_raw_profile_t p;
    cm_error_t err = { "" };
    assert_int_equal(cm_raw_read(path, MAXB, &p, &err), 0);
    assert_int_equal(p.nranks, 4);
    assert_string_equal(p.jobid, "1234");
    assert_string_equal(p.stepid, "0");
    assert_string_equal(p.program, "halo2d");
    assert_int_equal(cm_matrix_n(p.p2p), 4);
    assert_int_equal(cm_matrix_n(p.coll), 4);
    assert_true(cm_matrix_has_msgs(p.p2p));
    assert_true(cm_matrix_has_msgs(p.coll));
    assert_int_equal(cm_matrix_nnz(p.p2p), 4);
    assert_int_equal(row_len(p.p2p, 0), 2);
    check_entry(p.p2p, 0, 0, 1, 800, 10);
    check_entry(p.p2p, 0, 1, 3, 16, 2);
    check_entry(p.p2p, 1, 0, 0, 800, 10);
    assert_int_equal(row_len(p.p2p, 2), 0);
    check_entry(p.p2p, 3, 0, 2, 0, 1);
    assert_int_equal(cm_matrix_nnz(p.coll), 2);
    check_entry(p.coll, 0, 0, 1, 0, 2);
    check_entry(p.coll, 2, 0, 3, 9007199254740992.0, 1);
    cm_raw_release(&p);
    assert_null(p.p2p);
    cm_raw_release(NULL);

    /* the same through a descriptor, left open and usable */
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(cm_raw_read_fd(fd, "named", MAXB, &p, &err), 0);
    assert_int_equal(p.nranks, 4);
    cm_raw_release(&p);
    assert_int_equal(close(fd), 0);
    cm_test_rmtree(dir);
}

static void test_empty_matrices(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    const char *path = cm_test_write_file(dir, "e.txt",
        "clustermap-raw 1\nranks 1\njob nojob nostep\nprogram a.out\nend 0\n");
    cm_raw_profile_t p;
    cm_error_t err = { "" };
    assert_int_equal(cm_raw_read(path, MAXB, &p, &err), 0);
    assert_int_equal(p.nranks, 1);
    assert_int_equal(cm_matrix_nnz(p.p2p), 0);
    assert_int_equal(cm_matrix_nnz(p.coll), 0);
    assert_string_equal(p.program, "a.out");
    cm_raw_release(&p);
    cm_test_rmtree(dir);
}

/* Each malformed file and the exact error it must produce ("F" stands for
 * the file's path).  P2: the header of rank 1's part of a 4-rank step. */
#define P2 "clustermap-raw 2\nranks 4\nrank 1\njob 1 0\nprogram a\n"
#define ELAPSED "elapsed seconds in 0..1e9 (at most 9 decimals)"
#define MPISEC "MPI seconds in 0..1e9 (at most 9 decimals)"
static const struct bad {
    const char *text, *msg;
} bad[] = {
    { "", "F:1: expected \"clustermap-raw 1\" or \"clustermap-raw 2\", got "
      "end of file" },
    { "clustermap-raw 3\n", "F:1: expected format version 1 or 2, got \"3\"" },
    { "clustermap-rw 1\n", "F:1: expected \"clustermap-raw 1\" or "
      "\"clustermap-raw 2\", got \"clustermap-rw\"" },
    { "clustermap-raw 2\nranks 4\njob 1 0\n", "F:3: expected \"rank R\", "
      "got \"job\"" },
    { "clustermap-raw 2\nranks 4\nrank 4\n", "F:3: expected a rank below the "
      "rank count, got \"4\"" },
    { "clustermap-raw 2\nranks 4\nrank 1\njob 1 0\nprogram a\n"
      "p2p 2 1 8 1\nend 1\n", "F:6: expected rows of the part's own rank "
      "only, got \"2\"" },
    { "clustermap-raw 1", "F:1: expected a newline at the end of the line, "
      "got end of file" },
    { "clustermap-raw  1\n", "F:1: expected fields separated by single "
      "spaces, got an empty field" },
    { "clustermap-raw 1\nranks 0\n", "F:2: expected a rank count in "
      "1..16777216, got \"0\"" },
    { "clustermap-raw 1\nranks 16777217\n", "F:2: expected a rank count in "
      "1..16777216, got \"16777217\"" },
    { "clustermap-raw 1\nranks -3\n", "F:2: expected a rank count in "
      "1..16777216, got \"-3\"" },
    { "clustermap-raw 1\nranks 04\n", "F:2: expected a rank count in "
      "1..16777216, got \"04\"" },
    { "clustermap-raw 1\nrank 4\n", "F:2: expected \"ranks N\", got "
      "\"rank\"" },
    { "clustermap-raw 1\nranks 4\njob 12\n", "F:3: expected \"job JOBID "
      "STEPID\", got \"job\"" },
    { "clustermap-raw 1\nranks 4\njob 1/2 0\n", "F:3: expected a job id of "
      "1..63 characters [A-Za-z0-9._-], got \"1/2\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram a b\n", "F:4: expected "
      "\"program NAME\", got \"program\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\np2p 0 4 1 1\nend 1\n",
      "F:5: expected a destination rank below the rank count, got \"4\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\ncoll 9 0 1 1\nend 1\n",
      "F:5: expected a source rank below the rank count, got \"9\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\np2p 0 1 -1 1\nend 1\n",
      "F:5: expected a byte count in 0..2^53, got \"-1\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\np2p 0 1 1 1.5\nend 1\n",
      "F:5: expected a message count in 0..2^53, got \"1.5\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\n"
      "p2p 0 1 9007199254740993 1\nend 1\n",
      "F:5: expected a byte count in 0..2^53, got \"9007199254740993\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\n"
      "p2p 0 1 99999999999999999999999 1\nend 1\n",
      "F:5: expected a byte count in 0..2^53, got "
      "\"99999999999999999999999\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\np2p 0 1 1\nend 1\n",
      "F:5: expected \"p2p|coll SRC DST BYTES MSGS\", got \"p2p\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\nmpi 0 1 1 1\nend 1\n",
      "F:5: expected p2p, coll or end, got \"mpi\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\n\nend 0\n",
      "F:5: expected fields separated by single spaces, got an empty "
      "field" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\np2p 0 1 1 1\n",
      "F:6: expected a p2p, coll or end line, got end of file" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\np2p 0 1 1 1\nend 2\n",
      "F:6: expected end count 1, got \"2\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\nend\n",
      "F:5: expected \"end N\", got \"end\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\nend 0\np2p 0 1 1 1\n",
      "F:6: expected end of file after the end line, got \"p2p 0 1 1 1\"" },
    /* "traffic off" and "time": format 2 only, right after "program" */
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\ntime 1.5 0.5\nend 0\n",
      "F:5: expected p2p, coll or end, got \"time\"" },
    { "clustermap-raw 1\nranks 4\njob 1 0\nprogram x\ntraffic off\nend 0\n",
      "F:5: expected p2p, coll or end, got \"traffic\"" },
    { P2 "traffic on\nend 0\n",
      "F:6: expected \"traffic off\", got \"on\"" },
    { P2 "traffic\nend 0\n",
      "F:6: expected \"traffic off\", got \"traffic\"" },
    { P2 "traffic off now\nend 0\n",
      "F:6: expected \"traffic off\", got \"traffic\"" },
    { P2 "time 1.5\nend 0\n",
      "F:6: expected \"time ELAPSED MPI\", got \"time\"" },
    { P2 "traffic off\ntime 1 2 3\nend 0\n",
      "F:7: expected \"time ELAPSED MPI\", got \"time\"" },
    { P2 "time -1 0\nend 0\n", "F:6: expected " ELAPSED ", got \"-1\"" },
    { P2 "time 01.5 0\nend 0\n", "F:6: expected " ELAPSED ", got \"01.5\"" },
    { P2 "time 1. 0\nend 0\n", "F:6: expected " ELAPSED ", got \"1.\"" },
    { P2 "time .5 0\nend 0\n", "F:6: expected " ELAPSED ", got \".5\"" },
    { P2 "time 1e3 0\nend 0\n", "F:6: expected " ELAPSED ", got \"1e3\"" },
    { P2 "time 1000000000.5 0\nend 0\n",
      "F:6: expected " ELAPSED ", got \"1000000000.5\"" },
    { P2 "time 99999999999999999999 0\nend 0\n",
      "F:6: expected " ELAPSED ", got \"99999999999999999999\"" },
    { P2 "time 1.5 nan\nend 0\n", "F:6: expected " MPISEC ", got \"nan\"" },
    { P2 "time 1.5 0.1234567891\nend 0\n",
      "F:6: expected " MPISEC ", got \"0.1234567891\"" },
    { P2 "time 1.5 +1\nend 0\n", "F:6: expected " MPISEC ", got \"+1\"" },
    { P2 "time 1 0\ntraffic off\nend 0\n",
      "F:7: expected p2p, coll or end, got \"traffic\"" },
    { P2 "time 1 0\ntime 1 0\nend 0\n",
      "F:7: expected p2p, coll or end, got \"time\"" },
    { P2 "traffic off\ntime 1 0\np2p 1 0 8 1\nend 1\n",
      "F:8: expected no p2p or coll line after \"traffic off\", got \"p2p\"" },
    { P2 "traffic off\ncoll 1 0 8 1\nend 1\n",
      "F:7: expected no p2p or coll line after \"traffic off\", got "
      "\"coll\"" },
};

static void test_malformed(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *path = cm_test_write_file(dir, "bad.txt", bad[i].text);
        char want[600];
        const char *f = strchr(bad[i].msg, 'F');
        snprintf(want, sizeof want, "%s%s", path, f + 1);
        cm_raw_profile_t p;
        cm_error_t err = { "" };
        assert_int_equal(cm_raw_read(path, MAXB, &p, &err), -1);
        if (strcmp(err.msg, want) != 0)
            fail_msg("case %zu:\n  got  %s\n  want %s", i, err.msg, want);
        assert_null(p.p2p);
        assert_null(p.coll);
        assert_int_equal(p.nranks, 0);
    }
    cm_test_rmtree(dir);
}

static void test_nul_byte(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    char path[4096];
    snprintf(path, sizeof path, "%s/nul.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite("clustermap-raw 1\nran\0ks 4\n", 1, 26, f);
    fclose(f);
    cm_raw_profile_t p;
    cm_error_t err = { "" };
    assert_int_equal(cm_raw_read(path, MAXB, &p, &err), -1);
    assert_non_null(strstr(err.msg, ":2: expected text, got a NUL byte"));
    cm_test_rmtree(dir);
}

static void test_symlink_refused(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    const char *path = cm_test_write_file(dir, "good.txt", good);
    char link[4096];
    snprintf(link, sizeof link, "%s/link.txt", dir);
    assert_int_equal(symlink(path, link), 0);
    cm_raw_profile_t p;
    cm_error_t err = { "" };
    assert_int_equal(cm_raw_read(link, MAXB, &p, &err), -1);
    char want[4200];
    snprintf(want, sizeof want, "%s: expected a regular file, got a "
             "symbolic link", link);
    assert_string_equal(err.msg, want);
    unlink(link);
    cm_test_rmtree(dir);
}

/* Write part @p rank of a @p n-rank step with one p2p row to rank+1. */
static void write_part(const char *dir, int rank, int n, const char *job)
{
    char path[4200], text[512];
    snprintf(path, sizeof path, "%s/part.%d.txt", dir, rank);
    snprintf(text, sizeof text, "clustermap-raw 2\nranks %d\nrank %d\njob %s 0\n"
             "program a\np2p %d %d %d 1\ncoll %d %d 8 1\nend 2\n", n, rank, job,
             rank, (rank + 1) % n, 100 * (rank + 1), rank, (rank + 1) % n);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A directory of parts is assembled: every rank exactly once, one step. */
static void test_parts_directory(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    cm_raw_profile_t p;
    cm_error_t err = { "" };
    assert_int_equal(cm_raw_read(dir, MAXB, &p, &err), -1);
    assert_non_null(strstr(err.msg, "expected part.<rank>.txt files, found none"));
    for (int r = 0; r < 3; r++)
        write_part(dir, r, 4, "7");
    assert_int_equal(cm_raw_read(dir, MAXB, &p, &err), -1);
    assert_non_null(strstr(err.msg, "1 of 4 ranks have no part; refusing an "
                           "incomplete profile"));
    write_part(dir, 3, 4, "7");
    assert_int_equal(cm_raw_read(dir, MAXB, &p, &err), 0);
    assert_int_equal(p.nranks, 4);
    assert_int_equal(p.rank, -1);
    assert_string_equal(p.jobid, "7");
    for (int r = 0; r < 4; r++)
        check_entry(p.p2p, r, 0, (r + 1) % 4, 100.0 * (r + 1), 1);
    assert_int_equal(cm_matrix_nnz(p.coll), 4);
    cm_raw_release(&p);
    write_part(dir, 3, 4, "8");   /* another step's part */
    assert_int_equal(cm_raw_read(dir, MAXB, &p, &err), -1);
    assert_non_null(strstr(err.msg, "part of job 8.0, expected 7.0"));
    write_part(dir, 3, 5, "7");   /* another rank count */
    assert_int_equal(cm_raw_read(dir, MAXB, &p, &err), -1);
    assert_non_null(strstr(err.msg, "expected a part of a"));
    cm_test_rmtree(dir);
}

/* A run with ranks missing: refused with them named, unless CM_RAW_PARTIAL;
 * one rank's part says how many it lacks. */
static void test_partial(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    cm_raw_profile_t p;
    cm_error_t err = { "" };
    char path[4200];
    write_part(dir, 2, 8, "7");
    write_part(dir, 5, 8, "7");
    assert_int_equal(cm_raw_read(dir, MAXB, &p, &err), -1);
    assert_non_null(strstr(err.msg, "6 of 8 ranks have no part; refusing an "
                           "incomplete profile (missing: 0-1,3-4,6-7)"));
    assert_int_equal(cm_raw_read_flags(dir, MAXB, 0, &p, &err), -1);
    assert_int_equal(cm_raw_read_flags(dir, MAXB, CM_RAW_PARTIAL, &p, &err), 0);
    assert_int_equal(p.rank, -1);
    assert_int_equal(p.nranks, 8);
    assert_int_equal(p.nmissing, 6);
    assert_int_equal(cm_matrix_nnz(p.p2p), 2);
    check_entry(p.p2p, 2, 0, 3, 300, 1);
    check_entry(p.p2p, 5, 0, 6, 600, 1);
    assert_int_equal(row_len(p.p2p, 0), 0);
    cm_raw_release(&p);
    snprintf(path, sizeof path, "%s/part.2.txt", dir);
    assert_int_equal(cm_raw_read(path, MAXB, &p, &err), 0);
    assert_int_equal(p.rank, 2);
    assert_int_equal(p.nmissing, 7);
    cm_raw_release(&p);
    write_part(dir, 0, 1, "7");   /* a run of one rank lacks nothing */
    snprintf(path, sizeof path, "%s/part.0.txt", dir);
    assert_int_equal(cm_raw_read(path, MAXB, &p, &err), 0);
    assert_int_equal(p.nmissing, 0);
    cm_raw_release(&p);
    cm_test_rmtree(dir);
}

/* The missing ranks as ranges, the ones that do not fit summed up. */
static void test_ranks_text(void **state)
{
    (void)state;
    static const struct {
        const char *seen;   /* '1' present; NULL: every rank but `only` */
        int only, n;
        size_t size;
        const char *want;
    } rows[] = {
        { NULL, 2, 8, 64, "0-1,3-7" },
        { NULL, 0, 8, 64, "1-7" },
        { NULL, 7, 8, 64, "0-6" },
        { NULL, 1, 3, 64, "0,2" },
        { NULL, 0, 1, 64, "" },
        { "10101", -1, 5, 64, "1,3" },
        { "11111", -1, 5, 64, "" },
        { "00000", -1, 5, 64, "0-4" },
        { "0101010101010101", -1, 16, 64, "0,2,4,6,8,10,12,14" },
        { "0101010101010101", -1, 16, 60, "0,2,4,6,8,... and 3 more ranks" },
        { "0101010101010101", -1, 16, 40, "8 missing ranks" },
        { "0101010101010101", -1, 16, 10, "" },
        { "0101010101010101", -1, 16, 1, "" },
    };
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        char seen[32], buf[64];
        for (int i = 0; rows[k].seen && i < rows[k].n; i++)
            seen[i] = rows[k].seen[i] == '1';
        memset(buf, 'x', sizeof buf);
        cm_raw_ranks_text(rows[k].seen ? seen : NULL, rows[k].only, rows[k].n, buf,
                          rows[k].size);
        assert_string_equal(buf, rows[k].want);
    }
    cm_raw_ranks_text(NULL, 0, 4, NULL, 8);   /* no buffer: nothing written */
}

/* A rank's traffic to itself is read (and counted by "end") but not kept. */
static void test_self_traffic_dropped(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    const char *path = cm_test_write_file(dir, "self.txt",
                                          "clustermap-raw 2\nranks 3\nrank 1\n"
                                          "job 1 0\nprogram a\np2p 1 1 64 2\n"
                                          "p2p 1 2 8 1\ncoll 1 1 16 1\nend 3\n");
    cm_raw_profile_t p;
    cm_error_t err = { "" };
    assert_int_equal(cm_raw_read(path, MAXB, &p, &err), 0);
    assert_int_equal(cm_matrix_nnz(p.p2p), 1);
    check_entry(p.p2p, 1, 0, 2, 8, 1);
    assert_int_equal(cm_matrix_nnz(p.coll), 0);
    cm_raw_release(&p);
    cm_test_rmtree(dir);
}

/* The assembly refuses a rank twice and a whole profile, unchanged after. */
static void test_assembly_refusals(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    cm_error_t err = { "" };
    cm_raw_profile_t p;
    assert_null(cm_raw_assembly_new(0, &err));
    cm_raw_assembly_t *a = cm_raw_assembly_new(2, &err);
    assert_non_null(a);
    write_part(dir, 0, 2, "1");
    char path[4200];
    snprintf(path, sizeof path, "%s/part.0.txt", dir);
    for (int k = 0; k < 2; k++) {
        int fd = open(path, O_RDONLY);
        int rc = cm_raw_assembly_add_fd(a, fd, "p0", MAXB, &err);
        assert_int_equal(rc, k ? -1 : 0);
        close(fd);
    }
    assert_non_null(strstr(err.msg, "rank 0 arrived twice"));
    assert_int_equal(cm_raw_assembly_missing(a), 1);
    assert_int_equal(cm_raw_assembly_finish(a, &p, &err), -1);
    assert_non_null(strstr(err.msg, "1 of 2 ranks sent no profile"));
    int fd = open(cm_test_write_file(dir, "whole.txt", good), O_RDONLY);
    assert_int_equal(cm_raw_assembly_add_fd(a, fd, "whole", MAXB, &err), -1);
    assert_non_null(strstr(err.msg, "expected a one-rank part"));
    close(fd);
    cm_raw_assembly_free(a);
    cm_raw_assembly_free(NULL);
    cm_test_rmtree(dir);
}

/* The optional lines of a part: accepted in order, and what they set. */
static void test_part_timing(void **state)
{
    (void)state;
    static const struct {
        const char *lines;      /* between "program" and "end 0" */
        int traffic, ntimed;
        double elapsed, mpi;
    } ok[] = {
        { "", 1, 0, 0, 0 },
        { "traffic off\n", 0, 0, 0, 0 },
        { "time 12.500000 3.000001\n", 1, 1, 12.5, 3.000001 },
        { "traffic off\ntime 0.25 0\n", 0, 1, 0.25, 0 },
        { "time 0 0.000000001\n", 1, 1, 0, 1e-9 },
        { "time 1000000000 1000000000.000000000\n", 1, 1, 1e9, 1e9 },
        { "time 7 8\n", 1, 1, 7, 8 },   /* MPI above elapsed: not checked */
    };
    char *dir = cm_test_mkdtemp();
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, P2 "%send 0\n", ok[i].lines);
        const char *path = cm_test_write_file(dir, "part.1.txt", text);
        cm_raw_profile_t p;
        cm_error_t err = { "" };
        if (cm_raw_read(path, MAXB, &p, &err) != 0)
            fail_msg("case %zu: %s", i, err.msg);
        assert_int_equal(p.rank, 1);
        assert_int_equal(p.traffic, ok[i].traffic);
        assert_int_equal(p.ntimed, ok[i].ntimed);
        assert_true(fabs(p.elapsed_sum - ok[i].elapsed) <
                    1e-12 * (1 + ok[i].elapsed));
        assert_true(p.elapsed_max == p.elapsed_sum);
        assert_true(fabs(p.mpi_sum - ok[i].mpi) < 1e-12 * (1 + ok[i].mpi));
        assert_true(p.mpi_max == p.mpi_sum);
        assert_int_equal(cm_matrix_n(p.p2p), 4);
        assert_int_equal(cm_matrix_nnz(p.p2p), 0);
        cm_raw_release(&p);
    }
    /* a timed part with rows; a whole (format 1) profile is untimed */
    const char *path = cm_test_write_file(dir, "part.1.txt", P2
        "time 2.5 1.25\np2p 1 2 64 1\nend 1\n");
    cm_raw_profile_t p;
    cm_error_t err = { "" };
    assert_int_equal(cm_raw_read(path, MAXB, &p, &err), 0);
    assert_int_equal(p.traffic, 1);
    assert_int_equal(p.ntimed, 1);
    assert_true(p.elapsed_max == 2.5 && p.mpi_max == 1.25);
    check_entry(p.p2p, 1, 0, 2, 64, 1);
    cm_raw_release(&p);
    assert_int_equal(p.ntimed, 0);
    path = cm_test_write_file(dir, "good.txt", good);
    assert_int_equal(cm_raw_read(path, MAXB, &p, &err), 0);
    assert_int_equal(p.traffic, 1);
    assert_int_equal(p.ntimed, 0);
    assert_true(p.elapsed_sum == 0 && p.mpi_max == 0);
    cm_raw_release(&p);
    cm_test_rmtree(dir);
}

/* Write part @p rank of a @p n-rank step: "traffic off" or one p2p row to
 * rank+1, and the line @p time ("" for none). */
static void write_timed_part(const char *dir, int rank, int n, int traffic,
                             const char *time)
{
    char name[64], text[512];
    snprintf(name, sizeof name, "part.%d.txt", rank);
    if (traffic)
        snprintf(text, sizeof text, "clustermap-raw 2\nranks %d\nrank %d\n"
                 "job 9 1\nprogram a\n%sp2p %d %d 8 1\nend 1\n", n, rank,
                 time, rank, (rank + 1) % n);
    else
        snprintf(text, sizeof text, "clustermap-raw 2\nranks %d\nrank %d\n"
                 "job 9 1\nprogram a\ntraffic off\n%send 0\n", n, rank, time);
    cm_test_write_file(dir, name, text);
}

/* Assembly: maxima and sums over the timed parts; "traffic off" parts give
 * empty matrices of the right size. */
static void test_assembly_timing(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    cm_raw_profile_t p;
    cm_error_t err = { "" };
    write_timed_part(dir, 0, 3, 1, "time 10.5 1.5\n");
    write_timed_part(dir, 1, 3, 1, "time 12.25 4\n");
    write_timed_part(dir, 2, 3, 1, "time 11 2.75\n");
    assert_int_equal(cm_raw_read(dir, MAXB, &p, &err), 0);
    assert_int_equal(p.rank, -1);
    assert_int_equal(p.traffic, 1);
    assert_int_equal(p.ntimed, 3);
    assert_true(p.elapsed_max == 12.25);
    assert_true(p.elapsed_sum == 33.75);
    assert_true(p.mpi_max == 4);
    assert_true(p.mpi_sum == 8.25);
    assert_int_equal(cm_matrix_nnz(p.p2p), 3);
    cm_raw_release(&p);

    /* an untimed part is left out of the timing, not refused */
    write_timed_part(dir, 1, 3, 1, "");
    assert_int_equal(cm_raw_read(dir, MAXB, &p, &err), 0);
    assert_int_equal(p.ntimed, 2);
    assert_true(p.elapsed_max == 11 && p.elapsed_sum == 21.5);
    assert_true(p.mpi_max == 2.75 && p.mpi_sum == 4.25);
    cm_raw_release(&p);

    /* time only: no rows, empty matrices of the step's size */
    for (int r = 0; r < 3; r++)
        write_timed_part(dir, r, 3, 0, r == 1 ? "time 3 2\n" : "time 1 0.5\n");
    assert_int_equal(cm_raw_read(dir, MAXB, &p, &err), 0);
    assert_int_equal(p.traffic, 0);
    assert_int_equal(p.ntimed, 3);
    assert_true(p.elapsed_max == 3 && p.elapsed_sum == 5);
    assert_true(p.mpi_max == 2 && p.mpi_sum == 3);
    assert_int_equal(cm_matrix_n(p.p2p), 3);
    assert_int_equal(cm_matrix_n(p.coll), 3);
    assert_int_equal(cm_matrix_nnz(p.p2p), 0);
    assert_int_equal(cm_matrix_nnz(p.coll), 0);
    cm_raw_release(&p);
    cm_test_rmtree(dir);
}

/* Parts that disagree on "traffic off" are refused when added, whichever
 * comes first, and the assembly is unchanged. */
static void test_assembly_mixed_traffic(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    cm_error_t err = { "" };
    char path[4200];
    for (int off_first = 0; off_first < 2; off_first++) {
        cm_raw_assembly_t *a = cm_raw_assembly_new(2, &err);
        assert_non_null(a);
        write_timed_part(dir, 0, 2, !off_first, "time 1 0\n");
        write_timed_part(dir, 1, 2, off_first, "time 1 0\n");
        for (int r = 0; r < 2; r++) {
            snprintf(path, sizeof path, "%s/part.%d.txt", dir, r);
            int fd = open(path, O_RDONLY);
            assert_true(fd >= 0);
            assert_int_equal(cm_raw_assembly_add_fd(a, fd, "p", MAXB, &err),
                             r ? -1 : 0);
            close(fd);
        }
        assert_string_equal(err.msg, "p: rank 1: \"traffic off\" in some "
                            "parts but not in others");
        assert_int_equal(cm_raw_assembly_missing(a), 1);
        cm_raw_assembly_free(a);
    }
    /* the same through a directory */
    cm_raw_profile_t p;
    assert_int_equal(cm_raw_read(dir, MAXB, &p, &err), -1);
    assert_non_null(strstr(err.msg, "\"traffic off\" in some parts but not "
                           "in others"));
    assert_null(p.p2p);
    cm_test_rmtree(dir);
}

static void test_not_regular(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    cm_raw_profile_t p;
    cm_error_t err = { "" };
    char fifo[4096];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(cm_raw_read(fifo, MAXB, &p, &err), -1);
    assert_non_null(strstr(err.msg, "expected a regular file"));
    unlink(fifo);
    assert_int_equal(cm_raw_read("/nonexistent/raw.txt", MAXB, &p, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/raw.txt: cannot open"));
    cm_test_rmtree(dir);
}

static void test_oversized_refused(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    const char *path = cm_test_write_file(dir, "good.txt", good);
    cm_raw_profile_t p;
    cm_error_t err = { "" };
    size_t size = sizeof good - 1;
    assert_int_equal(cm_raw_read(path, size, &p, &err), 0);   /* just fits */
    cm_raw_release(&p);
    assert_int_equal(cm_raw_read(path, size - 1, &p, &err), -1);
    char want[4200];
    snprintf(want, sizeof want, "%s: expected at most %zu bytes, got %zu",
             path, size - 1, size);
    assert_string_equal(err.msg, want);
    assert_null(p.p2p);
    cm_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_empty_matrices),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_symlink_refused),
        cmocka_unit_test(test_not_regular),
        cmocka_unit_test(test_parts_directory),
        cmocka_unit_test(test_assembly_refusals),
        cmocka_unit_test(test_partial),
        cmocka_unit_test(test_ranks_text),
        cmocka_unit_test(test_self_traffic_dropped),
        cmocka_unit_test(test_part_timing),
        cmocka_unit_test(test_assembly_timing),
        cmocka_unit_test(test_assembly_mixed_traffic),
        cmocka_unit_test(test_oversized_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
