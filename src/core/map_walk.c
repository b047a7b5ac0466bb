/* map_walk.c -- the top-down walk of the machine tree that the
 * multisection and the spanning-tree placement share (cm_walk in
 * engine_internal.h), on one thread or several.
 *
 * Both placements split the ranks a tree vertex received among its
 * children, then handle every child the same way.  Once split, the
 * children's subtrees are independent: each works on its own part of the
 * rank array and writes only its own ranks' entries of the mapping, and
 * every random choice below a vertex is seeded from that vertex
 * (map_multisection.c), not drawn from a shared sequence.  So the subtrees
 * may run in any order, or at once, and give the same mapping: the thread
 * count changes the wall time only.  What they share besides read-only
 * data is the work count, which is added atomically (cm_budget_add), and
 * addition does not care about order.
 *
 * With more than one thread, a child whose share is large enough to be
 * worth a hand-over (WALK_GRAIN ranks) goes onto a stack that every
 * worker takes from, the caller's thread being one of them; smaller ones
 * are handled at once by the worker that split their parent, so the
 * stack's lock is taken a few thousand times at most even at 10^6 ranks.
 * Last in, first out: a worker goes deep before it goes wide, which keeps
 * the number of open splits, and their memory, small. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

/* Children with fewer ranks are not handed over: below this, a split costs
 * less than a wake-up of another thread (measured on stencils: a few
 * hundred microseconds per thousand ranks). */
#define WALK_GRAIN 512

int cm_walk_threads(int threads, int n)
{
    if (threads > CM_WALK_MAX_THREADS)
        threads = CM_WALK_MAX_THREADS;
    return threads > 1 && n >= 2 * WALK_GRAIN ? threads : 1;
}

typedef struct walk_task {
    int v;
    int *ranks;
    int count;
    void *data;
} walk_task_t;

struct cm_walk {
    cm_walk_fn fn;
    int threads;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    walk_task_t *stack;
    int depth, cap;
    int active;          /* workers inside fn */
    int failed;          /* a task failed: take no more */
    cm_error_t first;    /* its message */
};

int cm_walk_child(cm_walk_t *w, void *scratch, int v, int *ranks, int count,
                  void *data, cm_error_t *err)
{
    if (w->threads <= 1 || count < WALK_GRAIN)
        return w->fn(w, scratch, v, ranks, count, data, err);
    pthread_mutex_lock(&w->lock);
    if (w->depth == w->cap) {
        int cap = w->cap ? 2 * w->cap : 64;
        walk_task_t *s = realloc(w->stack, sizeof *s * (size_t)cap);
        if (!s) {
            pthread_mutex_unlock(&w->lock);
            /* No room to hand it over: do it here, same result. */
            return w->fn(w, scratch, v, ranks, count, data, err);
        }
        w->stack = s;
        w->cap = cap;
    }
    w->stack[w->depth++] = (walk_task_t){v, ranks, count, data};
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    return 0;
}

typedef struct worker {
    cm_walk_t *w;
    void *scratch;
    cm_error_t err;
} worker_t;

/* Take tasks until the stack is empty and no worker can push another, or a
 * task failed. */
static void *work(void *arg)
{
    worker_t *k = arg;
    cm_walk_t *w = k->w;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->depth == 0 && w->active > 0 && !w->failed)
            pthread_cond_wait(&w->wake, &w->lock);
        if (w->failed || w->depth == 0)
            break;
        walk_task_t t = w->stack[--w->depth];
        w->active++;
        pthread_mutex_unlock(&w->lock);
        int rc = w->fn(w, k->scratch, t.v, t.ranks, t.count, t.data, &k->err);
        pthread_mutex_lock(&w->lock);
        w->active--;
        if (rc < 0 && !w->failed) {
            w->failed = 1;
            w->first = k->err;
        }
        if (w->failed || (w->depth == 0 && w->active == 0))
            pthread_cond_broadcast(&w->wake);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int cm_walk(int threads, cm_walk_fn fn, void *const *scratch, int root,
            int *ranks, int count, cm_error_t *err)
{
    cm_walk_t w;
    memset(&w, 0, sizeof w);
    w.fn = fn;
    w.threads = threads > 1 ? threads : 1;
    if (w.threads == 1)
        return fn(&w, scratch[0], root, ranks, count, NULL, err);

    worker_t *k = calloc((size_t)w.threads, sizeof *k);
    pthread_t *tid = calloc((size_t)w.threads, sizeof *tid);
    if (!k || !tid) {
        free(k);
        free(tid);
        w.threads = 1;   /* the same mapping, on this thread */
        return fn(&w, scratch[0], root, ranks, count, NULL, err);
    }
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.wake, NULL);
    w.stack = NULL;
    /* The root is the first task; the caller's thread is worker 0. */
    w.stack = malloc(sizeof *w.stack * 64);
    int rc = 0;
    if (!w.stack) {
        w.threads = 1;
        rc = fn(&w, scratch[0], root, ranks, count, NULL, err);
        goto out;
    }
    w.cap = 64;
    w.stack[w.depth++] = (walk_task_t){root, ranks, count, NULL};
    int started = 1;
    for (int i = 0; i < w.threads; i++) {
        k[i].w = &w;
        k[i].scratch = scratch[i];
    }
    /* A thread that cannot be created only leaves its share to the others. */
    for (int i = 1; i < w.threads; i++)
        if (pthread_create(&tid[i], NULL, work, &k[i]) == 0)
            tid[started++] = tid[i];
    work(&k[0]);
    for (int i = 1; i < started; i++)
        pthread_join(tid[i], NULL);
    if (w.failed) {
        if (err)
            *err = w.first;
        rc = -1;
    }
out:
    while (w.depth > 0)   /* left by a failure: never run */
        free(w.stack[--w.depth].data);
    pthread_mutex_destroy(&w.lock);
    pthread_cond_destroy(&w.wake);
    free(w.stack);
    free(k);
    free(tid);
    return rc;
}
