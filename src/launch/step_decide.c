/*
 * step_decide.c -- what srun does with a step (cmp_step.h): which mode
 * applies, why a step is left to Slurm, how many tasks it has and where
 * they may go, and -- from the store's answer -- whether it is placed,
 * profiled or timed, and what its line says.
 *
 * The checks run in the order srun's side has always run them, and only
 * the first reason a step is left to Slurm is its line: the order is part
 * of what the user sees.  Every text here is the user's line, word for
 * word (the cluster tests test/sh/t051*.t read them).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_profile.h"
#include "launch.h"

/* A malloc'd line: never cut, whatever the user's names are. */
static char *text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *text(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

static void leave(cmp_step_decision_t *d, int nothing_to_do, char *reason, char *note)
{
    d->next = CMP_STEP_DONE;
    d->fallback = 1;
    d->nothing_to_do = nothing_to_do;
    free(d->reason);
    free(d->note);
    d->reason = reason ? reason : text("out of memory");
    d->note = note;
}

/* The mode that applies: srun's --mapping, else the one sbatch/salloc
 * passed down, else plugstack's default=.  0 when there is nothing to do. */
static int read_request(const cmp_config_t *c, const cmp_step_input_t *in,
                        cmp_step_decision_t *d)
{
    const char *value =
        in->sa.has_mapping && in->sa.mapping ? in->sa.mapping : in->mapping_env;
    if (!value)
        d->req.mode = c->default_mode;
    else if (cmp_request_parse(value, &d->req, NULL) < 0)
        return 0; /* the option callback reports it */
    d->log_request = 1;
    d->asked = value != NULL;
    if (d->req.mode == CMP_MODE_OFF && value)
        leave(d, 1, text("--mapping=off"), NULL);
    return d->req.mode != CMP_MODE_OFF && d->req.mode != CMP_MODE_HELP &&
        d->req.mode != CMP_MODE_UNSET;
}

/* mpirun starting its daemons: why its ranks stay where mpirun puts them,
 * NULL when clustermap's mpirun gave it a rank file to place them with --
 * this srun's parent is the mpirun it started (in its own process). */
static char *mpirun_left(const cmp_step_input_t *in)
{
    const char *pid = in->mpirun_pid, *why = in->mpirun_why, *ours = in->mpirun_rankfile;
    int parent = pid && in->parent_pid && !strcmp(pid, in->parent_pid);
    if (why && *why && parent)
        return text("mpirun launch: %s", why);
    if (!ours || !*ours || !parent)
        return text("mpirun launch: not started through clustermap's mpirun (a path "
                    "to another mpirun, one ahead in PATH, salloc, or mpirun=no)");
    return NULL;
}

/* Why srun, not clustermap, decides where this step's ranks go; NULL when
 * clustermap may.  The reason is the user's line (and the admin's). */
static char *left_to_slurm(const cmp_step_input_t *in, cmp_step_decision_t *d)
{
    const cmp_srun_args_t *sa = &in->sa;
    const char *oc = in->overcommit;
    if (!in->job_id)
        return text("srun outside an allocation (it makes its own)");
    /* before --jobid: Open MPI 6's PRRTE names the job it launches into */
    if (cmp_srun_is_mpirun(sa)) {
        d->mpirun_stderr = 1;
        return mpirun_left(in);
    }
    if (sa->jobid)
        return text("srun --jobid (an allocation other than this environment's)");
    /* Components of a het step are separate launches to srun: a rank file
     * for one would not know the others'.  Not profiled either, so the
     * profile of a component is never taken for the whole. */
    if (sa->het)
        return text("heterogeneous step (--het-group or ':'): neither placed nor "
                    "profiled");
    /* SLURM_HOSTFILE an enclosing srun of ours wrote is not the user's */
    int hostfile =
        in->hostfile && !(in->our_hostfile && !strcmp(in->our_hostfile, in->hostfile));
    const char *given = sa->nodelist ? "-w"
        : sa->exclude                ? "-x"
        : sa->relative               ? "-r"
        : sa->distribution           ? "-m"
        : hostfile                   ? "SLURM_HOSTFILE"
                                     : NULL;
    if (given)
        return text("the step's layout is given (%s)", given);
    /* srun 24.11 and 26.05 (measured; 23.11 changed the rules for this
     * layout) stop with "--nodes is incompatible with
     * --distribution=arbitrary" when -N and SLURM_HOSTFILE meet: placing
     * the step would fail it. */
    if (sa->nodes_min > 0 && in->srun_refuses_nodes)
        return text("srun -N: this Slurm refuses a node count together with the "
                    "arbitrary layout a placement needs");
    /* Overcommitted steps have more tasks than the slots the plan knows. */
    if (sa->overcommit || (oc && *oc && strcmp(oc, "0")))
        return text(sa->overcommit ? "overcommitted step (-O)"
                                   : "overcommitted step (SLURM_OVERCOMMIT)");
    return NULL;
}

unsigned cmp_overlay_bits(const cmp_config_t *c, const cmp_request_t *r)
{
    if (!c || !r)
        return 0;
    return r->overlay                             ? r->overlay
        : r->nooverlay || r->mode == CMP_MODE_OFF ? 0
                                                  : c->overlay;
}

unsigned cmp_mpirun_overlay_bits_of(const char *mark)
{
    char spec[32];
    unsigned bits = 0;
    if (!mark || sscanf(mark, "%31s", spec) != 1 || cmp_overlay_parse(spec, &bits) < 0)
        return 0;
    return bits;
}

/* The value of a positive integer variable, 0 when unset or not one. */
static int int_of(const char *s, int max)
{
    int v;
    return s && cmp_parse_int(s, max, &v) == 0 ? v : 0;
}

/* mpirun's daemons: its ranks, on the job's nodes with the tasks Slurm
 * gave the job on each (as clustermap's mpirun read them: Open MPI 6
 * drops them from this srun's environment), filled node by node as mpirun
 * does.  0, or -1 with @p err. */
static int mpirun_alloc(const cmp_step_input_t *in, cmp_step_decision_t *d,
                        cm_error_t *err)
{
    int n = 0;
    cmp_alloc_t *a = &d->alloc;
    d->rankfile = in->mpirun_rankfile;
    d->cpus_per_task = 1;
    if (cmp_alloc_tasks_of(CMP_ENV_MPIRUN_NODES, in->mpirun_nodes, CMP_ENV_MPIRUN_TASKS,
                           in->mpirun_tasks, a, err) < 0)
        return -1;
    if (cmp_parse_int(in->mpirun_np, CM_PROFILE_MAX_TASKS, &d->ntasks) < 0)
        return cm_error_set(err, CMP_ENV_MPIRUN_NP " is not a rank count");
    if (cmp_mpirun_fill(a->slots, a->nnodes, d->ntasks, a->slots) < 0)
        return cm_error_set(err, "mpirun -np %d: more ranks than the job's tasks",
                            d->ntasks);
    for (int i = 0; i < a->nnodes; i++)
        if (a->slots[i] > 0)
            n = i + 1;
    a->nnodes = n; /* the filled nodes come first */
    return 0;
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

/* The step's profile: name=NAME is the user's explicit choice; otherwise
 * the job name and the program srun (or mpirun, as clustermap's mpirun
 * resolved it) launches (cm_profile_program_key).  The key is cut to its
 * bound as it always was: the profiles already kept keep their names.
 * Whether a program calls MPI_Init is a property of the program, not of
 * the name: with name=, the "no MPI" mark has the program's key
 * (d->nompi_key), so a non-MPI step never disables the name's profile. */
static void profile_key(const cmp_step_input_t *in, cmp_step_decision_t *d)
{
    char name[CMP_NAME_MAX + 1];
    const char *program =
        d->mpirun && in->mpirun_program ? in->mpirun_program : in->program;
    snprintf(name, sizeof name, "%s", d->job_name);
    snprintf(d->key, sizeof d->key, "%s", name);
    if (!program || !program[0])
        return;
    if (d->req.name[0]) {
        if (cm_profile_program_key(name, program, d->nompi_key, sizeof d->nompi_key,
                                   NULL) < 0)
            d->nompi_key[0] = '\0';
        return;
    }
    if (cm_profile_program_key(name, program, d->key, sizeof d->key, NULL) < 0)
        snprintf(d->key, sizeof d->key, "%s", name);
    else
        d->key_program = program;
}

/* Before the store: the mode, the reasons to leave the step to Slurm, the
 * step's tasks and nodes, its profile's key. */
char *cmp_gpu_nodes_only(const char *why)
{
    return text("the step asks for GPUs: Slurm's GPU and CPU binding are kept; ranks are "
                "placed on nodes only (%s)",
                why ? why : "no reason given");
}

/* A --cpu-bind value that binds (or unbinds): not only "verbose"/"quiet". */
static int binds(const char *v)
{
    for (const char *p = v; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len && !(len == 7 && !strncmp(p, "verbose", 7)) &&
            !(len == 5 && !strncmp(p, "quiet", 5)))
            return 1;
        p += p[len] ? len + 1 : len;
    }
    return 0;
}

/* Whose binding the step keeps, as the line that says so, or NULL when
 * clustermap binds each rank to its cores.  A binding the user gave wins
 * and is always said; a step with GPUs keeps Slurm's GPU binding and the
 * CPU binding that goes with it: cores chosen for the CPU placement could
 * lie far from the GPU Slurm gave the rank. */
static char *binding_kept(const cmp_config_t *c, const cmp_step_input_t *in, int *said,
                          int *per_gpu)
{
    const cmp_srun_args_t *a = &in->sa;
    const char *gpu = a->gpu_bind && *a->gpu_bind ? a->gpu_bind : in->gpu_bind_env;
    const char *cpu = a->cpu_bind && *a->cpu_bind ? a->cpu_bind : in->cpu_bind_env;
    *said = 1;
    *per_gpu = 0;
    if (gpu && *gpu)
        return text("--gpu-bind=%s given: your GPU and CPU binding are kept; ranks are "
                    "placed on nodes only",
                    gpu);
    if (a->tres_bind && *a->tres_bind)
        return text("--tres-bind=%s given: your binding is kept; ranks are placed on "
                    "nodes only",
                    a->tres_bind);
    if (binds(cpu))
        return text("--cpu-bind=%s given: your CPU binding is kept; ranks are placed on "
                    "nodes only",
                    cpu);
    *said = 0;
    if (!a->gpus && !in->gpus_env)
        return NULL;
    /* the step's tasks per GPU, when each task drives one GPU or K tasks
     * share one: the GPU slots of the node the plan places them on */
    int per_task = a->gpus_per_task, share = a->ntasks_per_gpu;
    if (!per_task && !a->gpus && in->gpus_per_task_env)
        cmp_parse_int(in->gpus_per_task_env, 1 << 16, &per_task);
    if (!share && !a->gpus && in->ntasks_per_gpu_env)
        cmp_parse_int(in->ntasks_per_gpu_env, 1 << 16, &share);
    *per_gpu = share > 0 && per_task <= 1 ? share : per_task == 1 ? 1 : 0;
    if (*per_gpu && c->hwloc_xml[0])
        return NULL;
    *per_gpu = 0;
    return cmp_gpu_nodes_only(c->hwloc_xml[0]
                                  ? "clustermap places --gpus-per-task=1 and "
                                    "--ntasks-per-gpu=N steps on GPUs"
                                  : "plugstack.conf has no hwloc_xml= for the GPU nodes");
}

static void decide_step(const cmp_config_t *c, const cmp_step_input_t *in,
                        cmp_step_decision_t *d)
{
    cm_error_t err;
    memset(d, 0, sizeof *d);
    if (in->args_read && (in->args_refused || in->sa.help)) {
        /* srun refuses this command line, or only prints: no step */
        d->debug = in->args_refused ? in->args_err.msg : "srun will not launch";
        return;
    }
    int todo = read_request(c, in, d);
    /* The overlays, whatever becomes of the placement; not for the srun
     * that starts mpirun's daemons (docs/overlays.md: mpirun needs them
     * by hand). */
    d->mark_overlays = in->args_read && !cmp_srun_is_mpirun(&in->sa);
    if (!todo)
        return;
    char *why = in->args_read ? left_to_slurm(in, d) : text("%s", in->args_err.msg);
    if (why) {
        leave(d, 0, why, NULL);
        return;
    }
    d->mpirun = cmp_srun_is_mpirun(&in->sa);
    if (!d->mpirun)
        d->bind_kept = binding_kept(c, in, &d->bind_kept_said, &d->per_gpu);
    d->cpus_per_task =
        in->sa.cpus_per_task ? in->sa.cpus_per_task : int_of(in->cpus_per_task, 1 << 16);
    if (d->cpus_per_task < 1)
        d->cpus_per_task = 1;
    if (d->mpirun ? mpirun_alloc(in, d, &err) < 0
                  : cmp_alloc_read_of(&in->sa, d->cpus_per_task, &in->slurm, &d->alloc,
                                      &err) < 0) {
        leave(d, 0, text("%s%s", d->mpirun ? "mpirun launch: " : "", err.msg), NULL);
        return;
    }
    if (!d->mpirun) {
        d->ntasks = cmp_step_ntasks_of(&in->sa, d->alloc.nnodes, &in->slurm);
        /* No node ever holds more than the step's tasks: planning costs
         * what the step costs, however many CPUs the allocation's nodes
         * have. */
        for (int i = 0; i < d->alloc.nnodes && d->ntasks > 0; i++)
            if (d->alloc.slots[i] > d->ntasks)
                d->alloc.slots[i] = d->ntasks;
        if (!d->req.pack)
            slurm_counts(&d->alloc, d->ntasks);
    }
    const char *name = d->req.name[0]           ? d->req.name
        : in->sa.job_name && in->sa.job_name[0] ? in->sa.job_name
                                                : in->job_name;
    d->job_name = name && *name ? name : "noname";
    profile_key(in, d);
    if (d->ntasks <= 1) {
        leave(d, 1, text("one task: nothing to place"), NULL);
        return;
    }
    if (d->ntasks > c->max_tasks) {
        leave(d, 0, text("%d tasks are more than max_tasks=%d", d->ntasks, c->max_tasks),
              NULL);
        return;
    }
    d->overlays = d->mpirun ? cmp_mpirun_overlay_bits_of(in->mpirun_overlay)
                            : cmp_overlay_bits(c, &d->req);
    /* mpirun's ranks read a trace only when clustermap's mpirun staged
     * their run: their control file says which */
    if ((d->overlays & CMP_OVL_TNBC) && (!d->mpirun || in->mpirun_stage))
        d->ask |= CM_STEP_ASK_TRACE;
    if (d->req.mode != CMP_MODE_PROFILE)
        d->ask |= CM_STEP_ASK_PROFILE;
    if (d->req.mode == CMP_MODE_CLUSTER && c->guard)
        d->ask |= CM_STEP_ASK_HISTORY;
    d->next = CMP_STEP_ASK_STORE;
}

/* Why this run cannot be recorded into the store, NULL when it can:
 * @p failed, the store's failure already known, else its own answer. */
static const char *record_why(const cm_store_step_info_t *info, const char *failed)
{
    if (failed)
        return failed;
    if (!info->opened)
        return info->open_err.msg;
    return info->can_record ? NULL : info->record_err.msg;
}

/* The note that says so on the step's line: " (profiling this run)" or
 * why not. */
static char *record_note(const char *why)
{
    return why ? text(" (not profiling this run: %s)", why)
               : text(" (profiling this run)");
}

/* The note of an mpirun run that clustermap's mpirun could not stage for
 * profiling (mpirun_batch.c logs why): the store's own reason when it has
 * one, as record_note() gives it for srun's steps. */
static char *unstaged_note(const char *why)
{
    return why ? record_note(why)
               : text(" (not profiling this run: clustermap's mpirun could not stage "
                      "it; see slurmd's log)");
}

/* --mapping=profile: Slurm's placement, and a profile of the run. */
static void profile_only(const cmp_step_input_t *in, const cm_store_step_info_t *info,
                         cmp_step_decision_t *d)
{
    const char *why = record_why(info, NULL);
    if (d->req.noprofile)
        leave(d, 1, text("--mapping=profile,noprofile"), NULL);
    else if (d->rankfile && !in->mpirun_stage)
        leave(d, 0,
              text("--mapping=profile of job '%s' with %d tasks", d->job_name, d->ntasks),
              unstaged_note(why));
    else if (why)
        leave(d, 0,
              text("--mapping=profile of job '%s' with %d tasks", d->job_name, d->ntasks),
              record_note(why));
    else {
        leave(d, 1,
              text("--mapping=profile of job '%s' with %d tasks", d->job_name, d->ntasks),
              record_note(NULL));
        d->mark = CMP_MARK_NOW;
        d->traffic = 1;
    }
}

/* " (it has profiles for 4, 16 tasks)" when other task counts exist. */
static char *other_counts(const cm_store_step_info_t *info)
{
    if (!info->ncounts)
        return text("%s", "");
    size_t cap = 64 + (size_t)info->ncounts * 12, used = 0;
    char *s = malloc(cap);
    for (int i = 0; s && i < info->ncounts; i++)
        used += (size_t)snprintf(s + used, cap - used, "%s%d",
                                 i ? ", " : " (it has profiles for ", info->counts[i]);
    if (s)
        snprintf(s + used, cap - used, " tasks)");
    return s;
}

/* The guard's decision for a step placed from its profile: 1 to place,
 * 2 to place as a probe (*@p probe gets its note), 0 to leave it to
 * Slurm's default (its line; d->how gets the reason's word for the run's
 * history).  No history, or an unreadable one, means place. */
static int guard_allows(const cmp_config_t *c, const cm_store_step_info_t *info,
                        const char *note, char **probe, cmp_step_decision_t *d)
{
    cm_guard_rule_t rule;
    cm_guard_t g;
    if (!c->guard || !info->opened)
        return 1;
    d->history_ignored = info->history < 0;
    cmp_config_guard_rule(c, &rule);
    cm_guard_decide(info->runs, info->history > 0 ? info->nruns : 0, &rule, &g);
    d->how = cm_guard_reason_name(g.reason);
    if (!g.place) {
        char *n = *note ? text("%s", note) : NULL;
        if (g.reason == CM_GUARD_SLOWER)
            leave(d, 0, text("job '%s' ran slower when placed: %s", d->job_name, g.why),
                  n);
        else
            leave(d, 0, text("job '%s': %s", d->job_name, g.why), n);
        return 0;
    }
    if (g.reason == CM_GUARD_PROBE) {
        *probe = text(" (a probe: %s)", g.why);
        return 2;
    }
    return 1;
}

/* cluster, block, cyclic: place from the profile (cluster) or the layout,
 * and profile the run when there is no profile yet (or profile=always).
 * Cluster runs with a profile are timed (guard=yes) for the guard, which
 * may leave the step to Slurm's default. */
static void place_step(const cmp_config_t *c, const cmp_step_input_t *in,
                       const cm_store_step_info_t *info, cmp_step_decision_t *d)
{
    /* mpirun's runs only when clustermap's mpirun staged them */
    int staged = !d->rankfile || in->mpirun_stage;
    int may_profile = staged && !d->req.noprofile && c->profiling != CMP_PROFILE_NEVER;
    int may_time = staged && !d->req.noprofile && c->guard;
    int cluster = d->req.mode == CMP_MODE_CLUSTER;
    int found = info->opened ? info->profile : -1;
    const char *err = info->opened ? info->profile_err.msg : info->open_err.msg;
    if (found < 0 && cluster) {
        leave(d, 0,
              text("cannot use the profile of job '%s' with %d tasks: %s", d->job_name,
                   d->ntasks, err),
              NULL);
    } else if (!found && cluster) {
        const char *why = record_why(info, NULL);
        int record = may_profile && !why;
        int unstaged = !staged && !d->req.noprofile && c->profiling != CMP_PROFILE_NEVER;
        char *note = unstaged ? unstaged_note(why)
            : may_profile     ? record_note(why)
                              : NULL;
        char *others = other_counts(info);
        leave(d, 0,
              text("no profile for job '%s' with %d tasks%s", d->job_name, d->ntasks,
                   others ? others : ""),
              note);
        free(others);
        if (record) {
            d->mark = CMP_MARK_NOW;
            d->traffic = 1;
        }
    } else {
        /* block and cyclic need no profile: a store that failed only
         * means this run is not recorded */
        int want = may_profile && (c->profiling == CMP_PROFILE_ALWAYS || found <= 0);
        const char *why = record_why(info, found < 0 ? err : NULL);
        int record = want && !why;
        int timed = !record && cluster && may_time && !record_why(info, NULL);
        char *note = want ? record_note(why) : NULL, *probe = NULL;
        int allowed = cluster ? guard_allows(c, info, note ? note : "", &probe, d) : 1;
        d->traffic = record;
        d->probe = allowed == 2;
        /* the summary line says whether the run is profiled, or why it
         * is placed although the guard has its doubts */
        d->place_note = note ? note : probe ? probe : text("%s", "");
        if (d->place_note != probe)
            free(probe);
        if (!allowed) {
            if (record || timed)
                d->mark = CMP_MARK_NOW;
            return;
        }
        if (record || timed)
            d->mark = CMP_MARK_IF_PLACED;
        d->next = CMP_STEP_PLACE;
    }
}

void cmp_step_decide(const cmp_config_t *c, const cmp_step_input_t *in,
                     const cm_store_step_info_t *info, cmp_step_decision_t *d)
{
    if (!d)
        return;
    if (!c || !in) {
        memset(d, 0, sizeof *d);
        leave(d, 0, text("the step's decision: no configuration or no input"), NULL);
        return;
    }
    if (!info) {
        decide_step(c, in, d);
        return;
    }
    if (d->next != CMP_STEP_ASK_STORE)
        return; /* nothing was asked */
    d->next = CMP_STEP_DONE;
    if (info->opened && info->nompi) {
        leave(d, 1,
              text("job '%s' with %d tasks did not call MPI_Init when it was "
                   "profiled: neither placed nor profiled",
                   d->job_name, d->ntasks),
              NULL);
        return;
    }
    d->set_verbose = d->req.verbose;
    if (d->ask & CM_STEP_ASK_TRACE)
        d->trace = info->opened ? info->trace : 0;
    if (d->req.mode == CMP_MODE_PROFILE)
        profile_only(in, info, d);
    else
        place_step(c, in, info, d);
}

void cmp_step_decision_free(cmp_step_decision_t *d)
{
    if (!d)
        return;
    free(d->reason);
    free(d->note);
    free(d->place_note);
    free(d->bind_kept);
    cmp_alloc_free(&d->alloc);
    memset(d, 0, sizeof *d);
}
