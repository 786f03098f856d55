// src/spgemm/cuda/gmagnus_double.cu: gMAGNUS instantiations for double values (int32 and int64 columns): the host-CSR
// product, its two-phase plan (GpuSpgemmPlan) and the device-resident DeviceMatrix with its product; one file per value type keeps nvcc jobs small.
#include <cstdint>

#include "spgemm/cuda/device_matrix.cuh"
#include "spgemm/cuda/gmagnus_dispatch.cuh"
#include "spgemm/cuda/plan.cuh"

namespace gigasparse::cuda {

#define GIGASPARSE_INSTANTIATE_GMAGNUS(I)                                                                                        \
    template Csr<double, I> spgemm<double, I>(CsrView<double, I>, CsrView<double, I>, const GpuSpgemmOptions&, GpuSpgemmStats*);          \
    template class DeviceMatrix<double, I>;                                                                                          \
    template class GpuSpgemmPlan<double, I>;                                                                                          \
    template DeviceMatrix<double, I> spgemm<double, I>(const DeviceMatrix<double, I>&, const DeviceMatrix<double, I>&, const GpuSpgemmOptions&, \
                                                GpuSpgemmStats*);
GIGASPARSE_INSTANTIATE_GMAGNUS(std::int32_t)
GIGASPARSE_INSTANTIATE_GMAGNUS(std::int64_t)
#undef GIGASPARSE_INSTANTIATE_GMAGNUS

}  // namespace gigasparse::cuda
