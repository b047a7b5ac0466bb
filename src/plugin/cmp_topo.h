/*
 * cmp_topo.h -- the controller's switch (or block) records as Slurm-free
 * data: their text form (switches.c) and the user's cache of them
 * (topo_cache.c), so that a placed srun does not ask slurmctld every time;
 * no Slurm symbol (switches.c reads Slurm's version macros only), so their
 * unit test links them without Slurm.
 * Reading them from the controller is the placement module's
 * (slurm_topo.c, in src/plugin/).
 */
#ifndef CMP_TOPO_H
#define CMP_TOPO_H

#include <stddef.h>

#include "clustermap.h"
#include "cmp_limits.h"

/** One switch (or block) of the controller's topology. */
typedef struct cmp_switch {
    char *name;
    int level;      /**< Slurm's level, leaf = 0 (blocks: 0) */
    char *nodes;    /**< host list of the nodes below, or NULL */
    char *switches; /**< host list of the child switches, or NULL */
    int block;      /**< 1: a block of topology/block, whose level the tree
                         names "block" (cm_tree_from_blocks());
                         cmp_switches_push() sets 0 */
} cmp_switch_t;

/** cmp_slurm_switches(): this Slurm refuses the arbitrary layout a
 *  placement needs with this topology (26.05 with topology/block). */
#define CMP_TOPO_REFUSED (-2)

/** The controller's switches (slurm_load_topo), read the way the Slurm
 *  release built against provides them (slurm_topo.c).  Caller frees with
 *  cmp_switches_free(); none (topology/default) is not an error.
 *  Returns 0, -1 with @p err, or CMP_TOPO_REFUSED with @p err. */
int cmp_slurm_switches(cmp_switch_t **out, int *count, cm_error_t *err);
void cmp_switches_free(cmp_switch_t *sw, int n);

/** Append one record to @p sw (@p n used of @p cap, grown as needed);
 *  -1 when out of memory, and the caller frees the whole array with
 *  cmp_switches_free(). */
int cmp_switches_push(cmp_switch_t **sw, int *n, int *cap, const char *name, int level,
                      const char *nodes, const char *switches);

/** Switch records from text, one a line, as `scontrol show topology`
 *  prints them ("SwitchName=s1 Level=0 Nodes=n[1-2] Switches=...",
 *  "BlockName=b1 Nodes=...": a block, level 0, no child switch); other
 *  lines are skipped.  Modifies @p text.  Same returns as
 *  cmp_slurm_switches(). */
int cmp_switches_parse(char *text, size_t len, cmp_switch_t **out, int *count,
                       cm_error_t *err);

/** 1 when every one of the @p nn names of @p nodes is in the Nodes of a
 *  leaf record (level 0) of @p sw, or @p sw has no record (no switch:
 *  every node under one); 0 otherwise, or when a Nodes list does not
 *  expand.  @p nn 0: 1. */
int cmp_switches_cover(const cmp_switch_t *sw, int n, const char *const *nodes, int nn);

/** The user's cache of the controller's switches (topo_cache.c: where it
 *  lives, when it is valid, what is checked). */
typedef struct cmp_topo_cache {
    int dirfd;     /* the cache directory, -1: no cache */
    int ttl;       /* seconds an answer is kept */
    char name[64]; /* file name in it */
    char key[320]; /* what slurm.conf and topology files looked like */
} cmp_topo_cache_t;

/** Open the cache for @p slurm_conf (absolute path; NULL when srun has no
 *  slurm.conf, its configuration sent by the controller: then one answer
 *  for all, kept @p ttl seconds) with answers kept @p ttl seconds.  -1
 *  (and nothing to close) when there is no usable cache: ttl 0, a
 *  slurm.conf that cannot be looked at, no private directory. */
int cmp_topo_cache_open(cmp_topo_cache_t *tc, const char *slurm_conf, int ttl);
void cmp_topo_cache_close(cmp_topo_cache_t *tc);

/** 1 and the kept switches (free with cmp_switches_free()) while the kept
 *  answer is valid and knows every one of the @p nn names of @p nodes
 *  (cmp_switches_cover; NULL and 0: not checked), else 0.  A node the
 *  answer does not know (added since) is a miss: the caller asks the
 *  controller once and keeps the new answer, instead of leaving the step
 *  to Slurm until the answer expires. */
int cmp_topo_cache_get(const cmp_topo_cache_t *tc, const char *const *nodes, int nn,
                       cmp_switch_t **sw, int *n);

/** Keep @p sw as the answer for later sruns (silently nothing on error). */
void cmp_topo_cache_put(const cmp_topo_cache_t *tc, const cmp_switch_t *sw, int n);

/** Fill @p hw[i] of each of the @p nn names of @p nodes that the kept node
 *  records know (each kept @p tc's ttl seconds from when it was asked);
 *  leave the others as they are.  Returns how many were filled.  For the
 *  nodes slurm.conf does not describe -- all of them when srun has no
 *  slurm.conf -- so that a placed srun asks the controller for a node once
 *  an hour, not at every step. */
int cmp_topo_cache_get_nodes(const cmp_topo_cache_t *tc, const char *const *nodes, int nn,
                             cm_node_hw_t *hw);

/** Keep the records of the @p nn nodes whose @p hw has every field >= 1
 *  with the others still valid (silently nothing on error). */
void cmp_topo_cache_put_nodes(const cmp_topo_cache_t *tc, const char *const *nodes,
                              const cm_node_hw_t *hw, int nn);

/** The parent of the cache's fallback directory (clustermap-<euid>), used
 *  when XDG_RUNTIME_DIR has none: the node-local "/tmp".  A unit test
 *  points it at a directory of its own. */
extern const char *cmp_topo_cache_tmp;

#endif /* CMP_TOPO_H */
