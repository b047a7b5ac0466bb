/* private_dir.c -- a directory of the user's, read and emptied as the
 * user: the nodes' private profiling directories, the batch script's rank
 * files, an mpirun run's staging directory.  No Slurm symbol: the launcher
 * (src/mpirun/) links it too. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cm_store.h"
#include "launch.h"

/* Remove the files (and empty subdirectories) of directory @p fd. */
void cmp_empty_dir(int fd)
{
    int d2 = dup(fd);
    DIR *d = d2 >= 0 ? fdopendir(d2) : NULL;
    if (!d) {
        if (d2 >= 0)
            close(d2);
        return;
    }
    rewinddir(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            unlinkat(fd, e->d_name, 0) < 0 && errno == EISDIR)
            unlinkat(fd, e->d_name, AT_REMOVEDIR);
    closedir(d);
}

int cmp_empty_private(void *p)
{
    if (!p)
        return 0;
    int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid())
        cmp_empty_dir(fd);
    if (fd >= 0)
        close(fd);
    return 0;
}

int cmp_private_file(int dir, const char *name)
{
    struct stat st;
    if (!name) {
        errno = EINVAL;
        return -1;
    }
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return -1;
    int fd = S_ISREG(st.st_mode)
           ? openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
           : -1;
    if (fd < 0)
        errno = EINVAL;
    return fd;
}

/* Whether the file system of @p dir has no block or no inode left for a
 * user (what made a part fail to be written, when it is so). */
static int dir_full(int dir)
{
    struct statvfs vs;
    return fstatvfs(dir, &vs) == 0 && vs.f_blocks > 0 &&
           (vs.f_bavail == 0 || (vs.f_files > 0 && vs.f_favail == 0));
}

/* "no space left in <dir>" into @p detail: the directory's path as the
 * kernel knows it, cut only by @p n (the caller's message buffer). */
static void no_space(int dir, char *detail, size_t n)
{
    char link[64], path[CMP_PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dir);
    ssize_t k = readlink(link, path, sizeof path - 1);
    if (k <= 0 || (size_t)k >= sizeof path - 1)
        snprintf(path, sizeof path, "%s", "its profiling directory");
    else
        path[k] = '\0';
    snprintf(detail, n, "no part written: no space left in %s", path);
}

cm_part_status_t cmp_part_find(int dir, int task, int *fd, char *detail, size_t n)
{
    char name[64], why[8];
    struct stat st;
    int ignored;
    if (!fd)
        fd = &ignored;
    if (!detail || !n) {
        detail = why;   /* the caller does not want the reason */
        n = sizeof why;
    }
    detail[0] = '\0';
    snprintf(name, sizeof name, "part.%d.txt", task);
    /* Whatever is there under the part's name counts as a part: a link or
     * a FIFO put there is a bad part, not a sign that MPI was not used. */
    if ((*fd = cmp_private_file(dir, name)) >= 0)
        return CM_PART_OK;
    if (errno != ENOENT) {
        snprintf(detail, n, "its part is not a regular file");
        return CM_PART_MISSING;
    }
    /* A full file system is named as the cause: the profiler's own mark
     * of a failed write, else the file system seen full now. */
    snprintf(name, sizeof name, "part.%d.nospace", task);
    int nospace = fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    snprintf(name, sizeof name, "part.%d.nompi", task);
    if (!nospace && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return CM_PART_NOMPI;
    if (nospace || dir_full(dir)) {
        no_space(dir, detail, n);
        return CM_PART_MISSING;
    }
    snprintf(detail, n, "no part written (the task did not reach "
             "MPI_Finalize with the profiler)");
    return CM_PART_MISSING;
}

void cmp_trace_put(cm_store_t *s, const char *step, int dir, int task)
{
    char name[48];
    cm_error_t err;
    snprintf(name, sizeof name, CM_TRACE_PREFIX ".%d", task);
    int fd = cmp_private_file(dir, name);
    if (fd < 0)
        return;
    cm_store_trace_put(s, step, task, fd, &err);
    close(fd);
}
