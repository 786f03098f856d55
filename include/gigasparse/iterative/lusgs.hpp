// include/gigasparse/iterative/lusgs.hpp: LU-SGS forward/backward block sweeps on a 5x5-block CFD-like operator, and its generator.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <gigasparse/iterative/kernels.hpp>
#include <gigasparse/iterative/ordering.hpp>
#include <gigasparse/iterative/preconditioner.hpp>
#include <gigasparse/iterative/triangular_solve.hpp>

namespace gigasparse::iterative {

// A download-free proxy of an implicit finite-volume Jacobian (notes/iterative.md §6): the cell
// graph of an nx x ny x nz hexahedral mesh (optionally renumbered at random, as unstructured
// meshes are), `block` unknowns per cell. Face (i, j) with spectral radius λ_f: A_ij = ½(J_f - λ_f I),
// A_ji = ½(-J_f - λ_f I) with ||J_f||_F <= λ_f (so ρ(J_f) <= λ_f); A_ii = (σ + Σ_f λ_f) I.
struct CfdProxyOptions {
    std::int64_t nx = 16, ny = 16, nz = 16;
    int block = 5;
    double sigma = 1.0;          // V/Δt: pseudo-time term; smaller = stiffer
    bool renumber = false;       // random cell numbering (unstructured-like)
    std::uint64_t seed = 1;
};

template <class V, class I>
Bsr<V, I> cfd_proxy(const CfdProxyOptions& options);

// LU-SGS: M = (D + L) D⁻¹ (D + U) with D, L, U the block diagonal, strictly lower and strictly
// upper block parts of P A Pᵀ (P from the ordering). One apply = one forward and one backward
// block sweep, scheduled like TriangularSolve (subgraphs, levels, point-to-point waits). Usable as
// a Krylov preconditioner (point vectors of length nbrows * block) or as a stationary iteration.
template <class V, class I>
class LuSgs final : public Preconditioner<V> {
public:
    LuSgs(const Bsr<V, I>& a, const OrderingOptions& ordering, const ScheduleOptions& schedule);
    ~LuSgs() override;
    void apply(std::span<const V> r, std::span<V> z) const override;
    // `sweeps` LU-SGS steps x += M⁻¹ (b - A x) from the given x; returns ||b - A x|| / ||b|| after
    // each step (residual_drop[0] = before the first step).
    std::vector<double> iterate(std::span<const V> b, std::span<V> x, int sweeps) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gigasparse::iterative
