/* patterns.h -- communication patterns of the mapping literature, generated
 * for the quality benchmark: stencils, trees, all-to-all blocks, FFT
 * transposes.  Every pattern can be scrambled by a fixed random relabelling,
 * so that the incoming rank order carries no locality. */
#ifndef CM_BENCH_PATTERNS_H
#define CM_BENCH_PATTERNS_H

#include "clustermap.h"

typedef enum bench_pattern {
    PAT_STENCIL2D,  /* 5-point, non-periodic, grid as square as n allows */
    PAT_STENCIL3D,  /* 7-point, non-periodic */
    PAT_BINTREE,    /* rank i <-> 2i+1, 2i+2 */
    PAT_A2A64_RING, /* all-to-all inside blocks of 64 + a ring over all */
    PAT_FFT2D,      /* pencil FFT: all-to-all in each row and each column
                       of a process grid as square as n allows */
    PAT_GEN_COUNT,  /* the families above: mapbench's "gen" instances */
    PAT_RING = PAT_GEN_COUNT,   /* rank i <-> i+1 mod n */
    PAT_RGG3D,      /* random geometric graph: n points uniform in the unit
                       cube, joined when closer than the radius that gives
                       RGG_DEGREE partners on average; bytes fall with the
                       distance (bench-large, largegen) */
    PAT_COUNT
} bench_pattern_t;

/** Mean partners per rank of PAT_RGG3D (DIMACS10's rgg_n_2_20 has 13). */
#define RGG_DEGREE 12.0

const char *bench_pattern_name(bench_pattern_t p);

/** The pattern named @p name, or PAT_COUNT. */
bench_pattern_t bench_pattern_find(const char *name);

/** Pattern @p p on @p n ranks; when @p scramble_seed != 0 ranks are
 *  relabelled by a fixed random permutation drawn from that seed. */
cm_matrix_t *bench_pattern(bench_pattern_t p, int n, uint64_t scramble_seed,
                           cm_error_t *err);

/** Split n into d factors as equal as possible (largest first). */
void bench_factor(int n, int d, int *dims);

#endif
