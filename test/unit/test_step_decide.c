/*
 * test_step_decide.c -- what srun does with a step (src/launch/step_decide.c),
 * one row per behaviour the cluster tests (test/sh/t0510..t0514) check
 * through a real srun: srun's command line, the step's environment, the
 * plugstack arguments and the store's answer in; the next step, the line
 * (its kind, reason and note, word for word), the run's mark and the
 * placement's note out.  Then the store's side of the one call
 * (store_step.c) on a real store: the other task counts and the trace.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "launch.h"
#include "teststore.h"

/* The environment values a row may set, by the variable's name. */
static const struct {
    const char *var;
    size_t off;
} vars[] = {
    { CMP_OPTION_ENV, offsetof(cmp_step_input_t, mapping_env) },
    { "SLURM_JOB_ID", offsetof(cmp_step_input_t, job_id) },
    { "SLURM_JOB_NAME", offsetof(cmp_step_input_t, job_name) },
    { "SLURM_OVERCOMMIT", offsetof(cmp_step_input_t, overcommit) },
    { "SLURM_HOSTFILE", offsetof(cmp_step_input_t, hostfile) },
    { CMP_ENV_HOSTFILE, offsetof(cmp_step_input_t, our_hostfile) },
    { "SLURM_CPUS_PER_TASK", offsetof(cmp_step_input_t, cpus_per_task) },
    { "SLURM_CPU_BIND", offsetof(cmp_step_input_t, cpu_bind_env) },
    { "SLURM_GPU_BIND", offsetof(cmp_step_input_t, gpu_bind_env) },
    { "SLURM_GPUS_PER_TASK", offsetof(cmp_step_input_t, gpus_per_task_env) },
    { "SLURM_NTASKS_PER_GPU", offsetof(cmp_step_input_t, ntasks_per_gpu_env) },
    { "SLURM_JOB_NODELIST", offsetof(cmp_step_input_t, slurm.job_nodelist) },
    { "SLURM_JOB_CPUS_PER_NODE", offsetof(cmp_step_input_t, slurm.job_cpus_per_node) },
    { "SLURM_NTASKS", offsetof(cmp_step_input_t, slurm.ntasks) },
    { "PROGRAM", offsetof(cmp_step_input_t, program) },
    { "PPID", offsetof(cmp_step_input_t, parent_pid) },
    { CMP_ENV_MPIRUN_WHY, offsetof(cmp_step_input_t, mpirun_why) },
    { CMP_ENV_MPIRUN_RANKFILE, offsetof(cmp_step_input_t, mpirun_rankfile) },
    { CMP_ENV_MPIRUN_PID, offsetof(cmp_step_input_t, mpirun_pid) },
    { CMP_ENV_MPIRUN_NP, offsetof(cmp_step_input_t, mpirun_np) },
    { CMP_ENV_MPIRUN_PROGRAM, offsetof(cmp_step_input_t, mpirun_program) },
    { CMP_ENV_MPIRUN_STAGE, offsetof(cmp_step_input_t, mpirun_stage) },
    { CMP_ENV_MPIRUN_NODES, offsetof(cmp_step_input_t, mpirun_nodes) },
    { CMP_ENV_MPIRUN_TASKS, offsetof(cmp_step_input_t, mpirun_tasks) },
    { CMP_ENV_MPIRUN_OVERLAY, offsetof(cmp_step_input_t, mpirun_overlay) },
};

/* A step of job 'halo' in an allocation of 4 nodes with 4 CPUs each,
 * started from a shell (pid 100) with srun 24.11. */
static const char base_env[] = "SLURM_JOB_ID=42 SLURM_JOB_NAME=halo "
                               "SLURM_JOB_NODELIST=n[1-4] SLURM_JOB_CPUS_PER_NODE=4(x4) "
                               "PROGRAM=/home/u/halo PPID=100";

/* mpirun's daemons, started by clustermap's mpirun (pid 100) for 8 ranks
 * of /home/u/pairs on the job's 4 nodes of 2 tasks each. */
#define MPIRUN "srun --ntasks-per-node=1 --kill-on-bad-exit orted -mca x y"
#define OURS                                                                             \
    CMP_ENV_MPIRUN_PID "=100 " CMP_ENV_MPIRUN_RANKFILE "=/tmp/rf " CMP_ENV_MPIRUN_NODES  \
                       "=n[1-4] " CMP_ENV_MPIRUN_TASKS "=2(x4) " CMP_ENV_MPIRUN_NP       \
                       "=8 " CMP_ENV_MPIRUN_PROGRAM "=/home/u/pairs "

/* Set (NAME=VALUE) or unset (-NAME) the row's variables; the strings stay
 * in @p buf. */
static void set_env(cmp_step_input_t *in, char *buf)
{
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t;
         t = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(t, '=');
        size_t n = eq ? (size_t)(eq - t) : strlen(t);
        const char *name = t[0] == '-' ? t + 1 : t;
        size_t k;
        if (t[0] == '-')
            n--;
        for (k = 0; k < sizeof vars / sizeof vars[0]; k++)
            if (strlen(vars[k].var) == n && !strncmp(vars[k].var, name, n))
                break;
        if (k == sizeof vars / sizeof vars[0])
            fail_msg("no such variable in the test's table: %s", t);
        *(const char **)((char *)in + vars[k].off) = t[0] == '-' ? NULL : eq + 1;
    }
}

/* What the store answers (store_step.c); all zero: opened, nothing kept,
 * a run can be recorded. */
typedef struct store_spec {
    int closed; /* cm_store_open failed */
    int nompi;
    int profile;           /* 1 found, 0 none, -1 unusable */
    const char *no_record; /* cm_store_can_record's reason */
    const char *history;   /* 'p' placed 10 s, 'd' default 5 s, oldest first */
    int counts[4];         /* other task counts, 0-terminated */
    int trace;
} store_spec_t;

typedef struct row {
    const char *name;
    const char *srun;          /* srun's command line */
    const char *env;           /* on top of base_env */
    const char *conf;          /* plugstack.conf arguments */
    const store_spec_t *store; /* NULL: only the decision before the store */
    /* expected */
    cmp_step_next_t next;
    int line; /* 1 CMP_FALLBACK line, 2 CMP_NOTHING_TO_DO line */
    const char *reason;
    const char *note; /* NULL: no note */
    cmp_step_mark_t mark;
    int traffic;
    const char *place_note; /* CMP_STEP_PLACE: the summary line's note */
} row_t;

static const store_spec_t none = { 0 }, found = { .profile = 1 }, nompi = { .nompi = 1 },
                          corrupt = { .profile = -1 }, closed = { .closed = 1 },
                          others = { .counts = { 4, 16 } },
                          readonly = { .no_record =
                                           "/s/1000: not writable: Permission denied" },
                          hist_measure = { .profile = 1, .history = "pp" },
                          hist_slower = { .profile = 1, .history = "ppdd" },
                          hist_probe = { .profile = 1, .history = "ppddddddd" },
                          trace = { .profile = 1, .trace = 1 };

#define NOTE_REC " (profiling this run)"
#define NOTE_RO " (not profiling this run: /s/1000: not writable: Permission denied)"
#define NOTE_OPEN " (not profiling this run: store: cannot open it)"
#define UNSTAGED                                                                         \
    " (not profiling this run: clustermap's mpirun could not stage it; "                 \
    "see slurmd's log)"

/* A row names the fields its behaviour has; the others are 0 / NULL. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const row_t rows[] = {
    /* -- left to Slurm before the store (t0512's, t0510's, t0514's lines) -- */
    { "outside an allocation", "srun -n16 --mapping=cluster ./halo", "-SLURM_JOB_ID", "",
      NULL, CMP_STEP_DONE, 1, "srun outside an allocation (it makes its own)" },
    { "-w", "srun -n16 -w n1 --mapping=cluster ./halo", "", "", NULL, CMP_STEP_DONE, 1,
      "the step's layout is given (-w)" },
    { "-m", "srun -n16 -m cyclic --mapping=cluster ./halo", "", "", NULL, CMP_STEP_DONE,
      1, "the step's layout is given (-m)" },
    { "-x", "srun -n16 -x n1 --mapping=cluster ./halo", "", "", NULL, CMP_STEP_DONE, 1,
      "the step's layout is given (-x)" },
    { "the user's SLURM_HOSTFILE", "srun -n16 --mapping=cluster ./halo",
      "SLURM_HOSTFILE=/h", "", NULL, CMP_STEP_DONE, 1,
      "the step's layout is given (SLURM_HOSTFILE)" },
    { "an enclosing srun's hostfile is not the user's",
      "srun -n16 --mapping=cluster ./halo", "SLURM_HOSTFILE=/h " CMP_ENV_HOSTFILE "=/h",
      "", NULL, CMP_STEP_ASK_STORE },
    { "-O", "srun -n16 -O --mapping=cluster ./halo", "", "", NULL, CMP_STEP_DONE, 1,
      "overcommitted step (-O)" },
    { "SLURM_OVERCOMMIT", "srun -n16 --mapping=cluster ./halo", "SLURM_OVERCOMMIT=1", "",
      NULL, CMP_STEP_DONE, 1, "overcommitted step (SLURM_OVERCOMMIT)" },
    { "SLURM_OVERCOMMIT=0", "srun -n16 --mapping=cluster ./halo", "SLURM_OVERCOMMIT=0",
      "", NULL, CMP_STEP_ASK_STORE },
    { "heterogeneous", "srun -n8 --mapping=cluster ./halo : -n8 ./halo", "", "", NULL,
      CMP_STEP_DONE, 1,
      "heterogeneous step (--het-group or ':'): neither placed nor "
      "profiled" },
    { "--jobid", "srun --jobid=7 -n16 --mapping=cluster ./halo", "", "", NULL,
      CMP_STEP_DONE, 1, "srun --jobid (an allocation other than this environment's)" },
    { "-N", "srun -N2 -n8 --mapping=cluster ./halo", "", "", NULL, CMP_STEP_DONE, 1,
      "srun -N: this Slurm refuses a node count together with the arbitrary layout a "
      "placement needs" },
    { "one task", "srun -n1 --mapping=cluster,verbose ./halo", "", "", NULL,
      CMP_STEP_DONE, 2, "one task: nothing to place" },
    { "max_tasks", "srun -n16 --mapping=cluster ./halo", "", "max_tasks=8", NULL,
      CMP_STEP_DONE, 1, "16 tasks are more than max_tasks=8" },
    { "--mapping=off", "srun -n16 --mapping=off ./halo", "", "default=cluster", NULL,
      CMP_STEP_DONE, 2, "--mapping=off" },
    { "default=off: nothing, no line", "srun -n16 ./halo", "", "", NULL, CMP_STEP_DONE },
    { "a bad --mapping: the option's callback says it", "srun -n16 --mapping=fast ./halo",
      "", "", NULL, CMP_STEP_DONE },
    { "srun --help: no step", "srun --help", "", "", NULL, CMP_STEP_DONE },
    { "the allocation unreadable", "srun -n16 --mapping=cluster ./halo",
      "SLURM_JOB_CPUS_PER_NODE=4(x3)", "", NULL, CMP_STEP_DONE, 1,
      "SLURM_JOB_CPUS_PER_NODE '4(x3)' describes 3 nodes, SLURM_JOB_NODELIST 4" },
    { "--mapping inherited from sbatch", "srun -n16 ./halo", CMP_OPTION_ENV "=cluster",
      "", NULL, CMP_STEP_ASK_STORE },
    { "mpirun not through clustermap's mpirun", MPIRUN, CMP_OPTION_ENV "=cluster", "",
      NULL, CMP_STEP_DONE, 1,
      "mpirun launch: not started through clustermap's mpirun (a path to another "
      "mpirun, one ahead in PATH, salloc, or mpirun=no)" },
    { "mpirun of another process", MPIRUN, CMP_OPTION_ENV "=cluster " OURS "PPID=99", "",
      NULL, CMP_STEP_DONE, 1,
      "mpirun launch: not started through clustermap's mpirun (a path to another "
      "mpirun, one ahead in PATH, salloc, or mpirun=no)" },
    { "mpirun's own layout", MPIRUN,
      CMP_OPTION_ENV "=cluster " CMP_ENV_MPIRUN_PID "=100 " CMP_ENV_MPIRUN_WHY
                     "=mpirun_decides_(--bind-to)",
      "", NULL, CMP_STEP_DONE, 1, "mpirun launch: mpirun_decides_(--bind-to)" },
    { "mpirun -np above the job's tasks", MPIRUN,
      CMP_OPTION_ENV "=cluster " OURS CMP_ENV_MPIRUN_NP "=9", "", NULL, CMP_STEP_DONE, 1,
      "mpirun launch: mpirun -np 9: more ranks than the job's tasks" },
    { "mpirun through clustermap's mpirun", MPIRUN, CMP_OPTION_ENV "=cluster " OURS, "",
      NULL, CMP_STEP_ASK_STORE },

    /* -- with the store's answer (t0510, t0511, t0512, t0513, t0514) -- */
    { "no MPI", "srun -n16 --mapping=cluster ./halo", "", "", &nompi, CMP_STEP_DONE, 2,
      "job 'halo' with 16 tasks did not call MPI_Init when it was profiled: neither "
      "placed nor profiled" },
    { "no profile: profile this run", "srun -n16 --mapping=cluster ./halo", "", "", &none,
      CMP_STEP_DONE, 1, "no profile for job 'halo' with 16 tasks", NOTE_REC, CMP_MARK_NOW,
      1 },
    { "no profile, others", "srun -n8 --mapping=cluster ./halo", "", "", &others,
      CMP_STEP_DONE, 1,
      "no profile for job 'halo' with 8 tasks (it has profiles for 4, "
      "16 tasks)",
      NOTE_REC, CMP_MARK_NOW, 1 },
    { "no profile, store not writable", "srun -n16 --mapping=cluster ./halo", "", "",
      &readonly, CMP_STEP_DONE, 1, "no profile for job 'halo' with 16 tasks", NOTE_RO },
    { "no profile, noprofile", "srun -n16 --mapping=cluster,noprofile ./halo", "", "",
      &none, CMP_STEP_DONE, 1, "no profile for job 'halo' with 16 tasks" },
    { "no profile, profile=never", "srun -n16 --mapping=cluster ./halo", "",
      "profile=never", &none, CMP_STEP_DONE, 1,
      "no profile for job 'halo' with 16 tasks" },
    { "corrupt profile", "srun -n16 --mapping=cluster ./halo", "", "", &corrupt,
      CMP_STEP_DONE, 1,
      "cannot use the profile of job 'halo' with 16 tasks: bad checksum" },
    { "no store", "srun -n16 --mapping=cluster ./halo", "", "", &closed, CMP_STEP_DONE, 1,
      "cannot use the profile of job 'halo' with 16 tasks: store: cannot open it" },
    { "placed from the profile", "srun -n16 --mapping=cluster ./halo", "", "", &found,
      CMP_STEP_PLACE, 0, NULL, NULL, CMP_MARK_NONE, 0, "" },
    { "placed, timed for the guard", "srun -n16 --mapping=cluster ./halo", "",
      "guard=yes", &found, CMP_STEP_PLACE, 0, NULL, NULL, CMP_MARK_IF_PLACED, 0, "" },
    { "placed and profiled (profile=always)", "srun -n16 --mapping=cluster ./halo", "",
      "profile=always guard=yes", &found, CMP_STEP_PLACE, 0, NULL, NULL,
      CMP_MARK_IF_PLACED, 1, NOTE_REC },
    { "guard: measure Slurm's default", "srun -n16 --mapping=cluster ./halo", "",
      "guard=yes", &hist_measure, CMP_STEP_DONE, 1,
      "job 'halo': timing Slurm's default "
      "to compare with the placed runs (2 and 0 runs so far)",
      NULL, CMP_MARK_NOW, 0 },
    { "guard: slower when placed", "srun -n16 --mapping=cluster ./halo", "", "guard=yes",
      &hist_slower, CMP_STEP_DONE, 1,
      "job 'halo' ran slower when placed: placed runs "
      "took 10.000 s, Slurm's default 5.000 s (spread 0.100 s, 2 and 2 runs)",
      NULL, CMP_MARK_NOW, 0 },
    { "guard: a probe", "srun -n16 --mapping=cluster ./halo", "", "guard=yes",
      &hist_probe, CMP_STEP_PLACE, 0, NULL, NULL, CMP_MARK_IF_PLACED, 0,
      " (a probe: placed runs took 10.000 s, Slurm's default 5.000 s (spread 0.100 s, "
      "2 and 5 runs))" },
    { "block, no profile: profiled", "srun -n16 --mapping=block ./halo", "", "", &none,
      CMP_STEP_PLACE, 0, NULL, NULL, CMP_MARK_IF_PLACED, 1, NOTE_REC },
    { "block without a store", "srun -n16 --mapping=block ./halo", "", "", &closed,
      CMP_STEP_PLACE, 0, NULL, NULL, CMP_MARK_NONE, 0, NOTE_OPEN },
    { "profile", "srun -n16 --mapping=profile ./halo", "", "", &none, CMP_STEP_DONE, 2,
      "--mapping=profile of job 'halo' with 16 tasks", NOTE_REC, CMP_MARK_NOW, 1 },
    { "profile, store not writable", "srun -n16 --mapping=profile ./halo", "", "",
      &readonly, CMP_STEP_DONE, 1, "--mapping=profile of job 'halo' with 16 tasks",
      NOTE_RO },
    { "profile,noprofile", "srun -n16 --mapping=profile,noprofile ./halo", "", "", &none,
      CMP_STEP_DONE, 2, "--mapping=profile,noprofile" },
    { "profile, mpirun not staged", MPIRUN, CMP_OPTION_ENV "=profile " OURS, "", &none,
      CMP_STEP_DONE, 1, "--mapping=profile of job 'halo' with 8 tasks", UNSTAGED },
    { "mpirun not staged, no profile", MPIRUN, CMP_OPTION_ENV "=cluster " OURS, "", &none,
      CMP_STEP_DONE, 1, "no profile for job 'halo' with 8 tasks", UNSTAGED },
    { "mpirun staged, no profile", MPIRUN,
      CMP_OPTION_ENV "=cluster " OURS CMP_ENV_MPIRUN_STAGE "=/s/.mpirun.42.x", "", &none,
      CMP_STEP_DONE, 1, "no profile for job 'halo' with 8 tasks", NOTE_REC, CMP_MARK_NOW,
      1 },
    { "mpirun staged, placed", MPIRUN,
      CMP_OPTION_ENV "=cluster " OURS CMP_ENV_MPIRUN_STAGE "=/s/.mpirun.42.x", "", &found,
      CMP_STEP_PLACE, 0, NULL, NULL, CMP_MARK_NONE, 0, "" },
};
#pragma GCC diagnostic pop

/* The history of @p spec: placed runs of 10 s, default runs of 5 s. */
static int history(const char *spec, cm_run_t *runs)
{
    int n = 0;
    for (const char *p = spec; p && *p; p++, n++) {
        memset(&runs[n], 0, sizeof runs[n]);
        snprintf(runs[n].jobid, sizeof runs[n].jobid, "42.%d", n);
        runs[n].when = 1000 + n;
        runs[n].placed = *p == 'p';
        snprintf(runs[n].how, sizeof runs[n].how, "%s", *p == 'p' ? "scotch" : "-");
        snprintf(runs[n].program, sizeof runs[n].program, "-");
        runs[n].elapsed_max = runs[n].elapsed_mean = *p == 'p' ? 10 : 5;
    }
    return n;
}

/* The store's answer as cm_store_step_info gives it for @p spec. */
static void answer(const store_spec_t *spec, unsigned ask, cm_store_step_info_t *info)
{
    memset(info, 0, sizeof *info);
    if (spec->closed) {
        cm_error_set(&info->open_err, "store: cannot open it");
        return;
    }
    info->opened = 1;
    info->nompi = spec->nompi;
    info->can_record = !spec->no_record;
    if (spec->no_record)
        cm_error_set(&info->record_err, "%s", spec->no_record);
    if (ask & CM_STEP_ASK_PROFILE) {
        info->profile = spec->profile;
        if (spec->profile < 0)
            cm_error_set(&info->profile_err, "bad checksum");
        while (info->ncounts < 4 && spec->counts[info->ncounts])
            info->ncounts++;
        if (info->ncounts) {
            info->counts = malloc(sizeof spec->counts);
            memcpy(info->counts, spec->counts, sizeof spec->counts);
        }
    }
    if (ask & CM_STEP_ASK_HISTORY) {
        info->runs = malloc(CM_HISTORY_MAX_RUNS * sizeof *info->runs);
        info->nruns = history(spec->history, info->runs);
        info->history = 1;
    }
    if ((ask & CM_STEP_ASK_TRACE) && spec->trace) {
        info->trace = 1;
        info->trace_prefix = strdup("/s/1000/halo.16.json.tnbc/tnbc");
    }
}

/* Decide row @p r as srun's side does: the snapshot, the decision, the
 * store's answer when asked, the decision again. */
static void decide(const row_t *r, const cmp_config_t *c, cmp_step_input_t *in,
                   cmp_step_decision_t *d, cm_store_step_info_t *info, char **bufs)
{
    char *argv[32];
    int argc = 0;
    memset(in, 0, sizeof *in);
    in->args_read = 1;
    in->srun_refuses_nodes = 1;
    bufs[0] = strdup(r->srun);
    for (char *save = NULL, *t = strtok_r(bufs[0], " ", &save); t && argc < 31;
         t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    argv[argc] = NULL;
    in->args_refused = cmp_srun_args_parse(argc, argv, &in->sa, &in->args_err) < 0;
    bufs[1] = strdup(base_env);
    set_env(in, bufs[1]);
    bufs[2] = strdup(r->env);
    set_env(in, bufs[2]);
    cmp_step_decide(c, in, NULL, d);
    memset(info, 0, sizeof *info);
    if (r->store && d->next == CMP_STEP_ASK_STORE) {
        answer(r->store, d->ask, info);
        cmp_step_decide(c, in, info, d);
    }
}

static void config(const char *conf, cmp_config_t *c)
{
    char buf[256], *argv[16];
    int argc = 0;
    cm_error_t err;
    cmp_config_init(c);
    snprintf(buf, sizeof buf, "%s", conf);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && argc < 16;
         t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    c->guard = 0; /* as the cluster tests' plugstack line: guard=no unless said */
    if (cmp_config_parse(c, argc, argv, &err) < 0)
        fail_msg("%s", err.msg);
}

static void test_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row_t *r = &rows[i];
        cmp_config_t c;
        cmp_step_input_t in;
        cmp_step_decision_t d;
        cm_store_step_info_t info;
        char *bufs[3];
        config(r->conf, &c);
        decide(r, &c, &in, &d, &info, bufs);
        print_message("row %zu: %s\n", i, r->name);
        assert_int_equal(d.next, r->next);
        assert_int_equal(d.fallback, r->line != 0);
        if (r->line) {
            assert_int_equal(d.nothing_to_do, r->line == 2);
            assert_string_equal(d.reason, r->reason);
            if (r->note)
                assert_string_equal(d.note, r->note);
            else
                assert_null(d.note);
        }
        assert_int_equal(d.mark, r->mark);
        if (r->mark)
            assert_int_equal(d.traffic, r->traffic);
        if (r->next == CMP_STEP_PLACE)
            assert_string_equal(d.place_note, r->place_note);
        cmp_step_decision_free(&d);
        cm_store_step_info_free(&info);
        for (int k = 0; k < 3; k++)
            free(bufs[k]);
    }
}

/* Which lines the log shows: who asked, and the overlays marked. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static void test_request_and_overlays(void **state)
{
    (void)state;
    static const row_t
        asked = { "", "srun -n16 --mapping=cluster,verbose,overlap ./halo", "", "", NULL,
                  0 },
        dflt = { "", "srun -n16 ./halo", "", "default=block overlay=css", NULL, 0 },
        mpi = { "",
                MPIRUN,
                CMP_OPTION_ENV "=cluster,overlap " OURS CMP_ENV_MPIRUN_STAGE
                               "=/s/x " CMP_ENV_MPIRUN_OVERLAY "=tnbc",
                "",
                &trace,
                0 };
    cmp_config_t c;
    cmp_step_input_t in;
    cmp_step_decision_t d;
    cm_store_step_info_t info;
    char *bufs[3];

    config(asked.conf, &c);
    decide(&asked, &c, &in, &d, &info, bufs);
    assert_int_equal(d.log_request, 1);
    assert_int_equal(d.asked, 1);
    assert_int_equal(d.req.verbose, 1);
    assert_int_equal(d.mark_overlays, 1);
    assert_int_equal(d.overlays, CMP_OVL_TNBC);
    assert_int_equal(d.ask, CM_STEP_ASK_PROFILE | CM_STEP_ASK_TRACE);
    /* the profile's key: the job name and the program */
    assert_int_equal(strncmp(d.key, "halo@halo-", 10), 0);
    assert_string_equal(d.key_program, "/home/u/halo");
    assert_int_equal(d.ntasks, 16);
    assert_int_equal(d.alloc.nnodes, 4);
    for (int k = 0; k < 4; k++)
        assert_int_equal(d.alloc.slots[k], 4);
    cmp_step_decision_free(&d);
    for (int k = 0; k < 3; k++)
        free(bufs[k]);

    config(dflt.conf, &c);
    decide(&dflt, &c, &in, &d, &info, bufs);
    assert_int_equal(d.log_request, 1);
    assert_int_equal(d.asked, 0);
    assert_int_equal(d.req.mode, CMP_MODE_BLOCK);
    assert_int_equal(d.overlays, CMP_OVL_CSS);
    assert_int_equal(d.ask, CM_STEP_ASK_PROFILE);
    cmp_step_decision_free(&d);
    for (int k = 0; k < 3; k++)
        free(bufs[k]);

    /* mpirun's ranks: the overlays clustermap's mpirun gave them, the
     * trace of the staged run, the rank file, the program's key */
    config(mpi.conf, &c);
    decide(&mpi, &c, &in, &d, &info, bufs);
    assert_int_equal(d.mark_overlays, 0);
    assert_int_equal(d.mpirun_stderr, 1);
    assert_int_equal(d.overlays, CMP_OVL_TNBC);
    assert_int_equal(d.trace, 1);
    assert_string_equal(d.rankfile, "/tmp/rf");
    assert_int_equal(d.ntasks, 8);
    assert_string_equal(d.key_program, "/home/u/pairs");
    assert_int_equal(d.next, CMP_STEP_PLACE);
    cmp_step_decision_free(&d);
    cm_store_step_info_free(&info);
    for (int k = 0; k < 3; k++)
        free(bufs[k]);
}

/* name= is the profile; -J names the job; SLURM_CPUS_PER_TASK and
 * Slurm's own layout shape the nodes the plan may use. */
static void test_step_shape(void **state)
{
    (void)state;
    static const row_t
        named = { "",
                  "srun -n6 -J other --mapping=cluster,name=mine ./halo",
                  "SLURM_CPUS_PER_TASK=2",
                  "",
                  NULL,
                  0 },
        jname = { "", "srun -n4 -J other --mapping=cluster ./halo", "", "", NULL, 0 },
        noname = { "", "srun -n4 --mapping=cluster", "-SLURM_JOB_NAME", "", NULL, 0 };
    cmp_config_t c;
    cmp_step_input_t in;
    cmp_step_decision_t d;
    cm_store_step_info_t info;
    char *bufs[3];

    config("", &c);
    decide(&named, &c, &in, &d, &info, bufs);
    assert_string_equal(d.key, "mine");
    assert_string_equal(d.job_name, "mine");
    assert_null(d.key_program);
    /* whether it calls MPI_Init is the program's: its mark is keyed so */
    assert_int_equal(strncmp(d.nompi_key, "mine@halo-", 10), 0);
    assert_int_equal(d.cpus_per_task, 2);
    /* 2 slots per node; 6 tasks as Slurm lays them out: 2, 2, 1, 1 */
    assert_int_equal(d.alloc.nnodes, 4);
    assert_int_equal(d.alloc.slots[0], 2);
    assert_int_equal(d.alloc.slots[2], 1);
    cmp_step_decision_free(&d);
    for (int k = 0; k < 3; k++)
        free(bufs[k]);

    decide(&jname, &c, &in, &d, &info, bufs);
    assert_string_equal(d.job_name, "other");
    assert_int_equal(strncmp(d.key, "other@halo-", 11), 0);
    assert_string_equal(d.nompi_key, ""); /* the key already names it */
    cmp_step_decision_free(&d);
    for (int k = 0; k < 3; k++)
        free(bufs[k]);

    decide(&noname, &c, &in, &d, &info, bufs);
    assert_string_equal(d.job_name, "noname");
    cmp_step_decision_free(&d);
    for (int k = 0; k < 3; k++)
        free(bufs[k]);
}

#pragma GCC diagnostic pop

/* Whose binding a placed step keeps: the user's when given (said always),
 * Slurm's for a step with GPUs (said when verbose), else clustermap binds
 * each rank to its cores. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static void test_binding(void **state)
{
    (void)state;
    static const struct {
        const char *srun, *env;
        int gpus_env;
        const char *kept; /* NULL: clustermap binds */
        int said;
        const char *conf; /* plugstack.conf arguments, NULL: none */
        int per_gpu;      /* tasks per GPU slot of a step placed on GPUs */
    } rows[] = {
        { "srun -n8 ./halo", "", 0, NULL, 0 },
        { "srun -n8 --cpu-bind=verbose ./halo", "", 0, NULL, 0 },
        { "srun -n8 --cpu-bind=quiet,verbose ./halo", "", 0, NULL, 0 },
        { "srun -n8 --cpu-bind=map_cpu:3,2,1,0 ./halo", "", 0,
          "--cpu-bind=map_cpu:3,2,1,0 given: your CPU binding is kept; ranks are placed "
          "on nodes only",
          1 },
        { "srun -n8 --cpu_bind none ./halo", "", 0,
          "--cpu-bind=none given: your CPU binding is kept; ranks are placed on nodes "
          "only",
          1 },
        { "srun -n8 ./halo", "SLURM_CPU_BIND=cores", 0,
          "--cpu-bind=cores given: your CPU binding is kept; ranks are placed on nodes "
          "only",
          1 },
        { "srun -n8 --gpus-per-task=1 ./halo", "", 0,
          "the step asks for GPUs: Slurm's GPU and CPU binding are kept; ranks are "
          "placed on nodes only",
          0 },
        { "srun -n8 -G 8 ./halo", "", 0, "the step asks", 0 },
        { "srun -n8 -G0 ./halo", "", 0, NULL, 0 },
        { "srun -n8 --gres=nic:1,gpu:a100:2 ./halo", "", 0, "the step asks", 0 },
        { "srun -n8 --gres=gpus:2 ./halo", "", 0, NULL, 0 },
        { "srun -n8 --tres-per-task=gres/gpu=1 ./halo", "", 0, "the step asks", 0 },
        { "srun -n8 --ntasks-per-gpu=2 ./halo", "", 0, "the step asks", 0 },
        { "srun -n8 ./halo", "", 1, "the step asks", 0 },
        { "srun -n8 --gpus-per-task=1 --gpu-bind=closest ./halo", "", 0,
          "--gpu-bind=closest given: your GPU and CPU binding are kept; ranks are "
          "placed on nodes only",
          1 },
        { "srun -n8 ./halo", "SLURM_GPU_BIND=map_gpu:0,1", 1,
          "--gpu-bind=map_gpu:0,1 given", 1 },
        { "srun -n8 --gpus=8 --tres-bind=gres/gpu:closest+gres/nic:closest ./halo", "", 0,
          "--tres-bind=gres/gpu:closest+gres/nic:closest given: your binding is kept; "
          "ranks are placed on nodes only",
          1 },
        /* the srun of mpirun's daemons binds nothing of its own */
        { MPIRUN, OURS, 1, NULL, 0 },
        /* with the GPU nodes' hwloc XML: one task per GPU, or K per GPU,
         * are placed on GPUs; other GPU shapes keep Slurm's binding */
        { "srun -n8 --gpus-per-task=1 ./halo", "", 0, NULL, 0, "hwloc_xml=/n.xml", 1 },
        { "srun -n8 --ntasks-per-gpu=2 ./halo", "", 0, NULL, 0, "hwloc_xml=/n.xml", 2 },
        { "srun -n8 ./halo", "SLURM_GPUS_PER_TASK=1", 1, NULL, 0, "hwloc_xml=/n.xml", 1 },
        { "srun -n8 ./halo", "SLURM_NTASKS_PER_GPU=4", 1, NULL, 0, "hwloc_xml=/n.xml",
          4 },
        { "srun -n8 --gpus-per-task=2 ./halo", "", 0,
          "the step asks for GPUs: Slurm's GPU and CPU binding are kept; ranks are "
          "placed on nodes only (clustermap places --gpus-per-task=1 and "
          "--ntasks-per-gpu=N steps on GPUs)",
          0, "hwloc_xml=/n.xml", 0 },
        { "srun -n8 --gpus-per-task=a100:1 ./halo", "", 0, "the step asks", 0,
          "hwloc_xml=/n.xml", 0 },
        { "srun -n8 -G 8 ./halo", "SLURM_GPUS_PER_TASK=1", 1, "the step asks", 0,
          "hwloc_xml=/n.xml", 0 },
        { "srun -n8 --gpus-per-task=1 --cpu-bind=cores ./halo", "", 0, "--cpu-bind=cores",
          1, "hwloc_xml=/n.xml", 0 },
        { "srun -n8 --gpus-per-task=1 ./halo", "", 0,
          "the step asks for GPUs: Slurm's GPU and CPU binding are kept; ranks are "
          "placed on nodes only (plugstack.conf has no hwloc_xml= for the GPU nodes)",
          0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cmp_config_t c;
        cmp_step_input_t in;
        cmp_step_decision_t d;
        cm_store_step_info_t info;
        char *bufs[3], *argv[32], *line = malloc(strlen(rows[i].srun) + 20);
        int argc = 0;
        print_message("binding row %zu: %s %s\n", i, rows[i].env, rows[i].srun);
        /* every row is a step to place */
        sprintf(line, "srun --mapping=cluster %s", rows[i].srun + 5);
        config(rows[i].conf ? rows[i].conf : "", &c);
        /* as decide(), with the GPU variables that are not strings */
        memset(&in, 0, sizeof in);
        in.args_read = 1;
        for (char *save = NULL, *t = strtok_r(line, " ", &save); t && argc < 31;
             t = strtok_r(NULL, " ", &save))
            argv[argc++] = t;
        argv[argc] = NULL;
        assert_int_equal(cmp_srun_args_parse(argc, argv, &in.sa, &in.args_err), 0);
        bufs[0] = NULL;
        bufs[1] = strdup(base_env);
        set_env(&in, bufs[1]);
        bufs[2] = strdup(rows[i].env);
        set_env(&in, bufs[2]);
        in.gpus_env = rows[i].gpus_env;
        cmp_step_decide(&c, &in, NULL, &d);
        memset(&info, 0, sizeof info);
        if (!rows[i].kept)
            assert_null(d.bind_kept);
        else if (!d.bind_kept || strncmp(d.bind_kept, rows[i].kept, strlen(rows[i].kept)))
            fail_msg("'%s', expected '%s...'", d.bind_kept ? d.bind_kept : "(null)",
                     rows[i].kept);
        assert_int_equal(d.bind_kept_said, rows[i].said);
        assert_int_equal(d.per_gpu, rows[i].per_gpu);
        cmp_step_decision_free(&d);
        free(line);
        for (int k = 1; k < 3; k++)
            free(bufs[k]);
    }
}
#pragma GCC diagnostic pop

static cm_profile_t *profile(uid_t uid, const char *name, int n)
{
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(n, &err);
    assert_int_equal(cm_builder_add(b, 0, n - 1, 1, 1, &err), 0);
    cm_builder_set_has_msgs(b, 1);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_profile_t *p = cm_profile_new(uid, "tester", name, n, m, NULL, 1000, &err);
    assert_non_null(p);
    cm_matrix_free(m);
    cm_builder_free(b);
    return p;
}

/* The store's side: one call, every part; the other task counts of the
 * key only (not of a key it is a prefix of), ascending. */
static void test_store_step_info(void **state)
{
    cm_test_store_t *f = *state;
    cm_store_step_info_t info;
    cm_error_t err;
    static const int made[][2] = { { 16, 0 }, { 4, 0 }, { 2, 1 }, { 64, 0 } };
    for (size_t k = 0; k < sizeof made / sizeof made[0]; k++) {
        cm_profile_t *p =
            profile(cm_store_uid(f->s), made[k][1] ? "halo.x" : "halo", made[k][0]);
        assert_int_equal(cm_store_save(f->s, p, 0, &err), 0);
        cm_profile_free(p);
    }
    cm_store_step_info(f->s, NULL, "halo", NULL, 8,
                       CM_STEP_ASK_PROFILE | CM_STEP_ASK_HISTORY | CM_STEP_ASK_TRACE,
                       &info);
    assert_int_equal(info.opened, 1);
    assert_int_equal(info.nompi, 0);
    assert_int_equal(info.profile, 0);
    assert_int_equal(info.ncounts, 3);
    assert_int_equal(info.counts[0], 4);
    assert_int_equal(info.counts[1], 16);
    assert_int_equal(info.counts[2], 64);
    assert_int_equal(info.can_record, 1);
    assert_int_equal(info.history, 1);
    assert_int_equal(info.nruns, 0);
    assert_int_equal(info.trace, 0);
    cm_store_step_info_free(&info);

    /* a profile found: no counts; marked "no MPI": nothing else read */
    cm_store_step_info(f->s, NULL, "halo", NULL, 16, CM_STEP_ASK_PROFILE, &info);
    assert_int_equal(info.profile, 1);
    assert_non_null(info.prof);
    assert_int_equal(info.ncounts, 0);
    cm_store_step_info_free(&info);
    assert_int_equal(cm_store_mark_nompi(f->s, "halo", 16, &err), 0);
    cm_store_step_info(f->s, NULL, "halo", NULL, 16, CM_STEP_ASK_PROFILE, &info);
    assert_int_equal(info.nompi, 1);
    assert_int_equal(info.profile, 0);
    assert_null(info.prof);
    cm_store_step_info_free(&info);

    /* a profile under the job name alone (an import, a name= profile) is
     * found for a program key of that name, and says where it was found;
     * a "no MPI" mark of another program of the name disables nothing */
    cm_profile_t *imp = profile(cm_store_uid(f->s), "pairs", 8);
    assert_int_equal(cm_store_save(f->s, imp, 0, &err), 0);
    cm_profile_free(imp);
    char prog[CM_PROFILE_MAX_NAME + 1], other[CM_PROFILE_MAX_NAME + 1];
    assert_int_equal(
        cm_profile_program_key("pairs", "/home/u/halo", prog, sizeof prog, &err), 0);
    assert_int_equal(
        cm_profile_program_key("pairs", "/bin/true", other, sizeof other, &err), 0);
    assert_int_equal(cm_store_set_nompi_key(f->s, other, &err), 0);
    assert_int_equal(cm_store_mark_nompi(f->s, "pairs", 8, &err), 0);
    assert_int_equal(cm_store_set_nompi_key(f->s, NULL, &err), 0);
    assert_int_equal(cm_store_nompi(f->s, "pairs", 8), 0);
    assert_int_equal(cm_store_nompi(f->s, other, 8), 1);
    cm_store_step_info(f->s, NULL, prog, NULL, 8, CM_STEP_ASK_PROFILE, &info);
    assert_int_equal(info.nompi, 0);
    assert_int_equal(info.profile, 1);
    assert_string_equal(info.found_key, "pairs");
    cm_store_step_info_free(&info);
    cm_store_step_info(f->s, NULL, "pairs", prog, 8, CM_STEP_ASK_PROFILE, &info);
    assert_int_equal(info.profile, 1);
    assert_null(info.found_key);
    cm_store_step_info_free(&info);
    /* the program that did not call MPI_Init stays marked */
    cm_store_step_info(f->s, NULL, "pairs", other, 8, CM_STEP_ASK_PROFILE, &info);
    assert_int_equal(info.nompi, 1);
    cm_store_step_info_free(&info);

    /* no store: the reason it could not be opened */
    cm_error_set(&err, "store: cannot open it");
    cm_store_step_info(NULL, &err, "halo", NULL, 16, CM_STEP_ASK_PROFILE, &info);
    assert_int_equal(info.opened, 0);
    assert_string_equal(info.open_err.msg, "store: cannot open it");
    cm_store_step_info_free(&info);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_request_and_overlays),
        cmocka_unit_test(test_step_shape),
        cmocka_unit_test(test_binding),
        CM_TEST_STORE_CASE(test_store_step_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
