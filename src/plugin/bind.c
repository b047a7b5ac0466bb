/*
 * bind.c -- rank -> core, in the task right before exec (slurm_spank_task_init,
 * as the user, after task/affinity and task/cgroup have done their work).
 *
 * srun put, for every rank, the index of its slot on its node into
 * CLUSTERMAP_CORES.  Slot j of a step with c CPUs per task is CPUs
 * [j*c, (j+1)*c) of the node's allowed CPUs (hwloc's allowed set: the
 * cgroup cpuset when task/cgroup confines the step, else the machine),
 * listed in hwloc's logical order -- socket-major, like Slurm's abstract
 * core numbering.  A node whose tasks need more CPUs than it allows (one
 * that claims more cores than it has, config_overrides), or a slot beyond
 * them, keeps Slurm's binding, said at debug level: pinning busy-polling MPI
 * ranks onto shared CPUs made Open MPI 4.1 hang or crash on the test
 * cluster, while unpinned ranks share the CPUs fine.  The affinity set with sched_setaffinity() survives exec and
 * MPI_Init; SLURM_CPU_BIND* is updated to say so.  Any problem keeps
 * Slurm's binding and never fails the task.
 *
 * hwloc is dlopen()ed here, in the task, the first time a rank is bound:
 * clustermap.so is loaded by every Slurm process that reads plugstack.conf
 * and must not pull the library into all of them.  (Moving the listing
 * into the placement module instead would load Scotch and OpenBLAS into
 * every bound task, 10-20 ms each, against hwloc's ~1.5 ms.)
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "plugin_spank.h"

/* The soname this file was compiled against (the Makefile asks the linker). */
#ifndef CMP_HWLOC_SONAME
#define CMP_HWLOC_SONAME "libhwloc.so.15"
#endif

/* The hwloc functions used, called through pointers of their own types.
 * hwloc.h's inline helpers (hwloc_get_nbobjs_by_type, ...) would link the
 * library directly, so the depth-based functions are used instead. */
#define HWLOC_FUNCS(X)                                                          \
    X(hwloc_get_api_version) X(hwloc_topology_init) X(hwloc_topology_destroy)  \
    X(hwloc_topology_set_cache_types_filter)                                   \
    X(hwloc_topology_set_icache_types_filter)                                  \
    X(hwloc_topology_set_io_types_filter) X(hwloc_topology_load)               \
    X(hwloc_topology_get_allowed_cpuset) X(hwloc_get_type_depth)               \
    X(hwloc_get_nbobjs_by_depth) X(hwloc_get_obj_by_depth) X(hwloc_bitmap_isset)

static struct {
#define HWLOC_MEMBER(f) __typeof__(&f) f;
    HWLOC_FUNCS(HWLOC_MEMBER)
#undef HWLOC_MEMBER
} hw;

/* 0 once hwloc is loaded, else -1 with @p err. */
static int hwloc_open(cm_error_t *err)
{
    static int state;            /* 0 not tried, 1 loaded, -1 failed */
    static cm_error_t why;
    if (state == 0) {
        void *h = dlopen(CMP_HWLOC_SONAME, RTLD_NOW | RTLD_LOCAL);
        state = h ? 1 : -1;
        if (!h)
            cm_error_set(&why, "%s", dlerror());
#define HWLOC_LOOKUP(f)                                                  \
        if (state > 0 && !(*(void **)&hw.f = dlsym(h, #f))) {            \
            cm_error_set(&why, "%s: no %s", CMP_HWLOC_SONAME, #f);       \
            state = -1;                                                  \
        }
        HWLOC_FUNCS(HWLOC_LOOKUP)
#undef HWLOC_LOOKUP
        /* hwloc.h: the ABI changes with the major version */
        if (state > 0 && (hw.hwloc_get_api_version() >> 16) != (HWLOC_API_VERSION >> 16)) {
            cm_error_set(&why, "%s has API 0x%x, built for 0x%x", CMP_HWLOC_SONAME,
                         hw.hwloc_get_api_version(), (unsigned)HWLOC_API_VERSION);
            state = -1;
        }
    }
    if (state < 0 && err)
        *err = why;
    return state > 0 ? 0 : -1;
}

/* Allowed PUs (OS indexes) in logical order.  Returns how many, -1 with
 * @p err on error. */
static int allowed_pus(int *pus, int max, cm_error_t *err)
{
    hwloc_topology_t topo;
    if (hwloc_open(err) < 0)
        return -1;
    if (hw.hwloc_topology_init(&topo) < 0)
        return cm_error_set(err, "hwloc_topology_init failed");
    /* Only packages, cores and PUs matter: skip caches and I/O (faster). */
    hw.hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hw.hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hw.hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    int depth = -1;
    if (hw.hwloc_topology_load(topo) < 0 ||
        (depth = hw.hwloc_get_type_depth(topo, HWLOC_OBJ_PU)) < 0) {
        hw.hwloc_topology_destroy(topo);
        return cm_error_set(err, "hwloc cannot read the topology");
    }
    hwloc_const_cpuset_t allowed = hw.hwloc_topology_get_allowed_cpuset(topo);
    int n = 0, total = (int)hw.hwloc_get_nbobjs_by_depth(topo, depth);
    for (int i = 0; i < total && n < max; i++) {
        hwloc_obj_t pu = hw.hwloc_get_obj_by_depth(topo, depth, (unsigned)i);
        if (pu && hw.hwloc_bitmap_isset(allowed, pu->os_index) &&
            pu->os_index < CPU_SETSIZE)
            pus[n++] = (int)pu->os_index;
    }
    hw.hwloc_topology_destroy(topo);
    return n;
}

void cmp_bind_task(spank_t sp, const cmp_config_t *c)
{
    /* Room for a list of 16384 five-digit entries (place.c's bound). */
    static char list[16384 * 6 + 64];
    uint32_t rank = 0, cpt = 1;
    char verbose[8] = "";

    if (!c->bind || spank_getenv(sp, CMP_ENV_CORES, list, sizeof list) != ESPANK_SUCCESS)
        return;
    spank_getenv(sp, CMP_ENV_VERBOSE, verbose, sizeof verbose);
    if (spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS)
        return;
    if (spank_get_item(sp, S_STEP_CPUS_PER_TASK, &cpt) != ESPANK_SUCCESS || cpt < 1)
        cpt = 1;
    int slot = cmp_core_list_entry(list, rank);
    if (slot < 0) {
        cmp_log_error("rank %u: no core in %s; keeping Slurm's binding", rank,
                      CMP_ENV_CORES);
        return;
    }
    int pus[CPU_SETSIZE];
    cm_error_t err;
    int n = allowed_pus(pus, CPU_SETSIZE, &err);
    if (n <= 0) {
        cmp_log_error("rank %u: cannot read the node's CPUs (%s); keeping Slurm's "
                      "binding", rank, n < 0 ? err.msg : "none allowed");
        return;
    }
    uint32_t local = 0;
    if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &local) == ESPANK_SUCCESS &&
        (long)local * cpt > n) {
        slurm_debug("clustermap: rank %u: %u tasks of %u CPUs on %d CPUs: keeping "
                    "Slurm's binding", rank, local, cpt, n);
        if (verbose[0] == '1')
            fprintf(stderr, "clustermap: rank %u slot %d not bound (%u tasks on %d "
                    "CPUs)\n", rank, slot, local, n);
        return;
    }
    long first = (long)slot * cpt;
    if (first + cpt > n) {
        slurm_debug("clustermap: rank %u: slot %d needs CPUs %ld-%ld, the node allows "
                    "%d: keeping Slurm's binding", rank, slot, first, first + cpt - 1, n);
        if (verbose[0] == '1')
            fprintf(stderr, "clustermap: rank %u slot %d not bound (the node allows "
                    "%d CPUs)\n", rank, slot, n);
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    char cpus[256] = "";
    size_t used = 0;
    unsigned long long mask = 0;
    for (uint32_t k = 0; k < cpt && k < (uint32_t)n; k++) {
        int cpu = pus[first + k];
        CPU_SET(cpu, &set);
        if (cpu < 64)
            mask |= 1ull << cpu;
        int w = snprintf(cpus + used, sizeof cpus - used, "%s%d", k ? "," : "", cpu);
        if (w > 0 && (size_t)w < sizeof cpus - used)
            used += (size_t)w;
    }
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        cmp_log_error("rank %u: sched_setaffinity(%s): %s; keeping Slurm's binding",
                      rank, cpus, strerror(errno));
        return;
    }
    /* Slurm describes masks in hex; above CPU 63 only the list is exact. */
    char val[320];
    if (mask) {
        snprintf(val, sizeof val, "0x%llx", mask);
        spank_setenv(sp, "SLURM_CPU_BIND_TYPE", "mask_cpu:", 1);
        spank_setenv(sp, "SLURM_CPU_BIND_LIST", val, 1);
        snprintf(val, sizeof val, "quiet,mask_cpu:0x%llx", mask);
        spank_setenv(sp, "SLURM_CPU_BIND", val, 1);
        spank_setenv(sp, "SLURM_CPU_BIND_VERBOSE", "quiet", 1);
    }
    if (verbose[0] == '1')
        fprintf(stderr, "clustermap: rank %u slot %d cpus %s\n", rank, slot, cpus);
    slurm_debug("clustermap: rank %u slot %d bound to cpus %s", rank, slot, cpus);
}

/* Linux CPU list "0-7,16" into @p set; -1 when malformed. */
static int parse_cpulist(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s || a < 0 || a >= CPU_SETSIZE)
            return -1;
        if (*end == '-') {
            s = end + 1;
            b = strtol(s, &end, 10);
            if (end == s || b < a || b >= CPU_SETSIZE)
                return -1;
        }
        for (long c = a; c <= b; c++)
            CPU_SET((int)c, set);
        if (*end && *end != ',')
            return -1;
        s = *end ? end + 1 : end;
    }
    return CPU_COUNT(set) ? 0 : -1;
}

void cmp_bind_gpu_task(spank_t sp, const cmp_config_t *c)
{
    static char list[16384 * 6 + 64], info[65536];
    static const char *const visible[] = {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                          "ZE_AFFINITY_MASK"};
    char verbose[8] = "", on_node[16] = "", item[4096], value[64];
    uint32_t rank = 0;

    if (!c->bind || spank_getenv(sp, CMP_ENV_GPUS, list, sizeof list) != ESPANK_SUCCESS)
        return;
    spank_getenv(sp, CMP_ENV_VERBOSE, verbose, sizeof verbose);
    if (spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS)
        return;
    int gpu = cmp_core_list_entry(list, rank), ngpus = 0;
    if (gpu < 0 || spank_getenv(sp, CMP_ENV_GPU_INFO, info, sizeof info) != ESPANK_SUCCESS ||
        cmp_gpu_info_item(info, gpu, item, sizeof item) < 0) {
        cmp_log_error("rank %u: no GPU in %s or %s; keeping Slurm's binding", rank,
                      CMP_ENV_GPUS, CMP_ENV_GPU_INFO);
        return;
    }
    for (const char *p = info; p; p = strchr(p + 1, ' '))
        ngpus++;
    /* Only a step holding every GPU of the node may hand a rank another
     * GPU than Slurm's: the others could be another job's. */
    if (spank_getenv(sp, "SLURM_GPUS_ON_NODE", on_node, sizeof on_node) != ESPANK_SUCCESS ||
        atoi(on_node) != ngpus) {
        slurm_debug("clustermap: rank %u: the step holds %s of the node's %d GPUs: "
                    "keeping Slurm's binding", rank, on_node[0] ? on_node : "none", ngpus);
        if (verbose[0] == '1')
            fprintf(stderr, "clustermap: rank %u gpu not bound (the step holds %s of "
                    "the node's %d GPUs)\n", rank, on_node[0] ? on_node : "none", ngpus);
        return;
    }
    const char *nic, *cpus;
    int verbs;
    if (cmp_gpu_info_split(item, &nic, &verbs, &cpus) < 0)
        return;
    /* Every task of the node decides alike, from the node alone: a rank
     * given a GPU while its neighbour kept Slurm's could share one.  So
     * the GPU, its NIC and its cores are all applied when the node allows
     * every core of every GPU's locality (the description is this node's),
     * or none is. */
    const char *why = NULL;
    cpu_set_t want, allowed;
    int pus[CPU_SETSIZE], n;
    cm_error_t err;
    CPU_ZERO(&allowed);
    if ((n = allowed_pus(pus, CPU_SETSIZE, &err)) <= 0)
        why = "the node's CPUs cannot be read";
    for (int i = 0; i < n; i++)
        CPU_SET(pus[i], &allowed);
    for (int k = 0; !why && k < ngpus; k++) {
        char other[4096];
        const char *onic, *ocpus;
        int overbs;
        cpu_set_t both;
        if (cmp_gpu_info_item(info, k, other, sizeof other) < 0 ||
            cmp_gpu_info_split(other, &onic, &overbs, &ocpus) < 0 || parse_cpulist(ocpus, &want) < 0)
            why = "a GPU without a CPU list";
        else if (CPU_AND(&both, &want, &allowed), !CPU_EQUAL(&both, &want))
            why = "hwloc_xml= describes CPUs this node does not allow";
    }
    if (!why && parse_cpulist(cpus, &want) < 0)
        why = "a GPU without a CPU list";
    int set = 0;
    for (size_t k = 0; !why && k < sizeof visible / sizeof visible[0]; k++)
        set |= spank_getenv(sp, visible[k], value, sizeof value) != ESPANK_ENV_NOEXIST;
    if (!why && !set)
        why = "Slurm set no visible-devices variable";
    if (!why && sched_setaffinity(0, sizeof want, &want) != 0)
        why = "sched_setaffinity failed";
    if (why) {
        slurm_debug("clustermap: rank %u: gpu %d nic %s cpus %s not bound (%s): keeping "
                    "Slurm's binding", rank, gpu, nic, cpus, why);
        if (verbose[0] == '1')
            fprintf(stderr, "clustermap: rank %u gpu %d nic %s cpus %s not bound (%s)\n",
                    rank, gpu, nic, cpus, why);
        return;
    }
    snprintf(value, sizeof value, "%d", gpu);
    for (size_t k = 0; k < sizeof visible / sizeof visible[0]; k++) {
        char old[8];
        if (spank_getenv(sp, visible[k], old, sizeof old) != ESPANK_ENV_NOEXIST)
            spank_setenv(sp, visible[k], value, 1);
    }
    /* The NIC follows the GPU, unless the user chose one: UCX and
     * libfabric's verbs provider are told its name; Open MPI's OFI
     * components and Cray MPICH pick the NIC nearest the cores just bound
     * (their own locality rule), so other NICs need no variable. */
    char old[sizeof item + 4];
    if (verbs && spank_getenv(sp, "UCX_NET_DEVICES", old, sizeof old) == ESPANK_ENV_NOEXIST) {
        snprintf(old, sizeof old, "%s:1", nic);
        spank_setenv(sp, "UCX_NET_DEVICES", old, 1);
    }
    if (verbs && spank_getenv(sp, "FI_VERBS_DEVICE_NAME", old, sizeof old) == ESPANK_ENV_NOEXIST)
        spank_setenv(sp, "FI_VERBS_DEVICE_NAME", nic, 1);
    slurm_debug("clustermap: rank %u gpu %d nic %s cpus %s bound", rank, gpu, nic, cpus);
    if (verbose[0] == '1')
        fprintf(stderr, "clustermap: rank %u gpu %d nic %s cpus %s bound\n", rank, gpu, nic,
                cpus);
}
