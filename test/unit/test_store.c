/* test_store.c -- the per-user profile store (src/store/store.c,
 * store_ingest.c): layout and modes, load/save/merge/delete/list, refusal
 * of symlinks, foreign owners, open modes and oversized files. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "cm_store.h"
#include "store_internal.h"
#include "testdata.h"

typedef struct fixture {
    char *root;        /* temporary directory holding the store */
    char store[4096];  /* <root>/store */
    char udir[4200];   /* <store>/<uid> */
    uid_t uid;
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    f->root = cm_test_mkdtemp();
    f->uid = getuid();
    snprintf(f->store, sizeof f->store, "%s/store", f->root);
    snprintf(f->udir, sizeof f->udir, "%s/%lu", f->store, (unsigned long)f->uid);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->root);
    if (system(cmd) != 0)
        return -1;
    free(f->root);
    free(f);
    return 0;
}

static cm_profile_t *profile(uid_t uid, const char *name, int n, double v)
{
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(n, &err);
    cm_matrix_t *m;
    cm_profile_t *p;
    assert_int_equal(cm_builder_add(b, 0, n - 1, v, 1, &err), 0);
    cm_builder_set_has_msgs(b, 1);
    m = cm_builder_finish(b, &err);
    p = cm_profile_new(uid, "tester", name, n, m, NULL, 1000, &err);
    assert_non_null(p);
    cm_matrix_free(m);
    cm_builder_free(b);
    return p;
}

static double value(const cm_profile_t *p)
{
    double t;
    cm_matrix_totals(cm_profile_part(p, CM_PART_P2P), &t, NULL);
    return t;
}

static cm_store_t *open_store(fixture_t *f, int flags, size_t max)
{
    cm_error_t err = { "" };
    cm_store_t *s = cm_store_open(f->store, f->uid, flags, max, &err);
    if (!s)
        fail_msg("%s", err.msg);
    return s;
}

static void test_layout_and_round_trip(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_store_t *s = open_store(f, CM_STORE_CREATE, 0);
    cm_profile_t *p = profile(f->uid, "app/1", 4, 100), *q = NULL;
    struct stat st;
    char path[8192];

    assert_int_equal(stat(f->store, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0711);
    assert_int_equal(stat(f->udir, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(st.st_uid, f->uid);
    assert_string_equal(cm_store_dir(s), f->udir);

    assert_int_equal(cm_store_load(s, "app/1", 4, &q, &err), 0);   /* none */
    assert_int_equal(cm_store_save(s, p, 0, &err), 0);
    snprintf(path, sizeof path, "%s/app%%2F1.4.json", f->udir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(cm_store_load(s, "app/1", 4, &q, &err), 1);
    assert_true(cm_profile_checksum(p) == cm_profile_checksum(q));
    cm_profile_free(q);
    /* another task count is another profile */
    assert_int_equal(cm_store_load(s, "app/1", 8, &q, &err), 0);
    /* no replacing without asking */
    assert_int_equal(cm_store_save(s, p, 0, &err), -1);
    assert_non_null(strstr(err.msg, "exists already"));
    assert_int_equal(cm_store_save(s, p, 1, &err), 0);
    cm_profile_free(p);
    cm_store_close(s);
}

static void test_missing_store_is_empty(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_store_t *s = open_store(f, 0, 0);
    cm_store_entry_t *e;
    cm_profile_t *q;
    int n;
    assert_int_equal(cm_store_load(s, "app", 4, &q, &err), 0);
    assert_int_equal(cm_store_list(s, &e, &n, &err), 0);
    assert_int_equal(n, 0);
    free(e);
    q = profile(f->uid, "app", 4, 1);
    assert_int_equal(cm_store_save(s, q, 1, &err), -1);
    assert_non_null(strstr(err.msg, "no profile directory"));
    assert_int_equal(cm_store_delete(s, "app", 4, &err), -1);
    cm_profile_free(q);
    cm_store_close(s);
}

static void test_merge_and_delete(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_store_t *s = open_store(f, CM_STORE_CREATE, 0);
    cm_profile_t *r1 = profile(f->uid, "app", 4, 100);
    cm_profile_t *r2 = profile(f->uid, "app", 4, 300);
    cm_profile_t *r3 = profile(f->uid, "app", 8, 300);
    cm_profile_t *other = profile(f->uid + 1, "app", 4, 300);
    cm_profile_t *q;
    long runs = 0;

    assert_int_equal(cm_store_merge(s, r1, 0.5, CM_STORE_MUST_EXIST, 5, &runs,
                                    &err), -1);
    assert_int_equal(cm_store_merge(s, r1, 0.5, 0, 5, &runs, &err), 0);
    assert_int_equal(runs, 1);
    assert_int_equal(cm_store_merge(s, r2, 0.25, 0, 6, &runs, &err), 0);
    assert_int_equal(runs, 2);
    assert_int_equal(cm_store_load(s, "app", 4, &q, &err), 1);
    assert_true(value(q) == 150);   /* 0.75 * 100 + 0.25 * 300 */
    assert_int_equal(cm_profile_runs(q), 2);
    cm_profile_free(q);
    /* the 8-task run goes to its own profile, never into the 4-task one */
    assert_int_equal(cm_store_merge(s, r3, 0.5, 0, 7, &runs, &err), 0);
    assert_int_equal(runs, 1);
    /* a profile of another uid does not go into this store */
    assert_int_equal(cm_store_merge(s, other, 0.5, 0, 7, &runs, &err), -1);
    assert_non_null(strstr(err.msg, "uid"));

    assert_int_equal(cm_store_delete(s, "app", 4, &err), 0);
    assert_int_equal(cm_store_load(s, "app", 4, &q, &err), 0);
    assert_int_equal(cm_store_delete(s, "app", 4, &err), -1);
    assert_non_null(strstr(err.msg, "no profile"));
    assert_int_equal(cm_store_load(s, "app", 8, &q, &err), 1);
    cm_profile_free(q);
    cm_profile_free(r1);
    cm_profile_free(r2);
    cm_profile_free(r3);
    cm_profile_free(other);
    cm_store_close(s);
}

static void test_list(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_store_t *s = open_store(f, CM_STORE_CREATE, 0);
    cm_profile_t *a = profile(f->uid, "b", 4, 10), *b = profile(f->uid, "a", 2, 5);
    cm_store_entry_t *e;
    int n;

    assert_int_equal(cm_store_save(s, a, 0, &err), 0);
    assert_int_equal(cm_store_save(s, b, 0, &err), 0);
    cm_test_write_file(f->udir, "broken.3.json", "{\"format\": 1}");
    chmod(f->udir, 0700);
    assert_int_equal(cm_store_list(s, &e, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(e[0].file, "a.2.json");
    assert_int_equal(e[0].valid, 1);
    assert_int_equal(e[0].ntasks, 2);
    assert_true(e[0].p2p_bytes == 5);
    assert_string_equal(e[1].file, "b.4.json");
    assert_int_equal(e[1].runs, 1);
    assert_string_equal(e[2].file, "broken.3.json");
    assert_int_equal(e[2].valid, 0);
    assert_non_null(strstr(e[2].error, "broken.3.json: field 'format'"));
    free(e);
    cm_profile_free(a);
    cm_profile_free(b);
    cm_store_close(s);
}

static void test_refusals(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_store_t *s = open_store(f, CM_STORE_CREATE, 0), *t;
    cm_profile_t *p = profile(f->uid, "app", 4, 10), *q = NULL;
    char path[8192], link[8192];

    assert_int_equal(cm_store_save(s, p, 0, &err), 0);
    /* oversized */
    t = open_store(f, 0, 64);
    assert_int_equal(cm_store_load(t, "app", 4, &q, &err), -1);
    assert_non_null(strstr(err.msg, "more than the limit of 64 bytes"));
    cm_store_close(t);
    /* a symlinked profile */
    snprintf(path, sizeof path, "%s/app.4.json", f->udir);
    snprintf(link, sizeof link, "%s/link.4.json", f->udir);
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(cm_store_load(s, "link", 4, &q, &err), -1);
    assert_non_null(strstr(err.msg, "symbolic link"));
    /* a profile whose key is not its file name */
    unlink(link);
    snprintf(link, sizeof link, "%s/other.4.json", f->udir);
    assert_int_equal(rename(path, link), 0);
    assert_int_equal(cm_store_load(s, "other", 4, &q, &err), -1);
    assert_non_null(strstr(err.msg, "holds the profile of 'app'"));
    assert_int_equal(rename(link, path), 0);
    /* group or world writable file */
    assert_int_equal(chmod(path, 0620), 0);
    assert_int_equal(cm_store_load(s, "app", 4, &q, &err), -1);
    assert_non_null(strstr(err.msg, "mode 0620"));
    assert_int_equal(chmod(path, 0600), 0);
    /* owned by somebody else (needs root to arrange) */
    if (geteuid() == 0) {
        assert_int_equal(chown(path, f->uid + 1, (gid_t)-1), 0);
        assert_int_equal(cm_store_load(s, "app", 4, &q, &err), -1);
        assert_non_null(strstr(err.msg, "owned by uid"));
        assert_int_equal(chown(path, f->uid, (gid_t)-1), 0);
    }
    assert_int_equal(cm_store_load(s, "app", 4, &q, &err), 1);
    cm_profile_free(q);
    cm_store_close(s);

    /* the user directory open to others */
    assert_int_equal(chmod(f->udir, 0755), 0);
    assert_null(cm_store_open(f->store, f->uid, 0, 0, &err));
    assert_non_null(strstr(err.msg, "mode 0755"));
    assert_non_null(strstr(err.msg, f->udir));
    assert_int_equal(chmod(f->udir, 0700), 0);
    /* the user directory a symbolic link */
    snprintf(link, sizeof link, "%s/real", f->root);
    assert_int_equal(rename(f->udir, link), 0);
    assert_int_equal(symlink(link, f->udir), 0);
    assert_null(cm_store_open(f->store, f->uid, CM_STORE_CREATE, 0, &err));
    assert_non_null(strstr(err.msg, "symbolic link"));
    cm_profile_free(p);
}

static void test_ingest(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_store_t *s = open_store(f, CM_STORE_CREATE, 0);
    const char *raw;
    char path[4096];
    cm_profile_t *q;
    long runs = 0;

    raw = cm_test_write_file(f->root, "run.raw",
                             "clustermap-raw 1\nranks 4\njob 77 0\nprogram a.out\n"
                             "p2p 0 1 1000 10\ncoll 1 2 64 2\nend 2\n");
    snprintf(path, sizeof path, "%s", raw);
    assert_int_equal(cm_store_ingest(s, path, "app", 0.5, &runs, &err), 0);
    assert_int_equal(runs, 1);
    assert_int_equal(cm_store_ingest(s, path, "app", 0.5, &runs, &err), 0);
    assert_int_equal(runs, 2);
    assert_int_equal(cm_store_load(s, "app", 4, &q, &err), 1);
    assert_true(value(q) == 1000);
    assert_int_equal(cm_profile_njobids(q), 2);
    assert_string_equal(cm_profile_jobid(q, 0), "77.0");
    assert_int_equal(cm_profile_has_msgs(q), 1);
    cm_profile_free(q);
    raw = cm_test_write_file(f->root, "bad.raw", "clustermap-raw 1\nranks x\n");
    snprintf(path, sizeof path, "%s", raw);
    assert_int_equal(cm_store_ingest(s, path, "app", 0.5, &runs, &err), -1);
    assert_non_null(strstr(err.msg, "bad.raw"));
    cm_store_close(s);
}

/* Every row of the side-file table: counted in the listing's bytes and
 * removed with the profile (a side file added to the table is covered
 * here without a line more; the trace is the one directory). */
static void test_side_table(void **state)
{
    fixture_t *f = *state;
    cm_store_t *s = open_store(f, CM_STORE_CREATE, 0);
    cm_profile_t *p = profile(f->uid, "job", 4, 1.0);
    cm_error_t err = { "" };
    cm_store_entry_t *e = NULL;
    char path[4600], fname[256];
    struct stat st;
    int count = 0;
    assert_int_equal(cm_store_save(s, p, 0, &err), 0);
    cm_profile_free(p);
    assert_int_equal(cm_store_filename("job", 4, fname, sizeof fname, &err), 0);
    snprintf(path, sizeof path, "%s/%s", f->udir, fname);
    assert_int_equal(stat(path, &st), 0);
    uint64_t bytes = (uint64_t)st.st_size;
    for (int k = 0; k < CM_SIDE_COUNT; k++) {
        snprintf(path, sizeof path, "%s/%s%s", f->udir, fname,
                 cm_store_sides[k].suffix);
        if (!strcmp(cm_store_sides[k].suffix, CM_TRACE_SUFFIX)) {
            assert_int_equal(mkdir(path, 0700), 0);
            cm_test_write_file(path, CM_TRACE_PREFIX ".0", "0123456789");
        } else {
            FILE *fp = fopen(path, "w");
            assert_non_null(fp);
            fputs("0123456789", fp);
            fclose(fp);
        }
        bytes += 10;
    }
    assert_int_equal(cm_store_list(s, &e, &count, &err), 0);
    assert_int_equal(count, 1);
    assert_int_equal(e[0].valid, 1);
    assert_int_equal(e[0].file_bytes, bytes);
    free(e);
    assert_int_equal(cm_store_delete(s, "job", 4, &err), 0);
    for (int k = 0; k < CM_SIDE_COUNT; k++) {
        snprintf(path, sizeof path, "%s/%s%s", f->udir, fname,
                 cm_store_sides[k].suffix);
        if (lstat(path, &st) == 0)
            fail_msg("%s stayed after the delete", path);
    }
    cm_store_close(s);
}

/* The program an import's parts named: one line beside the profile, read
 * back, refused through a symbolic link, oversized or not a name, and
 * removed with the profile. */
static void test_program_side(void **state)
{
    fixture_t *f = *state;
    cm_store_t *s = open_store(f, CM_STORE_CREATE, 0);
    cm_profile_t *p = profile(f->uid, "job", 4, 1.0);
    cm_error_t err = { "" };
    char path[4600], fname[256], got[CM_STORE_PROGRAM_MAX], victim[4600];
    char longname[CM_STORE_PROGRAM_MAX + 1];
    struct stat st;
    assert_int_equal(cm_store_save(s, p, 0, &err), 0);
    cm_profile_free(p);
    assert_int_equal(cm_store_filename("job", 4, fname, sizeof fname, &err), 0);
    snprintf(path, sizeof path, "%s/%s.program", f->udir, fname);

    assert_int_equal(cm_store_program_get(s, "job", 4, got, sizeof got, &err), 0);
    assert_string_equal(got, "");
    assert_int_equal(cm_store_program_set(s, "job", 4, "halo2d", &err), 0);
    assert_int_equal(cm_store_program_get(s, "job", 4, got, sizeof got, &err), 1);
    assert_string_equal(got, "halo2d");
    assert_int_equal(lstat(path, &st), 0);
    assert_int_equal(st.st_size, 7);

    /* only a name a raw part may give is kept */
    assert_int_equal(cm_store_program_set(s, "job", 4, "a\nb", &err), -1);
    assert_non_null(strstr(err.msg, "expected characters [A-Za-z0-9._-]"));
    memset(longname, 'x', CM_STORE_PROGRAM_MAX);
    longname[CM_STORE_PROGRAM_MAX] = '\0';
    assert_int_equal(cm_store_program_set(s, "job", 4, longname, &err), -1);
    assert_non_null(strstr(err.msg, "expected 1..127 characters"));
    longname[CM_STORE_PROGRAM_MAX - 1] = '\0';
    assert_int_equal(cm_store_program_set(s, "job", 4, longname, &err), 0);
    assert_int_equal(cm_store_program_get(s, "job", 4, got, sizeof got, &err), 1);
    assert_string_equal(got, longname);

    /* what else is found there is refused, never followed or cut */
    cm_test_write_file(f->udir, "job.4.json.program", "two\nlines\n");
    assert_int_equal(cm_store_program_get(s, "job", 4, got, sizeof got, &err), -1);
    assert_non_null(strstr(err.msg, "program name"));
    assert_int_equal(unlink(path), 0);
    snprintf(victim, sizeof victim, "%s/victim", f->root);
    cm_test_write_file(f->root, "victim", "secret\n");
    assert_int_equal(symlink(victim, path), 0);
    assert_int_equal(cm_store_program_get(s, "job", 4, got, sizeof got, &err), -1);
    assert_non_null(strstr(err.msg, "symbolic link"));
    assert_string_equal(got, "");
    assert_int_equal(unlink(path), 0);
    memset(longname, 'y', CM_STORE_PROGRAM_MAX);
    longname[CM_STORE_PROGRAM_MAX] = '\0';
    cm_test_write_file(f->udir, "job.4.json.program", longname);
    assert_int_equal(cm_store_program_get(s, "job", 4, got, sizeof got, &err), -1);

    /* NULL removes it; delete takes it with the profile */
    assert_int_equal(cm_store_program_set(s, "job", 4, NULL, &err), 0);
    assert_int_not_equal(lstat(path, &st), 0);
    assert_int_equal(cm_store_program_set(s, "job", 4, "halo2d", &err), 0);
    assert_int_equal(cm_store_delete(s, "job", 4, &err), 0);
    if (lstat(path, &st) == 0)
        fail_msg("%s stayed after the delete", path);
    assert_int_equal(stat(victim, &st), 0);
    cm_store_close(s);
}

/* "No MPI" marks expire after CM_STORE_NOMPI_MAX_AGE and are at most
 * CM_STORE_NOMPI_MAX: the oldest goes for a new one. */
static void test_nompi_bounds(void **state)
{
    fixture_t *f = *state;
    cm_store_t *s = open_store(f, CM_STORE_CREATE, 0);
    cm_error_t err = { "" };
    char name[32], fname[300], path[4600];
    struct timespec old[2] = { { 0, UTIME_OMIT }, { 0, 0 } };
    assert_int_equal(cm_store_mark_nompi(s, "gone", 4, &err), 0);
    assert_int_equal(cm_store_nompi(s, "gone", 4), 1);
    assert_int_equal(cm_store_sidecar_name("gone", 4, CM_SIDE_NOMPI, fname, sizeof fname, &err),
                     0);
    snprintf(path, sizeof path, "%s/%s", f->udir, fname);
    old[1].tv_sec = time(NULL) - CM_STORE_NOMPI_MAX_AGE - 60;
    assert_int_equal(utimensat(AT_FDCWD, path, old, AT_SYMLINK_NOFOLLOW), 0);
    assert_int_equal(cm_store_nompi(s, "gone", 4), 0);
    assert_int_equal(access(path, F_OK), -1); /* and removed */

    for (int k = 0; k < CM_STORE_NOMPI_MAX; k++) {
        snprintf(name, sizeof name, "prog%d", k);
        assert_int_equal(cm_store_mark_nompi(s, name, 2, &err), 0);
        if (k == 0) { /* the oldest, by an hour */
            assert_int_equal(cm_store_sidecar_name(name, 2, CM_SIDE_NOMPI, fname,
                                                   sizeof fname, &err),
                             0);
            snprintf(path, sizeof path, "%s/%s", f->udir, fname);
            old[1].tv_sec = time(NULL) - 3600;
            assert_int_equal(utimensat(AT_FDCWD, path, old, AT_SYMLINK_NOFOLLOW), 0);
        }
    }
    assert_int_equal(cm_store_nompi(s, "prog0", 2), 1);
    assert_int_equal(cm_store_mark_nompi(s, "one-more", 2, &err), 0);
    assert_int_equal(cm_store_nompi(s, "prog0", 2), 0);
    assert_int_equal(cm_store_nompi(s, "prog1", 2), 1);
    assert_int_equal(cm_store_nompi(s, "one-more", 2), 1);
    cm_store_close(s);
}

/* The lock file is used only when it is the user's regular file with one
 * link: root gives .lock to the user, so a hard link to another file (or
 * a FIFO, a device, a file of someone else) in its place is refused and
 * left as it is.  As root, on a store of another uid as prune sees it. */
static void test_lock_file_checks(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    const uid_t user = 4242;
    struct stat st;
    char lock[8192], victim[8192];

    if (geteuid() != 0)
        skip();
    cm_store_t *s = cm_store_open(f->store, user, CM_STORE_CREATE, 0, &err);
    if (!s)
        fail_msg("%s", err.msg);
    snprintf(lock, sizeof lock, "%s/%lu/.lock", f->store, (unsigned long)user);
    snprintf(victim, sizeof victim, "%s/victim", f->root);

    /* made by this call: given to the user, and used */
    int fd = cm_store_lock_take(s, &err);
    if (fd < 0)
        fail_msg("%s", err.msg);
    cm_store_lock_release(fd);
    assert_int_equal(lstat(lock, &st), 0);
    assert_int_equal(st.st_uid, user);

    /* a hard link to root's file: refused, the file stays root's */
    assert_int_equal(unlink(lock), 0);
    cm_test_write_file(f->root, "victim", "root's\n");
    assert_int_equal(link(victim, lock), 0);
    assert_int_equal(cm_store_lock_take(s, &err), -1);
    assert_non_null(strstr(err.msg, ".lock: expected a file with one link, got 2"));
    assert_int_equal(stat(victim, &st), 0);
    assert_int_equal(st.st_uid, 0);
    /* nor does anything that takes the lock change it */
    cm_profile_t *p = profile(user, "app", 2, 1);
    assert_int_equal(cm_store_save(s, p, 1, &err), -1);
    cm_profile_free(p);
    assert_int_equal(stat(victim, &st), 0);
    assert_int_equal(st.st_uid, 0);

    /* a file of another owner, a FIFO, a symbolic link */
    assert_int_equal(unlink(lock), 0);
    cm_test_write_file(f->store, "4242/.lock", "");
    assert_int_equal(chown(lock, 4343, (gid_t)-1), 0);
    assert_int_equal(cm_store_lock_take(s, &err), -1);
    assert_non_null(strstr(err.msg, "expected owner uid 4242"));
    assert_int_equal(stat(lock, &st), 0);
    assert_int_equal(st.st_uid, 4343);
    assert_int_equal(unlink(lock), 0);
    assert_int_equal(mkfifo(lock, 0600), 0);
    assert_int_equal(cm_store_lock_take(s, &err), -1);
    assert_non_null(strstr(err.msg, "expected a regular file"));
    assert_int_equal(unlink(lock), 0);
    assert_int_equal(symlink(victim, lock), 0);
    assert_int_equal(cm_store_lock_take(s, &err), -1);
    assert_non_null(strstr(err.msg, "symbolic link"));
    assert_int_equal(unlink(lock), 0);
    cm_store_close(s);
}

/* Root waits for a user's lock a bounded time (the user can hold it for
 * ever); the user's own processes wait as long as it takes. */
static void test_lock_bounded_wait(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    char lock[8192];
    struct timespec t0, t1;

    if (geteuid() != 0)
        skip();
    cm_store_t *s = cm_store_open(f->store, 4242, CM_STORE_CREATE, 0, &err);
    if (!s)
        fail_msg("%s", err.msg);
    int fd = cm_store_lock_take(s, &err);
    if (fd < 0)
        fail_msg("%s", err.msg);
    cm_store_lock_release(fd);
    snprintf(lock, sizeof lock, "%s/4242/.lock", f->store);
    int held = open(lock, O_RDONLY | O_CLOEXEC);   /* the user's flock */
    assert_true(held >= 0);
    assert_int_equal(flock(held, LOCK_EX), 0);

    cm_store_set_lock_wait(s, 300);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    errno = 0;
    assert_int_equal(cm_store_lock_take(s, &err), -1);
    assert_int_equal(errno, ETIMEDOUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    assert_true(took >= 0.29 && took < 2);
    assert_non_null(strstr(err.msg, ".lock: held by another process for more than 0.3 s"));
    /* free again: taken */
    close(held);
    fd = cm_store_lock_take(s, &err);
    if (fd < 0)
        fail_msg("%s", err.msg);
    cm_store_lock_release(fd);
    cm_store_close(s);
}

/* The launch's lookup (cm_store_load) compares the key before decoding
 * any entry: a file under the looked-up name holding another key's
 * profile is refused on its header, whatever its body (here a count of a
 * million entries and no entry at all: decoding would fail on the body). */
static void test_load_key_first(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_store_t *s = open_store(f, CM_STORE_CREATE, 0);
    cm_profile_t *p = profile(f->uid, "app", 4, 1), *q = NULL;
    assert_int_equal(cm_store_save(s, p, 0, &err), 0);
    cm_profile_free(p);

    /* uid 0, 2^20 tasks, runs 1, times 0, no msgs, user "u", job "j", no
     * job ids, p2p count 10^6 */
    static const unsigned char body[] = { 0, 0x80, 0x80, 0x40, 1, 0, 0, 0, 1, 'u', 1, 'j',
                                          0, 0xc0, 0x84, 0x3d };
    unsigned char file[256] = { 0x89, 'C', 'M', 'P', 'R', 'O', 'F', '\n', 1, 0, 0, 0, 1 };
    uLongf zlen = sizeof file - 32;
    uint64_t stated = 3000100;
    for (int k = 0; k < 8; k++)
        file[16 + k] = (unsigned char)(stated >> (8 * k));
    assert_int_equal(compress2(file + 32, &zlen, body, sizeof body, 9), Z_OK);
    char path[8192];
    snprintf(path, sizeof path, "%s/other.1048576.json", f->udir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, file, 32 + zlen), (ssize_t)(32 + zlen));
    close(fd);

    assert_int_equal(cm_store_load(s, "other", 1048576, &q, &err), -1);
    assert_null(q);
    assert_non_null(strstr(err.msg, "other.1048576.json: holds the profile of 'j' with "
                                     "1048576 tasks, expected 'other' with 1048576 tasks"));
    cm_store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_layout_and_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_store_is_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_and_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ingest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_side_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_program_side, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nompi_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_file_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_bounded_wait, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_key_first, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
