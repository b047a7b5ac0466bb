/* hotpath.c -- exercises the cases the inlined send path must hand over:
 * alternating named types, derived types freed and re-created (handle
 * reuse), communicators freed and re-created with other rank orders, count
 * 0, MPI_PROC_NULL.  Usage: hotpath EXPECTED [multi] */
#include <mpi.h>
#include <string.h>
#include "expect.h"

static void sr(const void *b, int cnt, MPI_Datatype t, int dst, int src,
               MPI_Comm c)
{
    static char in[4096];
    MPI_Sendrecv(b, cnt, t, dst, 3, in, cnt, t, src, 3, c, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int n, r, prov;
    if (argc > 2 && !strcmp(argv[2], "multi"))
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    static char buf[4096];
    int R = (r + 1) % n, L = (r + n - 1) % n;
    /* A: alternating named types */
    for (int i = 0; i < 10; i++)
        sr(buf, i, i % 2 ? MPI_INT : MPI_DOUBLE, R, L, MPI_COMM_WORLD);
    /* B: derived types, freed and re-created */
    MPI_Datatype t0 = MPI_DATATYPE_NULL;
    int reused = 0;
    for (int j = 0; j < 6; j++) {
        MPI_Datatype t;
        MPI_Type_contiguous(j + 1, j % 2 ? MPI_INT : MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        if (j == 0) t0 = t; else reused |= t == t0;
        sr(buf, 2, t, R, L, MPI_COMM_WORLD);
        sr(buf, 2, t, R, L, MPI_COMM_WORLD);
        MPI_Type_free(&t);
    }
    /* C: communicators freed and re-created, rank order flipping */
    MPI_Comm c0 = MPI_COMM_NULL;
    int creused = 0;
    for (int j = 0; j < 4; j++) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, 0, j % 2 ? -r : r, &c);
        if (j == 0) c0 = c; else creused |= c == c0;
        int cr, cn;
        MPI_Comm_rank(c, &cr);
        MPI_Comm_size(c, &cn);
        sr(buf, 1, MPI_LONG, (cr + 1) % cn, (cr + cn - 1) % cn, c);
        sr(buf, 1, MPI_LONG, (cr + 1) % cn, (cr + cn - 1) % cn, c);
        MPI_Comm_free(&c);
    }
    /* D: count 0, PROC_NULL; E: back on WORLD */
    sr(buf, 0, MPI_INT, R, L, MPI_COMM_WORLD);
    MPI_Send(buf, 5, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    sr(buf, 3, MPI_INT, R, L, MPI_COMM_WORLD);
    if (r == 0) {
        printf("derived handle reused: %d, comm handle reused: %d\n",
               reused, creused);
        exp_init(n);
        for (int s = 0; s < n; s++) {
            int d = (s + 1) % n;
            for (int i = 0; i < 10; i++)
                exp_add(EXP_P2P, s, d, (unsigned long long)i * (i % 2 ? 4 : 8), 1);
            for (int j = 0; j < 6; j++)
                exp_add(EXP_P2P, s, d, 2ull * 2 * (j + 1) * (j % 2 ? 4 : 8), 2);
            for (int j = 0; j < 4; j++) {
                /* key r: sub-rank = world rank; key -r: reversed */
                int dd = j % 2 ? (s + n - 1) % n : d;
                exp_add(EXP_P2P, s, dd, 2 * sizeof(long), 2);
            }
            exp_add(EXP_P2P, s, d, 0, 1);
            exp_add(EXP_P2P, s, d, 12, 1);
        }
        exp_write(argv[1]);
    }
    MPI_Finalize();
    return 0;
}
