/*
 * place.c -- rank -> node in srun (local context).
 *
 * srun reads SLURM_HOSTFILE after its options are parsed and before it
 * creates the step, and it uses line i as the node of rank i.  So, once per
 * srun, from slurm_spank_init: work out which mode applies and how many
 * tasks the step will have (srun's own command line, then the allocation's
 * environment), load the job's profile, build the allocation's machine tree
 * from the controller, plan, write a private hostfile and point
 * SLURM_HOSTFILE at it.  The core each rank got on its node travels to the
 * tasks in CLUSTERMAP_CORES (bind.c); a step to profile is marked with
 * CLUSTERMAP_STEP_PROFILE (profile_step.c).  Anything that goes wrong
 * leaves SLURM_HOSTFILE alone: Slurm's default placement, and one line
 * saying why.
 */
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cm_profiles.h"
#include "plugin.h"

/* The hostfile this srun wrote, removed at srun's exit. */
static char hostfile_path[CMP_PATH_MAX];

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
    unsetenv(CMP_ENV_VERBOSE);
}

static int env_int(const char *name, int max)
{
    int v;
    const char *s = getenv(name);
    return s && cmp_parse_int(s, max, &v) == 0 ? v : 0;
}

/* What srun will launch, and where it may. */
typedef struct step {
    cmp_request_t req;
    cmp_srun_args_t sa;
    char job_name[CMP_NAME_MAX + 1];
    int ntasks;
    int cpus_per_task;
    cmp_alloc_t alloc;
    int nalloc_names;      /* names[] entries to free */
} step_t;

static void step_free(step_t *s)
{
    cm_hostlist_free(s->alloc.names, s->nalloc_names);
    free(s->alloc.slots);
    s->alloc.names = NULL;
    s->alloc.slots = NULL;
}

/* The allocation's nodes and the slots this step may use on each.  0, or
 * -1 with a debug message (not inside a usable allocation). */
static int read_allocation(step_t *s)
{
    cm_error_t err;
    const char *nl = getenv("SLURM_JOB_NODELIST");
    char **names = NULL;
    int n = 0;
    if (!nl || cm_hostlist_expand(nl, &names, &n, &err) < 0 || n < 1) {
        cmp_debug("SLURM_JOB_NODELIST unusable (%s)", nl ? err.msg : "unset");
        return -1;
    }
    s->alloc.names = names;
    s->nalloc_names = n;
    int *cpus = malloc((size_t)n * sizeof *cpus);
    s->alloc.slots = malloc((size_t)n * sizeof(int));
    if (!cpus || !s->alloc.slots) {
        free(cpus);
        return -1;
    }
    if (cmp_cpus_per_node(getenv("SLURM_JOB_CPUS_PER_NODE"), n, cpus, &err) < 0) {
        cmp_debug("%s", err.msg);
        free(cpus);
        return -1;
    }
    int nn = n;
    if (s->sa.nodes_max > 0 && s->sa.nodes_max < nn)
        nn = s->sa.nodes_max;   /* srun -N: Slurm takes the first nodes too */
    int per_node = s->sa.ntasks_per_node;
    if (!per_node && !s->sa.ntasks)
        per_node = env_int("SLURM_NTASKS_PER_NODE", 1 << 24);
    int k = 0;
    for (int i = 0; i < nn; i++) {
        int slots = cpus[i] / s->cpus_per_task;
        if (per_node > 0 && slots > per_node)
            slots = per_node;
        if (slots < 1)
            continue;
        if (k != i) {   /* keep names[] a prefix of usable nodes */
            char *tmp = s->alloc.names[k];
            s->alloc.names[k] = s->alloc.names[i];
            s->alloc.names[i] = tmp;
        }
        s->alloc.slots[k++] = slots;
    }
    s->alloc.nnodes = k;
    free(cpus);
    return k > 0 ? 0 : -1;
}

/* srun's task count for this step (see docs/admin-guide.md). */
static int step_ntasks(const step_t *s, int nnodes)
{
    int per_node;
    if (s->sa.ntasks)
        return s->sa.ntasks;
    if (s->sa.ntasks_per_node)
        return s->sa.ntasks_per_node * nnodes;
    int n = env_int("SLURM_NTASKS", 1 << 24);
    if (!n)
        n = env_int("SLURM_NPROCS", 1 << 24);
    if (n)
        return n;
    if ((per_node = env_int("SLURM_NTASKS_PER_NODE", 1 << 24)) > 0)
        return per_node * nnodes;
    return nnodes;
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

/* Write the hostfile and CLUSTERMAP_CORES.  0 or -1 (message printed). */
static int apply_plan(const cmp_config_t *c, step_t *s, const cm_tree_t *t,
                      const int *map)
{
    const char *tmp = getenv("TMPDIR");
    char path[CMP_PATH_MAX];
    if (!tmp || tmp[0] != '/' || access(tmp, W_OK) != 0)
        tmp = "/tmp";
    snprintf(path, sizeof path, "%s/clustermap-hosts.%s.XXXXXX", tmp,
             getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "x");
    int fd = mkstemp(path);   /* mode 0600 */
    if (fd < 0) {
        cmp_user_error("cannot create a hostfile in %s: %s; using Slurm's default "
                       "placement", tmp, strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(path);
        cmp_user_error("cannot write %s: %s; using Slurm's default placement", path,
                       strerror(errno));
        return -1;
    }
    int bind = c->bind && s->ntasks <= c->bind_max_tasks && s->ntasks <= 16384;
    size_t cap = bind ? (size_t)s->ntasks * 8 + 1 : 0, used = 0;
    char *cores = bind ? malloc(cap) : NULL;
    for (int r = 0; r < s->ntasks; r++) {
        int node = cm_tree_slot_node(t, map[r]);
        int first, count;
        cm_tree_vertex_slots(t, cm_tree_node_vertex(t, node), &first, &count);
        fprintf(f, "%s\n", cm_tree_vertex_label(t, cm_tree_node_vertex(t, node)));
        if (cores)
            used += (size_t)snprintf(cores + used, cap - used, "%s%d", r ? "," : "",
                                     map[r] - first);
        if (s->req.verbose && r < 1024)
            cmp_user_info(1, "rank %d -> %s core %d", r,
                          cm_tree_vertex_label(t, cm_tree_node_vertex(t, node)),
                          map[r] - first);
    }
    if (fclose(f) != 0) {
        unlink(path);
        free(cores);
        cmp_user_error("cannot write %s: %s; using Slurm's default placement", path,
                       strerror(errno));
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

/* Plan the step on the allocation.  0 when placed, -1 after a message. */
static int place(const cmp_config_t *c, step_t *s, const cm_profile_t *prof)
{
    cm_error_t err;
    double t0 = now_s();
    cm_tree_t *t = cmp_slurm_tree(&s->alloc, s->cpus_per_task, &err);
    if (!t) {
        cmp_user_error("controller data unavailable (%s); using Slurm's default "
                       "placement", err.msg);
        return -1;
    }
    if ((c->level_costs[0] && cm_tree_set_level_costs(t, c->level_costs, &err) < 0) ||
        (c->level_latencies[0] &&
         cm_tree_set_level_latencies(t, c->level_latencies, &err) < 0) ||
        (c->level_bandwidths[0] &&
         cm_tree_set_level_bandwidths(t, c->level_bandwidths, &err) < 0)) {
        cmp_user_error("plugstack.conf level costs: %s; using Slurm's default "
                       "placement", err.msg);
        cm_tree_free(t);
        return -1;
    }
    if (cm_tree_nslots(t) < s->ntasks) {
        cmp_debug("%d tasks do not fit the %d slots of the allocation", s->ntasks,
                  cm_tree_nslots(t));
        cm_tree_free(t);
        return -1;
    }
    int *map = malloc((size_t)s->ntasks * sizeof *map);
    int *bmap = malloc((size_t)s->ntasks * sizeof *bmap);
    cm_matrix_t *m = NULL;
    int rc = -1;
    if (!map || !bmap) {
        cmp_user_error("out of memory; using Slurm's default placement");
        goto out;
    }
    double jplan = 0, jblock = 0;
    char how[32];
    if (s->req.mode == CMP_MODE_CLUSTER) {
        if (!(m = cm_profile_matrix(prof, CM_PART_ALL, &err))) {
            cmp_user_error("profile of job '%s': %s; using Slurm's default placement",
                           s->job_name, err.msg);
            goto out;
        }
        cm_plan_options_t o;
        cm_plan_report_t rep;
        cm_plan_options_init(&o);
        o.algorithm = c->algorithm;
        o.time_budget = c->budget;
        o.weight = c->weight;
        if (cm_plan(m, t, &o, map, &rep, &err) < 0) {
            cmp_user_error("planning failed (%s); using Slurm's default placement",
                           err.msg);
            goto out;
        }
        snprintf(how, sizeof how, "%s", rep.winner);
        if (cm_map_block(t, s->ntasks, bmap, &err) == 0 &&
            cm_tree_apply_weight(t, m, c->weight, &err) == 0) {
            jplan = cm_cost(m, t, map);
            jblock = cm_cost(m, t, bmap);
        }
    } else {
        int ok = s->req.mode == CMP_MODE_CYCLIC ? cm_map_cyclic(t, s->ntasks, map, &err)
                                                : cm_map_block(t, s->ntasks, map, &err);
        if (ok < 0) {
            cmp_user_error("%s layout failed (%s); using Slurm's default placement",
                           cmp_mode_name(s->req.mode), err.msg);
            goto out;
        }
        snprintf(how, sizeof how, "%s", cmp_mode_name(s->req.mode));
    }
    if (apply_plan(c, s, t, map) < 0)
        goto out;
    rc = 0;
    int used = 0;   /* nodes the plan uses */
    char *seen = calloc((size_t)s->alloc.nnodes, 1);
    for (int r = 0; seen && r < s->ntasks; r++) {
        int node = cm_tree_slot_node(t, map[r]);
        if (node >= 0 && node < s->alloc.nnodes && !seen[node]) {
            seen[node] = 1;
            used++;
        }
    }
    free(seen);
    if (s->req.mode == CMP_MODE_CLUSTER)
        cmp_user_info(s->req.verbose, "placed %d tasks of job '%s' on %d of %d nodes "
                      "with %s in %.0f ms: predicted cost J=%.6g, block J=%.6g",
                      s->ntasks, s->job_name, used, s->alloc.nnodes, how,
                      (now_s() - t0) * 1e3, jplan, jblock);
    else
        cmp_user_info(s->req.verbose, "placed %d tasks of job '%s' %s on %d of %d nodes",
                      s->ntasks, s->job_name, how, used, s->alloc.nnodes);
out:
    cm_matrix_free(m);
    free(map);
    free(bmap);
    cm_tree_free(t);
    return rc;
}

static void mark_profile(const step_t *s)
{
    setenv(CMP_ENV_PROFILE, s->job_name, 1);
    cmp_debug("profiling this step as '%s' with %d tasks", s->job_name, s->ntasks);
}

void cmp_place_local(const cmp_config_t *c)
{
    step_t s;
    cm_error_t err;
    int argc = 0;
    char **argv = NULL;

    memset(&s, 0, sizeof s);
    clear_markers();
    if (cmp_argv_self(&argc, &argv, &err) < 0) {
        cmp_debug("%s", err.msg);
        return;
    }
    int rc = cmp_srun_args_parse(argc, argv, &s.sa, &err);
    cmp_argv_free(argc, argv);
    if (rc < 0 || s.sa.help) {
        cmp_debug("not placing: %s", rc < 0 ? err.msg : "srun will not launch");
        return;
    }
    const char *value = s.sa.has_mapping ? s.sa.mapping : getenv(CMP_OPTION_ENV);
    if (value) {
        if (cmp_request_parse(value, &s.req, &err) < 0)
            return;   /* the option callback reports it */
    } else {
        s.req.mode = c->default_mode;
    }
    if (s.req.mode == CMP_MODE_OFF || s.req.mode == CMP_MODE_HELP ||
        s.req.mode == CMP_MODE_UNSET)
        return;
    if (!getenv("SLURM_JOB_ID") || s.sa.jobid) {
        cmp_debug("not placing: srun creates its own allocation");
        return;
    }
    if (s.sa.nodelist || getenv("SLURM_HOSTFILE") || s.sa.relative || s.sa.exclude ||
        s.sa.distribution || s.sa.het) {
        cmp_debug("not placing: the step's layout is given (-w, -x, -r, -m, "
                  "SLURM_HOSTFILE or a heterogeneous step)");
        return;
    }
    s.cpus_per_task = s.sa.cpus_per_task ? s.sa.cpus_per_task
                                         : env_int("SLURM_CPUS_PER_TASK", 1 << 16);
    if (s.cpus_per_task < 1)
        s.cpus_per_task = 1;
    if (read_allocation(&s) < 0) {
        step_free(&s);
        return;
    }
    s.ntasks = step_ntasks(&s, s.alloc.nnodes);
    if (s.ntasks <= 1) {
        cmp_debug("not placing: one task");
        step_free(&s);
        return;
    }
    const char *name = s.req.name[0] ? s.req.name
                     : s.sa.job_name[0] ? s.sa.job_name : getenv("SLURM_JOB_NAME");
    snprintf(s.job_name, sizeof s.job_name, "%s", name && *name ? name : "noname");
    if (s.ntasks > c->max_tasks) {
        cmp_user_error("%d tasks are more than max_tasks=%d; using Slurm's default "
                       "placement", s.ntasks, c->max_tasks);
        step_free(&s);
        return;
    }
    if (s.req.verbose)
        setenv(CMP_ENV_VERBOSE, "1", 1);
    int may_profile = !s.req.noprofile && c->profiling != CMP_PROFILE_NEVER;
    if (s.req.mode == CMP_MODE_PROFILE) {
        if (!s.req.noprofile)
            mark_profile(&s);
        step_free(&s);
        return;
    }

    /* cluster, block, cyclic: is there a profile? */
    cm_profile_t *prof = NULL;
    cm_store_t *st = cm_store_open(c->store, getuid(), 0, c->max_profile_size, &err);
    int found = -1;
    if (st)
        found = cm_store_load(st, s.job_name, s.ntasks, &prof, &err);
    if (found < 0) {
        if (s.req.mode == CMP_MODE_CLUSTER)
            cmp_user_error("cannot use the profile of job '%s' with %d tasks: %s; using "
                           "Slurm's default placement", s.job_name, s.ntasks, err.msg);
        else
            cmp_debug("profile store: %s", err.msg);
        cm_store_close(st);
        step_free(&s);
        return;
    }
    if (s.req.mode == CMP_MODE_CLUSTER && !found) {
        char others[256];
        other_counts(st, s.job_name, others, sizeof others);
        cmp_user_error("no profile for job '%s' with %d tasks%s; using Slurm's default "
                       "placement%s", s.job_name, s.ntasks, others,
                       may_profile ? " (profiling this run)" : "");
        if (may_profile)
            mark_profile(&s);
    } else {
        if (place(c, &s, prof) == 0 && may_profile &&
            (c->profiling == CMP_PROFILE_ALWAYS || !found))
            mark_profile(&s);
    }
    cm_profile_free(prof);
    cm_store_close(st);
    step_free(&s);
}

void cmp_place_local_exit(void)
{
    if (hostfile_path[0]) {
        unlink(hostfile_path);
        hostfile_path[0] = '\0';
    }
}
