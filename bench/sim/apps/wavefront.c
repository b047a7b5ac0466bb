/*
 * wavefront.c -- a latency-bound pipeline like NAS LU's SSOR sweeps: ranks
 * on a rows x cols grid; in every sweep a rank receives one small message
 * from its north and one from its west neighbour (those it has), computes,
 * then sends south and east.  Sweeps follow each other without a barrier,
 * so the sweeps overlap along the diagonals as in LU.  Blocking Recv and
 * Send on purpose: each message waits on the one before it, and the run
 * time is the latency along the worst path, not bandwidth.
 *
 * Grid: MPI_Dims_create (8x8 at 64 ranks, 16x8 at 128), row-major (rank =
 * row * cols + col, so under block placement a node of 8 cores holds one
 * row of 8); --dims 8x16 gives NAS LU's 128-rank shape, whose rows of 16
 * span two such nodes.  Defaults: 100 sweeps of 64-byte messages and 1e4
 * flops (1 us at 10 Gf/s) per sweep.
 */
#include "miniapp.h"

enum { NORTH, WEST, SOUTH, EAST };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct ma_args a = {
        .app = "wavefront",
        .summary = "wavefront: per sweep recv north+west, compute, send"
                   " south+east",
        .iters = 100, .bytes = 64, .compute = 1e4, .seed = 1, .ndims = 2,
    };
    ma_parse(argc, argv, &a);

    int c[2], peer[4];
    ma_coords(a.rank, 2, a.dims, c);
    const int step[4][2] = {{-1, 0}, {0, -1}, {1, 0}, {0, 1}};
    for (int k = 0; k < 4; k++) {
        int n[2] = {c[0] + step[k][0], c[1] + step[k][1]};
        peer[k] = ma_cell(2, a.dims, n);   /* rank order is grid order */
    }

    char *in = ma_alloc(&a, (size_t)a.bytes * 2);
    char *out = ma_alloc(&a, (size_t)a.bytes);
    int count = (int)a.bytes;
    struct ma_sum sum = {0, 0};

    /* A message travelling south carries tag SOUTH, east EAST: the two
     * inputs of a sweep cannot be confused even on a 1-wide grid. */
    for (long it = 0; it < a.iters; it++) {
        for (int k = NORTH; k <= WEST; k++)
            if (peer[k] >= 0) {
                char *buf = in + (size_t)k * (size_t)a.bytes;
                MPI_Recv(buf, count, MPI_BYTE, peer[k], k + 2,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                ma_check(&sum, buf, a.bytes,
                         ma_stamp(a.seed, it, peer[k], a.rank, k + 2));
            }
        ma_compute(a.compute);
        for (int k = SOUTH; k <= EAST; k++)
            if (peer[k] >= 0) {
                ma_put(out, a.bytes,
                       ma_stamp(a.seed, it, a.rank, peer[k], k));
                MPI_Send(out, count, MPI_BYTE, peer[k], k, MPI_COMM_WORLD);
            }
    }
    free(in);
    free(out);
    return ma_finish(&a, &sum);
}
