// src/cuda/base/device_matrix.cuh: cuda::DeviceMatrix (device buffers, upload, download, accessors), shared by
// the GPU SpGEMM and the GPU iterative backend. Instantiated in src/spgemm/cuda/gmagnus_float.cu /
// gmagnus_double.cu; the CPU simulator's tests (tests/cuda_sim) instantiate it for the simulator.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/abi.hpp>
#include <gigasparse/cuda/device_matrix.hpp>

#include "cuda/base/device_buffer.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
struct DeviceMatrix<V, I>::Impl {
    DeviceCsr<V, I> csr;
    int device = 0;
};

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda

#include "cuda/base/device_matrix_members.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
DeviceMatrix<V, I> DeviceMatrix<V, I>::upload(CsrView<V, I> a, int device) {
    validate(a, ValidateOptions{.sorted = false});
    check(cudaSetDevice(device), "cudaSetDevice");
    auto impl = std::make_unique<Impl>();
    impl->device = device;
    Stream s;
    impl->csr = cuda::upload(a, s.get(), nullptr);
    s.sync();
    impl->csr.detach();  // outlives the stream
    return DeviceMatrix(std::move(impl));
}

template <class V, class I>
Csr<V, I> DeviceMatrix<V, I>::download() const {
    if (!impl_) return Csr<V, I>(0, 0);
    check(cudaSetDevice(impl_->device), "cudaSetDevice");
    Stream s;
    return cuda::download(impl_->csr, s.get());
}

template <class V, class I>
std::int64_t DeviceMatrix<V, I>::nrows() const { return impl_ ? impl_->csr.nrows : 0; }
template <class V, class I>
std::int64_t DeviceMatrix<V, I>::ncols() const { return impl_ ? impl_->csr.ncols : 0; }
template <class V, class I>
std::int64_t DeviceMatrix<V, I>::nnz() const { return impl_ ? impl_->csr.nnz : 0; }
template <class V, class I>
int DeviceMatrix<V, I>::device() const { return impl_ ? impl_->device : 0; }
template <class V, class I>
std::int64_t DeviceMatrix<V, I>::bytes() const {
    return impl_ ? impl_->csr.bytes() : 0;
}
template <class V, class I>
const offset_t* DeviceMatrix<V, I>::row_ptr() const { return impl_ ? impl_->csr.row_ptr.data() : nullptr; }
template <class V, class I>
const I* DeviceMatrix<V, I>::col_idx() const { return impl_ ? impl_->csr.col_idx.data() : nullptr; }
template <class V, class I>
const V* DeviceMatrix<V, I>::values() const { return impl_ ? impl_->csr.values.data() : nullptr; }

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
