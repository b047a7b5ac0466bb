/*
 * halo_scrambled: a periodic 2-D halo exchange whose ranks are scattered
 * over the grid, so that ranks close in rank order (which Slurm's block
 * layout puts on the same node) are far apart in the grid.  Rank r owns
 * grid cell g(r) = (r * s) mod n, s the smallest integer >= n/3 coprime
 * with n; the grid is the MPI_Dims_create(n, 2) one, row-major.  Each rank
 * exchanges HALO_BYTES with its four neighbours STEPS times, then prints
 *     rank R size N host H cpus LIST
 * (the format of hello_hosts.c; rank 0 prints all lines in rank order).
 * Usage: halo_scrambled [STEPS]
 */
#include "report_host.h"
#include <stdlib.h>

#define HALO_DOUBLES 4096 /* 32 KiB per message */

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}


/* Open MPI 4.1.4's TCP transport sometimes crashes (a call through NULL in
 * its receive handler) when two ranks open connections to each other at
 * the same moment, which a halo's first step does between nodes.  Opening
 * every connection from the lower rank first avoids it; the one-byte
 * messages are part of the program's traffic like any other. */
static void connect_in_order(const int *nb, int r)
{
    MPI_Request rq[4];
    char tok[4] = { 0 }, got[4];
    int k = 0;
    for (int d = 0; d < 4; d++) {
        if (nb[d] > r)
            MPI_Isend(&tok[d], 1, MPI_CHAR, nb[d], 100 + d, MPI_COMM_WORLD, &rq[k++]);
        else if (nb[d] < r)
            MPI_Irecv(&got[d], 1, MPI_CHAR, nb[d], 100 + (d ^ 1), MPI_COMM_WORLD,
                      &rq[k++]);
    }
    MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    int n, r, dims[2] = { 0, 0 };
    int steps = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Init(&argc, &argv);
    settle_after_init();
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Dims_create(n, 2, dims);

    int s = n / 3 > 1 ? n / 3 : 1;
    while (gcd(s, n) != 1)
        s++;
    int *rank_of = malloc((size_t)n * sizeof(int));   /* grid cell -> rank */
    for (int k = 0; k < n; k++)
        rank_of[(int)(((long)k * s) % n)] = k;
    int g = (int)(((long)r * s) % n), i = g / dims[1], j = g % dims[1];
    int nb[4] = {
        rank_of[((i + dims[0] - 1) % dims[0]) * dims[1] + j],
        rank_of[((i + 1) % dims[0]) * dims[1] + j],
        rank_of[i * dims[1] + (j + dims[1] - 1) % dims[1]],
        rank_of[i * dims[1] + (j + 1) % dims[1]],
    };
    connect_in_order(nb, r);
    double *out = calloc(4 * HALO_DOUBLES, sizeof(double));
    double *in = calloc(4 * HALO_DOUBLES, sizeof(double));
    for (int step = 0; step < steps; step++) {
        MPI_Request rq[8];
        for (int d = 0; d < 4; d++) {
            MPI_Irecv(in + d * HALO_DOUBLES, HALO_DOUBLES, MPI_DOUBLE, nb[d], d ^ 1,
                      MPI_COMM_WORLD, &rq[d]);
            MPI_Isend(out + d * HALO_DOUBLES, HALO_DOUBLES, MPI_DOUBLE, nb[d], d,
                      MPI_COMM_WORLD, &rq[4 + d]);
        }
        MPI_Waitall(8, rq, MPI_STATUSES_IGNORE);
    }

    report_host();
    free(out);
    free(in);
    free(rank_of);
    MPI_Finalize();
    return 0;
}
