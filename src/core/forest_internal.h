/* forest_internal.h -- maximum spanning forests, shared by the spanning-tree
 * placement (map_treecut.c) and the lower bound (bound.c): both cut the
 * heaviest forest of a communication graph into group-sized pieces. */
#ifndef CM_FOREST_INTERNAL_H
#define CM_FOREST_INTERNAL_H

#include <stddef.h>

/** An undirected weighted edge between local vertices u and v. */
typedef struct cm_wedge {
    int u, v;
    double w;
} cm_wedge_t;

/** A forest in breadth-first order: order[] lists the vertices, each after
 *  its parent; the children of a vertex are consecutive in order[]
 *  (cfirst/ccount index into it). */
typedef struct cm_forest {
    int m;
    int *order, *pos;    /**< order[pos[v]] == v */
    int *parent;         /**< -1 for a root */
    double *pw;          /**< weight of the edge to the parent (0 at a root) */
    int *cfirst, *ccount;
} cm_forest_t;

/** The maximum spanning forest (Kruskal, heaviest first; ties by vertex
 *  numbers, so the result is deterministic) of @p m vertices and edges
 *  @p e[0..ne), which are sorted in place.  Each component is rooted at its
 *  lowest vertex.  Returns 0, -1 when out of memory (@p f is then empty). */
int cm_forest_build(int m, cm_wedge_t *e, size_t ne, cm_forest_t *f);

void cm_forest_free(cm_forest_t *f);

#endif /* CM_FOREST_INTERNAL_H */
