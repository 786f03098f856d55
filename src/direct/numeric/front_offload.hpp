// src/direct/numeric/front_offload.hpp: where the multifrontal Cholesky sends its largest fronts (NumericParams::offload):
// the GPU's (src/direct/numeric/cuda/gpu_fronts.cuh, option backend = cuda). An interface, so the front driver
// needs no CUDA header and the tests can hand it the simulator's implementation.
#pragma once

#include <cstdint>
#include <memory>

namespace gigasparse::direct {

// What the offloaded fronts cost, summed over a factorization.
struct FrontOffloadStats {
    std::int64_t fronts = 0;
    double flops = 0;           // w³/3 + m w² + m² w per front (the potrf, trsm and syrk)
    std::int64_t bytes = 0;     // copied between host and device
    double seconds = 0;         // wall time inside factor(), copies included
};

// Partial Cholesky of one front (column-major, f rows): panel = the f x w fully summed columns (lower
// triangle of F11 above F21, ld f), cb = the m x m contribution block (m = f - w, lower triangle, ld m),
// already assembled. On return L11 L11ᴴ = F11 and L21 in the panel, cb -= L21 L21ᴴ. Returns 0, or LAPACK
// potrf's info (1 + the local column whose pivot was not positive; panel and cb are then undefined).
// Thread-safe (the subtree workers may call it concurrently); throws BackendError / OutOfMemory on a
// device failure.
class FrontOffload {
public:
    virtual ~FrontOffload() = default;
    virtual std::int64_t factor(std::int64_t f, std::int64_t w, double* panel, double* cb) = 0;
    virtual std::int64_t factor(std::int64_t f, std::int64_t w, float* panel, float* cb) = 0;
    virtual FrontOffloadStats stats() const = 0;
    virtual void reset_stats() = 0;
};

// The GPU's: cuSOLVER potrf, cuBLAS trsm and syrk on `device`. NotSupported without the CUDA backend or a
// device.
std::unique_ptr<FrontOffload> make_gpu_front_offload(int device);

}  // namespace gigasparse::direct
