// include/gigasparse/iterative/preconditioner.hpp: Jacobi, ILU(0), IC(0) and symmetric Gauss–Seidel over ordered, scheduled sweeps.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/iterative/kernels.hpp>
#include <gigasparse/iterative/ordering.hpp>
#include <gigasparse/iterative/triangular_solve.hpp>

namespace gigasparse::iterative {

enum class PrecondKind { none, jacobi, ilu0, ic0, sgs };

const char* to_string(PrecondKind k);
// "none", "jacobi", "ilu0", "ic0", "sgs"; InvalidArgument otherwise.
PrecondKind parse_precond(const std::string& name);

// Numerical outcome of a setup: ok, or a zero/missing diagonal, zero pivot or non-positive
// pivot (IC) at `row` (original numbering). Never thrown.
struct PrecondStatus {
    bool ok = true;
    std::int64_t row = -1;
    std::string message;
};

struct PrecondOptions {
    PrecondKind kind = PrecondKind::none;
    OrderingOptions ordering;   // ordering.kind == automatic: chosen by a probe (auto_ordering.hpp)
    ScheduleOptions schedule;   // backend, sync and threads of the sweeps and the factorization
    // ordering.kind == automatic (auto_ordering.hpp): every candidate (natural, rcm, mc, abmc, dc)
    // is probed on a breadth-first sub-problem of about probe_rows rows (CG when A is symmetric,
    // BiCGStab otherwise, to probe_tol or at most probe_iterations, extrapolated), the candidates
    // that can still win are ordered and their sweep timed at full size, and the least predicted
    // time to solution decides (see auto_reason).
    int probe_iterations = 300;
    double probe_tol = 1e-8;
    std::int64_t probe_rows = 1500;
};

// What a setup built and how long it took.
struct PrecondInfo {
    PrecondKind kind = PrecondKind::none;
    OrderingKind ordering = OrderingKind::natural;
    std::string ordering_description;
    std::string auto_reason;     // filled when the ordering was chosen automatically
    ScheduleStats lower, upper;  // the two sweeps (empty for none/jacobi)
    std::int64_t depth = 0;      // max(lower.depth, upper.depth): synchronization levels per sweep
    double setup_seconds = 0;
    PrecondStatus status;
};

// z = M⁻¹ r. apply() is const and may be called many times, but not concurrently on one object (it
// uses a work vector); it runs on the backend given at setup.
template <class V>
class Preconditioner {
public:
    virtual ~Preconditioner() = default;
    virtual void apply(std::span<const V> r, std::span<V> z) const = 0;
    const PrecondInfo& info() const { return info_; }

protected:
    PrecondInfo info_;
};

// Builds the preconditioner of A (square, rows sorted, finite values: InvalidStructure
// otherwise). Numerical failures (zero pivot, missing diagonal, IC breakdown) do not throw: the
// returned object's info().status says what failed, and apply() then copies r to z.
template <class V, class I>
std::unique_ptr<Preconditioner<V>> make_preconditioner(CsrView<V, I> a, const PrecondOptions& options);

// The factors of a sweep preconditioner (ilu0, ic0, sgs), for a backend that runs its own sweeps (the
// GPU's level sets): on P A Pᵀ, z = P' U⁻¹ diag(middle) L⁻¹ P r. ILU(0): L unit lower (its diagonal
// not stored), U upper with the pivots; IC(0): L and Lᵀ; SGS: D + L, middle D, D + U. Built by the same
// ordering and factorization as make_preconditioner (numerical failures in info.status, not thrown).
template <class V, class I>
struct SweepFactors {
    PrecondInfo info;
    std::vector<std::int64_t> perm;  // perm[new] = old (empty: identity)
    Csr<V, I> lower;                 // rows of L, new numbering, sorted
    bool unit_lower = false;         // L's diagonal is 1 and not stored
    std::vector<V> middle;           // empty: no middle factor
    Csr<V, I> upper;                 // rows of U with its diagonal, sorted
};

template <class V, class I>
SweepFactors<V, I> sweep_factors(CsrView<V, I> a, const PrecondOptions& options);

// The pieces, for direct use and for tests. All factor on P A Pᵀ with P from the ordering.
// ILU(0) in place on the pattern of a (IKJ), L unit lower, U upper; returns -1 or the first row
// (new numbering) with a zero pivot. Runs over the lower sweep's schedule (parallel when it is).
template <class V, class I>
std::int64_t ilu0_factorize(Csr<V, I>& lu, const TriangularSolve<V, I>& lower_plan);
// IC(0): l holds the lower triangle (diagonal included) of an SPD matrix on entry and L with
// A ≈ L Lᵀ on return; returns -1 or the first row whose pivot is not positive.
template <class V, class I>
std::int64_t ic0_factorize(Csr<V, I>& l, const TriangularSolve<V, I>& lower_plan);

}  // namespace gigasparse::iterative
