/*
 * ovl_report.c -- the css overlay's verbose line (ovl_text.h), printed by
 * rank 0 at MPI_Finalize with its own figures: what the overlay did for
 * that rank, so that a user sees whether it scheduled anything and why it
 * stepped aside, without a collective of its own at finalize.
 */
#include <stdio.h>

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

int ovl_css_line(char *buf, size_t n, int rank, const ovl_css_stats_t *st)
{
    uint64_t passed = 0;
    char reasons[320] = "";
    size_t used = 0;
    for (int k = 0; k < OVL_NPASS; k++) {
        passed += st->pass[k];
        if (st->pass[k] && used < sizeof reasons) {
            int w = snprintf(reasons + used, sizeof reasons - used, "%s%llu %s",
                             used ? ", " : " (", (unsigned long long)st->pass[k],
                             why[k]);
            used += w > 0 ? (size_t)w : 0;
        }
    }
    return snprintf(buf, n,
                    "css: rank %d: %llu MPI_Alltoallv call%s, %llu scheduled "
                    "(%llu schedule%s built), %llu passed through%s%s, "
                    "%.1f MiB sent, %.4f s inside the calls\n",
                    rank, (unsigned long long)st->calls, plural(st->calls),
                    (unsigned long long)st->scheduled,
                    (unsigned long long)st->built, plural(st->built),
                    (unsigned long long)passed, reasons, used ? ")" : "",
                    (double)st->bytes / (1024.0 * 1024.0), (double)st->ns * 1e-9);
}
