/*
 * ovl_report.c -- the overlays' verbose lines (the css one, then tnbc's) (ovl_text.h), printed by
 * rank 0 at MPI_Finalize with its own figures: what the overlay did for
 * that rank, so that a user sees whether it scheduled anything and why it
 * stepped aside, without a collective of its own at finalize.  Also the
 * seed's model of the time tnbc hides (ovl_tnbc_model), printed beside
 * the measured figure; ovl_tnbc.c feeds it each call's measured terms.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ovl_text.h"

/* The reasons' words in the line, in the order of ovl_pass_t. */
static const char *const why[OVL_NPASS] = {
    [OVL_PASS_INTER] = "intercommunicator",
    [OVL_PASS_IN_PLACE] = "in place",
    [OVL_PASS_SIZE] = "communicator size",
    [OVL_PASS_UNIFORM] = "uniform",
    [OVL_PASS_SLOWER] = "not faster",
    [OVL_PASS_FALLBACK] = "fallback",
};

/* "s" when @p v is not one, for "1 call" / "2 calls". */
static const char *plural(uint64_t v)
{
    return v == 1 ? "" : "s";
}

/* " (2 uniform, 1 in place)" into @p out (size @p n) from the @p np
 * counts @p pass and their words @p words ("" when every count is 0);
 * returns the sum of the counts. */
static uint64_t reasons_text(char *out, size_t n, const uint64_t *pass,
                             const char *const *words, int np)
{
    uint64_t total = 0;
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; k < np; k++) {
        total += pass[k];
        if (pass[k] && used < n) {
            int w = snprintf(out + used, n - used, "%s%llu %s",
                             used ? ", " : " (", (unsigned long long)pass[k],
                             words[k]);
            used += w > 0 ? (size_t)w : 0;
        }
    }
    if (used && used + 1 < n)
        strcat(out, ")");
    return total;
}

int ovl_css_line(char *buf, size_t n, int rank, const ovl_css_stats_t *st)
{
    char reasons[320];
    uint64_t passed = reasons_text(reasons, sizeof reasons, st->pass, why,
                                   OVL_NPASS);
    return snprintf(buf, n,
                    "css: rank %d: %llu MPI_Alltoallv call%s, %llu scheduled "
                    "(%llu schedule%s built), %llu as redistribution%s "
                    "(%llu recognised), %llu passed through%s, "
                    "%.1f MiB sent, %.4f s inside the calls\n",
                    rank, (unsigned long long)st->calls, plural(st->calls),
                    (unsigned long long)st->scheduled,
                    (unsigned long long)st->built, plural(st->built),
                    (unsigned long long)st->redist, plural(st->redist),
                    (unsigned long long)st->recognised,
                    (unsigned long long)passed, reasons,
                    (double)st->bytes / (1024.0 * 1024.0), (double)st->ns * 1e-9);
}

/* The tnbc line's words, in the order of ovl_tpass_t and of the ops. */
static const char *const twhy[OVL_TP_NPASS] = {
    [OVL_TP_INTER] = "intercommunicator",
    [OVL_TP_IN_PLACE] = "in place",
    [OVL_TP_SIZE] = "communicator size",
    [OVL_TP_DATATYPE] = "datatype",
    [OVL_TP_SMALL] = "small",
    [OVL_TP_FALLBACK] = "fallback",
    [OVL_TP_ASIDE] = "stepped aside",
};
static const char *const tops[OVL_T_NOPS] = {
    "MPI_Alltoall", "MPI_Alltoallv", "MPI_Allgather", "MPI_Bcast"
};

int ovl_tnbc_line(char *buf, size_t n, int rank, const ovl_tnbc_stats_t *st)
{
    uint64_t calls = 0;
    char ops[200] = "", reasons[320];
    size_t oused = 0;
    for (int k = 0; k < OVL_T_NOPS; k++) {
        calls += st->calls[k];
        if (oused < sizeof ops) {
            int w = snprintf(ops + oused, sizeof ops - oused, "%s%llu %s",
                             k ? ", " : "", (unsigned long long)st->calls[k],
                             tops[k]);
            oused += w > 0 ? (size_t)w : 0;
        }
    }
    uint64_t passed = reasons_text(reasons, sizeof reasons, st->pass, twhy,
                                   OVL_TP_NPASS);
    char waves[80] = "";
    if (st->waves)
        snprintf(waves, sizeof waves, ", %llu call%s in waves (%llu rank%s on "
                 "the node)", (unsigned long long)st->waves, plural(st->waves),
                 (unsigned long long)st->wave_len, plural(st->wave_len));
    return snprintf(buf, n,
                    "tnbc: rank %d: %llu call%s (%s), %llu passed through%s, "
                    "%.1f MiB received, %.4f s inside the calls, %llu page "
                    "fault%s, %.4f s hidden (seed's model: %.4f s)%s\n",
                    rank, (unsigned long long)calls, plural(calls), ops,
                    (unsigned long long)passed, reasons,
                    (double)st->bytes / (1024.0 * 1024.0), (double)st->ns * 1e-9,
                    (unsigned long long)st->faults, plural(st->faults),
                    (double)st->hidden_ns * 1e-9, (double)st->model_ns * 1e-9,
                    waves);
}

double ovl_tnbc_model(double t_comm, double t_init, double t_curc,
                      double d_comm, double r_crc)
{
    double room = t_comm - t_init;   /* the communication after the return */
    if (!(room > 0))
        return 0;
    double used = t_curc > 0 ? t_curc : 0;
    if (d_comm > 0 && !isinf(r_crc)) {
        if (!(r_crc > 0))
            return room;             /* consumed at rate 0: never waits */
        double r_comm = d_comm / t_comm;
        used += t_comm * r_comm / r_crc;
    }
    return used < room ? used : room;
}
