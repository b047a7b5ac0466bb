/*
 * halo2d.c -- a periodic 2-D halo exchange on a Cartesian communicator with
 * persistent requests: Send_init/Recv_init once, Startall for 5 steps (and
 * one step with single MPI_Start calls), Request_free.  East-west messages
 * carry NY doubles, north-south ones NX doubles.
 * Usage: halo2d EXPECTED_FILE
 */
#include <mpi.h>
#include "expect.h"

#define NX 4
#define NY 6
#define STEPS 5

int main(int argc, char **argv)
{
    int n, r, dims[2] = { 0, 0 }, per[2] = { 1, 1 };
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Dims_create(n, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart);
    int cr, nb[4];
    MPI_Comm_rank(cart, &cr);
    MPI_Cart_shift(cart, 0, 1, &nb[0], &nb[1]);   /* north, south */
    MPI_Cart_shift(cart, 1, 1, &nb[2], &nb[3]);   /* west, east */
    double out[4][NY], in[4][NY];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < NY; j++)
            out[i][j] = cr;
    MPI_Request rq[8];
    for (int d = 0; d < 4; d++) {
        int len = d < 2 ? NX : NY;
        MPI_Recv_init(in[d], len, MPI_DOUBLE, nb[d], d ^ 1, cart, &rq[d]);
        MPI_Send_init(out[d], len, MPI_DOUBLE, nb[d], d, cart, &rq[4 + d]);
    }
    for (int s = 0; s < STEPS; s++) {
        MPI_Startall(8, rq);
        MPI_Waitall(8, rq, MPI_STATUSES_IGNORE);
    }
    for (int k = 0; k < 8; k++)
        MPI_Start(&rq[k]);
    MPI_Waitall(8, rq, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 8; k++)
        MPI_Request_free(&rq[k]);
    MPI_Comm_free(&cart);

    if (r == 0) {
        /* reorder = 0: Cartesian rank = world rank, row-major coordinates */
        exp_init(n);
        for (int s = 0; s < n; s++) {
            int i = s / dims[1], j = s % dims[1];
            int north = ((i + dims[0] - 1) % dims[0]) * dims[1] + j;
            int south = ((i + 1) % dims[0]) * dims[1] + j;
            int west = i * dims[1] + (j + dims[1] - 1) % dims[1];
            int east = i * dims[1] + (j + 1) % dims[1];
            exp_add(EXP_P2P, s, north, (STEPS + 1) * NX * 8, STEPS + 1);
            exp_add(EXP_P2P, s, south, (STEPS + 1) * NX * 8, STEPS + 1);
            exp_add(EXP_P2P, s, west, (STEPS + 1) * NY * 8, STEPS + 1);
            exp_add(EXP_P2P, s, east, (STEPS + 1) * NY * 8, STEPS + 1);
        }
        exp_write(argv[1]);
    }
    MPI_Finalize();
    return 0;
}
