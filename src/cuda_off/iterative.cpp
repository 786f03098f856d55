// src/cuda_off/iterative.cpp: the GPU iterative backend when gigasparse is built without CUDA (NotSupported).
#include <cstdint>

#include <gigasparse/core/error.hpp>
#include <gigasparse/core/types.hpp>
#include <gigasparse/cuda/iterative.hpp>

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
void spmv(const DeviceMatrix<V, I>&, std::span<const V>, std::span<V>, V, V, const GpuSpmvOptions&, GpuSolveStats*) {
    throw NotSupported("cuda::spmv: gigasparse was built without the CUDA backend");
}
template <class V, class I>
iterative::SolveResult solve(const DeviceMatrix<V, I>&, std::span<const V>, std::span<V>, const GpuSolveOptions&, GpuSolveStats*) {
    throw NotSupported("cuda::solve: gigasparse was built without the CUDA backend");
}

#define GIGASPARSE_INSTANTIATE_KRYLOV(V, I)                                                                                       \
    template void spmv<V, I>(const DeviceMatrix<V, I>&, std::span<const V>, std::span<V>, V, V, const GpuSpmvOptions&, GpuSolveStats*); \
    template iterative::SolveResult solve<V, I>(const DeviceMatrix<V, I>&, std::span<const V>, std::span<V>, const GpuSolveOptions&, GpuSolveStats*);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE_KRYLOV)
#undef GIGASPARSE_INSTANTIATE_KRYLOV

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
