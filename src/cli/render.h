/*
 * render.h -- what the pieces of `clustermap render` share.
 *
 *   cmd_render.c        the command line: options, which picture, --output
 *   render_common.c     the canvas (PNG, SVG or PDF from --output's name,
 *                       written whole through cm_cli_output_open()), text,
 *                       number and byte labels, colour scales and legends
 *   render_matrix.c     --view matrix: the matrix as a heatmap, ranks in
 *                       slot order, node and switch boundaries
 *   render_placement.c  --view placement: the machine tree as nested boxes,
 *                       each core holding its rank, coloured by traffic
 *   render_chart.c      --judge-csv: the judge's time ratios as bar groups
 *
 * Every picture is computed first and drawn second: a view gathers what it
 * shows, then hands a drawing function to cm_render_write(), which opens
 * the output, draws once and puts the file in place, or leaves nothing.
 */
#ifndef CM_RENDER_H
#define CM_RENDER_H

#include <cairo.h>

#include "cli.h"

/* -- the canvas (render_common.c) ------------------------------------------- */

typedef enum { CM_RENDER_PNG, CM_RENDER_SVG, CM_RENDER_PDF } cm_render_format_t;

/** The format @p path names by its extension (.png, .svg, .pdf, any case).
 *  Returns 0, or -1 when it names none of them. */
int cm_render_format_of(const char *path, cm_render_format_t *fmt);

/** Draws a picture of @p width x @p height units (pixels in PNG, points in
 *  SVG and PDF) on @p cr, whose font is set to sans-serif. */
typedef void (*cm_render_draw_fn)(cairo_t *cr, void *ctx);

/** Draw with @p draw into @p path, in the format its extension names, for
 *  command @p cmd: written to a temporary renamed over @p path on success
 *  (cm_cli_output_open()), removed on any failure.  Returns CM_EXIT_OK, or
 *  CM_EXIT_FAIL after a message naming @p path. */
int cm_render_write(const char *cmd, const char *path, int width, int height,
                    cm_render_draw_fn draw, void *ctx);

/* -- text ------------------------------------------------------------------- */

/** Horizontal anchor of cm_render_text(). */
enum { CM_ALIGN_LEFT = 0, CM_ALIGN_CENTER = 1, CM_ALIGN_RIGHT = 2 };

/** Draw @p s at @p size with its baseline at @p y, anchored at @p x as
 *  @p align says, in the current colour. */
void cm_render_text(cairo_t *cr, double x, double y, double size, int align,
                    const char *s);

/** Width of @p s at @p size. */
double cm_render_text_width(cairo_t *cr, double size, const char *s);

/** Bold text (titles); otherwise as cm_render_text(). */
void cm_render_title(cairo_t *cr, double x, double y, double size,
                     const char *s);

/** @p bytes for a label: "0 B", "512 B", "1.5 kB", "20 MB" (powers of
 *  1000, 2 significant digits above 1 kB). */
void cm_render_bytes(double bytes, char *buf, size_t len);

/** A cost (J) for a label: its integer digits when it is an integer below
 *  2^53, else 4 significant digits ("3.145e-05"). */
void cm_render_number(double x, char *buf, size_t len);

/** The last component of @p path (points into it). */
const char *cm_render_basename(const char *path);

/* -- colours ---------------------------------------------------------------- */

/** A logarithmic colour scale over the positive values [lo, hi]: lo light
 *  yellow, hi dark purple; 0 (and below) white. */
typedef struct cm_render_scale {
    double lo, hi;
} cm_render_scale_t;

/** A scale covering the positive values among @p v[0..n-1], at least
 *  three decades wide (lo lowered to hi / 1000 when needed; 1 to 1000
 *  when there are none). */
void cm_render_scale_fit(cm_render_scale_t *s, const double *v, size_t n);

/** The colour of @p v on @p s, components in [0, 1]. */
void cm_render_scale_color(const cm_render_scale_t *s, double v, double rgb[3]);

/** A vertical colour bar of @p s at (@p x, @p y), @p w x @p h, high values
 *  at the top, ticks labelled in bytes at the powers of ten it spans, a
 *  white box for 0 below it and @p title above. */
void cm_render_legend(cairo_t *cr, const cm_render_scale_t *s, double x,
                      double y, double w, double h, const char *title);

/** Colour @p k of a qualitative palette of 10 (repeats after that). */
void cm_render_palette(int k, double rgb[3]);

/** Black or white, whichever reads on @p rgb. */
void cm_render_ink_on(const double rgb[3], double ink[3]);

/* -- the pictures ----------------------------------------------------------- */

/** What a matrix picture shows: the matrix @p m (read from @p matrix_path)
 *  under @p map onto @p t, the mapping named @p mapping. */
typedef struct cm_render_input {
    const char *matrix_path;
    const char *mapping;
    const cm_matrix_t *m;
    const cm_tree_t *t;
    const int *map;
} cm_render_input_t;

/** --view matrix into @p path (render_matrix.c).  An exit status. */
int cm_render_matrix(const char *cmd, const char *path,
                     const cm_render_input_t *in);

/** --view placement into @p path (render_placement.c).  An exit status. */
int cm_render_placement(const char *cmd, const char *path,
                        const cm_render_input_t *in);

/** --judge-csv @p csv into @p path (render_chart.c).  An exit status;
 *  a malformed file is reported with its name, line and column. */
int cm_render_judge(const char *cmd, const char *path, const char *csv);

/* -- shared by the matrix pictures ------------------------------------------ */

/** The level of compute nodes in @p t: the level named "node", else the
 *  one below the root (0 for a single-level tree). */
int cm_render_node_level(const cm_tree_t *t);

/** A name for vertex @p v of @p t: its label, else "<level><index>"
 *  ("node3"; "group4.1" when the level's name ends in a digit), or the
 *  level's name alone when @p index is negative (the only vertex of its
 *  level). */
void cm_render_vertex_name(const cm_tree_t *t, int v, int index, char *buf,
                           size_t len);

/** The @p n ranks of @p map sorted by slot: @p order[p] is the rank at
 *  position p (n entries, caller-allocated); O(n + slots).  Returns 0, or
 *  -1 when out of memory. */
int cm_render_slot_order(const cm_tree_t *t, const int *map, int n, int *order);

#endif /* CM_RENDER_H */
