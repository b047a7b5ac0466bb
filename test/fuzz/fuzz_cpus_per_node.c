/* fuzz_cpus_per_node.c -- libFuzzer target for the plugin's readers of
 * numbers from the environment: SLURM_JOB_CPUS_PER_NODE
 * (cmp_cpus_per_node, src/launch/alloc.c; "8(x2),4") and positive integers
 * (cmp_parse_int, src/launch/srun_args.c; SLURM_NTASKS and friends).  A
 * job's environment is the user's to set.
 *
 * The first two input bytes give the node count n (1..4096) and the
 * maximum for cmp_parse_int; the rest, up to a NUL byte, is the string.
 * Asserts, beyond "no crash, no leak, no sanitizer report":
 *  - a refusal carries a message and nothing is written past cpus[n - 1];
 *  - accepted counts are in 1..2^20, and the sum is consistent: writing
 *    them back run-length encoded ("c(xr),...") and parsing that again
 *    gives the same n counts;
 *  - cmp_parse_int accepts exactly the strings of decimal digits whose
 *    value lies in 1..max (leading zeros allowed), and returns that value.
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define GUARD INT_MIN   /* never a valid CPU count */

/* "c(xr)" runs of @p cpus, re-parsed; the counts must come back. */
static void check_roundtrip(const int *cpus, int n)
{
    size_t cap = (size_t)n * 24 + 1, len = 0;
    char *text = malloc(cap);
    int *again = malloc(((size_t)n + 1) * sizeof *again);
    long long sum = 0, sum_again = 0;
    cm_error_t err = {""};
    if (!text || !again)
        abort();
    for (int k = 0; k < n; ) {
        int r = 1;
        while (k + r < n && cpus[k + r] == cpus[k])
            r++;
        len += (size_t)snprintf(text + len, cap - len, r > 1 ? "%s%d(x%d)" : "%s%d",
                                k ? "," : "", cpus[k], r);
        k += r;
    }
    again[n] = GUARD;
    if (cmp_cpus_per_node(text, n, again, &err) < 0 || again[n] != GUARD)
        abort();
    for (int k = 0; k < n; k++) {
        if (again[k] != cpus[k])
            abort();
        sum += cpus[k];
        sum_again += again[k];
    }
    if (sum != sum_again || sum < n || sum > (long long)n << 20)
        abort();
    free(text);
    free(again);
}

static void fuzz_cpus(const char *spec, int n)
{
    int *cpus = malloc(((size_t)n + 1) * sizeof *cpus);
    cm_error_t err = {""};
    if (!cpus)
        abort();
    for (int k = 0; k <= n; k++)
        cpus[k] = GUARD;
    if (cmp_cpus_per_node(spec, n, cpus, &err) < 0) {
        if (!err.msg[0])
            abort();
    } else {
        for (int k = 0; k < n; k++)
            if (cpus[k] < 1 || cpus[k] > 1 << 20)
                abort();
        check_roundtrip(cpus, n);
    }
    if (cpus[n] != GUARD)
        abort();
    free(cpus);
}

/* The value of a string of digits in 1..max, or -1. */
static long long digits_value(const char *s, int max)
{
    long long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > max)
            return -1;
    }
    return v >= 1 ? v : -1;
}

static void fuzz_int(const char *s, int max)
{
    int v = -7;
    long long want = digits_value(s, max);
    int rc = cmp_parse_int(s, max, &v);
    if ((rc == 0) != (want >= 0) || (rc == 0 && v != want) || (rc < 0 && v != -7))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int n = 1 + (((int)data[0] << 8 | data[1]) & 4095);
    /* maxima that matter: small ones, and the 2^16, 2^24 and INT_MAX ones
     * the plugin uses */
    static const int maxima[] = { 1, 9, 10, 100, 1 << 16, 1 << 24, INT_MAX };
    int max = maxima[data[0] >> 4 < 7 ? data[0] >> 4 : 6];
    char *s = malloc(size - 1);
    if (!s)
        abort();
    memcpy(s, data + 2, size - 2);
    s[size - 2] = '\0';
    fuzz_cpus(s, n);
    fuzz_int(s, max);
    free(s);
    return 0;
}
