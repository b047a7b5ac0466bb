/*
 * halo2d.c -- 2-D 5-point halo exchange (a 2-D structured stencil): ranks
 * on a non-periodic px*py grid swap four faces (edges) of --bytes per
 * iteration.
 *
 * Default 20 iterations of 256 KiB faces and 1e6 flops, as halo3d.  See
 * halo.h for --scramble and --dims; halo2d.f90 is the same pattern in
 * Fortran.
 */
#include "halo.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct ma_args a = {
        .app = "halo2d",
        .summary = "2-D 5-point halo: four faces of --bytes per iteration",
        .iters = 20, .bytes = 256 << 10, .compute = 1e6, .seed = 1,
    };
    return halo_main(argc, argv, 2, &a);
}
