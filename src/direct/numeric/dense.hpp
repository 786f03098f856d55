// src/direct/numeric/dense.hpp: typed wrappers of the BLAS/LAPACK calls of the frontal kernels (OpenBLAS).
#pragma once

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

extern "C" {
void slacn2_(const int* n, float* v, float* x, int* isgn, float* est, int* kase, int* isave);
void dlacn2_(const int* n, double* v, double* x, int* isgn, double* est, int* kase, int* isave);
void clacn2_(const int* n, void* v, void* x, float* est, int* kase, int* isave);
void zlacn2_(const int* n, void* v, void* x, double* est, int* kase, int* isave);
}

namespace gigasparse::direct::dense {

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
// Estimate of ||B||_1 for an n x n operator known by its products (LAPACK's xLACN2, reverse communication):
// apply(kase) must overwrite x (length n) with B x (kase 1) or Bᴴ x (kase 2). A lower bound of ||B||_1.
template <class V, class F>
double lacn2_estimate(int n, V* x, F&& apply) {
    std::vector<V> v(static_cast<std::size_t>(n));
    std::vector<int> isgn(static_cast<std::size_t>(n));
    int kase = 0, isave[3] = {0, 0, 0};
    real_t<V> est = 0;
    for (;;) {
        if constexpr (std::is_same_v<V, float>) slacn2_(&n, v.data(), x, isgn.data(), &est, &kase, isave);
        else if constexpr (std::is_same_v<V, double>) dlacn2_(&n, v.data(), x, isgn.data(), &est, &kase, isave);
        else if constexpr (std::is_same_v<V, cf>) clacn2_(&n, v.data(), x, &est, &kase, isave);
        else zlacn2_(&n, v.data(), x, &est, &kase, isave);
        if (kase == 0) return static_cast<double>(est);
        apply(kase);
    }
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
