// include/gigasparse/direct/batch.hpp: BatchDirectSolver — many matrices with one sparsity pattern (a uniform
// batch, as cuDSS's): one analysis, one factorization per matrix, matrices factored and solved side by side.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/direct/solver.hpp>

namespace gigasparse::direct {

// Every matrix of the batch has the pattern given to analyze; item t's values are the t-th block of nnz values
// (CSR order of that pattern), its right-hand sides and solutions the t-th block of n x nrhs (column-major).
// The items share the analysis (ordering, symbolic factorization; for LDLᵀ the pivot pairs, for LU the matching
// and its scaling, all from the values given to analyze) and each has a factor of its own.
//
// Parallelism: when the batch has at least two matrices and one factorization is small (below
// `parallel_item_flops`, default 2e8 flops: fronts too small to share), the matrices are factored and solved
// one per thread on `threads` threads; otherwise one after the other, each on all threads. Every item's factor
// and solution are bitwise those of a DirectSolver on that matrix alone, whatever the thread count or policy.
template <class V, class I>
class BatchDirectSolver {
public:
    explicit BatchDirectSolver(Structure structure = Structure::spd, MatrixView view = MatrixView::full);

    // Any DirectSolver option (applies to every item), plus "parallel_item_flops".
    void set_option(std::string_view name, std::string_view value);
    std::string get_option(std::string_view name) const;
    void set_user_permutation(std::span<const std::int64_t> perm);
    void set_schur_indices(std::span<const std::int64_t> indices);  // item(t).schur_complement() afterwards

    // The common pattern (values: those the LDLᵀ pairs and the LU matching are chosen from, e.g. the first matrix).
    void analyze(CsrView<V, I> pattern);
    // count matrices: values holds count x nnz values. Returns each item's status (numerical failures are
    // statuses, as in DirectSolver::factorize); a later call with the same count reuses the factors' memory.
    std::vector<Status> factorize(std::span<const V> values, std::int64_t count);
    // X_t = op(A_t)⁻¹ B_t for every item (count x n x nrhs values each), with iterative refinement; an item whose
    // factorization failed gets that status in its SolveInfo and its x untouched.
    std::vector<SolveInfo> solve(std::span<const V> b, std::span<V> x, std::int64_t nrhs = 1, Transpose op = Transpose::none);

    std::int64_t size() const { return static_cast<std::int64_t>(items_.size()); }
    // Item t's solver (results, factors, inertia, Schur complement); the prototype holds the analysis.
    DirectSolver<V, I>& item(std::int64_t t);
    const DirectSolver<V, I>& prototype() const { return proto_; }
    // Whether the last factorize / solve ran the items side by side (one thread each).
    bool ran_in_parallel() const { return parallel_; }

private:
    bool items_side_by_side() const;
    template <class F>
    void for_items(F&& body);

    DirectSolver<V, I> proto_;
    std::vector<DirectSolver<V, I>> items_;
    std::vector<Status> status_;  // of each item's last factorization (empty: none yet)
    std::vector<std::int64_t> row_ptr_;
    std::vector<I> col_idx_;
    std::int64_t n_ = 0, nnz_ = 0;
    double parallel_item_flops_ = 2e8;
    bool analyzed_ = false, parallel_ = false;
};

}  // namespace gigasparse::direct
