/* largegen.c -- the inputs of `make bench-large` (bench/large.sh): a
 * generated pattern of bench/engine/lib/patterns.h, ranks scrambled by the
 * benchmark's fixed relabelling, written as triplets for `clustermap plan`.
 *
 *   largegen PATTERN N OUT      PATTERN: stencil2d, stencil3d, bintree,
 *                               a2a64+ring, fft2d, ring, rgg3d
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"

#define SCRAMBLE_SEED 0x5eed

int main(int argc, char **argv)
{
    cm_error_t err = {""};
    if (argc != 4) {
        fprintf(stderr, "usage: largegen PATTERN N OUT\n");
        return 2;
    }
    bench_pattern_t p = bench_pattern_find(argv[1]);
    char *end;
    long n = strtol(argv[2], &end, 10);
    if (p == PAT_COUNT || *end || n < 2 || n > (1L << 24)) {
        fprintf(stderr, "largegen: expected a pattern name and 2 <= N <= 2^24, got '%s' '%s'\n",
                argv[1], argv[2]);
        return 2;
    }
    cm_matrix_t *m = bench_pattern(p, (int)n, SCRAMBLE_SEED, &err);
    if (!m) {
        fprintf(stderr, "largegen: %s\n", err.msg);
        return 1;
    }
    FILE *f = fopen(argv[3], "w");
    if (!f) {
        fprintf(stderr, "largegen: %s: %s\n", argv[3], strerror(errno));
        cm_matrix_free(m);
        return 1;
    }
    int rc = cm_matrix_write_triplets(m, f, &err);
    if (fclose(f) != 0 && rc == 0)
        rc = cm_error_set(&err, "%s: %s", argv[3], strerror(errno));
    if (rc < 0) {
        fprintf(stderr, "largegen: %s\n", err.msg);
        remove(argv[3]);
    } else {
        fprintf(stderr, "largegen: %s, %ld ranks, %lld entries -> %s\n", argv[1], n,
                (long long)cm_matrix_nnz(m), argv[3]);
    }
    cm_matrix_free(m);
    return rc < 0;
}
