/*
 * place_abi.h -- the interface between clustermap.so and the placement module
 * clustermap-place.so (place.c, slurm_tree.c, switches.c, topo_cache.c),
 * which srun dlopen()s only when a step is placed.
 */
#ifndef CMP_PLACE_ABI_H
#define CMP_PLACE_ABI_H

#include "cmp_topo.h"
#include "launch.h"

/* ---- the placement module (clustermap-place.so: place.c, slurm_tree.c) ---- */

/** The tree of @p a: sockets and cores of each node from the slurm.conf
 *  srun reads (slurm_load_node_single() for a node it does not define),
 *  switches from the user's cache or the controller (slurm_load_topo):
 *  switch levels, node, socket, slots.  No request whose size grows with
 *  the cluster.  NULL with @p err on failure (the caller falls back to
 *  Slurm's default): "controller data unavailable (...)", or why this Slurm
 *  refuses a placement here.  @p topo_cache: seconds the switches are kept
 *  (0: ask the controller every time). */
cm_tree_t *cmp_slurm_tree(const cmp_alloc_t *a, int cpus_per_task, int topo_cache,
                          cm_error_t *err);

/** What srun asks the module to plan. */
typedef struct cmp_plan_in {
    const cmp_config_t *config; /* algorithm, budget, weight, level costs */
    cmp_mode_t mode;            /* cluster, block or cyclic */
    const cmp_alloc_t *alloc;
    int cpus_per_task;
    int ntasks;
    const cm_matrix_t *matrix; /* cluster: the profile's traffic */
    int per_gpu;               /* > 0: tasks per GPU slot; the nodes' inside
                                     is config->hwloc_xml's (GPUs, links) */
} cmp_plan_in_t;

/** The plan: arrays of ntasks entries, allocated by the caller. */
typedef struct cmp_plan_out {
    int *node;              /* rank -> node (index in alloc->names) */
    int *core;              /* rank -> slot on that node */
    int *gpu;               /* per_gpu: rank -> GPU index on its node, -1
                                     none (caller-allocated, may be NULL) */
    char *gpu_info;         /* per_gpu, placed on GPUs: for GPU k of a
                                     node, the k-th blank-separated item
                                     "NIC:CPULIST" (its nearest NIC's
                                     OpenFabrics name, "-" none,
                                     CMP_GPU_INFO_VERBS before a verbs
                                     device's; its locality),
                                     malloc'd; NULL: the
                                     step was placed on nodes only */
    char *gpu_why;          /* per_gpu, not placed on GPUs: why, malloc'd */
    char *gpu_notes;        /* per_gpu, placed on GPUs: what gres.conf
                                     corrected of hwloc_xml=, lines
                                     "NODE: ..." each ending in a newline,
                                     malloc'd; NULL: nothing */
    char how[32];           /* the winning algorithm, or the layout */
    double j_plan, j_block; /* cluster: predicted cost, and block's */
    char *explain;          /* cluster: key=value lines for the step's
                                     record (`clustermap explain`), the
                                     engine's whole text, malloc'd: the
                                     caller frees it; NULL: none */
} cmp_plan_out_t;

/** The module's one entry point.  0, or -1 with @p err saying why (the
 *  caller falls back to Slurm's default placement).  Both objects come
 *  from one build and share the structures above and the engine's: the
 *  symbol's name carries the interface's version, so that a module of
 *  another version fails to load instead of misreading them. */
typedef int cmp_plan_fn(const cmp_plan_in_t *in, cmp_plan_out_t *out, cm_error_t *err);
#define CMP_PLAN_SYMBOL "cmp_place_plan_v5"
cmp_plan_fn cmp_place_plan_v5;

/** The module's file name, installed next to clustermap.so. */
#define CMP_PLACE_LIB_NAME "clustermap-place.so"

#endif /* CMP_PLACE_ABI_H */
