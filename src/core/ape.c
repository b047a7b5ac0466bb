/* ape.c -- aggregated pair exchange (Wang et al., algorithm 4;
 * docs/design.md, "Where each method comes from").
 *
 * Pair exchange over clusters instead of ranks: two small ("noise")
 * clusters of equal size trade places, member i of one taking the slot of
 * member i of the other.  Swapping noise reaches the same arrangements as
 * moving big chunks around them, at a fraction of the cost.  A swap is
 * tried only when it can shorten an edge: the partner cluster must sit in
 * an innermost group that holds a communication partner of the first one.
 * The gain comes from the members' edges alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"

typedef struct ape {
    const cm_problem_t *p;
    int *map;
    int *owner;            /* slot -> rank, -1 when free */
    const int *cluster;
    int *start, *members;  /* members of each cluster, ascending rank */
    int *newpos;           /* slot of a member after the trial swap */
    unsigned *mark;        /* rank -> epoch when in the trial pair */
    unsigned epoch;
    cm_budget_t *b;
} ape_t;

static double level_cost(const cm_problem_t *p, double by, double ms, int a,
                         int c)
{
    return cm_edge_cost(p, by, ms, cm_tree_lca_level(p->tree, a, c));
}

/* Change of J when clusters @p x and @p y (same size) trade slots. */
static double swap_delta(ape_t *a, int x, int y, double *mag)
{
    const cm_problem_t *p = a->p;
    int cnt = a->start[x + 1] - a->start[x];
    const int *mx = a->members + a->start[x], *my = a->members + a->start[y];
    if (++a->epoch == 0) {
        memset(a->mark, 0, sizeof(unsigned) * (size_t)p->n);
        a->epoch = 1;
    }
    for (int i = 0; i < cnt; i++) {
        a->newpos[mx[i]] = a->map[my[i]];
        a->newpos[my[i]] = a->map[mx[i]];
        a->mark[mx[i]] = a->epoch;
        a->mark[my[i]] = a->epoch;
    }
    double d = 0;
    size_t work = 0;
    for (int side = 0; side < 2; side++) {
        const int *mem = side ? my : mx;
        for (int i = 0; i < cnt; i++) {
            int u = mem[i];
            const int *cols;
            const double *by, *ms;
            int len;
            cm_matrix_row(p->sym, u, &cols, &by, &ms, &len);
            work += (size_t)len;
            for (int e = 0; e < len; e++) {
                int w = cols[e];
                double before, after;
                if (a->mark[w] == a->epoch) {
                    if (w < u)
                        continue;       /* inner edge: counted once */
                    before = level_cost(p, by[e], ms[e], a->map[u], a->map[w]);
                    after = level_cost(p, by[e], ms[e], a->newpos[u],
                                       a->newpos[w]);
                } else {
                    before = level_cost(p, by[e], ms[e], a->map[u], a->map[w]);
                    after = level_cost(p, by[e], ms[e], a->newpos[u],
                                       a->map[w]);
                }
                d += after - before;
                *mag += after + before;
            }
        }
    }
    a->b->used += work;
    return d;
}

static void do_swap(ape_t *a, int x, int y)
{
    int cnt = a->start[x + 1] - a->start[x];
    const int *mx = a->members + a->start[x], *my = a->members + a->start[y];
    for (int i = 0; i < cnt; i++) {
        int sx = a->map[mx[i]], sy = a->map[my[i]];
        a->map[mx[i]] = sy;
        a->map[my[i]] = sx;
        a->owner[sy] = mx[i];
        a->owner[sx] = my[i];
    }
}

int cm_ape(const cm_problem_t *p, const int *cluster, int nclusters,
           int noise_max, int max_sweeps, int *map, cm_budget_t *b)
{
    int n = p->n;
    if (n < 2 || nclusters < 2 || !cm_budget_left(b))
        return 0;
    ape_t a = {0};
    a.p = p;
    a.map = map;
    a.cluster = cluster;
    a.b = b;
    a.owner = malloc(sizeof(int) * (size_t)p->nslots);
    a.start = calloc((size_t)nclusters + 1, sizeof(int));
    a.members = malloc(sizeof(int) * (size_t)n);
    a.newpos = malloc(sizeof(int) * (size_t)n);
    a.mark = calloc((size_t)n, sizeof(unsigned));
    int *saved = malloc(sizeof(int) * (size_t)n);
    unsigned *tried = calloc((size_t)nclusters, sizeof(unsigned));
    int swaps = -1;
    if (!a.owner || !a.start || !a.members || !a.newpos || !a.mark || !saved ||
        !tried)
        goto out;
    swaps = 0;
    memcpy(saved, map, sizeof(int) * (size_t)n);
    for (int s = 0; s < p->nslots; s++)
        a.owner[s] = -1;
    for (int i = 0; i < n; i++) {
        a.owner[map[i]] = i;
        a.start[cluster[i] + 1]++;
    }
    for (int c = 0; c < nclusters; c++)
        a.start[c + 1] += a.start[c];
    {
        int *at = malloc(sizeof(int) * (size_t)nclusters);
        if (!at) {
            swaps = -1;
            goto out;
        }
        memcpy(at, a.start, sizeof(int) * (size_t)nclusters);
        for (int i = 0; i < n; i++)       /* ascending rank within each */
            a.members[at[cluster[i]]++] = i;
        free(at);
    }
    double J0 = cm_problem_cost(p, map);
    b->used += cm_matrix_nnz(p->sym);

    unsigned stamp = 0;
    for (int sweep = 0; sweep < max_sweeps && cm_budget_left(b); sweep++) {
        int improved = 0;
        for (int x = 0; x < nclusters && cm_budget_left(b); x++) {
            int cnt = a.start[x + 1] - a.start[x];
            if (cnt < 1 || cnt > noise_max)
                continue;
            if (++stamp == 0) {
                memset(tried, 0, sizeof(unsigned) * (size_t)nclusters);
                stamp = 1;
            }
            tried[x] = stamp;
            double best = 0;
            int best_y = -1;
            /* Candidates: equal-size noise in the innermost groups of the
             * partners of x's members. */
            for (int i = 0; i < cnt; i++) {
                int u = a.members[a.start[x] + i];
                const int *cols;
                const double *by, *ms;
                int len;
                cm_matrix_row(p->sym, u, &cols, &by, &ms, &len);
                for (int e = 0; e < len; e++) {
                    int pw = map[cols[e]];
                    int first = p->group_first[pw], gc = p->group_count[pw];
                    for (int q = first; q < first + gc; q++) {
                        int r = a.owner[q];
                        if (r < 0)
                            continue;
                        int y = cluster[r];
                        if (tried[y] == stamp ||
                            a.start[y + 1] - a.start[y] != cnt)
                            continue;
                        tried[y] = stamp;
                        double mag = 0;
                        double d = swap_delta(&a, x, y, &mag);
                        if (d < best && d < -1e-12 * mag) {
                            best = d;
                            best_y = y;
                        }
                    }
                }
            }
            if (best_y >= 0) {
                do_swap(&a, x, best_y);
                swaps++;
                improved = 1;
            }
        }
        if (!improved)
            break;
    }
    double J1 = cm_problem_cost(p, map);
    b->used += cm_matrix_nnz(p->sym);
    if (J1 > J0) {     /* accumulated rounding: keep the guarantee */
        memcpy(map, saved, sizeof(int) * (size_t)n);
        swaps = 0;
    }
out:
    free(a.owner);
    free(a.start);
    free(a.members);
    free(a.newpos);
    free(a.mark);
    free(saved);
    free(tried);
    return swaps;
}
