// include/gigasparse/direct/solver.hpp: DirectSolver — analyze → factorize → refactorize → solve.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/core/types.hpp>
#include <gigasparse/direct/options.hpp>
#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {

struct NumericParams;  // src/direct/numeric/numeric.hpp
class FrontOffload;    // src/direct/numeric/front_offload.hpp (backend cuda)

// Result of a solve: outcome, refinement steps taken, and the residual reached.
struct SolveInfo {
    // success, not_converged (the backward error after refinement is above √ε of the value type, 1.5e-8 in
    // double, or not finite: x is returned but inaccurate), or zero_pivot (a singular Schur complement)
    Status status = Status::success;
    std::int64_t refinement_steps = 0;
    // GMRES iterations of the GMRES-based refinement (a single-precision factor whose plain refinement stalls:
    // GMRES on op(A) d = r preconditioned by the factor, real values), summed over its steps and right-hand sides
    std::int64_t krylov_iterations = 0;
    double backward_error = 0;     // max over rhs of ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf)
    double residual = 0;           // max over rhs of ||b - A x||_2 / ||b||_2
};

// Allocator whose resize leaves elements default-initialized (uninitialized for float/double): the
// contribution-block stacks are always written before they are read, so sizing them costs no zeroing
// pass and no page touching (the first factorization of lap3d_60 spent 1.7 s zero-filling 2.6 GB).
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() noexcept = default;
    template <class U>
    DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... A>
    void construct(U* p, A&&... a) {
        ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
    }
};

// Numeric storage of a factorization (host): supernodal panels and the contribution-block stacks.
template <class V>
struct NumericFactor {
    std::vector<V> lx;                     // panels, layout Symbolic::lx_ptr
    std::vector<std::vector<V, DefaultInitAllocator<V>>> stacks;  // one per subtree, the last for the top nodes
    std::vector<V> values;                 // copy of the input values (residuals of refinement)
    std::vector<std::int64_t> info;        // per supernode: 0 or 1 + local failing column
    std::vector<std::int64_t> cb_off;      // offset of each contribution block in its stack
    // LDLᵀ / LDLᴴ only (empty for LLᴴ), per final column c of supernode s (c0 = first column of s):
    // the variable at position c is the one of column c0 + piv[c] of the analysis; pivot_size[c] is 1
    // (1×1 pivot), 2 (first column of a 2×2 pivot) or 0 (its second column). D lives on the panels'
    // diagonals (and, for a 2×2 pivot at c, at panel position (c + 1, c)).
    std::vector<std::int64_t> piv;
    std::vector<std::int8_t> pivot_size;
    std::vector<std::int64_t> perturbed;   // pivots set to ±tau, per supernode
    // LU only: the U panels (F12ᵀ → U12ᵀ in rows w..f of each f x w panel, layout Symbolic::lx_ptr); the L
    // panels (lx) hold L11 \ U11 in their top w x w block. piv: the pre-pivoting local row at each position.
    std::vector<V> ux;
};

// The value type of a single-precision factor (FactorPrecision::single): float for double, complex<float> for
// complex<double>; float and complex<float> are their own.
template <class V>
struct single_type {
    using type = std::conditional_t<is_complex_v<V>, std::complex<float>, float>;
};
template <class V>
using single_t = typename single_type<V>::type;

// Inertia of an LDLᵀ / LDLᴴ factorization: the signs of the eigenvalues of D (real or Hermitian values;
// Sylvester: those of A when no pivot was perturbed).
struct Inertia {
    std::int64_t positive = 0, negative = 0, zero = 0;
};

// det(A) = sign · exp(log_abs) of the factored matrix: sign is ±1 (real) or of modulus 1 (complex), 0 with
// log_abs = -inf when A is singular (a zero Schur complement pivot). With perturbed pivots it is the
// determinant of the perturbed matrix the factor represents.
template <class V>
struct LogDeterminant {
    V sign = V(1);
    double log_abs = 0;
};

// Sparse direct solver for one sparsity pattern. Phases: analyze (ordering + symbolic) →
// factorize (numeric) → refactorize (new values, same pattern, no allocation) → solve.
// Misuse throws (PhaseError, DimensionMismatch, InvalidArgument, InvalidStructure, NotSupported);
// numerical failure is the returned Status (failing column in result("failing_column")).
template <class V, class I>
class DirectSolver {
public:
    explicit DirectSolver(Structure structure = Structure::spd, MatrixView view = MatrixView::full);

    // Options by field or by name ("ordering", "backend" (cpu|reference|cuda), "refinement_steps", "refinement_tolerance",
    // "amalgamation_max_width", "amalgamation_zero_fraction", "amalgamation_min_width",
    // "amalgamation", "level_weight", "auto_nd_ratio", "index_base", "threads", "subtree_factor",
    // "blocked_front_rows", "front_block", "gpu_front_rows", "gpu_assembly" (auto|host|device), "small_front_rows", "loop_panel_rows", "pivot_perturbation",
    // "pivot_block", "pivot_pair_threshold", "pivot_scaling", "matching", "delayed_pivots", "pivot_threshold", "delay_growth",
    // "factor_precision" (full|single), "refinement" (auto|plain|gmres)).
    // factor_precision = single (double or complex<double> values): the factor is computed and stored in float /
    // complex<float> and solve() refines in the value type; factor_L/U/D, the inertia, the determinant and the
    // condition estimate read it, selected inversion, the Schur complement and the solve parts need a full one
    // (NotSupported). A stalled refinement continues as GMRES preconditioned by the single factor (real values,
    // automatic step count). Full precision takes over (result "single_factor" is then 0; the next refactorize tries
    // single again) when the (scaled) values do not fit float's range, when the rounded matrix breaks down
    // (an SPD matrix with κ ε_single near 1), and, with the automatic refinement_steps, when a solve's
    // refinement does not reach a backward error of 10 × refinement_tolerance (1e-14) (the matrix is factored again and the solve repeated).
    DirectOptions& options() { return opt_; }
    void set_option(std::string_view name, std::string_view value);
    std::string get_option(std::string_view name) const;
    // User ordering (perm[new] = old, base index_base); also sets ordering = user.
    void set_user_permutation(std::span<const std::int64_t> perm);

    // Schur complement (set before analyze; an empty list removes it): the variables `indices` (distinct, base
    // index_base) are ordered last and not factored. After factorize, schur_complement() is S = A22 - A21 A11⁻¹ A12
    // of the matrix read by the view (k x k, rows and columns in the order of `indices`); solve() still solves
    // with A (through a dense LU of S made at the first solve); schur_condense and schur_expand are the partial
    // solves around a Schur system the caller solves. factor_L/D/U are not available then; inertia() is A11's.
    void set_schur_indices(std::span<const std::int64_t> indices);
    std::span<const std::int64_t> schur_indices() const { return schur_; }  // 0-based, in the given order
    DenseMatrix<V> schur_complement() const;
    // c = b2 - A21 A11⁻¹ b1 (k x nrhs, column-major) from b (n x nrhs): the Schur system is S x2 = c.
    void schur_condense(std::span<const V> b, std::span<V> c, std::int64_t nrhs = 1) const;
    // x = [A11⁻¹ (b1 - A12 x2); x2] (n x nrhs) from b and the Schur variables' values x2 (k x nrhs).
    void schur_expand(std::span<const V> b, std::span<const V> x2, std::span<V> x, std::int64_t nrhs = 1) const;

    // Phases. The CSR uses index_base for row_ptr and col_idx; duplicates are summed.
    void analyze(CsrView<V, I> a);
    // LU with perturbed pivots outside the root fronts (and delayed_pivots > 0): factorize also analyzes again with
    // those columns delayed into ancestors' fronts and factors again (DirectOptions::delayed_pivots); symbolic()
    // and the results describe the factor's analysis then; the next factorize and refactorize start from it (analyze
    // starts again from the matrix).
    Status factorize(CsrView<V, I> a);
    // New values with the pattern of analyze (and the structure of the last factorize, delayed pivots included);
    // requires a previous factorize; allocates nothing.
    Status refactorize(std::span<const V> values);
    // X = op(A)⁻¹ B for nrhs columns (column-major, leading dimension n), with iterative refinement on the
    // residual of op(A): op = none (A), transpose (Aᵀ) or conjugate_transpose (Aᴴ), from the same factors.
    SolveInfo solve(std::span<const V> b, std::span<V> x, std::int64_t nrhs = 1, Transpose op = Transpose::none);
    SolveInfo solve(const DenseMatrix<V>& b, DenseMatrix<V>& x, Transpose op = Transpose::none);
    // Estimate of the 1-norm condition number κ₁(A) = ||A||_1 ||A⁻¹||_1 of the matrix read by the view (Higham and
    // Tisseur's block estimator with two columns, as MATLAB's condest: a few solves with A and Aᴴ through the factors; a lower bound of the true value,
    // usually within a factor of 3). With perturbed pivots it is that of the perturbed matrix the factor
    // represents; +inf for a singular Schur complement.
    double condition_estimate();
    // Selected inversion (NotSupported with a Schur set or a single-precision factor): the entries of A⁻¹ on the
    // pattern of the factor L + Lᴴ (LU: L + U, its rows taken through the matching; original numbering, full
    // storage, sorted rows) by Takahashi's equations from the root down, and the diagonal of A⁻¹ (original
    // order) — without forming A⁻¹ (LU: a diagonal entry of A⁻¹ off that pattern, where A(a, a) is not stored
    // and not fill, comes from a solve with a unit vector). With perturbed pivots: the inverse of the
    // perturbed matrix the factor represents.
    Csr<V, std::int64_t> selected_inverse() const;
    std::vector<V> inverse_diagonal() const;

    // Solve parts on a column-major n x nrhs block, in place (x holds the right-hand side on entry).
    void solve_permute(std::span<const V> b, std::span<V> y, std::int64_t nrhs) const;    // y = P S b (S: scaling())
    void solve_forward(std::span<V> y, std::int64_t nrhs) const;                         // L z = y
    void solve_diagonal(std::span<V> y, std::int64_t nrhs) const;                        // D w = z (identity for LLᴴ)
    void solve_backward(std::span<V> y, std::int64_t nrhs) const;                        // Lᴴ v = w (Lᵀ: complex symmetric)
    void solve_unpermute(std::span<const V> y, std::span<V> x, std::int64_t nrhs) const;  // x = S Pᵀ v

    // Results by name: "single_factor" (1: the current factor is single precision), "schur_size", "n", "nnz_L" (of L; LU: U has the transposed pattern), "flops" (Σ c_j², ×2 for LU, ×4 complex), "supernodes", "levels", "column_levels",
    // "memory_estimate" (bytes), "factor_bytes", "stack_bytes", "failing_column" (-1: none,
    // else original 0-based column), "explicit_zeros", "ordering_cost", "factor_entries"; after an LDLᵀ/LDLᴴ
    // factorization also "perturbed_pivots", "two_by_two_pivots", "pivot_pairs" (analysis pairs), "positive_pivots", "negative_pivots",
    // "zero_pivots" (the inertia; complex symmetric: -1); after an LU factorization "perturbed_pivots",
    // "unmatched_columns", "delayed_pivots" (columns the delayed pivoting moved into ancestors' fronts) and
    // "delay_rounds" (the extra analyses and factorizations factorize ran for them); with backend cuda "gpu_fronts",
    // "gpu_flops", "gpu_bytes" (host <-> device) and "gpu_seconds" of the last factorization's fronts on the GPU,
    // "gpu_host_f11" (LU fronts whose F11 came back to the host: a pivot there needed perturbing), "gpu_kept_blocks"
    // and "gpu_kept_bytes" (contribution blocks that stayed on the device for their parent), "gpu_peak_bytes"
    // (device memory held at most), "gpu_device_assembled" (fronts assembled on the device from A's entries), "gpu_too_large" (fronts of at least gpu_front_rows rows the
    // device had no memory for: factored on the host).
    double result(std::string_view name) const;
    std::string ordering_used() const;
    std::span<const std::int64_t> permutation() const;  // perm[new] = old, 0-based
    const Symbolic& symbolic() const;
    const NumericFactor<V>& numeric() const;  // the panels of a full-precision factor (NotSupported for a single one)
    // L in the permuted numbering as a CSR lower triangle (rows sorted; explicit zeros kept); after a
    // successful factorize or refactorize only (PhaseError otherwise).
    // LLᴴ: L with its diagonal. LDLᵀ/LDLᴴ: unit lower L, rows and columns in the order of factor_permutation().
    Csr<V, std::int64_t> factor_L() const;
    // LDLᵀ/LDLᴴ: the block diagonal D (1×1 and 2×2 blocks, full storage) in the order of factor_permutation();
    // LLᴴ: the identity.
    Csr<V, std::int64_t> factor_D() const;
    // Q (q[new] = old, 0-based) with Q A Qᵀ = L D Lᴴ (+ perturbed pivots): the analysis ordering
    // followed by the pivoting inside the supernodes; permutation() for LLᴴ.
    std::vector<std::int64_t> factor_permutation() const;
    // LU: U (upper, its diagonal included) in rows of the factor order, columns of factor_permutation();
    // factor_L() is the unit L in the same rows. With p = row_permutation() (p[new] = original row: the
    // matching, the ordering and the pivoting) and q = factor_permutation(): (Dr A Dc)(p[i], q[j]) = (L U)(i, j),
    // Dr = row_scaling(), Dc = scaling().
    Csr<V, std::int64_t> factor_U() const;
    std::vector<std::int64_t> row_permutation() const;
    std::span<const double> row_scaling() const { return row_scale_; }
    // Inertia of D (LDLᵀ/LDLᴴ of real or Hermitian values, after a successful factorization).
    Inertia inertia() const;
    // log |det A| and the sign (phase) of det A from the factors (the pivoting, the permutations and the scalings
    // accounted for; with a Schur set, det A = det A11 · det S); after a successful factorization.
    LogDeterminant<V> log_determinant() const;
    // LDLᵀ/LDLᴴ: the diagonal scaling S (original numbering) of the factored matrix: Q S A S Qᵀ = L D Lᴴ;
    // empty when none (LLᴴ, or option pivot_scaling = 0).
    std::span<const double> scaling() const { return scale_; }

    bool analyzed() const { return analyzed_; }
    bool factorized() const { return factorized_; }

private:
    using W = single_t<V>;
    Status run_numeric();
    // LU: the analysis and factor of one factorization (delayed pivoting keeps the best of its rounds).
    struct FactorState {
        std::shared_ptr<const Symbolic> sym;
        std::vector<std::int64_t> row_of_col;
        NumericFactor<V> num;
        NumericFactor<W> lnum;
        bool single = false;
        double single_seconds = 0, tau = 0;
        std::int64_t delayed = 0;
    };
    FactorState take_factor();               // moves the current analysis and factor out (num_ keeps the values)
    void restore_factor(FactorState&& f);    // makes f the current (successful) factorization
    // LU delayed pivoting (option delayed_pivots) after a successful factorization with unstable pivots.
    void delay_pivots();
    // The analysis of one round from the factorization f: its unstable columns moved, with the rows their fronts
    // chose, into the fronts where the rows of their largest L21 entries are fully summed; installs it in sym_ and
    // row_of_col_ and returns the number of columns moved (0: none could move, nothing installed).
    std::int64_t delay_analysis(const FactorState& f, double flop_limit);  // 0 too when its flops exceed flop_limit
    // LU: pivots perturbed or below the threshold criterion (option pivot_threshold) of f (nullptr: the current
    // factor); target / movable: see count_unstable in solver.cpp.
    std::int64_t unstable_pivots(const FactorState* f = nullptr, std::vector<idx>* target = nullptr,
                                 std::int64_t* movable = nullptr) const;
    // The factor's panels in the precision they were computed in: f(num_), or f(lnum_) for a single-precision factor.
    template <class F>
    decltype(auto) with_factor(F&& f) const {
        if (single_) return f(lnum_);
        return f(num_);
    }
    void no_single(const char* what) const;  // NotSupported for a single-precision factor
    void check_precision() const;            // NotSupported: factor_precision single with a Schur complement
    void allocate_factor();
    // The numeric factorization of `values` (the factored matrix's entries, input order) into num_ or lnum_.
    Status factor_values(std::span<const V> values, idx& fail, const NumericParams& prm);                  // the panels and stacks of the precision single_ says; the other released
    bool single_requested() const { return opt_.factor_precision == FactorPrecision::single && !std::is_same_v<W, V>; }
    void check_rhs(std::size_t blen, std::size_t xlen, std::int64_t nrhs) const;
    // Between the original numbering and that of the factored matrix M = R A C: rows (R: matching, ordering,
    // row scaling) or columns (C: ordering, column scaling), gathered into M's order or scattered out of it
    // (solve_permute is R's gather, solve_unpermute C's scatter; transposed solves use the other two).
    void map_numbering(bool rows, bool gather, std::span<const V> in, std::span<V> out, std::int64_t nrhs) const;
    void compute_norms();  // anorm_, anorm1_ when anorm_ <= 0
    bool conjugates(Transpose op) const;  // symmetric structures whose op(A) is conj(A) (else A); LU: false
    // Z = M⁻¹ on the factor's panels (layout of NumericFactor::lx); LU also fills zu with Z(J, R) in the layout of
    // NumericFactor::ux (and Z(J, J) transposed in its rows 0..w; selected_inverse.cpp)
    std::vector<V> selected_inverse_panels(std::vector<V>* zu = nullptr) const;
    std::vector<V> lu_selected_inverse_panels(std::vector<V>& zu) const;
    template <class F>
    void for_each_node_root_first(F&& node) const;  // node(sn) for every supernode after its ancestors (in parallel)
    // the original row of the factored matrix's row i (the LU matching's, through the ordering)
    idx row_source(idx i) const { return row_of_col_.empty() ? sym_->perm[i] : row_of_col_[sym_->perm[i]]; }
    // out = op(M)⁻¹ rhs through the factors, no refinement (y: n·nrhs and sweep: max_update_rows·nrhs scratch).
    void factor_solve(std::span<const V> rhs, std::span<V> out, std::int64_t nrhs, Transpose op, std::span<V> y, V* sweep,
                      int threads) const;
    void residual(std::span<const V> b, std::span<const V> x, std::span<V> r, std::int64_t nrhs, Transpose op = Transpose::none) const;
    int thread_count() const;  // the "threads" option, or omp_get_max_threads() when it is 0
    void compute_scaling();    // LDLᵀ: scale_ from the current values and the analysis pairs
    void scale_values(const std::vector<double>& dr);  // scaled_ = Dr A Dc, Dc = scale_
    // LDLᵀ / LU: the analysis position of the variable (LDLᵀ) or row (LU) at pivoted position c.
    idx pivot_source(idx c) const { return sym_->super_ptr[sym_->col_to_sn[c]] + num_.piv[c]; }
    bool lu() const { return structure_ == Structure::general; }
    bool ldlt() const { return structure_ == Structure::symmetric || structure_ == Structure::hermitian; }
    // Position in the factor's pivoted order of each analysis column (LDLᵀ), or the identity.
    std::vector<std::int64_t> pivoted_position() const;
    // Schur complement: entry (i, j) of the assembled block in the final numbering (both triangles), and the row
    // and column scalings of the factored matrix at original variable v (1 when unscaled).
    V schur_entry(idx i, idx j) const;
    double row_factor(idx v) const;
    double col_factor(idx v) const;
    void check_schur(std::size_t len, std::int64_t nrhs) const;
    bool prepare_schur_solve();  // dense LU of the scaled Schur block; false: singular
    void no_schur(const char* what) const;  // NotSupported with a Schur complement

    Structure structure_;
    MatrixView view_;
    DirectOptions opt_{};
    std::vector<std::int64_t> user_perm_;
    std::vector<std::int64_t> schur_given_;  // as set (base index_base)
    std::vector<std::int64_t> schur_;        // 0-based, in the given order (validated by analyze)
    std::vector<V> schur_lu_;                // solve(): getrf of the scaled Schur block
    std::vector<int> schur_ipiv_;
    int schur_state_ = 0;                    // 0: not made, 1: made, -1: singular
    // The analysis, shared by copies of the solver (BatchDirectSolver: one analysis, many factorizations);
    // analyze replaces it, nothing else writes it.
    std::shared_ptr<const Symbolic> sym_ = std::make_shared<const Symbolic>();
    NumericFactor<V> num_;  // a single-precision factor keeps its values and pivot data here, its panels in lnum_
    NumericFactor<W> lnum_;
    std::vector<W> single_values_;  // the (scaled) values rounded to W, input of the single-precision factorization
    mutable std::vector<W> single_work_;  // factor_solve's rounded right-hand side and sweep workspace (kept: no page faults per solve)
    bool single_ = false;           // the factor is lnum_
    double single_factor_seconds_ = 0;  // wall time of the last single-precision factorization (GMRES budget)
    std::vector<std::int64_t> a_row_ptr_;
    std::vector<I> a_col_idx_;
    std::vector<V> work_;  // refinement workspace
    // LDLᵀ: analysis pivot pairs (mate, original numbering), the symmetric scaling S of the factored
    // matrix S A S (empty: none) and its values.
    std::vector<std::int64_t> mate_;
    std::vector<double> scale_;
    // LU: the matching's row of each column (empty: none), the row scaling (original rows; scale_ is then the
    // column scaling) and the columns the matching left unmatched (structurally singular).
    std::vector<std::int64_t> row_of_col_;
    std::vector<double> row_scale_;
    std::int64_t unmatched_ = 0;
    std::vector<V> scaled_;
    std::int64_t failing_column_ = -1;
    std::int64_t delayed_ = 0;       // LU: columns moved into ancestors' fronts by the kept delayed-pivoting rounds
    std::int64_t delay_rounds_ = 0;  // LU: re-analyses and factorizations the last factorize ran for them
    // backend cuda: the GPU's fronts (made at the first factorization, shared by copies) and what they did in the last one
    std::shared_ptr<FrontOffload> offload_;
    double gpu_fronts_ = 0, gpu_flops_ = 0, gpu_bytes_ = 0, gpu_seconds_ = 0, gpu_host_f11_ = 0, gpu_kept_ = 0, gpu_kept_bytes_ = 0, gpu_peak_bytes_ = 0,
           gpu_device_assembled_ = 0, gpu_too_large_ = 0;
    double tau_used_ = 0;       // the perturbation threshold of the last factorization (in the factored matrix's scale)
    double anorm_ = 0, anorm1_ = 0;  // ||A||_inf and ||A||_1 of the matrix read by the view (both recomputed when anorm_ <= 0)
    bool analyzed_ = false, allocated_ = false, factorized_ = false;
};

}  // namespace gigasparse::direct
