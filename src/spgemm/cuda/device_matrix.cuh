// src/spgemm/cuda/device_matrix.cuh: the device-resident gMAGNUS product of two cuda::DeviceMatrix (the
// matrix itself: src/cuda/base/device_matrix.cuh). Instantiated in gmagnus_float.cu / gmagnus_double.cu; the
// CPU simulator's tests (tests/cuda_sim) instantiate it for the simulator.
#pragma once

#include <string>
#include <utility>

#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/abi.hpp>
#include <gigasparse/cuda/device_matrix.hpp>

#include "cuda/base/device_matrix.cuh"
#include "spgemm/cuda/gmagnus_dispatch.cuh"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
DeviceMatrix<V, I> spgemm(const DeviceMatrix<V, I>& a, const DeviceMatrix<V, I>& b, const GpuSpgemmOptions& options, GpuSpgemmStats* stats) {
    if (!a.impl() || !b.impl()) throw InvalidArgument("cuda::spgemm: an operand is an empty (default-constructed or moved-from) DeviceMatrix");
    if (a.device() != b.device())
        throw InvalidArgument("cuda::spgemm: A is on device " + std::to_string(a.device()) + " and B on device " + std::to_string(b.device()));
    GpuSpgemmOptions o = options;
    o.device = a.device();
    return gmagnus::with_gmagnus<V, I>(a.nrows(), a.ncols(), b.nrows(), b.ncols(), o, stats, [&](gmagnus::Gmagnus<V, I>& g) {
        auto impl = std::make_unique<typename DeviceMatrix<V, I>::Impl>();
        impl->device = o.device;
        impl->csr = g.run_device(a.impl()->csr, b.impl()->csr);
        return DeviceMatrix<V, I>(std::move(impl));
    });
}

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
