/*
 * cg.c -- the communication of a distributed conjugate gradient as NAS CG
 * does it: ranks on an nprows x npcols grid (NAS's rule: npcols = nprows
 * for an even power of two, 2 * nprows for an odd one; rank = row * npcols
 * + col).  Every iteration:
 *   1. the sparse matrix-vector product sums its partial result across the
 *      row: log2(npcols) exchanges of --bytes with the row partners at
 *      column distance npcols/2, npcols/4, ..., 1 (recursive doubling, NAS's
 *      reduce_exch_proc), one after the other because each step adds what
 *      the previous one received;
 *   2. one exchange of --bytes with the transpose partner (NAS's
 *      exch_proc; on the diagonal of a square grid that partner is the
 *      rank itself, a local copy, as in NAS);
 *   3. two 8-byte MPI_Allreduce, the dot products of CG (NAS makes them
 *      over the row partners; most CG codes call MPI_Allreduce);
 *   4. --compute flops.
 * Each exchange is Irecv, Isend, Waitall.  The number of ranks must be a
 * power of two, as in NAS CG.
 *
 * Defaults: 50 iterations, 64 KiB (about NAS CG class B's vector segment
 * at 64 ranks, 75 KB), 1e6 flops.
 */
#include "miniapp.h"

/* One exchange of @p a->bytes with @p peer: both directions at once. */
static void exchange(const struct ma_args *a, long it, int peer, int tag,
                     char *sbuf, char *rbuf, struct ma_sum *sum)
{
    MPI_Request req[2];
    int count = (int)a->bytes;
    MPI_Irecv(rbuf, count, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[0]);
    ma_put(sbuf, a->bytes, ma_stamp(a->seed, it, a->rank, peer, tag));
    MPI_Isend(sbuf, count, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    ma_check(sum, rbuf, a->bytes, ma_stamp(a->seed, it, peer, a->rank, tag));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct ma_args a = {
        .app = "cg",
        .summary = "NAS-CG-like: row exchanges, transpose exchange,"
                   " 2 allreduce per iteration",
        .iters = 50, .bytes = 64 << 10, .compute = 1e6, .seed = 1,
    };
    ma_parse(argc, argv, &a);

    int l2n = 0;
    while ((1 << l2n) < a.size)
        l2n++;
    if (1 << l2n != a.size) {
        char n[16];
        snprintf(n, sizeof n, "%d", a.size);
        ma_quit(&a, 2, "the number of ranks must be a power of two, not", n);
    }
    int nprows = 1 << (l2n / 2), npcols = 1 << (l2n - l2n / 2);
    int row = a.rank / npcols, col = a.rank % npcols;
    int exch = npcols == nprows
                   ? (a.rank % nprows) * nprows + a.rank / nprows
                   : 2 * ((a.rank / 2 % nprows) * nprows + a.rank / 2 / nprows)
                         + a.rank % 2;

    char *sbuf = ma_alloc(&a, (size_t)a.bytes);
    char *rbuf = ma_alloc(&a, (size_t)a.bytes);
    struct ma_sum sum = {0, 0};

    for (long it = 0; it < a.iters; it++) {
        int tag = 0;
        for (int dist = npcols / 2; dist >= 1; dist /= 2)
            exchange(&a, it, row * npcols + (col ^ dist), tag++, sbuf, rbuf,
                     &sum);
        exchange(&a, it, exch, tag, sbuf, rbuf, &sum);
        for (int k = 0; k < 2; k++) {
            /* The value is the stamp's low bits: the sum is then checked
             * against the sum of the stamps every rank can compute. */
            double mine = (double)(ma_stamp(a.seed, it, a.rank, -1, k) >> 44),
                   all = 0, want = 0;
            MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM,
                          MPI_COMM_WORLD);
            for (int r = 0; r < a.size; r++)
                want += (double)(ma_stamp(a.seed, it, r, -1, k) >> 44);
            sum.sum += (uint64_t)all;
            sum.bad += all != want;
        }
        ma_compute(a.compute);
    }
    free(sbuf);
    free(rbuf);
    return ma_finish(&a, &sum);
}
