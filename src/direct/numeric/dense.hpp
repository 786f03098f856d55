// src/direct/numeric/dense.hpp: typed wrappers of the BLAS/LAPACK calls of the frontal kernels (OpenBLAS).
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <cblas.h>

#include <gigasparse/core/types.hpp>

extern "C" {
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, std::size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t);
void cpotrf_(const char* uplo, const int* n, void* a, const int* lda, int* info, std::size_t);
void zpotrf_(const char* uplo, const int* n, void* a, const int* lda, int* info, std::size_t);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void cgetrf_(const int* m, const int* n, void* a, const int* lda, int* ipiv, int* info);
void zgetrf_(const int* m, const int* n, void* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* t, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv, float* b,
             const int* ldb, int* info, std::size_t);
void dgetrs_(const char* t, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv, double* b,
             const int* ldb, int* info, std::size_t);
void cgetrs_(const char* t, const int* n, const int* nrhs, const void* a, const int* lda, const int* ipiv, void* b,
             const int* ldb, int* info, std::size_t);
void zgetrs_(const char* t, const int* n, const int* nrhs, const void* a, const int* lda, const int* ipiv, void* b,
             const int* ldb, int* info, std::size_t);
}


namespace gigasparse::direct::dense {

// OpenBLAS on one thread while the guard lives (the caller's threads are the parallelism), the previous count
// restored after, also when an exception leaves the scope.
struct OneBlasThread {
    const int saved = openblas_get_num_threads();
    OneBlasThread() { openblas_set_num_threads(1); }
    ~OneBlasThread() { openblas_set_num_threads(saved); }
    OneBlasThread(const OneBlasThread&) = delete;
    OneBlasThread& operator=(const OneBlasThread&) = delete;
};

using cf = std::complex<float>;
using cd = std::complex<double>;

// Lower Cholesky of the leading n x n block in place; returns LAPACK info (k > 0: not PD at k).
inline int potrf(int n, float* a, int lda) { int info = 0; spotrf_("L", &n, a, &lda, &info, 1); return info; }
inline int potrf(int n, double* a, int lda) { int info = 0; dpotrf_("L", &n, a, &lda, &info, 1); return info; }
inline int potrf(int n, cf* a, int lda) { int info = 0; cpotrf_("L", &n, a, &lda, &info, 1); return info; }
inline int potrf(int n, cd* a, int lda) { int info = 0; zpotrf_("L", &n, a, &lda, &info, 1); return info; }

// Dense LU with partial pivoting of an n x n matrix (the Schur complement's solve); info k > 0: U(k,k) = 0.
inline int getrf(int n, float* a, int lda, int* ipiv) { int info = 0; sgetrf_(&n, &n, a, &lda, ipiv, &info); return info; }
inline int getrf(int n, double* a, int lda, int* ipiv) { int info = 0; dgetrf_(&n, &n, a, &lda, ipiv, &info); return info; }
inline int getrf(int n, cf* a, int lda, int* ipiv) { int info = 0; cgetrf_(&n, &n, a, &lda, ipiv, &info); return info; }
inline int getrf(int n, cd* a, int lda, int* ipiv) { int info = 0; zgetrf_(&n, &n, a, &lda, ipiv, &info); return info; }
// Estimate of ||B||_1 for an n x n operator known by its products: Higham and Tisseur's block 1-norm estimator
// (SIAM J. Matrix Anal. Appl. 21, 2000, Algorithm 2.4; MATLAB's normest1) with t columns, followed by Higham's
// alternating-sign test vector (as LAPACK's xLACN2). apply(kase, X, c) overwrites the n x c column-major block X
// with B X (kase 1) or Bᴴ X (kase 2). A lower bound of ||B||_1 (every candidate is ||B x||_1 of a unit x).
// t = 1 is LAPACK's xLACN2 without its parallel-column safeguards; t = 2 (the default) escapes the ties and local
// maxima where t = 1 stops early (cage8: 20.2 instead of κ₁ = 58.2 with xLACN2).
template <class V, class F>
double block_norm1_estimate(std::int64_t n, F&& apply, int t = 2, int itmax = 5) {
    using R = real_t<V>;
    if (n <= 0) return 0;
    t = static_cast<int>(std::min<std::int64_t>(t, n));
    const std::size_t nn = static_cast<std::size_t>(n);
    std::vector<V> x(nn * static_cast<std::size_t>(t)), s(x.size()), s_old(x.size());
    std::uint64_t seed = 0x9E3779B97F4A7C15ull;  // fixed: the same estimate on every run
    auto random_sign = [&seed] {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        return (seed >> 11) & 1 ? R(1) : R(-1);
    };
    auto col = [&](std::vector<V>& m, int j) { return m.data() + static_cast<std::size_t>(j) * nn; };
    // Real ±1 columns: parallel when |u·v| = n.
    auto parallel = [&](const V* u, const V* v) {
        double d = 0;
        for (std::size_t i = 0; i < nn; ++i) d += static_cast<double>(std::real(u[i] * v[i]));
        return std::abs(d) >= static_cast<double>(n) - 0.5;
    };
    for (std::size_t i = 0; i < nn; ++i) x[i] = V(R(1) / static_cast<R>(n));
    for (int j = 1; j < t; ++j) {
        V* c = col(x, j);
        do {
            for (std::size_t i = 0; i < nn; ++i) c[i] = V(random_sign());
        } while (n > 1 && [&] {
            for (int q = 0; q < j; ++q) {
                double d = 0;
                for (std::size_t i = 0; i < nn; ++i) d += std::real(c[i]) * (std::real(col(x, q)[i]) > 0 ? 1.0 : -1.0);
                if (std::abs(d) >= static_cast<double>(n) - 0.5) return true;
            }
            return false;
        }());
        for (std::size_t i = 0; i < nn; ++i) c[i] /= static_cast<R>(n);
    }
    std::vector<char> used(nn, 0);
    std::vector<std::int64_t> ind(nn), ind_cols(static_cast<std::size_t>(t), -1);
    std::vector<double> h(nn);
    double est = 0, est_old = 0;
    std::int64_t ind_best = -1;
    for (int k = 1;; ++k) {
        apply(1, x.data(), t);  // Y = B X
        int best = 0;
        est = 0;
        for (int j = 0; j < t; ++j) {
            double c1 = 0;
            for (std::size_t i = 0; i < nn; ++i) c1 += static_cast<double>(std::abs(col(x, j)[i]));
            if (c1 > est) est = c1, best = j;
        }
        if (est > est_old || k == 2) ind_best = ind_cols[static_cast<std::size_t>(best)];
        if (k >= 2 && est <= est_old) {
            est = est_old;
            break;
        }
        est_old = est;
        if (k > itmax) break;
        s_old.swap(s);
        for (std::size_t e = 0; e < x.size(); ++e) {  // S = sign(Y)
            const double a = static_cast<double>(std::abs(x[e]));
            if constexpr (is_complex_v<V>) s[e] = a > 0 ? x[e] / static_cast<R>(a) : V(1);
            else s[e] = x[e] >= 0 ? V(1) : V(-1);
        }
        if constexpr (!is_complex_v<V>) {
            if (k > 1) {  // every column of S parallel to one of S_old: converged
                bool all = true;
                for (int j = 0; j < t && all; ++j) {
                    bool any = false;
                    for (int q = 0; q < t && !any; ++q) any = parallel(col(s, j), col(s_old, q));
                    all = any;
                }
                if (all) break;
            }
            for (int j = 0; j < t; ++j) {  // columns parallel to an earlier one or to S_old: resampled
                for (int tries = 0; tries < 20; ++tries) {
                    bool clash = false;
                    for (int q = 0; q < j && !clash; ++q) clash = parallel(col(s, j), col(s, q));
                    for (int q = 0; q < t && !clash && k > 1; ++q) clash = parallel(col(s, j), col(s_old, q));
                    if (!clash) break;
                    for (std::size_t i = 0; i < nn; ++i) col(s, j)[i] = V(random_sign());
                }
            }
        }
        x = s;
        apply(2, x.data(), t);  // Z = Bᴴ S
        for (std::size_t i = 0; i < nn; ++i) {
            double m = 0;
            for (int j = 0; j < t; ++j) m = std::max(m, static_cast<double>(std::abs(col(x, j)[i])));
            h[i] = m;
        }
        const double hmax = *std::max_element(h.begin(), h.end());
        if (k >= 2 && ind_best >= 0 && hmax == h[static_cast<std::size_t>(ind_best)]) break;
        for (std::size_t i = 0; i < nn; ++i) ind[i] = static_cast<std::int64_t>(i);
        std::stable_sort(ind.begin(), ind.end(), [&](std::int64_t a, std::int64_t b) { return h[a] > h[b]; });
        bool all_used = true;
        for (int j = 0; j < t; ++j) all_used = all_used && used[static_cast<std::size_t>(ind[j])];
        if (t > 1 && all_used) break;
        int filled = 0;
        for (std::size_t q = 0; q < nn && filled < t; ++q) {
            const std::int64_t i = ind[q];
            if (used[static_cast<std::size_t>(i)] && t > 1) continue;
            ind_cols[static_cast<std::size_t>(filled++)] = i;
        }
        if (filled < t) break;  // every unit vector tried
        std::fill(x.begin(), x.end(), V(0));
        for (int j = 0; j < t; ++j) {
            col(x, j)[ind_cols[static_cast<std::size_t>(j)]] = V(1);
            used[static_cast<std::size_t>(ind_cols[static_cast<std::size_t>(j)])] = 1;
        }
    }
    // Higham's test vector x_i = (-1)^i (1 + i/(n-1)), ||x||_1 normalized by 3n/2 (LAPACK's xLACN2 final step).
    std::vector<V> v(nn);
    for (std::size_t i = 0; i < nn; ++i)
        v[i] = V(static_cast<R>((i % 2 ? -1.0 : 1.0) * (1.0 + (n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) : 0.0))));
    apply(1, v.data(), 1);
    double alt = 0;
    for (std::size_t i = 0; i < nn; ++i) alt += static_cast<double>(std::abs(v[i]));
    return std::max(est, 2 * alt / (3 * static_cast<double>(n)));
}

// B ← op(A)⁻¹ B from getrf's factors (t: 'N', 'T' or 'C').
inline void getrs(int n, int nrhs, const float* a, int lda, const int* ipiv, float* b, int ldb, char t = 'N') {
    int info = 0; sgetrs_(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
}
inline void getrs(int n, int nrhs, const double* a, int lda, const int* ipiv, double* b, int ldb, char t = 'N') {
    int info = 0; dgetrs_(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
}
inline void getrs(int n, int nrhs, const cf* a, int lda, const int* ipiv, cf* b, int ldb, char t = 'N') {
    int info = 0; cgetrs_(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
}
inline void getrs(int n, int nrhs, const cd* a, int lda, const int* ipiv, cd* b, int ldb, char t = 'N') {
    int info = 0; zgetrs_(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
}

// B ← B L⁻ᴴ (side right) or B ← op(L)⁻¹ B (side left), L lower non-unit.
inline void trsm(CBLAS_SIDE side, CBLAS_TRANSPOSE t, int m, int n, const float* a, int lda, float* b, int ldb) {
    cblas_strsm(CblasColMajor, side, CblasLower, t == CblasConjTrans ? CblasTrans : t, CblasNonUnit, m, n, 1.0f, a, lda, b, ldb);
}
inline void trsm(CBLAS_SIDE side, CBLAS_TRANSPOSE t, int m, int n, const double* a, int lda, double* b, int ldb) {
    cblas_dtrsm(CblasColMajor, side, CblasLower, t == CblasConjTrans ? CblasTrans : t, CblasNonUnit, m, n, 1.0, a, lda, b, ldb);
}
inline void trsm(CBLAS_SIDE side, CBLAS_TRANSPOSE t, int m, int n, const cf* a, int lda, cf* b, int ldb) {
    const cf one(1);
    cblas_ctrsm(CblasColMajor, side, CblasLower, t, CblasNonUnit, m, n, &one, a, lda, b, ldb);
}
inline void trsm(CBLAS_SIDE side, CBLAS_TRANSPOSE t, int m, int n, const cd* a, int lda, cd* b, int ldb) {
    const cd one(1);
    cblas_ztrsm(CblasColMajor, side, CblasLower, t, CblasNonUnit, m, n, &one, a, lda, b, ldb);
}

// B ← B L⁻ᴴ (conj) or B L⁻ᵀ, L lower with a unit diagonal (m x n B, n x n L): the LDLᵀ panel rows.
inline void trsm_unit_right(int m, int n, const float* a, int lda, float* b, int ldb, bool) {
    cblas_strsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasUnit, m, n, 1.0f, a, lda, b, ldb);
}
inline void trsm_unit_right(int m, int n, const double* a, int lda, double* b, int ldb, bool) {
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasUnit, m, n, 1.0, a, lda, b, ldb);
}
inline void trsm_unit_right(int m, int n, const cf* a, int lda, cf* b, int ldb, bool conj) {
    const cf one(1);
    cblas_ctrsm(CblasColMajor, CblasRight, CblasLower, conj ? CblasConjTrans : CblasTrans, CblasUnit, m, n, &one, a, lda, b, ldb);
}
inline void trsm_unit_right(int m, int n, const cd* a, int lda, cd* b, int ldb, bool conj) {
    const cd one(1);
    cblas_ztrsm(CblasColMajor, CblasRight, CblasLower, conj ? CblasConjTrans : CblasTrans, CblasUnit, m, n, &one, a, lda, b, ldb);
}

// General triangular solve (LU fronts): B ← op(A)⁻¹ B or B op(A)⁻¹, no conjugation.
inline void trsm_general(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE t, CBLAS_DIAG diag, int m, int n, const float* a,
                         int lda, float* b, int ldb) {
    cblas_strsm(CblasColMajor, side, uplo, t, diag, m, n, 1.0f, a, lda, b, ldb);
}
inline void trsm_general(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE t, CBLAS_DIAG diag, int m, int n, const double* a,
                         int lda, double* b, int ldb) {
    cblas_dtrsm(CblasColMajor, side, uplo, t, diag, m, n, 1.0, a, lda, b, ldb);
}
inline void trsm_general(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE t, CBLAS_DIAG diag, int m, int n, const cf* a,
                         int lda, cf* b, int ldb) {
    const cf one(1);
    cblas_ctrsm(CblasColMajor, side, uplo, t, diag, m, n, &one, a, lda, b, ldb);
}
inline void trsm_general(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE t, CBLAS_DIAG diag, int m, int n, const cd* a,
                         int lda, cd* b, int ldb) {
    const cd one(1);
    cblas_ztrsm(CblasColMajor, side, uplo, t, diag, m, n, &one, a, lda, b, ldb);
}

// C ← alpha A B + beta C.
inline void gemm_nn(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta, float* c,
                    int ldc) {
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm_nn(int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb, double beta,
                    double* c, int ldc) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm_nn(int m, int n, int k, cf alpha, const cf* a, int lda, const cf* b, int ldb, cf beta, cf* c, int ldc) {
    cblas_cgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}
inline void gemm_nn(int m, int n, int k, cd alpha, const cd* a, int lda, const cd* b, int ldb, cd beta, cd* c, int ldc) {
    cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

// C ← C - A Aᴴ on the lower triangle (n x n, k columns).
inline void herk_minus(int n, int k, const float* a, int lda, float* c, int ldc) {
    cblas_ssyrk(CblasColMajor, CblasLower, CblasNoTrans, n, k, -1.0f, a, lda, 1.0f, c, ldc);
}
inline void herk_minus(int n, int k, const double* a, int lda, double* c, int ldc) {
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, k, -1.0, a, lda, 1.0, c, ldc);
}
inline void herk_minus(int n, int k, const cf* a, int lda, cf* c, int ldc) {
    cblas_cherk(CblasColMajor, CblasLower, CblasNoTrans, n, k, -1.0f, a, lda, 1.0f, c, ldc);
}
inline void herk_minus(int n, int k, const cd* a, int lda, cd* c, int ldc) {
    cblas_zherk(CblasColMajor, CblasLower, CblasNoTrans, n, k, -1.0, a, lda, 1.0, c, ldc);
}

// C ← alpha op(A) B + beta C (op: NoTrans or ConjTrans).
inline void gemm(CBLAS_TRANSPOSE ta, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
                 float beta, float* c, int ldc) {
    cblas_sgemm(CblasColMajor, ta == CblasConjTrans ? CblasTrans : ta, CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm(CBLAS_TRANSPOSE ta, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
                 int ldb, double beta, double* c, int ldc) {
    cblas_dgemm(CblasColMajor, ta == CblasConjTrans ? CblasTrans : ta, CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm(CBLAS_TRANSPOSE ta, int m, int n, int k, cf alpha, const cf* a, int lda, const cf* b, int ldb, cf beta,
                 cf* c, int ldc) {
    cblas_cgemm(CblasColMajor, ta, CblasNoTrans, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}
inline void gemm(CBLAS_TRANSPOSE ta, int m, int n, int k, cd alpha, const cd* a, int lda, const cd* b, int ldb, cd beta,
                 cd* c, int ldc) {
    cblas_zgemm(CblasColMajor, ta, CblasNoTrans, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

// C ← alpha A Bᴴ + beta C (A m x k, B n x k): the tile updates of the blocked front kernel.
inline void gemm_nc(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta,
                    float* c, int ldc) {
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm_nc(int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb, double beta,
                    double* c, int ldc) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm_nc(int m, int n, int k, cf alpha, const cf* a, int lda, const cf* b, int ldb, cf beta, cf* c, int ldc) {
    cblas_cgemm(CblasColMajor, CblasNoTrans, CblasConjTrans, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}
inline void gemm_nc(int m, int n, int k, cd alpha, const cd* a, int lda, const cd* b, int ldb, cd beta, cd* c, int ldc) {
    cblas_zgemm(CblasColMajor, CblasNoTrans, CblasConjTrans, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

// C ← alpha A Bᴴ + beta C (conj = true) or alpha A Bᵀ + beta C (conj = false; complex symmetric LDLᵀ).
inline void gemm_nt(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta,
                    float* c, int ldc, bool) {
    gemm_nc(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm_nt(int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb, double beta,
                    double* c, int ldc, bool) {
    gemm_nc(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm_nt(int m, int n, int k, cf alpha, const cf* a, int lda, const cf* b, int ldb, cf beta, cf* c, int ldc,
                    bool conj) {
    cblas_cgemm(CblasColMajor, CblasNoTrans, conj ? CblasConjTrans : CblasTrans, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}
inline void gemm_nt(int m, int n, int k, cd alpha, const cd* a, int lda, const cd* b, int ldb, cd beta, cd* c, int ldc,
                    bool conj) {
    cblas_zgemm(CblasColMajor, CblasNoTrans, conj ? CblasConjTrans : CblasTrans, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

}  // namespace gigasparse::direct::dense
