/* fuzz_request.c -- libFuzzer target for the --mapping value parser
 * (cmp_request_parse, src/launch/options.c): users give it on sbatch,
 * salloc and srun command lines and Slurm passes it through the
 * environment.
 *
 * The input, up to its first NUL byte, is the value.  Asserts, beyond "no
 * crash, no leak, no sanitizer report":
 *  - a refusal carries a message;
 *  - an accepted value has a known mode, flags 0 or 1, and a profile name
 *    of at most 255 printable non-blank characters, NUL-terminated;
 *  - writing the request back in canonical form ("mode[,name=N][,verbose]
 *    [,noprofile]") and parsing that gives the same request.
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_request(const cmp_request_t *r)
{
    if (r->mode < CMP_MODE_OFF || r->mode > CMP_MODE_HELP ||
        (r->verbose != 0 && r->verbose != 1) ||
        (r->noprofile != 0 && r->noprofile != 1))
        abort();
    const char *end = memchr(r->name, '\0', sizeof r->name);
    if (!end)
        abort();
    for (const char *p = r->name; p < end; p++)
        if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e || *p == ',')
            abort();
}

static void check_canonical(const cmp_request_t *r)
{
    char text[CMP_NAME_MAX + 64];
    cmp_request_t again;
    cm_error_t err = {""};
    snprintf(text, sizeof text, "%s%s%s%s%s", cmp_mode_name(r->mode),
             r->name[0] ? ",name=" : "", r->name, r->verbose ? ",verbose" : "",
             r->noprofile ? ",noprofile" : "");
    if (cmp_request_parse(text, &again, &err) < 0 || again.mode != r->mode ||
        again.verbose != r->verbose || again.noprofile != r->noprofile ||
        strcmp(again.name, r->name))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *value = malloc(size + 1);
    cmp_request_t r;
    cm_error_t err = {""};
    if (!value)
        abort();
    memcpy(value, data, size);
    value[size] = '\0';
    if (cmp_request_parse(value, &r, &err) < 0) {
        if (!err.msg[0])
            abort();
    } else {
        check_request(&r);
        check_canonical(&r);
    }
    free(value);
    return 0;
}
