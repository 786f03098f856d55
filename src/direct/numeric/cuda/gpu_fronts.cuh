// src/direct/numeric/cuda/gpu_fronts.cuh: the GPU's partial Cholesky of a large front (direct::FrontOffload): the
// panel and the contribution block copied to the device, cuSOLVER potrf on F11, cuBLAS trsm for L21 and syrk for
// the update, both copied back. Compiled for the GPU (gpu_fronts.cu) and, against the simulator's cuBLAS/cuSOLVER
// (tests/cuda_sim/include), into the simulator's tests.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/abi.hpp>

#include "cuda/base/device_buffer.hpp"
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
        cb_.release();
        work_.release();
        info_.release();
        (void)cusolverDnDestroy(solver_);
        (void)cublasDestroy(blas_);
    }
    GpuFrontOffload(const GpuFrontOffload&) = delete;
    GpuFrontOffload& operator=(const GpuFrontOffload&) = delete;

    std::int64_t factor(std::int64_t f, std::int64_t w, double* panel, double* cb) override { return run(f, w, panel, cb); }
    std::int64_t factor(std::int64_t f, std::int64_t w, float* panel, float* cb) override { return run(f, w, panel, cb); }
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
        const Placement where{s, nullptr};
        const std::int64_t panel_bytes = f * w * static_cast<std::int64_t>(sizeof(V)), cb_bytes = m * m * static_cast<std::int64_t>(sizeof(V));
        // device buffers grow to the largest front so far (kept for the next fronts and factorizations)
        const auto grow = [&](auto& buf, std::int64_t n) {
            if (buf.size() < n) buf.allocate(n, where);
        };
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
        ++stats_.fronts;
        const double wd = static_cast<double>(w), md = static_cast<double>(m);
        stats_.flops += wd * wd * wd / 3 + md * wd * wd + md * md * wd;
        stats_.bytes += bytes;
        stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return info;
    }

    mutable std::mutex mu_;
    int device_;
    std::unique_ptr<Stream> stream_;
    cublasHandle_t blas_{};
    cusolverDnHandle_t solver_{};
    DeviceBuffer<char> panel_, cb_, work_;
    DeviceBuffer<int> info_;
    direct::FrontOffloadStats stats_;
};

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
