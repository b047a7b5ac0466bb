/*
 * profile_step.c -- profiling a step on the nodes (remote context).
 *
 * srun decides, once for the whole step, to profile it and marks it with
 * CLUSTERMAP_STEP_PROFILE=<job name>.  On every node of the step:
 *
 *  init (slurmstepd, root): a private directory
 *      <prof_dir>/job<jobid>.<stepid>.XXXXXX   (mkdtemp, 0700, the user's)
 *  inside the root-owned prof_dir (opened without following links and
 *  checked: root's, no group/world write; created only when its parent is
 *  as safe), and the tasks get CLUSTERMAP_PROFILE_DIR=<it> and the
 *  profiling library in front of LD_PRELOAD.  Nobody else can create or
 *  predict anything there.  When this fails the node's tasks simply run
 *  unprofiled: the library has no collective, so no rank waits for them.
 *
 *  (With tnbc, overlay_trace.c also points the ranks' traces there.)
 *
 *  task exit (root): each local task's global id and exit status.
 *
 *  exit (root): the store's user directory is made if missing (root's one
 *  job in the store), then a child that has become the user delivers, for
 *  each local task, its part (and its tnbc trace, when it wrote one) and a
 *  status (ok / nompi / failed / missing) into the store and closes the set
 *  (cm_store_part_put / _close, store_parts.c, store_trace.c): the node
 *  that completes it records the run, or refuses a failed or incomplete
 *  one, with one line in slurmd's log.  Before that, root measures what
 *  the step left in its directory: over step_budget (or CMP_STEP_MAX_ENTRIES
 *  entries) the run is not recorded, every task's part counts as missing
 *  for that reason, and the job is not touched.  Then root removes the
 *  directory with its own walk (cmp_dirwalk.h), whatever the user did to
 *  it: links are not followed, modes are reset, depth and entries are
 *  bounded.
 *
 *  job epilog (root): private directories and staging sets that killed
 *  steps, or a walk that hit its bound, left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "cm_env.h"
#include "cm_file.h"
#include "cm_store.h"
#include "cm_text.h"
#include "cmp_dirwalk.h"
#include "cmp_leftovers.h"
#include "plugin_spank.h"

#define MSG_MAX 768

/* What init learnt, for task exit and exit (same slurmstepd process). */
static struct {
    int active;              /* the step is profiled (even if not here) */
    uid_t uid;
    gid_t gid;
    uint32_t jobid, stepid;
    int ntasks;              /* the step's tasks, all nodes */
    char dir[CMP_PATH_MAX + 64];     /* "" when set-up failed here */
    char why[CMP_PATH_MAX + 1024];   /* ... and why */
    char job_name[CMP_NAME_MAX + 1];
    char nompi_key[CMP_NAME_MAX + 1]; /* "" : job_name's */
    int has_run;             /* srun said how the step was placed */
    cm_run_t run;            /* ... (placed, how, J's) for the history */
    int traffic;             /* 0: the run is only timed */
    int over;                /* the step left more than its budget */
    int nlocal, cap;
    struct { int task; int status; } *tasks;
} step;

typedef struct deliver_arg {
    const cmp_config_t *c;
    char msg[MSG_MAX];
} deliver_arg_t;

/* ---- the node's private directory -------------------------------------- */

/* Root: remove directory @p name of prof_dir and whatever the user left
 * in it, with root's bounded walk that follows no link (cmp_dirwalk.h):
 * a directory the user made unwritable, or filled with a deep tree,
 * cannot keep its data in prof_dir (RAM on most nodes) after the job.
 * At most @p walks walks.  0, or -1 with @p err. */
static int remove_private(const cmp_config_t *c, const char *name, int walks,
                          cm_error_t *err)
{
    int base = cm_file_open_dir_safe(c->prof_dir, 0, "store", err);
    if (base < 0)
        return -1;
    int rc = -1;
    for (int k = 0; rc < 0 && k < walks; k++)
        rc = cmp_dirwalk_remove(base, name, CMP_REMOVE_MAX_ENTRIES, NULL, err);
    close(base);
    return rc;
}

/* The step's own directory, at its end or when its set-up failed. */
static void remove_step_dir(const cmp_config_t *c)
{
    cm_error_t err;
    const char *name = strrchr(step.dir, '/');
    if (remove_private(c, name ? name + 1 : step.dir, 1, &err) < 0)
        cmp_log_error("job %u.%u: removing %s: %s (left for the job epilog)",
                      step.jobid, step.stepid, step.dir, err.msg);
}

/* What the step left in its directory against the budget: over it, its
 * run is not recorded (step.over, step.why say so), the job goes on. */
static void check_budget(const cmp_config_t *c)
{
    cmp_dirwalk_stat_t st;
    cm_error_t err;
    int fd = open(step.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    int rc = cmp_dirwalk_usage(fd, CMP_STEP_MAX_ENTRIES, &st, &err);
    close(fd);
    if (rc < 0 || (st.bytes <= c->step_budget && st.entries <= CMP_STEP_MAX_ENTRIES &&
                   !st.too_deep))
        return;
    step.over = 1;
    if (st.bytes > c->step_budget)
        snprintf(step.why, sizeof step.why, "the step left %.1f MiB in prof_dir on this "
                 "node, over step_budget=%.1f MiB: profiling ended for this step",
                 st.bytes / 1048576.0, c->step_budget / 1048576.0);
    else if (st.entries > CMP_STEP_MAX_ENTRIES)
        snprintf(step.why, sizeof step.why, "the step left more than %ld files in "
                 "prof_dir on this node: profiling ended for this step",
                 CMP_STEP_MAX_ENTRIES);
    else
        snprintf(step.why, sizeof step.why, "the step left a tree deeper than %d "
                 "levels in prof_dir on this node: profiling ended for this step",
                 CMP_DIRWALK_MAX_DEPTH);
    cmp_log_info("job %u.%u: %s: %s (%llu bytes, %ld%s entries)", step.jobid,
                 step.stepid, step.dir, step.why, st.bytes, st.entries,
                 st.entries > CMP_STEP_MAX_ENTRIES ? "+" : "");
}

/* Root: make the step's private directory in prof_dir.  0, or -1 with
 * @p why. */
static int make_private(const cmp_config_t *c, char *why, size_t n)
{
    cm_error_t err;
    int base = cm_file_open_dir_safe(c->prof_dir, 1, "store", &err);
    if (base < 0) {
        snprintf(why, n, "prof_dir: %s", err.msg);
        return -1;
    }
    close(base);
    int len = snprintf(step.dir, sizeof step.dir, "%s/job%u.%u.XXXXXX",
                       c->prof_dir, step.jobid, step.stepid);
    if (len < 0 || (size_t)len >= sizeof step.dir || !mkdtemp(step.dir)) {
        snprintf(why, n, "cannot create a directory in %s: %s", c->prof_dir,
                 len < 0 || (size_t)len >= sizeof step.dir ? "name too long"
                                                           : strerror(errno));
        step.dir[0] = '\0';
        return -1;
    }
    int fd = open(step.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fchown(fd, step.uid, step.gid) < 0) {
        snprintf(why, n, "%s: %s", step.dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        rmdir(step.dir);
        step.dir[0] = '\0';
        return -1;
    }
    close(fd);
    return 0;
}

/* srun's CLUSTERMAP_STEP_RUN, checked, not trusted: the user can set it,
 * but it only ever describes the user's own run in the user's own
 * history. */
static void read_run(const char *text)
{
    char key[32];
    snprintf(key, sizeof key, "%u.%u", step.jobid, step.stepid);
    step.has_run = cmp_run_parse(text, key, &step.run, &step.traffic);
}

void cmp_profile_step_init(spank_t sp, const cmp_config_t *c)
{
    char name[CMP_NAME_MAX + 1];
    uint32_t ntasks = 0;
    memset(&step, 0, sizeof step);
    if (spank_getenv(sp, CMP_ENV_PROFILE, name, sizeof name) != ESPANK_SUCCESS ||
        !name[0])
        return;
    spank_unsetenv(sp, CMP_ENV_PROFILE);
    char run[256] = "", nompi_key[CMP_NAME_MAX + 1] = "";
    if (spank_getenv(sp, CMP_ENV_RUN, run, sizeof run) == ESPANK_SUCCESS)
        spank_unsetenv(sp, CMP_ENV_RUN);
    /* too long for a key: no key of ours, the job name's mark then */
    if (spank_getenv(sp, CMP_ENV_NOMPI_KEY, nompi_key, sizeof nompi_key) !=
        ESPANK_SUCCESS)
        nompi_key[0] = '\0';
    spank_unsetenv(sp, CMP_ENV_NOMPI_KEY);
    if (spank_get_item(sp, S_JOB_ID, &step.jobid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &step.stepid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_UID, &step.uid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_GID, &step.gid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntasks) != ESPANK_SUCCESS ||
        ntasks < 1 || ntasks > CM_PROFILE_MAX_TASKS)
        return;
    if (step.stepid == SLURM_BATCH_SCRIPT || step.stepid == SLURM_EXTERN_CONT)
        return;
    step.active = 1;
    step.ntasks = (int)ntasks;
    read_run(run);
    snprintf(step.job_name, sizeof step.job_name, "%s", name);
    snprintf(step.nompi_key, sizeof step.nompi_key, "%s", nompi_key);

    struct stat st;
    cm_error_t err;
    char *old = NULL, *pre = NULL;
    if (stat(c->prof_lib, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(step.why, sizeof step.why, "profiling library %s: %s",
                 c->prof_lib, errno ? strerror(errno) : "not a file");
    } else if (!(old = cmp_spank_getenv_all(sp, "LD_PRELOAD", &err)) &&
               err.msg[0]) {
        /* the user's preload whole, or no profiling: never a cut one */
        snprintf(step.why, sizeof step.why, "%s", err.msg);
    } else if (!(pre = cmp_env_list_prepend(c->prof_lib, old, 0))) {
        snprintf(step.why, sizeof step.why, "LD_PRELOAD: out of memory");
    } else if (make_private(c, step.why, sizeof step.why) == 0) {
        if (spank_setenv(sp, CM_ENV_PROFILE_DIR, step.dir, 1) !=
                ESPANK_SUCCESS ||
            spank_setenv(sp, CM_ENV_PROFILE_TRAFFIC, step.traffic ? "1" : "0",
                         1) != ESPANK_SUCCESS ||
            spank_setenv(sp, "LD_PRELOAD", pre, 1) != ESPANK_SUCCESS) {
            snprintf(step.why, sizeof step.why, "cannot set the tasks' "
                     "environment");
            remove_step_dir(c);
            step.dir[0] = '\0';
        }
    }
    free(old);
    free(pre);
    if (!step.dir[0])
        cmp_log_error("job %u.%u: %s; this node's tasks are not profiled and "
                      "the run will not be recorded", step.jobid, step.stepid,
                      step.why);
    else
        cmp_debug("job %u.%u: %s as '%s' into %s", step.jobid, step.stepid,
                  step.traffic ? "profiling" : "timing", name, step.dir);
}

const char *cmp_profile_private_dir(void)
{
    return step.active && step.dir[0] ? step.dir : NULL;
}

/* ---- our hostfile is srun's business ----------------------------------- */

void cmp_profile_user_init(spank_t sp, const cmp_config_t *c)
{
    char hf[CMP_PATH_MAX], ours[CMP_PATH_MAX];
    (void)c;
    if (spank_getenv(sp, CMP_ENV_HOSTFILE, ours, sizeof ours) != ESPANK_SUCCESS)
        return;
    if (spank_getenv(sp, "SLURM_HOSTFILE", hf, sizeof hf) == ESPANK_SUCCESS &&
        !strcmp(hf, ours))
        spank_unsetenv(sp, "SLURM_HOSTFILE");
    spank_unsetenv(sp, CMP_ENV_HOSTFILE);
}

/* ---- task exit ----------------------------------------------------------- */

void cmp_profile_task_exit(spank_t sp, const cmp_config_t *c)
{
    uint32_t task = 0;
    int status = 0;
    (void)c;
    if (!step.active ||
        spank_get_item(sp, S_TASK_GLOBAL_ID, &task) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS)
        return;
    if (step.nlocal == step.cap) {
        int cap = step.cap ? 2 * step.cap : 16;
        void *t = realloc(step.tasks, (size_t)cap * sizeof *step.tasks);
        if (!t)
            return;   /* the task goes unreported: the set stays incomplete */
        step.tasks = t;
        step.cap = cap;
    }
    step.tasks[step.nlocal].task = (int)task;
    step.tasks[step.nlocal].status = status;
    step.nlocal++;
}

/* ---- exit: deliver this node's tasks ------------------------------------- */

/* The status of local task @p i and, for CM_PART_OK, its part open in *fd. */
static cm_part_status_t task_status(int dir, int i, int *fd, char *detail,
                                    size_t n)
{
    int t = step.tasks[i].task, ws = step.tasks[i].status;
    *fd = -1;
    detail[0] = '\0';
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        if (WIFSIGNALED(ws))
            snprintf(detail, n, "killed by signal %d", WTERMSIG(ws));
        else
            snprintf(detail, n, "exit code %d", WEXITSTATUS(ws));
        return CM_PART_FAILED;
    }
    if (dir < 0) {
        snprintf(detail, n, "%s", step.why);
        return CM_PART_MISSING;
    }
    return cmp_part_find(dir, t, fd, detail, n);
}

/* In the child, as the user.  Exit status: 0 recorded or pending, 1 not
 * recorded (a->msg says why: not shown as an error), 2 error. */
static int deliver_child(void *p)
{
    deliver_arg_t *a = p;
    cm_error_t err;
    char key[32], detail[sizeof step.why];
    snprintf(key, sizeof key, "%u.%u", step.jobid, step.stepid);
    cm_store_t *s = cm_store_open(a->c->store, step.uid, 0,
                                  a->c->max_profile_size, &err);
    if (!s) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    int dir = -1, rc = 0;
    if (step.nompi_key[0] && cm_store_set_nompi_key(s, step.nompi_key, &err) < 0)
        fprintf(stderr, "%s\n", err.msg);
    if (step.dir[0] && !step.over) {
        dir = open(step.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (dir >= 0 && (fstat(dir, &st) < 0 || st.st_uid != step.uid)) {
            close(dir);
            dir = -1;
        }
    }
    for (int i = 0; rc == 0 && i < step.nlocal; i++) {
        int fd;
        cm_part_status_t ps = task_status(dir, i, &fd, detail, sizeof detail);
        if (ps == CM_PART_OK)
            cmp_trace_put(s, key, dir, step.tasks[i].task);
        if (cm_store_part_put(s, key, step.tasks[i].task, ps, fd, detail,
                              &err) < 0) {
            /* Report the task as missing, so the set still completes. */
            fprintf(stderr, "task %d: %s\n", step.tasks[i].task, err.msg);
            if (cm_store_part_put(s, key, step.tasks[i].task, CM_PART_MISSING,
                                  -1, err.msg, &err) < 0)
                rc = 2;
        }
        if (fd >= 0)
            close(fd);
    }
    int res = rc ? -1
                 : cm_store_part_close(s, key, step.job_name, step.ntasks,
                                       a->c->merge_weight,
                                       step.has_run ? &step.run : NULL, a->msg,
                                       sizeof a->msg, &err);
    if (res < 0) {
        snprintf(a->msg, sizeof a->msg, "%s", err.msg);
        fprintf(stderr, "%s\n", err.msg);
    }
    if (dir >= 0)
        close(dir);   /* root removes the directory */
    cm_store_close(s);
    /* The outcome travels back on stdout (the parent logs it), one line
     * whatever the job name holds. */
    if (res > 0) {
        printf("%d ", res);
        cm_text_fputs(a->msg, stdout);
        putchar('\n');
    }
    fflush(stdout);
    return res < 0 ? 2 : 0;
}

void cmp_profile_exit(spank_t sp, const cmp_config_t *c)
{
    cm_error_t err;
    (void)sp;
    if (!step.active)
        return;
    step.active = 0;
    if (step.dir[0])
        check_budget(c);
    /* Root prepares the user's store directory; the user fills it. */
    cm_store_t *s = cm_store_open(c->store, step.uid, CM_STORE_CREATE,
                                  c->max_profile_size, &err);
    if (!s) {
        cmp_log_error("job %u.%u: profile store: %s; the run of '%s' is not "
                      "recorded", step.jobid, step.stepid, err.msg,
                      step.job_name);
    } else {
        cm_store_close(s);
        deliver_arg_t a = { c, "" };
        char out[MSG_MAX + 16] = "";
        int rc = cmp_as_user_output(step.uid, step.gid, c->ingest_timeout,
                                    deliver_child, &a, out, sizeof out, &err);
        int res = 0;
        char *msg = out;
        if (out[0] && sscanf(out, "%d", &res) == 1 && (msg = strchr(out, ' ')))
            msg++;
        msg[strcspn(msg, "\n")] = '\0';
        if (rc != 0)
            cmp_log_error("job %u.%u: recording the run of '%s': %s", step.jobid,
                          step.stepid, step.job_name,
                          rc < 0 ? err.msg : (out[0] ? out : "failed"));
        else if (res == CM_STEP_REFUSED)
            cmp_log_info("job %u.%u: %s", step.jobid, step.stepid, msg);
        else if (res > 0)
            cmp_log_info("job %u.%u: %s", step.jobid, step.stepid, msg);
    }
    if (step.dir[0])
        remove_step_dir(c);
    free(step.tasks);
    memset(&step, 0, sizeof step);
}

/* ---- job epilog ------------------------------------------------------------ */

typedef struct drop_arg {
    const cmp_config_t *c;
    uid_t uid;
    uint32_t jobid;
} drop_arg_t;

static int drop_child(void *p)
{
    drop_arg_t *a = p;
    cm_error_t err;
    char prefix[32], msg[MSG_MAX];
    snprintf(prefix, sizeof prefix, "%u.", a->jobid);
    cm_store_t *s = cm_store_open(a->c->store, a->uid, 0, a->c->max_profile_size,
                                  &err);
    if (!s)
        return 0;
    int n = cm_store_part_drop(s, prefix, msg, sizeof msg, &err);
    cm_store_close(s);
    if (n > 0) {
        cm_text_fputs(msg, stdout);
        putchar('\n');
    }
    fflush(stdout);
    return 0;
}

void cmp_profile_epilog(spank_t sp, const cmp_config_t *c)
{
    uint32_t jobid = 0;
    uid_t uid;
    if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS)
        return;
    struct passwd pw, *res = NULL;
    char pwbuf[4096];
    gid_t gid = (getpwuid_r(uid, &pw, pwbuf, sizeof pwbuf, &res) == 0 && res)
                ? pw.pw_gid : (gid_t)uid;
    cm_error_t err;
    int base = cm_file_open_dir_safe(c->prof_dir, 0, "store", &err);
    if (base >= 0) {
        /* Only root writes prof_dir: every job<jobid>.* in it is ours. */
        int fd = openat(base, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        char prefix[32];
        snprintf(prefix, sizeof prefix, "job%u.", jobid);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (strncmp(e->d_name, prefix, strlen(prefix)))
                continue;
            if (remove_private(c, e->d_name, CMP_EPILOG_WALKS, &err) < 0)
                cmp_log_error("epilog of job %u: removing %s/%s: %s (left in "
                              "place)", jobid, c->prof_dir, e->d_name, err.msg);
            else
                slurm_debug("clustermap: epilog removed %s/%s", c->prof_dir,
                            e->d_name);
        }
        if (d)
            closedir(d);
        else if (fd >= 0)
            close(fd);
        close(base);
    }
    /* the hostfiles of the job's sruns killed on this node (srun's own
     * sweep covers TMPDIR elsewhere, at the user's next placed step) */
    int tmp = open("/tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (tmp >= 0) {
        char job[16];
        snprintf(job, sizeof job, "%u", jobid);
        int n = cmp_hostfile_sweep(tmp, uid, job, NULL);
        if (n > 0)
            slurm_debug("clustermap: epilog removed %d hostfile(s) of job %u "
                        "from /tmp", n, jobid);
        close(tmp);
    }
    drop_arg_t a = { c, uid, jobid };
    char out[MSG_MAX] = "";
    if (cmp_as_user_output(uid, gid, 2.0, drop_child, &a, out, sizeof out,
                           &err) < 0)
        cmp_log_error("epilog of job %u: %s", jobid, err.msg);
    else if (out[0])
        cmp_log_info("job %u: %.*s", jobid, (int)strcspn(out, "\n"), out);
}
