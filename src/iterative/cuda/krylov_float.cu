// src/iterative/cuda/krylov_float.cu: the GPU iterative backend (cuda::spmv, cuda::solve) for float values, int32 and int64 columns.
#include <cstdint>

#include "iterative/cuda/krylov_dispatch.cuh"

namespace gigasparse::cuda {

#define GIGASPARSE_INSTANTIATE_KRYLOV(I)                                                                                                  \
    template void spmv<float, I>(const DeviceMatrix<float, I>&, std::span<const float>, std::span<float>, float, float, const GpuSpmvOptions&, GpuSolveStats*); \
    template iterative::SolveResult solve<float, I>(const DeviceMatrix<float, I>&, std::span<const float>, std::span<float>, const GpuSolveOptions&,    \
                                                  GpuSolveStats*);
GIGASPARSE_INSTANTIATE_KRYLOV(std::int32_t)
GIGASPARSE_INSTANTIATE_KRYLOV(std::int64_t)
#undef GIGASPARSE_INSTANTIATE_KRYLOV

}  // namespace gigasparse::cuda
