/*
 * mini_transpose.c -- the transpose of a distributed FFT: an N x N array
 * of doubles (N = B n), B rows a rank, is worked on along its rows, then
 * transposed with one MPI_Alltoall (block d of every rank's rows goes to
 * rank d), and the received blocks are worked on in the order they came
 * in; three times.  The exchange is uniform (every block B x B doubles), so
 * it is MPI_Alltoall's, never the css overlay's (docs/overlays.md).
 *
 * Usage: mini_transpose [B]   (default 32)
 * Prints "checksum <hex>" of every rank's rows at the end.
 * Fortran twin: mini_transpose.F90 (same numbers, same checksum).
 */
#include <mpi.h>
#include <stdlib.h>

#include "mini.h"

#define PASSES 3

/* The work along a row, in order: each element mixed with the one before,
 * like a butterfly pass that depends on its predecessor. */
static void sweep(double *row, int len)
{
    for (int j = 1; j < len; j++)
        row[j] = row[j] + 0.5 * row[j - 1];
}

int main(int argc, char **argv)
{
    int n, r;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int b = argc > 1 ? atoi(argv[1]) : 32, len = b * n;
    size_t cells = (size_t)b * (size_t)len;
    double *a = malloc(cells * sizeof *a), *sbuf = malloc(cells * sizeof *sbuf),
           *rbuf = malloc(cells * sizeof *rbuf);
    if (b < 1 || !a || !sbuf || !rbuf)
        mini_fail("usage: mini_transpose [B], B >= 1", r);
    /* element (i, j) of the whole array: global row r B + i */
    for (int i = 0; i < b; i++)
        for (int j = 0; j < len; j++)
            a[(size_t)i * len + j] = (double)(((long)(r * b + i) * len + j) % 1000) * 0.001;
    for (int pass = 0; pass < PASSES; pass++) {
        for (int i = 0; i < b; i++)
            sweep(&a[(size_t)i * len], len);
        /* block d: columns d B .. d B + B - 1 of my rows, row by row */
        for (int d = 0; d < n; d++)
            for (int i = 0; i < b; i++)
                for (int k = 0; k < b; k++)
                    sbuf[(size_t)d * b * b + (size_t)i * b + k] = a[(size_t)i * len + d * b + k];
        MPI_Alltoall(sbuf, b * b, MPI_DOUBLE, rbuf, b * b, MPI_DOUBLE, MPI_COMM_WORLD);
        /* block s holds rows s B .. of the old array, my columns: my new row
         * i (old column r B + i) takes their element i, block after block */
        for (int s = 0; s < n; s++) {
            for (int i = 0; i < b; i++)
                for (int k = 0; k < b; k++)
                    a[(size_t)i * len + s * b + k] = rbuf[(size_t)s * b * b + (size_t)k * b + i];
            for (int i = 0; i < b; i++)
                sweep(&a[(size_t)i * len + s * b], b);
        }
    }
    mini_checksum(a, (int)(cells * sizeof *a), MPI_COMM_WORLD);
    free(rbuf);
    free(sbuf);
    free(a);
    MPI_Finalize();
    return 0;
}
