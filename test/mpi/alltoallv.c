/*
 * alltoallv.c -- MPI_Alltoallv (and Ialltoallv, in place) with uneven
 * counts, some zero: rank s sends (3 s + 5 d) mod 7 ints to rank d.
 * Reference algorithm: direct, a zero block is no message.
 * Usage: alltoallv EXPECTED_FILE
 */
#include <mpi.h>
#include <stdlib.h>
#include "expect.h"

static int cnt(int s, int d) { return (3 * s + 5 * d) % 7; }
/* symmetric counts for the in-place call */
static int sym(int s, int d) { return (s + d) % 3; }

int main(int argc, char **argv)
{
    int n, r;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int *sc = malloc(4 * n * sizeof *sc), *sd = sc + n, *rc = sc + 2 * n,
        *rd = sc + 3 * n;
    int *sbuf = malloc(7 * n * sizeof *sbuf), *rbuf = malloc(7 * n * sizeof *rbuf);
    for (int i = 0; i < 7 * n; i++)
        sbuf[i] = r;
    for (int d = 0, so = 0, ro = 0; d < n; d++) {
        sc[d] = cnt(r, d);
        rc[d] = cnt(d, r);
        sd[d] = so;
        rd[d] = ro;
        so += sc[d];
        ro += rc[d];
    }
    MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int d = 0, o = 0; d < n; d++) {
        rc[d] = sym(r, d);
        rd[d] = o;
        o += rc[d];
    }
    MPI_Request rq;
    MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, rc, rd,
                   MPI_INT, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (r == 0) {
        exp_init(n);
        for (int s = 0; s < n; s++)
            for (int d = 0; d < n; d++) {
                if (d == s)
                    continue;
                if (cnt(s, d))
                    exp_add(EXP_COLL, s, d, 4ull * cnt(s, d), 1);
                if (sym(s, d))
                    exp_add(EXP_COLL, s, d, 4ull * sym(s, d), 1);
            }
        exp_write(argv[1]);
    }
    free(sc);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
