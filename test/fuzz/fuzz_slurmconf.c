/* fuzz_slurmconf.c -- libFuzzer target for the slurm.conf and topology.conf
 * reader (cm_tree_from_slurm_conf, src/core/tree_slurmconf.c), Include
 * handling and hostlists in NodeName=, Nodes= and Switches= included.
 *
 * The input is cut at lines that are exactly "%%" into up to four parts:
 *   1. slurm.conf;
 *   2. topology.conf (absent or empty: no topology file, all nodes under
 *      one switch; an empty file would only mean "every node in no
 *      switch");
 *   3. the node list (absent: "n[1-4]");
 *   4. inc.conf, a file for "Include inc.conf" lines to find.
 * The files are written to a private directory made once with mkdtemp
 * (in /dev/shm, else /tmp; removed at exit);
 * a part that is absent is removed, so every input reads the same files.
 * Inputs holding a '/' are skipped: Include then names files relative to
 * that directory only ("x" or "..", never /dev/tty or a FIFO elsewhere that
 * would block), so the run reads nothing but what it wrote.  Inputs whose
 * hostlists expand to more than FUZZ_MAX_NAMES names (fuzz_bound.h), or
 * whose tree could have more than FUZZ_MAX_SLOTS cores, are skipped too:
 * both are bounded by the reader (2^20 names, 2^24 cores), but near those
 * bounds one input takes seconds and libFuzzer would spend its time there.
 *
 * Asserts, beyond "no crash, no leak, no sanitizer report, no hang":
 *  - a refusal carries a message;
 *  - an accepted configuration gives a tree whose "node" vertices are the
 *    node list's names in its order, whose last level is "core", and that
 *    has between one slot per node and 2^24 slots, every node at least one.
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "clustermap.h"
#include "fuzz_bound.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { SLURM_CONF, TOPOLOGY_CONF, NODELIST, INC_CONF, NPARTS };

static const char *const part_file[NPARTS] = {
    "slurm.conf", "topology.conf", NULL, "inc.conf"
};

static char dir[64];
static int verbose;   /* FUZZ_VERBOSE=1: say why each input was refused */
static char path[NPARTS][96];

/* In /dev/shm when there is one: rewriting files on a disk costs
 * milliseconds (40 times the parse), on tmpfs microseconds. */
static void make_dir(void)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/fuzz_slurmconf.XXXXXX", base);
    if (!mkdtemp(dir))
        abort();
    for (int p = 0; p < NPARTS; p++)
        if (part_file[p])
            snprintf(path[p], sizeof path[p], "%s/%s", dir, part_file[p]);
}

/* Remove the directory at exit (libFuzzer leaves through exit()). */
static void remove_dir(void)
{
    for (int p = 0; p < NPARTS; p++)
        if (part_file[p])
            unlink(path[p]);
    rmdir(dir);
}

/* Write part @p p (or remove its file when @p text is NULL). */
static void put_file(int p, const char *text, size_t len)
{
    if (!text) {
        unlink(path[p]);
        return;
    }
    FILE *f = fopen(path[p], "w");
    if (!f || (len && fwrite(text, 1, len, f) != len) || fclose(f) != 0)
        abort();
}

/* Split @p s at the lines that are exactly "%%" (the separator lines
 * belong to no part; a part keeps its last newline). */
static void split(const char *s, size_t size, const char *part[NPARTS],
                  size_t len[NPARTS])
{
    int n = 0;
    part[0] = s;
    for (size_t i = 0; i < size && n < NPARTS - 1; ) {   /* i: a line start */
        const char *nl = memchr(s + i, '\n', size - i);
        size_t next = nl ? (size_t)(nl - s) + 1 : size;
        if (next - i - (nl != NULL) == 2 && s[i] == '%' && s[i + 1] == '%') {
            len[n] = (size_t)(s + i - part[n]);
            part[++n] = s + next;
        }
        i = next;
    }
    len[n] = (size_t)(s + size - part[n]);
    for (n++; n < NPARTS; n++)
        part[n] = NULL, len[n] = 0;
}

/* Largest value given to @p key ("cpus=", any case, an optional quote,
 * blanks or '+' before the digits as strtol allows) anywhere in s[0..n);
 * 0 when none.  Saturates. */
static unsigned long key_max(const char *s, size_t n, const char *key)
{
    size_t klen = strlen(key);
    unsigned long max = 0;
    for (size_t i = 0; i + klen <= n; i++) {
        if (strncasecmp(s + i, key, klen))
            continue;
        size_t k = i + klen;
        while (k < n && strchr("\" \t+", s[k]) && s[k])
            k++;
        unsigned long v = fuzz_number(s, n, &k);
        if (v > max)
            max = v;
    }
    return max;
}

/* Upper estimate of the slots (cores) of the tree: nodes of the list times
 * the most cores a node can be given.  A tree costs about 2 us a slot
 * under ASan; the reader allows 2^24 slots (half a minute, over a GB), so
 * inputs above FUZZ_MAX_SLOTS are skipped like big hostlists. */
#define FUZZ_MAX_SLOTS 4096UL
static unsigned long slots_estimate(const char *conf, size_t n, const char *nodelist)
{
    unsigned long sockets = key_max(conf, n, "sockets="), boards = key_max(conf, n, "boards=");
    unsigned long per_board = key_max(conf, n, "socketsperboard=");
    unsigned long cores = key_max(conf, n, "corespersocket=");
    unsigned long cpus = key_max(conf, n, "cpus="), procs = key_max(conf, n, "procs=");
    unsigned long s = fuzz_sat_mul(boards ? boards : 1, per_board);
    if (sockets > s)
        s = sockets;
    unsigned long c = cores > cpus ? cores : cpus;
    if (procs > c)
        c = procs;
    size_t len = strlen(nodelist);
    unsigned long nodes = fuzz_sat_add(fuzz_hostlist_names(nodelist, len), len);
    return fuzz_sat_mul(nodes, fuzz_sat_mul(s ? s : 1, c ? c : 1));
}

static void check_tree(const cm_tree_t *t, const char *nodelist)
{
    char **names;
    int count;
    cm_error_t err;
    if (cm_hostlist_expand(nodelist, &names, &count, &err) < 0)
        abort();   /* the reader accepted it */
    int nslots = cm_tree_nslots(t), last = cm_tree_nlevels(t) - 1;
    if (cm_tree_nnodes(t) != count || nslots < count || nslots > (1 << 24) ||
        last < 0 || strcmp(cm_tree_level_name(t, last), "core"))
        abort();
    for (int i = 0; i < count; i++) {
        int v = cm_tree_node_vertex(t, i), first, n;
        const char *label = cm_tree_vertex_label(t, v);
        if (!label || strcmp(label, names[i]))
            abort();
        cm_tree_vertex_slots(t, v, &first, &n);
        if (n < 1 || first < 0 || first + n > nslots)
            abort();
    }
    cm_hostlist_free(names, count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        make_dir();
        atexit(remove_dir);
        verbose = getenv("FUZZ_VERBOSE") != NULL;
    }
    if (memchr(data, '/', size) ||
        fuzz_hostlist_names((const char *)data, size) > FUZZ_MAX_NAMES)
        return -1;

    const char *part[NPARTS];
    size_t len[NPARTS];
    split((const char *)data, size, part, len);
    put_file(SLURM_CONF, part[SLURM_CONF], len[SLURM_CONF]);
    if (part[TOPOLOGY_CONF] && !len[TOPOLOGY_CONF])
        part[TOPOLOGY_CONF] = NULL;
    put_file(TOPOLOGY_CONF, part[TOPOLOGY_CONF], len[TOPOLOGY_CONF]);
    put_file(INC_CONF, part[INC_CONF], len[INC_CONF]);

    /* The node list is a string: it ends at its first newline or NUL. */
    char *nodelist = part[NODELIST] ? strndup(part[NODELIST], len[NODELIST])
                                    : strdup("n[1-4]");
    if (!nodelist)
        abort();
    nodelist[strcspn(nodelist, "\n")] = '\0';

    if (slots_estimate((const char *)data, size, nodelist) > FUZZ_MAX_SLOTS) {
        free(nodelist);
        return -1;
    }

    cm_error_t err = {""};
    cm_tree_t *t = cm_tree_from_slurm_conf(path[SLURM_CONF],
                                           part[TOPOLOGY_CONF] ? path[TOPOLOGY_CONF]
                                                               : NULL,
                                           nodelist, &err);
    if (!t && !err.msg[0])
        abort();
    if (verbose)
        fprintf(stderr, "%s\n", t ? "accepted" : err.msg);
    if (t)
        check_tree(t, nodelist);
    cm_tree_free(t);
    free(nodelist);
    return 0;
}
