/* test_launch_null.c -- every public function of the launch model
 * (cmp_request.h, cmp_config.h, cmp_srun_args.h, cmp_alloc.h, cmp_mpirun.h,
 * cmp_layout_text.h, cmp_step.h) called with NULL pointers, empty strings,
 * garbage and over-long values: each must give the failure its note in
 * the header documents and never crash, and no value may come back cut.
 * test/sh/t0014-api-null.t fails when a function those headers declare is
 * not called here, so a new function comes with its row.
 *
 * FAILS(call) runs @p call twice, once with `err` pointing to a record
 * (which must then hold a message) and once with `err` NULL, and expects
 * -1 both times; FAILS_NULL does the same for calls that return a pointer. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testnull.h"
#include "cmp_alloc.h"
#include "cmp_config.h"
#include "cmp_dirwalk.h"
#include "cmp_layout_text.h"
#include "cmp_leftovers.h"
#include "cmp_mpirun.h"
#include "cmp_request.h"
#include "cmp_srun_args.h"
#include "cmp_step.h"
#include "testdata.h"

/* FAILS for the calls that fill an allocation @p a, to be freed after
 * each call, failed or not. */
#define FAILS_FREE(call, a)                                                              \
    do {                                                                                 \
        cm_error_t e_ = { "" };                                                          \
        cm_error_t *err = &e_;                                                           \
        if ((call) != -1)                                                                \
            fail_msg("%s: expected -1", #call);                                          \
        if (!e_.msg[0])                                                                  \
            fail_msg("%s: no error message", #call);                                     \
        cmp_alloc_free(a);                                                               \
        err = NULL;                                                                      \
        if ((call) != -1)                                                                \
            fail_msg("%s (err NULL): expected -1", #call);                               \
        cmp_alloc_free(a);                                                               \
    } while (0)

/* A value of @p n 'a's (malloc'd). */
static char *long_value(size_t n)
{
    char *v = malloc(n + 1);
    assert_non_null(v);
    memset(v, 'a', n);
    v[n] = '\0';
    return v;
}

static void test_request(void **state)
{
    (void)state;
    cmp_request_t r;
    unsigned bits = 7;
    char buf[4], *lv = long_value(CMP_NAME_MAX + 1), mod[CMP_NAME_MAX + 32];

    FAILS(cmp_request_parse(NULL, &r, err));
    FAILS(cmp_request_parse("", &r, err));
    FAILS(cmp_request_parse("cluster", NULL, err));
    FAILS(cmp_request_parse("garbage", &r, err));
    FAILS(cmp_request_parse("cluster,", &r, err));
    FAILS(cmp_request_parse("cluster,,verbose", &r, err));
    FAILS(cmp_request_parse("cluster,name=", &r, err));
    FAILS(cmp_request_parse("cluster,name=a b", &r, err));
    /* a name one byte too long is refused, never cut */
    snprintf(mod, sizeof mod, "cluster,name=%s", lv);
    FAILS(cmp_request_parse(mod, &r, err));
    lv[CMP_NAME_MAX] = '\0';
    snprintf(mod, sizeof mod, "cluster,name=%s", lv);
    assert_int_equal(cmp_request_parse(mod, &r, NULL), 0);
    assert_string_equal(r.name, lv);
    free(lv);

    assert_int_equal(cmp_overlay_parse(NULL, &bits), -1);
    assert_int_equal(bits, 7);
    assert_int_equal(cmp_overlay_parse("", &bits), -1);
    assert_int_equal(cmp_overlay_parse("css,css,garbage", &bits), -1);
    assert_int_equal(cmp_overlay_parse("css", NULL), -1);
    assert_int_equal(bits, 7);
    cmp_overlay_spec(CMP_OVL_CSS | CMP_OVL_TNBC, NULL, 0); /* no-op */
    cmp_overlay_spec(CMP_OVL_CSS | CMP_OVL_TNBC, buf, sizeof buf);
    assert_true(strlen(buf) < sizeof buf); /* cut to fit, as documented */
    assert_string_equal(cmp_mode_name((cmp_mode_t)-1), "default");
    assert_string_equal(cmp_mode_name((cmp_mode_t)999), "default");
    assert_true(strlen(cmp_help_text) > 0);
}

static void test_config(void **state)
{
    (void)state;
    cmp_config_t c, d;
    cm_guard_rule_t r, def;
    char *lv = long_value(CMP_PATH_MAX + 10), arg[CMP_PATH_MAX + 32];
    char *bad[] = { NULL };
    char *garbage[] = { "=x", "store", "nokey=1", "store=relative" };

    cmp_config_init(NULL); /* no-op */
    cmp_config_init(&c);
    d = c;
    FAILS(cmp_config_parse(NULL, 0, NULL, err));
    FAILS(cmp_config_parse(&c, 1, NULL, err));
    FAILS(cmp_config_parse(&c, 1, bad, err));
    for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++)
        FAILS(cmp_config_parse(&c, 1, &garbage[i], err));
    assert_memory_equal(&c, &d, sizeof c); /* a bad argument changes nothing */
    /* a value that does not fit its field is refused, never cut */
    static const char *const keys[] = { "store=/", "prof_lib=/", "prof_dir=/",
                                        "level_costs=", "algorithm=" };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        char *a = arg;
        snprintf(arg, sizeof arg, "%s%s", keys[i], lv);
        FAILS(cmp_config_parse(&c, 1, &a, err));
    }
    assert_memory_equal(&c, &d, sizeof c);
    assert_int_equal(cmp_config_parse(&c, 0, NULL, NULL), 0);
    free(lv);

    cm_guard_rule_init(&def);
    cmp_config_guard_rule(NULL, &r);
    assert_int_equal(r.window, def.window);
    assert_int_equal(r.probe, def.probe);
    assert_int_equal(r.recheck, def.recheck);
    cmp_config_guard_rule(&c, NULL); /* no-op */
}

static void test_srun_args(void **state)
{
    (void)state;
    cmp_srun_args_t o;
    char *argv0[] = { "srun", NULL };
    char *ends[] = { "srun", "-n", "4", NULL, "ignored" };
    char *bad_n[] = { "srun", "-n", "x" };
    char *bad_big[] = { "srun", "-n", "99999999999999999999" };
    char *bad_N[] = { "srun", "-N", "4-2" };
    char *garbage[] = { "srun", "-", "--", "-=", "--=", "-@" };
    int argc = -1;
    char **argv = NULL;

    FAILS(cmp_srun_args_parse(1, argv0, NULL, err));
    FAILS(cmp_srun_args_parse(1, NULL, &o, err));
    assert_int_equal(cmp_srun_args_parse(0, NULL, &o, NULL), 0);
    /* an argv ends at its NULL, whatever argc says */
    assert_int_equal(cmp_srun_args_parse(5, ends, &o, NULL), 0);
    assert_int_equal(o.ntasks, 4);
    FAILS(cmp_srun_args_parse(3, bad_n, &o, err));
    FAILS(cmp_srun_args_parse(3, bad_big, &o, err));
    FAILS(cmp_srun_args_parse(3, bad_N, &o, err));
    assert_int_equal(cmp_srun_args_parse(6, garbage, &o, NULL), 0);
    assert_int_equal(cmp_srun_is_mpirun(NULL), 0);
    assert_int_equal(cmp_names_gpu(NULL), 0);
    char *gline = cmp_gpu_nodes_only(NULL);
    assert_non_null(strstr(gline, "(no reason given)"));
    free(gline);
    assert_int_equal(cmp_names_gpu(""), 0);
    assert_int_equal(cmp_names_gpu(",,gpu"), 1);

    assert_null(cmp_resolve_command(NULL));
    char *out = cmp_resolve_command("");
    assert_string_equal(out, "");
    free(out);

    FAILS(cmp_argv_self(NULL, &argv, err));
    FAILS(cmp_argv_self(&argc, NULL, err));
    assert_int_equal(cmp_argv_self(&argc, &argv, NULL), 0);
    assert_true(argc >= 1);
    cmp_argv_free(argc, argv);
    cmp_argv_free(3, NULL); /* no-op */
}

static void test_alloc(void **state)
{
    (void)state;
    int cpus[4], v = -1, count[4];
    static const int cap[2] = { 2, 2 };
    cmp_alloc_t a;
    cmp_srun_args_t sa;
    cmp_slurm_env_t env = { "n[1-2]", "4(x2)", NULL, NULL, NULL };
    cmp_slurm_env_t none = { NULL, NULL, NULL, NULL, NULL };

    memset(&sa, 0, sizeof sa);
    FAILS(cmp_cpus_per_node(NULL, 2, cpus, err));
    FAILS(cmp_cpus_per_node("", 2, cpus, err));
    FAILS(cmp_cpus_per_node("4", 2, NULL, err));
    FAILS(cmp_cpus_per_node("4(x3)", 2, cpus, err));
    FAILS(cmp_cpus_per_node("4(x", 2, cpus, err));
    FAILS(cmp_cpus_per_node("-4,4", 2, cpus, err));
    FAILS(cmp_cpus_per_node("4,4", -1, cpus, err));
    FAILS(cmp_cpus_per_node("4(x99999999999999)", 2, cpus, err));

    assert_int_equal(cmp_parse_int(NULL, 10, &v), -1);
    assert_int_equal(cmp_parse_int("", 10, &v), -1);
    assert_int_equal(cmp_parse_int("5", 10, NULL), -1);
    assert_int_equal(cmp_parse_int("11", 10, &v), -1);
    assert_int_equal(cmp_parse_int("0", 10, &v), -1);
    assert_int_equal(cmp_parse_int("5x", 10, &v), -1);
    assert_int_equal(cmp_parse_int("99999999999999999999", 1 << 30, &v), -1);
    assert_int_equal(v, -1);
    assert_int_equal(cmp_env_int(NULL, 10), 0);
    assert_int_equal(cmp_env_int("", 10), 0);
    assert_int_equal(cmp_env_int("CM_TEST_LAUNCH_NULL_UNSET", 10), 0);

    cmp_slurm_env_read(NULL); /* no-op */
    FAILS_FREE(cmp_alloc_read(NULL, 1, &a, err), &a);
    FAILS(cmp_alloc_read(&sa, 1, NULL, err));
    FAILS_FREE(cmp_alloc_read_of(NULL, 1, &env, &a, err), &a);
    FAILS_FREE(cmp_alloc_read_of(&sa, 1, NULL, &a, err), &a);
    FAILS(cmp_alloc_read_of(&sa, 1, &env, NULL, err));
    FAILS_FREE(cmp_alloc_read_of(&sa, 0, &env, &a, err), &a);
    FAILS_FREE(cmp_alloc_read_of(&sa, -3, &env, &a, err), &a);
    FAILS_FREE(cmp_alloc_read_of(&sa, 1, &none, &a, err), &a);
    FAILS_FREE(cmp_alloc_read_of(&sa, 8, &env, &a, err), &a); /* no node has 8 */
    assert_int_equal(cmp_alloc_read_of(&sa, 1, &env, &a, NULL), 0);
    assert_int_equal(a.nnodes, 2);
    cmp_alloc_free(&a);
    cmp_alloc_free(NULL); /* no-op */

    FAILS_FREE(cmp_alloc_tasks(NULL, "SLURM_TASKS_PER_NODE", &a, err), &a);
    FAILS_FREE(cmp_alloc_tasks("CM_TEST_UNSET_NODES", NULL, &a, err), &a);
    FAILS_FREE(cmp_alloc_tasks("CM_TEST_UNSET_NODES", "CM_TEST_UNSET_TASKS", &a, err),
               &a);
    FAILS(cmp_alloc_tasks_of("N", "n[1-2]", "T", "2", NULL, err));
    FAILS_FREE(cmp_alloc_tasks_of(NULL, "n[1-2]", "T", "2,2", &a, err), &a);
    FAILS_FREE(cmp_alloc_tasks_of("N", NULL, "T", "2,2", &a, err), &a);
    FAILS_FREE(cmp_alloc_tasks_of("N", "", "T", "2,2", &a, err), &a);
    FAILS_FREE(cmp_alloc_tasks_of("N", "n[2-1]", "T", "2,2", &a, err), &a);
    FAILS_FREE(cmp_alloc_tasks_of("N", "n[1-2]", "T", NULL, &a, err), &a);
    FAILS_FREE(cmp_alloc_tasks_of("N", "n[1-2]", "T", "2,x", &a, err), &a);

    assert_true(cmp_step_ntasks(NULL, 3) >= 1); /* from the environment */
    assert_int_equal(cmp_step_ntasks_of(NULL, 3, NULL), 3);
    assert_int_equal(cmp_step_ntasks_of(&sa, 3, NULL), 3);
    assert_int_equal(cmp_step_ntasks_of(&sa, 3, &none), 3);

    assert_int_equal(cmp_step_layout(NULL, 2, 2, count), -1);
    assert_int_equal(cmp_step_layout(cap, 2, 2, NULL), -1);
    assert_int_equal(cmp_step_layout(cap, 0, 2, count), -1);
    assert_int_equal(cmp_step_layout(cap, 2, -1, count), -1);
    assert_int_equal(cmp_step_layout(cap, 2, 5, count), -1); /* overcommitted */
}

static void test_mpirun(void **state)
{
    (void)state;
    cmp_mpirun_args_t m;
    char *argv0[] = { "mpirun", NULL };
    char *ends[] = { "mpirun", "-np", "4", NULL, "ignored" };
    char *missing[] = { "mpirun", "-np" };
    char *bad_np[] = { "mpirun", "-np", "x" };
    char *garbage[] = { "mpirun", "--=", "-", "--" };
    static const int slots[2] = { 2, 2 };
    int count[2], fd = 5, verbose = 9;
    char *names[] = { "n1", "n2" };
    static const int node[2] = { 0, 1 }, core[2] = { 0, 0 };
    char msg[256], detail[64];
    cmp_mpirun_record_t r;
    char *dir = cm_test_mkdtemp(), *lv = long_value(CMP_PATH_MAX + 40);
    cm_error_t e;
    char path[4096];

    FAILS(cmp_mpirun_args_parse(1, argv0, NULL, err));
    FAILS(cmp_mpirun_args_parse(1, NULL, &m, err));
    assert_int_equal(cmp_mpirun_args_parse(5, ends, &m, NULL), 0);
    assert_int_equal(m.np, 4);
    FAILS(cmp_mpirun_args_parse(2, missing, &m, err));
    FAILS(cmp_mpirun_args_parse(3, bad_np, &m, err));
    assert_int_equal(cmp_mpirun_args_parse(4, garbage, &m, NULL), 0);
    assert_true(m.why[0] != '\0'); /* "--=" is not an option clustermap knows */
    assert_int_equal(cmp_mpirun_layout_param(NULL), 0);
    assert_int_equal(cmp_mpirun_layout_param(""), 0);

    assert_int_equal(cmp_mpirun_fill(NULL, 2, 2, count), -1);
    assert_int_equal(cmp_mpirun_fill(slots, 2, 2, NULL), -1);
    assert_int_equal(cmp_mpirun_fill(slots, -1, 2, count), -1);
    assert_int_equal(cmp_mpirun_fill(slots, 2, 0, count), -1);
    assert_int_equal(cmp_mpirun_fill(slots, 2, 5, count), -1);

    snprintf(path, sizeof path, "%s/rankfile", dir);
    FAILS(cmp_rankfile_write(NULL, names, node, core, 2, 0, err));
    FAILS(cmp_rankfile_write(path, NULL, node, core, 2, 0, err));
    FAILS(cmp_rankfile_write(path, names, NULL, core, 2, 0, err));
    FAILS(cmp_rankfile_write(path, names, node, NULL, 2, 0, err));
    assert_int_equal(cmp_rankfile_write(path, names, node, NULL, 2, 2, NULL), 0);
    FAILS(cmp_rankfile_write("/nonexistent-cm/rankfile", names, node, core, 2, 0, err));

    memset(&r, 0, sizeof r);
    FAILS(cmp_mpirun_control_write(NULL, "time", "", err));
    FAILS(cmp_mpirun_control_write(dir, NULL, "", err));
    FAILS(cmp_mpirun_control_write("/nonexistent-cm", "time", NULL, err));
    FAILS(cmp_mpirun_record_write(NULL, &r, 1, "", err));
    FAILS(cmp_mpirun_record_write(dir, NULL, 1, "", err));
    /* a stage too long for its files' paths is refused, never cut */
    FAILS(cmp_mpirun_control_write(lv, "time", "", err));
    FAILS(cmp_mpirun_record_write(lv, &r, 1, "", err));
    assert_int_equal(cmp_mpirun_record_write(lv, &r, 1, "", &e), -1);
    assert_non_null(strstr(e.msg, "longer than"));
    assert_int_equal(cmp_mpirun_record_collect(lv, 0, msg, sizeof msg, &verbose), -1);
    assert_non_null(strstr(msg, "longer than"));
    assert_int_equal(cmp_mpirun_record_collect(NULL, 0, msg, sizeof msg, &verbose), -1);
    assert_int_equal(verbose, 0);
    assert_int_equal(cmp_mpirun_record_collect(NULL, 0, NULL, 0, NULL), -1);
    /* nothing recorded there */
    assert_int_equal(cmp_mpirun_record_collect(dir, 0, msg, sizeof msg, &verbose), 0);
    /* a garbage record */
    snprintf(path, sizeof path, "%s/record", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("store=relative\nprofile=\ngarbage\n", f);
    fclose(f);
    assert_int_equal(cmp_mpirun_record_collect(dir, 0, msg, sizeof msg, &verbose), -1);
    assert_non_null(strstr(msg, "not recorded"));
    free(lv);

    cmp_empty_dir(-1); /* no-op */
    assert_int_equal(cmp_empty_private(NULL), 0);
    assert_int_equal(cmp_empty_private("/nonexistent-cm"), 0);
    errno = 0;
    assert_int_equal(cmp_private_file(AT_FDCWD, NULL), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(cmp_private_file(-1, "x"), -1);
    assert_int_equal(cmp_part_find(-1, 0, &fd, detail, sizeof detail), CM_PART_MISSING);
    assert_int_equal(fd, -1);
    assert_true(detail[0] != '\0');
    assert_int_equal(cmp_part_find(-1, -1, NULL, NULL, 0), CM_PART_MISSING);
    cmp_trace_put(NULL, NULL, -1, 0); /* no trace there: nothing done */
    cmp_trace_put(NULL, "1.0", AT_FDCWD, -1);
    cm_error_t werr;
    assert_int_equal(cmp_dirwalk_remove(-1, "x", 10, NULL, &werr), -1);
    assert_int_equal(cmp_dirwalk_remove(AT_FDCWD, NULL, 10, NULL, &werr), -1);
    assert_non_null(strstr(werr.msg, "expected a directory's name"));
    assert_int_equal(cmp_dirwalk_usage(-1, 10, NULL, &werr), -1);
    assert_null(cmp_hostfile_template(NULL, "1", 1, "h"));
    assert_int_equal(cmp_hostfile_sweep(-1, 0, "1", NULL), 0);

    cm_run_t run;
    int traffic = 7;
    assert_int_equal(cmp_run_parse(NULL, "1.0", &run, &traffic), 0);
    assert_int_equal(traffic, 1);
    assert_int_equal(cmp_run_parse("placed 1 cluster 1 2", NULL, &run, &traffic), 0);
    assert_int_equal(cmp_run_parse("placed 1 cluster 1 2", "1.0", NULL, &traffic), 0);
    assert_int_equal(cmp_run_parse("placed 1 cluster 1 2", "1.0", &run, NULL), 1);
    assert_int_equal(cmp_run_parse("", "1.0", &run, &traffic), 0);
    assert_int_equal(cmp_run_parse("placed 7 x 1 2", "1.0", &run, &traffic), 0);
    assert_int_equal(cmp_run_parse("other 0 x 1 2", "1.0", &run, &traffic), 0);
    assert_int_equal(traffic, 0);

    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    assert_int_equal(system(path), 0);
    free(dir);
}

static void test_layout_text(void **state)
{
    (void)state;
    const char *names[] = { "n1", "n2" };
    const char *blank[] = { "n 1", "" };
    const char *holes[] = { "n1", NULL };
    static const int node[2] = { 0, 1 }, slot[2] = { 3, 0 }, bad_slot[2] = { -1, 0 };
    int out[2];
    size_t len = 0;
    char *t;

    FAILS_NULL(cmp_hostfile_format(NULL, node, 2, &len, err));
    FAILS_NULL(cmp_hostfile_format(names, NULL, 2, &len, err));
    FAILS_NULL(cmp_hostfile_format(blank, node, 2, &len, err));
    FAILS_NULL(cmp_hostfile_format(holes, node, 2, &len, err));
    t = cmp_hostfile_format(names, node, 2, NULL, NULL);
    assert_string_equal(t, "n1\nn2\n");
    free(t);
    t = cmp_hostfile_format(names, node, 0, &len, NULL);
    assert_string_equal(t, "");
    free(t);

    FAILS(cmp_hostfile_parse(NULL, 6, names, 2, 2, out, err));
    FAILS(cmp_hostfile_parse("n1\nn2\n", 6, NULL, 2, 2, out, err));
    FAILS(cmp_hostfile_parse("n1\nn2\n", 6, holes, 2, 2, out, err));
    FAILS(cmp_hostfile_parse("n1\nn2\n", 6, names, 2, 2, NULL, err));
    FAILS(cmp_hostfile_parse("n1\nn3\n", 6, names, 2, 2, out, err));
    FAILS(cmp_hostfile_parse("n1\n", 3, names, 2, 2, out, err));
    FAILS(cmp_hostfile_parse("n1\nn2\nn1\n", 9, names, 2, 2, out, err));
    FAILS(cmp_hostfile_parse("\x01\xff", 2, names, 2, 2, out, err));
    FAILS(cmp_hostfile_parse(NULL, 0, names, 2, 2, out, err));
    assert_int_equal(cmp_hostfile_parse(NULL, 0, names, 2, 0, out, NULL), 0);

    FAILS_NULL(cmp_core_list_format(NULL, 2, err));
    FAILS_NULL(cmp_core_list_format(bad_slot, 2, err));
    t = cmp_core_list_format(slot, 2, NULL);
    assert_string_equal(t, "3,0");
    free(t);
    t = cmp_core_list_format(NULL, 0, NULL);
    assert_string_equal(t, "");
    free(t);

    assert_int_equal(cmp_core_list_entry(NULL, 0), -1);
    char item[8] = "x";
    assert_int_equal(cmp_gpu_info_item(NULL, 0, item, sizeof item), -1);
    assert_string_equal(item, "");
    assert_int_equal(cmp_gpu_info_item("a:0 b:1", 0, NULL, 8), -1);
    assert_int_equal(cmp_gpu_info_item("a:0 b:1", -1, item, sizeof item), -1);
    assert_int_equal(cmp_gpu_info_item("a:0 b:1", 2, item, sizeof item), -1);
    assert_int_equal(cmp_gpu_info_item("a:0 b:1", 1, item, 3), -1);
    assert_int_equal(cmp_gpu_info_item("a:0 b:1", 1, item, sizeof item), 0);
    assert_string_equal(item, "b:1");
    const char *nic = NULL, *cpus = NULL;
    int verbs = -1;
    char split[] = "verbs/mlx5_0:0-7", bare[] = "cxi2:8-15", none[] = "mlx5_0";
    assert_int_equal(cmp_gpu_info_split(NULL, &nic, &verbs, &cpus), -1);
    assert_int_equal(cmp_gpu_info_split(split, NULL, &verbs, &cpus), -1);
    assert_int_equal(cmp_gpu_info_split(none, &nic, &verbs, &cpus), -1);
    assert_int_equal(cmp_gpu_info_split(split, &nic, &verbs, &cpus), 0);
    assert_string_equal(nic, "mlx5_0");
    assert_string_equal(cpus, "0-7");
    assert_int_equal(verbs, 1);
    assert_int_equal(cmp_gpu_info_split(bare, &nic, &verbs, &cpus), 0);
    assert_string_equal(nic, "cxi2");
    assert_string_equal(cpus, "8-15");
    assert_int_equal(verbs, 0);
    assert_int_equal(cmp_core_list_entry("", 0), -1);
    assert_int_equal(cmp_core_list_entry("3,0", 2), -1);
    assert_int_equal(cmp_core_list_entry("3,x", 1), -1);
    assert_int_equal(cmp_core_list_entry("-1", 0), -1);
    assert_int_equal(cmp_core_list_entry("99999999999999999999", 0), -1);
    assert_int_equal(cmp_core_list_entry("3,0", 1), 0);
}

static void test_step(void **state)
{
    (void)state;
    cmp_config_t c;
    cmp_request_t r;
    cmp_step_input_t in;
    cmp_step_decision_t d;

    cmp_config_init(&c);
    memset(&r, 0, sizeof r);
    memset(&in, 0, sizeof in);
    assert_int_equal(cmp_overlay_bits(NULL, &r), 0);
    assert_int_equal(cmp_overlay_bits(&c, NULL), 0);
    assert_int_equal(cmp_mpirun_overlay_bits_of(NULL), 0);
    assert_int_equal(cmp_mpirun_overlay_bits_of(""), 0);
    assert_int_equal(cmp_mpirun_overlay_bits_of("garbage 1 lib"), 0);

    cmp_step_decide(&c, &in, NULL, NULL); /* no-op */
    cmp_step_decide(NULL, &in, NULL, &d);
    assert_int_equal(d.next, CMP_STEP_DONE);
    assert_int_equal(d.fallback, 1);
    assert_non_null(d.reason);
    cmp_step_decision_free(&d);
    cmp_step_decide(&c, NULL, NULL, &d);
    assert_int_equal(d.next, CMP_STEP_DONE);
    cmp_step_decision_free(&d);
    cmp_step_decision_free(NULL); /* no-op */
    /* no --mapping anywhere, default off: nothing to do, whatever else */
    cmp_step_decide(&c, &in, NULL, &d);
    assert_int_equal(d.next, CMP_STEP_DONE);
    cmp_step_decision_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request),   cmocka_unit_test(test_config),
        cmocka_unit_test(test_srun_args), cmocka_unit_test(test_alloc),
        cmocka_unit_test(test_mpirun),    cmocka_unit_test(test_layout_text),
        cmocka_unit_test(test_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
