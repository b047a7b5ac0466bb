/*
 * is_like.c -- an integer-sort-like Alltoallv, shaped after NAS IS (the
 * seed's is.C.64 / is.D.128).  Every rank holds --keys 4-byte keys drawn
 * like NAS IS's (the mean of four uniform numbers: a bell over
 * [0, 2^--max-key-log), so keys near the middle are common and keys near
 * the ends rare), counted in --buckets buckets.  Per iteration and rank:
 *
 *   bucket the local keys (before the call)      --ns-pre ns per local key
 *   MPI_Allreduce of the bucket counts, MPI_Alltoall of the send counts
 *     (both small and blocking in both modes: a 256-byte receive buffer lies
 *     in one page that is only partly inside it, so the overlay completes it
 *     before returning anyway)
 *   MPI_Alltoallv of the keys: uneven sizes
 *   rank the received keys, block by block in source order as IS's access
 *     trace shows (seed, section 6.3)           --ns-key ns per received key
 *   prefix sum over the rank's key range         --ns-range ns per key value
 *
 * Buckets go to ranks as NAS IS gives them (--balance 1: whole buckets,
 * each rank taking them until the running total passes its 1/n share, so
 * receive sizes differ by up to about a bucket), or by equal key ranges
 * (--balance 0: the bell itself, the middle ranks get 2.7x the average and
 * the outer ones almost nothing).  Counts are the expected ones plus a
 * seeded binomial-sized deviation per (rank, bucket), so every run and rank
 * count gives the same matrix.  The computation after the call is all CRC.
 * Checks the first 1024 keys of every received block (value and range;
 * ERROR, exit 1).
 */
#include "tnbc.h"

static const char *const balances[] = {"ranges", "nas", NULL};

/* CDF of the mean of four uniform [0,1) numbers (Irwin-Hall, n = 4). */
static double ih4_cdf(double x)
{
    double y = 4 * x, s = 0, c[5] = {1, 4, 6, 4, 1};
    if (y <= 0)
        return 0;
    if (y >= 4)
        return 1;
    for (int k = 0; k <= 4 && k <= y; k++)
        s += (k % 2 ? -1 : 1) * c[k] * pow(y - k, 4);
    return s / 24;
}

/* A seeded standard normal for (s, b). */
static double gauss(uint64_t seed, int s, int b)
{
    uint64_t h = tn_mix(seed ^ tn_mix(((uint64_t)(unsigned)s << 32) | (unsigned)b));
    double u1 = ((double)(h >> 11) + 0.5) / 9007199254740992.0;
    double u2 = (double)(tn_mix(h) >> 11) / 9007199254740992.0;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

int main(int argc, char **argv)
{
    double keys = 2097152, maxlog = 23, nbuck = 1024, iters = 2, ns_pre = 4,
           ns_key = 2, ns_range = 1, balance = 1, seed = 1;
    struct tn_opt opt[] = {
        {"keys", &keys, "keys per rank", NULL},
        {"max-key-log", &maxlog, "keys in [0, 2^N)", NULL},
        {"buckets", &nbuck, "buckets (NAS IS: 1024)", NULL},
        {"iters", &iters, "iterations timed", NULL},
        {"ns-pre", &ns_pre, "ns per local key before the call (bucketing)", NULL},
        {"ns-key", &ns_key, "ns per received key (ranking)", NULL},
        {"ns-range", &ns_range, "ns per key value of the local range (prefix sum)", NULL},
        {"balance", &balance, "buckets to ranks", balances},
        {"seed", &seed, "seed of the counts and keys", NULL},
    };
    tn_init(&argc, &argv, "is_like",
            "Integer-sort-like: skewed keys, Alltoallv of uneven sizes,"
            " ranking in source order.", opt, 9);
    int n = tn_size, me = tn_rank, B = (int)nbuck;
    if (B < n || keys < 1 || keys > 1 << 28 || maxlog > 31 || (1L << (int)maxlog) < B)
        tn_die("need buckets >= ranks, keys in 1..2^28, 2^max-key-log >= buckets:", "");
    double K = floor(keys);
    uint64_t sd = (uint64_t)seed;

    /* cnt[s * B + b]: keys of rank s in bucket b (every rank computes all) */
    long *cnt = malloc((size_t)n * B * sizeof *cnt), *tot = calloc((size_t)B, sizeof *tot);
    for (int b = 0; b < B; b++) {
        double pb = ih4_cdf((b + 1.0) / B) - ih4_cdf((double)b / B), m = K * pb;
        for (int s = 0; s < n; s++) {
            double v = floor(m + sqrt(m * (1 - pb)) * gauss(sd, s, b) + 0.5);
            cnt[(size_t)s * B + b] = v > 0 ? (long)v : 0;
            tot[b] += cnt[(size_t)s * B + b];
        }
    }
    /* owner[b]: the rank that sorts bucket b */
    int *owner = malloc((size_t)B * sizeof *owner);
    if (balance == 1) {         /* NAS IS 3.x, rank(): whole buckets */
        long all = 0, acc = 0;
        for (int b = 0; b < B; b++)
            all += tot[b];
        int j = 0;
        for (int b = 0; b < B; b++) {
            acc += tot[b];
            owner[b] = j < n ? j : n - 1;
            if (j < n - 1 && (double)acc >= (double)(j + 1) * all / n)
                j++;
        }
    } else {
        for (int b = 0; b < B; b++)
            owner[b] = (int)((long)b * n / B);
    }
    long bw = (1L << (int)maxlog) / B;      /* key values per bucket */
    long *lo = malloc(2 * (size_t)n * sizeof *lo), *hi = lo + n;
    for (int d = 0; d < n; d++)
        lo[d] = -1, hi[d] = -1;
    for (int b = 0; b < B; b++) {
        if (lo[owner[b]] < 0)
            lo[owner[b]] = b * bw;
        hi[owner[b]] = (b + 1) * bw;
    }
    size_t *sc = calloc(4 * (size_t)n, sizeof *sc), *sdp = sc + n,
           *rc = sdp + n, *rdp = rc + n;
    for (int b = 0; b < B; b++) {
        sc[owner[b]] += 4 * (size_t)cnt[(size_t)me * B + b];
        if (owner[b] == me)
            for (int s = 0; s < n; s++)
                rc[s] += 4 * (size_t)cnt[(size_t)s * B + b];
    }
    size_t sslot = 0, rslot = 0;
    double mykeys = 0, rkeys = 0;
    for (int p = 0; p < n; p++) {
        if (sc[p] > sslot)
            sslot = sc[p];
        if (rc[p] > rslot)
            rslot = rc[p];
        mykeys += sc[p] / 4.0;
        rkeys += rc[p] / 4.0;
    }
    sslot = tn_round_page(sslot ? sslot : 1);
    rslot = tn_round_page(rslot ? rslot : 1);
    for (int p = 0; p < n; p++) {
        sdp[p] = (size_t)p * sslot;
        rdp[p] = (size_t)p * rslot;
    }
    char *sbuf = tn_alloc((size_t)n, sslot), *rbuf = tn_alloc((size_t)n, rslot);
    if (me == 0) {
        double mn = 1e30, mx = 0, pmx = 0;
        for (int d = 0; d < n; d++) {
            double r = 0;
            for (int b = 0; b < B; b++)
                if (owner[b] == d)
                    r += (double)tot[b];
            if (r < mn) mn = r;
            if (r > mx) mx = r;
        }
        for (int s = 0; s < n; s++)
            for (int d = 0; d < n; d++) {
                double x = 0;
                for (int b = 0; b < B; b++)
                    if (owner[b] == d)
                        x += (double)cnt[(size_t)s * B + b];
                if (x > pmx) pmx = x;
            }
        printf("is_like: %d ranks, %.0f keys each, buckets by %s: keys"
               " received per rank %.0f .. %.0f (mean %.0f), largest block"
               " %.0f keys\n", n, K, balances[(int)balance], mn, mx, K, pmx);
    }

    int *bucket_sizes = calloc((size_t)B, sizeof(int)), *bucket_tot = calloc((size_t)B, sizeof(int));
    int *scount_i = malloc(2 * (size_t)n * sizeof(int)), *rcount_i = scount_i + n;
    struct tn_coll cl = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    double start = tn_now();
    for (long it = 0; it < (long)iters; it++) {
        tn_work(ns_pre * 1e-9 * mykeys);
        tn_coll_finish(&cl);    /* the next collective: the previous Alltoallv */
        for (int b = 0; b < B; b++)
            bucket_sizes[b] = (int)cnt[(size_t)me * B + b];
        MPI_Allreduce(bucket_sizes, bucket_tot, B, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int p = 0; p < n; p++)
            scount_i[p] = (int)sc[p];
        MPI_Alltoall(scount_i, 1, MPI_INT, rcount_i, 1, MPI_INT, MPI_COMM_WORLD);
        for (int p = 0; p < n; p++)
            if ((size_t)rcount_i[p] != rc[p] || (int)(bucket_tot[0]) != (int)tot[0]) {
                fprintf(stderr, "is_like: rank %d: ERROR counts from %d\n", me, p);
                tn_bad++;
            }
        /* keys: the first 1024 of every block are real */
        for (int d = 0; d < n; d++) {
            uint32_t *k = (uint32_t *)(sbuf + sdp[d]);
            size_t m = sc[d] / 4 < TN_PRIV / 4 ? sc[d] / 4 : TN_PRIV / 4;
            for (size_t i = 0; i < m; i++)
                k[i] = (uint32_t)(lo[d] + (long)(tn_value(it, me, d, i) % (uint64_t)(hi[d] - lo[d])));
        }
        tn_coll_start(&cl, TN_A2AV, sbuf, sc, sdp, rbuf, rc, rdp, 0);
        for (int s = 0; s < n; s++) {
            tn_touch(&cl, s);
            const uint32_t *k = (const uint32_t *)(rbuf + rdp[s]);
            size_t m = rc[s] / 4 < TN_PRIV / 4 ? rc[s] / 4 : TN_PRIV / 4;
            for (size_t i = 0; i < m; i++)
                if (k[i] != (uint32_t)(lo[me] + (long)(tn_value(it, s, me, i) % (uint64_t)(hi[me] - lo[me])))
                    || (long)k[i] < lo[me] || (long)k[i] >= hi[me]) {
                    if (tn_bad < 5)
                        fprintf(stderr, "is_like: rank %d: ERROR iteration %ld,"
                                " key %zu from %d\n", me, it, i, s);
                    tn_bad++;
                    break;
                }
            tn_crc(ns_key * 1e-9 * (rc[s] / 4.0));
        }
        if (hi[me] > lo[me])
            tn_crc(ns_range * 1e-9 * (double)(hi[me] - lo[me]));
    }
    tn_coll_finish(&cl);        /* MPI_Finalize */
    tn_st.total = tn_now() - start;
    (void)rkeys;
    tn_report(balance == 1 ? "nas" : "ranges");
    tn_free(sbuf, (size_t)n, sslot);
    tn_free(rbuf, (size_t)n, rslot);
    free(cnt); free(tot); free(owner); free(lo); free(sc);
    free(bucket_sizes); free(bucket_tot); free(scount_i);
    return tn_finish();
}
