/* test_topo_cache.c -- the switch records' text form and the user's
 * topology cache (src/plugin/switches.c, topo_cache.c; libcm-topo.a, no
 * Slurm symbol). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include <slurm/slurm_version.h>

#include "cmp_topo.h"
#include "testdata.h"
#include "testutil.h"

static const char *TOPO =
    "SwitchName=s1 Level=0 LinkSpeed=1 Nodes=n[1-2]\n"
    "SwitchName=s2 Level=0 LinkSpeed=1 Nodes=n[3-4]\n"
    "some header line\n"
    "SwitchName=root Level=1 LinkSpeed=1 Switches=s[1-2]\n";

static void parse(const char *text, cmp_switch_t **sw, int *n)
{
    char *copy = strdup(text);
    cm_error_t err = {""};
    assert_int_equal(cmp_switches_parse(copy, strlen(copy), sw, n, &err), 0);
    free(copy);
}

static void test_parse(void **state)
{
    (void)state;
    cmp_switch_t *sw;
    int n;
    parse(TOPO, &sw, &n);
    assert_int_equal(n, 3);
    assert_string_equal(sw[0].name, "s1");
    assert_string_equal(sw[0].nodes, "n[1-2]");
    assert_null(sw[0].switches);
    assert_int_equal(sw[2].level, 1);
    assert_null(sw[2].nodes);
    assert_string_equal(sw[2].switches, "s[1-2]");
    assert_int_equal(sw[0].block, 0);
    cmp_switches_free(sw, n);
    parse("", &sw, &n);
    assert_int_equal(n, 0);
    cmp_switches_free(sw, n);
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(26, 5, 0)
    /* a block is a leaf switch without a parent, marked as a block */
    parse("BlockName=b1 BlockIndex=0 Nodes=n[1-2] BlockSize=2\n", &sw, &n);
    assert_int_equal(n, 1);
    assert_int_equal(sw[0].level, 0);
    assert_int_equal(sw[0].block, 1);
    assert_string_equal(sw[0].nodes, "n[1-2]");
    cmp_switches_free(sw, n);
#endif
}

/* A directory with a slurm.conf, the cache's runtime directory beside. */
typedef struct fixture {
    char *dir, conf[512], topo[512], run[512];
} fixture_t;

static void setup(fixture_t *f)
{
    f->dir = cm_test_mkdtemp();
    cm_test_write_file(f->dir, "slurm.conf", "ClusterName=x\n");
    snprintf(f->conf, sizeof f->conf, "%s/slurm.conf", f->dir);
    snprintf(f->topo, sizeof f->topo, "%s/topology.conf", f->dir);
    snprintf(f->run, sizeof f->run, "%s/run", f->dir);
    assert_int_equal(mkdir(f->run, 0700), 0);
    cmp_topo_cache_tmp = f->dir;   /* the fallback under the test's own directory */
    setenv("XDG_RUNTIME_DIR", f->run, 1);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* The fixture has subdirectories (cm_test_rmtree does not recurse). */
static void teardown(fixture_t *f)
{
    unsetenv("XDG_RUNTIME_DIR");
    chmod(f->run, 0700);
    assert_int_equal(nftw(f->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
    cmp_topo_cache_tmp = "/nonexistent";
    free(f->dir);
}

/* What a fresh srun would see: 1 and the records on a hit. */
static int lookup(const fixture_t *f, int ttl, int *n)
{
    cmp_topo_cache_t tc;
    cmp_switch_t *sw = NULL;
    *n = -1;
    if (cmp_topo_cache_open(&tc, f->conf, ttl) < 0)
        return -1;
    int hit = cmp_topo_cache_get(&tc, NULL, 0, &sw, n);
    cmp_switches_free(sw, hit ? *n : 0);
    cmp_topo_cache_close(&tc);
    return hit;
}

static void keep(const fixture_t *f, int ttl)
{
    cmp_topo_cache_t tc;
    cmp_switch_t *sw;
    int n;
    parse(TOPO, &sw, &n);
    assert_int_equal(cmp_topo_cache_open(&tc, f->conf, ttl), 0);
    cmp_topo_cache_put(&tc, sw, n);
    cmp_topo_cache_close(&tc);
    cmp_switches_free(sw, n);
}

static void cache_path(const fixture_t *f, char *buf, size_t len)
{
    cmp_topo_cache_t tc;
    assert_int_equal(cmp_topo_cache_open(&tc, f->conf, 60), 0);
    snprintf(buf, len, "%s/clustermap/%s", f->run, tc.name);
    cmp_topo_cache_close(&tc);
}

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(26, 5, 0)
/* Blocks as the controller prints them (24.11's topology/block) give the
 * plugin's tree the level "block", the name `clustermap plan --slurm-conf`
 * gives them, and stay blocks through the user's cache. */
static void test_blocks(void **state)
{
    (void)state;
    static const char blocks[] = "BlockName=b1 BlockIndex=0 Nodes=n[1-2]\n"
                                 "BlockName=b2 BlockIndex=1 Nodes=n[3-4] Switches=x\n";
    cmp_switch_t *sw;
    int n;
    parse(blocks, &sw, &n);
    assert_int_equal(n, 2);
    assert_true(sw[0].block && sw[1].block);
    assert_null(sw[1].switches); /* a block has no children */
    const cm_switch_desc_t blk[] = { { sw[0].name, 0, -1 }, { sw[1].name, 0, -1 } };
    cm_node_desc_t nodes[] = { { "n1", 0, 1, 1 }, { "n3", 1, 1, 1 } };
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_from_blocks(blk, 2, nodes, 2, &err);
    if (!t)
        fail_msg("%s", err.msg);
    assert_string_equal(cm_tree_level_name(t, 1), "block");
    assert_int_equal(cm_tree_set_level_latencies(t, "block=0.5us", &err), 0);
    cm_tree_free(t);

    fixture_t f;
    setup(&f);
    cmp_topo_cache_t tc;
    assert_int_equal(cmp_topo_cache_open(&tc, f.conf, 60), 0);
    cmp_topo_cache_put(&tc, sw, n);
    cmp_switches_free(sw, n);
    assert_int_equal(cmp_topo_cache_get(&tc, NULL, 0, &sw, &n), 1);
    cmp_topo_cache_close(&tc);
    assert_int_equal(n, 2);
    assert_true(sw[0].block && sw[1].block);
    assert_string_equal(sw[1].name, "b2");
    assert_string_equal(sw[1].nodes, "n[3-4]");
    cmp_switches_free(sw, n);
    teardown(&f);
}
#endif

static void test_round_trip(void **state)
{
    (void)state;
    fixture_t f;
    setup(&f);
    int n;
    assert_int_equal(lookup(&f, 60, &n), 0);   /* nothing kept yet */
    keep(&f, 60);
    cmp_topo_cache_t tc;
    cmp_switch_t *sw;
    assert_int_equal(cmp_topo_cache_open(&tc, f.conf, 60), 0);
    assert_int_equal(cmp_topo_cache_get(&tc, NULL, 0, &sw, &n), 1);
    cmp_topo_cache_close(&tc);
    assert_int_equal(n, 3);
    assert_string_equal(sw[1].name, "s2");
    assert_string_equal(sw[1].nodes, "n[3-4]");
    assert_string_equal(sw[2].switches, "s[1-2]");
    assert_int_equal(sw[2].level, 1);
    cmp_switches_free(sw, n);
    /* the directory is the user's, 0700 */
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/clustermap", f.run);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
    teardown(&f);
}

/* Any change of slurm.conf, topology.conf or topology.yaml invalidates. */
static void test_invalidation(void **state)
{
    (void)state;
    fixture_t f;
    setup(&f);
    int n;
    keep(&f, 60);
    assert_int_equal(lookup(&f, 60, &n), 1);
    cm_test_write_file(f.dir, "topology.conf", "SwitchName=s1 Nodes=n1\n");
    assert_int_equal(lookup(&f, 60, &n), 0);
    keep(&f, 60);
    assert_int_equal(lookup(&f, 60, &n), 1);
    /* same size, new modification time */
    struct timeval tv[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
    assert_int_equal(utimes(f.topo, tv), 0);
    assert_int_equal(lookup(&f, 60, &n), 0);
    keep(&f, 60);
    cm_test_write_file(f.dir, "topology.yaml", "- topology: x\n");
    assert_int_equal(lookup(&f, 60, &n), 0);
    keep(&f, 60);
    cm_test_write_file(f.dir, "slurm.conf", "ClusterName=y\n");
    assert_int_equal(lookup(&f, 60, &n), 0);
    keep(&f, 60);
    assert_int_equal(lookup(&f, 60, &n), 1);
    char path[1024];
    cache_path(&f, path, sizeof path);
    /* a file of the release that kept blocks as switches: asked again */
    FILE *fp = fopen(path, "r+");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, (long)strlen("clustermap topology cache "), SEEK_SET), 0);
    fputc('1', fp);
    fclose(fp);
    assert_int_equal(lookup(&f, 60, &n), 0);
    keep(&f, 60);
    assert_int_equal(lookup(&f, 60, &n), 1);
    /* older than the ttl: the file says when it was written */
    fp = fopen(path, "r+");
    assert_non_null(fp);
    char buf[4096];
    size_t len = fread(buf, 1, sizeof buf - 1, fp);
    buf[len] = '\0';
    char *w = strstr(buf, "\nwritten ");
    assert_non_null(w);
    fseek(fp, (long)(w - buf) + 9, SEEK_SET);
    fputs("1000000", fp);   /* 2001: over the first seven of ten digits */
    fclose(fp);
    assert_int_equal(lookup(&f, 60, &n), 0);
    /* ttl 0: no cache at all */
    assert_int_equal(lookup(&f, 0, &n), -1);
    teardown(&f);
}

/* What the cache does not trust: a link or a non-regular file in place of
 * the cache file, a directory open to others, a bad header, a huge file. */
static void test_refusals(void **state)
{
    (void)state;
    fixture_t f;
    setup(&f);
    int n;
    char path[1024], target[1024];
    keep(&f, 60);
    cache_path(&f, path, sizeof path);
    /* a link to a valid cache file is not read, and keeping replaces the
     * link, not its target */
    snprintf(target, sizeof target, "%s/elsewhere", f.dir);
    assert_int_equal(rename(path, target), 0);
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(lookup(&f, 60, &n), 0);
    keep(&f, 60);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(lookup(&f, 60, &n), 1);
    /* a FIFO */
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(lookup(&f, 60, &n), 0);
    unlink(path);
    /* a bad first line */
    keep(&f, 60);
    FILE *fp = fopen(path, "r+");
    fputc('X', fp);
    fclose(fp);
    assert_int_equal(lookup(&f, 60, &n), 0);
    /* more than 16 MiB */
    keep(&f, 60);
    assert_int_equal(truncate(path, (16L << 20) + 1), 0);
    assert_int_equal(lookup(&f, 60, &n), 0);
    /* the directory readable by others: not used, not written */
    unlink(path);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/clustermap", f.run);
    assert_int_equal(chmod(dir, 0755), 0);
    cmp_topo_cache_t tc;
    char tmpdir[1024];
    snprintf(tmpdir, sizeof tmpdir, "%s/clustermap-%u", f.dir, (unsigned)geteuid());
    assert_int_equal(mkdir(tmpdir, 0755), 0);   /* "another user's": open too */
    assert_int_equal(cmp_topo_cache_open(&tc, f.conf, 60), -1);
    assert_int_equal(access(path, F_OK), -1);
    /* the fallback when the runtime directory is not usable: 0700 there */
    assert_int_equal(chmod(tmpdir, 0700), 0);
    assert_int_equal(cmp_topo_cache_open(&tc, f.conf, 60), 0);
    cmp_topo_cache_close(&tc);
    keep(&f, 60);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(lookup(&f, 60, &n), 1);
    /* a relative or missing slurm.conf: no cache */
    assert_int_equal(cmp_topo_cache_open(&tc, "slurm.conf", 60), -1);
    snprintf(path, sizeof path, "%s/none.conf", f.dir);
    assert_int_equal(cmp_topo_cache_open(&tc, path, 60), -1);
    /* a name a line-based file cannot hold is not kept */
    fixture_t g;
    setup(&g);
    cmp_switch_t bad = { "s 1", 0, "n1", NULL, 0 };
    assert_int_equal(cmp_topo_cache_open(&tc, g.conf, 60), 0);
    cmp_topo_cache_put(&tc, &bad, 1);
    cmp_topo_cache_close(&tc);
    assert_int_equal(lookup(&g, 60, &n), 0);
    teardown(&g);
    teardown(&f);
}


/* Coverage: every step node under a leaf; no switch covers all. */
static void test_cover(void **state)
{
    (void)state;
    cmp_switch_t *sw;
    int n;
    const char *known[] = { "n4", "n1", "n3" }, *added[] = { "n1", "n5" };
    parse(TOPO, &sw, &n);
    assert_int_equal(cmp_switches_cover(sw, n, known, 3), 1);
    assert_int_equal(cmp_switches_cover(sw, n, added, 2), 0);
    assert_int_equal(cmp_switches_cover(sw, n, NULL, 0), 1);
    assert_int_equal(cmp_switches_cover(NULL, 0, added, 2), 1); /* topology/default */
    assert_int_equal(cmp_switches_cover(sw, n, NULL, 2), 0);
    cmp_switches_free(sw, n);
    /* a node listed only by a switch above the leaves is not placed */
    parse("SwitchName=top Level=1 Nodes=n9 Switches=s1\nSwitchName=s1 Level=0 Nodes=n1\n", &sw,
          &n);
    const char *n9[] = { "n9" };
    assert_int_equal(cmp_switches_cover(sw, n, n9, 1), 0);
    cmp_switches_free(sw, n);
}

/* A node the kept answer does not know is a miss (the srun asks once and
 * keeps the new answer), not an hour of steps left to Slurm. */
static void test_unknown_node(void **state)
{
    (void)state;
    fixture_t f;
    setup(&f);
    keep(&f, 3600);
    cmp_topo_cache_t tc;
    cmp_switch_t *sw = NULL;
    int n = -1;
    const char *known[] = { "n2", "n3" }, *added[] = { "n2", "n5" };
    assert_int_equal(cmp_topo_cache_open(&tc, f.conf, 3600), 0);
    assert_int_equal(cmp_topo_cache_get(&tc, known, 2, &sw, &n), 1);
    cmp_switches_free(sw, n);
    assert_int_equal(cmp_topo_cache_get(&tc, added, 2, &sw, &n), 0);
    assert_null(sw);
    assert_int_equal(n, 0);
    /* the controller's new answer, kept: known from then on */
    cmp_switch_t *fresh;
    int nf;
    parse("SwitchName=s1 Level=0 Nodes=n[1-2]\nSwitchName=s3 Level=0 Nodes=n5\n", &fresh, &nf);
    cmp_topo_cache_put(&tc, fresh, nf);
    cmp_switches_free(fresh, nf);
    assert_int_equal(cmp_topo_cache_get(&tc, added, 2, &sw, &n), 1);
    assert_int_equal(n, 2);
    cmp_switches_free(sw, n);
    cmp_topo_cache_close(&tc);
    teardown(&f);
}

/* No slurm.conf (configless srun without slurmd's copy): one answer,
 * kept on age and known nodes alone. */
static void test_configless(void **state)
{
    (void)state;
    fixture_t f;
    setup(&f);
    cmp_topo_cache_t tc;
    cmp_switch_t *sw;
    int n;
    const char *known[] = { "n1" };
    assert_int_equal(cmp_topo_cache_open(&tc, NULL, 0), -1); /* ttl 0: none */
    assert_int_equal(cmp_topo_cache_open(&tc, NULL, 60), 0);
    assert_int_equal(strncmp(tc.name, "topology-configless-", 20), 0);
    assert_int_equal(cmp_topo_cache_get(&tc, known, 1, &sw, &n), 0);
    parse(TOPO, &sw, &n);
    cmp_topo_cache_put(&tc, sw, n);
    cmp_switches_free(sw, n);
    cmp_topo_cache_close(&tc);
    assert_int_equal(cmp_topo_cache_open(&tc, NULL, 60), 0);
    assert_int_equal(cmp_topo_cache_get(&tc, known, 1, &sw, &n), 1);
    assert_int_equal(n, 3);
    cmp_switches_free(sw, n);
    cmp_topo_cache_close(&tc);
    /* another cluster's answer is another file */
    setenv("SLURM_CLUSTER_NAME", "other", 1);
    assert_int_equal(cmp_topo_cache_open(&tc, NULL, 60), 0);
    assert_int_equal(cmp_topo_cache_get(&tc, known, 1, &sw, &n), 0);
    cmp_topo_cache_close(&tc);
    unsetenv("SLURM_CLUSTER_NAME");
    teardown(&f);
}

/* Node records: kept per node, merged, each valid ttl seconds. */
static void test_nodes(void **state)
{
    (void)state;
    fixture_t f;
    setup(&f);
    cmp_topo_cache_t tc;
    const char *ab[] = { "a", "b" }, *bc[] = { "b", "c" }, *abc[] = { "a", "b", "c" };
    cm_node_hw_t hw[3] = { { 2, 4, 1 }, { 1, 8, 2 }, { 0, 0, 0 } }, got[3];
    assert_int_equal(cmp_topo_cache_open(&tc, NULL, 60), 0);
    memset(got, 0, sizeof got);
    assert_int_equal(cmp_topo_cache_get_nodes(&tc, ab, 2, got), 0);
    cmp_topo_cache_put_nodes(&tc, ab, hw, 2);
    assert_int_equal(cmp_topo_cache_get_nodes(&tc, abc, 3, got), 2);
    assert_int_equal(got[0].cores_per_socket, 4);
    assert_int_equal(got[1].threads_per_core, 2);
    assert_int_equal(got[2].sockets, 0); /* not known: left as it was */
    /* b again with new values, c added (a zero record is not kept) */
    cm_node_hw_t hw2[2] = { { 4, 4, 1 }, { 1, 2, 1 } };
    cmp_topo_cache_put_nodes(&tc, bc, hw2, 2);
    cm_node_hw_t zero[1] = { { 0, 0, 0 } };
    const char *d[] = { "d" };
    cmp_topo_cache_put_nodes(&tc, d, zero, 1);
    memset(got, 0, sizeof got);
    assert_int_equal(cmp_topo_cache_get_nodes(&tc, abc, 3, got), 3);
    assert_int_equal(got[0].sockets, 2);
    assert_int_equal(got[1].sockets, 4);
    assert_int_equal(got[2].cores_per_socket, 2);
    assert_int_equal(cmp_topo_cache_get_nodes(&tc, d, 1, zero), 0);
    cmp_topo_cache_close(&tc);
    /* a record older than the ttl is not used */
    char dir[600], old[80];
    snprintf(dir, sizeof dir, "%s/clustermap", f.run);
    assert_int_equal(cmp_topo_cache_open(&tc, NULL, 60), 0);
    snprintf(old, sizeof old, "nodes%s", strchr(tc.name, '-'));
    cmp_topo_cache_close(&tc);
    cm_test_write_file(dir, old,
                       "clustermap node cache 1\nkey configless\nNodeName=a Sockets=1 "
                       "CoresPerSocket=1 ThreadsPerCore=1 Written=1000\n");
    assert_int_equal(cmp_topo_cache_open(&tc, NULL, 60), 0);
    assert_int_equal(cmp_topo_cache_get_nodes(&tc, ab, 1, got), 0);
    cmp_topo_cache_close(&tc);
    /* the records of a slurm.conf are its own, not the configless ones */
    assert_int_equal(cmp_topo_cache_open(&tc, f.conf, 60), 0);
    assert_int_equal(cmp_topo_cache_get_nodes(&tc, abc, 3, got), 0);
    cmp_topo_cache_close(&tc);
    teardown(&f);
}

int main(void)
{
    cmp_topo_cache_tmp = "/nonexistent";   /* never the node's own /tmp */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(26, 5, 0)
        cmocka_unit_test(test_blocks),
#endif
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_invalidation),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_cover),
        cmocka_unit_test(test_unknown_node),
        cmocka_unit_test(test_configless),
        cmocka_unit_test(test_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
