/*
 * as_user.c -- run a function as the job's user, in a child, with a
 * deadline.  slurmstepd runs SPANK exit hooks as root; files the job wrote
 * are the user's to give, so they are only opened after the child has
 * dropped every privilege (and checked that it cannot get them back), and
 * a child that hangs on a dead file system is killed instead of holding up
 * the end of the job.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plugin_spank.h"

static int drop_to(uid_t uid, gid_t gid)
{
    if (setgroups(1, &gid) < 0 || setresgid(gid, gid, gid) < 0 ||
        setresuid(uid, uid, uid) < 0)
        return -1;
    uid_t r, e, s;
    gid_t rg, eg, sg;
    if (getresuid(&r, &e, &s) < 0 || r != uid || e != uid || s != uid ||
        getresgid(&rg, &eg, &sg) < 0 || rg != gid || eg != gid || sg != gid)
        return -1;
    if (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
        return -1;   /* privileges not really gone */
    return 0;
}

/* In the child, before it becomes the user: keep standard input, output
 * and error only -- the pipe to the parent when @p captured, else
 * /dev/null -- and close every other descriptor slurmstepd had open (its
 * log, its sockets to slurmd and srun, its pipes): the code that runs as
 * the user reads the user's files and must reach nothing of root's.
 * 0, or -1 when that cannot be made sure. */
static int keep_std_only(int captured)
{
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || (!captured && (dup2(null, 1) < 0 ||
                                                      dup2(null, 2) < 0)))
        return -1;
    if (close_range(3, ~0U, 0) == 0)
        return 0;
    /* a kernel before 5.9: the descriptors /proc lists */
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int mine = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (*end == '\0' && end != e->d_name && fd > 2 && fd != mine)
            close((int)fd);
    }
    closedir(d);
    return 0;
}

/* Read what is there on @p fd (non-blocking) into out[*used..size-1]. */
static void drain(int fd, char *out, size_t size, size_t *used)
{
    char sink[256];
    for (;;) {
        char *dst = *used + 1 < size ? out + *used : sink;
        size_t room = *used + 1 < size ? size - 1 - *used : sizeof sink;
        ssize_t k = read(fd, dst, room);
        if (k <= 0)
            break;
        if (dst != sink)
            *used += (size_t)k;
    }
    if (size)
        out[*used] = '\0';
}

int cmp_as_user_output(uid_t uid, gid_t gid, double timeout, int (*fn)(void *),
                       void *arg, char *out, size_t outsize, cm_error_t *err)
{
    int pfd[2] = { -1, -1 };
    size_t used = 0;
    if (outsize)
        out[0] = '\0';
    if (out && pipe2(pfd, O_CLOEXEC | O_NONBLOCK) < 0)
        return cm_error_set(err, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        if (out) {
            close(pfd[0]);
            close(pfd[1]);
        }
        return cm_error_set(err, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        if (out && (dup2(pfd[1], 1) < 0 || dup2(pfd[1], 2) < 0))
            _exit(125);
        if (keep_std_only(out != NULL) < 0)
            _exit(125);
        if (drop_to(uid, gid) < 0)
            _exit(126);
        _exit(fn(arg) & 0x7f);
    }
    if (out)
        close(pfd[1]);
    struct timespec start, now, nap = { 0, 5 * 1000 * 1000 };
    clock_gettime(CLOCK_MONOTONIC, &start);
    int rc;
    for (;;) {
        int status;
        if (out)
            drain(pfd[0], out, outsize, &used);
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            if (!WIFEXITED(status))
                rc = cm_error_set(err, "child killed by signal %d",
                                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
            else if (WEXITSTATUS(status) == 126)
                rc = cm_error_set(err, "cannot become uid %lu gid %lu",
                                  (unsigned long)uid, (unsigned long)gid);
            else
                rc = WEXITSTATUS(status);
            break;
        }
        if (w < 0 && errno != EINTR) {
            rc = cm_error_set(err, "waitpid: %s", strerror(errno));
            break;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - start.tv_sec) +
                    (now.tv_nsec - start.tv_nsec) * 1e-9;
        if (el > timeout) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            rc = cm_error_set(err, "timed out after %.1f s", timeout);
            break;
        }
        nanosleep(&nap, NULL);
    }
    if (out) {
        drain(pfd[0], out, outsize, &used);
        close(pfd[0]);
    }
    return rc;
}

int cmp_as_user(uid_t uid, gid_t gid, double timeout, int (*fn)(void *), void *arg,
                cm_error_t *err)
{
    return cmp_as_user_output(uid, gid, timeout, fn, arg, NULL, 0, err);
}
