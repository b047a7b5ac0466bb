/*
 * ovl_css.c -- MPI_Alltoallv by contention-free schedules (Wang et
 * al.'s CSS; css_schedule.h, docs/overlays.md).
 *
 * An irregular all-to-all sent the way MPI libraries send it (every
 * message at once, or rank + k in step k) lets several senders hit one
 * receiver at a time while others idle.  A CSS schedule splits the exchange
 * into steps in which every rank sends to at most one rank and receives from
 * at most one, with message lengths as even as possible; each step is one
 * Irecv/Isend pair per rank and a Waitall, so no receiver is ever contended.
 *
 * Which exchanges.  Passed through to PMPI_Alltoallv unchanged, and counted
 * by reason (ovl_text.h): intercommunicators, MPI_IN_PLACE, communicators
 * of 1 or more than OVL_MAX_RANKS ranks (all decided locally, the same on
 * every rank); and, decided with the other ranks, nearly uniform exchanges
 * (cm_css_nearly_uniform: every off-diagonal byte count non-zero and the
 * largest at most 5 % above the smallest; a schedule could save at most
 * that against the classic ordering, less than separate steps lose against
 * the library's own algorithm, which is tuned for these: the overlay steps
 * aside), exchanges whose schedule is not faster than the classic
 * (rank + k) mod n ordering in the node model of css_schedule.h
 * (OVL_LATENCY, OVL_BANDWIDTH), and any failure on any rank.
 *
 * Redistributions.  When the gathered byte matrix is exactly the table of
 * a block-cyclic redistribution over the communicator (cm_css_recognise:
 * cyclic(y) -> cyclic(x), block distributions included), the seed's own
 * construction for it (cm_css_sched_redistribution) is built too, and run
 * when the node model below finds it strictly cheaper than the colouring
 * (cm_css_sched_overlay); it is a verdict of its own (V_REDIST), so the
 * agreement on the verdict also checks that every rank took that branch.
 *
 * Nodes.  Ranks that share a node share its network link, so the schedule
 * is built for the nodes (cm_css_sched_general_nodes): each rank's node
 * label (a hash of its processor name, taken once at setup) travels as the
 * last entry of its row in the allgather below, so every rank builds the
 * schedule from the same matrix and the same labels, with no collective of
 * its own.
 *
 * Agreement.  Every decision that a rank could take differently from the
 * others (its counts differ from the cached ones, an allocation failed, a
 * schedule could not be built) goes through a PMPI_Allreduce(MPI_MIN) of a
 * few ints that every rank takes part in, before any rank acts on it: the
 * ranks then all run the schedule or all pass through, and their caches
 * stay identical (the same entries in the same slots), which is what lets
 * one allreduce decide a reuse.  Per call: one allreduce when a cached
 * schedule (or verdict) fits; otherwise two more allreduces, one
 * PMPI_Allgather of the n x n byte counts and the schedule's construction
 * (css_schedule.h gives its time), and, the first time a communicator is
 * scheduled, a PMPI_Comm_dup and one more allreduce.
 *
 * Cache.  Per communicator, in an attribute (copied to no duplicate,
 * freed with the communicator; the ones still alive at MPI_Finalize are
 * freed by ovl_css_teardown): a private duplicate of the communicator, so
 * that no receive of the program (MPI_ANY_SOURCE, MPI_ANY_TAG) can match the
 * overlay's messages, and up to OVL_KEEP entries (least recently used
 * replaced first) of this rank's row of send bytes (and its node label),
 * its hash, the verdict and the schedule, so that call sites alternating
 * between a few exchanges each keep theirs.
 *
 * The overlay's messages are PMPI calls: the profiler's wrappers never see
 * them, and it records the MPI_Alltoallv itself as it always does.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "css_schedule.h"
#include "ovl.h"

/* Most ranks of a communicator the overlay schedules: the general schedule
 * holds an n x n table, at most CM_CSS_MAX_CELLS cells. */
#define OVL_MAX_RANKS 4096
/* Entries kept per communicator; above OVL_KEEP_LARGE ranks only one,
 * because each schedule holds n x n byte counts (8 MiB at 1024 ranks). */
#define OVL_KEEP 4
#define OVL_KEEP_LARGE 1024
/* The network the schedule is compared with the classic ordering for
 * (css_schedule.h). */
#define OVL_LATENCY   CM_CSS_OVERLAY_LATENCY
#define OVL_BANDWIDTH CM_CSS_OVERLAY_BANDWIDTH
/* The private duplicate carries nothing but the overlay's messages. */
#define OVL_TAG 0

/* What an entry says to do with its exchange.  V_REDIST: a schedule too,
 * from the exchange recognised as a block-cyclic redistribution; a verdict
 * of its own so that the agreement on the verdict also covers which
 * schedule every rank built. */
enum { V_NONE = 0, V_SCHEDULE, V_UNIFORM, V_SLOWER, V_REDIST };

/* Whether @p verdict runs a schedule. */
static int runs_schedule(int verdict)
{
    return verdict == V_SCHEDULE || verdict == V_REDIST;
}

typedef struct entry {
    int verdict;            /* V_NONE: an empty slot */
    uint64_t used;          /* the cache's clock at its last use (LRU) */
    uint64_t hash;          /* of row, to compare rows quickly */
    uint64_t *row;          /* [n + 1] the bytes this rank sends to each
                             * rank, then its node label */
    cm_css_sched_t *sched;  /* V_SCHEDULE, V_REDIST: the schedule, else NULL */
} entry_t;

typedef struct cache {
    MPI_Comm user;          /* the communicator it hangs on */
    MPI_Comm dup;           /* private duplicate, MPI_COMM_NULL until the
                             * first schedule needs it */
    int n;
    uint64_t clock;         /* calls that reached an agreement */
    entry_t e[OVL_KEEP];
    struct cache *prev, *next;   /* every live cache, for teardown */
    int linked;
} cache_t;

/* One call's arguments, and what the overlay derives from them. */
typedef struct call {
    const void *sbuf;
    const int *scounts, *sdispls;
    MPI_Datatype stype;
    void *rbuf;
    const int *rcounts, *rdispls;
    MPI_Datatype rtype;
    MPI_Comm comm;
    int n, me;
    MPI_Aint sext, rext;    /* extents: displacements are in these units */
} call_t;

static int keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static cache_t *reg_head;
static ovl_css_stats_t stats;   /* atomic adds: calls may come from threads */
static uint64_t node_label;     /* this rank's node (cm_css_node_label) */

/* ------------------------------------------------------------ cache -- */

/* Empty slot @p e, freeing what it holds. */
static void entry_clear(entry_t *e)
{
    cm_css_sched_free(e->sched);
    free(e->row);
    memset(e, 0, sizeof *e);
}

/* Take @p c out of the list of live caches if it is still in it (the
 * registry's lock held). */
static void unlink_locked(cache_t *c)
{
    if (c->linked) {
        if (c->prev)
            c->prev->next = c->next;
        else
            reg_head = c->next;
        if (c->next)
            c->next->prev = c->prev;
        c->linked = 0;
    }
}

/* The attribute's delete callback: the communicator is being freed (or
 * MPI_Finalize is near, ovl_css_teardown), so its cache and duplicate go. */
static int on_delete(MPI_Comm comm, int kv, void *val, void *extra)
{
    cache_t *c = val;
    pthread_mutex_lock(&reg_lock);
    unlink_locked(c);
    pthread_mutex_unlock(&reg_lock);
    for (int k = 0; k < OVL_KEEP; k++)
        entry_clear(&c->e[k]);
    if (c->dup != MPI_COMM_NULL)
        PMPI_Comm_free(&c->dup);
    free(c);
    return MPI_SUCCESS;
}

int ovl_css_setup(void)
{
    char name[MPI_MAX_PROCESSOR_NAME + 1] = "";
    int len = 0;
    /* local, no collective: a rank that fails has the label of "", which
     * only makes its node look different from its neighbours' */
    if (PMPI_Get_processor_name(name, &len) != MPI_SUCCESS || len < 0 ||
        len > MPI_MAX_PROCESSOR_NAME)
        len = 0;
    name[len] = '\0';
    node_label = cm_css_node_label(name);
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &keyval,
                                   NULL) == MPI_SUCCESS ? 0 : -1;
}

void ovl_css_teardown(void)
{
    for (;;) {
        MPI_Comm user = MPI_COMM_NULL;
        pthread_mutex_lock(&reg_lock);
        cache_t *c = reg_head;
        if (c) {
            user = c->user;
            unlink_locked(c);   /* the loop ends even if no callback runs */
        }
        pthread_mutex_unlock(&reg_lock);
        if (!c)
            break;
        /* the callback frees the cache; should the call fail, the cache
         * stays with the attribute (never freed twice) */
        PMPI_Comm_delete_attr(user, keyval);
    }
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
}

/* The cache of @p comm, attached (empty) if it has none yet; NULL when it
 * cannot be.  A rank whose attach failed has none, which is the same as an
 * empty one (the call falls back on every rank): the ranks' caches stay
 * alike. */
static cache_t *cache_of(MPI_Comm comm, int n)
{
    void *val = NULL;
    int flag = 0;
    if (keyval == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, keyval, &val, &flag) != MPI_SUCCESS)
        return NULL;
    if (flag)
        return val;
    cache_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->user = comm;
    c->dup = MPI_COMM_NULL;
    c->n = n;
    if (PMPI_Comm_set_attr(comm, keyval, c) != MPI_SUCCESS) {
        free(c);
        return NULL;
    }
    pthread_mutex_lock(&reg_lock);
    c->next = reg_head;
    if (reg_head)
        reg_head->prev = c;
    reg_head = c;
    c->linked = 1;
    pthread_mutex_unlock(&reg_lock);
    return c;
}

/* How many entries a cache of @p n ranks keeps. */
static int keep(int n)
{
    return n > OVL_KEEP_LARGE ? 1 : OVL_KEEP;
}

/* FNV-1a over the bytes of @p row[n + 1]. */
static uint64_t row_hash(const uint64_t *row, int n)
{
    return cm_fnv1a(CM_FNV1A_START, row, ((size_t)n + 1) * sizeof *row);
}

/* The slot a new entry goes to: an empty one, else the least recently
 * used (the same slot on every rank, the caches being alike). */
static entry_t *slot_for(cache_t *c)
{
    entry_t *best = &c->e[0];
    for (int k = 0; k < keep(c->n); k++) {
        if (c->e[k].verdict == V_NONE)
            return &c->e[k];
        if (c->e[k].used < best->used)
            best = &c->e[k];
    }
    return best;
}

/* ------------------------------------------------------- agreement -- */

/* Every rank's @p v[k] replaced by the minimum over ranks (for flags: 1 on
 * every rank, the logical and).  Returns PMPI_Allreduce's code. */
static int agree(MPI_Comm comm, int *v, int k)
{
    return PMPI_Allreduce(MPI_IN_PLACE, v, k, MPI_INT, MPI_MIN, comm);
}

/* This rank's row of send bytes into @p row[n] and its node label into
 * row[n], and the extents into @p a;
 * -1 on anything PMPI_Alltoallv should report itself (a negative count, a
 * null datatype), so that the call falls back and it does. */
static int prepare(call_t *a, uint64_t *row)
{
    MPI_Count size = 0;
    MPI_Aint lb;
    if (!a->scounts || !a->sdispls || !a->rcounts || !a->rdispls ||
        a->stype == MPI_DATATYPE_NULL || a->rtype == MPI_DATATYPE_NULL ||
        PROF_TYPE_SIZE(a->stype, &size) != MPI_SUCCESS || size < 0 ||
        PMPI_Type_get_extent(a->stype, &lb, &a->sext) != MPI_SUCCESS ||
        PMPI_Type_get_extent(a->rtype, &lb, &a->rext) != MPI_SUCCESS)
        return -1;
    for (int j = 0; j < a->n; j++) {
        if (a->scounts[j] < 0 || a->rcounts[j] < 0)
            return -1;
        row[j] = (uint64_t)a->scounts[j] * (uint64_t)size;
    }
    row[a->n] = node_label;
    return 0;
}

/* The verdict on the exchange @p mat (n rows of n + 1: the bytes each
 * rank sends, then its node label; compacted in place into the n x n byte
 * matrix), and in *out its schedule when that is V_SCHEDULE or V_REDIST;
 * -1 when the schedule cannot be built here.  A function of @p mat alone:
 * every rank reaches the same verdict and schedule.  The order of the
 * rules: nearly uniform first (the library's own algorithm then), then the
 * schedule (cm_css_sched_overlay: a recognised redistribution's, when the
 * node model prefers it to the node-aware colouring), then the comparison
 * with the classic ordering. */
static int analyse(int n, uint64_t *mat, cm_css_sched_t **out, cm_css_choice_t *how)
{
    double mine = 0, classic = 0;
    *out = NULL;
    *how = CM_CSS_COLOURED;
    uint64_t *node = malloc((size_t)n * sizeof *node);
    if (!node)
        return -1;
    for (int i = 0; i < n; i++) {
        node[i] = mat[(size_t)i * ((size_t)n + 1) + (size_t)n];
        memmove(&mat[(size_t)i * (size_t)n], &mat[(size_t)i * ((size_t)n + 1)],
                (size_t)n * sizeof *mat);
    }
    if (cm_css_nearly_uniform(n, mat)) {
        free(node);
        return V_UNIFORM;
    }
    cm_css_sched_t *s = cm_css_sched_overlay(n, mat, node, OVL_LATENCY, OVL_BANDWIDTH,
                                             how, NULL);
    if (!s ||
        cm_css_sched_cost_nodes(s, mat, node, OVL_LATENCY, OVL_BANDWIDTH, &mine, NULL) ||
        cm_css_classic_cost_nodes(n, mat, node, OVL_LATENCY, OVL_BANDWIDTH, &classic, NULL)) {
        free(node);
        cm_css_sched_free(s);
        return -1;
    }
    free(node);
    if (!(mine < classic)) {
        cm_css_sched_free(s);
        return V_SLOWER;
    }
    *out = s;
    return *how == CM_CSS_REDISTRIBUTED ? V_REDIST : V_SCHEDULE;
}

/* A new exchange: gather the byte matrix, judge it, remember the verdict in
 * a slot of @p c (taking over @p row) and return that entry in *out, or
 * NULL in *out when the ranks fall back.  Called by every rank together
 * (decide).  Returns an MPI error code of the overlay's own calls. */
static int learn(call_t *a, cache_t *c, uint64_t **row, entry_t **out)
{
    int n = a->n, rc;
    uint64_t *mat = malloc((size_t)n * ((size_t)n + 1) * sizeof *mat);
    int v[3] = { mat != NULL, 0, 0 };
    *out = NULL;
    if ((rc = agree(a->comm, v, 1)) != MPI_SUCCESS || !v[0]) {
        free(mat);
        return rc;
    }
    rc = PMPI_Allgather(*row, n + 1, MPI_UINT64_T, mat, n + 1, MPI_UINT64_T, a->comm);
    if (rc != MPI_SUCCESS) {
        free(mat);
        return rc;
    }
    cm_css_sched_t *s = NULL;
    cm_css_choice_t how = CM_CSS_COLOURED;
    int verdict = analyse(n, mat, &s, &how);
    free(mat);
    /* the verdict is the same everywhere unless a rank failed: check both */
    v[0] = verdict > 0;
    v[1] = verdict;
    v[2] = -verdict;
    if ((rc = agree(a->comm, v, 3)) != MPI_SUCCESS || !v[0] || v[1] != -v[2]) {
        cm_css_sched_free(s);
        return rc;
    }
    if (runs_schedule(verdict) && c->dup == MPI_COMM_NULL) {
        MPI_Comm dup = MPI_COMM_NULL;
        rc = PMPI_Comm_dup(a->comm, &dup);
        v[0] = rc == MPI_SUCCESS && dup != MPI_COMM_NULL;
        int rc2 = agree(a->comm, v, 1);
        if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS || !v[0]) {
            if (dup != MPI_COMM_NULL)
                PMPI_Comm_free(&dup);
            cm_css_sched_free(s);
            return rc != MPI_SUCCESS ? rc : rc2;
        }
        c->dup = dup;
    }
    entry_t *e = slot_for(c);
    entry_clear(e);
    e->verdict = verdict;
    e->used = c->clock;
    e->hash = row_hash(*row, n);
    e->row = *row;
    e->sched = s;
    *row = NULL;
    if (runs_schedule(verdict))
        __atomic_fetch_add(&stats.built, 1, __ATOMIC_RELAXED);
    if (runs_schedule(verdict) && how != CM_CSS_COLOURED)
        __atomic_fetch_add(&stats.recognised, 1, __ATOMIC_RELAXED);
    *out = e;
    return MPI_SUCCESS;
}

/* What to do with this call, the same on every rank: the entry to follow
 * in *out (a schedule, or a verdict to pass through) and its cache in
 * *cache, or NULL in *out when the ranks fall back.  Returns an MPI error
 * code of the overlay's own calls (then nothing is to be done). */
static int decide(call_t *a, cache_t **cache, entry_t **out)
{
    int n = a->n, rc;
    uint64_t *row = malloc(((size_t)n + 1) * sizeof *row);
    cache_t *c = row && prepare(a, row) == 0 ? cache_of(a->comm, n) : NULL;
    uint64_t h = c ? row_hash(row, n) : 0;
    /* v[0]: this rank can go on; v[1 + k]: its row is the one of slot k */
    int v[1 + OVL_KEEP] = { c != NULL };
    for (int k = 0; c && k < keep(n); k++) {
        const entry_t *e = &c->e[k];
        v[1 + k] = e->verdict != V_NONE && e->hash == h &&
                   memcmp(e->row, row, ((size_t)n + 1) * sizeof *row) == 0;
    }
    *out = NULL;
    *cache = c;
    if ((rc = agree(a->comm, v, 1 + OVL_KEEP)) != MPI_SUCCESS || !v[0]) {
        free(row);
        return rc;
    }
    c->clock++;
    for (int k = 0; k < keep(n); k++)
        if (v[1 + k]) {   /* every row the same: the same exchange */
            free(row);
            c->e[k].used = c->clock;
            *out = &c->e[k];
            return MPI_SUCCESS;
        }
    rc = learn(a, c, &row, out);
    free(row);
    return rc;
}

/* ------------------------------------------------------------- run -- */

/* Block @p disp (in units of @p ext bytes) of @p buf, computed on integers:
 * the buffer may be MPI_BOTTOM. */
static void *at(const void *buf, int disp, MPI_Aint ext)
{
    return (void *)((uintptr_t)buf + (uintptr_t)((MPI_Aint)disp * ext));
}

/* The exchange by the schedule of @p e: the own block first, then step by
 * step one receive and one send, each step finished before the next.  Adds
 * the bytes sent to other ranks to *sent.  Returns the first MPI error. */
static int run(const call_t *a, const cache_t *c, const entry_t *e, uint64_t *sent)
{
    const cm_css_sched_t *s = e->sched;
    int me = a->me, rc = MPI_SUCCESS;
    if (a->scounts[me] > 0 || a->rcounts[me] > 0)
        rc = PMPI_Sendrecv(at(a->sbuf, a->sdispls[me], a->sext), a->scounts[me],
                           a->stype, me, OVL_TAG,
                           at(a->rbuf, a->rdispls[me], a->rext), a->rcounts[me],
                           a->rtype, me, OVL_TAG, c->dup, MPI_STATUS_IGNORE);
    for (int k = 0; k < cm_css_sched_nsteps(s) && rc == MPI_SUCCESS; k++) {
        MPI_Request q[2];
        int nq = 0, from = cm_css_sched_source(s, k, me), to = cm_css_sched_peer(s, k, me);
        if (from >= 0)
            rc = PMPI_Irecv(at(a->rbuf, a->rdispls[from], a->rext), a->rcounts[from],
                            a->rtype, from, OVL_TAG, c->dup, &q[nq++]);
        if (to >= 0 && rc == MPI_SUCCESS) {
            rc = PMPI_Isend(at(a->sbuf, a->sdispls[to], a->sext), a->scounts[to],
                            a->stype, to, OVL_TAG, c->dup, &q[nq++]);
            *sent += e->row[to];
        }
        if (rc == MPI_SUCCESS && nq)
            rc = PMPI_Waitall(nq, q, MPI_STATUSES_IGNORE);
    }
    return rc;
}

/* Why the call cannot be scheduled, from what every rank sees alike; -1
 * when it may be (then a->n and a->me are set). */
static int pass_local(call_t *a)
{
    int inter = 0;
    if (a->comm == MPI_COMM_NULL || PMPI_Comm_test_inter(a->comm, &inter) != MPI_SUCCESS)
        return OVL_PASS_FALLBACK;   /* PMPI_Alltoallv reports the error */
    if (inter)
        return OVL_PASS_INTER;
    if (a->sbuf == MPI_IN_PLACE)
        return OVL_PASS_IN_PLACE;
    if (PMPI_Comm_size(a->comm, &a->n) != MPI_SUCCESS ||
        PMPI_Comm_rank(a->comm, &a->me) != MPI_SUCCESS)
        return OVL_PASS_FALLBACK;
    if (a->n < 2 || a->n > OVL_MAX_RANKS)
        return OVL_PASS_SIZE;
    return -1;
}

int ovl_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                  MPI_Datatype stype, void *rbuf, const int *rcounts,
                  const int *rdispls, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!ovl_css_on)
        return ovl_tnbc_on
            ? ovl_tnbc_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts,
                                 rdispls, rtype, comm)
            : PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts,
                             rdispls, rtype, comm);
    uint64_t t0 = prof_now(), sent = 0;
    call_t a = { sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
                 comm, 0, 0, 0, 0 };
    cache_t *c = NULL;
    entry_t *e = NULL;
    int rc = MPI_SUCCESS, why = pass_local(&a);
    if (why < 0) {
        rc = decide(&a, &c, &e);
        why = !e ? OVL_PASS_FALLBACK
            : e->verdict == V_UNIFORM ? OVL_PASS_UNIFORM
            : e->verdict == V_SLOWER ? OVL_PASS_SLOWER : -1;
    }
    if (rc == MPI_SUCCESS && why < 0)
        rc = run(&a, c, e, &sent);
    else if (rc == MPI_SUCCESS)
        rc = PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
                            rtype, comm);
    __atomic_fetch_add(&stats.calls, 1, __ATOMIC_RELAXED);
    if (why >= 0)
        __atomic_fetch_add(&stats.pass[why], 1, __ATOMIC_RELAXED);
    else
        __atomic_fetch_add(&stats.scheduled, 1, __ATOMIC_RELAXED);
    if (why < 0 && e->verdict == V_REDIST)
        __atomic_fetch_add(&stats.redist, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&stats.bytes, sent, __ATOMIC_RELAXED);
    __atomic_fetch_add(&stats.ns, prof_now() - t0, __ATOMIC_RELAXED);
    return rc;
}

/* Read field by field: the counters are added to with atomics. */
void ovl_css_stats(ovl_css_stats_t *out)
{
    _Static_assert(sizeof stats % sizeof(uint64_t) == 0, "counters only");
    uint64_t *dst = (uint64_t *)out;
    const uint64_t *src = (const uint64_t *)&stats;
    for (size_t i = 0; i < sizeof stats / sizeof(uint64_t); i++)
        dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}
