/*
 * spectral_internal.h -- CP-NSC spectral clustering (Wang et al.,
 * algorithm 1; docs/design.md, "Where each method comes from"), the
 * building block of the level-by-level placement driver.  Internal to
 * src/core: not part of the public API in clustermap.h.
 *
 * Pipeline of cm_cpnsc():
 *   A' = A + A^T                          cm_matrix_symmetrize()
 *   S  = similarity of A'                 cm_similarity()
 *   U  = k leading eigenvectors of        cm_spectral_embedding()
 *        M = D^-1/2 S D^-1/2 (= k smallest of L = I - M), rows normalised
 *   labels = k-means on the rows of U     cm_kmeans()
 *
 * Everything is deterministic: the only randomness comes from cm_rng_t
 * generators seeded by the caller's seed (or a fixed constant for the
 * eigen-solver's start block).  No global state; reentrant.
 */
#ifndef CM_SPECTRAL_INTERNAL_H
#define CM_SPECTRAL_INTERNAL_H

#include <stdint.h>

#include "clustermap.h"

/** Self-similarity of a rank (SELF_SIMILARITY of the paper). */
#define CM_SELF_SIMILARITY 1.0
/** Default largest off-diagonal similarity (MAX_SIMILARITY of the paper,
 *  which leaves the value open; equal to the self-similarity here). */
#define CM_MAX_SIMILARITY_DEFAULT 1.0
/** Largest n solved by the dense LAPACK eigen-solver by default.  Above it
 *  the sparse block solver runs.  Measured on a 2-D grid, k = 16, one core:
 *  n = 1024 dense 0.094 s vs sparse 0.008 s; n = 1520 0.20 s vs 0.018 s;
 *  dense costs O(n^3) and O(n^2) memory, so it only serves small graphs,
 *  where it is exact and still takes a few milliseconds. */
#define CM_DENSE_MAX_DEFAULT 512

/** Knobs of the spectral step; cm_spectral_opts_default() fills defaults. */
typedef struct cm_spectral_opts {
    double max_similarity; /**< (0, inf): largest off-diagonal similarity */
    int dense_max;         /**< n <= dense_max: dense LAPACKE_dsyevr;
                                0 forces the sparse solver (tests) */
    double tol;            /**< sparse solver: stop when every wanted Ritz
                                pair has ||M x - theta x|| <= tol (default
                                1e-4, x of unit norm: well below the
                                eigen-gaps k-means can see; 1e-4 and 1e-6
                                give clusters of the same cut on grids) */
    int max_iter;          /**< sparse solver: outer iterations (200),
                                each a degree-20 filter on the block */
    int kmeans_restarts;   /**< k-means runs, best inertia kept (8);
                                cm_cpnsc() lowers it on large problems
                                so that runs x n x k^2 <= 1e8 (>= 1 run) */
    int kmeans_max_iter;   /**< Lloyd iterations per run (100) */
} cm_spectral_opts_t;

void cm_spectral_opts_default(cm_spectral_opts_t *o);

/** What the eigen-solver did (all fields filled by every call). */
typedef struct cm_spectral_info {
    int sparse;           /**< 1 when the sparse solver ran */
    int iterations;       /**< outer (filter + Rayleigh-Ritz) iterations */
    long matvecs;         /**< products M x of single vectors */
    double residual;      /**< largest ||M x - theta x|| of the k vectors */
    int converged;        /**< residual <= tol (always 1 for dense) */
    double lambda_k;      /**< k-th largest eigenvalue of M found */
} cm_spectral_info_t;

/** Similarity of the symmetric volume @p sym (A + A^T, no diagonal, as
 *  cm_matrix_symmetrize() returns) as in CP-NSC: every diagonal entry is
 *  CM_SELF_SIMILARITY (1), every stored off-diagonal volume v becomes
 *  max_similarity * v / vmax, vmax the largest off-diagonal volume (linear
 *  scaling into (0, max_similarity]).  A diagonal of @p sym is ignored.
 *  Returns a new symmetric matrix (similarity in bytes, msgs 0), n x n with
 *  nnz(sym off-diagonal) + n entries. */
cm_matrix_t *cm_similarity(const cm_matrix_t *sym, double max_similarity,
                           cm_error_t *err);

/** The k leading eigenvectors of M = D^-1/2 S D^-1/2 (D = row sums of
 *  @p sim, which must be symmetric with non-negative entries), i.e. the k
 *  smallest of the normalised Laplacian L = I - M, then each row scaled to
 *  unit length.  Rows of zero norm stay zero; a row with zero degree counts
 *  as if it had self-similarity 1 (an isolated vertex).
 *  @p U is n x k, row-major, caller-allocated; column j belongs to the
 *  (j+1)-th largest eigenvalue of M.  1 <= k <= n.
 *  n <= opts->dense_max: LAPACKE_dsyevr on a dense copy (O(n^2) memory);
 *  otherwise a Chebyshev-filtered block subspace iteration with
 *  Rayleigh-Ritz (O(n k + nnz) memory, never an n x n matrix), which finds
 *  repeated eigenvalues (disconnected graphs, symmetric grids) as well as
 *  simple ones.  @p opts and @p info may be NULL. */
int cm_spectral_embedding(const cm_matrix_t *sim, int k,
                          const cm_spectral_opts_t *opts, double *U,
                          cm_spectral_info_t *info, cm_error_t *err);

/** k-means on @p n points of dimension @p d (@p X row-major n x d).
 *  k-means++ seeding from a cm_rng_t seeded with @p seed, @p restarts >= 1
 *  runs (one generator for all), Lloyd iterations until no label changes or
 *  @p max_iter; keeps the run of lowest inertia (first on ties).  A point
 *  changes cluster only when strictly closer to another centre; an empty
 *  cluster takes the point farthest from its centre among clusters with two
 *  or more points, so with n >= k every cluster is non-empty.  Clusters are
 *  numbered 0..k-1 in order of their smallest point index.  @p inertia (may
 *  be NULL) receives the sum of squared distances to the centres.
 *  O(n k d) per iteration.  1 <= k <= n. */
int cm_kmeans(const double *X, int n, int d, int k, int restarts,
              uint64_t seed, int max_iter, int *labels, double *inertia,
              cm_error_t *err);

/** Whole CP-NSC: k clusters of the ranks of @p m (any directed matrix;
 *  only A + A^T is used), @p labels[n] in 0..k-1, every cluster non-empty,
 *  numbered in order of their smallest rank.  1 <= k <= n.
 *  When the communication graph has at least k connected components
 *  (counting ranks that talk to nobody), the leading eigenvalue 1 is
 *  repeated at least k times and spectral clustering carries no more
 *  information than the components: the clusters are then unions of whole
 *  components, balanced by size (largest component first into the
 *  currently smallest cluster).  @p opts may be NULL (defaults). */
int cm_cpnsc(const cm_matrix_t *m, int k, uint64_t seed,
             const cm_spectral_opts_t *opts, int *labels, cm_error_t *err);

/** Connected components of the off-diagonal graph of symmetric @p sym:
 *  comp[n] in 0..count-1, numbered in order of their smallest vertex.
 *  Returns the count, -1 on allocation failure. */
int cm_components(const cm_matrix_t *sym, int *comp, cm_error_t *err);

/* ---- between spectral.c and the sparse solver (spectral_sparse.c) ---- */

/** A symmetric sparse matrix in CSR form (both triangles stored). */
typedef struct cm_csr {
    int n;
    size_t *ptr;  /**< n + 1 row starts */
    int *col;     /**< column of each entry */
    double *val;  /**< value of each entry */
} cm_csr_t;

/** The k largest eigenpairs of @p M, whose spectrum must lie in [-1, 1]
 *  (true for D^-1/2 S D^-1/2): Chebyshev-filtered block subspace iteration
 *  with a block of k + guard vectors, Householder QR and Rayleigh-Ritz.
 *  @p v0 (may be NULL) is a known or guessed leading vector that starts the
 *  block; the other start vectors come from a fixed-seed cm_rng_t.
 *  @p V n x k row-major (orthonormal columns), @p lambda[k] descending.
 *  Stops when every one of the k Ritz pairs has residual <= opts->tol or
 *  after opts->max_iter iterations (then info->converged = 0; the vectors
 *  are still the best found, and 0 is returned). */
int cm_eigs_top(const cm_csr_t *M, int k, const double *v0,
                const cm_spectral_opts_t *opts, double *V, double *lambda,
                cm_spectral_info_t *info, cm_error_t *err);

#endif /* CM_SPECTRAL_INTERNAL_H */
