/* test_devices.c -- a node's GPUs and NICs from the synthetic GPU nodes
 * (test/data/nodes, whose README.md is the specification checked here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testdata.h"

static cm_devices_t *load(const char *file)
{
    cm_error_t err = { "" };
    cm_devices_t *d = cm_devices_from_hwloc(cm_test_data_path(file), &err);
    if (!d)
        fail_msg("%s: %s", file, err.msg);
    return d;
}

/* GPU @p g: name, bus id, NUMA node, CPU list, nearest NIC's name. */
static void gpu_is(const cm_devices_t *d, int g, const char *name, const char *busid,
                   int numa, const char *cpus, const char *nic)
{
    assert_string_equal(cm_devices_gpu_name(d, g), name);
    assert_string_equal(cm_devices_gpu_busid(d, g), busid);
    assert_int_equal(cm_devices_gpu_numa(d, g), numa);
    assert_string_equal(cm_devices_gpu_cpulist(d, g), cpus);
    assert_string_equal(cm_devices_nic_name(d, cm_devices_gpu_nic(d, g)), nic);
}

static void test_gpu4(void **state)
{
    (void)state;
    cm_devices_t *d = load("nodes/gpu4.xml");
    /* cuda0 and nvml0 are one GPU, named after NVML */
    assert_int_equal(cm_devices_ngpus(d), 4);
    assert_int_equal(cm_devices_nnics(d), 2);
    gpu_is(d, 0, "nvml0", "0000:07:00.0", 0, "0-7", "ib0");
    gpu_is(d, 1, "nvml1", "0000:0b:00.0", 0, "0-7", "ib0");
    gpu_is(d, 2, "nvml2", "0000:87:00.0", 1, "8-15", "ib1");
    gpu_is(d, 3, "nvml3", "0000:8b:00.0", 1, "8-15", "ib1");
    assert_int_equal(cm_devices_gpu_vendor(d, 0), 0x10de);
    assert_string_equal(cm_devices_nic_fabric(d, 1), "mlx5_1");
    assert_int_equal(cm_devices_nic_verbs(d, 1), 1);
    assert_string_equal(cm_devices_nic_busid(d, 1), "0000:8c:00.0");
    assert_int_equal(cm_devices_nic_numa(d, 1), 1);
    assert_string_equal(cm_devices_nic_cpulist(d, 1), "8-15");
    assert_string_equal(cm_devices_link_name(d), "nvlink");
    assert_true(cm_devices_gpu_bandwidth(d, 0, 1) == 100e9);
    assert_true(cm_devices_gpu_bandwidth(d, 3, 2) == 100e9);
    assert_true(cm_devices_gpu_bandwidth(d, 1, 2) == 0);
    assert_true(cm_devices_gpu_bandwidth(d, 1, 1) == 0);
    const int *cores, *pus;
    assert_int_equal(cm_devices_gpu_cores(d, 2, &cores), 8);
    assert_int_equal(cores[0], 8);
    assert_int_equal(cores[7], 15);
    assert_int_equal(cm_devices_gpu_pus(d, 2, &pus), 8);
    assert_int_equal(pus[0], 8);
    cm_devices_free(d);
}

static void test_dgx(void **state)
{
    (void)state;
    cm_devices_t *d = load("nodes/dgx.xml");
    assert_int_equal(cm_devices_ngpus(d), 8);
    assert_int_equal(cm_devices_nnics(d), 4);
    static const char *nics[] = {
        "ib0", "ib0", "ib1", "ib1", "ib2", "ib2", "ib3", "ib3"
    };
    static const char *cpus[] = { "0-15", "16-31", "32-47", "48-63" };
    for (int g = 0; g < 8; g++) {
        assert_int_equal(cm_devices_gpu_numa(d, g), g / 2);
        assert_string_equal(cm_devices_gpu_cpulist(d, g), cpus[g / 2]);
        assert_string_equal(cm_devices_nic_name(d, cm_devices_gpu_nic(d, g)), nics[g]);
        for (int h = 0; h < 8; h++)
            assert_true(cm_devices_gpu_bandwidth(d, g, h) == (g == h ? 0 : 300e9));
    }
    assert_string_equal(cm_devices_gpu_busid(d, 7), "0000:bd:00.0");
    cm_devices_free(d);
}

static void test_frontier(void **state)
{
    (void)state;
    cm_devices_t *d = load("nodes/frontier.xml");
    assert_int_equal(cm_devices_ngpus(d), 8);
    assert_int_equal(cm_devices_nnics(d), 4);
    /* bus order is not hwloc's tree order: GCD 4 comes first in the tree */
    gpu_is(d, 0, "rsmi0", "0000:c1:00.0", 3, "48-55", "hsn0");
    gpu_is(d, 1, "rsmi1", "0000:c6:00.0", 3, "56-63", "hsn0");
    gpu_is(d, 2, "rsmi2", "0000:c9:00.0", 1, "16-23", "hsn1");
    gpu_is(d, 3, "rsmi3", "0000:ce:00.0", 1, "24-31", "hsn1");
    gpu_is(d, 4, "rsmi4", "0000:d1:00.0", 0, "0-7", "hsn2");
    gpu_is(d, 5, "rsmi5", "0000:d6:00.0", 0, "8-15", "hsn2");
    gpu_is(d, 6, "rsmi6", "0000:d9:00.0", 2, "32-39", "hsn3");
    gpu_is(d, 7, "rsmi7", "0000:de:00.0", 2, "40-47", "hsn3");
    assert_int_equal(cm_devices_gpu_vendor(d, 4), 0x1002);
    assert_int_equal(cm_devices_gpu_package(d, 7), 0);
    assert_string_equal(cm_devices_nic_fabric(d, 2), "cxi2");
    assert_int_equal(cm_devices_nic_verbs(d, 2), 0); /* Slingshot: no NodeGUID */
    assert_string_equal(cm_devices_nic_cpulist(d, 2), "0-15");
    assert_string_equal(cm_devices_link_name(d), "xgmi");
    assert_true(cm_devices_gpu_bandwidth(d, 4, 5) == 200e9);
    assert_true(cm_devices_gpu_bandwidth(d, 4, 6) == 100e9);
    assert_true(cm_devices_gpu_bandwidth(d, 2, 4) == 50e9);
    assert_true(cm_devices_gpu_bandwidth(d, 0, 3) == 0);
    cm_devices_free(d);
}

static void test_gh200(void **state)
{
    (void)state;
    cm_devices_t *d = load("nodes/gh200.xml");
    assert_int_equal(cm_devices_ngpus(d), 4);
    assert_int_equal(cm_devices_nnics(d), 4);
    /* the CPU memory's NUMA node, not the GPU's HBM node of the same cpuset */
    gpu_is(d, 2, "nvml2", "0029:01:00.0", 2, "144-215", "ib2");
    assert_int_equal(cm_devices_gpu_package(d, 2), 2);
    const int *cores;
    assert_int_equal(cm_devices_gpu_cores(d, 3, &cores), 72);
    assert_int_equal(cores[0], 216);
    assert_true(cm_devices_gpu_bandwidth(d, 0, 3) == 150e9);
    cm_devices_free(d);
}

static void test_nic_ties(void **state)
{
    (void)state;
    /* every NIC is as near as the other: GPUs share them in pairs */
    cm_devices_t *d = load("gpu/gpu4-one-numa.xml");
    static const char *nics[] = { "ib0", "ib0", "ib1", "ib1" };
    for (int g = 0; g < 4; g++) {
        assert_string_equal(cm_devices_nic_name(d, cm_devices_gpu_nic(d, g)), nics[g]);
        assert_string_equal(cm_devices_gpu_cpulist(d, g), "0-7");
    }
    assert_null(cm_devices_link_name(d));
    cm_devices_free(d);
}

static void test_no_gpu(void **state)
{
    (void)state;
    /* a CPU-only export: no GPU is not an error */
    cm_devices_t *d = load("hwloc/2s-8c-smt2.xml");
    assert_int_equal(cm_devices_ngpus(d), 0);
    assert_int_equal(cm_devices_nnics(d), 0);
    assert_null(cm_devices_link_name(d));
    assert_int_equal(cm_devices_gpu_nic(d, 0), -1);
    cm_devices_free(d);
    /* The live machine.  hwloc's pci component leaks about 1 KB in
     * libpciaccess per load and unloads it before LeakSanitizer can name
     * (and so suppress) it: the ASan run of this test would fail on it.
     * The row runs without that component; the XML rows above are what
     * test the PCI devices. */
    cm_error_t err = { "" };
    setenv("HWLOC_COMPONENTS", "-pci", 1);
    d = cm_devices_from_hwloc(NULL, &err);
    unsetenv("HWLOC_COMPONENTS");
    if (!d)
        fail_msg("live machine: %s", err.msg);
    assert_true(cm_devices_ngpus(d) >= 0);
    cm_devices_free(d);
}

static void test_errors(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    const char *broken = cm_test_data_path("hwloc/broken.xml");
    assert_null(cm_devices_from_hwloc(broken, &err));
    assert_non_null(strstr(err.msg, broken));
    assert_null(cm_devices_from_hwloc(cm_test_data_path("nodes/none.xml"), &err));
    assert_non_null(strstr(err.msg, "none.xml: cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu4),     cmocka_unit_test(test_dgx),
        cmocka_unit_test(test_frontier), cmocka_unit_test(test_gh200),
        cmocka_unit_test(test_nic_ties), cmocka_unit_test(test_no_gpu),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
