/* private_dir.c -- emptying a directory of the user's, as the user: the
 * nodes' private profiling directories, the batch script's rank files,
 * an mpirun run's staging directory.  No Slurm symbol: the launcher
 * (src/shim/) links it too. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin.h"

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
    int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid())
        cmp_empty_dir(fd);
    if (fd >= 0)
        close(fd);
    return 0;
}

