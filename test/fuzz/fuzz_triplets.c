/* fuzz_triplets.c -- libFuzzer target for the triplet reader
 * (src/core/read_triplets.c) and the format detection in front of it:
 * cm_matrix_read_stream with CM_FORMAT_AUTO and a name that is neither
 * ".graph" nor ".metis", so a "%%MatrixMarket" first line goes to the
 * Matrix Market reader and everything else to the triplet reader.
 *
 * Asserts, beyond "no crash, no leak, no sanitizer report": every refusal
 * carries a message, and every accepted matrix satisfies fuzz_matrix.h
 * (1 <= n <= 2^24, sorted in-range columns, finite non-negative non-zero
 * entries, nnz consistent) and survives a write/read round trip unchanged,
 * message counts included.
 *
 * Inputs naming a rank above FUZZ_MAX_RANK are skipped (-1: not added to
 * the corpus): a triplet's matrix has as many rows as its largest rank,
 * and reading, checking and writing back 10^7 rows takes 13 s under ASan;
 * libFuzzer, which likes inputs whose loops run long, had grown its
 * corpus towards them (55 executions a second instead of thousands).  The
 * estimate: the first two digit runs of every line; over-estimating only
 * skips a few more inputs.  The reader's 2^24 bound is checked by
 * test/unit/test_readers.c.
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>

#include "fuzz_bound.h"
#include "fuzz_matrix.h"

#define FUZZ_MAX_RANK 65536UL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether a line names a rank above FUZZ_MAX_RANK (see above). */
static int huge_rank(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        int field = 0;
        while (i < n && s[i] != '\n') {
            if (!isdigit((unsigned char)s[i])) {
                i++;
                continue;
            }
            unsigned long v = fuzz_number(s, n, &i);
            if (field++ < 2 && v > FUZZ_MAX_RANK)
                return 1;
        }
        i++;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (huge_rank((const char *)data, size))
        return -1;
    return fuzz_matrix_one(data, size, "fuzz.triplets", CM_FORMAT_AUTO);
}
