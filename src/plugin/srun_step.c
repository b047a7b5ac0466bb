/*
 * srun_step.c -- what srun does with a step (local context, clustermap.so).
 *
 * srun reads SLURM_HOSTFILE after its options are parsed and before it
 * creates the step, and it uses line i as the node of rank i.  So, once per
 * srun, from slurm_spank_init: work out which mode applies and how many
 * tasks the step will have (srun's own command line, then the allocation's
 * environment), look the job up in the profile store, and -- only when the
 * step is to be placed -- load the placement module (place.c), which plans
 * it on the allocation's machine tree; then write a private hostfile and
 * point SLURM_HOSTFILE at it.  The core each rank got on its node travels
 * to the tasks in CLUSTERMAP_CORES (bind.c); a step to profile is marked
 * with CLUSTERMAP_STEP_PROFILE (profile_step.c).
 *
 * Every return that leaves the step to Slurm goes through cmp_fallback()
 * (log.c) with its reason: SLURM_HOSTFILE stays alone, and one line says
 * why -- to the user who asked for placement, and to the administrator's
 * log through the step.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm_version.h>

#include "cm_store.h"
#include "plugin.h"

/* The hostfile this srun wrote, removed at srun's exit. */
static char hostfile_path[CMP_PATH_MAX];
/* The record of a cluster placement, kept at srun's exit (the step id is
 * known then) for `clustermap explain`. */
static char *explain_text;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Markers inherited from an enclosing step are not ours. */
static void clear_markers(void)
{
    const char *ours = getenv(CMP_ENV_HOSTFILE), *hf = getenv("SLURM_HOSTFILE");
    if (ours && hf && !strcmp(ours, hf))
        unsetenv("SLURM_HOSTFILE");
    unsetenv(CMP_ENV_HOSTFILE);
    unsetenv(CMP_ENV_CORES);
    unsetenv(CMP_ENV_PROFILE);
    unsetenv(CMP_ENV_RUN);
    unsetenv(CMP_ENV_VERBOSE);
    unsetenv(CMP_ENV_FALLBACK);
    unsetenv(CMP_ENV_OVERLAY);
    unsetenv(CMP_ENV_OVERLAY_PRIO);
}

/* What srun will launch, and where it may. */
typedef struct step {
    cmp_request_t req;
    cmp_srun_args_t sa;
    char job_name[CMP_NAME_MAX + 1];  /* what the user calls it (messages) */
    char key[CMP_NAME_MAX + 1];       /* its profile: job name and program */
    int ntasks;
    int cpus_per_task;
    cmp_alloc_t alloc;
    int asked;                        /* --mapping given (not default=) */
    const char *rankfile;             /* mpirun's daemons: the rank file
                                         clustermap's mpirun named, NULL
                                         for a step of srun's own */
    char prio[2 * CMP_PATH_MAX];      /* the tnbc trace the ranks read
                                         ("" none) */
} step_t;

/* The mode that applies: srun's --mapping, else the one sbatch/salloc
 * passed down, else plugstack's default=.  0 when there is nothing to do. */
static int read_request(const cmp_config_t *c, step_t *s)
{
    const char *value = s->sa.has_mapping ? s->sa.mapping : getenv(CMP_OPTION_ENV);
    if (!value)
        s->req.mode = c->default_mode;
    else if (cmp_request_parse(value, &s->req, NULL) < 0)
        return 0;   /* the option callback reports it */
    cmp_log_request(value != NULL, s->req.verbose);
    s->asked = value != NULL;
    if (s->req.mode == CMP_MODE_OFF && value)
        cmp_fallback(CMP_NOTHING_TO_DO, NULL, "--mapping=off");
    return s->req.mode != CMP_MODE_OFF && s->req.mode != CMP_MODE_HELP &&
           s->req.mode != CMP_MODE_UNSET;
}

/* Open MPI ties the stdio of the srun that starts its daemons to
 * /dev/null, so a line there would be lost: the job's stderr is mpirun's,
 * srun's parent.  Opened O_APPEND (Slurm opens job files so too) and
 * non-blocking, it is written to like any other stderr. */
static void reach_mpirun_stderr(void)
{
    struct stat err, null;
    char path[64];
    if (fstat(2, &err) < 0 || !S_ISCHR(err.st_mode) || stat("/dev/null", &null) < 0 ||
        err.st_rdev != null.st_rdev)
        return;
    snprintf(path, sizeof path, "/proc/%ld/fd/2", (long)getppid());
    int fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0)
        cmp_log_user_fd(fd);
}

/* mpirun starting its daemons: why its ranks stay where mpirun puts them,
 * NULL when clustermap's mpirun gave it a rank file to place them with --
 * this srun's parent is the mpirun it started (in its own process). */
static const char *mpirun_left(char *buf, size_t size)
{
    const char *why = getenv(CMP_ENV_MPIRUN_WHY);
    const char *ours = getenv(CMP_ENV_MPIRUN_RANKFILE);
    const char *pid = getenv(CMP_ENV_MPIRUN_PID);
    char parent[32];
    snprintf(parent, sizeof parent, "%ld", (long)getppid());
    reach_mpirun_stderr();
    if (why && *why && pid && !strcmp(pid, parent)) {
        snprintf(buf, size, "mpirun launch: %s", why);
        return buf;
    }
    if (!ours || !*ours || !pid || strcmp(pid, parent))
        return "mpirun launch: not started through clustermap's mpirun (a path to "
               "another mpirun, one ahead in PATH, salloc, or mpirun=no)";
    return NULL;
}

/* Why srun, not clustermap, decides where this step's ranks go; NULL when
 * clustermap may.  The reason is the user's line (and the admin's). */
static const char *left_to_slurm(const cmp_srun_args_t *sa, char *buf, size_t size)
{
    const char *oc = getenv("SLURM_OVERCOMMIT");
    if (!getenv("SLURM_JOB_ID"))
        return "srun outside an allocation (it makes its own)";
    /* before --jobid: Open MPI 6's PRRTE names the job it launches into */
    if (cmp_srun_is_mpirun(sa))
        return mpirun_left(buf, size);
    if (sa->jobid)
        return "srun --jobid (an allocation other than this environment's)";
    /* Components of a het step are separate launches to srun: a rank file
     * for one would not know the others'.  Not profiled either, so the
     * profile of a component is never taken for the whole. */
    if (sa->het)
        return "heterogeneous step (--het-group or ':'): neither placed nor profiled";
    const char *given = sa->nodelist ? "-w" : sa->exclude ? "-x" : sa->relative ? "-r"
                      : sa->distribution ? "-m" : getenv("SLURM_HOSTFILE") ? "SLURM_HOSTFILE"
                      : NULL;
    if (given) {
        snprintf(buf, size, "the step's layout is given (%s)", given);
        return buf;
    }
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
    /* srun 24.11 and 26.05 (measured; 23.11 changed the rules for this
     * layout) stop with "--nodes is incompatible with
     * --distribution=arbitrary" when -N and SLURM_HOSTFILE meet: placing
     * the step would fail it. */
    if (sa->nodes_min > 0)
        return "srun -N: this Slurm refuses a node count together with the "
               "arbitrary layout a placement needs";
#endif
    /* Overcommitted steps have more tasks than the slots the plan knows. */
    if (sa->overcommit || (oc && *oc && strcmp(oc, "0")))
        return sa->overcommit ? "overcommitted step (-O)"
                              : "overcommitted step (SLURM_OVERCOMMIT)";
    return NULL;
}

/* "(it has profiles for 4, 16 tasks)" when other task counts exist. */
static void other_counts(cm_store_t *st, const char *name, char *buf, size_t size)
{
    char file[512];
    buf[0] = '\0';
    if (cm_store_filename(name, 1, file, sizeof file, NULL) < 0)
        return;
    char *dot = strrchr(file, '.');       /* "<escaped>.1.json" */
    if (!dot)
        return;
    *dot = '\0';
    dot = strrchr(file, '.');
    if (!dot)
        return;
    dot[1] = '\0';                        /* "<escaped>." */
    size_t plen = strlen(file);
    DIR *d = opendir(cm_store_dir(st));
    if (!d)
        return;
    struct dirent *e;
    size_t used = 0;
    int found = 0;
    while ((e = readdir(d)) && used + 16 < size) {
        int cnt;
        char num[16];
        if (strncmp(e->d_name, file, plen))
            continue;
        const char *rest = e->d_name + plen;
        size_t l = strcspn(rest, ".");
        if (l == 0 || l >= sizeof num || strcmp(rest + l, ".json"))
            continue;
        memcpy(num, rest, l);
        num[l] = '\0';
        if (cmp_parse_int(num, CM_PROFILE_MAX_TASKS, &cnt) < 0)
            continue;
        int w = snprintf(buf + used, size - used, "%s%d", found ? ", " : " (it has profiles for ", cnt);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
        found++;
    }
    closedir(d);
    if (found && used + 8 < size)
        snprintf(buf + used, size - used, " tasks)");
    else if (!found)
        buf[0] = '\0';
}

/* Whether this run can be recorded into the store, and the note that says
 * so on the step's line: " (profiling this run)" or why not.  @p failed:
 * the store already failed with that message. */
static int record_note(cm_store_t *st, const char *failed, char *note, size_t size)
{
    cm_error_t err;
    const char *why = failed ? failed
                    : cm_store_can_record(st, &err) < 0 ? err.msg : NULL;
    if (why)
        snprintf(note, size, " (not profiling this run: %s)", why);
    else
        snprintf(note, size, " (profiling this run)");
    return !why;
}

/* The note of an mpirun run that clustermap's mpirun could not stage for
 * profiling (mpirun_batch.c logs why): the store's own reason when it has
 * one, as record_note() gives it for srun's steps. */
static void unstaged_note(cm_store_t *st, const char *failed, char *note, size_t size)
{
    if (record_note(st, failed, note, size))
        snprintf(note, size, " (not profiling this run: clustermap's mpirun could not "
                 "stage it; see slurmd's log)");
}

/* mpirun's ranks: the srun of its daemons starts before any of them, so
 * the control file clustermap's mpirun gave them says, in time, whether
 * to record traffic or time only; the record tells that mpirun, once it
 * has returned, how to record the run (mpirun_record.c). */
static void mark_mpirun(const cmp_config_t *c, const step_t *s, int traffic,
                        const char *run)
{
    cmp_mpirun_record_t r;
    cm_error_t err;
    memset(&r, 0, sizeof r);
    snprintf(r.store, sizeof r.store, "%s", c->store);
    snprintf(r.key, sizeof r.key, "%s", s->key);
    r.ntasks = s->ntasks;
    snprintf(r.step, sizeof r.step, "%s.%s", getenv("SLURM_JOB_ID"),
             getenv(CMP_ENV_MPIRUN_PID));
    r.weight = c->merge_weight;
    r.max_bytes = c->max_profile_size;
    /* which lines its user sees, as cmp_log_request decides for srun's */
    r.verbose = s->req.verbose || c->loglevel >= CMP_LOG_INFO ? 2
              : s->asked && c->loglevel > CMP_LOG_QUIET ? 1 : 0;
    snprintf(r.run, sizeof r.run, "%s", run);
    if (cmp_mpirun_record_write(getenv(CMP_ENV_MPIRUN_STAGE), &r, traffic, s->prio,
                                &err) < 0)
        cmp_user_error("mpirun launch: the run of job '%s' is not recorded: %s",
                       s->job_name, err.msg);
}

/* Mark the step for the nodes (profile_step.c): profile it as the job's
 * profile, with its traffic (@p traffic) or only its time, and -- for
 * cluster and profile steps, whose runs the guard compares -- how it was
 * placed: "placed|default TRAFFIC HOW J_PLAN J_DEFAULT". */
static void mark_step(const cmp_config_t *c, const step_t *s, int traffic, int placed,
                      const char *how, double j_plan, double j_default)
{
    char run[128];
    if (s->req.mode == CMP_MODE_CLUSTER || s->req.mode == CMP_MODE_PROFILE)
        snprintf(run, sizeof run, "%s %d %.31s %.17g %.17g", placed ? "placed" : "default",
                 traffic, how && *how ? how : "-", j_plan, j_default);
    else if (!traffic)
        return;   /* nothing to time for */
    else
        snprintf(run, sizeof run, "other 1 - 0 0");
    if (s->rankfile) {
        mark_mpirun(c, s, traffic, run);
    } else {
        setenv(CMP_ENV_PROFILE, s->key, 1);
        setenv(CMP_ENV_RUN, run, 1);
    }
    cmp_debug("%s this step as '%s' with %d tasks", traffic ? "profiling" : "timing",
              s->job_name, s->ntasks);
}

/* The placement module's entry point: place_lib=, else clustermap-place.so
 * next to this clustermap.so.  Loaded once per srun and never unloaded:
 * OpenBLAS keeps threads, and srun ends soon anyway. */
static cmp_plan_fn *place_module(const cmp_config_t *c, cm_error_t *err)
{
    char path[CMP_PATH_MAX + sizeof CMP_PLACE_LIB_NAME];
    Dl_info self;
    if (c->place_lib[0]) {
        snprintf(path, sizeof path, "%s", c->place_lib);
    } else {
        const char *slash = dladdr((void *)cmp_srun_step, &self) && self.dli_fname
                          ? strrchr(self.dli_fname, '/') : NULL;
        if (!slash) {
            cm_error_set(err, "placement module: cannot tell where clustermap.so is; "
                         "set place_lib=");
            return NULL;
        }
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - self.dli_fname),
                 self.dli_fname, CMP_PLACE_LIB_NAME);
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cmp_plan_fn *fn = NULL;
    if (h)
        *(void **)&fn = dlsym(h, CMP_PLAN_SYMBOL);   /* POSIX's cast */
    if (!fn) {
        cm_error_set(err, "placement module %s: %s", path, dlerror());
        if (h)
            dlclose(h);
    }
    return fn;
}

/* mpirun's daemons: the plan replaces the default layout in the rank file
 * mpirun reads once they are up.  0, or -1 after the fallback line. */
static int write_rankfile(const step_t *s, const cmp_plan_out_t *p)
{
    cm_error_t err;
    int shared = cmp_env_int(CMP_ENV_MPIRUN_SHARED, 1 << 20);
    if (cmp_rankfile_write(s->rankfile, s->alloc.names, p->node, p->core, s->ntasks,
                           shared, &err) < 0) {
        cmp_fallback(CMP_FALLBACK, NULL, "%s", err.msg);
        return -1;
    }
    for (int r = 0; s->req.verbose && r < s->ntasks && r < 1024; r++)
        cmp_user_info(1, "rank %d -> %s core %d", r, s->alloc.names[p->node[r]],
                      p->core[r]);
    if (shared)
        cmp_user_info(s->req.verbose, "a node runs more ranks than the %d cores "
                      "mpirun's node has: each rank is bound to all of them", shared);
    return 0;
}

/* Write the hostfile, point SLURM_HOSTFILE at it and hand the cores to
 * the tasks.  0, or -1 after the fallback line. */
static int write_plan(const cmp_config_t *c, const step_t *s, const cmp_plan_out_t *p)
{
    if (s->rankfile)
        return write_rankfile(s, p);
    const char *tmp = getenv("TMPDIR");
    char path[CMP_PATH_MAX];
    if (!tmp || tmp[0] != '/' || access(tmp, W_OK) != 0)
        tmp = "/tmp";
    snprintf(path, sizeof path, "%s/clustermap-hosts.%s.XXXXXX", tmp,
             getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "x");
    int fd = mkstemp(path);   /* mode 0600 */
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(path);
        }
        cmp_fallback(CMP_FALLBACK, NULL, "cannot create a hostfile in %s: %s", tmp,
                     strerror(e));
        return -1;
    }
    int bind = c->bind && s->ntasks <= c->bind_max_tasks && s->ntasks <= 16384;
    size_t cap = bind ? (size_t)s->ntasks * 8 + 1 : 0, used = 0;
    char *cores = bind ? malloc(cap) : NULL;
    for (int r = 0; r < s->ntasks; r++) {
        const char *host = s->alloc.names[p->node[r]];
        fprintf(f, "%s\n", host);
        if (cores)
            used += (size_t)snprintf(cores + used, cap - used, "%s%d", r ? "," : "",
                                     p->core[r]);
        if (s->req.verbose && r < 1024)
            cmp_user_info(1, "rank %d -> %s core %d", r, host, p->core[r]);
    }
    if (fclose(f) != 0) {
        int e = errno;
        unlink(path);
        free(cores);
        cmp_fallback(CMP_FALLBACK, NULL, "cannot write %s: %s", path, strerror(e));
        return -1;
    }
    snprintf(hostfile_path, sizeof hostfile_path, "%s", path);
    setenv("SLURM_HOSTFILE", path, 1);
    setenv(CMP_ENV_HOSTFILE, path, 1);
    if (cores)
        setenv(CMP_ENV_CORES, cores, 1);
    free(cores);
    return 0;
}

/* The module's plan indexes srun's arrays: check it before srun trusts it. */
static int plan_valid(const step_t *s, const cmp_plan_out_t *p, cm_error_t *err)
{
    for (int r = 0; r < s->ntasks; r++)
        if (p->node[r] < 0 || p->node[r] >= s->alloc.nnodes || p->core[r] < 0 ||
            p->core[r] >= s->alloc.slots[p->node[r]])
            return cm_error_set(err, "the placement module put rank %d on node %d "
                                "slot %d, outside the allocation", r, p->node[r],
                                p->core[r]);
    return 0;
}

/* What place() chose, for the run's record. */
typedef struct placed {
    char how[32];
    double j_plan, j_block;
} placed_t;

/* Place the step with the module.  0 when placed, -1 after the fallback
 * line.  @p note ends the summary line (whether the run is profiled). */
static int place(const cmp_config_t *c, const step_t *s, const cm_profile_t *prof,
                 const char *note, placed_t *res)
{
    cm_error_t err;
    double t0 = now_s();
    cm_matrix_t *m = NULL;
    cmp_plan_out_t out;
    int rc = -1;
    if (s->req.mode == CMP_MODE_CLUSTER && !(m = cm_profile_matrix(prof, CM_PART_ALL, &err))) {
        cmp_fallback(CMP_FALLBACK, NULL, "profile of job '%s': %s", s->job_name, err.msg);
        return -1;
    }
    memset(&out, 0, sizeof out);
    out.node = malloc((size_t)s->ntasks * sizeof *out.node);
    out.core = malloc((size_t)s->ntasks * sizeof *out.core);
    cmp_plan_fn *plan = NULL;
    if (!out.node || !out.core)
        cm_error_set(&err, "out of memory");
    else
        plan = place_module(c, &err);
    cmp_plan_in_t in = { c, s->req.mode, &s->alloc, s->cpus_per_task, s->ntasks, m };
    if (!plan || plan(&in, &out, &err) < 0 || plan_valid(s, &out, &err) < 0)
        cmp_fallback(CMP_FALLBACK, NULL, "%s", err.msg);
    else if (write_plan(c, s, &out) == 0)
        rc = 0;
    if (rc == 0) {
        snprintf(res->how, sizeof res->how, "%s", out.how);
        res->j_plan = out.j_plan;
        res->j_block = out.j_block;
        int used = 0;   /* nodes the plan uses */
        char *seen = calloc((size_t)s->alloc.nnodes, 1);
        for (int r = 0; seen && r < s->ntasks; r++)
            if (!seen[out.node[r]]++)
                used++;
        free(seen);
        if (s->req.mode == CMP_MODE_CLUSTER && out.explain[0]) {
            size_t len = strlen(out.explain) + 1024;
            free(explain_text);
            if ((explain_text = malloc(len)))
                snprintf(explain_text, len, "clustermap-explain 1\njob=%s\nprofile=%s\n"
                         "ntasks=%d\nnodes=%d of %d\nplaced_in_ms=%.0f\n%s",
                         s->job_name, s->key, s->ntasks, used, s->alloc.nnodes,
                         (now_s() - t0) * 1e3, out.explain);
        }
        if (s->req.mode == CMP_MODE_CLUSTER)
            cmp_user_info(s->req.verbose, "placed %d tasks of job '%s' on %d of %d nodes "
                          "with %s in %.0f ms: predicted cost J=%.6g, Slurm's default "
                          "J=%.6g%s",
                          s->ntasks, s->job_name, used, s->alloc.nnodes, out.how,
                          (now_s() - t0) * 1e3, out.j_plan, out.j_block, note);
        else
            cmp_user_info(s->req.verbose, "placed %d tasks of job '%s' %s on %d of %d "
                          "nodes%s", s->ntasks, s->job_name, out.how, used,
                          s->alloc.nnodes, note);
    }
    cm_matrix_free(m);
    free(out.node);
    free(out.core);
    return rc;
}

/* The guard's decision for a step placed from its profile: 1 to place,
 * 2 to place as a probe (@p probe gets its note), 0 to leave it to Slurm's
 * default (after its line; @p why gets the reason's word for the run's
 * history).  No history, or an unreadable one, means place. */
static int guard_allows(const cmp_config_t *c, const step_t *s, cm_store_t *st,
                        const char *note, char *probe, size_t n, const char **why)
{
    cm_guard_rule_t rule;
    cm_guard_t g;
    cm_error_t err;
    int count = 0;
    probe[0] = '\0';
    if (!c->guard || !st)
        return 1;
    cm_run_t *runs = malloc(CM_HISTORY_MAX_RUNS * sizeof *runs);
    if (!runs)
        return 1;
    if (cm_store_history_load(st, s->key, s->ntasks, runs, &count, &err) < 0) {
        cmp_admin_error("run history ignored: %s", err.msg);
        count = 0;
    }
    cm_guard_rule_init(&rule);
    rule.window = c->guard_window;
    rule.probe = c->guard_probe;
    rule.recheck = c->guard_recheck;
    cm_guard_decide(runs, count, &rule, &g);
    free(runs);
    *why = cm_guard_reason_name(g.reason);
    if (!g.place) {
        if (g.reason == CM_GUARD_SLOWER)
            cmp_fallback(CMP_FALLBACK, note, "job '%s' ran slower when placed: %s",
                         s->job_name, g.why);
        else
            cmp_fallback(CMP_FALLBACK, note, "job '%s': %s", s->job_name, g.why);
        return 0;
    }
    if (g.reason == CM_GUARD_PROBE)
        snprintf(probe, n, " (a probe: %s)", g.why);
    return g.reason == CM_GUARD_PROBE ? 2 : 1;
}

/* cluster, block, cyclic: place from the profile (cluster) or the layout,
 * and profile the run when there is no profile yet (or profile=always).
 * Cluster runs with a profile are timed (guard=yes) for the guard, which
 * may leave the step to Slurm's default. */
static void place_step(const cmp_config_t *c, const step_t *s, cm_store_t *st,
                       const cm_error_t *store_err)
{
    cm_profile_t *prof = NULL;
    cm_error_t err = *store_err;
    char note[600], probe[300];
    /* mpirun's runs only when clustermap's mpirun staged them */
    int staged = !s->rankfile || getenv(CMP_ENV_MPIRUN_STAGE);
    int may_profile = staged && !s->req.noprofile && c->profiling != CMP_PROFILE_NEVER;
    int may_time = staged && !s->req.noprofile && c->guard;
    int cluster = s->req.mode == CMP_MODE_CLUSTER;
    int found = st ? cm_store_load(st, s->key, s->ntasks, &prof, &err) : -1;
    if (found < 0 && cluster) {
        cmp_fallback(CMP_FALLBACK, NULL, "cannot use the profile of job '%s' with %d "
                     "tasks: %s", s->job_name, s->ntasks, err.msg);
    } else if (!found && cluster) {
        char others[256];
        int record = may_profile && record_note(st, NULL, note, sizeof note);
        int unstaged = !staged && !s->req.noprofile && c->profiling != CMP_PROFILE_NEVER;
        if (unstaged)
            unstaged_note(st, NULL, note, sizeof note);
        other_counts(st, s->key, others, sizeof others);
        cmp_fallback(CMP_FALLBACK, may_profile || unstaged ? note : NULL, "no profile "
                     "for job '%s' with %d tasks%s", s->job_name, s->ntasks, others);
        if (record)
            mark_step(c, s, 1, 0, NULL, 0, 0);
    } else {
        /* block and cyclic need no profile: a store that failed only
         * means this run is not recorded */
        int want = may_profile && (c->profiling == CMP_PROFILE_ALWAYS || found <= 0);
        int record = want && record_note(st, found < 0 ? err.msg : NULL, note,
                                         sizeof note);
        char scratch[600];
        int timed = !record && cluster && may_time && record_note(st, NULL, scratch,
                                                                  sizeof scratch);
        placed_t res = { "", 0, 0 };
        const char *why = "-";
        int allowed = cluster ? guard_allows(c, s, st, want ? note : "", probe,
                                             sizeof probe, &why) : 1;
        if (!allowed) {
            if (record || timed)
                mark_step(c, s, record, 0, why, 0, 0);
        } else if (place(c, s, prof, want ? note : cluster ? probe : "", &res) == 0 &&
                   (record || timed)) {
            char how[48];
            snprintf(how, sizeof how, "%s%s", allowed == 2 ? "probe:" : "", res.how);
            mark_step(c, s, record, 1, how, res.j_plan, res.j_block);
        }
    }
    cm_profile_free(prof);
}

/* --mapping=profile: Slurm's placement, and a profile of the run. */
static void profile_only(const cmp_config_t *c, const step_t *s, cm_store_t *st,
                         const cm_error_t *store_err)
{
    char note[600];
    if (s->req.noprofile)
        cmp_fallback(CMP_NOTHING_TO_DO, NULL, "--mapping=profile,noprofile");
    else if (s->rankfile && !getenv(CMP_ENV_MPIRUN_STAGE)) {
        unstaged_note(st, st ? NULL : store_err->msg, note, sizeof note);
        cmp_fallback(CMP_FALLBACK, note, "--mapping=profile of job '%s' with %d tasks",
                     s->job_name, s->ntasks);
    } else if (!record_note(st, st ? NULL : store_err->msg, note, sizeof note))
        cmp_fallback(CMP_FALLBACK, note, "--mapping=profile of job '%s' with %d tasks",
                     s->job_name, s->ntasks);
    else {
        cmp_fallback(CMP_NOTHING_TO_DO, note, "--mapping=profile of job '%s' with %d "
                     "tasks", s->job_name, s->ntasks);
        mark_step(c, s, 1, 0, NULL, 0, 0);
    }
}

/* The step's profile: name=NAME is the user's explicit choice; otherwise
 * the job name and the program srun (or mpirun: @p program, resolved by
 * clustermap's mpirun) launches (cm_profile_program_key). */
static void profile_key(step_t *s, const char *program)
{
    char path[CMP_PATH_MAX];
    snprintf(s->key, sizeof s->key, "%s", s->job_name);
    if (s->req.name[0] || !(program ? program : s->sa.command_arg)[0])
        return;
    if (program)
        snprintf(path, sizeof path, "%s", program);
    else
        cmp_resolve_command(s->sa.command_arg, path, sizeof path);
    if (cm_profile_program_key(s->job_name, path, s->key, sizeof s->key, NULL) < 0)
        snprintf(s->key, sizeof s->key, "%s", s->job_name);
    else
        cmp_debug("profile key of this step: '%s' (program %s)", s->key, path);
}

/* Give each node exactly the tasks Slurm's own layout runs there (on the
 * first min(nodes, tasks) nodes, as srun does), so that the plan moves
 * ranks, not load.  A step whose tasks do not fit is left as it is: the
 * placement then refuses it and Slurm places it. */
static void slurm_counts(cmp_alloc_t *a, int ntasks)
{
    int n = a->nnodes < ntasks ? a->nnodes : ntasks;
    int *count = n > 0 ? malloc((size_t)n * sizeof *count) : NULL;
    if (count && cmp_step_layout(a->slots, n, ntasks, count) == 0) {
        memcpy(a->slots, count, (size_t)n * sizeof *count);
        a->nnodes = n;
    }
    free(count);
}

/* mpirun's daemons: its ranks, on the job's nodes with the tasks Slurm
 * gave the job on each (as clustermap's mpirun read them: Open MPI 6
 * drops them from this srun's environment), filled node by node as mpirun
 * does.  0, or -1 with @p err. */
static int mpirun_alloc(step_t *s, cm_error_t *err)
{
    int n = 0;
    s->rankfile = getenv(CMP_ENV_MPIRUN_RANKFILE);
    s->cpus_per_task = 1;
    if (cmp_alloc_tasks(CMP_ENV_MPIRUN_NODES, CMP_ENV_MPIRUN_TASKS, &s->alloc, err) < 0)
        return -1;
    if (cmp_parse_int(getenv(CMP_ENV_MPIRUN_NP), CM_PROFILE_MAX_TASKS, &s->ntasks) < 0)
        return cm_error_set(err, CMP_ENV_MPIRUN_NP " is not a rank count");
    if (cmp_mpirun_fill(s->alloc.slots, s->alloc.nnodes, s->ntasks, s->alloc.slots) < 0)
        return cm_error_set(err, "mpirun -np %d: more ranks than the job's tasks",
                            s->ntasks);
    for (int i = 0; i < s->alloc.nnodes; i++)
        if (s->alloc.slots[i] > 0)
            n = i + 1;
    s->alloc.nnodes = n;   /* the filled nodes come first */
    return 0;
}

void cmp_srun_step(const cmp_config_t *c)
{
    step_t s;
    cm_error_t err;
    char buf[320];
    int argc = 0;
    char **argv = NULL;

    memset(&s, 0, sizeof s);
    clear_markers();
    int args_ok = cmp_argv_self(&argc, &argv, &err) == 0;
    if (args_ok) {
        int rc = cmp_srun_args_parse(argc, argv, &s.sa, &err);
        cmp_argv_free(argc, argv);
        if (rc < 0 || s.sa.help) {
            /* srun refuses this command line, or only prints: no step */
            cmp_debug("not placing: %s", rc < 0 ? err.msg : "srun will not launch");
            return;
        }
    }
    int todo = read_request(c, &s);
    /* The overlays, whatever becomes of the placement; not for the srun
     * that starts mpirun's daemons (docs/overlays.md: mpirun needs them
     * by hand). */
    if (args_ok && !cmp_srun_is_mpirun(&s.sa))
        cmp_overlay_mark(c, &s.req);
    if (!todo)
        return;
    const char *why = args_ok ? left_to_slurm(&s.sa, buf, sizeof buf) : err.msg;
    if (why) {
        cmp_fallback(CMP_FALLBACK, NULL, "%s", why);
        return;
    }
    int mpirun = cmp_srun_is_mpirun(&s.sa);
    s.cpus_per_task = s.sa.cpus_per_task ? s.sa.cpus_per_task
                                         : cmp_env_int("SLURM_CPUS_PER_TASK", 1 << 16);
    if (s.cpus_per_task < 1)
        s.cpus_per_task = 1;
    if (mpirun ? mpirun_alloc(&s, &err) < 0
               : cmp_alloc_read(&s.sa, s.cpus_per_task, &s.alloc, &err) < 0) {
        cmp_fallback(CMP_FALLBACK, NULL, "%s%s", mpirun ? "mpirun launch: " : "", err.msg);
        cmp_alloc_free(&s.alloc);
        return;
    }
    if (!mpirun) {
        s.ntasks = cmp_step_ntasks(&s.sa, s.alloc.nnodes);
        /* No node ever holds more than the step's tasks: planning costs
         * what the step costs, however many CPUs the allocation's nodes
         * have. */
        for (int i = 0; i < s.alloc.nnodes && s.ntasks > 0; i++)
            if (s.alloc.slots[i] > s.ntasks)
                s.alloc.slots[i] = s.ntasks;
        if (!s.req.pack)
            slurm_counts(&s.alloc, s.ntasks);
    }
    const char *name = s.req.name[0] ? s.req.name
                     : s.sa.job_name[0] ? s.sa.job_name : getenv("SLURM_JOB_NAME");
    snprintf(s.job_name, sizeof s.job_name, "%s", name && *name ? name : "noname");
    profile_key(&s, mpirun ? getenv(CMP_ENV_MPIRUN_PROGRAM) : NULL);
    cm_store_t *st = NULL;
    if (s.ntasks <= 1)
        cmp_fallback(CMP_NOTHING_TO_DO, NULL, "one task: nothing to place");
    else if (s.ntasks > c->max_tasks)
        cmp_fallback(CMP_FALLBACK, NULL, "%d tasks are more than max_tasks=%d", s.ntasks,
                     c->max_tasks);
    else if ((st = cm_store_open(c->store, getuid(), 0, c->max_profile_size, &err)) &&
             cm_store_nompi(st, s.key, s.ntasks))
        cmp_fallback(CMP_NOTHING_TO_DO, NULL, "job '%s' with %d tasks did not call "
                     "MPI_Init when it was profiled: neither placed nor profiled",
                     s.job_name, s.ntasks);
    else {
        if (s.req.verbose)
            setenv(CMP_ENV_VERBOSE, "1", 1);
        /* The trace the ranks read.  srun's own step: the overlays decided
         * as cmp_overlay_mark above, the trace in the step's environment.
         * mpirun's ranks (staged runs only): the overlays clustermap's
         * mpirun gave them, the trace in their control file -- whether or
         * not the run is recorded: a recorded run's control file replaces
         * this one (mark_mpirun). */
        const char *stage = mpirun ? getenv(CMP_ENV_MPIRUN_STAGE) : NULL;
        unsigned bits = mpirun ? cmp_mpirun_overlay_bits() : cmp_overlay_bits(c, &s.req);
        cm_error_t cerr;
        if ((!mpirun || stage) &&
            cmp_overlay_prio_find(bits, st, s.key, s.job_name, s.ntasks, s.prio,
                                  sizeof s.prio)) {
            if (!mpirun)
                setenv(CMP_ENV_OVERLAY_PRIO, s.prio, 1);
            else if (cmp_mpirun_control_write(stage, "off", s.prio, &cerr) < 0)
                cmp_debug("tnbc: mpirun's ranks run in rank order: %s", cerr.msg);
        }
        if (s.req.mode == CMP_MODE_PROFILE)
            profile_only(c, &s, st, &err);
        else
            place_step(c, &s, st, &err);
    }
    cm_store_close(st);
    cmp_alloc_free(&s.alloc);
}

void cmp_srun_step_exit(const cmp_config_t *c)
{
    if (hostfile_path[0]) {
        unlink(hostfile_path);
        hostfile_path[0] = '\0';
    }
    /* srun keeps the ids of the step it created in its environment; the
     * record goes to the user's own store directory, as the user. */
    const char *job = getenv("SLURM_JOB_ID"), *stp = getenv("SLURM_STEP_ID");
    char key[64];
    cm_error_t err;
    if (c && explain_text && job && stp &&
        snprintf(key, sizeof key, "%s.%s", job, stp) < (int)sizeof key) {
        cm_store_t *st = cm_store_open(c->store, getuid(), 0, c->max_profile_size, &err);
        if (!st || cm_store_explain_put(st, key, explain_text, &err) < 0)
            cmp_debug("no explain record for step %s: %s", key, err.msg);
        cm_store_close(st);
    }
    free(explain_text);
    explain_text = NULL;
}
