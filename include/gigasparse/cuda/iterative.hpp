// include/gigasparse/cuda/iterative.hpp: the iterative pillar on the GPU (no CUDA headers here): SpMV
// of a DeviceMatrix and Krylov solves (CG, BiCGStab, GMRES, FGMRES, MINRES; Jacobi, ILU(0), IC(0), SGS or no preconditioner;
// float, double, complex<float>, complex<double>: Hermitian inner products for complex values)
// whose vectors, scalars and stopping tests stay in device memory; the host reads the residuals of a
// batch of iterations at once.
//
//     auto a = cuda::DeviceMatrix<double, int>::upload(host_a);
//     iterative::SolveResult r = cuda::solve(a, b, x, {.method = iterative::Method::cg});
//
// Built without CUDA, DeviceMatrix::upload throws NotSupported (so nothing here can be reached).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/abi.hpp>
#include <gigasparse/cuda/device_matrix.hpp>
#include <gigasparse/iterative/krylov.hpp>
#include <gigasparse/iterative/ordering.hpp>

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

// none, Jacobi (on the device), or the sweeps of ILU(0), IC(0), SGS: factored on the host by the CPU
// backend's code (iterative::sweep_factors, on the given ordering), then applied on the device level by level.
enum class GpuPrecond { none, jacobi, ilu0, ic0, sgs };

inline const char* to_string(GpuPrecond p) {
    switch (p) {
        case GpuPrecond::none: return "none";
        case GpuPrecond::jacobi: return "jacobi";
        case GpuPrecond::ilu0: return "ilu0";
        case GpuPrecond::ic0: return "ic0";
        case GpuPrecond::sgs: return "sgs";
    }
    return "unknown";
}
// "none", "jacobi", "ilu0", "ic0", "sgs"; InvalidArgument otherwise
inline GpuPrecond parse_gpu_precond(const std::string& name) {
    for (const GpuPrecond p : {GpuPrecond::none, GpuPrecond::jacobi, GpuPrecond::ilu0, GpuPrecond::ic0, GpuPrecond::sgs})
        if (name == to_string(p)) return p;
    throw InvalidArgument("the GPU backend's preconditioners are none, jacobi, ilu0, ic0 and sgs, got '" + name + "'");
}

// How the SpMV runs: `long_row` = 0 chooses the threshold above which a row gets a whole block
// (src/iterative/cuda/krylov_math.hpp); a positive value forces it.
struct GpuSpmvOptions {
    std::int64_t long_row = 0;
};

// What the SpMV setup decided, and what a solve did (milliseconds by CUDA events on the solve's stream).
struct GpuSolveStats {
    int threads_per_row = 0;            // lanes of a warp per row in the CSR-vector kernel
    std::int64_t long_row_threshold = 0;
    std::int64_t long_rows = 0;         // rows given a block each
    std::int64_t spmv_calls = 0;
    std::int64_t device_bytes = 0;      // peak device memory of the solve's vectors and factors (the matrix not counted)
    std::int64_t sweep_levels = 0;      // ILU(0)/IC(0)/SGS: levels of the two sweeps (kernel launches per application)
    std::int64_t graph_launches = 0;    // batches of iterations launched as one CUDA graph (options.graphs)
    std::string ordering;               // ... and the ordering they ran on (its one-line description)
    double setup_ms = 0;                // upload of b and x, SpMV setup, preconditioner, first residual
    double solve_ms = 0;                // the iterations
    double download_ms = 0;             // x back to the host
};

// y = alpha A x + beta y with host vectors (copied to the device and y back; beta == 0 ignores the
// old y, even NaN). For a one-off product and the tests; a solve keeps its vectors on the device.
template <class V, class I>
void spmv(const DeviceMatrix<V, I>& a, std::span<const V> x, std::span<V> y, V alpha = V(1), V beta = V(0), const GpuSpmvOptions& o = {},
          GpuSolveStats* stats = nullptr);

struct GpuSolveOptions {
    iterative::Method method = iterative::Method::cg;  // cg, bicgstab, gmres, fgmres or minres (not with ilu0)
    int restart = 30;                                   // gmres, fgmres: the Krylov vectors of a cycle (>= 1)
    GpuPrecond precond = GpuPrecond::jacobi;
    // The sweeps' ordering (ilu0, ic0, sgs): multicolor by default, whose colors are the levels (a 7-point
    // grid sweeps in 2 launches; natural order in about 3 n^(1/3)).
    iterative::OrderingOptions ordering = multicolor();
    double tol = 1e-8;            // stop when ||b - A x||_2 <= tol ||b||_2 (recurrence residual; MINRES with M: its M⁻¹ norm, as iterative::minres)
    std::int64_t maxit = 1000;
    bool record_history = true;
    // Iterations queued between two reads of their residuals (1..64; GMRES: the steps of a cycle, in batches that
    // start again with each cycle, at most restart at a time). A stop, convergence included, is
    // decided on the device and freezes the solve there (the iterations queued after it only launch), so the
    // result is the same for any value; larger ones keep the GPU busy while the host decides.
    std::int64_t check_every = 8;
    // Each batch of check_every iterations as one CUDA graph (captured once, replayed), instead of a launch
    // per kernel: fewer host calls and shorter gaps between the small kernels (level sweeps, reductions).
    bool graphs = true;
    GpuSpmvOptions spmv;

    static iterative::OrderingOptions multicolor() {
        iterative::OrderingOptions o;
        o.kind = iterative::OrderingKind::multicolor;
        return o;
    }
};

// The host-side checks of options that need no device (cuda::solve makes them first): InvalidArgument for a negative
// tol or maxit, check_every or restart below 1, or MINRES with ILU(0) (its preconditioner must be positive definite).
inline void check_options(const GpuSolveOptions& o) {
    if (o.tol < 0 || o.maxit < 0 || o.check_every < 1 || o.restart < 1)
        throw InvalidArgument("cuda::solve: tol and maxit must be >= 0, check_every and restart >= 1");
    if (o.method == iterative::Method::minres && o.precond == GpuPrecond::ilu0)
        throw InvalidArgument("cuda::solve: minres: the preconditioner must be symmetric positive definite (jacobi, ic0, sgs), not ilu0");
}

// Solves A x = b on A's device from the initial guess in x (host vectors: b and x are copied there,
// x back). The same recurrences, stopping tests and statuses as iterative::cg / iterative::bicgstab /
// iterative::gmres / iterative::fgmres / iterative::minres (GMRES(m), right-preconditioned, its basis orthogonalized on the device by
// classical Gram–Schmidt applied twice — a pass of all dot products at once — where the host's modified
// Gram–Schmidt takes one dot product and update per vector: the same iterate in exact arithmetic)
// (converged, max_iterations, breakdown, non_finite, preconditioner_failed: a zero, missing or
// non-finite diagonal for Jacobi, a zero pivot of ILU(0), a non-positive one of IC(0)); throws only for misuse (DimensionMismatch, InvalidStructure for
// non-finite b or x, InvalidArgument, NotSupported) and device failures (OutOfMemory, BackendError).
template <class V, class I>
iterative::SolveResult solve(const DeviceMatrix<V, I>& a, std::span<const V> b, std::span<V> x, const GpuSolveOptions& o = {},
                             GpuSolveStats* stats = nullptr);

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
