/* map_treecut.c -- the spanning-tree placement (cm_map_treecut in
 * engine_internal.h).
 *
 * From the root down, the ranks a tree vertex received are split among its
 * children with exact shares (cm_child_shares), then every child is handled
 * the same way, as the multisection does; the split is what differs.
 *
 * Split.  The graph induced on the ranks, each edge weighted by what cutting
 * it at this level costs more than keeping it one level down, is reduced to
 * a maximum spanning forest (Kruskal).  On a tree-shaped pattern (reduction
 * and broadcast trees) that forest is the whole pattern; on others it keeps
 * the heaviest connections.  A dynamic program over the forest then cuts it
 * into connected pieces of at most the largest share with the least cut
 * weight (exact on the forest, O(m x share)): the classic knapsack over
 * subtrees, where a vertex's state is the size of the piece still open
 * above it.  Graph partitioners, being built for meshes, leave several
 * times this optimum on trees.
 *
 * Packing.  Pieces go to the children largest first, each into the child
 * with the least room that holds it (best fit).  A piece no child holds is
 * carved: the child with the most room takes exactly that many of its
 * ranks, chosen by a second dynamic program (exact number of ranks, least
 * forest weight between the carved part and the rest), and the rest goes
 * on.  Sizes are exact by construction.
 *
 * Wide pieces (a share above what the table allows) are cut by Kundu and
 * Misra's greedy rule instead: bottom-up, a vertex whose open piece is too
 * large closes its largest open child pieces; it gives the fewest pieces
 * on unweighted forests.  The planner refines the result (cm_refine). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "forest_internal.h"

/* Largest dynamic-programming table (ranks x (share + 1) cells) per split:
 * beyond it the greedy rule cuts.  Bounds the memory to a few megabytes. */
#define TC_DP_CELLS (1 << 21)
/* Work units charged per table cell and per sorted edge (measured like
 * CM_UNITS_PER_SECOND: a cell costs about what a refinement edge does). */
#define TC_UNITS_PER_CELL 1
#define TC_UNITS_PER_EDGE 8

/* One worker's view of a placement (cm_walk): the shared problem and
 * mapping, its own scratch and error. */
typedef struct tc {
    const cm_problem_t *p;
    const cm_tree_t *t;
    int *map;
    cm_budget_t *b;
    int *local;          /* [n] rank -> index in the current split, -1 */
    cm_error_t *err;
} tc_t;

static void charge(tc_t *c, double units)
{
    if (units > 0)
        cm_budget_add(c->b, (uint64_t)units);
}

/* ---- the forest ---------------------------------------------------------- */

/* Weight of cutting an edge at tree level @p l rather than one level down:
 * the split's objective. */
static double cut_weight(const cm_problem_t *p, double b, double m, int l)
{
    double w = cm_edge_cost(p, b, m, l);
    if (l + 1 < p->nlevels)
        w -= cm_edge_cost(p, b, m, l + 1);
    return w > 0 ? w : 0;
}

static int build_forest(tc_t *c, int level, const int *ranks, int m,
                        cm_forest_t *f)
{
    const cm_problem_t *p = c->p;
    memset(f, 0, sizeof *f);
    f->m = m;
    size_t ne = 0, cap = 0;
    cm_wedge_t *e = NULL;
    for (int i = 0; i < m; i++)
        c->local[ranks[i]] = i;
    for (int i = 0; i < m; i++) {
        const int *cols;
        const double *b, *ms;
        int len;
        cm_matrix_row(p->sym, ranks[i], &cols, &b, &ms, &len);
        for (int k = 0; k < len; k++) {
            int j = c->local[cols[k]];
            if (j <= i)
                continue;
            if (ne == cap) {
                size_t nc = cap ? 2 * cap : 1024;
                cm_wedge_t *ee = realloc(e, sizeof *e * nc);
                if (!ee)
                    goto oom;
                e = ee;
                cap = nc;
            }
            e[ne++] = (cm_wedge_t){i, j, cut_weight(p, b[k], ms[k], level)};
        }
        charge(c, len);
    }
    for (int i = 0; i < m; i++)
        c->local[ranks[i]] = -1;
    charge(c, TC_UNITS_PER_EDGE * (double)ne);
    int rc = cm_forest_build(m, e, ne, f);
    free(e);
    if (rc < 0)
        return cm_error_set(c->err, "treecut mapping: out of memory for the "
                            "spanning forest of %d ranks (%zu edges)", m, ne);
    charge(c, 4.0 * m);
    return 0;
oom:
    free(e);
    return cm_error_set(c->err, "treecut mapping: out of memory for the edges "
                        "among %d ranks (%zu so far)", m, ne);
}

/* ---- cutting the forest into pieces of at most S --------------------------- */

/* Exact: piece[v] for every vertex, pieces numbered in breadth-first order
 * of their topmost vertex.  Returns the number of pieces, -1 when out of
 * memory. */
static int cut_dp(tc_t *c, const cm_forest_t *f, int S, int *piece)
{
    int m = f->m;
    int *sub = malloc(sizeof(int) * (size_t)m);
    size_t *off = malloc(sizeof(size_t) * (size_t)m);   /* dp of v */
    size_t *coff = malloc(sizeof(size_t) * (size_t)m);  /* choice of v's merge */
    int *best = malloc(sizeof(int) * (size_t)m);
    int *target = malloc(sizeof(int) * (size_t)m);
    double *tmp = malloc(sizeof(double) * ((size_t)S + 1));
    if (!sub || !off || !coff || !best || !target || !tmp)
        goto oom;
    for (int k = m - 1; k >= 0; k--) {
        int v = f->order[k];
        sub[v] = 1;
        for (int j = 0; j < f->ccount[v]; j++)
            sub[v] += sub[f->order[f->cfirst[v] + j]];
    }
    size_t dlen = 0, clen = 0;
    for (int v = 0; v < m; v++) {
        int cum = 1;
        off[v] = dlen;
        dlen += (size_t)(sub[v] < S ? sub[v] : S) + 1;
        for (int j = 0; j < f->ccount[v]; j++) {
            int ch = f->order[f->cfirst[v] + j];
            cum += sub[ch];
            coff[ch] = clen;
            clen += (size_t)(cum < S ? cum : S) + 1;
        }
    }
    double *dp = malloc(sizeof(double) * dlen);
    int *choice = malloc(sizeof(int) * (clen ? clen : 1));
    if (!dp || !choice) {
        free(dp);
        free(choice);
        goto oom;
    }
    double cells = 0;
    /* dp[v][k]: least cut weight inside v's subtree when the piece holding
     * v has k vertices there, every other piece closed. */
    for (int k = m - 1; k >= 0; k--) {
        int v = f->order[k];
        double *dv = dp + off[v];
        int len = 1;                 /* largest size so far */
        dv[0] = INFINITY;
        dv[1] = 0;
        for (int j = 0; j < f->ccount[v]; j++) {
            int ch = f->order[f->cfirst[v] + j];
            const double *dc = dp + off[ch];
            int lc = sub[ch] < S ? sub[ch] : S;
            int nl = len + lc < S ? len + lc : S;
            int *cc = choice + coff[ch];
            double cut = f->pw[ch] + dc[best[ch]];
            for (int a = 0; a <= nl; a++) {
                tmp[a] = a <= len ? dv[a] + cut : INFINITY;
                cc[a] = 0;
            }
            /* Joining wins ties: larger pieces pack into the children
             * with fewer leftovers. */
            for (int a = 1; a <= len; a++) {
                if (dv[a] == INFINITY)
                    continue;
                for (int bb = 1; bb <= lc && a + bb <= S; bb++) {
                    double x = dv[a] + dc[bb];
                    if (x < tmp[a + bb] || (x == tmp[a + bb] && cc[a + bb] == 0)) {
                        tmp[a + bb] = x;
                        cc[a + bb] = bb;
                    }
                }
            }
            cells += (double)len * lc + nl;
            memcpy(dv, tmp, sizeof(double) * ((size_t)nl + 1));
            len = nl;
        }
        int bk = 1;
        for (int a = 2; a <= len; a++)
            if (dv[a] <= dv[bk])
                bk = a;
        best[v] = bk;
    }
    charge(c, TC_UNITS_PER_CELL * cells);
    /* Trace back, parents first; pieces are numbered in breadth-first
     * order of their topmost vertex. */
    int np = 0;
    for (int k = 0; k < m; k++) {
        int v = f->order[k];
        if (f->parent[v] < 0) {
            target[v] = best[v];
            piece[v] = -1;
        }
        if (piece[v] < 0)
            piece[v] = np++;
        int left = target[v];
        for (int j = f->ccount[v] - 1; j >= 0; j--) {
            int ch = f->order[f->cfirst[v] + j];
            int b = choice[coff[ch] + left];
            if (b == 0) {
                target[ch] = best[ch];
                piece[ch] = -1;
            } else {
                target[ch] = b;
                piece[ch] = piece[v];
                left -= b;
            }
        }
    }
    free(dp);
    free(choice);
    free(sub);
    free(off);
    free(coff);
    free(best);
    free(target);
    free(tmp);
    return np;
oom:
    free(sub);
    free(off);
    free(coff);
    free(best);
    free(target);
    free(tmp);
    return cm_error_set(c->err, "treecut mapping: out of memory cutting a "
                        "forest of %d ranks into pieces of at most %d", m, S);
}

typedef struct okey {
    int open, v;
} okey_t;

static int by_open(const void *a, const void *b)
{
    const okey_t *x = a, *y = b;
    if (x->open != y->open)
        return x->open > y->open ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

/* Kundu and Misra's rule for shares too wide for the table. */
static int cut_greedy(tc_t *c, const cm_forest_t *f, int S, int *piece)
{
    int m = f->m;
    int *open = malloc(sizeof(int) * (size_t)m);
    char *closed = calloc((size_t)m, 1);
    okey_t *key = malloc(sizeof(okey_t) * (size_t)m);
    if (!open || !closed || !key) {
        free(open);
        free(closed);
        free(key);
        return cm_error_set(c->err, "treecut mapping: out of memory cutting a "
                            "forest of %d ranks into pieces of at most %d "
                            "(greedy rule)", m, S);
    }
    for (int k = m - 1; k >= 0; k--) {
        int v = f->order[k], o = 1, nc = f->ccount[v];
        for (int j = 0; j < nc; j++)
            o += open[f->order[f->cfirst[v] + j]];
        if (o > S) {
            for (int j = 0; j < nc; j++) {
                int ch = f->order[f->cfirst[v] + j];
                key[j] = (okey_t){open[ch], ch};
            }
            qsort(key, (size_t)nc, sizeof *key, by_open);
            for (int j = 0; j < nc && o > S; j++) {
                closed[key[j].v] = 1;
                o -= key[j].open;
            }
            charge(c, 4.0 * nc);
        }
        open[v] = o;
    }
    int np = 0;
    for (int k = 0; k < m; k++) {
        int v = f->order[k];
        piece[v] = f->parent[v] < 0 || closed[v] ? np++ : piece[f->parent[v]];
    }
    charge(c, 2.0 * m);
    free(open);
    free(closed);
    free(key);
    return np;
}

/* ---- carving an exact number of ranks out of a piece --------------------- */

/* Choose exactly @p want of the @p L vertices rest[] (breadth-first order)
 * with the least forest weight between chosen and not chosen: sel[i] = 1
 * for the chosen.  @p where is [m] scratch holding -1, left so.  A table
 * too large for TC_DP_CELLS takes the first @p want in order instead. */
static int carve(tc_t *c, const cm_forest_t *f, const int *rest, int L, int want,
                 int *where, char *sel)
{
    if ((double)L * (want + 1) > TC_DP_CELLS / 2) {
        for (int i = 0; i < L; i++)
            sel[i] = i < want;
        return 0;
    }
    int V = L + 1;               /* vertex L: a virtual root, never chosen */
    int *par = malloc(sizeof(int) * (size_t)V);
    int *sub = malloc(sizeof(int) * (size_t)V);
    int *cstart = calloc((size_t)V + 1, sizeof(int));
    int *kids = malloc(sizeof(int) * (size_t)V);
    size_t *off = malloc(sizeof(size_t) * (size_t)V);
    size_t *coff = malloc(sizeof(size_t) * (size_t)V);
    int *state = malloc(sizeof(int) * (size_t)V);
    int *tgt = malloc(sizeof(int) * (size_t)V);
    int *cnl = malloc(sizeof(int) * (size_t)V);
    double *t0 = malloc(sizeof(double) * ((size_t)want + 1) * 2);
    double *dp = NULL;
    int *choice = NULL;
    int rc = -1;
    if (!par || !sub || !cstart || !kids || !off || !coff || !state || !tgt ||
        !cnl || !t0)
        goto out;
    double *t1 = t0 + want + 1;
    for (int i = 0; i < L; i++)
        where[rest[i]] = i;
    for (int i = 0; i < L; i++) {
        int q = f->parent[rest[i]];
        par[i] = q >= 0 && where[q] >= 0 ? where[q] : L;
        sub[i] = 1;
    }
    for (int i = 0; i < L; i++)
        where[rest[i]] = -1;
    sub[L] = 0;
    for (int i = L - 1; i >= 0; i--)   /* parents come first */
        sub[par[i]] += sub[i];
    for (int i = 0; i < L; i++)
        cstart[par[i] + 1]++;
    for (int i = 0; i < V; i++)
        cstart[i + 1] += cstart[i];
    {
        int *fill = tgt;
        memcpy(fill, cstart, sizeof(int) * (size_t)V);
        for (int i = 0; i < L; i++)
            kids[fill[par[i]]++] = i;
    }
    size_t dlen = 0, clen = 0;
    for (int i = 0; i < V; i++) {
        int cum = i < L ? 1 : 0;
        off[i] = dlen;
        dlen += 2 * ((size_t)(sub[i] < want ? sub[i] : want) + 1);
        for (int j = cstart[i]; j < cstart[i + 1]; j++) {
            cum += sub[kids[j]];
            coff[kids[j]] = clen;
            cnl[kids[j]] = cum < want ? cum : want;
            clen += 2 * ((size_t)cnl[kids[j]] + 1);
        }
    }
    dp = malloc(sizeof(double) * dlen);
    choice = malloc(sizeof(int) * (clen ? clen : 1));
    if (!dp || !choice)
        goto out;
    double cells = 0;
    /* dp0/dp1 of i: least weight inside i's subtree with k chosen there,
     * i itself not chosen / chosen. */
    for (int q = 0; q < V; q++) {
        int i = q < L ? L - 1 - q : L;   /* children first, the root last */
        int cap = sub[i] < want ? sub[i] : want;
        double *d0 = dp + off[i], *d1 = d0 + cap + 1;
        int len = i < L ? 1 : 0;
        d0[0] = 0;
        d1[0] = INFINITY;
        if (len) {
            d0[1] = INFINITY;
            d1[1] = 0;
        }
        for (int j = cstart[i]; j < cstart[i + 1]; j++) {
            int ch = kids[j];
            int lc = sub[ch] < want ? sub[ch] : want;
            const double *c0 = dp + off[ch], *c1 = c0 + lc + 1;
            double w = ch < L && par[ch] < L ? f->pw[rest[ch]] : 0;
            int nl = len + lc < want ? len + lc : want;
            int *k0 = choice + coff[ch], *k1 = k0 + nl + 1;
            for (int a = 0; a <= nl; a++) {
                t0[a] = t1[a] = INFINITY;
                k0[a] = k1[a] = 0;
            }
            for (int a = 0; a <= len; a++)
                for (int bb = 0; bb <= lc && a + bb <= want; bb++) {
                    /* parent not chosen */
                    double x = d0[a] + c0[bb], y = d0[a] + c1[bb] + w;
                    if (x < t0[a + bb]) {
                        t0[a + bb] = x;
                        k0[a + bb] = 2 * bb;
                    }
                    if (y < t0[a + bb]) {
                        t0[a + bb] = y;
                        k0[a + bb] = 2 * bb + 1;
                    }
                    /* parent chosen */
                    x = d1[a] + c1[bb];
                    y = d1[a] + c0[bb] + w;
                    if (x < t1[a + bb]) {
                        t1[a + bb] = x;
                        k1[a + bb] = 2 * bb + 1;
                    }
                    if (y < t1[a + bb]) {
                        t1[a + bb] = y;
                        k1[a + bb] = 2 * bb;
                    }
                }
            cells += 2.0 * (len + 1) * (lc + 1);
            memcpy(d0, t0, sizeof(double) * ((size_t)nl + 1));
            memcpy(d1, t1, sizeof(double) * ((size_t)nl + 1));
            len = nl;
        }
    }
    charge(c, TC_UNITS_PER_CELL * cells);
    /* Trace back from the virtual root (not chosen, want below), then
     * parents before children (par[i] < i). */
    state[L] = 0;
    tgt[L] = want;
    for (int q = 0; q <= L; q++) {
        int i = q == 0 ? L : q - 1;
        int left = tgt[i];
        for (int j = cstart[i + 1] - 1; j >= cstart[i]; j--) {
            int ch = kids[j];
            const int *kk = choice + coff[ch] + (state[i] ? cnl[ch] + 1 : 0);
            int code = kk[left];
            state[ch] = code & 1;
            tgt[ch] = code >> 1;
            left -= code >> 1;
        }
        if (i < L)
            sel[i] = (char)state[i];
    }
    rc = 0;
out:
    free(par);
    free(sub);
    free(cstart);
    free(kids);
    free(off);
    free(coff);
    free(state);
    free(tgt);
    free(cnl);
    free(t0);
    free(dp);
    free(choice);
    if (rc < 0)
        return cm_error_set(c->err, "treecut mapping: out of memory carving "
                            "%d ranks out of a piece of %d", want, L);
    return 0;
}

/* ---- packing the pieces onto the children ----------------------------------- */

typedef struct pkey {
    int size, id;
} pkey_t;

static int by_size(const void *a, const void *b)
{
    const pkey_t *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* part[v] in 0..k-1 with exactly size[j] vertices in part j. */
static int pack(tc_t *c, const cm_forest_t *f, const int *piece, int np,
                const int *size, int k, int *part)
{
    int m = f->m, rc = -1;
    int *start = calloc((size_t)np + 1, sizeof(int));
    int *members = malloc(sizeof(int) * (size_t)m);
    int *rest = malloc(sizeof(int) * (size_t)m);
    int *where = malloc(sizeof(int) * (size_t)m);
    char *sel = malloc((size_t)m);
    int *room = malloc(sizeof(int) * (size_t)k);
    pkey_t *key = malloc(sizeof(pkey_t) * (size_t)np);
    if (!start || !members || !rest || !where || !sel || !room || !key) {
        cm_error_set(c->err, "treecut mapping: out of memory packing %d "
                     "pieces of %d ranks onto %d children", np, m, k);
        goto out;
    }
    for (int v = 0; v < m; v++) {
        start[piece[v] + 1]++;
        where[v] = -1;
    }
    for (int q = 0; q < np; q++) {
        key[q] = (pkey_t){start[q + 1], q};
        start[q + 1] += start[q];
    }
    for (int i = 0; i < m; i++) {   /* breadth-first order inside a piece */
        int v = f->order[i];
        members[start[piece[v]]++] = v;
    }
    for (int q = np; q > 0; q--)
        start[q] = start[q - 1];
    start[0] = 0;
    memcpy(room, size, sizeof(int) * (size_t)k);
    qsort(key, (size_t)np, sizeof *key, by_size);
    charge(c, 2.0 * m + (double)np * k);
    int ndefer = 0;
    for (int q = 0; q < np; q++) {
        int sz = key[q].size, bj = -1;
        for (int j = 0; j < k; j++)
            if (room[j] >= sz && (bj < 0 || room[j] < room[bj])) {
                bj = j;
                if (room[j] == sz)
                    break;
            }
        if (bj < 0) {
            key[ndefer++] = key[q];   /* still largest first */
            continue;
        }
        room[bj] -= sz;
        for (int i = start[key[q].id]; i < start[key[q].id + 1]; i++)
            part[members[i]] = bj;
    }
    /* The rest: the child with the most room takes what it holds, carved
     * for the least cut, until the piece is placed. */
    for (int q = 0; q < ndefer; q++) {
        int L = key[q].size;
        memcpy(rest, members + start[key[q].id], sizeof(int) * (size_t)L);
        while (L > 0) {
            int bj = 0;
            for (int j = 1; j < k; j++)
                if (room[j] > room[bj])
                    bj = j;
            charge(c, k);
            if (room[bj] >= L) {
                for (int i = 0; i < L; i++)
                    part[rest[i]] = bj;
                room[bj] -= L;
                break;
            }
            if (room[bj] <= 0) {
                cm_error_set(c->err, "treecut mapping: pieces exceed the "
                             "children's room (%d ranks left, all %d "
                             "children full)", L, k);
                goto out;
            }
            if (carve(c, f, rest, L, room[bj], where, sel) < 0)
                goto out;
            int nl = 0;
            for (int i = 0; i < L; i++) {
                if (sel[i])
                    part[rest[i]] = bj;
                else
                    rest[nl++] = rest[i];
            }
            room[bj] = 0;
            L = nl;
        }
    }
    rc = 0;
out:
    free(start);
    free(members);
    free(rest);
    free(where);
    free(sel);
    free(room);
    free(key);
    return rc;
}

/* Split @p count ranks at tree vertex level @p level into k parts of
 * exactly size[j]. */
static int split(tc_t *c, int level, const int *ranks, int count,
                 const int *size, int k, int *part)
{
    cm_forest_t f;
    if (build_forest(c, level, ranks, count, &f) < 0)
        return -1;
    int S = 0;
    for (int j = 0; j < k; j++)
        S = size[j] > S ? size[j] : S;
    int *piece = malloc(sizeof(int) * (size_t)count);
    int rc = -1;
    if (!piece) {
        cm_error_set(c->err, "treecut mapping: out of memory splitting %d "
                     "ranks into %d parts", count, k);
        goto out;
    }
    int np = (double)count * (S + 1) <= TC_DP_CELLS ? cut_dp(c, &f, S, piece)
                                                     : cut_greedy(c, &f, S, piece);
    if (np < 0)
        goto out;
    rc = pack(c, &f, piece, np, size, k, part);
out:
    free(piece);
    cm_forest_free(&f);
    return rc;
}

/* ---- the recursion over the machine tree ---------------------------------- */

/* The walk's step (cm_walk_fn): split the ranks of vertex @p v among its
 * children and hand each child its part.  The worker's error is the one
 * the helpers above set (c->err). */
static int place(cm_walk_t *w, void *worker, int v, int *ranks, int count,
                 void *data, cm_error_t *err)
{
    tc_t *c = worker;
    (void)data;   /* always NULL: one split per vertex */
    c->err = err;
    const cm_tree_t *t = c->t;
    int only, direct = cm_place_direct(t, v, ranks, count, c->map, &only, c->err);
    if (direct != 0)
        return direct < 0 ? -1 : 0;
    if (only >= 0)
        return place(w, c, only, ranks, count, NULL, err);
    int nc = cm_tree_vertex_nchildren(t, v);
    int *used = malloc(sizeof(int) * (size_t)nc);
    int *size = malloc(sizeof(int) * (size_t)nc);
    int *part = malloc(sizeof(int) * (size_t)count);
    int *order = malloc(sizeof(int) * (size_t)count);
    int *pos = calloc((size_t)nc + 1, sizeof(int));
    int rc = -1, k;
    if (!used || !size || !part || !order || !pos) {
        cm_error_set(c->err, "treecut mapping: out of memory splitting %d "
                     "ranks among the %d children of tree vertex %d", count,
                     nc, v);
        goto out;
    }
    if ((k = cm_child_parts(t, v, count, used, size, c->err)) < 0)
        goto out;
    if (k == 1) {
        rc = place(w, c, cm_tree_vertex_child(t, v, used[0]), ranks, count, NULL, err);
        goto out;
    }
    if (split(c, cm_tree_vertex_level(t, v), ranks, count, size, k, part) < 0)
        goto out;
    /* Group the ranks by part, stably, and place each part. */
    for (int i = 0; i < count; i++)
        pos[part[i] + 1]++;
    for (int j = 0; j < k; j++)
        pos[j + 1] += pos[j];
    for (int i = 0; i < count; i++)
        order[pos[part[i]]++] = ranks[i];
    memcpy(ranks, order, sizeof(int) * (size_t)count);
    int off = 0;
    for (int j = 0; j < k; j++) {
        if (cm_walk_child(w, c, cm_tree_vertex_child(t, v, used[j]), ranks + off,
                          size[j], NULL, err) < 0)
            goto out;
        off += size[j];
    }
    rc = 0;
out:
    free(used);
    free(size);
    free(part);
    free(order);
    free(pos);
    return rc;
}

int cm_map_treecut(const cm_problem_t *p, int threads, int *map, cm_budget_t *b,
                   cm_error_t *err)
{
    if (!p || !map)
        return cm_error_set(err, "cm_map_treecut: expected a problem and a "
                            "map, got NULL");
    int n = p->n;
    if (n > p->nslots)
        return cm_error_set(err, "treecut mapping: %d ranks do not fit on %d "
                            "slots", n, p->nslots);
    threads = cm_walk_threads(threads, n);
    tc_t *c = calloc((size_t)threads, sizeof *c);
    void **scratch = calloc((size_t)threads, sizeof *scratch);
    int *ranks = malloc(sizeof(int) * (size_t)(n ? n : 1));
    int rc = -1;
    if (!c || !scratch || !ranks) {
        cm_error_set(err, "treecut mapping: out of memory for %d ranks and "
                     "%d threads", n, threads);
        goto out;
    }
    for (int k = 0; k < threads; k++) {
        c[k] = (tc_t){p, p->tree, map, b, NULL, err};
        if (!(c[k].local = malloc(sizeof(int) * (size_t)(n ? n : 1)))) {
            cm_error_set(err, "treecut mapping: out of memory for %d ranks "
                         "(thread %d of %d)", n, k + 1, threads);
            goto out;
        }
        for (int i = 0; i < n; i++)
            c[k].local[i] = -1;
        scratch[k] = &c[k];
    }
    for (int i = 0; i < n; i++) {
        ranks[i] = i;
        map[i] = -1;
    }
    rc = cm_walk(threads, place, scratch, 0, ranks, n, err);   /* root: vertex 0 */
out:
    for (int k = 0; c && k < threads; k++)
        free(c[k].local);
    free(c);
    free(scratch);
    free(ranks);
    return rc;
}
