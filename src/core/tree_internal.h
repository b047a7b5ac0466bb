/* tree_internal.h -- machine-tree internals shared with the unit tests. */
#ifndef CM_TREE_INTERNAL_H
#define CM_TREE_INTERNAL_H

#include "clustermap.h"

/** Drop the per-slot ancestor table so that cm_tree_lca_level() takes the
 *  walk-up path used for trees too large for the table (tests compare both
 *  paths on the same tree). */
void cm_tree_drop_lca_table(cm_tree_t *t);

/** Non-zero when cm_tree_lca_level() uses the per-slot ancestor table. */
int cm_tree_has_lca_table(const cm_tree_t *t);

/** Append level @p name with the default costs of level name @p costs_of
 *  (usually the same name): byte cost 1 / cm_tree_default_bandwidth(),
 *  message cost cm_tree_default_latency().  Used by the hwloc and
 *  slurm.conf readers; fails for a name without defaults. */
int cm_tree_add_default_level(cm_tree_t *t, const char *name, const char *costs_of,
                              cm_error_t *err);

#endif /* CM_TREE_INTERNAL_H */
