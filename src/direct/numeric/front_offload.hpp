// src/direct/numeric/front_offload.hpp: where the multifrontal Cholesky, LDLᵀ and LU send their largest fronts (NumericParams::offload):
// the GPU's (src/direct/numeric/cuda/gpu_fronts.cuh, option backend = cuda). An interface, so the front driver
// needs no CUDA header and the tests can hand it the simulator's implementation.
//
// A factorization is begin(), the fronts in the driver's order, end(). The contribution block of an offloaded
// front whose parent is offloaded too stays on the device (keep) when it fits there: the driver leaves such a
// child (resident) out of the parent's host assembly, and the offload adds it to the parent's front on the
// device, so neither the child's block nor that part of the parent's front crosses the bus.
#pragma once

#include <cstdint>
#include <memory>

#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {

// What the offloaded fronts cost, summed over a factorization.
struct FrontOffloadStats {
    std::int64_t fronts = 0;
    double flops = 0;           // LLᵀ: w³/3 + m w² + m² w per front (potrf, trsm, syrk); LDLᵀ: m w² + m² w (trsm, syrkx);
                                // LU: 2 m w² + 2 m² w (two trsm, gemm), plus 2 w³/3 when F11 is factored there (getrf)
    std::int64_t bytes = 0;     // copied between host and device
    double seconds = 0;         // wall time inside the offload's calls, copies included
    std::int64_t host_f11 = 0;  // LU fronts whose F11 went back to the host (lu_factor: a pivot at most tau)
    std::int64_t kept = 0;      // contribution blocks that stayed on the device for their parent's front
    std::int64_t kept_bytes = 0;   // their bytes (the copies they saved: down, and up again into the parent)
    std::int64_t peak_bytes = 0;   // device memory held at most (fronts, kept blocks, workspace)
};

// One front handed to the offload (column-major, f rows, w fully summed columns, m = f - w): its panel is
// f x w (ld f), its contribution block m x m (ld m; the lower triangle, LU the whole block), both assembled by
// the host from A's entries and the children whose blocks are on the host.
struct OffloadFront {
    idx sn = -1;               // its supernode in begin()'s analysis (-1: a front on its own, no children)
    std::int64_t f = 0, w = 0;
    bool host_cb = true;       // the host added children into cb (uploaded); false: cb is zero (not read)
    bool keep = false;         // its parent is offloaded: keep the contribution block on the device if it fits
};

// Every call is thread-safe (the subtree workers may call concurrently, on different fronts) and throws
// BackendError / OutOfMemory on a device failure. Before a front's call its resident children (see
// resident()) are added into it on the device. A call that finishes a front leaves its panel(s) in the
// host's arrays and its contribution block in cb, unless the block stays on the device (keep, and it fits).
class FrontOffload {
public:
    virtual ~FrontOffload() = default;
    // A factorization of the analysis s starts; its fronts of at least offload_rows rows come here (to size what
    // the device keeps free for them). Drops whatever an earlier factorization left.
    virtual void begin(const Symbolic& s, idx offload_rows) = 0;
    // The factorization ended (also after a failure): every block still on the device is freed.
    virtual void end() noexcept = 0;
    // Front sn's contribution block stayed on the device: its parent's host assembly leaves it out.
    virtual bool resident(idx sn) const = 0;

    // Partial Cholesky: L11 L11ᴴ = F11 and L21 in the panel, cb -= L21 L21ᴴ. Returns 0, or LAPACK potrf's info
    // (1 + the local column whose pivot was not positive; panel and cb are then undefined).
    virtual std::int64_t factor(const OffloadFront& fr, double* panel, double* cb) = 0;
    virtual std::int64_t factor(const OffloadFront& fr, float* panel, float* cb) = 0;
    // LDLᵀ of a real symmetric front, in two steps around the host's F11 (ldlt_front_split). ldlt_assemble puts
    // the front on the device and, when resident children were added there, copies the assembled F11 back
    // into the panel's top w x w block. ldlt_update then takes the host's factored F11 (L11 and D in that block,
    // laid out as ldlt_front leaves them; piv, psize its pivots) while rows w.. of the device's front still hold
    // F21 in the analysis' column order: they become L21 = F21 P L11⁻ᵀ D⁻¹ and cb -= L21 D L21ᵀ (lower triangle),
    // and the front is finished.
    virtual void ldlt_assemble(const OffloadFront& fr, double* panel, double* cb) = 0;
    virtual void ldlt_assemble(const OffloadFront& fr, float* panel, float* cb) = 0;
    virtual void ldlt_update(const OffloadFront& fr, const std::int64_t* piv, const std::int8_t* psize, double* panel, double* cb) = 0;
    virtual void ldlt_update(const OffloadFront& fr, const std::int64_t* piv, const std::int8_t* psize, float* panel, float* cb) = 0;
    // Partial LU (lu_front.hpp's layout: upanel holds F12ᵀ) wholly on the device: F11 by cuSOLVER getrf (partial
    // pivoting over the fully summed rows, as lu_front; piv receives the row pivots in lu_front's convention),
    // L21 = F21 U11⁻¹, U12ᵀ = (P F12)ᵀ L11⁻ᵀ, cb -= L21 U12; true, the front finished. False when a pivot of U11
    // is zero, not finite or at most tau in magnitude (lu_front would perturb it or fail): the panel's top w x w
    // block then holds the assembled F11 for the host's lu_front_split, and lu_update (with its pivots, U11 and
    // the unit L11 in that block) finishes the front from the rows below, which stayed on the device.
    virtual bool lu_factor(const OffloadFront& fr, double tau, std::int64_t* piv, double* panel, double* upanel, double* cb) = 0;
    virtual bool lu_factor(const OffloadFront& fr, double tau, std::int64_t* piv, float* panel, float* upanel, float* cb) = 0;
    virtual void lu_update(const OffloadFront& fr, const std::int64_t* piv, double* panel, double* upanel, double* cb) = 0;
    virtual void lu_update(const OffloadFront& fr, const std::int64_t* piv, float* panel, float* upanel, float* cb) = 0;

    virtual FrontOffloadStats stats() const = 0;
    virtual void reset_stats() = 0;
};

// The GPU's: cuSOLVER potrf and getrf, cuBLAS trsm, syrk, syrkx and gemm, extend-add kernels, on `device`.
// budget_bytes >= 0: the device memory a factorization may hold (tests); default: what the device has free at
// begin(), less a margin. NotSupported without the CUDA backend or a device.
std::unique_ptr<FrontOffload> make_gpu_front_offload(int device, std::int64_t budget_bytes = -1);

}  // namespace gigasparse::direct
