/*
 * cmd_plan.c -- `clustermap plan`: compute a mapping of a matrix onto a
 * machine with one of the algorithms of algorithms.c and write it as a
 * mapping file (line i = slot of rank i), the input of `eval --mapping`.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "machine_opts.h"

static const char *const CMD = "plan";

enum { OPT_ALGORITHM = CM_OPT_PLACE_END, OPT_OUTPUT, OPT_TIME_BUDGET, OPT_INITIAL,
       OPT_HOSTFILE, OPT_THREADS };

/* Largest --time-budget accepted (seconds): a bound on input. */
#define MAX_TIME_BUDGET 86400.0
/* Largest --threads accepted: a bound on input (the planner uses 16 at
 * most). */
#define MAX_THREADS 1024

static void usage(FILE *f)
{
    char names[256];

    fprintf(f,
"Usage: clustermap plan --matrix FILE <machine> --output FILE|--hostfile FILE\n"
"                       [--algorithm %s]\n"
"                       [--seed N] [--weight W]\n"
"                       [--time-budget S] [--threads N] [--initial FILE]\n"
"                       [--verbose]\n"
"\n"
"Compute where each rank should run and write it as a mapping file: line i\n"
"holds the 0-based slot of rank i (slots are numbered depth-first over the\n"
"machine tree).  `clustermap eval --mapping FILE` reads it back.\n"
"\n"
"Options:\n",
            cm_cli_algorithm_names(names, sizeof names));
    cm_machine_opts_help(f, CM_MACHINE_NEED_MATRIX);
    fputs(
"Planning:\n"
"  --algorithm NAME       how to place the ranks (default auto), one of:\n", f);
    cm_cli_algorithm_help(f);
    fputs(
"  --seed N               seed of random and scotch (default 1)\n"
"  --weight W             what the engine minimises per level: mixed (default:\n"
"                         latency x messages + bytes / bandwidth), bytes, msgs\n"
"                         (inputs without message counts use bytes)\n"
"  --time-budget S        seconds of work for auto, cluster and scotch-ms\n"
"                         (default 1, and 1 per 131072 ranks above that;\n"
"                         counted in fixed work units, so the result does\n"
"                         not depend on the machine's speed)\n"
"  --threads N            threads to plan with (default: the CPUs this command\n"
"                         may run on, at most 16); the mapping is the same\n"
"                         for any number, only the time changes\n"
"  --initial FILE         incoming mapping that auto refines and compares with\n"
"  -o, --output FILE      where to write the mapping ('-' for stdout); only a\n"
"                         regular file of yours is replaced, whole\n"
"  --hostfile FILE        also (or instead) write the node of each rank, one\n"
"                         name per line: a SLURM_HOSTFILE for srun\n"
"                         --distribution=arbitrary, or smpirun's -hostfile\n"
"                         (machines with node names: --slurm-conf, --hwloc-*)\n"
"  -v, --verbose          print the algorithm, J, T_max and the time taken on\n"
"                         stderr; for auto also the winner and every candidate;\n"
"                         with --gpus each rank's node, GPU, NIC and CPUs\n"
"                         (auto returns the lowest J among the candidates\n"
"                         whose T_max, the slowest rank's communication time,\n"
"                         is no higher than block's: `clustermap eval --help`;\n"
"                         then trades whole nodes between switches to relieve\n"
"                         the busiest uplinks: candidate \"links\", \"+links\")\n"
"  -q, --quiet            no progress line (shown on a terminal after 2 s)\n"
"  -h, --help             this text\n"
"\n"
"Example:\n"
"  clustermap plan --matrix cg.S.64.mtx --hierarchy 4:2:4:2 \\\n"
"      --distances 1:2:10:20 --algorithm scotch --output cg.map\n", f);
}

/* The mapping file format of cm_mapping_write(), to stdout (which has no
 * path the library could open without truncating a redirected file). */
static int write_stdout(const int *map, int n)
{
    for (int i = 0; i < n; i++)
        if (printf("%d\n", map[i]) < 0)
            break;
    if (fflush(stdout) != 0 || ferror(stdout))
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "writing the mapping to stdout failed");
    return CM_EXIT_OK;
}

/* Plan, then write; @p prog (may be NULL) ends once the plan is made,
 * before anything else is printed. */
static int plan(const cm_cli_algorithm_t *a, const cm_matrix_t *m,
                const cm_tree_t *t, const cm_plan_options_t *o,
                const char *output, const char *hostfile, int verbose,
                const cm_machine_opts_t *mopts, cm_cli_progress_t *prog)
{
    cm_error_t err = { "" };
    int n = cm_matrix_n(m), status;
    int *map = malloc((size_t)n * sizeof *map);
    cm_plan_report_t rep;
    double start, elapsed;

    if (!map) {
        cm_cli_progress_end(prog);
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "out of memory");
    }
    start = cm_cli_now();
    int rc = cm_plan(m, t, o, map, &rep, &err);
    elapsed = cm_cli_now() - start;
    cm_cli_progress_end(prog);
    if (rc != 0) {
        free(map);
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s: %s", a->name, err.msg);
    }
    if (cm_mapping_check(t, map, n, &err) != 0) {
        free(map);
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "algorithm %s returned an invalid "
                           "mapping: %s", a->name, err.msg);
    }

    /* The file names slots of the whole machine, of which t may be the
     * part the ranks can use (cm_machine_opts_load()). */
    status = CM_EXIT_OK;
    if (hostfile && cm_hostfile_write(hostfile, t, map, n, &err) != 0)
        status = cm_cli_output_fail(CMD, hostfile, err.msg);
    cm_tree_map_to_origin(t, map, n, map, &err);
    if (status == CM_EXIT_OK && output) {
        if (strcmp(output, "-") == 0)
            status = write_stdout(map, n);
        else if (cm_mapping_write(output, map, n, &err) != 0)
            status = cm_cli_output_fail(CMD, output, err.msg);
    }
    cm_tree_map_from_origin(t, map, n, map, &err);   /* back, for J */

    if (verbose && status == CM_EXIT_OK) {
        fprintf(stderr, "algorithm=%s\nranks=%d slots=%d\nJ=", a->name, n,
                cm_tree_origin_nslots(t));
        cm_cli_print_number(stderr, cm_cost(m, t, map));
        fputs("\nT_max=", stderr);
        cm_cli_print_number(stderr, cm_cost_max(m, t, map));
        fprintf(stderr, "\ntime=%.6f s\nmachine=", elapsed);
        cm_machine_line(stderr, t);
        fputc('\n', stderr);
        if (rep.ncandidates > 1) {
            /* The portfolio, as the engine writes it (the placement
             * record's writer too). */
            char *text = cm_plan_report_format(&rep, t, CM_PLAN_REPORT_VERBOSE, &err);
            if (text)
                fputs(text, stderr);
            else
                status = cm_cli_fail(CM_EXIT_FAIL, CMD, "%s", err.msg);
            free(text);
        }
        if (status == CM_EXIT_OK)
            status = cm_machine_gpu_ranks(stderr, mopts, CMD, t, map, n);
    }
    free(map);
    return status;
}

/* plan's own options. */
typedef struct plan_args {
    const char *algorithm, *output, *initial, *hostfile;
    cm_plan_options_t *po;   /* --time-budget */
} plan_args_t;

/* Record @p arg in @p slot unless the option came before. */
static int once(const char **slot, const char *option, const char *arg)
{
    if (*slot)
        return cm_cli_usage_error(CMD, "%s given twice", option);
    *slot = arg;
    return 0;
}

static int plan_option(void *ctx, int code, const char *arg)
{
    plan_args_t *a = ctx;

    switch (code) {
    case OPT_ALGORITHM:
        return once(&a->algorithm, "--algorithm", arg);
    case OPT_INITIAL:
        return once(&a->initial, "--initial", arg);
    case OPT_HOSTFILE:
        return once(&a->hostfile, "--hostfile", arg);
    case 'o':
    case OPT_OUTPUT:
        return once(&a->output, "--output", arg);
    case OPT_TIME_BUDGET: {
        char *end;
        double v = strtod(arg, &end);
        if (end == arg || *end || !isfinite(v) || v < 0 || v > MAX_TIME_BUDGET)
            return cm_cli_usage_error(CMD, "--time-budget expects seconds from "
                                      "0 to %g, got '%s'", MAX_TIME_BUDGET, arg);
        a->po->time_budget = v;
        return 0;
    }
    case OPT_THREADS: {
        char *end;
        long v = strtol(arg, &end, 10);
        if (end == arg || *end || v < 1 || v > MAX_THREADS)
            return cm_cli_usage_error(CMD, "--threads expects a number from 1 to "
                                      "%d, got '%s'", MAX_THREADS, arg);
        a->po->threads = (int)v;
        return 0;
    }
    default:
        return cm_cli_usage_error(CMD, "internal: unexpected option code %d", code);
    }
}

int cm_cmd_plan(int argc, char **argv)
{
    static const struct option longopts[] = {
        CM_PLACE_LONGOPTS,
        { "algorithm", required_argument, NULL, OPT_ALGORITHM },
        { "output",    required_argument, NULL, OPT_OUTPUT },
        { "time-budget", required_argument, NULL, OPT_TIME_BUDGET },
        { "initial",   required_argument, NULL, OPT_INITIAL },
        { "hostfile",  required_argument, NULL, OPT_HOSTFILE },
        { "threads",   required_argument, NULL, OPT_THREADS },
        { NULL, 0, NULL, 0 }
    };
    cm_place_opts_t mo;
    cm_plan_options_t po;
    plan_args_t pa = { NULL, NULL, NULL, NULL, &po };
    int *init_map = NULL;
    const cm_cli_algorithm_t *a;
    int status;
    cm_matrix_t *m = NULL;
    cm_tree_t *t = NULL;
    char names[256];

    cm_plan_options_init(&po);
    po.time_budget = -1;   /* not given: cm_cli_default_budget() once n is known */
    po.threads = 0;        /* not given: the CPUs we may run on */
    status = cm_place_opts_parse(&mo, CMD, argc, argv, ":hvqo:", longopts,
                                 CM_MACHINE_NEED_MATRIX, plan_option, &pa, usage);
    if (status != 0)
        return status == CM_PLACE_HELP ? CM_EXIT_OK : status;
    cm_cli_algorithm_names(names, sizeof names);
    if (!pa.algorithm)
        pa.algorithm = "auto";
    a = cm_cli_algorithm_find(pa.algorithm);
    if (!a)
        return cm_cli_usage_error(CMD, "unknown algorithm '%s' (expected %s)",
                                  pa.algorithm, names);
    if (!pa.output && !pa.hostfile)
        return cm_cli_usage_error(CMD, "missing --output FILE ('-' for stdout) or "
                                  "--hostfile FILE");

    mo.machine.keep_mapping = pa.initial;   /* its slots must be kept */
    cm_cli_progress_t *prog = cm_cli_progress_start(CMD, mo.quiet);
    cm_cli_progress_phase(prog, "reading %s, building the machine", mo.machine.matrix);
    if ((status = cm_machine_opts_load(&mo.machine, CMD, &m, &t)) != 0) {
        cm_cli_progress_end(prog);
        return status;
    }
    if (po.time_budget < 0)
        po.time_budget = cm_cli_default_budget(cm_matrix_n(m));
    if (po.threads == 0)
        po.threads = cm_plan_threads_available();
    po.progress = cm_cli_progress_plan;
    po.progress_arg = prog;
    po.algorithm = a->name;
    po.seed = mo.seed;
    po.weight = mo.weight;
    po.verbose = mo.verbose;
    if (pa.initial) {
        cm_error_t err = { "" };
        int n = cm_matrix_n(m);
        init_map = malloc((size_t)n * sizeof *init_map);
        if (!init_map)
            status = cm_cli_fail(CM_EXIT_FAIL, CMD, "out of memory");
        else if (cm_mapping_read(pa.initial, n, init_map, &err) != 0 ||
                 cm_tree_map_from_origin(t, init_map, n, init_map, &err) != 0)
            status = cm_cli_fail(CM_EXIT_FAIL, CMD, "--initial: %s", err.msg);
        po.initial = init_map;
    }
    if (status == 0)
        status = plan(a, m, t, &po, pa.output, pa.hostfile, mo.verbose, &mo.machine,
                      prog);
    else
        cm_cli_progress_end(prog);
    free(init_map);
    cm_matrix_free(m);
    cm_tree_free(t);
    return status;
}
