/*
 * ovl_ivl.c -- the tnbc overlay's protected ranges (ovl_ivl.h): a sorted
 * array under a sequence counter, read by binary search from the SIGSEGV
 * handler without a lock.
 */
#include "ovl_ivl.h"

#include <string.h>

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

void ovl_ivl_init(ovl_ivlset_t *s)
{
    memset(s, 0, sizeof *s);
}

/* The writer's brackets: the counter odd while the array changes. */
static void begin_write(ovl_ivlset_t *s)
{
    STORE(&s->seq, s->seq + 1);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void end_write(ovl_ivlset_t *s)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    STORE(&s->seq, s->seq + 1);
}

/* The first index whose range ends after @p addr (n if none). */
static unsigned first_after(const ovl_ivl_t *v, unsigned n, uintptr_t addr)
{
    unsigned a = 0, b = n;
    while (a < b) {
        unsigned m = a + (b - a) / 2;
        if (LOAD(&v[m].hi) <= addr)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

int ovl_ivl_add(ovl_ivlset_t *s, uintptr_t lo, uintptr_t hi, void *tag)
{
    unsigned n = s->n;
    if (lo >= hi || n >= OVL_IVL_MAX)
        return -1;
    unsigned i = first_after(s->v, n, lo);
    if (i < n && s->v[i].lo < hi)
        return -1;   /* overlaps v[i] */
    begin_write(s);
    for (unsigned k = n; k > i; k--) {
        STORE(&s->v[k].lo, s->v[k - 1].lo);
        STORE(&s->v[k].hi, s->v[k - 1].hi);
        STORE(&s->v[k].tag, s->v[k - 1].tag);
    }
    STORE(&s->v[i].lo, lo);
    STORE(&s->v[i].hi, hi);
    STORE(&s->v[i].tag, tag);
    STORE(&s->n, n + 1);
    end_write(s);
    return 0;
}

int ovl_ivl_remove(ovl_ivlset_t *s, uintptr_t lo)
{
    unsigned n = s->n, i = first_after(s->v, n, lo);
    if (i >= n || s->v[i].lo != lo)
        return -1;
    begin_write(s);
    for (unsigned k = i; k + 1 < n; k++) {
        STORE(&s->v[k].lo, s->v[k + 1].lo);
        STORE(&s->v[k].hi, s->v[k + 1].hi);
        STORE(&s->v[k].tag, s->v[k + 1].tag);
    }
    STORE(&s->n, n - 1);
    end_write(s);
    return 0;
}

/* The range of @p s that holds @p addr, or the first one after it when
 * @p next (lookup), read under the sequence counter. */
static void *lookup(const ovl_ivlset_t *s, uintptr_t addr, int next,
                    uintptr_t *lo, uintptr_t *hi)
{
    for (;;) {
        unsigned q = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
        if (q & 1)
            continue;   /* the writer is at work on another thread */
        unsigned n = LOAD(&s->n);
        if (n > OVL_IVL_MAX)
            n = OVL_IVL_MAX;
        unsigned i = first_after(s->v, n, addr);
        uintptr_t a = 0, b = 0;
        void *tag = NULL;
        if (i < n) {
            a = LOAD(&s->v[i].lo);
            b = LOAD(&s->v[i].hi);
            tag = LOAD(&s->v[i].tag);
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != q)
            continue;
        if (!tag || (!next && addr < a) || addr >= b)
            return NULL;
        if (lo)
            *lo = a;
        if (hi)
            *hi = b;
        return tag;
    }
}

void *ovl_ivl_find(const ovl_ivlset_t *s, uintptr_t addr, uintptr_t *lo,
                   uintptr_t *hi)
{
    return lookup(s, addr, 0, lo, hi);
}

void *ovl_ivl_next(const ovl_ivlset_t *s, uintptr_t addr, uintptr_t *lo,
                   uintptr_t *hi)
{
    return lookup(s, addr, 1, lo, hi);
}
