/*
 * halo.h -- the halo exchange shared by halo2d.c and halo3d.c: ranks on a
 * non-periodic grid (MPI_Dims_create, or --dims) exchange one face of
 * --bytes with each of their 2*ndims neighbours per iteration
 * (Irecv, Isend, Waitall), then compute.
 *
 * --scramble N (N > 0) seats world rank r on grid cell perm_N(r), a
 * permutation drawn from N alone (not from --seed), so that rank order no
 * longer follows the grid: the case where Slurm's block placement is bad
 * and a mapping tool has the most to gain.  N = 0 keeps MPI's row-major
 * order (the last dimension varies fastest, as MPI_Cart_create numbers).
 */
#ifndef HALO_H
#define HALO_H

#include "miniapp.h"

static inline int halo_main(int argc, char **argv, int ndims,
                            struct ma_args *a)
{
    long scramble = 0;
    const struct ma_opt extra[] = {
        {"scramble", &scramble, 0,
         "N > 0 seats rank r on grid cell perm_N(r); 0 = rank order"},
    };
    a->ndims = ndims;
    a->extra = extra;
    a->nextra = 1;
    ma_parse(argc, argv, a);

    /* Every rank draws the whole permutation: each needs its neighbours'
     * ranks, and drawing is cheap next to one iteration. */
    int n = a->size;
    int *cell_of = ma_alloc(a, (size_t)n * sizeof *cell_of);
    int *rank_of = ma_alloc(a, (size_t)n * sizeof *rank_of);
    if (scramble > 0)
        ma_permutation(n, (uint64_t)scramble, cell_of);
    else
        for (int r = 0; r < n; r++)
            cell_of[r] = r;
    for (int r = 0; r < n; r++)
        rank_of[cell_of[r]] = r;

    /* Direction 2d goes down dimension d, 2d + 1 up; a face travelling in
     * direction k carries tag k, so it arrives as the face from k ^ 1. */
    int c[3], peer[6], nfaces = 2 * ndims;
    ma_coords(cell_of[a->rank], ndims, a->dims, c);
    for (int k = 0; k < nfaces; k++) {
        int d = k / 2, step = k % 2 ? 1 : -1;
        c[d] += step;
        int cell = ma_cell(ndims, a->dims, c);
        c[d] -= step;
        peer[k] = cell < 0 ? -1 : rank_of[cell];
    }
    free(cell_of);
    free(rank_of);

    size_t face = (size_t)a->bytes;
    char *sbuf = ma_alloc(a, face * (size_t)nfaces);
    char *rbuf = ma_alloc(a, face * (size_t)nfaces);
    MPI_Request req[12];
    struct ma_sum sum = {0, 0};
    int count = (int)a->bytes;

    for (long it = 0; it < a->iters; it++) {
        int nreq = 0;
        for (int k = 0; k < nfaces; k++)
            if (peer[k] >= 0)
                MPI_Irecv(rbuf + (size_t)k * face, count, MPI_BYTE, peer[k],
                          k ^ 1, MPI_COMM_WORLD, &req[nreq++]);
        for (int k = 0; k < nfaces; k++)
            if (peer[k] >= 0) {
                char *f = sbuf + (size_t)k * face;
                ma_put(f, a->bytes,
                       ma_stamp(a->seed, it, a->rank, peer[k], k));
                MPI_Isend(f, count, MPI_BYTE, peer[k], k, MPI_COMM_WORLD,
                          &req[nreq++]);
            }
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        for (int k = 0; k < nfaces; k++)
            if (peer[k] >= 0)
                ma_check(&sum, rbuf + (size_t)k * face, a->bytes,
                         ma_stamp(a->seed, it, peer[k], a->rank, k ^ 1));
        ma_compute(a->compute);
    }
    free(sbuf);
    free(rbuf);
    return ma_finish(a, &sum);
}

#endif /* HALO_H */
