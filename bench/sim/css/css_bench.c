/*
 * css_bench.c -- one all-to-all exchange sent three ways under SimGrid SMPI:
 * the MPI library's MPI_Alltoallv, the classic (rank + k) mod n ordering,
 * and a CSS schedule (src/overlay/css_schedule.h, seed 003).
 *
 *   smpirun -np N ... ./css_bench EXCHANGE [options]    (bench/sim/css/run.sh)
 *
 * EXCHANGE
 *   cyclic:X:Y   an array of doubles redistributed from cyclic(X) to
 *                cyclic(Y) over the same N ranks (the schedule:
 *                cm_css_sched_redistribution with exactly these parameters)
 *   block:Y      block -> cyclic(Y) (block = cyclic(ceil(count / N)))
 *   forall       the seed's example 1, scaled: FORALL i: A(3i+4) = B(2i+1),
 *                B cyclic(3) on the senders, A cyclic(4) on the receivers
 *   irregular    a random exchange: each pair (i != j) carries data with
 *                probability --density, sizes log-uniform over a factor of
 *                64 around --pair (cm_css_sched_general)
 *   uniform      every pair --pair bytes (cm_css_sched_general: the schedule
 *                the overlay would run if it did not step aside)
 *
 * Options
 *   --pair BYTES    average size of a message between two ranks that
 *                   exchange data (K/M suffixes; default 256K).  The
 *                   redistributions' array size is derived from it (a probe
 *                   schedule gives the average message for a known size).
 *   --density P     irregular: probability that a pair carries data (0.25)
 *   --seed S        irregular: the generator's seed (1)
 *   --reps R        timed repetitions per variant (3), after --warmup W (1)
 *   --variants LIST which of library,classic,css,general,nodes,overlay to run (all;
 *                   the others print as nan)
 *   --window W      the schedules (css, general, nodes, overlay) run
 *                   without a Waitall between steps: every receive posted
 *                   at once, the sends in step order with at most W in
 *                   flight (0, the default: step by step, as the overlay
 *                   runs them).  A what-if: how close a schedule comes to
 *                   the library when its steps may overlap
 *   --fattree C:L:BW:R  also print the fluid bounds of the exchange and of
 *                   the schedule's steps on a fat tree of C cores per node,
 *                   L nodes per leaf, links of BW bytes/s (after SMPI's
 *                   bandwidth factor), uplinks oversubscribed R:1, block
 *                   placement (fattree_bounds): BOUND NAME NP ALL STEPS
 *                   STEPS_GENERAL STEPS_NODES (the steps of css, general
 *                   and nodes)
 *   --build-everywhere  every rank builds the schedule under SMPI too
 *                   (default there: rank 0 builds it for all, build_shared)
 *   -h              this text
 *
 * Each variant: MPI_Barrier, MPI_Wtime, the exchange, MPI_Wtime; the time of
 * a repetition is the maximum over ranks (MPI_Reduce), the variant's time the
 * mean over the timed repetitions.  Under SMPI MPI_Wtime is simulated time;
 * run with --cfg=smpi/simulate-computation:no so that packing, checking and
 * building the schedule (host CPU time) are not charged: only messages are.
 *
 *   library  MPI_Alltoallv (counts and displacements in MPI_DOUBLE)
 *   classic  the local part copied; n - 1 steps, in step k rank i sends to
 *            (i + k) mod n and receives from (i - k) mod n, Irecv + Isend +
 *            Waitall per step, zero-length messages skipped (the step stays)
 *   css      every rank has the same schedule (built outside the timed
 *            region, see build_shared); the local part copied;
 *            per step one Irecv from cm_css_sched_source and one Isend to
 *            cm_css_sched_peer, Waitall per step
 *   general  the same with the overlay's schedule (ovl_css.c): the colouring
 *            of the n x n byte matrix every rank gathers
 *            (cm_css_sched_general), for the redistributions too
 *   nodes    the same with the overlay's node-aware colouring
 *            (cm_css_sched_general_nodes, the ranks' nodes from
 *            MPI_Get_processor_name as in the overlay)
 *   overlay  the same with the schedule the overlay runs now
 *            (cm_css_sched_overlay): nodes' unless the byte matrix is
 *            recognised as a block-cyclic redistribution whose schedule the
 *            node model prefers (RECOGNISED: 0 not recognised, 1 recognised
 *            but the colouring kept, 2 the redistribution's schedule)
 *
 * Checking.  The sender's data are values derived from (sender, receiver,
 * index): for the redistributions the loop index i of the element (which
 * fixes its sender and receiver), otherwise ((sender n + receiver) 2^26 +
 * k).  After each variant every rank checks what it received (its receive
 * buffer is overwritten with NaN first); redistributions are checked the way
 * an unpack would read them (the receiver's own elements in order, each from
 * its sender's segment).  The message sizes are computed by walking the
 * distributions and compared with the schedule's size table.  Any difference
 * prints an ERROR line and the program exits 1.
 *
 * Output (rank 0): one "css_bench:" line describing the exchange and the
 * schedule, then
 *   RESULT NAME NP T_LIBRARY T_CLASSIC T_CSS STEPS METHOD AVG_PAIR_BYTES
 *          T_GENERAL T_NODES ASIDE T_OVERLAY RECOGNISED
 * (times in seconds; ASIDE 1 when the overlay passes the exchange to the
 * library, cm_css_nearly_uniform).
 */
#include <mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "css_schedule.h"

enum { V_LIBRARY, V_CLASSIC, V_CSS, V_GENERAL, V_NODES, V_OVERLAY, NVARIANTS };
static const char *const variant_name[NVARIANTS] = { "library", "classic", "css", "general",
                                                     "nodes", "overlay" };

typedef struct exch {
    int n, me;
    char name[64];
    /* redistribution: the loop and its distributions */
    int redist;
    cm_css_redist_t r;
    /* the exchange, in doubles */
    int *scnt, *sdis, *rcnt, *rdis;
    double *sbuf, *rbuf;
    long long stot, rtot;
    uint64_t *cnt;          /* matrix exchanges: n x n element counts */
    cm_css_sched_t *sched;
    /* the overlay's schedules (ovl_css.c): the colouring of the byte
     * matrix every rank gathers, without and with the ranks' nodes */
    cm_css_sched_t *general, *nodes;
    /* and the one it runs now (cm_css_sched_overlay): nodes' unless the
     * matrix is recognised as a redistribution whose schedule the node
     * model prefers; recognised: its cm_css_choice_t (0 not recognised,
     * 1 recognised but coloured, 2 the redistribution's schedule) */
    cm_css_sched_t *overlay;
    int recognised;
    int aside;              /* the overlay passes it to the library */
    int share;              /* one schedule for all ranks (build_shared) */
    int window;             /* --window: sends in flight, 0 step by step */
    long errors;
} exch_t;

/* ---- small helpers ------------------------------------------------------ */

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* uniform in [0, 1) from (seed, a, b, c) */
static double unit(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t z = mix64(mix64(mix64(seed ^ 0x5eed) ^ a) ^ (b << 1)) ^ (c << 2);
    return (double)(mix64(z) >> 11) * 0x1.0p-53;
}

static void error_line(exch_t *e, const char *fmt, long long a, long long b, long long c)
{
    if (e->errors++ < 5) {
        printf("ERROR rank %d: ", e->me);
        printf(fmt, a, b, c);
        printf("\n");
        fflush(stdout);
    }
}

static int parse_size(const char *s, long long *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v <= 0)
        return -1;
    switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end || v > 4e9)
        return -1;
    *out = (long long)v;
    return 0;
}

/* ---- the redistribution: who owns what -------------------------------- */

/* Visit, in increasing loop index, the iterations i whose address
 * stride i + offset lies on rank me under cyclic(block) over n;
 * fn(i, ctx). */
typedef void (*visit_fn)(int64_t i, void *ctx);
static void walk_own(int me, int n, int64_t block, int64_t stride, int64_t offset,
                     int64_t count, visit_fn fn, void *ctx)
{
    if (count <= 0)
        return;
    int64_t last = stride * (count - 1) + offset;
    for (int64_t b = me; b * block <= last; b += n) {
        int64_t lo = b * block, hi = lo + block - 1;
        if (hi < offset)
            continue;
        if (lo < offset)
            lo = offset;
        int64_t i = (lo - offset + stride - 1) / stride;
        for (int64_t g = stride * i + offset; g <= hi && i < count; i++, g += stride)
            fn(i, ctx);
    }
}

typedef struct pack_ctx {
    exch_t *e;
    int64_t *cursor;
    int fill;
    /* the block [base, base + block) of the other side's address last
     * seen, and its owner: addresses only grow during a walk */
    int64_t base, lim;
    int who;
} pack_ctx_t;

static int owner_cached(pack_ctx_t *c, int64_t g, int64_t block, int n)
{
    if (g < c->base || g >= c->lim) {
        c->base = g / block * block;
        c->lim = c->base + block;
        c->who = (int)((g / block) % n);
    }
    return c->who;
}

static void walk(pack_ctx_t *c, int fill, int sender_side, visit_fn fn)
{
    const cm_css_redist_t *r = &c->e->r;
    memset(c->cursor, 0, (size_t)c->e->n * sizeof *c->cursor);
    c->fill = fill;
    c->base = 0;
    c->lim = -1;   /* empty: the first address looks its owner up */
    if (sender_side)
        walk_own(c->e->me, r->src_procs, r->src_block, r->src_stride, r->src_offset, r->count,
                 fn, c);
    else
        walk_own(c->e->me, r->dst_procs, r->dst_block, r->dst_stride, r->dst_offset, r->count,
                 fn, c);
}

static void pack_one(int64_t i, void *v)
{
    pack_ctx_t *c = v;
    const cm_css_redist_t *r = &c->e->r;
    int to = owner_cached(c, r->dst_stride * i + r->dst_offset, r->dst_block, r->dst_procs);
    if (c->fill)
        c->e->sbuf[c->e->sdis[to] + c->cursor[to]] = (double)i;
    c->cursor[to]++;
}

static void count_in(int64_t i, void *v)
{
    pack_ctx_t *c = v;
    const cm_css_redist_t *r = &c->e->r;
    int from = owner_cached(c, r->src_stride * i + r->src_offset, r->src_block, r->src_procs);
    if (c->fill) {
        int64_t k = c->cursor[from];
        if (k >= c->e->rcnt[from])
            error_line(c->e, "element %lld: more than the %lld elements received from %lld",
                       (long long)i, c->e->rcnt[from], from);
        else if (c->e->rbuf[c->e->rdis[from] + k] != (double)i)
            error_line(c->e, "element %lld from rank %lld: got %lld",
                       (long long)i, from, (long long)c->e->rbuf[c->e->rdis[from] + k]);
    }
    c->cursor[from]++;
}

/* ---- building the exchange --------------------------------------------- */

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s);
    if (!p) {
        fprintf(stderr, "css_bench: out of memory (%zu x %zu)\n", n, s);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void displacements(exch_t *e)
{
    long long s = 0, r = 0;
    for (int j = 0; j < e->n; j++) {
        e->sdis[j] = (int)s;
        e->rdis[j] = (int)r;
        s += e->scnt[j];
        r += e->rcnt[j];
    }
    e->stot = s;
    e->rtot = r;
    if (s > 2147483647LL || r > 2147483647LL) {
        fprintf(stderr, "css_bench: rank %d: more than 2^31 - 1 elements\n", e->me);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Average message (elements) over the pairs i != j with data, and the largest. */
static void pair_stats(const cm_css_sched_t *s, int n, double *avg, uint64_t *max, uint64_t *min,
                       long *pairs)
{
    double sum = 0;
    long np = 0;
    uint64_t mx = 0, mn = UINT64_MAX;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint64_t z = cm_css_sched_size(s, i, j);
            if (i != j && z) {
                sum += (double)z;
                np++;
                if (z > mx)
                    mx = z;
                if (z < mn)
                    mn = z;
            }
        }
    *avg = np ? sum / (double)np : 0;
    *max = mx;
    *min = np ? mn : 0;
    *pairs = np;
}

/* The schedule, built by every rank (as the overlay does), or under SMPI
 * by rank 0 alone and handed to the others by address: SMPI's ranks share
 * one address space, and building is host time, not simulated time, so the
 * result is the same; only the wall time differs (a dense block-cyclic
 * schedule takes about a second to build at 128 ranks, 128 times over). */
/* Which schedule build_shared builds. */
enum { B_REDIST, B_NODES, B_OVERLAY };

static cm_css_sched_t *build_shared(exch_t *e, int how, const uint64_t *bytes,
                                    const uint64_t *node)
{
    static const char *const fn[] = { "cm_css_sched_redistribution",
                                      "cm_css_sched_general_nodes", "cm_css_sched_overlay" };
    cm_css_sched_t *s = NULL;
    cm_error_t err;
    cm_css_choice_t how_chosen = CM_CSS_COLOURED;
    if (!e->share || e->me == 0) {
        s = how == B_REDIST ? cm_css_sched_redistribution(&e->r, &err)
            : how == B_NODES ? cm_css_sched_general_nodes(e->n, bytes, node, &err)
            : cm_css_sched_overlay(e->n, bytes, node, CM_CSS_OVERLAY_LATENCY,
                                    CM_CSS_OVERLAY_BANDWIDTH, &how_chosen, &err);
        if (!s) {
            printf("ERROR rank %d: %s: %s\n", e->me, fn[how], err.msg);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (how == B_OVERLAY) {
        int rec = how_chosen;
        if (e->share)
            MPI_Bcast(&rec, 1, MPI_INT, 0, MPI_COMM_WORLD);
        e->recognised = rec;
    }
    if (e->share) {
        uint64_t addr = (uint64_t)(uintptr_t)s;
        MPI_Bcast(&addr, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        s = (cm_css_sched_t *)(uintptr_t)addr;
    }
    return s;
}

static void free_shared(exch_t *e, cm_css_sched_t *s)
{
    if (e->share) {
        MPI_Barrier(MPI_COMM_WORLD);   /* nobody reads it any more */
        if (e->me != 0)
            return;
    }
    cm_css_sched_free(s);
}

static void setup_redist(exch_t *e, int64_t sb, int64_t ss, int64_t so, int64_t db, int64_t ds,
                         int64_t dof, long long pair)
{
    int n = e->n;
    memset(&e->r, 0, sizeof e->r);
    e->redist = 1;
    e->r.src_procs = e->r.dst_procs = n;
    e->r.src_stride = ss;
    e->r.src_offset = so;
    e->r.dst_stride = ds;
    e->r.dst_offset = dof;
    e->r.same_ranks = 1;
    e->r.method = 0;
    /* Probe: the average message for a known count, then scale the count
     * (messages grow linearly with it). */
    int64_t probe = (int64_t)n * 32768;
    e->r.count = probe;
    e->r.src_block = sb > 0 ? sb : (probe + n - 1) / n;
    e->r.dst_block = db > 0 ? db : (probe + n - 1) / n;
    cm_css_sched_t *s = build_shared(e, B_REDIST, NULL, NULL);
    double avg;
    uint64_t mx, mn;
    long pairs;
    pair_stats(s, n, &avg, &mx, &mn, &pairs);
    free_shared(e, s);
    double scale = avg > 0 ? ((double)pair / 8.0) / avg : 1;
    e->r.count = (int64_t)((double)probe * scale);
    if (e->r.count < n)
        e->r.count = n;
    if (sb <= 0)
        e->r.src_block = (e->r.count + n - 1) / n;
    if (db <= 0)
        e->r.dst_block = (e->r.count + n - 1) / n;
    e->sched = build_shared(e, B_REDIST, NULL, NULL);

    /* this rank's messages, by walking its own elements */
    int64_t *cur = xcalloc((size_t)n, sizeof *cur);
    pack_ctx_t c = { .e = e, .cursor = cur };
    walk(&c, 0, 1, pack_one);
    for (int j = 0; j < n; j++) {
        e->scnt[j] = (int)cur[j];
        if ((uint64_t)cur[j] != cm_css_sched_size(e->sched, e->me, j))
            error_line(e, "sends %lld elements to %lld, the schedule's table says %lld",
                       (long long)cur[j], j, (long long)cm_css_sched_size(e->sched, e->me, j));
    }
    walk(&c, 0, 0, count_in);
    for (int j = 0; j < n; j++) {
        e->rcnt[j] = (int)cur[j];
        if ((uint64_t)cur[j] != cm_css_sched_size(e->sched, j, e->me))
            error_line(e, "receives %lld elements from %lld, the schedule's table says %lld",
                       (long long)cur[j], j, (long long)cm_css_sched_size(e->sched, j, e->me));
    }
    displacements(e);
    e->sbuf = xcalloc((size_t)e->stot, sizeof(double));
    e->rbuf = xcalloc((size_t)e->rtot, sizeof(double));
    walk(&c, 1, 1, pack_one);
    free(cur);
}

static double matrix_value(int n, int i, int j, long long k)
{
    return (double)((((uint64_t)i * (uint64_t)n + (uint64_t)j) << 26) + (uint64_t)k);
}

static void setup_matrix(exch_t *e, int irregular, long long pair, double density, uint64_t seed)
{
    int n = e->n;
    e->cnt = xcalloc((size_t)n * (size_t)n, sizeof *e->cnt);
    /* log-uniform over [pair c / 8, 8 pair c]: mean pair (c = ln 64 / 7.875) */
    double c = log(64.0) / (8.0 - 1.0 / 8.0), lo = (double)pair * c / 8.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint64_t bytes = 0;
            if (!irregular)
                bytes = (uint64_t)pair;
            else if (i == j || unit(seed, (uint64_t)i, (uint64_t)j, 1) < density)
                bytes = (uint64_t)(lo * exp(unit(seed, (uint64_t)i, (uint64_t)j, 2) * log(64.0)));
            uint64_t el = (bytes + 7) / 8;
            if (el >= (1u << 26))
                el = (1u << 26) - 1;
            e->cnt[(size_t)i * n + j] = el;
        }
    uint64_t *bytes = xcalloc((size_t)n * (size_t)n, sizeof *bytes);
    for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
        bytes[k] = e->cnt[k] * 8;
    e->sched = build_shared(e, B_NODES, bytes, NULL);
    free(bytes);
    for (int j = 0; j < n; j++) {
        e->scnt[j] = (int)e->cnt[(size_t)e->me * n + j];
        e->rcnt[j] = (int)e->cnt[(size_t)j * n + e->me];
    }
    displacements(e);
    e->sbuf = xcalloc((size_t)e->stot, sizeof(double));
    e->rbuf = xcalloc((size_t)e->rtot, sizeof(double));
    for (int j = 0; j < n; j++)
        for (long long k = 0; k < e->scnt[j]; k++)
            e->sbuf[e->sdis[j] + k] = matrix_value(n, e->me, j, k);
}

/* What the overlay (ovl_css.c) builds for this exchange: every rank's row
 * of send bytes gathered into the n x n matrix, each rank's node label
 * gathered beside it (a hash of MPI_Get_processor_name, as the overlay's),
 * the step-aside test, and the colouring without and with the nodes. */
static void setup_overlay(exch_t *e)
{
    int n = e->n, len = 0;
    char name[MPI_MAX_PROCESSOR_NAME + 1] = "";
    MPI_Get_processor_name(name, &len);
    uint64_t mine = cm_css_node_label(name);
    uint64_t *row = xcalloc((size_t)n, sizeof *row);
    uint64_t *bytes = xcalloc((size_t)n * (size_t)n, sizeof *bytes);
    uint64_t *node = xcalloc((size_t)n, sizeof *node);
    for (int j = 0; j < n; j++)
        row[j] = (uint64_t)e->scnt[j] * 8;
    /* under SMPI only rank 0 builds (build_shared): a gather is enough, and
     * an allgather of n^2 messages costs the simulator as much as the
     * exchange itself */
    if (e->share) {
        MPI_Gather(row, n, MPI_UINT64_T, bytes, n, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        MPI_Gather(&mine, 1, MPI_UINT64_T, node, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    } else {
        MPI_Allgather(row, n, MPI_UINT64_T, bytes, n, MPI_UINT64_T, MPI_COMM_WORLD);
        MPI_Allgather(&mine, 1, MPI_UINT64_T, node, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    }
    e->aside = cm_css_nearly_uniform(n, bytes);
    MPI_Bcast(&e->aside, 1, MPI_INT, 0, MPI_COMM_WORLD);
    e->general = build_shared(e, B_NODES, bytes, NULL);
    e->nodes = build_shared(e, B_NODES, bytes, node);
    e->overlay = build_shared(e, B_OVERLAY, bytes, node);
    free(row);
    free(bytes);
    free(node);
}

/* ---- the ways ------------------------------------------------------------ */

#define TAG_CLASSIC 301
#define TAG_CSS 302

static void local_copy(exch_t *e)
{
    int me = e->me;
    if (e->scnt[me])
        memcpy(e->rbuf + e->rdis[me], e->sbuf + e->sdis[me], (size_t)e->scnt[me] * sizeof(double));
}

static void run_library(exch_t *e)
{
    MPI_Alltoallv(e->sbuf, e->scnt, e->sdis, MPI_DOUBLE, e->rbuf, e->rcnt, e->rdis, MPI_DOUBLE,
                  MPI_COMM_WORLD);
}

static void run_classic(exch_t *e)
{
    int n = e->n, me = e->me;
    local_copy(e);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n, nr = 0;
        MPI_Request rq[2];
        if (e->rcnt[from])
            MPI_Irecv(e->rbuf + e->rdis[from], e->rcnt[from], MPI_DOUBLE, from, TAG_CLASSIC,
                      MPI_COMM_WORLD, &rq[nr++]);
        if (e->scnt[to])
            MPI_Isend(e->sbuf + e->sdis[to], e->scnt[to], MPI_DOUBLE, to, TAG_CLASSIC,
                      MPI_COMM_WORLD, &rq[nr++]);
        if (nr)
            MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    }
}

/* --window: every receive at once, the sends in step order, at most
 * e->window of them in flight. */
static void run_window(exch_t *e, const cm_css_sched_t *s)
{
    int me = e->me, steps = cm_css_sched_nsteps(s), w = e->window, nr = 0, ns = 0;
    MPI_Request *rr = xcalloc((size_t)steps + 1, sizeof *rr);
    MPI_Request *sr = xcalloc((size_t)w, sizeof *sr);
    local_copy(e);
    for (int k = 0; k < steps; k++) {
        int from = cm_css_sched_source(s, k, me);
        if (from >= 0)
            MPI_Irecv(e->rbuf + e->rdis[from], e->rcnt[from], MPI_DOUBLE, from, TAG_CSS,
                      MPI_COMM_WORLD, &rr[nr++]);
    }
    for (int k = 0; k < steps; k++) {
        int to = cm_css_sched_peer(s, k, me), slot = ns;
        if (to < 0)
            continue;
        if (ns == w)
            MPI_Waitany(w, sr, &slot, MPI_STATUS_IGNORE);
        else
            ns++;
        MPI_Isend(e->sbuf + e->sdis[to], e->scnt[to], MPI_DOUBLE, to, TAG_CSS, MPI_COMM_WORLD,
                  &sr[slot]);
    }
    MPI_Waitall(ns, sr, MPI_STATUSES_IGNORE);
    MPI_Waitall(nr, rr, MPI_STATUSES_IGNORE);
    free(rr);
    free(sr);
}

static void run_css(exch_t *e, const cm_css_sched_t *s)
{
    int me = e->me, steps = cm_css_sched_nsteps(s);
    if (e->window > 0) {
        run_window(e, s);
        return;
    }
    local_copy(e);
    for (int k = 0; k < steps; k++) {
        int from = cm_css_sched_source(s, k, me), to = cm_css_sched_peer(s, k, me);
        int nr = 0;
        MPI_Request rq[2];
        if (from >= 0)
            MPI_Irecv(e->rbuf + e->rdis[from], e->rcnt[from], MPI_DOUBLE, from, TAG_CSS,
                      MPI_COMM_WORLD, &rq[nr++]);
        if (to >= 0)
            MPI_Isend(e->sbuf + e->sdis[to], e->scnt[to], MPI_DOUBLE, to, TAG_CSS,
                      MPI_COMM_WORLD, &rq[nr++]);
        if (nr)
            MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    }
}

/* The schedule must move exactly this rank's messages: each partner with
 * data once, nothing else. */
static void check_schedule(exch_t *e, const cm_css_sched_t *s)
{
    int n = e->n, me = e->me, steps = cm_css_sched_nsteps(s);
    int *sent = xcalloc((size_t)n, sizeof *sent), *got = xcalloc((size_t)n, sizeof *got);
    for (int k = 0; k < steps; k++) {
        int to = cm_css_sched_peer(s, k, me), from = cm_css_sched_source(s, k, me);
        if (to >= 0)
            sent[to]++;
        if (from >= 0)
            got[from]++;
    }
    for (int j = 0; j < n; j++) {
        int want_s = j != me && e->scnt[j] > 0, want_r = j != me && e->rcnt[j] > 0;
        if (sent[j] != want_s)
            error_line(e, "the schedule sends to %lld %lld times (data: %lld elements)", j,
                       sent[j], e->scnt[j]);
        if (got[j] != want_r)
            error_line(e, "the schedule receives from %lld %lld times (data: %lld elements)", j,
                       got[j], e->rcnt[j]);
    }
    free(sent);
    free(got);
}

static void verify(exch_t *e, int variant)
{
    long before = e->errors;
    if (e->redist) {
        int64_t *cur = xcalloc((size_t)e->n, sizeof *cur);
        pack_ctx_t c = { .e = e, .cursor = cur };
        walk(&c, 1, 0, count_in);
        free(cur);
    } else {
        for (int j = 0; j < e->n; j++)
            for (long long k = 0; k < e->rcnt[j]; k++) {
                double want = matrix_value(e->n, j, e->me, k);
                if (e->rbuf[e->rdis[j] + k] != want) {
                    error_line(e, "from %lld, element %lld: got %lld", j, k,
                               (long long)e->rbuf[e->rdis[j] + k]);
                    break;
                }
            }
    }
    if (e->errors > before) {
        printf("ERROR rank %d: wrong data after the %s variant\n", e->me, variant_name[variant]);
        fflush(stdout);
    }
}

static double time_variant(exch_t *e, int variant, int warmup, int reps)
{
    double sum = 0;
    for (size_t k = 0; k < (size_t)e->rtot; k++)
        e->rbuf[k] = NAN;
    for (int r = 0; r < warmup + reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        switch (variant) {
        case V_LIBRARY: run_library(e); break;
        case V_CLASSIC: run_classic(e); break;
        case V_CSS: run_css(e, e->sched); break;
        case V_GENERAL: run_css(e, e->general); break;
        case V_NODES: run_css(e, e->nodes); break;
        default: run_css(e, e->overlay); break;
        }
        double dt = MPI_Wtime() - t0, mx = 0;
        MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (r >= warmup)
            sum += mx;
    }
    verify(e, variant);
    return reps > 0 ? sum / reps : 0;
}

static const char *method_name(cm_css_method_t m)
{
    switch (m) {
    case CM_CSS_PERIODIC: return "periodic";
    case CM_CSS_GROUPED: return "grouped";
    case CM_CSS_GENERAL: return "general";
    case CM_CSS_CLASSIC: return "classic";
    default: return "?";
    }
}

/* The fluid bounds on a two-level fat tree with block placement (rank r on
 * node r / cores, per_leaf nodes per leaf switch; host links of bw bytes/s,
 * leaf uplinks of per_leaf bw / oversub; flows inside a node ignored: they
 * have their own loopback).  *all: the busiest link's load over the whole
 * exchange, divided by its bandwidth -- no way of sending it can be faster
 * in a model where flows share links and nothing else (SMPI's).  *steps:
 * the same per step of the schedule, summed -- what a schedule whose steps
 * are separated costs at least.  Both exclude latency. */
static void fattree_bounds(const exch_t *e, const cm_css_sched_t *s, int cores, int per_leaf,
                           double bw, double oversub, double *all, double *steps)
{
    int n = e->n, nodes = (n + cores - 1) / cores, leaves = (nodes + per_leaf - 1) / per_leaf;
    double unitb = e->redist ? 8.0 : 1.0, up = per_leaf * bw / oversub;
    double *load = xcalloc((size_t)(2 * nodes + 2 * leaves), sizeof *load);
    int nsteps = cm_css_sched_nsteps(s);
    *all = *steps = 0;
    for (int k = -1; k < nsteps; k++) {   /* k = -1: the whole exchange */
        memset(load, 0, (size_t)(2 * nodes + 2 * leaves) * sizeof *load);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                if (k >= 0 && cm_css_sched_peer(s, k, i) != j)
                    continue;
                double b = (double)cm_css_sched_size(e->sched, i, j) * unitb;
                int a = i / cores, c = j / cores;
                if (a == c || b == 0)
                    continue;
                load[a] += b;                      /* a's link, up */
                load[nodes + c] += b;              /* c's link, down */
                if (a / per_leaf != c / per_leaf) {
                    load[2 * nodes + a / per_leaf] += b;
                    load[2 * nodes + leaves + c / per_leaf] += b;
                }
            }
        double m = 0;
        for (int l = 0; l < 2 * nodes + 2 * leaves; l++) {
            double t = load[l] / (l < 2 * nodes ? bw : up);
            m = t > m ? t : m;
        }
        if (k < 0)
            *all = m;
        else
            *steps += m;
    }
    free(load);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: css_bench cyclic:X:Y|block:Y|forall|irregular|uniform [--pair BYTES]\n"
               "       [--density P] [--seed S] [--reps R] [--warmup W] [--window W]\n"
               "       (see css_bench.c)\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    exch_t e;
    memset(&e, 0, sizeof e);
#ifdef SMPI_H
    e.share = 1;   /* SMPI: one address space (build_shared) */
#endif
    MPI_Comm_rank(MPI_COMM_WORLD, &e.me);
    MPI_Comm_size(MPI_COMM_WORLD, &e.n);

    const char *what = NULL;
    long long pair = 256 * 1024;
    double density = 0.25;
    uint64_t seed = 1;
    int reps = 3, warmup = 1, bad = 0, want[NVARIANTS] = { 1, 1, 1, 1, 1, 1 };
    int ft_cores = 0, ft_per_leaf = 0;
    double ft_bw = 0, ft_oversub = 0;
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (e.me == 0)
                usage(stdout);
            MPI_Finalize();
            return 0;
        } else if (!strcmp(a, "--pair") && v) {
            bad = parse_size(v, &pair) != 0 || pair < 8;
            i++;
        } else if (!strcmp(a, "--density") && v) {
            density = atof(v);
            bad = !(density > 0 && density <= 1);
            i++;
        } else if (!strcmp(a, "--seed") && v) {
            seed = strtoull(v, NULL, 10);
            i++;
        } else if (!strcmp(a, "--reps") && v) {
            reps = atoi(v);
            bad = reps < 1;
            i++;
        } else if (!strcmp(a, "--warmup") && v) {
            warmup = atoi(v);
            bad = warmup < 0;
            i++;
        } else if (!strcmp(a, "--fattree") && v) {
            bad = sscanf(v, "%d:%d:%lf:%lf", &ft_cores, &ft_per_leaf, &ft_bw, &ft_oversub) != 4 ||
                  ft_cores < 1 || ft_per_leaf < 1 || !(ft_bw > 0) || !(ft_oversub >= 1);
            i++;
        } else if (!strcmp(a, "--window") && v) {
            e.window = atoi(v);
            bad = e.window < 0;
            i++;
        } else if (!strcmp(a, "--build-everywhere")) {
            e.share = 0;
        } else if (!strcmp(a, "--variants") && v) {
            want[V_LIBRARY] = strstr(v, "library") != NULL;
            want[V_CLASSIC] = strstr(v, "classic") != NULL;
            want[V_CSS] = strstr(v, "css") != NULL;
            want[V_GENERAL] = strstr(v, "general") != NULL;
            want[V_NODES] = strstr(v, "nodes") != NULL;
            want[V_OVERLAY] = strstr(v, "overlay") != NULL;
            bad = !want[V_LIBRARY] && !want[V_CLASSIC] && !want[V_CSS] && !want[V_GENERAL] &&
                  !want[V_NODES] && !want[V_OVERLAY];
            i++;
        } else if (a[0] != '-' && !what) {
            what = a;
        } else {
            bad = 1;
        }
    }
    if (bad || !what || e.n < 2) {
        if (e.me == 0) {
            fprintf(stderr, "css_bench: bad arguments%s\n", e.n < 2 ? " (needs 2 ranks or more)" : "");
            usage(stderr);
        }
        MPI_Finalize();
        return 2;
    }

    int n = e.n;
    e.scnt = xcalloc((size_t)n, sizeof(int));
    e.sdis = xcalloc((size_t)n, sizeof(int));
    e.rcnt = xcalloc((size_t)n, sizeof(int));
    e.rdis = xcalloc((size_t)n, sizeof(int));
    long x = 0, y = 0;
    char tail;
    if (sscanf(what, "cyclic:%ld:%ld%c", &x, &y, &tail) == 2 && x > 0 && y > 0) {
        snprintf(e.name, sizeof e.name, "cyclic%ld-cyclic%ld", x, y);
        setup_redist(&e, x, 1, 0, y, 1, 0, pair);
    } else if (sscanf(what, "block:%ld%c", &y, &tail) == 1 && y > 0) {
        snprintf(e.name, sizeof e.name, "block-cyclic%ld", y);
        setup_redist(&e, 0, 1, 0, y, 1, 0, pair);
    } else if (!strcmp(what, "forall")) {
        snprintf(e.name, sizeof e.name, "forall");
        /* A(3i + 4) = B(2i + 1): B (sent) cyclic(3), A (received) cyclic(4) */
        setup_redist(&e, 3, 2, 1, 4, 3, 4, pair);
    } else if (!strcmp(what, "irregular")) {
        snprintf(e.name, sizeof e.name, "irregular");
        setup_matrix(&e, 1, pair, density, seed);
    } else if (!strcmp(what, "uniform")) {
        snprintf(e.name, sizeof e.name, "uniform");
        setup_matrix(&e, 0, pair, density, seed);
    } else {
        if (e.me == 0) {
            fprintf(stderr, "css_bench: unknown exchange '%s'\n", what);
            usage(stderr);
        }
        MPI_Finalize();
        return 2;
    }
    setup_overlay(&e);
    check_schedule(&e, e.sched);
    check_schedule(&e, e.general);
    check_schedule(&e, e.nodes);
    check_schedule(&e, e.overlay);

    double t[NVARIANTS] = { NAN, NAN, NAN, NAN, NAN, NAN };
    for (int v = 0; v < NVARIANTS; v++)
        if (want[v])
            t[v] = time_variant(&e, v, warmup, reps);

    long errs = 0;
    MPI_Allreduce(&e.errors, &errs, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (e.me == 0) {
        double avg;
        uint64_t mx, mn;
        long pairs;
        pair_stats(e.sched, n, &avg, &mx, &mn, &pairs);
        int deg = 0;
        for (int i = 0; i < n; i++) {
            int ds = 0, dr = 0;
            for (int j = 0; j < n; j++) {
                ds += i != j && cm_css_sched_size(e.sched, i, j) > 0;
                dr += i != j && cm_css_sched_size(e.sched, j, i) > 0;
            }
            deg = ds > deg ? ds : deg;
            deg = dr > deg ? dr : deg;
        }
        double unitb = e.redist ? 8.0 : 1.0;   /* redistribution sizes are elements */
        printf("css_bench: %s np=%d count=%lld pairs=%ld avg_pair=%.0fB min_pair=%.0fB "
               "max_pair=%.0fB css=%s steps=%d max_degree=%d reps=%d warmup=%d\n",
               e.name, n, e.redist ? (long long)e.r.count : 0LL, pairs, avg * unitb,
               (double)mn * unitb, (double)mx * unitb, method_name(cm_css_sched_method(e.sched)),
               cm_css_sched_nsteps(e.sched), deg, reps, warmup);
        if (errs)
            printf("ERROR %ld wrong or missing elements in all\n", errs);
        printf("RESULT %s %d %.9g %.9g %.9g %d %s %.0f %.9g %.9g %d %.9g %d\n", e.name, n,
               t[V_LIBRARY], t[V_CLASSIC], t[V_CSS], cm_css_sched_nsteps(e.sched),
               method_name(cm_css_sched_method(e.sched)), avg * unitb, t[V_GENERAL],
               t[V_NODES], e.aside, t[V_OVERLAY], e.recognised);
        if (ft_cores > 0) {
            double all, steps, gen, nod;
            fattree_bounds(&e, e.sched, ft_cores, ft_per_leaf, ft_bw, ft_oversub, &all, &steps);
            fattree_bounds(&e, e.general, ft_cores, ft_per_leaf, ft_bw, ft_oversub, &all, &gen);
            fattree_bounds(&e, e.nodes, ft_cores, ft_per_leaf, ft_bw, ft_oversub, &all, &nod);
            printf("BOUND %s %d %.9g %.9g %.9g %.9g\n", e.name, n, all, steps, gen, nod);
        }
        fflush(stdout);
    }
    free_shared(&e, e.sched);
    free_shared(&e, e.general);
    free_shared(&e, e.nodes);
    free_shared(&e, e.overlay);
    free(e.sbuf);
    free(e.rbuf);
    free(e.cnt);
    free(e.scnt);
    free(e.sdis);
    free(e.rcnt);
    free(e.rdis);
    MPI_Finalize();
    return errs ? 1 : 0;
}
