// include/gigasparse/cuda/device_matrix.hpp: a CSR matrix resident in GPU memory, and the gMAGNUS
// product of two of them (no CUDA headers here). Keeps chains of products on the device:
//
//     auto a = cuda::DeviceMatrix<double, int>::upload(host_a);   // validated, copied, owned
//     auto c = cuda::spgemm(a, a);                                 // C = A·A, stays on the GPU
//     auto d = cuda::spgemm(c, a);                                 // no host round trip
//     Csr<double, int> host_d = d.download();
//
// Built without CUDA, upload() throws NotSupported.
#pragma once

#include <cstdint>
#include <memory>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/cuda/abi.hpp>
#include <gigasparse/cuda/spgemm.hpp>

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

// Owning, move-only: 64-bit row offsets, columns I and values V in the memory of one device, freed
// with the object. A default-constructed or moved-from matrix is empty (0 x 0, no device memory).
template <class V, class I>
class DeviceMatrix {
public:
    struct Impl;  // the device buffers (src/spgemm/cuda/device_matrix.cuh)

    DeviceMatrix();
    explicit DeviceMatrix(std::unique_ptr<Impl> impl);
    ~DeviceMatrix();
    DeviceMatrix(DeviceMatrix&&) noexcept;
    DeviceMatrix& operator=(DeviceMatrix&&) noexcept;
    DeviceMatrix(const DeviceMatrix&) = delete;
    DeviceMatrix& operator=(const DeviceMatrix&) = delete;

    // Validates `a` (InvalidStructure: row offsets, column range), copies it to `device` and waits
    // for the copy. OutOfMemory when it does not fit.
    static DeviceMatrix upload(CsrView<V, I> a, int device = 0);
    // Copies the matrix back (rows as stored: sorted when it came from spgemm).
    Csr<V, I> download() const;

    std::int64_t nrows() const;
    std::int64_t ncols() const;
    std::int64_t nnz() const;
    int device() const;
    std::int64_t bytes() const;  // device memory held
    // Device pointers for use with other CUDA code (null when empty).
    const offset_t* row_ptr() const;
    const I* col_idx() const;
    const V* values() const;

    const Impl* impl() const { return impl_.get(); }

private:
    std::unique_ptr<Impl> impl_;
};

// C = A·B with gMAGNUS, all three in device memory (options.device is taken from A; A and B must be
// on the same device). Throws DimensionMismatch, InvalidArgument (different devices), OutOfMemory,
// NotSupported, BackendError. stats gets the device phase times (upload/download stay 0).
template <class V, class I>
DeviceMatrix<V, I> spgemm(const DeviceMatrix<V, I>& a, const DeviceMatrix<V, I>& b, const GpuSpgemmOptions& options = {},
                          GpuSpgemmStats* stats = nullptr);

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
