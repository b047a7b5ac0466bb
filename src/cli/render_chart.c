/*
 * render_chart.c -- `clustermap render --judge-csv FILE`: the judge's CSV
 * (bench/sim/README.md, "CSV") as a grouped bar chart of time_ratio_block,
 * the simulated run time of each placement relative to Slurm's block: one
 * group per case (application and ranks, and platform and model when the
 * file holds several), one bar per placement, a line at 1.
 *
 * The header must be exactly the judge's; it may be repeated (files
 * concatenated).  A case given twice for a placement keeps its last row.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

static const char *const columns[] = {
    "app", "np", "platform", "model", "placement", "total_s", "comm_s", "J",
    "J_ratio_block", "time_ratio_block",
};
enum { NCOLUMNS = 10, COL_APP = 0, COL_NP, COL_PLATFORM, COL_MODEL,
       COL_PLACEMENT, COL_RATIO = 9 };

#define MAX_NAME 64

typedef struct chart_case {
    char app[MAX_NAME], np[16], platform[MAX_NAME], model[MAX_NAME];
} chart_case_t;

typedef struct chart {
    const char *csv;
    chart_case_t *cases;
    int ncases, cap_cases;
    char (*placements)[MAX_NAME];
    int nplacements, cap_placements;
    double *ratio;              /* [case * MAX_PLACEMENTS + placement], NAN */
    int one_platform, one_model;
    double ymax, ystep;
    int bar, group, left, top, plot_w, plot_h, label_h;
    int rotate;                 /* case labels at 45 degrees */
    int width, height;
} chart_t;

#define MAX_PLACEMENTS 32
#define MAX_CASES 4096

/* Split @p line at commas into at most NCOLUMNS + 1 fields (the last
 * takes the rest); returns how many. */
static int split(char *line, char **field)
{
    int n = 0;

    field[n++] = line;
    for (char *c = line; *c; c++)
        if (*c == ',' && n <= NCOLUMNS) {
            *c = '\0';
            field[n++] = c + 1;
        }
    return n;
}

static int check_header(const char *cmd, const char *csv, char **field, int n)
{
    for (int k = 0; k < NCOLUMNS; k++) {
        if (k >= n)
            return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: line 1: column %d '%s' "
                               "missing (expected the judge's header "
                               "app,np,platform,model,placement,total_s,comm_s,"
                               "J,J_ratio_block,time_ratio_block)", csv, k + 1,
                               columns[k]);
        if (strcmp(field[k], columns[k]) != 0)
            return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: line 1: column %d is "
                               "'%.64s', expected '%s'", csv, k + 1, field[k],
                               columns[k]);
    }
    if (n > NCOLUMNS)
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: line 1: unexpected column "
                           "%d '%.64s' after '%s'", csv, NCOLUMNS + 1,
                           field[NCOLUMNS], columns[NCOLUMNS - 1]);
    return 0;
}

static int find_case(chart_t *c, char **field)
{
    for (int k = 0; k < c->ncases; k++) {
        const chart_case_t *x = &c->cases[k];
        if (!strcmp(x->app, field[COL_APP]) && !strcmp(x->np, field[COL_NP]) &&
            !strcmp(x->platform, field[COL_PLATFORM]) &&
            !strcmp(x->model, field[COL_MODEL]))
            return k;
    }
    return -1;
}

static int add_row(const char *cmd, chart_t *c, char **field, long line)
{
    int ci, pi = -1;
    char *end;
    double r;

    for (int k = 0; k <= COL_PLACEMENT; k++)
        if (!*field[k] || strlen(field[k]) >= (k == COL_NP ? 16 : MAX_NAME))
            return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: line %ld: %s: '%.64s' is "
                               "empty or too long", c->csv, line, columns[k],
                               field[k]);
    errno = 0;
    r = strtod(field[COL_RATIO], &end);
    if (end == field[COL_RATIO] || *end || errno || !isfinite(r) || r < 0)
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: line %ld: time_ratio_block: "
                           "'%.64s' is not a non-negative number", c->csv, line,
                           field[COL_RATIO]);

    if ((ci = find_case(c, field)) < 0) {
        if (c->ncases == MAX_CASES)
            return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: line %ld: more than %d "
                               "cases (app, np, platform, model)", c->csv, line,
                               MAX_CASES);
        if (c->ncases == c->cap_cases) {
            int cap = c->cap_cases ? 2 * c->cap_cases : 16;
            chart_case_t *nc = realloc(c->cases, (size_t)cap * sizeof *nc);
            double *nr = nc ? realloc(c->ratio, (size_t)cap * MAX_PLACEMENTS *
                                               sizeof *nr) : NULL;
            if (nc)
                c->cases = nc;
            if (!nr)
                return cm_cli_fail(CM_EXIT_FAIL, cmd, "out of memory");
            c->ratio = nr;
            c->cap_cases = cap;
        }
        ci = c->ncases++;
        snprintf(c->cases[ci].app, MAX_NAME, "%s", field[COL_APP]);
        snprintf(c->cases[ci].np, 16, "%s", field[COL_NP]);
        snprintf(c->cases[ci].platform, MAX_NAME, "%s", field[COL_PLATFORM]);
        snprintf(c->cases[ci].model, MAX_NAME, "%s", field[COL_MODEL]);
        for (int k = 0; k < MAX_PLACEMENTS; k++)
            c->ratio[(size_t)ci * MAX_PLACEMENTS + k] = NAN;
    }
    for (int k = 0; k < c->nplacements; k++)
        if (!strcmp(c->placements[k], field[COL_PLACEMENT]))
            pi = k;
    if (pi < 0) {
        if (c->nplacements == MAX_PLACEMENTS)
            return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: line %ld: more than %d "
                               "placements", c->csv, line, MAX_PLACEMENTS);
        if (!c->placements) {
            c->placements = malloc(MAX_PLACEMENTS * sizeof *c->placements);
            if (!c->placements)
                return cm_cli_fail(CM_EXIT_FAIL, cmd, "out of memory");
        }
        pi = c->nplacements++;
        snprintf(c->placements[pi], MAX_NAME, "%s", field[COL_PLACEMENT]);
    }
    c->ratio[(size_t)ci * MAX_PLACEMENTS + pi] = r;
    return 0;
}

static int read_csv(const char *cmd, chart_t *c)
{
    FILE *f = fopen(c->csv, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    char *field[NCOLUMNS + 1];
    int n, status = 0;

    if (!f)
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: cannot open: %s", c->csv,
                           strerror(errno));
    while (status == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (lineno == 1) {
            n = split(line, field);
            status = check_header(cmd, c->csv, field, n);
            continue;
        }
        if (len == 0)
            continue;
        n = split(line, field);
        if (n == NCOLUMNS && strcmp(field[0], "app") == 0)
            continue;                        /* a repeated header */
        if (n != NCOLUMNS)
            status = cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: line %ld: %d fields, "
                                 "expected %d (%s,...,%s)", c->csv, lineno,
                                 n > NCOLUMNS ? NCOLUMNS + 1 : n, NCOLUMNS,
                                 columns[0], columns[NCOLUMNS - 1]);
        else
            status = add_row(cmd, c, field, lineno);
    }
    if (status == 0 && ferror(f))
        status = cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: read failed: %s", c->csv,
                             strerror(errno));
    if (status == 0 && lineno == 0)
        status = cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: empty file (expected the "
                             "judge's header and rows)", c->csv);
    if (status == 0 && c->ncases == 0)
        status = cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: no rows after the header",
                             c->csv);
    free(line);
    fclose(f);
    return status;
}

/* A round step giving about 6 to 10 ticks up to @p ymax. */
static double nice_step(double ymax)
{
    static const double mult[] = { 1, 2, 2.5, 5 };
    double e = pow(10, floor(log10(ymax / 8)));

    for (int k = 0; k < 4; k++)
        if (ymax / (mult[k] * e) <= 10)
            return mult[k] * e;
    return 10 * e;
}

/* The label of case @p k: its lines @p l1 (application and ranks) and
 * @p l2 (what differs between cases besides: platform, model; may be
 * empty), and both on one line in @p one.  Each LABEL_LEN long. */
#define LABEL_LEN 256
static void case_label(const chart_t *c, int k, char *l1, char *l2, char *one)
{
    const chart_case_t *x = &c->cases[k];

    snprintf(l1, LABEL_LEN, "%s/%s", x->app, x->np);
    if (c->one_platform && c->one_model) {
        l2[0] = '\0';
        snprintf(one, LABEL_LEN, "%s/%s", x->app, x->np);
    } else if (c->one_platform) {
        snprintf(l2, LABEL_LEN, "%s", x->model);
        snprintf(one, LABEL_LEN, "%s/%s %s", x->app, x->np, x->model);
    } else if (c->one_model) {
        snprintf(l2, LABEL_LEN, "%s", x->platform);
        snprintf(one, LABEL_LEN, "%s/%s %s", x->app, x->np, x->platform);
    } else {
        snprintf(l2, LABEL_LEN, "%s %s", x->platform, x->model);
        snprintf(one, LABEL_LEN, "%s/%s %s %s", x->app, x->np, x->platform,
                 x->model);
    }
}

static double bar_y(const chart_t *c, double v)
{
    return c->top + c->plot_h * (1 - v / c->ymax);
}

static void draw_chart(cairo_t *cr, void *ctx)
{
    const chart_t *c = ctx;
    char text[512], l1[LABEL_LEN], l2[LABEL_LEN], one[LABEL_LEN];
    double rgb[3];
    double x0 = c->left, x1 = c->left + c->plot_w;

    cairo_set_source_rgb(cr, 0, 0, 0);
    cm_render_title(cr, 16, 26, 17, "Simulated run time relative to Slurm's "
                    "default placement (block)");
    snprintf(text, sizeof text, "%s: %d case%s x %d placement%s%s%s%s%s",
             cm_render_basename(c->csv), c->ncases, c->ncases == 1 ? "" : "s",
             c->nplacements, c->nplacements == 1 ? "" : "s",
             c->one_platform ? "; platform " : "",
             c->one_platform ? c->cases[0].platform : "",
             c->one_model ? "; model " : "",
             c->one_model ? c->cases[0].model : "");
    cm_render_text(cr, 16, 46, 11, CM_ALIGN_LEFT, text);
    cm_render_text(cr, 16, 62, 11, CM_ALIGN_LEFT,
                   "Below the line at 1: faster than block.");

    /* Grid and y axis. */
    cairo_set_line_width(cr, 1);
    for (int k = 0; k * c->ystep <= c->ymax + 1e-9; k++) {
        double v = k * c->ystep, y = bar_y(c, v);
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, x0, y);
        cairo_line_to(cr, x1, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        snprintf(text, sizeof text, "%.4g", v);
        cm_render_text(cr, x0 - 6, y + 4, 10, CM_ALIGN_RIGHT, text);
    }
    cairo_save(cr);
    cairo_translate(cr, 20, c->top + c->plot_h / 2.0);
    cairo_rotate(cr, -M_PI / 2);
    cm_render_text(cr, 0, 0, 11, CM_ALIGN_CENTER, "time / time under block");
    cairo_restore(cr);

    /* Bars, case labels. */
    for (int k = 0; k < c->ncases; k++) {
        double gx = x0 + k * c->group + c->bar * 0.75;
        for (int j = 0; j < c->nplacements; j++) {
            double v = c->ratio[(size_t)k * MAX_PLACEMENTS + j];
            if (isnan(v))
                continue;
            cm_render_palette(j, rgb);
            cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
            cairo_rectangle(cr, gx + j * c->bar, bar_y(c, v), c->bar - (c->bar > 4),
                            c->plot_h * v / c->ymax);
            cairo_fill(cr);
        }
        case_label(c, k, l1, l2, one);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        if (c->rotate) {
            cairo_save(cr);
            cairo_translate(cr, gx + c->nplacements * c->bar / 2.0 + 3,
                            c->top + c->plot_h + 8);
            cairo_rotate(cr, -M_PI / 4);
            cm_render_text(cr, 0, 0, 10, CM_ALIGN_RIGHT, one);
            cairo_restore(cr);
        } else {
            double cx = gx + c->nplacements * c->bar / 2.0;
            cm_render_text(cr, cx, c->top + c->plot_h + 16, 10, CM_ALIGN_CENTER, l1);
            if (l2[0])
                cm_render_text(cr, cx, c->top + c->plot_h + 29, 9, CM_ALIGN_CENTER, l2);
        }
    }

    /* Axes and the line at 1. */
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_move_to(cr, x0, c->top);
    cairo_line_to(cr, x0, c->top + c->plot_h);
    cairo_line_to(cr, x1, c->top + c->plot_h);
    cairo_stroke(cr);
    {
        static const double dash[] = { 6, 4 };
        double y = bar_y(c, 1);
        cairo_save(cr);
        cairo_set_source_rgb(cr, 0.75, 0.1, 0.1);
        cairo_set_line_width(cr, 1.5);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, x0, y);
        cairo_line_to(cr, x1, y);
        cairo_stroke(cr);
        cairo_restore(cr);
    }

    /* Legend: one swatch per placement, then the line. */
    for (int j = 0; j <= c->nplacements; j++) {
        static const double dash[] = { 6, 4 };
        double lx = x1 + 16, ly = c->top + 30 + j * 18;
        if (j == c->nplacements) {
            cairo_save(cr);
            cairo_set_source_rgb(cr, 0.75, 0.1, 0.1);
            cairo_set_line_width(cr, 1.5);
            cairo_set_dash(cr, dash, 2, 0);
            cairo_move_to(cr, lx - 2, ly + 4);
            cairo_line_to(cr, lx + 14, ly + 4);
            cairo_stroke(cr);
            cairo_restore(cr);
            cairo_set_source_rgb(cr, 0, 0, 0);
            cm_render_text(cr, lx + 18, ly + 8, 11, CM_ALIGN_LEFT, "block = 1");
            break;
        }
        cm_render_palette(j, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(cr, lx, ly - 9, 12, 12);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cm_render_text(cr, lx + 18, ly + 1, 11, CM_ALIGN_LEFT, c->placements[j]);
    }
}

int cm_render_judge(const char *cmd, const char *path, const char *csv)
{
    chart_t c;
    int status;
    double vmax = 1;

    memset(&c, 0, sizeof c);
    c.csv = csv;
    if ((status = read_csv(cmd, &c)) != 0)
        goto out;

    c.one_platform = c.one_model = 1;
    for (int k = 1; k < c.ncases; k++) {
        if (strcmp(c.cases[k].platform, c.cases[0].platform))
            c.one_platform = 0;
        if (strcmp(c.cases[k].model, c.cases[0].model))
            c.one_model = 0;
    }
    for (size_t k = 0; k < (size_t)c.ncases * MAX_PLACEMENTS; k++)
        if (c.ratio[k] > vmax)
            vmax = c.ratio[k];
    c.ystep = nice_step(vmax * 1.05);
    c.ymax = ceil(vmax * 1.05 / c.ystep - 1e-9) * c.ystep;

    /* Bars of 14 pixels, narrower down to 2 when the cases are many: the
     * plot at most 2400 pixels wide while that lasts. */
    c.bar = 14;
    while (c.bar > 2 && c.ncases * (c.nplacements + 1.5) * c.bar > 2400)
        c.bar--;
    c.group = (int)ceil((c.nplacements + 1.5) * c.bar);
    c.plot_w = c.ncases * c.group;
    if (c.plot_w < 360)
        c.plot_w = 360;
    c.left = 70;
    c.top = 84;
    c.plot_h = 420;
    /* Labels fit under their group, else they are turned. */
    {
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
        cairo_t *cr = cairo_create(s);
        char l1[LABEL_LEN], l2[LABEL_LEN], one[LABEL_LEN];
        double widest = 0;
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                               CAIRO_FONT_WEIGHT_NORMAL);
        for (int k = 0; k < c.ncases; k++) {
            double w;
            case_label(&c, k, l1, l2, one);
            w = cm_render_text_width(cr, 10, l1);
            if (cm_render_text_width(cr, 9, l2) > w)
                w = cm_render_text_width(cr, 9, l2);
            if (w > widest)
                widest = w;
            w = cm_render_text_width(cr, 10, one) * 0.7072 + 12;
            if (w > c.label_h)
                c.label_h = (int)w;
        }
        cairo_destroy(cr);
        cairo_surface_destroy(s);
        c.rotate = widest > c.group - 4;
        if (!c.rotate)
            c.label_h = 40;
        else if (c.label_h - 10 > c.left)
            c.left = c.label_h - 10;     /* the first labels lean left */
    }
    c.width = c.left + c.plot_w + 150;
    c.height = c.top + c.plot_h + c.label_h + 16;
    status = cm_render_write(cmd, path, c.width, c.height, draw_chart, &c);
out:
    free(c.cases);
    free(c.placements);
    free(c.ratio);
    return status;
}
