/* test_util_file.c -- the safe open and the bounded reader every reader
 * of the store, the profiles and the plugin goes through
 * (src/util/cm_file.c): what each refuses, with which errno and words,
 * and that a file exactly at the bound is read whole. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cm_file.h"
#include "testdata.h"

/* cm_file_open_at on entries made in a fresh directory: one row each. */
static void test_open_at(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    char path[4200];
    cm_test_write_file(dir, "mine", "x");
    cm_test_write_file(dir, "open", "x");
    snprintf(path, sizeof path, "%s/open", dir);
    assert_int_equal(chmod(path, 0666), 0);
    snprintf(path, sizeof path, "%s/link", dir);
    assert_int_equal(symlink("mine", path), 0);
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(path, sizeof path, "%s/sub", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/dlink", dir);
    assert_int_equal(symlink("sub", path), 0);
    snprintf(path, sizeof path, "%s/pub", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(dfd >= 0);
    uid_t me = geteuid();
    static const struct {
        const char *name;
        int want_dir;
        int other_owner;
        mode_t forbidden;
        int err;           /* 0: opens */
        const char *words; /* in the message */
    } rows[] = {
        { "mine", 0, 0, 022, 0, NULL },
        { "mine", 0, -1, 0, 0, NULL }, /* any owner */
        { "absent", 0, 0, 022, ENOENT, NULL },
        { "link", 0, 0, 0, ELOOP,
          "link: is a symbolic link; refusing to "
          "follow it" },
        /* O_DIRECTORY sees the link itself: not a directory */
        { "dlink", 1, 0, 0, ENOTDIR, "dlink: cannot open" },
        { "fifo", 0, 0, 0, EPERM, "fifo: not a regular file" },
        { "sub", 0, 0, 0, EPERM, "sub: not a regular file" },
        { "mine", 1, 0, 0, ENOTDIR, "mine: cannot open" },
        { "open", 0, 0, 022, EPERM,
          "open: mode 0666, expected no group or "
          "world write permission" },
        { "sub", 1, 0, 077, 0, NULL },
        { "pub", 1, 0, 077, EPERM,
          "pub: mode 0755, expected no group or "
          "world permission" },
        { "mine", 0, 1, 0, EPERM, "mine: owned by uid" },
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        cm_file_want_t want = { rows[k].want_dir,
                                rows[k].other_owner < 0   ? CM_FILE_ANY_OWNER
                                    : rows[k].other_owner ? me + 1
                                                          : me,
                                rows[k].forbidden };
        cm_error_t err = { "untouched" };
        errno = 0;
        int fd = cm_file_open_at(dfd, rows[k].name, rows[k].name, &want, &err);
        if (!rows[k].err) {
            if (fd < 0)
                fail_msg("row %zu (%s): %s", k, rows[k].name, err.msg);
            close(fd);
            continue;
        }
        assert_int_equal(fd, -1);
        if (errno != rows[k].err)
            fail_msg("row %zu (%s): errno %d, expected %d", k, rows[k].name, errno,
                     rows[k].err);
        if (rows[k].words)
            assert_non_null(strstr(err.msg, rows[k].words));
        else
            assert_string_equal(err.msg, "untouched"); /* ENOENT: silent */
    }
    close(dfd);
    cm_test_rmtree(dir);
}

/* cm_file_read_fd: the bound is inclusive; over it, EFBIG with the size;
 * anything but a regular file, EINVAL. */
static void test_read_bounds(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    const char *path = cm_test_write_file(dir, "ten", "0123456789");
    cm_error_t err = { "" };
    size_t len = 99;
    int fd = open(path, O_RDONLY);
    char *text = cm_file_read_fd(fd, "ten", 10, &len, &err);
    assert_non_null(text);
    assert_int_equal(len, 10);
    assert_string_equal(text, "0123456789");
    free(text);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    errno = 0;
    assert_null(cm_file_read_fd(fd, "ten", 9, &len, &err));
    assert_int_equal(errno, EFBIG);
    assert_int_equal(len, 10);
    assert_string_equal(err.msg,
                        "ten: file is 10 bytes, more than the limit "
                        "of 9 bytes");
    close(fd);
    /* empty, bound 0 */
    fd = open(cm_test_write_file(dir, "empty", ""), O_RDONLY);
    text = cm_file_read_fd(fd, "empty", 0, &len, &err);
    assert_non_null(text);
    assert_int_equal(len, 0);
    assert_string_equal(text, "");
    free(text);
    close(fd);
    /* a directory, a character device */
    const char *bad[] = { dir, "/dev/null" };
    for (int k = 0; k < 2; k++) {
        fd = open(bad[k], O_RDONLY);
        assert_true(fd >= 0);
        errno = 0;
        assert_null(cm_file_read_fd(fd, bad[k], 100, &len, &err));
        assert_int_equal(errno, EINVAL);
        assert_non_null(strstr(err.msg, "not a regular file"));
        close(fd);
    }
    cm_test_rmtree(dir);
}

/* cm_file_open_dir_safe: links, writable directories and missing parents
 * refused, with the errno callers act on; only the last component made. */
static void test_dir_open_safe(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    char path[4200], link[4200];
    cm_error_t err = { "" };
    errno = 0;
    assert_int_equal(cm_file_open_dir_safe("relative", 0, "store", &err), -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(err.msg, "expected an absolute path for the store"));
    snprintf(path, sizeof path, "%s/new", dir);
    assert_int_equal(cm_file_open_dir_safe(path, 0, "store", &err), -1);
    assert_int_equal(errno, ENOENT);
    int fd = cm_file_open_dir_safe(path, 1, "store", &err);
    if (fd < 0)
        fail_msg("%s", err.msg);
    close(fd);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0711);
    snprintf(path, sizeof path, "%s/no/such", dir);
    assert_int_equal(cm_file_open_dir_safe(path, 1, "cache", &err), -1);
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(err.msg, "cannot open the cache directory"));
    snprintf(link, sizeof link, "%s/link", dir);
    snprintf(path, sizeof path, "%s/new", dir);
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(cm_file_open_dir_safe(link, 0, "store", &err), -1);
    assert_non_null(strstr(err.msg,
                           "a symbolic link or not a directory at "
                           "'link'; refusing the store"));
    assert_int_equal(chmod(path, 0777), 0);
    errno = 0;
    assert_int_equal(cm_file_open_dir_safe(path, 0, "store", &err), -1);
    assert_int_equal(errno, EPERM);
    assert_non_null(strstr(err.msg,
                           "mode 0777, expected no group or world "
                           "write permission; refusing the store"));
    cm_test_rmtree(dir);
}

/* cm_file_lock: a lock held through another open file is waited for at
 * most the bound (ETIMEDOUT), a free one is taken at once. */
static void test_lock_bound(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp(), path[8192];
    struct timespec t0, t1;

    snprintf(path, sizeof path, "%s/l", dir);
    int a = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
    int b = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(a >= 0 && b >= 0);
    assert_int_equal(cm_file_lock(a, 0), 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    errno = 0;
    assert_int_equal(cm_file_lock(b, 250), -1);
    assert_int_equal(errno, ETIMEDOUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    assert_true(took >= 0.24 && took < 1.5);
    errno = 0;
    assert_int_equal(cm_file_lock(b, 0), -1);
    assert_int_equal(errno, ETIMEDOUT);
    close(a);
    assert_int_equal(cm_file_lock(b, 250), 0);
    assert_int_equal(cm_file_lock(-1, 10), -1);
    assert_int_equal(errno, EBADF);
    close(b);
    unlink(path);
    rmdir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_at),
        cmocka_unit_test(test_read_bounds),
        cmocka_unit_test(test_dir_open_safe),
        cmocka_unit_test(test_lock_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
