/*
 * mini_isort.c -- an integer sort in the manner of NPB IS: every rank
 * draws keys, sends each to the rank that owns its key range with one
 * MPI_Alltoallv (the counts first, with MPI_Alltoall), and sorts what it
 * received.  The exchange is uneven on both sides: ranks draw different
 * numbers of keys (1/2, 2, 3/2 and 1 times NKEYS, cycling over the ranks)
 * and each rank's keys are skewed towards one point of the key range, a
 * different one for each rank (as if each rank's data came from a source
 * of its own), so that each rank sends most of its keys to one or two
 * ranks.  Two rounds for each of SETS key sets (seeds, skews), taken in
 * turn, as a program whose call site sees a few recurring exchanges (more
 * of them than the css overlay keeps per communicator from SETS = 5 on).
 *
 * Usage: mini_isort [NKEYS [SETS]]   (defaults 20000, 2)
 * Prints "checksum <hex>" of every rank's sorted keys of every round.
 * Fortran twin: mini_isort.F90 (same keys, same checksum).
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mini.h"

#define KEYBITS 20     /* keys in [0, 2^20) */

/* Park-Miller's minimal standard generator: *x in [1, 2^31 - 2], the same
 * sequence in C and in Fortran's 64-bit integers (no overflow either way). */
static int64_t lcg(int64_t *x)
{
    *x = (*x * 16807) % 2147483647;
    return *x;
}

/* Key @p t (uniform in [0, 2^KEYBITS)) of rank @p r skewed towards the
 * point r (2^19 - 1) of the key range (modulo its size): quadratically in
 * an even key set, cubically in an odd one. */
static int skew(int64_t t, int set, int r)
{
    int64_t k = (t * t) >> KEYBITS;
    if (set % 2)
        k = (k * t) >> KEYBITS;
    return (int)((k + (int64_t)r * 524287) & ((1 << KEYBITS) - 1));
}

int main(int argc, char **argv)
{
    int n, r;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int nkeys = argc > 1 ? atoi(argv[1]) : 20000, sets = argc > 2 ? atoi(argv[2]) : 2;
    if (nkeys < 0 || sets < 1)
        mini_fail("usage: mini_isort [NKEYS [SETS]], SETS >= 1", r);
    int mine = (int)((int64_t)nkeys * (1 + (3 * r) % 4) / 2);
    int *keys = malloc((size_t)(mine ? mine : 1) * sizeof *keys);
    int *sorted = malloc((size_t)(mine ? mine : 1) * sizeof *sorted);
    int *cnt = calloc((size_t)n * 4, sizeof *cnt), *sd = cnt + n, *rc = cnt + 2 * n,
        *rd = cnt + 3 * n;
    int *out = NULL, nout = 0;              /* every round's sorted keys */
    if (!keys || !sorted || !cnt)
        mini_fail("out of memory", r);
    for (int round = 0; round < 2 * sets; round++) {
        int set = round % sets;
        int64_t x = 12345 + 1000 * set + 7 * r;
        memset(cnt, 0, (size_t)n * sizeof *cnt);
        for (int i = 0; i < mine; i++) {
            keys[i] = skew(lcg(&x) & ((1 << KEYBITS) - 1), set, r);
            cnt[(int)(((int64_t)keys[i] * n) >> KEYBITS)]++;
        }
        /* bucket the keys by owner, in drawing order within a bucket */
        for (int d = 0, o = 0; d < n; d++) {
            sd[d] = o;
            o += cnt[d];
        }
        for (int i = 0; i < mine; i++)
            sorted[sd[((int64_t)keys[i] * n) >> KEYBITS]++] = keys[i];
        for (int d = 0, o = 0; d < n; d++) {
            sd[d] = o;
            o += cnt[d];
        }
        MPI_Alltoall(cnt, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
        int got = 0;
        for (int s = 0; s < n; s++) {
            rd[s] = got;
            got += rc[s];
        }
        int *recv = malloc((size_t)(got ? got : 1) * sizeof *recv);
        out = realloc(out, (size_t)(nout + got ? nout + got : 1) * sizeof *out);
        if (!recv || !out)
            mini_fail("out of memory", r);
        MPI_Alltoallv(sorted, cnt, sd, MPI_INT, recv, rc, rd, MPI_INT, MPI_COMM_WORLD);
        /* counting sort of the received keys, all in this rank's range */
        /* key k is rank (k n) >> KEYBITS's: lo = ceil(r 2^KEYBITS / n) */
        int lo = (int)((((int64_t)r << KEYBITS) + n - 1) / n);
        int hi = (int)((((int64_t)(r + 1) << KEYBITS) + n - 1) / n);
        int *hist = calloc((size_t)(hi - lo + 1), sizeof *hist);
        if (!hist)
            mini_fail("out of memory", r);
        for (int i = 0; i < got; i++) {
            if (recv[i] < lo || recv[i] >= hi)
                mini_fail("a key outside this rank's range", r);
            hist[recv[i] - lo]++;
        }
        for (int k = lo, o = nout; k < hi; k++)
            for (int c = 0; c < hist[k - lo]; c++)
                out[o++] = k;
        nout += got;
        free(hist);
        free(recv);
    }
    mini_checksum(out, nout * (int)sizeof *out, MPI_COMM_WORLD);
    free(out);
    free(cnt);
    free(sorted);
    free(keys);
    MPI_Finalize();
    return 0;
}
