/*
 * ovl_text.h -- the communication overlays' text: what they read from the
 * environment (CLUSTERMAP_OVERLAY, CLUSTERMAP_OVERLAY_VERBOSE) and the
 * verbose line they print at MPI_Finalize (docs/overlays.md).
 *
 * Plain C, no MPI: ovl_config.c and ovl_report.c are linked into
 * libclustermap-prof.so with the rest of the overlay (ovl.h) and into
 * their unit test (test/unit/test_ovl_config.c) without it.
 */
#ifndef CM_OVL_TEXT_H
#define CM_OVL_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "cm_hash.h"
#include "cm_overlay_spec.h"
#include "trace.h"

/* Private to libclustermap-prof.so, as PROF_HIDDEN (prof_overlay.h) is. */
#define OVL_HIDDEN __attribute__((visibility("hidden")))

/* The overlays CLUSTERMAP_OVERLAY can name (bits of ovl_config_t.on;
 * their names: cm_overlay_spec.h; docs/overlays.md, "The css overlay",
 * "The tnbc overlay"). */
#define OVL_CSS  CM_OVL_CSS   /* contention-free MPI_Alltoallv schedules */
#define OVL_TNBC CM_OVL_TNBC  /* transparent non-blocking collectives */

/* What CLUSTERMAP_OVERLAY asks for and what rank 0 says about it. */
typedef struct ovl_config {
    unsigned on;        /* OVL_CSS, OVL_TNBC: the overlays asked for */
    int verbose;        /* print the verbose lines at MPI_Finalize */
    char note[192];     /* the line rank 0 prints at MPI_Init, without the
                         * "clustermap overlay: " prefix and the newline;
                         * "" when there is nothing to say */
} ovl_config_t;

/* Fill @p cfg from the values of CLUSTERMAP_OVERLAY (@p overlay: a comma
 * list of overlay names, blanks around names ignored, case ignored; NULL
 * or empty: no overlay) and CLUSTERMAP_OVERLAY_VERBOSE (@p verbose: on
 * unless NULL, empty or "0").  An unknown name turns every overlay off and
 * leaves a note naming it (the first one) and the accepted names.  Never
 * fails. */
OVL_HIDDEN void ovl_config_parse(const char *overlay, const char *verbose,
                                 ovl_config_t *cfg);

/* Why a call was passed through to PMPI_Alltoallv unchanged. */
typedef enum ovl_pass {
    OVL_PASS_INTER,    /* an intercommunicator */
    OVL_PASS_IN_PLACE, /* MPI_IN_PLACE */
    OVL_PASS_SIZE,     /* 1 rank, or more than the schedules allow */
    OVL_PASS_UNIFORM,  /* every off-diagonal byte count equal */
    OVL_PASS_SLOWER,   /* the schedule is not faster in the cost model */
    OVL_PASS_FALLBACK, /* a failure on some rank (memory, a bad argument) */
    OVL_NPASS
} ovl_pass_t;

/* One rank's figures for the css overlay, since MPI_Init. */
typedef struct ovl_css_stats {
    uint64_t calls;            /* MPI_Alltoallv calls (C and Fortran) */
    uint64_t scheduled;        /* of them, run by a CSS schedule */
    uint64_t built;            /* schedules built (cm_css_sched_overlay) */
    uint64_t redist;           /* of the scheduled calls, those run by a
                                * recognised redistribution's schedule */
    uint64_t recognised;       /* of the schedules built, those whose
                                * exchange was recognised as a
                                * redistribution (cm_css_recognise), its
                                * schedule adopted or not */
    uint64_t pass[OVL_NPASS];  /* passed through, by reason */
    uint64_t bytes;            /* bytes sent to other ranks by scheduled calls */
    uint64_t ns;               /* nanoseconds inside the calls */
} ovl_css_stats_t;

/* The css verbose line of rank @p rank into @p buf (size @p n), without
 * the prefix, ending in a newline:
 *   css: rank 0: 12 MPI_Alltoallv calls, 10 scheduled (2 schedules built),
 *   4 as redistributions (1 recognised), 2 passed through (2 uniform),
 *   3.1 MiB sent, 0.0123 s inside the calls
 * Returns what snprintf returns. */
OVL_HIDDEN int ovl_css_line(char *buf, size_t n, int rank,
                            const ovl_css_stats_t *st);

/* The collectives the tnbc overlay takes, and why it passes one through
 * (docs/overlays.md, "The tnbc overlay"). */
enum { OVL_T_ALLTOALL = TRACE_ALLTOALL, OVL_T_ALLTOALLV = TRACE_ALLTOALLV,
       OVL_T_ALLGATHER = TRACE_ALLGATHER, OVL_T_BCAST = TRACE_NCOLL, OVL_T_NOPS };
typedef enum ovl_tpass {
    OVL_TP_INTER,     /* an intercommunicator: PMPI */
    OVL_TP_IN_PLACE,  /* MPI_IN_PLACE: PMPI */
    OVL_TP_SIZE,      /* a communicator of 1 rank: PMPI */
    OVL_TP_DATATYPE,  /* a datatype that is not contiguous: the same
                       * sub-messages, completed before returning */
    OVL_TP_SMALL,     /* no whole page to protect: completed before
                       * returning */
    OVL_TP_FALLBACK,  /* memory, or the private communicator: as DATATYPE
                       * (or PMPI when there is no private communicator) */
    OVL_TP_ASIDE,     /* its site's trace: hid no more than it cost; as
                       * DATATYPE (trace_aside) */
    OVL_TP_NPASS
} ovl_tpass_t;

/* One rank's figures for the tnbc overlay, since MPI_Init. */
typedef struct ovl_tnbc_stats {
    uint64_t calls[OVL_T_NOPS];    /* calls seen, by collective */
    uint64_t pass[OVL_TP_NPASS];   /* of them, not left pending, by reason */
    uint64_t bytes;                /* bytes received from other ranks */
    uint64_t ns;                   /* nanoseconds inside the calls */
    uint64_t faults;               /* page faults taken on protected pages */
    uint64_t hidden_ns;            /* the estimate of the time hidden */
    uint64_t model_ns;             /* the model's estimate of it,
                                    * T_overlap (ovl_tnbc_model), summed
                                    * over the same calls */
    uint64_t waves;                /* Alltoall(v) calls run in waves
                                    * (ovl_waves.c) */
    uint64_t wave_len;             /* the ranks of the node's chain, at
                                    * the last of them */
} ovl_tnbc_stats_t;

/* The tnbc verbose line of rank @p rank into @p buf (size @p n), without
 * the prefix, ending in a newline:
 *   tnbc: rank 0: 40 calls (20 MPI_Alltoall, 20 MPI_Alltoallv, 0
 *   MPI_Allgather, 0 MPI_Bcast), 2 passed through (2 small), 3.1 MiB
 *   received, 0.0123 s inside the calls, 12 page faults, 0.0042 s hidden
 *   (seed's model: 0.0051 s)
 * and, when calls ran in waves, before the newline:
 *   , 20 calls in waves (4 ranks on the node)
 * Returns what snprintf returns. */
OVL_HIDDEN int ovl_tnbc_line(char *buf, size_t n, int rank,
                             const ovl_tnbc_stats_t *st);

/* The model of the time one call hides, beside the measured one so that
 * a run shows how far the prediction holds (docs/overlays.md, "The
 * seed's model beside the measured time", where it comes from), in the
 * unit of the times given:
 *   T_overlap = min(T_comm - T_init, T_CURC + T_comm x R_comm / R_CRC)
 * with R_comm = @p d_comm / @p t_comm (@p d_comm the bytes received).
 * @p r_crc is the rate (bytes per unit of time) at which the program
 * consumes the received data: INFINITY when unknown (the limit case: the
 * program computes nothing on the data before it needs the next byte, so
 * only @p t_curc overlaps), 0 when it consumes nothing (all of T_comm -
 * T_init overlaps).  The result is never negative: a call whose
 * communication ended before it returned (T_comm <= T_init) hides
 * nothing; a negative @p t_curc counts as 0; with no data (@p d_comm 0)
 * the second term is T_CURC. */
OVL_HIDDEN double ovl_tnbc_model(double t_comm, double t_init, double t_curc,
                                 double d_comm, double r_crc);


#endif /* CM_OVL_TEXT_H */
