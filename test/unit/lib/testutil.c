/* testutil.c -- test inputs that must exist (see testutil.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "testdata.h"
#include "testutil.h"

cm_tree_t *cm_test_hier(const char *hierarchy, const char *distances)
{
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_from_hierarchy(hierarchy, distances, &err);
    if (!t)
        fail_msg("cm_tree_from_hierarchy(%s, %s): %s", hierarchy, distances, err.msg);
    return t;
}

cm_matrix_t *cm_test_matrix(const char *rel)
{
    cm_error_t err = { "" };
    cm_matrix_t *m = cm_matrix_read(cm_test_data_path(rel), CM_FORMAT_AUTO, &err);
    if (!m)
        fail_msg("%s: %s", rel, err.msg);
    return m;
}

cm_matrix_t *cm_test_finish(cm_builder_t *b)
{
    cm_error_t err = { "" };
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    if (!m)
        fail_msg("cm_builder_finish: %s", err.msg);
    return m;
}

cm_matrix_t *cm_test_matrix_of(int n, const cm_test_entry_t *e, int ne, int has_msgs)
{
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(n, &err);
    if (!b)
        fail_msg("cm_builder_new: %s", err.msg);
    for (int k = 0; k < ne; k++)
        if (cm_builder_add(b, e[k].src, e[k].dst, e[k].bytes, e[k].msgs, &err) != 0)
            fail_msg("cm_builder_add: %s", err.msg);
    cm_builder_set_has_msgs(b, has_msgs);
    return cm_test_finish(b);
}

void cm_test_check_row(const cm_matrix_t *m, int i, int len, const int *cols,
                       const double *bytes, const double *msgs)
{
    const int *c;
    const double *b, *g;
    int n;
    cm_matrix_row(m, i, &c, &b, &g, &n);
    assert_int_equal(n, len);
    for (int k = 0; k < len; k++) {
        assert_int_equal(c[k], cols[k]);
        assert_true(b[k] == bytes[k]);
        if (msgs)
            assert_true(g[k] == msgs[k]);
    }
}

void cm_test_problem(cm_problem_t *p, const cm_matrix_t *m, const cm_tree_t *t,
                     cm_weight_t weight)
{
    cm_error_t err = { "" };
    cm_costs_t c;
    cm_costs_from_tree(t, m, weight, &c);
    if (cm_problem_init(p, m, t, &c, &err) != 0)
        fail_msg("cm_problem_init: %s", err.msg);
}

const char *cm_test_level_names(const cm_tree_t *t, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int l = 0; l < cm_tree_nlevels(t) && len < size; l++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", l ? " " : "",
                                cm_tree_level_name(t, l));
    return buf;
}

cm_tree_t *cm_test_nodes(int nnodes, const int *cores, const double *speed)
{
    cm_error_t err = { "" };
    cm_tree_t *t = cm_tree_new();
    if (!t || cm_tree_add_level(t, "switch", 10, 0, &err) < 0 ||
        cm_tree_add_level(t, "node", 2, 0, &err) < 0 ||
        cm_tree_add_level(t, "core", 0, 0, &err) < 0)
        fail_msg("cm_test_nodes: %s", err.msg);
    int root = cm_tree_add_vertex(t, -1, 0, "s0", &err);
    for (int i = 0; i < nnodes; i++) {
        char label[16];
        snprintf(label, sizeof label, "n%d", i);
        int v = cm_tree_add_vertex(t, root, 1, label, &err);
        if (v < 0 || (speed && cm_tree_set_speed(t, v, speed[i], &err) < 0))
            fail_msg("cm_test_nodes: %s", err.msg);
        for (int k = 0; k < cores[i]; k++)
            if (cm_tree_add_vertex(t, v, 2, NULL, &err) < 0)
                fail_msg("cm_test_nodes: %s", err.msg);
    }
    if (cm_tree_finalize(t, &err) != 0)
        fail_msg("cm_test_nodes: %s", err.msg);
    return t;
}

void cm_test_per_node(const cm_tree_t *t, const int *map, int n, int *count)
{
    memset(count, 0, sizeof(int) * (size_t)cm_tree_nnodes(t));
    for (int r = 0; r < n; r++)
        count[cm_tree_slot_node(t, map[r])]++;
}

cm_matrix_t *cm_test_hetero_cliques(void)
{
    static const int gsize[] = { 8, 12, 4, 8 };   /* not in node order */
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(32, &err);
    if (!b)
        fail_msg("cm_test_hetero_cliques: %s", err.msg);
    int base = 0;
    for (int g = 0; g < 4; g++) {
        for (int x = 0; x < gsize[g]; x++)
            for (int y = 0; y < gsize[g]; y++)
                if (x != y && cm_builder_add(b, (base + x) * 13 % 32,
                                             (base + y) * 13 % 32, 10.0, 0, &err) != 0)
                    fail_msg("cm_test_hetero_cliques: %s", err.msg);
        base += gsize[g];
    }
    return cm_test_finish(b);
}

void cm_test_hetero_cliques_check(const cm_problem_t *p, const cm_tree_t *t,
                                  const int *map)
{
    int count[4];
    assert_int_equal(cm_tree_nnodes(t), 4);
    cm_test_per_node(t, map, 32, count);
    assert_int_equal(count[0], 4);
    assert_int_equal(count[1], 8);
    assert_int_equal(count[2], 12);
    assert_int_equal(count[3], 8);
    double want = (8 * 7 + 12 * 11 + 4 * 3 + 8 * 7) * 10.0 * 2;
    assert_true(cm_problem_cost(p, map) == want);
}
