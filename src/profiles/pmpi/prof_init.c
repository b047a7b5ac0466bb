/*
 * prof_init.c -- the C entry and exit points: start recording (and the
 * overlays, src/profiles/overlay/ovl.h) after a successful MPI_Init /
 * MPI_Init_thread, report the overlays and write the profile before
 * MPI_Finalize.  (The Fortran ones are in prof_fortran.c.)
 */
#include "prof.h"
#include "ovl.h"

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        cmp_start(MPI_THREAD_SINGLE);
        ovl_start();
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        cmp_start(*provided);
        ovl_start();
    }
    return rc;
}

int MPI_Finalize(void)
{
    ovl_finish();
    cmp_finish();
    return PMPI_Finalize();
}
