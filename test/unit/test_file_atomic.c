/* test_file_atomic.c -- output files (src/core/file_atomic.c): what may be
 * replaced (nothing but an absent name or a regular file of the caller),
 * modes kept, and no temporary file left behind on any failure. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testdata.h"

/* The uid root lends files to and borrows for the read-only case. */
#define OTHER_UID 65534

static const char *const NEW_TEXT = "new content\n";
static const char *const OLD_TEXT = "old content\n";

typedef struct fixture {
    char *dir;          /* temporary directory of the test */
    char base[4096];    /* the directory of the current case, in dir */
    char path[4200];    /* the target of the case */
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    f->dir = cm_test_mkdtemp();
    snprintf(f->base, sizeof f->base, "%s", f->dir);
    umask(022);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    char cmd[4200];

    /* The cases leave directories and read-only ones behind. */
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' && rm -rf '%s'", f->dir,
             f->dir);
    if (system(cmd) != 0)
        return -1;
    free(f->dir);
    free(f);
    return 0;
}

/* The entries of @p dir, sorted and joined by '/', in @p buf. */
static const char *listing(const char *dir, char *buf, size_t size)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    size_t len = 0;

    assert_true(n >= 0);
    buf[0] = '\0';
    for (int k = 0; k < n; k++) {
        if (strcmp(names[k]->d_name, ".") && strcmp(names[k]->d_name, ".."))
            len += (size_t)snprintf(buf + len, len < size ? size - len : 0,
                                    "%s/", names[k]->d_name);
        free(names[k]);
    }
    free(names);
    assert_true(len < size);
    return buf;
}

/* Fail when the directory of @p path holds a temporary of it. */
static void assert_no_temp(const char *path)
{
    char dir[4096], prefix[4200];
    const char *slash = strrchr(path, '/');
    DIR *d;
    struct dirent *e;

    assert_non_null(slash);
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    snprintf(prefix, sizeof prefix, "%s.tmp.", slash + 1);
    d = opendir(dir[0] ? dir : "/");
    if (!d && errno == ENOENT)
        return;   /* no directory, no temporary */
    assert_non_null(d);
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            fail_msg("temporary %s/%s left behind", dir, e->d_name);
    closedir(d);
}

static void write_text(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
}

static void assert_text(const char *path, const char *want)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    assert_string_equal(buf, want);
}

/* Write NEW_TEXT to @p path: 0 or -1 as cm_file_atomic_open() or the
 * commit returned, @p err filled. */
static int replace(const char *path, cm_error_t *err)
{
    cm_file_atomic_t *a = cm_file_atomic_open(path, err);
    if (!a)
        return -1;
    assert_true(fputs(NEW_TEXT, cm_file_atomic_stream(a)) >= 0);
    return cm_file_atomic_commit(a, err);
}

/* -- setups: each makes the target of a case in f->base, sets f->path --- */

static void at(fixture_t *f, const char *name)
{
    snprintf(f->path, sizeof f->path, "%s/%s", f->base, name);
}

static void make_nothing(fixture_t *f) { at(f, "out"); }

static void make_file_0640(fixture_t *f)
{
    at(f, "out");
    write_text(f->path, OLD_TEXT, 0640);
}

static void make_symlink(fixture_t *f)
{
    char real[4300];
    snprintf(real, sizeof real, "%s/real", f->base);
    write_text(real, OLD_TEXT, 0644);
    at(f, "out");
    assert_int_equal(symlink("real", f->path), 0);
}

static void make_dir(fixture_t *f)
{
    at(f, "out");
    assert_int_equal(mkdir(f->path, 0755), 0);
}

static void make_fifo(fixture_t *f)
{
    at(f, "out");
    assert_int_equal(mkfifo(f->path, 0644), 0);
}

/* A socket node stays after its descriptor is closed. */
static void make_socket(fixture_t *f)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    at(f, "out");
    assert_true(fd >= 0);
    if (strlen(f->path) >= sizeof addr.sun_path)
        fail_msg("socket path %s too long", f->path);
    memcpy(addr.sun_path, f->path, strlen(f->path) + 1);
    assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    close(fd);
}

/* /dev/null, or for root a private character device 1,3: should the
 * check ever break, root would replace the node it aims at. */
static void make_dev_null(fixture_t *f)
{
    at(f, "null");
    if (mknod(f->path, S_IFCHR | 0666, makedev(1, 3)) == 0)
        return;
    if (geteuid() == 0)
        fail_msg("root cannot make a device node: %s", strerror(errno));
    snprintf(f->path, sizeof f->path, "/dev/null");
}

static void make_no_dir(fixture_t *f) { at(f, "nodir/out"); }

static void make_trailing_slash(fixture_t *f) { at(f, "newdir/"); }

static void make_linked_dir(fixture_t *f)
{
    char real[4300];
    snprintf(real, sizeof real, "%s/realdir", f->base);
    assert_int_equal(mkdir(real, 0755), 0);
    at(f, "dirlink");
    assert_int_equal(symlink("realdir", f->path), 0);
    at(f, "dirlink/out");
}

static void make_other_users(fixture_t *f)
{
    make_file_0640(f);
    assert_int_equal(chown(f->path, OTHER_UID, (gid_t)-1), 0);
}

typedef struct open_case {
    const char *label;
    void (*make)(fixture_t *f);
    const char *want;   /* NULL: replaced; else in the error message */
    mode_t mode;        /* of the target after a replacement */
} open_case_t;

/* Run @p c in @p f: a refusal names the path and leaves the target and
 * its directory exactly as they were; a replacement writes NEW_TEXT with
 * the expected mode; neither leaves a temporary behind. */
static void run_case(fixture_t *f, const open_case_t *c)
{
    cm_error_t err = { "" };
    struct stat before, after;
    char list_before[4096], list_after[4096];
    int existed;

    c->make(f);
    existed = lstat(f->path, &before) == 0;
    listing(f->base, list_before, sizeof list_before);
    int rc = replace(f->path, &err);
    if (!c->want) {
        if (rc != 0)
            fail_msg("%s: expected success, got \"%s\"", c->label, err.msg);
        assert_text(f->path, NEW_TEXT);
        assert_int_equal(lstat(f->path, &after), 0);
        assert_true(S_ISREG(after.st_mode));
        assert_int_equal(after.st_mode & 07777, c->mode);
    } else {
        assert_int_equal(rc, -1);
        if (!strstr(err.msg, c->want) || !strstr(err.msg, f->path))
            fail_msg("%s: error \"%s\" lacks \"%s\" or the path", c->label,
                     err.msg, c->want);
        assert_string_equal(listing(f->base, list_after, sizeof list_after),
                            list_before);
        assert_int_equal(lstat(f->path, &after) == 0, existed);
        if (existed) {
            assert_int_equal(after.st_ino, before.st_ino);
            assert_int_equal(after.st_mode, before.st_mode);
            assert_int_equal(after.st_uid, before.st_uid);
        }
    }
    if (strrchr(f->path, '/')[1])
        assert_no_temp(f->path);
}

static void test_bad_arguments(void **state)
{
    cm_error_t err = { "" };
    (void)state;

    assert_null(cm_file_atomic_open(NULL, &err));
    assert_non_null(strstr(err.msg, "expected a path, got NULL"));
    assert_null(cm_file_atomic_open("", &err));
    assert_non_null(strstr(err.msg, "empty"));
    assert_null(cm_file_atomic_open(NULL, NULL));
    assert_null(cm_file_atomic_stream(NULL));
    assert_int_equal(cm_file_atomic_commit(NULL, &err), -1);
    assert_non_null(strstr(err.msg, "NULL"));
    cm_file_atomic_abort(NULL);
}

static void test_targets(void **state)
{
    static const open_case_t cases[] = {
        { "missing directory", make_no_dir, "cannot open its directory", 0 },
        { "trailing slash", make_trailing_slash, "expected a file name", 0 },
        { "symlinked directory", make_linked_dir, "is a symbolic link", 0 },
        { "absent", make_nothing, NULL, 0644 },
        { "regular 0640", make_file_0640, NULL, 0640 },
        { "symlink", make_symlink, "not a regular file (a symbolic link)", 0 },
        { "directory", make_dir, "not a regular file (a directory)", 0 },
        { "fifo", make_fifo, "not a regular file (a FIFO)", 0 },
        { "socket", make_socket, "not a regular file (a socket)", 0 },
        { "/dev/null", make_dev_null, "not a regular file (a character device)", 0 },
    };
    fixture_t *f = *state;

    /* Each case in a directory of its own, so that nothing is shared. */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(f->base, sizeof f->base, "%s/case%zu", f->dir, k);
        assert_int_equal(mkdir(f->base, 0755), 0);
        run_case(f, &cases[k]);
        if (cases[k].make == make_symlink) {
            char real[4300];
            /* The link's target was not written through. */
            snprintf(real, sizeof real, "%s/real", f->base);
            assert_text(real, OLD_TEXT);
        }
    }
}

static void test_umask(void **state)
{
    static const open_case_t c = { "umask 027", make_nothing, NULL, 0640 };
    fixture_t *f = *state;

    umask(027);
    run_case(f, &c);
    umask(022);
}

static void test_other_users_file(void **state)
{
    /* The message says whose the file is. */
    static const open_case_t c = { "other user's", make_other_users,
                                   "owned by ", 0 };
    static const open_case_t whose = { "other user's", make_other_users,
                                       "uid 65534", 0 };
    fixture_t *f = *state;

    if (geteuid() != 0)
        skip();   /* only root can make a file of another user */
    run_case(f, &c);
    assert_text(f->path, OLD_TEXT);
    unlink(f->path);
    run_case(f, &whose);
}

/* A directory the writer cannot write to: root is made an ordinary user
 * for the call (seteuid), since permissions do not stop it. */
static void test_read_only_dir(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    char list[256];
    int root = geteuid() == 0;

    snprintf(f->base, sizeof f->base, "%s/ro", f->dir);
    assert_int_equal(mkdir(f->base, 0755), 0);
    at(f, "out");
    assert_int_equal(chmod(f->base, 0555), 0);
    assert_int_equal(chmod(f->dir, 0755), 0);
    if (root)
        assert_int_equal(seteuid(OTHER_UID), 0);
    cm_file_atomic_t *a = cm_file_atomic_open(f->path, &err);
    if (root)
        assert_int_equal(seteuid(0), 0);
    assert_null(a);
    if (!strstr(err.msg, "Permission denied") || !strstr(err.msg, f->path))
        fail_msg("unexpected error \"%s\"", err.msg);
    assert_string_equal(listing(f->base, list, sizeof list), "");
}

/* The target turned into something else between open and commit: the
 * commit refuses, removes its temporary and leaves the intruder alone. */
static void test_swapped_before_commit(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    char list[256];
    struct stat st;

    make_file_0640(f);
    cm_file_atomic_t *a = cm_file_atomic_open(f->path, &err);
    assert_non_null(a);
    fputs(NEW_TEXT, cm_file_atomic_stream(a));
    assert_int_equal(unlink(f->path), 0);
    assert_int_equal(symlink("/dev/null", f->path), 0);
    assert_int_equal(cm_file_atomic_commit(a, &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file (a symbolic link)"));
    assert_int_equal(lstat(f->path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(listing(f->dir, list, sizeof list), "out/");
}

/* abort and a failed write both keep the old content and no temporary. */
static void test_abort_and_write_error(void **state)
{
    fixture_t *f = *state;
    cm_error_t err = { "" };
    char list[256];

    make_file_0640(f);
    cm_file_atomic_t *a = cm_file_atomic_open(f->path, &err);
    assert_non_null(a);
    fputs(NEW_TEXT, cm_file_atomic_stream(a));
    cm_file_atomic_abort(a);
    assert_text(f->path, OLD_TEXT);
    assert_string_equal(listing(f->dir, list, sizeof list), "out/");

    /* Closing the descriptor under the stream makes its flush fail. */
    a = cm_file_atomic_open(f->path, &err);
    assert_non_null(a);
    fputs(NEW_TEXT, cm_file_atomic_stream(a));
    close(fileno(cm_file_atomic_stream(a)));
    assert_int_equal(cm_file_atomic_commit(a, &err), -1);
    assert_non_null(strstr(err.msg, "cannot write"));
    assert_non_null(strstr(err.msg, f->path));
    assert_text(f->path, OLD_TEXT);
    assert_string_equal(listing(f->dir, list, sizeof list), "out/");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test_setup_teardown(test_targets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_umask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_users_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_only_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_swapped_before_commit, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_abort_and_write_error, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
