/* test_dirwalk.c -- root's walk over a private directory a user filled
 * (src/launch/dirwalk.c): links are removed, never followed; modes 0500
 * and 0000 stop nothing; any depth goes with a bounded stack; the entry
 * bound stops the walk and says so; the usage walk changes nothing. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmp_dirwalk.h"
#include "testdata.h"

/* A victim file outside the walked directory, behind links inside it. */
static void fill(int top, const char *outside)
{
    assert_int_equal(mkdirat(top, "keep", 0700), 0);
    int fd = openat(top, "keep/blob", O_WRONLY | O_CREAT, 0600);
    assert_true(fd >= 0);
    char buf[8192];
    memset(buf, 'x', sizeof buf);
    assert_int_equal(write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
    close(fd);
    assert_int_equal(symlinkat(outside, top, "keep/dirlink"), 0);
    assert_int_equal(symlinkat(outside, top, "filelink"), 0);
    assert_int_equal(mkfifoat(top, "fifo", 0600), 0);
    assert_int_equal(mkdirat(top, "locked", 0700), 0);
    assert_int_equal(mkdirat(top, "locked/inner", 0700), 0);
    fd = openat(top, "locked/inner/f", O_WRONLY | O_CREAT, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(fchmodat(top, "locked/inner", 0000, 0), 0);
    assert_int_equal(fchmodat(top, "locked", 0500, 0), 0);
    assert_int_equal(fchmodat(top, "keep", 0500, 0), 0);
}

static void test_remove_never_follows(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    char step[4200], outside[4200];
    snprintf(outside, sizeof outside, "%s/outside", dir);
    assert_int_equal(mkdir(outside, 0700), 0);
    cm_test_write_file(outside, "precious", "keep me");
    snprintf(step, sizeof step, "%s/job1.0.x", dir);
    assert_int_equal(mkdir(step, 0700), 0);
    int top = open(step, O_RDONLY | O_DIRECTORY);
    assert_true(top >= 0);
    fill(top, outside);
    close(top);
    assert_int_equal(chmod(step, 0500), 0);

    int parent = open(dir, O_RDONLY | O_DIRECTORY);
    cmp_dirwalk_stat_t st;
    cm_error_t err;
    assert_int_equal(cmp_dirwalk_remove(parent, "job1.0.x", 1000, &st, &err), 0);
    struct stat sb;
    assert_int_equal(fstatat(parent, "job1.0.x", &sb, AT_SYMLINK_NOFOLLOW), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(fstatat(parent, "outside/precious", &sb, 0), 0);
    assert_true(st.bytes >= 8192);
    assert_int_equal(st.entries, 8);
    /* gone already: nothing to do */
    assert_int_equal(cmp_dirwalk_remove(parent, "job1.0.x", 1000, NULL, &err), 0);
    /* a link in the step's place: only the link goes */
    assert_int_equal(symlinkat("outside", parent, "job2.0.x"), 0);
    assert_int_equal(cmp_dirwalk_remove(parent, "job2.0.x", 1000, NULL, &err), 0);
    assert_int_equal(fstatat(parent, "outside/precious", &sb, 0), 0);
    assert_int_equal(cmp_dirwalk_remove(parent, "../x", 10, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "expected a directory's name"));
    close(parent);
    cm_test_rmtree(dir);
}

/* A chain far deeper than the walk's stack, each level mode 0500. */
static void test_remove_any_depth(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    int parent = open(dir, O_RDONLY | O_DIRECTORY);
    assert_int_equal(mkdirat(parent, "deep", 0700), 0);
    int fd = openat(parent, "deep", O_RDONLY | O_DIRECTORY);
    const int levels = 10 * CMP_DIRWALK_MAX_DEPTH + 3;
    for (int i = 0; i < levels; i++) {
        assert_int_equal(mkdirat(fd, "d", 0700), 0);
        int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
        assert_true(next >= 0);
        if (i % 7 == 0)
            fchmod(fd, 0500);
        close(fd);
        fd = next;
    }
    int f = openat(fd, "bottom", O_WRONLY | O_CREAT, 0600);
    close(f);
    close(fd);

    cmp_dirwalk_stat_t st;
    cm_error_t err;
    assert_int_equal(cmp_dirwalk_usage(openat(parent, "deep", O_RDONLY | O_DIRECTORY),
                                       100000, &st, &err),
                     0);
    assert_int_equal(st.too_deep, 1);
    assert_int_equal(cmp_dirwalk_remove(parent, "deep", 100000, &st, &err), 0);
    struct stat sb;
    assert_int_equal(fstatat(parent, "deep", &sb, AT_SYMLINK_NOFOLLOW), -1);
    assert_int_equal(st.entries >= levels + 1, 1);
    close(parent);
    cm_test_rmtree(dir);
}

/* The entry bound stops the walk with a reason; a second walk goes on. */
static void test_entry_bound(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    int parent = open(dir, O_RDONLY | O_DIRECTORY);
    assert_int_equal(mkdirat(parent, "many", 0700), 0);
    int top = openat(parent, "many", O_RDONLY | O_DIRECTORY);
    char name[32];
    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof name, "f%d", i);
        close(openat(top, name, O_WRONLY | O_CREAT, 0600));
    }
    cmp_dirwalk_stat_t st;
    cm_error_t err;
    assert_int_equal(cmp_dirwalk_usage(top, 10, &st, &err), 0);
    assert_true(st.entries > 10);
    assert_int_equal(cmp_dirwalk_usage(top, 1000, &st, &err), 0);
    assert_int_equal(st.entries, 50);
    assert_int_equal(st.too_deep, 0);
    close(top);
    assert_int_equal(cmp_dirwalk_remove(parent, "many", 20, &st, &err), -1);
    assert_non_null(strstr(err.msg, "more than 20 entries"));
    assert_int_equal(cmp_dirwalk_remove(parent, "many", 20, &st, &err), -1);
    assert_int_equal(cmp_dirwalk_remove(parent, "many", 20, &st, &err), 0);
    struct stat sb;
    assert_int_equal(fstatat(parent, "many", &sb, AT_SYMLINK_NOFOLLOW), -1);
    close(parent);
    cm_test_rmtree(dir);
}

/* A directory on another file system inside is not crossed (needs the
 * privilege to mount a tmpfs: without it, only the plain removal runs). */
static void test_mount_point_refused(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    char m[4200];
    int parent = open(dir, O_RDONLY | O_DIRECTORY);
    assert_int_equal(mkdirat(parent, "step", 0700), 0);
    assert_int_equal(mkdirat(parent, "step/m", 0700), 0);
    snprintf(m, sizeof m, "%s/step/m", dir);
    cmp_dirwalk_stat_t st;
    cm_error_t err;
    if (mount("cm-test", m, "tmpfs", 0, "size=64k") == 0) {
        cm_test_write_file(m, "inside", "x");
        assert_int_equal(cmp_dirwalk_remove(parent, "step", 10, &st, &err), -1);
        assert_non_null(strstr(err.msg, "a mount point: not crossed"));
        struct stat sb;
        assert_int_equal(stat(m, &sb) == 0 && umount(m) == 0, 1);
    }
    assert_int_equal(cmp_dirwalk_remove(parent, "step", 10, &st, &err), 0);
    close(parent);
    cm_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_remove_never_follows),
        cmocka_unit_test(test_remove_any_depth),
        cmocka_unit_test(test_entry_bound),
        cmocka_unit_test(test_mount_point_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
