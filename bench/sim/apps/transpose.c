/*
 * transpose.c -- the all-to-all transpose of a distributed FFT or of NAS
 * FT/IS: every iteration one MPI_Alltoall of --bytes per pair of ranks,
 * then --compute flops.  Every rank talks to every other alike: with the
 * same number of ranks per node, every node sends the same volume off node
 * whatever the placement, so bytes x distance cannot tell placements apart
 * (the negative control of the judge).  Simulated times still differ, from
 * how the algorithm's order of messages meets the topology: on a 2:1 fat
 * tree of 8-core nodes, block, cyclic and random were within 8 % at 64
 * ranks, but random was 37 % slower than block at 128 ranks (256 B,
 * SMPI's default algorithm) and 21 % faster (4 KiB, smpi/alltoall:pair).
 *
 * Defaults: 10 iterations of 256 bytes per pair and 1e6 flops.  Small on
 * purpose: SMPI's default MPI_Alltoall (basic_linear) starts all n^2
 * messages at once, and its flow model then takes about 12 s of wall time
 * per iteration at 128 ranks with 4 KiB per pair (10 iterations of 256 B
 * take 0.5 s: small messages finish before the next ones start).  For
 * larger sizes pass --cfg=smpi/alltoall:pair to smpirun, both when
 * recording and when replaying (pairwise exchange, what Open MPI 4.1 uses
 * above 3000 bytes per pair): 10 iterations of 4 KiB at 128 ranks then
 * take 2 s.  The simulator copies real buffers: 2 * ranks^2 * bytes.
 */
#include "miniapp.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct ma_args a = {
        .app = "transpose",
        .summary = "all-to-all transpose: MPI_Alltoall of --bytes per pair",
        .iters = 10, .bytes = 256, .compute = 1e6, .seed = 1,
    };
    ma_parse(argc, argv, &a);

    size_t block = (size_t)a.bytes, n = (size_t)a.size;
    char *sbuf = ma_alloc(&a, block * n);
    char *rbuf = ma_alloc(&a, block * n);
    struct ma_sum sum = {0, 0};

    for (long it = 0; it < a.iters; it++) {
        for (int r = 0; r < a.size; r++)
            ma_put(sbuf + (size_t)r * block, a.bytes,
                   ma_stamp(a.seed, it, a.rank, r, 0));
        MPI_Alltoall(sbuf, (int)a.bytes, MPI_BYTE, rbuf, (int)a.bytes,
                     MPI_BYTE, MPI_COMM_WORLD);
        for (int r = 0; r < a.size; r++)
            ma_check(&sum, rbuf + (size_t)r * block, a.bytes,
                     ma_stamp(a.seed, it, r, a.rank, 0));
        ma_compute(a.compute);
    }
    free(sbuf);
    free(rbuf);
    return ma_finish(&a, &sum);
}
