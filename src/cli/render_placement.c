/*
 * render_placement.c -- `clustermap render --view placement`: the machine
 * tree as nested boxes (switches > nodes > sockets > cores, whatever levels
 * the machine options built), each core showing the rank it holds and
 * coloured by the bytes that rank sends to other nodes.
 *
 * Layout, bottom up in natural units: a core is LEAF x LEAF; a vertex puts
 * its children on a grid of cells as large as its largest child, with a
 * gap around them and a strip for its name (nodes and above, unless the
 * names would be too small to read), and picks
 * the number of columns that makes it squarest, preferring full grids
 * (4 cores as 2 x 2, 8 as 4 x 2) and, at the root, a 3:2 picture.  The
 * whole is then scaled to fit the canvas.  O(vertices x children).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

enum { TOP = 78, MARGIN = 16, LEGEND_W = 160 };

#define LEAF 34.0      /* a core, natural units */
#define GAP 4.0        /* around and between children */
#define HEAD 14.0      /* the name strip of nodes and above */
#define MAX_W 2400.0   /* the tree's largest size on the canvas */
#define MAX_H 1600.0
#define MIN_W 760.0    /* and the size small trees grow to */
#define MIN_H 480.0

typedef struct placement_pic {
    const cm_render_input_t *in;
    int n, nnodes_used;
    int node_level;
    int *rank_at;        /* slot -> rank, -1 when empty */
    double *traffic;     /* rank -> bytes sent to other nodes */
    double *w, *h;       /* vertex -> natural size */
    int *cols;           /* vertex -> columns of its grid of children */
    int *index;          /* vertex -> index among its level (names) */
    cm_render_scale_t scale;
    double J, total_out;
    double s;            /* pixels per natural unit */
    int heads;           /* name strips drawn (not when too small to read) */
    int width, height;
} placement_pic_t;

static int has_head(const placement_pic_t *p, int v)
{
    return p->heads && cm_tree_vertex_level(p->in->t, v) <= p->node_level &&
           cm_tree_vertex_nchildren(p->in->t, v) > 0;
}

/* The natural size of @p v and of everything below it. */
static void measure(placement_pic_t *p, int v, int root)
{
    const cm_tree_t *t = p->in->t;
    int k = cm_tree_vertex_nchildren(t, v);
    double cw = 0, ch = 0, head = has_head(p, v) ? HEAD : 0;
    double best = INFINITY, target = root ? log(1.5) : 0;

    if (k == 0) {
        p->w[v] = p->h[v] = LEAF;
        p->cols[v] = 0;
        return;
    }
    for (int j = 0; j < k; j++) {
        int u = cm_tree_vertex_child(t, v, j);
        measure(p, u, 0);
        if (p->w[u] > cw)
            cw = p->w[u];
        if (p->h[u] > ch)
            ch = p->h[u];
    }
    for (int c = 1; c <= k; c++) {
        int r = (k + c - 1) / c;
        double w = c * cw + (c + 1) * GAP, h = r * ch + (r + 1) * GAP + head;
        /* Squarest (or 3:2 at the root), a full grid worth a 2.7:1
         * stretch, ties to the wider. */
        double score = fabs(log(w / h) - target) + (c * r > k ? 1.0 : 0);
        if (score <= best + 1e-9) {
            best = score;
            p->cols[v] = c;
            p->w[v] = w;
            p->h[v] = h;
        }
        if (r == 1)
            break;
    }
}

static void draw_leaf(cairo_t *cr, const placement_pic_t *p, int v, double x,
                      double y, double w, double h)
{
    int first, count, rank;
    double rgb[3], ink[3], fs, tw;
    char label[32];

    cm_tree_vertex_slots(p->in->t, v, &first, &count);
    rank = p->rank_at[first];
    if (rank < 0)
        rgb[0] = rgb[1] = rgb[2] = 0.80;
    else
        cm_render_scale_color(&p->scale, p->traffic[rank], rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    cairo_set_line_width(cr, w > 6 ? 0.7 : 0.25);
    cairo_stroke(cr);
    if (rank < 0 || w < 9)
        return;
    /* on a GPU machine (--gpus) the slot also names its GPU */
    int gpu = cm_tree_slot_gpu(p->in->t, first);
    if (gpu >= 0)
        snprintf(label, sizeof label, "%d/g%d", rank, gpu);
    else
        snprintf(label, sizeof label, "%d", rank);
    fs = h * 0.42 > 13 ? 13 : h * 0.42;
    tw = cm_render_text_width(cr, fs, label);
    if (tw > w - 3)
        fs *= (w - 3) / tw;
    if (fs < 5.5)
        return;
    cm_render_ink_on(rgb, ink);
    cairo_set_source_rgb(cr, ink[0], ink[1], ink[2]);
    cm_render_text(cr, x + w / 2, y + h / 2 + fs * 0.36, fs, CM_ALIGN_CENTER, label);
}

/* Draw @p v with its top left corner at (@p x, @p y) in pixels. */
static void draw_vertex(cairo_t *cr, const placement_pic_t *p, int v, double x,
                        double y)
{
    const cm_tree_t *t = p->in->t;
    int k = cm_tree_vertex_nchildren(t, v);
    int level = cm_tree_vertex_level(t, v);
    double s = p->s, w = p->w[v] * s, h = p->h[v] * s;
    double head = has_head(p, v) ? HEAD * s : 0;
    double cw = 0, ch = 0, shade;

    if (k == 0) {
        draw_leaf(cr, p, v, x, y, w, h);
        return;
    }
    /* Lighter boxes higher up, a stronger frame for nodes and above. */
    shade = level < p->node_level ? 0.975 : level == p->node_level ? 0.92 : 0.86;
    cairo_set_source_rgb(cr, shade, shade, shade);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    cairo_set_line_width(cr, level < p->node_level ? 1.6 :
                             level == p->node_level ? 1.0 : 0.5);
    cairo_stroke(cr);
    if (head > 0) {
        char name[80];
        double fs = head * 0.72 > 12 ? 12 : head * 0.72;
        cm_render_vertex_name(t, v, p->index[v], name, sizeof name);
        if (fs >= 5.5 && cm_render_text_width(cr, fs, name) < w - 2 * GAP * s) {
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            cm_render_text(cr, x + GAP * s, y + GAP * s + fs * 0.8, fs,
                           CM_ALIGN_LEFT, name);
        }
    }
    for (int j = 0; j < k; j++) {
        int u = cm_tree_vertex_child(t, v, j);
        if (p->w[u] > cw)
            cw = p->w[u];
        if (p->h[u] > ch)
            ch = p->h[u];
    }
    for (int j = 0; j < k; j++) {
        int col = j % p->cols[v], row = j / p->cols[v];
        draw_vertex(cr, p, cm_tree_vertex_child(t, v, j),
                    x + (GAP + col * (cw + GAP)) * s,
                    y + head + (GAP + row * (ch + GAP)) * s);
    }
}

/* The legend's bar: as tall as the tree allows, 120 to 240 pixels. */
static double legend_bar(const placement_pic_t *p)
{
    return fmin(240, fmax(120, p->h[0] * p->s - 90));
}

static void draw_placement(cairo_t *cr, void *ctx)
{
    const placement_pic_t *p = ctx;
    const cm_tree_t *t = p->in->t;
    char line[512], num[64], bytes[32];
    double lx = MARGIN + p->w[0] * p->s + 24, ly = TOP + 24, bar = legend_bar(p);

    cm_render_number(p->J, num, sizeof num);
    snprintf(line, sizeof line, "%s under %s: J = %s",
             cm_render_basename(p->in->matrix_path), cm_render_basename(p->in->mapping), num);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cm_render_title(cr, MARGIN, 26, 17, line);
    cm_render_bytes(p->total_out, bytes, sizeof bytes);
    snprintf(line, sizeof line, "%d ranks on %d of %d nodes (%d slots); %s sent "
             "between nodes.", p->n, p->nnodes_used, cm_tree_nnodes(t),
             cm_tree_nslots(t), bytes);
    cm_render_text(cr, MARGIN, 46, 11, CM_ALIGN_LEFT, line);
    cm_render_text(cr, MARGIN, 62, 11, CM_ALIGN_LEFT,
                   "The machine's levels as nested boxes; each core shows its "
                   "rank, coloured by the bytes the rank sends to other nodes.");

    draw_vertex(cr, p, 0, MARGIN, TOP);

    cm_render_legend(cr, &p->scale, lx, ly, 18, bar, "bytes to other nodes");
    cairo_set_source_rgb(cr, 0.80, 0.80, 0.80);
    cairo_rectangle(cr, lx, ly + bar + 40, 18, 18);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cm_render_text(cr, lx + 25, ly + bar + 53, 10, CM_ALIGN_LEFT, "no rank");
}

static void free_pic(placement_pic_t *p)
{
    free(p->rank_at);
    free(p->traffic);
    free(p->w);
    free(p->h);
    free(p->cols);
    free(p->index);
}

int cm_render_placement(const char *cmd, const char *path,
                        const cm_render_input_t *in)
{
    const cm_tree_t *t = in->t;
    placement_pic_t p;
    int nslots = cm_tree_nslots(t), nv = cm_tree_nvertices(t);
    int *count;
    unsigned char *node_used;
    int status;

    memset(&p, 0, sizeof p);
    p.in = in;
    p.n = cm_matrix_n(in->m);
    p.node_level = cm_render_node_level(t);
    p.rank_at = malloc((size_t)nslots * sizeof *p.rank_at);
    p.traffic = calloc((size_t)(p.n > 0 ? p.n : 1), sizeof *p.traffic);
    p.w = malloc((size_t)nv * sizeof *p.w);
    p.h = malloc((size_t)nv * sizeof *p.h);
    p.cols = malloc((size_t)nv * sizeof *p.cols);
    p.index = malloc((size_t)nv * sizeof *p.index);
    count = calloc((size_t)cm_tree_nlevels(t), sizeof *count);
    node_used = calloc((size_t)nv, 1);
    if (!p.rank_at || !p.traffic || !p.w || !p.h || !p.cols || !p.index ||
        !count || !node_used) {
        free(count);
        free(node_used);
        free_pic(&p);
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "out of memory");
    }
    for (int s = 0; s < nslots; s++)
        p.rank_at[s] = -1;
    for (int i = 0; i < p.n; i++)
        p.rank_at[in->map[i]] = i;
    /* Names: the index among the vertices of a level in the order they
     * were added; nodes by their allocation index in the whole machine. */
    for (int v = 0; v < nv; v++)
        p.index[v] = count[cm_tree_vertex_level(t, v)]++;
    for (int v = 0; v < nv; v++)
        if (count[cm_tree_vertex_level(t, v)] == 1)
            p.index[v] = -1;
    for (int k = 0; k < cm_tree_nnodes(t); k++)
        p.index[cm_tree_node_vertex(t, k)] = cm_tree_node_origin(t, k);
    free(count);

    /* Bytes each rank sends to ranks on other nodes; the nodes used. */
    for (int i = 0; i < p.n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len, v = cm_tree_slot_vertex(t, in->map[i]);
        cm_matrix_row(in->m, i, &cols, &bytes, &msgs, &len);
        for (int k = 0; k < len; k++)
            if (cm_tree_lca_level(t, in->map[i], in->map[cols[k]]) < p.node_level)
                p.traffic[i] += bytes[k];
        p.total_out += p.traffic[i];
        while (v >= 0 && cm_tree_vertex_level(t, v) > p.node_level)
            v = cm_tree_vertex_parent(t, v);
        if (v >= 0 && !node_used[v]) {
            node_used[v] = 1;
            p.nnodes_used++;
        }
    }
    free(node_used);
    cm_render_scale_fit(&p.scale, p.traffic, (size_t)p.n);
    p.J = cm_cost(in->m, t, in->map);

    /* The root is vertex 0 (cm_tree_add_vertex()).  Natural size, then
     * shrunk to fit MAX_W x MAX_H or grown (up to 3 times) to MIN_W x
     * MIN_H. */
    p.heads = 1;
    for (int pass = 0; pass < 2; pass++) {
        measure(&p, 0, 1);
        p.s = fmin(MAX_W / p.w[0], MAX_H / p.h[0]);
        if (p.s > 1)
            p.s = fmin(fmax(1, fmin(MIN_W / p.w[0], MIN_H / p.h[0])), 3);
        if (HEAD * p.s * 0.72 >= 5.5)
            break;
        p.heads = 0;        /* names too small to read: no room for them */
    }
    p.width = (int)ceil(p.w[0] * p.s) + 2 * MARGIN + LEGEND_W;
    p.height = (int)ceil(p.h[0] * p.s) + TOP + MARGIN;
    if (p.width < 720)      /* the titles */
        p.width = 720;
    if (p.height < TOP + 24 + legend_bar(&p) + 80)
        p.height = TOP + 24 + (int)legend_bar(&p) + 80;
    status = cm_render_write(cmd, path, p.width, p.height, draw_placement, &p);
    free_pic(&p);
    return status;
}
