/*
 * render_matrix.c -- `clustermap render --view matrix`: the bytes of the
 * communication matrix as a heatmap (logarithmic colour scale), rows the
 * senders and columns the receivers, both in the order of the slots the
 * mapping gives them, so that what a node or a switch holds is a block on
 * the diagonal; lines between nodes (thin) and between switches (thick).
 *
 * Above MAX_CELLS ranks a cell stands for a block of b x b ranks (b =
 * ceil(n / MAX_CELLS)) and shows the sum of their bytes: the picture stays
 * at most MAX_CELLS cells wide and costs O(nnz + cells) at any size.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

#define MAX_CELLS 1024
#define PLOT_TARGET 800   /* preferred width of the heatmap in pixels */
#define MIN_LINE_GAP 4.0  /* boundaries closer than this are not drawn */

enum { LEFT = 110, TOP = 92, RIGHT = 150, BOTTOM = 46 };

typedef struct matrix_pic {
    const cm_render_input_t *in;
    int n, block, cells, px;   /* ranks, ranks per cell, cells per side,
                                  pixels per cell */
    double *sum;               /* cells x cells bytes, row-major */
    cm_render_scale_t scale;
    double J;
    int *order;                /* rank at each position */
    unsigned char *cut;        /* cut[p], 1 <= p < n: 1 node, 2 switch */
    int ncut_node, ncut_switch;
    int show_node, show_switch; /* those lines are far enough apart */
    int nnodes;
} matrix_pic_t;

static void free_pic(matrix_pic_t *p)
{
    free(p->sum);
    free(p->order);
    free(p->cut);
}

/* The heatmap as an image at its size on the page, px x px pixels per
 * cell: drawn 1:1, it stays sharp in every format (viewers smooth a
 * scaled image in SVG). */
static cairo_surface_t *heat_image(const matrix_pic_t *p)
{
    int side = p->cells * p->px;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, side, side);
    uint32_t *cell = malloc((size_t)p->cells * sizeof *cell);
    unsigned char *data;
    int stride;
    double rgb[3];

    if (!cell || cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        free(cell);
        return img;
    }
    cairo_surface_flush(img);
    data = cairo_image_surface_get_data(img);
    stride = cairo_image_surface_get_stride(img);
    for (int r = 0; r < p->cells; r++) {
        for (int c = 0; c < p->cells; c++) {
            cm_render_scale_color(&p->scale, p->sum[(size_t)r * p->cells + c], rgb);
            cell[c] = (uint32_t)(rgb[0] * 255 + 0.5) << 16 |
                      (uint32_t)(rgb[1] * 255 + 0.5) << 8 |
                      (uint32_t)(rgb[2] * 255 + 0.5);
        }
        for (int y = r * p->px; y < (r + 1) * p->px; y++) {
            uint32_t *row = (uint32_t *)(void *)(data + (size_t)y * (size_t)stride);
            for (int x = 0; x < side; x++)
                row[x] = cell[x / p->px];
        }
    }
    free(cell);
    cairo_surface_mark_dirty(img);
    return img;
}

/* The boundaries of @p kind (1 node, 2 switch), on pixel centres so that
 * lines of odd widths stay sharp. */
static void draw_cuts(cairo_t *cr, const matrix_pic_t *p, int kind, double plot)
{
    for (int q = 1; q < p->n; q++) {
        double at;
        if (p->cut[q] != kind)
            continue;
        at = floor(plot * q / p->n) + 0.5;
        cairo_move_to(cr, LEFT + at, TOP);
        cairo_line_to(cr, LEFT + at, TOP + plot);
        cairo_move_to(cr, LEFT, TOP + at);
        cairo_line_to(cr, LEFT + plot, TOP + at);
    }
    cairo_stroke(cr);
}

/* Node names along the left edge, at the middle of each node's rows, when
 * there is room for them. */
static void draw_node_names(cairo_t *cr, const matrix_pic_t *p, double plot)
{
    const cm_tree_t *t = p->in->t;
    int nl = cm_render_node_level(t);
    char name[80];
    int start = 0;

    if (p->nnodes > 64 || plot / p->nnodes < 11)
        return;
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    for (int q = 1; q <= p->n; q++) {
        int v, node;
        if (q < p->n && !p->cut[q])
            continue;
        /* The node vertex above the slot of the first rank of the group. */
        v = cm_tree_slot_vertex(t, p->in->map[p->order[start]]);
        while (cm_tree_vertex_level(t, v) > nl)
            v = cm_tree_vertex_parent(t, v);
        node = cm_tree_slot_node(t, p->in->map[p->order[start]]);
        cm_render_vertex_name(t, v, node >= 0 ? cm_tree_node_origin(t, node) : 0,
                              name, sizeof name);
        cm_render_text(cr, LEFT - (p->px >= 9 ? 22 : 6),
                       TOP + plot * (start + q) / 2.0 / p->n + 4, 10,
                       CM_ALIGN_RIGHT, name);
        start = q;
    }
}

static void draw_matrix(cairo_t *cr, void *ctx)
{
    const matrix_pic_t *p = ctx;
    double plot = (double)p->cells * p->px;
    cairo_surface_t *img;
    char line[512], jtext[64], tmp[64];

    /* Titles. */
    cm_render_number(p->J, jtext, sizeof jtext);
    snprintf(line, sizeof line, "%s under %s: J = %s",
             cm_render_basename(p->in->matrix_path), cm_render_basename(p->in->mapping), jtext);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cm_render_title(cr, 16, 26, 17, line);
    snprintf(line, sizeof line, "%d ranks on %d node%s (%d slots). Rows send, "
             "columns receive; ranks in the order of their slots.",
             p->n, p->nnodes, p->nnodes == 1 ? "" : "s", cm_tree_nslots(p->in->t));
    cm_render_text(cr, 16, 46, 11, CM_ALIGN_LEFT, line);
    snprintf(line, sizeof line, "Lines: node boundaries (thin%s), switch "
             "boundaries (thick%s).",
             p->ncut_node && !p->show_node ? ", too dense: omitted" : "",
             p->ncut_switch && !p->show_switch ? ", too dense: omitted" : "");
    if (p->block > 1) {
        size_t len = strlen(line);
        snprintf(line + len, sizeof line - len, " Each cell sums %d x %d ranks.",
                 p->block, p->block);
    }
    cm_render_text(cr, 16, 62, 11, CM_ALIGN_LEFT, line);

    /* The heatmap. */
    img = heat_image(p);
    cairo_save(cr);
    cairo_set_source_surface(cr, img, LEFT, TOP);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_rectangle(cr, LEFT, TOP, plot, plot);
    cairo_fill(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);

    /* Boundaries: nodes thin, switches thick, each only when far enough
     * apart to be told apart. */
    cairo_save(cr);
    if (p->show_node) {
        cairo_set_source_rgb(cr, 0.0, 0.55, 0.9);
        cairo_set_line_width(cr, 1);
        draw_cuts(cr, p, 1, plot);
    }
    if (p->show_switch) {
        cairo_set_source_rgb(cr, 0.0, 0.3, 0.8);
        cairo_set_line_width(cr, 3);
        draw_cuts(cr, p, 2, plot);
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, LEFT - 0.5, TOP - 0.5, plot + 1, plot + 1);
    cairo_stroke(cr);
    cairo_restore(cr);

    /* Rank numbers when cells are large enough, else position ticks. */
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    if (p->px >= 9 && p->block == 1) {
        double fs = p->px >= 14 ? 9 : 7;
        for (int q = 0; q < p->n; q++) {
            snprintf(tmp, sizeof tmp, "%d", p->order[q]);
            cm_render_text(cr, LEFT - 3, TOP + (q + 0.5) * p->px + fs / 3, fs,
                           CM_ALIGN_RIGHT, tmp);
            cairo_save(cr);
            cairo_translate(cr, LEFT + (q + 0.5) * p->px + fs / 3, TOP - 3);
            cairo_rotate(cr, -M_PI / 2);
            cm_render_text(cr, 0, 0, fs, CM_ALIGN_LEFT, tmp);
            cairo_restore(cr);
        }
    }
    draw_node_names(cr, p, plot);
    cm_render_text(cr, LEFT + plot / 2, TOP + plot + 28, 11, CM_ALIGN_CENTER,
                   p->px >= 9 && p->block == 1
                       ? "receiving rank (labels: rank ids, in slot order)"
                       : "receiving rank, in slot order");
    cairo_save(cr);
    cairo_translate(cr, 18, TOP + plot / 2);
    cairo_rotate(cr, -M_PI / 2);
    cm_render_text(cr, 0, 0, 11, CM_ALIGN_CENTER, "sending rank, in slot order");
    cairo_restore(cr);

    cm_render_legend(cr, &p->scale, LEFT + plot + 24, TOP + 24, 18,
                     plot * 0.6 > 120 ? plot * 0.6 : 120, "bytes per cell");
}

int cm_render_matrix(const char *cmd, const char *path, const cm_render_input_t *in)
{
    matrix_pic_t p;
    const cm_tree_t *t = in->t;
    int *pos = NULL;
    int nl, status, width, height;
    size_t ncells;

    memset(&p, 0, sizeof p);
    p.in = in;
    p.n = cm_matrix_n(in->m);
    p.block = (p.n + MAX_CELLS - 1) / MAX_CELLS;
    if (p.block < 1)
        p.block = 1;
    p.cells = (p.n + p.block - 1) / p.block;
    if (p.cells < 1)
        p.cells = 1;
    p.px = PLOT_TARGET / p.cells > 1 ? PLOT_TARGET / p.cells : 1;
    ncells = (size_t)p.cells * (size_t)p.cells;
    p.sum = calloc(ncells, sizeof *p.sum);
    p.order = malloc((size_t)(p.n > 0 ? p.n : 1) * sizeof *p.order);
    p.cut = calloc((size_t)p.n + 1, 1);
    pos = malloc((size_t)(p.n > 0 ? p.n : 1) * sizeof *pos);
    if (!p.sum || !p.order || !p.cut || !pos ||
        cm_render_slot_order(t, in->map, p.n, p.order) != 0) {
        free(pos);
        free_pic(&p);
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "out of memory");
    }
    for (int q = 0; q < p.n; q++)
        pos[p.order[q]] = q;

    /* Bytes per cell. */
    for (int i = 0; i < p.n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        double *row = p.sum + (size_t)(pos[i] / p.block) * p.cells;
        cm_matrix_row(in->m, i, &cols, &bytes, &msgs, &len);
        for (int k = 0; k < len; k++)
            row[pos[cols[k]] / p.block] += bytes[k];
    }
    free(pos);
    cm_render_scale_fit(&p.scale, p.sum, ncells);

    /* Where consecutive ranks change node (1) or switch (2). */
    nl = cm_render_node_level(t);
    for (int q = 1; q < p.n; q++) {
        int lca = cm_tree_lca_level(t, in->map[p.order[q - 1]], in->map[p.order[q]]);
        if (lca < nl - 1) {
            p.cut[q] = 2;
            p.ncut_switch++;
        } else if (lca < nl) {
            p.cut[q] = 1;
            p.ncut_node++;
        }
    }
    p.nnodes = p.n > 0 ? 1 + p.ncut_node + p.ncut_switch : 0;
    p.show_node = p.ncut_node &&
                  (double)p.cells * p.px / p.nnodes >= MIN_LINE_GAP;
    p.show_switch = p.ncut_switch &&
                    (double)p.cells * p.px / (p.ncut_switch + 1) >= MIN_LINE_GAP;
    p.J = cm_cost(in->m, t, in->map);

    width = LEFT + p.cells * p.px + RIGHT;
    height = TOP + p.cells * p.px + BOTTOM;
    status = cm_render_write(cmd, path, width, height, draw_matrix, &p);
    free_pic(&p);
    return status;
}
