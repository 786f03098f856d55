// src/cuda/base/spgemm_plan_members.hpp: the members of cuda::GpuSpgemmPlan that both implementations
// (src/spgemm/cuda/plan.cuh with CUDA, src/cuda_off/spgemm.cpp without) share: construction,
// destruction, moves, the returning numeric(), stats() and options(). Include after
// GpuSpgemmPlan<V, I>::Impl is defined (with members options and stats).
#pragma once

#include <memory>

#include <gigasparse/cuda/spgemm_plan.hpp>

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

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
Csr<V, I> GpuSpgemmPlan<V, I>::numeric(CsrView<V, I> a, CsrView<V, I> b) {
    Csr<V, I> c;
    numeric(a, b, c);
    return c;
}
template <class V, class I>
const GpuSpgemmStats& GpuSpgemmPlan<V, I>::stats() const { return impl_->stats; }
template <class V, class I>
const GpuSpgemmOptions& GpuSpgemmPlan<V, I>::options() const { return impl_->options; }

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
