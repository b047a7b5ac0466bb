/* test_store_prune.c -- retention (src/store/store_prune.c) and what
 * the store's listing says about it (store.c): last use, bytes on disk,
 * the rule, conditional removal under the lock, pruning a store, the uids
 * of a store root. */
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
#include <unistd.h>

#include <cmocka.h>

#include "cm_store.h"
#include "testdata.h"
#include "teststore.h"

#define DAY 86400

typedef cm_test_store_t fixture_t;

static int teardown(void **state)
{
    fixture_t *f = *state;
    char cmd[8192];
    cm_store_close(f->s);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->root);
    if (system(cmd) != 0)
        return -1;
    free(f->root);
    free(f);
    return 0;
}

#define CASE(test) cmocka_unit_test_setup_teardown(test, cm_test_store_setup, \
                                                   teardown)

/* A one-run profile of the caller, last updated at @p when. */
static void save(fixture_t *f, const char *name, int n, int64_t when)
{
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(n, &err);
    assert_int_equal(cm_builder_add(b, 0, n - 1, 64, 0, &err), 0);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_profile_t *p = cm_profile_new(getuid(), "tester", name, n, m, NULL,
                                     (time_t)when, &err);
    assert_non_null(p);
    if (cm_store_save(f->s, p, 1, &err) < 0)
        fail_msg("%s", err.msg);
    cm_profile_free(p);
    cm_matrix_free(m);
    cm_builder_free(b);
}

static cm_run_t run_at(int64_t when)
{
    cm_run_t r;
    memset(&r, 0, sizeof r);
    snprintf(r.jobid, sizeof r.jobid, "7.0");
    r.when = when;
    snprintf(r.how, sizeof r.how, "-");
    snprintf(r.program, sizeof r.program, "halo");
    r.elapsed_max = r.elapsed_mean = 2;
    return r;
}

static void add_run(fixture_t *f, const char *name, int n, int64_t when)
{
    cm_error_t err = { "" };
    cm_run_t r = run_at(when);
    if (cm_store_history_add(f->s, name, n, &r, &err) < 0)
        fail_msg("%s", err.msg);
}

static uint64_t size_of(fixture_t *f, const char *fname)
{
    char path[8192];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", cm_store_dir(f->s), fname);
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static int exists(fixture_t *f, const char *fname)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", cm_store_dir(f->s), fname);
    return access(path, F_OK) == 0;
}

/* The entry of @p file in a fresh listing (fails the test when absent). */
static cm_store_entry_t entry(fixture_t *f, const char *file)
{
    cm_error_t err = { "" };
    cm_store_entry_t *e, out;
    int n;
    assert_int_equal(cm_store_list(f->s, &e, &n, &err), 0);
    for (int k = 0; k < n; k++)
        if (!strcmp(e[k].file, file)) {
            out = e[k];
            free(e);
            return out;
        }
    free(e);
    fail_msg("%s not listed", file);
    return out;
}

static void test_last_use(void **state)
{
    (void)state;
    cm_run_t r[3] = { run_at(500), run_at(2000), run_at(1500) };

    assert_int_equal(cm_store_last_use(1000, NULL, 0), 1000);
    assert_int_equal(cm_store_last_use(1000, r, 1), 1000);   /* older run */
    assert_int_equal(cm_store_last_use(1000, r, 3), 2000);   /* any order */
    assert_int_equal(cm_store_last_use(3000, r, 3), 3000);
}

static void test_rule(void **state)
{
    (void)state;
    static const struct {
        int64_t older_than, unused_for, last_update, last_use;
        int valid, match;
    } t[] = {
        { -1, -1, 0, 0, 1, 0 },                  /* no condition: nothing */
        { 10 * DAY, -1, 0, 0, 0, 0 },            /* invalid: never */
        { 10 * DAY, -1, 90 * DAY, 90 * DAY, 1, 0 },  /* exactly 10 days */
        { 10 * DAY, -1, 90 * DAY - 1, 99 * DAY, 1, 1 },
        { -1, 10 * DAY, 10 * DAY, 90 * DAY, 1, 0 },
        { -1, 10 * DAY, 10 * DAY, 90 * DAY - 1, 1, 1 },
        { 10 * DAY, 10 * DAY, 10 * DAY, 95 * DAY, 1, 0 },  /* both needed */
        { 10 * DAY, 10 * DAY, 10 * DAY, 20 * DAY, 1, 1 },
        { 0, -1, 100 * DAY, 100 * DAY, 1, 0 },   /* 0 days: strictly before */
        { 0, -1, 100 * DAY - 1, 100 * DAY, 1, 1 },
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        cm_prune_rule_t r = { 100 * DAY, t[k].older_than, t[k].unused_for };
        cm_store_entry_t e;
        memset(&e, 0, sizeof e);
        e.valid = t[k].valid;
        e.last_update = t[k].last_update;
        e.last_use = t[k].last_use;
        if (cm_prune_rule_match(&r, &e) != t[k].match)
            fail_msg("case %zu: expected %d", k, t[k].match);
    }
}

static void test_list_sizes_and_last_use(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_store_entry_t e;

    save(f, "app", 4, 1000);
    e = entry(f, "app.4.json");
    assert_int_equal(e.valid, 1);
    assert_true(e.file_bytes == size_of(f, "app.4.json"));
    assert_true(e.file_bytes > 0);
    assert_int_equal(e.last_use, 1000);

    add_run(f, "app", 4, 5000);
    add_run(f, "app", 4, 4000);
    assert_int_equal(cm_store_mark_nompi(f->s, "app", 4, &err), 0);
    cm_test_write_file(cm_store_dir(f->s), "app.4.json.nompi", "x\n");
    e = entry(f, "app.4.json");
    assert_true(e.file_bytes == size_of(f, "app.4.json") +
                size_of(f, "app.4.json.runs") + 2);
    assert_int_equal(e.last_update, 1000);
    assert_int_equal(e.last_use, 5000);

    /* an unreadable history counts by its modification time */
    char path[8192];
    struct timespec ts[2] = { { 7000, 0 }, { 7000, 0 } };
    cm_test_write_file(cm_store_dir(f->s), "app.4.json.runs", "garbage\n");
    snprintf(path, sizeof path, "%s/app.4.json.runs", cm_store_dir(f->s));
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
    e = entry(f, "app.4.json");
    assert_int_equal(e.last_use, 7000);
}

static int pick_none(const cm_store_entry_t *e, void *arg)
{
    (void)arg;
    assert_int_equal(e->valid, 1);
    return 0;
}

static void test_delete_if(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_store_entry_t e;

    save(f, "app", 4, 1000);
    add_run(f, "app", 4, 2000);
    assert_int_equal(cm_store_mark_nompi(f->s, "app", 4, &err), 0);
    assert_int_equal(cm_store_delete_if(f->s, "app", 4, pick_none, NULL, &e,
                                        &err), 0);
    assert_true(exists(f, "app.4.json") && exists(f, "app.4.json.runs"));
    assert_int_equal(e.last_use, 2000);
    assert_int_equal(cm_store_delete_if(f->s, "app", 4, NULL, NULL, &e, &err), 1);
    assert_false(exists(f, "app.4.json") || exists(f, "app.4.json.runs") ||
                 exists(f, "app.4.json.nompi"));
    assert_int_equal(cm_store_delete_if(f->s, "app", 4, NULL, NULL, &e, &err), 0);
    assert_int_equal(e.valid, 0);
    /* plain delete: an invalid profile goes too, a missing one is an error */
    cm_test_write_file(cm_store_dir(f->s), "bad.2.json", "{}");
    assert_int_equal(cm_store_delete(f->s, "bad", 2, &err), 0);
    assert_int_equal(cm_store_delete(f->s, "bad", 2, &err), -1);
    assert_non_null(strstr(err.msg, "bad.2.json: no profile of 'bad'"));
    /* but nothing judged can be removed unread */
    cm_test_write_file(cm_store_dir(f->s), "bad.2.json", "{}");
    assert_int_equal(cm_store_delete_if(f->s, "bad", 2, pick_none, NULL, &e,
                                        &err), -1);
    assert_non_null(strstr(err.msg, "bad.2.json"));
    assert_true(exists(f, "bad.2.json"));
}

typedef struct seen {
    int removed, failed;
    char last[256];
} seen_t;

static void note(const cm_store_entry_t *e, cm_prune_status_t st,
                 const char *msg, void *arg)
{
    seen_t *s = arg;
    if (st == CM_PRUNE_FAILED) {
        assert_non_null(msg);
        s->failed++;
    } else {
        assert_null(msg);
        s->removed++;
        snprintf(s->last, sizeof s->last, "%s", e->job_name);
    }
}

static void test_prune(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_prune_rule_t r = { 100 * DAY, -1, 30 * DAY };
    cm_prune_total_t total = { 0, 0, 0, 0 };
    seen_t seen = { 0, 0, "" };
    uint64_t bytes;

    save(f, "old", 4, 10 * DAY);           /* unused for 90 days: goes */
    save(f, "fresh", 4, 95 * DAY);         /* stays */
    save(f, "placed", 4, 10 * DAY);        /* old, but run 5 days ago */
    add_run(f, "placed", 4, 95 * DAY);
    add_run(f, "old", 4, 20 * DAY);
    bytes = size_of(f, "old.4.json") + size_of(f, "old.4.json.runs");

    /* dry run: reported, nothing removed */
    assert_int_equal(cm_store_prune(f->s, &r, CM_PRUNE_DRY_RUN, note, &seen,
                                    &total, &err), 0);
    assert_int_equal(seen.removed, 1);
    assert_string_equal(seen.last, "old");
    assert_int_equal(total.removed, 1);
    assert_true(total.bytes == bytes);
    assert_true(exists(f, "old.4.json") && exists(f, "old.4.json.runs"));

    /* the real thing, adding to the totals */
    assert_int_equal(cm_store_prune(f->s, &r, 0, note, &seen, &total, &err), 0);
    assert_int_equal(total.removed, 2);
    assert_true(total.bytes == 2 * bytes);
    assert_false(exists(f, "old.4.json") || exists(f, "old.4.json.runs"));
    assert_true(exists(f, "fresh.4.json") && exists(f, "placed.4.json"));

    /* by age of the last update, the run does not count */
    r.older_than = 30 * DAY;
    r.unused_for = -1;
    memset(&seen, 0, sizeof seen);
    assert_int_equal(cm_store_prune(f->s, &r, 0, note, &seen, &total, &err), 0);
    assert_string_equal(seen.last, "placed");
    assert_false(exists(f, "placed.4.json") || exists(f, "placed.4.json.runs"));

    /* an invalid profile is kept and reported */
    cm_test_write_file(cm_store_dir(f->s), "bad.2.json", "{}");
    memset(&seen, 0, sizeof seen);
    assert_int_equal(cm_store_prune(f->s, &r, 0, note, &seen, &total, &err), -1);
    assert_int_equal(seen.failed, 1);
    assert_int_equal(total.failed, 1);
    assert_non_null(strstr(err.msg, "bad.2.json"));
    assert_true(exists(f, "bad.2.json") && exists(f, "fresh.4.json"));
}

/* A lock the user keeps: the rest of this store is skipped within the
 * wait, reported as skipped (not failed), nothing removed; the next prune
 * removes it once the lock is free. */
static void test_prune_lock_held(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    cm_prune_rule_t r = { 100 * DAY, -1, 30 * DAY };
    cm_prune_total_t total = { 0, 0, 0, 0 };
    seen_t seen = { 0, 0, "" };
    char lock[8192];

    save(f, "old", 4, 10 * DAY);
    save(f, "older", 4, 5 * DAY);
    snprintf(lock, sizeof lock, "%s/.lock", cm_store_dir(f->s));
    int held = open(lock, O_RDONLY | O_CLOEXEC);
    assert_true(held >= 0);
    assert_int_equal(flock(held, LOCK_EX), 0);
    cm_store_set_lock_wait(f->s, 200);
    errno = 0;
    assert_int_equal(cm_store_prune(f->s, &r, 0, note, &seen, &total, &err), -1);
    assert_int_equal(errno, ETIMEDOUT);
    assert_int_equal(total.skipped, 1);
    assert_int_equal(total.failed, 0);
    assert_int_equal(total.removed, 0);
    assert_int_equal(seen.removed + seen.failed, 0);
    assert_non_null(strstr(err.msg, ".lock: held by another process for more than 0.2 s; "
                                    "the profiles of "));
    assert_true(exists(f, "old.4.json") && exists(f, "older.4.json"));
    close(held);
    assert_int_equal(cm_store_prune(f->s, &r, 0, note, &seen, &total, &err), 0);
    assert_int_equal(total.removed, 2);
    assert_false(exists(f, "old.4.json") || exists(f, "older.4.json"));
}

static void test_uids(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    char path[8192];
    uid_t *u;
    int n;
    static const char *const dirs[] = { "1000", "abc", "007", "4294967295",
                                        "99999999999" };

    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", f->store, dirs[k]);
        assert_int_equal(mkdir(path, 0700), 0);
    }
    cm_test_write_file(f->store, "42", "");   /* listed; opening checks it */
    assert_int_equal(cm_store_uids(f->store, &u, &n, &err), 0);
    uid_t me = getuid();
    uid_t want[3] = { 42, 1000, me };
    int nwant = me == 42 || me == 1000 ? 2 : 3;
    /* sorted, the caller's own directory wherever it falls */
    for (int i = 0; i < nwant; i++)
        for (int j = i + 1; j < nwant; j++)
            if (want[j] < want[i]) {
                uid_t t = want[i];
                want[i] = want[j];
                want[j] = t;
            }
    assert_int_equal(n, nwant);
    for (int k = 0; k < n; k++)
        assert_int_equal(u[k], want[k]);
    free(u);

    snprintf(path, sizeof path, "%s/none", f->root);
    assert_int_equal(cm_store_uids(path, &u, &n, &err), 0);
    assert_int_equal(n, 0);
    assert_null(u);
    assert_int_equal(cm_store_uids("relative", &u, &n, &err), -1);
    assert_non_null(strstr(err.msg, "relative"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_last_use),
        cmocka_unit_test(test_rule),
        CASE(test_list_sizes_and_last_use),
        CASE(test_delete_if),
        CASE(test_prune),
        CASE(test_prune_lock_held),
        CASE(test_uids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
