/* fuzz_mpirun_record.c -- libFuzzer target for the record of an mpirun
 * run (src/launch/mpirun_record.c: its parser is static, reached through
 * cmp_mpirun_record_collect) and the run line in it (cmp_run_parse,
 * src/launch/step_run.c).  The record lies in the run's staging directory
 * in the user's store, which the user can write: clustermap's mpirun reads
 * it as untrusted text.
 *
 * The input is the file "record" in a private directory (fuzz_file.h).
 * The run is
 * collected as one whose mpirun failed (exit code 1): then the record is
 * parsed and judged and the store is never opened, so a "store=" line
 * cannot make the run write anywhere.  Each "run=" line's value is also
 * given to cmp_run_parse for step "7.0".
 *
 * Asserts, beyond "no crash, no leak, no sanitizer report":
 *  - a record refused reads "the run of mpirun is not recorded: record:
 *    ..." and returns -1; one accepted returns CM_STEP_REFUSED with
 *    "mpirun failed (exit code 1): the run of '...' is not recorded";
 *    the message is terminated in its buffer either way, and the verbosity
 *    is 0, 1 or 2;
 *  - cmp_run_parse sets the traffic flag to 0 or 1, and a run it accepts
 *    passes cm_run_check, is step "7.0"'s and names no program ("-").
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_history.h"
#include "cm_store.h"
#include "fuzz_file.h"
#include "launch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_collect(void)
{
    char msg[1024];
    int verbose = -1;
    memset(msg, 'x', sizeof msg);
    int rc = cmp_mpirun_record_collect(fuzz_dir, 1, msg, sizeof msg, &verbose);
    if (!memchr(msg, '\0', sizeof msg) || verbose < 0 || verbose > 2)
        abort();
    if (rc == -1) {
        if (strncmp(msg, "the run of mpirun is not recorded: record: ", 43))
            abort();
    } else if (rc == CM_STEP_REFUSED) {
        if (strncmp(msg, "mpirun failed (exit code 1): the run of '", 41) ||
            !strstr(msg, "' is not recorded"))
            abort();
    } else {
        abort();
    }
}

static void check_run_line(const char *value)
{
    cm_run_t run;
    cm_error_t err = {""};
    int traffic = -1;
    int ok = cmp_run_parse(value, "7.0", &run, &traffic);
    if ((traffic != 0 && traffic != 1) || (ok != 0 && ok != 1))
        abort();
    if (ok && (cm_run_check(&run, &err) < 0 || strcmp(run.jobid, "7.0") ||
               strcmp(run.program, "-") || (run.placed != 0 && run.placed != 1)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file("record", data, size);
    check_collect();

    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        if (!strncmp(line, "run=", 4))
            check_run_line(line + 4);
    free(text);
    return 0;
}
