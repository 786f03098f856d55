// src/spgemm/analysis.hpp: the setup phase shared by every backend: per-row intermediate counts and
// column ranges (64-bit), row categories, chunk parameters and coarse batches.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/spgemm.hpp>

#include "spgemm/params.hpp"

namespace gigasparse::spgemm {

struct Analysis {
    std::int64_t nrows = 0, ncols = 0;
    std::vector<offset_t> row_products;           // intermediate products of row i of C
    std::vector<std::int64_t> row_lo, row_hi;     // column range of those products (lo > hi when none)
    std::array<std::vector<std::int64_t>, spgemm_category_count> rows;  // rows of each category, ascending
    std::vector<std::int64_t> coarse_batches;     // batch b = rows[coarse][coarse_batches[b] .. [b+1])
    ChunkParams numeric, symbolic;                // numeric: s_val + 1 bytes per column; symbolic: 1
    offset_t products = 0, max_row_products = 0;
    std::array<offset_t, spgemm_category_count> category_products{};
    std::int64_t wide_rows = 0;
    std::int64_t b_range_bytes = 0;  // B's per-row column ranges (freed after the setup; counted in the peak)
    std::int64_t window_rows = 0, spa_rows = 0;
    std::int64_t window_max_fill = 8;  // dense rows with range <= this * products use the window accumulator
    bool spa = false;                  // sort rows use the sparse accumulator (C's columns fit the limit)

    // Thresholds copied from the options (validated).
    std::int64_t sort_threshold = 32, chunk_sort_threshold = 16, sort_merge_target = 32;
    std::int64_t wide_threshold = std::int64_t(1) << 31;
    std::int64_t l2_bytes = 0, line_bytes = 0;
};

// Setup: fills `an` for C = A·B. A and B are already validated and conformant.
template <class V, class I>
void analyze(CsrView<V, I> a, CsrView<V, I> b, const SpgemmOptions& options, Analysis& an);

// Dense row i goes to the window accumulator (narrow range relative to its products).
inline bool use_window(const Analysis& an, std::int64_t i) {
    return an.row_hi[i] - an.row_lo[i] + 1 <= an.window_max_fill * an.row_products[i];
}

// The chunk-local index type switch: 64-bit when `count` or `cols` reaches the threshold.
inline bool use_wide(const Analysis& an, offset_t count, std::int64_t cols) {
    return count >= an.wide_threshold || cols >= an.wide_threshold;
}

}  // namespace gigasparse::spgemm
