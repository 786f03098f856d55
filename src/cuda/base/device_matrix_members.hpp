// src/cuda/base/device_matrix_members.hpp: cuda::DeviceMatrix's constructors, destructor and moves, for
// both implementations (src/cuda/base/device_matrix.cuh with CUDA, src/cuda_off/device_matrix.cpp
// without); include after DeviceMatrix<V, I>::Impl is defined (the unique_ptr needs it complete).
#pragma once

#include <memory>
#include <utility>

#include <gigasparse/cuda/device_matrix.hpp>

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
DeviceMatrix<V, I>::DeviceMatrix() = default;
template <class V, class I>
DeviceMatrix<V, I>::DeviceMatrix(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
template <class V, class I>
DeviceMatrix<V, I>::~DeviceMatrix() = default;
template <class V, class I>
DeviceMatrix<V, I>::DeviceMatrix(DeviceMatrix&&) noexcept = default;
template <class V, class I>
DeviceMatrix<V, I>& DeviceMatrix<V, I>::operator=(DeviceMatrix&&) noexcept = default;

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
