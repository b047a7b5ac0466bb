/* fuzz_metis.c -- libFuzzer target for the METIS graph reader
 * (src/core/read_metis.c through cm_matrix_read_stream with
 * CM_FORMAT_METIS).
 *
 * Asserts, beyond "no crash, no leak, no sanitizer report": every refusal
 * carries a message; every accepted graph satisfies fuzz_matrix.h (1 <= n
 * <= 2^24, sorted in-range columns, finite non-negative non-zero weights,
 * nnz consistent, unchanged by a write/read round trip) and has no self
 * loop (the reader refuses them).
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>

#include "fuzz_matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_no_self_loop(const cm_matrix_t *m)
{
    for (int i = 0; i < cm_matrix_n(m); i++) {
        const int *cols;
        int len;
        cm_matrix_row(m, i, &cols, NULL, NULL, &len);
        for (int k = 0; k < len; k++)
            if (cols[k] == i)
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cm_matrix_t *m = fuzz_read(data, size, "fuzz.graph", CM_FORMAT_METIS);
    if (!m)
        return 0;
    fuzz_check_matrix(m);
    check_no_self_loop(m);
    fuzz_check_roundtrip(m);
    cm_matrix_free(m);
    return 0;
}
