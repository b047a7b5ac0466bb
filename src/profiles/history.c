/*
 * history.c -- the text of a profile's run history (docs/profile-format.md,
 * "Run history"): one header line, then one line per run, oldest first:
 *
 *     clustermap-runs 1
 *     JOBID WHEN default|placed HOW PROGRAM J_PLAN J_DEFAULT \
 *           ELAPSED_MAX ELAPSED_MEAN MPI_MAX MPI_MEAN
 *
 * The file lives in the user's own store directory and is written as the
 * user, but the guard's decision is read from it by srun: so every field is
 * checked as strictly as a profile's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

#define HEADER "clustermap-runs 1"
#define MAX_SECONDS 1e9
#define MAX_J 1e300

/* [A-Za-z0-9._:-]+ of at most @p max bytes (fields are space-separated). */
static int word_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == ':' ||
              c == '-'))
            return 0;
    }
    return 1;
}

int cm_run_check(const cm_run_t *r, cm_error_t *err)
{
    if (!r)
        return cm_error_set(err, "run: expected a run, got NULL");
    if (!word_ok(r->jobid, CM_PROFILE_MAX_JOBID))
        return cm_error_set(err, "field 'jobid': expected 1..%d characters "
                            "[A-Za-z0-9._:-], got '%s'", CM_PROFILE_MAX_JOBID,
                            r->jobid);
    if (r->when < 0)
        return cm_error_set(err, "field 'when': expected seconds since the "
                            "epoch, got %lld", (long long)r->when);
    if (r->placed != 0 && r->placed != 1)
        return cm_error_set(err, "field 'placed': expected 0 or 1, got %d",
                            r->placed);
    if (!word_ok(r->how, sizeof r->how - 1))
        return cm_error_set(err, "field 'how': expected 1..%zu characters "
                            "[A-Za-z0-9._:-] or '-', got '%s'",
                            sizeof r->how - 1, r->how);
    if (!word_ok(r->program, sizeof r->program - 1))
        return cm_error_set(err, "field 'program': expected 1..%zu characters "
                            "[A-Za-z0-9._:-] or '-', got '%s'",
                            sizeof r->program - 1, r->program);
    const double v[] = { r->j_plan, r->j_default, r->elapsed_max,
                         r->elapsed_mean, r->mpi_max, r->mpi_mean };
    static const char *const name[] = { "j_plan", "j_default", "elapsed_max",
                                        "elapsed_mean", "mpi_max", "mpi_mean" };
    for (int k = 0; k < 6; k++) {
        double hi = k < 2 ? MAX_J : MAX_SECONDS;
        if (!isfinite(v[k]) || v[k] < 0 || v[k] > hi)
            return cm_error_set(err, "field '%s': expected a number in 0..%g, "
                                "got %g", name[k], hi, v[k]);
    }
    if (r->elapsed_mean > r->elapsed_max * (1 + 1e-9) + 1e-9 ||
        r->mpi_mean > r->mpi_max * (1 + 1e-9) + 1e-9)
        return cm_error_set(err, "field 'elapsed_mean'/'mpi_mean': expected "
                            "at most the maximum");
    return 0;
}

/* A decimal number in the whole of @p s. */
static int number(const char *s, double *out)
{
    char *end;
    if (!*s || strspn(s, "0123456789.eE+-") != strlen(s))
        return -1;
    *out = strtod(s, &end);
    return *end ? -1 : 0;
}

static int parse_line(char *line, cm_run_t *r, const char *name, int lno,
                      cm_error_t *err)
{
    char *f[12], *save = NULL;
    int n = 0;
    for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save))
        if (n < 12)
            f[n++] = t;
        else
            n++;
    if (n != 11)
        return cm_error_set(err, "%s:%d: expected 11 fields (jobid when "
                            "default|placed how program j_plan j_default "
                            "elapsed_max elapsed_mean mpi_max mpi_mean), got %d",
                            name, lno, n);
    memset(r, 0, sizeof *r);
    if (strlen(f[0]) > CM_PROFILE_MAX_JOBID || strlen(f[3]) >= sizeof r->how ||
        strlen(f[4]) >= sizeof r->program)
        return cm_error_set(err, "%s:%d: expected shorter jobid, how and "
                            "program fields", name, lno);
    strcpy(r->jobid, f[0]);
    strcpy(r->how, f[3]);
    strcpy(r->program, f[4]);
    double when;
    if (number(f[1], &when) < 0 || when != floor(when) || when < 0 || when > 1e15)
        return cm_error_set(err, "%s:%d: field 'when': expected seconds since "
                            "the epoch, got '%s'", name, lno, f[1]);
    r->when = (int64_t)when;
    if (!strcmp(f[2], "placed"))
        r->placed = 1;
    else if (strcmp(f[2], "default"))
        return cm_error_set(err, "%s:%d: field 3: expected 'default' or "
                            "'placed', got '%s'", name, lno, f[2]);
    double *v[] = { &r->j_plan, &r->j_default, &r->elapsed_max,
                    &r->elapsed_mean, &r->mpi_max, &r->mpi_mean };
    for (int k = 0; k < 6; k++)
        if (number(f[5 + k], v[k]) < 0)
            return cm_error_set(err, "%s:%d: field %d: expected a number, got "
                                "'%s'", name, lno, 6 + k, f[5 + k]);
    cm_error_t e;
    if (cm_run_check(r, &e) < 0)
        return cm_error_set(err, "%s:%d: %s", name, lno, e.msg);
    return 0;
}

int cm_history_parse(const char *text, size_t len, const char *name,
                     cm_run_t *runs, int *count, cm_error_t *err)
{
    if (!count)
        return cm_error_set(err, "%s: expected a run count, got NULL", name);
    *count = 0;
    if (!text || !runs)
        return cm_error_set(err, "%s: expected a text and room for the runs, "
                            "got NULL", name);
    if (memchr(text, '\0', len))
        return cm_error_set(err, "%s: expected text, got a NUL byte", name);
    char *copy = malloc(len + 1);
    if (!copy)
        return cm_error_set(err, "%s: out of memory", name);
    memcpy(copy, text, len);
    copy[len] = '\0';
    int lno = 0, rc = 0, n = 0;
    char *save = NULL;
    if (len && copy[len - 1] != '\n')
        rc = cm_error_set(err, "%s: expected a newline at the end", name);
    for (char *line = strtok_r(copy, "\n", &save); rc == 0 && line;
         line = strtok_r(NULL, "\n", &save)) {
        lno++;
        if (lno == 1) {
            if (strcmp(line, HEADER))
                rc = cm_error_set(err, "%s:1: expected '" HEADER "', got "
                                  "'%.40s'", name, line);
            continue;
        }
        if (n == CM_HISTORY_MAX_RUNS)
            rc = cm_error_set(err, "%s:%d: expected at most %d runs", name,
                              lno, CM_HISTORY_MAX_RUNS);
        else if (parse_line(line, &runs[n], name, lno, err) == 0)
            n++;
        else
            rc = -1;
    }
    if (rc == 0 && lno == 0)
        rc = cm_error_set(err, "%s:1: expected '" HEADER "', got an empty file",
                          name);
    free(copy);
    if (rc == 0)
        *count = n;
    return rc;
}

char *cm_history_format(const cm_run_t *runs, int count, size_t *len,
                        cm_error_t *err)
{
    if (count < 0 || (count > 0 && !runs)) {
        cm_error_set(err, "run history: expected 0 or more runs, got %d%s",
                     count, runs ? "" : " and NULL");
        return NULL;
    }
    size_t cap = 32 + (size_t)count * 512, used;
    char *text = malloc(cap);
    if (!text) {
        cm_error_set(err, "out of memory");
        return NULL;
    }
    used = (size_t)snprintf(text, cap, HEADER "\n");
    for (int k = 0; k < count; k++) {
        const cm_run_t *r = &runs[k];
        if (cm_run_check(r, err) < 0) {
            free(text);
            return NULL;
        }
        /* A mean the check lets pass a hair above its maximum is written
         * as the maximum: rounding both to 6 decimals is monotonic, so the
         * text never has a mean above its maximum, which the parser
         * would refuse. */
        used += (size_t)snprintf(text + used, cap - used,
                                 "%s %lld %s %s %s %.17g %.17g %.6f %.6f %.6f "
                                 "%.6f\n", r->jobid, (long long)r->when,
                                 r->placed ? "placed" : "default", r->how,
                                 r->program, r->j_plan, r->j_default,
                                 r->elapsed_max, fmin(r->elapsed_mean, r->elapsed_max),
                                 r->mpi_max, fmin(r->mpi_mean, r->mpi_max));
    }
    if (len)
        *len = used;
    return text;
}
