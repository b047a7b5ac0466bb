/*
 * prof_write.c -- gather every rank's rows to rank 0 at MPI_Finalize and
 * write the raw profile atomically: a temporary file in the target
 * directory, fsync, rename, fsync of the directory.  Readers therefore see
 * either no file or a complete one, and a job that dies before finalize
 * leaves nothing behind.  Errors are reported on one stderr line and never
 * stop the program.
 */
#include "prof.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

static void write_rows(FILE *f, const uint64_t *all, const int *counts,
                       const int *displs, int size, int kind,
                       unsigned long long *lines)
{
    static const char *const tag[CMP_NKINDS] = { "p2p", "coll" };
    for (int src = 0; src < size; src++) {
        const uint64_t *q = all + displs[src];
        for (int e = 0; e < counts[src] / 4; e++, q += 4) {
            if (q[0] != (uint64_t)kind || q[1] >= (uint64_t)size)
                continue;
            fprintf(f, "%s %d %llu %llu %llu\n", tag[kind], src,
                    (unsigned long long)q[1], (unsigned long long)q[2],
                    (unsigned long long)q[3]);
            (*lines)++;
        }
    }
}

static void write_file(const char *dir, const uint64_t *all, const int *counts,
                       const int *displs, int size)
{
    char job[64], step[64], prog[128], path[PATH_MAX], tmp[PATH_MAX];
    sanitise(job, sizeof job, getenv("SLURM_JOB_ID"), "nojob");
    sanitise(step, sizeof step, getenv("SLURM_STEP_ID"), "nostep");
    sanitise(prog, sizeof prog, program_invocation_short_name, "unknown");
    long pid = (long)getpid();
    if (snprintf(path, sizeof path, "%s/clustermap-raw.%s.%s.%ld.txt", dir,
                 job, step, pid) >= (int)sizeof path ||
        snprintf(tmp, sizeof tmp, "%s/.clustermap-raw.%s.%s.%ld.XXXXXX", dir,
                 job, step, pid) >= (int)sizeof tmp) {
        fprintf(stderr, "clustermap-prof: profile directory name too long: "
                "%s\n", dir);
        return;
    }
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "clustermap-prof: cannot create a file in %s: %s\n",
                dir, strerror(errno));
        return;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        fprintf(stderr, "clustermap-prof: %s: %s\n", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return;
    }
    unsigned long long lines = 0;
    fchmod(fd, 0644);
    fprintf(f, "clustermap-raw 1\nranks %d\njob %s %s\nprogram %s\n", size,
            job, step, prog);
    write_rows(f, all, counts, displs, size, CMP_P2P, &lines);
    write_rows(f, all, counts, displs, size, CMP_COLL, &lines);
    fprintf(f, "end %llu\n", lines);
    int bad = ferror(f) || fflush(f) != 0 || fsync(fd) != 0;
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
        fprintf(stderr, "clustermap-prof: cannot write %s: %s\n", path,
                strerror(err));
        unlink(tmp);
        return;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd) != 0)
        fprintf(stderr, "clustermap-prof: cannot sync directory %s: %s\n",
                dir, strerror(errno));
    if (dfd >= 0)
        close(dfd);
}

void cmp_write_profile(MPI_Comm comm, int rank, int size, const uint64_t *mine,
                       size_t nmine, const char *dir)
{
    int mycount = (mine && nmine <= (size_t)INT_MAX / 4) ? (int)(4 * nmine) : 0;
    int *counts = NULL, *displs = NULL, ok = 1;
    uint64_t *all = NULL;
    if (rank == 0) {
        counts = malloc((size_t)size * sizeof *counts);
        displs = malloc((size_t)size * sizeof *displs);
        ok = counts && displs;
    }
    /* Everyone joins every step, so that a failure at the root never
     * leaves the other ranks waiting. */
    PMPI_Gather(&mycount, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rank == 0 && ok) {
        size_t total = 0;
        for (int i = 0; i < size; i++) {
            if (total > (size_t)INT_MAX - (size_t)counts[i]) {
                ok = 0;
                break;
            }
            displs[i] = (int)total;
            total += (size_t)counts[i];
        }
        if (ok) {
            all = malloc((total ? total : 1) * sizeof *all);
            ok = all != NULL;
        }
        if (!ok)
            fprintf(stderr, "clustermap-prof: profile too large to gather, "
                    "not written\n");
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok) {
        PMPI_Gatherv(mine, mycount, MPI_UINT64_T, all, counts, displs,
                     MPI_UINT64_T, 0, comm);
        if (rank == 0)
            write_file(dir, all, counts, displs, size);
    }
    free(all);
    free(counts);
    free(displs);
}
