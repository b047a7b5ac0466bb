/*
 * cm_overlay_spec.h -- the communication overlays of libclustermap-prof.so
 * (docs/overlays.md) by name, and the one parser and printer of an overlay
 * spec, a comma list of their names ("css", "tnbc", "css,tnbc").
 *
 * Every part that names overlays reads and writes them here: the plugin's
 * overlay= (src/launch/config.c), --mapping's css and overlap modifiers
 * (src/launch/options.c), srun's and the batch step's marks
 * (src/plugin/overlay_step.c, overlay_trace.c, mpirun_batch.c),
 * clustermap's mpirun (src/mpirun/mpirun.c) and the library's
 * CLUSTERMAP_OVERLAY (src/overlay/ovl_config.c, ovl_agree.c).  A new
 * overlay is one row of cm_overlay_names() and its documentation.
 *
 * Header-only and plain C: the MPI-compiled overlays link no launch code,
 * and the launch code no MPI.
 */
#ifndef CM_OVERLAY_SPEC_H
#define CM_OVERLAY_SPEC_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The overlays, as bits of a set. */
#define CM_OVL_CSS 1u  /* contention-free MPI_Alltoallv schedules */
#define CM_OVL_TNBC 2u /* transparent non-blocking collectives */

typedef struct cm_overlay_name {
    const char *name;     /* in a spec: overlay=, CLUSTERMAP_OVERLAY */
    unsigned bit;         /* CM_OVL_* */
    const char *modifier; /* the --mapping modifier that asks for it */
} cm_overlay_name_t;

/** The overlays, in the order a spec prints them; *@p n their count.  The
 *  table is static: never freed. */
static inline const cm_overlay_name_t *cm_overlay_names(size_t *n)
{
    static const cm_overlay_name_t names[] = {
        { "css", CM_OVL_CSS, "css" },
        { "tnbc", CM_OVL_TNBC, "overlap" },
    };
    *n = sizeof names / sizeof names[0];
    return names;
}

/* How cm_overlay_spec_parse() reads a spec. */
typedef enum cm_overlay_syntax {
    /* What clustermap writes and plugstack.conf's overlay= accepts:
     * "none", or names in lower case joined by single commas, each at
     * most once, nothing else (no blank, no empty item). */
    CM_OVL_STRICT,
    /* What a user may write in CLUSTERMAP_OVERLAY: names in any case,
     * blanks (space, tab) around them, empty items skipped, repeats
     * allowed; NULL or "" is no overlay, and "none" is not a name. */
    CM_OVL_LENIENT
} cm_overlay_syntax_t;

/** Parse the spec @p s (may be NULL: no overlay when lenient, an error
 *  when strict) into *@p bits.  0, or -1 with *@p bits unchanged and, when
 *  @p bad and @p bad_len are not NULL, the first item that is not a name
 *  (blanks trimmed; a repeated or empty item when strict) as *@p bad (into
 *  @p s) and *@p bad_len.  Reads only @p s. */
static inline int cm_overlay_spec_parse(const char *s, cm_overlay_syntax_t syntax,
                                        unsigned *bits, const char **bad, size_t *bad_len)
{
    size_t n;
    const cm_overlay_name_t *t = cm_overlay_names(&n);
    unsigned want = 0;
    int lenient = syntax == CM_OVL_LENIENT;
    if (!s || !*s) {
        if (!lenient)
            goto fail_at;
        *bits = 0;
        return 0;
    }
    if (!lenient && !strcmp(s, "none")) {
        *bits = 0;
        return 0;
    }
    for (const char *p = s;;) {
        const char *end = p + strcspn(p, ","), *a = p, *b = end;
        while (lenient && a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (lenient && b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        size_t len = (size_t)(b - a), i = 0;
        if (len > 0 || !lenient) {
            while (i < n &&
                   !(strlen(t[i].name) == len &&
                     (lenient ? strncasecmp(t[i].name, a, len)
                              : strncmp(t[i].name, a, len)) == 0))
                i++;
            if (i == n || (!lenient && (want & t[i].bit))) {
                if (bad && bad_len) {
                    *bad = a;
                    *bad_len = len;
                }
                return -1;
            }
            want |= t[i].bit;
        }
        if (!*end)
            break;
        p = end + 1;
    }
    *bits = want;
    return 0;
fail_at:
    if (bad && bad_len) {
        *bad = s ? s : "";
        *bad_len = 0;
    }
    return -1;
}

/** The spec of @p bits (the names of cm_overlay_names() in its order,
 *  joined by commas; "" for none; unknown bits ignored) into @p buf of
 *  @p size bytes, cut to fit.  Returns the length of the whole spec, as
 *  snprintf does: >= @p size when it did not fit. */
static inline size_t cm_overlay_spec_print(unsigned bits, char *buf, size_t size)
{
    size_t n, len = 0;
    const cm_overlay_name_t *t = cm_overlay_names(&n);
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (bits & t[i].bit) {
            int w = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
                             "%s%s", len ? "," : "", t[i].name);
            len += w > 0 ? (size_t)w : 0;
        }
    return len;
}

/** The overlay the --mapping modifier [@p s, @p s + @p len) asks for (its
 *  CM_OVL_* bit), or 0 when it names none. */
static inline unsigned cm_overlay_modifier(const char *s, size_t len)
{
    size_t n;
    const cm_overlay_name_t *t = cm_overlay_names(&n);
    for (size_t i = 0; i < n; i++)
        if (strlen(t[i].modifier) == len && !strncmp(t[i].modifier, s, len))
            return t[i].bit;
    return 0;
}

/** The names a spec accepts, for a message, into @p buf of @p size bytes
 *  (cut to fit): strict, "none, css, tnbc or css,tnbc" (none, each name,
 *  all of them); lenient, "css, tnbc". */
static inline void cm_overlay_spec_accepted(cm_overlay_syntax_t syntax, char *buf,
                                            size_t size)
{
    size_t n, len = 0;
    const cm_overlay_name_t *t = cm_overlay_names(&n);
    char all[128];
    int w;
    if (!size)
        return;
    buf[0] = '\0';
    if (syntax == CM_OVL_STRICT && (w = snprintf(buf, size, "none")) > 0)
        len = (size_t)w;
    for (size_t i = 0; i < n && len < size; i++)
        if ((w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", t[i].name)) > 0)
            len += (size_t)w;
    if (syntax == CM_OVL_STRICT && n > 1 && len < size) {
        cm_overlay_spec_print(~0u, all, sizeof all);
        snprintf(buf + len, size - len, " or %s", all);
    }
}

#endif /* CM_OVERLAY_SPEC_H */
