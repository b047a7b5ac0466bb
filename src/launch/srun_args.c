/*
 * srun_args.c -- srun's own command line, as srun's getopt will see it.
 *
 * The plugin must write SLURM_HOSTFILE before srun verifies its options,
 * and when --mapping comes from the environment (sbatch/salloc) that is
 * before srun has parsed its command line: so the plugin reads
 * /proc/self/cmdline and finds -n, -N, --ntasks-per-node, -c, -w, -m, -O,
 * -J and the start of the command itself.  Only the option names matter here;
 * the tables list srun 22.05's options by whether they take an argument
 * (`srun --help`), with getopt_long's rules: "--opt=value" or "--opt value"
 * for required arguments, "--opt=value" only for optional ones, unique
 * prefixes accepted, short options clustered ("-ln4").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"

enum { NOARG, REQ, OPT };

/* Short options: letters with a required argument, with an optional one;
 * all others are flags. */
static const char short_req[] = "AbBcCdDeGiJLmMnNopqrStTwWx";
static const char short_opt[] = "IK";

typedef struct longopt {
    const char *name;
    int arg;
    char id;   /* the short option it stands for, or a private letter */
} longopt_t;

static const longopt_t longopts[] = {
    { "account", REQ, 'A' }, { "acctg-freq", REQ, 0 }, { "bb", REQ, 0 },
    { "bbf", REQ, 0 }, { "bcast", OPT, 0 }, { "bcast-exclude", REQ, 0 },
    { "begin", REQ, 'b' }, { "cpus-per-task", REQ, 'c' }, { "comment", REQ, 0 },
    { "compress", OPT, 0 }, { "container", REQ, 0 }, { "cpu-freq", REQ, 0 },
    { "dependency", REQ, 'd' }, { "deadline", REQ, 0 }, { "delay-boot", REQ, 0 },
    { "chdir", REQ, 'D' }, { "export", REQ, 0 }, { "error", REQ, 'e' },
    { "epilog", REQ, 0 }, { "preserve-env", NOARG, 'E' }, { "gres", REQ, '$' },
    { "gres-flags", REQ, 0 }, { "hold", NOARG, 'H' }, { "input", REQ, 'i' },
    { "immediate", OPT, 'I' }, { "jobid", REQ, '#' }, { "job-name", REQ, 'J' },
    { "no-kill", OPT, 'k' }, { "kill-on-bad-exit", OPT, 'K' }, { "label", NOARG, 'l' },
    { "licenses", REQ, 'L' }, { "clusters", REQ, 'M' }, { "cluster", REQ, 'M' },
    { "distribution", REQ, 'm' }, { "mail-type", REQ, 0 }, { "mail-user", REQ, 0 },
    { "mcs-label", REQ, 0 }, { "mpi", REQ, 0 }, { "multi-prog", NOARG, '%' },
    { "ntasks", REQ, 'n' }, { "nice", OPT, 0 }, { "ntasks-per-node", REQ, '@' },
    { "nodes", REQ, 'N' }, { "output", REQ, 'o' }, { "overcommit", NOARG, 'O' },
    { "overlap", NOARG, 0 }, { "het-group", REQ, '^' }, { "partition", REQ, 'p' },
    { "power", REQ, 0 }, { "priority", REQ, 0 }, { "prolog", REQ, 0 },
    { "profile", REQ, 0 }, { "propagate", OPT, 0 }, { "pty", NOARG, 0 },
    { "quit-on-interrupt", NOARG, 0 }, { "qos", REQ, 'q' }, { "quiet", NOARG, 'Q' },
    { "reboot", NOARG, 0 }, { "relative", REQ, 'r' }, { "oversubscribe", NOARG, 's' },
    { "core-spec", REQ, 'S' }, { "send-libs", OPT, 0 }, { "signal", REQ, 0 },
    { "slurmd-debug", REQ, 0 }, { "spread-job", NOARG, 0 }, { "switches", REQ, 0 },
    { "task-epilog", REQ, 0 }, { "task-prolog", REQ, 0 }, { "thread-spec", REQ, 0 },
    { "threads", REQ, 'T' }, { "time", REQ, 't' }, { "time-min", REQ, 0 },
    { "unbuffered", NOARG, 'u' }, { "use-min-nodes", NOARG, 0 }, { "verbose", NOARG, 'v' },
    { "wait", REQ, 'W' }, { "wckey", REQ, 0 }, { "disable-status", NOARG, 'X' },
    { "cluster-constraint", REQ, 0 }, { "contiguous", NOARG, 0 }, { "constraint", REQ, 'C' },
    { "mem", REQ, 0 }, { "mincpus", REQ, 0 }, { "reservation", REQ, 0 },
    { "tmp", REQ, 0 }, { "nodelist", REQ, 'w' }, { "exclude", REQ, 'x' },
    { "no-allocate", NOARG, 'Z' }, { "exact", NOARG, 0 }, { "exclusive", OPT, 0 },
    { "mem-per-cpu", REQ, 0 }, { "resv-ports", OPT, 0 }, { "sockets-per-node", REQ, 0 },
    { "cores-per-socket", REQ, 0 }, { "threads-per-core", REQ, 0 },
    { "extra-node-info", REQ, 'B' }, { "ntasks-per-core", REQ, 0 },
    { "ntasks-per-socket", REQ, 0 }, { "ntasks-per-gpu", REQ, '2' },
    { "ntasks-per-tres", REQ, 0 }, { "cpu-bind", REQ, '&' }, { "cpu_bind", REQ, '&' },
    { "hint", REQ, 0 }, { "mem-bind", REQ, 0 }, { "mem_bind", REQ, 0 },
    { "cpus-per-gpu", REQ, '!' }, { "gpus", REQ, 'G' }, { "gpu-bind", REQ, '*' },
    { "gpu-freq", REQ, 0 }, { "gpus-per-node", REQ, '!' }, { "gpus-per-socket", REQ, '!' },
    { "gpus-per-task", REQ, '1' }, { "mem-per-gpu", REQ, '!' }, { "tres-per-task", REQ, '$' },
    { "accel-bind", REQ, 0 }, { "network", REQ, 0 }, { "uid", REQ, 0 },
    { "gid", REQ, 0 }, { "x11", OPT, 0 }, { "test-only", NOARG, 0 },
    { "help", NOARG, 'h' }, { "usage", NOARG, 'h' }, { "version", NOARG, 'V' },
    /* newer srun options (23.11: external-launcher; 24.05: segment) */
    { "external-launcher", NOARG, 0 }, { "segment", REQ, 0 }, { "tres-bind", REQ, '+' },
    { "oom-kill-step", OPT, 0 }, { "tree-width", REQ, 0 }, { "stepmgr", NOARG, 0 },
    { "mapping", REQ, '=' },
};

int cmp_parse_int(const char *s, int max, int *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    if (!out)
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 1 || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

/* -N min[-max] */
static int parse_nodes(const char *s, int *lo, int *hi)
{
    char buf[64];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *dash = strchr(buf, '-');
    if (dash)
        *dash = '\0';
    if (cmp_parse_int(buf, 1 << 24, lo) < 0)
        return -1;
    *hi = *lo;
    if (dash && cmp_parse_int(dash + 1, 1 << 24, hi) < 0)
        return -1;
    return *hi < *lo ? -1 : 0;
}

int cmp_names_gpu(const char *list)
{
    /* "gpu", "gpu:2", "gpu:a100:2" in --gres; "gres/gpu:2", "gres/gpu=2"
     * in --tres-per-task: an item naming the gpu resource, whatever its
     * count */
    for (const char *p = list; p && *p;) {
        size_t whole = strcspn(p, ","), len = whole;
        const char *item = p;
        if (len >= 5 && !strncmp(item, "gres/", 5))
            item += 5, len -= 5;
        if (len >= 3 && !strncmp(item, "gpu", 3) &&
            (len == 3 || item[3] == ':' || item[3] == '='))
            return 1;
        p += p[whole] ? whole + 1 : whole;
    }
    return 0;
}

/* Record option @p id with argument @p v (may be NULL). */
static int apply(cmp_srun_args_t *o, char id, const char *v, cm_error_t *err)
{
    switch (id) {
    case 'n':
        if (cmp_parse_int(v, 1 << 24, &o->ntasks) < 0)
            return cm_error_set(err, "srun -n: expected a task count, got '%s'", v);
        break;
    case 'N':
        if (parse_nodes(v, &o->nodes_min, &o->nodes_max) < 0)
            return cm_error_set(err, "srun -N: expected min[-max] nodes, got '%s'", v);
        break;
    case '@':
        if (cmp_parse_int(v, 1 << 24, &o->ntasks_per_node) < 0)
            return cm_error_set(err, "srun --ntasks-per-node: expected a count, got '%s'", v);
        break;
    case 'c':
        if (cmp_parse_int(v, 1 << 16, &o->cpus_per_task) < 0)
            return cm_error_set(err, "srun -c: expected a CPU count, got '%s'", v);
        break;
    case 'w': o->nodelist = 1; break;
    case 'x': o->exclude = 1; break;
    case 'r': o->relative = 1; break;
    case 'm': o->distribution = 1; break;
    case '%': o->multi_prog = 1; break;
    case 'O': o->overcommit = 1; break;
    case '#': o->jobid = 1; break;
    case '^': o->het = 1; break;
    case 'h': case 'V': o->help = 1; break;
    case 'J': o->job_name = v; break;
    case 'G': case '!': o->gpus |= strcmp(v, "0") != 0; break;
    /* a count, or type:count: only a plain count is kept (0 otherwise) */
    case '1':
        o->gpus |= strcmp(v, "0") != 0;
        o->gpus_per_task = cmp_parse_int(v, 1 << 16, &o->gpus_per_task) < 0 ? 0
                                                                          : o->gpus_per_task;
        break;
    case '2':
        o->gpus |= 1;
        o->ntasks_per_gpu = cmp_parse_int(v, 1 << 16, &o->ntasks_per_gpu) < 0
            ? 0 : o->ntasks_per_gpu;
        break;
    case '$': o->gpus |= cmp_names_gpu(v); break;
    case '&': o->cpu_bind = v; break;
    case '*': o->gpu_bind = v; break;
    case '+': o->tres_bind = v; break;
    case '=':
        o->mapping = v;
        o->has_mapping = 1;
        break;
    default: break;
    }
    return 0;
}

static const longopt_t *find_long(const char *name, size_t len)
{
    const longopt_t *hit = NULL;
    int nhits = 0;
    for (size_t i = 0; i < sizeof longopts / sizeof longopts[0]; i++) {
        if (strncmp(longopts[i].name, name, len))
            continue;
        if (strlen(longopts[i].name) == len)
            return &longopts[i];          /* exact match wins */
        if (!hit || hit->id != longopts[i].id || hit->arg != longopts[i].arg)
            nhits++;
        hit = &longopts[i];
    }
    return nhits == 1 ? hit : NULL;
}

int cmp_srun_args_parse(int argc, char **argv, cmp_srun_args_t *o, cm_error_t *err)
{
    if (!o || (argc > 0 && !argv))
        return cm_error_set(err, "srun's command line: expected its argv and "
                            "where to put it, got NULL");
    memset(o, 0, sizeof *o);
    o->job_name = o->command = o->command_arg = o->mapping = "";
    o->cpu_bind = o->gpu_bind = o->tres_bind = "";
    for (int k = 0; k < argc; k++)   /* exec's argv ends at its NULL */
        if (!argv[k])
            argc = k;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break;                              /* the command */
        if (a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const longopt_t *lo = find_long(name, len);
            if (!lo)
                continue;   /* another plugin's option: assume no separate argument */
            const char *v = eq ? eq + 1 : NULL;
            if (lo->arg == REQ && !v) {
                if (i + 1 >= argc)
                    break;
                v = argv[++i];
            }
            if (lo->id && apply(o, lo->id, v, err) < 0)
                return -1;
            continue;
        }
        for (const char *p = a + 1; *p; p++) {      /* clustered short options */
            /* srun's short options are letters.  Anything else ("-=", "-@")
             * is an unknown flag, and must not reach apply() as one of the
             * private ids of long options, which would read its missing
             * argument (a NULL dereference found by fuzz_srun_args). */
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
                continue;
            if (strchr(short_req, *p)) {
                const char *v = p[1] ? p + 1 : (i + 1 < argc ? argv[++i] : NULL);
                if (!v)
                    break;
                if (apply(o, *p, v, err) < 0)
                    return -1;
                break;
            }
            if (strchr(short_opt, *p))
                break;                              /* the rest is its argument */
            if (apply(o, *p, NULL, err) < 0)
                return -1;
        }
    }
    if (i < argc) {
        const char *slash = strrchr(argv[i], '/');
        o->command = slash ? slash + 1 : argv[i];
        o->command_arg = argv[i];
    }
    /* A ':' after the command separates the components of a het step. */
    for (int k = i; k < argc; k++)
        if (!strcmp(argv[k], ":"))
            o->het = 1;
    return 0;
}

/* Open MPI's plm/slurm launches its daemons with
 *   srun --ntasks-per-node=1 --kill-on-bad-exit --nodes=N --nodelist=... orted ...
 * (4.1), prted from Open MPI 5 on; Open MPI 6's PRRTE names no nodes but
 * the job: srun --external-launcher --ntasks-per-node=1 ... --jobid=J
 * --ntasks=N prted ...  A placement of those would be meaningless, the
 * ranks are mpirun's to place. */
int cmp_srun_is_mpirun(const cmp_srun_args_t *a)
{
    return a && a->ntasks_per_node == 1 && a->command &&
           (!strcmp(a->command, "orted") || !strcmp(a->command, "prted"));
}

int cmp_argv_self(int *argc, char ***argv, cm_error_t *err)
{
    if (!argc || !argv)
        return cm_error_set(err, "/proc/self/cmdline: expected where to put "
                            "the argv, got NULL");
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cm_error_set(err, "/proc/self/cmdline: %s", strerror(errno));
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            if (cap >= ((size_t)1 << 24))
                break;                              /* bounded: 16 MiB */
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    if (!buf)
        return cm_error_set(err, "/proc/self/cmdline: out of memory");
    int n = 0;
    for (size_t k = 0; k < len; k++)
        if (buf[k] == '\0')
            n++;
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v) {
        free(buf);
        return cm_error_set(err, "/proc/self/cmdline: out of memory");
    }
    size_t start = 0;
    for (int k = 0; k < n; k++) {
        v[k] = strdup(buf + start);
        if (!v[k]) {
            cmp_argv_free(k, v);
            free(buf);
            return cm_error_set(err, "/proc/self/cmdline: out of memory");
        }
        start += strlen(buf + start) + 1;
    }
    free(buf);
    *argc = n;
    *argv = v;
    return 0;
}

void cmp_argv_free(int argc, char **argv)
{
    if (!argv)
        return;
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

/* The executable srun will start, as its exec would find it: a name with
 * a '/' from the current directory, else the first match in $PATH; the
 * text as given when it cannot be resolved.  Each candidate is built to
 * its length: a cut one could name another file. */
char *cmp_resolve_command(const char *cmd)
{
    char *real = NULL;
    if (!cmd)
        return NULL;
    if (strchr(cmd, '/')) {
        real = realpath(cmd, NULL);
    } else if (cmd[0]) {
        const char *path = getenv("PATH");
        while (path && *path && !real) {
            size_t len = strcspn(path, ":");
            char *cand = NULL;
            if (asprintf(&cand, "%.*s/%s", (int)len, len ? path : ".", cmd) < 0)
                return NULL;
            if (access(cand, X_OK) == 0)
                real = realpath(cand, NULL);
            free(cand);
            path += len + (path[len] == ':');
        }
    }
    return real ? real : strdup(cmd);
}
