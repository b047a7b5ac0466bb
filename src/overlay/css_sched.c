/*
 * css_sched.c -- the CSS schedule object: its tables, the accessors an
 * overlay runs the steps with, and the cost model that compares a schedule
 * with the classic (i + k) mod n ordering.
 *
 * The step tables are dense ([step][sender] and [step][receiver]) so that
 * the overlay's lookups are O(1); their size is bounded like the size table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "css_internal.h"

int cm_css_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}

uint64_t cm_css_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

cm_css_sched_t *cm_css_sched_alloc(int nsend, int nrecv, cm_error_t *err)
{
    if (nsend < 1 || nsend > CM_CSS_MAX_PROCS || nrecv < 1 || nrecv > CM_CSS_MAX_PROCS) {
        cm_error_set(err, "css: %d senders and %d receivers: each must be 1 to %d",
                     nsend, nrecv, CM_CSS_MAX_PROCS);
        return NULL;
    }
    if ((uint64_t)nsend * (uint64_t)nrecv > CM_CSS_MAX_CELLS) {
        cm_error_set(err, "css: %d x %d pairs: more than the %d a schedule may hold",
                     nsend, nrecv, CM_CSS_MAX_CELLS);
        return NULL;
    }
    cm_css_sched_t *s = calloc(1, sizeof *s);
    if (!s || !(s->size = calloc((size_t)nsend * (size_t)nrecv, sizeof *s->size))) {
        free(s);
        cm_error_set(err, "css: out of memory for a %d x %d table", nsend, nrecv);
        return NULL;
    }
    s->nsend = nsend;
    s->nrecv = nrecv;
    return s;
}

int cm_css_sched_reserve(cm_css_sched_t *s, int cap, cm_error_t *err)
{
    uint64_t cells = (uint64_t)(cap > 0 ? cap : 0) * (uint64_t)(s->nsend > s->nrecv ? s->nsend
                                                                                    : s->nrecv);
    if (cap < 0 || cells > CM_CSS_MAX_CELLS)
        return cm_error_set(err, "css: %d steps over %d x %d pairs: more than %d cells",
                            cap, s->nsend, s->nrecv, CM_CSS_MAX_CELLS);
    free(s->peer);
    free(s->source);
    s->peer = s->source = NULL;
    s->nsteps = s->cap = 0;
    if (cap == 0)
        return 0;
    s->peer = malloc((size_t)cap * (size_t)s->nsend * sizeof *s->peer);
    s->source = malloc((size_t)cap * (size_t)s->nrecv * sizeof *s->source);
    if (!s->peer || !s->source) {
        free(s->peer);
        free(s->source);
        s->peer = s->source = NULL;
        return cm_error_set(err, "css: out of memory for %d steps", cap);
    }
    /* all bits set is -1 in two's complement int32_t */
    memset(s->peer, 0xff, (size_t)cap * (size_t)s->nsend * sizeof *s->peer);
    memset(s->source, 0xff, (size_t)cap * (size_t)s->nrecv * sizeof *s->source);
    s->cap = cap;
    return 0;
}

int cm_css_sched_put(cm_css_sched_t *s, int step, int u, int v)
{
    int32_t *p = &s->peer[(size_t)step * (size_t)s->nsend + (size_t)u];
    int32_t *q = &s->source[(size_t)step * (size_t)s->nrecv + (size_t)v];
    if (*p >= 0 || *q >= 0)
        return -1;
    *p = v;
    *q = u;
    if (step >= s->nsteps)
        s->nsteps = step + 1;
    return 0;
}

void cm_css_sched_compact(cm_css_sched_t *s)
{
    int out = 0;
    for (int k = 0; k < s->nsteps; k++) {
        const int32_t *p = &s->peer[(size_t)k * (size_t)s->nsend];
        int used = 0;
        for (int u = 0; u < s->nsend && !used; u++)
            used = p[u] >= 0;
        if (!used)
            continue;
        if (out != k) {
            memcpy(&s->peer[(size_t)out * (size_t)s->nsend], p,
                   (size_t)s->nsend * sizeof *s->peer);
            memcpy(&s->source[(size_t)out * (size_t)s->nrecv],
                   &s->source[(size_t)k * (size_t)s->nrecv], (size_t)s->nrecv * sizeof *s->source);
        }
        out++;
    }
    s->nsteps = out;
}

int cm_css_sched_verify(const cm_css_sched_t *s, int skip_diag, cm_error_t *err)
{
    size_t cells = (size_t)s->nsend * (size_t)s->nrecv;
    unsigned char *seen = calloc(cells ? cells : 1, 1);
    if (!seen)
        return cm_error_set(err, "css: out of memory checking a schedule");
    int rc = 0;
    for (int k = 0; k < s->nsteps && rc == 0; k++) {
        for (int u = 0; u < s->nsend && rc == 0; u++) {
            int v = s->peer[(size_t)k * (size_t)s->nsend + (size_t)u];
            if (v < 0)
                continue;
            size_t c = (size_t)u * (size_t)s->nrecv + (size_t)v;
            if (v >= s->nrecv || s->source[(size_t)k * (size_t)s->nrecv + (size_t)v] != u ||
                seen[c] || s->size[c] == 0 || (skip_diag && u == v))
                rc = cm_error_set(err, "css: internal error: step %d, pair %d -> %d", k, u, v);
            seen[c] = 1;
        }
    }
    for (size_t c = 0; c < cells && rc == 0; c++) {
        int u = (int)(c / (size_t)s->nrecv), v = (int)(c % (size_t)s->nrecv);
        if (s->size[c] && !seen[c] && !(skip_diag && u == v))
            rc = cm_error_set(err, "css: internal error: pair %d -> %d not scheduled", u, v);
    }
    free(seen);
    return rc;
}

void cm_css_sched_free(cm_css_sched_t *s)
{
    if (!s)
        return;
    free(s->peer);
    free(s->source);
    free(s->size);
    free(s);
}

int cm_css_sched_nsteps(const cm_css_sched_t *s)
{
    return s ? s->nsteps : -1;
}

int cm_css_sched_nsenders(const cm_css_sched_t *s)
{
    return s ? s->nsend : -1;
}

int cm_css_sched_nreceivers(const cm_css_sched_t *s)
{
    return s ? s->nrecv : -1;
}

cm_css_method_t cm_css_sched_method(const cm_css_sched_t *s)
{
    return s ? s->method : (cm_css_method_t)0;
}

int cm_css_sched_peer(const cm_css_sched_t *s, int step, int sender)
{
    if (!s || step < 0 || step >= s->nsteps || sender < 0 || sender >= s->nsend)
        return -1;
    return s->peer[(size_t)step * (size_t)s->nsend + (size_t)sender];
}

int cm_css_sched_source(const cm_css_sched_t *s, int step, int receiver)
{
    if (!s || step < 0 || step >= s->nsteps || receiver < 0 || receiver >= s->nrecv)
        return -1;
    return s->source[(size_t)step * (size_t)s->nrecv + (size_t)receiver];
}

uint64_t cm_css_sched_size(const cm_css_sched_t *s, int sender, int receiver)
{
    if (!s || sender < 0 || sender >= s->nsend || receiver < 0 || receiver >= s->nrecv)
        return 0;
    return s->size[(size_t)sender * (size_t)s->nrecv + (size_t)receiver];
}

int cm_css_sched_step_of(const cm_css_sched_t *s, int sender, int receiver)
{
    if (!s || sender < 0 || sender >= s->nsend || receiver < 0 || receiver >= s->nrecv)
        return -1;
    for (int k = 0; k < s->nsteps; k++)
        if (s->peer[(size_t)k * (size_t)s->nsend + (size_t)sender] == receiver)
            return k;
    return -1;
}

int cm_css_sched_period(const cm_css_sched_t *s, cm_css_period_t *out)
{
    if (!s || !s->has_period || !out)
        return -1;
    *out = s->period;
    return 0;
}

int cm_css_check_model(double latency, double bandwidth, double *cost, cm_error_t *err)
{
    if (!cost)
        return cm_error_set(err, "css cost: no place for the result");
    if (!isfinite(latency) || latency < 0)
        return cm_error_set(err, "css cost: latency %g: expected a finite value >= 0", latency);
    if (!isfinite(bandwidth) || bandwidth <= 0)
        return cm_error_set(err, "css cost: bandwidth %g: expected a finite value > 0",
                            bandwidth);
    return 0;
}

int cm_css_sched_cost(const cm_css_sched_t *s, const uint64_t *bytes, double latency,
                      double bandwidth, double *cost, cm_error_t *err)
{
    if (!s)
        return cm_error_set(err, "css cost: no schedule");
    if (cm_css_check_model(latency, bandwidth, cost, err))
        return -1;
    const uint64_t *b = bytes ? bytes : s->size;
    double t = 0;
    for (int k = 0; k < s->nsteps; k++) {
        uint64_t top = 0;
        for (int u = 0; u < s->nsend; u++) {
            int v = s->peer[(size_t)k * (size_t)s->nsend + (size_t)u];
            if (v >= 0 && b[(size_t)u * (size_t)s->nrecv + (size_t)v] > top)
                top = b[(size_t)u * (size_t)s->nrecv + (size_t)v];
        }
        t += latency + (double)top / bandwidth;
    }
    *cost = t;
    return 0;
}

int cm_css_classic_cost(int nsend, int nrecv, const uint64_t *bytes, int local_diag,
                        double latency, double bandwidth, double *cost, cm_error_t *err)
{
    if (nsend < 1 || nsend > CM_CSS_MAX_PROCS || nrecv < 1 || nrecv > CM_CSS_MAX_PROCS ||
        (uint64_t)nsend * (uint64_t)nrecv > CM_CSS_MAX_CELLS)
        return cm_error_set(err, "css classic cost: %d x %d: each side 1 to %d, at most %d "
                            "pairs", nsend, nrecv, CM_CSS_MAX_PROCS, CM_CSS_MAX_CELLS);
    if (!bytes)
        return cm_error_set(err, "css classic cost: no byte table");
    if (cm_css_check_model(latency, bandwidth, cost, err))
        return -1;
    int n = nsend > nrecv ? nsend : nrecv;
    double t = 0;
    for (int k = 0; k < n; k++) {
        uint64_t top = 0;
        for (int i = 0; i < nsend; i++) {
            int j = (int)(((int64_t)i + k) % n);
            if (j >= nrecv || (local_diag && i == j))
                continue;
            if (bytes[(size_t)i * (size_t)nrecv + (size_t)j] > top)
                top = bytes[(size_t)i * (size_t)nrecv + (size_t)j];
        }
        if (top)
            t += latency + (double)top / bandwidth;
    }
    *cost = t;
    return 0;
}

int cm_css_nearly_uniform(int n, const uint64_t *bytes)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint64_t w = bytes[(size_t)i * (size_t)n + (size_t)j];
            if (i == j)
                continue;
            lo = w < lo ? w : lo;
            hi = w > hi ? w : hi;
        }
    if (hi == 0)
        return 1;   /* nothing to send (or n = 1) */
    /* integers only: every rank decides the same (the overlay relies on it) */
    return lo > 0 && hi - lo <= lo / CM_CSS_UNIFORM_TOL;
}

static uint64_t step_max(const cm_css_sched_t *s, int k)
{
    uint64_t top = 0;
    for (int u = 0; u < s->nsend; u++) {
        int v = s->peer[(size_t)k * (size_t)s->nsend + (size_t)u];
        if (v >= 0 && s->size[(size_t)u * (size_t)s->nrecv + (size_t)v] > top)
            top = s->size[(size_t)u * (size_t)s->nrecv + (size_t)v];
    }
    return top;
}

uint64_t cm_css_sched_summax(const cm_css_sched_t *s)
{
    uint64_t sum = 0;
    for (int k = 0; k < s->nsteps; k++)
        sum += step_max(s, k);        /* <= the total of the table: no overflow */
    return sum;
}

/* Work of cm_css_sched_merge in rank visits: well under a second. */
#define MERGE_BUDGET (UINT64_C(1) << 27)

void cm_css_sched_merge(cm_css_sched_t *s)
{
    uint64_t width = (uint64_t)s->nsend + (uint64_t)s->nrecv;
    if (s->nsteps < 2 || (uint64_t)s->nsteps * (uint64_t)s->nsteps * width > MERGE_BUDGET)
        return;
    /* Steps by decreasing maximum (selection; at most a few thousand). */
    int n = s->nsteps;
    int32_t *order = malloc((size_t)n * sizeof *order);
    uint64_t *top = malloc((size_t)n * sizeof *top);
    if (!order || !top) {               /* an optimisation only: skip it */
        free(order);
        free(top);
        return;
    }
    for (int k = 0; k < n; k++) {
        order[k] = k;
        top[k] = step_max(s, k);
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (top[order[b]] > top[order[a]] ||
                (top[order[b]] == top[order[a]] && order[b] < order[a])) {
                int32_t t = order[a];
                order[a] = order[b];
                order[b] = t;
            }
    /* Move each step's pairs into the first heavier step they all fit in. */
    for (int b = 1; b < n; b++) {
        int kb = order[b];
        int32_t *pb = &s->peer[(size_t)kb * (size_t)s->nsend];
        for (int a = 0; a < b; a++) {
            int ka = order[a];
            int32_t *pa = &s->peer[(size_t)ka * (size_t)s->nsend];
            int32_t *qa = &s->source[(size_t)ka * (size_t)s->nrecv];
            int fits = 1, any = 0;
            for (int u = 0; u < s->nsend && fits; u++)
                if (pb[u] >= 0) {
                    fits = pa[u] < 0 && qa[pb[u]] < 0;
                    any = 1;
                }
            if (!any)
                break;
            if (!fits)
                continue;
            int32_t *qb = &s->source[(size_t)kb * (size_t)s->nrecv];
            for (int u = 0; u < s->nsend; u++)
                if (pb[u] >= 0) {
                    pa[u] = pb[u];
                    qa[pb[u]] = u;
                    qb[pb[u]] = -1;
                    pb[u] = -1;
                }
            break;
        }
    }
    free(order);
    free(top);
    cm_css_sched_compact(s);
}

int cm_css_sched_classic_steps(cm_css_sched_t *s, int skip_diag, cm_error_t *err)
{
    int n = s->nsend > s->nrecv ? s->nsend : s->nrecv;
    if (cm_css_sched_reserve(s, n, err))
        return -1;
    for (int k = 0; k < n; k++)
        for (int u = 0; u < s->nsend; u++) {
            int v = (int)(((int64_t)u + k) % n);
            if (v < s->nrecv && s->size[(size_t)u * (size_t)s->nrecv + (size_t)v] &&
                !(skip_diag && u == v) && cm_css_sched_put(s, k, u, v))
                return cm_error_set(err, "css: internal error: classic step %d", k);
        }
    cm_css_sched_compact(s);
    return 0;
}

void cm_css_classic_metrics(const cm_css_sched_t *s, int skip_diag, uint64_t *steps,
                         uint64_t *sum)
{
    int n = s->nsend > s->nrecv ? s->nsend : s->nrecv;
    *steps = *sum = 0;
    for (int k = 0; k < n; k++) {
        uint64_t top = 0;
        for (int u = 0; u < s->nsend; u++) {
            int v = (int)(((int64_t)u + k) % n);
            if (v < s->nrecv && !(skip_diag && u == v) &&
                s->size[(size_t)u * (size_t)s->nrecv + (size_t)v] > top)
                top = s->size[(size_t)u * (size_t)s->nrecv + (size_t)v];
        }
        if (top) {
            ++*steps;
            *sum += top;
        }
    }
}
