/*
 * leftovers.c -- the hostfiles of killed sruns (cmp_leftovers.h).
 */
#include "cmp_leftovers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *cmp_hostfile_template(const char *dir, const char *job_id, long pid,
                            const char *host)
{
    if (!dir)
        return NULL;
    char *h = strdup(host && *host ? host : "localhost"), *path = NULL;
    if (!h)
        return NULL;
    for (char *p = h; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
            *p = '_';
    if (asprintf(&path, "%s/" CMP_HOSTFILE_PREFIX "%s.%ld.%s.XXXXXX", dir,
                 job_id && *job_id ? job_id : "0", pid, h) < 0)
        path = NULL;
    free(h);
    return path;
}

/* The digits at *@p s up to a '.', as a number in *@p v; *@p s moves past
 * the '.'.  0, or -1 when there are none. */
static int number(const char **s, long *v)
{
    char *end;
    errno = 0;
    if (**s < '0' || **s > '9')
        return -1;
    *v = strtol(*s, &end, 10);
    if (errno || *end != '.')
        return -1;
    *s = end + 1;
    return 0;
}

/* Whether @p name is a hostfile to remove (see cmp_hostfile_sweep). */
static int stale(const char *name, const char *job_id, const char *host)
{
    size_t plen = strlen(CMP_HOSTFILE_PREFIX);
    const char *s = name + plen;
    long job, pid;
    if (strncmp(name, CMP_HOSTFILE_PREFIX, plen) || number(&s, &job) < 0 ||
        number(&s, &pid) < 0 || pid <= 0)
        return 0;
    size_t rest = strlen(s);
    /* "<host>.XXXXXX" */
    if (rest < 8 || s[rest - 7] != '.')
        return 0;
    if (!host) {
        char want[32];
        snprintf(want, sizeof want, "%ld", job);
        return job_id && !strcmp(want, job_id);
    }
    if (rest - 7 != strlen(host) || strncmp(s, host, rest - 7))
        return 0;
    return pid != (long)getpid() && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

int cmp_hostfile_sweep(int dir, uid_t uid, const char *job_id, const char *host)
{
    char *h = NULL;
    if (dir < 0 || (!host && !job_id))
        return 0;
    if (host) { /* as the names have it */
        char *t = cmp_hostfile_template("", "0", 1, host);
        if (!t)
            return 0;
        h = strdup(t + strlen("/" CMP_HOSTFILE_PREFIX "0.1."));
        free(t);
        if (!h)
            return 0;
        h[strlen(h) - strlen(".XXXXXX")] = '\0';
    }
    int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        free(h);
        return 0;
    }
    int removed = 0;
    long seen = 0;
    struct dirent *e;
    struct stat st;
    while (seen++ < CMP_SWEEP_MAX_ENTRIES && (e = readdir(d)))
        if (stale(e->d_name, job_id, h) &&
            fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) && st.st_uid == uid && st.st_nlink == 1 &&
            unlinkat(dir, e->d_name, 0) == 0)
            removed++;
    closedir(d);
    free(h);
    return removed;
}
