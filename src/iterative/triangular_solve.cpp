// src/iterative/triangular_solve.cpp: the TriangularSolve plan: row ranges of the triangle, schedule, parallel sweep.
#include <gigasparse/iterative/triangular_solve.hpp>

#include <limits>
#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>

#include "iterative/schedule.hpp"

namespace gigasparse::iterative {

const char* to_string(SyncKind s) {
    switch (s) {
        case SyncKind::point_to_point: return "p2p";
        case SyncKind::barrier: return "barrier";
        case SyncKind::sequential: return "sequential";
    }
    return "unknown";
}

template <class V, class I>
struct TriangularSolve<V, I>::Impl {
    CsrView<V, I> t;
    bool lower = true, unit = false;
    std::vector<std::int64_t> begin, end, diag;  // strict-triangle entries [begin, end) and diagonal position per row
    std::vector<std::int64_t> dep_ptr, dep;
    std::int64_t missing = -1;  // first row (sweep order) without a stored diagonal
    Schedule schedule;
    mutable std::vector<std::atomic<std::int64_t>> flags;
    mutable std::int64_t epoch = 0;

    void ranges() {
        const std::int64_t n = t.nrows;
        begin.resize(n), end.resize(n), diag.assign(n, -1);
        dep_ptr.assign(1, 0);
        for (std::int64_t i = 0; i < n; ++i) {
            offset_t k = t.row_ptr[i];
            while (k < t.row_ptr[i + 1] && t.col_idx[k] < i) ++k;  // rows sorted: [row_begin, k) is strictly lower
            const offset_t d = k < t.row_ptr[i + 1] && t.col_idx[k] == i ? k : -1;
            diag[i] = d;
            begin[i] = lower ? t.row_ptr[i] : (d >= 0 ? d + 1 : k);
            end[i] = lower ? k : t.row_ptr[i + 1];
            for (std::int64_t e = begin[i]; e < end[i]; ++e) dep.push_back(t.col_idx[e]);
            dep_ptr.push_back(static_cast<std::int64_t>(dep.size()));
        }
        if (!unit)
            for (std::int64_t p = 0; p < n && missing < 0; ++p)
                if (diag[lower ? p : n - 1 - p] < 0) missing = lower ? p : n - 1 - p;
    }
};

template <class V, class I>
TriangularSolve<V, I>::TriangularSolve() = default;
template <class V, class I>
TriangularSolve<V, I>::~TriangularSolve() = default;
template <class V, class I>
TriangularSolve<V, I>::TriangularSolve(TriangularSolve&&) noexcept = default;
template <class V, class I>
TriangularSolve<V, I>& TriangularSolve<V, I>::operator=(TriangularSolve&&) noexcept = default;

template <class V, class I>
void TriangularSolve<V, I>::analyze(CsrView<V, I> t, Triangle part, bool unit_diagonal, const ScheduleOptions& options,
                                     std::span<const std::int64_t> block_ptr) {
    if (t.nrows != t.ncols) throw DimensionMismatch("TriangularSolve::analyze: matrix is not square");
    if (options.backend == Backend::cuda) throw NotSupported("TriangularSolve: the cuda backend is part 2 of the iterative pillar");
    if (!rows_sorted(t)) throw InvalidStructure("TriangularSolve::analyze: rows must have strictly increasing columns");
    auto impl = std::make_unique<Impl>();
    impl->t = t;
    impl->lower = part == Triangle::lower;
    impl->unit = unit_diagonal;
    impl->ranges();
    const SweepGraph g{t.nrows, impl->lower, impl->dep_ptr, impl->dep};
    impl->schedule = build_schedule(g, block_ptr, options);
    impl->flags = std::vector<std::atomic<std::int64_t>>(impl->schedule.task_ptr.size());
    impl_ = std::move(impl);
}

template <class V, class I>
bool TriangularSolve<V, I>::analyzed() const {
    return impl_ != nullptr;
}

template <class V, class I>
const ScheduleStats& TriangularSolve<V, I>::stats() const {
    if (!impl_) throw PhaseError("TriangularSolve::stats: analyze() has not run");
    return impl_->schedule.stats;
}

template <class V, class I>
std::int64_t TriangularSolve<V, I>::solve(std::span<V> x) const {
    if (!impl_) throw PhaseError("TriangularSolve::solve: analyze() has not run");
    const Impl& p = *impl_;
    if (static_cast<std::int64_t>(x.size()) != p.t.nrows)
        throw DimensionMismatch("TriangularSolve::solve: x has " + std::to_string(x.size()) + " entries, need " + std::to_string(p.t.nrows));
    if (p.missing >= 0) return p.missing;
    std::atomic<std::int64_t> bad{std::numeric_limits<std::int64_t>::max()};  // first zero pivot, in sweep position
    const V* val = p.t.values.data();
    const I* col = p.t.col_idx.data();
    V* xs = x.data();
    const std::int64_t n = p.t.nrows;
    auto row = [&](std::int64_t i) {
        V s = xs[i];
        for (std::int64_t k = p.begin[i]; k < p.end[i]; ++k) s -= val[k] * xs[col[k]];  // b_i - sum_j t_ij x_j
        if (p.unit) {
            xs[i] = s;
            return;
        }
        const V d = val[p.diag[i]];
        if (d == V(0)) {
            const std::int64_t pos = p.lower ? i : n - 1 - i;
            std::int64_t cur = bad.load(std::memory_order_relaxed);
            while (pos < cur && !bad.compare_exchange_weak(cur, pos)) {
            }
        }
        xs[i] = s / d;
    };
    execute(p.schedule, row, p.flags.data(), ++p.epoch);
    const std::int64_t b = bad.load();
    return b == std::numeric_limits<std::int64_t>::max() ? -1 : (p.lower ? b : n - 1 - b);
}

template <class V, class I>
void TriangularSolve<V, I>::for_each_row(const std::function<void(std::int64_t)>& row_fn) const {
    if (!impl_) throw PhaseError("TriangularSolve::for_each_row: analyze() has not run");
    execute(impl_->schedule, row_fn, impl_->flags.data(), ++impl_->epoch);
}

#define GS_INST(V, I) template class TriangularSolve<V, I>;
GIGASPARSE_FOR_EACH_VALUE_INDEX(GS_INST)
#undef GS_INST

}  // namespace gigasparse::iterative
