/*
 * css_nodes.c -- the cost model with nodes: several ranks share a node and
 * its network link, so what limits a step is not its longest message but
 * its busiest node link.
 *
 * A step that pairs ranks one to one may still put eight flows on one
 * node's link (8 ranks per node) while another node sends nothing off node:
 * its time is then that node's bytes over the link's bandwidth.  The model:
 * a step costs latency plus the largest, over nodes, of the bytes the node
 * sends off node, receives from off node, and of its largest message inside
 * the node (shared memory: each message on its own), over the bandwidth.
 * With one node per rank this is cm_css_sched_cost()'s model (each rank
 * sends and receives at most one message per step).
 */
#include <stdlib.h>
#include <string.h>

#include "cm_hash.h"
#include "css_internal.h"

uint64_t cm_css_node_label(const char *name)
{
    return cm_fnv1a(CM_FNV1A_START, name, name ? strlen(name) : 0);
}

typedef struct keyed {
    uint64_t label;
    int32_t rank;
} keyed_t;

static int by_label(const void *pa, const void *pb)
{
    const keyed_t *a = pa, *b = pb;
    return (a->label > b->label) - (a->label < b->label);
}

int cm_css_node_index(int n, const uint64_t *label, int32_t *idx)
{
    if (!label) {
        for (int r = 0; r < n; r++)
            idx[r] = r;
        return n;
    }
    keyed_t *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    if (!k)
        return -1;
    for (int r = 0; r < n; r++)
        k[r] = (keyed_t){ label[r], r };
    qsort(k, (size_t)n, sizeof *k, by_label);
    int nn = 0;
    for (int r = 0; r < n; r++) {
        if (r > 0 && k[r].label != k[r - 1].label)
            nn++;
        idx[k[r].rank] = nn;
    }
    free(k);
    return n > 0 ? nn + 1 : 0;
}

/* One step's loads: per node, bytes out and in (off node), and the largest
 * message inside a node. */
typedef struct step {
    const int32_t *idx;
    int nn;
    uint64_t *out, *in;   /* [nn] */
    uint64_t inside;
} step_t;

static void step_add(step_t *t, int u, int v, uint64_t w)
{
    int a = t->idx[u], c = t->idx[v];
    if (a != c) {
        t->out[a] += w;
        t->in[c] += w;
    } else if (w > t->inside) {
        t->inside = w;
    }
}

/* The step's busiest load; the step is emptied for the next one. */
static uint64_t step_take(step_t *t)
{
    uint64_t top = t->inside;
    for (int x = 0; x < t->nn; x++) {
        top = t->out[x] > top ? t->out[x] : top;
        top = t->in[x] > top ? t->in[x] : top;
    }
    memset(t->out, 0, (size_t)t->nn * sizeof *t->out);
    memset(t->in, 0, (size_t)t->nn * sizeof *t->in);
    t->inside = 0;
    return top;
}

static int step_init(step_t *t, int n, const uint64_t *node, int32_t **idx, cm_error_t *err)
{
    *idx = malloc((size_t)n * sizeof **idx);
    int nn = *idx ? cm_css_node_index(n, node, *idx) : -1;
    t->out = nn > 0 ? calloc((size_t)nn, sizeof *t->out) : NULL;
    t->in = nn > 0 ? calloc((size_t)nn, sizeof *t->in) : NULL;
    if (!t->out || !t->in) {
        free(*idx);
        free(t->out);
        free(t->in);
        *idx = NULL;
        return cm_error_set(err, "css cost: out of memory for %d ranks", n);
    }
    t->idx = *idx;
    t->nn = nn;
    t->inside = 0;
    return 0;
}

static void step_free(step_t *t, int32_t *idx)
{
    free(t->out);
    free(t->in);
    free(idx);
}

int cm_css_sched_cost_nodes(const cm_css_sched_t *s, const uint64_t *bytes, const uint64_t *node,
                            double latency, double bandwidth, double *cost, cm_error_t *err)
{
    if (!s)
        return cm_error_set(err, "css cost: no schedule");
    if (s->nsend != s->nrecv)
        return cm_error_set(err, "css cost: %d senders and %d receivers: nodes need a square "
                            "schedule", s->nsend, s->nrecv);
    if (cm_css_check_model(latency, bandwidth, cost, err))
        return -1;
    const uint64_t *b = bytes ? bytes : s->size;
    int n = s->nsend;
    step_t t;
    int32_t *idx;
    if (step_init(&t, n, node, &idx, err))
        return -1;
    double sum = 0;
    for (int k = 0; k < s->nsteps; k++) {
        for (int u = 0; u < n; u++) {
            int v = s->peer[(size_t)k * (size_t)n + (size_t)u];
            if (v >= 0)
                step_add(&t, u, v, b[(size_t)u * (size_t)n + (size_t)v]);
        }
        sum += latency + (double)step_take(&t) / bandwidth;
    }
    step_free(&t, idx);
    *cost = sum;
    return 0;
}

int cm_css_classic_cost_nodes(int n, const uint64_t *bytes, const uint64_t *node,
                              double latency, double bandwidth, double *cost, cm_error_t *err)
{
    if (n < 1 || (uint64_t)n * (uint64_t)n > CM_CSS_MAX_CELLS)
        return cm_error_set(err, "css classic cost: %d ranks: expected 1 to 4096", n);
    if (!bytes)
        return cm_error_set(err, "css classic cost: no byte table");
    if (cm_css_check_model(latency, bandwidth, cost, err))
        return -1;
    step_t t;
    int32_t *idx;
    if (step_init(&t, n, node, &idx, err))
        return -1;
    double sum = 0;
    for (int k = 1; k < n; k++) {   /* k = 0 is the local copy */
        int any = 0;
        for (int i = 0; i < n; i++) {
            int j = (int)(((int64_t)i + k) % n);
            uint64_t w = bytes[(size_t)i * (size_t)n + (size_t)j];
            if (w) {
                step_add(&t, i, j, w);
                any = 1;
            }
        }
        uint64_t top = step_take(&t);
        if (any)
            sum += latency + (double)top / bandwidth;
    }
    step_free(&t, idx);
    *cost = sum;
    return 0;
}
