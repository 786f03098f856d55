// src/spgemm/cuda/plan.cuh: cuda::GpuSpgemmPlan, the two-phase gMAGNUS product with the pattern
// work kept on the device (a gmagnus::Gmagnus and the plan's copies of A and B). Instantiated in
// gmagnus_float.cu / gmagnus_double.cu; the CPU simulator's tests instantiate it for the simulator.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/abi.hpp>
#include <gigasparse/cuda/spgemm_plan.hpp>

#include "cuda/base/device_buffer.hpp"
#include "spgemm/cuda/gmagnus_dispatch.cuh"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
struct GpuSpgemmPlan<V, I>::Impl {
    GpuSpgemmOptions options;
    GpuSpgemmStats stats;
    std::vector<offset_t> row_ptr;
    // Declared after what it refers to (stats) and before what lives on its streams (a, b): the
    // buffers are freed first, in the order of those streams, then the streams.
    std::unique_ptr<gmagnus::Gmagnus<V, I>> g;
    DeviceCsr<V, I> a, b;  // b is empty while B is A
    bool b_is_a = false;
    bool planned = false;

    const DeviceCsr<V, I>& dev_b() const { return b_is_a ? a : b; }
};

template <class V, class I>
GpuSpgemmPlan<V, I>::GpuSpgemmPlan(const GpuSpgemmOptions& options) : impl_(std::make_unique<Impl>()) {
    impl_->options = options;
}
template <class V, class I>
GpuSpgemmPlan<V, I>::~GpuSpgemmPlan() = default;
template <class V, class I>
GpuSpgemmPlan<V, I>::GpuSpgemmPlan(GpuSpgemmPlan&&) noexcept = default;
template <class V, class I>
GpuSpgemmPlan<V, I>& GpuSpgemmPlan<V, I>::operator=(GpuSpgemmPlan&&) noexcept = default;

template <class V, class I>
void GpuSpgemmPlan<V, I>::symbolic(CsrView<V, I> a, CsrView<V, I> b) {
    Impl& s = *impl_;
    if (a.ncols != b.nrows)
        throw DimensionMismatch("cuda::GpuSpgemmPlan: A is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) + " but B is " +
                                std::to_string(b.nrows) + " x " + std::to_string(b.ncols));
    // a fresh plan: the previous one's device memory goes first
    s.planned = false;
    s.a = {};
    s.b = {};
    s.g.reset();
    s.row_ptr.clear();
    s.stats = GpuSpgemmStats{};
    check(cudaSetDevice(s.options.device), "cudaSetDevice");
    s.g = std::make_unique<gmagnus::Gmagnus<V, I>>(s.options, s.stats);
    try {
        const cudaStream_t hs = s.g->stream();
        Event u0, u1, d0, d1;
        u0.record(hs);
        s.b_is_a = a.same_storage(b);
        s.a = upload(a, hs, s.g->tracker());
        if (!s.b_is_a) s.b = upload(b, hs, s.g->tracker());
        u1.record(hs);
        s.g->symbolic(s.a, s.dev_b(), false, false);
        s.row_ptr.resize(static_cast<std::size_t>(a.nrows + 1));
        d0.record(hs);
        check(cudaMemcpyAsync(s.row_ptr.data(), s.g->row_ptr(), s.row_ptr.size() * sizeof(offset_t), cudaMemcpyDeviceToHost, hs), "cudaMemcpyAsync D2H");
        d1.record(hs);
        check(cudaStreamSynchronize(hs), "cudaStreamSynchronize");
        s.stats.upload_ms = u1.since(u0);
        s.stats.download_ms = d1.since(d0);
    } catch (...) {
        (void)cudaDeviceSynchronize();  // work of both streams may still read A and B
        s.a = {};
        s.b = {};
        s.g.reset();
        s.row_ptr.clear();
        throw;
    }
    s.planned = true;
}

template <class V, class I>
void GpuSpgemmPlan<V, I>::numeric(CsrView<V, I> a, CsrView<V, I> b, Csr<V, I>& c) {
    Impl& s = *impl_;
    if (!s.planned) throw PhaseError("cuda::GpuSpgemmPlan: numeric() called before symbolic()");
    const auto same_shape = [](CsrView<V, I> x, const DeviceCsr<V, I>& d) {
        return x.nrows == d.nrows && x.ncols == d.ncols && static_cast<std::int64_t>(x.values.size()) == d.nnz;
    };
    if (!same_shape(a, s.a) || !same_shape(b, s.dev_b()))
        throw InvalidArgument("cuda::GpuSpgemmPlan: numeric() operands differ in shape or number of entries from those given to symbolic()");
    check(cudaSetDevice(s.options.device), "cudaSetDevice");
    const cudaStream_t hs = s.g->stream();
    if (s.b_is_a && !a.same_storage(b)) {
        // B was A in symbolic(), now it has values of its own: a copy of A's pattern for them
        s.b.nrows = s.a.nrows;
        s.b.ncols = s.a.ncols;
        s.b.nnz = s.a.nnz;
        s.b.row_ptr.allocate(s.a.nrows + 1, Placement{hs, s.g->tracker()});
        s.b.col_idx.allocate(s.a.nnz, Placement{hs, s.g->tracker()});
        s.b.values.allocate(s.a.nnz, Placement{hs, s.g->tracker()});
        check(cudaMemcpyAsync(s.b.row_ptr.data(), s.a.row_ptr.data(), static_cast<std::size_t>(s.b.row_ptr.bytes()), cudaMemcpyDeviceToDevice, hs), "cudaMemcpyAsync D2D");
        if (s.a.nnz > 0)
            check(cudaMemcpyAsync(s.b.col_idx.data(), s.a.col_idx.data(), static_cast<std::size_t>(s.b.col_idx.bytes()), cudaMemcpyDeviceToDevice, hs), "cudaMemcpyAsync D2D");
        s.b_is_a = false;
    }
    Event u0, u1, d0, d1;
    u0.record(hs);
    if (s.a.nnz > 0)
        check(cudaMemcpyAsync(s.a.values.data(), a.values.data(), static_cast<std::size_t>(s.a.values.bytes()), cudaMemcpyHostToDevice, hs), "cudaMemcpyAsync H2D");
    if (!s.b_is_a && s.b.nnz > 0)
        check(cudaMemcpyAsync(s.b.values.data(), b.values.data(), static_cast<std::size_t>(s.b.values.bytes()), cudaMemcpyHostToDevice, hs), "cudaMemcpyAsync H2D");
    u1.record(hs);
    DeviceCsr<V, I> dc = s.g->numeric(s.a, s.dev_b(), false);
    c.nrows = dc.nrows;
    c.ncols = dc.ncols;
    c.row_ptr = s.row_ptr;
    c.col_idx.resize(static_cast<std::size_t>(dc.nnz));
    c.values.resize(static_cast<std::size_t>(dc.nnz));
    d0.record(hs);
    if (dc.nnz > 0) {
        check(cudaMemcpyAsync(c.col_idx.data(), dc.col_idx.data(), static_cast<std::size_t>(dc.col_idx.bytes()), cudaMemcpyDeviceToHost, hs), "cudaMemcpyAsync D2H");
        check(cudaMemcpyAsync(c.values.data(), dc.values.data(), static_cast<std::size_t>(dc.values.bytes()), cudaMemcpyDeviceToHost, hs), "cudaMemcpyAsync D2H");
    }
    d1.record(hs);
    check(cudaStreamSynchronize(hs), "cudaStreamSynchronize");
    s.stats.upload_ms = u1.since(u0);
    s.stats.download_ms = d1.since(d0);
}

template <class V, class I>
Csr<V, I> GpuSpgemmPlan<V, I>::numeric(CsrView<V, I> a, CsrView<V, I> b) {
    Csr<V, I> c;
    numeric(a, b, c);
    return c;
}

template <class V, class I>
bool GpuSpgemmPlan<V, I>::has_symbolic() const { return impl_->planned; }
template <class V, class I>
std::int64_t GpuSpgemmPlan<V, I>::nnz() const {
    if (!impl_->planned) throw PhaseError("cuda::GpuSpgemmPlan: nnz() called before symbolic()");
    return impl_->row_ptr.back();
}
template <class V, class I>
const std::vector<offset_t>& GpuSpgemmPlan<V, I>::row_ptr() const {
    if (!impl_->planned) throw PhaseError("cuda::GpuSpgemmPlan: row_ptr() called before symbolic()");
    return impl_->row_ptr;
}
template <class V, class I>
const GpuSpgemmStats& GpuSpgemmPlan<V, I>::stats() const { return impl_->stats; }
template <class V, class I>
std::int64_t GpuSpgemmPlan<V, I>::device_bytes() const { return impl_->g ? impl_->g->held_bytes() : 0; }
template <class V, class I>
const GpuSpgemmOptions& GpuSpgemmPlan<V, I>::options() const { return impl_->options; }

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
