/* test_baselines.c -- block, cyclic, random and Scotch mappings
 * (src/core/map_baseline.c, src/core/map_scotch.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>   /* before scotch.h: Scotch 7.0.12 uses FILE without it */
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <scotch.h>

#include "clustermap.h"
#include "map_scotch_internal.h"
#include "testdata.h"
#include "testutil.h"

/* ---- trees ------------------------------------------------------------ */

static int add(cm_tree_t *t, int parent, int level, const char *label)
{
    cm_error_t err = { "" };
    int v = cm_tree_add_vertex(t, parent, level, label, &err);
    if (v < 0)
        fail_msg("cm_tree_add_vertex: %s", err.msg);
    return v;
}

static void levels(cm_tree_t *t, const char *const *names, const double *costs, int k)
{
    cm_error_t err = { "" };
    for (int l = 0; l < k; l++)
        if (cm_tree_add_level(t, names[l], costs[l], 0, &err) != l)
            fail_msg("cm_tree_add_level(%s): %s", names[l], err.msg);
}

static void finalize(cm_tree_t *t)
{
    cm_error_t err = { "" };
    if (cm_tree_finalize(t, &err) < 0)
        fail_msg("cm_tree_finalize: %s", err.msg);
}

/* Two switches; nodes n0..n3 added in allocation order n0 (s0), n1 (s1),
 * n2 (s0), n3 (s1), two cores each.  Depth-first slots: n0 0-1, n2 2-3,
 * n1 4-5, n3 6-7. */
static cm_tree_t *interleaved(void)
{
    static const char *const names[] = { "cluster", "switch", "node", "core" };
    static const double costs[] = { 20, 10, 2, 0 };
    cm_tree_t *t = cm_tree_new();
    levels(t, names, costs, 4);
    int root = add(t, -1, 0, "top");
    int s[2] = { add(t, root, 1, "s0"), add(t, root, 1, "s1") };
    static const char *const labels[] = { "n0", "n1", "n2", "n3" };
    int nodes[4];
    for (int k = 0; k < 4; k++)
        nodes[k] = add(t, s[k % 2], 2, labels[k]);
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 2; c++)
            add(t, nodes[k], 3, NULL);
    finalize(t);
    return t;
}

/* Heterogeneous nodes under one switch: A = 1 socket x 2 cores, B = 2
 * sockets x 2 cores, C = 1 socket x 1 core.  Slots A 0-1, B 2-5, C 6. */
static cm_tree_t *heterogeneous(void)
{
    static const char *const names[] = { "switch", "node", "socket", "core" };
    static const double costs[] = { 100, 10, 1, 0 };
    cm_tree_t *t = cm_tree_new();
    levels(t, names, costs, 4);
    int root = add(t, -1, 0, "sw");
    const int sockets[3] = { 1, 2, 1 }, cores[3] = { 2, 2, 1 };
    static const char *const labels[] = { "A", "B", "C" };
    for (int k = 0; k < 3; k++) {
        int node = add(t, root, 1, labels[k]);
        for (int s = 0; s < sockets[k]; s++) {
            int sock = add(t, node, 2, NULL);
            for (int c = 0; c < cores[k]; c++)
                add(t, sock, 3, NULL);
        }
    }
    finalize(t);
    return t;
}

static void assert_map(const int *map, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        if (map[i] != want[i])
            fail_msg("rank %d: slot %d, expected %d", i, map[i], want[i]);
}

static void assert_valid(const cm_tree_t *t, const int *map, int n)
{
    cm_error_t err = { "" };
    if (cm_mapping_check(t, map, n, &err) < 0)
        fail_msg("invalid mapping: %s", err.msg);
}

/* ---- block / cyclic --------------------------------------------------- */

static void test_block_cyclic_hierarchy(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");   /* 2 nodes of 4 slots */
    int map[8];
    cm_error_t err = { "" };
    assert_int_equal(cm_map_block(t, 8, map, &err), 0);
    assert_map(map, (const int[]){ 0, 1, 2, 3, 4, 5, 6, 7 }, 8);
    assert_int_equal(cm_map_cyclic(t, 8, map, &err), 0);
    assert_map(map, (const int[]){ 0, 4, 1, 5, 2, 6, 3, 7 }, 8);
    assert_int_equal(cm_map_cyclic(t, 3, map, &err), 0);
    assert_map(map, (const int[]){ 0, 4, 1 }, 3);
    cm_tree_free(t);
}

static void test_interleaved(void **state)
{
    (void)state;
    cm_tree_t *t = interleaved();
    assert_int_equal(cm_tree_nnodes(t), 4);
    assert_string_equal(cm_tree_vertex_label(t, cm_tree_node_vertex(t, 1)), "n1");
    int map[8];
    cm_error_t err = { "" };
    assert_int_equal(cm_map_block(t, 8, map, &err), 0);
    assert_map(map, (const int[]){ 0, 1, 4, 5, 2, 3, 6, 7 }, 8);
    assert_int_equal(cm_map_block(t, 3, map, &err), 0);
    assert_map(map, (const int[]){ 0, 1, 4 }, 3);
    assert_int_equal(cm_map_cyclic(t, 8, map, &err), 0);
    assert_map(map, (const int[]){ 0, 4, 2, 6, 1, 5, 3, 7 }, 8);
    assert_int_equal(cm_map_cyclic(t, 5, map, &err), 0);
    assert_map(map, (const int[]){ 0, 4, 2, 6, 1 }, 5);
    cm_tree_free(t);
}

static void test_heterogeneous(void **state)
{
    (void)state;
    cm_tree_t *t = heterogeneous();
    assert_int_equal(cm_tree_nslots(t), 7);
    int map[7];
    cm_error_t err = { "" };
    assert_int_equal(cm_map_block(t, 7, map, &err), 0);
    assert_map(map, (const int[]){ 0, 1, 2, 3, 4, 5, 6 }, 7);
    assert_int_equal(cm_map_block(t, 4, map, &err), 0);
    assert_map(map, (const int[]){ 0, 1, 2, 3 }, 4);
    /* Passes: A B C | A B | B | B (full nodes skipped). */
    assert_int_equal(cm_map_cyclic(t, 7, map, &err), 0);
    assert_map(map, (const int[]){ 0, 2, 6, 1, 3, 4, 5 }, 7);
    assert_int_equal(cm_map_cyclic(t, 5, map, &err), 0);
    assert_map(map, (const int[]){ 0, 2, 6, 1, 3 }, 5);
    cm_tree_free(t);
}

/* No "node" level: both fall back to the identity. */
static void test_no_node_level(void **state)
{
    (void)state;
    static const char *const names[] = { "rack", "socket", "core" };
    static const double costs[] = { 10, 1, 0 };
    cm_tree_t *t = cm_tree_new();
    levels(t, names, costs, 3);
    int root = add(t, -1, 0, NULL);
    for (int s = 0; s < 2; s++) {
        int sock = add(t, root, 1, NULL);
        for (int c = 0; c < 3; c++)
            add(t, sock, 2, NULL);
    }
    finalize(t);
    assert_int_equal(cm_tree_nnodes(t), 0);
    int map[6];
    cm_error_t err = { "" };
    assert_int_equal(cm_map_block(t, 5, map, &err), 0);
    assert_map(map, (const int[]){ 0, 1, 2, 3, 4 }, 5);
    assert_int_equal(cm_map_cyclic(t, 6, map, &err), 0);
    assert_map(map, (const int[]){ 0, 1, 2, 3, 4, 5 }, 6);
    cm_tree_free(t);
}

static void test_size_errors(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    int map[9];
    cm_error_t err = { "" };
    assert_int_equal(cm_map_block(t, 9, map, &err), -1);
    assert_non_null(strstr(err.msg, "9 ranks"));
    assert_non_null(strstr(err.msg, "8 slots"));
    assert_int_equal(cm_map_cyclic(t, 9, map, &err), -1);
    assert_non_null(strstr(err.msg, "8 slots"));
    assert_int_equal(cm_map_random(t, 9, 1, map, &err), -1);
    assert_non_null(strstr(err.msg, "8 slots"));
    assert_int_equal(cm_map_block(t, 0, map, &err), -1);
    assert_non_null(strstr(err.msg, "at least 1"));
    assert_int_equal(cm_map_cyclic(t, -2, map, &err), -1);
    assert_int_equal(cm_map_random(t, 0, 1, map, &err), -1);

    cm_builder_t *b = cm_builder_new(9, &err);
    cm_builder_add(b, 0, 8, 1, 0, &err);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    assert_int_equal(cm_map_scotch(m, t, 1, map, &err), -1);
    assert_non_null(strstr(err.msg, "9 ranks"));
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* ---- random ----------------------------------------------------------- */

static void test_random(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("4:2:4:2", "1:2:10:20");
    int a[64], b[64], c[64];
    cm_error_t err = { "" };
    assert_int_equal(cm_map_random(t, 64, 42, a, &err), 0);
    assert_int_equal(cm_map_random(t, 64, 42, b, &err), 0);
    assert_int_equal(cm_map_random(t, 64, 43, c, &err), 0);
    assert_valid(t, a, 64);
    assert_valid(t, c, 64);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
    /* The first ranks of a shorter run are not the identity either. */
    assert_int_equal(cm_map_random(t, 10, 42, b, &err), 0);
    assert_valid(t, b, 10);
    assert_memory_equal(a, b, 10 * sizeof *a);   /* same draws, same prefix */

    /* Rank 0's slot over many seeds: every slot of 64 turns up about 4000 /
     * 64 = 62.5 times (a fixed draw, so the bounds cannot flake). */
    int hits[64] = { 0 };
    for (uint64_t s = 0; s < 4000; s++) {
        assert_int_equal(cm_map_random(t, 2, s, b, &err), 0);
        assert_true(b[0] != b[1]);
        hits[b[0]]++;
    }
    for (int s = 0; s < 64; s++)
        if (hits[s] < 30 || hits[s] > 100)
            fail_msg("slot %d drawn %d times of 4000", s, hits[s]);
    cm_tree_free(t);
}

/* ---- Scotch ----------------------------------------------------------- */

static void test_scotch_cg64(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("4:2:4:2", "1:2:10:20");
    cm_matrix_t *m = cm_test_matrix("matrices/cg.S.64.mtx");
    int s1[64], s2[64], map[64];
    cm_error_t err = { "" };
    if (cm_map_scotch(m, t, 1, s1, &err) < 0)
        fail_msg("cm_map_scotch: %s", err.msg);
    assert_valid(t, s1, 64);
    assert_int_equal(cm_map_scotch(m, t, 1, s2, &err), 0);
    assert_memory_equal(s1, s2, sizeof s1);   /* same seed, same mapping */

    double Js = cm_cost(m, t, s1);
    assert_int_equal(cm_map_block(t, 64, map, &err), 0);
    double Jb = cm_cost(m, t, map);
    assert_int_equal(cm_map_cyclic(t, 64, map, &err), 0);
    double Jc = cm_cost(m, t, map);
    assert_int_equal(cm_map_random(t, 64, 1, map, &err), 0);
    double Jr = cm_cost(m, t, map);
    print_message("cg.S.64 on 4:2:4:2 / 1:2:10:20: block %.0f cyclic %.0f random %.0f "
                  "scotch %.0f\n", Jb, Jc, Jr, Js);
    assert_true(Js < Jr);
    assert_true(Js < Jc);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* Fewer ranks than slots: the first 40 ranks of CG on 64 slots. */
static void test_scotch_fewer_ranks(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("4:2:4:2", "1:2:10:20");
    cm_matrix_t *full = cm_test_matrix("matrices/cg.S.64.mtx");
    int ranks[40];
    for (int i = 0; i < 40; i++)
        ranks[i] = i;
    cm_error_t err = { "" };
    cm_matrix_t *m = cm_matrix_sub(full, ranks, 40, &err);
    assert_non_null(m);
    int a[40], b[40];
    assert_int_equal(cm_map_scotch(m, t, 7, a, &err), 0);
    assert_valid(t, a, 40);
    assert_int_equal(cm_map_scotch(m, t, 7, b, &err), 0);
    assert_memory_equal(a, b, sizeof a);
    cm_matrix_free(m);
    cm_matrix_free(full);
    cm_tree_free(t);
}

/* 8 x 8 grid with its ranks scrambled, so that rank order says nothing.
 * Scotch must find the locality that block and random miss. */
static void test_scotch_scrambled_grid(void **state)
{
    (void)state;
    int perm[64];
    for (int i = 0; i < 64; i++)
        perm[i] = i;
    cm_rng_t rng;
    cm_rng_seed(&rng, 2024);
    for (int i = 63; i > 0; i--) {
        int j = (int)cm_rng_below(&rng, (uint64_t)i + 1);
        int tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(64, &err);
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) {
            int v = perm[y * 8 + x];
            if (x < 7) {
                cm_builder_add(b, v, perm[y * 8 + x + 1], 1000, 1, &err);
                cm_builder_add(b, perm[y * 8 + x + 1], v, 1000, 1, &err);
            }
            if (y < 7) {
                cm_builder_add(b, v, perm[(y + 1) * 8 + x], 1000, 1, &err);
                cm_builder_add(b, perm[(y + 1) * 8 + x], v, 1000, 1, &err);
            }
        }
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    assert_non_null(m);
    cm_tree_t *t = cm_test_hier("4:2:4:2", "1:2:10:20");
    int map[64];
    assert_int_equal(cm_map_scotch(m, t, 3, map, &err), 0);
    assert_valid(t, map, 64);
    double Js = cm_cost(m, t, map);
    assert_int_equal(cm_map_block(t, 64, map, &err), 0);
    double Jb = cm_cost(m, t, map);
    double Jr = 0;
    for (uint64_t s = 1; s <= 5; s++) {
        assert_int_equal(cm_map_random(t, 64, s, map, &err), 0);
        Jr += cm_cost(m, t, map) / 5;
    }
    /* The unscrambled block mapping (rank = grid position) as reference. */
    int natural[64];
    for (int i = 0; i < 64; i++)
        natural[perm[i]] = i;
    double Jn = cm_cost(m, t, natural);
    print_message("scrambled 8x8 grid on 4:2:4:2: scotch %.0f block %.0f random(mean) "
                  "%.0f natural %.0f\n", Js, Jb, Jr, Jn);
    assert_true(Js < 0.6 * Jr);
    assert_true(Js < 0.6 * Jb);
    assert_true(Js <= 1.1 * Jn);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* Irregular tree (padded tleaf restricted with SCOTCH_archSub): ranks 0-3
 * talk a lot among themselves, 4-5 with each other, 6 with nobody much.
 * Node B (4 slots) must get 0-3 and node A (2 slots) 4-5. */
static void test_scotch_heterogeneous(void **state)
{
    (void)state;
    cm_tree_t *t = heterogeneous();
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(7, &err);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (i != j)
                cm_builder_add(b, i, j, 5000, 1, &err);
    cm_builder_add(b, 4, 5, 8000, 1, &err);
    cm_builder_add(b, 5, 4, 8000, 1, &err);
    cm_builder_add(b, 6, 0, 10, 1, &err);
    cm_builder_add(b, 3, 4, 10, 1, &err);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    int a[7], c[7];
    if (cm_map_scotch(m, t, 11, a, &err) < 0)
        fail_msg("cm_map_scotch: %s", err.msg);
    assert_valid(t, a, 7);
    assert_int_equal(cm_map_scotch(m, t, 11, c, &err), 0);
    assert_memory_equal(a, c, sizeof a);
    for (int r = 0; r < 4; r++)
        assert_int_equal(cm_tree_slot_node(t, a[r]), 1);
    assert_int_equal(cm_tree_slot_node(t, a[4]), 0);
    assert_int_equal(cm_tree_slot_node(t, a[5]), 0);
    assert_int_equal(a[6], 6);

    /* Fewer ranks than slots on the irregular tree. */
    int five[5] = { 0, 1, 2, 3, 4 };
    cm_matrix_t *sub = cm_matrix_sub(m, five, 5, &err);
    assert_int_equal(cm_map_scotch(sub, t, 11, a, &err), 0);
    assert_valid(t, a, 5);
    for (int r = 0; r < 4; r++)
        assert_int_equal(cm_tree_slot_node(t, a[r]), 1);
    cm_matrix_free(sub);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* Irregular heterogeneous nodes at scale: cg.S.64 on nodes of 12, 4, 8,
 * ... cores (two sockets each) under two switches. */
static void test_scotch_irregular_cg(void **state)
{
    (void)state;
    static const char *const names[] = { "cluster", "switch", "node", "socket", "core" };
    static const double costs[] = { 20, 10, 2, 1, 0 };
    cm_tree_t *t = cm_tree_new();
    levels(t, names, costs, 5);
    int root = add(t, -1, 0, NULL);
    const int percore[8] = { 6, 2, 4, 4, 6, 2, 4, 4 };   /* cores per socket */
    int sw[2] = { add(t, root, 1, NULL), add(t, root, 1, NULL) };
    for (int k = 0; k < 8; k++) {
        int node = add(t, sw[k / 4], 2, NULL);
        for (int s = 0; s < 2; s++) {
            int sock = add(t, node, 3, NULL);
            for (int c = 0; c < percore[k]; c++)
                add(t, sock, 4, NULL);
        }
    }
    finalize(t);
    assert_int_equal(cm_tree_nslots(t), 64);
    cm_matrix_t *m = cm_test_matrix("matrices/cg.S.64.mtx");
    int a[64], c[64];
    cm_error_t err = { "" };
    if (cm_map_scotch(m, t, 5, a, &err) < 0)
        fail_msg("cm_map_scotch: %s", err.msg);
    assert_valid(t, a, 64);
    assert_int_equal(cm_map_scotch(m, t, 5, c, &err), 0);
    assert_memory_equal(a, c, sizeof a);
    double Js = cm_cost(m, t, a);
    assert_int_equal(cm_map_random(t, 64, 5, c, &err), 0);
    double Jr = cm_cost(m, t, c);
    print_message("cg.S.64 on irregular nodes: scotch %.0f random %.0f\n", Js, Jr);
    assert_true(Js < Jr);
    cm_matrix_free(m);
    cm_tree_free(t);
}

static void test_scotch_edge_cases(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    /* No traffic at all. */
    cm_builder_t *b = cm_builder_new(6, &err);
    cm_matrix_t *m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    int map[8];
    assert_int_equal(cm_map_scotch(m, t, 1, map, &err), 0);
    assert_valid(t, map, 6);
    cm_matrix_free(m);
    cm_tree_free(t);

    /* One slot, one rank. */
    b = cm_builder_new(1, &err);
    cm_builder_add(b, 0, 0, 5, 1, &err);
    m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    t = cm_test_hier("1", "3");
    map[0] = -1;
    assert_int_equal(cm_map_scotch(m, t, 1, map, &err), 0);
    assert_int_equal(map[0], 0);
    cm_tree_free(t);

    /* Equal costs on every level (no cost difference to scale). */
    t = cm_test_hier("2:2", "4:4");
    assert_int_equal(cm_map_scotch(m, t, 1, map, &err), 0);
    assert_int_equal(map[0] >= 0 && map[0] < 4, 1);
    cm_matrix_free(m);
    cm_tree_free(t);

    /* Slots at different depths: a node whose cores hang directly below it
     * next to a node with sockets. */
    static const char *const names[] = { "switch", "node", "socket", "core" };
    static const double costs[] = { 100, 10, 1, 0 };
    t = cm_tree_new();
    levels(t, names, costs, 4);
    int root = add(t, -1, 0, NULL);
    int n0 = add(t, root, 1, "n0"), n1 = add(t, root, 1, "n1");
    int sock = add(t, n0, 2, NULL);
    add(t, sock, 3, NULL);
    add(t, sock, 3, NULL);
    add(t, n1, 3, NULL);
    add(t, n1, 3, NULL);
    finalize(t);
    b = cm_builder_new(3, &err);
    cm_builder_add(b, 0, 1, 5, 1, &err);
    m = cm_builder_finish(b, &err);
    cm_builder_free(b);
    assert_int_equal(cm_map_scotch(m, t, 1, map, &err), -1);
    assert_non_null(strstr(err.msg, "same depth"));
    /* The other baselines do not care. */
    assert_int_equal(cm_map_cyclic(t, 3, map, &err), 0);
    assert_map(map, (const int[]){ 0, 2, 1 }, 3);
    cm_matrix_free(m);
    cm_tree_free(t);
}

/* The tleaf target: Scotch's own distance between the terminals of two
 * slots must be cost[lca] - cost[leaf] (scaled), on a regular tree and on
 * an irregular one restricted with SCOTCH_archSub. */
static void check_target(const cm_tree_t *t, double unit)
{
    cm_error_t err = { "" };
    cm_tleaf_t tl;
    if (cm_tleaf_build(t, &tl, &err) < 0)
        fail_msg("cm_tleaf_build: %s", err.msg);
    int nslots = cm_tree_nslots(t), leaf = cm_tree_nlevels(t) - 1;
    long long maxdist = cm_tleaf_scale_links(&tl, 1024);
    SCOTCH_Arch tleaf, sub;
    assert_int_equal(SCOTCH_archInit(&tleaf), 0);
    assert_int_equal(SCOTCH_archTleaf(&tleaf, tl.nlev, tl.size, tl.link), 0);
    SCOTCH_Arch *arch = &tleaf;
    int regular = tl.nterm == nslots;
    if (!regular) {
        assert_int_equal(SCOTCH_archInit(&sub), 0);
        assert_int_equal(SCOTCH_archSub(&sub, &tleaf, nslots, tl.term), 0);
        arch = &sub;
    }
    assert_int_equal(SCOTCH_archSize(arch), nslots);
    double top = 0;
    for (int p = 0; p < nslots; p++) {
        if (regular)
            assert_int_equal(tl.term[p], p);
        for (int q = 0; q < nslots; q++) {
            SCOTCH_ArchDom dp, dq;
            assert_int_equal(SCOTCH_archDomTerm(arch, &dp, p), 0);
            assert_int_equal(SCOTCH_archDomTerm(arch, &dq, q), 0);
            int l = cm_tree_lca_level(t, p, q);
            double want = (cm_tree_level_byte_cost(t, l) -
                           cm_tree_level_byte_cost(t, leaf)) / unit;
            if ((double)SCOTCH_archDomDist(arch, &dp, &dq) != want)
                fail_msg("slots %d, %d: Scotch distance %d, expected %g", p, q,
                         (int)SCOTCH_archDomDist(arch, &dp, &dq), want);
            if (want > top)
                top = want;
        }
    }
    assert_true((double)maxdist == top);
    if (!regular)
        SCOTCH_archExit(&sub);
    SCOTCH_archExit(&tleaf);
    cm_tleaf_free(&tl);
}

static void test_scotch_target(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");   /* links 90, 9, 1 */
    check_target(t, 1);
    cm_tree_t *u = cm_test_hier("4:2:4:2", "1:2:10:20");
    check_target(u, 1);
    cm_tree_free(u);
    u = cm_test_hier("2:3", "0.5:1.5");   /* smallest difference 0.5 -> 1 */
    check_target(u, 0.5);
    cm_tree_free(u);
    u = heterogeneous();            /* padded 3 x 2 x 2, restricted */
    check_target(u, 1);
    cm_tree_free(u);
    u = interleaved();
    check_target(u, 2);             /* 20, 10, 2 -> 10, 5, 1 */
    cm_tree_free(u);

    /* A cost ratio beyond the cap is compressed, small links kept >= 1. */
    cm_tleaf_t tl;
    cm_error_t err = { "" };
    u = cm_test_hier("2:2:2", "1:1000:100000");
    assert_int_equal(cm_tleaf_build(u, &tl, &err), 0);
    long long top = cm_tleaf_scale_links(&tl, 1024);
    assert_true(top <= 1024 + 3);
    assert_true(tl.link[2] >= 1 && tl.link[1] > tl.link[2] && tl.link[0] > tl.link[1]);
    cm_tleaf_free(&tl);
    cm_tree_free(u);
    cm_tree_free(t);
}

/* Collisions: the lowest rank keeps its slot, the others go to the free
 * slot with the deepest common ancestor, lowest first. */
static void test_repair(void **state)
{
    (void)state;
    cm_tree_t *t = cm_test_hier("2:2:2", "1:10:100");
    cm_error_t err = { "" };
    /* rank:      0  1  2  3  4  5 */
    int map[6] = { 0, 0, 0, 5, 5, 1 };
    assert_int_equal(cm_map_repair(t, 6, map, &err), 0);
    /* r1, r2 leave slot 0: socket 0-1 is full (r0, r5), node 0-3 has 2, 3.
     * r4 leaves slot 5: its socket partner 4 is free. */
    assert_map(map, (const int[]){ 0, 2, 3, 5, 4, 1 }, 6);
    int all[8] = { 7, 7, 7, 7, 7, 7, 7, 7 };
    assert_int_equal(cm_map_repair(t, 8, all, &err), 0);
    assert_map(all, (const int[]){ 7, 6, 4, 5, 0, 1, 2, 3 }, 8);
    int none[3] = { 4, 2, 6 };
    assert_int_equal(cm_map_repair(t, 3, none, &err), 0);
    assert_map(none, (const int[]){ 4, 2, 6 }, 3);
    cm_tree_free(t);
}

/* libscotcherr prints and returns: a failing Scotch call must not end the
 * process (libscotcherrexit would). */
static void test_scotch_error_returns(void **state)
{
    (void)state;
    SCOTCH_Graph g;
    assert_int_equal(SCOTCH_graphInit(&g), 0);
    SCOTCH_Num vert[3] = { 0, 1, 2 };
    SCOTCH_Num edge[2] = { 1, 1 };   /* 0 -> 1 but 1 -> 1: not symmetric */
    assert_int_equal(SCOTCH_graphBuild(&g, 0, 2, vert, NULL, NULL, NULL, 2, edge, NULL), 0);
    assert_int_not_equal(SCOTCH_graphCheck(&g), 0);
    SCOTCH_graphExit(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_cyclic_hierarchy),
        cmocka_unit_test(test_interleaved),
        cmocka_unit_test(test_heterogeneous),
        cmocka_unit_test(test_no_node_level),
        cmocka_unit_test(test_size_errors),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_scotch_cg64),
        cmocka_unit_test(test_scotch_fewer_ranks),
        cmocka_unit_test(test_scotch_scrambled_grid),
        cmocka_unit_test(test_scotch_heterogeneous),
        cmocka_unit_test(test_scotch_irregular_cg),
        cmocka_unit_test(test_scotch_edge_cases),
        cmocka_unit_test(test_scotch_target),
        cmocka_unit_test(test_repair),
        cmocka_unit_test(test_scotch_error_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
