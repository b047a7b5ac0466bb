/*
 * powerlaw.c -- an irregular communication graph with power-law degrees,
 * as in graph analytics or unstructured codes after a poor partitioning:
 * a few hub ranks talk to many ranks, most ranks to a few.  Every
 * iteration each rank exchanges one message with each neighbour (Irecv,
 * Isend, Waitall), then computes.
 *
 * Graph: preferential attachment (Barabasi-Albert), drawn by every rank
 * from --seed alone: the first --degree + 1 vertices form a clique, then
 * each further vertex joins --degree distinct earlier vertices chosen with
 * probability proportional to their degree, which gives P(degree k) ~ k^-3.
 * Vertex v is then given to rank perm(v), a permutation drawn from the
 * seed, so that hubs do not all sit at the start of the rank order (where
 * attachment order would put them, and block placement would pack them).
 *
 * Sizes: the message from u to v has --bytes times 2^(q/4) bytes, q uniform
 * in [-12, 8) drawn from (seed, u, v): from --bytes/8 to 3.4 * --bytes,
 * and the two directions of an edge differ.  Defaults: 20 iterations, --bytes
 * 32 KiB (4 KiB to 108 KiB), --degree 2, 1e6 flops.
 */
#include "miniapp.h"

/* Bytes from rank @p u to rank @p v: --bytes times 2^(q/4), q uniform in
 * [-12, 8), a log-uniform spread without libm (the judge links none). */
static int edge_bytes(const struct ma_args *a, int u, int v)
{
    static const double quarter[4] = {1.0, 1.189207115002721,
                                      1.414213562373095, 1.681792830507429};
    uint64_t st = ma_stamp(a->seed, -1, u, v, 0x51e);
    int q = (int)ma_below(&st, 20);          /* q - 12 quarter octaves */
    int oct = q / 4 - 3;
    double f = quarter[q % 4]
               * (oct >= 0 ? (double)(1 << oct) : 1.0 / (double)(1 << -oct));
    long b = (long)((double)a->bytes * f + 0.5);
    if (b < 1 && a->bytes > 0)
        b = 1;
    return b > INT32_MAX ? INT32_MAX : (int)b;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long degree = 2;
    const struct ma_opt extra[] = {
        {"degree", &degree, 1, "edges each new vertex brings (m of BA)"},
    };
    struct ma_args a = {
        .app = "powerlaw",
        .summary = "power-law graph (preferential attachment): one message"
                   " per edge and direction per iteration",
        .iters = 20, .bytes = 32 << 10, .compute = 1e6, .seed = 1,
        .extra = extra, .nextra = 1,
    };
    ma_parse(argc, argv, &a);

    /* Edges (eu[e], ev[e]) over vertices 0..n-1.  ends[] lists both ends
     * of every edge: drawing from it is drawing in proportion to degree. */
    int n = a.size, m = degree < n ? (int)degree : n - 1;
    size_t maxe = (size_t)m * (size_t)n + 1;
    int *eu = ma_alloc(&a, maxe * sizeof *eu);
    int *ev = ma_alloc(&a, maxe * sizeof *ev);
    int *ends = ma_alloc(&a, 2 * maxe * sizeof *ends);
    int *pick = ma_alloc(&a, ((size_t)m + 1) * sizeof *pick);
    size_t ne = 0, nends = 0;
    uint64_t st = ma_mix64(a.seed ^ UINT64_C(0xba));
    for (int v = 0; v < n; v++) {
        int k = 0;
        if (v <= m) {
            for (int u = 0; u < v; u++)
                pick[k++] = u;
        } else {
            while (k < m) {
                int u = ends[ma_below(&st, nends)], dup = 0;
                for (int j = 0; j < k; j++)
                    dup |= pick[j] == u;
                if (!dup)
                    pick[k++] = u;
            }
        }
        for (int j = 0; j < k; j++) {
            eu[ne] = pick[j];
            ev[ne++] = v;
            ends[nends++] = pick[j];
            ends[nends++] = v;
        }
    }

    /* My neighbours as ranks, in edge order (the same on every run). */
    int *rank_of = ma_alloc(&a, (size_t)n * sizeof *rank_of);
    ma_permutation(n, a.seed, rank_of);
    int *peer = ma_alloc(&a, ne * sizeof *peer), np = 0;
    for (size_t e = 0; e < ne; e++) {
        int u = rank_of[eu[e]], v = rank_of[ev[e]];
        if (u == a.rank)
            peer[np++] = v;
        else if (v == a.rank)
            peer[np++] = u;
    }
    free(eu);
    free(ev);
    free(ends);
    free(pick);
    free(rank_of);

    int *sbytes = ma_alloc(&a, (size_t)np * sizeof *sbytes);
    int *rbytes = ma_alloc(&a, (size_t)np * sizeof *rbytes);
    size_t *soff = ma_alloc(&a, ((size_t)np + 1) * sizeof *soff);
    size_t *roff = ma_alloc(&a, ((size_t)np + 1) * sizeof *roff);
    soff[0] = roff[0] = 0;
    for (int i = 0; i < np; i++) {
        sbytes[i] = edge_bytes(&a, a.rank, peer[i]);
        rbytes[i] = edge_bytes(&a, peer[i], a.rank);
        soff[i + 1] = soff[i] + (size_t)sbytes[i];
        roff[i + 1] = roff[i] + (size_t)rbytes[i];
    }
    char *sbuf = ma_alloc(&a, soff[np]);
    char *rbuf = ma_alloc(&a, roff[np]);
    MPI_Request *req = ma_alloc(&a, 2 * (size_t)np * sizeof *req);
    struct ma_sum sum = {0, 0};

    for (long it = 0; it < a.iters; it++) {
        for (int i = 0; i < np; i++)
            MPI_Irecv(rbuf + roff[i], rbytes[i], MPI_BYTE, peer[i], 0,
                      MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < np; i++) {
            ma_put(sbuf + soff[i], sbytes[i],
                   ma_stamp(a.seed, it, a.rank, peer[i], 0));
            MPI_Isend(sbuf + soff[i], sbytes[i], MPI_BYTE, peer[i], 0,
                      MPI_COMM_WORLD, &req[np + i]);
        }
        MPI_Waitall(2 * np, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < np; i++)
            ma_check(&sum, rbuf + roff[i], rbytes[i],
                     ma_stamp(a.seed, it, peer[i], a.rank, 0));
        ma_compute(a.compute);
    }
    free(peer);
    free(sbytes);
    free(rbytes);
    free(soff);
    free(roff);
    free(sbuf);
    free(rbuf);
    free(req);
    return ma_finish(&a, &sum);
}
