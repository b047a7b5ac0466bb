/*
 * alltoallv_aside.c -- MPI_Alltoallv calls the css overlay steps aside
 * from (docs/overlays.md), each checked element by element: a uniform
 * exchange on MPI_COMM_WORLD (twice: the second call finds the verdict
 * cached), one in place, one on MPI_COMM_SELF (one rank), one on an
 * intercommunicator between the two halves of MPI_COMM_WORLD (at least 2
 * ranks).  Element e of the block rank s sends to rank d is
 * 1000000 s + 1000 d + e.
 *
 * Usage: alltoallv_aside   (prints "checksum <hex>" of everything received)
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mini.h"

#define K 5   /* elements a block in the uniform exchanges */

static int value(int s, int d, int e)
{
    return 1000000 * s + 1000 * d + e;
}

/* One uniform MPI_Alltoallv over @p comm (to its remote group for an
 * intercommunicator; in place when @p in_place) from this rank, rank
 * @p me_w of MPI_COMM_WORLD, to peers whose world ranks are @p wbase + j;
 * what it receives is checked and appended to @p out at *at. */
static void uniform(MPI_Comm comm, int in_place, int me_w, int wbase, int *out, int *at)
{
    int n, inter;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        MPI_Comm_remote_size(comm, &n);
    else
        MPI_Comm_size(comm, &n);
    int *cnt = malloc(2 * (size_t)n * sizeof *cnt), *dsp = cnt + n;
    int *sbuf = malloc((size_t)n * K * sizeof *sbuf), *rbuf = out + *at;
    if (!cnt || !sbuf)
        mini_fail("out of memory", me_w);
    for (int j = 0; j < n; j++) {
        cnt[j] = K;
        dsp[j] = j * K;
        for (int e = 0; e < K; e++)
            (in_place ? rbuf : sbuf)[j * K + e] = value(me_w, wbase + j, e);
    }
    MPI_Alltoallv(in_place ? MPI_IN_PLACE : sbuf, cnt, dsp, MPI_INT, rbuf, cnt, dsp, MPI_INT, comm);
    for (int j = 0; j < n; j++)
        for (int e = 0; e < K; e++)
            if (rbuf[j * K + e] != value(wbase + j, me_w, e))
                mini_fail("wrong element", me_w);
    *at += n * K;
    free(sbuf);
    free(cnt);
}

int main(int argc, char **argv)
{
    int n, r;
    MPI_Comm half, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (n < 2)
        mini_fail("needs at least 2 ranks", r);
    int *out = malloc((size_t)(4 * n + 1) * K * sizeof *out), at = 0;
    if (!out)
        mini_fail("out of memory", r);
    uniform(MPI_COMM_WORLD, 0, r, 0, out, &at);
    uniform(MPI_COMM_WORLD, 0, r, 0, out, &at);
    uniform(MPI_COMM_WORLD, 1, r, 0, out, &at);
    uniform(MPI_COMM_SELF, 0, r, r, out, &at);
    /* the lower half [0, h) and the upper half [h, n) */
    int h = n / 2, low = r < h;
    MPI_Comm_split(MPI_COMM_WORLD, low, r, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? h : 0, 7, &inter);
    uniform(inter, 0, r, low ? h : 0, out, &at);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    mini_checksum(out, at * (int)sizeof *out, MPI_COMM_WORLD);
    free(out);
    MPI_Finalize();
    return 0;
}
