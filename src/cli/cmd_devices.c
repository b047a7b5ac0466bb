/*
 * cmd_devices.c -- `clustermap devices --hwloc-xml FILE | --hwloc-live`: the
 * GPUs and NICs of a node as the engine sees them (cm_devices_from_hwloc()):
 * what --gpus places on, and what the plugin binds.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cm_text.h"

#define CMD "devices"

enum { OPT_XML = 0x100, OPT_LIVE };

static void usage(FILE *f)
{
    fputs("Usage: clustermap devices --hwloc-xml FILE|--hwloc-live\n\n"
          "List the GPUs and NICs of a node as hwloc describes them, one line\n"
          "each, in PCI bus order (GPU index = Slurm's GPU index on the node):\n"
          "  gpu=K name=nvml0 busid=0000:07:00.0 numa=N cpus=LIST nic=NAME\n"
          "  nic=K name=ib0 fabric=mlx5_0 busid=... numa=N cpus=LIST\n"
          "  link=A-B bandwidth=100GB/s   (direct GPU links, NVLink/XGMI)\n"
          "after a first line gpus=G nics=N interconnect=nvlink|xgmi|xelink|-.\n"
          "cpus= are OS CPU numbers of the device's locality; nic= of a GPU is\n"
          "its nearest NIC; numa= is an OS NUMA node number, - for none.\n\n"
          "Options:\n"
          "  --hwloc-xml FILE  the node described by this hwloc XML (lstopo --of\n"
          "                    xml, with its I/O devices)\n"
          "  --hwloc-live      the machine this command runs on\n"
          "  -h, --help        this text\n",
          f);
}

/* " key=value", the value escaped (names come from the topology). */
static void field(const char *key, const char *value)
{
    printf(" %s=", key);
    cm_text_fputs(value && *value ? value : "-", stdout);
}

static void number(const char *key, int v)
{
    if (v < 0)
        printf(" %s=-", key);
    else
        printf(" %s=%d", key, v);
}

int cm_cmd_devices(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "hwloc-xml", required_argument, NULL, OPT_XML },
        { "hwloc-live", no_argument, NULL, OPT_LIVE },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *xml = NULL;
    int live = 0, c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_XML:
            if (xml)
                return cm_cli_usage_error(CMD, "--hwloc-xml given twice");
            xml = optarg;
            break;
        case OPT_LIVE: live = 1; break;
        case 'h': usage(stdout); return CM_EXIT_OK;
        default: return cm_cli_bad_option(CMD, c, argv);
        }
    }
    if (optind < argc)
        return cm_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (!xml == !live)
        return cm_cli_usage_error(CMD, "give one of --hwloc-xml FILE and --hwloc-live");
    cm_error_t err = { "" };
    cm_devices_t *d = cm_devices_from_hwloc(xml, &err);
    if (!d)
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s", err.msg);
    int ng = cm_devices_ngpus(d), nn = cm_devices_nnics(d);
    printf("gpus=%d nics=%d", ng, nn);
    field("interconnect", cm_devices_link_name(d));
    putchar('\n');
    for (int g = 0; g < ng; g++) {
        printf("gpu=%d", g);
        field("name", cm_devices_gpu_name(d, g));
        field("busid", cm_devices_gpu_busid(d, g));
        number("numa", cm_devices_gpu_numa(d, g));
        field("cpus", cm_devices_gpu_cpulist(d, g));
        field("nic", cm_devices_nic_name(d, cm_devices_gpu_nic(d, g)));
        putchar('\n');
    }
    for (int k = 0; k < nn; k++) {
        printf("nic=%d", k);
        field("name", cm_devices_nic_name(d, k));
        field("fabric", cm_devices_nic_fabric(d, k));
        field("busid", cm_devices_nic_busid(d, k));
        number("numa", cm_devices_nic_numa(d, k));
        field("cpus", cm_devices_nic_cpulist(d, k));
        putchar('\n');
    }
    for (int a = 0; a < ng; a++)
        for (int b = a + 1; b < ng; b++) {
            double bw = cm_devices_gpu_bandwidth(d, a, b);
            if (bw > 0)
                printf("link=%d-%d bandwidth=%gGB/s\n", a, b, bw / 1e9);
        }
    cm_devices_free(d);
    return fflush(stdout) == 0 ? CM_EXIT_OK : CM_EXIT_FAIL;
}
