/*
 * no_overlap.c -- the overhead case: a collective whose received blocks are
 * touched at once, in rank order, so that nothing can overlap.  Under the
 * overlay every touch of a block still in flight faults and pays the
 * staging copy, on top of the send copy at the call: what the overlay costs
 * where it cannot gain.
 *
 * --iters calls of --coll (alltoall: --bytes per pair; allgather: --bytes
 * per rank; bcast: --bytes from rank 0), each after --work seconds of
 * computation (default 0: the overhead relative to the collective alone).
 * One timed region; checks every received block (ERROR, exit 1).
 */
#include "tnbc.h"

static const char *const colls[] = {"alltoall", "allgather", "bcast", NULL};

int main(int argc, char **argv)
{
    double bytes = 1048576, iters = 1, work = 0, coll = 0;
    struct tn_opt opt[] = {
        {"bytes", &bytes, "bytes per pair / per rank / broadcast;"
         " <= 4096 or a multiple of 4096", NULL},
        {"iters", &iters, "calls timed", NULL},
        {"work", &work, "seconds of computation before each call", NULL},
        {"coll", &coll, "the collective", colls},
    };
    tn_init(&argc, &argv, "no_overlap",
            "The overhead case: a collective whose data are touched at once.",
            opt, 4);
    size_t b = (size_t)bytes;
    if (b == 0 || (b > TN_PAGE && b % TN_PAGE) || bytes > 1 << 30)
        tn_die("--bytes must be 1..4096 or a multiple of 4096:", "");
    int n = tn_size, me = tn_rank, kind = coll == 0 ? TN_A2A
                                         : coll == 1 ? TN_ALLGATHER : TN_BCAST;
    size_t *count = malloc(3 * (size_t)n * sizeof *count), *displ = count + n,
           *zero = displ + n;
    for (int p = 0; p < n; p++) {
        count[p] = b;
        displ[p] = (size_t)p * b;
        zero[p] = 0;
    }
    int nsend = kind == TN_A2A ? n : 1, nrecv = kind == TN_BCAST ? 1 : n;
    char *sbuf = tn_alloc((size_t)nsend, b);
    char *rbuf = tn_alloc((size_t)nrecv, b);

    MPI_Barrier(MPI_COMM_WORLD);
    double start = tn_now();
    for (long it = 0; it < (long)iters; it++) {
        if (kind == TN_A2A)
            for (int p = 0; p < n; p++)
                tn_fill(sbuf + (size_t)p * b, b, it, me, p);
        else if (kind == TN_ALLGATHER)
            tn_fill(sbuf, b, it, me, 0);
        else if (me == 0)
            tn_fill(rbuf, b, it, 0, 0);
        tn_work(work);
        struct tn_coll cl;
        tn_coll_start(&cl, kind, sbuf, count, kind == TN_A2A ? displ : zero,
                      rbuf, count, kind == TN_BCAST ? zero : displ, 0);
        tn_touch_check_all(&cl, it, b, b);
        tn_coll_finish(&cl);
    }
    tn_st.total = tn_now() - start;
    tn_report(colls[(int)coll]);
    tn_free(sbuf, (size_t)nsend, b);
    tn_free(rbuf, (size_t)nrecv, b);
    free(count);
    return tn_finish();
}
