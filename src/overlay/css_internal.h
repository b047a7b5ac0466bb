/*
 * css_internal.h -- what the CSS schedule files share: the schedule's
 * layout and the helpers the constructions fill it with.  Not installed.
 */
#ifndef CM_CSS_INTERNAL_H
#define CM_CSS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "css_schedule.h"

struct cm_css_sched {
    int nsend, nrecv;
    int nsteps;            /* steps in use */
    int cap;               /* steps allocated in peer / source */
    cm_css_method_t method;
    int32_t *peer;         /* [cap][nsend]: receiver or -1 */
    int32_t *source;       /* [cap][nrecv]: sender or -1 */
    uint64_t *size;        /* [nsend][nrecv] */
    int has_period;
    cm_css_period_t period;
};

/** A new schedule of @p nsend x @p nrecv with a zeroed size table and no
 *  step; the dimensions are checked against the limits. */
cm_css_sched_t *cm_css_sched_alloc(int nsend, int nrecv, cm_error_t *err);

/** Make room for @p cap steps, all idle (replaces any previous steps).  The
 *  step tables are bounded by CM_CSS_MAX_CELLS cells each as well. */
int cm_css_sched_reserve(cm_css_sched_t *s, int cap, cm_error_t *err);

/** Put the pair (@p u, @p v) into step @p step (< cap); -1 when @p u or @p v
 *  is already busy in that step (a bug of the caller: nothing is changed).
 *  nsteps grows to cover @p step. */
int cm_css_sched_put(cm_css_sched_t *s, int step, int u, int v);

/** Drop the steps that hold no pair, keeping the order of the others. */
void cm_css_sched_compact(cm_css_sched_t *s);

/** Merge steps that fit together (no sender and no receiver in both), the
 *  heaviest steps first: fewer steps and a smaller sum of step maxima, never
 *  more.  Skipped beyond a work budget. */
void cm_css_sched_merge(cm_css_sched_t *s);

/** The sum over steps of the largest size in the step (the bandwidth term
 *  of the cost model). */
uint64_t cm_css_sched_summax(const cm_css_sched_t *s);

/** Check that every pair with a non-zero size (off the diagonal when
 *  @p skip_diag) is in exactly one step, and no other pair is; the
 *  constructions call it last, so that a bug shows as an error, not as a
 *  schedule that loses data. */
int cm_css_sched_verify(const cm_css_sched_t *s, int skip_diag, cm_error_t *err);

/** a * b into *out unless it overflows (then -1). */
int cm_css_mul_u64(uint64_t a, uint64_t b, uint64_t *out);

uint64_t cm_css_gcd(uint64_t a, uint64_t b);

/** The colouring of css_general.c over the pairs of @p s with a non-zero
 *  size (off the diagonal when @p skip_diag), steps = the maximum degree. */
int cm_css_colour(cm_css_sched_t *s, int skip_diag, cm_error_t *err);

/** cm_css_colour(), then the steps balanced per node (css_general.c's node
 *  pass) when @p idx is not NULL: @p idx[r] the node (0 .. @p nn - 1) of
 *  rank r, for a square schedule. */
int cm_css_colour_nodes(cm_css_sched_t *s, int skip_diag, const int32_t *idx, int nn,
                        cm_error_t *err);

/** Node indices from labels (css_nodes.c): @p idx[r] in 0 .. N - 1, equal
 *  for equal labels, numbered in increasing label order (so the same on
 *  every rank that has the same labels); returns N, or -1 out of memory.
 *  @p label NULL: one node per rank. */
int cm_css_node_index(int n, const uint64_t *label, int32_t *idx);

/** The checks of the cost model's arguments (css_sched.c). */
int cm_css_check_model(double latency, double bandwidth, double *cost, cm_error_t *err);

/** Improve the steps of @p s in place by css_general.c's exchanges of
 *  alternating paths between pairs of steps (never more steps, never a
 *  larger sum of step maxima). */
int cm_css_improve(cm_css_sched_t *s, int skip_diag, cm_error_t *err);

/** The classic ordering's steps with data and sum of step maxima over the
 *  sizes of @p s, without building it. */
void cm_css_classic_metrics(const cm_css_sched_t *s, int skip_diag, uint64_t *steps,
                         uint64_t *sum);

/** The classic ordering as a schedule: with n = max(nsend, nrecv), step k
 *  holds the pairs (u, (u + k) mod n) that carry data. */
int cm_css_sched_classic_steps(cm_css_sched_t *s, int skip_diag, cm_error_t *err);

/** The communication table of the redistribution @p r (css_redist.c) into
 *  @p size (src_procs x dst_procs, row-major, in elements; overwritten), as
 *  cm_css_sched_redistribution() counts it, without a schedule.  *runs is
 *  set to the estimated number of runs of contiguous elements to walk;
 *  more than @p max_runs (or than the limit of cm_css_sched_redistribution)
 *  fails without counting, so that a caller can budget its work.  Returns
 *  0, or -1 on a bad parameter or over the limit. */
int cm_css_redist_table(const cm_css_redist_t *r, uint64_t *size, double max_runs,
                        double *runs, cm_error_t *err);

#endif /* CM_CSS_INTERNAL_H */
