/* fuzz_switches.c -- libFuzzer target for the parser of the controller's
 * switch records (cmp_switches_parse, src/plugin/switches.c, in
 * libcm-topo.a): the text `scontrol show topology` prints, which the
 * placement module reads from Slurm and which the user's topology cache
 * keeps in a file of the user's (topo_cache.c) and reads back.
 *
 * The input is the text (a NUL byte ends it, as it ends a line for the
 * parser).  Asserts, beyond "no crash, no leak, no sanitizer report":
 *  - a refusal carries a message and leaves no records;
 *  - every record has a name, nodes and switches absent (NULL) or
 *    non-empty, none of them holding a blank, a tab or a line break;
 *  - a block has level 0 and no child switches;
 *  - writing the records back as "SwitchName=N Level=L [Nodes=..]
 *    [Switches=..]" lines ("BlockName=N [Nodes=..]" for a block) and
 *    parsing that text gives the same records, kinds included.
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_word(const char *s, int optional)
{
    if (!s) {
        if (!optional)
            abort();
        return;
    }
    if (!*s || s[strcspn(s, " \t\n")])
        abort();
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The records as switch lines, and back. */
static void check_round_trip(const cmp_switch_t *sw, int n)
{
    size_t cap = 1, used = 0;
    for (int i = 0; i < n; i++)
        cap += strlen(sw[i].name) + (sw[i].nodes ? strlen(sw[i].nodes) : 0) +
               (sw[i].switches ? strlen(sw[i].switches) : 0) + 64;
    char *text = malloc(cap);
    if (!text)
        abort();
    text[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (sw[i].block && (sw[i].level != 0 || sw[i].switches))
            abort();
        if (sw[i].block)
            used += (size_t)snprintf(text + used, cap - used, "BlockName=%s", sw[i].name);
        else
            used += (size_t)snprintf(text + used, cap - used, "SwitchName=%s Level=%d",
                                     sw[i].name, sw[i].level);
        used += (size_t)snprintf(
            text + used, cap - used, "%s%s%s%s\n", sw[i].nodes ? " Nodes=" : "",
            sw[i].nodes ? sw[i].nodes : "", sw[i].switches ? " Switches=" : "",
            sw[i].switches ? sw[i].switches : "");
    }
    cmp_switch_t *again;
    int m;
    cm_error_t err = {""};
    if (cmp_switches_parse(text, used, &again, &m, &err) != 0 || m != n)
        abort();
    for (int i = 0; i < n; i++)
        if (strcmp(sw[i].name, again[i].name) || sw[i].level != again[i].level ||
            sw[i].block != again[i].block || !same(sw[i].nodes, again[i].nodes) ||
            !same(sw[i].switches, again[i].switches))
            abort();
    cmp_switches_free(again, m);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    cmp_switch_t *sw = NULL;
    int n = -1;
    cm_error_t err = {""};

    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    int rc = cmp_switches_parse(text, size, &sw, &n, &err);
    if (rc != 0) {
        if ((rc != -1 && rc != CMP_TOPO_REFUSED) || !err.msg[0] || sw || n != 0)
            abort();
    } else {
        if (n < 0 || (n > 0 && !sw))
            abort();
        for (int i = 0; i < n; i++) {
            check_word(sw[i].name, 0);
            check_word(sw[i].nodes, 1);
            check_word(sw[i].switches, 1);
        }
        check_round_trip(sw, n);
        cmp_switches_free(sw, n);
    }
    free(text);
    return 0;
}
