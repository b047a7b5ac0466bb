/*
 * store_parts.c -- a profiled step's parts, put together in the store.
 *
 * The profiling library has no collective of its own: each rank writes its
 * part on its node, and each node's slurmstepd (as the user, at the step's
 * end) delivers, for every task it ran, the part and a status into the
 * staging directory "<user dir>/.step.<jobid>.<stepid>/":
 *     <task>.part   the rank's raw profile part (format 2), when it has one
 *     <task>.st     "ok", "nompi", "failed <detail>" or "missing <detail>"
 * Both are written to a temporary name and renamed, the status last, so a
 * status that is there is complete.  The node that completes the set of
 * statuses (under a lock on the staging directory) decides for the whole
 * step: all ok -> assemble and merge; any failed -> not recorded; none
 * called MPI -> mark the job as not using MPI; otherwise (parts missing) ->
 * not recorded, saying how many.  No node ever waits for another: a node
 * that never reports leaves an incomplete set, which the job epilog drops
 * (cm_store_part_drop) with a line saying so.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_internal.h"
#include "raw.h"

#define STAGE_PREFIX ".step."
#define STATUS_MAX 256

static const char *const status_word[] = { "ok", "nompi", "failed", "missing" };

/* A step key is "<jobid>.<stepid>": digits and dots only, so that it can
 * never name anything outside the staging directory. */
static int check_step(const char *step, cm_error_t *err)
{
    size_t n = step ? strlen(step) : 0;
    if (n == 0 || n > 64 || strspn(step, "0123456789.") != n || step[0] == '.')
        return cm_error_set(err, "step key: expected <jobid>.<stepid>, got "
                            "'%s'", step ? step : "(null)");
    return 0;
}

int cm_store_stage_open(cm_store_t *s, const char *step, int create,
                        cm_error_t *err)
{
    char name[96];
    int dfd = cm_store_dirfd(s);
    if (check_step(step, err) < 0)
        return -1;
    if (dfd < 0)
        return cm_error_set(err, "%s: no profile directory", cm_store_dir(s));
    snprintf(name, sizeof name, STAGE_PREFIX "%s", step);
    if (create && mkdirat(dfd, name, 0700) < 0 && errno != EEXIST)
        return cm_error_set(err, "%s/%s: cannot create: %s", cm_store_dir(s),
                            name, strerror(errno));
    /* the writer's own: every node writes into it as the user */
    cm_file_want_t want = { 1, geteuid(), 077 };
    int fd = cm_file_open_at(dfd, name, name, &want, NULL);
    if (fd < 0) {
        int e = errno;
        if (e == EPERM)
            cm_error_set(err, "%s/%s: not a private directory of uid %lu",
                         cm_store_dir(s), name, (unsigned long)geteuid());
        else
            cm_error_set(err, "%s/%s: cannot open: %s", cm_store_dir(s), name,
                         strerror(e));
        errno = e;
    }
    return fd;
}

int cm_store_put_file(int dirfd, const char *name, int src, const char *text,
                      size_t max_bytes, cm_error_t *err)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, ".tmp.%s.%ld", name, (long)getpid());
    /* A new file, never one found there (a hard link to another file
     * would be truncated and written). */
    if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
        return cm_error_set(err, "%s: cannot remove: %s", tmp, strerror(errno));
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                    O_CLOEXEC, 0600);
    if (fd < 0)
        return cm_error_set(err, "%s: cannot create: %s", tmp, strerror(errno));
    size_t done = 0;
    int bad = 0;
    char buf[65536];
    for (;;) {
        ssize_t k;
        if (src >= 0) {
            k = read(src, buf, sizeof buf);
        } else {
            k = (ssize_t)strlen(text + done);
            if (k > (ssize_t)sizeof buf)   /* a long text in pieces */
                k = (ssize_t)sizeof buf;
            if (k)
                memcpy(buf, text + done, (size_t)k);
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            bad = k < 0;
            break;
        }
        if (done + (size_t)k > max_bytes) {
            errno = EFBIG;
            bad = 1;
            break;
        }
        if (write(fd, buf, (size_t)k) != k) {
            bad = 1;
            break;
        }
        done += (size_t)k;
    }
    int e = errno;
    if (close(fd) < 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && renameat(dirfd, tmp, dirfd, name) < 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlinkat(dirfd, tmp, 0);
        return cm_error_set(err, "%s: cannot write: %s", name,
                            e == EFBIG ? "larger than the profile size bound"
                                       : strerror(e));
    }
    return 0;
}

int cm_store_part_put(cm_store_t *s, const char *step, int task,
                      cm_part_status_t status, int fd, const char *detail,
                      cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    char name[32], text[STATUS_MAX];
    if (check_step(step, err) < 0)
        return -1;
    if (task < 0 || task >= CM_PROFILE_MAX_TASKS || status < CM_PART_OK ||
        status > CM_PART_MISSING)
        return cm_error_set(err, "task %d, status %d: out of range", task,
                            (int)status);
    int dir = cm_store_stage_open(s, step, 1, err);
    if (dir < 0)
        return -1;
    int rc = 0;
    if (status == CM_PART_OK) {
        struct stat st;
        snprintf(name, sizeof name, "%d.part", task);
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
            rc = cm_error_set(err, "task %d: its part is not a regular file",
                              task);
        else if ((unsigned long long)st.st_size > cm_store_max_bytes(s))
            rc = cm_error_set(err, "task %d: its part is %lld bytes, more than "
                              "the bound of %zu", task, (long long)st.st_size,
                              cm_store_max_bytes(s));
        else
            rc = cm_store_put_file(dir, name, fd, NULL, cm_store_max_bytes(s), err);
    }
    if (rc == 0) {
        snprintf(name, sizeof name, "%d.st", task);
        snprintf(text, sizeof text, "%s%s%s\n", status_word[status],
                 detail && *detail ? " " : "", detail ? detail : "");
        for (char *c = text; *c && c[1]; c++)   /* one line, printable */
            if (*c < 0x20 || *c > 0x7e)
                *c = '?';
        rc = cm_store_put_file(dir, name, -1, text, STATUS_MAX, err);
    }
    close(dir);
    return rc;
}

/* Read "<task>.st" of @p dir into @p text (without the newline). */
static int read_status(int dir, const char *name, char *text, size_t n)
{
    static const cm_file_want_t any_file = { 0, CM_FILE_ANY_OWNER, 0 };
    int fd = cm_file_open_at(dir, name, name, &any_file, NULL);
    if (fd < 0)
        return -1;
    ssize_t k = read(fd, text, n - 1);
    close(fd);
    if (k <= 0)
        return -1;
    text[k] = '\0';
    text[strcspn(text, "\n")] = '\0';
    return 0;
}

/* The staging directory's tasks: statuses into @p st[ntasks] (-1 = not
 * reported) and the detail of the first bad one.  Returns the count. */
static int scan(int dir, int ntasks, signed char *st, char *detail, size_t n,
                int *detail_task)
{
    int fd = dup(dir), count = 0;
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    memset(st, -1, (size_t)ntasks);
    *detail_task = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end, text[STATUS_MAX];
        long t = strtol(e->d_name, &end, 10);
        if (end == e->d_name || strcmp(end, ".st") || t < 0 || t >= ntasks ||
            st[t] >= 0 || read_status(dir, e->d_name, text, sizeof text) < 0)
            continue;
        size_t w = strcspn(text, " ");
        for (int k = 0; k <= CM_PART_MISSING; k++)
            if (strlen(status_word[k]) == w && !strncmp(text, status_word[k], w))
                st[t] = (signed char)k;
        if (st[t] < 0)
            continue;
        count++;
        if (st[t] != CM_PART_OK && st[t] != CM_PART_NOMPI &&
            (*detail_task < 0 || st[t] == CM_PART_FAILED)) {
            *detail_task = (int)t;
            snprintf(detail, n, "%s", text[w] ? text + w + 1 : text);
        }
    }
    closedir(d);
    return count;
}

DIR *cm_store_list_dir(int dir)
{
    int fd = dup(dir);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d && fd >= 0)
        close(fd);
    if (d)
        rewinddir(d);
    return d;
}

void cm_store_dir_remove(int parent, int dir, const char *name)
{
    DIR *d = cm_store_list_dir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlinkat(dir, e->d_name, 0);
        closedir(d);
    }
    unlinkat(parent, name, AT_REMOVEDIR);
}

/* Remove every file of the staging directory and the directory. */
static void stage_remove(cm_store_t *s, int dir, const char *step)
{
    char name[96];
    snprintf(name, sizeof name, STAGE_PREFIX "%s", step);
    cm_store_dir_remove(cm_store_dirfd(s), dir, name);
}

/* The program of the profile's last recorded run ("" when unknown). */
static void last_program(cm_store_t *s, const char *job_name, int ntasks,
                         char *out, size_t n)
{
    cm_run_t *runs = malloc(CM_HISTORY_MAX_RUNS * sizeof *runs);
    int count = 0;
    cm_error_t ignored;
    out[0] = '\0';
    if (runs && cm_store_history_load(s, job_name, ntasks, runs, &count,
                                      &ignored) == 0 && count > 0 &&
        strcmp(runs[count - 1].program, "-"))
        snprintf(out, n, "%s", runs[count - 1].program);
    free(runs);
}

/* The run's history record from the assembled parts and srun's @p info. */
static void make_run(const cm_raw_profile_t *raw, const cm_run_t *info,
                     const char *step, time_t now, cm_run_t *r)
{
    *r = *info;
    snprintf(r->jobid, sizeof r->jobid, "%s", step);
    r->when = (int64_t)now;
    snprintf(r->program, sizeof r->program, "%s", raw->program[0] ? raw->program
                                                                  : "-");
    r->elapsed_max = raw->elapsed_max;
    r->elapsed_mean = raw->elapsed_sum / raw->nranks;
    r->mpi_max = raw->mpi_max;
    r->mpi_mean = raw->mpi_sum / raw->nranks;
    if (r->mpi_mean > r->mpi_max)
        r->mpi_mean = r->mpi_max;   /* rounding */
    if (r->elapsed_mean > r->elapsed_max)
        r->elapsed_mean = r->elapsed_max;
}

/* All parts present: assemble, merge the traffic (unless the run was only
 * timed) and add the run to the history (when srun said how it was placed
 * and every rank timed it).  A run of another program than the profile's
 * last one starts the profile again instead of blending two programs.
 * Profile, history and trace change in one transaction: one take of the
 * store's lock, so that a reader never sees the history of a new program
 * beside the profile of the old one, and the run waits for other writers
 * once.  0 or -1; @p what says what was recorded. */
static int record(cm_store_t *s, int dir, const char *job_name, int ntasks,
                  double weight, const cm_run_t *info, const char *step,
                  const char *shown, char *what, size_t wsize, cm_error_t *err)
{
    cm_raw_assembly_t *a = cm_raw_assembly_new(ntasks, err);
    if (!a)
        return -1;
    int rc = 0;
    for (int t = 0; rc == 0 && t < ntasks; t++) {
        char name[32];
        snprintf(name, sizeof name, "%d.part", t);
        int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
                        O_CLOEXEC);
        if (fd < 0) {
            rc = cm_error_set(err, "task %d: part: %s", t, strerror(errno));
            break;
        }
        rc = cm_raw_assembly_add_fd(a, fd, name, cm_store_max_bytes(s), err);
        close(fd);
    }
    cm_raw_profile_t raw;
    time_t now = time(NULL);
    if (rc != 0 || (rc = cm_raw_assembly_finish(a, &raw, err)) != 0) {
        cm_raw_assembly_free(a);
        return -1;
    }
    cm_raw_assembly_free(a);
    /* the traces' own work (every file read and rewritten) before the lock */
    cm_trace_staged_t traces;
    cm_store_trace_stage(s, dir, job_name, ntasks, &traces);
    char before[128], note[300] = "";
    long runs = 0;
    cm_error_t no_lock = { "" };
    int lock = cm_store_lock_take(s, &no_lock);
    last_program(s, job_name, ntasks, before, sizeof before);
    int changed = before[0] && raw.program[0] && strcmp(before, raw.program);
    int timed = raw.ntimed == ntasks && info && !(changed && !raw.traffic);
    if (lock < 0 && (raw.traffic || timed)) {
        cm_error_set(err, "%s", no_lock.msg);
        cm_raw_release(&raw);
        return -1;
    }
    if (changed) {
        cm_error_t ignored;
        if (lock >= 0) {
            cm_store_history_reset_locked(s, job_name, ntasks, &ignored);
            if (!raw.traffic)
                cm_store_delete_locked(s, job_name, ntasks, &ignored);
        }
        snprintf(note, sizeof note, "; the program changed from %s to %s, so "
                 "the profile starts again", before, raw.program);
    }
    if (raw.traffic) {
        cm_profile_t *run = cm_profile_from_raw(&raw, cm_store_uid(s),
                                                cm_store_user(s), job_name,
                                                now, err);
        rc = !run ? -1 : changed ? cm_store_save_locked(s, run, err)
                                 : cm_store_merge_locked(s, run, weight, 0, now,
                                                         &runs, err);
        if (rc == 0 && changed)
            runs = 1;
        cm_profile_free(run);
    }
    cm_run_t r;
    if (rc == 0 && timed) {
        make_run(&raw, info, step, now, &r);
        rc = cm_store_history_add_locked(s, job_name, ntasks, &r, err);
    }
    if (rc == 0 && raw.traffic)
        snprintf(what, wsize, "recorded the run in the profile of '%s' with %d "
                 "tasks (runs=%ld%s%s)%s", shown, ntasks, runs,
                 timed ? ", " : "", timed ? (info->placed ? "placed" : "Slurm's "
                 "default") : "", note);
    else if (rc == 0 && timed)
        snprintf(what, wsize, "recorded the run's time in the history of '%s' "
                 "with %d tasks (%.3f s, %s)", shown, ntasks, r.elapsed_max,
                 info->placed ? "placed" : "Slurm's default");
    else if (rc == 0)
        snprintf(what, wsize, "the run of '%s' with %d tasks was not timed by "
                 "every rank: nothing recorded%s", shown, ntasks, note);
    if (rc == 0)   /* the tnbc traces of the run, when it sent them */
        cm_store_trace_keep_locked(s, dir, ntasks, &traces, changed,
                                   lock < 0 ? no_lock.msg : NULL, what, wsize);
    cm_store_lock_release(lock);
    cm_raw_release(&raw);
    return rc;
}

/* ".result.<step>": the outcome, one line, for srun to show its user. */
static void write_result(cm_store_t *s, const char *step, int rc,
                         const char *msg)
{
    static const char *const word[] = { "pending", "recorded", "nompi",
                                        "refused" };
    char name[96], text[STATUS_MAX + 600];
    snprintf(name, sizeof name, ".result.%s", step);
    snprintf(text, sizeof text, "%s %s\n", word[rc], msg);
    cm_store_put_file(cm_store_dirfd(s), name, -1, text, sizeof text, NULL);
}

int cm_store_part_result(cm_store_t *s, const char *step, char *msg,
                         size_t msgsize)
{
    char name[96], text[STATUS_MAX + 600];
    int dfd = cm_store_dirfd(s);
    if (!msg || !msgsize)
        return 0;
    msg[0] = '\0';
    if (dfd < 0 || check_step(step, NULL) < 0)
        return 0;
    snprintf(name, sizeof name, ".result.%s", step);
    if (read_status(dfd, name, text, sizeof text) < 0)
        return 0;
    unlinkat(dfd, name, 0);
    size_t w = strcspn(text, " ");
    snprintf(msg, msgsize, "%s", text[w] ? text + w + 1 : "");
    return !strncmp(text, "recorded", w) ? CM_STEP_RECORDED
         : !strncmp(text, "nompi", w) ? CM_STEP_NOMPI : CM_STEP_REFUSED;
}

int cm_store_part_close(cm_store_t *s, const char *step, const char *job_name,
                        int ntasks, double weight, const cm_run_t *info,
                        char *msg, size_t msgsize, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    if (!msg || !msgsize)
        return cm_error_set(err, "store: expected a message buffer, got NULL");
    msg[0] = '\0';
    if (check_step(step, err) < 0)
        return -1;
    if (!job_name)
        return cm_error_set(err, "store: expected a job name, got NULL");
    /* Messages name the job as its user knows it, not the program key. */
    char shown[CM_PROFILE_MAX_NAME + 1];
    size_t nlen;
    cm_profile_key_program(job_name, &nlen);
    snprintf(shown, sizeof shown, "%.*s", (int)nlen, job_name);
    if (ntasks < 1 || ntasks > CM_PROFILE_MAX_TASKS)
        return cm_error_set(err, "task count %d out of range", ntasks);
    int dir = cm_store_stage_open(s, step, 0, err);
    if (dir < 0)
        return errno == ENOENT ? CM_STEP_PENDING : -1;
    signed char *st = malloc((size_t)ntasks);
    if (!st) {
        close(dir);
        return cm_error_set(err, "out of memory");
    }
    while (flock(dir, LOCK_EX) < 0 && errno == EINTR)
        ;
    struct stat ds;
    char detail[STATUS_MAX] = "";
    int dtask, rc = CM_STEP_PENDING;
    /* Removed by the node that completed the set while we waited. */
    if (fstat(dir, &ds) < 0 || ds.st_nlink == 0 ||
        scan(dir, ntasks, st, detail, sizeof detail, &dtask) < ntasks)
        goto out;
    int nompi = 0, ok = 0;
    for (int t = 0; t < ntasks; t++) {
        nompi += st[t] == CM_PART_NOMPI;
        ok += st[t] == CM_PART_OK;
    }
    if (dtask >= 0 && st[dtask] == CM_PART_FAILED) {
        snprintf(msg, msgsize, "task %d failed (%s): the run of '%s' is not "
                 "recorded", dtask, detail, shown);
        rc = CM_STEP_REFUSED;
    } else if (nompi == ntasks) {
        rc = cm_store_mark_nompi(s, job_name, ntasks, err) < 0 ? -1
                                                               : CM_STEP_NOMPI;
        snprintf(msg, msgsize, "'%s' with %d tasks does not call MPI_Init: "
                 "not profiled again", shown, ntasks);
    } else if (ok < ntasks) {
        snprintf(msg, msgsize, "%d of %d tasks sent no profile (task %d: %s): "
                 "the run of '%s' is not recorded", ntasks - ok, ntasks,
                 dtask >= 0 ? dtask : 0, dtask >= 0 ? detail : "no MPI",
                 shown);
        rc = CM_STEP_REFUSED;
    } else if (record(s, dir, job_name, ntasks, weight, info, step, shown, msg,
                      msgsize, err) < 0) {
        rc = -1;
    } else {
        rc = CM_STEP_RECORDED;
    }
    stage_remove(s, dir, step);
    if (rc != -1)
        write_result(s, step, rc, msg);
out:
    free(st);
    close(dir);   /* drops the lock */
    return rc;
}

int cm_store_part_drop(cm_store_t *s, const char *prefix, char *msg,
                       size_t msgsize, cm_error_t *err)
{
    CM_STORE_NEED(s, err);
    if (!prefix || !msg || !msgsize)
        return cm_error_set(err, "store: expected a step prefix and a "
                            "message buffer, got '%s'", prefix ? prefix : "(null)");
    msg[0] = '\0';
    int dfd = cm_store_dirfd(s);
    if (dfd < 0)
        return 0;
    int fd = dup(dfd), dropped = 0;
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return cm_error_set(err, "%s: cannot list: %s", cm_store_dir(s),
                            strerror(errno));
    }
    rewinddir(d);
    size_t plen = strlen(STAGE_PREFIX), klen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *step = e->d_name + plen;
        if (strncmp(e->d_name, STAGE_PREFIX, plen) || strncmp(step, prefix, klen) ||
            check_step(step, NULL) < 0)
            continue;
        int dir = cm_store_stage_open(s, step, 0, NULL);
        if (dir < 0)
            continue;
        while (flock(dir, LOCK_EX) < 0 && errno == EINTR)
            ;
        int n = 0;
        DIR *sd = fdopendir(dup(dir));
        struct dirent *f;
        while (sd && (f = readdir(sd)))
            n += strlen(f->d_name) > 3 &&
                 !strcmp(f->d_name + strlen(f->d_name) - 3, ".st");
        if (sd)
            closedir(sd);
        snprintf(msg, msgsize, "step %s: only %d task%s reported a profile "
                 "status: the run is not recorded", step, n, n == 1 ? "" : "s");
        stage_remove(s, dir, step);
        close(dir);
        dropped++;
    }
    rewinddir(d);
    while ((e = readdir(d)))   /* outcomes nobody read (srun was gone) */
        if (!strncmp(e->d_name, ".result.", 8) &&
            !strncmp(e->d_name + 8, prefix, klen))
            unlinkat(dfd, e->d_name, 0);
    closedir(d);
    return dropped;
}
