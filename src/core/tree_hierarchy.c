/* tree_hierarchy.c -- machine tree from a VieM/KaHIP "a1:a2:...:ak" hierarchy.
 *
 * a1 slots per innermost group, a2 innermost groups per level-2 group, ...,
 * ak level-(k-1) groups in the single top group, which is the root.  The
 * groups are named, innermost first, socket, node, switch, group4, group5 ...
 * (a single entry names its group "node") and carry the matching distance as
 * byte cost.  Vertices are added level by level in order, so slot p sits in
 * innermost group p / a1 and nodes are numbered left to right.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"

#define HIER_MAX_LEVELS 32
#define HIER_MAX_SLOTS (1L << 24)

/* Split "x:y:z" into at most HIER_MAX_LEVELS non-empty fields. */
static int split(const char *what, const char *s, char fields[][64], int *n,
                 cm_error_t *err)
{
    *n = 0;
    if (!s || !*s)
        return cm_error_set(err, "%s: expected a ':'-separated list, got an empty string",
                            what);
    const char *p = s;
    for (;;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        if (len == 0)
            return cm_error_set(err, "%s '%s': field %d is empty", what, s, *n + 1);
        if (len >= 64)
            return cm_error_set(err, "%s '%s': field %d is too long", what, s, *n + 1);
        if (*n >= HIER_MAX_LEVELS)
            return cm_error_set(err, "%s '%s': more than %d fields", what, s,
                                HIER_MAX_LEVELS);
        memcpy(fields[*n], p, len);
        fields[*n][len] = '\0';
        (*n)++;
        if (!colon)
            return 0;
        p = colon + 1;
    }
}

static const char *group_name(int i, int k, char *buf, size_t size)
{
    static const char *names[] = {"socket", "node", "switch"};
    if (k == 1)
        return "node";
    if (i < 3)
        return names[i];
    snprintf(buf, size, "group%d", i + 1);
    return buf;
}

cm_tree_t *cm_tree_from_hierarchy(const char *hierarchy, const char *distances,
                                  cm_error_t *err)
{
    char hf[HIER_MAX_LEVELS][64], df[HIER_MAX_LEVELS][64];
    int k, kd;
    long a[HIER_MAX_LEVELS];
    double d[HIER_MAX_LEVELS];
    if (split("hierarchy", hierarchy, hf, &k, err) < 0 ||
        split("distances", distances, df, &kd, err) < 0)
        return NULL;
    if (k != kd) {
        cm_error_set(err, "hierarchy '%s' has %d levels but distances '%s' has %d",
                     hierarchy, k, distances, kd);
        return NULL;
    }
    long total = 1;
    for (int i = 0; i < k; i++) {
        char *end;
        a[i] = strtol(hf[i], &end, 10);
        if (*end || hf[i][0] == '-' || hf[i][0] == '+') {
            cm_error_set(err, "hierarchy '%s': field %d: expected a positive integer, got '%s'",
                         hierarchy, i + 1, hf[i]);
            return NULL;
        }
        if (a[i] <= 0) {
            cm_error_set(err, "hierarchy '%s': field %d: expected a positive integer, got %s",
                         hierarchy, i + 1, hf[i]);
            return NULL;
        }
        if (a[i] > HIER_MAX_SLOTS || total * a[i] > HIER_MAX_SLOTS) {
            cm_error_set(err, "hierarchy '%s': more than %ld slots", hierarchy,
                         HIER_MAX_SLOTS);
            return NULL;
        }
        total *= a[i];
        d[i] = strtod(df[i], &end);
        if (*end || !isfinite(d[i]) || d[i] < 0) {
            cm_error_set(err, "distances '%s': field %d: expected a finite number >= 0, got '%s'",
                         distances, i + 1, df[i]);
            return NULL;
        }
    }

    cm_tree_t *t = cm_tree_new();
    if (!t) {
        cm_error_set(err, "hierarchy: out of memory");
        return NULL;
    }
    char buf[32];
    /* Levels root first: group k (the root) ... group 1, then the slots. */
    for (int i = k - 1; i >= 0; i--)
        if (cm_tree_add_level(t, group_name(i, k, buf, sizeof buf), d[i], 0.0, err) < 0)
            goto fail;
    if (cm_tree_add_level(t, "core", 0.0, 0.0, err) < 0)
        goto fail;

    /* Level by level: vertices of the previous level are a contiguous id
     * range [first, first + count). */
    int first = cm_tree_add_vertex(t, -1, 0, NULL, err);
    if (first < 0)
        goto fail;
    long count = 1;
    for (int lv = 1; lv <= k; lv++) {
        long fan = a[k - lv]; /* children per vertex of level lv - 1 */
        int next = -1;
        for (long v = 0; v < count; v++)
            for (long c = 0; c < fan; c++) {
                int id = cm_tree_add_vertex(t, first + (int)v, lv, NULL, err);
                if (id < 0)
                    goto fail;
                if (next < 0)
                    next = id;
            }
        first = next;
        count *= fan;
    }
    if (cm_tree_finalize(t, err) < 0)
        goto fail;
    return t;
fail:
    cm_tree_free(t);
    return NULL;
}
