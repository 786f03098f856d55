// src/cuda_off/device_matrix.cpp: cuda::DeviceMatrix when gigasparse is built without CUDA: always empty;
// upload() and the device-resident product throw NotSupported.
#include <cstdint>

#include <gigasparse/core/error.hpp>
#include <gigasparse/core/types.hpp>
#include <gigasparse/cuda/device_matrix.hpp>

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
struct DeviceMatrix<V, I>::Impl {};

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda

#include "cuda/base/device_matrix_members.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
DeviceMatrix<V, I> DeviceMatrix<V, I>::upload(CsrView<V, I>, int) {
    throw NotSupported("cuda::DeviceMatrix::upload: gigasparse was built without the CUDA backend");
}
template <class V, class I>
Csr<V, I> DeviceMatrix<V, I>::download() const { return Csr<V, I>(0, 0); }
template <class V, class I>
std::int64_t DeviceMatrix<V, I>::nrows() const { return 0; }
template <class V, class I>
std::int64_t DeviceMatrix<V, I>::ncols() const { return 0; }
template <class V, class I>
std::int64_t DeviceMatrix<V, I>::nnz() const { return 0; }
template <class V, class I>
int DeviceMatrix<V, I>::device() const { return 0; }
template <class V, class I>
std::int64_t DeviceMatrix<V, I>::bytes() const { return 0; }
template <class V, class I>
const offset_t* DeviceMatrix<V, I>::row_ptr() const { return nullptr; }
template <class V, class I>
const I* DeviceMatrix<V, I>::col_idx() const { return nullptr; }
template <class V, class I>
const V* DeviceMatrix<V, I>::values() const { return nullptr; }

template <class V, class I>
DeviceMatrix<V, I> spgemm(const DeviceMatrix<V, I>&, const DeviceMatrix<V, I>&, const GpuSpgemmOptions&, GpuSpgemmStats*) {
    throw NotSupported("cuda::spgemm: gigasparse was built without the CUDA backend");
}

#define GIGASPARSE_INSTANTIATE_DEVICE_MATRIX(V, I) \
    template class DeviceMatrix<V, I>;             \
    template DeviceMatrix<V, I> spgemm<V, I>(const DeviceMatrix<V, I>&, const DeviceMatrix<V, I>&, const GpuSpgemmOptions&, GpuSpgemmStats*);
GIGASPARSE_FOR_EACH_REAL_VALUE_INDEX(GIGASPARSE_INSTANTIATE_DEVICE_MATRIX)
#undef GIGASPARSE_INSTANTIATE_DEVICE_MATRIX
// complex values: the GPU iterative backend's matrices (the GPU SpGEMM takes real ones)
template class DeviceMatrix<std::complex<float>, std::int32_t>;
template class DeviceMatrix<std::complex<float>, std::int64_t>;
template class DeviceMatrix<std::complex<double>, std::int32_t>;
template class DeviceMatrix<std::complex<double>, std::int64_t>;

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
