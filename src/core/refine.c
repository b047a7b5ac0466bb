/* refine.c -- local search with O(degree) gains (see cm_refine in
 * engine_internal.h for the two kinds of moves).
 *
 * Rank exchange.  The cost of rank u at a slot q is
 *     cost_u(q) = sum over partners w of c_w(lca(q, slot of w)),
 * c_w(l) = bytes_uw * cb[l] + msgs_uw * cm[l].  With B(A), M(A) the bytes
 * and messages u exchanges with partners placed below tree vertex A, it
 * telescopes along the path A_0 (root) .. A_d (slot q):
 *     cost_u(q) = B(A_0) cb[l_0] + M(A_0) cm[l_0]
 *               + sum_i B(A_i) (cb[l_i] - cb[l_i-1]) + M(A_i) (cm[l_i] - cm[l_i-1])
 * so once B and M are accumulated over the partners' ancestors (O(deg u x
 * levels)), any slot costs O(levels).  Candidate slots are those of the
 * innermost groups holding a partner of u or, for sparse ranks, a partner of
 * a partner (VieM's N_C^2); the groups are ranked by u's side of the gain
 * and only the best few are tried slot by slot, adding the exact change of
 * the rank v that sits there (O(deg v)).
 *
 * Group exchange.  Two vertices A, B of the same level and shape swap their
 * contents slot for slot.  Edges inside A, inside B and between A and B keep
 * their lowest common ancestor level, so only edges leaving A u B change:
 * O(sum of the degrees).  Candidates B are the vertices that hold partners
 * of A's ranks, most connected first.
 *
 * Every applied move has a strictly negative gain beyond a relative
 * rounding tolerance, and a final full evaluation restores the incoming
 * mapping should rounding have accumulated: J never increases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

/* Innermost groups tried slot by slot per rank. */
#define TOP_GROUPS 6
/* Partners of partners are candidates when deg(u) * deg(w) stays below. */
#define N2_LIMIT 256
/* Sibling groups of a partner's group are candidates for ranks of degree
 * up to SIB_DEG_MAX, when there are at most SIB_MAX of them. */
#define SIB_DEG_MAX 16
#define SIB_MAX 16
/* Vertices B tried per vertex A in a group-exchange pass. */
#define TOP_PEERS 4
/* Vertices B tried in all (the peers and their siblings). */
#define MAX_TRIES 16
/* Converged: a round of the rank pass (n ranks looked at) or a whole
 * rank + group sweep gained less than this fraction of J.  The last
 * fractions of a percent cost as much work as the first tens of percent
 * (measured with mapbench: a2a64+ring at 1024 ranks spent 0.1 s for 0.7 %),
 * and the launch-time budget is better spent on another start. */
#define CONVERGED 1e-3

typedef struct refiner {
    const cm_problem_t *p;
    const cm_tree_t *t;
    int *map;
    int *owner;          /* slot -> rank, -1 when free */
    cm_budget_t *budget;
    int L, leaf;
    int nv;
    /* Per tree vertex: bytes and messages to u's partners below it. */
    double *accb, *accm;
    /* Per rank: u's edge to it, valid when mark[] == epoch. */
    double *wb, *wm;
    unsigned *mark;
    unsigned *vstamp;    /* per tree vertex */
    unsigned epoch;
    int *gvert;          /* slot -> innermost group vertex (-1 for a lone slot) */
    int *cand;           /* candidate group vertices */
    double *candcost;
    int *shape;          /* vertex -> shape class (group exchange) */
    int *levfirst, *levverts; /* vertices of each level */
    double J;            /* current J, updated by the applied gains */
    const int *kind;     /* exchangeable ranks (cm_refine_kinds), or NULL */
} refiner_t;

static inline double ecost(const refiner_t *r, double b, double m, int l)
{
    return b * r->p->costs.cb[l] + m * r->p->costs.cm[l];
}

/* Accumulate u's partners into accb/accm of their ancestors and into wb/wm
 * (mark), and return u's degree. */
static int load_rank(refiner_t *r, int u)
{
    const cm_problem_t *p = r->p;
    const int *cols;
    const double *b, *m;
    int len;
    cm_matrix_row(p->sym, u, &cols, &b, &m, &len);
    for (int k = 0; k < len; k++) {
        int w = cols[k];
        const int *a = p->anc + (size_t)r->map[w] * (size_t)r->L;
        for (int l = 0; l < r->L; l++)
            if (a[l] >= 0) {
                r->accb[a[l]] += b[k];
                r->accm[a[l]] += m[k];
            }
        r->wb[w] = b[k];
        r->wm[w] = m[k];
        r->mark[w] = r->epoch;
    }
    r->budget->used += (uint64_t)len;
    return len;
}

static void unload_rank(refiner_t *r, int u)
{
    const cm_problem_t *p = r->p;
    const int *cols;
    const double *b, *m;
    int len;
    cm_matrix_row(p->sym, u, &cols, &b, &m, &len);
    for (int k = 0; k < len; k++) {
        const int *a = p->anc + (size_t)r->map[cols[k]] * (size_t)r->L;
        for (int l = 0; l < r->L; l++)
            if (a[l] >= 0)
                r->accb[a[l]] = r->accm[a[l]] = 0;
    }
}

/* cost_u(q) from the accumulated ancestors (telescoping sum).  *mag gets
 * a magnitude for the rounding tolerance. */
static double slot_cost(const refiner_t *r, int q, double *mag)
{
    const cm_problem_t *p = r->p;
    const int *a = p->anc + (size_t)q * (size_t)r->L;
    double c = r->accb[a[0]] * p->costs.cb[0] + r->accm[a[0]] * p->costs.cm[0];
    double s = fabs(c);
    int prev = 0;
    for (int l = 1; l < r->L; l++) {
        if (a[l] < 0)
            continue;
        double t = r->accb[a[l]] * (p->costs.cb[l] - p->costs.cb[prev]) +
                   r->accm[a[l]] * (p->costs.cm[l] - p->costs.cm[prev]);
        c += t;
        s += fabs(t);
        prev = l;
    }
    *mag += s;
    return c;
}

/* Change of J from v's edges when v moves from slot `from` to `to`,
 * ignoring its edge to `skip`. */
static double move_delta(refiner_t *r, int v, int from, int to, int skip,
                         double *mag)
{
    const cm_problem_t *p = r->p;
    const int *cols;
    const double *b, *m;
    int len;
    cm_matrix_row(p->sym, v, &cols, &b, &m, &len);
    double d = 0;
    for (int k = 0; k < len; k++) {
        int w = cols[k];
        if (w == skip)
            continue;
        int pw = r->map[w];
        double after = ecost(r, b[k], m[k], cm_problem_lca(p, to, pw));
        double before = ecost(r, b[k], m[k], cm_problem_lca(p, from, pw));
        d += after - before;
        *mag += after + before;
    }
    r->budget->used += (uint64_t)len;
    return d;
}

static void push(int *queue, char *inq, int n, int *tail, int *count, int x)
{
    if (x < 0 || inq[x])
        return;
    inq[x] = 1;
    queue[*tail] = x;
    *tail = (*tail + 1) % n;
    (*count)++;
}

static void add_group(refiner_t *r, int g, int *ncand)
{
    if (g < 0 || r->vstamp[g] == r->epoch)
        return;
    r->vstamp[g] = r->epoch;
    r->cand[(*ncand)++] = g;
}

/* Best exchange for rank u: *best_q (or -1) and its delta. */
static double best_exchange(refiner_t *r, int u, int *best_q)
{
    const cm_problem_t *p = r->p;
    const cm_tree_t *t = r->t;
    int pu = r->map[u];
    int deg = load_rank(r, u);
    double mag0 = 0;
    double own = slot_cost(r, pu, &mag0);

    /* Candidate innermost groups. */
    int ncand = 0;
    int ownG = r->gvert[pu];
    if (ownG >= 0)
        r->vstamp[ownG] = r->epoch;
    const int *cols;
    const double *b, *m;
    int len;
    cm_matrix_row(p->sym, u, &cols, &b, &m, &len);
    for (int k = 0; k < len; k++) {
        int g = r->gvert[r->map[cols[k]]];
        add_group(r, g, &ncand);
        /* Widened N_C: the other innermost groups under the same parent
         * (a partner's node), where a rank may trade places without
         * displacing the partner's own neighbours. */
        int par = g >= 0 && deg <= SIB_DEG_MAX ? cm_tree_vertex_parent(t, g) : -1;
        int nsib = par >= 0 ? cm_tree_vertex_nchildren(t, par) : 0;
        if (nsib <= SIB_MAX)
            for (int c = 0; c < nsib; c++)
                add_group(r, cm_tree_vertex_child(t, par, c), &ncand);
    }
    for (int k = 0; k < len; k++) {
        const int *c2;
        const double *b2, *m2;
        int len2;
        cm_matrix_row(p->sym, cols[k], &c2, &b2, &m2, &len2);
        if ((long)deg * len2 > N2_LIMIT)
            continue;
        for (int k2 = 0; k2 < len2; k2++)
            add_group(r, r->gvert[r->map[c2[k2]]], &ncand);
        r->budget->used += (uint64_t)len2;
    }
    /* Rank the groups by u's side of the gain (cost at the group, the leaf
     * term left out: it only matters for a partner's own slot). */
    for (int c = 0; c < ncand; c++) {
        int first, cnt;
        cm_tree_vertex_slots(t, r->cand[c], &first, &cnt);
        double mag = 0;
        const int *a = p->anc + (size_t)first * (size_t)r->L;
        double cc = r->accb[a[0]] * p->costs.cb[0] + r->accm[a[0]] * p->costs.cm[0];
        int prev = 0;
        int lg = cm_tree_vertex_level(t, r->cand[c]);
        for (int l = 1; l <= lg; l++) {
            if (a[l] < 0)
                continue;
            cc += r->accb[a[l]] * (p->costs.cb[l] - p->costs.cb[prev]) +
                  r->accm[a[l]] * (p->costs.cm[l] - p->costs.cm[prev]);
            prev = l;
        }
        (void)mag;
        r->candcost[c] = cc;
    }
    r->budget->used += (uint64_t)ncand * (uint64_t)r->L;
    int top = ncand < TOP_GROUPS ? ncand : TOP_GROUPS;
    for (int i = 0; i < top; i++) {   /* partial selection sort */
        int bi = i;
        for (int j = i + 1; j < ncand; j++)
            if (r->candcost[j] < r->candcost[bi] ||
                (r->candcost[j] == r->candcost[bi] && r->cand[j] < r->cand[bi]))
                bi = j;
        double tc = r->candcost[i];
        r->candcost[i] = r->candcost[bi];
        r->candcost[bi] = tc;
        int tg = r->cand[i];
        r->cand[i] = r->cand[bi];
        r->cand[bi] = tg;
    }

    double best = 0;
    *best_q = -1;
    for (int c = 0; c < top; c++) {
        /* u's side cannot beat the best found so far by more than the
         * other rank can add: still try, the other rank may gain. */
        int first, cnt;
        cm_tree_vertex_slots(t, r->cand[c], &first, &cnt);
        for (int q = first; q < first + cnt; q++) {
            double mag = mag0;
            int v = r->owner[q];
            if (r->kind && (v < 0 || r->kind[v] != r->kind[u]))
                continue;
            double d = slot_cost(r, q, &mag) - own;
            if (v >= 0) {
                if (r->mark[v] == r->epoch) {
                    /* u-v keeps its length: undo what cost_u counted. */
                    int lv = cm_problem_lca(p, pu, q);
                    d -= ecost(r, r->wb[v], r->wm[v], r->leaf) -
                         ecost(r, r->wb[v], r->wm[v], lv);
                }
                d += move_delta(r, v, q, pu, u, &mag);
            }
            if (d < best && d < -1e-12 * mag) {
                best = d;
                *best_q = q;
            }
        }
    }
    unload_rank(r, u);
    return best;
}

/* Apply the exchange of u and the content of slot q. */
static void apply_exchange(refiner_t *r, int u, int q)
{
    int pu = r->map[u], v = r->owner[q];
    r->map[u] = q;
    r->owner[q] = u;
    r->owner[pu] = v;
    if (v >= 0)
        r->map[v] = pu;
}

static int next_epoch(refiner_t *r, int n)
{
    if (++r->epoch == 0) {
        memset(r->mark, 0, sizeof(unsigned) * (size_t)n);
        memset(r->vstamp, 0, sizeof(unsigned) * (size_t)r->nv);
        r->epoch = 1;
    }
    return 0;
}

/* Rank exchanges until no rank finds a gain: returns the number applied. */
static long rank_pass(refiner_t *r, int *queue, char *inq)
{
    const cm_problem_t *p = r->p;
    int n = p->n;
    int head = 0, tail = 0, count = 0;
    long moves = 0;
    /* Rounds of n ranks looked at: a round that gains too little ends
     * the pass (the queue is drained). */
    int stop = 0, in_round = 0;
    double round_gain = 0;
    for (int i = 0; i < n; i++)
        push(queue, inq, n, &tail, &count, i);
    while (count > 0) {
        int u = queue[head];
        head = (head + 1) % n;
        count--;
        inq[u] = 0;
        if (stop || !cm_budget_left(r->budget))
            continue;     /* drain the queue */
        if (++in_round == n) {
            stop = -round_gain < CONVERGED * r->J;
            in_round = 0;
            round_gain = 0;
        }
        next_epoch(r, n);
        int q;
        double d = best_exchange(r, u, &q);
        if (q < 0)
            continue;
        int v = r->owner[q];
        apply_exchange(r, u, q);
        r->J += d;
        round_gain += d;
        moves++;
        /* Partners of the moved ranks may now have better places. */
        const int *cols;
        const double *b, *m;
        int len;
        push(queue, inq, n, &tail, &count, u);
        push(queue, inq, n, &tail, &count, v);
        cm_matrix_row(p->sym, u, &cols, &b, &m, &len);
        for (int k = 0; k < len; k++)
            push(queue, inq, n, &tail, &count, cols[k]);
        if (v >= 0) {
            cm_matrix_row(p->sym, v, &cols, &b, &m, &len);
            for (int k = 0; k < len; k++)
                push(queue, inq, n, &tail, &count, cols[k]);
        }
    }
    return moves;
}

/* Change of J when the contents of A and B (same level, same shape) swap. */
static double swap_delta(refiner_t *r, int A, int B, int level, double *mag)
{
    const cm_problem_t *p = r->p;
    const cm_tree_t *t = r->t;
    double d = 0;
    int fa, fb, cnt;
    cm_tree_vertex_slots(t, A, &fa, &cnt);
    cm_tree_vertex_slots(t, B, &fb, &cnt);
    for (int side = 0; side < 2; side++) {
        int from = side ? fb : fa, to = side ? fa : fb;
        for (int s = from; s < from + cnt; s++) {
            int u = r->owner[s];
            if (u < 0)
                continue;
            const int *cols;
            const double *b, *m;
            int len;
            cm_matrix_row(p->sym, u, &cols, &b, &m, &len);
            for (int k = 0; k < len; k++) {
                int pw = r->map[cols[k]];
                int aw = p->anc[(size_t)pw * (size_t)r->L + level];
                if (aw == A || aw == B)
                    continue;
                double after = ecost(r, b[k], m[k], cm_problem_lca(p, to, pw));
                double before = ecost(r, b[k], m[k], cm_problem_lca(p, from, pw));
                d += after - before;
                *mag += after + before;
            }
            r->budget->used += (uint64_t)len;
        }
    }
    return d;
}

static void apply_swap(refiner_t *r, int A, int B)
{
    int fa, fb, cnt;
    cm_tree_vertex_slots(r->t, A, &fa, &cnt);
    cm_tree_vertex_slots(r->t, B, &fb, &cnt);
    for (int i = 0; i < cnt; i++) {
        int x = r->owner[fa + i], y = r->owner[fb + i];
        r->owner[fa + i] = y;
        r->owner[fb + i] = x;
        if (y >= 0)
            r->map[y] = fa + i;
        if (x >= 0)
            r->map[x] = fb + i;
    }
}

/* With kinds, A and B may swap only when every slot pair holds ranks of
 * the same kind (or is free on both sides). */
static int same_kinds(const refiner_t *r, int A, int B)
{
    int fa, fb, cnt;
    cm_tree_vertex_slots(r->t, A, &fa, &cnt);
    cm_tree_vertex_slots(r->t, B, &fb, &cnt);
    for (int i = 0; i < cnt; i++) {
        int x = r->owner[fa + i], y = r->owner[fb + i];
        if ((x < 0) != (y < 0) || (x >= 0 && r->kind[x] != r->kind[y]))
            return 0;
    }
    return 1;
}

/* One sweep of group exchanges over every level: returns the number
 * applied. */
static long group_pass(refiner_t *r)
{
    const cm_problem_t *p = r->p;
    const cm_tree_t *t = r->t;
    long moves = 0;
    for (int l = 1; l < r->leaf; l++) {
        for (int i = r->levfirst[l]; i < r->levfirst[l + 1]; i++) {
            if (!cm_budget_left(r->budget))
                return moves;
            int A = r->levverts[i];
            int fa, cnt;
            cm_tree_vertex_slots(t, A, &fa, &cnt);
            next_epoch(r, p->n);
            /* Connection of A's ranks to each other vertex of level l. */
            int npeer = 0;
            for (int s = fa; s < fa + cnt; s++) {
                int u = r->owner[s];
                if (u < 0)
                    continue;
                const int *cols;
                const double *b, *m;
                int len;
                cm_matrix_row(p->sym, u, &cols, &b, &m, &len);
                for (int k = 0; k < len; k++) {
                    int B = p->anc[(size_t)r->map[cols[k]] * (size_t)r->L + l];
                    if (B < 0 || B == A || r->shape[B] != r->shape[A])
                        continue;
                    if (r->vstamp[B] != r->epoch) {
                        r->vstamp[B] = r->epoch;
                        r->accb[B] = 0;
                        r->cand[npeer++] = B;
                    }
                    r->accb[B] += ecost(r, b[k], m[k], 0);
                }
                r->budget->used += (uint64_t)len;
            }
            int top = npeer < TOP_PEERS ? npeer : TOP_PEERS;
            for (int a = 0; a < top; a++) {
                int bi = a;
                for (int j = a + 1; j < npeer; j++)
                    if (r->accb[r->cand[j]] > r->accb[r->cand[bi]] ||
                        (r->accb[r->cand[j]] == r->accb[r->cand[bi]] &&
                         r->cand[j] < r->cand[bi]))
                        bi = j;
                int tg = r->cand[a];
                r->cand[a] = r->cand[bi];
                r->cand[bi] = tg;
            }
            for (int j = 0; j < npeer; j++)
                r->accb[r->cand[j]] = 0;
            /* The most connected peers, then their siblings: moving next
             * to a partner's group means taking a sibling's place. */
            int ntry = 0;
            int *try_ = r->cand + npeer;   /* room: cand holds nv entries */
            next_epoch(r, p->n);
            r->vstamp[A] = r->epoch;
            for (int a = 0; a < top && ntry < MAX_TRIES; a++) {
                int B = r->cand[a];
                int par = cm_tree_vertex_parent(t, B);
                int nsib = par >= 0 ? cm_tree_vertex_nchildren(t, par) : 0;
                if (r->vstamp[B] != r->epoch && npeer + ntry < r->nv) {
                    r->vstamp[B] = r->epoch;
                    try_[ntry++] = B;
                }
                for (int k = 0; k < nsib && ntry < MAX_TRIES &&
                                npeer + ntry < r->nv; k++) {
                    int S = cm_tree_vertex_child(t, par, k);
                    if (r->vstamp[S] == r->epoch || r->shape[S] != r->shape[A])
                        continue;
                    r->vstamp[S] = r->epoch;
                    try_[ntry++] = S;
                }
            }
            double best = 0;
            int bestB = -1;
            for (int a = 0; a < ntry; a++) {
                if (r->kind && !same_kinds(r, A, try_[a]))
                    continue;
                double mag = 0;
                double d = swap_delta(r, A, try_[a], l, &mag);
                if (d < best && d < -1e-12 * mag) {
                    best = d;
                    bestB = try_[a];
                }
            }
            if (bestB >= 0) {
                apply_swap(r, A, bestB);
                r->J += best;
                moves++;
            }
        }
    }
    return moves;
}

/* Shape classes: two vertices are exchangeable when their subtrees have
 * the same level sequence and fanouts; a class id per distinct signature,
 * computed bottom-up by comparing children's classes. */
static int compute_shapes(refiner_t *r)
{
    const cm_tree_t *t = r->t;
    int nv = r->nv;
    /* Signature: (level, nchildren, class of each child); vertices are
     * compared against one representative per class in a linear list per
     * level -- fine for trees of real machines (few distinct shapes). */
    int *rep = malloc(sizeof(int) * (size_t)nv);
    int nrep = 0;
    if (!rep)
        return -1;
    for (int l = r->L - 1; l >= 0; l--) {
        for (int i = r->levfirst[l]; i < r->levfirst[l + 1]; i++) {
            int v = r->levverts[i];
            int nc = cm_tree_vertex_nchildren(t, v), found = -1;
            for (int c = nrep - 1; c >= 0 && found < 0; c--) {
                int w = rep[c];
                if (cm_tree_vertex_level(t, w) != l)
                    break;
                if (cm_tree_vertex_nchildren(t, w) != nc)
                    continue;
                int same = 1;
                for (int k = 0; k < nc && same; k++)
                    same = r->shape[cm_tree_vertex_child(t, v, k)] ==
                           r->shape[cm_tree_vertex_child(t, w, k)];
                if (same)
                    found = c;
            }
            if (found < 0) {
                found = nrep;
                rep[nrep++] = v;
            }
            r->shape[v] = found;
        }
    }
    free(rep);
    return 0;
}

double cm_refine(const cm_problem_t *p, int *map, cm_budget_t *budget)
{
    return cm_refine_kinds(p, map, NULL, budget);
}

double cm_refine_kinds(const cm_problem_t *p, int *map, const int *kind,
                       cm_budget_t *budget)
{
    int n = p->n, ns = p->nslots;
    double J0 = cm_problem_cost(p, map);
    if (n < 2 || !cm_budget_left(budget))
        return J0;
    const cm_tree_t *t = p->tree;
    refiner_t r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.t = t;
    r.map = map;
    r.budget = budget;
    r.kind = kind;
    r.L = p->nlevels;
    r.leaf = p->leaf_level;
    r.nv = cm_tree_nvertices(t);
    int nv = r.nv;
    int *queue = malloc(sizeof(int) * (size_t)n);
    char *inq = calloc((size_t)n, 1);
    int *saved = malloc(sizeof(int) * (size_t)n);
    r.owner = malloc(sizeof(int) * (size_t)ns);
    r.accb = calloc((size_t)nv, sizeof(double));
    r.accm = calloc((size_t)nv, sizeof(double));
    r.wb = malloc(sizeof(double) * (size_t)n);
    r.wm = malloc(sizeof(double) * (size_t)n);
    r.mark = calloc((size_t)n, sizeof(unsigned));
    r.vstamp = calloc((size_t)nv, sizeof(unsigned));
    r.gvert = malloc(sizeof(int) * (size_t)ns);
    r.cand = malloc(sizeof(int) * (size_t)nv);
    r.candcost = malloc(sizeof(double) * (size_t)nv);
    r.shape = malloc(sizeof(int) * (size_t)nv);
    r.levfirst = calloc((size_t)r.L + 1, sizeof(int));
    r.levverts = malloc(sizeof(int) * (size_t)nv);
    if (!queue || !inq || !saved || !r.owner || !r.accb || !r.accm || !r.wb ||
        !r.wm || !r.mark || !r.vstamp || !r.gvert || !r.cand || !r.candcost ||
        !r.shape || !r.levfirst || !r.levverts)
        goto out;
    memcpy(saved, map, sizeof(int) * (size_t)n);
    for (int s = 0; s < ns; s++) {
        r.owner[s] = -1;
        r.gvert[s] = cm_tree_vertex_parent(t, cm_tree_slot_vertex(t, s));
    }
    for (int i = 0; i < n; i++)
        r.owner[map[i]] = i;
    for (int v = 0; v < nv; v++)
        r.levfirst[cm_tree_vertex_level(t, v) + 1]++;
    for (int l = 0; l < r.L; l++)
        r.levfirst[l + 1] += r.levfirst[l];
    {
        int *fill = malloc(sizeof(int) * (size_t)r.L);
        if (!fill)
            goto out;
        memcpy(fill, r.levfirst, sizeof(int) * (size_t)r.L);
        for (int v = 0; v < nv; v++)
            r.levverts[fill[cm_tree_vertex_level(t, v)]++] = v;
        free(fill);
    }
    if (compute_shapes(&r) < 0)
        goto out;

    r.J = J0;
    while (cm_budget_left(budget)) {
        /* The rank pass stops at a local minimum of its own moves: only
         * group exchanges can open new ones. */
        double Jstart = r.J;
        rank_pass(&r, queue, inq);
        if (group_pass(&r) == 0 || Jstart - r.J < CONVERGED * Jstart)
            break;
    }

    double J1 = cm_problem_cost(p, map);
    if (J1 > J0) {   /* accumulated rounding: keep the guarantee */
        memcpy(map, saved, sizeof(int) * (size_t)n);
        J1 = J0;
    }
    J0 = J1;
out:
    free(queue);
    free(inq);
    free(saved);
    free(r.owner);
    free(r.accb);
    free(r.accm);
    free(r.wb);
    free(r.wm);
    free(r.mark);
    free(r.vstamp);
    free(r.gvert);
    free(r.cand);
    free(r.candcost);
    free(r.shape);
    free(r.levfirst);
    free(r.levverts);
    return J0;
}
