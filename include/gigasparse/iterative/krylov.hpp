// include/gigasparse/iterative/krylov.hpp: CG/PCG, BiCGStab, GMRES(m) and flexible GMRES written once over the vector operations.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/iterative/kernels.hpp>
#include <gigasparse/iterative/preconditioner.hpp>

namespace gigasparse::iterative {

enum class Method { cg, bicgstab, gmres, fgmres, minres };

const char* to_string(Method m);
Method parse_method(const std::string& name);  // "cg", "bicgstab", "gmres", "fgmres", "minres"

// converged: relative residual <= tol. max_iterations: maxit reached first. breakdown: a
// division by (near) zero in the recurrence (CG pᵀAp <= 0, BiCGStab ρ or ω = 0, GMRES lucky
// breakdown that did not converge). non_finite: NaN/Inf appeared. preconditioner_failed: the
// preconditioner's setup reported a numerical failure (zero pivot, ...).
enum class StopReason { converged, max_iterations, breakdown, non_finite, preconditioner_failed };

const char* to_string(StopReason r);

struct SolverOptions {
    Method method = Method::cg;
    double tol = 1e-8;            // stop when ||b - A x||_2 <= tol * ||b||_2 (recurrence residual)
    std::int64_t maxit = 1000;    // iterations (GMRES: inner steps in total)
    int restart = 30;             // GMRES/FGMRES Krylov dimension
    Backend backend = Backend::omp;
    bool record_history = true;   // residual_history[k] = relative residual after k iterations
};

// The outcome of a solve, never thrown.
struct SolveResult {
    bool converged = false;
    StopReason reason = StopReason::max_iterations;
    std::int64_t iterations = 0;
    double residual = 0;  // final relative residual (recurrence for CG/BiCGStab, Arnoldi estimate for GMRES)
    std::vector<double> residual_history;
    double seconds = 0;
    std::string message;  // one line on how it stopped
};

// y = A x for a square operator of size n.
template <class V>
struct LinearOperator {
    std::int64_t n = 0;
    std::function<void(std::span<const V>, std::span<V>)> apply;
};

// An operator applying a CSR matrix with the given backend's SpMV (a must outlive it).
template <class V, class I>
LinearOperator<V> csr_operator(CsrView<V, I> a, Backend backend);

// Solves A x = b from the initial guess in x. m may be null (no preconditioner). Throws only for
// misuse (sizes; non-finite b or x: InvalidStructure); numerical outcomes are in the result.
template <class V>
SolveResult cg(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o);
template <class V>
SolveResult bicgstab(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o);
template <class V>
SolveResult gmres(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o);
template <class V>
SolveResult fgmres(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o);

// MINRES for a symmetric (complex: Hermitian) A that may be indefinite; M, when given, must be symmetric (Hermitian)
// positive definite (Jacobi of a matrix with a positive diagonal, IC(0)); the residual it records and tests is in the
// M⁻¹ norm, scaled to ||b||₂ (without M: the 2-norm). A negative rᴴM⁻¹r is a breakdown.
template <class V>
SolveResult minres(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o);
// Dispatches on o.method.
template <class V>
SolveResult solve(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o);

}  // namespace gigasparse::iterative
