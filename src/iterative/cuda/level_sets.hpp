// src/iterative/cuda/level_sets.hpp: the level sets of a triangular sweep, the GPU's schedule of ILU(0), IC(0)
// and SGS: rows of one level depend only on rows of earlier levels, so a level is one kernel launch.
// Host code (no CUDA), unit-tested with g++ (tests/iterative/test_cuda_krylov_math.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/cuda/abi.hpp>

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {
namespace krylov {

struct LevelSets {
    std::vector<std::int64_t> order;      // rows, level by level (ascending within a level)
    std::vector<std::int64_t> level_ptr;  // level l holds order[level_ptr[l] .. level_ptr[l + 1])
    std::int64_t levels() const { return static_cast<std::int64_t>(level_ptr.size()) - 1; }
};

// Levels of the sweep over t's rows: lower (forward: row i waits for the columns j < i of its row) or
// upper (backward: for the columns j > i). Entries on the other side and on the diagonal are ignored.
template <class V, class I>
LevelSets level_sets(CsrView<V, I> t, bool lower) {
    const std::int64_t n = t.nrows;
    std::vector<std::int64_t> level(static_cast<std::size_t>(n), 0);
    std::int64_t depth = 0;
    const auto visit = [&](std::int64_t i) {
        std::int64_t l = 0;
        for (offset_t k = t.row_ptr[i]; k < t.row_ptr[i + 1]; ++k) {
            const std::int64_t j = t.col_idx[k];
            if (lower ? j < i : j > i) l = std::max(l, level[j] + 1);
        }
        level[i] = l;
        depth = std::max(depth, l + 1);
    };
    if (lower)
        for (std::int64_t i = 0; i < n; ++i) visit(i);
    else
        for (std::int64_t i = n - 1; i >= 0; --i) visit(i);
    LevelSets s;
    s.level_ptr.assign(static_cast<std::size_t>(depth + 1), 0);
    for (std::int64_t i = 0; i < n; ++i) ++s.level_ptr[level[i] + 1];
    for (std::int64_t l = 0; l < depth; ++l) s.level_ptr[l + 1] += s.level_ptr[l];
    s.order.resize(static_cast<std::size_t>(n));
    std::vector<std::int64_t> next(s.level_ptr.begin(), s.level_ptr.end() - 1);
    for (std::int64_t i = 0; i < n; ++i) s.order[next[level[i]]++] = i;
    return s;
}

}  // namespace krylov
}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
