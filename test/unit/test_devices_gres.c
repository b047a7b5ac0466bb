/* test_devices_gres.c -- gres.conf's Cores= and Links= over hwloc's view of
 * the GPUs (cm_devices_apply_gres()), and the GPU tree that follows.
 *
 * The node is test/data/nodes/gpu4.xml: GPUs 0-1 on package 0 (cores
 * 0-7, NIC mlx5_0), GPUs 2-3 on package 1 (cores 8-15, NIC mlx5_1),
 * NVLink pairs 0-1 and 2-3 at 100 GB/s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testdata.h"

/* gres.conf lines of gpu4 as Slurm would be told them: @p c0..c3 the
 * GPUs' Cores=, @p l0..l3 their Links= (NULL: none). */
static char *gres_text(const char *const c[4], const char *const l[4])
{
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    assert_non_null(f);
    fprintf(f, "AutoDetect=off\n");
    for (int k = 0; k < 4; k++) {
        fprintf(f, "Name=gpu File=/dev/nvidia%d", k);
        if (c[k])
            fprintf(f, " Cores=%s", c[k]);
        if (l[k])
            fprintf(f, " Links=%s", l[k]);
        fprintf(f, "\n");
    }
    fprintf(
        f, "Name=nic File=/dev/mlx5_0 Cores=0-7\nName=nic File=/dev/mlx5_1 Cores=8-15\n");
    assert_int_equal(fclose(f), 0);
    return s;
}

/* What cm_devices_apply_gres() said, each line followed by '\n'. */
typedef struct said {
    char text[2048];
    int lines;
} said_t;

static void keep(const char *line, void *arg)
{
    said_t *s = arg;
    size_t used = strlen(s->text);
    snprintf(s->text + used, sizeof s->text - used, "%s\n", line);
    s->lines++;
}

static const char *const hwloc_cores[4] = { "0-7", "0-7", "8-15", "8-15" };
static const char *const hwloc_links[4] = { "-1,1,0,0", "1,-1,0,0", "0,0,-1,1",
                                            "0,0,1,-1" };

/* gpu4's devices with the gres.conf of @p c and @p l applied: the return
 * value of cm_devices_apply_gres() in *@p rc, its lines in @p s. */
static cm_devices_t *applied(const char *const c[4], const char *const l[4], int *rc,
                             said_t *s, cm_error_t *err)
{
    char *dir = cm_test_mkdtemp(), *text = gres_text(c, l);
    cm_error_t e = { "" };
    cm_gres_t *g =
        cm_gres_conf_read(cm_test_write_file(dir, "gres.conf", text), "n1", &e);
    free(text);
    cm_test_rmtree(dir);
    if (!g)
        fail_msg("gres.conf: %s", e.msg);
    cm_devices_t *d = cm_devices_from_hwloc(cm_test_data_path("nodes/gpu4.xml"), &e);
    if (!d)
        fail_msg("gpu4.xml: %s", e.msg);
    memset(s, 0, sizeof *s);
    *rc = cm_devices_apply_gres(d, g, keep, s, err);
    cm_gres_free(g);
    return d;
}

/* The GPU of every slot of @p d's one-node tree, "g0 g1 ...", and its
 * level names. */
static void tree_of(const cm_devices_t *d, const char *levels, const char *gpus)
{
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_from_gpu_devices(d, "gpu4", 1, 1, &err);
    if (!t)
        fail_msg("tree: %s", err.msg);
    char got[256] = "";
    size_t len = 0;
    for (int l = 0; l < cm_tree_nlevels(t); l++)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", l ? " " : "",
                                cm_tree_level_name(t, l));
    assert_string_equal(got, levels);
    len = 0;
    for (int s = 0; s < cm_tree_nslots(t); s++)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%d", s ? " " : "",
                                cm_tree_slot_gpu(t, s));
    assert_string_equal(got, gpus);
    cm_tree_free(t);
}

/* gres.conf as hwloc sees the node: nothing changes, nothing is said. */
static void test_same(void **state)
{
    (void)state;
    said_t s;
    int rc;
    cm_error_t err = { "" };
    cm_devices_t *d = applied(hwloc_cores, hwloc_links, &rc, &s, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(s.lines, 0);
    assert_string_equal(cm_devices_gpu_cpulist(d, 0), "0-7");
    assert_string_equal(cm_devices_gpu_cpulist(d, 3), "8-15");
    assert_int_equal(cm_devices_gpu_nic(d, 0), 0);
    assert_true(cm_devices_gpu_bandwidth(d, 0, 1) == 100e9);
    assert_string_equal(cm_devices_link_name(d), "nvlink");
    tree_of(d, "switch node nvlink gpu", "0 1 2 3");
    cm_devices_free(d);

    /* neither Cores= nor Links=: hwloc's view */
    const char *const none[4] = { NULL, NULL, NULL, NULL };
    d = applied(none, none, &rc, &s, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(s.lines, 0);
    assert_string_equal(cm_devices_gpu_cpulist(d, 2), "8-15");
    cm_devices_free(d);
}

/* Cores= swapped between the packages: each GPU's cores, CPU list,
 * package, NUMA node and NIC are Slurm's, and the tree's slots follow. */
static void test_cores_swapped(void **state)
{
    (void)state;
    const char *const swapped[4] = { "8-15", "8-15", "0-7", "0-7" };
    said_t s;
    int rc;
    cm_error_t err = { "" };
    cm_devices_t *d = applied(swapped, hwloc_links, &rc, &s, &err);
    assert_int_equal(rc, 4);
    assert_string_equal(s.text,
                        "gres.conf Cores= of GPU 0 (8-15) differs from hwloc's (0-7): "
                        "Slurm's used\n"
                        "gres.conf Cores= of GPU 1 (8-15) differs from hwloc's (0-7): "
                        "Slurm's used\n"
                        "gres.conf Cores= of GPU 2 (0-7) differs from hwloc's (8-15): "
                        "Slurm's used\n"
                        "gres.conf Cores= of GPU 3 (0-7) differs from hwloc's (8-15): "
                        "Slurm's used\n");
    const int *cores;
    assert_int_equal(cm_devices_gpu_cores(d, 0, &cores), 8);
    assert_int_equal(cores[0], 8);
    assert_int_equal(cores[7], 15);
    assert_string_equal(cm_devices_gpu_cpulist(d, 0), "8-15");
    assert_string_equal(cm_devices_gpu_cpulist(d, 3), "0-7");
    assert_int_equal(cm_devices_gpu_package(d, 0), 1);
    assert_int_equal(cm_devices_gpu_numa(d, 1), 1);
    assert_int_equal(cm_devices_gpu_package(d, 2), 0);
    assert_int_equal(cm_devices_gpu_nic(d, 0), 1);
    assert_int_equal(cm_devices_gpu_nic(d, 3), 0);
    /* the links are hwloc's still */
    assert_true(cm_devices_gpu_bandwidth(d, 0, 1) == 100e9);
    /* slots in the order of their cores: GPUs 2 and 3 first */
    tree_of(d, "switch node nvlink gpu", "2 3 0 1");
    cm_devices_free(d);
}

/* GPUs 1 and 3 swapped by Cores=, and no link in Links=: the NUMA groups
 * of the tree are Slurm's, {0, 3} and {1, 2}. */
static void test_cores_regrouped(void **state)
{
    (void)state;
    const char *const moved[4] = { "0-7", "8-15", "8-15", "0-7" };
    const char *const unlinked[4] = { "-1,0,0,0", "0,-1,0,0", "0,0,-1,0", "0,0,0,-1" };
    said_t s;
    int rc;
    cm_error_t err = { "" };
    cm_devices_t *d = applied(moved, unlinked, &rc, &s, &err);
    assert_int_equal(rc, 3);
    assert_int_equal(s.lines, 6);
    assert_non_null(strstr(s.text,
                           "gres.conf Cores= of GPU 1 (8-15) differs from hwloc's "
                           "(0-7): Slurm's used\n"
                           "gres.conf Cores= of GPU 3 (0-7) differs from hwloc's "
                           "(8-15): Slurm's used\n"
                           "gres.conf Links= of GPU 0 (-1,0,0,0) differs from "
                           "hwloc's (-1,1,0,0): Slurm's used\n"));
    assert_string_equal(cm_devices_gpu_cpulist(d, 1), "8-15");
    assert_int_equal(cm_devices_gpu_numa(d, 3), 0);
    tree_of(d, "switch node numa gpu", "0 3 1 2");
    cm_devices_free(d);
}

/* Links= pairing 0-2 and 1-3 with two links each: Slurm's pairs are the
 * NVLink level, each link worth hwloc's slowest pair / 2. */
static void test_links_differ(void **state)
{
    (void)state;
    const char *const links[4] = { "-1,0,2,0", "0,-1,0,2", "2,0,-1,0", "0,2,0,-1" };
    said_t s;
    int rc;
    cm_error_t err = { "" };
    cm_devices_t *d = applied(hwloc_cores, links, &rc, &s, &err);
    assert_int_equal(rc, 1);
    assert_int_equal(s.lines, 4);
    assert_non_null(strstr(s.text,
                           "gres.conf Links= of GPU 0 (-1,0,2,0) differs from "
                           "hwloc's (-1,2,0,0): Slurm's used\n"));
    assert_non_null(strstr(s.text,
                           "gres.conf Links= of GPU 3 (0,2,0,-1) differs from "
                           "hwloc's (0,0,2,-1): Slurm's used\n"));
    assert_true(cm_devices_gpu_bandwidth(d, 0, 2) == 100e9);
    assert_true(cm_devices_gpu_bandwidth(d, 0, 1) == 0);
    assert_true(cm_devices_gpu_bandwidth(d, 3, 1) == 100e9);
    /* the cores are hwloc's still */
    assert_string_equal(cm_devices_gpu_cpulist(d, 1), "0-7");
    tree_of(d, "switch node nvlink gpu", "0 2 1 3");
    cm_devices_free(d);

    /* counts scaled alike (12 links a pair) say the same as hwloc */
    const char *const scaled[4] = { "-1,12,0,0", "12,-1,0,0", "0,0,-1,12", "0,0,12,-1" };
    d = applied(hwloc_cores, scaled, &rc, &s, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(s.lines, 0);
    cm_devices_free(d);

    /* Links= on some GPUs only: hwloc's matrix */
    const char *const some[4] = { "-1,0,2,0", NULL, NULL, NULL };
    d = applied(hwloc_cores, some, &rc, &s, &err);
    assert_int_equal(rc, 0);
    assert_true(cm_devices_gpu_bandwidth(d, 0, 1) == 100e9);
    cm_devices_free(d);

    /* no link at all in Slurm's view: none in the tree either */
    const char *const unlinked[4] = { "-1,0,0,0", "0,-1,0,0", "0,0,-1,0", "0,0,0,-1" };
    d = applied(hwloc_cores, unlinked, &rc, &s, &err);
    assert_int_equal(rc, 1);
    assert_int_equal(s.lines, 4);
    assert_true(cm_devices_gpu_bandwidth(d, 0, 1) == 0);
    assert_null(cm_devices_link_name(d));
    tree_of(d, "switch node numa gpu", "0 1 2 3");
    cm_devices_free(d);
}

static void test_errors(void **state)
{
    (void)state;
    const char *const far[4] = { "0-7", "0-7", "8-15", "8-15,99" };
    said_t s;
    int rc;
    cm_error_t err = { "" };
    cm_devices_t *d = applied(far, hwloc_links, &rc, &s, &err);
    assert_int_equal(rc, -1);
    assert_string_equal(err.msg,
                        "gres.conf line 5: Cores= of GPU 3 names core 99, "
                        "expected 0..15 (the cores hwloc finds, counted socket "
                        "by socket)");
    cm_devices_free(d);

    /* another number of GPUs */
    char *dir = cm_test_mkdtemp();
    cm_gres_t *g = cm_gres_conf_read(
        cm_test_write_file(dir, "gres.conf",
                           "Name=gpu File=/dev/nvidia[0-1] Cores=0-7\n"),
        "n1", &err);
    cm_test_rmtree(dir);
    assert_non_null(g);
    d = cm_devices_from_hwloc(cm_test_data_path("nodes/gpu4.xml"), &err);
    assert_int_equal(cm_devices_apply_gres(d, g, NULL, NULL, &err), -1);
    assert_string_equal(err.msg, "gres.conf gives 2 GPUs, hwloc finds 4");
    assert_int_equal(cm_devices_apply_gres(NULL, g, NULL, NULL, &err), -1);
    assert_int_equal(cm_devices_apply_gres(d, NULL, NULL, NULL, &err), -1);
    assert_null(cm_tree_from_gpu_devices(NULL, NULL, 1, 1, &err));
    assert_string_equal(err.msg, "devices: no device list");
    assert_null(cm_tree_from_gpu_devices(d, "gpu4", 0, 1, &err));
    cm_gres_free(g);
    cm_devices_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same),
        cmocka_unit_test(test_cores_swapped),
        cmocka_unit_test(test_cores_regrouped),
        cmocka_unit_test(test_links_differ),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
