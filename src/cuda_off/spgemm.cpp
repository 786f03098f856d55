// src/cuda_off/spgemm.cpp: the gMAGNUS entry point when gigasparse is built without CUDA (throws NotSupported).
#include <cstdint>

#include <gigasparse/core/error.hpp>
#include <gigasparse/core/types.hpp>
#include <gigasparse/cuda/spgemm.hpp>

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
