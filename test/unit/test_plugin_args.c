/* test_plugin_args.c -- the Slurm-free parts of the SPANK plugin: the
 * --mapping value, the plugstack.conf arguments, srun's and mpirun's
 * command lines, SLURM_JOB_CPUS_PER_NODE and Open MPI's rank file
 * (src/launch/, libcm-launch.a: no Slurm symbol). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "launch.h"

static void test_request(void **state)
{
    (void)state;
    cmp_request_t r;
    cm_error_t err;
    assert_int_equal(cmp_request_parse("cluster", &r, &err), 0);
    assert_int_equal(r.mode, CMP_MODE_CLUSTER);
    assert_int_equal(r.verbose, 0);
    assert_int_equal(cmp_request_parse("profile,name=lammps,verbose,noprofile", &r, &err), 0);
    assert_int_equal(r.mode, CMP_MODE_PROFILE);
    assert_string_equal(r.name, "lammps");
    assert_int_equal(r.verbose, 1);
    assert_int_equal(r.noprofile, 1);
    assert_int_equal(r.pack, 0);
    assert_int_equal(cmp_request_parse("cluster,pack", &r, &err), 0);
    assert_int_equal(r.pack, 1);
    assert_int_equal(cmp_request_parse("off", &r, &err), 0);
    assert_int_equal(r.mode, CMP_MODE_OFF);
    assert_int_equal(cmp_request_parse("clusters", &r, &err), -1);
    assert_non_null(strstr(err.msg, "got 'clusters'"));
    assert_int_equal(cmp_request_parse("cluster,loud", &r, &err), -1);
    assert_non_null(strstr(err.msg, "unknown modifier 'loud'"));
    assert_int_equal(cmp_request_parse("cluster,name=", &r, &err), -1);
    assert_int_equal(cmp_request_parse("cluster,name=a b", &r, &err), -1);
    assert_int_equal(cmp_request_parse("", &r, &err), -1);
    assert_string_equal(cmp_mode_name(CMP_MODE_CYCLIC), "cyclic");
}

/* The overlays: --mapping's css / overlap / nooverlay, plugstack's
 * overlay=, and the CLUSTERMAP_OVERLAY value they become. */
static void test_overlay(void **state)
{
    (void)state;
    cmp_request_t r;
    cmp_config_t c;
    cm_error_t err;
    unsigned bits = 99;
    char spec[32];
    assert_int_equal(cmp_request_parse("cluster,overlap,css,verbose", &r, &err), 0);
    assert_int_equal(r.overlay, CMP_OVL_CSS | CMP_OVL_TNBC);
    assert_int_equal(r.verbose, 1);
    assert_int_equal(cmp_request_parse("block,css", &r, &err), 0);
    assert_int_equal(r.overlay, CMP_OVL_CSS);
    assert_int_equal(cmp_request_parse("cluster,css,nooverlay", &r, &err), -1);
    assert_non_null(strstr(err.msg, "nooverlay"));
    cmp_config_init(&c);
    assert_int_equal(c.overlay, 0);
    char *args[] = { "overlay=tnbc,css" };
    assert_int_equal(cmp_config_parse(&c, 1, args, &err), 0);
    assert_int_equal(c.overlay, CMP_OVL_CSS | CMP_OVL_TNBC);
    char *bad[] = { "overlay=fast" };
    assert_int_equal(cmp_config_parse(&c, 1, bad, &err), -1);
    assert_non_null(strstr(err.msg, "overlay=: expected none, css, tnbc or css,tnbc"));
    assert_int_equal(cmp_overlay_parse("none", &bits), 0);
    assert_int_equal(bits, 0);
    cmp_overlay_spec(CMP_OVL_CSS | CMP_OVL_TNBC, spec, sizeof spec);
    assert_string_equal(spec, "css,tnbc");
    cmp_overlay_spec(CMP_OVL_TNBC, spec, sizeof spec);
    assert_string_equal(spec, "tnbc");
}

static void test_config(void **state)
{
    (void)state;
    cmp_config_t c;
    cm_error_t err;
    cmp_config_init(&c);
    assert_int_equal(c.default_mode, CMP_MODE_OFF);
    assert_true(c.budget > 0 && c.budget <= 0.05);
    char *ok[] = { "store=/shared/cm", "default=cluster", "budget=0.2", "weight=bytes",
                   "merge_weight=mean", "profile=always", "bind=no", "loglevel=debug",
                   "algorithm=scotch", "max_tasks=128" };
    assert_int_equal(cmp_config_parse(&c, 10, ok, &err), 0);
    assert_string_equal(c.store, "/shared/cm");
    assert_int_equal(c.default_mode, CMP_MODE_CLUSTER);
    assert_true(c.budget == 0.2);
    assert_int_equal(c.weight, CM_WEIGHT_BYTES);
    assert_true(c.merge_weight == CM_PROFILE_WEIGHT_MEAN);
    assert_int_equal(c.profiling, CMP_PROFILE_ALWAYS);
    assert_int_equal(c.bind, 0);
    assert_int_equal(c.loglevel, CMP_LOG_DEBUG);
    assert_string_equal(c.algorithm, "scotch");
    assert_int_equal(c.max_tasks, 128);
    char *bad1[] = { "store=relative" };
    assert_int_equal(cmp_config_parse(&c, 1, bad1, &err), -1);
    char *bad2[] = { "colour=blue" };
    assert_int_equal(cmp_config_parse(&c, 1, bad2, &err), -1);
    assert_non_null(strstr(err.msg, "unknown argument 'colour='"));
    char *bad3[] = { "default=help" };
    assert_int_equal(cmp_config_parse(&c, 1, bad3, &err), -1);
    char *bad4[] = { "budget=0" };
    assert_int_equal(cmp_config_parse(&c, 1, bad4, &err), -1);
    char *bad5[] = { "noequals" };
    assert_int_equal(cmp_config_parse(&c, 1, bad5, &err), -1);
    /* the guard */
    cmp_config_init(&c);
    assert_int_equal(c.guard, 1);
    assert_int_equal(c.guard_window, 5);
    assert_int_equal(c.guard_probe, 5);
    char *g[] = { "guard=no", "guard_window=3", "guard_probe=0" };
    assert_int_equal(cmp_config_parse(&c, 3, g, &err), 0);
    assert_int_equal(c.guard, 0);
    assert_int_equal(c.guard_window, 3);
    assert_int_equal(c.guard_probe, 0);
    char *bad6[] = { "guard_window=0" };
    assert_int_equal(cmp_config_parse(&c, 1, bad6, &err), -1);
    assert_non_null(strstr(err.msg, "guard_window=: expected an integer in [1, 32]"));
    char *bad7[] = { "guard_probe=-1" };
    assert_int_equal(cmp_config_parse(&c, 1, bad7, &err), -1);
    char *bad8[] = { "guard=maybe" };
    assert_int_equal(cmp_config_parse(&c, 1, bad8, &err), -1);
    /* the topology cache */
    cmp_config_init(&c);
    assert_int_equal(c.topo_cache, 3600);
    char *tc[] = { "topo_cache=0" };
    assert_int_equal(cmp_config_parse(&c, 1, tc, &err), 0);
    assert_int_equal(c.topo_cache, 0);
    char *tc2[] = { "topo_cache=86400" };
    assert_int_equal(cmp_config_parse(&c, 1, tc2, &err), 0);
    assert_int_equal(c.topo_cache, 86400);
    char *bad9[] = { "topo_cache=86401" };
    assert_int_equal(cmp_config_parse(&c, 1, bad9, &err), -1);
    assert_non_null(strstr(err.msg, "topo_cache=: expected seconds in [0, 86400], got '86401'"));
    char *bad10[] = { "topo_cache=-5" };
    assert_int_equal(cmp_config_parse(&c, 1, bad10, &err), -1);
}

/* The argument table's messages, word for word: the keys in the table's
 * order, each type's "expected ...", and a bad value that leaves its
 * field as it was. */
static void test_config_messages(void **state)
{
    (void)state;
    static const struct { const char *arg, *msg; } rows[] = {
        { "colour=blue", "unknown argument 'colour=' (expected enabled, store, default, "
          "algorithm, budget, deadline, weight, merge_weight, max_profile_size, "
          "level_costs, level_latencies, level_bandwidths, prof_lib, place_lib, "
          "hwloc_xml, prof_dir, step_budget, profile, ingest_timeout, max_tasks, bind, bind_max_tasks, mpirun, "
          "mpirun_dir, loglevel, guard, guard_window, guard_probe, guard_recheck, "
          "topo_cache, overlay)" },
        { "enabled=maybe", "enabled=: expected yes or no, got 'maybe'" },
        { "store=rel", "store=: expected an absolute path, got 'rel'" },
        { "default=help", "default=: expected off, cluster, profile, block or cyclic, "
          "got 'help'" },
        { "algorithm=fast", "algorithm=: expected auto, cluster, scotch-ms, treecut, "
          "scotch, block, cyclic or random, got 'fast'" },
        { "budget=61", "budget=: expected seconds in [0.001, 60], got '61'" },
        { "deadline=0", "deadline=: expected seconds in [0.001, 600], got '0'" },
        { "weight=x", "weight=: expected mixed, bytes or msgs, got 'x'" },
        { "merge_weight=2", "merge_weight=: expected a number in (0, 1] or 'mean', "
          "got '2'" },
        { "max_profile_size=1", "max_profile_size=: expected bytes in [1024, 1e12], "
          "got '1'" },
        { "prof_lib=/a b", "prof_lib=: expected an absolute path without blanks or "
          "':', got '/a b'" },
        { "mpirun_dir=/a:b", "mpirun_dir=: expected an absolute path without ':', "
          "got '/a:b'" },
        { "profile=x", "profile=: expected missing, always or never, got 'x'" },
        { "ingest_timeout=0", "ingest_timeout=: expected seconds in [0.1, 600], got '0'" },
        { "max_tasks=0", "max_tasks=: expected an integer in [1, 1048576], got '0'" },
        { "loglevel=x", "loglevel=: expected quiet, error, info or debug, got 'x'" },
        { "guard_probe=65", "guard_probe=: expected an integer in [0, 64], got '65'" },
        { "guard_recheck=x", "guard_recheck=: expected an integer in [0, 1000], got 'x'" },
        { "overlay=css,", "overlay=: expected none, css, tnbc or css,tnbc, got 'css,'" },
        /* the form of a level spec is judged when read, not at each placement */
        { "level_latencies=debug", "level_latencies=: level latencies 'debug': expected "
          "name=value, got 'debug'" },
        { "level_bandwidths=switch=0", "level_bandwidths=: level bandwidths 'switch=0': "
          "value of switch must be > 0, got '0'" },
        { "level_costs=node=1,", "level_costs=: level costs 'node=1,': trailing ','" },
    };
    cmp_config_t c, def;
    cm_error_t err;
    cmp_config_init(&def);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *arg[] = { (char *)rows[i].arg };
        cmp_config_init(&c);
        assert_int_equal(cmp_config_parse(&c, 1, arg, &err), -1);
        assert_string_equal(err.msg, rows[i].msg);
        assert_memory_equal(&c, &def, sizeof c);   /* the default kept */
    }
    /* a value that does not fit its field is refused, not cut */
    char longer[CMP_SPEC_MAX + 16];
    memset(longer, 'x', sizeof longer);
    memcpy(longer, "level_costs=", 12);
    longer[sizeof longer - 1] = '\0';
    char *arg[] = { longer };
    assert_int_equal(cmp_config_parse(&c, 1, arg, &err), -1);
    assert_string_equal(err.msg, "level_costs=: longer than 511 bytes");
    assert_string_equal(c.level_costs, "");
}

/* The guard's rule srun and `clustermap profile show` judge by. */
static void test_config_guard_rule(void **state)
{
    (void)state;
    cmp_config_t c;
    cm_guard_rule_t r, d;
    cm_error_t err;
    cmp_config_init(&c);
    cm_guard_rule_init(&d);
    cmp_config_guard_rule(&c, &r);
    assert_memory_equal(&r, &d, sizeof r);
    char *g[] = { "guard_window=3", "guard_probe=0", "guard_recheck=7" };
    assert_int_equal(cmp_config_parse(&c, 3, g, &err), 0);
    cmp_config_guard_rule(&c, &r);
    assert_int_equal(r.window, 3);
    assert_int_equal(r.probe, 0);
    assert_int_equal(r.recheck, 7);
    assert_int_equal(r.min_placed, d.min_placed);
    assert_true(r.margin == d.margin);
}

static void parse(cmp_srun_args_t *o, int argc, char **argv)
{
    cm_error_t err;
    assert_int_equal(cmp_srun_args_parse(argc, argv, o, &err), 0);
}

static void test_srun_args(void **state)
{
    (void)state;
    cmp_srun_args_t o;
    char *a1[] = { "srun", "--mpi=pmix", "-n", "8", "-N2", "./prog", "-n", "99" };
    parse(&o, 8, a1);
    assert_int_equal(o.ntasks, 8);      /* the program's -n 99 is not srun's */
    assert_int_equal(o.nodes_min, 2);
    assert_int_equal(o.nodes_max, 2);
    char *a2[] = { "srun", "-ln16", "--ntasks-per-node=4", "-c", "2", "-J", "halo",
                   "--mapping", "cluster,verbose", "prog" };
    parse(&o, 10, a2);
    assert_int_equal(o.ntasks, 16);
    assert_int_equal(o.ntasks_per_node, 4);
    assert_int_equal(o.cpus_per_task, 2);
    assert_string_equal(o.job_name, "halo");
    assert_int_equal(o.has_mapping, 1);
    assert_string_equal(o.mapping, "cluster,verbose");
    char *a3[] = { "srun", "--ntasks=4", "--nodes=1-3", "-w", "n[1-2]", "--mapp=off", "x" };
    parse(&o, 7, a3);
    assert_int_equal(o.ntasks, 4);
    assert_int_equal(o.nodes_min, 1);
    assert_int_equal(o.nodes_max, 3);
    assert_int_equal(o.nodelist, 1);
    assert_string_equal(o.mapping, "off");   /* unique prefix, as getopt */
    char *a4[] = { "srun", "-I", "-K1", "--exclusive", "-m", "cyclic", "--", "-n", "3" };
    parse(&o, 9, a4);
    assert_int_equal(o.ntasks, 0);
    assert_int_equal(o.distribution, 1);
    char *a5[] = { "srun", "-n2", "a", ":", "-n2", "b" };
    parse(&o, 6, a5);
    assert_int_equal(o.het, 1);
    char *a6[] = { "srun", "--help" };
    parse(&o, 2, a6);
    assert_int_equal(o.help, 1);
    char *a7[] = { "srun", "-n", "many", "x" };
    cm_error_t err;
    assert_int_equal(cmp_srun_args_parse(4, a7, &o, &err), -1);
}


/* Values longer than any former buffer (--mapping 511, -J 255, the
 * command 1023, its file name 63) are read whole: a 600-byte --mapping is
 * never taken for its first 511 bytes. */
static char *filled(size_t n, char c)
{
    char *s = malloc(n + 1);
    assert_non_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static void test_srun_args_long(void **state)
{
    (void)state;
    cmp_srun_args_t o;
    char *map = filled(600, 'v'), *name = filled(300, 'j'), *cmd = filled(2000, 'c');
    memcpy(map, "cluster,", 8);
    cmd[0] = '/';
    cmd[1500] = '/'; /* a file name of 499 bytes */
    char *a[] = { "srun", "-n4", "--mapping", map, "-J", name, cmd, "arg" };
    parse(&o, 8, a);
    assert_int_equal(o.has_mapping, 1);
    assert_int_equal(strlen(o.mapping), 600);
    assert_string_equal(o.mapping, map);
    assert_int_equal(strlen(o.job_name), 300);
    assert_string_equal(o.command_arg, cmd);
    assert_string_equal(o.command, cmd + 1501);
    /* the whole value is what the option callback parses too: refused as
     * a whole, never planned from a cut one */
    cmp_request_t r;
    cm_error_t err;
    assert_int_equal(cmp_request_parse(o.mapping, &r, &err), -1);
    char eq[700];
    snprintf(eq, sizeof eq, "--mapping=%s", map);
    char *b[] = { "srun", eq, "x" };
    parse(&o, 3, b);
    assert_string_equal(o.mapping, map);
    /* nothing given: "", never NULL */
    char *c[] = { "srun", "-n2" };
    parse(&o, 2, c);
    assert_string_equal(o.mapping, "");
    assert_string_equal(o.job_name, "");
    assert_string_equal(o.command, "");
    assert_string_equal(o.command_arg, "");
    /* a struct zeroed by hand (NULL strings) is no daemon launch */
    memset(&o, 0, sizeof o);
    o.ntasks_per_node = 1;
    assert_int_equal(cmp_srun_is_mpirun(&o), 0);
    free(map);
    free(name);
    free(cmd);
}

/* The command as srun's exec finds it, from a PATH entry longer than the
 * 2048 bytes the candidate buffer had: the file itself, never a cut
 * candidate, and a name that resolves to nothing comes back whole. */
static void test_resolve_long(void **state)
{
    (void)state;
    char dir[4096] = "/tmp/cm-resolve.XXXXXX", *got;
    assert_non_null(mkdtemp(dir));
    char top[64];
    snprintf(top, sizeof top, "%s", dir);
    char comp[201];
    memset(comp, 'd', 200);
    comp[200] = '\0';
    for (int i = 0; i < 12; i++) { /* 12 x 201 bytes: over 2048 */
        strcat(dir, "/");
        strcat(dir, comp);
        assert_int_equal(mkdir(dir, 0700), 0);
    }
    char prog[4200];
    snprintf(prog, sizeof prog, "%s/cmtool", dir);
    FILE *f = fopen(prog, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(chmod(prog, 0700), 0);
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", dir, 1);
    got = cmp_resolve_command("cmtool");
    assert_string_equal(got, prog);
    free(got);
    char *name = filled(3000, 'n');
    got = cmp_resolve_command(name); /* not found: as given, whole */
    assert_string_equal(got, name);
    free(got);
    free(name);
    if (old)
        setenv("PATH", old, 1);
    free(old);
    unlink(prog);
    for (int i = 0; i < 12; i++) {
        rmdir(dir);
        *strrchr(dir, '/') = '\0';
    }
    assert_int_equal(rmdir(top), 0);
}

/* mpirun's daemon launches, as Open MPI 4.1, 5.0 and 6.0 write them. */
static void test_mpirun_launch(void **state)
{
    (void)state;
    cmp_srun_args_t o;
    char *ompi4[] = { "srun", "--ntasks-per-node=1", "--kill-on-bad-exit", "--nodes=2",
                      "--nodelist=n1,n2", "--ntasks=2", "orted", "-mca", "x", "y" };
    parse(&o, 10, ompi4);
    assert_true(cmp_srun_is_mpirun(&o));
    char *ompi6[] = { "srun", "--external-launcher", "--ntasks-per-node=1", "--no-kill",
                      "--kill-on-bad-exit=0", "--mpi=none", "--cpu-bind=none",
                      "--jobid=1", "--ntasks=2", "prted", "--prtemca", "ess", "slurm" };
    parse(&o, 13, ompi6);
    assert_true(cmp_srun_is_mpirun(&o));
    assert_true(o.jobid);
    char *user[] = { "srun", "--ntasks-per-node=1", "-N2", "./orted-like" };
    parse(&o, 4, user);
    assert_false(cmp_srun_is_mpirun(&o));
}

/* A het step, by option or by ':' between components. */
static void test_het_step(void **state)
{
    (void)state;
    cmp_srun_args_t o;
    char *opt[] = { "srun", "--het-group=0,1", "./prog" };
    parse(&o, 3, opt);
    assert_true(o.het);
    char *colon[] = { "srun", "-n2", "./a", ":", "-n2", "./b" };
    parse(&o, 6, colon);
    assert_true(o.het);
    char *plain[] = { "srun", "-n2", "./a" };
    parse(&o, 3, plain);
    assert_false(o.het);
}

static void test_cpus_per_node(void **state)
{
    (void)state;
    int c[8];
    cm_error_t err;
    assert_int_equal(cmp_cpus_per_node("8(x2),4", 3, c, &err), 0);
    assert_int_equal(c[0], 8);
    assert_int_equal(c[1], 8);
    assert_int_equal(c[2], 4);
    assert_int_equal(cmp_cpus_per_node("2", 1, c, &err), 0);
    assert_int_equal(c[0], 2);
    assert_int_equal(cmp_cpus_per_node("8(x2),4", 2, c, &err), -1);
    assert_int_equal(cmp_cpus_per_node("8(x2)", 3, c, &err), -1);
    assert_int_equal(cmp_cpus_per_node("8(2)", 2, c, &err), -1);
    assert_int_equal(cmp_cpus_per_node("", 1, c, &err), -1);
    assert_int_equal(cmp_cpus_per_node(NULL, 1, c, &err), -1);
    int v;
    assert_int_equal(cmp_parse_int("12", 100, &v), 0);
    assert_int_equal(v, 12);
    assert_int_equal(cmp_parse_int("0", 100, &v), -1);
    assert_int_equal(cmp_parse_int("101", 100, &v), -1);
    assert_int_equal(cmp_parse_int("1x", 100, &v), -1);
}

/* Slurm's block layout decides its counts cyclically (step_layout.c). */
static void test_step_layout(void **state)
{
    (void)state;
    int c[4];
    int cap8[4] = { 8, 8, 8, 8 };
    assert_int_equal(cmp_step_layout(cap8, 4, 16, c), 0);   /* -N4 -n16: 4 each */
    for (int i = 0; i < 4; i++)
        assert_int_equal(c[i], 4);
    assert_int_equal(cmp_step_layout(cap8, 4, 18, c), 0);   /* 5 5 4 4 */
    assert_int_equal(c[0], 5);
    assert_int_equal(c[1], 5);
    assert_int_equal(c[2], 4);
    assert_int_equal(c[3], 4);
    int cap71[2] = { 7, 1 };                                 /* -N2 -n8 of 7 + 1 CPUs */
    assert_int_equal(cmp_step_layout(cap71, 2, 8, c), 0);
    assert_int_equal(c[0], 7);
    assert_int_equal(c[1], 1);
    int cap2[3] = { 2, 2, 2 };                               /* --ntasks-per-node=2 */
    assert_int_equal(cmp_step_layout(cap2, 3, 6, c), 0);
    assert_int_equal(c[0] + c[1] + c[2], 6);
    assert_int_equal(c[2], 2);
    assert_int_equal(cmp_step_layout(cap2, 3, 7, c), -1);    /* overcommitted */
    assert_int_equal(cmp_step_layout(cap2, 0, 1, c), -1);
}

/* Short options are letters: "-=" or "-@" must not be taken for the
 * private ids of --mapping or --ntasks-per-node, whose missing argument
 * was then read through a NULL pointer (found by fuzz_srun_args). */
static void test_srun_args_not_letters(void **state)
{
    (void)state;
    cmp_srun_args_t o;
    cm_error_t err = {""};
    char *a[] = { "srun", "-=", "-@", "-%", "-#", "-n2", "a.out" };
    assert_int_equal(cmp_srun_args_parse(7, a, &o, &err), 0);
    assert_int_equal(o.ntasks, 2);
    assert_int_equal(o.has_mapping, 0);
    assert_int_equal(o.ntasks_per_node, 0);
    assert_int_equal(o.multi_prog, 0);
    assert_int_equal(o.jobid, 0);
}

/* mpirun_args: OUT for ARGV, and 0/-1 */
static int mpirun(cmp_mpirun_args_t *o, int argc, char **argv)
{
    cm_error_t err = {""};
    int rc = cmp_mpirun_args_parse(argc, argv, o, &err);
    if (rc < 0)
        assert_true(err.msg[0] != '\0');
    return rc;
}

/* What clustermap's mpirun reads of mpirun's command line. */
static void test_mpirun_args(void **state)
{
    (void)state;
    cmp_mpirun_args_t o;
    char *np[] = { "mpirun", "--allow-run-as-root", "-x", "FOO", "--mca", "btl", "tcp",
                   "-np", "8", "./halo", "-n", "3" };
    assert_int_equal(mpirun(&o, 12, np), 0);
    assert_int_equal(o.np, 8);
    assert_int_equal(o.program, 9);   /* the program's own -n is its own */
    assert_string_equal(o.why, "");
    char *spellings[][3] = { { "mpirun", "-n", "4" }, { "mpirun", "--np", "4" },
                             { "mpirun", "-c", "4" }, { "mpirun", "--n", "4" } };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(mpirun(&o, 3, spellings[i]), 0);
        assert_int_equal(o.np, 4);
        assert_int_equal(o.program, 0);
    }
    char *none[] = { "mpirun", "-q", "a.out" };
    assert_int_equal(mpirun(&o, 3, none), 0);
    assert_int_equal(o.np, 0);        /* every slot */
    assert_int_equal(o.program, 2);
    char *mapby[] = { "mpirun", "--map-by", "node", "a.out" };
    assert_int_equal(mpirun(&o, 4, mapby), 0);
    assert_string_equal(o.why, "mpirun decides the layout itself (--map-by)");
    char *host[] = { "mpirun", "-H", "n1,n2", "a.out" };
    assert_int_equal(mpirun(&o, 4, host), 0);
    assert_true(strstr(o.why, "(-H)") != NULL);
    char *bind[] = { "mpirun", "-bind-to", "none", "a.out" };
    assert_int_equal(mpirun(&o, 4, bind), 0);
    assert_true(strstr(o.why, "(-bind-to)") != NULL);
    char *mca[] = { "mpirun", "-mca", "rmaps_base_mapping_policy", "node", "a.out" };
    assert_int_equal(mpirun(&o, 5, mca), 0);
    assert_true(strstr(o.why, "rmaps_base_mapping_policy") != NULL);
    char *mpmd[] = { "mpirun", "-np", "2", "./a", ":", "-np", "2", "./b" };
    assert_int_equal(mpirun(&o, 8, mpmd), 0);   /* ':' follows the program */
    assert_int_equal(o.program, 3);
    char *colon[] = { "mpirun", "-np", "2", ":", "./b" };
    assert_int_equal(mpirun(&o, 5, colon), 0);
    assert_string_equal(o.why, "several programs (':')");
    char *unknown[] = { "mpirun", "--frobnicate", "a.out" };
    assert_int_equal(mpirun(&o, 3, unknown), 0);
    assert_string_equal(o.why, "option --frobnicate not known to clustermap");
    char *query[] = { "mpirun", "--version" };
    assert_int_equal(mpirun(&o, 2, query), 0);
    assert_true(o.query);
    char *bad[] = { "mpirun", "-np", "zero", "a.out" };
    assert_int_equal(mpirun(&o, 4, bad), -1);
    char *missing[] = { "mpirun", "--mca", "btl" };
    assert_int_equal(mpirun(&o, 3, missing), -1);
    assert_true(cmp_mpirun_layout_param("hwloc_base_binding_policy"));
    assert_false(cmp_mpirun_layout_param("btl"));
}

/* mpirun's default layout fills each node's slots in turn. */
static void test_mpirun_fill(void **state)
{
    (void)state;
    int slots[4] = { 2, 2, 2, 2 }, c[4];
    assert_int_equal(cmp_mpirun_fill(slots, 4, 8, c), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(c[i], 2);
    assert_int_equal(cmp_mpirun_fill(slots, 4, 3, c), 0);
    assert_int_equal(c[0], 2);
    assert_int_equal(c[1], 1);
    assert_int_equal(c[2] + c[3], 0);
    assert_int_equal(cmp_mpirun_fill(slots, 4, 9, c), -1);
    assert_int_equal(cmp_mpirun_fill(slots, 4, 0, c), -1);
}

/* The text of file @p path in @p text (NUL-terminated). */
static void slurp(const char *path, char *text, size_t size)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, size - 1, f);
    text[n] = '\0';
    fclose(f);
}

/* The rank file Open MPI reads, written whole or not at all. */
static void test_rankfile(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_rankfile.XXXXXX", path[64], text[256];
    char *names[] = { "n1", "n2" };
    int node[3] = { 1, 0, 1 }, core[3] = { 0, 0, 1 };
    cm_error_t err = {""};
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/rankfile", dir);
    assert_int_equal(cmp_rankfile_write(path, names, node, core, 3, 4, &err), 0);
    slurp(path, text, sizeof text);
    assert_string_equal(text, "rank 0=n2 slot=0-3\nrank 1=n1 slot=0-3\nrank 2=n2 slot=0-3\n");
    assert_int_equal(cmp_rankfile_write(path, names, node, core, 3, 0, &err), 0);
    slurp(path, text, sizeof text);
    assert_string_equal(text, "rank 0=n2 slot=0\nrank 1=n1 slot=0\nrank 2=n2 slot=1\n");
    unlink(path);
    assert_int_equal(symlink("/dev/null", path), 0);   /* not a file of ours */
    assert_int_equal(cmp_rankfile_write(path, names, node, core, 3, 0, &err), -1);
    assert_true(err.msg[0] != '\0');
    unlink(path);
    assert_int_equal(rmdir(dir), 0);                    /* no temporary left */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_config_messages),
        cmocka_unit_test(test_config_guard_rule),
        cmocka_unit_test(test_overlay),
        cmocka_unit_test(test_srun_args),
        cmocka_unit_test(test_srun_args_long),
        cmocka_unit_test(test_resolve_long),
        cmocka_unit_test(test_mpirun_launch),
        cmocka_unit_test(test_het_step),
        cmocka_unit_test(test_cpus_per_node),
        cmocka_unit_test(test_srun_args_not_letters),
        cmocka_unit_test(test_step_layout),
        cmocka_unit_test(test_mpirun_args),
        cmocka_unit_test(test_mpirun_fill),
        cmocka_unit_test(test_rankfile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
