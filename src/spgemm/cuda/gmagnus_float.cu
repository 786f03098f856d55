// src/spgemm/cuda/gmagnus_float.cu: gMAGNUS instantiations for float values (int32 and int64 columns): the host-CSR
// product, its two-phase plan (GpuSpgemmPlan) and the device-resident DeviceMatrix with its product; one file per value type keeps nvcc jobs small.
#include <cstdint>

#include "spgemm/cuda/device_matrix.cuh"
#include "spgemm/cuda/gmagnus_dispatch.cuh"
#include "spgemm/cuda/plan.cuh"

namespace gigasparse::cuda {

#define GIGASPARSE_INSTANTIATE_GMAGNUS(I)                                                                                        \
    template Csr<float, I> spgemm<float, I>(CsrView<float, I>, CsrView<float, I>, const GpuSpgemmOptions&, GpuSpgemmStats*);          \
    template class DeviceMatrix<float, I>;                                                                                          \
    template class GpuSpgemmPlan<float, I>;                                                                                          \
    template DeviceMatrix<float, I> spgemm<float, I>(const DeviceMatrix<float, I>&, const DeviceMatrix<float, I>&, const GpuSpgemmOptions&, \
                                                GpuSpgemmStats*);
GIGASPARSE_INSTANTIATE_GMAGNUS(std::int32_t)
GIGASPARSE_INSTANTIATE_GMAGNUS(std::int64_t)
#undef GIGASPARSE_INSTANTIATE_GMAGNUS

}  // namespace gigasparse::cuda
