/*
 * halo3d.c -- 3-D 7-point halo exchange (the communication of a stencil
 * code such as NAS MG's finest level or a structured CFD solver): ranks on
 * a non-periodic px*py*pz grid swap six faces of --bytes per iteration.
 *
 * Default 20 iterations of 256 KiB faces and 1e6 flops: at 64 ranks on
 * 8-core nodes communication dominates, and a replay takes well under a
 * second.  See halo.h for --scramble and --dims.
 */
#include "halo.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct ma_args a = {
        .app = "halo3d",
        .summary = "3-D 7-point halo: six faces of --bytes per iteration",
        .iters = 20, .bytes = 256 << 10, .compute = 1e6, .seed = 1,
    };
    return halo_main(argc, argv, 3, &a);
}
