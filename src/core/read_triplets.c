/* read_triplets.c -- "src dst bytes [msgs]" lines, 0-based ranks.
 *
 * '#' starts a comment line; a "# ranks N" comment before the first entry
 * fixes the rank count (otherwise max index + 1).  Either every entry has
 * the message column or none has. */
#include <string.h>

#include "matrix_internal.h"

/* A "# ranks N" directive?  1 and *n set, 0 if the line is an ordinary
 * comment, -1 when "ranks" is followed by something other than a count. */
static int ranks_directive(cm_lines_t *l, long long *n, cm_error_t *err)
{
    char *cur = l->buf + 1;   /* past '#' */
    char *word = cm_token(&cur);
    if (!word || strcmp(word, "ranks") != 0)
        return 0;
    if (cm_next_long(l, &cur, 1, CM_MAX_RANKS, "a rank count after '# ranks' "
                     "(at most 2^24)", n, err) < 0 ||
        cm_expect_eol(l, &cur, err) < 0)
        return -1;
    return 1;
}

cm_matrix_t *cm_read_triplets(cm_lines_t *l, cm_error_t *err)
{
    cm_builder_t *b = cm_builder_new(CM_MAX_RANKS, err);
    cm_matrix_t *m = NULL;
    long long n = 0, max_index = -1;
    long first_entry = 0, ranks_line = 0;
    int with_msgs = -1;   /* unknown until the first entry */
    int r;

    if (!b)
        return NULL;
    while ((r = cm_lines_next(l, err)) > 0) {
        char *cur = l->buf;
        while (*cur == ' ' || *cur == '\t')
            cur++;
        if (*cur == '#') {
            long long d;
            int k = ranks_directive(l, &d, err);
            if (k < 0)
                goto out;
            if (k > 0) {
                if (first_entry) {
                    char what[96];
                    snprintf(what, sizeof what, "'# ranks N' before the first "
                             "entry (line %ld)", first_entry);
                    cm_lines_fail(l, err, what, "# ranks");
                    goto out;
                }
                if (ranks_line) {
                    char what[96];
                    snprintf(what, sizeof what, "a single '# ranks N' line "
                             "(first on line %ld)", ranks_line);
                    cm_lines_fail(l, err, what, "# ranks");
                    goto out;
                }
                n = d;
                ranks_line = l->lineno;
            }
            continue;
        }
        if (cm_blank(cur))
            continue;
        if (!first_entry)
            first_entry = l->lineno;

        long long hi = n ? n - 1 : CM_MAX_RANKS - 1;
        const char *rng = n ? "a destination rank below '# ranks'"
                            : "a destination rank (at most 2^24 - 1)";
        long long src, dst;
        double bytes, msgs = 0;
        if (cm_next_long(l, &cur, 0, hi, n ? "a source rank below '# ranks'"
                         : "a source rank (at most 2^24 - 1)", &src, err) < 0 ||
            cm_next_long(l, &cur, 0, hi, rng, &dst, err) < 0 ||
            cm_next_value(l, &cur, "a byte count", &bytes, err) < 0)
            goto out;
        int has4 = !cm_blank(cur);
        if (with_msgs < 0) {
            with_msgs = has4;
        } else if (has4 != with_msgs) {
            char what[128];
            snprintf(what, sizeof what, "%d columns like line %ld (either every "
                     "entry has a message count or none)", with_msgs ? 4 : 3,
                     first_entry);
            cm_lines_fail(l, err, what, has4 ? cm_token(&cur) : NULL);
            goto out;
        }
        if (has4 && cm_next_value(l, &cur, "a message count", &msgs, err) < 0)
            goto out;
        if (cm_expect_eol(l, &cur, err) < 0 ||
            cm_builder_add(b, (int)src, (int)dst, bytes, msgs, err) < 0)
            goto out;
        if (src > max_index)
            max_index = src;
        if (dst > max_index)
            max_index = dst;
    }
    if (r < 0)
        goto out;
    if (!n)
        n = max_index + 1;
    if (n < 1) {
        cm_error_set(err, "%s:%ld: expected at least one 'src dst bytes [msgs]' "
                     "entry or a '# ranks N' line, got none", l->name, l->lineno);
        goto out;
    }
    cm_builder_set_has_msgs(b, with_msgs > 0);
    if (cm_builder_set_n(b, (int)n, err) < 0)
        goto out;
    m = cm_builder_finish_take(b, err);
out:
    cm_builder_free(b);
    return m;
}
