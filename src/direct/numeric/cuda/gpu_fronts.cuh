// src/direct/numeric/cuda/gpu_fronts.cuh: the GPU's share of a large front (direct::FrontOffload). Every front is
// assembled either by the host (its panel and contribution block copied to the device) or on the device from
// zero (A's entries scattered by scatter_entries_kernel, the host children's blocks uploaded), whichever moves
// fewer bytes; the children whose blocks stayed on the device are added there (extend_add_kernel); the panel goes
// back after the factorization, the contribution block too unless its parent is offloaded and it fits (then it
// stays for the parent). Cholesky: cuSOLVER potrf on F11, cuBLAS trsm for
// L21 and syrk for the update. LDLᵀ (F11 factored on the host with its Bunch–Kaufman pivots): F21's columns
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
#include <map>
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
#include "direct/numeric/omp/small_front.hpp"

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

// LDLᵀ: rows x cols of L below a block of pivot columns, out[r0 + i + j·ld] = W D⁻¹: column j from W's column j
// (ld rows) times own[j] plus (a 2×2 pivot) its partner column times other[j]: ldlt_solve_d's products.
template <class V>
static __global__ void __launch_bounds__(front_threads)
    solve_d_kernel(std::int64_t rows, std::int64_t cols, const V* __restrict__ wk, const V* __restrict__ own, const V* __restrict__ other,
                   const std::int64_t* __restrict__ partner, V* __restrict__ out, std::int64_t ld) {
    const std::int64_t total = rows * cols, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
        const std::int64_t i = t % rows, j = t / rows, p = partner[j];
        const V x = wk[t] * own[j];
        out[i + j * ld] = p == j ? x : x + wk[i + p * rows] * other[j];
    }
}

// LDLᵀ: a block's symmetric interchanges (its positions permuted by pi) applied outside its diagonal block, from a
// copy tmp (ld ldt): by_rows, dst's rows (the block's rows of the columns before it): dst[r + c·ld] = tmp[pi[r] +
// c·ldt]; else dst's columns (the block's columns below it): dst[r + c·ld] = tmp[r + pi[c]·ldt].
template <class V>
static __global__ void __launch_bounds__(front_threads)
    permute_kernel(std::int64_t rows, std::int64_t cols, const V* __restrict__ tmp, std::int64_t ldt, const std::int64_t* __restrict__ pi, bool by_rows,
                   V* __restrict__ dst, std::int64_t ld) {
    const std::int64_t total = rows * cols, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
        const std::int64_t r = t % rows, c = t / rows;
        dst[r + c * ld] = by_rows ? tmp[pi[r] + c * ldt] : tmp[r + pi[c] * ldt];
    }
}

// The strict upper triangle of a panel's top w x w block (ld f) set to zero (ldlt_front's layout).
template <class V>
static __global__ void __launch_bounds__(front_threads) zero_upper_kernel(std::int64_t w, std::int64_t f, V* __restrict__ panel) {
    const std::int64_t total = w * w, stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride)
        if (t % w < t / w) panel[t % w + (t / w) * f] = V(0);
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

// Child's contribution block (mc x mc, ld mc: its lower triangle, or with `full` (LU) the whole block) added into
// its parent's front: rel[i] is the parent row of the child's row i (increasing). Parent columns below wp go to
// the panel (ld fp); the others to the contribution block (ld fp - wp), or with `full` their fully summed rows
// to the U panel (F12ᵀ, ld fp). One block per child column; distinct child entries have distinct targets.
template <class V>
static __global__ void __launch_bounds__(front_threads)
    extend_add_kernel(std::int64_t mc, const V* __restrict__ child, const std::int64_t* __restrict__ rel, std::int64_t fp, std::int64_t wp,
                      V* __restrict__ panel, V* __restrict__ upanel, V* __restrict__ cb, bool full) {
    const std::int64_t mp = fp - wp;
    for (std::int64_t jj = blockIdx.x; jj < mc; jj += gridDim.x) {
        const std::int64_t pc = rel[jj];
        const V* src = child + jj * mc;
        for (std::int64_t ii = (full ? 0 : jj) + threadIdx.x; ii < mc; ii += blockDim.x) {
            const std::int64_t pr = rel[ii];
            V* dst = pc < wp ? panel + pr + pc * fp : full && pr < wp ? upanel + pc + pr * fp : cb + (pr - wp) + (pc - wp) * mp;
            *dst += src[ii];
        }
    }
}

// A's entries of a front assembled on the device: val[t] into position pos[t] of the panel (ld f), or of the U
// panel from fw = f·w on (LU); distinct positions.
template <class V>
static __global__ void __launch_bounds__(front_threads)
    scatter_entries_kernel(std::int64_t n, const std::int64_t* __restrict__ pos, const V* __restrict__ val, std::int64_t fw, V* __restrict__ panel,
                           V* __restrict__ upanel) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
        const std::int64_t p = pos[t];
        if (p < fw) panel[p] = val[t];
        else upanel[p - fw] = val[t];
    }
}

inline std::int64_t grid_for(std::int64_t total) { return std::clamp<std::int64_t>((total + front_threads - 1) / front_threads, 1, 65536); }

}  // namespace fronts

class GpuFrontOffload final : public direct::FrontOffload {
public:
    // budget_bytes >= 0: the device memory a factorization may hold (kept blocks included); default: what the
    // device has free at begin(), less a margin.
    explicit GpuFrontOffload(int device, std::int64_t budget_bytes = -1) : device_(device), budget_override_(budget_bytes) {
        check(cudaSetDevice(device), "cudaSetDevice");
        stream_ = std::make_unique<Stream>();
        check_cublas(cublasCreate(&blas_), "cublasCreate");
        check_cublas(cublasSetStream(blas_, stream_->get()), "cublasSetStream");
        check_cusolver(cusolverDnCreate(&solver_), "cusolverDnCreate");
        check_cusolver(cusolverDnSetStream(solver_, stream_->get()), "cusolverDnSetStream");
    }
    ~GpuFrontOffload() override {
        fronts_.clear();
        release_scratch();
        info_.release();
        (void)cusolverDnDestroy(solver_);
        (void)cublasDestroy(blas_);
    }
    GpuFrontOffload(const GpuFrontOffload&) = delete;
    GpuFrontOffload& operator=(const GpuFrontOffload&) = delete;

    void begin(const direct::Symbolic& s, direct::idx offload_rows) override {
        const std::lock_guard<std::mutex> lock(mu_);
        check(cudaSetDevice(device_), "cudaSetDevice");
        fronts_.clear();
        sym_ = &s;
        // The device memory this factorization may use (free now, the pool's cache and what we hold, less 5%, at
        // least 256 MiB); the fronts that fit in it are taken; the largest of them is what stays free for the next
        // front when a contribution block is kept (within the budget: that memory, or the override).
        std::size_t free_bytes = 0, total_bytes = 0;
        check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
        const std::int64_t margin = std::max<std::int64_t>(static_cast<std::int64_t>(total_bytes / 20), std::int64_t{256} << 20);
        const std::int64_t capacity = static_cast<std::int64_t>(free_bytes) + pool_cached_bytes(current_memory_pool()) + tracker_.current - margin;
        takes_.assign(static_cast<std::size_t>(s.nsuper), 0);
        reserve_ = 0;
        stats_.capacity_bytes = capacity_ = capacity;
        for (direct::idx sn = 0; sn < s.nsuper; ++sn) {
            if (s.front_rows(sn) < offload_rows) continue;
            const std::int64_t need = direct::offload_front_bytes(s, sn);
            if (need > capacity) {
                ++stats_.host_large;
                continue;
            }
            takes_[static_cast<std::size_t>(sn)] = 1;
            reserve_ = std::max(reserve_, need);
        }
        budget_ = budget_override_ >= 0 ? budget_override_ : capacity;
        tracker_.peak = tracker_.current;
    }
    void end() noexcept override {
        const std::lock_guard<std::mutex> lock(mu_);
        fronts_.clear();
        sym_ = nullptr;
    }
    bool takes(direct::idx sn) const override {
        const std::lock_guard<std::mutex> lock(mu_);
        return sn >= 0 && static_cast<std::size_t>(sn) < takes_.size() && takes_[static_cast<std::size_t>(sn)] != 0;
    }
    bool resident(direct::idx sn) const override {
        const std::lock_guard<std::mutex> lock(mu_);
        const auto it = fronts_.find(sn);
        return it != fronts_.end() && it->second.done;
    }

    std::int64_t factor(const direct::OffloadFront<double>& fr, double* panel, double* cb) override { return run_llt(fr, panel, cb); }
    std::int64_t factor(const direct::OffloadFront<float>& fr, float* panel, float* cb) override { return run_llt(fr, panel, cb); }
    direct::OffloadLdlt ldlt_factor(const direct::OffloadFront<double>& fr, std::int64_t block, double tau, const std::uint8_t* pair_next,
                                    std::int64_t* piv, std::int8_t* psize, double* panel, double* cb) override {
        return run_ldlt_factor(fr, block, tau, pair_next, piv, psize, panel, cb);
    }
    direct::OffloadLdlt ldlt_factor(const direct::OffloadFront<float>& fr, std::int64_t block, double tau, const std::uint8_t* pair_next,
                                    std::int64_t* piv, std::int8_t* psize, float* panel, float* cb) override {
        return run_ldlt_factor(fr, block, tau, pair_next, piv, psize, panel, cb);
    }
    bool lu_factor(const direct::OffloadFront<double>& fr, double tau, std::int64_t* piv, double* panel, double* upanel, double* cb) override {
        return run_lu_factor(fr, tau, piv, panel, upanel, cb);
    }
    bool lu_factor(const direct::OffloadFront<float>& fr, double tau, std::int64_t* piv, float* panel, float* upanel, float* cb) override {
        return run_lu_factor(fr, tau, piv, panel, upanel, cb);
    }
    void lu_update(const direct::OffloadFront<double>& fr, const std::int64_t* piv, double* panel, double* upanel, double* cb) override {
        run_lu_update(fr, piv, panel, upanel, cb);
    }
    void lu_update(const direct::OffloadFront<float>& fr, const std::int64_t* piv, float* panel, float* upanel, float* cb) override {
        run_lu_update(fr, piv, panel, upanel, cb);
    }
    direct::FrontOffloadStats stats() const override {
        const std::lock_guard<std::mutex> lock(mu_);
        direct::FrontOffloadStats st = stats_;
        st.peak_bytes = tracker_.peak;
        return st;
    }
    void reset_stats() override {
        const std::lock_guard<std::mutex> lock(mu_);
        stats_ = {};
        tracker_.peak = tracker_.current;
    }

private:
    // A front on the device: assembled (waiting for the host's F11, LDLᵀ and LU), or finished with its
    // contribution block kept for the parent (done: only cb is held).
    struct DeviceFront {
        std::int64_t f = 0, w = 0;
        DeviceBuffer<char> panel, upanel, cb;
        bool stale = false;  // the device added to the front (resident children, device assembly): the host's F11 is not the assembled one
        bool done = false;
    };

    // The front on the device. Host assembly: the host's panel(s) and contribution block (or zeros), then every
    // resident child of fr.sn in child order. Device assembly (fr.device_assembly): zeros, A's entries, then every
    // child in child order, the host's blocks uploaded first. Resident children are freed once added. upanel: LU
    // (full contribution blocks).
    template <class V>
    DeviceFront& assemble(const direct::OffloadFront<V>& fr, const V* panel, const V* upanel, const V* cb) {
        const std::int64_t f = fr.f, w = fr.w, m = f - w, vs = static_cast<std::int64_t>(sizeof(V));
        const cudaStream_t s = stream_->get();
        const bool on_device = fr.device_assembly;
        fronts_.erase(fr.sn);
        // the workspaces grown by earlier fronts are given back when they and this front would not fit together
        // (each front's offload_front_bytes fits, but not always beside the largest workspaces of the others)
        if (sym_ && fr.sn >= 0 && tracker_.current + direct::offload_front_bytes(*sym_, fr.sn) > capacity_) release_scratch();
        DeviceFront& d = fronts_[fr.sn];
        d.f = f, d.w = w;
        const Placement at{s, &tracker_};
        d.panel.allocate(f * w * vs, at);
        if (upanel) d.upanel.allocate(f * w * vs, at);
        d.cb.allocate(m * m * vs, at);
        const auto zero = [&](DeviceBuffer<char>& b) {
            if (b.size() > 0) check(cudaMemsetAsync(b.data(), 0, static_cast<std::size_t>(b.size()), s), "cudaMemsetAsync");
        };
        V* dp = reinterpret_cast<V*>(d.panel.data());
        V* du = reinterpret_cast<V*>(d.upanel.data());
        V* dc = reinterpret_cast<V*>(d.cb.data());
        if (on_device) {
            zero(d.panel);
            zero(d.upanel);
            zero(d.cb);
            const auto n = static_cast<std::int64_t>(fr.a_pos.size());
            if (n > 0) {
                grow(entries_, n * (8 + vs));
                auto* pos = reinterpret_cast<std::int64_t*>(entries_.data());
                V* val = reinterpret_cast<V*>(entries_.data() + n * 8);
                up(pos, fr.a_pos.data(), n * 8);
                up(val, fr.a_values.data(), n * vs);
                launch("gigasparse::fronts::scatter_entries_kernel", fronts::scatter_entries_kernel<V>, fronts::grid_for(n), dim3(fronts::front_threads), 0, s,
                       n, static_cast<const std::int64_t*>(pos), static_cast<const V*>(val), f * w, dp, du);
            }
            ++stats_.device_assembled;
            d.stale = true;
        } else {
            up(d.panel.data(), panel, f * w * vs);
            if (upanel) up(d.upanel.data(), upanel, f * w * vs);
            if (m > 0 && fr.host_cb) up(d.cb.data(), cb, m * m * vs);
            else zero(d.cb);
        }
        if (!sym_ || fr.sn < 0) return d;
        std::size_t next_host = 0;  // fr.host_children is in child order
        for (direct::idx q = sym_->child_ptr[fr.sn]; q < sym_->child_ptr[fr.sn + 1]; ++q) {
            const direct::idx c = sym_->child_list[q];
            const auto it = fronts_.find(c);
            const bool resident = it != fronts_.end() && it->second.done;
            const std::int64_t mc = sym_->front_rows(c) - sym_->width(c);
            const V* child = nullptr;
            if (resident) {
                child = reinterpret_cast<const V*>(it->second.cb.data());
            } else if (on_device) {
                if (next_host >= fr.host_children.size() || fr.host_children[next_host] != c)
                    throw BackendError("direct: backend cuda: child " + std::to_string(c) + " of front " + std::to_string(fr.sn) +
                                       " is neither on the device nor among the host's blocks (internal)");
                grow(host_block_, mc * mc * vs);
                up(host_block_.data(), fr.host_blocks[next_host++], mc * mc * vs);  // ordered after the previous child's kernel
                child = reinterpret_cast<const V*>(host_block_.data());
            } else {
                continue;  // added by the host
            }
            if (mc == 0) continue;
            grow(rel_, mc * 8);
            auto* rel = reinterpret_cast<std::int64_t*>(rel_.data());
            up(rel, sym_->relind.data() + sym_->relind_ptr[c], mc * 8);  // the stream orders it after the previous child's kernel
            launch("gigasparse::fronts::extend_add_kernel", fronts::extend_add_kernel<V>, std::clamp<std::int64_t>(mc, 1, 65536),
                   dim3(fronts::front_threads), 0, s, mc, child, static_cast<const std::int64_t*>(rel), f, w, dp, du, dc, upanel != nullptr);
            if (resident) {
                fronts_.erase(it);  // freed in stream order, after the kernel
                d.stale = true;
            }
        }
        return d;
    }

    // The assembled front of fr.sn (lu_update).
    template <class V>
    DeviceFront& assembled(const direct::OffloadFront<V>& fr) {
        const auto it = fronts_.find(fr.sn);
        if (it == fronts_.end() || it->second.done || it->second.f != fr.f || it->second.w != fr.w)
            throw BackendError("direct: backend cuda: front " + std::to_string(fr.sn) + " was not assembled on the device (internal)");
        return it->second;
    }

    // The front's panel(s) back to the host; its contribution block kept on the device when fr.keep and the
    // budget leaves room for the largest front after it, else copied back. Waits for the stream.
    template <class V>
    void finish(const direct::OffloadFront<V>& fr, DeviceFront& d, V* panel, V* upanel, V* cb) {
        const std::int64_t f = fr.f, w = fr.w, m = f - w, vs = static_cast<std::int64_t>(sizeof(V));
        down(panel, d.panel.data(), f * w * vs);
        if (upanel) down(upanel, d.upanel.data(), f * w * vs);
        d.panel.release();
        d.upanel.release();
        if (fr.keep && m > 0 && fr.sn >= 0 && tracker_.current + reserve_ <= budget_) {
            d.done = true;
            ++stats_.kept;
            stats_.kept_bytes += m * m * vs;
        } else {
            if (m > 0) down(cb, d.cb.data(), m * m * vs);
            fronts_.erase(fr.sn);
        }
        check(cudaStreamSynchronize(stream_->get()), "cudaStreamSynchronize");
    }

    template <class V>
    std::int64_t run_llt(const direct::OffloadFront<V>& fr, V* panel, V* cb) {
        static_assert(std::is_same_v<V, double> || std::is_same_v<V, float>);
        const std::lock_guard<std::mutex> lock(mu_);
        const auto t0 = std::chrono::steady_clock::now();
        check(cudaSetDevice(device_), "cudaSetDevice");
        const std::int64_t f = fr.f, w = fr.w, m = f - w;
        DeviceFront& d = assemble<V>(fr, panel, nullptr, cb);
        V* dp = reinterpret_cast<V*>(d.panel.data());
        V* dc = reinterpret_cast<V*>(d.cb.data());
        const int fi = static_cast<int>(f), wi = static_cast<int>(w), mi = static_cast<int>(m);
        grow(info_, 1);
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
        // trsm and syrk queued behind potrf without waiting for its info: after a failed pivot their results are
        // not used (the factorization stops there)
        if (m > 0) {
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
        }
        int info = 0;
        check(cudaMemcpyAsync(&info, info_.data(), sizeof info, cudaMemcpyDeviceToHost, stream_->get()), "cudaMemcpyAsync D2H");
        finish<V>(fr, d, panel, nullptr, cb);
        const double wd = static_cast<double>(w), md = static_cast<double>(m);
        account(wd * wd * wd / 3 + md * wd * wd + md * md * wd, t0);
        return info;
    }

    // LDLᵀ wholly on the device (FrontOffload::ldlt_factor): ldlt_front's blocks, the pivot tests on the host.
    template <class V>
    direct::OffloadLdlt run_ldlt_factor(const direct::OffloadFront<V>& fr, std::int64_t block, double tau, const std::uint8_t* pair_next,
                                        std::int64_t* piv, std::int8_t* psize, V* panel, V* cb) {
        static_assert(std::is_same_v<V, double> || std::is_same_v<V, float>);
        const std::lock_guard<std::mutex> lock(mu_);
        const auto t0 = std::chrono::steady_clock::now();
        check(cudaSetDevice(device_), "cudaSetDevice");
        const std::int64_t f = fr.f, w = fr.w, m = f - w, vs = static_cast<std::int64_t>(sizeof(V)), nb = std::max<std::int64_t>(block, 2);
        DeviceFront& d = assemble<V>(fr, panel, nullptr, cb);
        const cudaStream_t s = stream_->get();
        V* dp = reinterpret_cast<V*>(d.panel.data());
        V* dc = reinterpret_cast<V*>(d.cb.data());
        const std::int64_t kmax = std::min(nb + 1, w);  // a block grows by one to keep a pivot pair together
        grow(work_, std::max<std::int64_t>(m * w * vs, 1));       // W of the rows below F11, all blocks (cb update)
        grow(wblk_, std::max<std::int64_t>(f * kmax * vs, 1));    // one block's W
        grow(ptmp_, std::max<std::int64_t>(f * kmax * vs, 1));    // copies for the interchanges
        grow(l11_, std::max<std::int64_t>(kmax * kmax * vs, 1));  // the block's unit L11
        grow(meta_, std::max<std::int64_t>(kmax * (2 * 8 + 2 * vs), 1));
        V* dwall = reinterpret_cast<V*>(work_.data());
        V* dw = reinterpret_cast<V*>(wblk_.data());
        V* dt = reinterpret_cast<V*>(ptmp_.data());
        V* dl = reinterpret_cast<V*>(l11_.data());
        auto* d_pi = reinterpret_cast<std::int64_t*>(meta_.data());
        std::int64_t* d_partner = d_pi + kmax;
        V* d_own = reinterpret_cast<V*>(d_partner + kmax);
        V* d_other = d_own + kmax;
        thread_local std::vector<V> blk, l11, own, other;
        thread_local std::vector<std::int64_t> lpiv, partner;
        thread_local std::vector<std::int8_t> lpsize;
        direct::OffloadLdlt res;
        const auto grid = [](std::int64_t n) { return fronts::grid_for(n); };
        const dim3 threads(fronts::front_threads);
        const V one = V(1), minus_one = V(-1);
        for (std::int64_t k0 = 0, k1 = 0; k0 < w; k0 = k1) {
            k1 = std::min(k0 + nb, w);
            if (pair_next && k1 < w && pair_next[k1 - 1]) ++k1;  // never between the columns of a pivot pair
            const std::int64_t kb = k1 - k0, rows = f - k1;
            // the diagonal block, after the updates of the blocks before it, to the host for its pivot tests
            blk.resize(static_cast<std::size_t>(kb * kb));
            copy_2d(blk.data(), kb, dp + k0 + k0 * f, f, kb, kb, vs, cudaMemcpyDeviceToHost);
            check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
            lpiv.resize(static_cast<std::size_t>(kb));
            lpsize.assign(static_cast<std::size_t>(kb), 1);
            for (std::int64_t p = 0; p < kb; ++p) lpiv[static_cast<std::size_t>(p)] = p;
            if (const std::int64_t bad = direct::ldlt_pivot_block(kb, kb, 0, kb, blk.data(), lpiv.data(), lpsize.data(), tau, true, res.perturbed)) {
                res.fail = k0 + bad;
                fronts_.erase(fr.sn);  // the factorization stops here
                stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                return res;
            }
            bool moved = false;
            for (std::int64_t p = 0; p < kb; ++p) {
                piv[k0 + p] = k0 + lpiv[static_cast<std::size_t>(p)];
                psize[k0 + p] = lpsize[static_cast<std::size_t>(p)];
                moved = moved || lpiv[static_cast<std::size_t>(p)] != p;
            }
            // its interchanges in the rest of the front: its rows of the columns before it, its columns below it
            if (moved) {
                up(d_pi, lpiv.data(), kb * 8);
                if (k0 > 0) {
                    copy_2d(dt, kb, dp + k0, f, kb, k0, vs, cudaMemcpyDeviceToDevice);
                    launch("gigasparse::fronts::permute_kernel", fronts::permute_kernel<V>, grid(kb * k0), threads, 0, s, kb, k0, static_cast<const V*>(dt), kb,
                           static_cast<const std::int64_t*>(d_pi), true, dp + k0, f);
                }
                if (rows > 0) {
                    copy_2d(dt, rows, dp + k1 + k0 * f, f, rows, kb, vs, cudaMemcpyDeviceToDevice);
                    launch("gigasparse::fronts::permute_kernel", fronts::permute_kernel<V>, grid(rows * kb), threads, 0, s, rows, kb,
                           static_cast<const V*>(dt), rows, static_cast<const std::int64_t*>(d_pi), false, dp + k1 + k0 * f, f);
                }
            }
            copy_2d(dp + k0 + k0 * f, f, blk.data(), kb, kb, kb, vs, cudaMemcpyHostToDevice);  // L11 and D
            if (rows == 0) continue;
            // W = A(k1:f, block) L11⁻ᵀ (= L D), L = W D⁻¹ below the block; the W of F21's rows kept for cb
            l11.assign(static_cast<std::size_t>(kb * kb), V(0));
            own.resize(static_cast<std::size_t>(kb));
            other.resize(static_cast<std::size_t>(kb));
            partner.resize(static_cast<std::size_t>(kb));
            const auto dv = [&](std::int64_t i, std::int64_t j) { return static_cast<double>(blk[static_cast<std::size_t>(i + j * kb)]); };
            for (std::int64_t j = 0; j < kb; ++j) {
                l11[static_cast<std::size_t>(j + j * kb)] = V(1);
                for (std::int64_t i = j + 1 + (lpsize[static_cast<std::size_t>(j)] == 2 ? 1 : 0); i < kb; ++i)
                    l11[static_cast<std::size_t>(i + j * kb)] = blk[static_cast<std::size_t>(i + j * kb)];
            }
            for (std::int64_t c = 0; c < kb;) {  // D⁻¹ per column (ldlt_solve_d's formulas): own and partner coefficients
                const auto u = static_cast<std::size_t>(c);
                if (lpsize[u] == 2) {
                    const double d11 = dv(c, c), d21 = dv(c + 1, c), d22 = dv(c + 1, c + 1), det = d11 * d22 - d21 * d21;
                    own[u] = static_cast<V>(d22 / det), other[u] = static_cast<V>(-d21 / det), partner[u] = c + 1;  // o1 = x e11 + y e21
                    own[u + 1] = static_cast<V>(d11 / det), other[u + 1] = static_cast<V>(-d21 / det), partner[u + 1] = c;  // o2 = y e22 + x e12
                    c += 2;
                } else {
                    own[u] = static_cast<V>(1.0 / dv(c, c)), other[u] = V(0), partner[u] = c;
                    c += 1;
                }
            }
            up(dl, l11.data(), kb * kb * vs);
            up(d_partner, partner.data(), kb * 8);
            up(d_own, own.data(), kb * vs);
            up(d_other, other.data(), kb * vs);
            copy_2d(dw, rows, dp + k1 + k0 * f, f, rows, kb, vs, cudaMemcpyDeviceToDevice);
            const int ri = static_cast<int>(rows), ki = static_cast<int>(kb), fi = static_cast<int>(f);
            if constexpr (std::is_same_v<V, double>)
                check_cublas(cublasDtrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, ri, ki, &one, dl, ki, dw, ri),
                             "cublasDtrsm");
            else
                check_cublas(cublasStrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, ri, ki, &one, dl, ki, dw, ri),
                             "cublasStrsm");
            launch("gigasparse::fronts::solve_d_kernel", fronts::solve_d_kernel<V>, grid(rows * kb), threads, 0, s, rows, kb, static_cast<const V*>(dw),
                   static_cast<const V*>(d_own), static_cast<const V*>(d_other), static_cast<const std::int64_t*>(d_partner), dp + k1 + k0 * f, f);
            if (m > 0) copy_2d(dwall + k0 * m, m, dw + (w - k1), rows, m, kb, vs, cudaMemcpyDeviceToDevice);
            // the remaining fully summed columns (their rows down to f): A(k1:f, k1:w) -= W L(k1:w, block)ᵀ
            if (k1 < w) {
                const int ci = static_cast<int>(w - k1);
                if constexpr (std::is_same_v<V, double>)
                    check_cublas(cublasDgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, ri, ci, ki, &minus_one, dw, ri, dp + k1 + k0 * f, fi, &one, dp + k1 + k1 * f, fi),
                                 "cublasDgemm");
                else
                    check_cublas(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, ri, ci, ki, &minus_one, dw, ri, dp + k1 + k0 * f, fi, &one, dp + k1 + k1 * f, fi),
                                 "cublasSgemm");
            }
        }
        launch("gigasparse::fronts::zero_upper_kernel", fronts::zero_upper_kernel<V>, grid(w * w), threads, 0, s, w, f, dp);
        if (m > 0) {  // cb -= L21 Wᵀ (= L21 D L21ᵀ, lower triangle)
            const int mi = static_cast<int>(m), wi = static_cast<int>(w), fi = static_cast<int>(f);
            if constexpr (std::is_same_v<V, double>)
                check_cublas(cublasDsyrkx(blas_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, mi, wi, &minus_one, dp + w, fi, dwall, mi, &one, dc, mi), "cublasDsyrkx");
            else
                check_cublas(cublasSsyrkx(blas_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, mi, wi, &minus_one, dp + w, fi, dwall, mi, &one, dc, mi), "cublasSsyrkx");
        }
        finish<V>(fr, d, panel, nullptr, cb);
        const double wd = static_cast<double>(w), md = static_cast<double>(m);
        account(wd * wd * wd / 3 + md * wd * wd + md * md * wd, t0);
        return res;
    }

    // LU wholly on the device (FrontOffload::lu_factor).
    template <class V>
    bool run_lu_factor(const direct::OffloadFront<V>& fr, double tau, std::int64_t* piv, V* panel, V* upanel, V* cb) {
        static_assert(std::is_same_v<V, double> || std::is_same_v<V, float>);
        const std::lock_guard<std::mutex> lock(mu_);
        const auto t0 = std::chrono::steady_clock::now();
        check(cudaSetDevice(device_), "cudaSetDevice");
        const std::int64_t f = fr.f, w = fr.w, vs = static_cast<std::int64_t>(sizeof(V));
        DeviceFront& d = assemble<V>(fr, panel, upanel, cb);
        if (d.stale) {  // the assembled F11, for the host should a pivot need it
            grow(f11_, std::max<std::int64_t>(w * w * vs, 1));
            copy_block(f11_.data(), w, d.panel.data(), f, w, vs, cudaMemcpyDeviceToDevice);
        }
        if (!getrf_f11(w, f, tau, reinterpret_cast<V*>(d.panel.data()), piv)) {
            if (d.stale) copy_block(panel, f, f11_.data(), w, w, vs, cudaMemcpyDeviceToHost);
            check(cudaStreamSynchronize(stream_->get()), "cudaStreamSynchronize");
            if (f == w) {  // no rows below F11 (a root): no lu_update follows, the front is the host's now
                fronts_.erase(fr.sn);
                account(0, t0);
            } else {
                stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            }
            return false;
        }
        lu_rest<V>(fr, d, piv, panel, upanel, cb);
        const double wd = static_cast<double>(w);
        account(2 * wd * wd * wd / 3 + lu_rest_flops(fr), t0);
        return true;
    }

    // LU below the host's F11 (FrontOffload::lu_update).
    template <class V>
    void run_lu_update(const direct::OffloadFront<V>& fr, const std::int64_t* piv, V* panel, V* upanel, V* cb) {
        static_assert(std::is_same_v<V, double> || std::is_same_v<V, float>);
        const std::lock_guard<std::mutex> lock(mu_);
        const auto t0 = std::chrono::steady_clock::now();
        check(cudaSetDevice(device_), "cudaSetDevice");
        DeviceFront& d = assembled(fr);
        copy_block(d.panel.data(), fr.f, panel, fr.f, fr.w, static_cast<std::int64_t>(sizeof(V)), cudaMemcpyHostToDevice);  // U11, unit L11
        lu_rest<V>(fr, d, piv, panel, upanel, cb);
        account(lu_rest_flops(fr), t0);
    }

    template <class V>
    static double lu_rest_flops(const direct::OffloadFront<V>& fr) {
        const double wd = static_cast<double>(fr.w), md = static_cast<double>(fr.f - fr.w);
        return 2 * md * wd * wd + 2 * md * md * wd;
    }

    // LU below a factored F11 (the device panel's top block) with row pivots piv: L21 = F21 U11⁻¹ in place,
    // U12ᵀ = (P F12)ᵀ L11⁻ᵀ in W, then into the U panel; cb -= L21 U12; the front finished.
    template <class V>
    void lu_rest(const direct::OffloadFront<V>& fr, DeviceFront& d, const std::int64_t* piv, V* panel, V* upanel, V* cb) {
        const std::int64_t f = fr.f, w = fr.w, m = f - w, vs = static_cast<std::int64_t>(sizeof(V));
        const cudaStream_t s = stream_->get();
        if (m > 0) {
            grow(work_, std::max<std::int64_t>(m * w * vs, 1));
            grow(meta_, std::max<std::int64_t>(w * 8, 1));
            V* dp = reinterpret_cast<V*>(d.panel.data());
            V* du = reinterpret_cast<V*>(d.upanel.data());
            V* dc = reinterpret_cast<V*>(d.cb.data());
            V* dw = reinterpret_cast<V*>(work_.data());
            auto* d_piv = reinterpret_cast<std::int64_t*>(meta_.data());
            up(d_piv, piv, w * 8);
            const int mi = static_cast<int>(m), wi = static_cast<int>(w), fi = static_cast<int>(f);
            const V one = V(1), minus_one = V(-1);
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
        finish<V>(fr, d, panel, upanel, cb);
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

    // Copies between the host and the device on the stream, counted in stats_.bytes.
    void up(void* dst, const void* src, std::int64_t bytes) {
        if (bytes <= 0) return;
        check(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(bytes), cudaMemcpyHostToDevice, stream_->get()), "cudaMemcpyAsync H2D");
        stats_.bytes += bytes;
    }
    void down(void* dst, const void* src, std::int64_t bytes) {
        if (bytes <= 0) return;
        check(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(bytes), cudaMemcpyDeviceToHost, stream_->get()), "cudaMemcpyAsync D2H");
        stats_.bytes += bytes;
    }
    // rows x cols of a column-major array (ld srows, elements of vs bytes) to another (ld drows).
    void copy_2d(void* dst, std::int64_t drows, const void* src, std::int64_t srows, std::int64_t rows, std::int64_t cols, std::int64_t vs,
                 cudaMemcpyKind kind) {
        if (rows <= 0 || cols <= 0) return;
        check(cudaMemcpy2DAsync(dst, static_cast<std::size_t>(drows * vs), src, static_cast<std::size_t>(srows * vs), static_cast<std::size_t>(rows * vs),
                                static_cast<std::size_t>(cols), kind, stream_->get()),
              "cudaMemcpy2DAsync");
        if (kind != cudaMemcpyDeviceToDevice) stats_.bytes += rows * cols * vs;
    }
    // The top w x w block of a column-major array (ld srows) to another (ld drows).
    void copy_block(void* dst, std::int64_t drows, const void* src, std::int64_t srows, std::int64_t w, std::int64_t vs, cudaMemcpyKind kind) {
        copy_2d(dst, drows, src, srows, w, w, vs, kind);
    }

    // Workspaces grow to the largest front so far (kept for the next fronts and factorizations).
    void release_scratch() {
        for (auto* b : {&work_, &l11_, &meta_, &lwork_buf_, &ipiv_, &rel_, &f11_, &entries_, &host_block_, &wblk_, &ptmp_}) b->release();
    }
    template <class Buf>
    void grow(Buf& buf, std::int64_t n) {
        if (buf.size() < n) buf.allocate(n, Placement{stream_->get(), &tracker_});
    }
    // One finished front's flops and seconds (from t0) into the stats (the caller holds mu_).
    void account(double flops, std::chrono::steady_clock::time_point t0) {
        ++stats_.fronts;
        stats_.flops += flops;
        stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }

    mutable std::mutex mu_;
    int device_;
    std::int64_t budget_override_;
    std::unique_ptr<Stream> stream_;
    cublasHandle_t blas_{};
    cusolverDnHandle_t solver_{};
    MemoryTracker tracker_;
    std::int64_t budget_ = 0, reserve_ = 0, capacity_ = 0;
    const direct::Symbolic* sym_ = nullptr;
    std::vector<char> takes_;  // by supernode of sym_: the front goes to the device
    std::map<direct::idx, DeviceFront> fronts_;  // assembled fronts and kept contribution blocks, by supernode
    DeviceBuffer<char> work_, l11_, meta_, lwork_buf_, ipiv_, rel_, f11_, entries_, host_block_, wblk_, ptmp_;
    DeviceBuffer<int> info_;
    direct::FrontOffloadStats stats_;
};

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
