/* test_as_user.c -- the child that runs code as the job's user
 * (src/plugin/as_user.c, linked alone: it uses no Slurm symbol): it keeps
 * standard input, output and error only, whatever descriptors its parent
 * (slurmstepd: its log, its sockets, its pipes) had open. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plugin_spank.h"

/* In the child: its open descriptors, as "N N ...", on its stdout. */
static int list_fds(void *p)
{
    (void)p;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 3;
    int mine = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && atoi(e->d_name) != mine)
            printf("%s ", e->d_name);
    closedir(d);
    fflush(stdout);
    return 0;
}

static void test_child_keeps_std_only(void **state)
{
    (void)state;
    int extra[5], p[2];
    for (int k = 0; k < 5; k++)
        extra[k] =
            open("/dev/null", O_RDONLY); /* not close-on-exec, as slurmstepd's log */
    assert_int_equal(pipe(p), 0);
    char out[256];
    cm_error_t err;
    int rc = cmp_as_user_output(getuid(), getgid(), 5.0, list_fds, NULL, out, sizeof out,
                                &err);
    assert_int_equal(rc, 0);
    assert_string_equal(out, "0 1 2 ");
    /* without captured output: the same three, on /dev/null */
    assert_int_equal(cmp_as_user(getuid(), getgid(), 5.0, list_fds, NULL, &err), 0);
    for (int k = 0; k < 5; k++)
        close(extra[k]);
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_child_keeps_std_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
