// src/cuda_off/spgemm.cpp: the gMAGNUS entry point and its two-phase plan when gigasparse is built without CUDA (NotSupported).
#include <cstdint>
#include <memory>
#include <vector>

#include <gigasparse/core/error.hpp>
#include <gigasparse/core/types.hpp>
#include <gigasparse/cuda/spgemm.hpp>
#include <gigasparse/cuda/spgemm_plan.hpp>

namespace gigasparse::cuda {

template <class V, class I>
Csr<V, I> spgemm(CsrView<V, I>, CsrView<V, I>, const GpuSpgemmOptions&, GpuSpgemmStats*) {
    throw NotSupported("cuda::spgemm: gigasparse was built without the CUDA backend");
}

#define GIGASPARSE_INSTANTIATE_CUDA_SPGEMM(V, I) \
    template Csr<V, I> spgemm<V, I>(CsrView<V, I>, CsrView<V, I>, const GpuSpgemmOptions&, GpuSpgemmStats*);
GIGASPARSE_FOR_EACH_REAL_VALUE_INDEX(GIGASPARSE_INSTANTIATE_CUDA_SPGEMM)
#undef GIGASPARSE_INSTANTIATE_CUDA_SPGEMM

}  // namespace gigasparse::cuda

// cuda::GpuSpgemmPlan without CUDA: never planned; symbolic() throws NotSupported.
namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
struct GpuSpgemmPlan<V, I>::Impl {
    GpuSpgemmOptions options;
    GpuSpgemmStats stats;
    std::vector<offset_t> row_ptr;
};

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda

#include "cuda/base/spgemm_plan_members.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
void GpuSpgemmPlan<V, I>::symbolic(CsrView<V, I>, CsrView<V, I>) {
    throw NotSupported("cuda::GpuSpgemmPlan: gigasparse was built without the CUDA backend");
}
template <class V, class I>
void GpuSpgemmPlan<V, I>::numeric(CsrView<V, I>, CsrView<V, I>, Csr<V, I>&) {
    throw PhaseError("cuda::GpuSpgemmPlan: numeric() called before symbolic()");
}
template <class V, class I>
void GpuSpgemmPlan<V, I>::symbolic(const DeviceMatrix<V, I>&, const DeviceMatrix<V, I>&) {
    throw NotSupported("cuda::GpuSpgemmPlan: gigasparse was built without the CUDA backend");
}
template <class V, class I>
DeviceMatrix<V, I> GpuSpgemmPlan<V, I>::numeric(const DeviceMatrix<V, I>&, const DeviceMatrix<V, I>&) {
    throw PhaseError("cuda::GpuSpgemmPlan: numeric() called before symbolic()");
}
template <class V, class I>
bool GpuSpgemmPlan<V, I>::has_symbolic() const { return false; }
template <class V, class I>
std::int64_t GpuSpgemmPlan<V, I>::nnz() const { throw PhaseError("cuda::GpuSpgemmPlan: nnz() called before symbolic()"); }
template <class V, class I>
const std::vector<offset_t>& GpuSpgemmPlan<V, I>::row_ptr() const { throw PhaseError("cuda::GpuSpgemmPlan: row_ptr() called before symbolic()"); }
template <class V, class I>
std::int64_t GpuSpgemmPlan<V, I>::device_bytes() const { return 0; }

#define GIGASPARSE_INSTANTIATE_GPU_PLAN(V, I) template class GpuSpgemmPlan<V, I>;
GIGASPARSE_FOR_EACH_REAL_VALUE_INDEX(GIGASPARSE_INSTANTIATE_GPU_PLAN)
#undef GIGASPARSE_INSTANTIATE_GPU_PLAN

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
