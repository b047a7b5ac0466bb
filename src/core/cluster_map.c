/* cluster_map.c -- the clustering placement: Wang et al.'s "hierarchical
 * designated mapping" (section 4.5), with Kurnosov and Paznikov's
 * level-by-level recursion and Hao and Zeng's capacity shares
 * (docs/design.md, "Where each method comes from").
 *
 * From the root down, the ranks a vertex received are split among its
 * children: several clusterings are packed onto the children (pack.c) and
 * the one cutting the least traffic at this vertex's level is kept.  The
 * clusterings are CP-NSC (spectral_internal.h) for several k -- computed
 * from one embedding with the largest k, since the leading eigenvectors of
 * a smaller k are its first columns -- the clusters inherited from the
 * level above (AQAP: clusters are the units of the search) and the
 * incoming rank order.  A vertex with more than CM_CLUSTER_FANOUT children
 * is split into that many groups of consecutive children first, so that no
 * step needs more than a few dozen eigenvectors.  APE (ape.c) finishes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"
#include "spectral_internal.h"

/* Largest sub-problem solved with the dense eigen-solver: the dense path is
 * O(m^3), the sparse one wins from a few hundred ranks on (measured). */
#define DENSE_MAX 256
/* Residual the sparse eigen-solver stops at: clustering needs the
 * invariant subspace roughly, not to six digits. */
#define EIG_TOL 1e-3
/* Share of the budget the clustering steps may use; the rest is left to
 * APE and to the refinement the planner runs afterwards. */
#define SPECTRAL_SHARE 0.6
/* Swap passes on the parts each step keeps (refine_parts). */
#define REFINE_PASSES 8

typedef struct cmap {
    const cm_problem_t *p;
    const cm_tree_t *t;
    cm_budget_t *b;
    uint64_t seed;
    double t_low, t_high;
    int t_k;
    int *map;
    int *unit;            /* rank -> its piece in the last step that split
                             its ranks (ranks placed together share the
                             step, so these ids are comparable) */
    int *gunit;           /* rank -> the same piece, numbered globally */
    int next_unit;
    uint64_t spectral_end;/* budget.used at which spectral steps stop */
    double work_total;    /* estimated ranks x steps of the whole run */
    double work_done;
    cm_error_t *err;
} cmap_t;

static void charge(cmap_t *cm, double units)
{
    if (units > 0)
        cm->b->used += (uint64_t)units;
}

/* ---- expanding a packing into a part per rank --------------------------- */

typedef struct step {
    cmap_t *cm;
    int level;            /* cut edges cost this level's price */
    const int *ranks;     /* global rank of each local index */
    int m;
    const int *caps;      /* per part */
    int nparts;
    cm_matrix_t *sub;     /* symmetric sub-matrix over the local indices */
    /* scratch */
    int *members;         /* local indices grouped by cluster */
    int *start;           /* k + 1 */
    int *order;           /* BFS order inside a split cluster */
    char *seen;
    int *sizes, *minr, *assign;
    cm_pack_piece_t *pieces;
    int kcap;             /* allocated cluster capacity of the arrays */
    int *part, *piece;    /* candidate being evaluated */
    int *best_part, *best_piece;
    int best_npieces;
    double best_cut;
} step_t;

/* Order the members of one cluster by breadth-first search inside it, so
 * that the pieces of a split cluster are connected where possible. */
static void bfs_order(step_t *s, const int *mem, int cnt, const int *label,
                      int c, int *out)
{
    int head = 0, tail = 0;
    for (int r = 0; r < cnt; r++) {
        if (s->seen[mem[r]])
            continue;
        s->seen[mem[r]] = 1;
        out[tail++] = mem[r];
        while (head < tail) {
            int i = out[head++];
            const int *cols;
            const double *by, *ms;
            int len;
            cm_matrix_row(s->sub, i, &cols, &by, &ms, &len);
            for (int e = 0; e < len; e++) {
                int j = cols[e];
                if (label[j] == c && !s->seen[j]) {
                    s->seen[j] = 1;
                    out[tail++] = j;
                }
            }
        }
    }
    for (int r = 0; r < cnt; r++)
        s->seen[out[r]] = 0;
    charge(s->cm, cnt);
}

static double cut_of(const step_t *s, const int *part)
{
    const cm_problem_t *p = s->cm->p;
    double cut = 0;
    size_t nnz = 0;
    for (int i = 0; i < s->m; i++) {
        const int *cols;
        const double *by, *ms;
        int len;
        cm_matrix_row(s->sub, i, &cols, &by, &ms, &len);
        nnz += (size_t)len;
        for (int e = 0; e < len; e++)
            if (cols[e] > i && part[cols[e]] != part[i])
                cut += cm_edge_cost(p, by[e], ms[e], s->level);
    }
    charge(s->cm, (double)nnz);
    return cut;
}

/* Pack the clustering @p label (k clusters, all non-empty) with @p rule,
 * turn it into a part per rank and keep it if it cuts less than the best
 * so far.  Returns -1 on error. */
static int try_packing(step_t *s, const int *label, int k, cm_pack_rule_t rule)
{
    int np = cm_pack(rule, s->sizes, s->minr, k, s->caps, s->nparts,
                     s->assign, s->pieces, s->cm->err);
    if (np < 0)
        return -1;
    /* Pieces in placement order; a cluster's pieces take its members in
     * BFS order. */
    int *taken = malloc(sizeof(int) * (size_t)k);
    if (!taken)
        return cm_error_set(s->cm->err, "cluster mapping: out of memory "
                            "packing %d clusters of %d ranks", k, s->m);
    memset(taken, 0, sizeof(int) * (size_t)k);
    for (int q = 0; q < np; q++) {
        const cm_pack_piece_t *pc = &s->pieces[q];
        int c = pc->cluster;
        const int *mem = s->members + s->start[c];
        if (taken[c] == 0 && s->assign[c] < 0) {
            /* First piece of a split cluster: reorder its members. */
            int cnt = s->start[c + 1] - s->start[c];
            bfs_order(s, mem, cnt, label, c, s->order);
            memcpy(s->members + s->start[c], s->order, sizeof(int) * (size_t)cnt);
        }
        for (int r = 0; r < pc->count; r++) {
            int i = mem[taken[c] + r];
            s->part[i] = pc->child;
            s->piece[i] = q;
        }
        taken[c] += pc->count;
    }
    free(taken);
    double cut = cut_of(s, s->part);
    if (cut < s->best_cut) {
        s->best_cut = cut;
        s->best_npieces = np;
        memcpy(s->best_part, s->part, sizeof(int) * (size_t)s->m);
        memcpy(s->best_piece, s->piece, sizeof(int) * (size_t)s->m);
    }
    return 0;
}

/* Evaluate clustering @p label with k clusters: every rule, the adaptive
 * choice first (it wins ties).  @p only_rule >= 0 restricts to one. */
static int try_clustering(step_t *s, const int *label, int k, int only_rule)
{
    if (k > s->kcap) {
        int cap = k;
        int *st = realloc(s->start, sizeof(int) * ((size_t)cap + 1));
        if (st)
            s->start = st;
        int *sz = realloc(s->sizes, sizeof(int) * (size_t)cap);
        if (sz)
            s->sizes = sz;
        int *mr = realloc(s->minr, sizeof(int) * (size_t)cap);
        if (mr)
            s->minr = mr;
        int *as = realloc(s->assign, sizeof(int) * (size_t)cap);
        if (as)
            s->assign = as;
        cm_pack_piece_t *pc = realloc(s->pieces, sizeof(cm_pack_piece_t) *
                                      (size_t)CM_PACK_MAX_PIECES(cap, s->nparts));
        if (pc)
            s->pieces = pc;
        if (!st || !sz || !mr || !as || !pc)
            return cm_error_set(s->cm->err, "cluster mapping: out of memory "
                                "for %d clusters of %d ranks", k, s->m);
        s->kcap = cap;
    }
    for (int c = 0; c <= k; c++)
        s->start[c] = 0;
    for (int c = 0; c < k; c++)
        s->minr[c] = -1;
    for (int i = 0; i < s->m; i++) {
        int c = label[i];
        s->start[c + 1]++;
        int g = s->ranks[i];
        if (s->minr[c] < 0 || g < s->minr[c])
            s->minr[c] = g;
    }
    for (int c = 0; c < k; c++) {
        s->sizes[c] = s->start[c + 1];
        s->start[c + 1] += s->start[c];
    }
    for (int c = 0; c < k; c++)
        if (s->sizes[c] < 1)
            return cm_error_set(s->cm->err, "cluster mapping: cluster %d of "
                                "%d is empty (%d ranks clustered)", c, k,
                                s->m);
    {
        int *fill = s->order;
        for (int c = 0; c < k; c++)
            fill[c] = s->start[c];
        /* order has m entries; k <= m */
        for (int i = 0; i < s->m; i++)
            s->members[fill[label[i]]++] = i;
    }
    cm_pack_rule_t first = only_rule >= 0 ? (cm_pack_rule_t)only_rule :
        cm_pack_choose(s->sizes, k, s->cm->t_low, s->cm->t_high, s->cm->t_k);
    if (try_packing(s, label, k, first) != 0)
        return -1;
    if (only_rule >= 0)
        return 0;
    for (int r = 0; r < CM_PACK_NRULES; r++)
        if (r != (int)first && try_packing(s, label, k, (cm_pack_rule_t)r) != 0)
            return -1;
    return 0;
}

/* ---- the spectral candidates -------------------------------------------- */

/* Units of one sparse eigen-solver iteration with a block of p vectors. */
static double eig_iter_units(int m, size_t nnz, int p)
{
    return (12.0 * p * (double)nnz + (double)m * p * p) / 40.0;
}

static double kmeans_units(int m, int k, int restarts)
{
    return 0.5 * m * (double)k * k * restarts;
}

static int spectral_candidates(step_t *s, int *label, double allow)
{
    cmap_t *cm = s->cm;
    int m = s->m;
    static const int factors[] = CM_CLUSTER_K_FACTORS;
    int nf = (int)(sizeof factors / sizeof factors[0]);
    int ks[16], nk = 0;
    for (int f = 0; f < nf; f++) {
        int k = (factors[f] * s->nparts + 1) / 2;
        if (k > m)
            k = m;
        if (k >= 2 && (nk == 0 || k > ks[nk - 1]))
            ks[nk++] = k;
    }
    if (nk == 0)
        return 0;

    int *comp = malloc(sizeof(int) * (size_t)m);
    if (!comp)
        return cm_error_set(cm->err, "cluster mapping: out of memory for the "
                            "components of %d ranks", m);
    int ncomp = cm_components(s->sub, comp, cm->err);
    free(comp);
    if (ncomp < 0)
        return -1;
    size_t nnz = cm_matrix_nnz(s->sub) + (size_t)m;
    charge(cm, (double)nnz);

    cm_spectral_opts_t so;
    cm_spectral_opts_default(&so);
    so.dense_max = DENSE_MAX;
    so.tol = EIG_TOL;
    so.kmeans_max_iter = 50;

    /* Components first: as many clusters as components or fewer are
     * unions of whole components (cm_cpnsc's own rule), nearly free. */
    int first_eig = 0;
    while (first_eig < nk && ks[first_eig] <= ncomp) {
        if (cm_cpnsc(s->sub, ks[first_eig], cm->seed, &so, label, cm->err) != 0)
            return -1;
        charge(cm, 4.0 * (double)nnz);
        if (try_clustering(s, label, ks[first_eig], -1) != 0)
            return -1;
        first_eig++;
    }
    if (first_eig == nk)
        return 0;

    /* The embedding: as many candidates as the allowance pays for. */
    int restarts = 4;
    int last = nk - 1, iters = 0;
    for (;; last--) {
        if (last < first_eig)
            return 0;           /* not even the smallest k fits */
        int kmax = ks[last];
        double km = 0;
        for (int j = first_eig; j <= last; j++)
            km += kmeans_units(m, ks[j], restarts);
        double eig;
        if (m <= DENSE_MAX) {
            eig = (double)m * m * m / 200.0;
            iters = 0;
        } else {
            int p = kmax + (kmax / 2 > 8 ? kmax / 2 : 8);
            double it = eig_iter_units(m, nnz, p);
            iters = (int)((allow - km) / it);
            if (iters > 40)
                iters = 40;
            eig = iters * it;
            if (iters < 3)
                eig = INFINITY;
        }
        if (eig + km <= allow)
            break;
        if (restarts > 1 && last == first_eig) {
            restarts = restarts > 2 ? 2 : 1;
            last++;             /* retry the same k with fewer restarts */
        }
    }
    if (iters > 0)
        so.max_iter = iters;
    int kmax = ks[last];
    cm_matrix_t *sim = cm_similarity(s->sub, so.max_similarity, cm->err);
    double *U = malloc(sizeof(double) * (size_t)m * (size_t)kmax);
    double *X = malloc(sizeof(double) * (size_t)m * (size_t)kmax);
    int rc = -1;
    if (!sim || !U || !X) {
        if (sim)
            cm_error_set(cm->err, "cluster mapping: out of memory for a %d x "
                         "%d spectral embedding", m, kmax);
        goto out;
    }
    cm_spectral_info_t info;
    if (cm_spectral_embedding(sim, kmax, &so, U, &info, cm->err) != 0)
        goto out;
    if (info.sparse) {
        int p = kmax + (kmax / 2 > 8 ? kmax / 2 : 8);
        charge(cm, info.iterations * eig_iter_units(m, nnz, p));
    } else {
        charge(cm, (double)m * m * m / 200.0);
    }
    for (int j = first_eig; j <= last; j++) {
        int k = ks[j];
        /* The first k columns, rows normalised again (step 5 of CP-NSC). */
        for (int i = 0; i < m; i++) {
            const double *u = U + (size_t)i * kmax;
            double *x = X + (size_t)i * k, nrm = 0;
            for (int c = 0; c < k; c++) {
                x[c] = u[c];
                nrm += u[c] * u[c];
            }
            if (nrm > 0) {
                nrm = 1.0 / sqrt(nrm);
                for (int c = 0; c < k; c++)
                    x[c] *= nrm;
            }
        }
        if (cm_kmeans(X, m, k, k, restarts, cm->seed + (uint64_t)k,
                      so.kmeans_max_iter, label, NULL, cm->err) != 0)
            goto out;
        charge(cm, kmeans_units(m, k, restarts));
        if (try_clustering(s, label, k, -1) != 0)
            goto out;
    }
    rc = 0;
out:
    cm_matrix_free(sim);
    free(U);
    free(X);
    return rc;
}

/* ---- swap refinement of a step's parts ---------------------------------- */

typedef struct gain {
    double g;
    int i;
} gain_t;

static int by_gain(const void *a, const void *b)
{
    const gain_t *x = a, *y = b;
    if (x->g != y->g)
        return x->g > y->g ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Kernighan-Lin style passes on the parts of one step: for every pair of
 * parts, ranks with the most to gain on each side trade places while the
 * pair's gain (minus twice their own edge) is positive.  Part sizes never
 * change.  Each pass is O(nnz + m log m); stops when a pass swaps
 * nothing.  Clustering finds the coarse structure, this fixes the
 * boundary ranks k-means assigned by distance rather than by cut. */
static int refine_parts(step_t *s, int *part, int passes)
{
    int m = s->m, g = s->nparts;
    const cm_problem_t *p = s->cm->p;
    double *conn = calloc((size_t)m * (size_t)g, sizeof(double));
    gain_t *la = malloc(sizeof(gain_t) * (size_t)m);
    gain_t *lb = malloc(sizeof(gain_t) * (size_t)m);
    if (!conn || !la || !lb) {
        free(conn); free(la); free(lb);
        return cm_error_set(s->cm->err, "cluster mapping: out of memory "
                            "refining %d ranks in %d parts", m, g);
    }
    size_t nnz = cm_matrix_nnz(s->sub);
    for (int i = 0; i < m; i++) {
        const int *cols;
        const double *by, *ms;
        int len;
        cm_matrix_row(s->sub, i, &cols, &by, &ms, &len);
        for (int e = 0; e < len; e++)
            conn[(size_t)i * g + part[cols[e]]] +=
                cm_edge_cost(p, by[e], ms[e], s->level);
    }
    charge(s->cm, (double)nnz);
    for (int pass = 0; pass < passes && cm_budget_left(s->cm->b); pass++) {
        int swapped = 0;
        for (int A = 0; A < g; A++)
            for (int B = A + 1; B < g; B++) {
                int na = 0, nb = 0;
                for (int i = 0; i < m; i++) {
                    const double *c = conn + (size_t)i * g;
                    if (part[i] == A && c[B] > 0)
                        la[na++] = (gain_t){c[B] - c[A], i};
                    else if (part[i] == B && c[A] > 0)
                        lb[nb++] = (gain_t){c[A] - c[B], i};
                }
                charge(s->cm, (double)m);
                if (na == 0 || nb == 0)
                    continue;
                qsort(la, (size_t)na, sizeof(gain_t), by_gain);
                qsort(lb, (size_t)nb, sizeof(gain_t), by_gain);
                int x = 0, y = 0;
                while (x < na && y < nb) {
                    int u = la[x].i, v = lb[y].i;
                    const double *cu = conn + (size_t)u * g;
                    const double *cv = conn + (size_t)v * g;
                    double gu = cu[B] - cu[A], gv = cv[A] - cv[B];
                    if (gu + gv <= 0)
                        break;
                    const int *cols;
                    const double *by, *ms;
                    int len;
                    double wuv = 0;
                    cm_matrix_row(s->sub, u, &cols, &by, &ms, &len);
                    for (int e = 0; e < len; e++)
                        if (cols[e] == v)
                            wuv += cm_edge_cost(p, by[e], ms[e], s->level);
                    double gain = gu + gv - 2 * wuv;
                    if (!(gain > 1e-12 * (fabs(gu) + fabs(gv)))) {
                        if (gu < gv)
                            x++;
                        else
                            y++;
                        continue;
                    }
                    /* Swap u (A -> B) and v (B -> A). */
                    int who[2] = {u, v}, from[2] = {A, B}, to[2] = {B, A};
                    for (int t = 0; t < 2; t++) {
                        part[who[t]] = to[t];
                        cm_matrix_row(s->sub, who[t], &cols, &by, &ms, &len);
                        for (int e = 0; e < len; e++) {
                            double w = cm_edge_cost(p, by[e], ms[e], s->level);
                            double *cw = conn + (size_t)cols[e] * g;
                            cw[from[t]] -= w;
                            cw[to[t]] += w;
                        }
                        charge(s->cm, (double)len);
                    }
                    swapped++;
                    x++;
                    y++;
                }
            }
        if (!swapped)
            break;
    }
    free(conn);
    free(la);
    free(lb);
    return 0;
}

/* ---- one step: split m ranks among nparts parts ------------------------- */

static void step_free(step_t *s)
{
    cm_matrix_free(s->sub);
    free(s->members); free(s->start); free(s->order); free(s->seen);
    free(s->sizes); free(s->minr); free(s->assign); free(s->pieces);
    free(s->part); free(s->piece); free(s->best_part); free(s->best_piece);
}

/* Fills part[m] (0..nparts-1) and gives every rank its new unit. */
static int partition(cmap_t *cm, int level, const int *ranks, int m,
                     const int *caps, int nparts, int *part)
{
    step_t s = {0};
    s.cm = cm;
    s.level = level;
    s.ranks = ranks;
    s.m = m;
    s.caps = caps;
    s.nparts = nparts;
    s.best_cut = INFINITY;
    int rc = -1;
    int *label = malloc(sizeof(int) * (size_t)m);
    s.members = malloc(sizeof(int) * (size_t)m);
    s.order = malloc(sizeof(int) * (size_t)m);
    s.seen = calloc((size_t)m, 1);
    s.part = malloc(sizeof(int) * (size_t)m);
    s.piece = malloc(sizeof(int) * (size_t)m);
    s.best_part = malloc(sizeof(int) * (size_t)m);
    s.best_piece = malloc(sizeof(int) * (size_t)m);
    if (!label || !s.members || !s.order || !s.seen || !s.part || !s.piece ||
        !s.best_part || !s.best_piece) {
        cm_error_set(cm->err, "cluster mapping: out of memory splitting %d "
                     "ranks into %d parts", m, nparts);
        goto out;
    }
    s.sub = cm_matrix_sub(cm->p->sym, ranks, m, cm->err);
    if (!s.sub)
        goto out;
    charge(cm, (double)m + (double)cm_matrix_nnz(s.sub));

    /* 1. The clusters inherited from the level above (AQAP units), when
     * they are real groups rather than single ranks. */
    {
        int maxid = 0, k = 0;
        for (int i = 0; i < m; i++)
            if (cm->unit[ranks[i]] > maxid)
                maxid = cm->unit[ranks[i]];
        int *id = malloc(sizeof(int) * ((size_t)maxid + 1));
        if (!id) {
            cm_error_set(cm->err, "cluster mapping: out of memory numbering "
                         "the clusters of %d ranks (largest id %d)", m, maxid);
            goto out;
        }
        for (int u = 0; u <= maxid; u++)
            id[u] = -1;
        for (int i = 0; i < m; i++) {
            int u = cm->unit[ranks[i]];
            if (id[u] < 0)
                id[u] = k++;
            label[i] = id[u];
        }
        free(id);
        charge(cm, (double)m);
        if (k >= 2 && 2 * k <= m && try_clustering(&s, label, k, -1) != 0)
            goto out;
    }

    /* 2. CP-NSC for several k, as far as the allowance goes. */
    if (cm->b->used < cm->spectral_end) {
        double rest = cm->work_total - cm->work_done;
        if (rest < m)
            rest = m;
        double allow = (double)(cm->spectral_end - cm->b->used) * m / rest;
        if (spectral_candidates(&s, label, allow) != 0)
            goto out;
    }
    cm->work_done += m;

    /* 3. The incoming order: ranks in order fill the parts in sequence. */
    for (int i = 0; i < m; i++)
        label[i] = i;
    if (try_clustering(&s, label, m, CM_PACK_PLAIN) != 0)
        goto out;

    if (refine_parts(&s, s.best_part, REFINE_PASSES) != 0)
        goto out;
    memcpy(part, s.best_part, sizeof(int) * (size_t)m);
    for (int i = 0; i < m; i++) {
        cm->unit[ranks[i]] = s.best_piece[i];
        cm->gunit[ranks[i]] = cm->next_unit + s.best_piece[i];
    }
    cm->next_unit += s.best_npieces;
    rc = 0;
out:
    free(label);
    step_free(&s);
    return rc;
}

/* ---- the recursion over the tree ---------------------------------------- */

static int place_vertex(cmap_t *cm, int v, const int *ranks, int m);

/* Place @p m ranks onto the @p cnt consecutive children @p kids of one
 * vertex of level @p level, child i receiving exactly @p share[i]. */
static int place_range(cmap_t *cm, int level, const int *kids,
                       const int *share, int cnt, const int *ranks, int m)
{
    if (m == 0)
        return 0;
    if (cnt == 1)
        return place_vertex(cm, kids[0], ranks, m);
    int g = cnt <= CM_CLUSTER_FANOUT ? cnt : CM_CLUSTER_FANOUT;
    int bound[CM_CLUSTER_FANOUT + 1], caps[CM_CLUSTER_FANOUT];
    int nonempty = 0, only = 0;
    for (int j = 0; j <= g; j++)
        bound[j] = (int)((long)j * cnt / g);
    for (int j = 0; j < g; j++) {
        caps[j] = 0;
        for (int i = bound[j]; i < bound[j + 1]; i++)
            caps[j] += share[i];
        if (caps[j] > 0) {
            nonempty++;
            only = j;
        }
    }
    int *part = malloc(sizeof(int) * (size_t)m);
    int *sub = malloc(sizeof(int) * (size_t)m);
    int rc = -1;
    if (!part || !sub) {
        cm_error_set(cm->err, "cluster mapping: out of memory placing %d "
                     "ranks on %d children", m, cnt);
        goto out;
    }
    if (nonempty == 1) {
        for (int i = 0; i < m; i++)
            part[i] = only;
    } else if (partition(cm, level, ranks, m, caps, g, part) != 0) {
        goto out;
    }
    for (int j = 0; j < g; j++) {
        int c = 0;
        for (int i = 0; i < m; i++)
            if (part[i] == j)
                sub[c++] = ranks[i];
        if (c != caps[j]) {
            cm_error_set(cm->err, "cluster mapping: part %d of %d got %d "
                         "ranks, expected %d", j, g, c, caps[j]);
            goto out;
        }
        if (place_range(cm, level, kids + bound[j], share + bound[j],
                        bound[j + 1] - bound[j], sub, c) != 0)
            goto out;
    }
    rc = 0;
out:
    free(part);
    free(sub);
    return rc;
}

static int place_vertex(cmap_t *cm, int v, const int *ranks, int m)
{
    const cm_tree_t *t = cm->t;
    int only, direct = cm_place_direct(t, v, ranks, m, cm->map, &only, cm->err);
    if (direct != 0)
        return direct < 0 ? -1 : 0;
    int nch = cm_tree_vertex_nchildren(t, v);
    int *kids = malloc(sizeof(int) * (size_t)nch);
    int *cap = malloc(sizeof(int) * (size_t)nch);
    int *share = malloc(sizeof(int) * (size_t)nch);
    double *speed = malloc(sizeof(double) * (size_t)nch);
    int rc = -1;
    if (!kids || !cap || !share || !speed) {
        cm_error_set(cm->err, "cluster mapping: out of memory for the %d "
                     "children of tree vertex %d", nch, v);
        goto out;
    }
    for (int i = 0; i < nch; i++) {
        int c0;
        kids[i] = cm_tree_vertex_child(t, v, i);
        cm_tree_vertex_slots(t, kids[i], &c0, &cap[i]);
        speed[i] = cm_tree_vertex_speed(t, kids[i]);
    }
    if (cm_capacity_shares(m, cap, speed, nch, share, cm->err) != 0)
        goto out;
    rc = place_range(cm, cm_tree_vertex_level(t, v), kids, share, nch, ranks, m);
out:
    free(kids);
    free(cap);
    free(share);
    free(speed);
    return rc;
}

/* Partition steps a rank goes through on the way from @p v to a slot
 * (along the widest child), for sharing the budget between steps. */
static int steps_below(const cm_tree_t *t, int v)
{
    int nch = cm_tree_vertex_nchildren(t, v);
    if (nch == 0)
        return 0;
    int widest = cm_tree_vertex_child(t, v, 0);
    if (cm_tree_vertex_nchildren(t, widest) == 0)
        return 0;
    int steps = 0;
    for (long w = 1; w < nch; w *= CM_CLUSTER_FANOUT)
        steps++;
    return steps + steps_below(t, widest);
}

/* Final units as 0..k-1 labels, for APE. */
static int compact_units(const int *unit, int n, int nunits, int *label)
{
    int *id = malloc(sizeof(int) * (size_t)(nunits > 0 ? nunits : 1));
    if (!id)
        return -1;
    for (int u = 0; u < nunits; u++)
        id[u] = -1;
    int k = 0;
    for (int i = 0; i < n; i++) {
        int u = unit[i];
        if (id[u] < 0)
            id[u] = k++;
        label[i] = id[u];
    }
    free(id);
    return k;
}

int cm_map_cluster(const cm_problem_t *p, const cm_plan_options_t *o,
                   cm_budget_t *b, int *map, cm_error_t *err)
{
    if (!p || !b || !map)
        return cm_error_set(err, "cm_map_cluster: expected a problem, a "
                            "budget and a map, got NULL");
    int n = p->n;
    if (n > p->nslots)
        return cm_error_set(err, "cluster mapping: %d ranks do not fit on "
                            "%d slots", n, p->nslots);
    cmap_t cm = {0};
    cm.p = p;
    cm.t = p->tree;
    cm.b = b;
    cm.err = err;
    cm.map = map;
    cm.seed = o ? o->seed : 1;
    cm.t_low = o && o->pack_low > 0 ? o->pack_low : CM_PACK_LOW_DEFAULT;
    cm.t_high = o && o->pack_high > 0 ? o->pack_high : CM_PACK_HIGH_DEFAULT;
    cm.t_k = o && o->pack_kmax > 0 ? o->pack_kmax : CM_PACK_KMAX_DEFAULT;
    uint64_t left = b->limit > b->used ? b->limit - b->used : 0;
    cm.spectral_end = b->used + (uint64_t)(SPECTRAL_SHARE * (double)left);
    int steps = steps_below(cm.t, 0);
    cm.work_total = (double)n * (steps > 0 ? steps : 1);

    int *ranks = malloc(sizeof(int) * (size_t)n);
    cm.unit = calloc((size_t)n, sizeof(int));
    cm.gunit = calloc((size_t)n, sizeof(int));
    int *label = malloc(sizeof(int) * (size_t)n);
    int rc = -1;
    if (!ranks || !cm.unit || !cm.gunit || !label) {
        cm_error_set(err, "cluster mapping: out of memory for %d ranks", n);
        goto out;
    }
    for (int i = 0; i < n; i++) {
        ranks[i] = i;
        map[i] = -1;
    }
    cm.next_unit = 1;
    if (place_vertex(&cm, 0, ranks, n) != 0)
        goto out;
    if (cm_mapping_check(cm.t, map, n, err) != 0)
        goto out;

    /* APE on the final units: noise = at most half the mean unit size. */
    int k = compact_units(cm.gunit, n, cm.next_unit, label);
    if (k < 0) {
        cm_error_set(err, "cluster mapping: out of memory numbering %d "
                     "clusters of %d ranks for APE", cm.next_unit, n);
        goto out;
    }
    int noise = n / (2 * (k > 0 ? k : 1));
    if (noise < 1)
        noise = 1;
    if (cm_ape(p, label, k, noise, 4, map, b) < 0) {
        cm_error_set(err, "cluster mapping: out of memory in APE (%d ranks "
                     "in %d clusters)", n, k);
        goto out;
    }
    rc = 0;
out:
    free(ranks);
    free(cm.unit);
    free(cm.gunit);
    free(label);
    return rc;
}
