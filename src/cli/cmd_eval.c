/*
 * cmd_eval.c -- `clustermap eval`: the cost of one mapping of a matrix onto
 * a machine, in a form scripts can read ("key=value" per line on stdout).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "machine_opts.h"

static const char *const CMD = "eval";

enum { OPT_MAPPING = CM_OPT_PLACE_END, OPT_BOUND };

/* eval's own options. */
typedef struct eval_opts {
    const char *mapping;
    int bound;
} eval_opts_t;

static void usage(FILE *f)
{
    char names[256];

    fprintf(f,
"Usage: clustermap eval --matrix FILE <machine> --mapping FILE|ALGORITHM\n"
"                       [--seed N] [--weight W] [--bound] [--verbose]\n"
"\n"
"Print the cost of placing the ranks of a communication matrix on a machine:\n"
"  J=<cost>                 sum over matrix entries of bytes x byte cost +\n"
"                           messages x message cost of the level where the\n"
"                           two ranks meet (seconds on hwloc and slurm.conf\n"
"                           machines: docs/machine-costs.md)\n"
"  level.<name>=<bytes>     bytes whose endpoints meet first at that level,\n"
"                           one line per level, root level first\n"
"  max_node_out=<bytes>     most bytes any one node sends to other nodes\n"
"  T_max=<cost>             the slowest rank: max over ranks of the cost, as\n"
"                           in J, of the entries it receives, the bytes from\n"
"                           other nodes counted for its whole node (what\n"
"                           paces a latency-bound pipeline; plan's auto never\n"
"                           raises it above block's)\n"

"  lower_bound=<cost>       with --bound: no mapping of this matrix onto this\n"
"                           machine has a lower J (docs/machine-costs.md)\n"
"\n"
"Options:\n");
    cm_machine_opts_help(f, CM_MACHINE_NEED_MATRIX);
    fprintf(f,
"Mapping:\n"
"  --mapping FILE         mapping file: line i holds the 0-based slot of rank i\n"
"  --mapping ALGORITHM    compute it instead, one of %s:\n",
            cm_cli_algorithm_names(names, sizeof names));
    cm_cli_algorithm_help(f);
    fprintf(f,
"                         (a file named like an algorithm: write ./NAME)\n"
"  --seed N               seed of random and scotch (default 1)\n"
"  --weight W             price J as plan --weight W does: mixed, bytes or\n"
"                         msgs (default: the machine's level costs as given)\n"
"  --bound                also print a lower bound on J over all mappings\n"
"  -v, --verbose          describe the inputs on stderr, and after the figures\n"
"                         the messages per level, the node that sends most and\n"
"                         L_max, the busiest uplink: max over nodes and switch\n"
"                         groups of the bytes they send out (or take in),\n"
"                         priced at their uplink's level, per node; with\n"
"                         --gpus each rank's node, GPU, NIC and CPUs\n"
"  -q, --quiet            no progress line (shown on a terminal after 2 s)\n"
"  -h, --help             this text\n"
"\n"
"Example:\n"
"  clustermap eval --matrix cg.S.64.mtx --hierarchy 4:2:4:2 \\\n"
"      --distances 1:2:10:20 --mapping block\n");
}

static void print_inputs(const cm_machine_opts_t *mo, const cm_matrix_t *m,
                         const cm_tree_t *t, const char *mapping)
{
    double bytes, msgs;

    cm_matrix_totals(m, &bytes, &msgs);
    fprintf(stderr, "matrix %s: %d ranks, %zu entries, ", mo->matrix,
            cm_matrix_n(m), cm_matrix_nnz(m));
    cm_cli_print_number(stderr, bytes);
    fprintf(stderr, " bytes\nmachine: %d slots, %d nodes: ",
            cm_tree_origin_nslots(t), cm_tree_origin_nnodes(t));
    cm_machine_line(stderr, t);   /* the tree that was built, in one line */
    fputc('\n', stderr);
    for (int l = 0; l < cm_tree_nlevels(t); l++)
        fprintf(stderr, "  level %d %s: %.17g per byte, %.17g per message\n", l,
                cm_tree_level_name(t, l), cm_tree_level_byte_cost(t, l),
                cm_tree_level_msg_cost(t, l));
    fprintf(stderr, "mapping: %s\n", mapping);
}

/* The figures, computed first (the lower bound last: it may take long),
 * then printed once @p prog has ended. */
static int report(const cm_matrix_t *m, const cm_tree_t *t, const int *map,
                  int bound, int verbose, const cm_machine_opts_t *mopts,
                  cm_cli_progress_t **prog)
{
    cm_error_t err = { "" };
    cm_cost_report_t r;
    int nlevels = cm_tree_nlevels(t);

    memset(&r, 0, sizeof r);
    r.nlevels = nlevels;
    r.level_bytes = calloc((size_t)nlevels, sizeof *r.level_bytes);
    r.level_msgs = calloc((size_t)nlevels, sizeof *r.level_msgs);
    if (!r.level_bytes || !r.level_msgs) {
        free(r.level_bytes);
        free(r.level_msgs);
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "out of memory");
    }
    double T = NAN, lb = 0;
    int rc = cm_cost_report(m, t, map, &r, &err);
    if (rc == 0) {
        T = cm_cost_max(m, t, map);
        if (bound && (lb = cm_cost_lower_bound(m, t, NULL, &err)) < 0)
            rc = -1;
    }
    cm_cli_progress_end(*prog);
    *prog = NULL;
    if (rc != 0) {
        free(r.level_bytes);
        free(r.level_msgs);
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s%s", isnan(T) ? "" : "lower bound: ",
                           err.msg);
    }

    fputs("J=", stdout);
    cm_cli_print_number(stdout, r.J);
    for (int l = 0; l < nlevels; l++) {
        printf("\nlevel.%s=", cm_tree_level_name(t, l));
        cm_cli_print_number(stdout, r.level_bytes[l]);
    }
    fputs("\nmax_node_out=", stdout);
    cm_cli_print_number(stdout, r.max_node_out);
    /* Last of the fixed lines, so that scripts reading the others by
     * position (the root level on line 2) keep working. */
    fputs("\nT_max=", stdout);
    cm_cli_print_number(stdout, T);
    fputc('\n', stdout);
    if (bound) {
        fputs("lower_bound=", stdout);
        cm_cli_print_number(stdout, lb);
        fputc('\n', stdout);
    }

    if (verbose) {
        for (int l = 0; l < nlevels; l++) {
            fprintf(stderr, "level.%s messages=", cm_tree_level_name(t, l));
            cm_cli_print_number(stderr, r.level_msgs[l]);
            fputc('\n', stderr);
        }
        fprintf(stderr, "max_node=%d\nL_max=", cm_tree_node_origin(t, r.max_node));
        cm_cli_print_number(stderr, cm_cost_links(m, t, map));
        fputc('\n', stderr);
        int st = cm_machine_gpu_ranks(stderr, mopts, CMD, t, map, cm_matrix_n(m));
        if (st != 0) {
            free(r.level_bytes);
            free(r.level_msgs);
            return st;
        }
    }
    free(r.level_bytes);
    free(r.level_msgs);
    return fflush(stdout) == 0 ? CM_EXIT_OK
                               : cm_cli_fail(CM_EXIT_FAIL, CMD, "writing stdout failed");
}

static int eval_option(void *ctx, int code, const char *arg)
{
    eval_opts_t *eo = ctx;

    if (code == OPT_BOUND) {
        eo->bound = 1;
        return 0;
    }
    if (code != OPT_MAPPING)
        return cm_cli_usage_error(CMD, "internal: unexpected option code %d", code);
    if (eo->mapping)
        return cm_cli_usage_error(CMD, "--mapping given twice");
    eo->mapping = arg;
    return 0;
}

int cm_cmd_eval(int argc, char **argv)
{
    static const struct option longopts[] = {
        CM_PLACE_LONGOPTS,
        { "mapping", required_argument, NULL, OPT_MAPPING },
        { "bound", no_argument, NULL, OPT_BOUND },
        { NULL, 0, NULL, 0 }
    };
    cm_place_opts_t po;
    eval_opts_t eo = { NULL, 0 };
    const char *mapping;
    int status;
    cm_matrix_t *m = NULL;
    cm_tree_t *t = NULL;
    int *map;

    status = cm_place_opts_parse(&po, CMD, argc, argv, ":hvq", longopts,
                                 CM_MACHINE_NEED_MATRIX, eval_option, &eo, usage);
    if (status != 0)
        return status == CM_PLACE_HELP ? CM_EXIT_OK : status;
    mapping = eo.mapping;
    if (!mapping) {
        char names[256];
        return cm_cli_usage_error(CMD, "missing --mapping FILE|%s",
                                  cm_cli_algorithm_names(names, sizeof names));
    }

    cm_cli_progress_t *prog = cm_cli_progress_start(CMD, po.quiet);
    cm_cli_progress_phase(prog, "reading %s, building the machine", po.machine.matrix);
    if ((status = cm_cli_mapping_load(CMD, &po, mapping, &m, &t)) != 0) {
        cm_cli_progress_end(prog);
        return status;
    }
    cm_cli_progress_phase(prog, "mapping: %s", mapping);
    if (po.verbose)
        print_inputs(&po.machine, m, t, mapping);
    map = malloc((size_t)cm_matrix_n(m) * sizeof *map);
    if (!map)
        status = cm_cli_fail(CM_EXIT_FAIL, CMD, "out of memory");
    else if ((status = cm_cli_mapping_get(CMD, mapping, m, t, po.seed, map)) == 0) {
        cm_cli_progress_phase(prog, "evaluating%s", eo.bound ? ", the lower bound" : "");
        status = report(m, t, map, eo.bound, po.verbose, &po.machine, &prog);
    }
    cm_cli_progress_end(prog);   /* (when report() did not) */
    free(map);
    cm_matrix_free(m);
    cm_tree_free(t);
    return status;
}
