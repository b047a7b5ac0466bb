/* mapbench.c -- quality and speed of the mapping algorithms, measured in one
 * run (issue 3's benchmark).
 *
 * For every instance: J of block, cyclic, random, Scotch's static mapping
 * and each clustermap algorithm (scotch-ms, auto, cluster when the library
 * has it), as ratios to Scotch (/S) and to block (/B), with each tool's
 * wall time (t_*, seconds; auto's CPU time too), and LB/S: a proven lower
 * bound on J over all mappings (cm_cost_lower_bound, plus the edge-isoperimetry
 * of the generated stencils and FFTs, lib/gridbound.c) over J_scotch -- no
 * mapper can show a lower ratio.  Up to 16 ranks it is the exact optimum
 * instead (lib/exact.c, marked *).  The means add that floor ("bound") and
 * how far auto is above it ("auto/LB").
 * Instances:
 *   real   every matrix of the data directory on 4:2:4:2 (<= 64 ranks) or
 *          4:2:8:2 (128 ranks), distances 1:2:10:20 and 1:10:100:1000;
 *   gen    scrambled stencil2d, stencil3d, bintree, a2a64+ring, fft2d at
 *          256, 1024, 4096, 16384 ranks on 4:8:(n/32), distances 1:10:100;
 *   frag   the 1024-rank patterns on 32 nodes drawn from 4 switches in
 *          interleaved hostlist order (node i under switch (i-1) % 4).
 * Then geometric means per family and the speed table (auto's time and
 * peak memory per size).
 *
 * Usage: mapbench [--quick] [--real|--gen|--frag] [--max-n N] [--budget S]
 *                 [--data DIR] [--sizes a,b,...] */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "clustermap.h"
#include "exact.h"
#include "gridbound.h"
#include "patterns.h"

#define SCRAMBLE_SEED 20240611ULL
/* The exact optimum replaces the bound up to this many ranks, within this
 * much work (lib/exact.h: about 0.1 s for 16 ranks on 4:2:4:2). */
#define EXACT_MAX_N 16
#define EXACT_WORK 5e8
#define MAX_SIZES 8

enum tool { T_BLOCK, T_CYCLIC, T_RANDOM, T_SCOTCH, T_MS, T_CLUSTER, T_AUTO,
            NTOOLS };
static const char *tool_name[NTOOLS] = {
    "block", "cyclic", "random", "scotch", "scotch-ms", "cluster", "auto",
};

typedef struct result {
    double J[NTOOLS];
    double sec[NTOOLS];   /* wall */
    double cpu[NTOOLS];
    int ok[NTOOLS];
    char winner[32];
    double lb;            /* no mapping does better: the exact optimum when
                             proven (small n), else cm_cost_lower_bound */
    int lb_exact;         /* lb is the proven optimum */
} result_t;

/* Geometric-mean accumulators per family and tool (ratio to Scotch and to
 * block). */
typedef struct family {
    char name[48];
    int count;
    int nk[NTOOLS];       /* instances where tool k gave a mapping: a tool
                             refused on its budget is left out of its mean */
    double lrs[NTOOLS], lrb[NTOOLS];
    double lrs_lb;        /* log(LB / J_scotch): the best any mapper can show */
} family_t;

#define MAX_FAMILIES 32
static family_t fam[MAX_FAMILIES];
static int nfam;

static double budget = 1.0;

/* Wall time is what a job launch waits for (the measure); CPU time
 * of this process is shown next to it because it does not depend on what
 * else runs on a shared machine (the tools are single-threaded: the run
 * script sets OPENBLAS_NUM_THREADS=1). */
static double clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void)
{
    return clock_of(CLOCK_MONOTONIC);
}

static double cpu_now(void)
{
    return clock_of(CLOCK_PROCESS_CPUTIME_ID);
}

static family_t *family(const char *name)
{
    for (int i = 0; i < nfam; i++)
        if (strcmp(fam[i].name, name) == 0)
            return &fam[i];
    if (nfam == MAX_FAMILIES)
        return NULL;
    family_t *f = &fam[nfam++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    return f;
}

static void account(const char *name, const result_t *r)
{
    family_t *f = family(name);
    if (!f || !r->ok[T_SCOTCH] || !r->ok[T_BLOCK] || !(r->J[T_SCOTCH] > 0) ||
        !(r->J[T_BLOCK] > 0) || !(r->lb > 0))
        return;
    f->count++;
    f->lrs_lb += log(r->lb / r->J[T_SCOTCH]);
    for (int k = 0; k < NTOOLS; k++) {
        if (!r->ok[k] || !(r->J[k] > 0))
            continue;
        f->nk[k]++;
        f->lrs[k] += log(r->J[k] / r->J[T_SCOTCH]);
        f->lrb[k] += log(r->J[k] / r->J[T_BLOCK]);
    }
}

static int run_plan(const cm_matrix_t *m, const cm_tree_t *t, const char *algo,
                    int *map, char *winner, cm_error_t *err)
{
    cm_plan_options_t o;
    cm_plan_report_t rep;
    cm_plan_options_init(&o);
    o.algorithm = algo;
    o.time_budget = budget;
    if (cm_plan(m, t, &o, map, &rep, err) < 0)
        return -1;
    if (winner)
        snprintf(winner, 32, "%s", rep.winner);
    return 0;
}

/* @p cut_lb: per-level cut bounds the pattern's geometry gives, or NULL. */
static void measure(const cm_matrix_t *m, const cm_tree_t *t,
                    const double *cut_lb, result_t *r)
{
    int n = cm_matrix_n(m);
    int *map = malloc(sizeof(int) * (size_t)n);
    memset(r, 0, sizeof *r);
    cm_error_t berr = {""};
    r->lb = cm_cost_lower_bound(m, t, cut_lb, &berr);
    if (r->lb < 0)
        fprintf(stderr, "mapbench: lower bound: %s\n", berr.msg);
    double opt;
    if (n <= EXACT_MAX_N && bench_exact_optimum(m, t, EXACT_WORK, map, &opt) == 0 &&
        opt >= r->lb) {
        r->lb = opt;
        r->lb_exact = 1;
    }
    for (int k = 0; k < NTOOLS; k++) {
        cm_error_t err = {""};
        double t0 = now(), c0 = cpu_now();
        int rc;
        switch (k) {
        case T_BLOCK:  rc = cm_map_block(t, n, map, &err); break;
        case T_CYCLIC: rc = cm_map_cyclic(t, n, map, &err); break;
        case T_RANDOM: rc = cm_map_random(t, n, 1, map, &err); break;
        case T_SCOTCH: rc = cm_map_scotch(m, t, 1, map, &err); break;
        case T_MS:     rc = run_plan(m, t, "scotch-ms", map, NULL, &err); break;
        case T_CLUSTER: rc = run_plan(m, t, "cluster", map, NULL, &err); break;
        default:       rc = run_plan(m, t, "auto", map, r->winner, &err); break;
        }
        r->sec[k] = now() - t0;
        r->cpu[k] = cpu_now() - c0;
        if (rc == 0 && cm_mapping_check(t, map, n, &err) == 0) {
            r->ok[k] = 1;
            r->J[k] = cm_cost(m, t, map);
        } else {
            fprintf(stderr, "mapbench: %s: %s\n", tool_name[k], err.msg);
        }
    }
    free(map);
}

/* measure() for a generated pattern, with what its geometry proves. */
static void measure_pattern(bench_pattern_t p, const cm_matrix_t *m,
                            const cm_tree_t *t, result_t *r)
{
    double *cut_lb = calloc((size_t)cm_tree_nlevels(t), sizeof *cut_lb);
    int geo = cut_lb && bench_grid_cut_lb(p, cm_matrix_n(m), m, t, cut_lb) == 0;
    measure(m, t, geo ? cut_lb : NULL, r);
    free(cut_lb);
}

static void header(void)
{
    printf("%-34s %6s | %6s %6s %6s | %9s %7s %6s | %6s %6s %7s | %6s %6s %7s | "
           "%6s %6s %7s %7s %s\n",
           "instance", "n", "blk/S", "cyc/S", "rnd/S", "J_scotch", "t_S", "LB/S",
           "ms/S", "ms/B", "t_ms", "cl/S", "cl/B", "t_cl", "auto/S", "auto/B",
           "t_auto", "cpu_aut", "winner");
}

static void row(const char *name, int n, const result_t *r)
{
    double S = r->J[T_SCOTCH], B = r->J[T_BLOCK];
#define RS(k) (r->ok[k] && S > 0 ? r->J[k] / S : NAN)
#define RB(k) (r->ok[k] && B > 0 ? r->J[k] / B : NAN)
    printf("%-34s %6d | %6.3f %6.3f %6.3f | %9.3g %7.3f %5.3f%c | %6.3f %6.3f %7.3f | "
           "%6.3f %6.3f %7.3f | %6.3f %6.3f %7.3f %7.3f %s\n",
           name, n, RS(T_BLOCK), RS(T_CYCLIC), RS(T_RANDOM), S, r->sec[T_SCOTCH],
           S > 0 && r->lb >= 0 ? r->lb / S : NAN, r->lb_exact ? '*' : ' ',
           RS(T_MS), RB(T_MS), r->sec[T_MS], RS(T_CLUSTER), RB(T_CLUSTER),
           r->sec[T_CLUSTER], RS(T_AUTO), RB(T_AUTO), r->sec[T_AUTO],
           r->cpu[T_AUTO], r->winner);
    fflush(stdout);
#undef RS
#undef RB
}

/* ---- instances ---------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void bench_real(const char *dir)
{
    static const char *dists[][2] = {
        {"1:2:10:20", "real 1:2:10:20"},
        {"1:10:100:1000", "real 1:10:100:1000"},
    };
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "mapbench: cannot open %s\n", dir);
        return;
    }
    char *names[256];
    int nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < 256) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".mtx") == 0)
            names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)nn, sizeof *names, cmp_str);
    for (int di = 0; di < 2; di++) {
        printf("\n== real matrices, distances %s ==\n", dists[di][0]);
        header();
        for (int i = 0; i < nn; i++) {
            char path[4096];
            cm_error_t err = {""};
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            cm_matrix_t *m = cm_matrix_read(path, CM_FORMAT_AUTO, &err);
            if (!m) {
                fprintf(stderr, "mapbench: %s\n", err.msg);
                continue;
            }
            int n = cm_matrix_n(m);
            const char *h = n <= 64 ? "4:2:4:2" : "4:2:8:2";
            cm_tree_t *t = cm_tree_from_hierarchy(h, dists[di][0], &err);
            if (!t || n > cm_tree_nslots(t)) {
                fprintf(stderr, "mapbench: %s: no machine for %d ranks\n",
                        names[i], n);
                cm_tree_free(t);
                cm_matrix_free(m);
                continue;
            }
            result_t r;
            measure(m, t, NULL, &r);
            char label[128];
            snprintf(label, sizeof label, "%s@%s", names[i], h);
            row(label, n, &r);
            account(dists[di][1], &r);
            account("real (all)", &r);
            cm_tree_free(t);
            cm_matrix_free(m);
        }
    }
    for (int i = 0; i < nn; i++)
        free(names[i]);
}

/* 32 nodes n1..n32 of 4 sockets x 8 cores, node i under switch (i-1) % 4,
 * added in allocation order n1, n2, ...: block then deals consecutive
 * ranks to nodes on different switches. */
static cm_tree_t *fragmented_tree(cm_error_t *err)
{
    cm_tree_t *t = cm_tree_new();
    if (!t)
        return NULL;
    int sw[4];
    if (cm_tree_add_level(t, "cluster", 1000, 0, err) < 0 ||
        cm_tree_add_level(t, "switch", 100, 0, err) < 0 ||
        cm_tree_add_level(t, "node", 10, 0, err) < 0 ||
        cm_tree_add_level(t, "socket", 1, 0, err) < 0 ||
        cm_tree_add_level(t, "core", 0, 0, err) < 0)
        goto fail;
    int root = cm_tree_add_vertex(t, -1, 0, "cluster", err);
    if (root < 0)
        goto fail;
    for (int s = 0; s < 4; s++) {
        char l[16];
        snprintf(l, sizeof l, "s%d", s + 1);
        if ((sw[s] = cm_tree_add_vertex(t, root, 1, l, err)) < 0)
            goto fail;
    }
    for (int i = 1; i <= 32; i++) {
        char l[16];
        snprintf(l, sizeof l, "n%d", i);
        int nd = cm_tree_add_vertex(t, sw[(i - 1) % 4], 2, l, err);
        if (nd < 0)
            goto fail;
        for (int so = 0; so < 4; so++) {
            int sk = cm_tree_add_vertex(t, nd, 3, NULL, err);
            if (sk < 0)
                goto fail;
            for (int c = 0; c < 8; c++)
                if (cm_tree_add_vertex(t, sk, 4, NULL, err) < 0)
                    goto fail;
        }
    }
    if (cm_tree_finalize(t, err) < 0)
        goto fail;
    return t;
fail:
    cm_tree_free(t);
    return NULL;
}

typedef struct speed {
    int n;
    double t_scotch[PAT_GEN_COUNT], t_ms[PAT_GEN_COUNT], t_cl[PAT_GEN_COUNT], t_auto[PAT_GEN_COUNT];
    double c_auto[PAT_GEN_COUNT];
    long maxrss_kb;
} speed_t;

static void bench_gen(const int *sizes, int nsizes, speed_t *sp)
{
    printf("\n== generated patterns (scrambled), hierarchy 4:8:(n/32), "
           "distances 1:10:100 ==\n");
    header();
    for (int si = 0; si < nsizes; si++) {
        int n = sizes[si];
        char h[64];
        cm_error_t err = {""};
        snprintf(h, sizeof h, "4:8:%d", n / 32);
        cm_tree_t *t = cm_tree_from_hierarchy(h, "1:10:100", &err);
        if (!t) {
            fprintf(stderr, "mapbench: %s\n", err.msg);
            continue;
        }
        sp[si].n = n;
        for (int p = 0; p < PAT_GEN_COUNT; p++) {
            cm_matrix_t *m = bench_pattern((bench_pattern_t)p, n, SCRAMBLE_SEED, &err);
            if (!m) {
                fprintf(stderr, "mapbench: %s\n", err.msg);
                continue;
            }
            result_t r;
            measure_pattern((bench_pattern_t)p, m, t, &r);
            char label[128], fname[64];
            snprintf(label, sizeof label, "%s.%d", bench_pattern_name((bench_pattern_t)p),
                     n);
            row(label, n, &r);
            snprintf(fname, sizeof fname, "gen %s",
                     bench_pattern_name((bench_pattern_t)p));
            account(fname, &r);
            account("gen (all)", &r);
            sp[si].t_scotch[p] = r.sec[T_SCOTCH];
            sp[si].t_ms[p] = r.sec[T_MS];
            sp[si].t_cl[p] = r.sec[T_CLUSTER];
            sp[si].t_auto[p] = r.sec[T_AUTO];
            sp[si].c_auto[p] = r.cpu[T_AUTO];
            cm_matrix_free(m);
        }
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        sp[si].maxrss_kb = ru.ru_maxrss;
        cm_tree_free(t);
    }
}

static void bench_frag(void)
{
    cm_error_t err = {""};
    cm_tree_t *t = fragmented_tree(&err);
    if (!t) {
        fprintf(stderr, "mapbench: fragmented tree: %s\n", err.msg);
        return;
    }
    printf("\n== fragmented allocation: 32 nodes from 4 switches, interleaved "
           "(costs 1:10:100:1000) ==\n");
    header();
    for (int p = 0; p < PAT_GEN_COUNT; p++) {
        cm_matrix_t *m = bench_pattern((bench_pattern_t)p, 1024, SCRAMBLE_SEED, &err);
        if (!m)
            continue;
        result_t r;
        measure_pattern((bench_pattern_t)p, m, t, &r);
        char label[128];
        snprintf(label, sizeof label, "frag %s.1024", bench_pattern_name((bench_pattern_t)p));
        row(label, 1024, &r);
        account("frag (all)", &r);
        cm_matrix_free(m);
    }
    cm_tree_free(t);
}

/* A geometric mean from a sum of logs over the instances where the tool
 * gave a mapping; "-" when it never did. */
static void print_mean(int width, double sum, int count)
{
    if (!count)
        printf(" %*s", width, "-");
    else
        printf(" %*.3f", width, exp(sum / count));
}

static void summary(void)
{
    printf("\n== geometric means (J / J_scotch, J / J_block) ==\n");
    printf("%-22s %4s", "family", "inst");
    for (int k = 0; k < NTOOLS; k++)
        printf(" %9s", tool_name[k]);
    printf(" %9s %9s", "bound", "auto/LB");
    printf("   |");
    for (int k = T_MS; k < NTOOLS; k++)
        printf(" %9s/B", tool_name[k]);
    printf("\n");
    /* Per family first, then the overall means of each set. */
    for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < nfam; i++) {
        family_t *f = &fam[i];
        if (!f->count || (strstr(f->name, "(all)") != NULL) != pass)
            continue;
        printf("%-22s %4d", f->name, f->count);
        for (int k = 0; k < NTOOLS; k++)
            print_mean(9, f->lrs[k], f->nk[k]);
        printf(" %9.3f", exp(f->lrs_lb / f->count));
        if (f->nk[T_AUTO] == f->count)
            printf(" %9.3f", exp((f->lrs[T_AUTO] - f->lrs_lb) / f->count));
        else
            printf(" %9s", "-");
        printf("   |");
        for (int k = T_MS; k < NTOOLS; k++)
            print_mean(11, f->lrb[k], f->nk[k]);
        printf("\n");
    }
}

static void speed_table(const speed_t *sp, int nsizes)
{
    printf("\n== speed (wall seconds; auto also CPU seconds) and peak memory ==\n");
    printf("%6s %-12s", "n", "tool");
    for (int p = 0; p < PAT_GEN_COUNT; p++)
        printf(" %11s", bench_pattern_name((bench_pattern_t)p));
    printf(" %10s\n", "maxrss_MB");
    for (int si = 0; si < nsizes; si++) {
        if (!sp[si].n)
            continue;
        static const char *tn[5] = { "scotch", "scotch-ms", "cluster", "auto",
                                     "auto (cpu)" };
        for (int tool = 0; tool < 5; tool++) {
            const double *v = tool == 0 ? sp[si].t_scotch
                            : tool == 1 ? sp[si].t_ms
                            : tool == 2 ? sp[si].t_cl
                            : tool == 3 ? sp[si].t_auto : sp[si].c_auto;
            printf("%6d %-12s", sp[si].n, tn[tool]);
            for (int p = 0; p < PAT_GEN_COUNT; p++)
                printf(" %11.3f", v[p]);
            if (tool == 4)
                printf(" %10.1f", sp[si].maxrss_kb / 1024.0);
            printf("\n");
        }
    }
}

int main(int argc, char **argv)
{
    const char *data = "test/data/matrices";
    int do_real = 1, do_gen = 1, do_frag = 1, max_n = 16384;
    int sizes[MAX_SIZES] = {256, 1024, 4096, 16384};
    int nsizes = 4;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            max_n = 1024;
        else if (strcmp(argv[i], "--real") == 0)
            do_gen = do_frag = 0;
        else if (strcmp(argv[i], "--gen") == 0)
            do_real = do_frag = 0;
        else if (strcmp(argv[i], "--frag") == 0)
            do_real = do_gen = 0;
        else if (strcmp(argv[i], "--max-n") == 0 && i + 1 < argc)
            max_n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
            budget = atof(argv[++i]);
        else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc)
            data = argv[++i];
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            nsizes = 0;
            for (char *s = strtok(argv[++i], ","); s && nsizes < MAX_SIZES;
                 s = strtok(NULL, ","))
                sizes[nsizes++] = atoi(s);
        } else {
            fprintf(stderr, "usage: mapbench [--quick] [--real|--gen|--frag] "
                    "[--max-n N] [--sizes a,b,..] [--budget S] [--data DIR]\n");
            return 2;
        }
    }
    int kept = 0;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] <= max_n && sizes[i] >= 32 && sizes[i] % 32 == 0)
            sizes[kept++] = sizes[i];
    nsizes = kept;
    printf("mapbench: clustermap %s, time budget %.3g s per plan\n", CM_VERSION,
           budget);
    speed_t sp[MAX_SIZES];
    memset(sp, 0, sizeof sp);
    if (do_real)
        bench_real(data);
    if (do_gen)
        bench_gen(sizes, nsizes, sp);
    if (do_frag)
        bench_frag();
    summary();
    if (do_gen)
        speed_table(sp, nsizes);
    return 0;
}
