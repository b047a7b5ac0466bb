/*
 * ovl_tnbc.c -- transparent non-blocking collectives (Li et al.'s
 * T-NBC; docs/overlays.md, "The tnbc overlay").
 *
 * MPI_Alltoall, MPI_Alltoallv, MPI_Allgather and MPI_Bcast on an
 * intracommunicator return before their data have arrived:
 *
 *  - the call is split into sub-messages on a private duplicate of the
 *    communicator (cached in an attribute): one PMPI_Irecv / PMPI_Isend per
 *    peer (Alltoall(v), Allgather), or one PMPI_Ibcast for the whole buffer
 *    (Bcast), all with the program's counts and datatypes;
 *  - what goes to other ranks is copied first (the program may overwrite
 *    its send buffer at once); the own block is copied into the receive
 *    buffer before returning;
 *  - data land in staging buffers.  The whole pages of the receive buffer
 *    (from its first to its last byte received) are protected
 *    PROT_NONE; the partial pages at its two ends are completed before
 *    returning (their sub-messages waited for, their bytes copied);
 *  - a progress thread (one per process, started at the first call) tests
 *    the requests (PMPI_Testsome) and marks the sub-messages complete;
 *  - the program's first touch of a protected page raises SIGSEGV; the
 *    handler finds the page's call in the interval set (ovl_ivl.h), spins
 *    until the sub-messages overlapping that page are complete, opens the
 *    page, copies their bytes in, and returns;
 *  - every wrapper of the library (prof_settle, prof.h), any collective and
 *    MPI_Finalize first complete what is pending: Waitall on the requests
 *    not yet complete, every page still closed opened and filled, the
 *    staging freed.
 *
 * At most one call is pending per process: the next tnbc call is itself a
 * completion point.  Only the application's threads copy into the
 * program's pages (in the handler or at a completion point); the progress
 * thread never touches them.
 *
 * Trace mode and priorities (T-NBC's section 5; ovl_tprio.c): the
 * handler also notes the order in which the blocks are first touched
 * (note_touch), folded into the call site's record at the completion
 * point (fold) with the call's time inside it and the time it hid; a
 * call whose site has a traced order posts its sub-messages in that order
 * (peer_at), and one whose site hid no more than it cost runs them
 * blocking instead (blocking(): the same sub-messages, so its peers match
 * them whatever they decide).
 *
 * Waves (T-NBC's section 5; ovl_waves.c), when every rank asked for
 * them: an Alltoall(v) rank that is not the first of its node's chain
 * holds its sends (their copy made) until the previous rank passes it a
 * token, and passes its own on once they are complete; the progress
 * thread, or a completion point, posts them (completed()).
 *
 * The seed's model of the time hidden (formula 3): each call left pending
 * notes its start, return and completion times, and the handler its first
 * touches (note_touch, always); the completion point turns them into the
 * model's terms (model_of) beside the measured hidden time.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ovl.h"
#include "ovl_ivl.h"
#include "trace.h"

OVL_HIDDEN int ovl_tnbc_on;
PROF_HIDDEN int prof_ovl_pending;

#define TAG 15    /* on the private duplicate only */
#define WTAG 16   /* the waves' tokens (ovl_waves.c), there too */

/* What a request slot completes, besides a received block (>= 0). */
enum { RQ_SEND = -1, RQ_TOKIN = -2, RQ_TOKOUT = -3 };

/* One send held for the waves: posted when the token comes. */
typedef struct held {
    const char *buf;
    int count, peer, slot;
} held_t;

/* One sub-message received: where its bytes go, where they land. */
typedef struct blk {
    char *user;     /* in the program's receive buffer */
    size_t len;     /* bytes */
    char *stage;    /* staging (or the send copy, for the own block) */
    int done;       /* atomic: complete (progress thread, or settle) */
    int placed;     /* already copied into the program's buffer */
    int orig;       /* its index before sorting (launch) */
    int peer;       /* the rank it comes from (this rank's own block too) */
    int touched;    /* atomic: first touched by a fault (note_touch) */
    int tpos;       /* atomic, tracing: 0 not touched yet, else 1 + its
                     * place in the order of first touches (note_touch) */
} blk_t;

/* One pending call. */
typedef struct op {
    int nblk;
    blk_t *blk;            /* sorted by user address, disjoint */
    int nreq;
    MPI_Request *req;
    int *req_blk;          /* block completed by request k, else RQ_* */
    int *idx;              /* Testsome's indices */
    int left;              /* requests not yet complete (under lock) */
    char *stage, *scopy;   /* staging, send copy (freed at settle) */
    uintptr_t plo, phi;    /* the protected pages, [plo, phi); 0, 0: none */
    size_t npages;
    unsigned char *pstate; /* per page: 0 closed, 1 being filled, 2 open */
    uint64_t t_call;       /* prof_now() at the call's start */
    uint64_t t_ret;        /* ... at its return */
    uint64_t t_done;       /* ... when its last sub-message completed */
    uint64_t waited;       /* ns the program then waited for it (atomic) */
    uint64_t dcomm;        /* bytes it receives from other ranks */
    /* The first touches, for the seed's model (model_of), under rec_lock
     * (note_touch): the earliest and the latest fault that first touched
     * a block (prof_now(), 0: none yet), o->waited at each, the bytes of
     * the blocks first touched by all faults and by the latest one. */
    int rec_lock;
    uint64_t t_first, t_last, w_first, w_last;
    uint64_t touch_bytes, last_bytes;
    trace_site_t *tsite;    /* tracing: the call site it is folded into at
                            * its completion (ovl_trace.h), else NULL */
    int ntouch;            /* atomic: blocks touched so far (tracing) */
    /* Waves (ovl_waves.c), under lock: the sends held until the previous
     * rank's token comes (post_held), ours passed on to the next rank
     * once every send is complete (slot wtok). */
    MPI_Comm wcomm;        /* the private duplicate */
    MPI_Datatype wtype;    /* a duplicate of the send type, while held */
    int nheld;
    held_t *held;
    int wsends;            /* sends not yet complete, while wtok >= 0 */
    int wtok, wnext;       /* the token's slot and the next rank, or -1 */
} op_t;

static op_t *cur;                 /* the pending call, under settle_mx */
/* Serialises the completion points of all threads (a program's helper
 * thread calling MPI_Wtime completes the pending call too) with each
 * other and with a call being made pending: a call is published in cur
 * only once its pages are protected, and completed and freed by one
 * thread only.  Also makes settle_mx's holder the one writer of ranges.
 * Never taken in the handler. */
static pthread_mutex_t settle_mx = PTHREAD_MUTEX_INITIALIZER;
static op_t *live;                /* the call whose requests the progress
                                   * thread tests (under lock) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t progress_tid;
static int progress_started;      /* application thread only */
static int stop;                  /* under lock */
static ovl_ivlset_t ranges;       /* the protected ranges (ovl_ivl.h) */
static int in_handler;            /* atomic: handlers between lookup and
                                   * return */
/* The pages of the call completed last, all open when they are noted
 * (recent_lo, recent_hi; recent_gen counts the calls completed, odd while
 * they change): a thread other than the completing one may fault on a
 * page that is opened and forgotten between its fault and its handler's
 * lookup; finding the address here, its handler retries the access once
 * per completed call instead of passing the fault on (atomics). */
static uintptr_t recent_lo, recent_hi;
static unsigned recent_gen;
/* The retry a thread's handler made last: the page and recent_gen then.
 * Initial-exec: a handler must not allocate a thread's TLS block. */
static __thread uintptr_t retry_page __attribute__((tls_model("initial-exec")));
static __thread unsigned retry_gen __attribute__((tls_model("initial-exec")));
static struct sigaction prev_segv;
static int handler_set;
static size_t pagesz;
static int keyval = MPI_KEYVAL_INVALID;
static ovl_tnbc_stats_t st;       /* faults: atomic adds */

#define ALOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define ASTORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* ----------------------------------------------------- the pages -- */

/* The first block ending after @p a (nblk if none). */
static int first_blk(const op_t *o, uintptr_t a)
{
    int lo = 0, hi = o->nblk;
    while (lo < hi) {
        int m = lo + (hi - lo) / 2;
        if ((uintptr_t)o->blk[m].user + o->blk[m].len <= a)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

/* The part [*s, *e) of block @p x inside [a, b) whose bytes are still in
 * its stage (not received in place); 0 when there is none.
 * Async-signal-safe. */
static int staged_part(const blk_t *x, uintptr_t a, uintptr_t b, uintptr_t *s,
                       uintptr_t *e)
{
    if (x->placed || !x->len)
        return 0;
    *s = (uintptr_t)x->user;
    *e = *s + x->len;
    if (*s < a)
        *s = a;
    if (*e > b)
        *e = b;
    return *s < *e;
}

/* Wait (spinning, no MPI: this may run in the handler) until every block
 * overlapping [a, b) is complete, then copy their bytes in [a, b). */
static void fill(op_t *o, uintptr_t a, uintptr_t b)
{
    for (int k = first_blk(o, a); k < o->nblk &&
         (uintptr_t)o->blk[k].user < b; k++)
        while (!ALOAD(&o->blk[k].done))
            sched_yield();
    for (int k = first_blk(o, a); k < o->nblk &&
         (uintptr_t)o->blk[k].user < b; k++) {
        blk_t *x = &o->blk[k];
        uintptr_t s, e;
        if (staged_part(x, a, b, &s, &e))
            memcpy((void *)s, x->stage + (s - (uintptr_t)x->user), e - s);
    }
}

/* /proc/self/mem (opened at MPI_Init by self_pid; -1: none): the
 * kernel's forced access, a debugger's, writes through it into a
 * PROT_NONE page of a private mapping.  A page is filled that way before
 * it is opened, so that no thread, whichever completes the call, ever
 * sees it half written.  Shared mappings refuse it (EFAULT); those pages
 * are opened, then filled (fill). */
static int self_mem = -1;
static pid_t self_pid;

/* Copy the received bytes of [a, b) into the closed page through
 * self_mem; 0 when every byte was written.  Async-signal-safe. */
static int fill_closed(op_t *o, uintptr_t a, uintptr_t b)
{
    if (self_mem < 0 || (pid_t)syscall(SYS_getpid) != self_pid)
        return -1;   /* none, or a child of fork: the parent's memory */
    for (int k = first_blk(o, a); k < o->nblk &&
         (uintptr_t)o->blk[k].user < b; k++) {
        blk_t *x = &o->blk[k];
        uintptr_t s, e;
        if (!staged_part(x, a, b, &s, &e))
            continue;
        while (s < e) {
            long w = syscall(SYS_pwrite64, self_mem,
                             x->stage + (s - (uintptr_t)x->user), e - s,
                             (off_t)s);
            if (w <= 0)
                return -1;
            s += (uintptr_t)w;
        }
    }
    return 0;
}

/* Open page @p p of @p o and fill it, or wait until whoever is filling it
 * is done.  Returns 1 when this call opened it. */
static int open_page(op_t *o, size_t p)
{
    unsigned char closed = 0;
    if (!__atomic_compare_exchange_n(&o->pstate[p], &closed, 1, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        while (ALOAD(&o->pstate[p]) != 2)
            sched_yield();
        return 0;
    }
    uintptr_t a = o->plo + p * pagesz;
    /* wait before opening: the program must never see a page half done */
    for (int k = first_blk(o, a); k < o->nblk &&
         (uintptr_t)o->blk[k].user < a + pagesz; k++)
        while (!ALOAD(&o->blk[k].done))
            sched_yield();
    int filled = fill_closed(o, a, a + pagesz) == 0;
    mprotect((void *)a, pagesz, PROT_READ | PROT_WRITE);
    if (!filled)
        fill(o, a, a + pagesz);
    ASTORE(&o->pstate[p], 2);
    return 1;
}

static void chain(int sig, siginfo_t *si, void *uc)
{
    if (prev_segv.sa_flags & SA_SIGINFO) {
        if (prev_segv.sa_sigaction) {
            prev_segv.sa_sigaction(sig, si, uc);
            return;
        }
    } else if (prev_segv.sa_handler != SIG_DFL &&
               prev_segv.sa_handler != SIG_IGN) {
        prev_segv.sa_handler(sig);
        return;
    }
    /* the default action: die of this signal, as without the overlay */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The blocks overlapping the page at @p a are touched now (@p t, the
 * fault's prof_now()).  Each not touched before is claimed by compare-and-
 * swap (two threads faulting at once claim it once); when tracing it
 * takes the next place in the order of first touches; its bytes count
 * for the seed's model (model_of): the earliest and the latest fault that
 * claimed blocks, and the bytes claimed, under the call's spin lock.
 * Async-signal-safe (the handler calls it): atomics on the call's own
 * arrays, allocated with it, and a lock held for a few assignments (no
 * call, no fault inside: no handler of the same thread can want it). */
static void note_touch(op_t *o, uintptr_t a, uint64_t t)
{
    uint64_t bytes = 0;
    for (int k = first_blk(o, a); k < o->nblk &&
         (uintptr_t)o->blk[k].user < a + pagesz; k++) {
        blk_t *x = &o->blk[k];
        int zero = 0;
        if (!x->len ||
            !__atomic_compare_exchange_n(&x->touched, &zero, 1, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;
        bytes += x->len;
        if (o->tsite)
            ASTORE(&x->tpos,
                   1 + __atomic_fetch_add(&o->ntouch, 1, __ATOMIC_ACQ_REL));
    }
    if (!bytes)
        return;
    uint64_t w = ALOAD(&o->waited);
    while (__atomic_exchange_n(&o->rec_lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
    if (!o->t_first || t < o->t_first) {
        o->t_first = t;
        o->w_first = w;
    }
    if (t >= o->t_last) {
        o->t_last = t;
        o->w_last = w;
        o->last_bytes = bytes;
    }
    o->touch_bytes += bytes;
    __atomic_store_n(&o->rec_lock, 0, __ATOMIC_RELEASE);
}

/* SIGSEGV: a protected page of ours is opened, anything else goes to the
 * handler installed before ours (or the default action).  Async-signal-
 * safe: no lock, no allocation, no MPI. */
static void on_segv(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    uintptr_t a = (uintptr_t)si->si_addr;
    __atomic_add_fetch(&in_handler, 1, __ATOMIC_SEQ_CST);
    op_t *o = ovl_ivl_find(&ranges, a, NULL, NULL);
    if (o && !(progress_started &&
               pthread_equal(pthread_self(), progress_tid))) {
        uint64_t t0 = prof_now();
        note_touch(o, a & ~(uintptr_t)(pagesz - 1), t0);
        if (open_page(o, (a - o->plo) / pagesz))
            __atomic_add_fetch(&st.faults, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&o->waited, prof_now() - t0, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&in_handler, 1, __ATOMIC_SEQ_CST);
        errno = saved;
        return;
    }
    __atomic_sub_fetch(&in_handler, 1, __ATOMIC_SEQ_CST);
    if (si->si_code == SEGV_ACCERR) {
        unsigned g = __atomic_load_n(&recent_gen, __ATOMIC_SEQ_CST);
        uintptr_t lo = __atomic_load_n(&recent_lo, __ATOMIC_SEQ_CST);
        uintptr_t hi = __atomic_load_n(&recent_hi, __ATOMIC_SEQ_CST);
        uintptr_t pg = a & ~(uintptr_t)(pagesz - 1);
        if (!(g & 1) && g == __atomic_load_n(&recent_gen, __ATOMIC_SEQ_CST) &&
            a >= lo && a < hi && (retry_page != pg || retry_gen != g)) {
            retry_page = pg;   /* opened since the fault: try again */
            retry_gen = g;
            errno = saved;
            return;
        }
    }
    errno = saved;
    chain(sig, si, uc);
}

void prof_ovl_touch(const void *p, size_t n)
{
    if (!n || !ALOAD(&prof_ovl_pending) ||
        (progress_started && pthread_equal(pthread_self(), progress_tid)))
        return;
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)(pagesz - 1);
    uintptr_t end = (uintptr_t)p + n < (uintptr_t)p ? UINTPTR_MAX
                                                    : (uintptr_t)p + n;
    __atomic_add_fetch(&in_handler, 1, __ATOMIC_SEQ_CST);
    uintptr_t lo, hi;
    op_t *o;
    while (a < end && (o = ovl_ivl_next(&ranges, a, &lo, &hi)) && lo < end) {
        uint64_t t0 = prof_now();
        if (a < lo)
            a = lo;
        for (; a < hi && a < end; a += pagesz) {
            note_touch(o, a, t0);
            open_page(o, (a - o->plo) / pagesz);
        }
        __atomic_add_fetch(&o->waited, prof_now() - t0, __ATOMIC_RELAXED);
    }
    __atomic_sub_fetch(&in_handler, 1, __ATOMIC_SEQ_CST);
}

/* ---------------------------------------------- progress thread -- */

static char token;   /* the waves' tokens carry nothing */

/* The waves' token from @p prev, or to @p next, on @p d into @p r; a post
 * that fails leaves @p r null, so that nobody waits on it. */
static int token_recv(int prev, MPI_Comm d, MPI_Request *r)
{
    int rc = PMPI_Irecv(&token, 0, MPI_BYTE, prev, WTAG, d, r);
    if (rc != MPI_SUCCESS)
        *r = MPI_REQUEST_NULL;
    return rc;
}

static int token_send(int next, MPI_Comm d, MPI_Request *r)
{
    int rc = PMPI_Isend(&token, 0, MPI_BYTE, next, WTAG, d, r);
    if (rc != MPI_SUCCESS)
        *r = MPI_REQUEST_NULL;
    return rc;
}

/* Under lock: post the token to the next rank of the chain. */
static void post_token(op_t *o)
{
    if (token_send(o->wnext, o->wcomm, &o->req[o->wtok]) != MPI_SUCCESS)
        o->left--;   /* the library failed: nothing more to wait for */
}

static void send_done(op_t *o)
{
    if (o->wtok >= 0 && --o->wsends == 0)
        post_token(o);
}

/* Under lock: the previous rank's token came; post the sends held. */
static void post_held(op_t *o)
{
    for (int h = 0; h < o->nheld; h++) {
        held_t *x = &o->held[h];
        if (PMPI_Isend(x->buf, x->count, o->wtype, x->peer, TAG, o->wcomm,
                       &o->req[x->slot]) != MPI_SUCCESS) {
            o->req[x->slot] = MPI_REQUEST_NULL;
            o->left--;
            send_done(o);
        }
    }
    o->nheld = 0;
}

/* Under lock: requests o->idx[0 .. @p outn) of @p o completed. */
static void completed(op_t *o, int outn)
{
    for (int k = 0; k < outn; k++) {
        int b = o->req_blk[o->idx[k]];
        if (b >= 0)
            ASTORE(&o->blk[b].done, 1);
        else if (b == RQ_TOKIN)
            post_held(o);
        else if (b == RQ_SEND)
            send_done(o);
    }
    o->left -= outn;
    if (!o->left) {
        o->t_done = prof_now();
        if (live == o)
            live = NULL;
    }
}

/* Whether a Testsome or Waitsome that returned @p rc completed @p outn
 * requests to be counted: on success, and when the error is in one of
 * their statuses (the others completed all the same: in waves, dropping
 * them would leave held sends and tokens unposted, and the chain waiting
 * for them). */
static int some_done(int rc, int outn)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS && PMPI_Error_class(rc, &cls) != MPI_SUCCESS)
        return 0;
    return (cls == MPI_SUCCESS || cls == MPI_ERR_IN_STATUS) && outn >= 0 &&
           outn != MPI_UNDEFINED;
}

static void *progress(void *arg)
{
    (void)arg;
    for (;;) {
        int got = 0;
        pthread_mutex_lock(&lock);
        if (stop) {
            pthread_mutex_unlock(&lock);
            break;
        }
        op_t *o = live;
        if (o && o->left) {
            int outn = 0;
            if (!some_done(PMPI_Testsome(o->nreq, o->req, &outn, o->idx,
                                         MPI_STATUSES_IGNORE), outn))
                outn = 0;
            completed(o, outn);
            got = 1;
        }
        pthread_mutex_unlock(&lock);
        if (!got) {
            struct timespec ts = { 0, 20000 };
            nanosleep(&ts, NULL);
        } else {
            sched_yield();
        }
    }
    return NULL;
}

static int start_progress(void)
{
    if (progress_started)
        return 0;
    if (pthread_create(&progress_tid, NULL, progress, NULL) != 0)
        return -1;
    progress_started = 1;
    return 0;
}

/* ------------------------------------------------- completion -- */

static void op_free(op_t *o)
{
    free(o->blk);
    free(o->req);
    free(o->req_blk);
    free(o->idx);
    free(o->stage);
    free(o->scopy);
    free(o->pstate);
    free(o->held);
    if (o->wtype != MPI_DATATYPE_NULL)
        PMPI_Type_free(&o->wtype);
    free(o);
}

/* Complete every request of @p o here (application thread): wait for
 * what the progress thread has not seen complete, under its lock, the
 * waves' held sends and token included (each completion may post them). */
static void wait_all(op_t *o)
{
    pthread_mutex_lock(&lock);
    while (o->left) {
        int outn = 0;
        if (!some_done(PMPI_Waitsome(o->nreq, o->req, &outn, o->idx,
                                     MPI_STATUSES_IGNORE), outn)) {
            o->left = 0;   /* nothing active: the library failed */
            o->t_done = prof_now();
            break;
        }
        completed(o, outn);
    }
    for (int k = 0; k < o->nblk; k++)
        ASTORE(&o->blk[k].done, 1);
    if (live == o)
        live = NULL;
    pthread_mutex_unlock(&lock);
}

/* Tracing, at the completion of @p o (no handler inside it any more):
 * each peer's place in its order of first touches into its site; those
 * never touched share the place after the last touched one. */
static void fold(op_t *o)
{
    trace_site_t *s = o->tsite;
    int untouched = ALOAD(&o->ntouch);
    for (int k = 0; k < o->nblk; k++) {
        int p = o->blk[k].peer, t = ALOAD(&o->blk[k].tpos);
        if (p != s->me && p >= 0 && p < s->n)
            s->sum[p] += (uint64_t)(t > 0 ? t - 1 : untouched);
    }
    s->calls++;
}

/* The seed's model (formula 3, ovl_tnbc_model) for @p o, a call left
 * pending whose completion point began at @p t_settle, in ns, from what
 * was measured (docs/overlays.md, "The seed's model"):
 *   T_init   its start to its return;
 *   T_comm   its start to the completion of its last sub-message;
 *   T_CURC   its return to the first fault that touched a received block,
 *            or to @p t_settle when none did;
 *   D_comm   the bytes it receives from other ranks;
 *   R_CRC    the bytes first touched by the faults before the latest one
 *            over the time from the first to the latest, less the time
 *            spent in the handler in between; INFINITY (only T_CURC
 *            overlaps) with fewer than two such faults. */
static uint64_t model_of(const op_t *o, uint64_t t_settle)
{
    double t_comm = o->t_done > o->t_call ? (double)(o->t_done - o->t_call)
                                          : 0;
    double t_init = (double)(o->t_ret - o->t_call);
    uint64_t first = o->t_first ? o->t_first : t_settle;
    double t_curc = first > o->t_ret ? (double)(first - o->t_ret) : 0;
    double r_crc = INFINITY;
    if (o->t_last > o->t_first) {
        uint64_t span = o->t_last - o->t_first, w = o->w_last - o->w_first;
        if (span > w)
            r_crc = (double)(o->touch_bytes - o->last_bytes) /
                    (double)(span - w);
    }
    return (uint64_t)(ovl_tnbc_model(t_comm, t_init, t_curc,
                                     (double)o->dcomm, r_crc) + 0.5);
}

/* Complete @p o, pending or being launched (not published), and free it:
 * under settle_mx, or before it is published. */
static void complete(op_t *o)
{
    uint64_t t0 = prof_now();
    wait_all(o);
    if (o->npages) {
        /* every page opened while the handler can still find them (a
         * thread other than this one may touch one meanwhile: it waits
         * for the page, never misses it); then no handler finds the call
         * any more: wait for those between their lookup and return */
        for (size_t p = 0; p < o->npages; p++)
            open_page(o, p);
        __atomic_add_fetch(&recent_gen, 1, __ATOMIC_SEQ_CST);
        __atomic_store_n(&recent_lo, o->plo, __ATOMIC_SEQ_CST);
        __atomic_store_n(&recent_hi, o->phi, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&recent_gen, 1, __ATOMIC_SEQ_CST);
        ovl_ivl_remove(&ranges, o->plo);
        while (__atomic_load_n(&in_handler, __ATOMIC_SEQ_CST))
            sched_yield();
    } else {
        fill(o, 0, UINTPTR_MAX);   /* nothing protected: all copied here */
    }
    uint64_t end = prof_now(), waited = o->waited + (end - t0);
    uint64_t span = o->t_ret && o->t_done > o->t_ret ? o->t_done - o->t_ret
                                                     : 0;
    uint64_t hid = span > waited ? span - waited : 0;
    st.hidden_ns += hid;
    if (o->t_ret)
        st.model_ns += model_of(o, t0);
    if (o->tsite) {
        fold(o);
        if (o->t_ret) {   /* left pending: its two times (trace_aside) */
            o->tsite->hidden_ns += hid;
            o->tsite->init_ns += o->t_ret - o->t_call;
            o->tsite->timed = 1;
        }
    }
    op_free(o);
}

void prof_ovl_settle(void)
{
    /* Never on the progress thread: it may reach a wrapper or a
     * trampoline from inside PMPI_Testsome (a callback of the MPI
     * library's progress), holding lock, which completing takes. */
    if (progress_started && pthread_equal(pthread_self(), progress_tid))
        return;
    pthread_mutex_lock(&settle_mx);
    op_t *o = cur;
    if (o) {
        complete(o);
        cur = NULL;
        /* only now: a thread that sees 0 finds every page open */
        __atomic_store_n(&prof_ovl_pending, 0, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&settle_mx);
}

/* --------------------------------------------------- the calls -- */

/* The private duplicate is the attribute's value itself, its handle's
 * bits in the pointer (an MPI_Comm is a pointer in Open MPI, an int in
 * MPICH): no allocation that could fail on one rank after the collective
 * PMPI_Comm_dup, leaving that rank on the PMPI collective while the
 * others post sub-messages on the duplicate. */
_Static_assert(sizeof(MPI_Comm) <= sizeof(void *),
               "an MPI_Comm handle fits in an attribute value");

static void *comm_val(MPI_Comm c)
{
    void *v = NULL;
    memcpy(&v, &c, sizeof c);
    return v;
}

static MPI_Comm val_comm(void *v)
{
    MPI_Comm c;
    memcpy(&c, &v, sizeof c);
    return c;
}

/* The attribute's delete callback: the private duplicate goes with the
 * communicator. */
static int on_delete(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void)comm;
    (void)kv;
    (void)extra;
    MPI_Comm dup = val_comm(val);
    /* a call pending on it may still have sends to post there (waves):
     * complete it first (MPI_Comm_free is no wrapper's completion point) */
    pthread_mutex_lock(&settle_mx);
    int mine = cur && cur->wcomm == dup;
    pthread_mutex_unlock(&settle_mx);
    if (mine)
        prof_ovl_settle();
    if (dup != MPI_COMM_NULL)
        PMPI_Comm_free(&dup);
    return MPI_SUCCESS;
}

/* The private duplicate of @p comm, made at its first call (collective:
 * every rank makes it in the same call); MPI_COMM_NULL when it cannot be
 * (a failure of the MPI library itself: PMPI_Comm_dup, or caching it). */
static MPI_Comm dup_of(MPI_Comm comm)
{
    void *val = NULL;
    int flag = 0;
    if (keyval == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, keyval, &val, &flag) != MPI_SUCCESS)
        return MPI_COMM_NULL;
    if (flag)
        return val_comm(val);
    MPI_Comm d = MPI_COMM_NULL;
    if (PMPI_Comm_dup(comm, &d) != MPI_SUCCESS)
        return MPI_COMM_NULL;
    if (PMPI_Comm_set_attr(comm, keyval, comm_val(d)) != MPI_SUCCESS) {
        PMPI_Comm_free(&d);
        return MPI_COMM_NULL;
    }
    ovl_waves_mark(d);   /* collective on d: every rank here */
    return d;
}

/* Contiguous: lb 0 and true lb 0, size == extent == true extent. */
static int contiguous(MPI_Datatype t, size_t *size)
{
    MPI_Aint lb, ext, tlb, text;
    int sz;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &sz) != MPI_SUCCESS ||
        PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(t, &tlb, &text) != MPI_SUCCESS)
        return 0;
    *size = (size_t)sz;
    return sz > 0 && lb == 0 && tlb == 0 && ext == sz && text == sz;
}

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb = 0, ext = 0;
    PMPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

/* Why a call on @p comm goes to PMPI unchanged (-1: it does not). */
static int uniform_pass(MPI_Comm comm, int in_place, int *n, int *me)
{
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return OVL_TP_INTER;
    if (in_place)
        return OVL_TP_IN_PLACE;
    PMPI_Comm_size(comm, n);
    PMPI_Comm_rank(comm, me);
    return *n > 1 ? -1 : OVL_TP_SIZE;
}

static int cmp_blk(const void *a, const void *b)
{
    /* by address, an empty block before a non-empty one at the same
     * address, so that the blocks' ends are ordered too (first_blk) */
    const blk_t *x = a, *y = b;
    if (x->user != y->user)
        return (x->user > y->user) - (x->user < y->user);
    return (x->len > y->len) - (x->len < y->len);
}

/* A new op with room for @p nblk blocks and @p nreq requests. */
static op_t *op_new(int nblk, int nreq)
{
    op_t *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->blk = calloc((size_t)(nblk ? nblk : 1), sizeof *o->blk);
    o->req = malloc((size_t)(nreq ? nreq : 1) * sizeof *o->req);
    o->req_blk = malloc((size_t)(nreq ? nreq : 1) * sizeof *o->req_blk);
    o->idx = malloc((size_t)(nreq > nblk ? nreq : nblk ? nblk : 1) *
                    sizeof *o->idx);
    o->wtype = MPI_DATATYPE_NULL;
    o->wtok = o->wnext = -1;
    if (!o->blk || !o->req || !o->req_blk || !o->idx) {
        op_free(o);
        return NULL;
    }
    return o;
}

/* Under settle_mx: make @p o, launched, the pending call (completing the
 * one another thread may have left there meanwhile). */
static void publish(op_t *o)
{
    if (cur)
        complete(cur);
    o->t_ret = prof_now();
    cur = o;
    __atomic_store_n(&prof_ovl_pending, 1, __ATOMIC_RELEASE);
}

/* Whether the blocks of @p o (sorted, disjoint) cover [a, b) whole. */
static int covered(const op_t *o, uintptr_t a, uintptr_t b)
{
    for (int k = first_blk(o, a); k < o->nblk && a < b; k++) {
        uintptr_t s = (uintptr_t)o->blk[k].user;
        if (!o->blk[k].len)
            continue;
        if (s > a)
            return 0;
        a = s + o->blk[k].len;
    }
    return a >= b;
}

/* The requests are posted: hand @p o to the progress thread, complete the
 * partial pages at the ends, protect the whole pages in between, and make
 * it the pending call.  Returns the reason it was completed instead
 * (OVL_TP_SMALL), or -1 when it is left pending. */
static int launch(op_t *o)
{
    o->left = o->nreq;
    /* sort the blocks by address, and the requests' block indices along */
    for (int k = 0; k < o->nblk; k++)
        o->blk[k].orig = k;
    qsort(o->blk, (size_t)o->nblk, sizeof *o->blk, cmp_blk);
    for (int k = 0; k < o->nblk; k++)
        o->idx[o->blk[k].orig] = k;   /* idx: free until the progress thread */
    for (int k = 0; k < o->nreq; k++)
        if (o->req_blk[k] >= 0)
            o->req_blk[k] = o->idx[o->req_blk[k]];
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int k = 0; k < o->nblk; k++) {
        blk_t *x = &o->blk[k];
        if (!x->len)
            continue;
        if ((uintptr_t)x->user < lo)
            lo = (uintptr_t)x->user;
        if ((uintptr_t)x->user + x->len > hi)
            hi = (uintptr_t)x->user + x->len;
    }
    uintptr_t plo = lo == UINTPTR_MAX ? 0 : (lo + pagesz - 1) & ~(pagesz - 1);
    uintptr_t phi = hi & ~(pagesz - 1);
    if (lo == UINTPTR_MAX && progress_started) {
        /* nothing to receive (a Bcast's root): the sends stay pending */
        pthread_mutex_lock(&lock);
        live = o;
        pthread_mutex_unlock(&lock);
        pthread_mutex_lock(&settle_mx);
        publish(o);
        pthread_mutex_unlock(&settle_mx);
        return -1;
    }
    if (lo == UINTPTR_MAX || plo >= phi || !progress_started) {
        complete(o);   /* no whole page: completed here */
        return OVL_TP_SMALL;
    }
    o->npages = (phi - plo) / pagesz;
    o->pstate = calloc(o->npages, 1);
    if (!o->pstate) {
        o->npages = 0;
        complete(o);
        return OVL_TP_FALLBACK;
    }
    o->plo = plo;
    o->phi = phi;
    pthread_mutex_lock(&lock);
    live = o;
    pthread_mutex_unlock(&lock);
    /* the partial pages at both ends, before anything is protected */
    if (lo < plo)
        fill(o, lo, plo);
    if (phi < hi)
        fill(o, phi, hi);
    /* Only pages every byte of which this call receives are protected: a
     * page with a gap between blocks may hold the program's other data,
     * such as the buffer of a request it posted before (valid MPI), which
     * the MPI library may read or write at any time, from any thread,
     * where no fault can be waited for.  Such pages are completed here
     * and stay open (state 2). */
    size_t nprot = 0;
    for (size_t p = 0; p < o->npages; p++) {
        uintptr_t a = plo + p * pagesz;
        if (covered(o, a, a + pagesz)) {
            nprot++;
            continue;
        }
        fill(o, a, a + pagesz);
        o->pstate[p] = 2;
    }
    if (!nprot) {
        memset(o->pstate, 2, o->npages);
        o->npages = 0;
        complete(o);
        return OVL_TP_SMALL;
    }
    pthread_mutex_lock(&settle_mx);
    int bad = ovl_ivl_add(&ranges, plo, phi, o) != 0;
    for (size_t p = 0; p < o->npages && !bad;) {
        size_t q = p;
        while (q < o->npages && o->pstate[q] == 0)
            q++;
        if (q > p && mprotect((void *)(plo + p * pagesz), (q - p) * pagesz,
                              PROT_NONE) != 0)
            bad = 1;
        for (p = q; p < o->npages && o->pstate[p] == 2; p++)
            ;
    }
    if (bad) {
        mprotect((void *)plo, phi - plo, PROT_READ | PROT_WRITE);
        ovl_ivl_remove(&ranges, plo);
        pthread_mutex_unlock(&settle_mx);
        while (__atomic_load_n(&in_handler, __ATOMIC_SEQ_CST))
            sched_yield();
        memset(o->pstate, 2, o->npages);
        wait_all(o);
        fill(o, plo, phi);
        o->npages = 0;
        complete(o);
        return OVL_TP_FALLBACK;
    }
    publish(o);
    pthread_mutex_unlock(&settle_mx);
    return -1;
}

/* Common entry: the completion point, the figures, the switch. */
static void enter(int what, uint64_t *t0)
{
    prof_ovl_settle();
    *t0 = prof_now();
    st.calls[what]++;
}

/* The call returns: its time, and its reason when it is not pending
 * (@p why >= 0; a call left pending noted its return when it was
 * published).  @p o is unused: a pending call may already be completed
 * by another thread here. */
static void leave(op_t *o, uint64_t t0, int why)
{
    (void)o;
    uint64_t now = prof_now();
    st.ns += now - t0;
    if (why >= 0)
        st.pass[why]++;
}

/* The start of a call: the completion point, the figures; the reason it
 * goes to the PMPI collective (>= 0), or -1 and its private duplicate in
 * *d, with the communicator's size and this rank's rank. */
static int begin_call(int what, MPI_Comm comm, int in_place, uint64_t *t0,
                      int *n, int *me, MPI_Comm *d)
{
    enter(what, t0);
    int why = uniform_pass(comm, in_place, n, me);
    *d = why >= 0 ? MPI_COMM_NULL : dup_of(comm);
    if (why < 0 && *d == MPI_COMM_NULL)
        why = OVL_TP_FALLBACK;
    return why;
}

/* The requests of @p o are posted: leave it pending (launch), or complete
 * it here when the progress thread cannot run. */
static int run(op_t *o, uint64_t t0)
{
    int why = start_progress() != 0 ? OVL_TP_FALLBACK : -1;
    o->t_call = t0;
    int w = launch(o);
    if (why < 0)
        why = w;
    else
        prof_ovl_settle();
    leave(NULL, t0, why);
    return MPI_SUCCESS;
}

/* One side of an exchange: block j is cnt_of(j) elements of @p type at
 * displacement dsp_of(j) (in extents): the program's arrays for Alltoallv,
 * else @p count elements at j * @p stride (Alltoall: stride = count;
 * Allgather's send side: stride 0, the same block to every rank).  No
 * arrays are built, so that nothing can fail between the call's start and
 * its sub-messages. */
typedef struct side {
    MPI_Datatype type;
    int count;
    MPI_Aint stride;
    const int *counts, *displs;   /* Alltoallv's, else NULL */
} side_t;

static int cnt_of(const side_t *s, int j)
{
    return s->counts ? s->counts[j] : s->count;
}

static MPI_Aint dsp_of(const side_t *s, int j)
{
    return s->counts ? (MPI_Aint)s->displs[j] : (MPI_Aint)j * s->stride;
}

/* Bytes of block j of @p s, whose type has @p size bytes (contiguous). */
static size_t len_of(const side_t *s, int j, size_t size)
{
    int c = cnt_of(s, j);
    return (size_t)(c > 0 ? c : 0) * size;
}

/* The i-th peer (0 <= i < n - 1) to post for: the traced priority order
 * when there is one (@p ord, ovl_trace.h), else rank order, @p me
 * skipped. */
static int peer_at(const int *ord, int i, int me)
{
    return ord ? ord[i] : i < me ? i : i + 1;
}

/* The blocking form of the same sub-messages, straight from and into the
 * program's buffers with its datatypes: for a rank that cannot run the
 * call non-blocking (its datatype, its memory) while the others do, so
 * that their sub-messages still match.  It allocates nothing it cannot do
 * without: in waves (@p w, this rank's chain) it posts its exchange with
 * the chain's own requests; otherwise, when even the 2n requests cannot
 * be had, it exchanges with one peer at a time (PMPI_Sendrecv in
 * increasing rank order; two such ranks never wait for each other in a
 * cycle: the pair (x, y) with the smallest x, then y, of the unfinished
 * ones is the next pair of both -- which holds only when no send is held
 * back, hence never in waves, ovl_waves.c). */
static int blocking(const void *sbuf, const side_t *ss, void *rbuf,
                    const side_t *rs, MPI_Comm d, int n, int me,
                    ovl_chain_t *w)
{
    MPI_Aint sext = extent_of(ss->type), rext = extent_of(rs->type);
#define SB(j) ((const char *)sbuf + dsp_of(ss, j) * sext)
#define RB(j) ((char *)rbuf + dsp_of(rs, j) * rext)
    /* waves: our token passed on at once, the previous rank's taken
     * before returning, so that the chain never waits on this rank */
    MPI_Request tok[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    if (w && w->prev >= 0)
        token_recv(w->prev, d, &tok[0]);
    if (w && w->next >= 0)
        token_send(w->next, d, &tok[1]);
    int rc = PMPI_Sendrecv(SB(me), cnt_of(ss, me), ss->type, 0, TAG, RB(me),
                           cnt_of(rs, me), rs->type, 0, TAG, MPI_COMM_SELF,
                           MPI_STATUS_IGNORE);
    MPI_Request *r = w ? w->req : malloc((size_t)(2 * n) * sizeof *r);
    int rc2 = MPI_SUCCESS, k = 0;
    if (r) {
        for (int j = 0; j < n; j++)
            if (j != me)
                PMPI_Irecv(RB(j), cnt_of(rs, j), rs->type, j, TAG, d, &r[k++]);
        for (int j = 0; j < n; j++)
            if (j != me)
                PMPI_Isend(SB(j), cnt_of(ss, j), ss->type, j, TAG, d, &r[k++]);
        rc2 = PMPI_Waitall(k, r, MPI_STATUSES_IGNORE);
        if (!w)
            free(r);
    } else {
        for (int j = 0; j < n; j++)
            if (j != me) {
                int e = PMPI_Sendrecv(SB(j), cnt_of(ss, j), ss->type, j, TAG,
                                      RB(j), cnt_of(rs, j), rs->type, j, TAG,
                                      d, MPI_STATUS_IGNORE);
                if (rc2 == MPI_SUCCESS)
                    rc2 = e;
            }
    }
#undef SB
#undef RB
    PMPI_Waitall(2, tok, MPI_STATUSES_IGNORE);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* Why a call runs blocking(): its site steps aside (@p aside), or its
 * datatypes are not contiguous (!@p ok), or memory failed. */
static int blocking_why(int ok, int aside)
{
    return aside ? OVL_TP_ASIDE : ok ? OVL_TP_FALLBACK : OVL_TP_DATATYPE;
}

/* Under waves, hold the sends of @p o (the send copy is made, they are
 * posted when the token comes): 1, or 0 when they cannot be held (memory,
 * a duplicate of @p type) and go at once, the token passed on as ever. */
static int hold(op_t *o, int n, MPI_Datatype type)
{
    o->held = malloc((size_t)(n - 1) * sizeof *o->held);
    if (!o->held || PMPI_Type_dup(type, &o->wtype) != MPI_SUCCESS) {
        free(o->held);
        o->held = NULL;
        o->wtype = MPI_DATATYPE_NULL;
        return 0;
    }
    return 1;
}

/* Alltoall and Alltoallv, after begin_call: every other rank's block
 * received into staging, ours sent from a copy, in the traced priority
 * order when there is one (ovl_tprio_site), and in waves when the
 * private duplicate @p d has a chain (ovl_waves.c). */
static int a2a(int what, const void *sbuf, const side_t *ss, void *rbuf,
               const side_t *rs, MPI_Comm d, int n, int me, uint64_t t0)
{
    ovl_chain_t *w = ovl_waves_chain(d);
    size_t ssz = 0, rsz = 0;
    int ok = contiguous(ss->type, &ssz) & contiguous(rs->type, &rsz);
    MPI_Aint sext = extent_of(ss->type), rext = extent_of(rs->type);
    trace_site_t *ts = NULL;
    int aside = 0;   /* its trace: the overlay costs more than it hides */
    const int *ord = ok ? ovl_tprio_site(what, n, me, &ts, &aside) : NULL;
    op_t *o = ok && !aside ? op_new(n, 2 * (n - 1) + 2) : NULL;
    int rc = MPI_SUCCESS;
    size_t stot = 0, rtot = 0;
    for (int j = 0; j < n; j++)
        if (j != me) {
            stot += len_of(ss, j, ssz);
            rtot += len_of(rs, j, rsz);
        }
    if (o) {
        o->scopy = malloc(stot ? stot : 1);
        o->stage = malloc(rtot ? rtot : 1);
    }
    if (!o || !o->scopy || !o->stage) {
        if (o)
            op_free(o);
        rc = blocking(sbuf, ss, rbuf, rs, d, n, me, w);
        leave(NULL, t0, blocking_why(ok, aside));
        return rc;
    }
    o->tsite = ts;
    /* waves: the previous rank's token awaited, the sends held for it */
    o->wcomm = d;
    size_t soff = 0, roff = 0;
    int k = 0, b = 0, held = 0;
    if (w) {
        st.waves++;
        st.wave_len = (uint64_t)w->len;
        if (w->prev >= 0) {
            held = hold(o, n, ss->type);
            o->req_blk[k] = RQ_TOKIN;
            rc = token_recv(w->prev, d, &o->req[k++]);
        }
        if (w->next >= 0) {
            o->wnext = w->next;
            o->wsends = n - 1;
        }
    }
    /* the receives, the send copy and the sends, then the own block */
    for (int i = 0; i < n - 1 && rc == MPI_SUCCESS; i++) {
        int j = peer_at(ord, i, me);
        size_t rl = len_of(rs, j, rsz);
        blk_t *x = &o->blk[b];
        x->user = (char *)rbuf + dsp_of(rs, j) * rext;
        x->len = rl;
        x->stage = o->stage + roff;
        x->peer = j;
        o->req_blk[k] = b;
        rc = PMPI_Irecv(x->stage, cnt_of(rs, j), rs->type, j, TAG, d,
                        &o->req[k]);
        roff += rl;
        st.bytes += rl;
        k++;
        b++;
    }
    for (int i = 0; i < n - 1 && rc == MPI_SUCCESS; i++) {
        int j = peer_at(ord, i, me);
        size_t sl = len_of(ss, j, ssz);
        memcpy(o->scopy + soff, (const char *)sbuf + dsp_of(ss, j) * sext, sl);
        o->req_blk[k] = RQ_SEND;
        if (held) {
            o->held[o->nheld++] = (held_t){ o->scopy + soff, cnt_of(ss, j), j,
                                            k };
            o->req[k] = MPI_REQUEST_NULL;
        } else {
            rc = PMPI_Isend(o->scopy + soff, cnt_of(ss, j), ss->type, j, TAG,
                            d, &o->req[k]);
        }
        soff += sl;
        k++;
    }
    if (o->wnext >= 0) {   /* posted once every send is complete */
        o->wtok = k;
        o->req_blk[k] = RQ_TOKOUT;
        o->req[k++] = MPI_REQUEST_NULL;
    }
    {
        size_t ml = len_of(ss, me, ssz), rl = len_of(rs, me, rsz);
        blk_t *x = &o->blk[b++];
        x->user = (char *)rbuf + dsp_of(rs, me) * rext;
        x->len = rl < ml ? rl : ml;
        x->stage = (char *)sbuf + dsp_of(ss, me) * sext;   /* not read later */
        x->peer = me;
        memcpy(x->user, x->stage, x->len);
        x->placed = 1;
        x->done = 1;
    }
    o->dcomm = rtot;
    o->nblk = b;
    o->nreq = k;
    if (rc != MPI_SUCCESS) {
        /* the library failed: what was posted completed, and the token
         * passed on all the same */
        PMPI_Waitall(k, o->req, MPI_STATUSES_IGNORE);
        if (o->wnext >= 0)
            PMPI_Send(&token, 0, MPI_BYTE, o->wnext, WTAG, d);
        op_free(o);
        leave(NULL, t0, OVL_TP_FALLBACK);
        return rc;
    }
    return run(o, t0);
}

/* The opening Alltoall and Alltoallv share: the completion point, the
 * figures, the PMPI collective when the call is passed through, else
 * a2a.  Nothing is allocated before the sub-messages' fallback is
 * possible. */
static int a2a_call(int what, const void *sbuf, const side_t *ss, void *rbuf,
                    const side_t *rs, MPI_Comm comm)
{
    uint64_t t0;
    int n = 0, me = 0;
    MPI_Comm d;
    int why = begin_call(what, comm, sbuf == MPI_IN_PLACE, &t0, &n, &me, &d);
    if (why < 0)
        return a2a(what, sbuf, ss, rbuf, rs, d, n, me, t0);
    int rc = ss->counts
        ? PMPI_Alltoallv(sbuf, ss->counts, ss->displs, ss->type, rbuf,
                         rs->counts, rs->displs, rs->type, comm)
        : PMPI_Alltoall(sbuf, ss->count, ss->type, rbuf, rs->count, rs->type,
                        comm);
    leave(NULL, t0, why);
    return rc;
}

int ovl_tnbc_alltoall(const void *sbuf, int scount, MPI_Datatype stype,
                      void *rbuf, int rcount, MPI_Datatype rtype,
                      MPI_Comm comm)
{
    side_t ss = { stype, scount, scount, NULL, NULL };
    side_t rs = { rtype, rcount, rcount, NULL, NULL };
    return a2a_call(OVL_T_ALLTOALL, sbuf, &ss, rbuf, &rs, comm);
}

int ovl_tnbc_alltoallv(const void *sbuf, const int *scounts,
                       const int *sdispls, MPI_Datatype stype, void *rbuf,
                       const int *rcounts, const int *rdispls,
                       MPI_Datatype rtype, MPI_Comm comm)
{
    side_t ss = { stype, 0, 0, scounts, sdispls };
    side_t rs = { rtype, 0, 0, rcounts, rdispls };
    return a2a_call(OVL_T_ALLTOALLV, sbuf, &ss, rbuf, &rs, comm);
}

int ovl_tnbc_allgather(const void *sbuf, int scount, MPI_Datatype stype,
                       void *rbuf, int rcount, MPI_Datatype rtype,
                       MPI_Comm comm)
{
    uint64_t t0;
    int n = 0, me = 0;
    MPI_Comm d;
    int why = begin_call(OVL_T_ALLGATHER, comm, sbuf == MPI_IN_PLACE, &t0, &n, &me, &d);
    if (why >= 0) {
        int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
        leave(NULL, t0, why);
        return rc;
    }
    size_t ssz = 0, rsz = 0;
    int ok = contiguous(stype, &ssz) & contiguous(rtype, &rsz);
    MPI_Aint rext = extent_of(rtype);
    size_t sl = (size_t)(scount > 0 ? scount : 0) * ssz;
    size_t rl = (size_t)(rcount > 0 ? rcount : 0) * rsz;
    trace_site_t *ts = NULL;
    int aside = 0;
    const int *ord = ok ? ovl_tprio_site(OVL_T_ALLGATHER, n, me, &ts, &aside)
                        : NULL;
    op_t *o = ok && !aside ? op_new(n, 2 * (n - 1)) : NULL;
    if (o) {
        o->scopy = malloc(sl ? sl : 1);
        o->stage = malloc(rl * (size_t)(n - 1) + 1);
    }
    if (!o || !o->scopy || !o->stage) {
        side_t ss = { stype, scount, 0, NULL, NULL };   /* one block, to all */
        side_t rs = { rtype, rcount, rcount, NULL, NULL };
        if (o)
            op_free(o);
        int rc = blocking(sbuf, &ss, rbuf, &rs, d, n, me, NULL);
        leave(NULL, t0, blocking_why(ok, aside));
        return rc;
    }
    o->tsite = ts;
    memcpy(o->scopy, sbuf, sl);
    int k = 0, b = 0, rc = MPI_SUCCESS;
    for (int i = 0; i < n - 1 && rc == MPI_SUCCESS; i++) {
        int j = peer_at(ord, i, me);
        blk_t *x = &o->blk[b];
        x->user = (char *)rbuf + (MPI_Aint)j * rcount * rext;
        x->len = rl;
        x->stage = o->stage + (size_t)b * rl;
        x->peer = j;
        o->req_blk[k] = b;
        rc = PMPI_Irecv(x->stage, rcount, rtype, j, TAG, d, &o->req[k++]);
        st.bytes += rl;
        b++;
    }
    for (int i = 0; i < n - 1 && rc == MPI_SUCCESS; i++) {
        int j = peer_at(ord, i, me);
        o->req_blk[k] = -1;
        rc = PMPI_Isend(o->scopy, scount, stype, j, TAG, d, &o->req[k++]);
    }
    blk_t *x = &o->blk[b++];
    x->user = (char *)rbuf + (MPI_Aint)me * rcount * rext;
    x->len = rl < sl ? rl : sl;
    x->stage = o->scopy;
    x->peer = me;
    memcpy(x->user, o->scopy, x->len);
    x->placed = x->done = 1;
    o->dcomm = (uint64_t)rl * (uint64_t)(n - 1);
    o->nblk = b;
    o->nreq = k;
    if (rc != MPI_SUCCESS) {
        PMPI_Waitall(k, o->req, MPI_STATUSES_IGNORE);
        op_free(o);
        leave(NULL, t0, OVL_TP_FALLBACK);
        return rc;
    }
    return run(o, t0);
}

/* Bcast: one PMPI_Ibcast on the private duplicate covering the whole
 * buffer: from a copy at the root (which has nothing pending after), into
 * staging elsewhere. */
int ovl_tnbc_bcast(void *buf, int count, MPI_Datatype type, int root,
                   MPI_Comm comm)
{
    uint64_t t0;
    int n = 0, me = 0;
    MPI_Comm d;
    int why = begin_call(OVL_T_BCAST, comm, 0, &t0, &n, &me, &d);
    if (why >= 0) {
        int rc = PMPI_Bcast(buf, count, type, root, comm);
        leave(NULL, t0, why);
        return rc;
    }
    size_t sz = 0;
    int ok = contiguous(type, &sz);
    size_t len = (size_t)(count > 0 ? count : 0) * sz;
    op_t *o = ok ? op_new(1, 1) : NULL;
    if (o)
        o->stage = malloc(len ? len : 1);
    if (!o || !o->stage) {
        if (o)
            op_free(o);
        MPI_Request r;
        int rc = PMPI_Ibcast(buf, count, type, root, d, &r);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Wait(&r, MPI_STATUS_IGNORE);
        leave(NULL, t0, ok ? OVL_TP_FALLBACK : OVL_TP_DATATYPE);
        return rc;
    }
    if (me == root)
        memcpy(o->stage, buf, len);
    int rc = PMPI_Ibcast(o->stage, count, type, root, d, &o->req[0]);
    o->nreq = 1;
    if (me == root) {
        o->nblk = 0;
        o->req_blk[0] = -1;
    } else {
        o->nblk = 1;
        o->blk[0].user = buf;
        o->blk[0].len = len;
        o->blk[0].stage = o->stage;
        o->req_blk[0] = 0;
        o->dcomm = len;
        st.bytes += len;
    }
    if (rc != MPI_SUCCESS) {
        op_free(o);
        leave(NULL, t0, OVL_TP_FALLBACK);
        return rc;
    }
    return run(o, t0);
}

/* ------------------------------------------- entry points, life -- */

int ovl_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                 int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!ovl_tnbc_on)
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    return ovl_tnbc_alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int ovl_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                  int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!ovl_tnbc_on)
        return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    return ovl_tnbc_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int ovl_bcast(void *buf, int count, MPI_Datatype type, int root,
              MPI_Comm comm)
{
    if (!ovl_tnbc_on)
        return PMPI_Bcast(buf, count, type, root, comm);
    return ovl_tnbc_bcast(buf, count, type, root, comm);
}

int ovl_tnbc_setup(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    pagesz = ps > 0 ? (size_t)ps : 4096;
    ovl_ivl_init(&ranges);
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &keyval,
                                NULL) != MPI_SUCCESS)
        return -1;
    int wr = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wr);
    ovl_tprio_start(wr);
    if (self_mem < 0) {
        self_pid = getpid();
        self_mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
    }
    if (!handler_set) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGSEGV, &sa, &prev_segv) != 0)
            return -1;
        handler_set = 1;
    }
    return 0;
}

void ovl_tnbc_teardown(void)
{
    prof_ovl_settle();
    if (progress_started) {
        pthread_mutex_lock(&lock);
        stop = 1;
        pthread_mutex_unlock(&lock);
        pthread_join(progress_tid, NULL);
        progress_started = 0;
    }
    ovl_tprio_finish();   /* local: each rank its own file */
    if (self_mem >= 0) {   /* nothing is protected any more */
        close(self_mem);
        self_mem = -1;
    }
    /* the duplicates go with their communicators' attributes: that of
     * MPI_COMM_WORLD here (only if it has one: deleting an absent
     * attribute is an error, fatal on MPI_COMM_WORLD); those of the
     * communicators the program did not free, with them at PMPI_Finalize */
    if (keyval != MPI_KEYVAL_INVALID) {
        void *val = NULL;
        int flag = 0;
        if (PMPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &val, &flag) ==
            MPI_SUCCESS && flag)
            PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
        PMPI_Comm_free_keyval(&keyval);
    }
    /* the handler stays: a late fault elsewhere still chains to the
     * previous one, and nothing is protected any more */
}

void ovl_tnbc_stats(ovl_tnbc_stats_t *out)
{
    *out = st;
    out->faults = __atomic_load_n(&st.faults, __ATOMIC_RELAXED);
}
