/* test_tree_slurmconf.c -- trees from slurm.conf + topology.conf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testutil.h"
#include "testdata.h"

/* Level @p l costs @p latency seconds per message and 1 / @p bandwidth
 * seconds per byte (the documented defaults, docs/machine-costs.md). */
static void assert_costs(const cm_tree_t *t, int l, double latency, double bandwidth)
{
    assert_true(cm_tree_level_msg_cost(t, l) == latency);
    assert_true(cm_tree_level_byte_cost(t, l) == 1 / bandwidth);
}

static cm_tree_t *load(const char *topo, const char *nodelist)
{
    cm_error_t err = {""};
    const char *conf = cm_test_data_path("slurm/slurm.conf");
    const char *tp = topo ? cm_test_data_path(topo) : NULL;
    cm_tree_t *t = cm_tree_from_slurm_conf(conf, tp, nodelist, &err);
    if (!t)
        fail_msg("%s: %s", nodelist, err.msg);
    return t;
}

/* The tree of files written by the test; fails the test on error. */
static cm_tree_t *tree_of(const char *conf, const char *topo, const char *nodelist)
{
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_from_slurm_conf(conf, topo, nodelist, &err);
    if (!t)
        fail_msg("%s: %s", nodelist, err.msg);
    return t;
}

/* n[1-8] over s1 = n[1,3,5,7], s2 = n[2,4,6,8]: DFS order differs from the
 * allocation order. */
static void test_interleaved(void **state)
{
    (void)state;
    char buf[256];
    cm_tree_t *t = load("slurm/topology.conf", "n[1-8]");
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf), "switch1 switch node socket core");
    assert_costs(t, 0, 2 * 1.05e-6, 6.25e9);
    assert_costs(t, 1, 1.05e-6, 12.5e9);
    assert_costs(t, 2, 0.4e-6, 14e9);
    assert_costs(t, 3, 0.3e-6, 16e9);
    assert_costs(t, 4, 0, INFINITY);
    assert_int_equal(cm_tree_nslots(t), 80);
    assert_int_equal(cm_tree_nnodes(t), 8);
    static const int first[8] = {0, 40, 8, 48, 16, 56, 32, 72};
    static const int count[8] = {8, 8, 8, 8, 16, 16, 8, 8};
    for (int k = 0; k < 8; k++) {
        char name[8];
        snprintf(name, sizeof name, "n%d", k + 1);
        int v = cm_tree_node_vertex(t, k);
        assert_string_equal(cm_tree_vertex_label(t, v), name);
        int f, c;
        cm_tree_vertex_slots(t, v, &f, &c);
        assert_int_equal(f, first[k]);
        assert_int_equal(c, count[k]);
        assert_int_equal(cm_tree_slot_node(t, first[k] + c - 1), k);
    }
    assert_string_equal(cm_tree_vertex_label(t, 0), "root");
    assert_string_equal(cm_tree_vertex_label(t, cm_tree_vertex_child(t, 0, 0)), "s1");
    assert_int_equal(cm_tree_lca_level(t, 0, 3), 3);   /* socket */
    assert_int_equal(cm_tree_lca_level(t, 0, 4), 2);   /* node */
    assert_int_equal(cm_tree_lca_level(t, 0, 8), 1);   /* s1 */
    assert_int_equal(cm_tree_lca_level(t, 0, 40), 0);  /* root */
    assert_int_equal(cm_tree_lca_level(t, 16, 23), 3); /* n5 has 8-core sockets */
    assert_int_equal(cm_tree_lca_level(t, 16, 24), 2);
    cm_tree_free(t);

    /* A subset keeps the root (the common ancestor) but only s2. */
    t = load("slurm/topology.conf", "n[4,2]");
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf), "switch1 switch node socket core");
    assert_int_equal(cm_tree_nvertices(t), 2 + 2 * (1 + 2 + 8));
    assert_string_equal(cm_tree_vertex_label(t, cm_tree_node_vertex(t, 0)), "n4");
    assert_int_equal(cm_tree_lca_level(t, 0, 8), 1);
    cm_tree_free(t);
}

static void test_no_topology(void **state)
{
    (void)state;
    char buf[256];
    cm_tree_t *t = load(NULL, "gpu01,n[7-8],n5");
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf), "switch node socket core");
    assert_int_equal(cm_tree_nslots(t), 2 + 8 + 8 + 16);
    assert_int_equal(cm_tree_nnodes(t), 4);
    assert_string_equal(cm_tree_vertex_label(t, cm_tree_node_vertex(t, 0)), "gpu01");
    int v = cm_tree_node_vertex(t, 0);
    assert_int_equal(cm_tree_vertex_nchildren(t, v), 1);
    assert_int_equal(cm_tree_lca_level(t, 0, 1), 2); /* gpu01's one socket */
    assert_int_equal(cm_tree_lca_level(t, 1, 2), 0);
    assert_int_equal(cm_tree_slot_node(t, 33), 3);
    assert_int_equal(cm_tree_vertex_nchildren(t, cm_tree_node_vertex(t, 3)), 2);
    cm_tree_free(t);
}

static void test_disjoint_tops(void **state)
{
    (void)state;
    char buf[256];
    cm_tree_t *t = load("slurm/topology-disjoint.conf", "n[3-6]");
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf), "cluster switch node socket core");
    /* The root over leaf switches costs what a "switch1" would. */
    assert_costs(t, 0, 2 * 1.05e-6, 6.25e9);
    assert_costs(t, 1, 1.05e-6, 12.5e9);
    assert_int_equal(cm_tree_lca_level(t, 0, 8), 1);  /* n3, n4 */
    assert_int_equal(cm_tree_lca_level(t, 8, 16), 0); /* n4, n5 */
    cm_tree_free(t);
    /* One top used: no artificial root. */
    t = load("slurm/topology-disjoint.conf", "n[1-2]");
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf), "switch node socket core");
    cm_tree_free(t);
}

static void test_deep(void **state)
{
    (void)state;
    char buf[256];
    cm_tree_t *t = load("slurm/topology-deep.conf", "n[1,5,3,6]");
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf), "switch2 switch1 switch node socket core");
    assert_costs(t, 0, 3 * 1.05e-6, 3.125e9);
    assert_costs(t, 1, 2 * 1.05e-6, 6.25e9);
    /* DFS: c{a{n1} b{n3}} d{n5 n6} -> n1 0-7, n3 8-15, n5 16-31, n6 32-47 */
    assert_int_equal(cm_tree_lca_level(t, 0, 8), 1);   /* via c */
    assert_int_equal(cm_tree_lca_level(t, 0, 16), 0);  /* via top */
    assert_int_equal(cm_tree_lca_level(t, 16, 32), 2); /* via d */
    assert_int_equal(cm_tree_slot_node(t, 8), 2);      /* n3 is third */
    assert_int_equal(cm_tree_slot_node(t, 16), 1);
    cm_tree_free(t);
}

static void expect_error(const char *conf, const char *topo, const char *nodelist,
                         const char *fragment)
{
    cm_error_t err = {""};
    assert_null(cm_tree_from_slurm_conf(conf, topo, nodelist, &err));
    if (!strstr(err.msg, fragment))
        fail_msg("error '%s' lacks '%s'", err.msg, fragment);
}

static void test_errors(void **state)
{
    (void)state;
    const char *conf = cm_test_data_path("slurm/slurm.conf");
    const char *topo = cm_test_data_path("slurm/topology.conf");
    char msg[1024];

    snprintf(msg, sizeof msg, "node list: node n99 is not defined in %s", conf);
    expect_error(conf, NULL, "n[1-2],n99", msg);
    snprintf(msg, sizeof msg, "%s: node gpu01 is in no switch", topo);
    expect_error(conf, topo, "n1,gpu01", msg);
    expect_error(conf, NULL, "n[1-2],n1", "node n1 appears twice");
    expect_error(conf, NULL, "n[1-", "node list: hostlist");
    expect_error(conf, cm_test_data_path("slurm/topology-loop.conf"), "n1",
                 "switch loop");
    expect_error(cm_test_data_path("slurm/none.conf"), NULL, "n1", "none.conf: cannot open");
    expect_error(conf, cm_test_data_path("slurm/none.conf"), "n1", "none.conf: cannot open");

    char *dir = cm_test_mkdtemp();
    const char *p;
    p = cm_test_write_file(dir, "kv.conf", "ClusterName=x\nNodeName=a Sockets\n");
    snprintf(msg, sizeof msg, "%s:2: expected key=value, got 'Sockets'", p);
    expect_error(p, NULL, "a", msg);
    p = cm_test_write_file(dir, "garbage.conf", "# c\n\nhello world\n");
    snprintf(msg, sizeof msg, "%s:3: expected key=value, got 'hello'", p);
    expect_error(p, NULL, "a", msg);
    p = cm_test_write_file(dir, "int.conf", "NodeName=a \\\n  Sockets=two\n");
    snprintf(msg, sizeof msg, "%s:1: Sockets: expected an integer", p);
    expect_error(p, NULL, "a", msg);
    p = cm_test_write_file(dir, "zero.conf", "NodeName=a CoresPerSocket=0\n");
    expect_error(p, NULL, "a", "CoresPerSocket: expected a positive integer, got '0'");
    p = cm_test_write_file(dir, "dup.conf", "NodeName=a[1-2]\nNodeName=a2\n");
    snprintf(msg, sizeof msg, "%s:2: node a2 is defined twice", p);
    expect_error(p, NULL, "a1", msg);
    p = cm_test_write_file(dir, "hl.conf", "NodeName=a[1-\n");
    snprintf(msg, sizeof msg, "%s:1: NodeName: hostlist 'a[1-'", p);
    expect_error(p, NULL, "a1", msg);
    p = cm_test_write_file(dir, "inc.conf", "Include missing.conf\n");
    snprintf(msg, sizeof msg, "%s:1: in Include: %s/missing.conf: cannot open", p, dir);
    expect_error(p, NULL, "a1", msg);
    p = cm_test_write_file(dir, "self.conf", "Include self.conf\n");
    expect_error(p, NULL, "a1", "nested more than 8 deep");
    p = cm_test_write_file(dir, "quote.conf", "NodeName=a Feature=\"x y\n");
    expect_error(p, NULL, "a", "unterminated '\"'");

    const char *ok = cm_test_write_file(dir, "ok.conf", "NodeName=a[1-4]\n");
    p = cm_test_write_file(dir, "t1.conf", "SwitchName=s Nodes=a[1-4] Speed=3\n");
    snprintf(msg, sizeof msg, "%s:1: unknown key 'Speed'", p);
    expect_error(ok, p, "a1", msg);
    p = cm_test_write_file(dir, "t2.conf", "SwitchName=s Switches=t\n");
    expect_error(ok, p, "a1", "switch s: unknown child switch t");
    p = cm_test_write_file(dir, "t3.conf", "SwitchName=s Nodes=a[1-2]\nSwitchName=t Nodes=a2\n");
    snprintf(msg, sizeof msg, "%s:2: node a2 is already in switch s", p);
    expect_error(ok, p, "a1", msg);
    p = cm_test_write_file(dir, "t4.conf", "SwitchName=s Nodes=a1\nSwitchName=s Nodes=a2\n");
    expect_error(ok, p, "a1", "switch s is defined twice");
    p = cm_test_write_file(dir, "t5.conf", "NodeName=a1\n");
    expect_error(
        ok, p, "a1",
        "expected SwitchName=..., BlockName=... or BlockSizes=..., got 'NodeName='");
    p = cm_test_write_file(dir, "t6.conf", "SwitchName=s Switches=s\n");
    expect_error(ok, p, "a1", "switch s lists itself");
    p = cm_test_write_file(dir, "t7.conf", "SwitchName=s[1-2] Nodes=a1\n");
    expect_error(ok, p, "a1", "SwitchName: expected one switch name");
    cm_test_rmtree(dir);
}

/* topology/block: a8 in no block of the first file.  The blocks' level is
 * "block", priced as a leaf switch, with "cluster" over several; level
 * specs name it. */
static void test_blocks(void **state)
{
    (void)state;
    char buf[256];
    char *dir = cm_test_mkdtemp();
    char conf[4096]; /* cm_test_write_file() reuses its buffer */
    snprintf(conf, sizeof conf, "%s",
             cm_test_write_file(dir, "b.conf",
                                "NodeName=a[1-8] Sockets=2 CoresPerSocket=2\n"));
    const char *topo = cm_test_write_file(dir, "tb.conf",
                                          "# two NVLink racks\n"
                                          "BlockName=b1 Nodes=a[1-2]\n"
                                          "blockname=b2 Nodes=a[3-4]\n"
                                          "BlockName=b3 Nodes=a[5-7]\n"
                                          "BlockSizes=2,4\n");
    cm_error_t err = { "" };
    cm_tree_t *t = tree_of(conf, topo, "a[3,1-2,4]");
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf),
                        "cluster block node socket core");
    assert_costs(t, 0, 2 * 1.05e-6, 6.25e9); /* as "switch1" */
    assert_costs(t, 1, 1.05e-6, 12.5e9);     /* as "switch" */
    assert_string_equal(cm_tree_vertex_label(t, cm_tree_vertex_child(t, 0, 0)), "b2");
    /* slots in tree order: a3 0-3, a4 4-7 (b2), a1 8-11, a2 12-15 (b1) */
    assert_int_equal(cm_tree_lca_level(t, 0, 4), 1);  /* a3, a4: b2 */
    assert_int_equal(cm_tree_lca_level(t, 8, 12), 1); /* a1, a2: b1 */
    assert_int_equal(cm_tree_lca_level(t, 0, 8), 0);  /* across */
    assert_int_equal(cm_tree_set_level_latencies(t, "block=0.5us,cluster=5us", &err), 0);
    assert_true(fabs(cm_tree_level_msg_cost(t, 1) - 0.5e-6) < 1e-15);
    assert_int_equal(cm_tree_set_level_bandwidths(t, "block=900GB/s", &err), 0);
    assert_true(fabs(cm_tree_level_byte_cost(t, 1) - 1 / 900e9) < 1e-24);
    /* the switch names are not this tree's */
    assert_int_equal(cm_tree_set_level_latencies(t, "switch=1us", &err), -1);
    cm_tree_free(t);

    /* One block used: it is the root. */
    t = tree_of(conf, topo, "a[5-7]");
    assert_string_equal(cm_test_level_names(t, buf, sizeof buf),
                        "block node socket core");
    assert_string_equal(cm_tree_vertex_label(t, 0), "b3");
    cm_tree_free(t);

    char msg[1024];
    snprintf(msg, sizeof msg, "%s: node a8 is in no block", topo);
    expect_error(conf, topo, "a[7-8]", msg);
    cm_test_rmtree(dir);
}

/* What a topology/block file may not hold: each refusal names file:line
 * and what was expected. */
static void test_block_errors(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    char conf[4096]; /* cm_test_write_file() reuses its buffer */
    snprintf(conf, sizeof conf, "%s",
             cm_test_write_file(dir, "b.conf", "NodeName=a[1-4]\n"));
    static const struct {
        const char *topo, *msg;
    } rows[] = {
        { "BlockName=b1 Nodes=a[1-2]\nSwitchName=s Nodes=a[3-4]\n",
          ":2: SwitchName= in a file of BlockName/BlockSizes lines (line 1): expected "
          "the "
          "lines of one topology plugin, tree or block" },
        { "SwitchName=s Nodes=a[1-2]\n\nBlockName=b1 Nodes=a[3-4]\n",
          ":3: BlockName= in a file of SwitchName lines (line 1)" },
        { "SwitchName=s Nodes=a[1-4]\nBlockSizes=4\n",
          ":2: BlockSizes= in a file of SwitchName lines (line 1)" },
        { "BlockName=b1\n", ":1: block b1: expected Nodes=HOSTLIST" },
        { "BlockName=b1 Nodes=a1 Switches=b2\n",
          ":1: unknown key 'Switches' (expected Nodes)" },
        { "BlockName=b[1-2] Nodes=a1\n",
          ":1: BlockName: expected one block name, got 'b[1-2]'" },
        { "BlockName=b1 Nodes=a1\nBlockName=b1 Nodes=a2\n",
          ":2: block b1 is defined twice" },
        { "BlockName=b1 Nodes=a[1-2]\nBlockName=b2 Nodes=a[2-3]\n",
          ":2: node a2 is already in block b1" },
        { "BlockName=b1 Nodes=a[1-4]\nBlockSizes=0\n",
          ":2: BlockSizes: expected positive integers separated by commas, got '0'" },
        { "BlockName=b1 Nodes=a[1-4]\nBlockSizes=2,,4\n",
          ":2: BlockSizes: expected positive integers separated by commas, got '2,,4'" },
        { "BlockName=b1 Nodes=a[1-4]\nBlockSizes=-2\n",
          ":2: BlockSizes: expected positive" },
        { "BlockName=b1 Nodes=a[1-4]\nBlockSizes=2,4x\n",
          ":2: BlockSizes: expected positive" },
        { "BlockName=b1 Nodes=a[1-4]\nBlockSizes=99999999999\n",
          ":2: BlockSizes: expected positive" },
        { "BlockName=b1 Nodes=a[1-4]\nBlockSizes=30,90\n",
          ":2: BlockSizes: expected 90 to be 30 times a power of two (2, 4, 8...), got "
          "'30,90'" },
        { "BlockName=b1 Nodes=a[1-4]\nBlockSizes=4,4\n",
          ":2: BlockSizes: expected 4 to be 4 times" },
        { "BlockName=b1 Nodes=a[1-4]\nBlockSizes=2\nBlockSizes=2\n",
          ":3: BlockSizes given twice (first at line 2)" },
        { "BlockName=b1 Nodes=a[1-4]\nBlockSizes=2 Nodes=a1\n",
          ":2: expected BlockSizes=N[,N...] alone on its line" },
        { "BlockSizes=2\n", ": node a1 is in no block" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *topo = cm_test_write_file(dir, "t.conf", rows[i].topo);
        char msg[1024];
        snprintf(msg, sizeof msg, "%s%s", topo, rows[i].msg);
        expect_error(conf, topo, "a[1-4]", msg);
    }
    /* the sizes the man page shows are fine */
    const char *topo = cm_test_write_file(
        dir, "t.conf", "BlockName=b1 Nodes=a[1-4]\nBlockSizes=30,120,960\n");
    cm_tree_free(tree_of(conf, topo, "a[1-4]"));
    cm_test_rmtree(dir);
}

static void test_cpus_only(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    const char *p = cm_test_write_file(dir, "c.conf",
        "NodeName=c1 CPUs=8 ThreadsPerCore=2\n"
        "NodeName=c2 CPUs=6\n"
        "NodeName=c3 Sockets=2 CPUs=8\n"
        "NodeName=c4 Boards=1 SocketsPerBoard=3 CoresPerSocket=2\n");
    cm_error_t err = {""};
    cm_tree_t *t = cm_tree_from_slurm_conf(p, NULL, "c[1-4]", &err);
    if (!t)
        fail_msg("%s", err.msg);
    static const int sockets[4] = {1, 1, 2, 3}, cores[4] = {4, 6, 8, 6};
    for (int k = 0; k < 4; k++) {
        int v = cm_tree_node_vertex(t, k), f, c;
        assert_int_equal(cm_tree_vertex_nchildren(t, v), sockets[k]);
        cm_tree_vertex_slots(t, v, &f, &c);
        assert_int_equal(c, cores[k]);
    }
    cm_tree_free(t);
    p = cm_test_write_file(dir, "bad.conf", "NodeName=c1 Sockets=4 CPUs=2\n");
    assert_null(cm_tree_from_slurm_conf(p, NULL, "c1", &err));
    assert_non_null(strstr(err.msg, "CPUs=2 is fewer than Sockets=4"));
    cm_test_rmtree(dir);
}

/* What srun's placement reads per node: the same reading as the tree,
 * threads kept, zeros for a node the file does not define, the file's
 * errors passed on. */
static void test_node_hw(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    const char *p = cm_test_write_file(dir, "hw.conf",
        "NodeName=DEFAULT Sockets=2 CoresPerSocket=4 ThreadsPerCore=2\n"
        "NodeName=h[1-3]\n"
        "NodeName=h4 CPUs=6 Sockets=1 CoresPerSocket=6 ThreadsPerCore=1\n"
        "NodeName=h5 CPUs=8\n");
    const char *names[] = { "h3", "h4", "dyn1", "h5", "h1" };
    cm_node_hw_t hw[5];
    cm_error_t err = {""};
    assert_int_equal(cm_slurm_conf_node_hw(p, names, 5, hw, &err), 4);
    static const int want[5][3] = { {2, 4, 2}, {1, 6, 1}, {0, 0, 0}, {2, 4, 2},
                                    {2, 4, 2} };
    for (int i = 0; i < 5; i++) {
        assert_int_equal(hw[i].sockets, want[i][0]);
        assert_int_equal(hw[i].cores_per_socket, want[i][1]);
        assert_int_equal(hw[i].threads_per_core, want[i][2]);
    }
    assert_int_equal(cm_slurm_conf_node_hw(p, names, 0, hw, &err), 0);
    p = cm_test_write_file(dir, "bad.conf", "NodeName=h1 Sockets=x\n");
    assert_int_equal(cm_slurm_conf_node_hw(p, names, 5, hw, &err), -1);
    assert_non_null(strstr(err.msg, "bad.conf:1"));
    assert_int_equal(cm_slurm_conf_node_hw(NULL, names, 5, hw, &err), -1);
    cm_test_rmtree(dir);
}

/* Byte-level mutations of the fixtures: every result is a valid tree or an
 * error message, never a crash or a leak. */
static void test_mutations(void **state)
{
    (void)state;
    static const char conf[] =
        "NodeName=DEFAULT Sockets=2 CoresPerSocket=4\n"
        "NodeName=n[1-4] Weight=3 \\\n ThreadsPerCore=2\n"
        "NodeName=n[5-6] CPUs=8 # comment\n";
    static const char topo[] =
        "SwitchName=s1 Nodes=n[1,3,5]\nSwitchName=s2 Nodes=n[2,4,6]\n"
        "SwitchName=r Switches=s[1-2]\n";
    static const char noise[] = "=[]-,# \\\n\"0x1n";
    char *dir = cm_test_mkdtemp();
    cm_rng_t r;
    cm_rng_seed(&r, 7);
    int ok = 0;
    for (int it = 0; it < 400; it++) {
        char c[sizeof conf], tp[sizeof topo];
        memcpy(c, conf, sizeof conf);
        memcpy(tp, topo, sizeof topo);
        char *victim = it % 2 ? c : tp;
        size_t len = strlen(victim);
        for (int k = 0; k < 2; k++)
            victim[cm_rng_below(&r, len)] = noise[cm_rng_below(&r, sizeof noise - 1)];
        char cp[4096], tpp[4096];
        snprintf(cp, sizeof cp, "%s", cm_test_write_file(dir, "m.conf", c));
        snprintf(tpp, sizeof tpp, "%s", cm_test_write_file(dir, "t.conf", tp));
        cm_error_t err = {""};
        cm_tree_t *t = cm_tree_from_slurm_conf(cp, tpp, "n[1-6]", &err);
        if (t) {
            assert_int_equal(cm_tree_nnodes(t), 6);
            ok++;
        } else {
            assert_true(err.msg[0] != '\0');
        }
        cm_tree_free(t);
    }
    assert_true(ok > 10);
    cm_test_rmtree(dir);
}

/* Files that are not text, and Include lines that fan out: refused at
 * once (a NUL byte made "Include /dev/zero" read forever; 8 small files of
 * k Include lines each made k^8 reads). */
static void test_hostile_files(void **state)
{
    (void)state;
    char *dir = cm_test_mkdtemp();
    char msg[4200];
    const char *p = cm_test_write_file(dir, "zero.conf", "NodeName=a\nInclude /dev/zero\n");
    expect_error(p, NULL, "a", "/dev/zero:1: expected text, got a NUL byte");

    char path[4096];
    snprintf(path, sizeof path, "%s/nul.conf", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite("NodeName=a\nNodeName=b\0c\nNodeName=d\n", 1, 35, f);
    fclose(f);
    snprintf(msg, sizeof msg, "%s:2: expected text, got a NUL byte", path);
    expect_error(path, NULL, "a", msg);

    /* f1 .. f7 include the next one six times: 6^7 reads without a bound */
    for (int i = 1; i <= 8; i++) {
        char name[32], text[256] = "";
        snprintf(name, sizeof name, "f%d.conf", i);
        for (int k = 0; i < 8 && k < 6; k++)
            snprintf(text + strlen(text), sizeof text - strlen(text),
                     "Include f%d.conf\n", i + 1);
        cm_test_write_file(dir, name, text);
    }
    p = cm_test_write_file(dir, "top.conf", "NodeName=a\nInclude f1.conf\n");
    expect_error(p, NULL, "a", "more than 256 Include lines in all");
    /* a few includes are fine */
    cm_test_write_file(dir, "f7.conf", "Include f8.conf\nInclude f8.conf\n");
    p = cm_test_write_file(dir, "few.conf", "NodeName=a\nInclude f7.conf\nInclude f7.conf\n");
    cm_error_t err = {""};
    cm_tree_t *t = cm_tree_from_slurm_conf(p, NULL, "a", &err);
    if (!t)
        fail_msg("%s", err.msg);
    cm_tree_free(t);
    cm_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interleaved),   cmocka_unit_test(test_no_topology),
        cmocka_unit_test(test_disjoint_tops), cmocka_unit_test(test_deep),
        cmocka_unit_test(test_errors),        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_block_errors),  cmocka_unit_test(test_cpus_only),
        cmocka_unit_test(test_node_hw),       cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_hostile_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
