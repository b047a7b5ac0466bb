/* readbench.c -- speed of the communication-matrix readers (issue 14).
 *
 *   readbench --stencil N [--shuffle] [--mtx|--metis] OUT
 *       write a 3-D 7-point stencil of N^3 ranks: triplets "src dst bytes
 *       msgs" (default), Matrix Market (real general) or METIS with edge
 *       weights; rows in order, or every line shuffled with --shuffle
 *       (triplets and Matrix Market only).  Three values in four are
 *       integers up to 10^7, the fourth a decimal with three places.
 *   readbench FILE [auto|mtx|metis|triplets]
 *       read FILE once (cm_matrix_read) and print its size, n, nnz, the
 *       wall and CPU (user + system) time and MB/s (10^6 bytes) of both.
 *
 * Run every read in a fresh process: the figures of docs/matrix-readers.md
 * are the median of several, on a machine otherwise idle. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "clustermap.h"

enum out_format { OUT_TRIPLETS, OUT_MTX, OUT_METIS };

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
}

/* The k-th neighbour of rank r in an n x n x n grid, or -1 at the edge. */
static long neighbour(long r, int k, long n)
{
    long c[3] = { r / (n * n), r / n % n, r % n };
    c[k / 2] += k % 2 ? -1 : 1;
    if (c[k / 2] < 0 || c[k / 2] >= n)
        return -1;
    return (c[0] * n + c[1]) * n + c[2];
}

/* The next pseudo-random value: 3 in 4 integers up to 10^7, else a
 * decimal with three places; *msgs a count up to 1000. */
static void next_value(char *buf, size_t size, unsigned *msgs, uint64_t *rng)
{
    *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t x = *rng >> 11;
    if (x % 4 == 3)
        snprintf(buf, size, "%.3f", (double)(x % 1000000000) / 1000);
    else
        snprintf(buf, size, "%llu", (unsigned long long)(x % 10000000 + 1));
    *msgs = (unsigned)(x / 7 % 1000 + 1);
}

/* Rank r's line(s): one per neighbour (triplets, Matrix Market; into
 * lines[] when shuffling), or its adjacency line (METIS). */
static void put_rank(FILE *f, long r, long n, enum out_format fmt,
                     char **lines, long *k, uint64_t *rng)
{
    char line[512], value[32];
    size_t len = 0;
    unsigned msgs;

    for (int d = 0; d < 6; d++) {
        long b = neighbour(r, d, n);
        if (b < 0)
            continue;
        next_value(value, sizeof value, &msgs, rng);
        if (fmt == OUT_METIS) {
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%ld %s",
                                    len ? " " : "", b + 1, value);
            continue;
        }
        if (fmt == OUT_TRIPLETS)
            snprintf(line, sizeof line, "%ld %ld %s %u\n", r, b, value, msgs);
        else
            snprintf(line, sizeof line, "%ld %ld %s\n", r + 1, b + 1, value);
        if (lines)
            lines[(*k)++] = strdup(line);
        else
            fputs(line, f);
    }
    if (fmt == OUT_METIS)
        fprintf(f, "%s\n", line);
}

static int write_stencil(const char *path, long n, enum out_format fmt,
                         int shuffle)
{
    long ranks = n * n * n, count = 0, k = 0;
    uint64_t rng = 42;
    char **lines = NULL;
    FILE *f = fopen(path, "w");

    if (!f) {
        perror(path);
        return 1;
    }
    for (long r = 0; r < ranks; r++)
        for (int d = 0; d < 6; d++)
            count += neighbour(r, d, n) >= 0;
    if (fmt == OUT_TRIPLETS)
        fprintf(f, "# ranks %ld\n", ranks);
    else if (fmt == OUT_MTX)
        fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n"
                "%ld %ld %ld\n", ranks, ranks, count);
    else
        fprintf(f, "%ld %ld 1\n", ranks, count / 2);
    if (shuffle && !(lines = calloc((size_t)count, sizeof *lines))) {
        fprintf(stderr, "readbench: out of memory\n");
        fclose(f);
        return 1;
    }
    for (long r = 0; r < ranks; r++)
        put_rank(f, r, n, fmt, lines, &k, &rng);
    for (long i = k - 1; i > 0; i--) {   /* Fisher-Yates */
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        long j = (long)((rng >> 11) % (uint64_t)(i + 1));
        char *t = lines[i];
        lines[i] = lines[j];
        lines[j] = t;
    }
    for (long i = 0; i < k; i++) {
        fputs(lines[i], f);
        free(lines[i]);
    }
    free(lines);
    return fclose(f) != 0;
}

static int read_once(const char *path, const char *format)
{
    cm_format_t fmt = CM_FORMAT_AUTO;
    cm_error_t err = { "" };
    struct stat st;

    if (format && cm_format_parse(format, &fmt) < 0) {
        fprintf(stderr, "readbench: unknown format '%s'\n", format);
        return 2;
    }
    if (stat(path, &st) < 0) {
        perror(path);
        return 1;
    }
    double w = wall_now(), c = cpu_now();
    cm_matrix_t *m = cm_matrix_read(path, fmt, &err);
    w = wall_now() - w;
    c = cpu_now() - c;
    if (!m) {
        fprintf(stderr, "readbench: %s\n", err.msg);
        return 1;
    }
    double mb = (double)st.st_size / 1e6;
    printf("%s: %.1f MB, n=%d nnz=%zu, wall %.3f s (%.0f MB/s), cpu %.3f s "
           "(%.0f MB/s)\n", path, mb, cm_matrix_n(m), cm_matrix_nnz(m), w,
           mb / w, c, mb / c);
    cm_matrix_free(m);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--stencil") == 0) {
        long n = atol(argv[2]);
        int shuffle = 0;
        enum out_format fmt = OUT_TRIPLETS;
        int i = 3;
        for (; i < argc - 1; i++) {
            if (strcmp(argv[i], "--shuffle") == 0)
                shuffle = 1;
            else if (strcmp(argv[i], "--mtx") == 0)
                fmt = OUT_MTX;
            else if (strcmp(argv[i], "--metis") == 0)
                fmt = OUT_METIS;
            else
                break;
        }
        if (n >= 2 && n <= 256 && i == argc - 1 && !(shuffle && fmt == OUT_METIS))
            return write_stencil(argv[i], n, fmt, shuffle);
    } else if (argc == 2 || argc == 3) {
        return read_once(argv[1], argc == 3 ? argv[2] : NULL);
    }
    fprintf(stderr, "usage: %s --stencil N [--shuffle] [--mtx|--metis] OUT\n"
            "       %s FILE [auto|mtx|metis|triplets]\n", argv[0], argv[0]);
    return 2;
}
