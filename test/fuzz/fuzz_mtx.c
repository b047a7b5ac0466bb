/* fuzz_mtx.c -- libFuzzer target for the Matrix Market reader
 * (src/core/read_mtx.c through cm_matrix_read_stream with CM_FORMAT_MTX).
 *
 * Asserts, beyond "no crash, no leak, no sanitizer report": every refusal
 * carries a message, and every accepted matrix satisfies fuzz_matrix.h
 * (1 <= n <= 2^24, sorted in-range columns, finite non-negative non-zero
 * entries, nnz consistent) and survives a write/read round trip unchanged.
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>

#include "fuzz_matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_matrix_one(data, size, "fuzz.mtx", CM_FORMAT_MTX);
}
