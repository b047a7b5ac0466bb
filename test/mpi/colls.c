/*
 * colls.c -- every collective the profiler converts, blocking and
 * non-blocking, with the expected traffic of the reference algorithms
 * written from the receiver's side where possible (tree parents, ring
 * predecessors), i.e. not the way the library computes it.
 * Usage: colls EXPECTED_FILE
 */
#include <mpi.h>
#include <stdlib.h>
#include "expect.h"

static int n;

static void bcast_exp(int root, unsigned long long b)
{
    for (int v = 1; v < n; v++)     /* binomial: v's parent clears its low bit */
        exp_add(EXP_COLL, ((v & (v - 1)) + root) % n, (v + root) % n, b, 1);
}

static void reduce_exp(int root, unsigned long long b)
{
    for (int v = 1; v < n; v++)
        exp_add(EXP_COLL, (v + root) % n, ((v & (v - 1)) + root) % n, b, 1);
}

static void allreduce_exp(unsigned long long b)
{
    int p2 = 1;
    while (2 * p2 <= n)
        p2 *= 2;
    int rem = n - p2;
    for (int i = 0; i < rem; i++) {      /* fold in and hand back */
        exp_add(EXP_COLL, 2 * i, 2 * i + 1, b, 1);
        exp_add(EXP_COLL, 2 * i + 1, 2 * i, b, 1);
    }
    for (int v = 0; v < p2; v++)
        for (int m = 1; m < p2; m <<= 1) {
            int w = v ^ m;
            exp_add(EXP_COLL, v < rem ? 2 * v + 1 : v + rem,
                    w < rem ? 2 * w + 1 : w + rem, b, 1);
        }
}

static void barrier_exp(void)
{
    for (int s = 0; s < n; s++)
        for (int d = 1; d < n; d <<= 1)
            exp_add(EXP_COLL, s, (s + d) % n, 0, 1);
}

static void scan_exp(unsigned long long b)
{
    for (int d = 1; d < n; d <<= 1)
        for (int s = 0; s + d < n; s++)
            exp_add(EXP_COLL, s, s + d, b, 1);
}

static void pairs_exp(unsigned long long b)
{
    for (int s = 0; s < n; s++)
        for (int d = 0; d < n; d++)
            if (s != d)
                exp_add(EXP_COLL, s, d, b, 1);
}

static int w_cnt(int s, int d) { return (s + 2 * d) % 4; }

int main(int argc, char **argv)
{
    int r;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm W = MPI_COMM_WORLD;
    MPI_Request q[8];
    double *a = calloc(64 * n, sizeof *a), *b = calloc(64 * n, sizeof *b);
    int *ia = calloc(64 * n, sizeof *ia), *ib = calloc(64 * n, sizeof *ib);
    int *cnt = calloc(n, sizeof *cnt), *dsp = calloc(n, sizeof *dsp);
    int *cnt2 = calloc(n, sizeof *cnt2), *dsp2 = calloc(n, sizeof *dsp2);
    MPI_Datatype *ty = calloc(n, sizeof *ty), *ty2 = calloc(n, sizeof *ty2);

    MPI_Bcast(a, 10, MPI_DOUBLE, 2 % n, W);
    MPI_Ibcast(ia, 3, MPI_INT, 0, W, &q[0]);
    MPI_Reduce(a, b, 4, MPI_DOUBLE, MPI_SUM, 1 % n, W);
    MPI_Ireduce(ia, ib, 5, MPI_INT, MPI_SUM, 3 % n, W, &q[1]);
    MPI_Allreduce(a, b, 10, MPI_DOUBLE, MPI_SUM, W);
    MPI_Iallreduce(MPI_IN_PLACE, ib, 2, MPI_INT, MPI_MAX, W, &q[2]);
    MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
    MPI_Allgather(ia, 3, MPI_INT, ib, 3, MPI_INT, W);
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, 2, MPI_DOUBLE, W,
                   &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    for (int j = 0, o = 0; j < n; j++) {
        cnt[j] = j % 3;
        dsp[j] = o;
        o += cnt[j];
    }
    MPI_Allgatherv(ia, cnt[r], MPI_INT, ib, cnt, dsp, MPI_INT, W);
    MPI_Gather(ia, 2, MPI_INT, ib, 2, MPI_INT, 0, W);
    for (int j = 0, o = 0; j < n; j++) {
        cnt2[j] = j;
        dsp2[j] = o;
        o += j;
    }
    MPI_Igatherv(ia, r, MPI_INT, ib, cnt2, dsp2, MPI_INT, n - 1, W, &q[0]);
    MPI_Scatter(a, 3, MPI_DOUBLE, b, 3, MPI_DOUBLE, 1 % n, W);
    for (int j = 0, o = 0; j < n; j++) {
        cnt[j] = j % 2;
        dsp[j] = o;
        o += cnt[j];
    }
    MPI_Scatterv(ia, cnt, dsp, MPI_INT, ib, r % 2, MPI_INT, 0, W);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    for (int j = 0; j < n; j++)
        cnt[j] = j + 1;
    MPI_Reduce_scatter(ia, ib, cnt, MPI_INT, MPI_SUM, W);
    MPI_Ireduce_scatter_block(ia, ib, 2, MPI_INT, MPI_SUM, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Barrier(W);
    MPI_Ibarrier(W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Scan(ia, ib, 3, MPI_INT, MPI_SUM, W);
    MPI_Iexscan(a, b, 5, MPI_DOUBLE, MPI_SUM, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Alltoall(ia, 2, MPI_INT, ib, 2, MPI_INT, W);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, 1, MPI_DOUBLE, W);
    for (int j = 0, so = 0, ro = 0; j < n; j++) {
        cnt[j] = w_cnt(r, j);
        ty[j] = j % 2 ? MPI_DOUBLE : MPI_INT;
        dsp[j] = so;
        so += 8 * cnt[j];
        cnt2[j] = w_cnt(j, r);
        ty2[j] = r % 2 ? MPI_DOUBLE : MPI_INT;
        dsp2[j] = ro;
        ro += 8 * cnt2[j];
    }
    MPI_Alltoallw(a, cnt, dsp, ty, b, cnt2, dsp2, ty2, W);

    if (r == 0) {
        exp_init(n);
        bcast_exp(2 % n, 80);
        bcast_exp(0, 12);
        reduce_exp(1 % n, 32);
        reduce_exp(3 % n, 20);
        allreduce_exp(80);
        allreduce_exp(8);
        for (int s = 0; s < n && n > 1; s++) {
            exp_add(EXP_COLL, s, (s + 1) % n, 12ull * (n - 1), n - 1);
            exp_add(EXP_COLL, s, (s + 1) % n, 16ull * (n - 1), n - 1);
        }
        for (int d = 0; d < n; d++)     /* ring: all blocks but d's own */
            for (int j = 0; j < n; j++)
                if (j != d && j % 3)
                    exp_add(EXP_COLL, (d + n - 1) % n, d, 4ull * (j % 3), 1);
        for (int s = 1; s < n; s++)
            exp_add(EXP_COLL, s, 0, 8, 1);
        for (int s = 1; s < n - 1; s++)
            exp_add(EXP_COLL, s, n - 1, 4ull * s, 1);
        for (int d = 0; d < n; d++)
            if (d != 1 % n)
                exp_add(EXP_COLL, 1 % n, d, 24, 1);
        for (int d = 1; d < n; d += 2)
            exp_add(EXP_COLL, 0, d, 4, 1);
        for (int s = 0; s < n; s++)
            for (int d = 0; d < n; d++)
                if (s != d)
                    exp_add(EXP_COLL, s, d, 4ull * (d + 1), 1);
        pairs_exp(8);
        barrier_exp();
        barrier_exp();
        scan_exp(12);
        scan_exp(40);
        pairs_exp(8);
        pairs_exp(8);
        for (int s = 0; s < n; s++)
            for (int d = 0; d < n; d++)
                if (s != d && w_cnt(s, d))
                    exp_add(EXP_COLL, s, d, (d % 2 ? 8ull : 4ull) * w_cnt(s, d),
                            1);
        exp_write(argv[1]);
    }
    free(a); free(b); free(ia); free(ib); free(cnt); free(dsp); free(cnt2);
    free(dsp2); free(ty); free(ty2);
    MPI_Finalize();
    return 0;
}
