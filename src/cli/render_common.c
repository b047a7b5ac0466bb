/*
 * render_common.c -- the canvas of `clustermap render` and what its
 * pictures share: text, labels, colour scales, the legend.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "render.h"

int cm_render_format_of(const char *path, cm_render_format_t *fmt)
{
    static const struct { const char *ext; cm_render_format_t fmt; } known[] = {
        { ".png", CM_RENDER_PNG }, { ".svg", CM_RENDER_SVG }, { ".pdf", CM_RENDER_PDF },
    };
    const char *base = path ? cm_render_basename(path) : NULL;
    const char *dot = base ? strrchr(base, '.') : NULL;

    /* A name is needed before the extension: ".png" alone is a hidden file. */
    if (!dot || dot == base)
        return -1;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (strcasecmp(dot, known[k].ext) == 0) {
            *fmt = known[k].fmt;
            return 0;
        }
    return -1;
}

/* cairo's write callback: the output stream is the closure. */
static cairo_status_t write_stream(void *closure, const unsigned char *data,
                                   unsigned int len)
{
    FILE *f = closure;
    return fwrite(data, 1, len, f) == len ? CAIRO_STATUS_SUCCESS
                                          : CAIRO_STATUS_WRITE_ERROR;
}

int cm_render_write(const char *cmd, const char *path, int width, int height,
                    cm_render_draw_fn draw, void *ctx)
{
    cm_render_format_t fmt;
    cm_cli_output_t out;
    cairo_surface_t *surface;
    cairo_status_t st;
    cairo_t *cr;
    int status;

    if (cm_render_format_of(path, &fmt) != 0)
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: not a .png, .svg or .pdf name",
                           path);
    if ((status = cm_cli_output_open(&out, cmd, path)) != CM_EXIT_OK)
        return status;
    if (fmt == CM_RENDER_SVG)
        surface = cairo_svg_surface_create_for_stream(write_stream, out.f,
                                                      width, height);
    else if (fmt == CM_RENDER_PDF)
        surface = cairo_pdf_surface_create_for_stream(write_stream, out.f,
                                                      width, height);
    else
        surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);

    cr = cairo_create(surface);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (cairo_status(cr) == CAIRO_STATUS_SUCCESS)
        draw(cr, ctx);
    st = cairo_status(cr);
    cairo_destroy(cr);
    if (st == CAIRO_STATUS_SUCCESS && fmt == CM_RENDER_PNG)
        st = cairo_surface_write_to_png_stream(surface, write_stream, out.f);
    cairo_surface_finish(surface);   /* SVG and PDF write their end here */
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    if (st != CAIRO_STATUS_SUCCESS)
        status = cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: drawing failed: %s", path,
                             cairo_status_to_string(st));
    return cm_cli_output_close(&out, status);
}

/* -- text ------------------------------------------------------------------- */

void cm_render_text(cairo_t *cr, double x, double y, double size, int align,
                    const char *s)
{
    cairo_text_extents_t e;

    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &e);
    if (align == CM_ALIGN_CENTER)
        x -= e.x_advance / 2;
    else if (align == CM_ALIGN_RIGHT)
        x -= e.x_advance;
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

double cm_render_text_width(cairo_t *cr, double size, const char *s)
{
    cairo_text_extents_t e;

    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

void cm_render_title(cairo_t *cr, double x, double y, double size, const char *s)
{
    cairo_save(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_BOLD);
    cm_render_text(cr, x, y, size, CM_ALIGN_LEFT, s);
    cairo_restore(cr);
}

void cm_render_bytes(double bytes, char *buf, size_t len)
{
    static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
    int u = 0;

    while (bytes >= 999.5 && u < 6) {
        bytes /= 1000;
        u++;
    }
    if (u == 0 || bytes >= 9.95)
        snprintf(buf, len, "%.0f %s", bytes, unit[u]);
    else
        snprintf(buf, len, "%.1f %s", bytes, unit[u]);
}

void cm_render_number(double x, char *buf, size_t len)
{
    if (x == floor(x) && fabs(x) < 9007199254740992.0)
        snprintf(buf, len, "%.0f", x);
    else
        snprintf(buf, len, "%.4g", x);
}

const char *cm_render_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* -- colours ---------------------------------------------------------------- */

void cm_render_scale_fit(cm_render_scale_t *s, const double *v, size_t n)
{
    double lo = INFINITY, hi = 0;

    for (size_t k = 0; k < n; k++)
        if (v[k] > 0) {
            if (v[k] < lo)
                lo = v[k];
            if (v[k] > hi)
                hi = v[k];
        }
    /* At least three decades, so that values a few percent apart do not
     * look like opposites. */
    if (hi <= 0) {
        lo = 1;
        hi = 1000;
    } else if (lo > hi / 1000) {
        lo = hi / 1000;
    }
    s->lo = lo;
    s->hi = hi;
}

/* Light yellow through orange and red to dark purple: the low end stays
 * visible on white (which is 0), the high end reads as "heavy". */
static const double ramp[][3] = {
    { 0.980, 0.905, 0.560 },
    { 0.992, 0.690, 0.380 },
    { 0.925, 0.380, 0.310 },
    { 0.640, 0.180, 0.460 },
    { 0.330, 0.090, 0.450 },
    { 0.110, 0.050, 0.230 },
};
#define NRAMP ((int)(sizeof ramp / sizeof ramp[0]))

static void ramp_color(double u, double rgb[3])
{
    double x;
    int k;

    if (!(u > 0))
        u = 0;
    if (u > 1)
        u = 1;
    x = u * (NRAMP - 1);
    k = (int)x;
    if (k >= NRAMP - 1)
        k = NRAMP - 2;
    x -= k;
    for (int c = 0; c < 3; c++)
        rgb[c] = ramp[k][c] + (ramp[k + 1][c] - ramp[k][c]) * x;
}

void cm_render_scale_color(const cm_render_scale_t *s, double v, double rgb[3])
{
    if (!(v > 0)) {
        rgb[0] = rgb[1] = rgb[2] = 1;
        return;
    }
    ramp_color((log(v) - log(s->lo)) / (log(s->hi) - log(s->lo)), rgb);
}

/* A tick of the legend at height @p y, labelled @p bytes. */
static void tick(cairo_t *cr, double x, double y, double bytes)
{
    char label[32];

    cm_render_bytes(bytes, label, sizeof label);
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x + 4, y);
    cairo_stroke(cr);
    cm_render_text(cr, x + 7, y + 4, 10, CM_ALIGN_LEFT, label);
}

void cm_render_legend(cairo_t *cr, const cm_render_scale_t *s, double x,
                      double y, double w, double h, const char *title)
{
    double llo = log10(s->lo), lhi = log10(s->hi);
    int first = (int)ceil(llo - 1e-9), last = (int)floor(lhi + 1e-9);
    int step = 1;
    cairo_pattern_t *grad;

    cairo_save(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cm_render_text(cr, x, y - 10, 11, CM_ALIGN_LEFT, title);
    /* The bar, top = hi: the ramp is linear between its stops, so a
     * gradient through them is exact (and stays a vector in SVG and PDF). */
    grad = cairo_pattern_create_linear(0, y + h, 0, y);
    for (int k = 0; k < NRAMP; k++)
        cairo_pattern_add_color_stop_rgb(grad, (double)k / (NRAMP - 1), ramp[k][0],
                                         ramp[k][1], ramp[k][2]);
    cairo_set_source(cr, grad);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill(cr);
    cairo_pattern_destroy(grad);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x, y, w, h);
    cairo_stroke(cr);

    /* Ticks at the powers of ten in range (at most about 8), and at both
     * ends where they do not crowd one. */
    while ((last - first) / step > 7)
        step++;
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (int e = first; e <= last; e += step)
        tick(cr, x + w, y + h * (1 - (e - llo) / (lhi - llo)), pow(10, e));
    for (int end = 0; end < 2; end++) {
        double v = end ? s->hi : s->lo, lv = log10(v), near = INFINITY;
        for (int e = first; e <= last; e += step)
            near = fmin(near, fabs(e - lv) / (lhi - llo) * h);
        if (near > 14)
            tick(cr, x + w, y + h * (1 - (lv - llo) / (lhi - llo)), v);
    }

    /* 0 is white. */
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, x, y + h + 12, w, w);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cm_render_text(cr, x + w + 7, y + h + 12 + w / 2 + 4, 10, CM_ALIGN_LEFT, "0");
    cairo_restore(cr);
}

void cm_render_palette(int k, double rgb[3])
{
    /* Tableau 10. */
    static const unsigned char pal[10][3] = {
        { 0x4e, 0x79, 0xa7 }, { 0xf2, 0x8e, 0x2b }, { 0xe1, 0x57, 0x59 },
        { 0x76, 0xb7, 0xb2 }, { 0x59, 0xa1, 0x4f }, { 0xed, 0xc9, 0x48 },
        { 0xb0, 0x7a, 0xa1 }, { 0xff, 0x9d, 0xa7 }, { 0x9c, 0x75, 0x5f },
        { 0xba, 0xb0, 0xac },
    };
    k %= 10;
    if (k < 0)
        k += 10;
    for (int c = 0; c < 3; c++)
        rgb[c] = pal[k][c] / 255.0;
}

void cm_render_ink_on(const double rgb[3], double ink[3])
{
    double luma = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2];
    double v = luma < 0.55 ? 1 : 0;
    ink[0] = ink[1] = ink[2] = v;
}

/* -- the machine ------------------------------------------------------------ */

int cm_render_node_level(const cm_tree_t *t)
{
    int l = cm_tree_level_index(t, "node");

    if (l >= 0)
        return l;
    return cm_tree_nlevels(t) > 2 ? 1 : 0;
}

void cm_render_vertex_name(const cm_tree_t *t, int v, int index, char *buf,
                           size_t len)
{
    const char *label = cm_tree_vertex_label(t, v);

    const char *level = cm_tree_level_name(t, cm_tree_vertex_level(t, v));
    size_t n = level ? strlen(level) : 0;

    if (label && *label)
        snprintf(buf, len, "%s", label);
    else if (index < 0 || !level)
        snprintf(buf, len, "%s", level ? level : "?");
    else    /* "node3", but "group4.1" */
        snprintf(buf, len, "%s%s%d", level,
                 n && level[n - 1] >= '0' && level[n - 1] <= '9' ? "." : "", index);
}

int cm_render_slot_order(const cm_tree_t *t, const int *map, int n, int *order)
{
    int nslots = cm_tree_nslots(t);
    int *at = malloc((size_t)(nslots > 0 ? nslots : 1) * sizeof *at);
    int p = 0;

    if (!at)
        return -1;
    for (int s = 0; s < nslots; s++)
        at[s] = -1;
    for (int i = 0; i < n; i++)
        at[map[i]] = i;
    for (int s = 0; s < nslots; s++)
        if (at[s] >= 0)
            order[p++] = at[s];
    free(at);
    return 0;
}
