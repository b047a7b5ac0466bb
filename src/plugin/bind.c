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
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "plugin_spank.h"

/* Entry @p k of a comma-separated list of non-negative integers, -1 if
 * absent or malformed. */
static int list_entry(const char *list, unsigned k)
{
    const char *p = list;
    for (unsigned i = 0; i < k; i++) {
        p = strchr(p, ',');
        if (!p)
            return -1;
        p++;
    }
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || (*end && *end != ',') || v < 0 || v > 1 << 20)
        return -1;
    return (int)v;
}

/* Allowed PUs (OS indexes) in logical order.  Returns how many, -1 on error. */
static int allowed_pus(int *pus, int max)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) < 0)
        return -1;
    /* Only packages, cores and PUs matter: skip caches and I/O (faster). */
    hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(topo) < 0) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topo);
    int n = 0, total = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    for (int i = 0; i < total && n < max; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
        if (pu && hwloc_bitmap_isset(allowed, pu->os_index) && pu->os_index < CPU_SETSIZE)
            pus[n++] = (int)pu->os_index;
    }
    hwloc_topology_destroy(topo);
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
    int slot = list_entry(list, rank);
    if (slot < 0) {
        cmp_log_error("rank %u: no core in %s; keeping Slurm's binding", rank,
                      CMP_ENV_CORES);
        return;
    }
    int pus[CPU_SETSIZE];
    int n = allowed_pus(pus, CPU_SETSIZE);
    if (n <= 0) {
        cmp_log_error("rank %u: cannot read the node's CPUs with hwloc; keeping "
                      "Slurm's binding", rank);
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
