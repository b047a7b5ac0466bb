/* fuzz_hierarchy.c -- libFuzzer target for the machine descriptions a
 * user types: --hierarchy/--distances (cm_tree_from_hierarchy and
 * cm_tree_from_hierarchy_restricted, src/core/tree_hierarchy.c) and the
 * per-level cost strings of --level-costs, --level-latency and
 * --level-bandwidth, also the plugin's level_costs=, level_latencies= and
 * level_bandwidths= (cm_tree_set_level_costs, _latencies, _bandwidths,
 * src/core/tree.c).
 *
 * The input: one byte n (0..255), then up to five parts cut at NUL bytes:
 * hierarchy, distances, level costs, latencies, bandwidths (an absent
 * part: distances "1", no cost string).  Inputs whose hierarchy could
 * have more than FUZZ_MAX_SLOTS slots (the product of its numbers) are
 * skipped: the reader is bounded by 2^24 slots, but near that bound one
 * input takes seconds under ASan and libFuzzer would spend its time there
 * (the bound itself is checked by test_tree_hierarchy).
 *
 * Asserts, beyond "no crash, no leak, no sanitizer report":
 *  - a refusal carries a message, and the restricted reader refuses too;
 *  - an accepted hierarchy gives a tree of 1..2^24 slots whose last level
 *    is "core" and that has exactly one level "node";
 *  - with n >= 1, the restricted reader (n ranks) and cm_tree_restrict of
 *    the whole tree both fail or print (cm_tree_print) the same tree;
 *  - a cost string refused carries a message and leaves every level's
 *    costs as they were; one accepted leaves them non-negative numbers.
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"
#include "fuzz_bound.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_SLOTS 4096UL
enum { HIERARCHY, DISTANCES, COSTS, LATENCIES, BANDWIDTHS, NPARTS };

/* The product of the numbers in @p s: at least the slots it describes
 * (level names with digits only make it larger). */
static unsigned long slots_estimate(const char *s)
{
    size_t n = strlen(s), i = 0;
    unsigned long prod = 1;
    while (i < n) {
        if (isdigit((unsigned char)s[i]))
            prod = fuzz_sat_mul(prod, fuzz_number(s, n, &i));
        else
            i++;
    }
    return prod;
}

static char *print(const cm_tree_t *t, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        abort();
    cm_tree_print(t, f);
    if (fclose(f) != 0)
        abort();
    return buf;
}

static void check_tree(const cm_tree_t *t)
{
    int levels = cm_tree_nlevels(t), nodes = 0;
    if (cm_tree_nslots(t) < 1 || cm_tree_nslots(t) > (1 << 24) || levels < 2 ||
        strcmp(cm_tree_level_name(t, levels - 1), "core"))
        abort();
    for (int l = 0; l < levels; l++)
        nodes += !strcmp(cm_tree_level_name(t, l), "node");
    if (nodes != 1)
        abort();
}

static void check_restricted(const cm_tree_t *t, const char *h, const char *d, int n)
{
    cm_error_t e1 = {""}, e2 = {""};
    cm_tree_t *a = cm_tree_from_hierarchy_restricted(h, d, n, NULL, 0, &e1);
    cm_tree_t *b = cm_tree_restrict(t, n, NULL, 0, &e2);
    if (!a != !b || (!a && (!e1.msg[0] || !e2.msg[0])))
        abort();
    if (a) {
        size_t la, lb;
        char *pa = print(a, &la), *pb = print(b, &lb);
        if (la != lb || memcmp(pa, pb, la))
            abort();
        free(pa);
        free(pb);
    }
    cm_tree_free(a);
    cm_tree_free(b);
}

typedef int (*setter_t)(cm_tree_t *, const char *, cm_error_t *);

static void check_costs(cm_tree_t *t, setter_t set, const char *spec)
{
    int levels = cm_tree_nlevels(t);
    double before[2][64];
    cm_error_t err = {""};
    if (levels > 64)
        abort();
    for (int l = 0; l < levels; l++) {
        before[0][l] = cm_tree_level_byte_cost(t, l);
        before[1][l] = cm_tree_level_msg_cost(t, l);
    }
    if (set(t, spec, &err) < 0) {
        if (!err.msg[0])
            abort();
        for (int l = 0; l < levels; l++)
            if (memcmp(&before[0][l], &(double){cm_tree_level_byte_cost(t, l)},
                       sizeof(double)) ||
                memcmp(&before[1][l], &(double){cm_tree_level_msg_cost(t, l)},
                       sizeof(double)))
                abort();
        return;
    }
    for (int l = 0; l < levels; l++) {
        double b = cm_tree_level_byte_cost(t, l), m = cm_tree_level_msg_cost(t, l);
        if (isnan(b) || b < 0 || isnan(m) || m < 0)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int n = data[0];
    char *buf = malloc(size);
    const char *part[NPARTS] = {0};
    if (!buf)
        abort();
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    /* parts end at NUL bytes; the last one at the end of the input */
    for (size_t i = 0, k = 0; k < NPARTS && i < size; k++) {
        part[k] = buf + i;
        i += strlen(buf + i) + 1;
    }
    const char *h = part[HIERARCHY] ? part[HIERARCHY] : "";
    const char *d = part[DISTANCES] ? part[DISTANCES] : "1";
    if (slots_estimate(h) > FUZZ_MAX_SLOTS) {
        free(buf);
        return -1;
    }
    cm_error_t err = {""};
    cm_tree_t *t = cm_tree_from_hierarchy(h, d, &err);
    if (!t) {
        cm_error_t e = {""};
        if (!err.msg[0] || (n >= 1 && cm_tree_from_hierarchy_restricted(h, d, n, NULL, 0, &e)))
            abort();
        free(buf);
        return 0;
    }
    check_tree(t);
    if (n >= 1)
        check_restricted(t, h, d, n);
    if (part[COSTS])
        check_costs(t, cm_tree_set_level_costs, part[COSTS]);
    if (part[LATENCIES])
        check_costs(t, cm_tree_set_level_latencies, part[LATENCIES]);
    if (part[BANDWIDTHS])
        check_costs(t, cm_tree_set_level_bandwidths, part[BANDWIDTHS]);
    cm_tree_free(t);
    free(buf);
    return 0;
}
