/* forest.c -- see forest_internal.h. */
#include <stdlib.h>
#include <string.h>

#include "forest_internal.h"

static int heavier_first(const void *a, const void *b)
{
    const cm_wedge_t *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

static int uf_find(int *uf, int x)
{
    while (uf[x] != x) {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    return x;
}

void cm_forest_free(cm_forest_t *f)
{
    free(f->order);
    free(f->pos);
    free(f->parent);
    free(f->pw);
    free(f->cfirst);
    free(f->ccount);
    memset(f, 0, sizeof *f);
}

int cm_forest_build(int m, cm_wedge_t *e, size_t ne, cm_forest_t *f)
{
    size_t mm = m > 0 ? (size_t)m : 1;
    memset(f, 0, sizeof *f);
    f->m = m;
    if (ne > 1)
        qsort(e, ne, sizeof *e, heavier_first);
    int *uf = malloc(sizeof(int) * mm);
    int *deg = calloc(mm + 1, sizeof(int));
    int *adj = malloc(sizeof(int) * 2 * mm);
    double *adjw = malloc(sizeof(double) * 2 * mm);
    f->order = malloc(sizeof(int) * mm);
    f->pos = malloc(sizeof(int) * mm);
    f->parent = malloc(sizeof(int) * mm);
    f->pw = malloc(sizeof(double) * mm);
    f->cfirst = malloc(sizeof(int) * mm);
    f->ccount = calloc(mm, sizeof(int));
    int rc = -1;
    if (!uf || !deg || !adj || !adjw || !f->order || !f->pos || !f->parent ||
        !f->pw || !f->cfirst || !f->ccount)
        goto out;
    /* Kruskal: the kept edges overwrite the front of e[]. */
    for (int i = 0; i < m; i++)
        uf[i] = i;
    size_t nt = 0;
    for (size_t k = 0; k < ne && nt + 1 < (size_t)m; k++) {
        int a = uf_find(uf, e[k].u), b = uf_find(uf, e[k].v);
        if (a == b)
            continue;
        uf[a < b ? b : a] = a < b ? a : b;
        e[nt++] = e[k];
    }
    /* Adjacency of the forest (CSR), neighbours in the order kept. */
    for (size_t k = 0; k < nt; k++) {
        deg[e[k].u + 1]++;
        deg[e[k].v + 1]++;
    }
    for (int i = 0; i < m; i++)
        deg[i + 1] += deg[i];
    for (size_t k = 0; k < nt; k++) {
        adj[deg[e[k].u]] = e[k].v;
        adjw[deg[e[k].u]++] = e[k].w;
        adj[deg[e[k].v]] = e[k].u;
        adjw[deg[e[k].v]++] = e[k].w;
    }
    for (int i = m; i > 0; i--)   /* deg[i] was the end of row i: shift back */
        deg[i] = deg[i - 1];
    deg[0] = 0;
    /* Breadth-first from the lowest unvisited vertex of each component. */
    int tail = 0;
    for (int i = 0; i < m; i++)
        f->pos[i] = -1;
    for (int r = 0; r < m; r++) {
        if (f->pos[r] >= 0)
            continue;
        f->pos[r] = tail;
        f->order[tail++] = r;
        f->parent[r] = -1;
        f->pw[r] = 0;
        for (int head = tail - 1; head < tail; head++) {
            int v = f->order[head];
            f->cfirst[v] = tail;
            for (int a = deg[v]; a < deg[v + 1]; a++) {
                int w = adj[a];
                if (f->pos[w] >= 0)
                    continue;
                f->pos[w] = tail;
                f->order[tail++] = w;
                f->parent[w] = v;
                f->pw[w] = adjw[a];
                f->ccount[v]++;
            }
        }
    }
    rc = 0;
out:
    free(uf);
    free(deg);
    free(adj);
    free(adjw);
    if (rc < 0)
        cm_forest_free(f);
    return rc;
}
