/*
 * tnbc_order.c -- a program that reads what MPI_Alltoall received in an
 * order of its own, for the tnbc overlay's trace mode and priorities
 * (docs/overlays.md, "Trace and priorities"): three calls at one call
 * site, each followed by a pass over the receive buffer block by block
 * from the last rank's block to the first (every block whole pages, so
 * each is first touched by a page fault of its own).  A trace of it must
 * give the order n-1, n-2, ..., 0 without the rank itself; a run with
 * that trace as priorities must give the same result.
 *
 * Checks every value (prints "ERROR ..." and exits 1 on a wrong one) and
 * ends with rank 0's "checksum <hex>" (mini.h) over every rank's hash of
 * what it read, in the order it read it.
 */
#include <stdint.h>
#include <string.h>

#include "mini.h"

#define B 4096   /* doubles per block: 32 KiB, whole pages */
#define CALLS 3

static double val(int c, int src, int dst, int i)
{
    return (double)(((uint32_t)c * 2654435761u) ^ ((uint32_t)src << 20) ^
                    ((uint32_t)dst << 10) ^ (uint32_t)i * 40503u);
}

int main(int argc, char **argv)
{
    int me, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double *s = NULL, *r = NULL;
    if (posix_memalign((void **)&s, 4096, (size_t)n * B * sizeof *s) ||
        posix_memalign((void **)&r, 4096, (size_t)n * B * sizeof *r))
        mini_fail("out of memory", me);
    uint64_t h = MINI_FNV_START;
    for (int c = 0; c < CALLS; c++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < B; i++)
                s[(size_t)j * B + i] = val(c, me, j, i);
        MPI_Alltoall(s, B, MPI_DOUBLE, r, B, MPI_DOUBLE, MPI_COMM_WORLD);
        for (int k = 0; k < n; k++) {
            int j = n - 1 - k;   /* the last rank's block first */
            const double *x = r + (size_t)j * B;
            for (int i = 0; i < B; i++)
                if (x[i] != val(c, j, me, i)) {
                    printf("ERROR rank %d: call %d, block %d, %d: %g, "
                           "expected %g\n", me, c, j, i, x[i], val(c, j, me, i));
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            h = mini_fnv(h, x, B * sizeof *x);
        }
    }
    mini_checksum(&h, sizeof h, MPI_COMM_WORLD);
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
