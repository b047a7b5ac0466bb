/*
 * prof_msgrate.c -- message-rate loop for the profiler overhead benchmark
 * (bench/prof_overhead.sh): 2 ranks ping-pong WINDOW 8-byte messages per
 * round with Isend/Irecv + Waitall, ITERS messages each way per repetition.
 * Prints the median over REPS repetitions of the time per message, in
 * nanoseconds.  Usage: prof_msgrate [ITERS [REPS]]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define WINDOW 64

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int r, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long iters = argc > 1 ? atol(argv[1]) : 200000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (n != 2 || iters < WINDOW || reps < 1 || reps > 99) {
        if (r == 0)
            fprintf(stderr, "usage: mpirun -np 2 prof_msgrate [ITERS [REPS]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = 1 - r;
    double sbuf[WINDOW], rbuf[WINDOW], t[100];
    MPI_Request rq[2 * WINDOW];
    for (int i = 0; i < WINDOW; i++)
        sbuf[i] = i;
    for (int rep = -1; rep < reps; rep++) {     /* rep -1 warms up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long m = 0; m + WINDOW <= iters; m += WINDOW) {
            for (int i = 0; i < WINDOW; i++)
                MPI_Irecv(&rbuf[i], 1, MPI_DOUBLE, peer, i, MPI_COMM_WORLD,
                          &rq[i]);
            for (int i = 0; i < WINDOW; i++)
                MPI_Isend(&sbuf[i], 1, MPI_DOUBLE, peer, i, MPI_COMM_WORLD,
                          &rq[WINDOW + i]);
            MPI_Waitall(2 * WINDOW, rq, MPI_STATUSES_IGNORE);
        }
        double dt = MPI_Wtime() - t0;
        if (rep >= 0)
            t[rep] = dt;
    }
    if (r == 0) {
        qsort(t, (size_t)reps, sizeof t[0], cmp_double);
        printf("%.1f\n", t[reps / 2] / (double)(iters - iters % WINDOW) * 1e9);
    }
    MPI_Finalize();
    return 0;
}
