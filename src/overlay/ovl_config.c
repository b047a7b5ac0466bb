/*
 * ovl_config.c -- CLUSTERMAP_OVERLAY and CLUSTERMAP_OVERLAY_VERBOSE into an
 * ovl_config_t (ovl_text.h).
 *
 * The overlays are switched on by the environment only, so that an
 * unmodified program gets them from the launcher (mpirun -x, or the
 * environment srun passes on).  A value the library does not understand
 * must never stop or change the program: it turns the overlays off and
 * says so in one line, which rank 0 prints (ovl_state.c).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cm_env.h"
#include "ovl_text.h"

/* The names CLUSTERMAP_OVERLAY accepts, for matching and for the message
 * that lists them. */
static const struct {
    const char *name;
    unsigned bit;
} known[] = { { "css", OVL_CSS }, { "tnbc", OVL_TNBC } };
#define NKNOWN (sizeof known / sizeof known[0])
#define ACCEPTED "css, tnbc"

/* Blanks are what a user may put after a comma or around the value. */
static int blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

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

void ovl_config_parse(const char *overlay, const char *verbose,
                      ovl_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->verbose = verbose && *verbose && strcmp(verbose, "0") != 0;
    unsigned want = 0;
    for (const char *p = overlay; p && *p;) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *a = p, *b = end;
        while (a < b && blank(*a))
            a++;
        while (b > a && blank(b[-1]))
            b--;
        p = *end ? end + 1 : end;
        if (a == b)                       /* "css,," or a trailing comma */
            continue;
        size_t len = (size_t)(b - a), i = 0;
        while (i < NKNOWN && !(strlen(known[i].name) == len &&
                               strncasecmp(known[i].name, a, len) == 0))
            i++;
        if (i == NKNOWN) {
            char bad[40];
            shown(bad, sizeof bad, a, len);
            snprintf(cfg->note, sizeof cfg->note,
                     CM_ENV_OVERLAY ": unknown overlay '%s' (accepted: "
                     ACCEPTED "); running without overlays", bad);
            return;
        }
        want |= known[i].bit;
    }
    cfg->on = want;
}
