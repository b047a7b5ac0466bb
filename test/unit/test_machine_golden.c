/* test_machine_golden.c -- the machine tree each description under
 * test/data builds, against a golden file beside it.
 *
 * One test per input: the tree cm_tree_from_hwloc() or
 * cm_tree_from_slurm_conf() builds, printed by cm_tree_print() under a
 * first line naming the call, must equal the .expected file byte for byte
 * (levels, costs, labels, slot ranges, node order).  A difference fails
 * the test and shows `diff -u expected actual`.  After a change that is
 * meant to change the trees, CM_REGENERATE=1 rewrites the files (then
 * review them with git diff).  The command prints a machine's level
 * counts only (--verbose), hence a unit test. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testdata.h"

typedef struct golden {
    const char *input;    /* under test/data */
    const char *topology; /* slurm: topology.conf under test/data, or NULL */
    const char *nodelist; /* slurm: the allocation */
    int nnodes;           /* hwloc: how many such nodes */
    const char *expected; /* under test/data */
} golden_t;

/* The tree of @p g printed, with the call that built it first, in a
 * malloc'd string. */
static char *print_tree(const golden_t *g)
{
    cm_error_t err = { "" };
    cm_tree_t *t;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    if (g->nodelist) {
        const char *topo = g->topology ? cm_test_data_path(g->topology) : NULL;
        t = cm_tree_from_slurm_conf(cm_test_data_path(g->input), topo, g->nodelist, &err);
        fprintf(f, "# cm_tree_from_slurm_conf(%s, %s, \"%s\")\n", g->input,
                g->topology ? g->topology : "NULL", g->nodelist);
    } else {
        t = cm_tree_from_hwloc(cm_test_data_path(g->input), g->nnodes, &err);
        fprintf(f, "# cm_tree_from_hwloc(%s, %d)\n", g->input, g->nnodes);
    }
    if (!t)
        fail_msg("%s: %s", g->input, err.msg);
    cm_tree_print(t, f);
    cm_tree_free(t);
    assert_int_equal(fclose(f), 0);
    return text;
}

/* The whole file at @p path, malloc'd; NULL when it cannot be read. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    int c;
    while (out && (c = getc(f)) != EOF)
        putc(c, out);
    fclose(f);
    if (out)
        fclose(out);
    return text;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0)
        fail_msg("%s: cannot write: %s", path, strerror(errno));
}

/* Show `diff -u @p path actual` on stdout, with the actual text in a
 * scratch file. */
static void show_diff(const char *path, const char *actual)
{
    char *dir = cm_test_mkdtemp();
    const char *got = cm_test_write_file(dir, "actual", actual);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("diff", "diff", "-u", path, got, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
    cm_test_rmtree(dir);
}

static void golden(void **state)
{
    const golden_t *g = *state;
    char path[4096];
    snprintf(path, sizeof path, "%s", cm_test_data_path(g->expected));
    char *actual = print_tree(g);
    const char *regen = getenv("CM_REGENERATE");
    if (regen && strcmp(regen, "1") == 0) {
        write_file(path, actual);
        printf("regenerated %s\n", path);
        free(actual);
        return;
    }
    char *expected = slurp(path);
    if (!expected) {
        free(actual);
        fail_msg("%s: cannot read (CM_REGENERATE=1 writes it): %s", path,
                 strerror(errno));
    }
    int same = strcmp(expected, actual) == 0;
    if (!same)
        show_diff(path, actual);
    free(expected);
    free(actual);
    if (!same)
        fail_msg("%s: the tree differs (diff above; CM_REGENERATE=1 rewrites it)", path);
}

#define HWLOC(name)                                                                      \
    {                                                                                    \
        "hwloc/" name ".xml", NULL, NULL, 2, "hwloc/" name ".expected"                   \
    }

static const golden_t rows[] = {
    HWLOC("1s-2ccx-8c"),
    HWLOC("1s-4c"),
    HWLOC("2s-2numa-6c"),
    HWLOC("2s-8c-smt2"),
    HWLOC("2s-l2pairs"),
    HWLOC("this-machine"),
    { "slurm/slurm.conf", NULL, "n[1-8],gpu01", 0, "slurm/slurm.conf.expected" },
    { "slurm/slurm.conf", "slurm/topology.conf", "n[1-8]", 0,
      "slurm/topology.conf.expected" },
    { "slurm/slurm.conf", "slurm/topology-disjoint.conf", "n[1-8]", 0,
      "slurm/topology-disjoint.conf.expected" },
    { "slurm/slurm.conf", "slurm/topology-deep.conf", "n[1-8]", 0,
      "slurm/topology-deep.conf.expected" },
};

/* Inputs that describe no machine: error tests. */
static const char *const not_machines[] = {
    "hwloc/broken.xml",
    "slurm/topology-loop.conf",
};

static int has_row(const char *rel)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strcmp(rows[i].input, rel) ||
            (rows[i].topology && !strcmp(rows[i].topology, rel)))
            return 1;
    for (size_t i = 0; i < sizeof not_machines / sizeof not_machines[0]; i++)
        if (!strcmp(not_machines[i], rel))
            return 1;
    return 0;
}

/* Every hwloc XML and every slurm.conf / topology.conf of test/data has a
 * row above (or is a known error input): a new one needs its golden file. */
static void test_every_input(void **state)
{
    (void)state;
    static const struct {
        const char *dir, *suffix;
    } where[] = {
        { "hwloc", ".xml" },
        { "slurm", ".conf" },
    };
    int seen = 0;
    for (size_t w = 0; w < sizeof where / sizeof where[0]; w++) {
        DIR *d = opendir(cm_test_data_path(where[w].dir));
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t len = strlen(e->d_name), sl = strlen(where[w].suffix);
            if (len <= sl || strcmp(e->d_name + len - sl, where[w].suffix) != 0)
                continue;
            if (!strcmp(e->d_name, "nodes-extra.conf"))
                continue; /* included by slurm.conf */
            char rel[512];
            snprintf(rel, sizeof rel, "%s/%s", where[w].dir, e->d_name);
            if (!has_row(rel))
                fail_msg("%s: no golden tree (add a row to test_machine_golden.c)", rel);
            seen++;
        }
        closedir(d);
    }
    assert_true(seen >= 12);
}

#define ROW(i)                                                                           \
    {                                                                                    \
        rows[i].expected, golden, NULL, NULL, (void *)&rows[i]                           \
    }

int main(void)
{
    const struct CMUnitTest tests[] = {
        ROW(0),
        ROW(1),
        ROW(2),
        ROW(3),
        ROW(4),
        ROW(5),
        ROW(6),
        ROW(7),
        ROW(8),
        ROW(9),
        cmocka_unit_test(test_every_input),
    };
    _Static_assert(sizeof tests / sizeof tests[0] == sizeof rows / sizeof rows[0] + 1,
                   "one test per row");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
