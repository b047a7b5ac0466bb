/* test_gres_conf.c -- one node's devices from gres.conf. */
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

static cm_gres_t *load(const char *text, const char *node)
{
    char *dir = cm_test_mkdtemp();
    cm_error_t err = { "" };
    cm_gres_t *g =
        cm_gres_conf_read(cm_test_write_file(dir, "gres.conf", text), node, &err);
    cm_test_rmtree(dir);
    if (!g)
        fail_msg("%s: %s", node, err.msg);
    return g;
}

static void expect_error(const char *text, const char *node, const char *what)
{
    char *dir = cm_test_mkdtemp();
    cm_error_t err = { "" };
    const char *p = cm_test_write_file(dir, "bad.conf", text);
    cm_gres_t *g = cm_gres_conf_read(p, node, &err);
    if (g)
        fail_msg("accepted: %s", text);
    if (!strstr(err.msg, what) || strncmp(err.msg, p, strlen(p)) != 0)
        fail_msg("'%s': expected '%s: ... %s'", err.msg, p, what);
    cm_test_rmtree(dir);
}

static void assert_cores(const cm_gres_dev_t *d, const char *want)
{
    char buf[256] = "";
    size_t used = 0;
    for (int i = 0; i < d->ncores; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%d", i ? "," : "",
                                 d->cores[i]);
    assert_string_equal(buf, want);
}

/* The layout the virtual cluster's GPU nodes use: a range of files is one
 * device per file, in file order, with the line's Cores. */
static void test_gpu_node(void **state)
{
    (void)state;
    cm_gres_t *g = load("AutoDetect=off\n"
                        "NodeName=g[1-4] Name=gpu Type=a100 File=/dev/cm/gpu[0-1] "
                        "Cores=0-7\n"
                        "NodeName=g[1-4] Name=gpu Type=a100 File=/dev/cm/gpu[2-3] "
                        "Cores=8-15\n"
                        "NodeName=g[1-4] name=NIC File=/dev/cm/nic0 cores=0-7\n"
                        "NodeName=g[1-4] Name=nic File=/dev/cm/nic1 Cores=8-15\n"
                        "NodeName=h1 Name=gpu File=/dev/cm/gpu9\n",
                        "g3");
    cm_gres_dev_t d;
    assert_string_equal(cm_gres_autodetect(g), "off");
    assert_int_equal(cm_gres_count(g, "gpu"), 4);
    assert_int_equal(cm_gres_count(g, "GPU"), 4);
    assert_int_equal(cm_gres_count(g, "nic"), 2);
    assert_int_equal(cm_gres_count(g, "mps"), 0);
    for (int i = 0; i < 4; i++) {
        char file[32];
        assert_int_equal(cm_gres_device(g, "gpu", i, &d), 0);
        snprintf(file, sizeof file, "/dev/cm/gpu%d", i);
        assert_string_equal(d.file, file);
        assert_string_equal(d.type, "a100");
        assert_cores(&d, i < 2 ? "0,1,2,3,4,5,6,7" : "8,9,10,11,12,13,14,15");
        assert_int_equal(d.line, i < 2 ? 2 : 3);
        assert_null(d.links);
    }
    assert_int_equal(cm_gres_device(g, "nic", 1, &d), 0);
    assert_string_equal(d.file, "/dev/cm/nic1");
    assert_null(d.type);
    assert_int_equal(cm_gres_device(g, "gpu", 4, &d), -1);
    assert_int_equal(cm_gres_device(g, "gpu", -1, &d), -1);
    assert_int_equal(cm_gres_device(g, NULL, 0, &d), -1);
    assert_int_equal(cm_gres_device(g, "gpu", 0, NULL), -1);
    assert_int_equal(cm_gres_count(g, NULL), -1);
    cm_gres_free(g);

    /* a node the file does not name has only the lines without NodeName */
    g = load("Name=gpu File=/dev/cm/gpu0\nNodeName=a Name=gpu File=/dev/cm/gpu1\n", "b");
    assert_int_equal(cm_gres_count(g, "gpu"), 1);
    assert_null(cm_gres_autodetect(g));
    cm_gres_free(g);
}

/* Links, Count without files, MultipleFiles, shares of a GPU, unsorted
 * and repeated Cores, Flags, continuation lines, the last AutoDetect. */
static void test_forms(void **state)
{
    (void)state;
    cm_gres_t *g = load("AutoDetect=nvml\n"
                        "Name=gpu File=/dev/cm/gpu0 Links=-1,4,0 Cores=3,1-2,2\n"
                        "Name=gpu File=/dev/cm/gpu1 Links=4,-1,0 \\\n"
                        "   Flags=nvidia_gpu_env\n"
                        "Name=gpu MultipleFiles=/dev/cm/gpu2,/dev/cm/cap[1-2]\n"
                        "Name=mps Count=200 File=/dev/cm/gpu0\n"
                        "Name=nic Count=3\n"
                        "NodeName=x AutoDetect=off Name=gpu Count=0\n",
                        "x");
    cm_gres_dev_t d;
    assert_string_equal(cm_gres_autodetect(g), "off");
    assert_int_equal(cm_gres_count(g, "gpu"), 3);
    assert_int_equal(cm_gres_count(g, "nic"), 3);
    assert_int_equal(cm_gres_count(g, "mps"), 1);
    assert_int_equal(cm_gres_device(g, "gpu", 0, &d), 0);
    assert_cores(&d, "1,2,3");
    assert_int_equal(d.nlinks, 3);
    assert_int_equal(d.links[0], -1);
    assert_int_equal(d.links[1], 4);
    assert_int_equal(cm_gres_device(g, "gpu", 1, &d), 0);
    assert_int_equal(d.line, 3);
    assert_int_equal(d.links[1], -1);
    assert_int_equal(cm_gres_device(g, "gpu", 2, &d), 0);
    assert_string_equal(d.file, "/dev/cm/gpu2");
    assert_int_equal(cm_gres_device(g, "nic", 2, &d), 0);
    assert_null(d.file);
    assert_null(d.cores);
    cm_gres_free(g);
}

/* Several nodes at once: each gets the lines that name it, a name asked
 * twice gets them twice over, a name the file does not know gets the
 * lines without NodeName only. */
static void test_nodes(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    const char *p = cm_test_write_file(dir, "gres.conf",
                                       "NodeName=g[1-2] Name=gpu File=/dev/g[0-3]\n"
                                       "NodeName=g3,h1 Name=gpu File=/dev/g[0-7]\n"
                                       "Name=nic Count=2\n"
                                       "NodeName=g2 AutoDetect=off\n");
    const char *nodes[] = { "h1", "g2", "x9", "g1", "g2" };
    cm_gres_t *g[5];
    cm_error_t err = { "" };
    assert_int_equal(cm_gres_conf_read_nodes(p, nodes, 5, g, &err), 0);
    static const int gpus[5] = { 8, 4, 0, 4, 4 };
    for (int i = 0; i < 5; i++) {
        assert_int_equal(cm_gres_count(g[i], "gpu"), gpus[i]);
        assert_int_equal(cm_gres_count(g[i], "nic"), 2);
    }
    assert_null(cm_gres_autodetect(g[0]));
    assert_string_equal(cm_gres_autodetect(g[1]), "off");
    assert_string_equal(cm_gres_autodetect(g[4]), "off");
    for (int i = 0; i < 5; i++)
        cm_gres_free(g[i]);
    /* an error anywhere leaves every node without an answer */
    p = cm_test_write_file(dir, "bad.conf",
                           "Name=gpu File=/dev/g0\nNodeName=zz Name=x Speed=q\n");
    g[0] = g[1] = (cm_gres_t *)&err;
    assert_int_equal(cm_gres_conf_read_nodes(p, nodes, 2, g, &err), -1);
    assert_null(g[0]);
    assert_null(g[1]);
    cm_test_rmtree(dir);
}

static void test_refusals(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    expect_error("Name=gpu File=/dev/g0 Speed=3\n", "a", ":1: unknown key 'Speed'");
    expect_error("Name=gpu File=/dev/g0 Cores=0-\n", "a", ":1: Cores: expected core");
    expect_error("Name=gpu File=/dev/g0 Cores=3-1\n", "a", "got '3-1'");
    expect_error("Name=gpu File=/dev/g0 Cores=1,\n", "a", "Cores: expected");
    expect_error("Name=gpu File=/dev/g0 Cores=-1\n", "a", "Cores: expected");
    expect_error("Name=gpu File=/dev/g0 Cores=0-1048576\n", "a", "Cores: expected");
    expect_error("Name=gpu File=/dev/g[0-1] Links=-1,1\n", "a",
                 "Links needs a single File, got 2 files");
    expect_error("Name=gpu File=/dev/g0 Links=-1,x\n", "a", "Links: expected");
    expect_error("Name=gpu File=/dev/g0 Links=-2\n", "a", "Links: expected");
    expect_error("Name=gpu File=/dev/g0 Links=-1,\n", "a", "Links: a count after");
    expect_error("Name=gpu File=/dev/g[0-1] Count=3\n", "a",
                 "Count=3 but File names 2 files");
    expect_error("Name=gpu Count=-1\n", "a", "Count: expected");
    expect_error("Name=gpu Count=2G\n", "a", "Count: expected");
    expect_error("Name=gpu Count=2000K\n", "a", "Count: expected");
    expect_error("Name=gpu File=/dev/g0 MultipleFiles=/dev/g1\n", "a",
                 "File and MultipleFiles given together");
    expect_error("File=/dev/g0\n", "a", ":1: Name= expected");
    expect_error("Name=gpu Name=nic\n", "a", ":1: Name given twice");
    expect_error("Name=gpu File=/dev/g[0-\n", "a", ":1: File: hostlist");
    expect_error("NodeName=a[ Name=gpu\n", "a", ":1: NodeName: hostlist");
    expect_error("Name=gpu Cores\n", "a", "expected key=value, got 'Cores'");
    expect_error("Name=gpu Count=70000\n", "a", "more than 65536 devices on one node");
    expect_error(
        "Name=a Cores=0-1048575\nName=b Cores=0-1048575\nName=c Cores=0-1048575\n"
        "Name=d Cores=0-1048575\nName=e Cores=0\n",
        "a", ":5: Cores: more than 4194304 core indexes");
    /* a line for another node is still read whole: its errors count */
    expect_error("NodeName=b Name=gpu Speed=1\n", "a", "unknown key 'Speed'");
    assert_null(cm_gres_conf_read(NULL, "a", &err));
    assert_null(cm_gres_conf_read("/nonexistent/gres.conf", NULL, &err));
    assert_null(cm_gres_conf_read("/nonexistent/gres.conf", "", &err));
    assert_null(cm_gres_conf_read("/nonexistent/gres.conf", "a", &err));
    assert_non_null(strstr(err.msg, "/nonexistent/gres.conf: cannot open"));
    assert_int_equal(cm_gres_count(NULL, "gpu"), -1);
    assert_null(cm_gres_autodetect(NULL));
    cm_gres_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_node),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_nodes),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
