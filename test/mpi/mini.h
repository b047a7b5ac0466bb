/*
 * mini.h -- what the mini-applications (mini_*.c; their Fortran twins
 * mini_*.F90 compute the same numbers, with mini_f.inc) share: the
 * checksum line they end with, so that a run under an overlay
 * (docs/overlays.md) can be compared with a plain one, and a Fortran twin
 * with its C program, by one line: "checksum <16 hex digits>".
 */
#ifndef CM_TEST_MINI_H
#define CM_TEST_MINI_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* FNV-1a 64 of @p n bytes at @p p, continuing from @p h. */
static inline uint64_t mini_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

#define MINI_FNV_START 0xcbf29ce484222325ull

/* Rank 0 of @p comm prints "checksum <hex>": FNV-1a 64 over the @p bytes
 * bytes of @p buf of every rank, in rank order, gathered with the
 * program's own MPI_Gather(v).  Exits on a failure. */
static inline void mini_checksum(const void *buf, int bytes, MPI_Comm comm)
{
    int n, r;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    int *sizes = r == 0 ? malloc((size_t)n * 2 * sizeof *sizes) : NULL;
    if (r == 0 && !sizes)
        MPI_Abort(comm, 2);
    MPI_Gather(&bytes, 1, MPI_INT, sizes, 1, MPI_INT, 0, comm);
    long total = 0;
    for (int i = 0; r == 0 && i < n; i++) {
        sizes[n + i] = (int)total;
        total += sizes[i];
    }
    unsigned char *all = r == 0 ? malloc(total ? (size_t)total : 1) : NULL;
    if (r == 0 && !all)
        MPI_Abort(comm, 2);
    MPI_Gatherv(buf, bytes, MPI_BYTE, all, sizes, sizes ? sizes + n : NULL, MPI_BYTE, 0, comm);
    if (r == 0)
        printf("checksum %016llx\n",
               (unsigned long long)mini_fnv(MINI_FNV_START, all, (size_t)total));
    free(all);
    free(sizes);
}

/* Stop the whole job with a message: a wrong result must not print a
 * checksum. */
static inline void mini_fail(const char *what, int rank)
{
    fprintf(stderr, "rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#endif /* CM_TEST_MINI_H */
