/*
 * cmd_render.c -- `clustermap render`: pictures (PNG, SVG, PDF) of a
 * communication matrix under a placement, of the placement on the machine,
 * or of the judge's CSV.  The matrix, the machine and the mapping come as
 * they do for eval (machine_opts.h, mapping_opts.c); the pictures are
 * drawn by render_*.c (render.h).
 */
#include <stdlib.h>
#include <string.h>

#include "machine_opts.h"
#include "render.h"

static const char *const CMD = "render";

enum { OPT_MAPPING = CM_OPT_PLACE_END, OPT_VIEW, OPT_JUDGE_CSV };

typedef enum { VIEW_MATRIX, VIEW_PLACEMENT } view_t;

/* render's own options. */
typedef struct render_opts {
    const char *mapping;
    const char *view_name;
    view_t view;
    const char *output;
    const char *judge_csv;
} render_opts_t;

static void usage(FILE *f)
{
    fputs(
"Usage: clustermap render --matrix FILE <machine> [--mapping FILE|ALGORITHM]\n"
"                         [--view matrix|placement] [--seed N] [--weight W]\n"
"                         --output FILE.png|FILE.svg|FILE.pdf\n"
"       clustermap render --judge-csv FILE --output FILE.png|FILE.svg|FILE.pdf\n"
"\n"
"Draw a picture; its format follows the name given to --output.\n"
"  --view matrix      the matrix as a heatmap of bytes (log colour scale),\n"
"                     rows and columns in the order of the slots the mapping\n"
"                     gives the ranks, lines between nodes (thin) and switches\n"
"                     (thick); above 1024 ranks a cell sums a block of ranks\n"
"  --view placement   the machine as nested boxes, each core showing the rank\n"
"                     it holds, coloured by the bytes that rank sends to other\n"
"                     nodes\n"
"  --judge-csv FILE   bench/sim/judge's CSV as bars: each placement's run time\n"
"                     over block's, one group per application (and platform\n"
"                     and model when the file holds several)\n"
"\n"
"Options:\n", f);
    cm_machine_opts_help(f, CM_MACHINE_NEED_MATRIX);
    fputs(
"Picture:\n"
"  --mapping FILE         mapping file: line i holds the 0-based slot of rank i\n"
"  --mapping ALGORITHM    compute it instead (default block), one of:\n", f);
    cm_cli_algorithm_help(f);
    fputs(
"  --view VIEW            matrix (default) or placement\n"
"  --judge-csv FILE       the judge's CSV (no matrix or machine options)\n"
"  -o, --output FILE      the picture: FILE.png, FILE.svg or FILE.pdf, replaced\n"
"                         whole (nothing is left behind on an error)\n"
"  --seed N               seed of random and scotch (default 1)\n"
"  --weight W             price J as plan --weight W does: mixed, bytes or msgs\n"
"  -v, --verbose          say what was drawn and how long it took, on stderr\n"
"  -q, --quiet            no progress line (shown on a terminal after 2 s)\n"
"  -h, --help             this text\n"
"\n"
"Examples:\n"
"  clustermap render --matrix cg.S.64.mtx --hierarchy 4:2:4:2 \\\n"
"      --distances 1:2:10:20 --mapping scotch --output cg-scotch.png\n"
"  clustermap render --matrix cg.S.64.mtx --hierarchy 4:2:4:2 \\\n"
"      --distances 1:2:10:20 --view placement --output cg-block.svg\n"
"  clustermap render --judge-csv bench/sim/results/all.csv --output judge.pdf\n",
          f);
}

static int check_output(const char *output)
{
    cm_render_format_t fmt;

    if (!output)
        return cm_cli_usage_error(CMD, "missing --output FILE.png|FILE.svg|FILE.pdf");
    if (cm_render_format_of(output, &fmt) != 0)
        return cm_cli_usage_error(CMD, "--output '%s': the name must end in .png, "
                                  ".svg or .pdf (it sets the format)", output);
    return 0;
}

static int render_option(void *ctx, int code, const char *arg)
{
    render_opts_t *ro = ctx;

    switch (code) {
    case OPT_MAPPING:
        if (ro->mapping)
            return cm_cli_usage_error(CMD, "--mapping given twice");
        ro->mapping = arg;
        return 0;
    case OPT_VIEW:
        if (ro->view_name)
            return cm_cli_usage_error(CMD, "--view given twice");
        if (strcmp(arg, "matrix") == 0)
            ro->view = VIEW_MATRIX;
        else if (strcmp(arg, "placement") == 0)
            ro->view = VIEW_PLACEMENT;
        else
            return cm_cli_usage_error(CMD, "--view expects matrix or placement, "
                                      "got '%s'", arg);
        ro->view_name = arg;
        return 0;
    case 'o':
        if (ro->output)
            return cm_cli_usage_error(CMD, "--output given twice");
        ro->output = arg;
        return 0;
    default:
        return cm_cli_usage_error(CMD, "internal: unexpected option code %d", code);
    }
}

/* --judge-csv takes no matrix or machine: a first pass over the command
 * line finds it (and --help), so that the second, cm_place_opts_parse(),
 * runs only for the pictures of a matrix.  Returns 0 with *csv NULL when
 * --judge-csv is absent, 0 with *csv and *output set when it is there,
 * CM_PLACE_HELP, or the exit status of a reported error. */
static int judge_scan(int argc, char **argv, const struct option *longopts,
                      const char **csv, const char **output)
{
    const char *other = NULL;
    char short_name[3] = "-?";
    int c, li;

    *csv = NULL;
    *output = NULL;
    optind = 0;
    opterr = 0;
    while ((li = -1, c = getopt_long(argc, argv, ":hvqo:", longopts, &li)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return CM_PLACE_HELP;
        case OPT_JUDGE_CSV:
            if (*csv)
                return cm_cli_usage_error(CMD, "--judge-csv given twice");
            *csv = optarg;
            break;
        case 'o':
            if (*output)
                return cm_cli_usage_error(CMD, "--output given twice");
            *output = optarg;
            break;
        case '?':
        case ':':
            return cm_cli_bad_option(CMD, c, argv);
        default:
            if (other)
                break;
            if (li >= 0) {
                other = longopts[li].name;
            } else {
                short_name[1] = (char)c;
                other = short_name;
            }
        }
    }
    if (!*csv)
        return 0;
    if (other)
        return cm_cli_usage_error(CMD, "%s%s is not used with --judge-csv",
                                  other[0] == '-' ? "" : "--", other);
    if (optind < argc)
        return cm_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    return check_output(*output);
}

int cm_cmd_render(int argc, char **argv)
{
    static const struct option longopts[] = {
        CM_PLACE_LONGOPTS,
        { "mapping", required_argument, NULL, OPT_MAPPING },
        { "view", required_argument, NULL, OPT_VIEW },
        { "output", required_argument, NULL, 'o' },
        { "judge-csv", required_argument, NULL, OPT_JUDGE_CSV },
        { NULL, 0, NULL, 0 }
    };
    render_opts_t ro = { NULL, NULL, VIEW_MATRIX, NULL, NULL };
    cm_place_opts_t po;
    cm_render_input_t in;
    cm_matrix_t *m = NULL;
    cm_tree_t *t = NULL;
    int *map = NULL;
    const char *csv, *output;
    double t0 = cm_cli_now();
    int status;

    status = judge_scan(argc, argv, longopts, &csv, &output);
    if (status == 0 && csv)
        return cm_render_judge(CMD, output, csv);
    if (status != 0)
        return status == CM_PLACE_HELP ? CM_EXIT_OK : status;

    status = cm_place_opts_parse(&po, CMD, argc, argv, ":hvqo:", longopts,
                                 CM_MACHINE_NEED_MATRIX, render_option, &ro, usage);
    if (status != 0)
        return status == CM_PLACE_HELP ? CM_EXIT_OK : status;
    if ((status = check_output(ro.output)) != 0)
        return status;
    if (!ro.mapping)
        ro.mapping = "block";

    cm_cli_progress_t *prog = cm_cli_progress_start(CMD, po.quiet);
    cm_cli_progress_phase(prog, "reading %s, building the machine", po.machine.matrix);
    if ((status = cm_cli_mapping_load(CMD, &po, ro.mapping, &m, &t)) != 0) {
        cm_cli_progress_end(prog);
        return status;
    }
    cm_cli_progress_phase(prog, "mapping: %s", ro.mapping);
    map = malloc((size_t)(cm_matrix_n(m) > 0 ? cm_matrix_n(m) : 1) * sizeof *map);
    if (!map)
        status = cm_cli_fail(CM_EXIT_FAIL, CMD, "out of memory");
    else
        status = cm_cli_mapping_get(CMD, ro.mapping, m, t, po.seed, map);
    cm_cli_progress_phase(prog, "drawing %s", ro.output);
    if (status == 0) {
        in.matrix_path = po.machine.matrix;
        in.mapping = ro.mapping;
        in.m = m;
        in.t = t;
        in.map = map;
        status = ro.view == VIEW_PLACEMENT ? cm_render_placement(CMD, ro.output, &in)
                                           : cm_render_matrix(CMD, ro.output, &in);
    }
    cm_cli_progress_end(prog);
    if (status == 0 && po.verbose)
        fprintf(stderr, "%s: --view %s, %d ranks, %d slots, %.3f s\n", ro.output,
                ro.view == VIEW_PLACEMENT ? "placement" : "matrix",
                cm_matrix_n(m), cm_tree_nslots(t), cm_cli_now() - t0);
    free(map);
    cm_matrix_free(m);
    cm_tree_free(t);
    return status;
}
