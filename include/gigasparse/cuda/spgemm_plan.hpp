// include/gigasparse/cuda/spgemm_plan.hpp: gMAGNUS in two phases, the pattern work kept on the GPU
// (no CUDA headers here). For products repeated with new values and the same patterns:
//
//     cuda::GpuSpgemmPlan<double, int> plan;
//     plan.symbolic(a, b);            // uploads A and B, computes C's pattern and keeps what the
//                                     // numeric phase needs on the device
//     for (...) {
//         update_values(a, b);        // same patterns
//         Csr<double, int> c = plan.numeric(a, b);   // uploads values only; outer product,
//     }                                              // multisplit and accumulation kernels only
//
// The same with DeviceMatrix operands keeps A, B and C on the GPU.
// SpgemmPlan with SpgemmBackend::cuda is this plan behind the library's common API (it adds the
// operands' validation and the pattern check). Built without CUDA, symbolic() throws NotSupported.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/cuda/abi.hpp>
#include <gigasparse/cuda/device_matrix.hpp>
#include <gigasparse/cuda/spgemm.hpp>

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

template <class V, class I>
class GpuSpgemmPlan {
public:
    struct Impl;  // src/spgemm/cuda/plan.cuh

    explicit GpuSpgemmPlan(const GpuSpgemmOptions& options = {});
    ~GpuSpgemmPlan();
    GpuSpgemmPlan(GpuSpgemmPlan&&) noexcept;
    GpuSpgemmPlan& operator=(GpuSpgemmPlan&&) noexcept;
    GpuSpgemmPlan(const GpuSpgemmPlan&) = delete;
    GpuSpgemmPlan& operator=(const GpuSpgemmPlan&) = delete;

    // Uploads A and B (validated by the caller, as for cuda::spgemm; B = A is uploaded once) and
    // computes C's pattern on options.device. The plan then holds on the device: A and B, the
    // heavy/light partition of A's rows, the light rows' bins, for each batch of heavy rows the CSC
    // of A (pattern), the multisplit levels' chunk order and starts and the segments with their
    // output positions, and C's row offsets. Throws DimensionMismatch, OutOfMemory (the plan is then
    // empty), NotSupported, BackendError.
    void symbolic(CsrView<V, I> a, CsrView<V, I> b);
    // C = A·B with the values of a and b. Only their values are read: the patterns are the plan's
    // copies of those given to symbolic() (SpgemmPlan checks that they did not change; here only the
    // shapes and entry counts are, InvalidArgument). No host wait between the upload of the values
    // and the end of the product. PhaseError before symbolic(). The second form reuses c's storage.
    Csr<V, I> numeric(CsrView<V, I> a, CsrView<V, I> b);
    void numeric(CsrView<V, I> a, CsrView<V, I> b, Csr<V, I>& c);

    // The same with A, B and C on the device (chains of products, e.g. a Galerkin product R·A·P
    // whose values change): symbolic() copies the patterns of a and b (the plan's own copy: the
    // operands may change or go away), numeric() reads their values in place and returns C on
    // their device. a and b on one device (InvalidArgument otherwise, or when empty).
    void symbolic(const DeviceMatrix<V, I>& a, const DeviceMatrix<V, I>& b);
    DeviceMatrix<V, I> numeric(const DeviceMatrix<V, I>& a, const DeviceMatrix<V, I>& b);

    bool has_symbolic() const;
    std::int64_t nnz() const;                       // nnz(C) after symbolic()
    const std::vector<offset_t>& row_ptr() const;   // C's row offsets after symbolic()
    // The last phase: symbolic() fills setup/symbolic (numeric 0), numeric() adds its own (the
    // symbolic phase's stay). upload_ms and download_ms are those of the last call.
    const GpuSpgemmStats& stats() const;
    std::int64_t device_bytes() const;  // device memory the plan holds between calls
    const GpuSpgemmOptions& options() const;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
