/*
 * ovl_config.c -- CLUSTERMAP_OVERLAY and CLUSTERMAP_OVERLAY_VERBOSE into an
 * ovl_config_t (ovl_text.h).
 *
 * The overlays are switched on by the environment only, so that an
 * unmodified program gets them from the launcher (mpirun -x, or the
 * environment srun passes on).  A value the library does not understand
 * must never stop or change the program: it turns the overlays off and
 * says so in one line, which rank 0 prints (ovl_state.c).  The names and
 * the syntax (lenient: what a user may write) are cm_overlay_spec.h's.
 */
#include <stdio.h>
#include <string.h>

#include "cm_env.h"
#include "ovl_text.h"

/* Copy the token [s, s + len) into @p out (size @p n) for a message: at
 * most 32 characters, "..." after a longer one, anything unprintable as
 * '?', so that a stray value cannot garble the line or the terminal. */
static void shown(char *out, size_t n, const char *s, size_t len)
{
    size_t k = 0, max = len > 32 ? 32 : len;
    for (; k < max && k + 4 < n; k++)
        out[k] = (s[k] >= 0x20 && s[k] < 0x7f) ? s[k] : '?';
    if (max < len && k + 4 <= n) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
}

void ovl_config_parse(const char *overlay, const char *verbose, ovl_config_t *cfg)
{
    const char *bad = NULL;
    size_t bad_len = 0;
    unsigned want = 0;
    memset(cfg, 0, sizeof *cfg);
    cfg->verbose = verbose && *verbose && strcmp(verbose, "0") != 0;
    if (cm_overlay_spec_parse(overlay, CM_OVL_LENIENT, &want, &bad, &bad_len) < 0) {
        char shown_bad[40], accepted[64];
        shown(shown_bad, sizeof shown_bad, bad, bad_len);
        cm_overlay_spec_accepted(CM_OVL_LENIENT, accepted, sizeof accepted);
        snprintf(cfg->note, sizeof cfg->note,
                 CM_ENV_OVERLAY ": unknown overlay '%s' (accepted: %s); running "
                                "without overlays",
                 shown_bad, accepted);
        return;
    }
    cfg->on = want;
}
