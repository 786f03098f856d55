// src/direct/numeric/cuda/gpu_fronts.cuh: the GPU's share of a large front (direct::FrontOffload). Cholesky: the
// panel and the contribution block copied to the device, cuSOLVER potrf on F11, cuBLAS trsm for L21 and syrk for
// the update, both copied back. LDLᵀ (F11 factored on the host with its Bunch–Kaufman pivots): F21's columns
// gathered into pivot order, W = F21 P L11⁻ᵀ (trsm), L21 = W D⁻¹ (1×1 and 2×2 blocks), cb -= L21 Wᵀ (syrkx).
// LU: F11 by cuSOLVER getrf (partial pivoting over the fully summed rows, as the host's lu_front) unless a
// pivot would need the host's perturbation (then F11 and its row pivots on the host); L21 = F21 U11⁻¹ (trsm),
// U12ᵀ = (P F12)ᵀ L11⁻ᵀ (gather, trsm), cb -= L21 U12 (gemm).
// Compiled for the GPU (gpu_fronts.cu) and, against the simulator's cuBLAS/cuSOLVER (tests/cuda_sim/include),
// into the simulator's tests.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/abi.hpp>

#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.hpp"
#include "direct/numeric/front_offload.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

inline void check_cublas(cublasStatus_t st, const char* what) {
    if (st != CUBLAS_STATUS_SUCCESS) throw BackendError(std::string("cuBLAS error in ") + what + ": status " + std::to_string(static_cast<int>(st)));
}
inline void check_cusolver(cusolverStatus_t st, const char* what) {
    if (st != CUSOLVER_STATUS_SUCCESS)
        throw BackendError(std::string("cuSOLVER error in ") + what + ": status " + std::to_string(static_cast<int>(st)));
}

namespace fronts {

inline constexpr unsigned front_threads = 256;

// W (m x w, ld m) = columns piv[0..w) of rows w.. of a panel (ld f): LDLᵀ's F21 P, LU's (P F12)ᵀ.
template <class V>
static __global__ void __launch_bounds__(front_threads)
    gather_f21_kernel(std::int64_t m, std::int64_t w, std::int64_t f, const V* __restrict__ panel, const std::int64_t* __restrict__ piv,
                      V* __restrict__ wk) {
    const std::int64_t total = m * w, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
        const std::int64_t i = t % m, j = t / m;
        wk[t] = panel[w + i + piv[j] * f];
    }
}

// LDLᵀ: the unit lower L11 (w x w, ld w) from the factored F11 (the panel's top block, ld f): the entries below
// the diagonal except the second row of a 2×2 pivot's first column (D's off-diagonal there), 1 on the diagonal.
template <class V>
static __global__ void __launch_bounds__(front_threads)
    unit_l11_kernel(std::int64_t w, std::int64_t f, const V* __restrict__ panel, const std::int8_t* __restrict__ psize, V* __restrict__ l11) {
    const std::int64_t total = w * w, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
        const std::int64_t i = t % w, j = t / w;
        l11[t] = i == j ? V(1) : i < j || (i == j + 1 && psize[j] == 2) ? V(0) : panel[i + j * f];
    }
}

// LDLᵀ: L21 (rows w.. of the panel) = W D⁻¹, column j from W's column j times own[j] plus (a 2×2 pivot) its
// partner column times other[j]: ldlt_solve_d's products.
template <class V>
static __global__ void __launch_bounds__(front_threads)
    solve_d_kernel(std::int64_t m, std::int64_t w, std::int64_t f, const V* __restrict__ wk, const V* __restrict__ own, const V* __restrict__ other,
                   const std::int64_t* __restrict__ partner, V* __restrict__ panel) {
    const std::int64_t total = m * w, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
        const std::int64_t i = t % m, j = t / m, p = partner[j];
        const V x = wk[t] * own[j];
        panel[w + i + j * f] = p == j ? x : x + wk[i + p * m] * other[j];
    }
}

// Rows w.. of a panel (ld f) = W (m x w, ld m).
template <class V>
static __global__ void __launch_bounds__(front_threads)
    put_rows_kernel(std::int64_t m, std::int64_t w, std::int64_t f, const V* __restrict__ wk, V* __restrict__ panel) {
    const std::int64_t total = m * w, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride)
        panel[w + t % m + (t / m) * f] = wk[t];
}

// *first = the least k < w whose pivot panel(k, k) is not finite or at most tau in magnitude (unchanged: none).
template <class V>
static __global__ void __launch_bounds__(front_threads)
    small_pivot_kernel(std::int64_t w, std::int64_t f, const V* __restrict__ panel, double tau, unsigned long long* __restrict__ first) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < w; k += stride) {
        const double d = static_cast<double>(panel[k + k * f]);
        if (!(d > tau || -d > tau) || d - d != 0.0) atomicMin(first, static_cast<unsigned long long>(k));
    }
}

inline std::int64_t grid_for(std::int64_t total) { return std::clamp<std::int64_t>((total + front_threads - 1) / front_threads, 1, 65536); }

}  // namespace fronts

class GpuFrontOffload final : public direct::FrontOffload {
public:
    explicit GpuFrontOffload(int device) : device_(device) {
        check(cudaSetDevice(device), "cudaSetDevice");
        stream_ = std::make_unique<Stream>();
        check_cublas(cublasCreate(&blas_), "cublasCreate");
        check_cublas(cublasSetStream(blas_, stream_->get()), "cublasSetStream");
        check_cusolver(cusolverDnCreate(&solver_), "cusolverDnCreate");
        check_cusolver(cusolverDnSetStream(solver_, stream_->get()), "cusolverDnSetStream");
    }
    ~GpuFrontOffload() override {
        panel_.release();
        upanel_.release();
        cb_.release();
        work_.release();
        l11_.release();
        meta_.release();
        lwork_buf_.release();
        ipiv_.release();
        info_.release();
        (void)cusolverDnDestroy(solver_);
        (void)cublasDestroy(blas_);
    }
    GpuFrontOffload(const GpuFrontOffload&) = delete;
    GpuFrontOffload& operator=(const GpuFrontOffload&) = delete;

    std::int64_t factor(std::int64_t f, std::int64_t w, double* panel, double* cb) override { return run(f, w, panel, cb); }
    std::int64_t factor(std::int64_t f, std::int64_t w, float* panel, float* cb) override { return run(f, w, panel, cb); }
    void ldlt_update(std::int64_t f, std::int64_t w, const std::int64_t* piv, const std::int8_t* psize, double* panel, double* cb) override {
        run_ldlt(f, w, piv, psize, panel, cb);
    }
    void ldlt_update(std::int64_t f, std::int64_t w, const std::int64_t* piv, const std::int8_t* psize, float* panel, float* cb) override {
        run_ldlt(f, w, piv, psize, panel, cb);
    }
    void lu_update(std::int64_t f, std::int64_t w, const std::int64_t* piv, double* panel, double* upanel, double* cb) override {
        run_lu(f, w, 0, piv, nullptr, panel, upanel, cb);
    }
    void lu_update(std::int64_t f, std::int64_t w, const std::int64_t* piv, float* panel, float* upanel, float* cb) override {
        run_lu(f, w, 0, piv, nullptr, panel, upanel, cb);
    }
    bool lu_factor(std::int64_t f, std::int64_t w, double tau, std::int64_t* piv, double* panel, double* upanel, double* cb) override {
        return run_lu(f, w, tau, piv, piv, panel, upanel, cb);
    }
    bool lu_factor(std::int64_t f, std::int64_t w, double tau, std::int64_t* piv, float* panel, float* upanel, float* cb) override {
        return run_lu(f, w, tau, piv, piv, panel, upanel, cb);
    }
    direct::FrontOffloadStats stats() const override {
        const std::lock_guard<std::mutex> lock(mu_);
        return stats_;
    }
    void reset_stats() override {
        const std::lock_guard<std::mutex> lock(mu_);
        stats_ = {};
    }

private:
    template <class V>
    std::int64_t run(std::int64_t f, std::int64_t w, V* panel, V* cb) {
        static_assert(std::is_same_v<V, double> || std::is_same_v<V, float>);
        const std::lock_guard<std::mutex> lock(mu_);
        const auto t0 = std::chrono::steady_clock::now();
        check(cudaSetDevice(device_), "cudaSetDevice");
        const std::int64_t m = f - w;
        const cudaStream_t s = stream_->get();
        const std::int64_t panel_bytes = f * w * static_cast<std::int64_t>(sizeof(V)), cb_bytes = m * m * static_cast<std::int64_t>(sizeof(V));
        grow(panel_, panel_bytes);
        grow(cb_, std::max<std::int64_t>(cb_bytes, 1));
        grow(info_, 1);
        V* dp = reinterpret_cast<V*>(panel_.data());
        V* dc = reinterpret_cast<V*>(cb_.data());
        const int fi = static_cast<int>(f), wi = static_cast<int>(w), mi = static_cast<int>(m);
        check(cudaMemcpyAsync(dp, panel, static_cast<std::size_t>(panel_bytes), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync H2D");
        if (m > 0) check(cudaMemcpyAsync(dc, cb, static_cast<std::size_t>(cb_bytes), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync H2D");
        int lwork = 0;
        if constexpr (std::is_same_v<V, double>)
            check_cusolver(cusolverDnDpotrf_bufferSize(solver_, CUBLAS_FILL_MODE_LOWER, wi, dp, fi, &lwork), "cusolverDnDpotrf_bufferSize");
        else
            check_cusolver(cusolverDnSpotrf_bufferSize(solver_, CUBLAS_FILL_MODE_LOWER, wi, dp, fi, &lwork), "cusolverDnSpotrf_bufferSize");
        grow(work_, static_cast<std::int64_t>(lwork) * static_cast<std::int64_t>(sizeof(V)) + 16);
        V* dw = reinterpret_cast<V*>(work_.data());
        if constexpr (std::is_same_v<V, double>)
            check_cusolver(cusolverDnDpotrf(solver_, CUBLAS_FILL_MODE_LOWER, wi, dp, fi, dw, lwork, info_.data()), "cusolverDnDpotrf");
        else
            check_cusolver(cusolverDnSpotrf(solver_, CUBLAS_FILL_MODE_LOWER, wi, dp, fi, dw, lwork, info_.data()), "cusolverDnSpotrf");
        int info = 0;
        check(cudaMemcpyAsync(&info, info_.data(), sizeof info, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        std::int64_t bytes = panel_bytes + (m > 0 ? cb_bytes : 0);
        if (info == 0 && m > 0) {
            const V one = V(1), minus_one = V(-1);
            if constexpr (std::is_same_v<V, double>) {
                check_cublas(cublasDtrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, mi, wi, &one, dp, fi,
                                         dp + w, fi),
                             "cublasDtrsm");
                check_cublas(cublasDsyrk(blas_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, mi, wi, &minus_one, dp + w, fi, &one, dc, mi), "cublasDsyrk");
            } else {
                check_cublas(cublasStrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, mi, wi, &one, dp, fi,
                                         dp + w, fi),
                             "cublasStrsm");
                check_cublas(cublasSsyrk(blas_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, mi, wi, &minus_one, dp + w, fi, &one, dc, mi), "cublasSsyrk");
            }
            check(cudaMemcpyAsync(cb, dc, static_cast<std::size_t>(cb_bytes), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
            bytes += cb_bytes;
        }
        check(cudaMemcpyAsync(panel, dp, static_cast<std::size_t>(panel_bytes), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
        bytes += panel_bytes;
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        const double wd = static_cast<double>(w), md = static_cast<double>(m);
        account(wd * wd * wd / 3 + md * wd * wd + md * md * wd, bytes, t0);
        return info;
    }

    // LDLᵀ below F11 (FrontOffload::ldlt_update).
    template <class V>
    void run_ldlt(std::int64_t f, std::int64_t w, const std::int64_t* piv, const std::int8_t* psize, V* panel, V* cb) {
        static_assert(std::is_same_v<V, double> || std::is_same_v<V, float>);
        const std::lock_guard<std::mutex> lock(mu_);
        const auto t0 = std::chrono::steady_clock::now();
        check(cudaSetDevice(device_), "cudaSetDevice");
        const std::int64_t m = f - w;
        const cudaStream_t s = stream_->get();
        const std::int64_t vs = static_cast<std::int64_t>(sizeof(V));
        const std::int64_t panel_bytes = f * w * vs, cb_bytes = m * m * vs;
        // D⁻¹ per column, on the host (w entries, ldlt_solve_d's formulas): own and partner coefficients
        std::vector<V> own(static_cast<std::size_t>(w)), other(static_cast<std::size_t>(w));
        std::vector<std::int64_t> partner(static_cast<std::size_t>(w));
        for (std::int64_t c = 0; c < w;) {
            const auto d = [&](std::int64_t i, std::int64_t j) { return static_cast<double>(panel[i + j * f]); };
            if (psize[c] == 2) {
                const double d11 = d(c, c), d21 = d(c + 1, c), d22 = d(c + 1, c + 1), det = d11 * d22 - d21 * d21;
                own[c] = static_cast<V>(d22 / det), other[c] = static_cast<V>(-d21 / det), partner[c] = c + 1;  // o1 = x e11 + y e21
                own[c + 1] = static_cast<V>(d11 / det), other[c + 1] = static_cast<V>(-d21 / det), partner[c + 1] = c;  // o2 = y e22 + x e12
                c += 2;
            } else {
                own[c] = static_cast<V>(1.0 / d(c, c)), other[c] = V(0), partner[c] = c;
                c += 1;
            }
        }
        grow(panel_, panel_bytes);
        grow(cb_, std::max<std::int64_t>(cb_bytes, 1));
        grow(work_, std::max<std::int64_t>(m * w * vs, 1));
        grow(l11_, std::max<std::int64_t>(w * w * vs, 1));
        grow(meta_, std::max<std::int64_t>(w * (2 * vs + 2 * 8 + 1), 1));
        V* dp = reinterpret_cast<V*>(panel_.data());
        V* dc = reinterpret_cast<V*>(cb_.data());
        V* dw = reinterpret_cast<V*>(work_.data());
        V* dl = reinterpret_cast<V*>(l11_.data());
        // meta: own, other (V), partner, piv (int64), psize (int8)
        V* d_own = reinterpret_cast<V*>(meta_.data());
        V* d_other = d_own + w;
        auto* d_partner = reinterpret_cast<std::int64_t*>(meta_.data() + 2 * w * vs);
        std::int64_t* d_piv = d_partner + w;
        auto* d_psize = reinterpret_cast<std::int8_t*>(d_piv + w);
        const auto up = [&](void* dst, const void* src, std::int64_t bytes) {
            check(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(bytes), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync H2D");
        };
        up(dp, panel, panel_bytes);
        up(dc, cb, cb_bytes);
        up(d_own, own.data(), w * vs);
        up(d_other, other.data(), w * vs);
        up(d_partner, partner.data(), w * 8);
        up(d_piv, piv, w * 8);
        up(d_psize, psize, w);
        const int mi = static_cast<int>(m), wi = static_cast<int>(w), fi = static_cast<int>(f);
        launch("gigasparse::fronts::gather_f21_kernel", fronts::gather_f21_kernel<V>, fronts::grid_for(m * w), dim3(fronts::front_threads), 0, s, m, w,
               f, static_cast<const V*>(dp), static_cast<const std::int64_t*>(d_piv), dw);
        launch("gigasparse::fronts::unit_l11_kernel", fronts::unit_l11_kernel<V>, fronts::grid_for(w * w), dim3(fronts::front_threads), 0, s, w, f,
               static_cast<const V*>(dp), static_cast<const std::int8_t*>(d_psize), dl);
        const V one = V(1), minus_one = V(-1);
        // W = F21 P L11⁻ᵀ, L21 = W D⁻¹, cb -= L21 Wᵀ (= L21 D L21ᵀ)
        if constexpr (std::is_same_v<V, double>)
            check_cublas(cublasDtrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, mi, wi, &one, dl, wi, dw, mi),
                         "cublasDtrsm");
        else
            check_cublas(cublasStrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, mi, wi, &one, dl, wi, dw, mi),
                         "cublasStrsm");
        launch("gigasparse::fronts::solve_d_kernel", fronts::solve_d_kernel<V>, fronts::grid_for(m * w), dim3(fronts::front_threads), 0, s, m, w, f,
               static_cast<const V*>(dw), static_cast<const V*>(d_own), static_cast<const V*>(d_other), static_cast<const std::int64_t*>(d_partner),
               dp);
        if constexpr (std::is_same_v<V, double>)
            check_cublas(cublasDsyrkx(blas_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, mi, wi, &minus_one, dp + w, fi, dw, mi, &one, dc, mi), "cublasDsyrkx");
        else
            check_cublas(cublasSsyrkx(blas_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, mi, wi, &minus_one, dp + w, fi, dw, mi, &one, dc, mi), "cublasSsyrkx");
        check(cudaMemcpyAsync(cb, dc, static_cast<std::size_t>(cb_bytes), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
        check(cudaMemcpyAsync(panel, dp, static_cast<std::size_t>(panel_bytes), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        const double wd = static_cast<double>(w), md = static_cast<double>(m);
        account(md * wd * wd + md * md * wd, 2 * (panel_bytes + cb_bytes) + w * (2 * vs + 17), t0);
    }

    // LU below F11 with the host's pivots piv (FrontOffload::lu_update), or, with f11_piv, F11 too: its pivots
    // written there and used (FrontOffload::lu_factor; false, nothing written back, when a pivot is not above tau).
    template <class V>
    bool run_lu(std::int64_t f, std::int64_t w, double tau, const std::int64_t* piv, std::int64_t* f11_piv, V* panel, V* upanel, V* cb) {
        static_assert(std::is_same_v<V, double> || std::is_same_v<V, float>);
        const std::lock_guard<std::mutex> lock(mu_);
        const auto t0 = std::chrono::steady_clock::now();
        check(cudaSetDevice(device_), "cudaSetDevice");
        const std::int64_t m = f - w, vs = static_cast<std::int64_t>(sizeof(V));
        const cudaStream_t s = stream_->get();
        const std::int64_t panel_bytes = f * w * vs, cb_bytes = m * m * vs;
        grow(panel_, panel_bytes);
        grow(upanel_, panel_bytes);
        grow(cb_, std::max<std::int64_t>(cb_bytes, 1));
        grow(work_, std::max<std::int64_t>(m * w * vs, 1));
        grow(meta_, std::max<std::int64_t>(w * 8, 1));
        V* dp = reinterpret_cast<V*>(panel_.data());
        V* du = reinterpret_cast<V*>(upanel_.data());
        V* dc = reinterpret_cast<V*>(cb_.data());
        V* dw = reinterpret_cast<V*>(work_.data());
        auto* d_piv = reinterpret_cast<std::int64_t*>(meta_.data());
        const auto up = [&](void* dst, const void* src, std::int64_t bytes) {
            check(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(bytes), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync H2D");
        };
        up(dp, panel, panel_bytes);
        up(du, upanel, panel_bytes);
        up(dc, cb, cb_bytes);
        const int mi = static_cast<int>(m), wi = static_cast<int>(w), fi = static_cast<int>(f);
        if (f11_piv && !getrf_f11(w, f, tau, dp, f11_piv)) return false;
        up(d_piv, piv, w * 8);
        if (m > 0) {
            const V one = V(1), minus_one = V(-1);
            // L21 = F21 U11⁻¹ in place; U12ᵀ = (P F12)ᵀ L11⁻ᵀ in W, then into the U panel; cb -= L21 U12
            launch("gigasparse::fronts::gather_f21_kernel", fronts::gather_f21_kernel<V>, fronts::grid_for(m * w), dim3(fronts::front_threads), 0, s, m, w,
                   f, static_cast<const V*>(du), static_cast<const std::int64_t*>(d_piv), dw);
            if constexpr (std::is_same_v<V, double>) {
                check_cublas(cublasDtrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, mi, wi, &one, dp, fi, dp + w, fi),
                             "cublasDtrsm");
                check_cublas(cublasDtrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, mi, wi, &one, dp, fi, dw, mi),
                             "cublasDtrsm");
            } else {
                check_cublas(cublasStrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, mi, wi, &one, dp, fi, dp + w, fi),
                             "cublasStrsm");
                check_cublas(cublasStrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, mi, wi, &one, dp, fi, dw, mi),
                             "cublasStrsm");
            }
            launch("gigasparse::fronts::put_rows_kernel", fronts::put_rows_kernel<V>, fronts::grid_for(m * w), dim3(fronts::front_threads), 0, s, m, w, f,
                   static_cast<const V*>(dw), du);
            if constexpr (std::is_same_v<V, double>)
                check_cublas(cublasDgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, mi, mi, wi, &minus_one, dp + w, fi, dw, mi, &one, dc, mi), "cublasDgemm");
            else
                check_cublas(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, mi, mi, wi, &minus_one, dp + w, fi, dw, mi, &one, dc, mi), "cublasSgemm");
        }
        const auto down = [&](void* dst, const void* src, std::int64_t bytes) {
            check(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(bytes), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
        };
        down(panel, dp, panel_bytes);
        down(upanel, du, panel_bytes);
        down(cb, dc, cb_bytes);
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        const double wd = static_cast<double>(w), md = static_cast<double>(m);
        account((f11_piv ? 2 * wd * wd * wd / 3 : 0.0) + 2 * md * wd * wd + 2 * md * md * wd, 4 * panel_bytes + 2 * cb_bytes + w * 8, t0);
        return true;
    }

    // getrf of F11 (the top w x w block of the device panel dp, ld f); piv (host) from its row interchanges.
    // False when getrf met a zero pivot or a pivot is not finite or at most tau in magnitude (lu_front would
    // perturb or fail there).
    template <class V>
    bool getrf_f11(std::int64_t w, std::int64_t f, double tau, V* dp, std::int64_t* piv) {
        const cudaStream_t s = stream_->get();
        const int wi = static_cast<int>(w), fi = static_cast<int>(f);
        int lwork = 0;
        if constexpr (std::is_same_v<V, double>)
            check_cusolver(cusolverDnDgetrf_bufferSize(solver_, wi, wi, dp, fi, &lwork), "cusolverDnDgetrf_bufferSize");
        else
            check_cusolver(cusolverDnSgetrf_bufferSize(solver_, wi, wi, dp, fi, &lwork), "cusolverDnSgetrf_bufferSize");
        grow(lwork_buf_, static_cast<std::int64_t>(lwork) * static_cast<std::int64_t>(sizeof(V)) + 16);
        grow(ipiv_, std::max<std::int64_t>(w, 1) * 4 + 16);
        grow(info_, 1);
        auto* d_ipiv = reinterpret_cast<int*>(ipiv_.data());
        auto* d_first = reinterpret_cast<unsigned long long*>(ipiv_.data() + ((w * 4 + 7) / 8) * 8);
        if constexpr (std::is_same_v<V, double>)
            check_cusolver(cusolverDnDgetrf(solver_, wi, wi, dp, fi, reinterpret_cast<V*>(lwork_buf_.data()), d_ipiv, info_.data()), "cusolverDnDgetrf");
        else
            check_cusolver(cusolverDnSgetrf(solver_, wi, wi, dp, fi, reinterpret_cast<V*>(lwork_buf_.data()), d_ipiv, info_.data()), "cusolverDnSgetrf");
        const auto none = static_cast<unsigned long long>(w);
        check(cudaMemcpyAsync(d_first, &none, sizeof none, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync H2D");
        launch("gigasparse::fronts::small_pivot_kernel", fronts::small_pivot_kernel<V>, fronts::grid_for(w), dim3(fronts::front_threads), 0, s, w, f,
               static_cast<const V*>(dp), tau, d_first);
        std::vector<int> ipiv(static_cast<std::size_t>(w));
        int info = 0;
        unsigned long long first = 0;
        check(cudaMemcpyAsync(ipiv.data(), d_ipiv, static_cast<std::size_t>(w) * 4, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
        check(cudaMemcpyAsync(&info, info_.data(), sizeof info, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
        check(cudaMemcpyAsync(&first, d_first, sizeof first, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        if (info != 0 || first < none) {
            ++stats_.host_f11;
            return false;
        }
        // LAPACK's interchanges (row k swapped with row ipiv[k] - 1, in order) as lu_front's piv: the original
        // local row at each position
        for (std::int64_t j = 0; j < w; ++j) piv[j] = j;
        for (std::int64_t k = 0; k < w; ++k) std::swap(piv[k], piv[ipiv[static_cast<std::size_t>(k)] - 1]);
        return true;
    }

    // Device buffers grow to the largest front so far (kept for the next fronts and factorizations).
    template <class Buf>
    void grow(Buf& buf, std::int64_t n) {
        if (buf.size() < n) buf.allocate(n, Placement{stream_->get(), nullptr});
    }
    // One front's flops, bytes copied and seconds (from t0) into the stats (the caller holds mu_).
    void account(double flops, std::int64_t bytes, std::chrono::steady_clock::time_point t0) {
        ++stats_.fronts;
        stats_.flops += flops;
        stats_.bytes += bytes;
        stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }

    mutable std::mutex mu_;
    int device_;
    std::unique_ptr<Stream> stream_;
    cublasHandle_t blas_{};
    cusolverDnHandle_t solver_{};
    DeviceBuffer<char> panel_, upanel_, cb_, work_, l11_, meta_, lwork_buf_, ipiv_;
    DeviceBuffer<int> info_;
    direct::FrontOffloadStats stats_;
};

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
