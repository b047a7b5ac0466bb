/* read_triplets.c -- "src dst bytes [msgs]" lines, 0-based ranks.
 *
 * '#' starts a comment line; a "# ranks N" comment before the first entry
 * fixes the rank count (otherwise max index + 1).  Either every entry has
 * the message column or none has.
 *
 * Each line is first tried by fast_entry(), which takes the usual shape in
 * one pass; whatever it does not take (comments, blank lines, other
 * spellings, every error) read_line() reads field by field as it always
 * did, so that what is accepted, and every message, stay the same. */
#include <string.h>

#include "matrix_internal.h"

struct triplets {
    cm_lines_t *l;
    long long n;          /* from '# ranks N', else 0 */
    long first_entry;     /* line of the first entry, 0 before it */
    long ranks_line;      /* line of '# ranks N', 0 without one */
    int with_msgs;        /* -1 until the first entry */
};

struct entry {
    long long src, dst;
    double bytes, msgs;
    int has_msgs;
};

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

/* A comment line: its '# ranks N' directive taken, if it is one.  0, or
 * -1 with @p err set. */
static int comment(struct triplets *t, cm_error_t *err)
{
    cm_lines_t *l = t->l;
    long long d;
    int k = ranks_directive(l, &d, err);
    if (k <= 0)
        return k;
    if (t->first_entry) {
        char what[96];
        snprintf(what, sizeof what, "'# ranks N' before the first "
                 "entry (line %ld)", t->first_entry);
        return cm_lines_fail(l, err, what, "# ranks");
    }
    if (t->ranks_line) {
        char what[96];
        snprintf(what, sizeof what, "a single '# ranks N' line "
                 "(first on line %ld)", t->ranks_line);
        return cm_lines_fail(l, err, what, "# ranks");
    }
    t->n = d;
    t->ranks_line = l->lineno;
    return 0;
}

/* The usual entry line in one pass: two ranks of plain digits in [0, hi]
 * and one or two plain decimals (cm_scan_long, cm_scan_value), blanks or
 * tabs around them.  1 with @p e filled, 0 for any other line. */
static int fast_entry(const char *p, long long hi, struct entry *e)
{
    p = cm_skip_blanks((char *)p);
    if (!cm_scan_long(&p, &e->src) || e->src > hi)
        return 0;
    p = cm_skip_blanks((char *)p);
    if (!cm_scan_long(&p, &e->dst) || e->dst > hi)
        return 0;
    p = cm_skip_blanks((char *)p);
    if (!cm_scan_value(&p, &e->bytes))
        return 0;
    p = cm_skip_blanks((char *)p);
    e->has_msgs = *p != '\0';
    e->msgs = 0;
    if (!e->has_msgs)
        return 1;
    if (!cm_scan_value(&p, &e->msgs))
        return 0;
    return *cm_skip_blanks((char *)p) == '\0';
}

/* The current line field by field, with every check and message: 1 with
 * @p e filled for an entry, 0 for a comment or blank line, -1 with @p err
 * set. */
static int read_line(struct triplets *t, struct entry *e, cm_error_t *err)
{
    cm_lines_t *l = t->l;
    char *cur = cm_skip_blanks(l->buf);
    long long n = t->n;

    if (*cur == '#')
        return comment(t, err);
    if (cm_blank(cur))
        return 0;
    if (!t->first_entry)
        t->first_entry = l->lineno;

    long long hi = n ? n - 1 : CM_MAX_RANKS - 1;
    const char *rng = n ? "a destination rank below '# ranks'"
                        : "a destination rank (at most 2^24 - 1)";
    e->msgs = 0;
    if (cm_next_long(l, &cur, 0, hi, n ? "a source rank below '# ranks'"
                     : "a source rank (at most 2^24 - 1)", &e->src, err) < 0 ||
        cm_next_long(l, &cur, 0, hi, rng, &e->dst, err) < 0 ||
        cm_next_value(l, &cur, "a byte count", &e->bytes, err) < 0)
        return -1;
    int has4 = !cm_blank(cur);
    if (t->with_msgs < 0) {
        t->with_msgs = has4;
    } else if (has4 != t->with_msgs) {
        char what[128];
        snprintf(what, sizeof what, "%d columns like line %ld (either every "
                 "entry has a message count or none)", t->with_msgs ? 4 : 3,
                 t->first_entry);
        return cm_lines_fail(l, err, what, has4 ? cm_token(&cur) : NULL);
    }
    if (has4 && cm_next_value(l, &cur, "a message count", &e->msgs, err) < 0)
        return -1;
    if (cm_expect_eol(l, &cur, err) < 0)
        return -1;
    return 1;
}

cm_matrix_t *cm_read_triplets(cm_lines_t *l, cm_error_t *err)
{
    struct triplets t = { l, 0, 0, 0, -1 };
    cm_builder_t *b = cm_builder_new(CM_MAX_RANKS, err);
    cm_matrix_t *m = NULL;
    long long max_index = -1;
    size_t entries = 0;
    int r;

    if (!b)
        return NULL;
    while ((r = cm_lines_next(l, err)) > 0) {
        struct entry e;
        long long hi = t.n ? t.n - 1 : CM_MAX_RANKS - 1;
        /* the fast path only once the column count is known */
        if (!fast_entry(l->buf, hi, &e) || e.has_msgs != t.with_msgs) {
            int k = read_line(&t, &e, err);
            if (k < 0)
                goto out;
            if (k == 0)
                continue;
        }
        if (cm_builder_add(b, (int)e.src, (int)e.dst, e.bytes, e.msgs, err) < 0)
            goto out;
        if (++entries == CM_RESERVE_AFTER)
            cm_lines_reserve(l, b);
        if (e.src > max_index)
            max_index = e.src;
        if (e.dst > max_index)
            max_index = e.dst;
    }
    if (r < 0)
        goto out;
    long long n = t.n ? t.n : max_index + 1;
    if (n < 1) {
        cm_error_set(err, "%s:%ld: expected at least one 'src dst bytes [msgs]' "
                     "entry or a '# ranks N' line, got none", l->name, l->lineno);
        goto out;
    }
    cm_builder_set_has_msgs(b, t.with_msgs > 0);
    if (cm_builder_set_n(b, (int)n, err) < 0)
        goto out;
    m = cm_builder_finish_take(b, err);
out:
    cm_builder_free(b);
    return m;
}
