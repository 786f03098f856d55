// src/direct/numeric/front_offload.hpp: where the multifrontal Cholesky, LDLᵀ and LU send their largest fronts (NumericParams::offload):
// the GPU's (src/direct/numeric/cuda/gpu_fronts.cuh, option backend = cuda). An interface, so the front driver
// needs no CUDA header and the tests can hand it the simulator's implementation.
//
// A factorization is begin(), the fronts in the driver's order, end(). The contribution block of an offloaded
// front whose parent is offloaded too stays on the device (keep) when it fits there: the driver leaves such a
// child (resident) out of the parent's host assembly, and the offload adds it to the parent's front on the
// device, so neither the child's block nor that part of the parent's front crosses the bus.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>

#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {

// What the offloaded fronts cost, summed over a factorization.
struct FrontOffloadStats {
    std::int64_t fronts = 0;    // fronts offloaded and finished
    double flops = 0;           // LLᵀ and LDLᵀ: w³/3 + m w² + m² w per front (potrf or the blocks, trsm, syrk(x));
                                // LU: 2 m w² + 2 m² w (two trsm, gemm), plus 2 w³/3 when F11 is factored there (getrf)
    std::int64_t bytes = 0;     // copied between host and device
    double seconds = 0;         // wall time inside the offload's calls, copies included
    std::int64_t host_f11 = 0;  // LU fronts whose F11 went back to the host (lu_factor: a pivot at most tau)
    std::int64_t kept = 0;      // contribution blocks that stayed on the device for their parent's front
    std::int64_t kept_bytes = 0;   // their bytes (the copies they saved: down, and up again into the parent)
    std::int64_t peak_bytes = 0;   // device memory held at most (fronts, kept blocks, workspace)
    std::int64_t device_assembled = 0;  // fronts assembled on the device (OffloadFront::device_assembly)
    std::int64_t host_large = 0;        // fronts of at least offload_rows rows the device could not hold (on the host)
    std::int64_t capacity_bytes = 0;    // the device memory begin() found for the factorization
};

// The device memory an offloaded front of s may need at most (8-byte values): its panel and U panel, contribution
// block, the LDLᵀ/LU workspaces (LDLᵀ's two per block counted for blocks of up to 256 columns), and device
// assembly's scratch (A's entries as position and value, the largest child's block).
inline std::int64_t offload_front_bytes(const Symbolic& s, idx sn) {
    const std::int64_t f = s.front_rows(sn), w = s.width(sn), m = f - w;
    std::int64_t child = 0;
    for (idx q = s.child_ptr[sn]; q < s.child_ptr[sn + 1]; ++q) {
        const std::int64_t mc = s.front_rows(s.child_list[q]) - s.width(s.child_list[q]);
        child = std::max(child, mc * mc);
    }
    const std::int64_t entries = s.amap_sn_ptr[sn + 1] - s.amap_sn_ptr[sn];
    return 8 * (2 * f * w + m * m + m * w + 2 * w * w + m + child + 2 * entries + 2 * f * std::min<std::int64_t>(w, 256));
}

// One front handed to the offload (column-major, f rows, w fully summed columns, m = f - w): its panel is
// f x w (ld f), its contribution block m x m (ld m; the lower triangle, LU the whole block). Either both are
// assembled by the host from A's entries and the children whose blocks are on the host (uploaded), or, with
// device_assembly, the device assembles the front from zero: A's entries (a_values[t] at a_pos[t], the local
// position in the panel, LU's U panel from f·w on; distinct positions), then every child in child order, the
// host's blocks (host_blocks[k]: the block of host_children[k], in child order) uploaded, the resident ones in
// place; the host's panel and cb are then not read (the same sums in the same order as the host's assembly).
template <class V>
struct OffloadFront {
    idx sn = -1;               // its supernode in begin()'s analysis (-1: a front on its own, no children)
    std::int64_t f = 0, w = 0;
    bool host_cb = true;       // host assembly: the host added children into cb (uploaded); false: cb is zero (not read)
    bool keep = false;         // its parent is offloaded: keep the contribution block on the device if it fits
    bool device_assembly = false;
    std::span<const std::int64_t> a_pos;
    std::span<const V> a_values;
    std::span<const idx> host_children;
    std::span<const V* const> host_blocks;
};

// What ldlt_factor did: fail 0 or 1 + the local column of a failed pivot; perturbed pivots (set to ±tau).
struct OffloadLdlt {
    std::int64_t fail = 0, perturbed = 0;
};

// Every call is thread-safe (the subtree workers may call concurrently, on different fronts) and throws
// BackendError / OutOfMemory on a device failure. Before a front's call its resident children (see
// resident()) are added into it on the device. A call that finishes a front leaves its panel(s) in the
// host's arrays and its contribution block in cb, unless the block stays on the device (keep, and it fits).
class FrontOffload {
public:
    virtual ~FrontOffload() = default;
    // A factorization of the analysis s starts; its fronts of at least offload_rows rows come here if takes() them
    // (the others, too large for the device, stay on the host). Drops whatever an earlier factorization left.
    virtual void begin(const Symbolic& s, idx offload_rows) = 0;
    // Whether front sn of begin()'s analysis goes to the device: at least offload_rows rows, and
    // offload_front_bytes within the device memory free at begin() (less a margin).
    virtual bool takes(idx sn) const = 0;
    // The factorization ended (also after a failure): every block still on the device is freed.
    virtual void end() noexcept = 0;
    // Front sn's contribution block stayed on the device: its parent's host assembly leaves it out.
    virtual bool resident(idx sn) const = 0;

    // Partial Cholesky: L11 L11ᴴ = F11 and L21 in the panel, cb -= L21 L21ᴴ. Returns 0, or LAPACK potrf's info
    // (1 + the local column whose pivot was not positive; panel and cb are then undefined).
    virtual std::int64_t factor(const OffloadFront<double>& fr, double* panel, double* cb) = 0;
    virtual std::int64_t factor(const OffloadFront<float>& fr, float* panel, float* cb) = 0;
    // Partial LDLᵀ of a real symmetric front wholly on the device, ldlt_front's algorithm and layout (piv, psize,
    // L and D in the panel): per block of `block` pivot columns (one more rather than end between the columns of
    // an analysis pivot pair, pair_next) the host runs the Bunch–Kaufman tests and perturbations (tau) on the
    // block's diagonal block, downloaded after the updates of the blocks before it (ldlt_pivot_block); the device
    // applies the block's interchanges to the rest of the front, computes its L below the diagonal block (trsm,
    // D⁻¹) and updates the remaining fully summed columns (gemm); at the end cb -= L21 D L21ᵀ (syrkx). fail: 1 +
    // the column of a zero or non-finite pivot (the front is then undefined and nothing stays on the device).
    virtual OffloadLdlt ldlt_factor(const OffloadFront<double>& fr, std::int64_t block, double tau, const std::uint8_t* pair_next,
                                    std::int64_t* piv, std::int8_t* psize, double* panel, double* cb) = 0;
    virtual OffloadLdlt ldlt_factor(const OffloadFront<float>& fr, std::int64_t block, double tau, const std::uint8_t* pair_next,
                                    std::int64_t* piv, std::int8_t* psize, float* panel, float* cb) = 0;
    // Partial LU (lu_front.hpp's layout: upanel holds F12ᵀ) wholly on the device: F11 by cuSOLVER getrf (partial
    // pivoting over the fully summed rows, as lu_front; piv receives the row pivots in lu_front's convention),
    // L21 = F21 U11⁻¹, U12ᵀ = (P F12)ᵀ L11⁻ᵀ, cb -= L21 U12; true, the front finished. False when a pivot of U11
    // is zero, not finite or at most tau in magnitude (lu_front would perturb it or fail): the panel's top w x w
    // block then holds the assembled F11 for the host's lu_front_split, and lu_update (with its pivots, U11 and
    // the unit L11 in that block) finishes the front from the rows below, which stayed on the device (a front with
    // no rows below is finished by the host's F11: no lu_update follows).
    virtual bool lu_factor(const OffloadFront<double>& fr, double tau, std::int64_t* piv, double* panel, double* upanel, double* cb) = 0;
    virtual bool lu_factor(const OffloadFront<float>& fr, double tau, std::int64_t* piv, float* panel, float* upanel, float* cb) = 0;
    virtual void lu_update(const OffloadFront<double>& fr, const std::int64_t* piv, double* panel, double* upanel, double* cb) = 0;
    virtual void lu_update(const OffloadFront<float>& fr, const std::int64_t* piv, float* panel, float* upanel, float* cb) = 0;

    virtual FrontOffloadStats stats() const = 0;
    virtual void reset_stats() = 0;
};

// The GPU's: cuSOLVER potrf and getrf, cuBLAS trsm, syrk, syrkx and gemm, extend-add kernels, on `device`.
// budget_bytes >= 0: the device memory a factorization may hold (tests); default: what the device has free at
// begin(), less a margin. NotSupported without the CUDA backend or a device.
std::unique_ptr<FrontOffload> make_gpu_front_offload(int device, std::int64_t budget_bytes = -1);

}  // namespace gigasparse::direct
