// src/direct/solver.cpp: DirectSolver front end — validation, phase order, options and results by name.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include <omp.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/direct/solver.hpp>

#include "direct/numeric/front_offload.hpp"
#include "direct/numeric/numeric.hpp"

namespace gigasparse::direct {
namespace {

double to_double(std::string_view name, std::string_view v) {
    std::string s(v);
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size())
        throw InvalidArgument("direct: option " + std::string(name) + " expects a number, got '" + s + "'");
    return d;
}

std::int64_t to_int(std::string_view name, std::string_view v) {
    double d = to_double(name, v);
    if (d != std::floor(d)) throw InvalidArgument("direct: option " + std::string(name) + " expects an integer");
    return static_cast<std::int64_t>(d);
}

std::string num(double v) {
    std::string s = std::to_string(v);
    if (v == std::floor(v) && std::abs(v) < 1e15) s = std::to_string(static_cast<std::int64_t>(v));
    return s;
}

// LU with a Schur complement: the matching of the interior block A11 only (the Schur rows stay on their own
// columns, unscaled), so the factored matrix keeps the Schur block in place.
template <class V, class I>
RowMatching interior_matching(CsrView<V, I> a, const std::vector<std::uint8_t>& in_schur, idx base) {
    const idx n = a.nrows;
    std::vector<idx> keep, sub_of(static_cast<std::size_t>(n), -1);
    for (idx i = 0; i < n; ++i)
        if (!in_schur[i]) sub_of[i] = static_cast<idx>(keep.size()), keep.push_back(i);
    const idx ns = static_cast<idx>(keep.size());
    std::vector<std::int64_t> rp(1, 0);
    std::vector<I> ci;
    std::vector<V> vals;
    for (idx i : keep) {
        for (idx k = a.row_ptr[i] - base; k < a.row_ptr[i + 1] - base; ++k) {
            const idx j = static_cast<idx>(a.col_idx[k]) - base;
            if (j < 0 || j >= n || in_schur[j]) continue;
            ci.push_back(static_cast<I>(sub_of[j]));
            vals.push_back(static_cast<std::size_t>(k) < a.values.size() ? a.values[k] : V(1));
        }
        rp.push_back(static_cast<std::int64_t>(ci.size()));
    }
    RowMatching sub = max_product_matching<V, I>(ns, rp, ci, vals, 0);
    RowMatching mt;
    mt.unmatched = sub.unmatched;
    mt.row_of_col.resize(static_cast<std::size_t>(n));
    for (idx j = 0; j < n; ++j) mt.row_of_col[j] = j;
    for (idx v = 0; v < ns; ++v) mt.row_of_col[keep[v]] = keep[sub.row_of_col[v]];
    mt.row_scale.assign(static_cast<std::size_t>(n), 1.0);
    mt.col_scale.assign(static_cast<std::size_t>(n), 1.0);
    for (idx v = 0; v < ns && !sub.row_scale.empty(); ++v)
        mt.row_scale[keep[v]] = sub.row_scale[v], mt.col_scale[keep[v]] = sub.col_scale[v];
    return mt;
}

// LU: the pattern of B + Bᵀ, B the matrix whose row j is row row_of_col[j] of A (the matching, and for delayed
// pivots the pivoting of the last factorization too), plus the edges (j, k) of `extra` (sorted by j).
template <class I>
SymmetricPattern matched_pattern(idx n, std::span<const std::int64_t> row_ptr, std::span<const I> col_idx,
                                 std::span<const std::int64_t> row_of_col, idx base,
                                 std::span<const std::pair<idx, idx>> extra = {}) {
    std::vector<std::int64_t> brp(static_cast<std::size_t>(n + 1), base);
    std::vector<I> bci;
    bci.reserve(static_cast<std::size_t>(row_ptr[n] - base) + extra.size());
    std::size_t e = 0;
    for (idx j = 0; j < n; ++j) {
        const idx i = row_of_col[j];
        for (idx k = row_ptr[i] - base; k < row_ptr[i + 1] - base; ++k) bci.push_back(col_idx[k]);
        for (; e < extra.size() && extra[e].first == j; ++e) bci.push_back(static_cast<I>(extra[e].second + base));
        brp[j + 1] = base + static_cast<std::int64_t>(bci.size());
    }
    return symmetric_pattern<I>(n, brp, bci, Structure::general, MatrixView::full, base);
}

// LU: the pivots of the factor `nf` (analysis `s`) that were perturbed (exactly ±tau: lu_front) or fail the threshold
// criterion of partial pivoting, |u_kk| < u · max_i |a_ik| over the contribution block's rows too (an L21 entry above
// 1 / u: `limit`). target (optional): for each such column outside a root front (original numbering), the supernode
// where the row of its largest L21 entry is fully summed (its parent when it has none): the front it should move to.
template <class F>
std::int64_t count_unstable(const Symbolic& s, const F& nf, double tau, double limit, std::vector<idx>* target,
                            std::int64_t* movable) {
    using R = real_t<typename std::decay_t<decltype(nf.lx)>::value_type>;
    const R t = static_cast<R>(tau);
    std::int64_t count = 0;
    for (idx sn = 0; sn < s.nsuper; ++sn) {
        if (s.is_schur(sn)) continue;
        const idx f = s.front_rows(sn), w = s.width(sn), c0 = s.super_ptr[sn];
        const auto* panel = nf.lx.data() + s.lx_ptr[sn];
        for (idx j = 0; j < w; ++j) {
            const auto* col = panel + j * f;
            double big = 0;
            idx at = -1;
            for (idx i = w; i < f; ++i)
                if (const double v = static_cast<double>(std::abs(col[i])); v > big) big = v, at = i;
            const bool perturbed = nf.perturbed[sn] > 0 && std::imag(col[j]) == 0 && std::abs(std::real(col[j])) == t;
            if (!perturbed && !(big > limit)) continue;
            ++count;
            if (s.sn_parent[sn] == -1) continue;
            if (target) (*target)[s.perm[c0 + j]] = at >= 0 ? s.col_to_sn[s.rows[s.rows_ptr[sn] + at]] : s.sn_parent[sn];
            if (movable) ++*movable;
        }
    }
    return count;
}

}  // namespace

template <class V, class I>
DirectSolver<V, I>::DirectSolver(Structure structure, MatrixView view) : structure_(structure), view_(view) {
    if (structure == Structure::general && view != MatrixView::full)
        throw InvalidArgument("direct: a general matrix must be given with the full view");
}

template <class V, class I>
void DirectSolver<V, I>::set_option(std::string_view name, std::string_view value) {
    if (name == "ordering") opt_.ordering = parse_ordering(value);
    else if (name == "backend") opt_.backend = parse_numeric_backend(value);
    else if (name == "refinement_steps") opt_.refinement_steps = value == "auto" ? -1 : to_int(name, value);
    else if (name == "factor_precision") opt_.factor_precision = parse_factor_precision(value);
    else if (name == "refinement") opt_.refinement = parse_refinement(value);
    else if (name == "refinement_tolerance") opt_.refinement_tolerance = to_double(name, value);
    else if (name == "amalgamation_max_width") opt_.amalgamation.max_width = to_int(name, value);
    else if (name == "amalgamation_zero_fraction") opt_.amalgamation.zero_fraction = to_double(name, value);
    else if (name == "amalgamation_min_width") opt_.amalgamation.min_width = to_int(name, value);
    else if (name == "amalgamation") opt_.amalgamation.enabled = to_int(name, value) != 0;
    else if (name == "level_weight") opt_.level_weight = to_double(name, value);
    else if (name == "auto_nd_ratio") opt_.auto_nd_ratio = to_double(name, value);
    else if (name == "index_base") opt_.index_base = to_int(name, value);
    else if (name == "threads") opt_.threads = to_int(name, value);
    else if (name == "subtree_factor") opt_.subtree_factor = to_int(name, value);
    else if (name == "blocked_front_rows") opt_.blocked_front_rows = to_int(name, value);
    else if (name == "front_block") opt_.front_block = to_int(name, value);
    else if (name == "gpu_front_rows") opt_.gpu_front_rows = to_int(name, value);
    else if (name == "gpu_assembly") opt_.gpu_assembly = parse_gpu_assembly(value);
    else if (name == "small_front_rows") opt_.small_front_rows = to_int(name, value);
    else if (name == "loop_panel_rows") opt_.loop_panel_rows = to_int(name, value);
    else if (name == "pivot_perturbation") opt_.pivot_perturbation = to_double(name, value);
    else if (name == "pivot_block") opt_.pivot_block = to_int(name, value);
    else if (name == "pivot_pair_threshold") opt_.pivot_pair_threshold = to_double(name, value);
    else if (name == "pivot_scaling") opt_.pivot_scaling = to_int(name, value) != 0;
    else if (name == "matching") opt_.matching = to_int(name, value) != 0;
    else if (name == "delayed_pivots") opt_.delayed_pivots = to_int(name, value);
    else if (name == "pivot_threshold") opt_.pivot_threshold = to_double(name, value);
    else if (name == "delay_growth") opt_.delay_growth = to_double(name, value);
    else throw InvalidArgument("direct: unknown option '" + std::string(name) + "'");
    if (opt_.index_base != 0 && opt_.index_base != 1) throw InvalidArgument("direct: index_base must be 0 or 1");
    if (opt_.refinement_steps < -1 || opt_.threads < 0 || opt_.amalgamation.max_width < 1 ||
        opt_.blocked_front_rows < 0 || opt_.front_block < 1 || opt_.gpu_front_rows < 0 || opt_.small_front_rows < 0 || opt_.loop_panel_rows < 0 ||
        opt_.pivot_block < 2 || !(opt_.pivot_perturbation < 1) || opt_.delayed_pivots < 0 ||
        !(opt_.pivot_threshold >= 0 && opt_.pivot_threshold <= 1) || !(opt_.delay_growth >= 1))
        throw InvalidArgument("direct: option " + std::string(name) + " out of range");
}

template <class V, class I>
std::string DirectSolver<V, I>::get_option(std::string_view name) const {
    if (name == "ordering") return to_string(opt_.ordering);
    if (name == "backend") return to_string(opt_.backend);
    if (name == "refinement_steps") return opt_.refinement_steps < 0 ? "auto" : num(static_cast<double>(opt_.refinement_steps));
    if (name == "factor_precision") return to_string(opt_.factor_precision);
    if (name == "refinement") return to_string(opt_.refinement);
    if (name == "refinement_tolerance") return std::to_string(opt_.refinement_tolerance);
    if (name == "amalgamation_max_width") return num(static_cast<double>(opt_.amalgamation.max_width));
    if (name == "amalgamation_zero_fraction") return std::to_string(opt_.amalgamation.zero_fraction);
    if (name == "amalgamation_min_width") return num(static_cast<double>(opt_.amalgamation.min_width));
    if (name == "amalgamation") return opt_.amalgamation.enabled ? "1" : "0";
    if (name == "level_weight") return std::to_string(opt_.level_weight);
    if (name == "auto_nd_ratio") return std::to_string(opt_.auto_nd_ratio);
    if (name == "index_base") return num(static_cast<double>(opt_.index_base));
    if (name == "threads") return num(static_cast<double>(opt_.threads));
    if (name == "subtree_factor") return num(static_cast<double>(opt_.subtree_factor));
    if (name == "blocked_front_rows") return num(static_cast<double>(opt_.blocked_front_rows));
    if (name == "front_block") return num(static_cast<double>(opt_.front_block));
    if (name == "gpu_front_rows") return num(static_cast<double>(opt_.gpu_front_rows));
    if (name == "gpu_assembly") return to_string(opt_.gpu_assembly);
    if (name == "small_front_rows") return num(static_cast<double>(opt_.small_front_rows));
    if (name == "loop_panel_rows") return num(static_cast<double>(opt_.loop_panel_rows));
    if (name == "pivot_perturbation") return std::to_string(opt_.pivot_perturbation);
    if (name == "pivot_block") return num(static_cast<double>(opt_.pivot_block));
    if (name == "pivot_pair_threshold") return std::to_string(opt_.pivot_pair_threshold);
    if (name == "pivot_scaling") return opt_.pivot_scaling ? "1" : "0";
    if (name == "matching") return opt_.matching ? "1" : "0";
    if (name == "delayed_pivots") return num(static_cast<double>(opt_.delayed_pivots));
    if (name == "pivot_threshold") return std::to_string(opt_.pivot_threshold);
    if (name == "delay_growth") return std::to_string(opt_.delay_growth);
    throw InvalidArgument("direct: unknown option '" + std::string(name) + "'");
}

template <class V, class I>
int DirectSolver<V, I>::thread_count() const {
    return opt_.threads > 0 ? static_cast<int>(opt_.threads) : omp_get_max_threads();
}

template <class V, class I>
void DirectSolver<V, I>::set_user_permutation(std::span<const std::int64_t> perm) {
    user_perm_.assign(perm.begin(), perm.end());
    opt_.ordering = OrderingAlg::user;
}

template <class V, class I>
void DirectSolver<V, I>::set_schur_indices(std::span<const std::int64_t> indices) {
    schur_given_.assign(indices.begin(), indices.end());
    analyzed_ = allocated_ = factorized_ = false;
}

template <class V, class I>
void DirectSolver<V, I>::analyze(CsrView<V, I> a) {
    if (a.nrows != a.ncols)
        throw DimensionMismatch("direct: the matrix must be square (" + std::to_string(a.nrows) + " x " +
                                std::to_string(a.ncols) + ")");
    const idx base = opt_.index_base;
    SymmetricPattern p = symmetric_pattern<I>(a.nrows, a.row_ptr, a.col_idx, structure_, view_, base);
    std::vector<idx> user;
    if (opt_.ordering == OrderingAlg::user) {
        if (user_perm_.empty() && a.nrows > 0) throw InvalidArgument("direct: ordering 'user' without a permutation");
        user = validate_user_permutation(user_perm_, a.nrows, base);
    }
    // Schur variables: distinct, in range.
    std::vector<std::uint8_t> in_schur(static_cast<std::size_t>(a.nrows), 0);
    std::vector<idx> schur_sorted;
    for (std::size_t t = 0; t < schur_given_.size(); ++t) {
        const std::int64_t v = schur_given_[t] - base;
        if (v < 0 || v >= a.nrows || in_schur[v])
            throw InvalidArgument("direct: Schur index " + std::to_string(schur_given_[t]) + " (entry " + std::to_string(t) +
                                  ") is " + (v < 0 || v >= a.nrows ? "out of range" : "repeated") + " (n = " +
                                  std::to_string(a.nrows) + ", base " + std::to_string(base) + ")");
        in_schur[v] = 1;
        schur_sorted.push_back(v);
    }
    std::sort(schur_sorted.begin(), schur_sorted.end());
    const int threads = thread_count();
    analyzed_ = allocated_ = factorized_ = false;
    schur_.clear();
    std::vector<idx> mate;
    if (ldlt() && opt_.pivot_pair_threshold >= 0) {
        mate = weak_diagonal_pairs<V, I>(a.nrows, a.row_ptr, a.col_idx, a.values, view_, base, opt_.pivot_pair_threshold,
                                         in_schur);  // no pair with a Schur variable
    }
    std::vector<idx> row_map;
    row_of_col_.clear();
    row_scale_.clear();
    scale_.clear();
    unmatched_ = 0;
    if (lu() && opt_.matching && a.nrows > 0) {
        // LU: rows permuted so the matched (largest-product) entries lie on the diagonal; the ordering then
        // runs on the pattern of that matrix plus its transpose.
        RowMatching mt = schur_sorted.empty() ? max_product_matching<V, I>(a.nrows, a.row_ptr, a.col_idx, a.values, base)
                                              : interior_matching(a, in_schur, base);
        unmatched_ = mt.unmatched;
        row_map.assign(static_cast<std::size_t>(a.nrows), 0);
        for (idx j = 0; j < a.nrows; ++j) row_map[mt.row_of_col[j]] = j;
        row_of_col_.assign(mt.row_of_col.begin(), mt.row_of_col.end());
        if (opt_.pivot_scaling && mt.unmatched == 0) {
            row_scale_ = std::move(mt.row_scale);
            scale_ = std::move(mt.col_scale);
        }
        p = matched_pattern<I>(a.nrows, a.row_ptr, a.col_idx, row_of_col_, base);
    }
    Symbolic sym = analyze_pattern(p, structure_, opt_, user, threads, mate, schur_sorted);
    for (std::int64_t v : schur_given_) schur_.push_back(v - base);
    schur_state_ = 0;
    mate_.assign(mate.begin(), mate.end());
    build_assembly_map<I>(sym, a.row_ptr, a.col_idx, view_, base, row_map);
    sym_ = std::make_shared<const Symbolic>(std::move(sym));
    a_row_ptr_.assign(a.row_ptr.begin(), a.row_ptr.end());
    a_col_idx_.assign(a.col_idx.begin(), a.col_idx.begin() + (a.row_ptr[a.nrows] - base));
    failing_column_ = -1;
    delayed_ = delay_rounds_ = 0;
    analyzed_ = true;
}

template <class V, class I>
Status DirectSolver<V, I>::factorize(CsrView<V, I> a) {
    if (!analyzed_) throw PhaseError("direct: factorize before analyze");
    if (a.nrows != sym_->n || a.ncols != sym_->n)
        throw DimensionMismatch("direct: factorize with a matrix of another size than analyze");
    if (!std::equal(a.row_ptr.begin(), a.row_ptr.end(), a_row_ptr_.begin(), a_row_ptr_.end()) ||
        a.col_idx.size() < a_col_idx_.size() ||
        !std::equal(a_col_idx_.begin(), a_col_idx_.end(), a.col_idx.begin()))
        throw InvalidArgument("direct: factorize with another sparsity pattern than analyze (run analyze again)");
    if (!schur_.empty() && opt_.backend == NumericBackend::reference)
        throw NotSupported("direct: the reference backend computes no Schur complement; use backend 'cpu'");
    if ((ldlt() || lu()) && opt_.backend == NumericBackend::reference)
        throw NotSupported("direct: the reference backend factors LLᴴ only; LDLᵀ/LDLᴴ and LU run on backend 'cpu'");
    if (opt_.backend == NumericBackend::cuda && is_complex_v<V>)
        throw NotSupported("direct: backend cuda factors real values (LLᵀ, LDLᵀ, LU); complex values run on backend 'cpu'");
    if (a.values.size() < a_col_idx_.size()) throw DimensionMismatch("direct: fewer values than entries");
    check_precision();
    single_ = single_requested();
    allocate_factor();
    num_.values.assign(a.values.begin(), a.values.begin() + static_cast<std::ptrdiff_t>(a_col_idx_.size()));
    work_.clear();
    allocated_ = true;
    delay_rounds_ = 0;  // (delayed_ counts the columns the current analysis has delayed: it starts again at analyze)
    Status st = run_numeric();
    if (lu() && schur_.empty() && opt_.delayed_pivots > 0 && st == Status::success) delay_pivots();
    return st;
}

template <class V, class I>
typename DirectSolver<V, I>::FactorState DirectSolver<V, I>::take_factor() {
    FactorState f{sym_, std::move(row_of_col_), std::move(num_), std::move(lnum_), single_, single_factor_seconds_, tau_used_,
                  delayed_};
    num_ = NumericFactor<V>{};
    num_.values = f.num.values;
    lnum_ = NumericFactor<W>{};
    return f;
}

template <class V, class I>
void DirectSolver<V, I>::restore_factor(FactorState&& f) {
    sym_ = std::move(f.sym);
    row_of_col_ = std::move(f.row_of_col);
    num_ = std::move(f.num);
    lnum_ = std::move(f.lnum);
    single_ = f.single;
    single_factor_seconds_ = f.single_seconds;
    tau_used_ = f.tau;
    delayed_ = f.delayed;
    failing_column_ = -1;
    factorized_ = true;
    anorm_ = -1;
}

template <class V, class I>
void DirectSolver<V, I>::delay_pivots() {
    // Rounds (at most delayed_pivots) run while a pivot outside a root front is perturbed: pivots below the threshold
    // alone start none (they leave the refined solve's backward error at the level of a stable factorization:
    // cryg2500, qh882, west0479), but a round moves them too (bp_1200 needs it). A round can make things worse
    // before the next one fixes them (a moved column meets rows grown by another unstable pivot: bp_1200 goes 5, 3,
    // 4, 2, 0): the factor with the fewest unstable pivots is kept, and two rounds in a row that do not beat it end
    // the rounds (with most columns unstable the counts oscillate: 3085, 574, 1862, 2054, ... on a random matrix
    // without the matching).
    auto perturbed_below_root = [&] {
        for (idx sn = 0; sn < sym_->nsuper; ++sn)
            if (num_.perturbed[sn] > 0 && sym_->sn_parent[sn] != -1) return true;
        return false;
    };
    if (!perturbed_below_root()) return;  // (without scanning the factor)
    std::int64_t cur = unstable_pivots(), best = cur;
    std::optional<FactorState> first;        // the factorization without delays (kept for the comparison below)
    std::optional<FactorState> best_factor;  // a later round's factor with the fewest unstable pivots, while not current
    bool first_best = false;                 // the best so far is `first`
    const double flop_limit = opt_.delay_growth * sym_->flops;  // of the analysis the rounds start from
    int stale = 0;
    for (std::int64_t round = 0; round < opt_.delayed_pivots && perturbed_below_root(); ++round) {
        FactorState prev = take_factor();
        const std::int64_t moved = delay_analysis(prev, flop_limit);
        if (moved == 0) {
            restore_factor(std::move(prev));
            break;
        }
        ++delay_rounds_;
        allocate_factor();
        const Status st = run_numeric();  // (a failure: an overflow of the new order's growth)
        if (round == 0) first = std::move(prev);
        if (st != Status::success) {  // back to the best one
            FactorState& back = first_best ? *first : best_factor ? *best_factor : round == 0 ? *first : prev;
            restore_factor(std::move(back));
            return;
        }
        delayed_ = (round == 0 ? first->delayed : prev.delayed) + moved;
        cur = unstable_pivots();
        if (cur < best) {
            best = cur, best_factor.reset(), first_best = false, stale = 0;
            continue;
        }
        if (round == 0) first_best = true;
        else if (!best_factor && !first_best) best_factor = std::move(prev);
        if (++stale == 2) break;  // two rounds in a row no better than the best: they oscillate
    }
    if (first_best) {
        restore_factor(std::move(*first));
        return;
    }
    if (best_factor) restore_factor(std::move(*best_factor));
    // Rounds that end with unstable pivots left keep the fewest, which is not always the more accurate factor
    // (bp_1200 after one round: 3 unstable instead of 5, backward error 1.9e-6 instead of 1.8e-12): a solve of
    // A x = 1 through each, refinement included, decides between it and the factorization without delays. (Not
    // for a single-precision factor, whose solve may factor again in full precision.)
    if (first && best > 0 && !single_) {
        const std::vector<V> ones(static_cast<std::size_t>(sym_->n), V(1));
        std::vector<V> x(ones.size());
        const double delayed = solve(ones, x).backward_error;
        FactorState kept = take_factor();
        restore_factor(std::move(*first));
        if (!(solve(ones, x).backward_error < delayed)) restore_factor(std::move(kept));
    }
}

template <class V, class I>
std::int64_t DirectSolver<V, I>::unstable_pivots(const FactorState* f, std::vector<idx>* target, std::int64_t* movable) const {
    const double limit = opt_.pivot_threshold > 0 ? 1.0 / opt_.pivot_threshold : std::numeric_limits<double>::infinity();
    if (f) return f->single ? count_unstable(*f->sym, f->lnum, f->tau, limit, target, movable)
                            : count_unstable(*f->sym, f->num, f->tau, limit, target, movable);
    return with_factor([&](const auto& nf) { return count_unstable(*sym_, nf, tau_used_, limit, target, movable); });
}

template <class V, class I>
std::int64_t DirectSolver<V, I>::delay_analysis(const FactorState& f, double flop_limit) {
    const Symbolic& s = *f.sym;
    const std::vector<std::int64_t>& piv = f.num.piv;  // (the pivoting of a single-precision factor too)
    const idx n = s.n;
    std::vector<idx> target(static_cast<std::size_t>(n), -1);  // original column -> supernode it moves into
    std::int64_t moved = 0;
    unstable_pivots(&f, &target, &moved);
    if (moved == 0) return 0;
    // Each delayed column goes just before the first column that stays of its target supernode (a target whose
    // columns all move passes them on to its parent), the columns moving there in their old order, linked in a
    // chain ending at that column by pattern edges (explicit zeros) and forced into its supernode: ordered after
    // every front between, they are fully summed in the target's front, whose rows become pivot candidates.
    std::vector<idx> anchor(static_cast<std::size_t>(s.nsuper), -1);
    for (idx k = n - 1; k >= 0; --k)
        if (target[s.perm[k]] == -1) anchor[s.col_to_sn[k]] = k;
    std::vector<std::vector<idx>> into(static_cast<std::size_t>(s.nsuper));
    for (idx k = 0; k < n; ++k) {
        const idx c = s.perm[k];
        if (target[c] == -1) continue;
        idx t = target[c];
        while (anchor[t] == -1) t = s.sn_parent[t];
        into[t].push_back(c);
    }
    std::vector<std::int64_t> order;
    order.reserve(static_cast<std::size_t>(n));
    std::vector<std::pair<idx, idx>> extra;
    std::vector<std::uint8_t> merge(static_cast<std::size_t>(n), 0);
    for (idx k = 0; k < n; ++k) {
        const idx c = s.perm[k], sn = s.col_to_sn[k];
        if (target[c] != -1) continue;
        if (k == anchor[sn])
            for (std::size_t t = 0; t < into[sn].size(); ++t) {
                const idx v = into[sn][t], next = t + 1 < into[sn].size() ? into[sn][t + 1] : c;
                order.push_back(v);
                merge[v] = 1;
                extra.emplace_back(std::min(v, next), std::max(v, next));
            }
        order.push_back(c);
    }
    std::sort(extra.begin(), extra.end());
    // The rows the fronts chose: column perm[c0 + j] pairs with the row pivoted to position j.
    std::vector<std::int64_t> roc(static_cast<std::size_t>(n));
    for (idx sn = 0; sn < s.nsuper; ++sn)
        for (idx k = s.super_ptr[sn]; k < s.super_ptr[sn + 1]; ++k) {
            const idx b = s.perm[s.super_ptr[sn] + piv[k]];  // the analysis row at position k, as a column of B
            roc[s.perm[k]] = f.row_of_col.empty() ? b : f.row_of_col[b];
        }
    const idx base = opt_.index_base;
    SymmetricPattern p = matched_pattern<I>(n, a_row_ptr_, a_col_idx_, roc, base, extra);
    DirectOptions o = opt_;
    o.ordering = OrderingAlg::user;
    Symbolic sym = analyze_pattern(p, structure_, o, order, thread_count(), {}, {}, merge);
    if (sym.flops > flop_limit) return 0;  // too much fill for the delays: no round (option delay_growth)
    sym.ordering_used = s.ordering_used;
    sym.candidates = s.candidates;
    std::vector<idx> row_map(static_cast<std::size_t>(n));
    for (idx j = 0; j < n; ++j) row_map[roc[j]] = j;
    build_assembly_map<I>(sym, a_row_ptr_, a_col_idx_, view_, base, row_map);
    sym_ = std::make_shared<const Symbolic>(std::move(sym));
    row_of_col_ = std::move(roc);
    single_ = single_requested();
    return moved;
}

template <class V, class I>
Status DirectSolver<V, I>::refactorize(std::span<const V> values) {
    if (!allocated_) throw PhaseError("direct: refactorize before factorize");
    if (values.size() != num_.values.size())
        throw DimensionMismatch("direct: refactorize expects " + std::to_string(num_.values.size()) + " values, got " +
                                std::to_string(values.size()));
    std::copy(values.begin(), values.end(), num_.values.begin());
    check_precision();
    if (single_ != single_requested()) {  // the option changed, or the last factorization fell back to full precision
        single_ = single_requested();
        allocate_factor();
    }
    return run_numeric();
}

template <class V, class I>
void DirectSolver<V, I>::allocate_factor() {
    if (single_) {
        allocate_numeric(*sym_, lnum_);
        std::vector<V>().swap(num_.lx);
        std::vector<V>().swap(num_.ux);
        decltype(num_.stacks)().swap(num_.stacks);
    } else {
        allocate_numeric(*sym_, num_);
        lnum_ = NumericFactor<W>{};
        std::vector<W>().swap(single_values_);
        std::vector<W>().swap(single_work_);
    }
}

template <class V, class I>
void DirectSolver<V, I>::check_precision() const {
    if (single_requested() && !schur_.empty())
        throw NotSupported("direct: factor_precision single with a Schur complement (the Schur block would carry single-precision "
                           "errors no refinement removes); use factor_precision full");
}

template <class V, class I>
void DirectSolver<V, I>::no_single(const char* what) const {
    if (single_)
        throw NotSupported(std::string("direct: ") + what + " needs a full-precision factor (this one is single precision: "
                           "factor with factor_precision full)");
}

template <class V, class I>
Status DirectSolver<V, I>::run_numeric() {
    const int threads = thread_count();
    idx fail = -1;
    NumericParams prm;
    prm.threads = threads;
    prm.blocked_rows = opt_.blocked_front_rows;
    prm.block = opt_.front_block;
    prm.small_rows = opt_.small_front_rows;
    prm.loop_panel_rows = opt_.loop_panel_rows;
    if (opt_.backend == NumericBackend::cuda) {
        if (!offload_) offload_ = make_gpu_front_offload(0);
        offload_->reset_stats();
        prm.offload = offload_.get();
        prm.offload_rows = opt_.gpu_front_rows;
        prm.offload_assembly = opt_.gpu_assembly;
    }
    Status st = Status::success;
    if (ldlt() || lu()) {
        // A NaN or Inf value is a failure at its column (it would reach the factor without meeting a pivot).
        const idx base = opt_.index_base;
        double amax = 0;
        for (std::size_t k = 0; k < num_.values.size(); ++k) {
            const V v = num_.values[k];
            const double av = std::abs(v);
            if (!std::isfinite(av)) {
                const auto row = std::upper_bound(a_row_ptr_.begin(), a_row_ptr_.end(), static_cast<std::int64_t>(k) + base) -
                                 a_row_ptr_.begin() - 1;
                const idx col = static_cast<idx>(a_col_idx_[k]) - base;
                failing_column_ = view_ == MatrixView::upper ? std::max<idx>(row, col) : std::min<idx>(row, col);
                factorized_ = false;
                anorm_ = -1;
                return Status::zero_pivot;
            }
            if (sym_->amap[k] >= 0) amax = std::max(amax, av);
        }
        // Default threshold: √ε for LDLᵀ (PARDISO's 1e-8 for symmetric indefinite), 450 ε for LU (its 1e-13 for
        // unsymmetric: the matching's scaling leaves far fewer tiny pivots, and cryg2500 (κ ≈ 4e16) solved to a
        // backward error of 1e-17 with it but stalled at 8e-12 with √ε).
        const double eps = std::numeric_limits<real_t<V>>::epsilon();
        const double rel = opt_.pivot_perturbation >= 0 ? opt_.pivot_perturbation : lu() ? 450 * eps : std::sqrt(eps);
        prm.ldlt = ldlt();
        prm.lu = lu();
        prm.herm = structure_ == Structure::hermitian;
        prm.pivot_block = opt_.pivot_block;
        // Scaled: LDLᵀ's S A S from the current values, LU's Dr A Dc from the matching of analyze; the pivot
        // candidates then have magnitude 1, and the threshold is relative to 1 instead of max |a_ij|.
        const bool scaled = lu() ? !scale_.empty() : opt_.pivot_scaling;
        if (ldlt()) {
            if (scaled) compute_scaling();
            else scale_.clear();
        }
        if (scaled) scale_values(lu() ? row_scale_ : scale_);
        prm.tau = rel * (scaled ? 1.0 : (amax > 0 ? amax : 1.0));
        st = factor_values(scaled ? std::span<const V>(scaled_) : std::span<const V>(num_.values), fail, prm);
    } else {
        st = factor_values(num_.values, fail, prm);
    }
    if (offload_) {
        const FrontOffloadStats g = offload_->stats();
        gpu_fronts_ = static_cast<double>(g.fronts);
        gpu_flops_ = g.flops;
        gpu_bytes_ = static_cast<double>(g.bytes);
        gpu_seconds_ = g.seconds;
        gpu_host_f11_ = static_cast<double>(g.host_f11);
        gpu_kept_ = static_cast<double>(g.kept);
        gpu_kept_bytes_ = static_cast<double>(g.kept_bytes);
        gpu_peak_bytes_ = static_cast<double>(g.peak_bytes);
        gpu_device_assembled_ = static_cast<double>(g.device_assembled);
        gpu_too_large_ = static_cast<double>(g.host_large);
    }
    if (fail != -1 && ldlt()) fail = pivot_source(fail);  // pivoted -> analysis position
    failing_column_ = fail == -1 ? -1 : sym_->perm[fail];
    factorized_ = st == Status::success;
    anorm_ = -1;  // recomputed by the next solve
    schur_state_ = 0;
    return st;
}

template <class V, class I>
Status DirectSolver<V, I>::factor_values(std::span<const V> values, idx& fail, const NumericParams& prm) {
    if (single_) {
        // Round to single precision. Values beyond float's comfortable range (the factor's growth and the
        // products of the updates must not overflow or underflow) are factored in full precision instead.
        single_values_.resize(values.size());
        double amax = 0;
        for (std::size_t k = 0; k < values.size(); ++k) {
            single_values_[k] = static_cast<W>(values[k]);
            if (sym_->amap[k] >= 0) amax = std::max(amax, static_cast<double>(std::abs(values[k])));
        }
        constexpr double range = 1e30;  // float: 3.4e38 .. 1.2e-38
        if (!std::isfinite(amax) || (amax <= range && !(amax > 0 && amax < 1 / range))) {
            // The default pivot perturbation threshold follows the factor's precision: 450 ε_single for LU (as
            // 450 ε for a double factor), 25 ε_single (3e-6) for LDLᵀ. √ε_single (2.4e-4, the double rule) perturbed
            // 132 pivots of cont-201_kkt, whose refinement then stalled; 3e-6 perturbs none there, and it and
            // hangGlider_2 refine to 1e-16 from the single factor (1e-5 sends hangGlider_2 back to double).
            NumericParams sprm = prm;
            if (prm.tau > 0 && opt_.pivot_perturbation < 0) {
                const double ed = static_cast<double>(std::numeric_limits<real_t<V>>::epsilon());
                const double es = static_cast<double>(std::numeric_limits<real_t<W>>::epsilon());
                sprm.tau *= lu() ? es / ed : 25 * es / std::sqrt(ed);
            }
            tau_used_ = sprm.tau;
            Timer timer;
            const Status st = opt_.backend == NumericBackend::reference
                                  ? cholesky_reference<W>(*sym_, lnum_, single_values_, fail)
                                  : factor_multifrontal<W>(*sym_, lnum_, single_values_, fail, sprm);
            single_factor_seconds_ = timer.seconds();
            if (st == Status::success) {
                // The pivot data the solve, the inertia and the results read (not the panels) live in num_.
                num_.info = lnum_.info;
                num_.piv = lnum_.piv;
                num_.pivot_size = lnum_.pivot_size;
                num_.perturbed = lnum_.perturbed;
                return st;
            }
            // A breakdown of the rounded matrix (an SPD matrix whose κ·ε_single reaches 1, a pivot rounded to zero)
            // may not be one of the matrix itself: it decides in full precision below.
        }
        single_ = false;
        allocate_factor();
    }
    tau_used_ = prm.tau;
    return opt_.backend == NumericBackend::reference ? cholesky_reference<V>(*sym_, num_, values, fail)
                                                     : factor_multifrontal<V>(*sym_, num_, values, fail, prm);
}

template <class V, class I>
void DirectSolver<V, I>::compute_scaling() {
    // s_i = 1/√|a_ij| for a pair (i, j) of the analysis, 1/√|a_ii| for an unpaired column, 1/√max_j|a_ij|
    // when its diagonal is zero (1 for an empty column): S A S has unit pivot candidates.
    const idx n = sym_->n, base = opt_.index_base;
    std::vector<double> diag(static_cast<std::size_t>(n), 0.0), pair(static_cast<std::size_t>(n), 0.0),
        off(static_cast<std::size_t>(n), 0.0);
    for (idx i = 0; i < n; ++i)
        for (idx k = a_row_ptr_[i] - base; k < a_row_ptr_[i + 1] - base; ++k) {
            if (sym_->amap[k] < 0) continue;  // not read by the view
            const idx j = static_cast<idx>(a_col_idx_[k]) - base;
            const double v = std::abs(num_.values[k]);
            if (i == j) {
                diag[i] = std::max(diag[i], v);
                continue;
            }
            off[i] = std::max(off[i], v), off[j] = std::max(off[j], v);
            if (!mate_.empty() && mate_[i] == j) pair[i] = std::max(pair[i], v), pair[j] = std::max(pair[j], v);
        }
    scale_.resize(static_cast<std::size_t>(n));
    for (idx i = 0; i < n; ++i) {
        const double m = pair[i] > 0 ? pair[i] : diag[i] > 0 ? diag[i] : off[i] > 0 ? off[i] : 1.0;
        scale_[i] = 1.0 / std::sqrt(m);
    }
}

template <class V, class I>
void DirectSolver<V, I>::scale_values(const std::vector<double>& dr) {
    const idx base = opt_.index_base;
    scaled_.resize(num_.values.size());
    for (idx i = 0; i < sym_->n; ++i)
        for (idx k = a_row_ptr_[i] - base; k < a_row_ptr_[i + 1] - base; ++k) {
            const idx j = static_cast<idx>(a_col_idx_[k]) - base;
            scaled_[k] = num_.values[k] * static_cast<real_t<V>>(dr[i] * scale_[j]);
        }
}

#define GIGASPARSE_DIRECT_INSTANTIATE(V, I) template class DirectSolver<V, I>;
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_DIRECT_INSTANTIATE)
#undef GIGASPARSE_DIRECT_INSTANTIATE

}  // namespace gigasparse::direct
