/* test_leftovers.c -- the hostfiles of killed sruns (src/launch/leftovers.c):
 * which names a sweep removes (a dead srun's of this host; the job's, in
 * its epilog) and which it leaves (a live srun's, another host's, another
 * user's, a link, a directory, a file with two links). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmp_leftovers.h"
#include "testdata.h"

/* A pid that no process has now: a child's, reaped. */
static long dead_pid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    return (long)p;
}

static void make(int dir, const char *name)
{
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);
}

static int exists(int dir, const char *name)
{
    struct stat st;
    return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void test_template(void **state)
{
    (void)state;
    char *t = cmp_hostfile_template("/tmp", "42", 77, "n1.site");
    assert_string_equal(t, "/tmp/clustermap-hosts.42.77.n1_site.XXXXXX");
    free(t);
}

static void test_sweep(void **state)
{
    (void)state;
    char *path = cm_test_mkdtemp();
    int dir = open(path, O_RDONLY | O_DIRECTORY);
    char dead[128], live[128], other[128], job[128], link[128], twice[128], sub[128];
    long pid = dead_pid();
    uid_t me = getuid();
    snprintf(dead, sizeof dead, "clustermap-hosts.5.%ld.n1.abcdef", pid);
    snprintf(live, sizeof live, "clustermap-hosts.5.%ld.n1.abcdef", (long)getppid());
    snprintf(other, sizeof other, "clustermap-hosts.5.%ld.n2.abcdef", pid);
    snprintf(job, sizeof job, "clustermap-hosts.9.%ld.n2.ghijkl", (long)getppid());
    snprintf(link, sizeof link, "clustermap-hosts.6.%ld.n1.abcdef", pid);
    snprintf(twice, sizeof twice, "clustermap-hosts.7.%ld.n1.abcdef", pid);
    snprintf(sub, sizeof sub, "clustermap-hosts.8.%ld.n1.abcdef", pid);
    make(dir, dead);
    make(dir, live);
    make(dir, other);
    make(dir, job);
    make(dir, "keep");
    assert_int_equal(symlinkat("keep", dir, link), 0);
    make(dir, twice);
    assert_int_equal(linkat(dir, twice, dir, "twice.too", 0), 0);
    assert_int_equal(mkdirat(dir, sub, 0700), 0);

    /* the next step on n1: the dead srun's file only */
    assert_int_equal(cmp_hostfile_sweep(dir, me, NULL, "n1"), 1);
    assert_false(exists(dir, dead));
    assert_true(exists(dir, live) && exists(dir, other) && exists(dir, job));
    assert_true(exists(dir, link) && exists(dir, twice) && exists(dir, sub));
    /* another user's: never */
    assert_int_equal(cmp_hostfile_sweep(dir, me + 1, "5", NULL), 0);
    /* job 9's epilog: its file, whatever its srun */
    assert_int_equal(cmp_hostfile_sweep(dir, me, "9", NULL), 1);
    assert_false(exists(dir, job));
    assert_true(exists(dir, "keep"));
    assert_int_equal(cmp_hostfile_sweep(dir, me, NULL, NULL), 0);
    assert_int_equal(cmp_hostfile_sweep(-1, me, "5", NULL), 0);
    close(dir);
    cm_test_rmtree(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_template),
        cmocka_unit_test(test_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
