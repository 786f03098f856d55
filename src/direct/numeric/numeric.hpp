// src/direct/numeric/numeric.hpp: numeric phases on the host — multifrontal Cholesky, sweeps, reference oracle.
#pragma once

#include <span>
#include <vector>

#include <gigasparse/direct/solver.hpp>

namespace gigasparse::direct {

// Sizes the panels, stacks and per-node arrays of a factor for `sym` (the only allocation).
template <class V>
void allocate_numeric(const Symbolic& sym, NumericFactor<V>& num);

// Parameters of the numeric phase (from DirectOptions).
class FrontOffload;

struct NumericParams {
    int threads = 1;               // subtree workers and tile threads of the large fronts
    idx blocked_rows = 1024;       // fronts with at least this many rows take the blocked tile kernel
    idx block = 384;               // panel block / tile width of the blocked kernel (tiles: 2·block rows)
    idx small_rows = 64;           // fronts with fewer rows take small_front (no BLAS call)
    idx loop_panel_rows = 192;     // fronts with fewer rows factor their panel in small_panel (herk for the rest)
    bool ldlt = false;             // LDLᵀ / LDLᴴ (ldlt_front.hpp) instead of LLᴴ
    bool lu = false;               // LU (lu_front.hpp; tau and pivot_block apply)
    bool herm = true;              // LDLᴴ (Hermitian) rather than LDLᵀ (complex symmetric)
    double tau = 0;                // LDLᵀ: absolute pivot perturbation threshold (0: a zero pivot fails)
    idx pivot_block = 64;          // LDLᵀ: pivot search block
    // backend cuda: fronts of real values with at least offload_rows rows go there (the GPU; LDLᵀ whole, each
    // block's pivot tests on the host; LU whole, or below F11 by lu_front_split where a pivot needs perturbing)
    FrontOffload* offload = nullptr;
    idx offload_rows = 2048;
    GpuAssembly offload_assembly = GpuAssembly::automatic;  // where an offloaded front is assembled
};

// Multifrontal LLᴴ (or LDLᵀ / LDLᴴ with prm.ldlt) of the values `a` (input entry order) into `num`. On
// failure returns not_positive_definite (LLᴴ) or zero_pivot (LDLᵀ) and sets fail_col to the first
// failing column (final numbering).
template <class V>
Status factor_multifrontal(const Symbolic& sym, NumericFactor<V>& num, std::span<const V> a, idx& fail_col,
                             const NumericParams& prm);

// Reference numeric phase (src/direct/numeric/reference): sequential left-looking column Cholesky,
// no BLAS, same panels as factor_multifrontal and the same status / fail_col (final numbering).
template <class V>
Status cholesky_reference(const Symbolic& sym, NumericFactor<V>& num, std::span<const V> a, idx& fail_col);

// In-place sweeps on y (n x nrhs, column-major, ld n, final numbering); work holds max_cb x nrhs.
// One right-hand side of a large factor runs over the analysis' subtrees on `threads` threads (same
// result for any thread count).
template <class V>
void forward_sweep(const Symbolic& sym, const NumericFactor<V>& num, V* y, idx nrhs, V* work, int threads = 1,
                   Transpose op = Transpose::none);
// LDLᵀ / LDLᴴ (num.piv not empty): unit L, the pivoting inside the supernodes, y in analysis numbering;
// backward with conj = false applies Lᵀ (complex symmetric). LU (num.ux not empty): forward L leaves each
// node's values in pivoted order (the rows of U), backward applies U (U11 in the L panel, U12ᵀ in ux).
// LU with op = transpose / conjugate_transpose (the factor is Π M = L U, Π the pivoting inside the
// supernodes, so M⁻ᵀ = Πᵀ L⁻ᵀ U⁻ᵀ): forward applies U⁻ᵀ leaves first, each node's values leaving through
// the pivoting; backward applies L⁻ᵀ root first (Uᴴ and Lᴴ for conjugate_transpose; conj is then ignored).
template <class V>
void backward_sweep(const Symbolic& sym, const NumericFactor<V>& num, V* y, idx nrhs, V* work, int threads = 1,
                    bool conj = true, Transpose op = Transpose::none);

// LDLᵀ / LDLᴴ: y ← D⁻¹ y (n x nrhs, ld n, analysis numbering; herm: D Hermitian, else complex symmetric).
template <class V>
void ldl_diagonal_solve(const Symbolic& sym, const NumericFactor<V>& num, V* y, idx nrhs, bool herm);

// LU: the entry (j, i) of M⁻¹ (analysis numbering) by solves pruned to the elimination tree (MUMPS's way for
// entries of the inverse): the unit right-hand side e_i reaches only the supernodes from i's to the root
// (forward), and x_j needs only those from the root down to j's (backward). y (length n) must be zero and is
// left zero; path is scratch.
template <class V>
V lu_inverse_entry(const Symbolic& sym, const NumericFactor<V>& num, idx j, idx i, V* y, std::vector<idx>& path);

// Largest contribution-block row count (solve workspace rows).
idx max_update_rows(const Symbolic& sym);

}  // namespace gigasparse::direct
