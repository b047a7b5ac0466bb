/*
 * profile_step.c -- profiling a step on the nodes (remote context).
 *
 * srun marks a step to profile with CLUSTERMAP_STEP_PROFILE=<job name>.
 * On every node of the step slurmstepd then (user_init, with the user's
 * identity) creates the step's private directory
 *     <prof_dir>/clustermap-prof.<uid>.<jobid>.<stepid>     (0700, the user's)
 * and gives the tasks CLUSTERMAP_PROFILE_DIR=<it> and the profiling library
 * in front of LD_PRELOAD.  The name is the same on every node (the
 * profiling library wants one value for the whole step); a directory of
 * that name that the user does not own with mode 0700 disables profiling
 * on that node.  Rank 0 writes the raw profile at MPI_Finalize, so only its
 * node finds one.  At the step's end (exit, as root) the store's user
 * directory is created if missing (root's job: cm_store_open with
 * CM_STORE_CREATE chowns it), then a child that has become the user reads
 * the raw file, merges it into the store, and removes the directory; the
 * parent waits at most ingest_timeout.  The job epilog removes directories
 * that killed steps left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "cm_profiles.h"
#include "plugin_spank.h"

#define RAW_PREFIX "clustermap-raw."

/* What user_init learnt, for exit (same slurmstepd process). */
static struct {
    int active;
    uid_t uid;
    gid_t gid;
    char dir[CMP_PATH_MAX + 64];
    char job_name[CMP_NAME_MAX + 1];
} step;

typedef struct ingest_arg {
    const cmp_config_t *c;
    const char *dir;
    const char *job_name;
    uid_t uid;
} ingest_arg_t;

/* Remove the files of directory @p fd (not recursive: the library writes
 * plain files) and the directory @p path itself. */
static void remove_dir(int fd, const char *path)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    rewinddir(d);   /* fd may share its offset with a directory read before */
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
    rmdir(path);
}

/* In the child, as the user: ingest every raw profile of the directory.
 * Exit status: 0 ingested or nothing to do, 1 an error (logged). */
static int ingest_child(void *p)
{
    const ingest_arg_t *a = p;
    int fd = open(a->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : 1;
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_uid != a->uid) {
        close(fd);
        return 1;
    }
    int rc = 0, seen = 0;
    DIR *d = fdopendir(dup(fd));
    if (!d) {
        close(fd);
        return 1;
    }
    struct dirent *e;
    cm_store_t *s = NULL;
    cm_error_t err;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, RAW_PREFIX, strlen(RAW_PREFIX)) || l < 5 ||
            strcmp(e->d_name + l - 4, ".txt"))
            continue;
        seen++;
        char path[CMP_PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", a->dir, e->d_name);
        if (!s && !(s = cm_store_open(a->c->store, a->uid, 0, a->c->max_profile_size,
                                      &err))) {
            slurm_error("clustermap: profile store: %s", err.msg);
            rc = 1;
            break;
        }
        long runs = 0;
        if (cm_store_ingest(s, path, a->job_name, a->c->merge_weight, &runs, &err) < 0) {
            slurm_error("clustermap: ingest %s: %s", path, err.msg);
            rc = 1;
        } else {
            slurm_info("clustermap: ingested %s into profile '%s' (runs=%ld)", path,
                       a->job_name, runs);
        }
    }
    closedir(d);
    cm_store_close(s);
    remove_dir(fd, a->dir);
    return rc ? 1 : (seen ? 0 : 2);
}

static int cleanup_child(void *p)
{
    const char *dir = p;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        remove_dir(fd, dir);
    return 0;
}

void cmp_profile_user_init(spank_t sp, const cmp_config_t *c)
{
    char name[CMP_NAME_MAX + 1], buf[64];
    uint32_t jobid = 0, stepid = 0;
    uid_t uid;
    gid_t gid;

    /* Our hostfile lives on srun's host: the tasks have no use for it. */
    if (spank_getenv(sp, CMP_ENV_HOSTFILE, buf, sizeof buf) != ESPANK_ENV_NOEXIST) {
        char hf[CMP_PATH_MAX], ours[CMP_PATH_MAX];
        if (spank_getenv(sp, CMP_ENV_HOSTFILE, ours, sizeof ours) == ESPANK_SUCCESS &&
            spank_getenv(sp, "SLURM_HOSTFILE", hf, sizeof hf) == ESPANK_SUCCESS &&
            !strcmp(hf, ours))
            spank_unsetenv(sp, "SLURM_HOSTFILE");
        spank_unsetenv(sp, CMP_ENV_HOSTFILE);
    }
    if (spank_getenv(sp, CMP_ENV_PROFILE, name, sizeof name) != ESPANK_SUCCESS || !name[0])
        return;
    spank_unsetenv(sp, CMP_ENV_PROFILE);
    if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS)
        return;
    if (stepid == SLURM_BATCH_SCRIPT || stepid == SLURM_EXTERN_CONT)
        return;
    struct stat st;
    if (stat(c->prof_lib, &st) < 0 || !S_ISREG(st.st_mode)) {
        cmp_log_error("job %u.%u: profiling library %s: %s; not profiling", jobid,
                      stepid, c->prof_lib, errno ? strerror(errno) : "not a file");
        return;
    }
    char dir[CMP_PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/clustermap-prof.%lu.%u.%u", c->prof_dir,
             (unsigned long)uid, jobid, stepid);
    int created = mkdir(dir, 0700) == 0;
    if (!created && errno != EEXIST) {
        cmp_log_error("job %u.%u: mkdir %s: %s; not profiling", jobid, stepid, dir,
                      strerror(errno));
        return;
    }
    /* Only a directory made here is handed to the user: one that somebody
     * else left under this name must not become the user's (it could hold
     * files planted for the ingest) -- the check below refuses it. */
    if (created && geteuid() == 0 && lchown(dir, uid, gid) < 0) {
        cmp_log_error("job %u.%u: chown %s: %s; not profiling", jobid, stepid, dir,
                      strerror(errno));
        return;
    }
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid ||
        (st.st_mode & 07777) != 0700) {
        cmp_log_error("job %u.%u: %s is not a 0700 directory of uid %lu; not profiling",
                      jobid, stepid, dir, (unsigned long)uid);
        return;
    }
    char pre[4 * CMP_PATH_MAX];
    char old[3 * CMP_PATH_MAX];
    if (spank_getenv(sp, "LD_PRELOAD", old, sizeof old) == ESPANK_SUCCESS && old[0])
        snprintf(pre, sizeof pre, "%s:%s", c->prof_lib, old);
    else
        snprintf(pre, sizeof pre, "%s", c->prof_lib);
    if (spank_setenv(sp, "CLUSTERMAP_PROFILE_DIR", dir, 1) != ESPANK_SUCCESS ||
        spank_setenv(sp, "LD_PRELOAD", pre, 1) != ESPANK_SUCCESS) {
        cmp_log_error("job %u.%u: cannot set the tasks' environment; not profiling",
                      jobid, stepid);
        rmdir(dir);
        return;
    }
    step.active = 1;
    step.uid = uid;
    step.gid = gid;
    snprintf(step.dir, sizeof step.dir, "%s", dir);
    snprintf(step.job_name, sizeof step.job_name, "%s", name);
    slurm_debug("clustermap: job %u.%u: profiling as '%s' into %s", jobid, stepid, name,
                dir);
}

void cmp_profile_exit(spank_t sp, const cmp_config_t *c)
{
    cm_error_t err;
    if (!step.active)
        return;
    step.active = 0;
    /* Root prepares the user's store directory; the user fills it. */
    cm_store_t *s = cm_store_open(c->store, step.uid, CM_STORE_CREATE,
                                  c->max_profile_size, &err);
    if (!s) {
        cmp_log_error("profile store %s: %s; run not recorded", c->store, err.msg);
        cmp_as_user(step.uid, step.gid, c->ingest_timeout, cleanup_child, step.dir, NULL);
        return;
    }
    cm_store_close(s);
    ingest_arg_t a = { c, step.dir, step.job_name, step.uid };
    int rc = cmp_as_user(step.uid, step.gid, c->ingest_timeout, ingest_child, &a, &err);
    if (rc < 0) {
        cmp_log_error("ingesting the profile of '%s' from %s: %s; run not recorded",
                      step.job_name, step.dir, err.msg);
        cmp_as_user(step.uid, step.gid, 2.0, cleanup_child, step.dir, NULL);
    } else if (rc == 1) {
        cmp_log_error("the profile of '%s' from %s was not recorded (see above)",
                      step.job_name, step.dir);
    }
}

void cmp_profile_epilog(spank_t sp, const cmp_config_t *c)
{
    uint32_t jobid = 0;
    uid_t uid;
    if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS)
        return;
    char pattern[CMP_PATH_MAX + 64];
    snprintf(pattern, sizeof pattern, "%s/clustermap-prof.%lu.%u.*", c->prof_dir,
             (unsigned long)uid, jobid);
    glob_t g;
    if (glob(pattern, GLOB_NOSORT, NULL, &g) != 0)
        return;
    struct passwd pw, *res = NULL;
    char pwbuf[4096];
    gid_t gid = (getpwuid_r(uid, &pw, pwbuf, sizeof pwbuf, &res) == 0 && res)
                ? pw.pw_gid : (gid_t)uid;
    for (size_t i = 0; i < g.gl_pathc && i < 64; i++) {
        cm_error_t err;
        if (cmp_as_user(uid, gid, 2.0, cleanup_child, g.gl_pathv[i], &err) < 0)
            cmp_log_error("epilog: removing %s: %s", g.gl_pathv[i], err.msg);
        else
            slurm_debug("clustermap: epilog removed %s", g.gl_pathv[i]);
    }
    globfree(&g);
}
