/*
 * mpirun.c -- clustermap's mpirun: the launcher a batch job with --mapping
 * finds first in its PATH (the batch step puts its directory there,
 * src/plugin/mpirun_batch.c).  It starts the real mpirun, the next one in
 * PATH, with the same arguments -- after giving it a rank file when the
 * layout is clustermap's to decide.
 *
 * Open MPI 4.1's mpirun takes a rank file from its environment
 * (OMPI_MCA_rmaps_rank_file_path), Open MPI 5's and 6's (PRRTE) from
 * `--map-by rankfile:file=PATH`, put first on its command line; both read
 * it when they map the job, after their daemons are up (measured with
 * 4.1.4 and 5.0.7).  So this program writes mpirun's own default layout
 * there (node by node, each node's slots in order: what mpirun does) and
 * names the file; the srun that starts the daemons replaces it with the
 * plan (src/plugin/srun_step.c).  A one-node job starts no daemon and keeps
 * the default.  The daemons' srun knows, from its parent's pid
 * (CLUSTERMAP_MPIRUN_PID), that the file is its mpirun's.  mpirun runs in
 * this process (exec) -- or, when its run may be profiled, as its child,
 * so that the run is recorded once mpirun has returned (mpirun_record.c):
 * only this process knows mpirun's exit code (a failed run is never
 * recorded), can still print the run's line on the job's stderr, and
 * records the run before the script's next mpirun looks for its profile.
 * That child ends with this process: the signals it can catch go on to
 * mpirun, and its death however caused (kill -9) sends mpirun SIGTERM
 * (PR_SET_PDEATHSIG), on which mpirun ends its ranks; the run's stage is
 * then left to the batch step's end (src/plugin/mpirun_batch.c).
 *
 * Any doubt leaves mpirun as the user wrote it: its own mapping, binding
 * or host options, an MPMD line, an option not known, an MCA parameter of
 * the mapper in the environment, an Open MPI older than 4, more ranks than
 * the job's tasks, a node confined to part of its CPUs (the rank file binds
 * by the node's core numbers), a rank file path Open MPI 5 misreads.  The reason travels to that srun in
 * CLUSTERMAP_MPIRUN_WHY, which says it in its one line.  Nothing here ever
 * fails the launch: only a missing real mpirun does, as it would have.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc.h>

#include "cm_store.h"
#include "launch.h"

extern char **environ;

/* The next @p name in PATH that is not this program (or a link to it). */
static int find_real(const char *name, char *out, size_t size)
{
    char self[PATH_MAX], cand[2 * PATH_MAX], real[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0)
        return -1;
    self[n] = '\0';
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t len = strcspn(path, ":");
        snprintf(cand, sizeof cand, "%.*s/%s", (int)len, len ? path : ".", name);
        path += len + (path[len] == ':');
        struct stat st;
        if (!realpath(cand, real) || !strcmp(real, self) || stat(real, &st) < 0 ||
            !S_ISREG(st.st_mode) || access(real, X_OK) < 0)
            continue;
        if (strlen(cand) >= size)
            return -1;
        strcpy(out, cand);
        return 0;
    }
    return -1;
}

/* The major version "mpirun --version" prints ("mpirun (Open MPI) 4.1.4"),
 * 0 when it cannot be told. */
static int open_mpi_major(const char *real)
{
    int fd[2];
    char buf[512];
    if (pipe(fd) < 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(fd[1], 1);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 2);
        }
        close(fd[0]);
        execl(real, real, "--version", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    size_t used = 0;
    ssize_t r;
    while (pid > 0 && used < sizeof buf - 1 &&
           ((r = read(fd[0], buf + used, sizeof buf - 1 - used)) > 0 ||
            (r < 0 && errno == EINTR)))
        used += r > 0 ? (size_t)r : 0;
    buf[used] = '\0';
    close(fd[0]);
    int status;
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    const char *p = strstr(buf, "(Open MPI) ");
    return p ? atoi(p + 11) : 0;
}

/* Why the CPUs of this node do not take the rank file's core numbers;
 * NULL when they do.  Nodes of a job are alike: the rank file binds by
 * core number, and a job confined to part of a node (a cpuset) would be
 * bound outside it.  @p shared: 0 when each of the @p most ranks of a
 * node gets a core of its own; the node's core count when it has fewer
 * cores than that (a node that claims more cores than it has, Slurm's
 * config_overrides): its ranks then share them all, as bind.c does for
 * srun's tasks -- pinning busy-polling ranks onto shared cores made Open
 * MPI hang. */
static const char *cpus_refuse(int most, int *shared, char *buf, size_t size)
{
    cpu_set_t set;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (sched_getaffinity(0, sizeof set, &set) < 0 || online < 1)
        return "cannot read this node's CPUs";
    if (CPU_COUNT(&set) < online) {
        snprintf(buf, size, "the job has %d of this node's %ld CPUs (Open MPI's rank "
                 "file binds by the node's core numbers)", CPU_COUNT(&set), online);
        return buf;
    }
    hwloc_topology_t topo;
    int cores = -1;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0)
            cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        hwloc_topology_destroy(topo);
    }
    if (cores < 1)
        return "cannot read this node's cores";
    *shared = most > cores ? cores : 0;
    return NULL;
}

/* An MCA parameter of the mapper or binder in the environment. */
static const char *env_refuses(char *buf, size_t size)
{
    for (char **e = environ; *e; e++)
        if ((!strncmp(*e, "OMPI_MCA_", 9) && cmp_mpirun_layout_param(*e + 9)) ||
            (!strncmp(*e, "PRTE_MCA_", 9) && cmp_mpirun_layout_param(*e + 9))) {
            snprintf(buf, size, "mpirun decides the layout itself (%.*s in the "
                     "environment)", (int)strcspn(*e, "="), *e);
            return buf;
        }
    return NULL;
}

/* The arguments mpirun runs with: argv, with "--map-by rankfile:file=..."
 * in front for Open MPI 5 and later, and the ranks' profiling variables. */
static char **run_argv;
static char map_by[CMP_PATH_MAX + 32];
static char *x_preload; /* the user's LD_PRELOAD whole, after the library */
static char x_dir[CMP_PATH_MAX + 64], x_control[CMP_PATH_MAX + 64];

/* Every rank starts with the profiling library and a control file that
 * the srun of mpirun's daemons fills before any rank starts ("traffic",
 * "time"; a one-node job, which starts no daemon, has none and is not
 * profiled).  The parts go to a directory of this run in the user's store
 * directory (shared by the nodes), made here and recorded here once
 * mpirun has returned (run_and_record).  Adds the -x options to @p extra
 * (6 slots). */
static int stage(int *nextra, char **extra)
{
    const char *lib = getenv(CMP_ENV_MPIRUN_PROF_LIB), *store = getenv(CMP_ENV_MPIRUN_STORE);
    const char *job = getenv("SLURM_JOB_ID"), *old = getenv("LD_PRELOAD");
    char dir[CMP_PATH_MAX];
    struct stat st;
    if (!lib || !*lib || !store || !*store || !job || strspn(job, "0123456789") !=
        strlen(job) || lstat(store, &st) < 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != getuid() ||
        snprintf(dir, sizeof dir, "%s/" CMP_MPIRUN_STAGE_PREFIX "%.20s.XXXXXX", store,
                 job) >= (int)sizeof dir || !mkdtemp(dir))
        return -1;
    if (asprintf(&x_preload, "LD_PRELOAD=%s%s%s", lib, old && *old ? ":" : "",
                 old && *old ? old : "") < 0) {
        x_preload = NULL;
        rmdir(dir);
        return -1;
    }
    snprintf(x_dir, sizeof x_dir, CM_ENV_PROFILE_DIR "=%s", dir);
    snprintf(x_control, sizeof x_control, CM_ENV_PROFILE_CONTROL "=%s/control", dir);
    char *add[] = { "-x", x_preload, "-x", x_dir, "-x", x_control };
    memcpy(extra + *nextra, add, sizeof add);
    *nextra += 6;
    setenv(CMP_ENV_MPIRUN_STAGE, dir, 1);
    return 0;
}

/* Write the default rank file and point mpirun at it; the reason when the
 * layout is not clustermap's to decide, NULL when steered or when nothing
 * is to be said. */
static const char *steer(int argc, char **argv, const char *real, char *buf,
                         size_t size)
{
    const char *dir = getenv(CMP_ENV_MPIRUN_DIR);
    cmp_mpirun_args_t args;
    cm_error_t err;
    struct stat st;
    if (!dir || !*dir)
        return NULL;   /* not a --mapping batch job */
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
        (st.st_mode & 077))
        return CMP_ENV_MPIRUN_DIR " is not a private directory of the user";
    if (cmp_mpirun_args_parse(argc, argv, &args, &err) < 0 || args.query)
        return NULL;   /* mpirun refuses it, or only prints */
    if (args.why[0]) {
        snprintf(buf, size, "%s", args.why);
        return buf;
    }
    const char *why = env_refuses(buf, size);
    if (why)
        return why;
    int major = open_mpi_major(real);
    if (major < 4) {
        if (!major)
            snprintf(buf, size, "cannot tell the Open MPI version of %.300s", real);
        else
            snprintf(buf, size, "Open MPI %d: clustermap gives a rank file to "
                     "Open MPI 4 and later only", major);
        return buf;
    }
    cmp_alloc_t a;
    int rc = -1, *count = NULL, *node = NULL, *core = NULL, np = 0, most = 0, shared = 0;
    char *prog = NULL; /* the program, resolved, whatever its length */
    if (cmp_alloc_tasks("SLURM_JOB_NODELIST", "SLURM_TASKS_PER_NODE", &a, &err) < 0) {
        snprintf(buf, size, "%s", err.msg);
        why = buf;
        goto out;
    }
    int total = 0;
    for (int i = 0; i < a.nnodes; i++)
        total += a.slots[i];
    np = args.np ? args.np : total;
    count = malloc((size_t)a.nnodes * sizeof *count);
    node = malloc((size_t)np * sizeof *node);
    core = malloc((size_t)np * sizeof *core);
    if (!count || !node || !core) {
        why = "out of memory";
        goto out;
    }
    if (cmp_mpirun_fill(a.slots, a.nnodes, np, count) < 0) {
        snprintf(buf, size, "mpirun -np %d: more ranks than the job's %d tasks", np,
                 total);
        why = buf;
        goto out;
    }
    for (int i = 0, r = 0; i < a.nnodes; i++) {
        most = count[i] > most ? count[i] : most;
        for (int k = 0; k < count[i]; k++, r++) {
            node[r] = i;
            core[r] = k;
        }
    }
    if ((why = cpus_refuse(most, &shared, buf, size)))
        goto out;
    char file[CMP_PATH_MAX], num[16], pid[16], cores[16];
    snprintf(file, sizeof file, "%s/rankfile.%ld", dir, (long)getpid());
    /* measured: Open MPI 5.0.7 takes "file=/a/b-c" for an unknown
     * qualifier of --map-by; ':' and ',' separate its qualifiers */
    if (major > 4 && strpbrk(file, "-:,")) {
        snprintf(buf, size, "Open MPI %d cannot take a rank file whose path holds "
                 "'-', ':' or ',' (%.200s)", major, file);
        why = buf;
        goto out;
    }
    if (cmp_rankfile_write(file, a.names, node, core, np, shared, &err) < 0) {
        snprintf(buf, size, "%s", err.msg);
        why = buf;
        goto out;
    }
    if (args.program)
        prog = cmp_resolve_command(argv[args.program]);
    snprintf(num, sizeof num, "%d", np);
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    snprintf(cores, sizeof cores, "%d", shared);
    char *extra[12];   /* --map-by, --bind-to, stage()'s six */
    int nextra = 0;
    if (major == 4) {
        setenv("OMPI_MCA_rmaps_rank_file_path", file, 1);
        /* Open MPI 4.1.4 refuses the rank file of a node the job has only
         * in part ("There are not enough slots available") unless it may
         * oversubscribe; the file never puts more ranks on a node than
         * the slots Slurm gave the job there. */
        setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
    } else {
        /* measured with 5.0.7: a node whose ranks share fewer cores than
         * they are counts as oversubscribed, and mpirun stops, unless
         * allowed */
        snprintf(map_by, sizeof map_by, "rankfile:file=%s%s", file,
                 shared ? ":oversubscribe" : "");
        extra[nextra++] = "--map-by";
        extra[nextra++] = map_by;
        /* measured with 6.0.0rc2: it also refuses to bind more ranks than
         * cores ("would require binding more processes than cpus") even
         * then, unless the binding may overload them; the cores are the
         * rank file's slot ranges all the same */
        if (shared && major >= 6) {
            extra[nextra++] = "--bind-to";
            extra[nextra++] = "core:overload-allowed";
        }
    }
    stage(&nextra, extra);   /* without it the run is placed, not profiled */
    if (!(run_argv = calloc((size_t)argc + (size_t)nextra + 1, sizeof *run_argv))) {
        why = "out of memory";
        goto out;
    }
    run_argv[0] = argv[0];
    memcpy(run_argv + 1, extra, (size_t)nextra * sizeof *extra);
    memcpy(run_argv + 1 + nextra, argv + 1, (size_t)argc * sizeof *argv);   /* and NULL */
    /* Open MPI 6 takes the job's SLURM_ variables from its daemons' srun */
    setenv(CMP_ENV_MPIRUN_NODES, getenv("SLURM_JOB_NODELIST"), 1);
    setenv(CMP_ENV_MPIRUN_TASKS, getenv("SLURM_TASKS_PER_NODE"), 1);
    setenv(CMP_ENV_MPIRUN_SHARED, cores, 1);
    setenv(CMP_ENV_MPIRUN_PID, pid, 1);
    setenv(CMP_ENV_MPIRUN_RANKFILE, file, 1);
    setenv(CMP_ENV_MPIRUN_NP, num, 1);
    setenv(CMP_ENV_MPIRUN_PROGRAM, prog ? prog : "", 1);
    rc = 0;
out:
    free(prog);
    cmp_alloc_free(&a);
    free(count);
    free(node);
    free(core);
    return rc == 0 ? NULL : why;
}

/* mpirun in a child, for as long as it runs: the signals this process
 * can catch go on to it (Slurm signals the whole job anyway); its death
 * by SIGKILL reaches it as SIGTERM (run_and_record). */
static pid_t child;

static void forward(int sig)
{
    if (child > 0)
        kill(child, sig);
}

/* Run mpirun, then record the run its ranks staged in @p stage: the srun
 * of its daemons may still be ending (Open MPI 5 and 6 do not wait for
 * it), this process is not.  Exits as mpirun did. */
static int run_and_record(const char *real, char **av, const char *stage)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
    char pid[16], msg[1024];
    int status = 0, verbose;
    pid_t self = getpid();
    if ((child = fork()) < 0) {
        execv(real, av);   /* cannot fork: mpirun runs, unrecorded */
        return 126;
    }
    if (child == 0) {
        /* SIGTERM, not SIGKILL: mpirun then ends its ranks and daemons
         * itself, as on the user's Ctrl-C; the setting survives execv.
         * A parent already gone before prctl never sends it: as killed. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != self)
            _exit(128 + SIGTERM);
        snprintf(pid, sizeof pid, "%ld", (long)getpid());
        setenv(CMP_ENV_MPIRUN_PID, pid, 1);
        execv(real, av);
        fprintf(stderr, "clustermap: %s: %s\n", real, strerror(errno));
        _exit(126);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status)
             : WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    int res = cmp_mpirun_record_collect(stage, code, msg, sizeof msg, &verbose);
    if ((res < 0 || res == CM_STEP_REFUSED) ? verbose >= 1 : res > 0 && verbose >= 2)
        fprintf(stderr, "clustermap: %s\n", msg);
    cmp_empty_private((void *)stage);
    rmdir(stage);
    if (WIFSIGNALED(status)) {
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
    }
    return code;
}

/* The job's overlays (CLUSTERMAP_MPIRUN_OVERLAY, set by the batch step:
 * src/plugin/overlay_step.c) as -x options put first on @p args: the
 * overlay's variables and, unless stage() preloads it already, the
 * library; with tnbc in a staged run, where each rank writes its trace
 * (the srun of the daemons puts the trace to read in the control file,
 * src/plugin/overlay_trace.c).  @p args itself when there are none.  The
 * library checks the value and agrees with the other ranks
 * (docs/overlays.md). */
static char **with_overlay(int argc, char **args)
{
    static char x_ovl[64], x_verbose[] = CM_ENV_OVERLAY_VERBOSE "=1",
                x_from[] = CM_ENV_OVERLAY_FROM "=plugin", x_trace[CMP_PATH_MAX + 64];
    static char *x_lib; /* the user's LD_PRELOAD whole, after the library */
    const char *m = getenv(CMP_ENV_MPIRUN_OVERLAY), *old = getenv("LD_PRELOAD");
    const char *stage_dir = getenv(CMP_ENV_MPIRUN_STAGE);
    char spec[32], *add[10], **out;
    unsigned bits;
    int verbose = 0, at = 0, n = 0;
    /* the batch step's mark, checked as srun checks it (overlay_trace.c):
     * the user can set it, and gets no more than the modifiers would give */
    if (!m || sscanf(m, "%31s %d %n", spec, &verbose, &at) < 2 || m[at] != '/' ||
        cmp_overlay_parse(spec, &bits) < 0 || !bits)
        return args;
    cmp_overlay_spec(bits, spec, sizeof spec);
    snprintf(x_ovl, sizeof x_ovl, CM_ENV_OVERLAY "=%s", spec);
    add[n++] = "-x";
    add[n++] = x_ovl;
    add[n++] = "-x";
    add[n++] = x_from;
    if (verbose) {
        add[n++] = "-x";
        add[n++] = x_verbose;
    }
    if ((bits & CMP_OVL_TNBC) && stage_dir &&
        snprintf(x_trace, sizeof x_trace, CM_ENV_OVERLAY_TRACE "=%s/" CM_TRACE_PREFIX,
                 stage_dir) < (int)sizeof x_trace) {
        add[n++] = "-x";
        add[n++] = x_trace;
    }
    if (!x_preload) {
        if (asprintf(&x_lib, "LD_PRELOAD=%s%s%s", m + at, old && *old ? ":" : "",
                     old && *old ? old : "") < 0)
            return args; /* without the overlay, on every rank */
        add[n++] = "-x";
        add[n++] = x_lib;
    }
    if (!(out = calloc((size_t)argc + (size_t)n + 1, sizeof *out)))
        return args;   /* without the overlay, on every rank */
    out[0] = args[0];
    memcpy(out + 1, add, (size_t)n * sizeof *add);
    memcpy(out + 1 + n, args + 1, (size_t)argc * sizeof *args);   /* and NULL */
    return out;
}

int main(int argc, char **argv)
{
    char real[CMP_PATH_MAX], buf[512], buf2[32];
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (find_real(name, real, sizeof real) < 0) {
        fprintf(stderr, "clustermap: %s: no other %s in PATH\n", argv[0], name);
        return 127;
    }
    unsetenv(CMP_ENV_MPIRUN_RANKFILE);
    unsetenv(CMP_ENV_MPIRUN_NP);
    unsetenv(CMP_ENV_MPIRUN_PROGRAM);
    unsetenv(CMP_ENV_MPIRUN_WHY);
    unsetenv(CMP_ENV_MPIRUN_PID);
    unsetenv(CMP_ENV_MPIRUN_NODES);
    unsetenv(CMP_ENV_MPIRUN_TASKS);
    unsetenv(CMP_ENV_MPIRUN_SHARED);
    unsetenv(CMP_ENV_MPIRUN_STAGE);
    const char *why = steer(argc, argv, real, buf, sizeof buf);
    if (why) {   /* said by the srun of this mpirun, known by its pid */
        snprintf(buf2, sizeof buf2, "%ld", (long)getpid());
        setenv(CMP_ENV_MPIRUN_WHY, why, 1);
        setenv(CMP_ENV_MPIRUN_PID, buf2, 1);
    }
    int nargs = argc;
    if (run_argv)
        while (run_argv[nargs])
            nargs++;
    char **args = with_overlay(nargs, run_argv ? run_argv : argv);
    const char *stage_dir = getenv(CMP_ENV_MPIRUN_STAGE);
    if (stage_dir && run_argv)
        return run_and_record(real, args, stage_dir);
    execv(real, args);
    fprintf(stderr, "clustermap: %s: %s\n", real, strerror(errno));
    return 126;
}
