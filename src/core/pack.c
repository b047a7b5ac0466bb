/* pack.c -- cluster packing onto the children of a tree vertex (Wang et
 * al., section 4.4.2: Plain, First-Fit, Most-Reservation and the adaptive
 * choice among them) and Hao and Zeng's capacity shares (docs/design.md,
 * "Where each method comes from").  See docs/cluster-packing.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"

const char *cm_pack_rule_name(cm_pack_rule_t rule)
{
    switch (rule) {
    case CM_PACK_PLAIN: return "plain";
    case CM_PACK_FIRST_FIT: return "first-fit";
    case CM_PACK_MOST_RESERVATION: return "most-reservation";
    default: return "?";
    }
}

double cm_pack_spread(const int *sizes, int k)
{
    if (k < 2)
        return 0.0;
    double mean = 0.0;
    for (int c = 0; c < k; c++)
        mean += sizes[c];
    mean /= k;
    if (mean <= 0.0)
        return 0.0;
    double var = 0.0;
    for (int c = 0; c < k; c++)
        var += (sizes[c] - mean) * (sizes[c] - mean);
    return sqrt(var / k) / mean;
}

cm_pack_rule_t cm_pack_choose(const int *sizes, int k, double t_low,
                              double t_high, int t_k)
{
    double s = cm_pack_spread(sizes, k);
    if (s < t_low)
        return CM_PACK_PLAIN;
    if (s > t_high && k < t_k)
        return CM_PACK_FIRST_FIT;
    return CM_PACK_MOST_RESERVATION;
}

typedef struct packer {
    int *free;              /* remaining slots per child (a copy) */
    char *touched;          /* child received a piece in this packing */
    int nchildren;
    cm_pack_piece_t *pieces;
    int npieces;
} packer_t;

static void put(packer_t *pk, int cluster, int child, int count)
{
    pk->pieces[pk->npieces++] = (cm_pack_piece_t){cluster, child, count};
    pk->free[child] -= count;
    pk->touched[child] = 1;
}

/* First child (in order) with room for @p s, among the touched ones when
 * @p want_touched is 1, the untouched ones when 0, any when -1. */
static int first_fit(const packer_t *pk, int s, int want_touched)
{
    for (int ch = 0; ch < pk->nchildren; ch++)
        if (pk->free[ch] >= s &&
            (want_touched < 0 || pk->touched[ch] == want_touched))
            return ch;
    return -1;
}

/* Child with the most room (lowest index on ties) among the touched ones
 * (@p want_touched 1), the untouched (0) or all (-1); -1 if all are full. */
static int most_room(const packer_t *pk, int want_touched)
{
    int best = -1;
    for (int ch = 0; ch < pk->nchildren; ch++)
        if (pk->free[ch] > 0 &&
            (want_touched < 0 || pk->touched[ch] == want_touched) &&
            (best < 0 || pk->free[ch] > pk->free[best]))
            best = ch;
    return best;
}

/* Split @p s ranks of cluster @p c into the children with the most room:
 * the fewest pieces a greedy split can make. */
static void split_most_room(packer_t *pk, int c, int s)
{
    while (s > 0) {
        int ch = most_room(pk, -1);
        int t = s < pk->free[ch] ? s : pk->free[ch];
        put(pk, c, ch, t);
        s -= t;
    }
}

/* Most-Reservation's split: touch new children only for what the holes of
 * the children in use cannot take, then fill the holes (one that takes
 * the whole rest if there is one, else the largest first). */
static void split_reserving(packer_t *pk, int c, int s)
{
    long holes = 0;
    for (int ch = 0; ch < pk->nchildren; ch++)
        if (pk->touched[ch])
            holes += pk->free[ch];
    while (s > holes) {
        int ch = most_room(pk, 0);
        if (ch < 0)
            break;
        int t = s < pk->free[ch] ? s : pk->free[ch];
        put(pk, c, ch, t);
        s -= t;
        holes += pk->free[ch];
    }
    if (s <= 0)
        return;
    int ch = first_fit(pk, s, 1);
    if (ch >= 0) {
        put(pk, c, ch, s);
        return;
    }
    split_most_room(pk, c, s);
}

/* Cluster order by smallest rank (ties: index order). */
typedef struct keyed {
    int key, idx;
} keyed_t;

static int by_key(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

int cm_pack(cm_pack_rule_t rule, const int *sizes, const int *min_rank, int k,
            const int *free_slots, int nchildren, int *assign,
            cm_pack_piece_t *pieces, cm_error_t *err)
{
    if (k < 0 || nchildren < 1 || !sizes || !free_slots || !assign || !pieces)
        return cm_error_set(err, "cm_pack: expected k >= 0 clusters, >= 1 "
                            "child and non-NULL arrays, got k=%d and %d "
                            "children", k, nchildren);
    if (rule < 0 || rule >= CM_PACK_NRULES)
        return cm_error_set(err, "cm_pack: unknown rule %d (expected 0 to %d)",
                            (int)rule, CM_PACK_NRULES - 1);
    long need = 0, room = 0;
    for (int c = 0; c < k; c++) {
        if (sizes[c] < 1)
            return cm_error_set(err, "cm_pack: cluster %d of %d: expected "
                                "size >= 1, got %d", c, k, sizes[c]);
        need += sizes[c];
    }
    for (int ch = 0; ch < nchildren; ch++) {
        if (free_slots[ch] < 0)
            return cm_error_set(err, "cm_pack: child %d of %d: expected free "
                                "slots >= 0, got %d", ch, nchildren,
                                free_slots[ch]);
        room += free_slots[ch];
    }
    if (need > room)
        return cm_error_set(err, "cm_pack: %ld ranks in %d clusters do not "
                            "fit in the %ld free slots of %d children", need,
                            k, room, nchildren);

    packer_t pk = {0};
    int *order = malloc(sizeof(int) * (size_t)(k ? k : 1));
    pk.free = malloc(sizeof(int) * (size_t)nchildren);
    pk.touched = calloc((size_t)nchildren, 1);
    if (!order || !pk.free || !pk.touched) {
        free(order); free(pk.free); free(pk.touched);
        return cm_error_set(err, "cm_pack: out of memory for %d clusters on "
                            "%d children", k, nchildren);
    }
    memcpy(pk.free, free_slots, sizeof(int) * (size_t)nchildren);
    pk.nchildren = nchildren;
    pk.pieces = pieces;
    for (int c = 0; c < k; c++)
        order[c] = c;
    if (rule == CM_PACK_FIRST_FIT) {
        /* Stable counting order by decreasing size (an insertion sort
         * would be quadratic for thousands of clusters). */
        int maxs = 0;
        for (int c = 0; c < k; c++)
            if (sizes[c] > maxs)
                maxs = sizes[c];
        int *start = calloc((size_t)maxs + 2, sizeof(int));
        if (!start) {
            free(order); free(pk.free); free(pk.touched);
            return cm_error_set(err, "cm_pack: out of memory sorting %d "
                                "clusters by size (largest %d ranks)", k,
                                maxs);
        }
        for (int c = 0; c < k; c++)
            start[maxs - sizes[c] + 1]++;
        for (int s = 1; s <= maxs + 1; s++)
            start[s] += start[s - 1];
        for (int c = 0; c < k; c++)
            order[start[maxs - sizes[c]]++] = c;
        free(start);
    } else if (min_rank && k > 1) {
        keyed_t *kv = malloc(sizeof(keyed_t) * (size_t)k);
        if (!kv) {
            free(order); free(pk.free); free(pk.touched);
            return cm_error_set(err, "cm_pack: out of memory sorting %d "
                                "clusters by smallest rank", k);
        }
        for (int c = 0; c < k; c++)
            kv[c] = (keyed_t){min_rank[c], c};
        qsort(kv, (size_t)k, sizeof(keyed_t), by_key);
        for (int c = 0; c < k; c++)
            order[c] = kv[c].idx;
        free(kv);
    }

    int cursor = 0;  /* Plain: the child being filled */
    for (int r = 0; r < k; r++) {
        int c = order[r], s = sizes[c];
        int before = pk.npieces;
        switch (rule) {
        case CM_PACK_PLAIN:
            while (s > 0) {
                while (pk.free[cursor] == 0)
                    cursor++;
                int t = s < pk.free[cursor] ? s : pk.free[cursor];
                put(&pk, c, cursor, t);
                s -= t;
            }
            break;
        case CM_PACK_FIRST_FIT: {
            int ch = first_fit(&pk, s, -1);
            if (ch >= 0)
                put(&pk, c, ch, s);
            else
                split_most_room(&pk, c, s);
            break;
        }
        case CM_PACK_MOST_RESERVATION: {
            int ch = first_fit(&pk, s, 1);
            if (ch < 0)
                ch = first_fit(&pk, s, 0);
            if (ch >= 0)
                put(&pk, c, ch, s);
            else
                split_reserving(&pk, c, s);
            break;
        }
        default:
            break;
        }
        assign[c] = pk.npieces - before == 1 ? pk.pieces[before].child : -1;
    }
    free(order);
    free(pk.free);
    free(pk.touched);
    return pk.npieces;
}

int cm_capacity_shares(int m, const int *cap, const double *speed,
                       int nchildren, int *share, cm_error_t *err)
{
    long total = 0;
    for (int ch = 0; ch < nchildren; ch++)
        total += cap[ch];
    if (m < 0 || m > total)
        return cm_error_set(err, "cm_capacity_shares: %d ranks do not fit in "
                            "the %ld slots of %d children", m, total,
                            nchildren);
    int nc = nchildren ? nchildren : 1;
    double *want = malloc(sizeof(double) * (size_t)nc);
    double *w = malloc(sizeof(double) * (size_t)nc);
    char *state = calloc((size_t)nc, 1);   /* 0 out, 1 in, 2 in and full */
    if (!want || !w || !state) {
        free(want); free(w); free(state);
        return cm_error_set(err, "cm_capacity_shares: out of memory for %d "
                            "children", nchildren);
    }
    for (int ch = 0; ch < nchildren; ch++) {
        w[ch] = cap[ch] * (speed && speed[ch] > 0.0 ? speed[ch] : 1.0);
        want[ch] = 0.0;
    }
    /* The fewest children that hold m: by decreasing cap x speed. */
    long room = 0;
    while (room < m) {
        int best = -1;
        for (int ch = 0; ch < nchildren; ch++)
            if (!state[ch] && cap[ch] > 0 && (best < 0 || w[ch] > w[best]))
                best = ch;
        state[best] = 1;
        room += cap[best];
    }
    /* Water-filling among them: shares proportional to cap x speed; a
     * child whose share would exceed its slots is capped, the rest
     * redistributed. */
    double left = m;
    for (int changed = 1; changed;) {
        changed = 0;
        double ws = 0.0;
        for (int ch = 0; ch < nchildren; ch++)
            if (state[ch] == 1)
                ws += w[ch];
        for (int ch = 0; ch < nchildren; ch++) {
            if (state[ch] != 1)
                continue;
            want[ch] = ws > 0.0 ? left * w[ch] / ws : 0.0;
            if (want[ch] >= cap[ch]) {
                want[ch] = cap[ch];
                state[ch] = 2;
                left -= cap[ch];
                changed = 1;
                break;
            }
        }
    }
    /* Largest remainder on the integer parts. */
    int given = 0;
    for (int ch = 0; ch < nchildren; ch++) {
        share[ch] = (int)floor(want[ch] + 1e-9);
        if (share[ch] > cap[ch])
            share[ch] = cap[ch];
        given += share[ch];
    }
    while (given < m) {
        int best = -1;
        double bestr = -1.0;
        for (int ch = 0; ch < nchildren; ch++) {
            if (!state[ch] || share[ch] >= cap[ch])
                continue;
            double r = want[ch] - share[ch];
            if (r > bestr + 1e-12) {
                bestr = r;
                best = ch;
            }
        }
        share[best]++;
        given++;
    }
    free(want);
    free(w);
    free(state);
    return 0;
}
