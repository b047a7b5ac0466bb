/* read_metis.c -- METIS graph files as communication matrices.
 *
 * Header "n m [fmt [ncon]]", then one line per vertex listing its 1-based
 * neighbours.  Every undirected edge is listed by both ends; both listings
 * are stored as directed entries, so J counts each edge twice exactly like
 * VieM and KaHIP do.  Vertex sizes and weights are checked and skipped. */
#include <string.h>

#include "matrix_internal.h"

struct metis_header {
    long long n, m;
    int edge_weights, vertex_weights, vertex_sizes;
    long long ncon;
    long line;
};

/* Next line that is not a '%' comment.  Blank lines count: in METIS an
 * empty line is a vertex without neighbours. */
static int next_line(cm_lines_t *l, cm_error_t *err)
{
    int r;
    while ((r = cm_lines_next(l, err)) > 0)
        if (l->buf[0] != '%')
            return 1;
    return r;
}

static int read_header(cm_lines_t *l, struct metis_header *h, cm_error_t *err)
{
    int r;
    while ((r = next_line(l, err)) > 0 && cm_blank(l->buf))
        ;
    if (r < 0)
        return -1;
    if (r == 0)
        return cm_error_set(err, "%s:%ld: expected a METIS header 'n m [fmt "
                            "[ncon]]', got end of file", l->name, l->lineno);
    h->line = l->lineno;
    char *cur = l->buf;
    if (cm_next_long(l, &cur, 1, CM_MAX_RANKS, "a vertex count", &h->n, err) < 0 ||
        cm_next_long(l, &cur, 0, h->n * (h->n - 1) / 2,
                     "an edge count (at most n(n-1)/2)", &h->m, err) < 0)
        return -1;
    h->edge_weights = h->vertex_weights = h->vertex_sizes = 0;
    h->ncon = 1;
    char *fmt = cm_token(&cur);
    if (fmt) {
        size_t len = strlen(fmt);
        if (len > 3 || strspn(fmt, "01") != len)
            return cm_lines_fail(l, err, "a format of up to three 0/1 digits "
                                 "(1 edge weights, 10 vertex weights, 100 "
                                 "vertex sizes)", fmt);
        h->edge_weights = fmt[len - 1] == '1';
        h->vertex_weights = len >= 2 && fmt[len - 2] == '1';
        h->vertex_sizes = len >= 3 && fmt[len - 3] == '1';
        if (!cm_blank(cur) &&
            cm_next_long(l, &cur, 1, 1000, "a constraint count", &h->ncon, err) < 0)
            return -1;
    }
    return cm_expect_eol(l, &cur, err);
}

cm_matrix_t *cm_read_metis(cm_lines_t *l, cm_error_t *err)
{
    struct metis_header h;
    cm_builder_t *b = NULL;
    cm_matrix_t *m = NULL;
    long long entries = 0, vertex = 0;
    int r;

    if (read_header(l, &h, err) < 0 || !(b = cm_builder_new((int)h.n, err)))
        return NULL;
    while ((r = next_line(l, err)) > 0) {
        char *cur = l->buf;
        if (vertex == h.n) {
            if (cm_blank(l->buf))
                continue;
            char what[128];
            snprintf(what, sizeof what, "end of file after the %lld vertex "
                     "lines announced on line %ld", h.n, h.line);
            cm_lines_fail(l, err, what, cm_token(&cur));
            goto out;
        }
        vertex++;
        long long skip;
        if (h.vertex_sizes &&
            cm_next_long(l, &cur, 0, 1LL << 62, "a vertex size", &skip, err) < 0)
            goto out;
        for (long long c = 0; h.vertex_weights && c < h.ncon; c++)
            if (cm_next_long(l, &cur, 0, 1LL << 62, "a vertex weight", &skip,
                             err) < 0)
                goto out;
        while (!cm_blank(cur)) {
            long long v;
            double w = 1;
            if (cm_next_long(l, &cur, 1, h.n, "a neighbour", &v, err) < 0)
                goto out;
            if (v == vertex) {
                char what[96];
                snprintf(what, sizeof what, "a neighbour other than vertex "
                         "%lld itself (no self loops)", vertex);
                char tok[24];
                snprintf(tok, sizeof tok, "%lld", v);
                cm_lines_fail(l, err, what, tok);
                goto out;
            }
            if (h.edge_weights && !cm_fast_value(&cur, &w)) {
                char what[64];
                snprintf(what, sizeof what, "an edge weight after neighbour %lld",
                         v);
                if (cm_next_value(l, &cur, what, &w, err) < 0)
                    goto out;
            }
            if (cm_builder_add(b, (int)vertex - 1, (int)v - 1, w, 0, err) < 0)
                goto out;
            if (++entries == CM_RESERVE_AFTER)
                cm_lines_reserve(l, b);
        }
    }
    if (r < 0)
        goto out;
    if (vertex < h.n) {
        cm_error_set(err, "%s:%ld: expected %lld vertex lines as announced on "
                     "line %ld, got %lld before end of file", l->name, l->lineno,
                     h.n, h.line, vertex);
        goto out;
    }
    if (entries != 2 * h.m) {
        cm_error_set(err, "%s:%ld: expected 2*m = %lld adjacency entries (each "
                     "of the m = %lld edges listed by both ends), got %lld",
                     l->name, h.line, 2 * h.m, h.m, entries);
        goto out;
    }
    m = cm_builder_finish_take(b, err);
out:
    cm_builder_free(b);
    return m;
}
