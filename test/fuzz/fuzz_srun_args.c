/* fuzz_srun_args.c -- libFuzzer target for the plugin's scan of srun's own
 * command line (cmp_srun_args_parse, src/launch/srun_args.c), which reads
 * /proc/self/cmdline: whatever the user typed after srun.
 *
 * The input is split at NUL bytes into argv, as /proc/self/cmdline is
 * (fuzz_argv.h).  Asserts, beyond "no crash, no leak, no sanitizer
 * report":
 *  - argv is left unchanged;
 *  - a refusal carries a message;
 *  - on success the counts are 0 (absent) or in their ranges (-n and
 *    --ntasks-per-node 1..2^24, -N min <= max in 1..2^24, -c 1..65536),
 *    the flags are 0 or 1 (gpus too), and the job name, command, --mapping,
 *    --cpu-bind, --gpu-bind and --tres-bind values
 *    are never NULL, each one of argv's strings (or its tail) whole or
 *    "", the value present iff has_mapping.
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_argv.h"
#include "launch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int in_range(int v, int max)
{
    return v == 0 || (v >= 1 && v <= max);
}

static int flag(int v)
{
    return v == 0 || v == 1;
}

/* @p s is "" or lies inside one of argv's strings and ends with it */
static int in_argv(const char *s, int argc, char **argv)
{
    if (!s)
        return 0;
    if (!s[0])
        return 1;
    for (int i = 0; i < argc; i++)
        if (s >= argv[i] && s < argv[i] + strlen(argv[i]))
            return 1;
    return 0;
}

static void check_args(const cmp_srun_args_t *o, int argc, char **argv)
{
    if (!in_range(o->ntasks, 1 << 24) || !in_range(o->ntasks_per_node, 1 << 24) ||
        !in_range(o->cpus_per_task, 1 << 16) || !in_range(o->nodes_min, 1 << 24) ||
        !in_range(o->nodes_max, 1 << 24) || o->nodes_min > o->nodes_max ||
        (o->nodes_min == 0) != (o->nodes_max == 0))
        abort();
    if (!flag(o->nodelist) || !flag(o->exclude) || !flag(o->relative) ||
        !flag(o->distribution) || !flag(o->multi_prog) || !flag(o->het) ||
        !flag(o->jobid) || !flag(o->help) || !flag(o->has_mapping) || !flag(o->gpus))
        abort();
    if (!in_argv(o->job_name, argc, argv) || !in_argv(o->mapping, argc, argv) ||
        !in_argv(o->command, argc, argv) || !in_argv(o->command_arg, argc, argv) ||
        !in_argv(o->cpu_bind, argc, argv) || !in_argv(o->gpu_bind, argc, argv) ||
        !in_argv(o->tres_bind, argc, argv) || (!o->has_mapping && o->mapping[0]))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_argv_t a;
    fuzz_argv_split(&a, data, size);
    int argc = a.argc;
    char **argv = a.argv;

    cmp_srun_args_t o;
    cm_error_t err = { "" };
    memset(&o, 0xa5, sizeof o); /* the parser must set every field */
    if (cmp_srun_args_parse(argc, argv, &o, &err) < 0) {
        if (!err.msg[0])
            abort();
    } else {
        check_args(&o, argc, argv);
    }
    fuzz_argv_done(&a);
    return 0;
}
