/* test_walk.c -- the threaded top-down walk (src/core/map_walk.c) and what
 * rests on it: every task runs once, on any thread count; a failure stops
 * the walk with its message and frees what never ran; the multisection,
 * the spanning-tree placement and the whole planner give the same mapping
 * for 1, 2 and 3 threads; cm_plan refuses threads < 1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_internal.h"
#include "testutil.h"

/* ---- cm_walk on a synthetic tree -------------------------------------------
 * Vertex v holds ranks; a task halves them (children 2v+1, 2v+2) until one
 * is left, which gets its vertex number as its "slot".  With data, the
 * task's first half goes on as a data task of its own (what the
 * multisection's bisections do). */

typedef struct {
    int *slot;         /* [n] rank -> vertex that placed it, shared */
    int fail_at;       /* vertex whose task fails, -1: none */
    int *visits;       /* [n] how many times each rank was placed */
} synth_t;

static int synth(cm_walk_t *w, void *scratch, int v, int *ranks, int count,
                 void *data, cm_error_t *err)
{
    synth_t *s = scratch;
    if (data) {
        /* a data task: what the parent left, checked then freed */
        int tag = *(int *)data;
        free(data);
        if (tag != v)
            return cm_error_set(err, "data %d at vertex %d", tag, v);
        v = 2 * v + 1;
    }
    if (v == s->fail_at)
        return cm_error_set(err, "failed at vertex %d", v);
    if (count == 1) {
        s->slot[ranks[0]] = v;
        __atomic_fetch_add(&s->visits[ranks[0]], 1, __ATOMIC_RELAXED);
        return 0;
    }
    int half = count / 2;
    int rc;
    if (v % 3 == 0) {
        int *tag = malloc(sizeof *tag);
        assert_non_null(tag);
        *tag = v;
        rc = cm_walk_child(w, scratch, v, ranks, half, tag, err);
    } else {
        rc = cm_walk_child(w, scratch, 2 * v + 1, ranks, half, NULL, err);
    }
    if (rc == 0)
        rc = cm_walk_child(w, scratch, 2 * v + 2, ranks + half, count - half, NULL,
                           err);
    return rc;
}

/* Walk @p n ranks with @p threads workers; the slots in @p slot. */
static int walk(int n, int threads, int fail_at, int *slot, cm_error_t *err)
{
    synth_t s[4];
    void *scratch[4];
    int *ranks = malloc(sizeof(int) * (size_t)n);
    int *visits = calloc((size_t)n, sizeof(int));
    assert_non_null(ranks);
    assert_non_null(visits);
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    for (int k = 0; k < 4; k++) {
        s[k] = (synth_t){slot, fail_at, visits};
        scratch[k] = &s[k];
    }
    int rc = cm_walk(threads, synth, scratch, 0, ranks, n, err);
    if (rc == 0)
        for (int i = 0; i < n; i++)
            assert_int_equal(visits[i], 1);
    free(ranks);
    free(visits);
    return rc;
}

static void test_every_task_once(void **state)
{
    (void)state;
    enum { N = 20000 };   /* many tasks above the hand-over grain */
    int *ref = malloc(sizeof(int) * N), *slot = malloc(sizeof(int) * N);
    cm_error_t err = {""};
    assert_int_equal(walk(N, 1, -1, ref, &err), 0);
    for (int threads = 2; threads <= 4; threads++) {
        memset(slot, 0xff, sizeof(int) * N);
        assert_int_equal(walk(N, threads, -1, slot, &err), 0);
        assert_memory_equal(slot, ref, sizeof(int) * N);
    }
    free(ref);
    free(slot);
}

/* A failing task (at a vertex deep enough for other tasks to be queued)
 * fails the walk with its own message; data tasks that never ran are freed
 * (the ASan build of this test finds a leak otherwise). */
static void test_failure(void **state)
{
    (void)state;
    enum { N = 20000 };
    int *slot = malloc(sizeof(int) * N);
    for (int threads = 1; threads <= 4; threads++) {
        cm_error_t err = {""};
        assert_int_equal(walk(N, threads, 7, slot, &err), -1);
        assert_string_equal(err.msg, "failed at vertex 7");
    }
    free(slot);
}

static void test_threads_bound(void **state)
{
    (void)state;
    assert_int_equal(cm_walk_threads(0, 100000), 1);
    assert_int_equal(cm_walk_threads(4, 100), 1);   /* too few ranks to share */
    assert_int_equal(cm_walk_threads(4, 100000), 4);
    assert_int_equal(cm_walk_threads(1000, 100000), CM_WALK_MAX_THREADS);
    int a = cm_plan_threads_available();
    assert_true(a >= 1 && a <= CM_WALK_MAX_THREADS);
}

/* ---- the placements on it ---------------------------------------------------- */

/* A 3-D 7-point stencil of x*y*z ranks, relabelled by r -> r * mult mod n
 * (mult coprime to n) so that the order carries no locality. */
static cm_matrix_t *scrambled_stencil(int x, int y, int z, int mult)
{
    int n = x * y * z;
    cm_builder_t *b = cm_builder_new(n, NULL);
    assert_non_null(b);
    for (int k = 0; k < z; k++)
        for (int j = 0; j < y; j++)
            for (int i = 0; i < x; i++) {
                int r = (k * y + j) * x + i;
                int nb[3] = {i + 1 < x ? r + 1 : -1, j + 1 < y ? r + x : -1,
                             k + 1 < z ? r + x * y : -1};
                for (int d = 0; d < 3; d++)
                    if (nb[d] >= 0) {
                        int a = (int)((long)r * mult % n), c = (int)((long)nb[d] * mult % n);
                        double bytes = 1000 + 100 * d;
                        assert_int_equal(cm_builder_add(b, a, c, bytes, 1, NULL), 0);
                        assert_int_equal(cm_builder_add(b, c, a, bytes, 1, NULL), 0);
                    }
            }
    return cm_test_finish(b);
}

typedef int (*construct_fn)(const cm_problem_t *p, int threads, int *map,
                            cm_budget_t *b, cm_error_t *err);

static int ms(const cm_problem_t *p, int threads, int *map, cm_budget_t *b,
              cm_error_t *err)
{
    return cm_map_multisection(p, 7, 0, threads, map, b, err);
}

static int ms_fast(const cm_problem_t *p, int threads, int *map, cm_budget_t *b,
                   cm_error_t *err)
{
    return cm_map_multisection(p, 7, 1, threads, map, b, err);
}

/* The same mapping and the same work count for 1, 2 and 3 threads. */
static void same_for_any_threads(construct_fn f, const char *hier, const char *dist)
{
    cm_matrix_t *m = scrambled_stencil(16, 16, 12, 1001);   /* 3072 ranks */
    cm_tree_t *t = cm_test_hier(hier, dist);
    cm_problem_t p;
    cm_test_problem(&p, m, t, CM_WEIGHT_MIXED);
    int n = p.n;
    int *ref = malloc(sizeof(int) * (size_t)n), *map = malloc(sizeof(int) * (size_t)n);
    cm_error_t err = {""};
    cm_budget_t b1 = {0, UINT64_MAX};
    if (f(&p, 1, ref, &b1, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(cm_mapping_check(t, ref, n, &err), 0);
    for (int threads = 2; threads <= 3; threads++) {
        cm_budget_t b = {0, UINT64_MAX};
        if (f(&p, threads, map, &b, &err) != 0)
            fail_msg("%s", err.msg);
        assert_memory_equal(map, ref, sizeof(int) * (size_t)n);
        assert_true(b.used == b1.used);
    }
    free(ref);
    free(map);
    cm_problem_fini(&p);
    cm_tree_free(t);
    cm_matrix_free(m);
}

static void test_multisection_threads(void **state)
{
    (void)state;
    same_for_any_threads(ms, "4:16:48", "1:10:100");     /* 48 nodes: bisected first */
    same_for_any_threads(ms, "4:2:8:48", "1:5:10:100");
    same_for_any_threads(ms_fast, "4:16:48", "1:10:100");
}

static void test_treecut_threads(void **state)
{
    (void)state;
    same_for_any_threads(cm_map_treecut, "4:16:48", "1:10:100");
    same_for_any_threads(cm_map_treecut, "4:2:8:48", "1:5:10:100");
}

static void test_plan_threads(void **state)
{
    (void)state;
    cm_matrix_t *m = scrambled_stencil(16, 16, 8, 1001);   /* 2048 ranks */
    cm_tree_t *t = cm_test_hier("4:16:32", "1:10:100");
    int n = cm_matrix_n(m);
    int *ref = malloc(sizeof(int) * (size_t)n), *map = malloc(sizeof(int) * (size_t)n);
    cm_plan_options_t o;
    cm_plan_report_t r1, r;
    cm_error_t err = {""};
    cm_plan_options_init(&o);
    assert_int_equal(o.threads, 1);
    o.time_budget = 2;
    if (cm_plan(m, t, &o, ref, &r1, &err) != 0)
        fail_msg("%s", err.msg);
    o.threads = 3;
    if (cm_plan(m, t, &o, map, &r, &err) != 0)
        fail_msg("%s", err.msg);
    assert_memory_equal(map, ref, sizeof(int) * (size_t)n);
    assert_string_equal(r.winner, r1.winner);
    assert_true(r.J == r1.J);
    o.threads = 0;
    assert_int_equal(cm_plan(m, t, &o, map, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "threads must be at least 1"));
    free(ref);
    free(map);
    cm_tree_free(t);
    cm_matrix_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_task_once),
        cmocka_unit_test(test_failure),
        cmocka_unit_test(test_threads_bound),
        cmocka_unit_test(test_multisection_threads),
        cmocka_unit_test(test_treecut_threads),
        cmocka_unit_test(test_plan_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
