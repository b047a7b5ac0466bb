/*
 * prof_msgrate.c -- message-rate loop for the profiler overhead benchmark
 * (bench/prof_overhead.sh): 2 ranks ping-pong WINDOW 8-byte messages per
 * round with Isend/Irecv + Waitall, ITERS messages each way per repetition.
 * Prints the median over REPS repetitions of the time per message, in
 * nanoseconds.  On 1 rank the messages go to itself (the instruction count
 * measurement under valgrind, which wants one deterministic process).
 * Every run sends (REPS + 1) * (ITERS - ITERS % WINDOW) messages per rank
 * (one repetition warms up).
 *
 * With "paired", every repetition times the loop twice, once sending with
 * MPI_Isend (through a preloaded profiling library, if any) and once with
 * PMPI_Isend (around it), in alternating order, and prints the median
 * times per message of both and the median of the per-repetition ratios
 * MPI/PMPI.  The two halves of a pair run a few milliseconds apart in the
 * same processes, so a loaded machine slows both alike, where separate
 * runs seconds apart can differ by tens of per cent.
 *
 * Usage: prof_msgrate [ITERS [REPS [paired]]]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64
#define MAXREPS 999

typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                        MPI_Request *);

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return v[n / 2];
}

/* Seconds taken by ITERS messages each way to and from @p peer. */
static double loop(isend_fn isend, long iters, int peer)
{
    static double sbuf[WINDOW], rbuf[WINDOW];
    MPI_Request rq[2 * WINDOW];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long m = 0; m + WINDOW <= iters; m += WINDOW) {
        for (int i = 0; i < WINDOW; i++)
            MPI_Irecv(&rbuf[i], 1, MPI_DOUBLE, peer, i, MPI_COMM_WORLD,
                      &rq[i]);
        for (int i = 0; i < WINDOW; i++)
            isend(&sbuf[i], 1, MPI_DOUBLE, peer, i, MPI_COMM_WORLD,
                  &rq[WINDOW + i]);
        MPI_Waitall(2 * WINDOW, rq, MPI_STATUSES_IGNORE);
    }
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    int r, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long iters = argc > 1 ? atol(argv[1]) : 200000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    int paired = argc > 3 && !strcmp(argv[3], "paired");
    if (n > 2 || iters < WINDOW || reps < 1 || reps > MAXREPS ||
        (argc > 3 && !paired)) {
        if (r == 0)
            fprintf(stderr, "usage: mpirun -np 1|2 prof_msgrate "
                    "[ITERS [REPS [paired]]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = n == 1 ? 0 : 1 - r;
    double per = 1e9 / (double)(iters - iters % WINDOW);
    static double t[MAXREPS], tp[MAXREPS], q[MAXREPS];
    for (int rep = -1; rep < reps; rep++) {     /* rep -1 warms up */
        double a, b = 0;
        if (!paired)
            a = loop(MPI_Isend, iters, peer);
        else if (rep % 2) {
            a = loop(MPI_Isend, iters, peer);
            b = loop(PMPI_Isend, iters, peer);
        } else {
            b = loop(PMPI_Isend, iters, peer);
            a = loop(MPI_Isend, iters, peer);
        }
        if (rep >= 0) {
            t[rep] = a * per;
            tp[rep] = b * per;
            q[rep] = paired ? a / b : 0;
        }
    }
    if (r == 0 && !paired)
        printf("%.1f\n", median(t, reps));
    else if (r == 0)
        printf("%.1f %.1f %.4f\n", median(t, reps), median(tp, reps),
               median(q, reps));
    MPI_Finalize();
    return 0;
}
