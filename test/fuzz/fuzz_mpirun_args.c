/* fuzz_mpirun_args.c -- libFuzzer target for clustermap's scan of mpirun's
 * command line (cmp_mpirun_args_parse, src/launch/mpirun_args.c), which
 * clustermap's mpirun (src/mpirun/mpirun.c) runs on whatever the user typed
 * after mpirun in a batch script.
 *
 * The input is split at NUL bytes into argv, as for fuzz_srun_args.c.
 * Asserts, beyond "no crash, no leak, no sanitizer report":
 *  - argv is left unchanged;
 *  - a refusal carries a message;
 *  - on success np is 0 (absent) or in 1..2^24, query is 0 or 1, the
 *    program index is 0 or names an argument that does not start with '-'
 *    (or is "-" itself), and the reason is terminated inside its buffer;
 *  - an accepted rank count was given: some "-np", "-n", "--np", "--n",
 *    "-c" or "--c" argument precedes the program and is followed by
 *    digits only, whose value it is (leading zeros allowed, as strtol
 *    reads them).
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_argv.h"
#include "launch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int is_np(const char *a)
{
    static const char *const names[] = { "-np", "--np", "-n", "--n", "-c", "--c" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(a, names[i]))
            return 1;
    return 0;
}

static void check_args(int argc, char **argv, const cmp_mpirun_args_t *o)
{
    if (o->np < 0 || o->np > 1 << 24 || (o->query != 0 && o->query != 1) ||
        o->program < 0 || o->program >= (argc > 0 ? argc : 1) ||
        !memchr(o->why, '\0', sizeof o->why))
        abort();
    if (o->program > 0 && argv[o->program][0] == '-' && argv[o->program][1])
        abort();
    if (o->np) {
        int end = o->program ? o->program : argc, found = 0;
        for (int i = 1; i + 1 < end && !found; i++)
            found = is_np(argv[i]) && argv[i + 1][0] &&
                    strspn(argv[i + 1], "0123456789") == strlen(argv[i + 1]) &&
                    strtol(argv[i + 1], NULL, 10) == o->np;
        if (!found)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_argv_t a;
    cmp_mpirun_args_t o;
    cm_error_t err = {""};
    fuzz_argv_split(&a, data, size);
    memset(&o, 0xa5, sizeof o);   /* the parser must set every field */
    if (cmp_mpirun_args_parse(a.argc, a.argv, &o, &err) == 0)
        check_args(a.argc, a.argv, &o);
    else if (!err.msg[0])
        abort();
    fuzz_argv_done(&a);
    return 0;
}
