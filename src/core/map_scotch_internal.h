/*
 * map_scotch_internal.h -- pieces of map_scotch.c that unit tests check on
 * their own: the tree-leaf target built from a machine tree and the
 * collision repair.  Not part of the public interface.
 */
#ifndef CM_MAP_SCOTCH_INTERNAL_H
#define CM_MAP_SCOTCH_INTERNAL_H

#include <stdio.h>   /* before scotch.h: Scotch 7.0.12 uses FILE without it */
#include <scotch.h>

#include "clustermap.h"

/** A machine tree as a Scotch tree-leaf architecture, padded to the largest
 *  fanout per level (see the top of map_scotch.c). */
typedef struct cm_tleaf {
    int nlev;           /**< tleaf levels: the tree levels that split */
    SCOTCH_Num *size;   /**< [nlev] fanout, root down */
    double *diff;       /**< [nlev] byte-cost differences (unscaled, >= 0) */
    SCOTCH_Num *link;   /**< [nlev] scaled link costs (cm_tleaf_scale_links) */
    SCOTCH_Num *term;   /**< [nslots] padded leaf index of each slot */
    SCOTCH_Num nterm;   /**< leaves of the padded tree; == nslots iff regular */
} cm_tleaf_t;

/** Fill @p tl from the finalized tree @p t (links not yet scaled).  Fails
 *  when slots are not all at the same depth or the padded tree is too big.
 *  nlev is 0 for a single-slot tree.  Release with cm_tleaf_free() even on
 *  failure. */
int cm_tleaf_build(const cm_tree_t *t, cm_tleaf_t *tl, cm_error_t *err);

/** Scale the cost differences into integer link costs whose sum is at most
 *  @p cap (smallest non-zero difference -> 1 when that fits); returns the
 *  sum, i.e. the largest leaf distance (>= 1). */
long long cm_tleaf_scale_links(cm_tleaf_t *tl, long long cap);

void cm_tleaf_free(cm_tleaf_t *tl);

/** Make a many-to-one @p map (slots valid) one-to-one: on each slot the
 *  lowest rank stays; every other rank, in rank order, moves to the free
 *  slot with the deepest lowest common ancestor with its slot (the lowest
 *  such slot on ties).  Fails only when n > slots or out of memory. */
int cm_map_repair(const cm_tree_t *t, int n, int *map, cm_error_t *err);

#endif /* CM_MAP_SCOTCH_INTERNAL_H */
