// src/iterative/cuda/krylov_double.cu: the GPU iterative backend (cuda::spmv, cuda::solve) for double values, int32 and int64 columns.
#include <cstdint>

#include "iterative/cuda/krylov_dispatch.cuh"

namespace gigasparse::cuda {

#define GIGASPARSE_INSTANTIATE_KRYLOV(I)                                                                                                  \
    template void spmv<double, I>(const DeviceMatrix<double, I>&, std::span<const double>, std::span<double>, double, double, const GpuSpmvOptions&, GpuSolveStats*); \
    template iterative::SolveResult solve<double, I>(const DeviceMatrix<double, I>&, std::span<const double>, std::span<double>, const GpuSolveOptions&,    \
                                                  GpuSolveStats*);
GIGASPARSE_INSTANTIATE_KRYLOV(std::int32_t)
GIGASPARSE_INSTANTIATE_KRYLOV(std::int64_t)
#undef GIGASPARSE_INSTANTIATE_KRYLOV

}  // namespace gigasparse::cuda
