// tests/cuda_sim/cuda_sim/blas_lapack.hpp: the simulator's cuBLAS and cuSOLVER subsets (cublas_v2.h,
// cusolverDn.h): the real signatures and status codes; each call checks its pointers are device memory and
// is queued on its handle's stream as one unit of device work, run by the host's OpenBLAS / LAPACK (the
// library's dense wrappers).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>

#include <cblas.h>

#include "cuda_sim/runtime.hpp"
#include "direct/numeric/dense.hpp"

enum cublasStatus_t { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_INVALID_VALUE = 7 };
enum cublasFillMode_t { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1 };
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 };
enum cublasSideMode_t { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 };
enum cublasDiagType_t { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 };
enum cusolverStatus_t { CUSOLVER_STATUS_SUCCESS = 0, CUSOLVER_STATUS_NOT_INITIALIZED = 1, CUSOLVER_STATUS_INVALID_VALUE = 3 };

namespace cuda_sim::blas {
struct Handle {
    cudaStream_t stream = nullptr;
};
// Queues f on the handle's stream as device work reading/writing `uses` (all must be device memory).
template <class F>
bool queue(const char* what, const Handle* h, std::initializer_list<const void*> uses, F&& f) {
    if (!h) return false;
    for (const void* p : uses)
        if (p && !cuda_sim::is_device_pointer(p)) cuda_sim::fail_host(std::string(what) + ": a host pointer passed as device memory");
    Op o;
    o.what = what;
    o.uses.assign(uses.begin(), uses.end());
    o.run = std::forward<F>(f);
    return cuda_sim::enqueue(h->stream, std::move(o)) == cudaSuccess;
}
inline CBLAS_UPLO uplo(cublasFillMode_t m) { return m == CUBLAS_FILL_MODE_LOWER ? CblasLower : CblasUpper; }
inline CBLAS_TRANSPOSE trans(cublasOperation_t o) { return o == CUBLAS_OP_N ? CblasNoTrans : o == CUBLAS_OP_T ? CblasTrans : CblasConjTrans; }
}  // namespace cuda_sim::blas

using cublasHandle_t = cuda_sim::blas::Handle*;
using cusolverDnHandle_t = cuda_sim::blas::Handle*;

inline cublasStatus_t cublasCreate(cublasHandle_t* h) {
    *h = new cuda_sim::blas::Handle;
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasDestroy(cublasHandle_t h) {
    delete h;
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    h->stream = s;
    return CUBLAS_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t* h) {
    *h = new cuda_sim::blas::Handle;
    return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t h) {
    delete h;
    return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t h, cudaStream_t s) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    h->stream = s;
    return CUSOLVER_STATUS_SUCCESS;
}

namespace cuda_sim::blas {
template <class T>
cublasStatus_t trsm(const char* what, cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t fill, cublasOperation_t op, cublasDiagType_t diag,
                    int m, int n, const T* alpha, const T* a, int lda, T* b, int ldb) {
    if (m < 0 || n < 0) return CUBLAS_STATUS_INVALID_VALUE;
    const T al = *alpha;  // host scalar (CUBLAS_POINTER_MODE_HOST)
    const bool ok = queue(what, h, {a, b}, [=] {
        const auto s = side == CUBLAS_SIDE_LEFT ? CblasLeft : CblasRight;
        const auto d = diag == CUBLAS_DIAG_UNIT ? CblasUnit : CblasNonUnit;
        if constexpr (std::is_same_v<T, double>) cblas_dtrsm(CblasColMajor, s, uplo(fill), trans(op), d, m, n, al, a, lda, b, ldb);
        else cblas_strsm(CblasColMajor, s, uplo(fill), trans(op), d, m, n, al, a, lda, b, ldb);
    });
    return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
template <class T>
cublasStatus_t syrk(const char* what, cublasHandle_t h, cublasFillMode_t fill, cublasOperation_t op, int n, int k, const T* alpha, const T* a,
                    int lda, const T* beta, T* c, int ldc) {
    if (n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
    const T al = *alpha, be = *beta;
    const bool ok = queue(what, h, {a, c}, [=] {
        if constexpr (std::is_same_v<T, double>) cblas_dsyrk(CblasColMajor, uplo(fill), trans(op), n, k, al, a, lda, be, c, ldc);
        else cblas_ssyrk(CblasColMajor, uplo(fill), trans(op), n, k, al, a, lda, be, c, ldc);
    });
    return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
template <class T>
cublasStatus_t gemm(const char* what, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const T* alpha, const T* a,
                    int lda, const T* b, int ldb, const T* beta, T* c, int ldc) {
    if (m < 0 || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
    const T al = *alpha, be = *beta;
    const bool ok = queue(what, h, {a, b, c}, [=] {
        if constexpr (std::is_same_v<T, double>) cblas_dgemm(CblasColMajor, trans(ta), trans(tb), m, n, k, al, a, lda, b, ldb, be, c, ldc);
        else cblas_sgemm(CblasColMajor, trans(ta), trans(tb), m, n, k, al, a, lda, b, ldb, be, c, ldc);
    });
    return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
// C = alpha op(A) op(B)ᵀ + beta C on the `fill` triangle only (the other is not touched, as in cuBLAS), a
// gemv per column.
template <class T>
cublasStatus_t syrkx(const char* what, cublasHandle_t h, cublasFillMode_t fill, cublasOperation_t op, int n, int k, const T* alpha, const T* a,
                     int lda, const T* b, int ldb, const T* beta, T* c, int ldc) {
    if (n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
    if (op != CUBLAS_OP_N) fail_host(std::string(what) + ": the simulator has op N only");
    const T al = *alpha, be = *beta;
    const bool ok = queue(what, h, {a, b, c}, [=] {
        for (int j = 0; j < n; ++j) {
            const int i0 = fill == CUBLAS_FILL_MODE_LOWER ? j : 0, i1 = fill == CUBLAS_FILL_MODE_LOWER ? n : j + 1;
            // C(i0:i1, j) = alpha A(i0:i1, :) B(j, :)ᵀ + beta C(i0:i1, j)
            if constexpr (std::is_same_v<T, double>)
                cblas_dgemv(CblasColMajor, CblasNoTrans, i1 - i0, k, al, a + i0, lda, b + j, ldb, be, c + i0 + static_cast<std::int64_t>(j) * ldc, 1);
            else
                cblas_sgemv(CblasColMajor, CblasNoTrans, i1 - i0, k, al, a + i0, lda, b + j, ldb, be, c + i0 + static_cast<std::int64_t>(j) * ldc, 1);
        }
    });
    return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
// getrf (m = n only): the host LAPACK's; ipiv 1-based, as cuSOLVER's.
template <class T>
cusolverStatus_t getrf(const char* what, cusolverDnHandle_t h, int m, int n, T* a, int lda, T* work, int* ipiv, int* info) {
    if (m != n) fail_host(std::string(what) + ": the simulator has square matrices only");
    const bool ok = queue(what, h, {a, work, ipiv, info}, [=] { *info = gigasparse::direct::dense::getrf(n, a, lda, ipiv); });
    return ok ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_NOT_INITIALIZED;
}
template <class T>
cusolverStatus_t potrf(const char* what, cusolverDnHandle_t h, cublasFillMode_t fill, int n, T* a, int lda, T* work, int* info) {
    if (fill != CUBLAS_FILL_MODE_LOWER) fail_host(std::string(what) + ": the simulator has the lower triangle only");
    const bool ok = queue(what, h, {a, work, info}, [=] { *info = gigasparse::direct::dense::potrf(n, a, lda); });
    return ok ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_NOT_INITIALIZED;
}
}  // namespace cuda_sim::blas

inline cublasStatus_t cublasDtrsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t fill, cublasOperation_t op, cublasDiagType_t diag, int m,
                                  int n, const double* alpha, const double* a, int lda, double* b, int ldb) {
    return cuda_sim::blas::trsm("cublasDtrsm", h, side, fill, op, diag, m, n, alpha, a, lda, b, ldb);
}
inline cublasStatus_t cublasStrsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t fill, cublasOperation_t op, cublasDiagType_t diag, int m,
                                  int n, const float* alpha, const float* a, int lda, float* b, int ldb) {
    return cuda_sim::blas::trsm("cublasStrsm", h, side, fill, op, diag, m, n, alpha, a, lda, b, ldb);
}
inline cublasStatus_t cublasDsyrk(cublasHandle_t h, cublasFillMode_t fill, cublasOperation_t op, int n, int k, const double* alpha, const double* a,
                                  int lda, const double* beta, double* c, int ldc) {
    return cuda_sim::blas::syrk("cublasDsyrk", h, fill, op, n, k, alpha, a, lda, beta, c, ldc);
}
inline cublasStatus_t cublasSsyrk(cublasHandle_t h, cublasFillMode_t fill, cublasOperation_t op, int n, int k, const float* alpha, const float* a,
                                  int lda, const float* beta, float* c, int ldc) {
    return cuda_sim::blas::syrk("cublasSsyrk", h, fill, op, n, k, alpha, a, lda, beta, c, ldc);
}
inline cublasStatus_t cublasDsyrkx(cublasHandle_t h, cublasFillMode_t fill, cublasOperation_t op, int n, int k, const double* alpha, const double* a,
                                   int lda, const double* b, int ldb, const double* beta, double* c, int ldc) {
    return cuda_sim::blas::syrkx("cublasDsyrkx", h, fill, op, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline cublasStatus_t cublasSsyrkx(cublasHandle_t h, cublasFillMode_t fill, cublasOperation_t op, int n, int k, const float* alpha, const float* a,
                                   int lda, const float* b, int ldb, const float* beta, float* c, int ldc) {
    return cuda_sim::blas::syrkx("cublasSsyrkx", h, fill, op, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline cublasStatus_t cublasDgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const double* alpha,
                                  const double* a, int lda, const double* b, int ldb, const double* beta, double* c, int ldc) {
    return cuda_sim::blas::gemm("cublasDgemm", h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float* alpha,
                                  const float* a, int lda, const float* b, int ldb, const float* beta, float* c, int ldc) {
    return cuda_sim::blas::gemm("cublasSgemm", h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
// The workspace a potrf asks for: n entries (the simulator's potrf needs none; the size exercises the caller's allocation).
inline cusolverStatus_t cusolverDnDpotrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t, int n, double*, int, int* lwork) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    *lwork = n;
    return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnSpotrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t, int n, float*, int, int* lwork) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    *lwork = n;
    return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnDgetrf_bufferSize(cusolverDnHandle_t h, int, int n, double*, int, int* lwork) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    *lwork = n;
    return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnSgetrf_bufferSize(cusolverDnHandle_t h, int, int n, float*, int, int* lwork) {
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    *lwork = n;
    return CUSOLVER_STATUS_SUCCESS;
}
inline cusolverStatus_t cusolverDnDgetrf(cusolverDnHandle_t h, int m, int n, double* a, int lda, double* work, int* ipiv, int* info) {
    return cuda_sim::blas::getrf("cusolverDnDgetrf", h, m, n, a, lda, work, ipiv, info);
}
inline cusolverStatus_t cusolverDnSgetrf(cusolverDnHandle_t h, int m, int n, float* a, int lda, float* work, int* ipiv, int* info) {
    return cuda_sim::blas::getrf("cusolverDnSgetrf", h, m, n, a, lda, work, ipiv, info);
}
inline cusolverStatus_t cusolverDnDpotrf(cusolverDnHandle_t h, cublasFillMode_t fill, int n, double* a, int lda, double* work, int, int* info) {
    return cuda_sim::blas::potrf("cusolverDnDpotrf", h, fill, n, a, lda, work, info);
}
inline cusolverStatus_t cusolverDnSpotrf(cusolverDnHandle_t h, cublasFillMode_t fill, int n, float* a, int lda, float* work, int, int* info) {
    return cuda_sim::blas::potrf("cusolverDnSpotrf", h, fill, n, a, lda, work, info);
}
