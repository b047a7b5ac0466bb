/* fuzz_history.c -- libFuzzer target for the run history parser
 * (cm_history_parse, src/profiles/history.c): the ".runs" file beside each
 * profile in the user's store, which the guard reads before every placed
 * step and the user may edit or copy in.
 *
 * The input is the file.  Asserts, beyond "no crash, no leak, no sanitizer
 * report":
 *  - a refusal carries a message and leaves the count at 0;
 *  - an accepted history holds 0..CM_HISTORY_MAX_RUNS runs, each of which
 *    passes cm_run_check with its strings terminated in their buffers;
 *  - cm_history_format writes it, and that text parses back to the same
 *    runs: strings, when, placed and both J exactly (written with 17
 *    digits), the four times within the writer's 6 decimals (a mean
 *    as the writer writes it: at most its maximum).
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_run(const cm_run_t *r)
{
    cm_error_t err = {""};
    if (!memchr(r->jobid, '\0', sizeof r->jobid) ||
        !memchr(r->how, '\0', sizeof r->how) ||
        !memchr(r->program, '\0', sizeof r->program) ||
        cm_run_check(r, &err) < 0)
        abort();
}

/* Times are written with 6 decimals: half a unit of the last one, and
 * the double's own rounding of numbers up to 1e9. */
static int near(double a, double b)
{
    return fabs(a - b) <= 5e-7 + 1e-15 * fabs(a);
}

static void check_same(const cm_run_t *a, const cm_run_t *b)
{
    if (strcmp(a->jobid, b->jobid) || strcmp(a->how, b->how) ||
        strcmp(a->program, b->program) || a->when != b->when ||
        a->placed != b->placed || a->j_plan != b->j_plan ||
        a->j_default != b->j_default || !near(a->elapsed_max, b->elapsed_max) ||
        !near(fmin(a->elapsed_mean, a->elapsed_max), b->elapsed_mean) ||
        !near(a->mpi_max, b->mpi_max) || !near(fmin(a->mpi_mean, a->mpi_max), b->mpi_mean))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cm_run_t runs[CM_HISTORY_MAX_RUNS], again[CM_HISTORY_MAX_RUNS];
    cm_error_t err = {""};
    int n = -1, m = -1;

    if (cm_history_parse((const char *)data, size, "fuzz", runs, &n, &err) < 0) {
        if (!err.msg[0] || n != 0)
            abort();
        return 0;
    }
    if (n < 0 || n > CM_HISTORY_MAX_RUNS)
        abort();
    for (int k = 0; k < n; k++)
        check_run(&runs[k]);
    size_t len;
    char *text = cm_history_format(runs, n, &len, &err);
    if (!text || strlen(text) != len)
        abort();
    if (cm_history_parse(text, len, "fuzz-again", again, &m, &err) < 0 || m != n)
        abort();
    for (int k = 0; k < n; k++)
        check_same(&runs[k], &again[k]);
    free(text);
    return 0;
}
