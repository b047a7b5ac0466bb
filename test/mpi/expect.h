/*
 * expect.h -- the expected communication matrix of a test program, written
 * by rank 0 in the raw profile's line syntax ("p2p|coll src dst bytes msgs")
 * so that test/sh/t0100-prof-*.t can compare it with what
 * libclustermap-prof.so recorded.  Each program adds its pattern for ALL
 * ranks (it knows the whole pattern), formulated independently of the
 * library where it can (e.g. trees from the receiver's side).
 */
#ifndef CM_TEST_EXPECT_H
#define CM_TEST_EXPECT_H

#include <stdio.h>
#include <stdlib.h>

enum { EXP_P2P = 0, EXP_COLL = 1 };

static int exp_n;
static unsigned long long *exp_b[2], *exp_m[2];

static void exp_init(int n)
{
    exp_n = n;
    for (int k = 0; k < 2; k++) {
        exp_b[k] = calloc((size_t)n * n, sizeof **exp_b);
        exp_m[k] = calloc((size_t)n * n, sizeof **exp_m);
        if (!exp_b[k] || !exp_m[k])
            abort();
    }
}

/* Traffic from world rank s to world rank d (self traffic of collectives
 * is not recorded by the reference algorithms, so it is never added). */
static void exp_add(int kind, int s, int d, unsigned long long bytes,
                    unsigned long long msgs)
{
    if (s < 0 || d < 0 || s >= exp_n || d >= exp_n)
        abort();
    exp_b[kind][(size_t)s * exp_n + d] += bytes;
    exp_m[kind][(size_t)s * exp_n + d] += msgs;
}

static void exp_write(const char *path)
{
    static const char *tag[2] = { "p2p", "coll" };
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        abort();
    }
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < exp_n; s++)
            for (int d = 0; d < exp_n; d++) {
                size_t i = (size_t)s * exp_n + d;
                if (exp_b[k][i] || exp_m[k][i])
                    fprintf(f, "%s %d %d %llu %llu\n", tag[k], s, d,
                            exp_b[k][i], exp_m[k][i]);
            }
    if (fclose(f) != 0)
        abort();
}

#endif
