/* spectral_sparse.c -- leading eigenvectors of a large sparse symmetric
 * matrix without forming it densely: Chebyshev-filtered block subspace
 * iteration with Rayleigh-Ritz.
 *
 * Why a block method of our own rather than ARPACK: graphs of MPI jobs are
 * often disconnected or symmetric (grids, tori), so the wanted eigenvalues
 * repeat; single-vector Lanczos finds one vector per distinct eigenvalue
 * and restarts from an internal random generator whose state is global
 * (Fortran SAVE), which breaks both reproducibility between calls and
 * reentrancy.  A block of k + guard vectors finds repeated eigenvalues
 * directly, every step is deterministic, and the dense kernels are BLAS 3.
 *
 * One iteration: Y = p(M) X with p the scaled Chebyshev polynomial of
 * degree m that is bounded by 1 on [a, b] (the unwanted part of the
 * spectrum: a = its estimated lower end, b = the smallest Ritz value of
 * the block) and grows fast
 * above b; X = qr(Y); Rayleigh-Ritz on X.  All blocks are n x p row-major so
 * that the sparse product streams each row of M once for all p vectors. */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spectral_internal.h"

/* Degree of the Chebyshev filter per iteration. */
#define CHEB_DEGREE 20

/* The block size is a multiple of this (SIMD width of the inner loops). */
#define LANES 8

/* Fixed seed of the start block: results do not depend on the caller. */
#define START_SEED 0x43502d4e5343ULL /* "CP-NSC" */

/* Y_out[i] = alpha * ((M Y)[i] - c Y[i]) - beta * Y_prev[i], row by row;
 * Y_out may be Y_prev (row i of Y_prev is read before row i is written). */
static void cheb_step(const cm_csr_t *M, int p, const double *Y, double *out,
                      double alpha, double c, double beta)
{
    for (int i = 0; i < M->n; i++) {
        double acc[p];
        const double *yi = Y + (size_t)i * p;
        for (int t = 0; t < p; t++)
            acc[t] = -c * yi[t];
        for (size_t e = M->ptr[i]; e < M->ptr[i + 1]; e++) {
            const double v = M->val[e];
            const double *yj = Y + (size_t)M->col[e] * p;
            /* Fixed-length inner loops vectorise at -O2; p is a multiple
             * of LANES except when the block is the whole space (p = n). */
            if (p % LANES == 0)
                for (int t = 0; t < p; t += LANES)
                    for (int u = 0; u < LANES; u++)
                        acc[t + u] += v * yj[t + u];
            else
                for (int t = 0; t < p; t++)
                    acc[t] += v * yj[t];
        }
        double *o = out + (size_t)i * p;
        if (beta == 0.0)
            for (int t = 0; t < p; t++)
                o[t] = alpha * acc[t];
        else
            for (int t = 0; t < p; t++)
                o[t] = alpha * acc[t] - beta * o[t];
    }
}

/* Orthonormalise the columns of Y (n x p row-major) by Householder.  The
 * row-major n x p block is the column-major p x n matrix Y^T, whose rows
 * an LQ factorisation orthonormalises without a transposed copy. */
static int householder(double *Y, int n, int p, double *tau)
{
    if (LAPACKE_dgelqf(LAPACK_COL_MAJOR, p, n, Y, p, tau) != 0)
        return -1;
    if (LAPACKE_dorglq(LAPACK_COL_MAJOR, p, n, p, Y, p, tau) != 0)
        return -1;
    return 0;
}

/* One Cholesky-QR pass: Y <- Y R^-1 with R^T R = Y^T Y.  All BLAS 3, but
 * it squares the condition number: -1 when the Gram matrix is not
 * numerically positive definite. */
static int cholqr(double *Y, int n, int p, double *G)
{
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, p, n, 1.0, Y, p, 0.0, G, p);
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', p, G, p) != 0)
        return -1;
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans,
                CblasNonUnit, n, p, 1.0, G, p, Y, p);
    return 0;
}

/* Orthonormalise the columns of Y.  @p growth bounds the condition number
 * of Y (how much the filter amplified its strongest direction over its
 * weakest): below 1e6 two Cholesky-QR passes are accurate and several
 * times faster than Householder, which remains the fallback. */
static int orthonormalise(double *Y, int n, int p, double growth, double *G,
                          double *tau)
{
    if (growth < 1e6 && cholqr(Y, n, p, G) == 0 && cholqr(Y, n, p, G) == 0)
        return 0;
    /* A failed pass left Y scaled by a partial factor at most: its column
     * span is unchanged, so Householder starts from a valid block. */
    return householder(Y, n, p, tau);
}

/* Lower end of the spectrum of M, estimated by a short Lanczos run (the
 * extreme Ritz values converge first; no reorthogonalisation needed for
 * them), less a margin.  A tighter interval [a, b] makes the filter
 * sharper than the safe a = -1: about 10% fewer iterations on grids. */
static double spectrum_floor(const cm_csr_t *M, cm_rng_t *rng)
{
    enum { STEPS = 40 };
    int n = M->n, steps = n < STEPS ? n : STEPS;
    double *v = malloc(sizeof(double) * (size_t)n);
    double *vold = calloc((size_t)n, sizeof(double));
    double *wv = malloc(sizeof(double) * (size_t)n);
    double alpha[STEPS], beta[STEPS];
    double lo = -1.0;
    if (!v || !vold || !wv)
        goto out;
    double nrm = 0.0;
    for (int i = 0; i < n; i++) {
        v[i] = 2.0 * cm_rng_double(rng) - 1.0;
        nrm += v[i] * v[i];
    }
    nrm = sqrt(nrm);
    for (int i = 0; i < n; i++)
        v[i] /= nrm;
    int m = 0;
    double b = 0.0;
    for (; m < steps; m++) {
        double a = 0.0;
        for (int i = 0; i < n; i++) {
            double acc = 0.0;
            for (size_t e = M->ptr[i]; e < M->ptr[i + 1]; e++)
                acc += M->val[e] * v[M->col[e]];
            wv[i] = acc - b * vold[i];
            a += wv[i] * v[i];
        }
        alpha[m] = a;
        b = 0.0;
        for (int i = 0; i < n; i++) {
            wv[i] -= a * v[i];
            b += wv[i] * wv[i];
        }
        b = sqrt(b);
        beta[m] = b;
        if (b < 1e-10) {
            m++;
            break;
        }
        for (int i = 0; i < n; i++) {
            vold[i] = v[i];
            v[i] = wv[i] / b;
        }
    }
    if (LAPACKE_dstev(LAPACK_COL_MAJOR, 'N', m, alpha, beta, NULL, 1) == 0) {
        lo = alpha[0] - 0.02; /* ascending */
        if (lo < -1.0)
            lo = -1.0;
    }
out:
    free(v); free(vold); free(wv);
    return lo;
}

typedef struct ws {
    int n, p;
    double *X, *W, *T; /* n x p blocks */
    double *H, *theta, *tau, *res;
} ws_t;

static void ws_free(ws_t *w)
{
    free(w->X); free(w->W); free(w->T);
    free(w->H); free(w->theta); free(w->tau); free(w->res);
}

/* Rayleigh-Ritz on the orthonormal block w->X: afterwards X holds the Ritz
 * vectors with theta descending, W = M X, res[j] = |W_j - theta_j X_j|. */
static int rayleigh_ritz(const cm_csr_t *M, ws_t *w)
{
    int n = w->n, p = w->p;
    cheb_step(M, p, w->X, w->W, 1.0, 0.0, 0.0);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, p, p, n, 1.0,
                w->X, p, w->W, p, 0.0, w->H, p);
    for (int i = 0; i < p; i++)
        for (int j = 0; j < i; j++) {
            double s = 0.5 * (w->H[i * p + j] + w->H[j * p + i]);
            w->H[i * p + j] = w->H[j * p + i] = s;
        }
    if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', p, w->H, p, w->theta) != 0)
        return -1;
    /* dsyev sorts ascending: reverse the columns and values. */
    for (int j = 0; j < p / 2; j++) {
        double t = w->theta[j];
        w->theta[j] = w->theta[p - 1 - j];
        w->theta[p - 1 - j] = t;
        for (int i = 0; i < p; i++) {
            t = w->H[i * p + j];
            w->H[i * p + j] = w->H[i * p + p - 1 - j];
            w->H[i * p + p - 1 - j] = t;
        }
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, p, p, 1.0,
                w->X, p, w->H, p, 0.0, w->T, p);
    double *sw = w->X; w->X = w->T; w->T = sw;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, p, p, 1.0,
                w->W, p, w->H, p, 0.0, w->T, p);
    sw = w->W; w->W = w->T; w->T = sw;
    for (int j = 0; j < p; j++)
        w->res[j] = 0.0;
    for (int i = 0; i < n; i++) {
        const double *x = w->X + (size_t)i * p, *y = w->W + (size_t)i * p;
        for (int j = 0; j < p; j++) {
            double e = y[j] - w->theta[j] * x[j];
            w->res[j] += e * e;
        }
    }
    for (int j = 0; j < p; j++)
        w->res[j] = sqrt(w->res[j]);
    return 0;
}

int cm_eigs_top(const cm_csr_t *M, int k, const double *v0,
                const cm_spectral_opts_t *opts, double *V, double *lambda,
                cm_spectral_info_t *info, cm_error_t *err)
{
    int n = M->n;
    if (k < 1 || k > n)
        return cm_error_set(err, "cm_eigs_top: expected 1 <= k <= n=%d, got k=%d",
                            n, k);
    /* The guard vectors make the wanted Ritz pairs converge at a rate set
     * by the gap to eigenvalue p+1, not k+1, which may be zero (repeated
     * eigenvalues, symmetric grids). */
    int guard = k / 2 > 8 ? k / 2 : 8;
    int p = (k + guard + LANES - 1) / LANES * LANES;
    if (p > n)
        p = n;
    ws_t w = { .n = n, .p = p };
    size_t blk = (size_t)n * p;
    w.X = malloc(sizeof(double) * blk);
    w.W = malloc(sizeof(double) * blk);
    w.T = malloc(sizeof(double) * blk);
    w.H = malloc(sizeof(double) * p * p);
    w.theta = malloc(sizeof(double) * p);
    w.tau = malloc(sizeof(double) * p);
    w.res = malloc(sizeof(double) * p);
    if (!w.X || !w.W || !w.T || !w.H || !w.theta || !w.tau || !w.res) {
        ws_free(&w);
        return cm_error_set(err, "spectral: out of memory for the sparse "
                            "eigensolver (%d ranks, block of %d vectors)", n, p);
    }

    cm_rng_t rng;
    cm_rng_seed(&rng, START_SEED);
    for (size_t e = 0; e < blk; e++)
        w.X[e] = 2.0 * cm_rng_double(&rng) - 1.0;
    if (v0)
        for (int i = 0; i < n; i++)
            w.X[(size_t)i * p] = v0[i];

    double lo = spectrum_floor(M, &rng);
    int rc = -1, iter = 0, conv = 0;
    long matvecs = 0;
    double worst = INFINITY;
    /* What failed, for the message: Householder is orthonormalise()'s
     * last resort, dsyev the Rayleigh-Ritz step. */
    const char *failed = "dgelqf/dorglq (orthonormalising the block)";
    if (orthonormalise(w.X, n, p, 1.0, w.H, w.tau) != 0)
        goto lapack_fail;
    for (;;) {
        if (rayleigh_ritz(M, &w) != 0) {
            failed = "dsyev (Rayleigh-Ritz)";
            goto lapack_fail;
        }
        matvecs += p;
        worst = 0.0;
        for (int j = 0; j < k; j++)
            if (w.res[j] > worst)
                worst = w.res[j];
        if (worst <= opts->tol || p == n) {
            conv = 1;
            break;
        }
        if (iter >= opts->max_iter)
            break;
        iter++;

        /* Filter interval [a, b]: everything below the block's smallest
         * Ritz value is damped; tau = where the top of the spectrum maps. */
        double a = lo, b = w.theta[p - 1], top = w.theta[0];
        if (b <= a + 1e-3)
            b = a + 1e-3;
        if (top <= b + 1e-12)
            top = b + 1e-12;
        double e = 0.5 * (b - a), c = 0.5 * (b + a);
        double tau = (top - c) / e;
        /* Y0 = X (in X), Y1 = (M - c) X / (e tau) (in T). */
        double sigma = 1.0 / tau;
        cheb_step(M, p, w.X, w.T, sigma / e, c, 0.0);
        double *prev = w.X, *cur = w.T;
        for (int j = 1; j < CHEB_DEGREE; j++) {
            double sigma_next = 1.0 / (2.0 * tau - sigma);
            cheb_step(M, p, cur, prev, 2.0 * sigma_next / e, c, sigma_next * sigma);
            double *t = prev; prev = cur; cur = t;
            sigma = sigma_next;
        }
        matvecs += (long)CHEB_DEGREE * p;
        if (cur != w.X) {
            w.T = w.X;
            w.X = cur;
        }
        double growth = cosh(CHEB_DEGREE * acosh(tau));
        if (orthonormalise(w.X, n, p, growth, w.H, w.tau) != 0)
            goto lapack_fail;
    }

    for (int i = 0; i < n; i++)
        memcpy(V + (size_t)i * k, w.X + (size_t)i * p, sizeof(double) * k);
    memcpy(lambda, w.theta, sizeof(double) * k);
    if (info) {
        info->sparse = 1;
        info->iterations = iter;
        info->matvecs = matvecs;
        info->residual = worst;
        info->converged = conv;
        info->lambda_k = w.theta[k - 1];
    }
    rc = 0;
    goto out;
lapack_fail:
    rc = cm_error_set(err, "spectral: LAPACK %s failed at iteration %d (%d "
                      "ranks, block of %d vectors)", failed, iter, n, p);
out:
    ws_free(&w);
    return rc;
}
