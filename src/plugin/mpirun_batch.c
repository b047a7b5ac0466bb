/*
 * mpirun_batch.c -- the batch step of a job with --mapping: put
 * clustermap's mpirun (src/mpirun/) first in the script's PATH and give it a
 * private directory for its rank files (remote context, slurmstepd).
 *
 *  init (root): when the job's mode places (cluster, block, cyclic) or
 *      profiles (profile: the rank file keeps Slurm's layout) and mpirun=yes, a child that has become the user makes
 *      <TMPDIR or /tmp>/clustermap_mpirun.<jobid>.XXXXXX (mkdtemp, 0700;
 *      no '-': Open MPI 5.0.7 refuses a rank file path that holds one)
 *      and prints its name; the script gets CLUSTERMAP_MPIRUN_DIR=<it> and
 *      PATH=<mpirun_dir>:<PATH>.  Only a launcher directory that root owns
 *      and nobody else can write goes into a user's PATH.
 *      When the job's runs may be profiled or timed, the user's store
 *      directory is made as for any profiled step (root's only job in the
 *      store) and named with prof_lib to clustermap's mpirun, which stages
 *      each run's parts there (in .mpirun.<jobid>.XXXXXX).
 *  exit (root, once per batch job, after every step): the user empties and
 *      removes that directory, and whatever staging directory of this job
 *      is left in the store (a one-node mpirun, a killed one).
 *
 * Nothing here can fail the job: on any problem the script keeps its PATH
 * and mpirun runs as it would have (its daemons' srun then says why it was
 * not placed).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include <slurm/slurm.h>

#include "cm_store.h"
#include "plugin_spank.h"

static struct {
    char dir[CMP_PATH_MAX];   /* "" when none was made */
    char store[CMP_PATH_MAX]; /* the user's store directory, "" if none */
    uint32_t jobid;
    uid_t uid;
    gid_t gid;
} batch;

/* The launcher directory is root's and only root's to change. */
static int launcher_safe(const char *dir, char *why, size_t n)
{
    char file[CMP_PATH_MAX + 16];
    struct stat st;
    snprintf(file, sizeof file, "%s/mpirun", dir);
    const char *bad = lstat(dir, &st) < 0 ? strerror(errno)
                    : !S_ISDIR(st.st_mode) ? "not a directory"
                    : st.st_uid != 0 || (st.st_mode & 022) ? "not root's alone"
                    : lstat(file, &st) < 0 ? "no mpirun in it"
                    : !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)
                    ? "its mpirun is not a file root alone can change" : NULL;
    if (bad)
        snprintf(why, n, "mpirun_dir=%s: %s", dir, bad);
    return bad ? -1 : 0;
}

/* As the user: make the private directory under the path in @p p and
 * print its name. */
static int make_dir_child(void *p)
{
    char dir[CMP_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", (const char *)p);
    int ok = mkdtemp(dir) != NULL;
    if (ok)
        printf("%s", dir);
    else
        printf("%s: %s", dir, strerror(errno));
    fflush(stdout);   /* the child ends with _exit() */
    return !ok;
}

/* The request of the job: sbatch's --mapping, else plugstack's default=
 * (mode off when the value does not parse, or cannot be read whole). */
static void job_request(spank_t sp, const cmp_config_t *c, cmp_request_t *r)
{
    cm_error_t err;
    char *value = cmp_spank_getenv_all(sp, CMP_OPTION_ENV, &err);
    memset(r, 0, sizeof *r);
    if (!value && !err.msg[0])
        r->mode = c->default_mode;
    else if (!value || cmp_request_parse(value, r, NULL) < 0) {
        memset(r, 0, sizeof *r);
        r->mode = CMP_MODE_OFF;
    }
    free(value);
}

/* The job's overlays for its mpirun runs (overlay_step.c). */
static void mark_overlay(spank_t sp, const cmp_config_t *c, const cmp_request_t *r)
{
    char spec[32], mark[CMP_PATH_MAX + 64];
    unsigned bits = cmp_overlay_bits(c, r);
    if (!bits)
        return;
    cmp_overlay_spec(bits, spec, sizeof spec);
    snprintf(mark, sizeof mark, "%s %d %s", spec, r->verbose ? 1 : 0, c->prof_lib);
    if (spank_setenv(sp, CMP_ENV_MPIRUN_OVERLAY, mark, 1) != ESPANK_SUCCESS)
        spank_unsetenv(sp, CMP_ENV_MPIRUN_OVERLAY);
}

void cmp_mpirun_batch_init(spank_t sp, const cmp_config_t *c)
{
    uint32_t jobid = 0, stepid = 0;
    char templ[CMP_PATH_MAX], out[CMP_PATH_MAX + 256], why[CMP_PATH_MAX + 64];
    cm_error_t err;
    batch.dir[0] = '\0';
    if (!c->mpirun || spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS ||
        stepid != SLURM_BATCH_SCRIPT)
        return;
    cmp_request_t req;
    job_request(sp, c, &req);
    cmp_mode_t mode = req.mode;
    if (mode != CMP_MODE_CLUSTER && mode != CMP_MODE_BLOCK && mode != CMP_MODE_CYCLIC &&
        mode != CMP_MODE_PROFILE)
        return;   /* profile: Slurm's layout in the rank file, the run profiled */
    if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_UID, &batch.uid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_GID, &batch.gid) != ESPANK_SUCCESS)
        return;
    if (launcher_safe(c->mpirun_dir, why, sizeof why) < 0) {
        /* A site that never installed the launcher where the build put it
         * and named no other: nothing to tell slurmd's log about each
         * batch job (the srun of mpirun's daemons tells the job).  Any
         * other problem is the configuration's, or the launcher's safety. */
        cmp_config_t def;
        struct stat st;
        cmp_config_init(&def);
        if (!strcmp(c->mpirun_dir, def.mpirun_dir) && lstat(c->mpirun_dir, &st) < 0 &&
            errno == ENOENT)
            cmp_debug("job %u: %s; mpirun is not placed", jobid, why);
        else
            cmp_log_error("job %u: %s; mpirun is not placed", jobid, why);
        return;
    }
    /* PATH whole, or the script keeps its own: never a cut one */
    char *path = cmp_spank_getenv_all(sp, "PATH", &err), *newpath = NULL;
    if (!path && err.msg[0]) {
        cmp_log_error("job %u: %s; mpirun is not placed", jobid, err.msg);
        return;
    }
    if (!(newpath = cmp_env_list_prepend(c->mpirun_dir, path, 0))) {
        cmp_log_error("job %u: PATH: out of memory; mpirun is not placed", jobid);
        free(path);
        return;
    }
    char *tmp = cmp_spank_getenv_all(sp, "TMPDIR", &err);
    const char *base = tmp && tmp[0] == '/' ? tmp : "/tmp";
    int tl = snprintf(templ, sizeof templ, "%s/clustermap_mpirun.%u.XXXXXX", base, jobid);
    if (tl >= (int)sizeof templ) {
        cmp_debug("job %u: TMPDIR: the rank files' directory under it would be %d "
                  "bytes, more than %d; it goes to /tmp", jobid, tl, CMP_PATH_MAX - 1);
        snprintf(templ, sizeof templ, "/tmp/clustermap_mpirun.%u.XXXXXX", jobid);
    }
    free(tmp);
    int rc = cmp_as_user_output(batch.uid, batch.gid, c->ingest_timeout, make_dir_child,
                                templ, out, sizeof out, &err);
    if (rc != 0) {
        cmp_log_error("job %u: no directory for mpirun's rank files: %s; mpirun is "
                      "not placed", jobid, rc < 0 ? err.msg : out);
        goto out;
    }
    if (out[0] != '/' ||
        snprintf(batch.dir, sizeof batch.dir, "%s", out) >= (int)sizeof batch.dir) {
        batch.dir[0] = '\0';
        goto out;
    }
    if (spank_setenv(sp, CMP_ENV_MPIRUN_DIR, batch.dir, 1) != ESPANK_SUCCESS ||
        spank_setenv(sp, "PATH", newpath, 1) != ESPANK_SUCCESS) {
        cmp_log_error("job %u: cannot set the batch script's environment; mpirun is "
                      "not placed", jobid);
        spank_unsetenv(sp, CMP_ENV_MPIRUN_DIR);
        if (path)
            spank_setenv(sp, "PATH", path, 1);
        else
            spank_unsetenv(sp, "PATH");
    }
out:
    free(path);
    free(newpath);
    if (!batch.dir[0])
        return;
    cmp_debug("job %u: mpirun's rank files in %s", jobid, batch.dir);
    mark_overlay(sp, c, &req);
    batch.jobid = jobid;
    batch.store[0] = '\0';
    struct stat st;
    cm_store_t *s = NULL;
    if ((c->profiling == CMP_PROFILE_NEVER && !c->guard) || stat(c->prof_lib, &st) < 0 ||
        !S_ISREG(st.st_mode))
        return;
    /* The user's directory is made here, before any run asks, only in a
     * store meant to be written (a store made read-only keeps out even
     * root, as srun's "not profiling this run" does for its steps). */
    int create = stat(c->store, &st) < 0 ? errno == ENOENT
               : S_ISDIR(st.st_mode) && (st.st_mode & S_IWUSR);
    if (!(s = cm_store_open(c->store, batch.uid, create ? CM_STORE_CREATE : 0,
                            c->max_profile_size, &err))) {
        cmp_log_error("job %u: profile store: %s; mpirun runs are not profiled", jobid,
                      err.msg);
        return;
    }
    snprintf(batch.store, sizeof batch.store, "%s", cm_store_dir(s));
    cm_store_close(s);
    if (spank_setenv(sp, CMP_ENV_MPIRUN_PROF_LIB, c->prof_lib, 1) != ESPANK_SUCCESS ||
        spank_setenv(sp, CMP_ENV_MPIRUN_STORE, batch.store, 1) != ESPANK_SUCCESS) {
        spank_unsetenv(sp, CMP_ENV_MPIRUN_PROF_LIB);
        batch.store[0] = '\0';
    }
}

/* As the user: remove the rank files and their directory, and the
 * staging directories of this job's mpirun runs left in the store. */
static int remove_dir_child(void *p)
{
    char prefix[64], path[2 * CMP_PATH_MAX];
    int bad = 0;
    (void)p;
    if (batch.dir[0]) {
        cmp_empty_private(batch.dir);
        bad = rmdir(batch.dir) < 0 && errno != ENOENT;
    }
    DIR *d = batch.store[0] ? opendir(batch.store) : NULL;
    struct dirent *e;
    snprintf(prefix, sizeof prefix, CMP_MPIRUN_STAGE_PREFIX "%u.", batch.jobid);
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix))) {
            snprintf(path, sizeof path, "%s/%s", batch.store, e->d_name);
            cmp_empty_private(path);
            bad |= rmdir(path) < 0 && errno != ENOENT;
        }
    if (d)
        closedir(d);
    return bad;
}

void cmp_mpirun_batch_exit(spank_t sp, const cmp_config_t *c)
{
    cm_error_t err;
    memset(&err, 0, sizeof err);
    (void)sp;
    if (!batch.dir[0])
        return;
    if (cmp_as_user(batch.uid, batch.gid, c->ingest_timeout, remove_dir_child, NULL,
                    &err) != 0)
        cmp_log_error("removing %s: %s", batch.dir, err.msg[0] ? err.msg : "failed");
    batch.dir[0] = batch.store[0] = '\0';
}
