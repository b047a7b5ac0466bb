/*
 * cmd_calibrate.c -- `clustermap calibrate`: measure the machine's latency
 * and bandwidth per level of its tree, inside an allocation, and print them
 * in the form plugstack.conf and `plan`/`eval` take.
 *
 * It starts clustermap-pingpong (src/calibrate/pingpong.c) on the
 * allocation's tasks with the launcher (srun by default), which ping-pongs
 * every pair of ranks in the pattern of Wang et al.'s "single circle match" (n/2 pairs at once, a
 * round per pairing), and reads back one line per pair.  Each pair is
 * classed by the level of the machine's tree where its two ranks meet (the
 * nodes by their host names; two ranks of one node by the CPUs they are
 * bound to, taken as the node's cores of those numbers, else at the node's
 * level).  Per level the slowest
 * tenth of the pairs is dropped, as in the seed, and the rest averaged:
 * latency from the small message, bandwidth from the large one less that
 * latency.  --input reads a saved pingpong output instead of running it.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "machine_opts.h"

#define CMD "calibrate"
#define MAX_OUTPUT (64u << 20)   /* pingpong's output read at most */
#define MAX_WORDS 32             /* --launcher words */

#ifndef CM_DEFAULT_PINGPONG
#define CM_DEFAULT_PINGPONG "/usr/local/libexec/clustermap/pingpong"
#endif

enum { OPT_LAUNCHER = CM_OPT_MACHINE_END, OPT_PROGRAM, OPT_SMALL, OPT_LARGE,
       OPT_REPS, OPT_INPUT, OPT_DROP };

typedef struct {
    cm_machine_opts_t mo;
    const char *launcher, *program, *small, *large, *reps, *input;
    double drop;
} cal_opts_t;

typedef struct {
    int a, b;                  /* ranks, a < b */
    double small, large;       /* one-way seconds */
} cal_pair_t;

/* What the pingpong said: each rank's slot of the tree, each pair's times. */
typedef struct {
    int n;                     /* ranks */
    int *slot;                 /* per rank, -1 until its host line */
    int *bound;                /* per rank: slot is its bound CPU's */
    int npairs;
    cal_pair_t *pair;
    long small_bytes, large_bytes;
} cal_data_t;

static void usage(FILE *f)
{
    fputs("Usage: clustermap calibrate [<machine>] [--launcher CMD] [--program PATH]\n"
          "                            [--small BYTES] [--large BYTES] [--reps N]\n"
          "                            [--drop FRACTION] [--input FILE]\n"
          "\n"
          "Measure latency and bandwidth between the allocation's tasks, pair by\n"
          "pair, and print them per level of the machine (where the two ranks of a\n"
          "pair meet), as plugstack.conf's level_latencies= and level_bandwidths=\n"
          "and as plan's and eval's --level-latency and --level-bandwidth.  Run it\n"
          "inside an allocation (salloc, or a batch script): it starts\n"
          "clustermap-pingpong on every task of it.\n"
          "\n"
          "Machine (default: --slurm-conf $SLURM_CONF, with the topology.conf\n"
          "beside it when there is one, and the allocation's nodes):\n", f);
    cm_machine_opts_help(f, 0);
    fputs("Options:\n"
          "  --launcher CMD    how to start the MPI program on the allocation's\n"
          "                    tasks, split at blanks (default: srun; e.g.\n"
          "                    'srun --mpi=pmix' or mpirun)\n"
          "  --program PATH    the ping-pong program (default: clustermap-pingpong\n"
          "                    beside this command, else " CM_DEFAULT_PINGPONG ")\n"
          "  --small BYTES     the latency message (default 8)\n"
          "  --large BYTES     the bandwidth message (default 1048576)\n"
          "  --reps N          timed round trips of the small message per pair\n"
          "                    (default 50; the large one a tenth, at least 3)\n"
          "  --drop FRACTION   slowest pairs of each level left out (default 0.1)\n"
          "  --input FILE      read a saved output of the program instead\n"
          "  -h, --help        this text\n"
          "\n"
          "Example, in a job of 2 nodes and 16 tasks:\n"
          "  clustermap calibrate --launcher 'srun --mpi=pmix'\n", f);
}

/* ------------------------------------------------------------ parsing -- */

static int bad_line(const char *src, long line, const char *what)
{
    return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s: line %ld: expected %s", src, line, what);
}

/* The tree slot of a rank on host @p name bound to CPU @p cpu (-1: not
 * bound: the node's first slot, *bound 0), -1 if no node has that name. */
static int host_slot(const cm_tree_t *t, const char *name, int cpu, int *bound)
{
    for (int k = 0; k < cm_tree_nnodes(t); k++) {
        int v = cm_tree_node_vertex(t, k), first, count;
        const char *label = cm_tree_vertex_label(t, v);
        if (!label || strcmp(label, name))
            continue;
        cm_tree_vertex_slots(t, v, &first, &count);
        *bound = cpu >= 0 && cpu < count;
        return first + (*bound ? cpu : 0);
    }
    return -1;
}

static int add_pair(cal_data_t *d, cal_pair_t p)
{
    if (d->npairs % 256 == 0) {
        cal_pair_t *np = realloc(d->pair, ((size_t)d->npairs + 256) * sizeof *np);
        if (!np)
            return -1;
        d->pair = np;
    }
    d->pair[d->npairs++] = p;
    return 0;
}

/* The program's output @p text (from @p src) into @p d on tree @p t. */
static int parse_output(char *text, const char *src, const cm_tree_t *t, cal_data_t *d)
{
    long line = 0;
    int ended = 0;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char name[256];
        int r, a, b, cpu, used = 0;
        double s, lg;
        line++;
        if (ended)
            return bad_line(src, line, "nothing after the 'end' line");
        if (sscanf(l, "host %d %255s %d %n", &r, name, &cpu, &used) == 3 && !l[used]) {
            if (r < 0 || r >= d->n || d->slot[r] != -1)
                return bad_line(src, line, "one 'host R NAME CPU' line per rank");
            if ((d->slot[r] = host_slot(t, name, cpu, &d->bound[r])) < 0)
                return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s: line %ld: host '%s' of "
                                   "rank %d is not a node of the machine", src, line,
                                   name, r);
        } else if (sscanf(l, "pair %d %d %lf %lf %n", &a, &b, &s, &lg, &used) == 4 &&
                   !l[used]) {
            if (a < 0 || b <= a || b >= d->n || d->slot[a] < 0 || d->slot[b] < 0 ||
                !(s > 0) || !(lg > 0) || !isfinite(s) || !isfinite(lg))
                return bad_line(src, line, "'pair A B SMALL LARGE' with ranks 0 <= A "
                                "< B whose hosts came before and times > 0");
            if (add_pair(d, (cal_pair_t){ a, b, s, lg }) < 0)
                return cm_cli_fail(CM_EXIT_FAIL, CMD, "out of memory");
        } else if (sscanf(l, "end small=%ld large=%ld %n", &d->small_bytes,
                          &d->large_bytes, &used) == 2 && !l[used]) {
            if (d->small_bytes < 1 || d->large_bytes <= d->small_bytes)
                return bad_line(src, line, "'end small=S large=L' with 0 < S < L");
            ended = 1;
        } else {
            return bad_line(src, line, "'host R NAME CPU', 'pair A B SMALL LARGE' or "
                            "'end small=S large=L'");
        }
    }
    if (!ended)
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s: no 'end' line: the output is cut "
                           "short", src);
    if (!d->npairs)
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s: no pair was measured (one task?)",
                           src);
    return 0;
}

/* ----------------------------------------------------------- running -- */

/* Where clustermap-pingpong is: --program, beside this command (a build
 * tree), else where `make install` puts it. */
static const char *program_path(const char *given, char *buf, size_t n)
{
    if (given)
        return given;
    ssize_t len = readlink("/proc/self/exe", buf, n - 32);
    if (len > 0) {
        buf[len] = '\0';
        char *slash = strrchr(buf, '/');
        if (slash) {
            strcpy(slash + 1, "clustermap-pingpong");
            if (access(buf, X_OK) == 0)
                return buf;
        }
    }
    return CM_DEFAULT_PINGPONG;
}

/* All of @p f (at most MAX_OUTPUT bytes: more is cut, and the parse then
 * finds no 'end' line) into *out, NUL-ended; @p src names it. */
static int read_stream(FILE *f, const char *src, char **out)
{
    char *buf = malloc(MAX_OUTPUT + 1);   /* touched only as far as read */
    size_t len = buf ? fread(buf, 1, MAX_OUTPUT, f) : 0;
    if (!buf || ferror(f)) {
        free(buf);
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s: %s", src,
                           buf ? "read error" : "out of memory");
    }
    buf[len] = '\0';
    *out = buf;
    return 0;
}

/* Run the launcher with the program; its stdout into *out (NUL-ended). */
static int run_program(const cal_opts_t *o, char **out)
{
    char words[4096], path[PATH_MAX], *argv[MAX_WORDS + 10];
    int argc = 0, fds[2];
    if (snprintf(words, sizeof words, "%s", o->launcher) >= (int)sizeof words)
        return cm_cli_usage_error(CMD, "--launcher: longer than %zu bytes",
                                  sizeof words - 1);
    char *save = NULL;
    for (char *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (argc == MAX_WORDS)
            return cm_cli_usage_error(CMD, "--launcher: more than %d words", MAX_WORDS);
        argv[argc++] = w;
    }
    if (!argc)
        return cm_cli_usage_error(CMD, "--launcher: empty");
    int prog = argc;
    argv[argc++] = (char *)program_path(o->program, path, sizeof path);
    const char *pass[] = { "--small", o->small, "--large", o->large, "--reps", o->reps };
    for (int k = 0; k < 6; k += 2)
        if (pass[k + 1]) {
            argv[argc++] = (char *)pass[k];
            argv[argc++] = (char *)pass[k + 1];
        }
    argv[argc] = NULL;
    if (access(argv[prog], X_OK) < 0)
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s: %s (--program names it)", argv[prog],
                           strerror(errno));
    if (pipe(fds) < 0)
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "clustermap calibrate: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    /* the read end is closed before the wait: a program that writes more
     * than is read gets SIGPIPE instead of blocking */
    FILE *f = fdopen(fds[0], "r");
    int rc = f ? read_stream(f, "clustermap-pingpong", out)
               : cm_cli_fail(CM_EXIT_FAIL, CMD, "fdopen: %s", strerror(errno));
    if (f)
        fclose(f);
    else
        close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (rc)
        return rc;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(*out);
        *out = NULL;
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "'%s %s' failed (%s %d)", o->launcher,
                           argv[prog], WIFEXITED(status) ? "exit code" : "signal",
                           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    return 0;
}

static int read_input(const char *path, char **out)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f)
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s: %s", path, strerror(errno));
    int rc = read_stream(f, path, out);
    if (f != stdin)
        fclose(f);
    return rc;
}

/* ------------------------------------------------------------ results -- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Mean of @p v[0..n) without its slowest @p drop fraction (one at least
 * kept). */
static double trimmed_mean(double *v, int n, double drop)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int keep = (int)ceil(n * (1 - drop));
    keep = keep < 1 ? 1 : keep > n ? n : keep;
    double sum = 0;
    for (int k = 0; k < keep; k++)
        sum += v[k];
    return sum / keep;
}

/* Where ranks @p a and @p b meet: their slots' level, or their node's
 * when they share one without both being bound to a CPU. */
static int pair_level(const cal_data_t *d, const cm_tree_t *t, int a, int b)
{
    int na = cm_tree_slot_node(t, d->slot[a]), nb = cm_tree_slot_node(t, d->slot[b]);
    if (na == nb && !(d->bound[a] && d->bound[b]))
        return cm_tree_vertex_level(t, cm_tree_node_vertex(t, na));
    return cm_tree_lca_level(t, d->slot[a], d->slot[b]);
}

/* Per level: pairs, latency (s) and bandwidth (B/s); lines on stdout. */
static int report(const cal_data_t *d, cm_tree_t *t, double drop)
{
    int nlev = cm_tree_nlevels(t);
    double *s = malloc(sizeof(double) * (size_t)d->npairs * 2), *l = s + d->npairs;
    double *lat = calloc((size_t)nlev * 2, sizeof(double)), *bw = lat + nlev;
    int *count = calloc((size_t)nlev, sizeof(int));
    char lat_spec[2048] = "", bw_spec[2048] = "";
    cm_error_t err = { "" };
    if (!s || !lat || !count) {
        free(s);
        free(lat);
        free(count);
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "out of memory");
    }
    printf("%-10s %6s %14s %14s\n", "level", "pairs", "latency", "bandwidth");
    for (int lev = nlev - 1; lev >= 0; lev--) {
        int k = 0;
        for (int p = 0; p < d->npairs; p++)
            if (pair_level(d, t, d->pair[p].a, d->pair[p].b) == lev) {
                s[k] = d->pair[p].small;
                l[k++] = d->pair[p].large;
            }
        if (!(count[lev] = k))
            continue;
        lat[lev] = trimmed_mean(s, k, drop);
        double big = trimmed_mean(l, k, drop);
        /* the large message's time less one latency: its transfer */
        bw[lev] = (double)d->large_bytes / (big > 2 * lat[lev] ? big - lat[lev] : big);
        printf("%-10s %6d %11.3f us %11.3f GB/s\n", cm_tree_level_name(t, lev), k,
               lat[lev] * 1e6, bw[lev] / 1e9);
        size_t used = strlen(lat_spec);
        snprintf(lat_spec + used, sizeof lat_spec - used, "%s%s=%.4gus",
                 used ? "," : "", cm_tree_level_name(t, lev), lat[lev] * 1e6);
        used = strlen(bw_spec);
        snprintf(bw_spec + used, sizeof bw_spec - used, "%s%s=%.4gGB/s",
                 used ? "," : "", cm_tree_level_name(t, lev), bw[lev] / 1e9);
    }
    free(s);
    free(lat);
    free(count);
    /* what is printed must be what the tree takes */
    if (cm_tree_set_level_latencies(t, lat_spec, &err) < 0 ||
        cm_tree_set_level_bandwidths(t, bw_spec, &err) < 0)
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "internal: the figures do not parse: %s",
                           err.msg);
    printf("level_latencies=%s\nlevel_bandwidths=%s\n", lat_spec, bw_spec);
    printf("# plugstack.conf: add both to clustermap's line; plan and eval: "
           "--level-latency %s --level-bandwidth %s\n", lat_spec, bw_spec);
    return fflush(stdout) == 0 ? CM_EXIT_OK
                               : cm_cli_fail(CM_EXIT_FAIL, CMD, "writing stdout failed");
}

/* ------------------------------------------------------------ options -- */

static int number_opt(const char *name, const char *v, long lo, long hi)
{
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (!end || *end || x < lo || x > hi)
        return cm_cli_usage_error(CMD, "--%s: expected a whole number in %ld..%ld, got "
                                  "'%s'", name, lo, hi, v);
    return 0;
}

static int parse_opts(int argc, char **argv, cal_opts_t *o)
{
    static const struct option longopts[] = {
        CM_MACHINE_LONGOPTS,
        { "launcher", required_argument, NULL, OPT_LAUNCHER },
        { "program", required_argument, NULL, OPT_PROGRAM },
        { "small", required_argument, NULL, OPT_SMALL },
        { "large", required_argument, NULL, OPT_LARGE },
        { "reps", required_argument, NULL, OPT_REPS },
        { "input", required_argument, NULL, OPT_INPUT },
        { "drop", required_argument, NULL, OPT_DROP },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int c, rc;
    char *end;
    memset(o, 0, sizeof *o);
    cm_machine_opts_init(&o->mo);
    o->launcher = "srun";
    o->drop = 0.1;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (cm_machine_opts_owns(c)) {
            if ((rc = cm_machine_opts_set(&o->mo, CMD, c, optarg)) != 0)
                return rc;
            continue;
        }
        switch (c) {
        case OPT_LAUNCHER: o->launcher = optarg; break;
        case OPT_PROGRAM: o->program = optarg; break;
        case OPT_SMALL: o->small = optarg; break;
        case OPT_LARGE: o->large = optarg; break;
        case OPT_REPS: o->reps = optarg; break;
        case OPT_INPUT: o->input = optarg; break;
        case OPT_DROP:
            o->drop = strtod(optarg, &end);
            if (!*optarg || *end || !(o->drop >= 0 && o->drop < 1))
                return cm_cli_usage_error(CMD, "--drop: expected a fraction in [0, 1), "
                                          "got '%s'", optarg);
            break;
        case 'h': usage(stdout); return -1;
        default: return cm_cli_bad_option(CMD, c, argv);
        }
    }
    if (optind != argc)
        return cm_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if ((o->small && (rc = number_opt("small", o->small, 1, 1 << 20))) ||
        (o->large && (rc = number_opt("large", o->large, 1024, 1 << 28))) ||
        (o->reps && (rc = number_opt("reps", o->reps, 1, 100000))))
        return rc;
    return 0;
}

/* No machine given: the allocation's slurm.conf and the topology.conf
 * beside it. */
static int default_machine(cal_opts_t *o, char *topo, size_t n)
{
    const cm_machine_opts_t *m = &o->mo;
    if (m->hierarchy || m->hwloc_xml || m->hwloc_live || m->slurm_conf ||
        m->topology_conf || m->nodelist)
        return 0;
    const char *conf = getenv("SLURM_CONF");
    if (!conf || !*conf)
        return cm_cli_usage_error(CMD, "no machine: give --slurm-conf (or run where "
                                  "SLURM_CONF is set)");
    o->mo.slurm_conf = conf;
    const char *slash = strrchr(conf, '/');
    snprintf(topo, n, "%.*stopology.conf", slash ? (int)(slash - conf + 1) : 0, conf);
    if (access(topo, R_OK) == 0)
        o->mo.topology_conf = topo;
    return 0;
}

int cm_cmd_calibrate(int argc, char **argv)
{
    cal_opts_t o;
    cal_data_t d;
    char topo[PATH_MAX], *text = NULL;
    cm_tree_t *t = NULL;
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? CM_EXIT_OK : rc;
    if (!o.input && !getenv("SLURM_JOB_ID"))
        return cm_cli_usage_error(CMD, "not inside an allocation: run it in salloc or a "
                                  "batch job (or give --input FILE)");
    if ((rc = default_machine(&o, topo, sizeof topo)) != 0 ||
        (rc = cm_machine_opts_check(&o.mo, CMD, 0)) != 0 ||
        (rc = cm_machine_opts_load(&o.mo, CMD, NULL, &t)) != 0)
        return rc;
    rc = o.input ? read_input(o.input, &text) : run_program(&o, &text);
    memset(&d, 0, sizeof d);
    if (!rc) {
        d.n = 0;
        /* ranks: one past the largest "host R" (the lines come first) */
        for (const char *p = text; (p = strstr(p, "host ")); p += 5)
            if ((p == text || p[-1] == '\n')) {
                long r = strtol(p + 5, NULL, 10);
                if (r >= 0 && r < (1 << 20) && r + 1 > d.n)
                    d.n = (int)r + 1;
            }
        d.slot = malloc(sizeof(int) * (size_t)(d.n ? d.n : 1));
        d.bound = calloc((size_t)(d.n ? d.n : 1), sizeof(int));
        if (!d.slot || !d.bound)
            rc = cm_cli_fail(CM_EXIT_FAIL, CMD, "out of memory");
        for (int r = 0; d.slot && r < d.n; r++)
            d.slot[r] = -1;
    }
    if (!rc)
        rc = parse_output(text, o.input ? o.input : "clustermap-pingpong", t, &d);
    if (!rc)
        rc = report(&d, t, o.drop);
    free(text);
    free(d.slot);
    free(d.bound);
    free(d.pair);
    cm_tree_free(t);

    return rc;
}
