// src/spgemm/cuda/gmagnus_float.cu: gMAGNUS instantiations for float values (int32 and int64 columns); one file per value type keeps nvcc jobs small.
#include <cstdint>

#include "spgemm/cuda/gmagnus_dispatch.cuh"

namespace gigasparse::cuda {

template Csr<float, std::int32_t> spgemm<float, std::int32_t>(CsrView<float, std::int32_t>, CsrView<float, std::int32_t>, const GpuSpgemmOptions&, GpuSpgemmStats*);
template Csr<float, std::int64_t> spgemm<float, std::int64_t>(CsrView<float, std::int64_t>, CsrView<float, std::int64_t>, const GpuSpgemmOptions&, GpuSpgemmStats*);

}  // namespace gigasparse::cuda
