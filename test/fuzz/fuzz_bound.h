/* fuzz_bound.h -- an upper estimate of how many names the hostlist
 * expressions in a fuzz input expand to, for fuzz_hostlist.c and
 * fuzz_slurmconf.c.
 *
 * cm_hostlist_expand() is bounded by design to 2^20 names, but 2^20 names
 * take about a second under ASan, and libFuzzer, which likes inputs whose
 * loops run long, then spends its time there (a few hundred executions a
 * second instead of tens of thousands).  The targets skip inputs above
 * FUZZ_MAX_NAMES; the 2^20 bound itself is checked exactly by
 * test/unit/test_hostlist.c (test_bound_exact).  A single range wider
 * than 2^20 ("n[0-999999999]") is refused before anything is expanded, so
 * it counts as one name here and keeps being fuzzed.
 *
 * The estimate works on any bytes: every run of text between blanks is
 * read as a hostlist; over-estimating only skips a few more inputs. */
#ifndef FUZZ_BOUND_H
#define FUZZ_BOUND_H

#include <ctype.h>
#include <stddef.h>

#define FUZZ_MAX_NAMES 4096UL
#define FUZZ_SATURATE (1UL << 40)

static inline unsigned long fuzz_sat_mul(unsigned long a, unsigned long b)
{
    return a && b > FUZZ_SATURATE / a ? FUZZ_SATURATE : a * b;
}

static inline unsigned long fuzz_sat_add(unsigned long a, unsigned long b)
{
    return a + b > FUZZ_SATURATE ? FUZZ_SATURATE : a + b;
}

/* Decimal at s[*i] (at most 12 digits read, the rest skipped). */
static inline unsigned long fuzz_number(const char *s, size_t n, size_t *i)
{
    unsigned long v = 0;
    int digits = 0;
    for (; *i < n && isdigit((unsigned char)s[*i]); (*i)++)
        if (digits++ < 12)
            v = v * 10 + (unsigned long)(s[*i] - '0');
    return v;
}

/* Names of the bracket group whose '[' is at s[*i]; *i ends past it. */
static inline unsigned long fuzz_group(const char *s, size_t n, size_t *i)
{
    unsigned long names = 0;
    for ((*i)++; *i < n && s[*i] != ']'; ) {
        if (!isdigit((unsigned char)s[*i])) {
            (*i)++;
            continue;
        }
        unsigned long lo = fuzz_number(s, n, i), hi = lo;
        if (*i < n && s[*i] == '-') {
            (*i)++;
            hi = fuzz_number(s, n, i);
        }
        /* refused at once when going down or wider than 2^20 */
        names = fuzz_sat_add(names, hi >= lo && hi - lo < (1UL << 20) ?
                             hi - lo + 1 : 1);
    }
    if (*i < n)
        (*i)++;
    return names ? names : 1;
}

/* Ends an item: nothing else does in cm_hostlist_expand(), which refuses
 * blanks, nor in tree_slurmconf.c, which splits lines at blanks only
 * ("NodeName=a[1-9]=b[1-9]" is one item of 81 names). */
static inline int fuzz_separator(char c)
{
    return c == ',' || isspace((unsigned char)c) || c == '\0';
}

/* Upper estimate of the names that the items with bracket groups, of all
 * hostlists in s[0..n), expand to.  Plain names are not counted: there are
 * never more of them than bytes in the input. */
static inline unsigned long fuzz_hostlist_names(const char *s, size_t n)
{
    unsigned long total = 0, item = 0;
    for (size_t i = 0; i < n; ) {
        if (s[i] == '[') {
            item = fuzz_sat_mul(item ? item : 1, fuzz_group(s, n, &i));
        } else {
            if (fuzz_separator(s[i])) {
                total = fuzz_sat_add(total, item);
                item = 0;
            }
            i++;
        }
    }
    return fuzz_sat_add(total, item);
}

#endif /* FUZZ_BOUND_H */
