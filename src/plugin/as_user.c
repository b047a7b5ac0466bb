/*
 * as_user.c -- run a function as the job's user, in a child, with a
 * deadline.  slurmstepd runs SPANK exit hooks as root; files the job wrote
 * are the user's to give, so they are only opened after the child has
 * dropped every privilege (and checked that it cannot get them back), and
 * a child that hangs on a dead file system is killed instead of holding up
 * the end of the job.
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
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

int cmp_as_user(uid_t uid, gid_t gid, double timeout, int (*fn)(void *), void *arg,
                cm_error_t *err)
{
    pid_t pid = fork();
    if (pid < 0)
        return cm_error_set(err, "fork: %s", strerror(errno));
    if (pid == 0) {
        if (drop_to(uid, gid) < 0)
            _exit(126);
        _exit(fn(arg) & 0x7f);
    }
    struct timespec start, now, nap = { 0, 5 * 1000 * 1000 };
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        int status;
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            if (WIFEXITED(status)) {
                if (WEXITSTATUS(status) == 126)
                    return cm_error_set(err, "cannot become uid %lu gid %lu",
                                        (unsigned long)uid, (unsigned long)gid);
                return WEXITSTATUS(status);
            }
            return cm_error_set(err, "child killed by signal %d",
                                WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        }
        if (w < 0 && errno != EINTR)
            return cm_error_set(err, "waitpid: %s", strerror(errno));
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - start.tv_sec) +
                    (now.tv_nsec - start.tv_nsec) * 1e-9;
        if (el > timeout) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            return cm_error_set(err, "timed out after %.1f s", timeout);
        }
        nanosleep(&nap, NULL);
    }
}
