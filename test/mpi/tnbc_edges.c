/*
 * tnbc_edges.c -- the cases the tnbc overlay (docs/overlays.md) must get
 * right, each checked against the values every rank can compute:
 *
 *  (a) the send buffer overwritten right after MPI_Alltoall returns: the
 *      data received are the originals;
 *  (b) the data received touched at once (page faults);
 *  (c) a receive buffer not page-aligned, sharing its first and last pages
 *      with other live data that the program writes right after the call;
 *  (d) two collectives back to back on one communicator (and a split of
 *      it), with a point-to-point message in between;
 *  (e) MPI_Allgather, MPI_Bcast from root 0 and from the last rank (the
 *      root overwrites its buffer at once);
 *  (f) an MPI_Alltoall left pending at MPI_Finalize: its data are checked
 *      after MPI_Finalize returned.
 *
 * Prints "ERROR ..." and exits 1 on a wrong value; rank 0 prints
 * "tnbc_edges: ok" at the end.  Runs with and without the overlay.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B 3000   /* ints per block: several pages per call, not a multiple */

static int me, n;

/* The value rank @p src sends to rank @p dst at index @p i in call @p c. */
static int val(int c, int src, int dst, int i)
{
    return (int)(((uint32_t)c * 2654435761u) ^ ((uint32_t)src << 20) ^
                 ((uint32_t)dst << 10) ^ (uint32_t)i * 40503u);
}

static void fail(const char *what, long at, int got, int want)
{
    printf("ERROR rank %d: %s at %ld: %d, expected %d\n", me, what, at, got,
           want);
    fflush(stdout);
    exit(1);
}

static void fill_send(int *s, int c, int nb)
{
    for (int j = 0; j < nb; j++)
        for (int i = 0; i < B; i++)
            s[(long)j * B + i] = val(c, me, j, i);
}

static void check_recv(const char *what, const int *r, int c, int nb)
{
    for (int j = 0; j < nb; j++)
        for (int i = 0; i < B; i++)
            if (r[(long)j * B + i] != val(c, j, me, i))
                fail(what, (long)j * B + i, r[(long)j * B + i], val(c, j, me, i));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    size_t blk = (size_t)n * B;
    int *s = malloc(blk * sizeof *s), *r = malloc(blk * sizeof *r);
    if (!s || !r)
        return 2;

    /* (a), (b): overwrite the send buffer at once, touch at once */
    fill_send(s, 1, n);
    MPI_Alltoall(s, B, MPI_INT, r, B, MPI_INT, MPI_COMM_WORLD);
    memset(s, 0xff, blk * sizeof *s);
    check_recv("(a) alltoall", r, 1, n);

    /* (c): a receive buffer at an odd offset in an arena whose first and
     * last pages hold other live data, written right after the call */
    size_t guard = 777;   /* ints before and after */
    int *arena = malloc((blk + 2 * guard + 1) * sizeof *arena);
    if (!arena)
        return 2;
    int *head = arena + 1, *rr = head + guard, *tail = rr + blk;
    for (size_t i = 0; i < guard; i++)
        head[i] = tail[i] = -(int)i;
    fill_send(s, 2, n);
    MPI_Alltoall(s, B, MPI_INT, rr, B, MPI_INT, MPI_COMM_WORLD);
    for (size_t i = 0; i < guard; i++) {
        head[i] += 5;
        tail[i] += 7;
    }
    for (size_t i = 0; i < guard; i++)
        if (head[i] != 5 - (int)i || tail[i] != 7 - (int)i)
            fail("(c) guard", (long)i, head[i], 5 - (int)i);
    check_recv("(c) unaligned alltoall", rr, 2, n);

    /* (d): two collectives back to back, a message in between, then the
     * same on a split of the world (odd and even ranks) */
    int *r2 = malloc(blk * sizeof *r2);
    if (!r2)
        return 2;
    fill_send(s, 3, n);
    MPI_Alltoall(s, B, MPI_INT, r, B, MPI_INT, MPI_COMM_WORLD);
    int token = me, from = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (me + 1) % n, 9, &from, 1, MPI_INT,
                 (me + n - 1) % n, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (from != (me + n - 1) % n)
        fail("(d) sendrecv", 0, from, (me + n - 1) % n);
    fill_send(s, 4, n);
    MPI_Alltoall(s, B, MPI_INT, r2, B, MPI_INT, MPI_COMM_WORLD);
    check_recv("(d) first alltoall", r, 3, n);
    check_recv("(d) second alltoall", r2, 4, n);
    MPI_Comm half;
    int hme, hn;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Comm_rank(half, &hme);
    MPI_Comm_size(half, &hn);
    for (int j = 0; j < hn; j++)
        for (int i = 0; i < B; i++)
            s[(long)j * B + i] = val(5, hme, j, i);
    MPI_Alltoall(s, B, MPI_INT, r, B, MPI_INT, half);
    MPI_Alltoall(s, B, MPI_INT, r2, B, MPI_INT, half);
    for (int j = 0; j < hn; j++)
        for (int i = 0; i < B; i++)
            if (r[(long)j * B + i] != val(5, j, hme, i) ||
                r2[(long)j * B + i] != val(5, j, hme, i))
                fail("(d) split alltoall", (long)j * B + i, r[(long)j * B + i],
                     val(5, j, hme, i));
    MPI_Comm_free(&half);

    /* (e): Allgather; Bcast from rank 0 and from the last rank */
    for (int i = 0; i < B; i++)
        s[i] = val(6, me, 0, i);
    MPI_Allgather(s, B, MPI_INT, r, B, MPI_INT, MPI_COMM_WORLD);
    memset(s, 0, B * sizeof *s);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < B; i++)
            if (r[(long)j * B + i] != val(6, j, 0, i))
                fail("(e) allgather", (long)j * B + i, r[(long)j * B + i],
                     val(6, j, 0, i));
    for (int root = 0; root < n; root += n - 1) {
        for (size_t i = 0; i < blk; i++)
            r[i] = me == root ? val(7, root, 0, (int)i) : -1;
        MPI_Bcast(r, (int)blk, MPI_INT, root, MPI_COMM_WORLD);
        if (me == root)
            memset(r, 0, blk * sizeof *r);
        else
            for (size_t i = 0; i < blk; i++)
                if (r[i] != val(7, root, 0, (int)i))
                    fail("(e) bcast", (long)i, r[i], val(7, root, 0, (int)i));
        if (n == 1)
            break;
    }

    /* (f): pending at MPI_Finalize, checked after it */
    fill_send(s, 8, n);
    MPI_Alltoall(s, B, MPI_INT, r, B, MPI_INT, MPI_COMM_WORLD);
    MPI_Finalize();
    check_recv("(f) alltoall pending at MPI_Finalize", r, 8, n);
    if (me == 0)
        printf("tnbc_edges: ok\n");
    free(arena);
    free(r2);
    free(r);
    free(s);
    return 0;
}
