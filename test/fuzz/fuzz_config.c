/* fuzz_config.c -- libFuzzer target for the plugstack.conf argument parser
 * (cmp_config_parse, src/launch/config.c).  The file is the
 * administrator's, but a typo there must give a message, not a crash in
 * every srun of the cluster.
 *
 * The input is split into argv at NUL bytes and blanks, as Slurm splits a
 * plugstack.conf line (empty pieces dropped).  Asserts, beyond "no crash,
 * no leak, no sanitizer report":
 *  - argv is left unchanged;
 *  - a refusal carries a message;
 *  - after success or refusal alike every string setting is terminated
 *    inside its buffer, the paths (store, prof_lib, prof_dir) are
 *    absolute, and the numbers are in the documented ranges (budget
 *    0.001..60 s, ingest_timeout 0.1..600 s, merge_weight in (0, 1] or the
 *    "mean" marker, max_profile_size >= 1024, max_tasks and
 *    bind_max_tasks >= 1, bind 0 or 1);
 *  - after success prof_lib has no blank and no ':' (it goes into
 *    LD_PRELOAD).
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_store.h"
#include "fuzz_argv.h"
#include "launch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int terminated(const char *s, size_t size)
{
    return memchr(s, '\0', size) != NULL;
}

static void check_config(const cmp_config_t *c)
{
    if (!terminated(c->store, sizeof c->store) || c->store[0] != '/' ||
        !terminated(c->algorithm, sizeof c->algorithm) ||
        !terminated(c->level_costs, sizeof c->level_costs) ||
        !terminated(c->level_latencies, sizeof c->level_latencies) ||
        !terminated(c->level_bandwidths, sizeof c->level_bandwidths) ||
        !terminated(c->prof_lib, sizeof c->prof_lib) || c->prof_lib[0] != '/' ||
        !terminated(c->prof_dir, sizeof c->prof_dir) || c->prof_dir[0] != '/')
        abort();
    if (!(c->budget >= 0.001 && c->budget <= 60) ||
        !(c->ingest_timeout >= 0.1 && c->ingest_timeout <= 600) ||
        !((c->merge_weight > 0 && c->merge_weight <= 1) ||
          c->merge_weight == CM_PROFILE_WEIGHT_MEAN) ||
        c->max_profile_size < 1024 || c->max_tasks < 1 || c->bind_max_tasks < 1 ||
        (c->bind != 0 && c->bind != 1))
        abort();
    if (c->default_mode < CMP_MODE_OFF || c->default_mode > CMP_MODE_CYCLIC)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_argv_t a;
    fuzz_argv_alloc(&a, data, size);
    char *text = a.text;
    for (size_t k = 0; k < size; k++)
        if (isspace((unsigned char)text[k]))
            text[k] = '\0';
    for (size_t k = 0; k < size; k++)
        if (text[k] && (k == 0 || !text[k - 1]))
            a.argv[a.argc++] = text + k;
    fuzz_argv_seal(&a);
    int argc = a.argc;
    char **argv = a.argv;

    cmp_config_t c;
    cm_error_t err = {""};
    cmp_config_init(&c);
    int rc = cmp_config_parse(&c, argc, argv, &err);
    if (rc < 0 && !err.msg[0])
        abort();
    check_config(&c);
    if (rc == 0 && strpbrk(c.prof_lib, " \t:"))
        abort();
    fuzz_argv_done(&a);
    return 0;
}
