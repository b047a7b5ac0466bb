/*
 * tnbc_fallback.c -- ranks that cannot run a tnbc call non-blocking next
 * to ranks that do (docs/overlays.md, "Preconditions and when it steps
 * aside"): the even ranks (rank 0's verbose line counts them) receive
 * with a datatype that is not contiguous
 * (MPI_INT resized to an extent of two ints: every other int of the
 * buffer), which tnbc runs as the same sub-messages, blocking, while the
 * even ranks' calls are left pending; MPI_Alltoall, MPI_Alltoallv and
 * MPI_Allgather, each checked value by value (the ints in between left
 * untouched).  Prints "ERROR ..." and exits 1 on a wrong value; rank 0
 * prints "tnbc_fallback: ok".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define B 3000   /* ints per block: several pages per call */
#define GAP (-7)

static int me, n;

static int val(int c, int src, int dst, int i)
{
    return (int)(((uint32_t)c * 2654435761u) ^ ((uint32_t)src << 20) ^
                 ((uint32_t)dst << 10) ^ (uint32_t)i * 40503u);
}

/* Block j (@p cnt ints) of @p r, received with stride @p st ints, holds
 * val(c, j, me or -1, i); the ints in between are GAP. */
static void check(const char *what, int c, const int *r, int j, int cnt,
                  int st, int dst)
{
    for (int i = 0; i < cnt; i++) {
        const int *x = r + ((size_t)j * cnt + i) * st;
        if (x[0] != val(c, j, dst, i) || (st > 1 && x[1] != GAP)) {
            printf("ERROR rank %d: %s, block %d, %d: %d, expected %d\n", me,
                   what, j, i, x[0], val(c, j, dst, i));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Datatype rt = MPI_INT;
    int st = 1;
    if (me % 2 == 0) {
        MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &rt);
        MPI_Type_commit(&rt);
        st = 2;
    }
    int *s = malloc((size_t)n * B * sizeof *s);
    int *r = malloc((size_t)n * B * 2 * sizeof *r);
    int *cnt = malloc((size_t)n * 2 * sizeof *cnt);
    if (!s || !r || !cnt) {
        printf("ERROR rank %d: out of memory\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int *dsp = cnt + n;
    for (int c = 0; c < 2; c++) {
        for (size_t i = 0; i < (size_t)n * B * 2; i++)
            r[i] = GAP;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < B; i++)
                s[(size_t)j * B + i] = val(c, me, j, i);
        if (c == 0)
            MPI_Alltoall(s, B, MPI_INT, r, B, rt, MPI_COMM_WORLD);
        else {
            for (int j = 0; j < n; j++)
                cnt[j] = B, dsp[j] = j * B;
            MPI_Alltoallv(s, cnt, dsp, MPI_INT, r, cnt, dsp, rt,
                          MPI_COMM_WORLD);
        }
        for (int j = 0; j < n; j++)
            check(c ? "MPI_Alltoallv" : "MPI_Alltoall", c, r, j, B, st, me);
    }
    for (size_t i = 0; i < (size_t)n * B * 2; i++)
        r[i] = GAP;
    for (int i = 0; i < B; i++)
        s[i] = val(2, me, -1, i);
    MPI_Allgather(s, B, MPI_INT, r, B, rt, MPI_COMM_WORLD);
    for (int j = 0; j < n; j++)
        check("MPI_Allgather", 2, r, j, B, st, -1);
    if (st > 1)
        MPI_Type_free(&rt);
    free(s);
    free(r);
    free(cnt);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("tnbc_fallback: ok\n");
    MPI_Finalize();
    return 0;
}
