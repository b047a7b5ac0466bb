/* threadbench.c -- the constructions that run on several threads
 * (cm_walk: the multisection and the spanning-tree placement), timed with
 * 1, 2, ... threads on the same input, and the whole planner (auto) the
 * same way, each mapping compared with the one-thread mapping: the thread
 * count must change the time, never the result (issue 14).
 *
 * Instances: scrambled 3-D stencil, random geometric graph and all-to-all
 * blocks plus ring (bench/engine/lib/patterns.h) at each size, on a
 * 4:16:X hierarchy with distances 1:10:100 and X nodes to fit.  Columns:
 * seconds per thread count, speed-up of the largest over one thread, and
 * "same" when every mapping equals the one-thread mapping ("DIFFERENT"
 * otherwise: the program then exits 1).
 *
 * Usage: threadbench [--sizes a,b,...] [--threads a,b,...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "patterns.h"

#define SCRAMBLE_SEED 20240611ULL
#define MAX_LIST 8

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "a,b,c" into @p out (at most MAX_LIST positive numbers); their count, or
 * -1 on a bad list. */
static int parse_list(const char *s, int *out)
{
    int k = 0;
    while (*s && k < MAX_LIST) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > (1 << 22) || (*end && *end != ','))
            return -1;
        out[k++] = (int)v;
        s = *end ? end + 1 : end;
    }
    return *s ? -1 : k;
}

enum what { W_MS, W_TREECUT, W_AUTO };
static const char *const what_name[] = {"scotch-ms", "treecut", "auto"};

/* One run of @p w with @p threads on @p p (auto: on @p m and @p t);
 * seconds, or -1 with a message. */
static double run(enum what w, const cm_problem_t *p, const cm_matrix_t *m,
                  const cm_tree_t *t, int threads, int *map)
{
    cm_error_t err = {""};
    cm_budget_t b = {0, UINT64_MAX};
    double t0 = now();
    int rc;
    if (w == W_MS) {
        rc = cm_map_multisection(p, 1, 0, threads, map, &b, &err);
    } else if (w == W_TREECUT) {
        rc = cm_map_treecut(p, threads, map, &b, &err);
    } else {
        cm_plan_options_t o;
        cm_plan_options_init(&o);
        o.threads = threads;
        o.time_budget = 10;   /* the multisection runs in auto at every size */
        rc = cm_plan(m, t, &o, map, NULL, &err);
    }
    double dt = now() - t0;
    if (rc != 0) {
        fprintf(stderr, "threadbench: %s: %s\n", what_name[w], err.msg);
        return -1;
    }
    return dt;
}

int main(int argc, char **argv)
{
    int sizes[MAX_LIST] = {16384, 65536}, nsizes = 2;
    int threads[MAX_LIST] = {1, 2}, nthreads = 2;
    for (int i = 1; i < argc; i++) {
        int *list = NULL, *count = NULL;
        if (strcmp(argv[i], "--sizes") == 0)
            list = sizes, count = &nsizes;
        else if (strcmp(argv[i], "--threads") == 0)
            list = threads, count = &nthreads;
        if (!list || i + 1 >= argc || (*count = parse_list(argv[++i], list)) <= 0) {
            fprintf(stderr, "Usage: threadbench [--sizes a,b,...] [--threads a,b,...]"
                    " (at most %d positive numbers each)\n", MAX_LIST);
            return 2;
        }
    }
    static const bench_pattern_t pats[] = {PAT_STENCIL3D, PAT_RGG3D, PAT_A2A64_RING};
    int status = 0;
    printf("%-10s %8s %-9s", "pattern", "ranks", "what");
    for (int k = 0; k < nthreads; k++)
        printf(" %7s%-2d", "t", threads[k]);
    printf(" %7s  %s\n", "speedup", "mapping");
    for (int si = 0; si < nsizes; si++) {
        int n = sizes[si];
        char hier[64];
        snprintf(hier, sizeof hier, "4:16:%d", (n + 63) / 64);
        for (size_t pi = 0; pi < sizeof pats / sizeof pats[0]; pi++) {
            cm_error_t err = {""};
            cm_matrix_t *m = bench_pattern(pats[pi], n, SCRAMBLE_SEED, &err);
            cm_tree_t *t = m ? cm_tree_from_hierarchy(hier, "1:10:100", &err) : NULL;
            cm_costs_t costs;
            cm_problem_t p;
            int *ref = malloc(sizeof(int) * (size_t)n), *map = malloc(sizeof(int) * (size_t)n);
            if (!m || !t || !ref || !map) {
                fprintf(stderr, "threadbench: %s at %d ranks: %s\n",
                        bench_pattern_name(pats[pi]), n, err.msg[0] ? err.msg : "out of memory");
                return 1;
            }
            cm_costs_from_tree(t, m, CM_WEIGHT_MIXED, &costs);
            if (cm_problem_init(&p, m, t, &costs, &err) < 0) {
                fprintf(stderr, "threadbench: %s\n", err.msg);
                return 1;
            }
            for (int w = W_MS; w <= W_AUTO; w++) {
                double first = 0, last = 0;
                int same = 1;
                printf("%-10s %8d %-9s", bench_pattern_name(pats[pi]), n, what_name[w]);
                for (int k = 0; k < nthreads; k++) {
                    double s = run((enum what)w, &p, m, t, threads[k], k ? map : ref);
                    if (s < 0)
                        return 1;
                    if (k && memcmp(map, ref, sizeof(int) * (size_t)n) != 0)
                        same = 0;
                    if (!k)
                        first = s;
                    last = s;
                    printf(" %9.3f", s);
                    fflush(stdout);
                }
                printf(" %7.2f  %s\n", first / last, same ? "same" : "DIFFERENT");
                status |= !same;
            }
            cm_problem_fini(&p);
            cm_tree_free(t);
            cm_matrix_free(m);
            free(ref);
            free(map);
        }
    }
    return status;
}
