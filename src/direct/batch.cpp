// src/direct/batch.cpp: BatchDirectSolver — one analysis, a DirectSolver copy (sharing it) per matrix, the
// matrices side by side on plain threads when each is too small to use them all.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>

#include <cblas.h>
#include <omp.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/batch.hpp>

#include "direct/numeric/dense.hpp"

namespace gigasparse::direct {

template <class V, class I>
BatchDirectSolver<V, I>::BatchDirectSolver(Structure structure, MatrixView view) : proto_(structure, view) {}

template <class V, class I>
void BatchDirectSolver<V, I>::set_option(std::string_view name, std::string_view value) {
    if (name == "parallel_item_flops") {
        std::string s(value);
        char* end = nullptr;
        const double d = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || !(d >= 0))
            throw InvalidArgument("direct batch: option parallel_item_flops expects a number >= 0, got '" + s + "'");
        parallel_item_flops_ = d;
        return;
    }
    proto_.set_option(name, value);
    for (auto& it : items_) it.set_option(name, value);
}

template <class V, class I>
std::string BatchDirectSolver<V, I>::get_option(std::string_view name) const {
    if (name == "parallel_item_flops") return std::to_string(parallel_item_flops_);
    return proto_.get_option(name);
}

template <class V, class I>
void BatchDirectSolver<V, I>::set_user_permutation(std::span<const std::int64_t> perm) {
    proto_.set_user_permutation(perm);
    analyzed_ = false;
}

template <class V, class I>
void BatchDirectSolver<V, I>::set_schur_indices(std::span<const std::int64_t> indices) {
    proto_.set_schur_indices(indices);
    analyzed_ = false;
}

template <class V, class I>
void BatchDirectSolver<V, I>::analyze(CsrView<V, I> pattern) {
    analyzed_ = false;
    items_.clear();
    status_.clear();
    proto_.analyze(pattern);  // validates the pattern
    const std::int64_t base = std::stoll(proto_.get_option("index_base"));
    n_ = pattern.nrows;
    nnz_ = pattern.row_ptr[static_cast<std::size_t>(n_)] - base;
    row_ptr_.assign(pattern.row_ptr.begin(), pattern.row_ptr.begin() + n_ + 1);
    col_idx_.assign(pattern.col_idx.begin(), pattern.col_idx.begin() + nnz_);
    analyzed_ = true;
}

template <class V, class I>
DirectSolver<V, I>& BatchDirectSolver<V, I>::item(std::int64_t t) {
    if (t < 0 || t >= size())
        throw InvalidArgument("direct batch: item " + std::to_string(t) + " of a batch of " + std::to_string(size()));
    return items_[static_cast<std::size_t>(t)];
}

template <class V, class I>
bool BatchDirectSolver<V, I>::items_side_by_side() const {
    const std::int64_t threads = std::stoll(proto_.get_option("threads"));
    const int t = threads > 0 ? static_cast<int>(threads) : omp_get_max_threads();
    return size() > 1 && t > 1 && proto_.result("flops") < parallel_item_flops_;
}

// body(t) for every item: side by side on plain threads (each item's solver on one thread, OpenBLAS on one
// thread for the whole batch so concurrent items do not nest its threads), or one after the other.
template <class V, class I>
template <class F>
void BatchDirectSolver<V, I>::for_items(F&& body) {
    const std::int64_t count = size();
    parallel_ = items_side_by_side();
    if (!parallel_) {
        for (std::int64_t t = 0; t < count; ++t) body(t);
        return;
    }
    const std::int64_t threads_opt = std::stoll(proto_.get_option("threads"));
    const int threads = threads_opt > 0 ? static_cast<int>(threads_opt) : omp_get_max_threads();
    for (auto& it : items_) it.set_option("threads", "1");
    const dense::OneBlasThread one_blas_thread;
    std::atomic<std::int64_t> next{0};
    std::exception_ptr error;
    std::atomic<bool> failed{false};
    auto worker = [&] {
        for (std::int64_t t = next.fetch_add(1); t < count && !failed; t = next.fetch_add(1)) {
            try {
                body(t);
            } catch (...) {
                if (!failed.exchange(true)) error = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (int k = 1; k < std::min<std::int64_t>(threads, count); ++k) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
    for (auto& it : items_) it.set_option("threads", std::to_string(threads_opt));
    if (error) std::rethrow_exception(error);
}

template <class V, class I>
std::vector<Status> BatchDirectSolver<V, I>::factorize(std::span<const V> values, std::int64_t count) {
    if (!analyzed_) throw PhaseError("direct batch: factorize before analyze");
    if (count < 0) throw InvalidArgument("direct batch: negative batch size");
    if (values.size() != static_cast<std::size_t>(count * nnz_))
        throw DimensionMismatch("direct batch: " + std::to_string(count) + " matrices of " + std::to_string(nnz_) +
                                " entries need " + std::to_string(count * nnz_) + " values, got " +
                                std::to_string(values.size()));
    // Same count as before: the items keep their factors' memory (refactorize); otherwise fresh copies of the
    // analyzed prototype (they share its analysis).
    const bool reuse = static_cast<std::int64_t>(items_.size()) == count && status_.size() == items_.size();
    if (!reuse) items_.assign(static_cast<std::size_t>(count), proto_);
    status_.assign(static_cast<std::size_t>(count), Status::success);
    for_items([&](std::int64_t t) {
        const std::span<const V> v = values.subspan(static_cast<std::size_t>(t * nnz_), static_cast<std::size_t>(nnz_));
        auto& s = items_[static_cast<std::size_t>(t)];
        status_[t] = reuse ? s.refactorize(v) : s.factorize(CsrView<V, I>{n_, n_, row_ptr_, col_idx_, v});
    });
    return status_;
}

template <class V, class I>
std::vector<SolveInfo> BatchDirectSolver<V, I>::solve(std::span<const V> b, std::span<V> x, std::int64_t nrhs, Transpose op) {
    if (status_.size() != items_.size() || items_.empty()) throw PhaseError("direct batch: solve before factorize");
    if (nrhs < 0) throw InvalidArgument("direct batch: negative number of right-hand sides");
    const std::size_t block = static_cast<std::size_t>(n_ * nrhs), need = block * items_.size();
    if (b.size() != need || x.size() != need)
        throw DimensionMismatch("direct batch: right-hand sides and solutions need count x n x nrhs = " + std::to_string(need) +
                                " values (got " + std::to_string(b.size()) + " and " + std::to_string(x.size()) + ")");
    std::vector<SolveInfo> info(items_.size());
    for_items([&](std::int64_t t) {
        if (status_[t] != Status::success) {  // its factorization failed: that status, x untouched
            info[t].status = status_[t];
            return;
        }
        info[t] = items_[static_cast<std::size_t>(t)].solve(b.subspan(t * block, block), x.subspan(t * block, block), nrhs, op);
    });
    return info;
}

#define GIGASPARSE_DIRECT_INSTANTIATE(V, I) template class BatchDirectSolver<V, I>;
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_DIRECT_INSTANTIATE)
#undef GIGASPARSE_DIRECT_INSTANTIATE

}  // namespace gigasparse::direct
