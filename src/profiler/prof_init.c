/*
 * prof_init.c -- the C entry and exit points: start recording (and the
 * overlays, prof_overlay.h) after a successful MPI_Init /
 * MPI_Init_thread, report the overlays and write the profile before
 * MPI_Finalize.  (The Fortran ones are in prof_fortran.c.)
 *
 * The tnbc overlay needs MPI_THREAD_MULTIPLE (its progress thread calls
 * MPI while the program runs): when it is asked for, PMPI is asked for
 * that level, the program is told the level it asked for capped by what
 * was granted, and the overlay is told what was granted.  Before PMPI
 * init, ovl_pre_init also notes the overlays asked for: the library's
 * PMIx_Init publishes them during PMPI init, for the agreement that every
 * rank runs them (src/overlay/ovl_agree.c).
 */
#include "prof.h"
#include "prof_overlay.h"

int MPI_Init(int *argc, char ***argv)
{
    int want = ovl_pre_init(MPI_THREAD_SINGLE), got = MPI_THREAD_SINGLE;
    int rc = want == MPI_THREAD_SINGLE ? PMPI_Init(argc, argv)
                                       : PMPI_Init_thread(argc, argv, want, &got);
    if (rc == MPI_SUCCESS) {
        prof_start(MPI_THREAD_SINGLE);
        ovl_start(got);
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int want = ovl_pre_init(required), got = MPI_THREAD_SINGLE;
    int rc = PMPI_Init_thread(argc, argv, want > required ? want : required,
                              &got);
    if (rc == MPI_SUCCESS) {
        /* raised for tnbc: the program sees at most what it asked for;
         * otherwise exactly the library's answer */
        *provided = want > required && got > required ? required : got;
        prof_start(*provided);
        ovl_start(got);
    }
    return rc;
}

int MPI_Finalize(void)
{
    ovl_finish();
    prof_finish();
    return PMPI_Finalize();
}
