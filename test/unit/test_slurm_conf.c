/* test_slurm_conf.c -- slurm.conf and plugstack.conf found as Slurm's
 * clients find them (src/launch/slurm_conf.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "launch.h"

static char dir[] = "/tmp/cm-slurmconf.XXXXXX";

static char *in_dir(const char *name)
{
    char *s = NULL;
    assert_true(asprintf(&s, "%s/%s", dir, name) > 0);
    return s;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* SLURM_CONF as it is (even naming nothing), else the built-in file when
 * it exists, else slurmd's cached copy when it exists, else none. */
static void test_find_order(void **state)
{
    (void)state;
    char *builtin = in_dir("etc-slurm.conf"), *cached = in_dir("run-slurm.conf");
    char *s;
    s = cmp_slurm_conf_find("/nowhere/slurm.conf", builtin, cached);
    assert_string_equal(s, "/nowhere/slurm.conf");
    free(s);
    assert_null(cmp_slurm_conf_find(NULL, builtin, cached)); /* nothing exists */
    assert_null(cmp_slurm_conf_find("", NULL, NULL));
    write_file(cached, "");
    s = cmp_slurm_conf_find("", builtin, cached);
    assert_string_equal(s, cached);
    free(s);
    write_file(builtin, "");
    s = cmp_slurm_conf_find(NULL, builtin, cached);
    assert_string_equal(s, builtin);
    free(s);
    unlink(builtin);
    unlink(cached);
    free(builtin);
    free(cached);
}

static void test_plugstack(void **state)
{
    (void)state;
    char *conf = in_dir("slurm.conf"), *s;
    assert_null(cmp_slurm_plugstack_path(NULL));
    assert_null(cmp_slurm_gres_path(NULL));
    s = cmp_slurm_gres_path("/etc/slurm/slurm.conf");
    assert_string_equal(s, "/etc/slurm/gres.conf");
    free(s);
    s = cmp_slurm_gres_path("slurm.conf");
    assert_string_equal(s, "gres.conf");
    free(s);
    s = cmp_slurm_plugstack_path(conf); /* no file: beside it */
    char *want = in_dir("plugstack.conf");
    assert_string_equal(s, want);
    free(s);
    write_file(conf,
               "ClusterName=c\n#PlugStackConfig=/commented\nPlugStackConfigX=/no\n");
    s = cmp_slurm_plugstack_path(conf);
    assert_string_equal(s, want);
    free(s);
    /* any case, blanks, quotes, a comment after it; the last one counts */
    write_file(conf,
               "PlugStackConfig=/first\n  plugstackconfig = \"/etc/x y/ps.conf\" # c\n");
    s = cmp_slurm_plugstack_path(conf);
    assert_string_equal(s, "/etc/x y/ps.conf");
    free(s);
    write_file(conf, "PLUGSTACKCONFIG=rel/ps.conf\r\n"); /* as it is, as Slurm opens it */
    s = cmp_slurm_plugstack_path(conf);
    assert_string_equal(s, "rel/ps.conf");
    free(s);
    s = cmp_slurm_plugstack_path("slurm.conf"); /* no directory */
    assert_string_equal(s, "plugstack.conf");
    free(s);
    unlink(conf);
    free(conf);
    free(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_order),
        cmocka_unit_test(test_plugstack),
    };
    if (!mkdtemp(dir))
        return 1;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    return rc;
}
