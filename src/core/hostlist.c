/* hostlist.c -- expanding Slurm hostlist expressions ("n[1-3,5],gpu01").
 *
 * Grammar: items separated by top-level commas; an item is text with any
 * number of bracket groups, each a comma list of numbers or ranges "lo-hi".
 * Several groups in one item combine as a cartesian product, the leftmost
 * varying slowest ("a[1-2]b[3-4]" -> a1b3 a1b4 a2b3 a2b4).  A range keeps the
 * width of its lower bound when that has leading zeros ("n[01-10]" -> n01 ..
 * n10), as Slurm does.  Output is bounded to CM_HOSTLIST_MAX names.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"

#define CM_HOSTLIST_MAX (1 << 20)
#define NAME_MAX_LEN 255

typedef struct names {
    char **v;
    int n, cap;
} names_t;

static int push(names_t *o, const char *s, const char *expr, cm_error_t *err)
{
    if (o->n >= CM_HOSTLIST_MAX)
        return cm_error_set(err, "hostlist '%.200s': more than %d names", expr,
                            CM_HOSTLIST_MAX);
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 16;
        char **v = realloc(o->v, (size_t)cap * sizeof *v);
        if (!v)
            return cm_error_set(err, "hostlist: out of memory");
        o->v = v;
        o->cap = cap;
    }
    if (!(o->v[o->n] = strdup(s)))
        return cm_error_set(err, "hostlist: out of memory");
    o->n++;
    return 0;
}

/* Parse an unsigned decimal at *p; its digit count goes to *width. */
static int number(const char **p, unsigned long *val, int *width)
{
    const char *s = *p;
    unsigned long v = 0;
    int w = 0;
    while (isdigit((unsigned char)*s)) {
        /* Leading zeros widen a number without raising its value, and the
         * width is printed into a 32-byte buffer (expand_item): "n[000...0]"
         * overflowed it (found by fuzz_hostlist). */
        if (v > 999999999UL || w >= 30)
            return -1;
        v = v * 10 + (unsigned long)(*s - '0');
        s++;
        w++;
    }
    if (w == 0)
        return -1;
    *p = s;
    *val = v;
    *width = w;
    return 0;
}

/* Expand item[pos..end) appending to prefix buf[0..blen). */
static int expand_item(const char *item, size_t pos, size_t end, char *buf,
                       size_t blen, names_t *o, const char *expr, cm_error_t *err)
{
    /* copy literal text up to the next '[' */
    while (pos < end && item[pos] != '[') {
        if (item[pos] == ']')
            return cm_error_set(err, "hostlist '%.200s': unexpected ']'", expr);
        if (blen >= NAME_MAX_LEN)
            return cm_error_set(err, "hostlist '%.200s': name longer than %d characters",
                                expr, NAME_MAX_LEN);
        buf[blen++] = item[pos++];
    }
    if (pos == end) {
        buf[blen] = '\0';
        return push(o, buf, expr, err);
    }
    const char *close = memchr(item + pos, ']', end - pos);
    if (!close)
        return cm_error_set(err, "hostlist '%.200s': '[' without ']'", expr);
    size_t after = (size_t)(close - item) + 1;
    const char *p = item + pos + 1;
    if (p == close)
        return cm_error_set(err, "hostlist '%.200s': empty brackets", expr);
    while (p < close) {
        unsigned long lo, hi;
        int wlo, whi;
        if (number(&p, &lo, &wlo) < 0)
            return cm_error_set(err, "hostlist '%.200s': expected a number in brackets at "
                                "'%.20s'", expr, p);
        hi = lo;
        if (*p == '-') {
            p++;
            if (number(&p, &hi, &whi) < 0)
                return cm_error_set(err, "hostlist '%.200s': expected a number after '-'",
                                    expr);
            if (hi < lo)
                return cm_error_set(err, "hostlist '%.200s': range %lu-%lu goes down",
                                    expr, lo, hi);
        }
        if (p < close && *p != ',')
            return cm_error_set(err, "hostlist '%.200s': expected ',' or ']' at '%.20s'",
                                expr, p);
        if (*p == ',') {
            p++;
            if (p == close)
                return cm_error_set(err, "hostlist '%.200s': empty range before ']'", expr);
        }
        if (hi - lo >= (unsigned long)CM_HOSTLIST_MAX)
            return cm_error_set(err, "hostlist '%.200s': more than %d names", expr,
                                CM_HOSTLIST_MAX);
        int width = wlo; /* "01" pads to 2; "1" or "10" pad to nothing */
        for (unsigned long k = lo; k <= hi; k++) {
            char digits[32];
            int len = snprintf(digits, sizeof digits, "%0*lu", width, k);
            if (blen + (size_t)len > NAME_MAX_LEN)
                return cm_error_set(err, "hostlist '%.200s': name longer than %d characters",
                                    expr, NAME_MAX_LEN);
            memcpy(buf + blen, digits, (size_t)len);
            if (expand_item(item, after, end, buf, blen + (size_t)len, o, expr, err) < 0)
                return -1;
        }
    }
    return 0;
}

int cm_hostlist_expand(const char *expr, char ***names, int *count, cm_error_t *err)
{
    if (!expr || !names || !count)
        return cm_error_set(err, "cm_hostlist_expand: NULL argument");
    *names = NULL;
    *count = 0;
    names_t o = {0};
    char buf[NAME_MAX_LEN + 1];
    size_t len = strlen(expr), start = 0;
    if (len == 0)
        return cm_error_set(err, "hostlist '': expected at least one name");
    int depth = 0;
    for (size_t i = 0; i <= len; i++) {
        char c = expr[i];
        if (c == '[') {
            if (depth++) {
                cm_error_set(err, "hostlist '%.200s': nested '['", expr);
                goto fail;
            }
        } else if (c == ']') {
            if (!depth--) {
                cm_error_set(err, "hostlist '%.200s': unexpected ']'", expr);
                goto fail;
            }
        } else if (isspace((unsigned char)c)) {
            cm_error_set(err, "hostlist '%.200s': unexpected white space", expr);
            goto fail;
        } else if ((c == ',' && depth == 0) || c == '\0') {
            if (depth) {
                cm_error_set(err, "hostlist '%.200s': '[' without ']'", expr);
                goto fail;
            }
            if (i == start) {
                cm_error_set(err, "hostlist '%.200s': empty name", expr);
                goto fail;
            }
            if (expand_item(expr, start, i, buf, 0, &o, expr, err) < 0)
                goto fail;
            start = i + 1;
        }
    }
    *names = o.v;
    *count = o.n;
    return 0;
fail:
    cm_hostlist_free(o.v, o.n);
    return -1;
}

void cm_hostlist_free(char **names, int count)
{
    if (!names)
        return;
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
}
