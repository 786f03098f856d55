// src/spgemm/cuda/gmagnus_double.cu: gMAGNUS instantiations for double values (int32 and int64 columns); one file per value type keeps nvcc jobs small.
#include <cstdint>

#include "spgemm/cuda/gmagnus_dispatch.cuh"

namespace gigasparse::cuda {

template Csr<double, std::int32_t> spgemm<double, std::int32_t>(CsrView<double, std::int32_t>, CsrView<double, std::int32_t>, const GpuSpgemmOptions&, GpuSpgemmStats*);
template Csr<double, std::int64_t> spgemm<double, std::int64_t>(CsrView<double, std::int64_t>, CsrView<double, std::int64_t>, const GpuSpgemmOptions&, GpuSpgemmStats*);

}  // namespace gigasparse::cuda
