/* exactcheck.c -- self-check of bench_exact_optimum() (bench/engine/lib/exact.c).
 *
 *   exactcheck [--real DIR] [--limit WORK]
 *
 * 1. Random small instances (n = 5..8, several seeds) on 2:2:2, 2:2:2:2, a
 *    hand-made irregular tree, with message costs and non-monotone costs:
 *    the optimum must equal a brute force over all injective mappings.
 * 2. Every matrix of DIR (default test/data/matrices) with at most 16 ranks
 *    on 4:2:4:2, distances 1:2:10:20 and 1:10:100:1000: the optimum must lie
 *    between cm_cost_lower_bound() and the J of block and Scotch.  Prints
 *    time, work units and opt/S, opt/B per matrix.
 * 3. The geometric bounds of lib/gridbound.c: the most edges among s cells
 *    of Z^2, Z^3 and of a rook's graph, against every s-subset of a grid
 *    large enough to hold the best shape (4x4 and 5x5, 3x3x3, K4 x K4).
 * Exit status 1 on any mismatch. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clustermap.h"
#include "exact.h"
#include "gridbound.h"

#define MAXN 8
#define MAXSLOTS 16
#define REL_TOL 1e-9

/* Brute force: every injective map, pair costs summed as ranks are added. */
typedef struct brute {
    int n, nslots;
    double w[MAXN][MAXN][8];   /* cost of pair (i, j) per lca level, both directions */
    int lca[MAXSLOTS][MAXSLOTS];
    int map[MAXN], used[MAXSLOTS];
    double best;
} brute_t;

static void brute_dfs(brute_t *b, int k, double acc)
{
    if (acc >= b->best)
        return; /* costs are >= 0, so a partial sum only grows */
    if (k == b->n) {
        b->best = acc;
        return;
    }
    for (int s = 0; s < b->nslots; s++) {
        if (b->used[s])
            continue;
        double add = 0;
        for (int j = 0; j < k; j++)
            add += b->w[k][j][b->lca[s][b->map[j]]];
        b->used[s] = 1;
        b->map[k] = s;
        brute_dfs(b, k + 1, acc + add);
        b->used[s] = 0;
    }
}

/* Optimum by brute force (self-sends included, as cm_cost counts them). */
static double brute_optimum(const cm_matrix_t *m, const cm_tree_t *t)
{
    brute_t *b = calloc(1, sizeof *b);
    if (!b)
        return NAN;
    b->n = cm_matrix_n(m);
    b->nslots = cm_tree_nslots(t);
    int nlev = cm_tree_nlevels(t);
    double self = 0;
    for (int i = 0; i < b->n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        for (int e = 0; e < len; e++)
            for (int l = 0; l < nlev; l++) {
                double c = bytes[e] * cm_tree_level_byte_cost(t, l) +
                           (msgs ? msgs[e] * cm_tree_level_msg_cost(t, l) : 0);
                int j = cols[e];
                if (j == i) {
                    if (l == nlev - 1)
                        self += c;
                } else {
                    b->w[i][j][l] += c;
                    b->w[j][i][l] += c;
                }
            }
    }
    for (int p = 0; p < b->nslots; p++)
        for (int q = 0; q < b->nslots; q++)
            b->lca[p][q] = cm_tree_lca_level(t, p, q);
    b->best = INFINITY;
    /* w[k][j] holds both directions; it is added once, with the later rank. */
    brute_dfs(b, 0, 0.0);
    double best = b->best + self;
    free(b);
    return best;
}

static cm_matrix_t *random_matrix(int n, uint64_t seed, double density)
{
    cm_rng_t r;
    cm_rng_seed(&r, seed);
    cm_builder_t *bd = cm_builder_new(n, NULL);
    if (!bd)
        return NULL;
    cm_builder_set_has_msgs(bd, 1);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (cm_rng_double(&r) < density) {
                double bytes = (double)cm_rng_below(&r, 1000);
                double msgs = (double)cm_rng_below(&r, 20);
                cm_builder_add(bd, i, j, bytes, msgs, NULL);
            }
    cm_matrix_t *m = cm_builder_finish(bd, NULL);
    cm_builder_free(bd);
    return m;
}

/* root -> { node(socket(3 cores), socket(2 cores)), node(socket(3 cores)),
 *           node(1 core, skipping the socket level) }: 9 slots, siblings of
 * different shapes, so runs of several classes under one vertex. */
static cm_tree_t *irregular_tree(void)
{
    cm_tree_t *t = cm_tree_new();
    if (!t)
        return NULL;
    int ok = cm_tree_add_level(t, "root", 50, 3, NULL) >= 0 &&
             cm_tree_add_level(t, "node", 7, 1, NULL) >= 0 &&
             cm_tree_add_level(t, "socket", 2, 0.5, NULL) >= 0 &&
             cm_tree_add_level(t, "core", 0, 0, NULL) >= 0;
    int root = ok ? cm_tree_add_vertex(t, -1, 0, NULL, NULL) : -1;
    int n1 = cm_tree_add_vertex(t, root, 1, NULL, NULL);
    int s1 = cm_tree_add_vertex(t, n1, 2, NULL, NULL);
    int s2 = cm_tree_add_vertex(t, n1, 2, NULL, NULL);
    int n2 = cm_tree_add_vertex(t, root, 1, NULL, NULL);
    int s3 = cm_tree_add_vertex(t, n2, 2, NULL, NULL);
    int n3 = cm_tree_add_vertex(t, root, 1, NULL, NULL);
    for (int k = 0; k < 3; k++) {
        cm_tree_add_vertex(t, s1, 3, NULL, NULL);
        cm_tree_add_vertex(t, s3, 3, NULL, NULL);
    }
    for (int k = 0; k < 2; k++)
        cm_tree_add_vertex(t, s2, 3, NULL, NULL);
    cm_tree_add_vertex(t, n3, 3, NULL, NULL);
    if (!ok || cm_tree_finalize(t, NULL) < 0) {
        cm_tree_free(t);
        return NULL;
    }
    return t;
}

/* Level costs with message costs too, and a non-monotone variant. */
static void set_costs(cm_tree_t *t, int variant)
{
    int nlev = cm_tree_nlevels(t);
    for (int l = 0; l + 1 < nlev; l++) {
        double b = cm_tree_level_byte_cost(t, l);
        if (variant == 1)
            cm_tree_set_level_cost(t, l, b, 3.0 * (nlev - l), NULL);
        else if (variant == 2) /* cheaper far away at some levels */
            cm_tree_set_level_cost(t, l, (double)((l * 7 + 3) % 5 + 1), 0, NULL);
    }
}

static int check_random(void)
{
    static const struct { const char *h, *d; int maxn; } trees[] = {
        { "2:2:2", "1:10:100", 8 },
        { "2:2:2:2", "1:10:100:1000", 6 },
        { "4:2:2", "1:2:10", 6 },
        { NULL, NULL, 6 }, /* irregular_tree() */
    };
    int bad = 0, cases = 0;
    for (size_t ti = 0; ti < sizeof trees / sizeof *trees; ti++)
        for (int variant = 0; variant < 3; variant++)
            for (int n = 5; n <= trees[ti].maxn; n++)
                for (uint64_t seed = 1; seed <= 4; seed++) {
                    cm_tree_t *t = trees[ti].h
                                       ? cm_tree_from_hierarchy(trees[ti].h, trees[ti].d, NULL)
                                       : irregular_tree();
                    cm_matrix_t *m = random_matrix(n, seed * 100 + (uint64_t)n,
                                                   seed == 1 ? 0.25 : 0.6);
                    if (!t || !m) {
                        fprintf(stderr, "exactcheck: cannot build case\n");
                        return 1;
                    }
                    set_costs(t, variant);
                    int map[MAXN];
                    double J = NAN;
                    int rc = bench_exact_optimum(m, t, 0, map, &J);
                    double Jb = brute_optimum(m, t);
                    double Jm = rc == 0 ? cm_cost(m, t, map) : NAN;
                    int valid = rc == 0 && cm_mapping_check(t, map, n, NULL) == 0;
                    double tol = REL_TOL * (fabs(Jb) + 1);
                    cases++;
                    if (!valid || !(fabs(J - Jb) <= tol) || !(fabs(Jm - J) <= tol)) {
                        printf("MISMATCH tree %s dist %s variant %d n %d seed %llu: "
                               "exact rc %d J %.10g, brute %.10g\n",
                               trees[ti].h ? trees[ti].h : "irregular",
                               trees[ti].d ? trees[ti].d : "-", variant, n,
                               (unsigned long long)seed, rc, J, Jb);
                        bad++;
                    }
                    cm_matrix_free(m);
                    cm_tree_free(t);
                }
    printf("random: %d cases, %d mismatches\n", cases, bad);
    return bad ? 1 : 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int check_one_real(const char *path, const char *dist, double limit)
{
    cm_error_t err;
    cm_matrix_t *m = cm_matrix_read(path, CM_FORMAT_AUTO, &err);
    if (!m) {
        printf("%s: %s\n", path, err.msg);
        return 1;
    }
    int n = cm_matrix_n(m);
    if (n > 16) {
        cm_matrix_free(m);
        return 0;
    }
    cm_tree_t *t = cm_tree_from_hierarchy("4:2:4:2", dist, &err);
    int *map = malloc(sizeof(int) * (size_t)n * 3);
    if (!t || !map) {
        cm_matrix_free(m);
        cm_tree_free(t);
        free(map);
        return 1;
    }
    int *mb = map + n, *ms = map + 2 * n;
    int bad = 0;
    double Jb = cm_map_block(t, n, mb, NULL) == 0 ? cm_cost(m, t, mb) : NAN;
    double Js = cm_map_scotch(m, t, 1, ms, NULL) == 0 ? cm_cost(m, t, ms) : NAN;
    double lb = cm_cost_lower_bound(m, t, NULL, NULL);
    double work = bench_exact_work(m, t);
    double t0 = now();
    double J = NAN;
    int rc = bench_exact_optimum(m, t, limit, map, &J);
    double sec = now() - t0;
    double tol = REL_TOL * (fabs(J) + 1);
    if (rc != 0 || cm_mapping_check(t, map, n, NULL) < 0 || !(J <= Jb + tol) ||
        !(J <= Js + tol) || !(J >= lb - tol))
        bad = 1;
    const char *base = strrchr(path, '/');
    printf("%-34s %-14s %2d %6.2fs %9.3g %14.9g %14.9g %14.9g %12.6g %8.6f %8.6f %7.4f%s\n",
           base ? base + 1 : path, dist, rc, sec, work, J, Js, Jb, lb,
           J / Js, J / Jb, lb / J, bad ? "  MISMATCH" : "");
    cm_matrix_free(m);
    cm_tree_free(t);
    free(map);
    return bad;
}

static int check_real(const char *dir, double limit)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("exactcheck: cannot open %s\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".mtx") != 0)
            continue;
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, sizeof *nn * cap);
            if (!nn)
                break;
            names = nn;
        }
        size_t sz = strlen(dir) + len + 2;
        names[count] = malloc(sz);
        if (names[count])
            snprintf(names[count++], sz, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, cmp_str);
    printf("%-34s %-14s %2s %7s %9s %14s %14s %14s %12s %8s %8s %7s\n", "matrix",
           "distances", "rc", "time", "work", "J_opt", "J_scotch", "J_block", "LB",
           "opt/S", "opt/B", "LB/opt");
    static const char *dists[] = { "1:2:10:20", "1:10:100:1000" };
    int bad = 0;
    for (size_t i = 0; i < count; i++) {
        for (int k = 0; k < 2; k++)
            bad |= check_one_real(names[i], dists[k], limit);
        free(names[i]);
    }
    free(names);
    printf("real: %s\n", bad ? "MISMATCH" : "ok");
    return bad;
}

/* Most induced edges over every s-subset of an a x b x c grid (rook: all
 * cells of a row, or of a column, are adjacent; c must be 1). */
static int best_subset(int a, int b, int c, int rook, int s)
{
    int n = a * b * c, best = -1;
    for (unsigned mask = 0; mask < (1u << n); mask++) {
        if (__builtin_popcount(mask) != s)
            continue;
        int e = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                if (!(mask >> i & 1) || !(mask >> j & 1))
                    continue;
                int xi = i / (b * c), yi = i / c % b, zi = i % c;
                int xj = j / (b * c), yj = j / c % b, zj = j % c;
                int d = abs(xi - xj) + abs(yi - yj) + abs(zi - zj);
                if (rook ? (xi == xj) != (yi == yj) : d == 1)
                    e++;
            }
        if (e > best)
            best = e;
    }
    return best;
}

static int check_grid_bounds(void)
{
    int bad = 0;
    for (int s = 1; s <= 8; s++) {
        struct { const char *what; long got; int want; } c[] = {
            { "Z^2 (5x5)", bench_grid_max_inside(2, s), best_subset(5, 5, 1, 0, s) },
            { "Z^3 (3x3x3)", bench_grid_max_inside(3, s), best_subset(3, 3, 3, 0, s) },
            { "rook 4x4", bench_rook_max_inside(4, 4, s), best_subset(4, 4, 1, 1, s) },
        };
        for (size_t k = 0; k < sizeof c / sizeof *c; k++)
            if (c[k].got != c[k].want) {
                printf("MISMATCH grid bound %s, %d cells: %ld, brute force %d\n",
                       c[k].what, s, c[k].got, c[k].want);
                bad = 1;
            }
    }
    /* Loomis-Whitney above the exhaustive range never undercuts the shapes
     * it must allow (a 2 x 2 x 2 cube per 8 cells: 8 x 8 x 8 = 512 cells
     * keep 3 x 8 x 8 x 7 = 1344 edges; 16 x 16 = 256 cells keep 480). */
    if (bench_grid_max_inside(3, 512) < 1344 || bench_grid_max_inside(2, 256) < 480) {
        printf("MISMATCH grid bound: Loomis-Whitney below a real shape\n");
        bad = 1;
    }
    printf("grid bounds: %s\n", bad ? "MISMATCH" : "ok");
    return bad;
}

int main(int argc, char **argv)
{
    const char *dir = "test/data/matrices";
    double limit = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--real") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc)
            limit = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--real DIR] [--limit WORK]\n", argv[0]);
            return 2;
        }
    }
    int bad = check_random();
    bad |= check_real(dir, limit);
    bad |= check_grid_bounds();
    return bad ? 1 : 0;
}
