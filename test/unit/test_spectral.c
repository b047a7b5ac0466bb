/* test_spectral.c -- CP-NSC: similarity, spectral embedding (dense and
 * sparse solvers), k-means, the whole pipeline (src/core/spectral*.c,
 * src/core/kmeans.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clustermap.h"
#include "spectral_internal.h"
#include "testdata.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------ */

static void add(cm_builder_t *b, int i, int j, double bytes)
{
    cm_error_t err = { "" };
    assert_int_equal(cm_builder_add(b, i, j, bytes, 1, &err), 0);
}

/* r x c grid, rank of (y, x) = y * c + x; weight w, or random in [1, 2)
 * from @p rng when given (breaks the grid's symmetries). */
static cm_matrix_t *grid(int r, int c, cm_rng_t *rng)
{
    cm_builder_t *b = cm_builder_new(r * c, NULL);
    assert_non_null(b);
    for (int y = 0; y < r; y++)
        for (int x = 0; x < c; x++) {
            int v = y * c + x;
            if (x + 1 < c)
                add(b, v, v + 1, rng ? 1.0 + cm_rng_double(rng) : 100.0);
            if (y + 1 < r)
                add(b, v, v + c, rng ? 1.0 + cm_rng_double(rng) : 100.0);
        }
    return cm_test_finish(b);
}

/* Same partition: labels equal up to renaming (a bijection). */
static int same_partition(const int *a, const int *b, int n)
{
    int *ab = malloc(sizeof(int) * n), *ba = malloc(sizeof(int) * n);
    int ok = 1;
    for (int i = 0; i < n; i++)
        ab[i] = ba[i] = -1;
    for (int i = 0; i < n && ok; i++) {
        if (a[i] < 0 || a[i] >= n || b[i] < 0 || b[i] >= n)
            ok = 0;
        else if (ab[a[i]] < 0 && ba[b[i]] < 0) {
            ab[a[i]] = b[i];
            ba[b[i]] = a[i];
        } else if (ab[a[i]] != b[i] || ba[b[i]] != a[i])
            ok = 0;
    }
    free(ab);
    free(ba);
    return ok;
}

/* Every label in 0..k-1 and every cluster non-empty. */
static void check_labels(const int *labels, int n, int k)
{
    int *count = calloc(k, sizeof(int));
    for (int i = 0; i < n; i++) {
        assert_in_range(labels[i], 0, k - 1);
        count[labels[i]]++;
    }
    for (int c = 0; c < k; c++)
        assert_true(count[c] > 0);
    free(count);
}

static cm_spectral_opts_t opts_sparse(void)
{
    cm_spectral_opts_t o;
    cm_spectral_opts_default(&o);
    o.dense_max = 0;
    return o;
}

/* ---- similarity --------------------------------------------------------- */

static void test_similarity_values(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_builder_t *b = cm_builder_new(3, NULL);
    add(b, 0, 1, 30);
    add(b, 1, 0, 10);   /* A' (0,1) = 40 */
    add(b, 1, 2, 20);   /* A' (1,2) = 20 */
    add(b, 2, 2, 999);  /* self-send: ignored */
    cm_matrix_t *m = cm_test_finish(b);
    cm_matrix_t *sym = cm_matrix_symmetrize(m, &err);
    assert_non_null(sym);
    cm_matrix_t *s = cm_similarity(sym, 0.5, &err);
    assert_non_null(s);
    assert_int_equal(cm_matrix_n(s), 3);
    assert_int_equal(cm_matrix_nnz(s), 7);
    double want[3][3] = { { 1, 0.5, 0 }, { 0.5, 1, 0.25 }, { 0, 0.25, 1 } };
    for (int i = 0; i < 3; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(s, i, &cols, &bytes, &msgs, &len);
        for (int e = 0; e < len; e++)
            assert_float_equal(bytes[e], want[i][cols[e]], 1e-15);
    }
    assert_null(cm_similarity(sym, 0.0, &err));
    assert_non_null(strstr(err.msg, "max_similarity"));
    cm_matrix_free(s);
    cm_matrix_free(sym);
    cm_matrix_free(m);
}

/* ---- k-means ------------------------------------------------------------ */

static void test_kmeans_hand_points(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    /* Two groups, interleaved in index order. */
    double X[] = { 0, 0,  10, 10,  1, 0,  11, 10,  0, 1,  10, 11 };
    int labels[6];
    double inertia;
    assert_int_equal(cm_kmeans(X, 6, 2, 2, 3, 7, 100, labels, &inertia, &err), 0);
    int want[] = { 0, 1, 0, 1, 0, 1 };
    assert_memory_equal(labels, want, sizeof want);
    /* Centres (1/3, 1/3) and (31/3, 31/3): 2 * (2/9 + 2 * 5/9) = 8/3. */
    assert_float_equal(inertia, 8.0 / 3.0, 1e-12);

    /* k = n: every point alone, inertia 0. */
    assert_int_equal(cm_kmeans(X, 6, 2, 6, 1, 1, 100, labels, &inertia, &err), 0);
    for (int i = 0; i < 6; i++)
        assert_int_equal(labels[i], i);
    assert_float_equal(inertia, 0.0, 1e-12);

    /* Identical points: still k non-empty clusters. */
    double same[] = { 2, 2, 2, 2, 2, 2, 2, 2 };
    assert_int_equal(cm_kmeans(same, 4, 2, 3, 2, 1, 100, labels, &inertia, &err), 0);
    check_labels(labels, 4, 3);
    assert_float_equal(inertia, 0.0, 1e-12);

    assert_int_equal(cm_kmeans(X, 6, 2, 7, 1, 1, 100, labels, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "k <= n"));
    assert_string_equal(err.msg, "cm_kmeans: expected 1 <= k <= n=6, got k=7");
    assert_int_equal(cm_kmeans(X, 6, 2, 2, 0, 1, 100, labels, NULL, &err), -1);
}

static void test_kmeans_deterministic(void **state)
{
    (void)state;
    enum { N = 500, D = 3, K = 7 };
    double *X = malloc(sizeof(double) * N * D);
    cm_rng_t r;
    cm_rng_seed(&r, 42);
    for (int i = 0; i < N * D; i++)
        X[i] = cm_rng_double(&r);
    int a[N], b[N];
    double ia, ib;
    assert_int_equal(cm_kmeans(X, N, D, K, 4, 9, 100, a, &ia, NULL), 0);
    assert_int_equal(cm_kmeans(X, N, D, K, 4, 9, 100, b, &ib, NULL), 0);
    assert_memory_equal(a, b, sizeof a);
    assert_true(ia == ib);
    check_labels(a, N, K);
    /* Canonical numbering: cluster c first appears before cluster c + 1. */
    int next = 0;
    for (int i = 0; i < N; i++) {
        assert_true(a[i] <= next);
        if (a[i] == next)
            next++;
    }
    free(X);
}

/* ---- CP-NSC on structured graphs --------------------------------------- */

/* 4 cliques of 8 ranks; rank i belongs to clique group[i] (scrambled).
 * @p weak > 0 links clique q to clique q+1 by one edge of that volume. */
static cm_matrix_t *cliques(int *group, double weak)
{
    enum { N = 32 };
    int perm[N];
    for (int i = 0; i < N; i++)
        perm[i] = i;
    cm_rng_t r;
    cm_rng_seed(&r, 2024);
    for (int i = N - 1; i > 0; i--) {
        int j = (int)cm_rng_below(&r, (uint64_t)i + 1);
        int t = perm[i]; perm[i] = perm[j]; perm[j] = t;
    }
    for (int i = 0; i < N; i++)
        group[perm[i]] = i / 8;
    cm_builder_t *b = cm_builder_new(N, NULL);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (i != j && group[i] == group[j])
                add(b, i, j, 1000 + 10 * ((i + j) % 3));
    if (weak > 0)
        for (int q = 0; q + 1 < 4; q++)
            add(b, perm[8 * q], perm[8 * (q + 1)], weak);
    return cm_test_finish(b);
}

static void test_disjoint_cliques(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    int group[32], labels[32];
    cm_matrix_t *m = cliques(group, 0);
    assert_int_equal(cm_cpnsc(m, 4, 1, NULL, labels, &err), 0);
    assert_true(same_partition(labels, group, 32));

    /* The embedding alone (repeated eigenvalue 1, four times): rows of a
     * clique coincide, rows of different cliques are orthogonal.  Both
     * solvers. */
    cm_matrix_t *sym = cm_matrix_symmetrize(m, &err);
    cm_matrix_t *sim = cm_similarity(sym, 1.0, &err);
    for (int sparse = 0; sparse < 2; sparse++) {
        cm_spectral_opts_t o;
        cm_spectral_opts_default(&o);
        if (sparse) {
            o.dense_max = 0;
            o.tol = 1e-10;
        }
        double U[32 * 4];
        cm_spectral_info_t info;
        assert_int_equal(cm_spectral_embedding(sim, 4, &o, U, &info, &err), 0);
        assert_int_equal(info.sparse, sparse);
        assert_true(info.converged);
        assert_float_equal(info.lambda_k, 1.0, 1e-9);
        for (int i = 0; i < 32; i++)
            for (int j = 0; j < 32; j++) {
                double dot = 0;
                for (int t = 0; t < 4; t++)
                    dot += U[i * 4 + t] * U[j * 4 + t];
                assert_float_equal(dot, group[i] == group[j] ? 1.0 : 0.0, 1e-6);
            }
        assert_int_equal(cm_kmeans(U, 32, 4, 4, 2, 3, 100, labels, NULL, &err), 0);
        assert_true(same_partition(labels, group, 32));
    }
    cm_matrix_free(sim);
    cm_matrix_free(sym);
    cm_matrix_free(m);
}

static void test_weakly_linked_cliques(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    int group[32], labels[32];
    cm_matrix_t *m = cliques(group, 5);
    cm_spectral_opts_t sp = opts_sparse();
    assert_int_equal(cm_cpnsc(m, 4, 1, NULL, labels, &err), 0);
    assert_true(same_partition(labels, group, 32));
    assert_int_equal(cm_cpnsc(m, 4, 1, &sp, labels, &err), 0);
    assert_true(same_partition(labels, group, 32));
    cm_matrix_free(m);
}

/* Two dense blocks of 12 and 20 ranks joined by one weak edge. */
static void test_split_at_weak_edge(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    enum { A = 12, N = 32 };
    cm_builder_t *b = cm_builder_new(N, NULL);
    cm_rng_t r;
    cm_rng_seed(&r, 5);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (i != j && (i < A) == (j < A) && cm_rng_double(&r) < 0.6)
                add(b, i, j, 500 + 500 * cm_rng_double(&r));
    add(b, A - 1, A, 50);
    add(b, A, A - 1, 50);
    cm_matrix_t *m = cm_test_finish(b);
    int labels[N];
    assert_int_equal(cm_cpnsc(m, 2, 3, NULL, labels, &err), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(labels[i], i < A ? 0 : 1);
    cm_matrix_free(m);
}

/* Is every cluster connected in the grid? (BFS inside the cluster.) */
static int clusters_contiguous(const cm_matrix_t *g, const int *labels, int n)
{
    int *seen = calloc(n, sizeof(int)), *queue = malloc(sizeof(int) * n);
    int *started = calloc(n, sizeof(int));
    int ok = 1;
    cm_matrix_t *sym = cm_matrix_symmetrize(g, NULL);
    for (int s = 0; s < n && ok; s++) {
        if (seen[s])
            continue;
        if (started[labels[s]])
            ok = 0; /* a second piece of an already visited cluster */
        started[labels[s]] = 1;
        int head = 0, tail = 0;
        queue[tail++] = s;
        seen[s] = 1;
        while (head < tail) {
            int v = queue[head++];
            const int *cols;
            const double *bytes, *msgs;
            int len;
            cm_matrix_row(sym, v, &cols, &bytes, &msgs, &len);
            for (int e = 0; e < len; e++)
                if (!seen[cols[e]] && labels[cols[e]] == labels[v]) {
                    seen[cols[e]] = 1;
                    queue[tail++] = cols[e];
                }
        }
    }
    cm_matrix_free(sym);
    free(seen); free(queue); free(started);
    return ok;
}

static void test_grid_8x8(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_matrix_t *g = grid(8, 8, NULL);
    int labels[64], count[4] = { 0 };
    assert_int_equal(cm_cpnsc(g, 4, 11, NULL, labels, &err), 0);
    check_labels(labels, 64, 4);
    for (int i = 0; i < 64; i++)
        count[labels[i]]++;
    for (int c = 0; c < 4; c++)
        assert_in_range(count[c], 12, 20);
    assert_true(clusters_contiguous(g, labels, 64));
    cm_matrix_free(g);
}

/* Dense and sparse solvers: same eigenvalues, same clustering, on a
 * 15 x 20 grid with random weights (no symmetry, simple eigenvalues). */
static void test_dense_equals_sparse(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    enum { N = 300 };
    cm_rng_t r;
    cm_rng_seed(&r, 77);
    cm_matrix_t *g = grid(15, 20, &r);
    cm_matrix_t *sym = cm_matrix_symmetrize(g, &err);
    cm_matrix_t *sim = cm_similarity(sym, 1.0, &err);
    const int ks[] = { 2, 5, 8, 12 };
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        int k = ks[t];
        cm_spectral_opts_t dense, sparse = opts_sparse();
        cm_spectral_opts_default(&dense);
        sparse.tol = 1e-9;
        double *Ud = malloc(sizeof(double) * N * (k + 1));
        double *Us = malloc(sizeof(double) * N * k);
        cm_spectral_info_t id, is, id1;
        /* The gap after lambda_k must be clear for the comparison. */
        assert_int_equal(cm_spectral_embedding(sim, k + 1, &dense, Ud, &id1, &err), 0);
        assert_int_equal(cm_spectral_embedding(sim, k, &dense, Ud, &id, &err), 0);
        assert_true(id.lambda_k - id1.lambda_k > 1e-3);
        assert_int_equal(cm_spectral_embedding(sim, k, &sparse, Us, &is, &err), 0);
        assert_false(id.sparse);
        assert_true(is.sparse);
        assert_true(is.converged);
        assert_float_equal(id.lambda_k, is.lambda_k, 1e-9);
        int ld[N], ls[N];
        assert_int_equal(cm_cpnsc(g, k, 5, &dense, ld, &err), 0);
        assert_int_equal(cm_cpnsc(g, k, 5, &sparse, ls, &err), 0);
        check_labels(ld, N, k);
        assert_memory_equal(ld, ls, sizeof ld);
        free(Ud);
        free(Us);
    }
    cm_matrix_free(sim);
    cm_matrix_free(sym);
    cm_matrix_free(g);
}

/* Two components (a 10-clique and a 6 x 6 grid), k = 4 > 2 components:
 * the spectral path; no cluster may span both components. */
static void test_components_fewer_than_k(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    enum { N = 46 };
    cm_builder_t *b = cm_builder_new(N, NULL);
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++)
            if (i != j)
                add(b, i, j, 100);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++) {
            int v = 10 + y * 6 + x;
            if (x < 5) add(b, v, v + 1, 100);
            if (y < 5) add(b, v, v + 6, 100);
        }
    cm_matrix_t *m = cm_test_finish(b);
    for (int sparse = 0; sparse < 2; sparse++) {
        cm_spectral_opts_t o;
        cm_spectral_opts_default(&o);
        if (sparse)
            o.dense_max = 0;
        int labels[N];
        assert_int_equal(cm_cpnsc(m, 4, 2, &o, labels, &err), 0);
        check_labels(labels, N, 4);
        for (int i = 1; i < 10; i++)
            assert_int_equal(labels[i], labels[0]); /* the clique stays whole */
        for (int i = 10; i < N; i++)
            assert_int_not_equal(labels[i], labels[0]);
    }
    cm_matrix_free(m);
}

/* 16 disjoint edges: eigenvalue 1 sixteen times.  With k = 12 the
 * dense solver's index range falls inside that cluster, where MRRR may
 * return fewer eigenvalues than asked (seen on pieces of a binary tree);
 * the embedding must still succeed, with rows of equal edges equal. */
static void test_clustered_eigenvalues(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    enum { N = 32 };
    cm_builder_t *b = cm_builder_new(N, NULL);
    for (int i = 0; i < N; i += 2)
        add(b, i, i + 1, 100);
    cm_matrix_t *m = cm_test_finish(b);
    int labels[N];
    cm_spectral_opts_t o;
    cm_spectral_opts_default(&o);
    assert_int_equal(cm_cpnsc(m, 12, 2, &o, labels, &err), 0);
    check_labels(labels, N, 12);
    for (int i = 0; i < N; i += 2)
        assert_int_equal(labels[i], labels[i + 1]);   /* edges never split */
    cm_matrix_free(m);
}

static void test_deterministic(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_matrix_t *g = grid(24, 30, NULL); /* symmetric: repeated eigenvalues */
    cm_spectral_opts_t o = opts_sparse();
    int a[720], b[720];
    assert_int_equal(cm_cpnsc(g, 9, 4, &o, a, &err), 0);
    assert_int_equal(cm_cpnsc(g, 9, 4, &o, b, &err), 0);
    assert_memory_equal(a, b, sizeof a);
    check_labels(a, 720, 9);
    cm_matrix_free(g);
}

/* ---- degenerate input --------------------------------------------------- */

static void test_degenerate(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    int labels[10];

    cm_builder_t *b = cm_builder_new(1, NULL);
    cm_matrix_t *one = cm_test_finish(b);
    labels[0] = 99;
    assert_int_equal(cm_cpnsc(one, 1, 0, NULL, labels, &err), 0);
    assert_int_equal(labels[0], 0);
    assert_int_equal(cm_cpnsc(one, 2, 0, NULL, labels, &err), -1);
    assert_non_null(strstr(err.msg, "1 <= k <= n=1"));
    cm_matrix_free(one);

    /* No communication at all: 10 isolated ranks, balanced clusters. */
    b = cm_builder_new(10, NULL);
    cm_matrix_t *zero = cm_test_finish(b);
    assert_int_equal(cm_cpnsc(zero, 3, 0, NULL, labels, &err), 0);
    check_labels(labels, 10, 3);
    int count[3] = { 0 };
    for (int i = 0; i < 10; i++)
        count[labels[i]]++;
    assert_int_equal(count[0], 4);
    assert_int_equal(count[1], 3);
    assert_int_equal(count[2], 3);
    assert_int_equal(cm_cpnsc(zero, 0, 0, NULL, labels, &err), -1);
    assert_int_equal(cm_cpnsc(zero, 11, 0, NULL, labels, &err), -1);

    /* The embedding of the identity (S = I): finite, unit rows, both
     * solvers. */
    cm_matrix_t *sim = cm_similarity(zero, 1.0, &err);
    assert_non_null(sim);
    for (int sparse = 0; sparse < 2; sparse++) {
        cm_spectral_opts_t o;
        cm_spectral_opts_default(&o);
        if (sparse)
            o.dense_max = 0;
        double U[10 * 3];
        assert_int_equal(cm_spectral_embedding(sim, 3, &o, U, NULL, &err), 0);
        for (int i = 0; i < 10; i++) {
            double s = 0;
            for (int t = 0; t < 3; t++) {
                assert_true(isfinite(U[i * 3 + t]));
                s += U[i * 3 + t] * U[i * 3 + t];
            }
            assert_true(s == 0.0 || fabs(s - 1.0) < 1e-12);
        }
    }
    cm_matrix_free(sim);
    cm_matrix_free(zero);
}

/* ---- real data ---------------------------------------------------------- */

static void test_cg_s_64(void **state)
{
    (void)state;
    cm_error_t err = { "" };
    cm_matrix_t *m = cm_matrix_read(cm_test_data_path("matrices/cg.S.64.mtx"),
                                    CM_FORMAT_AUTO, &err);
    assert_non_null(m);
    assert_int_equal(cm_matrix_n(m), 64);
    int labels[64], again[64];
    assert_int_equal(cm_cpnsc(m, 8, 1, NULL, labels, &err), 0);
    check_labels(labels, 64, 8);
    cm_spectral_opts_t o = opts_sparse();
    o.tol = 1e-9;
    assert_int_equal(cm_cpnsc(m, 8, 1, &o, again, &err), 0);
    check_labels(again, 64, 8);
    /* Clustering keeps most traffic inside clusters: at least half of
     * the off-diagonal volume. */
    double in = 0, all = 0;
    for (int i = 0; i < 64; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        for (int e = 0; e < len; e++) {
            if (cols[e] == i)
                continue;
            all += bytes[e];
            if (labels[cols[e]] == labels[i])
                in += bytes[e];
        }
    }
    assert_true(in > 0.5 * all);
    cm_matrix_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_similarity_values),
        cmocka_unit_test(test_kmeans_hand_points),
        cmocka_unit_test(test_kmeans_deterministic),
        cmocka_unit_test(test_disjoint_cliques),
        cmocka_unit_test(test_weakly_linked_cliques),
        cmocka_unit_test(test_split_at_weak_edge),
        cmocka_unit_test(test_grid_8x8),
        cmocka_unit_test(test_dense_equals_sparse),
        cmocka_unit_test(test_clustered_eigenvalues),
        cmocka_unit_test(test_components_fewer_than_k),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_cg_s_64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
