/*
 * mini_redist.c -- an array redistribution, the exchange of seed 003's
 * paper: M doubles (element g holds g + 0.5) distributed block-cyclic(x)
 * over the ranks (element g on rank (g / x) mod n) are redistributed to
 * block-cyclic(y) with one MPI_Alltoallv, checked, and sent back to
 * block-cyclic(x) with another, checked again; twice, so that each of the
 * two exchanges recurs.  The forward exchange runs on a duplicate of
 * MPI_COMM_WORLD freed before MPI_Finalize, the backward one on
 * MPI_COMM_WORLD itself.
 *
 * Usage: mini_redist [X [Y [M]]]   (defaults 3, 5, 100003)
 * Prints "checksum <hex>" of every rank's block-cyclic(y) part.
 * Fortran twin: mini_redist.F90 (same numbers, same checksum).
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mini.h"

#define ROUNDS 2

/* The rank element g lives on under block-cyclic(b) over n ranks. */
static int owner(long g, long b, int n)
{
    return (int)((g / b) % n);
}

/* The elements rank @p r holds under block-cyclic(@p b), by increasing g,
 * which is also the order they are stored in there; their number in *len. */
static long *mine(long b, long m, int n, int r, long *len)
{
    long c = 0;
    for (long g = (long)r * b; g < m; g += b * n)
        c += m - g < b ? m - g : b;
    long *list = malloc((size_t)(c + 1) * sizeof *list);
    if (!list)
        mini_fail("out of memory", r);
    *len = 0;
    for (long g = (long)r * b; g < m; g += b * n)
        for (long e = g; e < g + b && e < m; e++)
            list[(*len)++] = e;
    return list;
}

/* One distribution of the array on this rank: its block size, its
 * elements (mine()), their values. */
typedef struct part {
    long b, len, *g;
    double *v;
} part_t;

/* Redistribute @p from into @p to over @p comm with one MPI_Alltoallv:
 * each rank packs its elements by destination in increasing g, so that a
 * receiver finds those of each source in increasing g too.  @p cnt:
 * scratch of 4 n ints; @p sbuf, @p rbuf: of the larger part. */
static void redistribute(const part_t *from, part_t *to, MPI_Comm comm, int *cnt,
                         double *sbuf, double *rbuf)
{
    int n;
    MPI_Comm_size(comm, &n);
    int *sd = cnt + n, *rc = cnt + 2 * n, *rd = cnt + 3 * n;
    memset(cnt, 0, 4 * (size_t)n * sizeof *cnt);
    for (long i = 0; i < from->len; i++)
        cnt[owner(from->g[i], to->b, n)]++;
    for (long i = 0; i < to->len; i++)
        rc[owner(to->g[i], from->b, n)]++;
    for (int d = 0, so = 0, ro = 0; d < n; d++) {
        sd[d] = so;
        rd[d] = ro;
        so += cnt[d];
        ro += rc[d];
    }
    for (long i = 0; i < from->len; i++)
        sbuf[sd[owner(from->g[i], to->b, n)]++] = from->v[i];
    for (int d = 0, so = 0; d < n; d++) {
        sd[d] = so;
        so += cnt[d];
    }
    MPI_Alltoallv(sbuf, cnt, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE, comm);
    for (long i = 0; i < to->len; i++)
        to->v[i] = rbuf[rd[owner(to->g[i], from->b, n)]++];
}

/* Every element of @p p holds g + 0.5. */
static void check(const part_t *p, int r, const char *what)
{
    for (long i = 0; i < p->len; i++)
        if (p->v[i] != (double)p->g[i] + 0.5)
            mini_fail(what, r);
}

int main(int argc, char **argv)
{
    int n, r;
    MPI_Comm comm;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    part_t a = { argc > 1 ? atol(argv[1]) : 3, 0, NULL, NULL };
    part_t b = { argc > 2 ? atol(argv[2]) : 5, 0, NULL, NULL };
    long m = argc > 3 ? atol(argv[3]) : 100003;
    if (a.b < 1 || b.b < 1 || m < 0)
        mini_fail("usage: mini_redist [X [Y [M]]]", r);
    a.g = mine(a.b, m, n, r, &a.len);
    b.g = mine(b.b, m, n, r, &b.len);
    long h = a.len > b.len ? a.len : b.len;
    a.v = malloc((size_t)(a.len + 1) * sizeof *a.v);
    b.v = malloc((size_t)(b.len + 1) * sizeof *b.v);
    double *sbuf = malloc((size_t)(h + 1) * sizeof *sbuf), *rbuf = malloc((size_t)(h + 1) * sizeof *rbuf);
    int *cnt = malloc(4 * (size_t)n * sizeof *cnt);
    if (!a.v || !b.v || !sbuf || !rbuf || !cnt)
        mini_fail("out of memory", r);
    for (long i = 0; i < a.len; i++)
        a.v[i] = (double)a.g[i] + 0.5;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int round = 0; round < ROUNDS; round++) {
        memset(b.v, 0, (size_t)(b.len + 1) * sizeof *b.v);
        redistribute(&a, &b, comm, cnt, sbuf, rbuf);
        check(&b, r, "wrong element after cyclic(x) -> cyclic(y)");
        memset(a.v, 0, (size_t)(a.len + 1) * sizeof *a.v);
        redistribute(&b, &a, MPI_COMM_WORLD, cnt, sbuf, rbuf);
        check(&a, r, "wrong element after cyclic(y) -> cyclic(x)");
    }
    MPI_Comm_free(&comm);
    mini_checksum(b.v, (int)(b.len * (long)sizeof *b.v), MPI_COMM_WORLD);
    free(cnt);
    free(rbuf);
    free(sbuf);
    free(b.v);
    free(a.v);
    free(b.g);
    free(a.g);
    MPI_Finalize();
    return 0;
}
