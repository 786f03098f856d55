// src/direct/numeric/front_offload.hpp: where the multifrontal Cholesky, LDLᵀ and LU send their largest fronts (NumericParams::offload):
// the GPU's (src/direct/numeric/cuda/gpu_fronts.cuh, option backend = cuda). An interface, so the front driver
// needs no CUDA header and the tests can hand it the simulator's implementation.
#pragma once

#include <cstdint>
#include <memory>

namespace gigasparse::direct {

// What the offloaded fronts cost, summed over a factorization.
struct FrontOffloadStats {
    std::int64_t fronts = 0;
    double flops = 0;           // LLᵀ: w³/3 + m w² + m² w per front (potrf, trsm, syrk); LDLᵀ: m w² + m² w (trsm, syrkx);
                                // LU: 2 m w² + 2 m² w (two trsm, gemm), plus 2 w³/3 when F11 is factored there (getrf)
    std::int64_t bytes = 0;     // copied between host and device
    double seconds = 0;         // wall time inside factor(), copies included
    std::int64_t host_f11 = 0;  // LU fronts whose F11 went back to the host (lu_factor: a pivot at most tau)
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
    // The rows below F11 of a partial LDLᵀ of a real symmetric front (f rows, w fully summed, m = f - w) whose
    // F11 the host has factored (ldlt_front_split: L11 and D in the panel's top w x w block, laid out as
    // ldlt_front leaves them; piv, psize its pivots) while rows w.. of the panel still hold F21 in the
    // analysis' column order: on return they hold L21 = F21 P L11⁻ᵀ D⁻¹ and cb -= L21 D L21ᵀ (lower triangle).
    // Thread-safe; throws BackendError / OutOfMemory on a device failure.
    virtual void ldlt_update(std::int64_t f, std::int64_t w, const std::int64_t* piv, const std::int8_t* psize, double* panel, double* cb) = 0;
    virtual void ldlt_update(std::int64_t f, std::int64_t w, const std::int64_t* piv, const std::int8_t* psize, float* panel, float* cb) = 0;
    // The rows below F11 of a partial LU (lu_front.hpp's layout) whose F11 the host has factored (lu_front_split:
    // U11 and the unit L11 in the L panel's top w x w block, piv its row pivots): rows w.. of the L panel (F21)
    // become L21 = F21 U11⁻¹, rows w.. of the U panel (F12ᵀ in the analysis' row order) U12ᵀ = (P F12)ᵀ L11⁻ᵀ,
    // and cb (m x m, full) -= L21 U12.
    virtual void lu_update(std::int64_t f, std::int64_t w, const std::int64_t* piv, double* panel, double* upanel, double* cb) = 0;
    virtual void lu_update(std::int64_t f, std::int64_t w, const std::int64_t* piv, float* panel, float* upanel, float* cb) = 0;
    // The whole partial LU of the front on the device: F11 by cuSOLVER getrf (partial pivoting over the fully
    // summed rows, as lu_front), then lu_update's work; piv receives the row pivots (lu_front's convention).
    // Returns false, with panel, upanel and cb untouched, when a pivot of U11 is zero, not finite or at most tau
    // in magnitude (lu_front would perturb it or fail): the caller then takes lu_front_split.
    virtual bool lu_factor(std::int64_t f, std::int64_t w, double tau, std::int64_t* piv, double* panel, double* upanel, double* cb) = 0;
    virtual bool lu_factor(std::int64_t f, std::int64_t w, double tau, std::int64_t* piv, float* panel, float* upanel, float* cb) = 0;
    virtual FrontOffloadStats stats() const = 0;
    virtual void reset_stats() = 0;
};

// The GPU's: cuSOLVER potrf, cuBLAS trsm, syrk, syrkx and gemm on `device`. NotSupported without the CUDA backend or a
// device.
std::unique_ptr<FrontOffload> make_gpu_front_offload(int device);

}  // namespace gigasparse::direct
