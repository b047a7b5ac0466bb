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
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>

#include "fuzz_matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_matrix_one(data, size, "fuzz.triplets", CM_FORMAT_AUTO);
}
