// src/iterative/cuda/krylov_complex.cu: the GPU iterative backend (cuda::spmv, cuda::solve) for complex<float> and
// complex<double> values, int32 and int64 columns, and the DeviceMatrix of those types (the real ones are
// instantiated with the GPU SpGEMM, which takes real values only). The kernels compute in krylov::Complex
// (krylov_value.hpp).
#include <complex>
#include <cstdint>

#include "cuda/base/device_matrix.cuh"
#include "iterative/cuda/krylov_dispatch.cuh"

namespace gigasparse::cuda {

#define GIGASPARSE_INSTANTIATE_KRYLOV(V, I)                                                                                  \
    template class DeviceMatrix<V, I>;                                                                                       \
    template void spmv<V, I>(const DeviceMatrix<V, I>&, std::span<const V>, std::span<V>, V, V, const GpuSpmvOptions&, GpuSolveStats*); \
    template iterative::SolveResult solve<V, I>(const DeviceMatrix<V, I>&, std::span<const V>, std::span<V>, const GpuSolveOptions&, GpuSolveStats*);
GIGASPARSE_INSTANTIATE_KRYLOV(std::complex<float>, std::int32_t)
GIGASPARSE_INSTANTIATE_KRYLOV(std::complex<float>, std::int64_t)
GIGASPARSE_INSTANTIATE_KRYLOV(std::complex<double>, std::int32_t)
GIGASPARSE_INSTANTIATE_KRYLOV(std::complex<double>, std::int64_t)
#undef GIGASPARSE_INSTANTIATE_KRYLOV

}  // namespace gigasparse::cuda
