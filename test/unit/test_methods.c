/* test_methods.c -- the method table (src/core/plan_methods.c): its public
 * listing (cm_method_count, cm_method_info, cm_method_by_name,
 * cm_method_names), bad indices and names first; the rows the planner
 * reads (stages, budget shares); the command's listing of it
 * (src/cli/algorithms.c: --help, the names, the baselines it runs
 * directly). */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "engine_internal.h"
#include "testutil.h"
#include "../../src/cli/cli.h"

static void test_out_of_range(void **state)
{
    (void)state;
    int n = cm_method_count();
    assert_true(n >= 1);
    assert_null(cm_method_info(-1));
    assert_null(cm_method_info(n));
    assert_null(cm_method_info(INT_MAX));
    assert_null(cm_method_info(INT_MIN));
    assert_int_equal(cm_method_by_name(NULL), -1);
    assert_int_equal(cm_method_by_name(""), -1);
    assert_int_equal(cm_method_by_name("AUTO"), -1);
    assert_int_equal(cm_method_by_name("auto "), -1);
    assert_int_equal(cm_method_by_name("scotch-"), -1);
    assert_int_equal(cm_method_by_name("magic"), -1);
    assert_null(cm_method_row((cm_construct_t)-1));
    assert_null(cm_method_row(CM_C_COUNT));
    assert_null(cm_cli_algorithm_find(NULL));
    assert_null(cm_cli_algorithm_find("magic"));
    assert_null(cm_cli_algorithm_direct(NULL));
    assert_null(cm_cli_algorithm_direct("magic"));
}

/* Every row: named, summarised on one line, found again by its name, and
 * by no other row's. */
static void test_rows(void **state)
{
    (void)state;
    int n = cm_method_count(), portfolios = 0;
    for (int i = 0; i < n; i++) {
        const cm_method_info_t *m = cm_method_info(i);
        assert_non_null(m);
        assert_non_null(m->name);
        assert_non_null(m->summary);
        assert_true(strlen(m->name) > 0 && strlen(m->name) < 32);
        assert_true(strlen(m->summary) > 0);
        assert_null(strchr(m->summary, '\n'));
        assert_int_equal(cm_method_by_name(m->name), i);
        assert_ptr_equal(cm_cli_algorithm_find(m->name), m);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(cm_method_info(j)->name, m->name);
        /* the public part of the planner's row */
        assert_ptr_equal(&cm_method_row((cm_construct_t)i)->info, m);
        if (m->is_portfolio) {
            portfolios++;
            assert_string_equal(m->name, "auto");
            assert_false(m->in_auto);
            assert_null(cm_method_row((cm_construct_t)i)->run);
        } else {
            assert_non_null(cm_method_row((cm_construct_t)i)->run);
        }
    }
    assert_int_equal(portfolios, 1);
    /* the names other code and the documentation use */
    static const char *const known[] = { "auto",   "block",     "cyclic",  "random",
                                         "scotch", "scotch-ms", "cluster", "treecut" };
    assert_int_equal(n, (int)(sizeof known / sizeof known[0]));
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        assert_true(cm_method_by_name(known[k]) >= 0);
}

/* The planner's rows: each at its own index, the variants unnamed,
 * "auto"'s stages numbered 1, 2, ... without gaps, a refined or
 * in-auto method having a stage. */
static void test_planner_rows(void **state)
{
    (void)state;
    int seen[CM_C_COUNT + 1] = { 0 }, nstages = 0;
    for (int c = 0; c < CM_C_COUNT; c++) {
        const cm_method_row_t *r = cm_method_row((cm_construct_t)c);
        assert_non_null(r);
        assert_int_equal((int)r->c, c);
        if (c >= cm_method_count())
            assert_null(r->info.name);
        if (r->stage_order) {
            assert_non_null(r->stage);
            assert_true(r->stage_order >= 1 && r->stage_order <= CM_C_COUNT);
            assert_int_equal(seen[r->stage_order]++, 0);
            nstages++;
        } else {
            assert_null(r->stage);
        }
        if (r->info.name && r->info.in_auto)
            assert_true(r->stage_order > 0);
    }
    for (int k = 1; k <= nstages; k++)
        assert_int_equal(seen[k], 1);
    /* the order "auto" runs them in: the mappings depend on it */
    static const char *const order[] = {
        "initial+refine", "scotch-ms",    "treecut",
        "cluster",        "block+refine", "scotch+refine"
    };
    assert_int_equal(nstages, 6);
    for (int c = 0; c < CM_C_COUNT; c++) {
        const cm_method_row_t *r = cm_method_row((cm_construct_t)c);
        if (r->stage_order)
            assert_string_equal(r->stage, order[r->stage_order - 1]);
    }
}

/* The clustering's budget rule, alone and in "auto": half of the units
 * left alone (what the integer halving gave), three quarters in "auto" but
 * never below its estimate; the other constructions spend what they
 * count. */
static void test_budget_shares(void **state)
{
    (void)state;
    const cm_method_row_t *cl = cm_method_row(CM_C_CLUSTER);
    assert_true(cl->share_alone == 0.5);
    assert_true(cl->share_auto == 0.75);
    assert_true(cl->charged_by_units);
    static const uint64_t left[] = {
        0, 1, 2, 3, 1000001, 80000000, 4000000000001ULL, (1ULL << 53) - 1
    };
    for (size_t k = 0; k < sizeof left / sizeof left[0]; k++) {
        double u = cm_method_share_alone(cl, left[k]);
        assert_true((uint64_t)u == left[k] / 2);
    }
    assert_true(cm_method_share_auto(cl, 1000.0, 100.0) == 750.0);
    assert_true(cm_method_share_auto(cl, 100.0, 100.0) == 100.0);
    assert_true(cm_method_share_auto(cl, 50.0, 100.0) == 100.0);
    for (int c = 0; c < CM_C_COUNT; c++) {
        const cm_method_row_t *r = cm_method_row((cm_construct_t)c);
        if (c == CM_C_CLUSTER)
            continue;
        assert_true(r->share_alone == 0 && r->share_auto == 0);
        assert_false(r->charged_by_units);
    }
}

static void test_names(void **state)
{
    (void)state;
    size_t want = 0;
    int n = cm_method_count();
    for (int i = 0; i < n; i++)
        want += strlen(cm_method_info(i)->name) + (i == 0 ? 0 : i == n - 1 ? 4 : 2);
    assert_int_equal(cm_method_names(NULL, 0, ", ", " or "), want);
    char *full = malloc(want + 1);
    assert_non_null(full);
    assert_int_equal(cm_method_names(full, want + 1, ", ", " or "), want);
    assert_int_equal(strlen(full), want);
    assert_true(strncmp(full, cm_method_info(0)->name, strlen(cm_method_info(0)->name)) ==
                0);
    char last[64];
    snprintf(last, sizeof last, " or %s", cm_method_info(n - 1)->name);
    assert_string_equal(full + want - strlen(last), last);
    /* cut short: NUL-terminated, the length still the whole list's */
    for (size_t len = 1; len <= want; len++) {
        char *buf = malloc(len);
        assert_non_null(buf);
        assert_int_equal(cm_method_names(buf, len, ", ", " or "), want);
        assert_int_equal(strlen(buf), len - 1);
        assert_memory_equal(buf, full, len - 1);
        free(buf);
    }
    /* NULL separators: ", " */
    char a[512], b[512];
    cm_method_names(a, sizeof a, NULL, NULL);
    cm_method_names(b, sizeof b, ", ", ", ");
    assert_string_equal(a, b);
    free(full);
}

/* cm_plan() accepts every row's name and no other; its message for an
 * unknown one lists them all. */
static void test_plan_accepts_rows(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_builder_t *bld = cm_builder_new(8, &err);
    assert_non_null(bld);
    for (int i = 0; i < 8; i++)
        assert_int_equal(cm_builder_add(bld, i, (i + 1) % 8, 100, 1, &err), 0);
    cm_matrix_t *m = cm_builder_finish(bld, &err);
    assert_non_null(m);
    cm_builder_free(bld);
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    int map[8];
    cm_plan_options_t o;
    cm_plan_options_init(&o);
    for (int i = 0; i < cm_method_count(); i++) {
        o.algorithm = cm_method_info(i)->name;
        cm_plan_report_t rep;
        if (cm_plan(m, t, &o, map, &rep, &err) != 0)
            fail_msg("%s: %s", o.algorithm, err.msg);
        assert_int_equal(cm_mapping_check(t, map, 8, &err), 0);
    }
    o.algorithm = "magic";
    assert_int_equal(cm_plan(m, t, &o, map, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "unknown algorithm \"magic\""));
    for (int i = 0; i < cm_method_count(); i++)
        assert_non_null(strstr(err.msg, cm_method_info(i)->name));
    cm_tree_free(t);
    cm_matrix_free(m);
}

/* The command's --help: "    name  summary" for every row, in order, and
 * nothing else; its "a|b|..." list; the baselines it runs directly. */
static void test_cli_listing(void **state)
{
    (void)state;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    cm_cli_algorithm_help(f);
    fclose(f);
    int n = cm_method_count(), k = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        assert_true(k < n);
        const cm_method_info_t *m = cm_method_info(k++);
        char name[64], rest[256];
        assert_int_equal(sscanf(line, " %63s %255[^\n]", name, rest), 2);
        assert_string_equal(name, m->name);
        assert_string_equal(rest, m->summary);
    }
    assert_int_equal(k, n);
    free(text);

    char names[512], want[512];
    cm_method_names(want, sizeof want, "|", "|");
    assert_string_equal(cm_cli_algorithm_names(names, sizeof names), want);
    assert_true(strlen(want) > 0 && !strstr(want, "||"));

    /* eval and render run the baselines directly (Scotch onto the whole
     * machine); the searches and "auto" go through cm_plan() */
    static const char *const direct[] = { "block", "cyclic", "random", "scotch" };
    for (size_t j = 0; j < sizeof direct / sizeof direct[0]; j++) {
        assert_true(cm_method_by_name(direct[j]) >= 0);
        assert_non_null(cm_cli_algorithm_direct(direct[j]));
    }
    for (int i = 0; i < n; i++) {
        const cm_method_info_t *m = cm_method_info(i);
        if (m->refined || m->is_portfolio)
            assert_null(cm_cli_algorithm_direct(m->name));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_of_range), cmocka_unit_test(test_rows),
        cmocka_unit_test(test_planner_rows), cmocka_unit_test(test_budget_shares),
        cmocka_unit_test(test_names),        cmocka_unit_test(test_plan_accepts_rows),
        cmocka_unit_test(test_cli_listing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
