/* test_trace.c -- the tnbc overlay's touch-order traces
 * (src/trace/trace.h): the table (sites found and added,
 * the priority order from the summed places, ties by rank), the parser on
 * good files and on every kind of bad line (the right line number, the
 * table left empty), the "time" lines, the rule that steps a site aside,
 * every rank's times summed (the store's, and the ranks' agreement at
 * MPI_Init), and a write / load round trip. */
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

#include "trace.h"

static int parse(trace_t *t, const char *text, char *err, size_t n)
{
    memset(t, 0, sizeof *t);
    err[0] = '\0';
    return trace_parse(t, text, strlen(text), "tr.0", err, n);
}

static void test_table(void **state)
{
    (void)state;
    trace_t t = { 0 };
    trace_site_t *s = trace_add(&t, "a.out+0x10", TRACE_ALLTOALL, 4, 1);
    assert_non_null(s);
    /* rank order before anything is recorded, the rank itself left out */
    assert_int_equal(s->order[0], 0);
    assert_int_equal(s->order[1], 2);
    assert_int_equal(s->order[2], 3);
    assert_ptr_equal(trace_add(&t, "a.out+0x10", TRACE_ALLTOALL, 4, 1), s);
    assert_ptr_equal(trace_find(&t, "a.out+0x10", TRACE_ALLTOALL, 4, 1), s);
    /* another collective, size, rank or key is another site */
    assert_null(trace_find(&t, "a.out+0x10", TRACE_ALLTOALLV, 4, 1));
    assert_null(trace_find(&t, "a.out+0x10", TRACE_ALLTOALL, 5, 1));
    assert_null(trace_find(&t, "a.out+0x10", TRACE_ALLTOALL, 4, 2));
    assert_null(trace_find(&t, "a.out+0x11", TRACE_ALLTOALL, 4, 1));
    /* out of range: refused */
    assert_null(trace_add(&t, "k", TRACE_NCOLL, 4, 0));
    assert_null(trace_add(&t, "k", TRACE_ALLTOALL, 1, 0));
    assert_null(trace_add(&t, "k", TRACE_ALLTOALL, 4, 4));
    char big[TRACE_KEYMAX + 1];
    memset(big, 'k', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_null(trace_add(&t, big, TRACE_ALLTOALL, 4, 0));
    /* two calls: 3 touched first then 0 (2 never), then 0 then 3 */
    s->sum[3] += 0, s->sum[0] += 1, s->sum[2] += 2;
    s->sum[0] += 0, s->sum[3] += 1, s->sum[2] += 2;
    s->calls = 2;
    trace_order(s);
    assert_int_equal(s->order[0], 0);   /* a tie with 3: by rank */
    assert_int_equal(s->order[1], 3);
    assert_int_equal(s->order[2], 2);
    s->sum[3] = 0;
    trace_order(s);
    assert_int_equal(s->order[0], 3);
    assert_int_equal(s->order[1], 0);
    for (int i = 0; i < 40; i++) {   /* growth of the table */
        char key[32];
        snprintf(key, sizeof key, "m+0x%x", i);
        assert_non_null(trace_add(&t, key, TRACE_ALLGATHER, 2, 0));
    }
    assert_int_equal(t.nsite, 41);
    trace_free(&t);
    assert_int_equal(t.nsite, 0);
    assert_null(t.site);
}

static void test_parse_good(void **state)
{
    (void)state;
    trace_t t;
    char err[256];
    const char *text =
        "# a comment before the header\n"
        "\n"
        TRACE_MAGIC "  \r\n"
        "# site KEY COLLECTIVE N ME CALLS PEER...\n"
        "site mini_transpose+0x1a2b alltoall 4 2 3 3 1 0\r\n"
        "   \t\n"
        "site\tlibx.so+0x10\tallgather 2 1 7 0\n"
        "site mini_isort+0x99 alltoallv 3 0 1 2 1";   /* no final newline */
    assert_int_equal(parse(&t, text, err, sizeof err), 0);
    assert_int_equal(t.nsite, 3);
    trace_site_t *s = trace_find(&t, "mini_transpose+0x1a2b",
                                    TRACE_ALLTOALL, 4, 2);
    assert_non_null(s);
    assert_int_equal(s->order[0], 3);
    assert_int_equal(s->order[1], 1);
    assert_int_equal(s->order[2], 0);
    s = trace_find(&t, "libx.so+0x10", TRACE_ALLGATHER, 2, 1);
    assert_non_null(s);
    assert_int_equal(s->order[0], 0);
    s = trace_find(&t, "mini_isort+0x99", TRACE_ALLTOALLV, 3, 0);
    assert_non_null(s);
    assert_int_equal(s->order[0], 2);
    assert_int_equal(s->order[1], 1);
    trace_free(&t);
    /* a header alone: no site, no error */
    assert_int_equal(parse(&t, TRACE_MAGIC "\n", err, sizeof err), 0);
    assert_int_equal(t.nsite, 0);
    trace_free(&t);
}

/* @p body after a good header and one good site: refused at @p line
 * with a message holding @p what, the table left empty. */
static void bad(const char *body, int line, const char *what)
{
    char text[1024], err[256], want[64];
    trace_t t;
    snprintf(text, sizeof text, "%s\nsite a+0x1 alltoall 3 0 1 2 1\n%s",
             TRACE_MAGIC, body);
    assert_int_equal(parse(&t, text, err, sizeof err), -1);
    snprintf(want, sizeof want, "tr.0:%d: ", line);
    if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, what))
        fail_msg("%s: got \"%s\", want \"%s...%s\"", body, err, want, what);
    assert_int_equal(t.nsite, 0);
    assert_null(t.site);
}

static void test_parse_bad(void **state)
{
    (void)state;
    char err[256];
    trace_t t;
    /* the header */
    assert_int_equal(parse(&t, "", err, sizeof err), -1);
    assert_string_equal(err, "tr.0:1: empty (expected \"" TRACE_MAGIC
                             "\")");
    assert_int_equal(parse(&t, "# only a comment\n\n", err, sizeof err), -1);
    assert_non_null(strstr(err, "tr.0:2: empty"));
    assert_int_equal(parse(&t, "clustermap-tnbc-trace 2\n", err, sizeof err),
                     -1);
    assert_string_equal(err, "tr.0:1: not a tnbc trace (expected \""
                             TRACE_MAGIC "\")");
    assert_int_equal(parse(&t, "\n\nsite a+0x1 alltoall 2 0 1 1\n", err,
                           sizeof err), -1);
    assert_non_null(strstr(err, "tr.0:3: not a tnbc trace"));
    /* a count past any long long is refused, not overflowed (a fuzz
     * finding: the digits were multiplied before they were compared) */
    assert_int_equal(parse(&t, TRACE_MAGIC "\nsite a alltoall 2 0 "
                           "9999999999999999999 1\n", err, sizeof err), -1);
    assert_non_null(strstr(err, "tr.0:2:"));
    assert_int_equal(parse(&t, TRACE_MAGIC "\nsite a alltoall 17 0 1 1\n", err,
                           sizeof err), -1);
    char nul[] = TRACE_MAGIC "\nsite\0";
    memset(&t, 0, sizeof t);
    assert_int_equal(trace_parse(&t, nul, sizeof nul - 1, "tr.0", err,
                                     sizeof err), -1);
    assert_non_null(strstr(err, "a NUL byte"));
    /* the lines (line 3 is the one after the good site) */
    bad("sites a+0x2 alltoall 3 0 1 2 1\n", 3, "neither a site nor a time");
    bad("site\n", 3, "without its key");
    bad("site a+0x2\n", 3, "without its collective");
    bad("site a+0x2 bcast 3 0 1 2 1\n", 3, "unknown collective");
    bad("site a+0x2 Alltoall 3 0 1 2 1\n", 3, "unknown collective");
    bad("site a+0x2 alltoall 1 0 1\n", 3, "communicator size");
    bad("site a+0x2 alltoall 16777217 0 1 2\n", 3, "communicator size");
    bad("site a+0x2 alltoall x 0 1 2\n", 3, "communicator size");
    bad("site a+0x2 alltoall 3 3 1 0 1\n", 3, "rank that is not");
    bad("site a+0x2 alltoall 3 -1 1 0 1\n", 3, "rank that is not");
    bad("site a+0x2 alltoall 3 0 0 1 2\n", 3, "call count");
    bad("site a+0x2 alltoall 3 0 1x 1 2\n", 3, "call count");
    bad("site a+0x2 alltoall 3 0 99999999999999999999 1 2\n", 3,
        "call count");
    bad("site a+0x2 alltoall 3 0 1 1\n", 3, "fewer peers");
    bad("site a+0x2 alltoall 3 0 1 1 3\n", 3, "fewer peers");
    bad("site a+0x2 alltoall 3 0 1 1 1\n", 3, "a peer twice");
    bad("site a+0x2 alltoall 3 0 1 0 1\n", 3, "a peer twice, or the rank");
    bad("site a+0x2 alltoall 3 0 1 1 2 0\n", 3, "more peers");
    bad("site a+0x1 alltoall 3 0 1 2 1\n", 3, "the same site twice");
    bad("\n# fine\nsite a+0x2 alltoall 3 0 1 2\n", 5, "fewer peers");
    bad("site a+0x2 alltoall 3 0 1 2 1\nsite \xff+0x1 alltoall 3 0 1 1 2\n",
        4, "not printable");
    char body[300] = "site ";
    memset(body + 5, 'k', 200);
    strcpy(body + 205, " alltoall 3 0 1 1 2\n");
    bad(body, 3, "longer than 127");
    /* time lines: after their site, once, two numbers */
    bad("time a+0x2 alltoall 3 0 5 7\n", 3, "before its site line");
    bad("time a+0x1 alltoall 3 1 5 7\n", 3, "before its site line");
    bad("time a+0x1 alltoallv 3 0 5 7\n", 3, "before its site line");
    bad("time a+0x1 alltoall 3 0 5 7\ntime a+0x1 alltoall 3 0 5 7\n", 4,
        "time twice");
    bad("time a+0x1 alltoall 3 0 5\n", 3, "without its two times");
    bad("time a+0x1 alltoall 3 0 -5 7\n", 3, "without its two times");
    bad("time a+0x1 alltoall 3 0 5 7 9\n", 3, "more than two times");
    bad("time\n", 3, "a time line without its key");
    bad("time a+0x1\n", 3, "a time line without its collective");
    bad("time a+0x1 alltoall 1 0 5 7\n", 3, "communicator size");
}

/* The rule: a timed site that hid no more than it cost steps aside; one
 * without times, or that hid more, keeps the overlay. */
static void test_aside(void **state)
{
    (void)state;
    trace_t t;
    char err[256];
    const char *text =
        TRACE_MAGIC "\n"
        "site k+0x1 alltoall 3 0 2 2 1\n"
        "time k+0x1 alltoall 3 0 100 100\n"
        "site k+0x2 alltoall 3 0 2 1 2\n"
        "time k+0x2 alltoall 3 0 101 100\n"
        "site k+0x3 allgather 3 0 2 1 2\n"
        "site k+0x4 alltoallv 3 0 2 1 2\n"
        "time k+0x4 alltoallv 3 0 0 0\n";
    assert_int_equal(parse(&t, text, err, sizeof err), 0);
    trace_site_t *s = trace_find(&t, "k+0x1", TRACE_ALLTOALL, 3, 0);
    assert_non_null(s);
    assert_int_equal(s->timed, 1);
    assert_int_equal(s->hidden_ns, 100);
    assert_int_equal(s->init_ns, 100);
    assert_int_equal(trace_aside(s), 1);
    assert_int_equal(s->order[0], 2);   /* the order is read as before */
    s = trace_find(&t, "k+0x2", TRACE_ALLTOALL, 3, 0);
    assert_int_equal(trace_aside(s), 0);
    s = trace_find(&t, "k+0x3", TRACE_ALLGATHER, 3, 0);
    assert_int_equal(s->timed, 0);
    assert_int_equal(trace_aside(s), 0);
    s = trace_find(&t, "k+0x4", TRACE_ALLTOALLV, 3, 0);
    assert_int_equal(trace_aside(s), 1);
    trace_free(&t);
}

/* Every rank's times: summed per (key, collective, size), then written
 * into each rank's text in place of its own; other lines untouched. */
static void test_total_retime(void **state)
{
    (void)state;
    trace_t a, b, tot = { 0 };
    char err[256];
    const char *ta =
        TRACE_MAGIC "\n"
        "site k+0x1 alltoall 3 0 2 2 1\n"
        "time k+0x1 alltoall 3 0 5 100\n"
        "site k+0x2 allgather 3 0 2 1 2\n";   /* no times: not summed */
    const char *tb =
        TRACE_MAGIC "\n"
        "# rank 1\n"
        "site k+0x1 alltoall 3 1 2 2 0\n"
        "time\tk+0x1 alltoall 3 1 300 10\r\n"
        "site k+0x2 allgather 3 1 2 0 2\n"
        "time k+0x2 allgather 3 1 1 2";          /* no final newline */
    assert_int_equal(parse(&a, ta, err, sizeof err), 0);
    assert_int_equal(parse(&b, tb, err, sizeof err), 0);
    assert_int_equal(trace_total(&tot, &a), 0);
    assert_int_equal(trace_total(&tot, &b), 0);
    assert_int_equal(tot.nsite, 2);
    trace_site_t *m = trace_find(&tot, "k+0x1", TRACE_ALLTOALL, 3, 0);
    assert_non_null(m);
    assert_int_equal(m->hidden_ns, 305);
    assert_int_equal(m->init_ns, 110);
    assert_int_equal(m->calls, 2);
    assert_int_equal(trace_aside(m), 0);
    size_t len;
    char *out = trace_retime(tb, strlen(tb), &tot, &len);
    assert_non_null(out);
    assert_int_equal(len, strlen(out));
    assert_string_equal(out, TRACE_MAGIC "\n"
                        "# rank 1\n"
                        "site k+0x1 alltoall 3 1 2 2 0\n"
                        "time k+0x1 alltoall 3 1 305 110\n"
                        "site k+0x2 allgather 3 1 2 0 2\n"
                        "time k+0x2 allgather 3 1 1 2\n");
    free(out);
    out = trace_retime(ta, strlen(ta), &tot, &len);
    assert_non_null(out);
    assert_non_null(strstr(out, "time k+0x1 alltoall 3 0 305 110\n"));
    assert_null(strstr(out, "time k+0x2"));   /* none added */
    /* what comes out is a trace */
    trace_t c;
    assert_int_equal(parse(&c, out, err, sizeof err), 0);
    trace_free(&c);
    free(out);
    trace_free(&a);
    trace_free(&b);
    trace_free(&tot);
}

static void test_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_trace.XXXXXX", path[256], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/tr.3", dir);
    trace_t t = { 0 }, u = { 0 };
    /* missing: -2, naming the file */
    assert_int_equal(trace_load(&u, path, err, sizeof err), -2);
    assert_non_null(strstr(err, path));
    trace_site_t *s = trace_add(&t, "prog+0x40", TRACE_ALLTOALLV, 5, 3);
    assert_non_null(s);
    s->sum[4] = 0, s->sum[2] = 3, s->sum[0] = 6, s->sum[1] = 6;
    s->calls = 3;
    s->timed = 1;
    s->hidden_ns = 12345678901ull;
    s->init_ns = 42;
    /* a site with no call recorded is not written */
    assert_non_null(trace_add(&t, "prog+0x50", TRACE_ALLTOALL, 5, 3));
    assert_int_equal(trace_write(&t, path, err, sizeof err), 0);
    assert_int_equal(trace_load(&u, path, err, sizeof err), 0);
    assert_int_equal(u.nsite, 1);
    trace_site_t *r = trace_find(&u, "prog+0x40", TRACE_ALLTOALLV, 5, 3);
    assert_non_null(r);
    int want[] = { 4, 2, 0, 1 };
    assert_memory_equal(r->order, want, sizeof want);
    assert_int_equal(r->timed, 1);
    assert_int_equal(r->hidden_ns, 12345678901ull);
    assert_int_equal(r->init_ns, 42);
    assert_int_equal(trace_aside(r), 0);
    trace_free(&u);
    /* a corrupt copy: refused, its name and line in the message */
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("site prog+0x60 alltoall 5 3 1 0 1 2\n", f);
    fclose(f);
    assert_int_equal(trace_load(&u, path, err, sizeof err), -1);
    char want_err[300];
    snprintf(want_err, sizeof want_err, "%s:6: fewer peers", path);
    assert_true(strncmp(err, want_err, strlen(want_err)) == 0);
    assert_int_equal(u.nsite, 0);
    /* not writable: -1 naming it */
    snprintf(path, sizeof path, "%s/no/such/dir/tr.0", dir);
    assert_int_equal(trace_write(&t, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "/no/such/dir/tr.0"));
    trace_free(&t);
    snprintf(path, sizeof path, "%s/tr.3", dir);
    unlink(path);
    rmdir(dir);
}

/* What is not a regular file is refused at once (a FIFO would block the
 * reader, every rank in MPI_Init, for good) as "cannot be opened" (-2,
 * the one line of rank 0), and a link is not followed; the temporary a
 * trace is written through is never an existing file. */
static void test_file_special(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_trace.XXXXXX", path[256], err[512], want[300];
    assert_non_null(mkdtemp(dir));
    trace_t u = { 0 };
    snprintf(path, sizeof path, "%s/fifo.0", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(trace_load(&u, path, err, sizeof err), -2);
    snprintf(want, sizeof want, "%s: not a regular file", path);
    assert_string_equal(err, want);
    unlink(path);
    snprintf(path, sizeof path, "%s/dir.0", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(trace_load(&u, path, err, sizeof err), -2);
    assert_string_equal(err + strlen(path), ": not a regular file");
    rmdir(path);
    snprintf(path, sizeof path, "%s/link.0", dir);
    assert_int_equal(symlink("/etc/passwd", path), 0);
    assert_int_equal(trace_load(&u, path, err, sizeof err), -2);
    assert_string_equal(err + strlen(path),
                        ": is a symbolic link; refusing to follow it");
    unlink(path);
    assert_int_equal(u.nsite, 0);
    /* a FIFO under the temporary name: refused, not opened */
    trace_t t = { 0 };
    trace_site_t *s = trace_add(&t, "prog+0x40", TRACE_ALLTOALL, 2, 0);
    assert_non_null(s);
    s->calls = 1;
    char tmp[300];
    snprintf(path, sizeof path, "%s/tr.0", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    assert_int_equal(mkfifo(tmp, 0600), 0);
    assert_int_equal(trace_write(&t, path, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    struct stat sb;
    assert_int_equal(lstat(tmp, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    unlink(tmp);
    trace_free(&t);
    rmdir(dir);
}

/* The reductions of ovl_tprio_agree, done here by hand over @p nr ranks'
 * tables: MPI_MAX of the ids, MPI_SUM of the times. */
static void reduce(trace_t **t, int nr, uint64_t *ids, uint64_t *sums)
{
    uint64_t i1[2 * TRACE_AGREE_SLOTS], s1[2 * TRACE_AGREE_SLOTS];
    memset(ids, 0, sizeof i1);
    memset(sums, 0, sizeof s1);
    for (int r = 0; r < nr; r++) {
        trace_agree_mine(t[r], i1, s1);
        for (int k = 0; k < 2 * TRACE_AGREE_SLOTS; k++) {
            ids[k] = i1[k] > ids[k] ? i1[k] : ids[k];
            sums[k] += s1[k];
        }
    }
}

/* The slot of a timed site (@p key, alltoall, 4) alone in a table. */
static int slot_of(const char *key)
{
    trace_t t = { 0 };
    uint64_t ids[2 * TRACE_AGREE_SLOTS], sums[2 * TRACE_AGREE_SLOTS];
    trace_site_t *s = trace_add(&t, key, TRACE_ALLTOALL, 4, 0);
    assert_non_null(s);
    s->timed = 1;
    trace_agree_mine(&t, ids, sums);
    trace_free(&t);
    for (int k = 0; k < TRACE_AGREE_SLOTS; k++)
        if (ids[k])
            return k;
    fail_msg("no slot for %s", key);
    return -1;
}

/* Every rank decides alike: the times of all ranks that timed a site,
 * summed, whatever each rank's own say; ranks without a trace follow; a
 * slot that two sites share (on one rank, or across ranks) decides
 * nothing, and each rank then goes by its own trace. */
static void test_agree(void **state)
{
    (void)state;
    trace_t a = { 0 }, b = { 0 }, c = { 0 };
    uint64_t ids[2 * TRACE_AGREE_SLOTS], sums[2 * TRACE_AGREE_SLOTS];
    /* rank a alone would step aside (hid 5 of 10), rank b not (30 of 10) */
    trace_site_t *s = trace_add(&a, "app+0x10", TRACE_ALLTOALL, 4, 0);
    s->timed = 1, s->hidden_ns = 5, s->init_ns = 10;
    s = trace_add(&b, "app+0x10", TRACE_ALLTOALL, 4, 1);
    s->timed = 1, s->hidden_ns = 30, s->init_ns = 10;
    /* a second site: both would step aside, but only a timed it */
    s = trace_add(&a, "app+0x20", TRACE_ALLTOALLV, 4, 0);
    s->timed = 1, s->hidden_ns = 7, s->init_ns = 9;
    s = trace_add(&b, "app+0x20", TRACE_ALLTOALLV, 4, 1);   /* untimed */
    trace_t *three[] = { &a, &b, NULL };
    reduce(three, 3, ids, sums);
    assert_int_equal(trace_agreed(ids, sums, "app+0x10", TRACE_ALLTOALL, 4), 0);
    assert_int_equal(trace_agreed(ids, sums, "app+0x20", TRACE_ALLTOALLV, 4), 1);
    /* another size, collective or key: not decided */
    assert_int_equal(trace_agreed(ids, sums, "app+0x10", TRACE_ALLTOALL, 8), -1);
    assert_int_equal(trace_agreed(ids, sums, "app+0x10", TRACE_ALLGATHER, 4), -1);
    assert_int_equal(trace_agreed(ids, sums, "app+0x30", TRACE_ALLTOALL, 4), -1);
    /* all ranks hid little: aside, also where hidden == inside */
    a.site[0]->hidden_ns = 10;
    b.site[0]->hidden_ns = 10;
    reduce(three, 2, ids, sums);
    assert_int_equal(trace_agreed(ids, sums, "app+0x10", TRACE_ALLTOALL, 4), 1);

    /* a key sharing app+0x10's slot */
    char other[32];
    int k0 = slot_of("app+0x10"), i;
    for (i = 0; i < 100000; i++) {
        snprintf(other, sizeof other, "lib+0x%x", i);
        if (slot_of(other) == k0)
            break;
    }
    assert_true(i < 100000);
    /* on another rank: the slot is mixed, undecided */
    s = trace_add(&c, other, TRACE_ALLTOALL, 4, 2);
    s->timed = 1, s->hidden_ns = 1, s->init_ns = 100;
    trace_t *mixed[] = { &a, &b, &c };
    reduce(mixed, 3, ids, sums);
    assert_int_equal(trace_agreed(ids, sums, "app+0x10", TRACE_ALLTOALL, 4), -1);
    assert_int_equal(trace_agreed(ids, sums, other, TRACE_ALLTOALL, 4), -1);
    assert_int_equal(trace_agreed(ids, sums, "app+0x20", TRACE_ALLTOALLV, 4), 1);
    /* on the same rank: the same */
    s = trace_add(&a, other, TRACE_ALLTOALL, 4, 0);
    s->timed = 1;
    reduce(three, 2, ids, sums);
    assert_int_equal(trace_agreed(ids, sums, "app+0x10", TRACE_ALLTOALL, 4), -1);
    assert_int_equal(trace_agreed(ids, sums, other, TRACE_ALLTOALL, 4), -1);
    /* no trace anywhere: nothing decided */
    trace_t *none[] = { NULL, NULL };
    reduce(none, 2, ids, sums);
    assert_int_equal(trace_agreed(ids, sums, "app+0x10", TRACE_ALLTOALL, 4), -1);
    trace_free(&a);
    trace_free(&b);
    trace_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_aside),
        cmocka_unit_test(test_total_retime),
        cmocka_unit_test(test_agree),
        cmocka_unit_test(test_file),
        cmocka_unit_test(test_file_special),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
