/*
 * mpirun_args.c -- Open MPI's mpirun command line, read the way mpirun
 * reads it, to learn the three things clustermap's launcher needs: how
 * many ranks it will start (-np), which program, and whether the user
 * already decided the layout.
 *
 * A rank file and the user's own mapping, binding or host options do not
 * mix: measured with Open MPI 4.1.4, `--map-by node` then stops mpirun
 * with "Conflicting directives for mapping policy" and `-H n1,n2` with
 * "The rankfile that was used claimed that a host was either not
 * allocated or oversubscribed its slots".  So every such option, an MPMD
 * line (':', --app), an MCA parameter of the mapper or binder, and every
 * option this table does not know (it might be one of those) leave mpirun
 * exactly as the user wrote it, with the reason.
 *
 * The table is mpirun 4.1's `--help all` (single- and double-dash
 * spellings are the same option there) and the options Open MPI 5 and 6
 * (PRRTE) add that take arguments; any other is unknown here, so it is
 * left alone too.
 */
#include <stdio.h>
#include <string.h>

#include "launch.h"

enum kind {
    FLAG,      /* no argument */
    VALUE,     /* one argument */
    VALUE2,    /* two arguments (--mca NAME VALUE) */
    NP,        /* the rank count */
    LAYOUT,    /* the user's own mapping, binding or hosts (FLAG) */
    LAYOUT1,   /* ... with one argument */
    QUERY      /* --help, --version: nothing is launched */
};

static const struct {
    const char *name;
    enum kind kind;
} opts[] = {
    { "c", NP }, { "np", NP }, { "n", NP },
    /* the user's layout */
    { "am", LAYOUT1 }, { "app", LAYOUT1 }, { "tune", LAYOUT1 },
    { "bind-to", LAYOUT1 }, { "bind-to-core", LAYOUT }, { "bind-to-socket", LAYOUT },
    { "bycore", LAYOUT }, { "bynode", LAYOUT }, { "byslot", LAYOUT },
    { "cpu-list", LAYOUT1 }, { "cpu-set", LAYOUT1 }, { "cpus-per-proc", LAYOUT1 },
    { "cpus-per-rank", LAYOUT1 }, { "default-hostfile", LAYOUT1 }, { "H", LAYOUT1 },
    { "host", LAYOUT1 }, { "hostfile", LAYOUT1 }, { "machinefile", LAYOUT1 },
    { "map-by", LAYOUT1 }, { "N", LAYOUT1 }, { "nolocal", LAYOUT },
    { "nooversubscribe", LAYOUT }, { "npernode", LAYOUT1 }, { "npersocket", LAYOUT1 },
    { "pernode", LAYOUT }, { "ppr", LAYOUT1 }, { "rank-by", LAYOUT1 }, { "rf", LAYOUT1 },
    { "rankfile", LAYOUT1 }, { "use-hwthread-cpus", LAYOUT }, { "dvm", LAYOUT },
    { "hnp", LAYOUT1 }, { "novm", LAYOUT },
    /* nothing is launched */
    { "h", QUERY }, { "help", QUERY }, { "V", QUERY }, { "version", QUERY },
    /* MCA parameters: checked by name */
    { "mca", VALUE2 }, { "gmca", VALUE2 }, { "prtemca", VALUE2 }, { "pmixmca", VALUE2 },
    /* PRRTE's (Open MPI 5, 6) */
    { "display", VALUE }, { "output", VALUE }, { "runtime-options", VALUE },
    { "stream-buffering", VALUE }, { "gpu-support", VALUE },
    /* other options with an argument */
    { "cf", VALUE }, { "cartofile", VALUE }, { "debugger", VALUE },
    { "launch-agent", VALUE }, { "max-restarts", VALUE }, { "max-vm-size", VALUE },
    { "ompi-server", VALUE }, { "output-filename", VALUE }, { "path", VALUE },
    { "personality", VALUE }, { "prefix", VALUE }, { "preload-files", VALUE },
    { "report-events", VALUE }, { "report-pid", VALUE }, { "report-uri", VALUE },
    { "stdin", VALUE }, { "timeout", VALUE }, { "wd", VALUE }, { "wdir", VALUE },
    { "x", VALUE }, { "xml-file", VALUE }, { "xterm", VALUE },
    /* flags */
    { "allow-run-as-root", FLAG }, { "continuous", FLAG }, { "d", FLAG },
    { "debug-devel", FLAG }, { "debug", FLAG }, { "debug-daemons", FLAG },
    { "debug-daemons-file", FLAG }, { "disable-recovery", FLAG },
    { "display-allocation", FLAG }, { "display-devel-allocation", FLAG },
    { "display-devel-map", FLAG }, { "display-diffable-map", FLAG },
    { "display-map", FLAG }, { "display-topo", FLAG }, { "do-not-launch", FLAG },
    { "do-not-resolve", FLAG }, { "enable-instant-on-support", FLAG },
    { "enable-recovery", FLAG }, { "fwd-mpirun-port", FLAG },
    { "get-stack-traces", FLAG }, { "index-argv-by-rank", FLAG },
    { "leave-session-attached", FLAG }, { "merge-stderr-to-stdout", FLAG },
    { "noprefix", FLAG }, { "output-proctable", FLAG }, { "oversubscribe", FLAG },
    { "q", FLAG }, { "quiet", FLAG }, { "report-bindings", FLAG },
    { "report-child-jobs-separately", FLAG }, { "report-state-on-timeout", FLAG },
    { "s", FLAG }, { "preload-binary", FLAG }, { "set-cwd-to-session-dir", FLAG },
    { "show-progress", FLAG }, { "tag-output", FLAG }, { "timestamp-output", FLAG },
    { "tv", FLAG }, { "use-regexp", FLAG }, { "v", FLAG }, { "verbose", FLAG },
    { "xml", FLAG },
};

/* MCA parameters (--mca NAME, OMPI_MCA_NAME) that choose the layout. */
int cmp_mpirun_layout_param(const char *name)
{
    static const char *const prefixes[] = {
        "rmaps", "hwloc_base_binding", "hwloc_base_cpu", "hwloc_base_use_hwthreads",
        "hwloc_default",
        "orte_rankfile", "orte_default_hostfile", "orte_hostfile", "mca_base_param_files",
    };
    for (size_t i = 0; name && i < sizeof prefixes / sizeof *prefixes; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

int cmp_mpirun_args_parse(int argc, char **argv, cmp_mpirun_args_t *out,
                          cm_error_t *err)
{
    if (!out || (argc > 0 && !argv))
        return cm_error_set(err, "mpirun's command line: expected its argv and "
                            "where to put it, got NULL");
    memset(out, 0, sizeof *out);
    for (int k = 0; k < argc; k++)   /* exec's argv ends at its NULL */
        if (!argv[k])
            argc = k;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, ":"))
            return snprintf(out->why, sizeof out->why, "several programs (':')"), 0;
        if (a[0] != '-' || !a[1]) {
            out->program = i;
            return 0;
        }
        const char *name = a + 1 + (a[1] == '-');
        size_t k = 0;
        while (k < sizeof opts / sizeof *opts && strcmp(opts[k].name, name))
            k++;
        if (k == sizeof opts / sizeof *opts) {
            snprintf(out->why, sizeof out->why, "option %.100s not known to clustermap", a);
            return 0;
        }
        enum kind kind = opts[k].kind;
        if (kind == QUERY) {
            out->query = 1;
            return 0;
        }
        int nargs = kind == VALUE2 ? 2 : kind == VALUE || kind == NP || kind == LAYOUT1;
        if (i + nargs >= argc)
            return cm_error_set(err, "mpirun %.100s: expected %d argument%s", a, nargs,
                                nargs > 1 ? "s" : "");
        if (kind == NP && cmp_parse_int(argv[i + 1], 1 << 24, &out->np) < 0)
            return cm_error_set(err, "mpirun %s '%.40s': expected a positive rank count",
                                a, argv[i + 1]);
        if (kind == LAYOUT || kind == LAYOUT1) {
            snprintf(out->why, sizeof out->why, "mpirun decides the layout itself (%s)", a);
            return 0;
        }
        if (kind == VALUE2 && cmp_mpirun_layout_param(argv[i + 1])) {
            snprintf(out->why, sizeof out->why, "mpirun decides the layout itself "
                     "(%s %.80s)", a, argv[i + 1]);
            return 0;
        }
        i += nargs;
    }
    return 0;   /* no program: mpirun will say so */
}
