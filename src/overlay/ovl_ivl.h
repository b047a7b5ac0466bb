/*
 * ovl_ivl.h -- the tnbc overlay's protected ranges (docs/overlays.md,
 * "The tnbc overlay"): a small set of disjoint address intervals, sorted,
 * each with a tag, that the SIGSEGV handler searches for the faulting
 * address.
 *
 * Rules: only one thread changes a set (the application thread, outside
 * the handler: at a tnbc call and at a completion point), and never from a
 * signal handler.  Readers (the handler, on any thread) never block and
 * never allocate: a set is one fixed array under a sequence counter (odd
 * while it is being changed); ovl_ivl_find retries while the counter is
 * odd or moved during its read.  The writer never waits for a reader, so a
 * handler interrupting the writer on another thread only spins until the
 * writer is done; the writer's own thread never faults inside the set
 * (the set is never in protected memory).
 *
 * Plain C, no MPI: also linked into test/unit/test_ovl_ivl.c.
 */
#ifndef CM_OVL_IVL_H
#define CM_OVL_IVL_H

#include <stddef.h>
#include <stdint.h>

#include "ovl_text.h"

/* Capacity of a set: more ranges than this are refused (the caller then
 * completes that range before returning, unprotected). */
#define OVL_IVL_MAX 64

typedef struct ovl_ivl {
    uintptr_t lo, hi;   /* [lo, hi), lo < hi */
    void *tag;
} ovl_ivl_t;

typedef struct ovl_ivlset {
    unsigned seq;               /* even: stable; odd: being changed */
    unsigned n;                 /* ranges in v */
    ovl_ivl_t v[OVL_IVL_MAX];   /* sorted by lo, disjoint */
} ovl_ivlset_t;

/* An empty set (a zeroed one is empty too). */
OVL_HIDDEN void ovl_ivl_init(ovl_ivlset_t *s);

/* Add [lo, hi) with @p tag.  0 on success; -1 when lo >= hi, when it
 * overlaps a range of the set, or when the set is full. */
OVL_HIDDEN int ovl_ivl_add(ovl_ivlset_t *s, uintptr_t lo, uintptr_t hi,
                           void *tag);

/* Remove the range that starts at @p lo; 0, or -1 when there is none. */
OVL_HIDDEN int ovl_ivl_remove(ovl_ivlset_t *s, uintptr_t lo);

/* The tag of the range holding @p addr (and its bounds in *lo, *hi when
 * not NULL), or NULL.  Async-signal-safe: binary search, no lock, no
 * allocation. */
OVL_HIDDEN void *ovl_ivl_find(const ovl_ivlset_t *s, uintptr_t addr,
                              uintptr_t *lo, uintptr_t *hi);

/* The tag of the range holding @p addr or, if none does, of the first
 * range above it (its bounds in *lo, *hi when not NULL), or NULL when no
 * range ends above @p addr: how a span of memory finds the ranges it
 * meets without visiting each of its pages.  Async-signal-safe, as
 * ovl_ivl_find. */
OVL_HIDDEN void *ovl_ivl_next(const ovl_ivlset_t *s, uintptr_t addr,
                              uintptr_t *lo, uintptr_t *hi);

#endif /* CM_OVL_IVL_H */
