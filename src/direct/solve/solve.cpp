// src/direct/solve/solve.cpp: DirectSolver solves — permutation, sweeps, refinement, results by name.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/iterative/krylov.hpp>

#include "direct/numeric/dense.hpp"
#include "direct/numeric/numeric.hpp"

namespace gigasparse::direct {

template <class V, class I>
void DirectSolver<V, I>::check_rhs(std::size_t blen, std::size_t xlen, std::int64_t nrhs) const {
    if (!factorized_) throw PhaseError("direct: solve before a successful factorize");
    if (nrhs < 0) throw InvalidArgument("direct: negative number of right-hand sides");
    const std::size_t need = static_cast<std::size_t>(sym_->n * nrhs);
    if (blen < need || xlen < need)
        throw DimensionMismatch("direct: right-hand side / solution need n x nrhs = " + std::to_string(need) +
                                " entries (got " + std::to_string(blen) + " and " + std::to_string(xlen) + ")");
}

template <class V, class I>
void DirectSolver<V, I>::map_numbering(bool rows, bool gather, std::span<const V> in, std::span<V> out, std::int64_t nrhs) const {
    // The factored matrix is M = R A C. Its row i is original row src = Q[perm[i]] (Q: the LU matching's
    // rows, row_of_col_) scaled by Dr (the matching's row scaling; for LDLᵀ S, scale_); its column i is
    // original column perm[i] scaled by Dc (scale_). gather: out[i] = d[src] in[src]; scatter: out[src] = d[src] in[i].
    const idx n = sym_->n;
    const bool matched = rows && !row_of_col_.empty();
    const std::vector<double>& d = matched ? row_scale_ : scale_;
    for (idx k = 0; k < nrhs; ++k)
        for (idx i = 0; i < n; ++i) {
            const idx src = rows ? row_source(i) : sym_->perm[i];
            const V v = gather ? in[src + k * n] : in[i + k * n];
            (gather ? out[i + k * n] : out[src + k * n]) = d.empty() ? v : v * static_cast<real_t<V>>(d[src]);
        }
}

template <class V, class I>
void DirectSolver<V, I>::solve_permute(std::span<const V> b, std::span<V> y, std::int64_t nrhs) const {
    check_rhs(b.size(), y.size(), nrhs);  // y = R b
    map_numbering(true, true, b, y, nrhs);
}

template <class V, class I>
void DirectSolver<V, I>::solve_unpermute(std::span<const V> y, std::span<V> x, std::int64_t nrhs) const {
    check_rhs(y.size(), x.size(), nrhs);  // x = C y
    map_numbering(false, false, y, x, nrhs);
}

template <class V, class I>
void DirectSolver<V, I>::solve_forward(std::span<V> y, std::int64_t nrhs) const {
    check_rhs(y.size(), y.size(), nrhs);
    no_single("solve_forward()");
    std::vector<V> w(static_cast<std::size_t>(max_update_rows(*sym_) * std::max<std::int64_t>(nrhs, 1)));
    forward_sweep(*sym_, num_, y.data(), nrhs, w.data());
}

template <class V, class I>
void DirectSolver<V, I>::solve_diagonal(std::span<V> y, std::int64_t nrhs) const {
    check_rhs(y.size(), y.size(), nrhs);
    no_single("solve_diagonal()");  // D = I for LLᴴ
    if (ldlt()) ldl_diagonal_solve(*sym_, num_, y.data(), nrhs, structure_ == Structure::hermitian);
}

template <class V, class I>
void DirectSolver<V, I>::solve_backward(std::span<V> y, std::int64_t nrhs) const {
    check_rhs(y.size(), y.size(), nrhs);
    no_single("solve_backward()");
    std::vector<V> w(static_cast<std::size_t>(max_update_rows(*sym_) * std::max<std::int64_t>(nrhs, 1)));
    backward_sweep(*sym_, num_, y.data(), nrhs, w.data(), 1, structure_ != Structure::symmetric);
}

template <class V, class I>
void DirectSolver<V, I>::residual(std::span<const V> b, std::span<const V> x, std::span<V> r, std::int64_t nrhs, Transpose op) const {
    // r = b - op(M) x, M the matrix read by the view (mirrored conjugate entries for symmetric structures, for
    // which op(M) is M or conj(M): conjugates(op)).
    const idx n = sym_->n, base = opt_.index_base;
    const bool sym = structure_ != Structure::general;
    const bool herm = structure_ != Structure::symmetric;  // complex spd is read as Hermitian, as its LLᴴ does
    const bool cj = conjugates(op);
    std::copy(b.begin(), b.begin() + n * nrhs, r.begin());
    for (idx i = 0; i < n; ++i)
        for (idx k = a_row_ptr_[i] - base; k < a_row_ptr_[i + 1] - base; ++k) {
            idx j = static_cast<idx>(a_col_idx_[k]) - base;
            if (sym && (view_ == MatrixView::upper ? i > j : i < j)) continue;
            V a = num_.values[k];
            if (cj) a = conj_if_complex(a);
            V am = a;
            if constexpr (is_complex_v<V>)
                if (herm) am = std::conj(a);
            if (!sym && op != Transpose::none) {  // general: entry a_ij of op(M) is at (j, i)
                V at = a;
                if constexpr (is_complex_v<V>)
                    if (op == Transpose::conjugate_transpose) at = std::conj(a);
                for (idx c = 0; c < nrhs; ++c) r[j + c * n] -= at * x[i + c * n];
                continue;
            }
            for (idx c = 0; c < nrhs; ++c) {
                r[i + c * n] -= a * x[j + c * n];
                if (sym && i != j) r[j + c * n] -= am * x[i + c * n];
            }
        }
}

template <class V, class I>
void DirectSolver<V, I>::compute_norms() {
    if (anorm_ > 0) return;
    // ||M||_inf = max_i Σ_j |m_ij| and ||M||_1 = max_j Σ_i |m_ij| of the matrix read by the view, once per
    // factorization.
    const idx n = sym_->n;
    std::vector<double> rs(static_cast<std::size_t>(n), 0.0), cs(static_cast<std::size_t>(n), 0.0);
    const idx base = opt_.index_base;
    const bool sym = structure_ != Structure::general;
    for (idx i = 0; i < n; ++i)
        for (idx k = a_row_ptr_[i] - base; k < a_row_ptr_[i + 1] - base; ++k) {
            idx j = static_cast<idx>(a_col_idx_[k]) - base;
            if (sym && (view_ == MatrixView::upper ? i > j : i < j)) continue;
            double v = std::abs(num_.values[k]);
            rs[i] += v;
            cs[j] += v;
            if (sym && i != j) rs[j] += v, cs[i] += v;
        }
    anorm_ = rs.empty() ? 0.0 : *std::max_element(rs.begin(), rs.end());
    anorm1_ = cs.empty() ? 0.0 : *std::max_element(cs.begin(), cs.end());
}

template <class V, class I>
void DirectSolver<V, I>::factor_solve(std::span<const V> rhs, std::span<V> out, std::int64_t nrhs, Transpose op, std::span<V> y,
                                      V* sweep, int threads) const {
    // out = op(M)⁻¹ rhs through the permutations, scalings, sweeps and the Schur LU (prepared by the caller).
    // Symmetric structures: op(A) is A, or conj(A) (conjugates(op)), solved as conj(A⁻¹ conj(rhs)).
    const idx n = sym_->n, ks = sym_->schur;
    const bool cj = conjugates(op);
    if (!lu()) op = Transpose::none;
    // op(A)⁻¹ = op(C) op(M)⁻¹ op(R): R and C are scaled permutations with real scalings, so op(R) = Rᵀ is the
    // scatter of R's gather, op(C) = Cᵀ the gather of C's scatter
    map_numbering(op == Transpose::none, true, rhs, y, nrhs);
    if (cj)
        for (V& v : y) v = conj_if_complex(v);
    const std::size_t len = static_cast<std::size_t>(n * nrhs);
    if (single_) {  // the sweeps in the factor's precision, on a rounded copy
        single_work_.resize(len + static_cast<std::size_t>(max_update_rows(*sym_) * std::max<std::int64_t>(nrhs, 1)));
        W* ys = single_work_.data();
        W* ws = ys + len;
        for (std::size_t i = 0; i < len; ++i) ys[i] = static_cast<W>(y[i]);
        forward_sweep(*sym_, lnum_, ys, nrhs, ws, threads, op);
        if (ldlt()) ldl_diagonal_solve(*sym_, lnum_, ys, nrhs, structure_ == Structure::hermitian);
        backward_sweep(*sym_, lnum_, ys, nrhs, ws, threads, structure_ != Structure::symmetric, op);
        for (std::size_t i = 0; i < len; ++i) y[i] = ys[i];
    } else {
        forward_sweep(*sym_, num_, y.data(), nrhs, sweep, threads, op);
        if (ks > 0)  // the Schur variables (the last ks rows): S x2 = c2 (op(S) for op(A))
            dense::getrs(static_cast<int>(ks), static_cast<int>(nrhs), schur_lu_.data(), static_cast<int>(ks), schur_ipiv_.data(),
                         y.data() + (n - ks), static_cast<int>(n), op == Transpose::none ? 'N' : op == Transpose::transpose ? 'T' : 'C');
        if (ldlt()) ldl_diagonal_solve(*sym_, num_, y.data(), nrhs, structure_ == Structure::hermitian);
        backward_sweep(*sym_, num_, y.data(), nrhs, sweep, threads, structure_ != Structure::symmetric, op);
    }
    map_numbering(op != Transpose::none, false, y, out, nrhs);
    if (cj)
        for (V& v : out.first(static_cast<std::size_t>(n * nrhs))) v = conj_if_complex(v);
}

template <class V, class I>
bool DirectSolver<V, I>::conjugates(Transpose op) const {
    // Symmetric structures: Aᵀ = A (symmetric) and Aᴴ = A (Hermitian, and every real one); the other op is conj(A).
    if constexpr (!is_complex_v<V>) return false;
    return !lu() && op != Transpose::none && (structure_ == Structure::symmetric) == (op == Transpose::conjugate_transpose);
}

template <class V, class I>
double DirectSolver<V, I>::condition_estimate() {
    // κ₁(A) ≈ ||A||_1 · est(||A⁻¹||_1): Higham and Tisseur's block estimator with two columns (dense.hpp) asks for
    // products with A⁻¹ and A⁻ᴴ, which the factors give (no refinement, as LAPACK's condition estimators use
    // their factors).
    if (!factorized_) throw PhaseError("direct: condition_estimate needs a successful factorize");
    const idx n = sym_->n;
    if (n == 0) return 0;
    compute_norms();
    if (sym_->schur > 0 && !prepare_schur_solve()) return std::numeric_limits<double>::infinity();
    constexpr int t = 2;
    std::vector<V> y(static_cast<std::size_t>(n * t)), sweep(static_cast<std::size_t>(max_update_rows(*sym_) * t)), tmp(y.size());
    const int threads = thread_count();
    // X ← A⁻¹ X (kase 1) or A⁻ᴴ X (kase 2), in place, c columns
    const double est = dense::block_norm1_estimate<V>(n, [&](int kase, V* x, int c) {
        const std::size_t len = static_cast<std::size_t>(n * c);
        factor_solve(std::span<const V>(x, len), std::span<V>(tmp.data(), len), c,
                     kase == 2 ? Transpose::conjugate_transpose : Transpose::none, std::span<V>(y.data(), len), sweep.data(), threads);
        std::copy(tmp.begin(), tmp.begin() + static_cast<std::ptrdiff_t>(len), x);
    }, t);
    return anorm1_ * est;
}

template <class V, class I>
SolveInfo DirectSolver<V, I>::solve(std::span<const V> b, std::span<V> x, std::int64_t nrhs, Transpose op) {
    check_rhs(b.size(), x.size(), nrhs);
    const idx n = sym_->n;
    const std::size_t len = static_cast<std::size_t>(n * nrhs);
    const idx mrows = max_update_rows(*sym_);
    work_.resize(2 * len + static_cast<std::size_t>(mrows * nrhs));
    std::span<V> y(work_.data(), len), r(work_.data() + len, len);
    V* sweep = work_.data() + 2 * len;
    const int threads = thread_count();
    compute_norms();
    const double opnorm = op == Transpose::none ? anorm_ : anorm1_;  // equal for the symmetric structures
    SolveInfo info;
    if (sym_->schur > 0 && !prepare_schur_solve()) {
        info.status = Status::zero_pivot;  // a singular Schur complement
        return info;
    }
    auto full_solve = [&](std::span<const V> rhs, std::span<V> out) { factor_solve(rhs, out, nrhs, op, y, sweep, threads); };
    // Backward error max_k ||r_k||_inf / (||A|| ||x_k||_inf + ||b_k||_inf) and relative residual max_k ||r_k||_2/||b_k||_2.
    // A NaN anywhere (an overflowed factor: x = inf - inf) makes both NaN, so the solve is not_converged; std::max
    // would drop it (max(a, NaN) = a).
    auto worst = [](double a, double v) { return std::isnan(a) ? a : std::isnan(v) || v > a ? v : a; };
    auto measure = [&](SolveInfo& info) {
        residual(b, x, r, nrhs, op);
        info.backward_error = info.residual = 0;
        for (idx k = 0; k < nrhs; ++k) {
            double rinf = 0, xinf = 0, binf = 0, r2 = 0, b2 = 0;
            for (idx i = 0; i < n; ++i) {
                double ri = std::abs(r[i + k * n]), bi = std::abs(b[i + k * n]);
                rinf = worst(rinf, ri);
                xinf = worst(xinf, static_cast<double>(std::abs(x[i + k * n])));
                binf = std::max(binf, bi);
                r2 += ri * ri;
                b2 += bi * bi;
            }
            double den = opnorm * xinf + binf;
            info.backward_error = worst(info.backward_error, den > 0 ? rinf / den : rinf);
            info.residual = worst(info.residual, b2 > 0 ? std::sqrt(r2 / b2) : std::sqrt(r2));
        }
    };
    Timer timer;
    full_solve(b, x);
    const double first_solve_seconds = timer.seconds();
    measure(info);
    // auto: 2 steps after a full-precision factor; 10 after a single-precision one, whose steps each gain about
    // -log10(κ ε_single) digits.
    const std::int64_t max_steps = opt_.refinement_steps >= 0 ? opt_.refinement_steps : single_ ? 10 : 2;
    std::vector<V> d, xprev;
    // x += d as one refinement step (krylov: the GMRES iterations that made d). A step that raises the backward
    // error (or makes it non-finite) is undone — x restored from a copy (x + d - d is not x when d overflowed);
    // false then, or (stall) when it did not halve the backward error: the iteration has stopped paying.
    auto take_step = [&](std::int64_t krylov, bool stall) {
        xprev.assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(len));
        for (std::size_t i = 0; i < len; ++i) x[i] += d[i];
        const SolveInfo before = info;
        ++info.refinement_steps;
        info.krylov_iterations += krylov;
        measure(info);
        if (!(info.backward_error <= before.backward_error)) {
            std::copy(xprev.begin(), xprev.end(), x.begin());
            info = before;
            info.krylov_iterations += krylov;  // spent
            return false;
        }
        return !(stall && info.backward_error > 0.5 * before.backward_error);
    };
    // Single factor, automatic steps: a step that does not halve the backward error says κ ε_single is near 1; the
    // steps left would not reach full accuracy (GMRES-based refinement, then full precision, take over below).
    const bool stall = single_ && opt_.refinement_steps < 0;
    while (info.refinement_steps < max_steps && info.backward_error > opt_.refinement_tolerance) {
        d.resize(len);
        full_solve(std::span<const V>(r.data(), len), d);  // A d = r; x += d
        if (!take_step(0, stall)) break;
    }
    const double target = 10 * std::max(opt_.refinement_tolerance, static_cast<double>(std::numeric_limits<real_t<V>>::epsilon()));
    // A single factor whose plain refinement stalled (κ ε_single near 1, perturbed pivots): GMRES-based refinement
    // (Carson & Higham's GMRES-IR) — each correction solves op(A) d = r by GMRES in the value type, preconditioned
    // by the single factor, whose preconditioned operator stays well conditioned where the plain iteration's
    // contraction κ ε_single does not. Flexible GMRES: a solve with the single factor on a rounded vector is not
    // exactly linear, and standard right-preconditioned GMRES, which applies it once more to the combination of
    // the basis, lost that correction on a κ = 1e10 matrix (FGMRES keeps the preconditioned vectors). Real values
    // (the Krylov methods of gigasparse::iterative). Its GMRES iterations (each about one solve with the factor)
    // get the budget of a double factorization (twice the measured single one; not started below 20): past it,
    // factoring again in double is the cheaper way to full accuracy.
    std::int64_t budget = static_cast<std::int64_t>(
        std::min(1e6, 2 * single_factor_seconds_ / std::max(first_solve_seconds / static_cast<double>(std::max<idx>(nrhs, 1)), 1e-9)));
    if (opt_.refinement == RefinementMethod::gmres) budget = 1000000;
    if constexpr (!is_complex_v<V>) {
        const bool wanted = opt_.refinement == RefinementMethod::gmres ||
                            (opt_.refinement == RefinementMethod::automatic && single_ && opt_.refinement_steps < 0 && budget >= 20);
        if (wanted && !(info.backward_error <= target) && std::isfinite(info.backward_error)) {
            struct FactorPreconditioner final : iterative::Preconditioner<V> {
                std::function<void(std::span<const V>, std::span<V>)> f;
                void apply(std::span<const V> in, std::span<V> out) const override { f(in, out); }
            } pc;
            pc.f = [&](std::span<const V> in, std::span<V> out) { factor_solve(in, out, 1, op, y, sweep, threads); };
            const std::vector<V> zero(static_cast<std::size_t>(n), V(0));
            const iterative::LinearOperator<V> aop{n, [&](std::span<const V> v, std::span<V> out) {
                                                       residual(zero, v, out, 1, op);  // out = -op(A) v
                                                       for (V& e : out) e = -e;
                                                   }};
            iterative::SolverOptions so;
            so.method = iterative::Method::fgmres;
            so.tol = 1e-8;
            // sequential vector operations: an OpenMP team spinning between them would steal the cores of the
            // sweeps' worker threads (boyd1: a third of the solve in libgomp's spin and sched_yield)
            so.backend = iterative::Backend::reference;
            so.restart = 30;
            so.record_history = false;
            measure(info);  // r of the current x (an undone step left that of the discarded one)
            for (int outer = 0; outer < 4 && !(info.backward_error <= target) && budget > 0; ++outer) {
                d.assign(len, V(0));
                std::int64_t its = 0;
                for (idx k = 0; k < nrhs && budget > 0; ++k) {
                    so.maxit = std::min<std::int64_t>(200, budget);
                    const auto gr =
                        iterative::fgmres<V>(aop, std::span<const V>(r.data() + k * n, static_cast<std::size_t>(n)),
                                            std::span<V>(d.data() + k * n, static_cast<std::size_t>(n)), &pc, so);
                    const std::int64_t used = gr.iterations;
                    its += used;
                    budget -= used;
                }
                if (!take_step(its, true)) break;
            }
        }
    }
    // A single-precision factor too inaccurate for the refinement to reach full accuracy: with the automatic step
    // count, a backward error above 10 × refinement_tolerance (1e-14) has the matrix factored again in full
    // precision and solved with that.
    if (single_ && opt_.refinement_steps < 0 && !(info.backward_error <= target)) {
        single_ = false;
        allocate_factor();
        if (const Status st = run_numeric(); st != Status::success) {
            info.status = st;
            return info;
        }
        return solve(b, x, nrhs, op);
    }
    // A solution that lost more than half of its digits in the backward sense (or is not finite) is returned,
    // and said to be so: the factorization was too inaccurate for refinement to recover (static pivoting's
    // limit, e.g. nnc1374), or there were too few refinement steps.
    const double limit = std::sqrt(static_cast<double>(std::numeric_limits<real_t<V>>::epsilon()));
    if (!(info.backward_error <= limit)) info.status = Status::not_converged;
    return info;
}

template <class V, class I>
SolveInfo DirectSolver<V, I>::solve(const DenseMatrix<V>& b, DenseMatrix<V>& x, Transpose op) {
    if (b.nrows != sym_->n) throw DimensionMismatch("direct: right-hand side has the wrong number of rows");
    if (x.nrows != b.nrows || x.ncols != b.ncols) x = DenseMatrix<V>(b.nrows, b.ncols);
    return solve(std::span<const V>(b.data), std::span<V>(x.data), b.ncols, op);
}

template <class V, class I>
double DirectSolver<V, I>::result(std::string_view name) const {
    if (!analyzed_) throw PhaseError("direct: results are available after analyze");
    // the factor's element size: that of the current factor, or before one that of the requested precision
    const double vsize = (allocated_ ? single_ : single_requested()) ? sizeof(W) : sizeof(V);
    const double index_bytes = 8.0 * static_cast<double>(sym_->rows.size() + sym_->relind.size() + sym_->amap.size() + sym_->amap_sn_entries.size() +
                                                         4 * sym_->n + 8 * sym_->nsuper);
    if (name == "n") return static_cast<double>(sym_->n);
    if (name == "single_factor") return single_ ? 1.0 : 0.0;
    if (name == "schur_size") return static_cast<double>(sym_->schur);
    if (name == "nnz_L") return sym_->nnz_L;
    if (name == "flops") return sym_->flops * (is_complex_v<V> ? 4.0 : 1.0) * (lu() ? 2.0 : 1.0);  // LU: L and U
    if (name == "supernodes") return static_cast<double>(sym_->nsuper);
    if (name == "levels") return static_cast<double>(sym_->nlevels);
    if (name == "column_levels") return static_cast<double>(sym_->nlevels_column);
    if (name == "subtrees") return static_cast<double>(sym_->subtree_root.size());
    if (name == "factor_entries") return static_cast<double>(sym_->factor_entries);
    if (name == "explicit_zeros") return static_cast<double>(sym_->explicit_zeros);
    const double factor_copies = lu() ? 2.0 : 1.0;  // LU: the L and U panels
    if (name == "factor_bytes") return factor_copies * vsize * static_cast<double>(sym_->factor_entries);
    if (name == "stack_bytes") return vsize * static_cast<double>(sym_->stack_entries);
    if (name == "memory_estimate")
        return vsize * (factor_copies * static_cast<double>(sym_->factor_entries) + static_cast<double>(sym_->stack_entries)) +
               index_bytes +
               static_cast<double>(sizeof(V)) * static_cast<double>(a_col_idx_.size()) +
               (vsize < sizeof(V) ? vsize * static_cast<double>(a_col_idx_.size()) : 0.0);  // the rounded copy
    if (name == "failing_column") return static_cast<double>(failing_column_);
    if (name == "pivot_pairs") return static_cast<double>(sym_->pivot_pairs);
    if (name == "unmatched_columns") return static_cast<double>(unmatched_);
    if (name == "delayed_pivots") return static_cast<double>(delayed_);
    if (name == "delay_rounds") return static_cast<double>(delay_rounds_);
    if (name == "gpu_fronts") return gpu_fronts_;
    if (name == "gpu_host_f11") return gpu_host_f11_;
    if (name == "gpu_flops") return gpu_flops_;
    if (name == "gpu_bytes") return gpu_bytes_;
    if (name == "gpu_seconds") return gpu_seconds_;
    if (name == "gpu_kept_blocks") return gpu_kept_;
    if (name == "gpu_kept_bytes") return gpu_kept_bytes_;
    if (name == "gpu_peak_bytes") return gpu_peak_bytes_;
    if (name == "gpu_device_assembled") return gpu_device_assembled_;
    if (name == "gpu_too_large") return gpu_too_large_;
    if (name == "perturbed_pivots") {
        if (!(ldlt() || lu()) || !factorized_)
            throw PhaseError("direct: result 'perturbed_pivots' needs a successful LDLᵀ/LDLᴴ or LU factorization");
        std::int64_t t = 0;
        for (auto v : num_.perturbed) t += v;
        return static_cast<double>(t);
    }
    if (name == "two_by_two_pivots" || name == "positive_pivots" || name == "negative_pivots" || name == "zero_pivots") {
        if (!ldlt() || !factorized_)
            throw PhaseError("direct: result '" + std::string(name) + "' needs a successful LDLᵀ/LDLᴴ factorization");
        if (name == "two_by_two_pivots")
            return static_cast<double>(std::count(num_.pivot_size.begin(), num_.pivot_size.end(), std::int8_t{2}));
        if (is_complex_v<V> && structure_ == Structure::symmetric) return -1;
        const Inertia in = inertia();
        return static_cast<double>(name == "positive_pivots" ? in.positive : name == "negative_pivots" ? in.negative : in.zero);
    }
    if (name == "ordering_cost") {
        for (const auto& c : sym_->candidates)
            if (c.alg == sym_->ordering_used) return c.cost;
        return 0;
    }
    throw InvalidArgument("direct: unknown result '" + std::string(name) + "'");
}

template <class V, class I>
std::string DirectSolver<V, I>::ordering_used() const {
    if (!analyzed_) throw PhaseError("direct: results are available after analyze");
    return to_string(sym_->ordering_used);
}

template <class V, class I>
std::span<const std::int64_t> DirectSolver<V, I>::permutation() const {
    if (!analyzed_) throw PhaseError("direct: the permutation is available after analyze");
    return sym_->perm;
}

template <class V, class I>
const Symbolic& DirectSolver<V, I>::symbolic() const {
    if (!analyzed_) throw PhaseError("direct: the symbolic analysis is available after analyze");
    return *sym_;
}

template <class V, class I>
const NumericFactor<V>& DirectSolver<V, I>::numeric() const {
    if (!allocated_) throw PhaseError("direct: the numeric factor is available after factorize");
    no_single("numeric()");
    return num_;
}

template <class V, class I>
std::vector<std::int64_t> DirectSolver<V, I>::pivoted_position() const {
    std::vector<std::int64_t> pos(static_cast<std::size_t>(sym_->n));
    for (idx c = 0; c < sym_->n; ++c) pos[c] = c;
    if (ldlt() || lu())
        for (idx c = 0; c < sym_->n; ++c) pos[pivot_source(c)] = c;
    return pos;
}

template <class V, class I>
Csr<V, std::int64_t> DirectSolver<V, I>::factor_L() const {
    // After a failed factorization the panels past the failing front hold the previous factor's
    // values (each front fills its own panel when it is reached): no partial factor is returned.
    if (!factorized_) throw PhaseError("direct: the factor is available after a successful factorize");
    no_schur("factor_L()");
    const std::vector<std::int64_t> pos = pivoted_position();
    Coo<V, std::int64_t> coo;
    coo.nrows = coo.ncols = sym_->n;
    with_factor([&](const auto& nf) {
    for (idx sn = 0; sn < sym_->nsuper; ++sn) {
        const idx f = sym_->front_rows(sn), w = sym_->width(sn), c0 = sym_->super_ptr[sn];
        const auto* panel = nf.lx.data() + sym_->lx_ptr[sn];
        const idx* r = sym_->rows.data() + sym_->rows_ptr[sn];
        for (idx j = 0; j < w; ++j) {
            if (ldlt() || lu()) {
                coo.row.push_back(c0 + j);  // unit diagonal; D is factor_D(), U factor_U()
                coo.col.push_back(c0 + j);
                coo.val.push_back(V(1));
            }
            const idx i0 = lu() ? j + 1 : !ldlt() ? j : j + (num_.pivot_size[c0 + j] == 2 ? 2 : 1);
            for (idx i = i0; i < f; ++i) {
                // Own rows (i < w) are pivoted positions already; the others are analysis columns of ancestors.
                coo.row.push_back(i < w ? c0 + i : pos[r[i]]);
                coo.col.push_back(c0 + j);
                coo.val.push_back(V(panel[i + j * f]));
            }
        }
    }
    });
    return coo_to_csr(coo);
}

template <class V, class I>
Csr<V, std::int64_t> DirectSolver<V, I>::factor_U() const {
    if (!factorized_) throw PhaseError("direct: the factor is available after a successful factorize");
    if (!lu()) throw PhaseError("direct: factor_U() belongs to the LU of a general matrix");
    no_schur("factor_U()");
    Coo<V, std::int64_t> coo;
    coo.nrows = coo.ncols = sym_->n;
    with_factor([&](const auto& nf) {
    for (idx sn = 0; sn < sym_->nsuper; ++sn) {
        const idx f = sym_->front_rows(sn), w = sym_->width(sn), c0 = sym_->super_ptr[sn];
        const auto* panel = nf.lx.data() + sym_->lx_ptr[sn];
        const auto* upanel = nf.ux.data() + sym_->lx_ptr[sn];
        const idx* r = sym_->rows.data() + sym_->rows_ptr[sn];
        for (idx j = 0; j < w; ++j) {  // row j of U: U11(j, j..w) then U12(j, :)
            for (idx c = j; c < w; ++c) {
                coo.row.push_back(c0 + j);
                coo.col.push_back(c0 + c);
                coo.val.push_back(V(panel[j + c * f]));
            }
            for (idx i = w; i < f; ++i) {
                coo.row.push_back(c0 + j);
                coo.col.push_back(r[i]);  // columns are not pivoted
                coo.val.push_back(V(upanel[i + j * f]));
            }
        }
    }
    });
    return coo_to_csr(coo);
}

template <class V, class I>
std::vector<std::int64_t> DirectSolver<V, I>::row_permutation() const {
    if (!factorized_) throw PhaseError("direct: the factor is available after a successful factorize");
    std::vector<std::int64_t> p = factor_permutation();
    if (lu())
        for (idx c = 0; c < sym_->n; ++c) {
            const idx b = sym_->perm[pivot_source(c)];  // row of the matched matrix
            p[c] = row_of_col_.empty() ? b : row_of_col_[b];
        }
    return p;
}

template <class V, class I>
Csr<V, std::int64_t> DirectSolver<V, I>::factor_D() const {
    if (!factorized_) throw PhaseError("direct: the factor is available after a successful factorize");
    no_schur("factor_D()");
    Coo<V, std::int64_t> coo;
    coo.nrows = coo.ncols = sym_->n;
    const bool herm = structure_ == Structure::hermitian;
    with_factor([&](const auto& nf) {
    for (idx sn = 0; sn < sym_->nsuper; ++sn) {
        const idx f = sym_->front_rows(sn), w = sym_->width(sn), c0 = sym_->super_ptr[sn];
        const auto* panel = nf.lx.data() + sym_->lx_ptr[sn];
        for (idx j = 0; j < w; ++j) {
            coo.row.push_back(c0 + j);
            coo.col.push_back(c0 + j);
            coo.val.push_back(ldlt() ? V(panel[j + j * f]) : V(1));
            if (ldlt() && num_.pivot_size[c0 + j] == 2) {
                const V d21 = V(panel[j + 1 + j * f]);
                coo.row.push_back(c0 + j + 1);
                coo.col.push_back(c0 + j);
                coo.val.push_back(d21);
                coo.row.push_back(c0 + j);
                coo.col.push_back(c0 + j + 1);
                V d12 = d21;
                if constexpr (is_complex_v<V>)
                    if (herm) d12 = std::conj(d21);
                coo.val.push_back(d12);
            }
        }
    }
    });
    return coo_to_csr(coo);
}

template <class V, class I>
std::vector<std::int64_t> DirectSolver<V, I>::factor_permutation() const {
    if (!factorized_) throw PhaseError("direct: the factor is available after a successful factorize");
    std::vector<std::int64_t> q(sym_->perm.begin(), sym_->perm.end());
    if (ldlt())
        for (idx c = 0; c < sym_->n; ++c) q[c] = sym_->perm[pivot_source(c)];
    return q;
}

template <class V, class I>
Inertia DirectSolver<V, I>::inertia() const {
    if (!ldlt() || !factorized_) throw PhaseError("direct: the inertia needs a successful LDLᵀ/LDLᴴ factorization");
    if (is_complex_v<V> && structure_ == Structure::symmetric)
        throw NotSupported("direct: a complex symmetric matrix has no inertia");
    Inertia in;
    auto count = [&](double e) { (e > 0 ? in.positive : e < 0 ? in.negative : in.zero) += 1; };
    with_factor([&](const auto& nf) {
    for (idx sn = 0; sn < sym_->nsuper; ++sn) {
        if (sym_->is_schur(sn)) continue;  // not factored: the inertia is that of A11
        const idx f = sym_->front_rows(sn), w = sym_->width(sn), c0 = sym_->super_ptr[sn];
        const auto* panel = nf.lx.data() + sym_->lx_ptr[sn];
        for (idx j = 0; j < w;) {
            if (num_.pivot_size[c0 + j] == 2) {
                // Eigenvalues of the Hermitian 2×2 block [a b̄; b c]: signs from its determinant and trace.
                const double a = std::real(panel[j + j * f]), c = std::real(panel[j + 1 + (j + 1) * f]);
                const double b = std::abs(panel[j + 1 + j * f]);
                const double det = a * c - b * b, tr = a + c;
                if (det < 0) {
                    ++in.positive, ++in.negative;
                } else if (det > 0) {
                    count(tr), count(tr);
                } else {
                    count(tr), ++in.zero;
                }
                j += 2;
            } else {
                count(std::real(panel[j + j * f]));
                j += 1;
            }
        }
    }
    });
    return in;
}

template <class V, class I>
void DirectSolver<V, I>::no_schur(const char* what) const {
    if (sym_->schur > 0)
        throw NotSupported(std::string("direct: ") + what + " is not available with a Schur complement (the Schur block is not factored)");
}

template <class V, class I>
double DirectSolver<V, I>::row_factor(idx v) const {
    // LU: the row scaling of the matched row (a Schur row is matched to itself); LDLᵀ: S.
    if (lu()) return row_scale_.empty() ? 1.0 : row_scale_[v];
    return scale_.empty() ? 1.0 : scale_[v];
}

template <class V, class I>
double DirectSolver<V, I>::col_factor(idx v) const {
    return scale_.empty() ? 1.0 : scale_[v];
}

template <class V, class I>
V DirectSolver<V, I>::schur_entry(idx i, idx j) const {
    // The Schur front's panel (ks x ks, ld ks): both triangles for LU, the lower one otherwise.
    const idx ks = sym_->schur;
    const V* panel = num_.lx.data() + sym_->lx_ptr[sym_->nsuper - 1];
    if (lu() || i >= j) return panel[i + j * ks];
    const V u = panel[j + i * ks];
    return structure_ == Structure::symmetric ? u : conj_if_complex(u);
}

template <class V, class I>
void DirectSolver<V, I>::check_schur(std::size_t len, std::int64_t nrhs) const {
    if (!factorized_) throw PhaseError("direct: the Schur complement is available after a successful factorize");
    if (sym_->schur == 0) throw PhaseError("direct: no Schur complement was requested (set_schur_indices before analyze)");
    if (nrhs < 0) throw InvalidArgument("direct: negative number of right-hand sides");
    if (len < static_cast<std::size_t>(sym_->schur * nrhs))
        throw DimensionMismatch("direct: the Schur block needs k x nrhs = " + std::to_string(sym_->schur * nrhs) +
                                " entries (got " + std::to_string(len) + ")");
}

template <class V, class I>
DenseMatrix<V> DirectSolver<V, I>::schur_complement() const {
    check_schur(0, 0);
    const idx ks = sym_->schur, first = sym_->n - ks;
    DenseMatrix<V> out(ks, ks);
    for (idx b = 0; b < ks; ++b) {
        const idx vb = schur_[b], jb = sym_->iperm[vb] - first;
        for (idx a = 0; a < ks; ++a) {
            const idx va = schur_[a], ia = sym_->iperm[va] - first;
            // The factored matrix is Dr A Dc: its Schur block is Dr2 S Dc2.
            out(a, b) = schur_entry(ia, jb) / static_cast<real_t<V>>(row_factor(va) * col_factor(vb));
        }
    }
    return out;
}

template <class V, class I>
void DirectSolver<V, I>::schur_condense(std::span<const V> b, std::span<V> c, std::int64_t nrhs) const {
    check_schur(c.size(), nrhs);
    const idx n = sym_->n, ks = sym_->schur;
    std::vector<V> y(static_cast<std::size_t>(n * nrhs));
    solve_permute(b, y, nrhs);
    solve_forward(y, nrhs);  // stops before the Schur block: its rows hold Dr2 (b2 - A21 A11⁻¹ b1)
    for (idx k = 0; k < nrhs; ++k)
        for (idx t = 0; t < ks; ++t) {
            const idx v = schur_[t];
            c[t + k * ks] = y[sym_->iperm[v] + k * n] / static_cast<real_t<V>>(row_factor(v));
        }
}

template <class V, class I>
void DirectSolver<V, I>::schur_expand(std::span<const V> b, std::span<const V> x2, std::span<V> x, std::int64_t nrhs) const {
    check_schur(x2.size(), nrhs);
    const idx n = sym_->n, ks = sym_->schur;
    std::vector<V> y(static_cast<std::size_t>(n * nrhs));
    solve_permute(b, y, nrhs);
    solve_forward(y, nrhs);
    for (idx k = 0; k < nrhs; ++k)
        for (idx t = 0; t < ks; ++t) {
            const idx v = schur_[t];
            y[sym_->iperm[v] + k * n] = x2[t + k * ks] / static_cast<real_t<V>>(col_factor(v));
        }
    solve_diagonal(y, nrhs);
    solve_backward(y, nrhs);
    solve_unpermute(y, x, nrhs);
}

template <class V, class I>
bool DirectSolver<V, I>::prepare_schur_solve() {
    if (schur_state_ == 0) {
        const idx ks = sym_->schur;
        schur_lu_.resize(static_cast<std::size_t>(ks * ks));
        schur_ipiv_.resize(static_cast<std::size_t>(ks));
        for (idx j = 0; j < ks; ++j)
            for (idx i = 0; i < ks; ++i) schur_lu_[i + j * ks] = schur_entry(i, j);
        schur_state_ = dense::getrf(static_cast<int>(ks), schur_lu_.data(), static_cast<int>(ks), schur_ipiv_.data()) == 0 ? 1 : -1;
    }
    return schur_state_ == 1;
}

namespace {

// Sign of a permutation (perm[new] = old): (-1)^(n - cycles).
int permutation_sign(const std::vector<std::int64_t>& p) {
    std::vector<char> seen(p.size(), 0);
    std::size_t transpositions = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (seen[i]) continue;
        std::size_t len = 0;
        for (std::size_t j = i; !seen[j]; j = static_cast<std::size_t>(p[j])) seen[j] = 1, ++len;
        transpositions += len - 1;
    }
    return transpositions % 2 ? -1 : 1;
}

// Accumulates a product as sign · exp(log_abs) (no overflow for large n).
template <class V>
struct ProductAccumulator {
    V sign = V(1);
    double log_abs = 0;
    void mul(V v) {
        const double a = std::abs(v);
        if (a == 0) {
            sign = V(0);
            log_abs = -std::numeric_limits<double>::infinity();
            return;
        }
        log_abs += std::log(a);
        sign *= v / static_cast<real_t<V>>(a);
    }
};

}  // namespace

template <class V, class I>
LogDeterminant<V> DirectSolver<V, I>::log_determinant() const {
    if (!factorized_) throw PhaseError("direct: the determinant needs a successful factorization");
    ProductAccumulator<V> acc;
    const bool herm = structure_ == Structure::hermitian;
    with_factor([&](const auto& nf) {
    for (idx sn = 0; sn < sym_->nsuper; ++sn) {
        if (sym_->is_schur(sn)) continue;
        const idx f = sym_->front_rows(sn), w = sym_->width(sn), c0 = sym_->super_ptr[sn];
        const auto* panel = nf.lx.data() + sym_->lx_ptr[sn];
        for (idx j = 0; j < w;) {
            const V d = V(panel[j + j * f]);
            if (ldlt() && num_.pivot_size[c0 + j] == 2) {
                const V d21 = V(panel[j + 1 + j * f]), d22 = V(panel[j + 1 + (j + 1) * f]);
                acc.mul(d * d22 - d21 * (herm ? conj_if_complex(d21) : d21));
                j += 2;
                continue;
            }
            acc.mul(d);
            if (!ldlt() && !lu()) acc.mul(conj_if_complex(d));  // LLᴴ: |l_jj|²
            j += 1;
        }
    }
    });
    if (sym_->schur > 0) {  // det of the (scaled) Schur complement through its LU
        const idx ks = sym_->schur;
        std::vector<V> lu(static_cast<std::size_t>(ks * ks));
        std::vector<int> ipiv(static_cast<std::size_t>(ks));
        for (idx j = 0; j < ks; ++j)
            for (idx i = 0; i < ks; ++i) lu[i + j * ks] = schur_entry(i, j);
        dense::getrf(static_cast<int>(ks), lu.data(), static_cast<int>(ks), ipiv.data());
        for (idx j = 0; j < ks; ++j) {
            acc.mul(lu[j + j * ks]);
            if (ipiv[j] != j + 1) acc.sign = -acc.sign;
        }
    }
    // The factored matrix is P Dr A Dc Qᵀ (LU: rows p, columns q; LDLᵀ: S A S under Q on both sides).
    const std::vector<std::int64_t> q = factor_permutation();
    if (lu()) {
        if (permutation_sign(row_permutation()) * permutation_sign(q) < 0) acc.sign = -acc.sign;
        for (double r : row_scale_) acc.log_abs -= std::log(r);
    }
    for (double c : scale_) acc.log_abs -= (ldlt() ? 2.0 : 1.0) * std::log(c);
    return LogDeterminant<V>{acc.sign, acc.log_abs};
}

#define GIGASPARSE_DIRECT_SOLVE(V, I)                                                                          \
    template void DirectSolver<V, I>::check_rhs(std::size_t, std::size_t, std::int64_t) const;                \
    template void DirectSolver<V, I>::solve_permute(std::span<const V>, std::span<V>, std::int64_t) const;    \
    template void DirectSolver<V, I>::solve_unpermute(std::span<const V>, std::span<V>, std::int64_t) const;  \
    template void DirectSolver<V, I>::solve_forward(std::span<V>, std::int64_t) const;                        \
    template void DirectSolver<V, I>::solve_diagonal(std::span<V>, std::int64_t) const;                       \
    template void DirectSolver<V, I>::solve_backward(std::span<V>, std::int64_t) const;                       \
    template void DirectSolver<V, I>::map_numbering(bool, bool, std::span<const V>, std::span<V>, std::int64_t) const; \
    template void DirectSolver<V, I>::residual(std::span<const V>, std::span<const V>, std::span<V>,          \
                                               std::int64_t, Transpose) const;                                \
    template SolveInfo DirectSolver<V, I>::solve(std::span<const V>, std::span<V>, std::int64_t, Transpose);  \
    template SolveInfo DirectSolver<V, I>::solve(const DenseMatrix<V>&, DenseMatrix<V>&, Transpose);          \
    template double DirectSolver<V, I>::result(std::string_view) const;                                       \
    template std::string DirectSolver<V, I>::ordering_used() const;                                           \
    template std::span<const std::int64_t> DirectSolver<V, I>::permutation() const;                           \
    template const Symbolic& DirectSolver<V, I>::symbolic() const;                                            \
    template const NumericFactor<V>& DirectSolver<V, I>::numeric() const;                                     \
    template Csr<V, std::int64_t> DirectSolver<V, I>::factor_L() const;                                       \
    template Csr<V, std::int64_t> DirectSolver<V, I>::factor_D() const;                                       \
    template Csr<V, std::int64_t> DirectSolver<V, I>::factor_U() const;                                       \
    template std::vector<std::int64_t> DirectSolver<V, I>::row_permutation() const;                           \
    template std::vector<std::int64_t> DirectSolver<V, I>::factor_permutation() const;                        \
    template Inertia DirectSolver<V, I>::inertia() const;                                                     \
    template LogDeterminant<V> DirectSolver<V, I>::log_determinant() const;                                   \
    template std::vector<std::int64_t> DirectSolver<V, I>::pivoted_position() const;                         \
    template void DirectSolver<V, I>::no_schur(const char*) const;                                            \
    template double DirectSolver<V, I>::row_factor(idx) const;                                                \
    template double DirectSolver<V, I>::col_factor(idx) const;                                                \
    template V DirectSolver<V, I>::schur_entry(idx, idx) const;                                               \
    template void DirectSolver<V, I>::check_schur(std::size_t, std::int64_t) const;                           \
    template DenseMatrix<V> DirectSolver<V, I>::schur_complement() const;                                     \
    template void DirectSolver<V, I>::schur_condense(std::span<const V>, std::span<V>, std::int64_t) const;   \
    template void DirectSolver<V, I>::schur_expand(std::span<const V>, std::span<const V>, std::span<V>,      \
                                                   std::int64_t) const;                                       \
    template bool DirectSolver<V, I>::prepare_schur_solve();                                                  \
    template void DirectSolver<V, I>::compute_norms();                                                        \
    template bool DirectSolver<V, I>::conjugates(Transpose) const;                                            \
    template void DirectSolver<V, I>::factor_solve(std::span<const V>, std::span<V>, std::int64_t, Transpose,   \
                                                   std::span<V>, V*, int) const;                              \
    template double DirectSolver<V, I>::condition_estimate();
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_DIRECT_SOLVE)
#undef GIGASPARSE_DIRECT_SOLVE

}  // namespace gigasparse::direct
