/*
 * subcomm.c -- traffic on communicators other than MPI_COMM_WORLD.
 * MPI_Comm_split by parity with key -rank (so sub-ranks run backwards),
 * a ring on each half, a Bcast from sub-rank 0, then an intercommunicator
 * between the halves over which every rank sends to remote rank 0.
 * Usage: subcomm EXPECTED_FILE    (at least 2 ranks)
 */
#include <mpi.h>
#include "expect.h"

/* World rank of sub-rank k in the half of parity c (key -rank: sub-rank 0
 * is the highest world rank of that parity). */
static int world_of(int n, int c, int k)
{
    int top = (n - 1) % 2 == c ? n - 1 : n - 2;
    return top - 2 * k;
}

static int half_size(int n, int c) { return (n - c + 1) / 2; }

int main(int argc, char **argv)
{
    int n, r;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &half);
    int hr, hn;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    char buf[64] = { 0 }, in[64];
    MPI_Sendrecv(buf, 64, MPI_CHAR, (hr + 1) % hn, 0, in, 64, MPI_CHAR,
                 (hr + hn - 1) % hn, 0, half, MPI_STATUS_IGNORE);
    long v = 42;
    MPI_Bcast(&v, 1, MPI_LONG, 0, half);

    /* leaders: sub-rank 0 of each half, i.e. the top world rank of a parity */
    int remote_leader = world_of(n, 1 - r % 2, 0);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 7, &inter);
    int rn;
    MPI_Comm_remote_size(inter, &rn);
    double x = r;
    MPI_Request rq;
    MPI_Isend(&x, 1, MPI_DOUBLE, 0, 1, inter, &rq);
    if (hr == 0)
        for (int k = 0; k < rn; k++)
            MPI_Recv(in, 8, MPI_CHAR, MPI_ANY_SOURCE, 1, inter,
                     MPI_STATUS_IGNORE);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    if (r == 0) {
        exp_init(n);
        for (int c = 0; c < 2; c++) {
            int m = half_size(n, c);
            for (int k = 0; k < m; k++) {
                int s = world_of(n, c, k);
                exp_add(EXP_P2P, s, world_of(n, c, (k + 1) % m), 64, 1);
                exp_add(EXP_P2P, s, world_of(n, 1 - c, 0), 8, 1);
                if (k > 0)  /* binomial parent of k: k with its low bit cleared */
                    exp_add(EXP_COLL, world_of(n, c, k & (k - 1)), s, 8, 1);
            }
        }
        exp_write(argv[1]);
    }
    MPI_Finalize();
    return 0;
}
