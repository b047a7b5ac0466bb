/*
 * a2a_micro.c -- the seed's microbenchmark (T-NBC, seed 001, section 6.2):
 * MPI_Alltoall of --bytes per pair (1 MiB; 64 ranks, 8 per node), then
 * computation that does not touch the received data (CURC), then a touch of
 * every received block in rank order (no computation on them: T_CRC = 0).
 *
 * The CURC is a multiple of the collective's own time, measured first in the
 * same run (one untimed blocking MPI_Alltoall, max over ranks): --factor F
 * gives one timed case of F x that time; --factor 0 (the default) the sweep
 * 0.25, 0.5, 1, 2 (four timed cases, one "RESULT" line each); --curc S a
 * fixed S seconds instead.  --coll allgather or bcast runs the same with
 * MPI_Allgather (--bytes per rank) or MPI_Bcast (--bytes from rank 0).
 *
 *   smpirun -np 64 -platform P.xml -hostfile H ./a2a_micro tnbc \
 *       --cfg=smpi/simulate-computation:no
 *
 * After each call the program scribbles on its send buffer (the overlay
 * copied it, so receivers must still see the original), and checks the
 * received words; a wrong one prints ERROR and the run exits 1.
 */
#include "tnbc.h"

static const char *const colls[] = {"alltoall", "allgather", "bcast", NULL};

int main(int argc, char **argv)
{
    double bytes = 1048576, factor = 0, curc_s = 0, coll = 0;
    struct tn_opt opt[] = {
        {"bytes", &bytes, "bytes per pair (alltoall), per rank (allgather),"
         " broadcast (bcast); <= 4096 or a multiple of 4096", NULL},
        {"factor", &factor, "CURC = F x the collective's time; 0: the sweep"
         " 0.25, 0.5, 1, 2", NULL},
        {"curc", &curc_s, "CURC in seconds (overrides --factor)", NULL},
        {"coll", &coll, "the collective", colls},
    };
    tn_init(&argc, &argv, "a2a_micro",
            "The seed's microbenchmark: a collective, independent computation,"
            " then a touch of every received block.", opt, 4);
    size_t b = (size_t)bytes;
    if (b == 0 || (b > TN_PAGE && b % TN_PAGE) || bytes > 1 << 30)
        tn_die("--bytes must be 1..4096 or a multiple of 4096:", "");
    int n = tn_size, me = tn_rank, kind = coll == 0 ? TN_A2A
                                         : coll == 1 ? TN_ALLGATHER : TN_BCAST;

    size_t *count = malloc(3 * (size_t)n * sizeof *count), *displ = count + n,
           *zero = displ + n;
    for (int p = 0; p < n; p++) {
        count[p] = b;
        displ[p] = kind == TN_BCAST ? 0 : (size_t)p * b;
        zero[p] = 0;
    }
    size_t slot = b;            /* contiguous blocks, as MPI lays them out */
    int nsend = kind == TN_A2A ? n : 1, nrecv = kind == TN_BCAST ? 1 : n;
    char *sbuf = tn_alloc((size_t)nsend, slot);
    char *rbuf = tn_alloc((size_t)nrecv, slot);

    /* The collective's own time, blocking, untimed. */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = tn_now();
    if (kind == TN_A2A)
        MPI_Alltoall(sbuf, (int)b, MPI_BYTE, rbuf, (int)b, MPI_BYTE,
                     MPI_COMM_WORLD);
    else if (kind == TN_ALLGATHER)
        MPI_Allgather(sbuf, (int)b, MPI_BYTE, rbuf, (int)b, MPI_BYTE,
                      MPI_COMM_WORLD);
    else
        MPI_Bcast(rbuf, (int)b, MPI_BYTE, 0, MPI_COMM_WORLD);
    double mine = tn_now() - t0, tcoll = 0;
    MPI_Allreduce(&mine, &tcoll, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    memset(&tn_st, 0, sizeof tn_st);
    if (me == 0)
        printf("a2a_micro: %s of %zu bytes, %d ranks: blocking collective"
               " %.6f s (sets the CURC)\n", colls[(int)coll], b, n, tcoll);

    double sweep[] = {0.25, 0.5, 1, 2};
    int ncase = curc_s > 0 || factor > 0 ? 1 : 4;
    if (ncase > 1)              /* one reference cannot serve four cases */
        tn_par.ref_total = tn_par.ref_comm = 0;
    for (int c = 0; c < ncase; c++) {
        double f = ncase == 1 ? factor : sweep[c];
        double curc = curc_s > 0 ? curc_s : f * tcoll;
        long it = c + 1;
        /* the data this call moves */
        if (kind == TN_A2A)
            for (int p = 0; p < n; p++)
                tn_fill(sbuf + (size_t)p * slot, b, it, me, p);
        else if (kind == TN_ALLGATHER)
            tn_fill(sbuf, b, it, me, 0);
        else if (me == 0)
            tn_fill(rbuf, b, it, 0, 0);

        struct tn_coll cl;
        MPI_Barrier(MPI_COMM_WORLD);
        double start = tn_now();
        tn_coll_start(&cl, kind, sbuf, count, kind == TN_A2A ? displ : zero,
                      rbuf, count, kind == TN_BCAST ? zero : displ, 0);
        /* the send buffer is the program's again */
        if (kind == TN_A2A)
            for (int p = 0; p < n; p++)
                memset(sbuf + (size_t)p * slot, 0xa5, b < 64 ? b : 64);
        else if (kind == TN_ALLGATHER || me == 0)
            memset(kind == TN_BCAST ? rbuf : sbuf, 0xa5, b < 64 ? b : 64);
        tn_curc(curc);
        tn_touch_check_all(&cl, it, b, slot);
        tn_coll_finish(&cl);
        tn_st.total = tn_now() - start;
        char label[32];
        if (curc_s > 0)
            snprintf(label, sizeof label, "curc%gs", curc_s);
        else
            snprintf(label, sizeof label, "%gx", f);
        tn_report(label);
    }
    tn_free(sbuf, (size_t)nsend, slot);
    tn_free(rbuf, (size_t)nrecv, slot);
    free(count);
    return tn_finish();
}
