/*
 * guard_sleep: a program whose speed depends on its placement in a way the
 * cost model cannot see, for the guard's test (t0513).  Ranks form groups
 * of stride n/4 ({0, 4, 8, 12} of 16 ranks) that exchange much data, so a
 * communication-aware placement puts each group on one node, while Slurm's
 * block layout spreads it over four.  Then every rank sleeps
 *     same:   3 s per group peer on its own node     (placement is slower)
 *     other:  3 s per group peer on another node     (placement is faster)
 * and prints "rank R size N host H cpus LIST" (report_host.h).
 * Usage: guard_sleep same|other
 */
#include "report_host.h"
#include <stdlib.h>
#include <time.h>

#define DOUBLES 4096   /* 32 KiB per message */
#define STEPS 20
#define NAME 64

int main(int argc, char **argv)
{
    int n, r;
    MPI_Init(&argc, &argv);
    settle_after_init();
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int same = argc > 1 && !strcmp(argv[1], "same");
    int stride = n >= 4 ? n / 4 : 1, gsize = 0;
    int peers[64];
    for (int p = r % stride; p < n && gsize < 64; p += stride)
        if (p != r)
            peers[gsize++] = p;
    /* Every connection, not only the group's, is opened by the lower rank
     * first (see halo_scrambled.c): the Allgather below would otherwise
     * open the rest from both ends at once. */
    char tok = 0, got;
    for (int p = 0; p < n; p++) {
        if (p > r)
            MPI_Send(&tok, 1, MPI_CHAR, p, 7, MPI_COMM_WORLD);
        else if (p < r)
            MPI_Recv(&got, 1, MPI_CHAR, p, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double *out = calloc(DOUBLES, sizeof(double));
    double *in = calloc((size_t)gsize * DOUBLES + 1, sizeof(double));
    MPI_Request rq[128];
    for (int step = 0; step < STEPS; step++) {
        for (int k = 0; k < gsize; k++) {
            MPI_Irecv(in + (size_t)k * DOUBLES, DOUBLES, MPI_DOUBLE, peers[k], 1,
                      MPI_COMM_WORLD, &rq[k]);
            MPI_Isend(out, DOUBLES, MPI_DOUBLE, peers[k], 1, MPI_COMM_WORLD,
                      &rq[gsize + k]);
        }
        MPI_Waitall(2 * gsize, rq, MPI_STATUSES_IGNORE);
    }
    char *names = calloc((size_t)n, NAME), me[NAME] = "";
    gethostname(me, sizeof me - 1);
    MPI_Allgather(me, NAME, MPI_CHAR, names, NAME, MPI_CHAR, MPI_COMM_WORLD);
    int near = 0;
    for (int k = 0; k < gsize; k++)
        near += !strncmp(names + (size_t)peers[k] * NAME, me, NAME);
    double secs = 3.0 * (same ? near : gsize - near);
    struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
    nanosleep(&ts, NULL);
    report_host();
    free(out);
    free(in);
    free(names);
    MPI_Finalize();
    return 0;
}
