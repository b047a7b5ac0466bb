/* pingpong.c -- what the simulated network gives one pair of ranks, alone
 * and under contention.  Build with smpicc, run under smpirun;
 * bench/sim/pingpong.sh does both on a bench/sim/mkplatform platform.
 *
 *   pingpong [REPS_SMALL [REPS_LARGE]]
 *     Rank 0 ping-pongs with ranks 1, 2, ... in turn (the other ranks wait
 *     in a barrier) with 8 B, 1 MiB and 16 MiB messages: REPS_SMALL
 *     (default 1000) round trips of 8 B, REPS_LARGE (default 20) of the
 *     others, after a tenth as many warm-up rounds.  One-way time = round
 *     trip / 2; bandwidth = size / one-way time.  Prints, from rank 0:
 *       pp <partner> <bytes> <one-way us> <GB/s>
 *
 *   pingpong stream [MIB [REPS]]
 *     Contention: with 2k ranks, ranks 0..k-1 each send REPS (default 4)
 *     messages of MIB MiB (default 16) to rank i + k, all at once; each
 *     receiver acknowledges with an empty message at the end.  Prints, from
 *     rank 0, one line per pair:
 *       st <sender> <receiver> <bytes> <seconds> <GB/s>
 *
 * GB/s = 1e9 bytes per second.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const long sizes[] = {8, 1L << 20, 16L << 20};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int arg_int(const char *s, const char *what, int rank)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 1 || v > 1000000) {
        if (rank == 0)
            fprintf(stderr, "pingpong: %s: expected an integer from 1 to 1000000, got '%s'\n",
                    what, s);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return (int)v;
}

static char *alloc(size_t n)
{
    char *b = malloc(n);
    if (!b) {
        fprintf(stderr, "pingpong: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(b, 1, n);
    return b;
}

static void pingpong(int rank, int np, int reps_small, int reps_large)
{
    char *buf = alloc((size_t)sizes[NSIZES - 1]);

    for (int peer = 1; peer < np; peer++) {
        for (int s = 0; s < NSIZES; s++) {
            int size = (int)sizes[s];
            int reps = size <= 65536 ? reps_small : reps_large;
            int warm = reps / 10 > 0 ? reps / 10 : 1;
            double t0 = 0.0;

            MPI_Barrier(MPI_COMM_WORLD);
            if (rank != 0 && rank != peer)
                continue;
            for (int i = 0; i < warm + reps; i++) {
                if (i == warm)
                    t0 = MPI_Wtime();
                if (rank == 0) {
                    MPI_Send(buf, size, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                    MPI_Recv(buf, size, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    MPI_Send(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
                }
            }
            if (rank == 0) {
                double one_way = (MPI_Wtime() - t0) / reps / 2.0;
                printf("pp %d %d %.4f %.4f\n", peer, size, one_way * 1e6,
                       size / one_way / 1e9);
                fflush(stdout);
            }
        }
    }
    free(buf);
}

static void stream(int rank, int np, int mib, int reps)
{
    int half = np / 2;
    size_t size = (size_t)mib << 20;
    char *buf = alloc(size);
    double t = 0.0, *all = NULL;

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank < half) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < reps; i++)
            MPI_Send(buf, (int)size, MPI_BYTE, rank + half, 1, MPI_COMM_WORLD);
        MPI_Recv(NULL, 0, MPI_BYTE, rank + half, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t0;
    } else if (rank < 2 * half) {
        for (int i = 0; i < reps; i++)
            MPI_Recv(buf, (int)size, MPI_BYTE, rank - half, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, rank - half, 2, MPI_COMM_WORLD);
    }
    if (rank == 0)
        all = malloc(sizeof *all * (size_t)np);
    MPI_Gather(&t, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double bytes = (double)size * reps;
        for (int i = 0; i < half; i++)
            printf("st %d %d %.0f %.9f %.4f\n", i, i + half, bytes, all[i],
                   bytes / all[i] / 1e9);
        fflush(stdout);
        free(all);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, np;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 1 && !strcmp(argv[1], "stream")) {
        int mib = argc > 2 ? arg_int(argv[2], "MiB", rank) : 16;
        int reps = argc > 3 ? arg_int(argv[3], "repetitions", rank) : 4;
        if (argc > 4 || np < 2 || np % 2) {
            if (rank == 0)
                fprintf(stderr, "pingpong: stream [MIB [REPS]] needs an even number of ranks >= 2\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        stream(rank, np, mib, reps);
    } else {
        int small = argc > 1 ? arg_int(argv[1], "REPS_SMALL", rank) : 1000;
        int large = argc > 2 ? arg_int(argv[2], "REPS_LARGE", rank) : 20;
        if (argc > 3 || np < 2) {
            if (rank == 0)
                fprintf(stderr, "pingpong: usage: pingpong [REPS_SMALL [REPS_LARGE]] (2 ranks or more)"
                                " | pingpong stream [MIB [REPS]]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        pingpong(rank, np, small, large);
    }
    MPI_Finalize();
    return 0;
}
