/* test_plan_report.c -- the figures cm_plan() reports with o->figures (the
 * plan's and Slurm's default layout's, src/core/plan.c) and their text,
 * cm_plan_report_format() (src/core/plan_report.c).
 *
 * The figures must be what the public cost functions say of the returned
 * mapping and of cm_map_block()'s, to the bit: the placement record and
 * the J the plugin hands back are read against `clustermap eval`.  The
 * text must be the placement record's key=value lines the cluster tests
 * match (t0513-guard.t) and the lines `plan --verbose` prints. */
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "testdata.h"
#include "testutil.h"

/* Plan @p m on @p t with @p algo and @p weight, figures asked for. */
static void plan_figures(const cm_matrix_t *m, const cm_tree_t *t, const char *algo,
                         cm_weight_t weight, int *map, cm_plan_report_t *rep)
{
    cm_plan_options_t o;
    cm_error_t err = { "" };
    cm_plan_options_init(&o);
    o.algorithm = algo;
    o.weight = weight;
    o.time_budget = 0.2;
    o.figures = 1;
    if (cm_plan(m, t, &o, map, rep, &err) != 0)
        fail_msg("cm_plan(%s): %s", algo, err.msg);
}

/* @p f equals what cm_cost(), cm_cost_max() and cm_cost_report() say of
 * @p map on @p tw (a tree given the plan's weight), exactly. */
static void check_figures(const cm_plan_figures_t *f, const cm_matrix_t *m,
                          const cm_tree_t *tw, const int *map, const char *what)
{
    int nl = cm_tree_nlevels(tw);
    double lb[CM_PLAN_MAX_LEVELS];
    cm_cost_report_t r = { 0, nl, lb, NULL, 0, -1 };
    cm_error_t err = { "" };
    assert_true(nl <= CM_PLAN_MAX_LEVELS);
    assert_int_equal(cm_cost_report(m, tw, map, &r, &err), 0);
    assert_int_equal(f->nlevels, nl);
    if (f->J != cm_cost(m, tw, map) || f->T_max != cm_cost_max(m, tw, map) ||
        f->max_node_out != r.max_node_out)
        fail_msg("%s: J %.17g T_max %.17g max_node_out %.17g, the cost functions "
                 "say %.17g %.17g %.17g",
                 what, f->J, f->T_max, f->max_node_out, cm_cost(m, tw, map),
                 cm_cost_max(m, tw, map), r.max_node_out);
    for (int l = 0; l < nl; l++)
        if (f->level_bytes[l] != lb[l])
            fail_msg("%s: level %d bytes %.17g, cm_cost_report says %.17g", what, l,
                     f->level_bytes[l], lb[l]);
}

/* Eight ranks in a ring with message counts (so the weights differ), and a
 * far pair: rank 0 and rank 5 exchange the most. */
static cm_matrix_t *ring8(void)
{
    static const cm_test_entry_t e[] = {
        { 0, 1, 100, 4 },  { 1, 2, 100, 4 },   { 2, 3, 100, 4 },  { 3, 4, 100, 4 },
        { 4, 5, 100, 4 },  { 5, 6, 100, 4 },   { 6, 7, 100, 4 },  { 7, 0, 100, 4 },
        { 0, 5, 5000, 1 }, { 5, 0, 7000, 50 }, { 2, 6, 30, 200 }, { 6, 2, 10, 900 },
    };
    return cm_test_matrix_of(8, e, (int)(sizeof e / sizeof e[0]), 1);
}

/* The figures of every method and weight, on machines the ranks fill and
 * on larger ones (the planner then works on the part they can use: its
 * own J is summed there, the report's must still be the public one). */
static void test_figures_are_the_cost_functions(void **state)
{
    (void)state;
    static const struct {
        const char *matrix, *hier, *dist;
    } cases[] = {
        { NULL, "2:2:2", "1:10:100" }, /* ring8, full */
        { NULL, "2:2:4", "1:10:100" }, /* ring8, half */
        { "matrices/cg.S.16.mtx", "2:2:4", "1:2:10" },
        { "matrices/lu.S.16.mtx", "4:2:4:2", "1:2:10:20" },
        { "matrices/ft.S.64.mtx", "2:4:16", "1:5:50" },
    };
    static const char *algos[] = { "auto", "block", "scotch", "cluster", "treecut" };
    static const cm_weight_t weights[] = { CM_WEIGHT_MIXED, CM_WEIGHT_BYTES,
                                           CM_WEIGHT_MSGS };
    int checked = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cm_matrix_t *m = cases[c].matrix ? cm_test_matrix(cases[c].matrix) : ring8();
        int n = cm_matrix_n(m);
        int *map = malloc(sizeof(int) * (size_t)n),
            *block = malloc(sizeof(int) * (size_t)n);
        assert_non_null(map);
        assert_non_null(block);
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++)
            for (size_t w = 0; w < sizeof weights / sizeof weights[0]; w++) {
                cm_tree_t *t = cm_test_hier(cases[c].hier, cases[c].dist);
                cm_tree_t *tw = cm_test_hier(cases[c].hier, cases[c].dist);
                cm_plan_report_t rep;
                cm_error_t err = { "" };
                char what[160];
                plan_figures(m, t, algos[a], weights[w], map, &rep);
                snprintf(what, sizeof what, "%s on %s, %s, weight %d",
                         cases[c].matrix ? cases[c].matrix : "ring8", cases[c].hier,
                         algos[a], (int)weights[w]);
                assert_true(rep.has_figures);
                assert_string_equal(rep.algorithm, algos[a]);
                assert_int_equal(cm_tree_apply_weight(tw, m, weights[w], &err), 0);
                assert_int_equal(cm_map_block(tw, n, block, &err), 0);
                check_figures(&rep.plan, m, tw, map, what);
                check_figures(&rep.slurm_default, m, tw, block, what);
                /* the plan's J as the planner reports it, within rounding */
                assert_true(fabs(rep.plan.J - rep.J) <= 1e-9 * fabs(rep.J) + 1e-12);
                cm_tree_free(t);
                cm_tree_free(tw);
                checked++;
            }
        free(map);
        free(block);
        cm_matrix_free(m);
    }
    assert_int_equal(checked, 75);
}

/* Without o->figures nothing is computed and the record cannot be
 * written; the verbose lines can. */
static void test_no_figures_by_default(void **state)
{
    (void)state;
    cm_matrix_t *m = ring8();
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    cm_plan_options_t o;
    cm_plan_report_t rep;
    cm_error_t err = { "" };
    int map[8];
    cm_plan_options_init(&o);
    assert_int_equal(o.figures, 0);
    assert_int_equal(cm_plan(m, t, &o, map, &rep, &err), 0);
    assert_false(rep.has_figures);
    assert_null(cm_plan_report_format(&rep, t, CM_PLAN_REPORT_EXPLAIN, &err));
    assert_non_null(strstr(err.msg, "figures"));
    char *text = cm_plan_report_format(&rep, NULL, CM_PLAN_REPORT_VERBOSE, &err);
    assert_non_null(text);
    assert_true(strncmp(text, "winner=", 7) == 0);
    free(text);
    cm_tree_free(t);
    cm_matrix_free(m);
}

/* A report with known numbers: every kind of line, both styles. */
static void hand_report(cm_plan_report_t *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->algorithm, sizeof r->algorithm, "auto");
    snprintf(r->winner, sizeof r->winner, "scotch-ms+links");
    r->has_figures = 1;
    cm_plan_figures_t *p = &r->plan, *d = &r->slurm_default;
    p->nlevels = d->nlevels = 4;
    p->J = 1234.5;
    d->J = 2469;
    p->T_max = 10;
    d->T_max = 20.25;
    static const double pb[4] = { 1, 2.5e9, 123456789, 0 };
    static const double db[4] = { 2, 3, 4, 5 };
    memcpy(p->level_bytes, pb, sizeof pb);
    memcpy(d->level_bytes, db, sizeof db);
    p->max_node_out = 3e9;
    d->max_node_out = 12345678912.0;
    r->ncandidates = 5;
    cm_plan_candidate_t *c = r->candidates;
    snprintf(c[0].name, sizeof c[0].name, "block");
    c[0].ok = 1;
    c[0].J = 2469;
    c[0].T_max = 20.25;
    c[0].L_max = NAN;
    c[0].seconds = 0.0001;
    snprintf(c[1].name, sizeof c[1].name, "scotch-ms");
    c[1].ok = 1;
    c[1].J = 1300.25;
    c[1].T_max = 25;
    c[1].L_max = 3;
    c[1].seconds = 0.0123;
    c[1].over_tmax = 1;
    snprintf(c[2].name, sizeof c[2].name, "cluster");
    snprintf(c[2].why, sizeof c[2].why, "skipped: the multisection was near its best");
    snprintf(c[3].name, sizeof c[3].name, "treecut");
    snprintf(c[4].name, sizeof c[4].name, "links");
    c[4].ok = 1;
    c[4].J = 1234.5;
    c[4].T_max = 10;
    c[4].L_max = 1.0 / 3;
    c[4].seconds = 2;
}

/* The record's lines, as `clustermap explain` shows them and the cluster
 * tests match them. */
static void test_explain_text(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    char names[128];
    assert_string_equal(cm_test_level_names(t, names, sizeof names),
                        "switch node socket core");
    cm_plan_report_t r;
    cm_error_t err = { "" };
    hand_report(&r);
    char *text = cm_plan_report_format(&r, t, CM_PLAN_REPORT_EXPLAIN, &err);
    assert_non_null(text);
    assert_string_equal(
        text,
        "algorithm=auto\n"
        "winner=scotch-ms+links\n"
        "J=1234.5\n"
        "J_default=2469\n"
        "J_ratio=0.5000\n"
        "T_max=10\n"
        "T_max_default=20.25\n"
        "level.switch.bytes=1 default=2\n"
        "level.node.bytes=2.5e+09 default=3\n"
        "level.socket.bytes=1.23457e+08 default=4\n"
        "level.core.bytes=0 default=5\n"
        "max_node_out=3e+09 default=1.23457e+10\n"
        "candidate=block J=2469 T_max=20.25 time=0.0001 s\n"
        "candidate=scotch-ms J=1300.25 T_max=25 time=0.0123 s (T_max above "
        "Slurm's default: not chosen)\n"
        "candidate=cluster skipped: the multisection was near its best\n"
        "candidate=treecut skipped (budget or not applicable)\n"
        "candidate=links J=1234.5 T_max=10 time=2.0000 s\n");
    free(text);

    /* J_default 0 (no traffic): the ratio is 1 */
    r.slurm_default.J = 0;
    r.plan.J = 0;
    text = cm_plan_report_format(&r, t, CM_PLAN_REPORT_EXPLAIN, &err);
    assert_non_null(text);
    assert_non_null(strstr(text, "\nJ=0\nJ_default=0\nJ_ratio=1.0000\n"));
    free(text);
    cm_tree_free(t);
}

/* The portfolio lines of `plan --verbose`: exact numbers, names in a
 * column. */
static void test_verbose_text(void **state)
{
    (void)state;
    cm_plan_report_t r;
    cm_error_t err = { "" };
    hand_report(&r);
    r.has_figures = 0; /* not needed */
    char *text = cm_plan_report_format(&r, NULL, CM_PLAN_REPORT_VERBOSE, &err);
    assert_non_null(text);
    assert_string_equal(
        text,
        "winner=scotch-ms+links\n"
        "candidate block            J=2469 T_max=20.25 L_max=nan time=0.000100 s\n"
        "candidate scotch-ms        J=1300.25 T_max=25 L_max=3 time=0.012300 s "
        "(T_max above block's: not chosen)\n"
        "candidate cluster          skipped: the multisection was near its best\n"
        "candidate treecut          skipped (budget or not applicable)\n"
        "candidate links            J=1234.5 T_max=10 L_max=0.33333333333333331 "
        "time=2.000000 s\n");
    free(text);
}

/* A record of a real plan matches what the cluster tests look for
 * (t0513-guard.t), line by line. */
static void test_explain_matches_cluster_tests(void **state)
{
    (void)state;
    static const char *const want[] = {
        "^algorithm=auto$",
        "^winner=[a-z+-]+$",
        "^J=[0-9.e+]+$",
        "^J_default=[0-9.e+]+$",
        "^J_ratio=[01][.][0-9]{4}$",
        "^T_max=[0-9.e+]+$",
        "^T_max_default=[0-9.e+]+$",
        "^level[.]node[.]bytes=[0-9.e+]+ default=[0-9.e+]+$",
        "^max_node_out=[0-9.e+]+ default=[0-9.e+]+$",
        "^candidate=block J=",
    };
    cm_matrix_t *m = cm_test_matrix("matrices/lu.S.16.mtx");
    cm_tree_t *t = cm_test_hier("4:2:4:2", "1:2:10:20");
    cm_plan_report_t rep;
    cm_error_t err = { "" };
    int map[16];
    plan_figures(m, t, "auto", CM_WEIGHT_MIXED, map, &rep);
    char *text = cm_plan_report_format(&rep, t, CM_PLAN_REPORT_EXPLAIN, &err);
    assert_non_null(text);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        regex_t re;
        assert_int_equal(regcomp(&re, want[k], REG_EXTENDED | REG_NEWLINE | REG_NOSUB),
                         0);
        if (regexec(&re, text, 0, NULL, 0) != 0)
            fail_msg("no line matches %s in:\n%s", want[k], text);
        regfree(&re);
    }
    /* one level line per level, one candidate line per candidate */
    int levels = 0, cands = 0;
    for (const char *s = text; (s = strstr(s, "\nlevel.")); s++)
        levels++;
    for (const char *s = text; (s = strstr(s, "\ncandidate=")); s++)
        cands++;
    assert_int_equal(levels, cm_tree_nlevels(t));
    assert_int_equal(cands, rep.ncandidates);
    free(text);
    cm_tree_free(t);
    cm_matrix_free(m);
}

static void test_format_bad_input(void **state)
{
    (void)state;
    cm_plan_report_t r;
    cm_error_t err = { "" };
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    cm_tree_t *t3 = cm_test_hier("2:2", "1:10");
    hand_report(&r);
    assert_null(cm_plan_report_format(NULL, t, CM_PLAN_REPORT_EXPLAIN, &err));
    assert_non_null(strstr(err.msg, "cm_plan_report_format: expected a report"));
    assert_null(cm_plan_report_format(&r, t, (cm_plan_report_style_t)7, &err));
    assert_non_null(strstr(err.msg, "unknown style 7"));
    assert_null(cm_plan_report_format(&r, NULL, CM_PLAN_REPORT_EXPLAIN, &err));
    assert_non_null(strstr(err.msg, "tree"));
    assert_null(cm_plan_report_format(&r, t3, CM_PLAN_REPORT_EXPLAIN, &err));
    assert_non_null(strstr(err.msg, "the figures have 4 and 4 levels, the tree 3"));
    r.ncandidates = CM_PLAN_MAX_CANDIDATES + 1;
    assert_null(cm_plan_report_format(&r, t, CM_PLAN_REPORT_VERBOSE, &err));
    assert_non_null(strstr(err.msg, "17 candidates"));
    cm_tree_free(t);
    cm_tree_free(t3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures_are_the_cost_functions),
        cmocka_unit_test(test_no_figures_by_default),
        cmocka_unit_test(test_explain_text),
        cmocka_unit_test(test_verbose_text),
        cmocka_unit_test(test_explain_matches_cluster_tests),
        cmocka_unit_test(test_format_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
