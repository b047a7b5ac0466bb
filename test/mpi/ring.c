/*
 * ring.c -- every point-to-point send flavour around a ring, plus sends the
 * profiler must drop (MPI_PROC_NULL) or count as empty (count 0).
 * Usage: ring EXPECTED_FILE
 */
#include <mpi.h>
#include <stdlib.h>
#include "expect.h"

int main(int argc, char **argv)
{
    int n, r;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int right = (r + 1) % n, left = (r + n - 1) % n;
    double buf[1000], in[1000];
    for (int i = 0; i < 1000; i++)
        buf[i] = i;
    static char bsendbuf[1 << 16];
    MPI_Buffer_attach(bsendbuf, sizeof bsendbuf);

    /* blocking sends to the right: 3 x 100 doubles, then one of each mode */
    for (int it = 0; it < 3; it++)
        MPI_Sendrecv(buf, 100, MPI_DOUBLE, right, 1, in, 100, MPI_DOUBLE,
                     left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Request rq[8];
    MPI_Irecv(in, 7, MPI_INT, left, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Send(buf, 7, MPI_INT, right, 2, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Irecv(in, 11, MPI_CHAR, left, 3, MPI_COMM_WORLD, &rq[0]);
    MPI_Ssend(buf, 11, MPI_CHAR, right, 3, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Irecv(in, 13, MPI_SHORT, left, 4, MPI_COMM_WORLD, &rq[0]);
    MPI_Barrier(MPI_COMM_WORLD);     /* the receive is posted: Rsend is ok */
    MPI_Rsend(buf, 13, MPI_SHORT, right, 4, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Irecv(in, 17, MPI_FLOAT, left, 5, MPI_COMM_WORLD, &rq[0]);
    MPI_Bsend(buf, 17, MPI_FLOAT, right, 5, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);

    /* non-blocking sends to the left */
    MPI_Irecv(in, 19, MPI_INT, right, 6, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(in + 100, 23, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[1]);
    MPI_Irecv(in + 200, 29, MPI_INT, right, 8, MPI_COMM_WORLD, &rq[2]);
    MPI_Irecv(in + 300, 31, MPI_INT, right, 9, MPI_COMM_WORLD, &rq[3]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(buf, 19, MPI_INT, left, 6, MPI_COMM_WORLD, &rq[4]);
    MPI_Ibsend(buf, 23, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[5]);
    MPI_Issend(buf, 29, MPI_INT, left, 8, MPI_COMM_WORLD, &rq[6]);
    MPI_Irsend(buf, 31, MPI_INT, left, 9, MPI_COMM_WORLD, &rq[7]);
    MPI_Waitall(8, rq, MPI_STATUSES_IGNORE);

    /* replace in place, an empty message, and sends that go nowhere */
    MPI_Sendrecv_replace(in, 37, MPI_DOUBLE, right, 10, left, 10,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(buf, 0, MPI_INT, right, 11, in, 0, MPI_INT, left, 11,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, 50, MPI_INT, MPI_PROC_NULL, 12, MPI_COMM_WORLD);
    MPI_Isend(buf, 50, MPI_INT, MPI_PROC_NULL, 12, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);

    void *b;
    int bs;
    MPI_Buffer_detach(&b, &bs);

    if (r == 0) {
        exp_init(n);
        for (int s = 0; s < n; s++) {
            int R = (s + 1) % n, L = (s + n - 1) % n;
            exp_add(EXP_P2P, s, R, 3 * 800 + 28 + 11 + 26 + 68 + 37 * 8, 9);
            exp_add(EXP_P2P, s, L, 4 * (19 + 23 + 29 + 31), 4);
            /* the barriers: dissemination */
            for (int d = 1; d < n; d <<= 1)
                exp_add(EXP_COLL, s, (s + d) % n, 0, 2);
        }
        exp_write(argv[1]);
    }
    MPI_Finalize();
    return 0;
}
