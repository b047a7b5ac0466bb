/*
 * cmp_layout_text.h -- a placement's two texts, written by srun's side of
 * the plugin and read by others: the hostfile (one node name a line, line
 * i the node of rank i: what srun reads through SLURM_HOSTFILE) and the
 * per-rank core list (CLUSTERMAP_CORES, "s0,s1,...": the slot of each rank
 * on its node, read by each task's binding).  One encoder and one decoder
 * each, so that both sides agree by construction.
 */
#ifndef CMP_LAYOUT_TEXT_H
#define CMP_LAYOUT_TEXT_H

#include <stddef.h>

#include "clustermap.h"

/** Largest slot index a core list carries (a node's slots). */
#define CMP_CORE_LIST_MAX_SLOT (1 << 20)

/** The hostfile of @p ntasks ranks: line r is names[node[r]].  A malloc'd,
 *  NUL-terminated text (the caller frees it; *@p len gets its length
 *  without the NUL), or NULL with @p err when a name is empty or holds a
 *  blank or a newline (Slurm would read it as another line) or memory runs
 *  out, or a NULL @p names, @p node or name.  @p node entries must index
 *  @p names: the caller checked them.  @p len may be NULL. */
char *cmp_hostfile_format(const char *const *names, const int *node, int ntasks,
                          size_t *len, cm_error_t *err);

/** The node of every rank in the hostfile @p text (@p len bytes), as
 *  indexes into @p names (@p nnames entries), into @p node (room for
 *  @p ntasks).  0, or -1 with @p err naming the line: a host not in
 *  @p names, more or fewer lines than @p ntasks; a NULL @p text (with
 *  @p len > 0), @p names, name or @p node. */
int cmp_hostfile_parse(const char *text, size_t len, const char *const *names, int nnames,
                       int ntasks, int *node, cm_error_t *err);

/** The core list of @p ntasks slots ("3,0,1,2"): malloc'd, or NULL with
 *  @p err (a negative slot or one above CMP_CORE_LIST_MAX_SLOT, no
 *  memory, a NULL @p slot with @p ntasks > 0). */
char *cmp_core_list_format(const int *slot, int ntasks, cm_error_t *err);

/** Rank @p rank's slot in the core list @p list: >= 0, or -1 when the list
 *  has no such entry or the entry is not a slot index (a NULL @p list
 *  included). */
int cmp_core_list_entry(const char *list, unsigned rank);

/** Item @p k (0-based) of the blank-separated list @p info (the per-GPU
 *  "NIC:CPULIST" items of CLUSTERMAP_GPU_INFO) into @p buf, whole.  0, or
 *  -1 (@p buf then "" when it has room) for a NULL argument, k < 0, no
 *  such item, or an item that does not fit @p size. */
int cmp_gpu_info_item(const char *info, int k, char *buf, size_t size);

/** The prefix of an item's NIC that is an InfiniBand verbs device
 *  ("verbs/mlx5_0:0-15"): one UCX_NET_DEVICES and libfabric's
 *  FI_VERBS_DEVICE_NAME can name.  Other NICs (Slingshot's cxi, BXI) are
 *  written bare: the variables would name a device those libraries do
 *  not have, and the MPI picks the NIC nearest the bound cores itself. */
#define CMP_GPU_INFO_VERBS "verbs/"

/** Split @p item (as cmp_gpu_info_item() gave it; modified in place) into
 *  *@p nic, its NIC's OpenFabrics name without CMP_GPU_INFO_VERBS ("-":
 *  none), *@p verbs (1 when it had that prefix) and *@p cpus, its CPU
 *  list.  0, or -1 for an item without ':' or a NULL argument. */
int cmp_gpu_info_split(char *item, const char **nic, int *verbs, const char **cpus);

#endif /* CMP_LAYOUT_TEXT_H */
