/*
 * pingpong.c -- clustermap-pingpong, the MPI program `clustermap calibrate`
 * starts on an allocation: the machine's point-to-point latency and
 * bandwidth, pair by pair, in the pattern of Wang et al.'s "single circle
 * match": every round pairs all ranks at once (n/2 pairs, a round-robin
 * tournament, so n - 1 rounds for even n), and each pair ping-pongs a small
 * and a large message while the other pairs do the same -- the machine as a
 * running job loads it, not idle.
 *
 * Usage: clustermap-pingpong [--small BYTES] [--large BYTES] [--reps N]
 * Rank 0 prints, for the caller to parse:
 *   host R HOSTNAME CPU        each rank's node and the CPU it is bound to
 *                              (-1: not bound to one)
 *   pair A B SMALL_S LARGE_S   one-way seconds of the small and the large
 *                              message between ranks A < B: the median of
 *                              the round trips, halved
 * and "end" last; errors go to stderr with a non-zero exit.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sched_getaffinity */
#endif
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME 64

typedef struct {
    long small, large;   /* bytes */
    int reps;            /* timed round trips of the small message */
} opts_t;

static int parse(int argc, char **argv, opts_t *o)
{
    o->small = 8;
    o->large = 1 << 20;
    o->reps = 50;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : -1;
        int ok = end && !*end;
        if (!strcmp(argv[i], "--small") && ok && v >= 1 && v <= 1 << 20)
            o->small = v;
        else if (!strcmp(argv[i], "--large") && ok && v >= 1024 && v <= 1 << 28)
            o->large = v;
        else if (!strcmp(argv[i], "--reps") && ok && v >= 1 && v <= 100000)
            o->reps = (int)v;
        else {
            fprintf(stderr, "clustermap-pingpong: bad argument '%s' (expected "
                    "--small 1..1048576, --large 1024..268435456, --reps "
                    "1..100000, each with a number)\n", argv[i]);
            return -1;
        }
        i++;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One-way seconds between this rank and @p peer for @p bytes: the median
 * of @p reps round trips after one untimed, halved.  The lower rank sends
 * first. */
static double pingpong(int me, int peer, char *buf, long bytes, int reps, double *t)
{
    for (int k = 0; k <= reps; k++) {
        double t0 = MPI_Wtime();
        if (me < peer) {
            MPI_Send(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        }
        if (k > 0)
            t[k - 1] = (MPI_Wtime() - t0) / 2;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

/* Round @p r of the circle method on m (even) players: i's opponent. */
static int partner(int i, int r, int m)
{
    if (i == m - 1)
        return r;
    if (i == r)
        return m - 1;
    return ((2 * r - i) % (m - 1) + (m - 1)) % (m - 1);
}

/* The one CPU this rank is bound to, -1 when it may run on several. */
static int bound_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            return c;
    return -1;
}

int main(int argc, char **argv)
{
    int me, n;
    opts_t o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (parse(argc, argv, &o) < 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int m = n + n % 2;   /* a bye for odd n */
    int large_reps = o.reps / 10 > 3 ? o.reps / 10 : 3;
    char *buf = calloc((size_t)o.large, 1), me_name[NAME] = "", *names = NULL;
    double *t = malloc(sizeof(double) * (size_t)(o.reps + large_reps));
    double *mine = malloc(sizeof(double) * 3 * (size_t)m), *all = NULL;
    int cpu = bound_cpu(), *cpus = NULL;
    if (!buf || !t || !mine) {
        fprintf(stderr, "clustermap-pingpong: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    gethostname(me_name, NAME - 1);
    if (me == 0) {
        names = malloc((size_t)n * NAME);
        cpus = malloc(sizeof(int) * (size_t)n);
        all = malloc(sizeof(double) * 3 * (size_t)m * (size_t)n);
        if (!names || !cpus || !all) {
            fprintf(stderr, "clustermap-pingpong: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Gather(me_name, NAME, MPI_CHAR, names, NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Gather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, 0, MPI_COMM_WORLD);
    /* (partner, small, large) of each round this rank led; partner -1: none */
    for (int r = 0; r < m - 1; r++) {
        int p = partner(me, r, m);
        double *row = mine + 3 * r;
        row[0] = -1;
        MPI_Barrier(MPI_COMM_WORLD);   /* all pairs of a round at once */
        if (p >= n)
            continue;
        double s = pingpong(me, p, buf, o.small, o.reps, t);
        double l = pingpong(me, p, buf, o.large, large_reps, t);
        if (me < p) {
            row[0] = p;
            row[1] = s;
            row[2] = l;
        }
    }
    mine[3 * (m - 1)] = -1;
    MPI_Gather(mine, 3 * m, MPI_DOUBLE, all, 3 * m, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me == 0) {
        for (int i = 0; i < n; i++)
            printf("host %d %.*s %d\n", i, NAME, names + (size_t)i * NAME, cpus[i]);
        for (int i = 0; i < n; i++)
            for (int r = 0; r < m; r++) {
                const double *row = all + 3 * ((size_t)i * (size_t)m + (size_t)r);
                if (row[0] >= 0)
                    printf("pair %d %d %.9e %.9e\n", i, (int)row[0], row[1], row[2]);
            }
        printf("end small=%ld large=%ld\n", o.small, o.large);
        fflush(stdout);
    }
    free(buf);
    free(t);
    free(mine);
    free(names);
    free(cpus);
    free(all);
    MPI_Finalize();
    return 0;
}
