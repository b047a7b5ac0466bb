/* fuzz_hostlist.c -- libFuzzer target for Slurm hostlist expansion
 * (cm_hostlist_expand, src/core/hostlist.c): node lists come from users
 * (--nodelist, topology.conf, slurm.conf) and from the environment.
 *
 * The input, up to its first NUL byte, is the expression.  Asserts, beyond
 * "no crash, no leak, no sanitizer report":
 *  - a refusal leaves *names NULL and *count 0 and carries a message;
 *  - an accepted expression yields exactly as many names as an independent
 *    count of it says (sum over the comma-separated items of the product,
 *    over the item's bracket groups, of the numbers the group lists), at
 *    least one and at most 2^20 (the bound that keeps "n[0-999999999]"
 *    from taking all memory);
 *  - every name is 1..255 characters with no blank, bracket or comma;
 *  - the first name is the item's text with every group's first number.
 * Inputs that would expand to more than FUZZ_MAX_NAMES names, plain ones
 * included, are skipped (fuzz_bound.h says why; test_hostlist.c checks the
 * 2^20 bound itself).
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"
#include "fuzz_bound.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NAMES (1 << 20)

/* Numbers listed by the bracket group starting after '[' at @p s: sum of
 * hi - lo + 1 over "lo[-hi]" pieces.  Only called on accepted expressions,
 * so the syntax is known to be right; saturates at MAX_NAMES + 1. */
static unsigned long group_count(const char *s)
{
    unsigned long total = 0;
    while (*s != ']') {
        unsigned long lo = strtoul(s, (char **)&s, 10), hi = lo;
        if (*s == '-')
            hi = strtoul(s + 1, (char **)&s, 10);
        total += hi - lo + 1;
        if (total > MAX_NAMES)
            return MAX_NAMES + 1;
        if (*s == ',')
            s++;
    }
    return total;
}

/* Names the accepted expression @p e stands for, saturating. */
static unsigned long expected_count(const char *e)
{
    unsigned long total = 0, item = 1;
    int depth = 0;
    for (const char *p = e;; p++) {
        if (*p == '[') {
            depth = 1;
            item *= group_count(p + 1);
            if (item > MAX_NAMES)
                item = MAX_NAMES + 1;
        } else if (*p == ']') {
            depth = 0;
        } else if ((*p == ',' && !depth) || !*p) {
            total += item;
            if (total > MAX_NAMES)
                total = MAX_NAMES + 1;
            item = 1;
            if (!*p)
                return total;
        }
    }
}

/* The first name of the first item: its text, each group replaced by the
 * first number of the group as written. */
static void expected_first(const char *e, char *out, size_t size)
{
    size_t k = 0;
    for (const char *p = e; *p && *p != ','; p++) {
        if (*p == '[') {
            for (p++; isdigit((unsigned char)*p); p++)
                if (k + 1 < size)
                    out[k++] = *p;
            p = strchr(p, ']');
        } else if (k + 1 < size) {
            out[k++] = *p;
        }
    }
    out[k] = '\0';
}

static void check_names(const char *expr, char **names, int count)
{
    if (!names || count < 1 || count > MAX_NAMES ||
        (unsigned long)count != expected_count(expr))
        abort();
    for (int i = 0; i < count; i++) {
        size_t len = strlen(names[i]);
        if (len < 1 || len > 255 || strpbrk(names[i], "[], \t\n\v\f\r"))
            abort();
    }
    char first[512];
    expected_first(expr, first, sizeof first);
    if (strcmp(first, names[0]))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *expr = malloc(size + 1);
    char **names = (char **)&names;   /* must be reset on failure */
    int count = -1;
    cm_error_t err = {""};

    if (!expr)
        abort();
    memcpy(expr, data, size);
    expr[size] = '\0';
    /* plain names count too here: 30000 of them in a 60 kB input cost
     * 10 ms, and libFuzzer grows its inputs to the limit */
    size_t items = 1;
    for (size_t k = 0; k < size; k++)
        items += expr[k] == ',';
    if (fuzz_hostlist_names(expr, size) + items > FUZZ_MAX_NAMES) {
        free(expr);
        return -1;   /* slow by design, see fuzz_bound.h: not in the corpus */
    }
    if (cm_hostlist_expand(expr, &names, &count, &err) < 0) {
        if (names || count != 0 || !err.msg[0])
            abort();
    } else {
        check_names(expr, names, count);
        cm_hostlist_free(names, count);
    }
    free(expr);
    return 0;
}
