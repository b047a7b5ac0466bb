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
 * The decisions are not here: srun's side takes its snapshot of the step
 * (step_input.c), asks the decision (src/launch/step_decide.c), asks the
 * store once when told to (cm_store_step_info), asks the decision again,
 * and this file applies the answer.  Every step left to Slurm goes through
 * cmp_fallback() (log.c) with the decision's reason: SLURM_HOSTFILE stays
 * alone, and one line says why -- to the user who asked for placement,
 * and to the administrator's log through the step.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cm_store.h"
#include "cm_store_step.h"
#include "cm_text.h"
#include "cmp_leftovers.h"
#include "plugin.h"

/* The hostfile this srun wrote, removed at srun's exit. */
static char *hostfile_path;
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
static void clear_markers(const cmp_step_input_t *in)
{
    if (in->our_hostfile && in->hostfile && !strcmp(in->our_hostfile, in->hostfile))
        unsetenv("SLURM_HOSTFILE");
    unsetenv(CMP_ENV_HOSTFILE);
    unsetenv(CMP_ENV_CORES);
    unsetenv(CMP_ENV_GPUS);
    unsetenv(CMP_ENV_GPU_INFO);
    unsetenv(CMP_ENV_PROFILE);
    unsetenv(CMP_ENV_RUN);
    unsetenv(CMP_ENV_NOMPI_KEY);
    unsetenv(CMP_ENV_VERBOSE);
    unsetenv(CMP_ENV_FALLBACK);
    unsetenv(CMP_ENV_OVERLAY);
    unsetenv(CMP_ENV_OVERLAY_PRIO);
}

/* The decision's line for a step left to Slurm. */
static void fallback_line(const cmp_step_decision_t *d)
{
    cmp_fallback(d->nothing_to_do ? CMP_NOTHING_TO_DO : CMP_FALLBACK, d->note, "%s",
                 d->reason);
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

/* mpirun's ranks: the srun of its daemons starts before any of them, so
 * the control file clustermap's mpirun gave them says, in time, whether
 * to record traffic or time only; the record tells that mpirun, once it
 * has returned, how to record the run (mpirun_record.c).  @p prio: the
 * tnbc trace the ranks read ("" none). */
static void mark_mpirun(const cmp_config_t *c, const cmp_step_input_t *in,
                        const cmp_step_decision_t *d, int traffic, const char *run,
                        const char *prio)
{
    cmp_mpirun_record_t r;
    cm_error_t err;
    memset(&r, 0, sizeof r);
    snprintf(r.store, sizeof r.store, "%s", c->store);
    snprintf(r.key, sizeof r.key, "%s", d->key);
    r.ntasks = d->ntasks;
    snprintf(r.step, sizeof r.step, "%s.%s", in->job_id, in->mpirun_pid);
    r.weight = c->merge_weight;
    r.max_bytes = c->max_profile_size;
    /* which lines its user sees, as cmp_log_request decides for srun's */
    r.verbose = d->req.verbose || c->loglevel >= CMP_LOG_INFO ? 2
              : d->asked && c->loglevel > CMP_LOG_QUIET ? 1 : 0;
    snprintf(r.run, sizeof r.run, "%s", run);
    if (cmp_mpirun_record_write(in->mpirun_stage, &r, traffic, prio, &err) < 0)
        cmp_user_error("mpirun launch: the run of job '%s' is not recorded: %s",
                       d->job_name, err.msg);
}

/* Mark the step for the nodes (profile_step.c): profile it as the job's
 * profile, with its traffic (d->traffic) or only its time, and -- for
 * cluster and profile steps, whose runs the guard compares -- how it was
 * placed: "placed|default TRAFFIC HOW J_PLAN J_DEFAULT". */
static void mark_step(const cmp_config_t *c, const cmp_step_input_t *in,
                      const cmp_step_decision_t *d, const char *prio, int placed,
                      const char *how, double j_plan, double j_default)
{
    char run[128];
    int traffic = d->traffic;
    if (d->req.mode == CMP_MODE_CLUSTER || d->req.mode == CMP_MODE_PROFILE)
        snprintf(run, sizeof run, "%s %d %.31s %.17g %.17g", placed ? "placed" : "default",
                 traffic, how && *how ? how : "-", j_plan, j_default);
    else if (!traffic)
        return;   /* nothing to time for */
    else
        snprintf(run, sizeof run, "other 1 - 0 0");
    if (d->rankfile) {
        mark_mpirun(c, in, d, traffic, run, prio);
    } else {
        setenv(CMP_ENV_PROFILE, d->key, 1);
        setenv(CMP_ENV_RUN, run, 1);
        if (d->nompi_key[0])
            setenv(CMP_ENV_NOMPI_KEY, d->nompi_key, 1);
    }
    cmp_debug("%s this step as '%s' with %d tasks", traffic ? "profiling" : "timing",
              d->job_name, d->ntasks);
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
static int write_rankfile(const cmp_step_input_t *in, const cmp_step_decision_t *s,
                          const cmp_plan_out_t *p)
{
    cm_error_t err;
    int shared = 0;
    if (in->mpirun_shared && cmp_parse_int(in->mpirun_shared, 1 << 20, &shared) < 0)
        shared = 0;
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
static int write_plan(const cmp_config_t *c, const cmp_step_input_t *in,
                      const cmp_step_decision_t *s, const cmp_plan_out_t *p)
{
    if (s->rankfile)
        return write_rankfile(in, s, p);
    const char *tmp = in->tmpdir;
    cm_error_t err;
    size_t len = 0;
    if (!tmp || tmp[0] != '/' || access(tmp, W_OK) != 0)
        tmp = "/tmp";
    /* TMPDIR is the user's: sized to it, never cut.  The name says which
     * srun on which host wrote it, so that the next step can tell the
     * files of a killed srun from those of sruns still running. */
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int tfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int swept = tfd >= 0 ? cmp_hostfile_sweep(tfd, getuid(), NULL, host) : 0;
    if (tfd >= 0)
        close(tfd);
    if (swept)
        cmp_debug("removed %d hostfile(s) of killed sruns from %s", swept, tmp);
    char *path = cmp_hostfile_template(tmp, in->job_id, (long)getpid(), host);
    if (!path) {
        cmp_fallback(CMP_FALLBACK, NULL, "cannot name a hostfile in %s: out of memory",
                     tmp);
        return -1;
    }
    char *text = cmp_hostfile_format((const char *const *)s->alloc.names, p->node,
                                     s->ntasks, &len, &err);
    if (!text) {
        cmp_fallback(CMP_FALLBACK, NULL, "%s", err.msg);
        free(path);
        return -1;
    }
    int fd = mkstemp(path);   /* mode 0600 */
    int e = fd < 0 ? errno : 0;
    for (size_t done = 0; fd >= 0 && !e && done < len;) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno != EINTR)
            e = errno;
        else if (w > 0)
            done += (size_t)w;
    }
    free(text);
    if (fd >= 0 && close(fd) != 0 && !e)
        e = errno;
    if (e) {
        if (fd >= 0)
            unlink(path);
        cmp_fallback(CMP_FALLBACK, NULL, "cannot %s a hostfile in %s: %s",
                     fd < 0 ? "create" : "write", tmp, strerror(e));
        free(path);
        return -1;
    }
    for (int r = 0; s->req.verbose && !p->gpu_info && r < s->ntasks && r < 1024; r++)
        cmp_user_info(1, "rank %d -> %s core %d", r, s->alloc.names[p->node[r]],
                      p->core[r]);
    if (s->bind_kept)
        cmp_user_info(s->bind_kept_said, "%s", s->bind_kept);
    if (s->per_gpu && !p->gpu_info) {
        char *line = cmp_gpu_nodes_only(p->gpu_why ? p->gpu_why : "out of memory");
        cmp_user_info(0, "%s", line ? line : "the step is placed on nodes only");
        free(line);
    }
    int bind = c->bind && !s->bind_kept && !s->per_gpu && s->ntasks <= c->bind_max_tasks &&
               s->ntasks <= 16384;
    char *gpus = p->gpu_info && p->gpu && c->bind && s->ntasks <= c->bind_max_tasks
        ? cmp_core_list_format(p->gpu, s->ntasks, &err)
        : NULL;
    /* what gres.conf corrected of hwloc_xml=, one line each; slurmstepd
     * logs them for the admin */
    for (const char *l = p->gpu_info ? p->gpu_notes : NULL; l && *l;) {
        const char *end = strchr(l, '\n');
        int len = end ? (int)(end - l) : (int)strlen(l);
        cmp_user_info(s->req.verbose, "%.*s", len, l);
        l += len + (end != NULL);
    }
    if (p->gpu_info && p->gpu_notes)
        setenv(CMP_ENV_GPU_NOTES, p->gpu_notes, 1);
    if (gpus) {
        setenv(CMP_ENV_GPUS, gpus, 1);
        setenv(CMP_ENV_GPU_INFO, p->gpu_info, 1);
        for (int r = 0; s->req.verbose && r < s->ntasks && r < 1024; r++)
            cmp_user_info(1, "rank %d -> %s gpu %d", r, s->alloc.names[p->node[r]],
                          p->gpu[r]);
    }
    free(gpus);
    char *cores = bind ? cmp_core_list_format(p->core, s->ntasks, &err) : NULL;
    if (bind && !cores)
        cmp_debug("ranks not bound to their cores: %s", err.msg);
    free(hostfile_path);
    hostfile_path = path;
    setenv("SLURM_HOSTFILE", path, 1);
    setenv(CMP_ENV_HOSTFILE, path, 1);
    if (cores)
        setenv(CMP_ENV_CORES, cores, 1);
    free(cores);
    return 0;
}

/* The module's plan indexes srun's arrays: check it before srun trusts it. */
static int plan_valid(const cmp_step_decision_t *s, const cmp_plan_out_t *p, cm_error_t *err)
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

/* The record of a step placed on GPUs names each rank's GPU, NIC and
 * cores (`clustermap explain`), for the first 1024 ranks as the verbose
 * lines do. */
static void explain_gpus(const cmp_step_decision_t *s, const cmp_plan_out_t *p)
{
    char *text = NULL, item[4096];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    fputs(explain_text, f);
    for (int r = 0; r < s->ntasks && r < 1024; r++) {
        const char *nic = "-", *cpus = "-";
        int verbs;
        if (cmp_gpu_info_item(p->gpu_info, p->gpu[r], item, sizeof item) < 0 ||
            cmp_gpu_info_split(item, &nic, &verbs, &cpus) < 0)
            nic = cpus = "-";
        fprintf(f, "rank=%d node=%s gpu=%d nic=%s cpus=%s\n", r, s->alloc.names[p->node[r]],
                p->gpu[r], nic, cpus);
    }
    if (fclose(f) == 0) {
        free(explain_text);
        explain_text = text;
    } else {
        free(text);
    }
}

/* Place the step with the module.  0 when placed, -1 after the fallback
 * line.  @p note ends the summary line (whether the run is profiled). */
static int place(const cmp_config_t *c, const cmp_step_input_t *in,
                 const cmp_step_decision_t *s, const cm_profile_t *prof,
                 const char *found_key, const char *note, placed_t *res)
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
    if (s->per_gpu)
        out.gpu = malloc((size_t)s->ntasks * sizeof *out.gpu);
    cmp_plan_fn *plan = NULL;
    if (!out.node || !out.core || (s->per_gpu && !out.gpu))
        cm_error_set(&err, "out of memory");
    else
        plan = place_module(c, &err);
    cmp_plan_in_t pin = { c, s->req.mode, &s->alloc, s->cpus_per_task, s->ntasks, m,
                          s->per_gpu };
    if (!plan || plan(&pin, &out, &err) < 0 || plan_valid(s, &out, &err) < 0)
        cmp_fallback(CMP_FALLBACK, NULL, "%s", err.msg);
    else if (write_plan(c, in, s, &out) == 0)
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
        if (s->req.mode == CMP_MODE_CLUSTER && out.explain && out.explain[0]) {
            /* one line each, whatever the user put in the name */
            char *job = cm_text_escape(s->job_name), *key = cm_text_escape(s->key);
            free(explain_text);
            char *found = found_key ? cm_text_escape(found_key) : NULL;
            /* looked_up: the keys the store was asked, in order */
            if (!job || !key || (found_key && !found) ||
                asprintf(&explain_text, "clustermap-explain 1\njob=%s\nprofile=%s\n"
                         "looked_up=%s%s%s\n"
                         "ntasks=%d\nnodes=%d of %d\nplaced_in_ms=%.0f\n%s",
                         job, found ? found : key, key, found ? " " : "", found ? found : "",
                         s->ntasks, used, s->alloc.nnodes, (now_s() - t0) * 1e3,
                         out.explain) < 0)
                explain_text = NULL;
            if (explain_text && out.gpu_info)
                explain_gpus(s, &out);
            free(job);
            free(key);
            free(found);
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
    free(out.explain);
    free(out.core);
    free(out.gpu);
    free(out.gpu_info);
    free(out.gpu_why);
    free(out.gpu_notes);
    return rc;
}

/* The tnbc trace the ranks read, as the decision said: srun's own step
 * gets it in its environment, mpirun's ranks (staged runs only) in their
 * control file -- whether or not the run is recorded: a recorded run's
 * control file replaces this one (mark_mpirun).  The trace's prefix, ""
 * for none. */
static const char *use_trace(const cmp_step_input_t *in, const cmp_step_decision_t *d,
                             const cm_store_step_info_t *info)
{
    cm_error_t err;
    if (d->trace < 0) {
        /* said as a fallback is: to the user who asked, or with verbose */
        cmp_user_error("tnbc: not using the trace of job '%s' with %d tasks: %s; "
                       "running in rank order", d->job_name, d->ntasks,
                       info->trace_err.msg);
        return "";
    }
    if (d->trace == 0) {
        if (d->ask & CM_STEP_ASK_TRACE && info->opened)
            cmp_debug("tnbc: no trace of job '%s' with %d tasks yet", d->job_name,
                      d->ntasks);
        return "";
    }
    cmp_user_info(0, "tnbc: priorities from the trace of job '%s' with %d tasks",
                  d->job_name, d->ntasks);
    if (!d->mpirun)
        setenv(CMP_ENV_OVERLAY_PRIO, info->trace_prefix, 1);
    else if (cmp_mpirun_control_write(in->mpirun_stage, "off", info->trace_prefix,
                                      &err) < 0)
        cmp_debug("tnbc: mpirun's ranks run in rank order: %s", err.msg);
    return info->trace_prefix;
}

/* After the store's answer: the lines, the mark, the placement. */
static void apply(const cmp_config_t *c, const cmp_step_input_t *in,
                  const cmp_step_decision_t *d, const cm_store_step_info_t *info)
{
    if (d->set_verbose)
        setenv(CMP_ENV_VERBOSE, "1", 1);
    const char *prio = use_trace(in, d, info);
    if (d->history_ignored)
        cmp_admin_error("run history ignored: %s", info->history_err.msg);
    if (d->fallback)
        fallback_line(d);
    if (d->mark == CMP_MARK_NOW)
        mark_step(c, in, d, prio, 0, d->how, 0, 0);
    if (d->next != CMP_STEP_PLACE)
        return;
    placed_t res = { "", 0, 0 };
    if (place(c, in, d, info->prof, info->found_key, d->place_note, &res) == 0 &&
        d->mark == CMP_MARK_IF_PLACED) {
        char how[48];
        snprintf(how, sizeof how, "%s%s", d->probe ? "probe:" : "", res.how);
        mark_step(c, in, d, prio, 1, how, res.j_plan, res.j_block);
    }
}

void cmp_srun_step(const cmp_config_t *c)
{
    cmp_step_input_t in;
    cmp_step_decision_t d;
    cm_store_step_info_t info;
    cm_error_t err;

    cmp_step_input_read(&in);
    clear_markers(&in);
    cmp_step_decide(c, &in, NULL, &d);
    if (d.debug)
        cmp_debug("not placing: %s", d.debug);
    if (d.log_request)
        cmp_log_request(d.asked, d.req.verbose);
    /* --mapping=off says so before the overlays are marked */
    int off = d.fallback && d.req.mode == CMP_MODE_OFF;
    if (off)
        fallback_line(&d);
    if (d.mark_overlays)
        cmp_overlay_mark(c, &d.req);
    if (d.mpirun_stderr)
        reach_mpirun_stderr();
    if (d.key_program)
        cmp_debug("profile key of this step: '%s' (program %s)", d.key, d.key_program);
    if (d.nompi_key[0])
        cmp_debug("no-MPI key of this step: '%s'", d.nompi_key);
    if (d.fallback && !off)
        fallback_line(&d);
    if (d.next == CMP_STEP_ASK_STORE) {
        /* The deadline covers reading the profile too: one that takes
         * longer to read falls back as a slow placement does. */
        double t0 = cm_profile_clock();
        cm_store_t *st = cm_store_open(c->store, getuid(), 0, c->max_profile_size, &err);
        cm_store_set_read_deadline(st, t0 + c->deadline);
        cm_store_step_info(st, &err, d.key, d.nompi_key[0] ? d.nompi_key : NULL, d.ntasks,
                           d.ask, &info);
        if (info.found_key)
            cmp_user_info(d.req.verbose, "profile of job '%s' with %d tasks: none under "
                          "'%s' (the job name and the program), using the one under "
                          "'%s' (imported, or made with name=)", d.job_name, d.ntasks,
                          d.key, info.found_key);
        cmp_step_decide(c, &in, &info, &d);
        cmp_config_t left = *c;
        left.deadline -= cm_profile_clock() - t0;
        apply(&left, &in, &d, &info);
        cm_store_step_info_free(&info);
        cm_store_close(st);
    }
    cmp_step_decision_free(&d);
    cmp_step_input_free(&in);
}

void cmp_srun_step_exit(const cmp_config_t *c)
{
    if (hostfile_path) {
        unlink(hostfile_path);
        free(hostfile_path);
        hostfile_path = NULL;
    }
    /* srun keeps the ids of the step it created in its environment; the
     * record goes to the user's own store directory, as the user. */
    const char *job, *stp;
    char key[64];
    cm_error_t err;
    cmp_step_exit_ids(&job, &stp);
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
