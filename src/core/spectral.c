/* spectral.c -- CP-NSC, Wang et al.'s normalised spectral clustering
 * (algorithm 1; docs/design.md, "Where each method comes from"):
 * similarity, normalised spectral embedding, k-means.  The sparse
 * eigen-solver lives in spectral_sparse.c, k-means in kmeans.c. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spectral_internal.h"

/* Work bound of the k-means restarts in cm_cpnsc (points x k x dimension
 * summed over runs): one run at n = 16384, k = 64 takes ~0.45 s on one
 * core (~30 Lloyd iterations); 1e8 allows a single run there, 5 at k = 32,
 * the full 8 below n k^2 = 1.25e7. */
#define KMEANS_BUDGET 1e8

void cm_spectral_opts_default(cm_spectral_opts_t *o)
{
    o->max_similarity = CM_MAX_SIMILARITY_DEFAULT;
    o->dense_max = CM_DENSE_MAX_DEFAULT;
    o->tol = 1e-4;
    o->max_iter = 200;
    o->kmeans_restarts = 8;
    o->kmeans_max_iter = 100;
}

cm_matrix_t *cm_similarity(const cm_matrix_t *sym, double max_similarity,
                           cm_error_t *err)
{
    if (!sym) {
        cm_error_set(err, "cm_similarity: expected a matrix, got NULL");
        return NULL;
    }
    if (!(max_similarity > 0.0) || !isfinite(max_similarity)) {
        cm_error_set(err, "cm_similarity: expected a finite max_similarity "
                     "> 0, got %g", max_similarity);
        return NULL;
    }
    int n = cm_matrix_n(sym);
    double vmax = 0.0;
    for (int i = 0; i < n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(sym, i, &cols, &bytes, &msgs, &len);
        for (int e = 0; e < len; e++)
            if (cols[e] != i && bytes[e] > vmax)
                vmax = bytes[e];
    }
    cm_builder_t *b = cm_builder_new(n, err);
    if (!b)
        return NULL;
    for (int i = 0; i < n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(sym, i, &cols, &bytes, &msgs, &len);
        if (cm_builder_add(b, i, i, CM_SELF_SIMILARITY, 0.0, err) != 0)
            goto fail;
        for (int e = 0; e < len; e++) {
            if (cols[e] == i || !(bytes[e] > 0.0))
                continue;
            double s = max_similarity * (bytes[e] / vmax);
            if (!(s > 0.0))
                s = 0x1p-1000; /* keep an edge an edge, however weak */
            if (cm_builder_add(b, i, cols[e], s, 0.0, err) != 0)
                goto fail;
        }
    }
    cm_matrix_t *s = cm_builder_finish(b, err);
    cm_builder_free(b);
    return s;
fail:
    cm_builder_free(b);
    return NULL;
}

int cm_components(const cm_matrix_t *sym, int *comp, cm_error_t *err)
{
    int n = cm_matrix_n(sym);
    int *queue = malloc(sizeof(int) * (size_t)n);
    if (!queue)
        return cm_error_set(err, "cm_components: out of memory for %d ranks",
                            n);
    for (int i = 0; i < n; i++)
        comp[i] = -1;
    int count = 0;
    for (int s = 0; s < n; s++) {
        if (comp[s] >= 0)
            continue;
        int head = 0, tail = 0;
        queue[tail++] = s;
        comp[s] = count;
        while (head < tail) {
            int v = queue[head++];
            const int *cols;
            const double *bytes, *msgs;
            int len;
            cm_matrix_row(sym, v, &cols, &bytes, &msgs, &len);
            for (int e = 0; e < len; e++) {
                int u = cols[e];
                /* An entry with no bytes (messages only) still links. */
                if (comp[u] < 0) {
                    comp[u] = count;
                    queue[tail++] = u;
                }
            }
        }
        count++;
    }
    free(queue);
    return count;
}

/* M = D^-1/2 S D^-1/2 in CSR; a row of zero degree becomes an isolated
 * vertex (M_ii = 1).  sqrtd[i] receives sqrt(D_ii) (1 when isolated). */
static int scaled_csr(const cm_matrix_t *sim, cm_csr_t *M, double *sqrtd,
                      cm_error_t *err)
{
    int n = cm_matrix_n(sim);
    M->n = n;
    M->ptr = malloc(sizeof(size_t) * ((size_t)n + 1));
    if (!M->ptr)
        return cm_error_set(err, "spectral: out of memory normalising a %d x "
                            "%d similarity matrix", n, n);
    M->ptr[0] = 0;
    for (int i = 0; i < n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(sim, i, &cols, &bytes, &msgs, &len);
        double d = 0.0;
        int has_diag = 0;
        for (int e = 0; e < len; e++) {
            if (bytes[e] < 0.0 || !isfinite(bytes[e])) {
                free(M->ptr);
                return cm_error_set(err, "spectral: similarity of ranks %d "
                                    "and %d: expected a finite value >= 0, "
                                    "got %g", i, cols[e], bytes[e]);
            }
            d += bytes[e];
            has_diag |= cols[e] == i;
        }
        sqrtd[i] = d > 0.0 ? sqrt(d) : 0.0;
        M->ptr[i + 1] = M->ptr[i] + (size_t)len + (d > 0.0 || has_diag ? 0 : 1);
    }
    size_t nnz = M->ptr[n];
    M->col = malloc(sizeof(int) * (nnz ? nnz : 1));
    M->val = malloc(sizeof(double) * (nnz ? nnz : 1));
    if (!M->col || !M->val) {
        free(M->ptr); free(M->col); free(M->val);
        return cm_error_set(err, "spectral: out of memory normalising a %d x "
                            "%d similarity matrix (%zu nonzeros)", n, n, nnz);
    }
    for (int i = 0; i < n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(sim, i, &cols, &bytes, &msgs, &len);
        size_t at = M->ptr[i];
        if (sqrtd[i] == 0.0) {
            /* Isolated: only the self-similarity 1 remains. */
            for (size_t e = at; e < M->ptr[i + 1]; e++) {
                M->col[e] = i;
                M->val[e] = 0.0;
            }
            M->val[at] = 1.0;
            continue;
        }
        for (int e = 0; e < len; e++) {
            int j = cols[e];
            M->col[at] = j;
            M->val[at] = sqrtd[j] > 0.0 ? bytes[e] / (sqrtd[i] * sqrtd[j]) : 0.0;
            at++;
        }
    }
    for (int i = 0; i < n; i++)
        if (sqrtd[i] == 0.0)
            sqrtd[i] = 1.0;
    return 0;
}

static void csr_free(cm_csr_t *M)
{
    free(M->ptr);
    free(M->col);
    free(M->val);
}

/* Dense path: the k largest eigenpairs of M with LAPACKE_dsyevr. */
static int dense_top(const cm_csr_t *M, int k, double *V, double *lambda,
                     cm_error_t *err)
{
    int n = M->n;
    double *A = calloc((size_t)n * n, sizeof(double));
    double *w = malloc(sizeof(double) * n);
    double *Z = malloc(sizeof(double) * (size_t)n * k);
    lapack_int *isuppz = malloc(sizeof(lapack_int) * 2 * (size_t)k);
    int rc = 0;
    if (!A || !w || !Z || !isuppz) {
        rc = cm_error_set(err, "spectral: out of memory for a dense %d x %d "
                          "eigenproblem (%d eigenvectors)", n, n, k);
        goto out;
    }
    for (int i = 0; i < n; i++)
        for (size_t e = M->ptr[i]; e < M->ptr[i + 1]; e++)
            A[(size_t)i * n + M->col[e]] += M->val[e];
    lapack_int found = 0;
    lapack_int info = LAPACKE_dsyevr(LAPACK_ROW_MAJOR, 'V', 'I', 'U', n, A, n,
                                     0.0, 0.0, n - k + 1, n, 0.0, &found, w,
                                     Z, k, isuppz);
    if (info == 0 && found != k) {
        /* dsyevr's MRRR may return fewer eigenvalues of an index range
         * than asked when they are tightly clustered (repeated eigenvalue
         * 1 of a graph in several components): solve the whole spectrum
         * with the QL/QR path instead and keep the top k. */
        memset(A, 0, sizeof(double) * (size_t)n * n);
        for (int i = 0; i < n; i++)
            for (size_t e = M->ptr[i]; e < M->ptr[i + 1]; e++)
                A[(size_t)i * n + M->col[e]] += M->val[e];
        double *wa = malloc(sizeof(double) * n);
        if (!wa) {
            rc = cm_error_set(err, "spectral: out of memory for the %d "
                              "eigenvalues of the dsyev fallback", n);
            goto out;
        }
        info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', n, A, n, wa);
        if (info == 0) {
            /* Ascending: column n-1-j of A is the j-th largest. */
            for (int j = 0; j < k; j++) {
                lambda[j] = wa[n - 1 - j];
                for (int i = 0; i < n; i++)
                    V[(size_t)i * k + j] = A[(size_t)i * n + (n - 1 - j)];
            }
        }
        free(wa);
        if (info != 0)
            rc = cm_error_set(err, "spectral: LAPACK dsyev failed (info %d) "
                              "on a %d x %d normalised similarity matrix, the "
                              "fallback after dsyevr found %d of %d eigenvalues",
                              (int)info, n, n, (int)found, k);
        goto out;
    }
    if (info != 0) {
        rc = cm_error_set(err, "spectral: LAPACK dsyevr failed (info %d) on "
                          "a %d x %d normalised similarity matrix, %d of the %d "
                          "largest eigenvalues found", (int)info, n, n,
                          (int)found, k);
        goto out;
    }
    /* Ascending from dsyevr: column j of V is eigenvalue k-1-j. */
    for (int j = 0; j < k; j++) {
        lambda[j] = w[k - 1 - j];
        for (int i = 0; i < n; i++)
            V[(size_t)i * k + j] = Z[(size_t)i * k + (k - 1 - j)];
    }
out:
    free(A); free(w); free(Z); free(isuppz);
    return rc;
}

int cm_spectral_embedding(const cm_matrix_t *sim, int k,
                          const cm_spectral_opts_t *opts, double *U,
                          cm_spectral_info_t *info, cm_error_t *err)
{
    cm_spectral_opts_t defaults;
    if (!opts) {
        cm_spectral_opts_default(&defaults);
        opts = &defaults;
    }
    if (!sim || !U)
        return cm_error_set(err, "cm_spectral_embedding: expected a matrix "
                            "and U, got NULL");
    int n = cm_matrix_n(sim);
    if (k < 1 || k > n)
        return cm_error_set(err, "cm_spectral_embedding: expected 1 <= k <= "
                            "n=%d, got k=%d", n, k);
    cm_csr_t M;
    double *sqrtd = malloc(sizeof(double) * (size_t)n);
    double *lambda = malloc(sizeof(double) * (size_t)k);
    if (!sqrtd || !lambda) {
        free(sqrtd); free(lambda);
        return cm_error_set(err, "spectral: out of memory for the embedding "
                            "of %d ranks (k=%d)", n, k);
    }
    int rc = scaled_csr(sim, &M, sqrtd, err);
    if (rc != 0) {
        free(sqrtd); free(lambda);
        return rc;
    }
    if (n <= opts->dense_max) {
        rc = dense_top(&M, k, U, lambda, err);
        if (rc == 0 && info) {
            info->sparse = 0;
            info->iterations = 0;
            info->matvecs = 0;
            info->residual = 0.0;
            info->converged = 1;
            info->lambda_k = lambda[k - 1];
        }
    } else {
        /* D^1/2 1 spans the eigenvalue 1 of a connected graph: start there. */
        rc = cm_eigs_top(&M, k, sqrtd, opts, U, lambda, info, err);
    }
    csr_free(&M);
    free(sqrtd);
    free(lambda);
    if (rc != 0)
        return rc;
    for (int i = 0; i < n; i++) {
        double *u = U + (size_t)i * k, s = 0.0;
        for (int j = 0; j < k; j++)
            s += u[j] * u[j];
        /* A zero row has no direction: leave it at the origin. */
        if (s > 0.0) {
            s = 1.0 / sqrt(s);
            for (int j = 0; j < k; j++)
                u[j] *= s;
        }
    }
    return 0;
}

/* >= k components: unions of whole components, balanced by size. */
static int pack_components(const int *comp, int ncomp, int n, int k,
                           int *labels, cm_error_t *err)
{
    int *size = calloc((size_t)ncomp, sizeof(int));
    int *order = malloc(sizeof(int) * (size_t)ncomp);
    int *to = malloc(sizeof(int) * (size_t)ncomp);
    long *load = calloc((size_t)k, sizeof(long));
    int *first = malloc(sizeof(int) * (size_t)k);
    if (!size || !order || !to || !load || !first) {
        free(size); free(order); free(to); free(load); free(first);
        return cm_error_set(err, "spectral: out of memory packing %d "
                            "components into %d clusters", ncomp, k);
    }
    for (int i = 0; i < n; i++)
        size[comp[i]]++;
    /* Counting sort: largest size first, component order within a size. */
    int maxs = 0;
    for (int c = 0; c < ncomp; c++)
        if (size[c] > maxs)
            maxs = size[c];
    int *start = calloc((size_t)maxs + 2, sizeof(int));
    if (!start) {
        free(size); free(order); free(to); free(load); free(first);
        return cm_error_set(err, "spectral: out of memory packing %d "
                            "components into %d clusters (largest %d ranks)",
                            ncomp, k, maxs);
    }
    for (int c = 0; c < ncomp; c++)
        start[maxs - size[c] + 1]++;
    for (int s = 1; s <= maxs + 1; s++)
        start[s] += start[s - 1];
    for (int c = 0; c < ncomp; c++)
        order[start[maxs - size[c]]++] = c;
    free(start);
    for (int r = 0; r < ncomp; r++) {
        int c = order[r], best = 0;
        for (int q = 1; q < k; q++)
            if (load[q] < load[best])
                best = q;
        to[c] = best;
        load[best] += size[c];
    }
    for (int q = 0; q < k; q++)
        first[q] = -1;
    int next = 0;
    for (int i = 0; i < n; i++) {
        int q = to[comp[i]];
        if (first[q] < 0)
            first[q] = next++;
        labels[i] = first[q];
    }
    free(size); free(order); free(to); free(load); free(first);
    return 0;
}

int cm_cpnsc(const cm_matrix_t *m, int k, uint64_t seed,
             const cm_spectral_opts_t *opts, int *labels, cm_error_t *err)
{
    cm_spectral_opts_t defaults;
    if (!opts) {
        cm_spectral_opts_default(&defaults);
        opts = &defaults;
    }
    if (!m || !labels)
        return cm_error_set(err, "cm_cpnsc: expected a matrix and labels, "
                            "got NULL");
    int n = cm_matrix_n(m);
    if (k < 1 || k > n)
        return cm_error_set(err, "cm_cpnsc: expected 1 <= k <= n=%d clusters, "
                            "got k=%d", n, k);
    int rc = -1;
    cm_matrix_t *sym = cm_matrix_symmetrize(m, err);
    cm_matrix_t *sim = NULL;
    double *U = NULL;
    int *comp = malloc(sizeof(int) * (size_t)n);
    if (!sym)
        goto out;
    if (!comp) {
        cm_error_set(err, "spectral: out of memory for the components of %d "
                     "ranks", n);
        goto out;
    }
    int ncomp = cm_components(sym, comp, err);
    if (ncomp < 0)
        goto out;
    if (ncomp >= k) {
        rc = pack_components(comp, ncomp, n, k, labels, err);
        goto out;
    }
    sim = cm_similarity(sym, opts->max_similarity, err);
    if (!sim)
        goto out;
    U = malloc(sizeof(double) * (size_t)n * k);
    if (!U) {
        cm_error_set(err, "spectral: out of memory for a %d x %d embedding",
                     n, k);
        goto out;
    }
    if (cm_spectral_embedding(sim, k, opts, U, NULL, err) != 0)
        goto out;
    /* Restarts cost O(n k^2) each: fewer on large problems. */
    int restarts = opts->kmeans_restarts;
    while (restarts > 1 && (double)restarts * n * k * k > KMEANS_BUDGET)
        restarts--;
    rc = cm_kmeans(U, n, k, k, restarts, seed,
                   opts->kmeans_max_iter, labels, NULL, err);
out:
    free(U);
    free(comp);
    cm_matrix_free(sim);
    cm_matrix_free(sym);
    return rc;
}
