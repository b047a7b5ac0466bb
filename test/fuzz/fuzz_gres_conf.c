/* fuzz_gres_conf.c -- libFuzzer target for the gres.conf reader
 * (cm_gres_conf_read, src/core/gres_conf.c), for node "n3".
 *
 * The input is the file (fuzz_file.h).  Inputs whose
 * hostlists expand to more than FUZZ_MAX_NAMES names (fuzz_bound.h) or
 * that hold a number above 65535 are skipped: the reader bounds both
 * (2^20 names, 2^16 devices, 2^22 core indexes, checked exactly by
 * test/unit/test_gres_conf.c), but near those bounds one input takes
 * long and libFuzzer would spend its time there.
 *
 * Asserts, beyond "no crash, no leak, no sanitizer report, no hang":
 *  - a refusal carries a message that starts with the file's path;
 *  - an accepted file gives, for every resource name, devices 0..count-1
 *    and no device count; each with a line in 1..lines of the input,
 *    core indexes ascending, unique and in 0..2^20-1 (NULL exactly when
 *    there are none), links >= -1 (NULL exactly when there are none),
 *    a file that is NULL or non-empty.
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clustermap.h"
#include "fuzz_bound.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int big_number(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        if (!isdigit((unsigned char)s[i])) {
            i++;
            continue;
        }
        if (fuzz_number(s, n, &i) > 65535)
            return 1;
    }
    return 0;
}

static void check_device(const cm_gres_dev_t *d, int lines)
{
    if (d->line < 1 || d->line > lines || (d->file && !d->file[0]))
        abort();
    if ((d->ncores == 0) != (d->cores == NULL) || d->ncores < 0)
        abort();
    for (int i = 0; i < d->ncores; i++)
        if (d->cores[i] < 0 || d->cores[i] >= (1 << 20) ||
            (i && d->cores[i] <= d->cores[i - 1]))
            abort();
    if ((d->nlinks == 0) != (d->links == NULL) || d->nlinks < 0)
        abort();
    for (int i = 0; i < d->nlinks; i++)
        if (d->links[i] < -1)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    if (fuzz_hostlist_names(s, size) > FUZZ_MAX_NAMES || big_number(s, size))
        return 0;
    const char *path = fuzz_file("gres.conf", data, size);
    int lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += s[i] == '\n';

    cm_error_t err = { "" };
    cm_gres_t *g = cm_gres_conf_read(path, "n3", &err);
    if (!g) {
        if (strncmp(err.msg, path, strlen(path)) != 0)
            abort();
        return 0;
    }
    static const char *const names[] = { "gpu", "nic", "mps", "shard", "x" };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        int n = cm_gres_count(g, names[k]);
        cm_gres_dev_t d;
        if (n < 0 || cm_gres_device(g, names[k], n, &d) != -1)
            abort();
        for (int i = 0; i < n; i++) {
            if (cm_gres_device(g, names[k], i, &d) != 0)
                abort();
            check_device(&d, lines);
        }
    }
    cm_gres_free(g);
    return 0;
}
