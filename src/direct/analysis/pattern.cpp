// src/direct/analysis/pattern.cpp: symmetric pattern of a CSR input (view rules) and its permutation.
#include <algorithm>

#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {
namespace {

// Whether stored entry (i, j) is read for this structure and view.
bool entry_used(idx i, idx j, Structure s, MatrixView v) {
    if (s == Structure::general) return true;
    return v == MatrixView::upper ? i <= j : i >= j;
}

// Sort and deduplicate every column of a column-list structure, then compress.
SymmetricPattern compress_columns(idx n, std::vector<idx>& ptr, std::vector<idx>& ind) {
    SymmetricPattern p;
    p.n = n;
    p.col_ptr.assign(static_cast<std::size_t>(n + 1), 0);
    idx out = 0;
    for (idx j = 0; j < n; ++j) {
        auto b = ind.begin() + ptr[j], e = ind.begin() + ptr[j + 1];
        if (!std::is_sorted(b, e)) std::sort(b, e);  // sorted already when the CSR rows are
        auto last = std::unique(b, e);
        idx start = out;
        for (auto it = b; it != last; ++it) ind[static_cast<std::size_t>(out++)] = *it;
        p.col_ptr[j] = start;
    }
    p.col_ptr[n] = out;
    ind.resize(static_cast<std::size_t>(out));
    p.row_idx = std::move(ind);
    return p;
}

}  // namespace

template <class I>
SymmetricPattern symmetric_pattern(idx n, std::span<const std::int64_t> row_ptr, std::span<const I> col_idx,
                                   Structure structure, MatrixView view, idx base) {
    if (n < 0 || static_cast<idx>(row_ptr.size()) != n + 1)
        throw InvalidStructure("direct: row_ptr must have n + 1 entries");
    if (row_ptr[0] != base) throw InvalidStructure("direct: row_ptr[0] must equal the index base");
    const idx nnz = row_ptr[n] - base;
    if (nnz < 0 || static_cast<idx>(col_idx.size()) < nnz) throw InvalidStructure("direct: col_idx shorter than nnz");
    std::vector<idx> cnt(static_cast<std::size_t>(n + 1), 0);
    for (idx i = 0; i < n; ++i) {
        if (row_ptr[i + 1] < row_ptr[i])
            throw InvalidStructure("direct: row_ptr not monotone at row " + std::to_string(i));
        for (idx k = row_ptr[i] - base; k < row_ptr[i + 1] - base; ++k) {
            idx j = static_cast<idx>(col_idx[k]) - base;
            if (j < 0 || j >= n)
                throw InvalidStructure("direct: column index out of range in row " + std::to_string(i) +
                                       ", entry " + std::to_string(k));
            if (i == j || !entry_used(i, j, structure, view)) continue;
            ++cnt[i];  // (j, i) lands in column i, (i, j) in column j
            ++cnt[j];
        }
    }
    std::vector<idx> ptr(static_cast<std::size_t>(n + 1), 0);
    for (idx j = 0; j < n; ++j) ptr[j + 1] = ptr[j] + cnt[j];
    std::vector<idx> ind(static_cast<std::size_t>(ptr[n]));
    std::vector<idx> next(ptr.begin(), ptr.end() - 1);
    for (idx i = 0; i < n; ++i)
        for (idx k = row_ptr[i] - base; k < row_ptr[i + 1] - base; ++k) {
            idx j = static_cast<idx>(col_idx[k]) - base;
            if (i == j || !entry_used(i, j, structure, view)) continue;
            ind[next[j]++] = i;
            ind[next[i]++] = j;
        }
    return compress_columns(n, ptr, ind);
}

SymmetricPattern permute_pattern(const SymmetricPattern& p, std::span<const idx> perm, bool sorted) {
    // C = P A Pᵀ: column k of C is column perm[k] of A with rows renumbered by the inverse.
    const idx n = p.n;
    std::vector<idx> inv(static_cast<std::size_t>(n));
    for (idx k = 0; k < n; ++k) inv[perm[k]] = k;
    SymmetricPattern c;
    c.n = n;
    c.col_ptr.assign(static_cast<std::size_t>(n + 1), 0);
    c.row_idx.resize(p.row_idx.size());
    for (idx k = 0; k < n; ++k) {
        idx j = perm[k];
        idx b = c.col_ptr[k];
        idx len = p.col_ptr[j + 1] - p.col_ptr[j];
        for (idx q = 0; q < len; ++q) c.row_idx[b + q] = inv[p.row_idx[p.col_ptr[j] + q]];
        if (sorted) std::sort(c.row_idx.begin() + b, c.row_idx.begin() + b + len);
        c.col_ptr[k + 1] = b + len;
    }
    return c;
}

#define GIGASPARSE_DIRECT_PATTERN(I)                                                                        \
    template SymmetricPattern symmetric_pattern<I>(idx, std::span<const std::int64_t>, std::span<const I>, \
                                                   Structure, MatrixView, idx);
GIGASPARSE_DIRECT_PATTERN(std::int32_t)
GIGASPARSE_DIRECT_PATTERN(std::int64_t)
#undef GIGASPARSE_DIRECT_PATTERN

}  // namespace gigasparse::direct
