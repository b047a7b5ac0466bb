/*
 * prof_write.c -- every rank writes its own part of the raw profile at
 * MPI_Finalize (format 2, docs/profile-format.md: the header, "traffic off"
 * in time-only mode, the "time" line, the rows): a temporary file in the
 * node's private profiling directory, then rename, so that readers see
 * either no part or a complete one.  There is no collective: a rank whose
 * node could not set up profiling, or that runs without this library,
 * never makes another rank wait; ingestion assembles the parts and refuses
 * an incomplete set.  Errors are reported on one stderr line and never stop
 * the program.
 */
#include "cm_env.h"
#include "prof.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copy @p s to @p out (size @p n) keeping [A-Za-z0-9._-], others become
 * '_'; @p dflt when empty. */
static void sanitise(char *out, size_t n, const char *s, const char *dflt)
{
    size_t k = 0;
    for (; s && s[k] && k + 1 < n; k++) {
        char ch = s[k];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
                 ch == '-';
        out[k] = ok ? ch : '_';
    }
    out[k] = '\0';
    if (!k)
        snprintf(out, n, "%s", dflt);
}

/* Whether Open MPI's own launcher started this process: mpirun's daemons
 * set OMPI_COMM_WORLD_RANK before they exec a rank, srun does not.  Such a
 * rank inherits its daemon's SLURM_PROCID, which every rank of its node
 * shares, so its part (and its "no MPI" mark) is named by its world rank,
 * that variable.  Decided once, at load (mark_nompi), before MPI_Init may
 * set the variable itself. */
static int by_mpirun(void)
{
    static int known = -1;
    if (known < 0)
        known = getenv("OMPI_COMM_WORLD_RANK") != NULL;
    return known;
}

/* The task this process is -- SLURM_PROCID, or mpirun's world rank when
 * clustermap's mpirun collects the run (CLUSTERMAP_PROFILE_CONTROL) --
 * NULL when none is known before MPI_Init: then no "no MPI" mark. */
static const char *slurm_task(void)
{
    if (!by_mpirun())
        return getenv("SLURM_PROCID");
    return getenv(CM_ENV_PROFILE_CONTROL) ? getenv("OMPI_COMM_WORLD_RANK") : NULL;
}

/* "<dir>/part.<task>.<ext>": the task is SLURM_PROCID (what the node's
 * slurmstepd knows its tasks by), else the world rank. */
static int part_path(char *buf, size_t n, const char *dir, int rank,
                     const char *ext)
{
    char task[32];
    const char *procid = slurm_task();
    sanitise(task, sizeof task, procid, "");
    if (!task[0])
        snprintf(task, sizeof task, "%d", rank);
    return snprintf(buf, n, "%s/part.%s.%s", dir, task, ext) < (int)n ? 0 : -1;
}

static void write_rows(FILE *f, int rank, const uint64_t *q, size_t n,
                       int size, int kind, unsigned long long *lines)
{
    static const char *const tag[PROF_NKINDS] = { "p2p", "coll" };
    for (size_t e = 0; e < n; e++, q += 4) {
        if (q[0] != (uint64_t)kind || q[1] >= (uint64_t)size)
            continue;
        fprintf(f, "%s %d %llu %llu %llu\n", tag[kind], rank,
                (unsigned long long)q[1], (unsigned long long)q[2],
                (unsigned long long)q[3]);
        (*lines)++;
    }
}

/* Nanoseconds as seconds with six decimals (what "%.6f" prints), without
 * the locale's decimal separator: the program may have set one. */
static void put_seconds(FILE *f, uint64_t ns)
{
    uint64_t us = ns / 1000 + (ns % 1000 >= 500);
    fprintf(f, "%llu.%06llu", (unsigned long long)(us / 1000000),
            (unsigned long long)(us % 1000000));
}

/* The part of @p rank could not be written for want of space: say so in
 * those words (a full file system is the cause, not the program), and
 * leave the empty mark "part.<task>.nospace" for the node's ingest to
 * name that cause too (an empty file needs no block, only an inode; if
 * even that fails, the ingest looks at the file system itself). */
static void no_space(const char *dir, int rank)
{
    char path[PATH_MAX];
    prof_say("no space left in %s: the profile of rank %d is not written\n", dir, rank);
    if (part_path(path, sizeof path, dir, rank, "nospace") < 0)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd >= 0)
        close(fd);
}

void prof_write_part(int rank, int size, int traffic, const uint64_t *mine,
                    size_t nmine, uint64_t elapsed_ns, uint64_t mpi_ns,
                    const char *dir)
{
    char job[64], step[64], prog[128], path[PATH_MAX], tmp[PATH_MAX];
    sanitise(job, sizeof job, getenv("SLURM_JOB_ID"), "nojob");
    /* mpirun's ranks carry the step of their node's daemon, or none on
     * mpirun's own node: none for all */
    sanitise(step, sizeof step, by_mpirun() ? NULL : getenv("SLURM_STEP_ID"), "nostep");
    sanitise(prog, sizeof prog, program_invocation_short_name, "unknown");
    if (!dir || part_path(path, sizeof path, dir, rank, "txt") < 0 ||
        snprintf(tmp, sizeof tmp, "%s/.part.%d.XXXXXX", dir, rank) >=
            (int)sizeof tmp) {
        prof_say("profile directory name too long: "
                "%s\n", dir ? dir : "(none)");
        return;
    }
    int fd = mkostemp(tmp, O_CLOEXEC);   /* mode 0600 */
    if (fd < 0 && (errno == ENOSPC || errno == EDQUOT)) {
        no_space(dir, rank);
        return;
    }
    if (fd < 0) {
        prof_say("cannot create a file in %s: %s\n",
                dir, strerror(errno));
        return;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        prof_say("%s: %s\n", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return;
    }
    unsigned long long lines = 0;
    fprintf(f, "clustermap-raw 2\nranks %d\nrank %d\njob %s %s\nprogram %s\n",
            size, rank, job, step, prog);
    if (!traffic)
        fputs("traffic off\n", f);
    fputs("time ", f);
    put_seconds(f, elapsed_ns);
    fputc(' ', f);
    put_seconds(f, mpi_ns);
    fputc('\n', f);
    if (traffic) {
        write_rows(f, rank, mine, nmine, size, PROF_P2P, &lines);
        write_rows(f, rank, mine, nmine, size, PROF_COLL, &lines);
    }
    fprintf(f, "end %llu\n", lines);
    int bad = ferror(f) || fflush(f) != 0;
    int err = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        unlink(tmp);
        if (err == ENOSPC || err == EDQUOT)
            no_space(dir, rank);
        else
            prof_say("cannot write %s: %s\n", path, strerror(err));
    }
}

/* A profiled process starts as "not using MPI": an empty
 * "part.<task>.nompi" made when the library is loaded, removed by
 * MPI_Init (prof_nompi_clear).  Made at load, not at exit, because shells
 * such as dash leave with _exit(), which runs no destructor.  A part
 * written by an MPI program of the same task wins over the mark. */
__attribute__((constructor)) static void mark_nompi(void)
{
    const char *dir = getenv(CM_ENV_PROFILE_DIR);
    char path[PATH_MAX];
    if (!dir || !*dir || !slurm_task() ||
        part_path(path, sizeof path, dir, 0, "nompi") < 0)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
                  O_NONBLOCK, 0600);
    if (fd >= 0)
        close(fd);
}

void prof_nompi_clear(void)
{
    const char *dir = getenv(CM_ENV_PROFILE_DIR);
    char path[PATH_MAX];
    if (dir && *dir && slurm_task() &&
        part_path(path, sizeof path, dir, 0, "nompi") == 0)
        unlink(path);
}

/* All the library's lines go through prof_vsay (prof_overlay.h says why). */
void prof_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    prof_vsay("clustermap-prof: ", fmt, ap);
    va_end(ap);
}

void prof_vsay(const char *prefix, const char *fmt, va_list ap)
{
    char line[1024], *out = line;
    va_list again;
    va_copy(again, ap);
    int n = snprintf(line, sizeof line, "%s", prefix);   /* a short constant */
    int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    size_t len = m < 0 ? (size_t)n : (size_t)n + (size_t)m;
    if (len >= sizeof line) {
        /* a long line (a user's path in it) is written whole, from the
         * heap; cut only when even that fails, and then said so */
        char *body = NULL;
        if (vasprintf(&body, fmt, again) >= 0 && asprintf(&out, "%s%s", prefix, body) >= 0)
            len = strlen(out);
        else {
            static const char cut[] = " [line cut at 1023 bytes]\n";
            out = line;
            len = sizeof line - 1;
            memcpy(line + len - (sizeof cut - 1), cut, sizeof cut - 1);
        }
        free(body);
    }
    va_end(again);
    /* stderr's write may be short or interrupted: a lost line is better
     * than a program held up, so one attempt. */
    ssize_t w = write(STDERR_FILENO, out, len);
    (void)w;
    if (out != line)
        free(out);
}
