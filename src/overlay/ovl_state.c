/*
 * ovl_state.c -- the overlays' switch and life cycle (ovl.h): read at
 * MPI_Init, reported and released at MPI_Finalize.
 *
 * Only rank 0 of MPI_COMM_WORLD speaks, so that a job of a thousand ranks
 * prints one line, not a thousand; it speaks of its own figures, because
 * gathering the others' would be a collective at MPI_Finalize that a rank
 * without the library (or one that failed to set up) would never join.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "cm_env.h"
#include "ovl.h"
#include "trace.h"

OVL_HIDDEN int ovl_css_on;

static int world_rank = -1;   /* in MPI_COMM_WORLD, -1 before ovl_start */
static int verbose;           /* CLUSTERMAP_OVERLAY_VERBOSE */
static int tnbc_asked;        /* CLUSTERMAP_OVERLAY named tnbc */

void ovl_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    prof_vsay("clustermap overlay: ", fmt, ap);
    va_end(ap);
}

int ovl_pre_init(int required)
{
    ovl_config_t cfg;
    ovl_agree_want();
    ovl_config_parse(getenv(CM_ENV_OVERLAY), NULL, &cfg);
    return (cfg.on & OVL_TNBC) ? MPI_THREAD_MULTIPLE : required;
}

void ovl_start(int granted)
{
    ovl_config_t cfg;
    int size = 1;
    if (world_rank >= 0)   /* MPI_Init and MPI_Init_thread, both called */
        return;
    ovl_config_parse(getenv(CM_ENV_OVERLAY),
                     getenv(CM_ENV_OVERLAY_VERBOSE), &cfg);
    if (PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank) != MPI_SUCCESS)
        world_rank = 0;   /* cannot happen after a successful init */
    if (PMPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS)
        size = 1;
    if (world_rank == 0 && cfg.note[0])
        ovl_say("%s\n", cfg.note);
    verbose = cfg.verbose;
    /* Before anything of the overlays' runs, the allreduce below
     * included: every rank has the library, or the overlays are off. */
    cfg.on = ovl_agree(cfg.on, world_rank, size);
    /* The attribute may fail to be made on some rank: the calls then find
     * no cache there and fall back together (ovl_css.c), so the switch
     * itself stays what the environment says on every rank. */
    if (cfg.on & OVL_CSS)
        ovl_css_setup();
    ovl_css_on = (cfg.on & OVL_CSS) != 0;
    if (cfg.on & OVL_TNBC) {
        /* the library's answer is the same everywhere, but a rank that
         * could not set up must not leave the others sending to it: every
         * rank runs tnbc, or none does */
        int ok = granted == MPI_THREAD_MULTIPLE, mult = ok;
        /* without the catch-all an MPI call it does not see could meet a
         * protected buffer (prof_tramp.c): alike on every rank of a build */
        int caught = prof_catchall > 0;
        int want = ovl_waves_want();
        ok = ok && caught && ovl_tnbc_setup() == 0;
        /* and the waves, asked for by every rank or by none: MIN of
         * (tnbc set up, waves asked for and set up, waves not asked for) */
        int v[3] = { ok, want && ovl_waves_setup() == 0, !want }, all[3];
        if (PMPI_Allreduce(v, all, 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD) !=
            MPI_SUCCESS) {
            all[0] = all[1] = 0;
            all[2] = 1;
        }
        if (!all[0] && world_rank == 0)
            ovl_say("tnbc: %s; running without it\n",
                    !mult   ? "the MPI library did not grant "
                              "MPI_THREAD_MULTIPLE"
                    : !caught ? "this build of libclustermap-prof.so cannot "
                                "see every MPI call (no catch-all on this "
                                "target)"
                              : "could not be set up on every rank");
        if (all[0] && !all[1] && !all[2] && world_rank == 0)
            ovl_say("tnbc: " CM_ENV_OVERLAY_WAVES " not set alike on every "
                    "rank (or not set up); running without waves\n");
        ovl_tnbc_on = all[0];
        ovl_waves_on = all[0] && all[1];
        tnbc_asked = 1;
        if (all[0])   /* every rank here: which sites step aside, alike */
            ovl_tprio_agree();
    }
}

void ovl_finish(void)
{
    if (tnbc_asked) {
        tnbc_asked = 0;
        int was = ovl_tnbc_on;
        ovl_tnbc_teardown();   /* completes what is pending, in any case */
        ovl_tnbc_on = 0;
        ovl_waves_on = 0;
        ovl_waves_teardown();
        if (was && verbose && world_rank == 0) {
            ovl_tnbc_stats_t st;
            char line[640];
            ovl_tnbc_stats(&st);
            ovl_tnbc_line(line, sizeof line, world_rank, &st);
            ovl_say("%s", line);
        }
    }
    if (!ovl_css_on)
        return;
    ovl_css_on = 0;   /* calls from attribute callbacks from now on: PMPI */
    if (verbose && world_rank == 0) {
        ovl_css_stats_t st;
        char line[512];
        ovl_css_stats(&st);
        ovl_css_line(line, sizeof line, world_rank, &st);
        ovl_say("%s", line);
    }
    ovl_css_teardown();
}
