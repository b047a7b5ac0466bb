/*
 * mpirun_record.c -- recording an mpirun run: what the srun of mpirun's
 * daemons decided (srun_step.c writes it), and the run put together after
 * mpirun has returned (clustermap's mpirun, src/mpirun/, reads it).
 *
 * Open MPI 5's and 6's mpirun do not wait for that srun to end, and the
 * batch script may end right after mpirun: so the launcher that started
 * mpirun, which outlives it, records the run, not srun.  The run's staging
 * directory (in the user's store directory, shared by the nodes) holds the
 * ranks' parts and tnbc traces, named by world rank, the control file the
 * ranks read ("traffic", "time" or, for a run neither profiled nor timed,
 * "off"; then "prio=<prefix>" when they run tnbc and the profile has a
 * trace: overlay_trace.c) and "record", one "key=value" per line:
 *
 *   store=<store root>  profile=<key>  ntasks=<n>  step=<jobid>.<mpirun pid>
 *   weight=<merge weight>  max_bytes=<max_profile_size>
 *   verbose=0|1|2 (the user's lines: none, errors, all)
 *   run=<placed|default|other TRAFFIC HOW J_PLAN J_DEFAULT>
 *
 * The step is named by mpirun's pid: the daemons' step id is not known
 * when srun decides.  Everything here runs as the user, on the user's own
 * files; the record is read as untrusted text all the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm_store.h"
#include "launch.h"

#define RECORD_MAX 8192

/* "<stage>/<name>" into @p path (@p size bytes): 0, or -1 when it does not
 * fit -- a cut path would name another file. */
static int stage_path(char *path, size_t size, const char *stage, const char *name)
{
    int n = snprintf(path, size, "%s/%s", stage, name);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

int cmp_mpirun_control_write(const char *stage, const char *mode, const char *prio,
                             cm_error_t *err)
{
    char path[CMP_PATH_MAX + 16];
    if (!stage || !mode)
        return cm_error_set(err, "mpirun's control file: expected the stage "
                            "and the mode, got NULL");
    if (stage_path(path, sizeof path, stage, "control") < 0)
        return cm_error_set(err, "mpirun's stage '%.100s...': longer than %d "
                            "bytes", stage, CMP_PATH_MAX);
    cm_file_atomic_t *a = cm_file_atomic_open(path, err);
    if (!a)
        return -1;
    fprintf(cm_file_atomic_stream(a), "%s\n", mode);
    if (prio && *prio)
        fprintf(cm_file_atomic_stream(a), "prio=%s\n", prio);
    return cm_file_atomic_commit(a, err);
}

int cmp_mpirun_record_write(const char *stage, const cmp_mpirun_record_t *r,
                            int traffic, const char *prio, cm_error_t *err)
{
    char path[CMP_PATH_MAX + 16];
    if (!stage || !r)
        return cm_error_set(err, "mpirun's record: expected the stage and the "
                            "record, got NULL");
    if (stage_path(path, sizeof path, stage, "record") < 0)
        return cm_error_set(err, "mpirun's stage '%.100s...': longer than %d "
                            "bytes", stage, CMP_PATH_MAX);
    cm_file_atomic_t *a = cm_file_atomic_open(path, err);
    if (!a)
        return -1;
    fprintf(cm_file_atomic_stream(a), "store=%s\nprofile=%s\nntasks=%d\nstep=%s\n"
            "weight=%.17g\nmax_bytes=%zu\nverbose=%d\nrun=%s\n", r->store, r->key,
            r->ntasks, r->step, r->weight, r->max_bytes, r->verbose, r->run);
    if (cm_file_atomic_commit(a, err) < 0)
        return -1;
    /* the ranks read the control file when they start: last */
    return cmp_mpirun_control_write(stage, traffic ? "traffic" : "time", prio, err);
}

/* "key=value" lines of @p text into @p r.  0, or -1 with @p err. */
static int record_parse(char *text, cmp_mpirun_record_t *r, cm_error_t *err)
{
    int seen = 0;
    char *save = NULL;
    memset(r, 0, sizeof *r);
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *v = strchr(line, '=');
        if (!v)
            return cm_error_set(err, "record: expected key=value, got '%.60s'", line);
        *v++ = '\0';
        char *end = NULL;
        int ok = 1;
        if (!strcmp(line, "store"))
            ok = snprintf(r->store, sizeof r->store, "%s", v) < (int)sizeof r->store &&
                 v[0] == '/';
        else if (!strcmp(line, "profile"))
            ok = v[0] && snprintf(r->key, sizeof r->key, "%s", v) < (int)sizeof r->key;
        else if (!strcmp(line, "ntasks"))
            ok = cmp_parse_int(v, 1 << 24, &r->ntasks) == 0;
        else if (!strcmp(line, "step"))
            ok = v[0] && snprintf(r->step, sizeof r->step, "%s", v) < (int)sizeof r->step;
        else if (!strcmp(line, "weight"))
            ok = (r->weight = strtod(v, &end)) > 0 && r->weight <= 1 && end && !*end;
        else if (!strcmp(line, "max_bytes"))
            ok = (r->max_bytes = strtoull(v, &end, 10)) > 0 && end && !*end;
        else if (!strcmp(line, "verbose"))
            ok = cmp_parse_int(v, 2, &r->verbose) == 0 || !strcmp(v, "0");
        else if (!strcmp(line, "run"))
            ok = snprintf(r->run, sizeof r->run, "%s", v) < (int)sizeof r->run;
        else
            continue;   /* a later version's: ignored */
        if (!ok)
            return cm_error_set(err, "record: bad %s '%.60s'", line, v);
        seen++;
    }
    return seen >= 7 ? 0 : cm_error_set(err, "record: incomplete");
}

int cmp_mpirun_record_collect(const char *stage, int status, char *msg, size_t n,
                              int *verbose)
{
    char path[CMP_PATH_MAX + 16], detail[256], text[RECORD_MAX + 1];
    cmp_mpirun_record_t r;
    cm_error_t err;
    cm_run_t run;
    int traffic, res = -1, ignored;
    char none[8];
    if (!verbose)
        verbose = &ignored;
    if (!msg || !n) {
        msg = none;   /* the caller does not want the line */
        n = sizeof none;
    }
    *verbose = 0;
    if (!stage) {
        snprintf(msg, n, "the run of mpirun is not recorded: no stage (NULL)");
        return -1;
    }
    if (stage_path(path, sizeof path, stage, "record") < 0) {
        snprintf(msg, n, "the run of mpirun is not recorded: its stage "
                 "'%.100s...' is longer than %d bytes", stage, CMP_PATH_MAX);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;   /* srun did not mark the run: nothing to record */
    ssize_t len = read(fd, text, RECORD_MAX);
    close(fd);
    text[len > 0 ? len : 0] = '\0';
    if (record_parse(text, &r, &err) < 0) {
        snprintf(msg, n, "the run of mpirun is not recorded: %s", err.msg);
        return -1;
    }
    *verbose = r.verbose;
    if (status != 0) {   /* the parts stay in the stage, which goes */
        size_t nlen;
        cm_profile_key_program(r.key, &nlen);
        snprintf(msg, n, "mpirun failed (exit code %d): the run of '%.*s' is not "
                 "recorded", status, (int)nlen, r.key);
        return CM_STEP_REFUSED;
    }
    int has_run = cmp_run_parse(r.run, r.step, &run, &traffic);
    cm_store_t *st = cm_store_open(r.store, getuid(), 0, r.max_bytes, &err);
    int dir = st ? open(stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (st && dir < 0)
        cm_error_set(&err, "%s: %s", stage, strerror(errno));
    for (int k = 0; dir >= 0 && k < r.ntasks; k++) {
        int pfd;
        cm_part_status_t ps = cmp_part_find(dir, k, &pfd, detail, sizeof detail);
        if (ps == CM_PART_OK)   /* its tnbc trace, before the part */
            cmp_trace_put(st, r.step, dir, k);
        if (cm_store_part_put(st, r.step, k, ps, pfd, detail, &err) < 0)
            cm_store_part_put(st, r.step, k, CM_PART_MISSING, -1, err.msg, &err);
        if (pfd >= 0)
            close(pfd);
    }
    if (dir >= 0) {
        res = cm_store_part_close(st, r.step, r.key, r.ntasks, r.weight,
                                  has_run ? &run : NULL, msg, n, &err);
        close(dir);
    }
    if (res < 0)
        snprintf(msg, n, "the run of mpirun is not recorded: %s", err.msg);
    cm_store_close(st);
    return res;
}
