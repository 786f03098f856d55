// src/spgemm/cuda/plan.cuh: cuda::GpuSpgemmPlan, the two-phase gMAGNUS product with the pattern
// work kept on the device (a gmagnus::Gmagnus, and the plan's copies of A's and B's patterns).
// Instantiated in gmagnus_float.cu / gmagnus_double.cu; the CPU simulator's tests instantiate it
// for the simulator.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/abi.hpp>
#include <gigasparse/cuda/spgemm_plan.hpp>

#include "cuda/base/device_buffer.hpp"
#include "spgemm/cuda/device_matrix.cuh"
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
    // The patterns the plan was made for (b's is empty while B is A); the values arrays hold the
    // host calls' values (allocated by the first host call).
    DeviceCsr<V, I> a, b;
    bool b_is_a = false;
    bool planned = false;

    DeviceCsrRef<V, I> pattern_a() const { return a.ref(); }
    DeviceCsrRef<V, I> pattern_b() const { return b_is_a ? a.ref() : b.ref(); }
    Placement at() { return Placement{g->stream(), g->tracker()}; }

    // A fresh plan: the previous one's device memory goes first.
    void clear() {
        planned = false;
        a = {};
        b = {};
        g.reset();
        row_ptr.clear();
        stats = GpuSpgemmStats{};
    }
    void check_product(std::int64_t ar, std::int64_t ac, std::int64_t br, std::int64_t bc) const {
        if (ac != br)
            throw DimensionMismatch("cuda::GpuSpgemmPlan: A is " + std::to_string(ar) + " x " + std::to_string(ac) + " but B is " + std::to_string(br) +
                                    " x " + std::to_string(bc));
    }
    void check_planned_shapes(std::int64_t ar, std::int64_t ac, std::int64_t an, std::int64_t br, std::int64_t bc, std::int64_t bn) const {
        if (!planned) throw PhaseError("cuda::GpuSpgemmPlan: numeric() called before symbolic()");
        const DeviceCsrRef<V, I> pa = pattern_a(), pb = pattern_b();
        if (ar != pa.nrows || ac != pa.ncols || an != pa.nnz || br != pb.nrows || bc != pb.ncols || bn != pb.nnz)
            throw InvalidArgument("cuda::GpuSpgemmPlan: numeric() operands differ in shape or number of entries from those given to symbolic()");
    }
    // symbolic() after the patterns are on the device: the pattern work, then C's row offsets to the
    // host. On failure the plan is left empty.
    void plan(DeviceCsrRef<V, I> ra, DeviceCsrRef<V, I> rb) {
        const cudaStream_t hs = g->stream();
        g->symbolic(ra, rb, false, false);
        row_ptr.resize(static_cast<std::size_t>(ra.nrows + 1));
        gmagnus::PhaseTimer io(options.time_phases);
        const std::size_t down = io.start(hs);
        check(cudaMemcpyAsync(row_ptr.data(), g->row_ptr(), row_ptr.size() * sizeof(offset_t), cudaMemcpyDeviceToHost, hs), "cudaMemcpyAsync D2H");
        io.stop(down, hs, &stats.download_ms);
        check(cudaStreamSynchronize(hs), "cudaStreamSynchronize");
        io.collect();
        planned = true;
    }
    void fail() noexcept {
        (void)cudaDeviceSynchronize();  // work of both streams may still read A and B
        clear();
    }
};

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda

#include "cuda/base/spgemm_plan_members.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
void GpuSpgemmPlan<V, I>::symbolic(CsrView<V, I> a, CsrView<V, I> b) {
    Impl& s = *impl_;
    s.check_product(a.nrows, a.ncols, b.nrows, b.ncols);
    s.clear();
    check(cudaSetDevice(s.options.device), "cudaSetDevice");
    s.g = std::make_unique<gmagnus::Gmagnus<V, I>>(s.options, s.stats, s.options.time_phases);
    try {
        const cudaStream_t hs = s.g->stream();
        gmagnus::PhaseTimer io(s.options.time_phases);
        double upload_ms = 0;
        const std::size_t up = io.start(hs);
        s.b_is_a = a.same_storage(b);
        s.a = upload(a, hs, s.g->tracker());
        if (!s.b_is_a) s.b = upload(b, hs, s.g->tracker());
        io.stop(up, hs, &upload_ms);
        s.plan(s.pattern_a(), s.pattern_b());
        io.collect();
        s.stats.upload_ms = upload_ms;
    } catch (...) {
        s.fail();
        throw;
    }
}

template <class V, class I>
void GpuSpgemmPlan<V, I>::symbolic(const DeviceMatrix<V, I>& a, const DeviceMatrix<V, I>& b) {
    Impl& s = *impl_;
    if (!a.impl() || !b.impl()) throw InvalidArgument("cuda::GpuSpgemmPlan: an operand is an empty (default-constructed or moved-from) DeviceMatrix");
    if (a.device() != b.device())
        throw InvalidArgument("cuda::GpuSpgemmPlan: A is on device " + std::to_string(a.device()) + " and B on device " + std::to_string(b.device()));
    s.check_product(a.nrows(), a.ncols(), b.nrows(), b.ncols());
    s.clear();
    s.options.device = a.device();
    check(cudaSetDevice(s.options.device), "cudaSetDevice");
    s.g = std::make_unique<gmagnus::Gmagnus<V, I>>(s.options, s.stats, s.options.time_phases);
    try {
        const cudaStream_t hs = s.g->stream();
        const auto copy_pattern = [&](const DeviceMatrix<V, I>& m, DeviceCsr<V, I>& d) {
            d.nrows = m.nrows();
            d.ncols = m.ncols();
            d.nnz = m.nnz();
            d.row_ptr.allocate(d.nrows + 1, s.at());
            d.col_idx.allocate(d.nnz, s.at());
            check(cudaMemcpyAsync(d.row_ptr.data(), m.row_ptr(), static_cast<std::size_t>(d.row_ptr.bytes()), cudaMemcpyDeviceToDevice, hs),
                  "cudaMemcpyAsync D2D");
            if (d.nnz > 0)
                check(cudaMemcpyAsync(d.col_idx.data(), m.col_idx(), static_cast<std::size_t>(d.col_idx.bytes()), cudaMemcpyDeviceToDevice, hs),
                      "cudaMemcpyAsync D2D");
        };
        s.b_is_a = &a == &b;
        copy_pattern(a, s.a);
        if (!s.b_is_a) copy_pattern(b, s.b);
        DeviceCsrRef<V, I> ra = s.pattern_a(), rb = s.pattern_b();
        ra.values = a.values();
        rb.values = b.values();
        s.plan(ra, rb);
    } catch (...) {
        s.fail();
        throw;
    }
}

template <class V, class I>
void GpuSpgemmPlan<V, I>::numeric(CsrView<V, I> a, CsrView<V, I> b, Csr<V, I>& c) {
    Impl& s = *impl_;
    s.check_planned_shapes(a.nrows, a.ncols, static_cast<std::int64_t>(a.values.size()), b.nrows, b.ncols, static_cast<std::int64_t>(b.values.size()));
    check(cudaSetDevice(s.options.device), "cudaSetDevice");
    const cudaStream_t hs = s.g->stream();
    // the host values go into the plan's arrays (B's own unless B is A again)
    const bool b_in_a = s.b_is_a && a.same_storage(b);
    if (s.a.values.size() < s.a.nnz) s.a.values.allocate(s.a.nnz, s.at());
    const std::int64_t b_nnz = s.pattern_b().nnz;
    if (!b_in_a && s.b.values.size() < b_nnz) s.b.values.allocate(b_nnz, s.at());
    gmagnus::PhaseTimer io(s.options.time_phases);
    double upload_ms = 0, download_ms = 0;
    const std::size_t up = io.start(hs);
    if (s.a.nnz > 0)
        check(cudaMemcpyAsync(s.a.values.data(), a.values.data(), static_cast<std::size_t>(s.a.nnz) * sizeof(V), cudaMemcpyHostToDevice, hs),
              "cudaMemcpyAsync H2D");
    if (!b_in_a && b_nnz > 0)
        check(cudaMemcpyAsync(s.b.values.data(), b.values.data(), static_cast<std::size_t>(b_nnz) * sizeof(V), cudaMemcpyHostToDevice, hs),
              "cudaMemcpyAsync H2D");
    io.stop(up, hs, &upload_ms);
    DeviceCsrRef<V, I> ra = s.pattern_a(), rb = s.pattern_b();
    ra.values = s.a.values.data();
    rb.values = b_in_a ? s.a.values.data() : s.b.values.data();
    DeviceCsr<V, I> dc = s.g->numeric(ra, rb, false);
    c.nrows = dc.nrows;
    c.ncols = dc.ncols;
    if (c.row_ptr != s.row_ptr) c.row_ptr = s.row_ptr;  // SpgemmPlan passes C with these offsets already
    c.col_idx.resize(static_cast<std::size_t>(dc.nnz));
    c.values.resize(static_cast<std::size_t>(dc.nnz));
    const std::size_t down = io.start(hs);
    if (dc.nnz > 0) {
        check(cudaMemcpyAsync(c.col_idx.data(), dc.col_idx.data(), static_cast<std::size_t>(dc.col_idx.bytes()), cudaMemcpyDeviceToHost, hs),
              "cudaMemcpyAsync D2H");
        check(cudaMemcpyAsync(c.values.data(), dc.values.data(), static_cast<std::size_t>(dc.values.bytes()), cudaMemcpyDeviceToHost, hs),
              "cudaMemcpyAsync D2H");
    }
    io.stop(down, hs, &download_ms);
    check(cudaStreamSynchronize(hs), "cudaStreamSynchronize");
    io.collect();
    s.stats.upload_ms = upload_ms;
    s.stats.download_ms = download_ms;
}

template <class V, class I>
DeviceMatrix<V, I> GpuSpgemmPlan<V, I>::numeric(const DeviceMatrix<V, I>& a, const DeviceMatrix<V, I>& b) {
    Impl& s = *impl_;
    if (!a.impl() || !b.impl()) throw InvalidArgument("cuda::GpuSpgemmPlan: an operand is an empty (default-constructed or moved-from) DeviceMatrix");
    s.check_planned_shapes(a.nrows(), a.ncols(), a.nnz(), b.nrows(), b.ncols(), b.nnz());
    if (a.device() != s.options.device || b.device() != s.options.device)
        throw InvalidArgument("cuda::GpuSpgemmPlan: the operands are not on the plan's device " + std::to_string(s.options.device));
    check(cudaSetDevice(s.options.device), "cudaSetDevice");
    DeviceCsrRef<V, I> ra = s.pattern_a(), rb = s.pattern_b();
    ra.values = a.values();
    rb.values = b.values();
    const std::int64_t values_bytes = (a.nnz() + (&a == &b ? 0 : b.nnz())) * static_cast<std::int64_t>(sizeof(V));
    s.g->tracker()->add(values_bytes);  // device_bytes_peak counts the operands' values read in place
    auto impl = std::make_unique<typename DeviceMatrix<V, I>::Impl>();
    impl->device = s.options.device;
    try {
        impl->csr = s.g->numeric(ra, rb, false);
    } catch (...) {
        s.g->tracker()->remove(values_bytes);
        throw;
    }
    s.g->tracker()->remove(values_bytes);
    s.stats.upload_ms = 0;
    s.stats.download_ms = 0;
    return DeviceMatrix<V, I>(std::move(impl));
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
std::int64_t GpuSpgemmPlan<V, I>::device_bytes() const { return impl_->g ? impl_->g->held_bytes() : 0; }

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
