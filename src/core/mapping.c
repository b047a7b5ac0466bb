/* mapping.c -- checking, reading and writing rank -> slot mappings.
 *
 * A mapping file holds one 0-based slot per line, line i for rank i; blank
 * lines and lines starting with '#' are ignored, and a '#' after the number
 * starts a comment.  Writing goes through cm_file_atomic_open(): a
 * temporary file renamed over the target, so a reader (the SPANK plugin)
 * never sees a half-written mapping, and only ever over a regular file of
 * the caller. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "clustermap.h"

/* Longest line accepted in a mapping file: a slot number with some blanks
 * and a comment.  Longer lines are refused rather than silently split. */
#define MAPPING_LINE_MAX 1024

int cm_mapping_check(const cm_tree_t *t, const int *map, int n, cm_error_t *err)
{
    if (!t || !map)
        return cm_error_set(err, "mapping check: expected a tree and a map, got NULL");
    if (n < 1)
        return cm_error_set(err, "mapping check: expected at least 1 rank, got %d", n);
    int nslots = cm_tree_nslots(t);
    if (n > nslots)
        return cm_error_set(err, "mapping check: %d ranks but the tree has only %d slots",
                            n, nslots);
    /* owner[s] = rank on slot s, or -1. */
    int *owner = malloc((size_t)nslots * sizeof *owner);
    if (!owner)
        return cm_error_set(err, "mapping check: out of memory for %d slots", nslots);
    for (int s = 0; s < nslots; s++)
        owner[s] = -1;
    int rc = 0;
    for (int r = 0; r < n; r++) {
        int s = map[r];
        if (s < 0 || s >= nslots) {
            rc = cm_error_set(err, "mapping: rank %d is on slot %d, expected a slot in 0..%d",
                              r, s, nslots - 1);
            break;
        }
        if (owner[s] >= 0) {
            rc = cm_error_set(err, "mapping: rank %d is on slot %d, which rank %d already holds",
                              r, s, owner[s]);
            break;
        }
        owner[s] = r;
    }
    free(owner);
    return rc;
}

/* Parse one line.  Returns 1 and sets *slot for an entry, 0 for a blank or
 * comment line, -1 (with *what describing the problem) for garbage. */
static int parse_line(const char *line, int *slot, const char **what)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    if (*p == '\0' || *p == '#')
        return 0;
    if (*p < '0' || *p > '9') {
        *what = "a non-negative slot number";
        return -1;
    }
    errno = 0;
    char *end;
    long v = strtol(p, &end, 10);
    if (errno == ERANGE || v > INT_MAX) {
        *what = "a slot number below 2^31";
        return -1;
    }
    p = end;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    if (*p != '\0' && *p != '#') {
        *what = "one slot number per line";
        return -1;
    }
    *slot = (int)v;
    return 1;
}

int cm_mapping_read(const char *path, int n, int *map, cm_error_t *err)
{
    if (!path || !map)
        return cm_error_set(err, "mapping read: expected a path and a map, got NULL");
    if (n < 1)
        return cm_error_set(err, "%s: expected at least 1 rank, got n = %d", path, n);
    FILE *f = fopen(path, "r");
    if (!f)
        return cm_error_set(err, "%s: cannot open: %s", path, strerror(errno));

    char buf[MAPPING_LINE_MAX + 2];
    long lineno = 0;
    int count = 0, rc = 0;
    while (fgets(buf, sizeof buf, f)) {
        lineno++;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n') {
            rc = cm_error_set(err, "%s:%ld: expected a line of at most %d characters",
                              path, lineno, MAPPING_LINE_MAX);
            break;
        }
        int slot;
        const char *what = NULL;
        int k = parse_line(buf, &slot, &what);
        if (k < 0) {
            buf[strcspn(buf, "\r\n")] = '\0';
            rc = cm_error_set(err, "%s:%ld: expected %s, got \"%.40s\"", path, lineno,
                              what, buf);
            break;
        }
        if (k == 0)
            continue;
        if (count == n) {
            rc = cm_error_set(err, "%s:%ld: expected exactly %d entries (one per rank), "
                              "got more", path, lineno, n);
            break;
        }
        map[count++] = slot;
    }
    if (rc == 0 && ferror(f))
        rc = cm_error_set(err, "%s:%ld: read error: %s", path, lineno + 1, strerror(errno));
    if (rc == 0 && count < n)
        rc = cm_error_set(err, "%s:%ld: expected %d entries (one per rank), got %d",
                          path, lineno > 0 ? lineno : 1, n, count);
    fclose(f);
    return rc;
}

int cm_mapping_write(const char *path, const int *map, int n, cm_error_t *err)
{
    if (!path || !map)
        return cm_error_set(err, "mapping write: expected a path and a map, got NULL");
    if (n < 1)
        return cm_error_set(err, "%s: expected at least 1 rank, got n = %d", path, n);
    for (int r = 0; r < n; r++)
        if (map[r] < 0)
            return cm_error_set(err, "%s: rank %d has slot %d, expected a slot >= 0",
                                path, r, map[r]);

    cm_file_atomic_t *a = cm_file_atomic_open(path, err);
    if (!a)
        return -1;
    FILE *f = cm_file_atomic_stream(a);
    /* A failed fprintf leaves the stream's error flag, which fails the
     * commit: the target is then kept as it was. */
    for (int r = 0; r < n; r++)
        if (fprintf(f, "%d\n", map[r]) < 0)
            break;
    return cm_file_atomic_commit(a, err);
}

int cm_hostfile_write(const char *path, const cm_tree_t *t, const int *map,
                      int n, cm_error_t *err)
{
    if (!path || !t || !map)
        return cm_error_set(err, "hostfile write: expected a path, a tree and a map, "
                            "got NULL");
    if (cm_mapping_check(t, map, n, err) != 0)
        return -1;
    /* Every name first: a machine without node names writes nothing. */
    for (int r = 0; r < n; r++) {
        int node = cm_tree_slot_node(t, map[r]);
        const char *name = node < 0 ? NULL
                                    : cm_tree_vertex_label(t, cm_tree_node_vertex(t, node));
        if (!name || !*name)
            return cm_error_set(err, "%s: rank %d's slot %d is not on a named node "
                                "(a hostfile needs a machine with node names: "
                                "--slurm-conf, --hwloc-xml or --hwloc-live)",
                                path, r, map[r]);
    }
    cm_file_atomic_t *a = cm_file_atomic_open(path, err);
    if (!a)
        return -1;
    FILE *f = cm_file_atomic_stream(a);
    for (int r = 0; r < n; r++) {
        int node = cm_tree_slot_node(t, map[r]);
        if (fprintf(f, "%s\n", cm_tree_vertex_label(t, cm_tree_node_vertex(t, node))) < 0)
            break;
    }
    return cm_file_atomic_commit(a, err);
}
