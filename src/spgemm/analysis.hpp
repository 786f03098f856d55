// src/spgemm/analysis.hpp: the setup phase shared by every backend: row categories with, for the rows that
// need them, column ranges and product counts (32-bit when they fit), chunk parameters and coarse batches.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/spgemm.hpp>

#include "spgemm/params.hpp"

namespace gigasparse::spgemm {

// One planned row of the dense or fine category: its index, the column range of its products and their count.
struct RowInfo {
    std::int64_t row = 0, lo = 0, hi = -1;
    offset_t products = 0;
};

// The rows of the dense or fine category, ascending: four 32-bit fields per row when every value fits
// (below the wide threshold and 2^31), else four 64-bit fields. Short (sort) rows are not listed at all.
class RowList {
public:
    void assign(const std::vector<std::vector<RowInfo>>& parts, bool narrow);
    std::int64_t size() const { return n_; }
    bool narrow() const { return narrow_; }
    RowInfo operator[](std::int64_t t) const {
        if (narrow_) {
            const std::uint32_t* p = u32_.data() + 4 * t;
            return {p[0], p[1], p[2], p[3]};
        }
        const std::int64_t* p = i64_.data() + 4 * t;
        return {p[0], p[1], p[2], p[3]};
    }
    std::int64_t row(std::int64_t t) const { return narrow_ ? std::int64_t(u32_[static_cast<std::size_t>(4 * t)]) : i64_[static_cast<std::size_t>(4 * t)]; }
    // First position whose row is >= i.
    std::int64_t lower_bound(std::int64_t i) const {
        std::int64_t lo = 0, hi = n_;
        while (lo < hi) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            if (row(mid) < i) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
    std::int64_t bytes() const {
        return static_cast<std::int64_t>(u32_.capacity() * sizeof(std::uint32_t) + i64_.capacity() * sizeof(std::int64_t));
    }

private:
    std::vector<std::uint32_t> u32_;
    std::vector<std::int64_t> i64_;
    std::int64_t n_ = 0;
    bool narrow_ = true;
};

struct Analysis {
    std::int64_t nrows = 0, ncols = 0;
    // Rows of the dense and fine categories (with ranges and counts), coarse rows and their product counts.
    // Every other row is a sort row (possibly without products): kernels walk the rows absent from these
    // lists and count a sort row's products from A's row and B's row pointers, so short rows cost no plan memory.
    RowList dense, fine;
    std::vector<std::int64_t> coarse_rows;
    std::vector<offset_t> coarse_products;
    std::vector<std::int64_t> coarse_batches;     // batch b = coarse_rows[coarse_batches[b] .. [b+1])
    ChunkParams numeric, symbolic;                // numeric: s_val + 1 bytes per column; symbolic: 1
    offset_t products = 0, max_row_products = 0;
    std::array<std::int64_t, spgemm_category_count> category_rows{};
    std::array<offset_t, spgemm_category_count> category_products{};
    std::int64_t wide_rows = 0;
    std::int64_t setup_peak_bytes = 0;  // transient setup memory (B's column ranges, per-thread row records)
    std::int64_t window_rows = 0, spa_rows = 0;
    std::int64_t window_max_fill = 8;  // dense rows with range <= this * products use the window accumulator
    bool spa = false;                  // sort rows use the sparse accumulator (C's columns fit the limit)
    bool b_sorted = false;             // B's rows are sorted without duplicates (first and last columns = range)
    bool copy_single = false;          // b_sorted and no forced category: a row of A with one entry is a scaled
                                       // copy of one row of B (no accumulator)

    // Thresholds copied from the options (validated).
    std::int64_t sort_threshold = 128, chunk_sort_threshold = 16, sort_merge_target = 32;
    std::int64_t wide_threshold = std::int64_t(1) << 31;
    std::int64_t l2_bytes = 0, line_bytes = 0;

    std::int64_t plan_bytes() const {
        auto bytes = [](const auto& v) { return static_cast<std::int64_t>(v.capacity() * sizeof(v[0])); };
        return dense.bytes() + fine.bytes() + bytes(coarse_rows) + bytes(coarse_products) + bytes(coarse_batches);
    }
};

// The parameters of the setup without its pass over the rows: options checked, cache model, accumulator
// choices (spa, copy_single, window), chunk parameters. analyze() starts with it; the fused one-pass product
// of multiply() (kernels.hpp, multiply_fused) needs nothing more.
template <class V, class I>
void configure(CsrView<V, I> a, CsrView<V, I> b, bool b_sorted, const SpgemmOptions& options, Analysis& an);

// Setup: fills `an` for C = A·B. A and B are already validated and conformant; `b_sorted` says that every
// row of B is sorted without duplicates (increasing columns), so that its column range is its first and last entry.
template <class V, class I>
void analyze(CsrView<V, I> a, CsrView<V, I> b, bool b_sorted, const SpgemmOptions& options, Analysis& an);

// Dense row goes to the window accumulator (narrow range relative to its products).
inline bool use_window(const Analysis& an, const RowInfo& r) { return r.hi - r.lo + 1 <= an.window_max_fill * r.products; }

// The chunk-local index type switch: 64-bit when `count` or `cols` reaches the threshold.
inline bool use_wide(const Analysis& an, offset_t count, std::int64_t cols) {
    return count >= an.wide_threshold || cols >= an.wide_threshold;
}

// Products of row i of C: the lengths of the rows of B that row i of A selects.
template <class V, class I>
inline offset_t row_products(CsrView<V, I> a, CsrView<V, I> b, std::int64_t i) {
    offset_t n = 0;
    for (offset_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
        const std::int64_t k = a.col_idx[p];
        n += b.row_ptr[k + 1] - b.row_ptr[k];
    }
    return n;
}

// Calls f(i) for every sort row i in [r0, r1): the rows in none of the dense, fine and coarse lists.
template <class F>
void for_each_sort_row(const Analysis& an, std::int64_t r0, std::int64_t r1, F&& f) {
    std::int64_t d = an.dense.lower_bound(r0), g = an.fine.lower_bound(r0);
    std::int64_t c = std::lower_bound(an.coarse_rows.begin(), an.coarse_rows.end(), r0) - an.coarse_rows.begin();
    const std::int64_t nd = an.dense.size(), ng = an.fine.size(), nc = static_cast<std::int64_t>(an.coarse_rows.size());
    std::int64_t next_d = d < nd ? an.dense.row(d) : r1, next_g = g < ng ? an.fine.row(g) : r1;
    std::int64_t next_c = c < nc ? an.coarse_rows[static_cast<std::size_t>(c)] : r1;
    for (std::int64_t i = r0; i < r1; ++i) {
        if (i == next_d) {
            next_d = ++d < nd ? an.dense.row(d) : r1;
            continue;
        }
        if (i == next_g) {
            next_g = ++g < ng ? an.fine.row(g) : r1;
            continue;
        }
        if (i == next_c) {
            next_c = ++c < nc ? an.coarse_rows[static_cast<std::size_t>(c)] : r1;
            continue;
        }
        f(i);
    }
}

}  // namespace gigasparse::spgemm
