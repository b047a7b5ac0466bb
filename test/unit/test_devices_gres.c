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

/* gres.conf of @p c and @p l for node n1. */
static cm_gres_t *gres_of(const char *const c[4], const char *const l[4])
{
    char *dir = cm_test_mkdtemp(), *text = gres_text(c, l);
    cm_error_t e = { "" };
    cm_gres_t *g =
        cm_gres_conf_read(cm_test_write_file(dir, "gres.conf", text), "n1", &e);
    free(text);
    cm_test_rmtree(dir);
    if (!g)
        fail_msg("gres.conf: %s", e.msg);
    return g;
}

/* gpu4's devices with the gres.conf of @p c and @p l applied, which must
 * return @p want (its message in @p err, may be NULL); its lines in @p s. */
static cm_devices_t *applied(const char *const c[4], const char *const l[4], int want,
                             said_t *s, cm_error_t *err)
{
    cm_gres_t *g = gres_of(c, l);
    cm_error_t e = { "" };
    cm_devices_t *d = cm_devices_from_hwloc(cm_test_data_path("nodes/gpu4.xml"), &e);
    if (!d)
        fail_msg("gpu4.xml: %s", e.msg);
    memset(s, 0, sizeof *s);
    int rc = cm_devices_apply_gres(d, g, keep, s, err ? err : &e);
    if (rc != want)
        fail_msg("cm_devices_apply_gres: %d, expected %d (%s)", rc, want,
                 err ? err->msg : e.msg);
    cm_gres_free(g);
    return d;
}

/* One gres.conf for gpu4 and what must come of it. */
typedef struct gres_case {
    const char *what;
    const char *cores[4], *links[4]; /* each GPU's Cores= and Links=, NULL none */
    int taken;                       /* cm_devices_apply_gres() */
    const char *said;                /* its lines, whole */
    const char *cpus[4];             /* each GPU's CPU list after it */
    int nics[4];                     /* each GPU's nearest NIC */
    double bw01, bw02;               /* bytes/s from GPU 0 to GPUs 1 and 2 */
    const char *link;                /* cm_devices_link_name(), NULL none */
    const char *levels[4];           /* the one-node tree's levels */
    int slots[4];                    /* the GPU of each of its slots */
} gres_case_t;

/* A table, a case a few lines: */
/* clang-format off */
#define HW_CORES { "0-7", "0-7", "8-15", "8-15" }
#define HW_LINKS { "-1,1,0,0", "1,-1,0,0", "0,0,-1,1", "0,0,1,-1" }
#define NO_LINKS { "-1,0,0,0", "0,-1,0,0", "0,0,-1,0", "0,0,0,-1" }
/* hwloc's cores and NICs after it */
#define HW_PLACES HW_CORES, { 0, 0, 1, 1 }
/* hwloc's links after it, and its tree */
#define HW_LINKED 100e9, 0, "nvlink", { "switch", "node", "nvlink", "gpu" }, { 0, 1, 2, 3 }
#define CORES_LINE(k, ours, hw) \
    "gres.conf Cores= of GPU " #k " (" ours ") differs from hwloc's (" hw "): Slurm's used\n"
#define LINKS_LINE(k, ours, hw) \
    "gres.conf Links= of GPU " #k " (" ours ") differs from hwloc's (" hw "): Slurm's used\n"
#define UNLINKED_LINES \
    LINKS_LINE(0, "-1,0,0,0", "-1,1,0,0") LINKS_LINE(1, "0,-1,0,0", "1,-1,0,0") \
    LINKS_LINE(2, "0,0,-1,0", "0,0,-1,1") LINKS_LINE(3, "0,0,0,-1", "0,0,1,-1")

static const gres_case_t cases[] = {
    { "gres.conf as hwloc sees the node: nothing changes, nothing is said",
      HW_CORES, HW_LINKS, 0, "", HW_PLACES, HW_LINKED },
    { "neither Cores= nor Links=: hwloc's view",
      { NULL }, { NULL }, 0, "", HW_PLACES, HW_LINKED },
    /* each GPU's cores, CPU list, package, NUMA node and NIC are Slurm's,
     * and the slots follow the cores: GPUs 2 and 3 first */
    { "Cores= swapped between the packages",
      { "8-15", "8-15", "0-7", "0-7" }, HW_LINKS, 4,
      CORES_LINE(0, "8-15", "0-7") CORES_LINE(1, "8-15", "0-7")
      CORES_LINE(2, "0-7", "8-15") CORES_LINE(3, "0-7", "8-15"),
      { "8-15", "8-15", "0-7", "0-7" }, { 1, 1, 0, 0 },
      100e9, 0, "nvlink", { "switch", "node", "nvlink", "gpu" }, { 2, 3, 0, 1 } },
    /* the NUMA groups of the tree are Slurm's, {0, 3} and {1, 2} */
    { "GPUs 1 and 3 swapped by Cores=, no link in Links=",
      { "0-7", "8-15", "8-15", "0-7" }, NO_LINKS, 3,
      CORES_LINE(1, "8-15", "0-7") CORES_LINE(3, "0-7", "8-15") UNLINKED_LINES,
      { "0-7", "8-15", "8-15", "0-7" }, { 0, 1, 1, 0 },
      0, 0, NULL, { "switch", "node", "numa", "gpu" }, { 0, 3, 1, 2 } },
    /* Slurm's pairs are the NVLink level, a link worth hwloc's slowest
     * pair / 2 */
    { "Links= pairing 0-2 and 1-3 with two links each",
      HW_CORES, { "-1,0,2,0", "0,-1,0,2", "2,0,-1,0", "0,2,0,-1" }, 1,
      LINKS_LINE(0, "-1,0,2,0", "-1,2,0,0") LINKS_LINE(1, "0,-1,0,2", "2,-1,0,0")
      LINKS_LINE(2, "2,0,-1,0", "0,0,-1,2") LINKS_LINE(3, "0,2,0,-1", "0,0,2,-1"),
      HW_PLACES, 0, 100e9, "nvlink", { "switch", "node", "nvlink", "gpu" }, { 0, 2, 1, 3 } },
    { "Links= counts scaled alike (12 a pair) say what hwloc says",
      HW_CORES, { "-1,12,0,0", "12,-1,0,0", "0,0,-1,12", "0,0,12,-1" }, 0, "",
      HW_PLACES, HW_LINKED },
    { "Links= on some GPUs only: hwloc's matrix",
      HW_CORES, { "-1,0,2,0" }, 0, "", HW_PLACES, HW_LINKED },
    { "no link in Slurm's view: none in the tree",
      HW_CORES, NO_LINKS, 1, UNLINKED_LINES,
      HW_PLACES, 0, 0, NULL, { "switch", "node", "numa", "gpu" }, { 0, 1, 2, 3 } },
};
/* clang-format on */

/* @p c's GPUs, their tree and what was said, checked. */
static void check_case(const gres_case_t *c)
{
    said_t s;
    cm_devices_t *d = applied(c->cores, c->links, c->taken, &s, NULL);
    if (strcmp(s.text, c->said))
        fail_msg("%s: said\n%s\nexpected\n%s", c->what, s.text, c->said);
    for (int k = 0; k < 4; k++) {
        const int *cores;
        int home = c->cpus[k][0] == '0' ? 0 : 1; /* the package of those cores */
        assert_string_equal(cm_devices_gpu_cpulist(d, k), c->cpus[k]);
        assert_int_equal(cm_devices_gpu_cores(d, k, &cores), 8);
        assert_int_equal(cores[0], 8 * home);
        assert_int_equal(cm_devices_gpu_package(d, k), home);
        assert_int_equal(cm_devices_gpu_numa(d, k), home);
        assert_int_equal(cm_devices_gpu_nic(d, k), c->nics[k]);
    }
    assert_true(cm_devices_gpu_bandwidth(d, 0, 1) == c->bw01);
    assert_true(cm_devices_gpu_bandwidth(d, 0, 2) == c->bw02);
    if (c->link)
        assert_string_equal(cm_devices_link_name(d), c->link);
    else
        assert_null(cm_devices_link_name(d));

    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_from_gpu_devices(d, "gpu4", 1, 1, &err);
    if (!t)
        fail_msg("%s: tree: %s", c->what, err.msg);
    assert_int_equal(cm_tree_nlevels(t), 4);
    for (int l = 0; l < 4; l++)
        assert_string_equal(cm_tree_level_name(t, l), c->levels[l]);
    assert_int_equal(cm_tree_nslots(t), 4);
    for (int slot = 0; slot < 4; slot++)
        if (cm_tree_slot_gpu(t, slot) != c->slots[slot])
            fail_msg("%s: slot %d: GPU %d, expected %d", c->what, slot,
                     cm_tree_slot_gpu(t, slot), c->slots[slot]);
    cm_tree_free(t);
    cm_devices_free(d);
}

/* Every case of the table, then the errors. */
static void test_apply_gres(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i]);

    const char *const far[4] = { "0-7", "0-7", "8-15", "8-15,99" }, *links[4] = HW_LINKS;
    said_t s;
    cm_error_t err = { "" };
    cm_devices_t *d = applied(far, links, -1, &s, &err);
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
        cmocka_unit_test(test_apply_gres),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
