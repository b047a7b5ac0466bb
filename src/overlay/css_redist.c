/*
 * css_redist.c -- the contention-free schedule of a block-cyclic array
 * redistribution (docs/algorithms.md, "003", after Wang, Hu, Zhang and Li).
 *
 * The loop of cm_css_redist_t moves element i from src address
 * g = a2 i + b2 (on sender (g / y) mod Q) to dst address h = a1 i + b1 (on
 * receiver (h / x) mod P).  COM(i, j) counts what sender i sends to
 * receiver j.  These are the paper's symbols (its FORALL A(a1 i + b1) =
 * F(B(a2 i + b2)), A cyclic(x) on P = np processes, B cyclic(y) on
 * Q = nq): src_* are B's, dst_* are A's, count is its ns.
 *
 * Periodicity.  The (sender, receiver) pattern repeats every
 * L = lcm(Qy / gcd(a2, Qy), Px / gcd(a1, Px)) iterations, so COM over
 * count = r L + rest iterations is r times one period plus a prefix.  We
 * count one period run by run (a run: consecutive iterations that stay in
 * one block on both sides), O(L (a2 / y + a1 / x)) work.
 *
 * Theorem 1.  Advancing the loop by L0 = lcm(y / gcd(y, a2), x / gcd(x, a1))
 * iterations moves both addresses by whole blocks, m = a2 L0 / y blocks on
 * the sender side and n = a1 L0 / x on the receiver side, without changing
 * the offsets within blocks.  Over whole periods that is a bijection, so
 * COM(i, j) = COM(i + k m mod Q, j + k n mod P) for every k.  (We derive L0
 * rather than copy the paper's formula, which its extracted text garbles;
 * the paper's examples 1 and 3 give the same m and n, and its example 2
 * prints m = 16 where its own loop gives 8; see the unit test.)  The orbit
 * of a pair under (m, n) has lcm(s, t) pairs, s = Q / gcd(m, Q) and
 * t = P / gcd(n, P), and all its entries are equal.
 *
 * CM_CSS_PERIODIC (the paper's algorithm 1), when s == t: every orbit then
 * visits s distinct senders and s distinct receivers, a matching whose
 * messages all have one length.  The paper's condition, gcd(m, Q) = 1 and
 * P / gcd(n, P) = Q, is the case of one row coset: one orbit per step, the
 * steps given by the receivers of sender 0 (the paper's first row of CS).
 * We also accept the mirror case (one column coset) and the case of several
 * cosets on both sides: the orbits of a pair of cosets (rows = a mod gm,
 * columns = b mod gn, gm = gcd(m, Q), gn = gcd(n, P)) partition it, the
 * coset pairs are matched like a Latin square, and a step joins the q-th
 * largest orbit of each matched coset pair, so that similar lengths meet.
 * With one coset on a side every step is one orbit: over whole periods one
 * message length per step, and as many steps as the busiest rank has
 * messages (every orbit with data reaches every sender of the coset).
 *
 * CM_CSS_GROUPED (the paper's algorithm 2), when s != t: the table is cut
 * into s x t sub-tables (gm rows by gn columns each); (m, n) moves a
 * sub-table onto an equal one, which makes gcd(s, t) groups of lcm(s, t)
 * equal sub-tables.  Groups are taken heaviest first, within a group the
 * sizes in decreasing order, and the sub-tables in the order of theorem 1,
 * forward in even steps and backward in odd ones; a pair joins the current
 * step when its sender and receiver are both free.  Where the paper lets a
 * sender send several short messages within one step to match the others'
 * long one, we keep one message per sender and step (the overlay runs a
 * step as one Sendrecv per rank), so a short message rather shares a step
 * with long ones.  Greedy, so it may need more steps than the largest
 * degree (at most 2 D - 1, each step being a maximal matching); when the
 * step table for that many steps would exceed the limits, the colouring of
 * css_general.c is used instead.
 *
 * The choice (method 0).  The constructions above follow the paper; the
 * result is then compared with two other candidates, the colouring of
 * css_general.c and the classic ordering with its compatible steps merged
 * and its pairs of steps improved (cm_css_improve), and replaced as choose()
 * says, so that it is never slower than the classic ordering in the model,
 * whatever the latency and bandwidth.  The paper's own case of algorithm 1
 * over whole periods with no local copy is optimal and kept as it is.
 *
 * Not implemented: multi-dimensional arrays (schedule one dimension at a
 * time, or use cm_css_sched_general on the product's table); negative
 * strides; the paper's multi-message steps of algorithm 2 (above); counting
 * a period of more than 2^27 runs (cyclic(1) between coprime process counts
 * near the limits), which would need the number-theoretic counting of
 * the redistribution literature rather than a walk.
 */
#include <stdlib.h>
#include <string.h>

#include "css_internal.h"

#define MAX_RUNS (INT64_C(1) << 27)
#define MAX_PARAM INT64_C(2147483647)
#define MAX_SPAN (INT64_C(1) << 62)

static int check_params(const cm_css_redist_t *r, cm_error_t *err)
{
    if (!r)
        return cm_error_set(err, "css redistribution: no parameters");
    const struct {
        const char *name;
        int64_t v, lo, hi;
    } p[] = {
        { "src_procs", r->src_procs, 1, CM_CSS_MAX_PROCS },
        { "dst_procs", r->dst_procs, 1, CM_CSS_MAX_PROCS },
        { "src_block", r->src_block, 1, MAX_PARAM },
        { "dst_block", r->dst_block, 1, MAX_PARAM },
        { "src_stride", r->src_stride, 1, MAX_PARAM },
        { "dst_stride", r->dst_stride, 1, MAX_PARAM },
        { "src_offset", r->src_offset, 0, MAX_SPAN },
        { "dst_offset", r->dst_offset, 0, MAX_SPAN },
        { "count", r->count, 0, MAX_SPAN },
    };
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++)
        if (p[k].v < p[k].lo || p[k].v > p[k].hi)
            return cm_error_set(err, "css redistribution: %s = %lld: expected %lld to %lld",
                                p[k].name, (long long)p[k].v, (long long)p[k].lo,
                                (long long)p[k].hi);
    /* the last addresses of the loop, stride (count - 1) + offset, < 2^63 */
    for (int side = 0; side < 2 && r->count > 0; side++) {
        int64_t a = side ? r->dst_stride : r->src_stride;
        int64_t b = side ? r->dst_offset : r->src_offset;
        int64_t last;
        if (__builtin_mul_overflow(a, r->count - 1, &last) ||
            __builtin_add_overflow(last, b, &last))
            return cm_error_set(err, "css redistribution: the %s addresses pass 2^63 "
                                "(stride %lld, offset %lld, count %lld)",
                                side ? "dst" : "src", (long long)a, (long long)b,
                                (long long)r->count);
    }
    return 0;
}

/* Theorem 1's m and n and the period; all products fit (parameters are
 * below 2^31, procs below 2^17). */
static void structure(const cm_css_redist_t *r, cm_css_period_t *pd)
{
    uint64_t x = (uint64_t)r->dst_block, y = (uint64_t)r->src_block;
    uint64_t a1 = (uint64_t)r->dst_stride, a2 = (uint64_t)r->src_stride;
    uint64_t P = (uint64_t)r->dst_procs, Q = (uint64_t)r->src_procs;
    uint64_t gy = cm_css_gcd(y, a2), gx = cm_css_gcd(x, a1);
    uint64_t yq = y / gy, xq = x / gx;
    uint64_t l0 = yq / cm_css_gcd(yq, xq) * xq;          /* <= 2^62 */
    pd->m = a2 / gy * (l0 / yq);                       /* <= a2 x < 2^62 */
    pd->n = a1 / gx * (l0 / xq);
    pd->s = (int)(Q / cm_css_gcd(pd->m % Q, Q));
    pd->t = (int)(P / cm_css_gcd(pd->n % P, P));
    uint64_t qy = Q * y, px = P * x;                   /* < 2^48 */
    uint64_t ls = qy / cm_css_gcd(a2, qy), lr = px / cm_css_gcd(a1, px);
    if (cm_css_mul_u64(ls / cm_css_gcd(ls, lr), lr, &pd->period))
        pd->period = 0;
    pd->exact = pd->period != 0 && (uint64_t)r->count % pd->period == 0;
}

/* Add to the size table @p size (rows of @p nrecv), for every iteration in
 * [lo, hi), @p weight elements (the number of periods the iteration stands
 * for). */
static void count_runs(uint64_t *size, int nrecv, const cm_css_redist_t *r, int64_t lo,
                       int64_t hi, uint64_t weight)
{
    const int64_t x = r->dst_block, y = r->src_block;
    const int64_t a1 = r->dst_stride, a2 = r->src_stride;
    for (int64_t i = lo; i < hi;) {
        int64_t g = a2 * i + r->src_offset, h = a1 * i + r->dst_offset;
        int64_t run_s = (y - g % y + a2 - 1) / a2, run_d = (x - h % x + a1 - 1) / a1;
        int64_t run = run_s < run_d ? run_s : run_d;
        if (run > hi - i)
            run = hi - i;
        int u = (int)((g / y) % r->src_procs), v = (int)((h / x) % r->dst_procs);
        size[(size_t)u * (size_t)nrecv + (size_t)v] += (uint64_t)run * weight;
        i += run;
    }
}

/* Count the table of @p r into @p size (src_procs x dst_procs, zeroed):
 * one period run by run, scaled, plus the rest.  *runs: the estimated
 * number of runs to walk; more than @p max_runs fails, nothing counted. */
static int count_table(uint64_t *size, const cm_css_redist_t *r, const cm_css_period_t *pd,
                       double max_runs, double *runs, cm_error_t *err)
{
    int64_t walk = r->count;                 /* iterations walked */
    uint64_t reps = 0, rest = (uint64_t)r->count;
    if (pd->period && pd->period < (uint64_t)r->count) {
        walk = (int64_t)pd->period;
        reps = (uint64_t)r->count / pd->period;
        rest = (uint64_t)r->count % pd->period;
    }
    *runs = (double)walk * ((double)r->src_stride / (double)r->src_block +
                            (double)r->dst_stride / (double)r->dst_block) + 3;
    if (*runs > max_runs)
        return cm_error_set(err, "css redistribution: one period of %lld iterations is "
                            "about %.3g runs to count, more than %.3g (blocks too small "
                            "for that many processes)", (long long)walk, *runs, max_runs);
    count_runs(size, r->dst_procs, r, 0, (int64_t)rest, reps + 1);
    if (reps)
        count_runs(size, r->dst_procs, r, (int64_t)rest, walk, reps);
    return 0;
}

int cm_css_redist_table(const cm_css_redist_t *r, uint64_t *size, double max_runs,
                        double *runs, cm_error_t *err)
{
    cm_css_period_t pd;
    *runs = 0;
    if (check_params(r, err))
        return -1;
    structure(r, &pd);
    memset(size, 0, (size_t)r->src_procs * (size_t)r->dst_procs * sizeof *size);
    return count_table(size, r, &pd, max_runs > (double)MAX_RUNS ? (double)MAX_RUNS : max_runs,
                       runs, err);
}

static int max_degree(const cm_css_sched_t *s, int skip_diag)
{
    int deg = 0;
    int *cd = calloc((size_t)s->nrecv, sizeof *cd);
    if (!cd)
        return -1;
    for (int u = 0; u < s->nsend; u++) {
        int d = 0;
        for (int v = 0; v < s->nrecv; v++)
            if (s->size[(size_t)u * (size_t)s->nrecv + (size_t)v] && !(skip_diag && u == v)) {
                d++;
                cd[v]++;
            }
        if (d > deg)
            deg = d;
    }
    for (int v = 0; v < s->nrecv; v++)
        if (cd[v] > deg)
            deg = cd[v];
    free(cd);
    return deg;
}

/* ---- algorithm 1: one orbit per coset pair and step ---- */

/* Put the orbit through (i, j) into step k (its pairs with data). */
static int put_orbit(cm_css_sched_t *s, int k, int i, int j, int skip_diag)
{
    int ms = (int)(s->period.m % (uint64_t)s->nsend);
    int ns = (int)(s->period.n % (uint64_t)s->nrecv);
    for (int q = 0; q < s->period.s; q++) {
        if (s->size[(size_t)i * (size_t)s->nrecv + (size_t)j] && !(skip_diag && i == j) &&
            cm_css_sched_put(s, k, i, j))
            return -1;
        i = (int)(((int64_t)i + ms) % s->nsend);
        j = (int)(((int64_t)j + ns) % s->nrecv);
    }
    return 0;
}

static uint64_t orbit_max(const cm_css_sched_t *s, int i, int j)
{
    int ms = (int)(s->period.m % (uint64_t)s->nsend);
    int ns = (int)(s->period.n % (uint64_t)s->nrecv);
    uint64_t top = 0;
    for (int q = 0; q < s->period.s; q++) {
        if (s->size[(size_t)i * (size_t)s->nrecv + (size_t)j] > top)
            top = s->size[(size_t)i * (size_t)s->nrecv + (size_t)j];
        i = (int)(((int64_t)i + ms) % s->nsend);
        j = (int)(((int64_t)j + ns) % s->nrecv);
    }
    return top;
}

typedef struct keyed {
    uint64_t key;
    int32_t id;
} keyed_t;

static int by_key_desc(const void *pa, const void *pb)
{
    const keyed_t *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static int periodic(cm_css_sched_t *s, int skip_diag, cm_error_t *err)
{
    int Q = s->nsend, P = s->nrecv, os = s->period.s;
    int gm = Q / os, gn = P / s->period.t;
    int nsteps = gm > gn ? Q : P;            /* max(gm, gn) * s */
    if (cm_css_sched_reserve(s, nsteps, err))
        return -1;
    int bad = 0;
    if (gm == 1) {                           /* the paper's case: from row 0 */
        for (int j = 0; j < P && !bad; j++)
            bad = put_orbit(s, j, 0, j, skip_diag);
    } else if (gn == 1) {                    /* its mirror: from column 0 */
        for (int i = 0; i < Q && !bad; i++)
            bad = put_orbit(s, i, i, 0, skip_diag);
    } else {
        int many = gm > gn ? gm : gn, few = gm > gn ? gn : gm;
        keyed_t *o = malloc((size_t)few * (size_t)os * sizeof *o);
        if (!o)
            return cm_error_set(err, "css: out of memory for %d orbits", few * os);
        for (int rr = 0; rr < many && !bad; rr++) {
            /* coset pairs (a, b) of this round, one per coset of the
             * smaller side; orbit q of pair f starts at o[f * os + q] */
            for (int f = 0; f < few; f++) {
                int a = gm > gn ? (f + rr) % gm : f, b = gm > gn ? f : (f + rr) % gn;
                for (int q = 0; q < os; q++) {
                    int j = b + q * gn;              /* row a meets the orbit at j */
                    o[f * os + q] = (keyed_t){ orbit_max(s, a, j), j };
                }
                qsort(&o[f * os], (size_t)os, sizeof *o, by_key_desc);
            }
            for (int q = 0; q < os && !bad; q++)
                for (int f = 0; f < few && !bad; f++) {
                    int a = gm > gn ? (f + rr) % gm : f;
                    bad = put_orbit(s, rr * os + q, a, o[f * os + q].id, skip_diag);
                }
        }
        free(o);
    }
    if (bad)
        return cm_error_set(err, "css: internal error: two orbits meet in a step");
    cm_css_sched_compact(s);
    return 0;
}

/* ---- algorithm 2: groups of equal sub-tables, greedy steps ---- */

typedef struct grouped {
    cm_css_sched_t *s;
    int32_t *bgid;         /* [s * t] group of each sub-table */
    int32_t *bpos;         /* [s * t] its position k in the group */
    int32_t *grank;        /* [s * t] rank of group g, heaviest first */
    int gm, gn, ot;        /* sub-table rows, columns; sub-tables per row */
} grouped_t;

static size_t block_of(const grouped_t *g, int32_t c)
{
    size_t u = (size_t)c / (size_t)g->s->nrecv, v = (size_t)c % (size_t)g->s->nrecv;
    return u / (size_t)g->gm * (size_t)g->ot + v / (size_t)g->gn;
}

static int cell_cmp(const grouped_t *g, int32_t ca, int32_t cb, int backward)
{
    const cm_css_sched_t *s = g->s;
    size_t ba = block_of(g, ca), bb = block_of(g, cb);
    int ra = g->grank[g->bgid[ba]], rb = g->grank[g->bgid[bb]];
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (s->size[ca] != s->size[cb])
        return s->size[ca] > s->size[cb] ? -1 : 1;
    if (g->bpos[ba] != g->bpos[bb])
        return (g->bpos[ba] < g->bpos[bb]) == !backward ? -1 : 1;
    return (ca > cb) - (ca < cb);
}

static int cmp_fwd(const void *a, const void *b, void *ctx)
{
    return cell_cmp(ctx, *(const int32_t *)a, *(const int32_t *)b, 0);
}

static int cmp_bwd(const void *a, const void *b, void *ctx)
{
    return cell_cmp(ctx, *(const int32_t *)a, *(const int32_t *)b, 1);
}

/* Label every sub-table with its group and its place in the group (the k
 * of theorem 1 from the group's first sub-table), and rank the groups by
 * their largest entry.  The arrays of @p g hold s * t entries. */
static void label_groups(grouped_t *g, int skip_diag, keyed_t *top)
{
    cm_css_sched_t *s = g->s;
    int os = s->period.s, ot = s->period.t;
    int ms = (int)(s->period.m % (uint64_t)s->nsend) / g->gm;
    int ns = (int)(s->period.n % (uint64_t)s->nrecv) / g->gn;
    size_t nblocks = (size_t)os * (size_t)ot;
    memset(g->bgid, 0xff, nblocks * sizeof *g->bgid);
    int ngroups = 0;
    for (size_t b0 = 0; b0 < nblocks; b0++) {
        if (g->bgid[b0] >= 0)
            continue;
        int a = (int)(b0 / (size_t)ot), b = (int)(b0 % (size_t)ot);
        for (int k = 0; g->bgid[(size_t)a * (size_t)ot + (size_t)b] < 0; k++) {
            g->bgid[(size_t)a * (size_t)ot + (size_t)b] = ngroups;
            g->bpos[(size_t)a * (size_t)ot + (size_t)b] = k;
            a = (a + ms) % os;
            b = (b + ns) % ot;
        }
        top[ngroups] = (keyed_t){ 0, ngroups };
        ngroups++;
    }
    for (int u = 0; u < s->nsend; u++)
        for (int v = 0; v < s->nrecv; v++) {
            size_t c = (size_t)u * (size_t)s->nrecv + (size_t)v;
            int32_t gid = g->bgid[block_of(g, (int32_t)c)];
            if (!(skip_diag && u == v) && s->size[c] > top[gid].key)
                top[gid].key = s->size[c];
        }
    qsort(top, (size_t)ngroups, sizeof *top, by_key_desc);
    for (int r = 0; r < ngroups; r++)
        g->grank[top[r].id] = r;
}

/* Returns 1 when the steps did not fit the step table. */
static int grouped(cm_css_sched_t *s, int skip_diag, cm_error_t *err)
{
    int deg = max_degree(s, skip_diag);
    if (deg < 0)
        return cm_error_set(err, "css: out of memory counting degrees");
    int wide = s->nsend > s->nrecv ? s->nsend : s->nrecv;
    int cap = 2 * deg - 1 > 0 ? 2 * deg - 1 : 0;
    if ((uint64_t)cap * (uint64_t)wide > CM_CSS_MAX_CELLS)
        cap = CM_CSS_MAX_CELLS / wide;
    if (cap < deg)
        return 1;
    if (cm_css_sched_reserve(s, cap, err))
        return -1;
    size_t cells = (size_t)s->nsend * (size_t)s->nrecv;
    grouped_t g = { s, NULL, NULL, NULL, s->nsend / s->period.s, s->nrecv / s->period.t,
                    s->period.t };
    size_t n = 0, nblocks = (size_t)s->period.s * (size_t)s->period.t;
    for (size_t c = 0; c < cells; c++)
        n += s->size[c] && !(skip_diag && c / (size_t)s->nrecv == c % (size_t)s->nrecv);
    g.bgid = malloc(nblocks * sizeof *g.bgid);
    g.bpos = malloc(nblocks * sizeof *g.bpos);
    g.grank = malloc(nblocks * sizeof *g.grank);
    keyed_t *top = malloc(nblocks * sizeof *top);     /* at most a group a sub-table */
    int32_t *list[2] = { malloc((n ? n : 1) * sizeof(int32_t)),
                         malloc((n ? n : 1) * sizeof(int32_t)) };
    unsigned char *done = calloc(cells, 1);
    unsigned char *busy_u = malloc((size_t)s->nsend), *busy_v = malloc((size_t)s->nrecv);
    int rc = 0;
    if (!g.bgid || !g.bpos || !g.grank || !top || !list[0] || !list[1] || !done || !busy_u ||
        !busy_v)
        rc = cm_error_set(err, "css: out of memory grouping %zu messages", n);
    if (rc == 0) {
        label_groups(&g, skip_diag, top);
        size_t k = 0;
        for (size_t c = 0; c < cells; c++)
            if (s->size[c] && !(skip_diag && c / (size_t)s->nrecv == c % (size_t)s->nrecv))
                list[0][k] = list[1][k] = (int32_t)c, k++;
        qsort_r(list[0], n, sizeof(int32_t), cmp_fwd, &g);
        qsort_r(list[1], n, sizeof(int32_t), cmp_bwd, &g);
    }
    size_t len[2] = { n, n }, left = n;
    for (int step = 0; rc == 0 && left > 0; step++) {
        if (step == cap) {
            rc = 1;                           /* more steps than room: colour */
            break;
        }
        int dir = step % 2;
        memset(busy_u, 0, (size_t)s->nsend);
        memset(busy_v, 0, (size_t)s->nrecv);
        size_t out = 0;
        for (size_t i = 0; i < len[dir]; i++) {
            int32_t c = list[dir][i];
            if (done[c])
                continue;
            int u = (int)((size_t)c / (size_t)s->nrecv), v = (int)((size_t)c % (size_t)s->nrecv);
            if (!busy_u[u] && !busy_v[v]) {
                busy_u[u] = busy_v[v] = 1;
                done[c] = 1;
                left--;
                if (cm_css_sched_put(s, step, u, v))
                    rc = cm_error_set(err, "css: internal error: step %d busy", step);
                continue;
            }
            list[dir][out++] = c;            /* keep the list to what is left */
        }
        len[dir] = out;
    }
    free(g.bgid);
    free(g.bpos);
    free(g.grank);
    free(top);
    free(list[0]);
    free(list[1]);
    free(done);
    free(busy_u);
    free(busy_v);
    if (rc == 0)
        cm_css_sched_compact(s);
    return rc;
}

/* The paper's constructions are exact for whole periods; with a partial
 * period, a local diagonal or the greedy steps of algorithm 2 they may take
 * more steps than needed or have a larger sum of step maxima.  Two other
 * candidates: the colouring of css_general.c, and the classic ordering with
 * its steps merged and improved (never worse than the classic ordering in
 * either term).  A candidate replaces the current choice when it is no
 * worse in both terms of the cost model (steps: latency; sum of maxima:
 * bandwidth) and better in one, so the choice does not depend on the
 * network; and a choice worse than the classic ordering in either term
 * gives way to the improved classic one. */
typedef struct cand {
    cm_css_sched_t *s;
    uint64_t steps, sum;
} cand_t;

static cm_css_sched_t *sibling(const cm_css_sched_t *s, cm_css_method_t method, cm_error_t *err)
{
    cm_css_sched_t *alt = cm_css_sched_alloc(s->nsend, s->nrecv, err);
    if (!alt)
        return NULL;
    memcpy(alt->size, s->size, (size_t)s->nsend * (size_t)s->nrecv * sizeof *s->size);
    alt->has_period = 1;
    alt->period = s->period;
    alt->method = method;
    return alt;
}

static int dominates(const cand_t *a, const cand_t *b)
{
    return a->steps <= b->steps && a->sum <= b->sum && (a->steps < b->steps || a->sum < b->sum);
}

static int choose(cm_css_sched_t **ps, int skip, cm_error_t *err)
{
    cand_t c[3] = { { *ps, 0, 0 }, { NULL, 0, 0 }, { NULL, 0, 0 } }, classic = { NULL, 0, 0 };
    int rc = 0, best = 0;
    if (!(c[1].s = sibling(*ps, CM_CSS_GENERAL, err)) || cm_css_colour(c[1].s, skip, err))
        rc = -1;
    if (rc == 0) {
        for (int k = 0; k < 2; k++) {
            c[k].steps = (uint64_t)c[k].s->nsteps;
            c[k].sum = cm_css_sched_summax(c[k].s);
        }
        if (dominates(&c[1], &c[0]))
            best = 1;
        cm_css_classic_metrics(*ps, skip, &classic.steps, &classic.sum);
    }
    /* the improved classic ordering, only when needed: it is the slowest */
    if (rc == 0 && (c[best].steps > classic.steps || c[best].sum > classic.sum)) {
        if (!(c[2].s = sibling(*ps, CM_CSS_CLASSIC, err)) || cm_css_sched_classic_steps(c[2].s, skip, err))
            rc = -1;
        if (rc == 0) {
            cm_css_sched_merge(c[2].s);
            rc = cm_css_improve(c[2].s, skip, err);
        }
        best = 2;
    }
    for (int k = 1; k < 3; k++)
        if (k != best || rc)
            cm_css_sched_free(c[k].s);
    if (rc == 0 && best != 0) {
        cm_css_sched_free(*ps);
        *ps = c[best].s;
    }
    return rc;
}

cm_css_sched_t *cm_css_sched_redistribution(const cm_css_redist_t *r, cm_error_t *err)
{
    if (check_params(r, err))
        return NULL;
    if (r->method != 0 && (r->method < CM_CSS_PERIODIC || r->method > CM_CSS_CLASSIC)) {
        cm_error_set(err, "css redistribution: method %d: expected 0 to %d", (int)r->method,
                     (int)CM_CSS_CLASSIC);
        return NULL;
    }
    cm_css_sched_t *s = cm_css_sched_alloc(r->src_procs, r->dst_procs, err);
    if (!s)
        return NULL;
    s->has_period = 1;
    structure(r, &s->period);
    int skip = r->same_ranks != 0, rc;
    double runs;
    if (count_table(s->size, r, &s->period, (double)MAX_RUNS, &runs, err))
        goto fail;
    cm_css_method_t want = r->method;
    if (want == 0)
        want = s->period.s == s->period.t ? CM_CSS_PERIODIC : CM_CSS_GROUPED;
    s->method = want;
    switch (want) {
    case CM_CSS_PERIODIC:
        rc = s->period.s == s->period.t ? periodic(s, skip, err)
             : cm_error_set(err, "css redistribution: the periodic construction needs "
                            "s == t (here %d and %d)", s->period.s, s->period.t);
        break;
    case CM_CSS_GROUPED:
        rc = grouped(s, skip, err);
        if (rc == 1 && r->method == 0) {      /* no room for its steps: colour */
            s->method = CM_CSS_GENERAL;
            rc = cm_css_colour(s, skip, err);
        } else if (rc == 1) {
            rc = cm_error_set(err, "css redistribution: grouping would take more steps "
                              "than the step table holds");
        }
        break;
    case CM_CSS_GENERAL:
        rc = cm_css_colour(s, skip, err);
        break;
    default:
        rc = cm_css_sched_classic_steps(s, skip, err);
        break;
    }
    if (rc)
        goto fail;
    /* Whole periods, no local copy, one row coset: every step is one
     * orbit and every sender is busy in all of them, the optimum. */
    int optimal = s->method == CM_CSS_PERIODIC && s->period.exact && !skip &&
                  s->nsend / s->period.s == 1;
    if (r->method == 0 && !optimal) {
        cm_css_sched_merge(s);
        if (choose(&s, skip, err))
            goto fail;
    }
    if (cm_css_sched_verify(s, skip, err))
        goto fail;
    return s;
fail:
    cm_css_sched_free(s);
    return NULL;
}
