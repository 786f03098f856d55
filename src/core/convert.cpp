// src/core/convert.cpp: COO<->CSR, transpose, row sorting, triangles, diagonal, permutations.
#include <algorithm>
#include <numeric>
#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>

namespace gigasparse {
namespace {

// Counting sort of (row, col, val) triplets by row into CSR arrays; columns unsorted.
template <class V, class I>
Csr<V, I> bucket_by_row(std::int64_t nrows, std::int64_t ncols, std::span<const I> row, std::span<const I> col, std::span<const V> val) {
    Csr<V, I> c(nrows, ncols);
    for (const I r : row) ++c.row_ptr[static_cast<std::size_t>(r) + 1];
    std::partial_sum(c.row_ptr.begin(), c.row_ptr.end(), c.row_ptr.begin());
    c.col_idx.resize(val.size());
    c.values.resize(val.size());
    std::vector<offset_t> next(c.row_ptr.begin(), c.row_ptr.end() - 1);
    for (std::size_t k = 0; k < val.size(); ++k) {
        const offset_t p = next[static_cast<std::size_t>(row[k])]++;
        c.col_idx[p] = col[k];
        c.values[p] = val[k];
    }
    return c;
}

}  // namespace

template <class V, class I>
Csr<V, I> coo_to_csr(const Coo<V, I>& a) {
    if (a.row.size() != a.val.size() || a.col.size() != a.val.size())
        throw InvalidArgument("coo_to_csr: row, col and val arrays differ in length");
    for (std::size_t k = 0; k < a.val.size(); ++k)
        if (a.row[k] < 0 || a.row[k] >= a.nrows || a.col[k] < 0 || a.col[k] >= a.ncols)
            throw InvalidStructure("coo_to_csr: entry " + std::to_string(k) + " at (" + std::to_string(a.row[k]) + ", " +
                                   std::to_string(a.col[k]) + ") outside a " + std::to_string(a.nrows) + " x " +
                                   std::to_string(a.ncols) + " matrix");
    Csr<V, I> c = bucket_by_row<V, I>(a.nrows, a.ncols, a.row, a.col, a.val);
    sort_rows(c, true);
    return c;
}

template <class V, class I>
Coo<V, I> csr_to_coo(CsrView<V, I> a) {
    Coo<V, I> c{a.nrows, a.ncols, {}, {}, {}};
    c.row.resize(a.col_idx.size());
    for (std::int64_t i = 0; i < a.nrows; ++i)
        std::fill(c.row.begin() + a.row_ptr[i], c.row.begin() + a.row_ptr[i + 1], static_cast<I>(i));
    c.col.assign(a.col_idx.begin(), a.col_idx.end());
    c.val.assign(a.values.begin(), a.values.end());
    return c;
}

// Aᵀ by a counting sort over columns; visiting rows in order leaves every output row sorted.
template <class V, class I>
Csr<V, I> transpose(CsrView<V, I> a, bool conjugate) {
    Csr<V, I> t(a.ncols, a.nrows);
    const offset_t nnz = a.nnz();
    for (offset_t k = 0; k < nnz; ++k) ++t.row_ptr[static_cast<std::size_t>(a.col_idx[k]) + 1];
    std::partial_sum(t.row_ptr.begin(), t.row_ptr.end(), t.row_ptr.begin());
    t.col_idx.resize(static_cast<std::size_t>(nnz));
    t.values.resize(static_cast<std::size_t>(nnz));
    std::vector<offset_t> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const offset_t p = next[static_cast<std::size_t>(a.col_idx[k])]++;
            t.col_idx[p] = static_cast<I>(i);
            t.values[p] = conjugate ? conj_if_complex(a.values[k]) : a.values[k];
        }
    return t;
}

template <class V, class I>
void sort_rows(Csr<V, I>& a, bool sum_duplicates) {
    std::vector<std::pair<I, V>> row;
    offset_t out = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        const offset_t begin = a.row_ptr[i], end = a.row_ptr[i + 1];
        row.clear();
        for (offset_t k = begin; k < end; ++k) row.emplace_back(a.col_idx[k], a.values[k]);
        std::stable_sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        a.row_ptr[i] = out;
        for (std::size_t k = 0; k < row.size(); ++k) {
            if (sum_duplicates && out > a.row_ptr[i] && a.col_idx[out - 1] == row[k].first) {
                a.values[out - 1] += row[k].second;
            } else {
                a.col_idx[out] = row[k].first;
                a.values[out] = row[k].second;
                ++out;
            }
        }
    }
    a.row_ptr[a.nrows] = out;
    a.col_idx.resize(static_cast<std::size_t>(out));
    a.values.resize(static_cast<std::size_t>(out));
}

template <class V, class I>
Csr<V, I> expand_symmetric(CsrView<V, I> s, Symmetry kind) {
    if (s.nrows != s.ncols) throw DimensionMismatch("expand_symmetric: matrix is not square");
    if (kind == Symmetry::general) return convert_index<I>(s);
    bool has_lower = false, has_upper = false;
    for (std::int64_t i = 0; i < s.nrows; ++i)
        for (offset_t k = s.row_ptr[i]; k < s.row_ptr[i + 1]; ++k) {
            has_lower |= s.col_idx[k] < i;
            has_upper |= s.col_idx[k] > i;
        }
    if (has_lower && has_upper)
        throw InvalidStructure(std::string("expand_symmetric: a ") + to_string(kind) + " matrix must store one triangle only");
    Coo<V, I> full{s.nrows, s.ncols, {}, {}, {}};
    const std::size_t cap = 2 * s.col_idx.size();
    full.row.reserve(cap);
    full.col.reserve(cap);
    full.val.reserve(cap);
    for (std::int64_t i = 0; i < s.nrows; ++i)
        for (offset_t k = s.row_ptr[i]; k < s.row_ptr[i + 1]; ++k) {
            const I j = s.col_idx[k];
            const V v = s.values[k];
            full.row.push_back(static_cast<I>(i));
            full.col.push_back(j);
            full.val.push_back(v);
            if (j == i) {
                if (kind == Symmetry::skew_symmetric && v != V(0))
                    throw InvalidStructure("expand_symmetric: skew-symmetric matrix with nonzero diagonal at row " + std::to_string(i));
                continue;
            }
            full.row.push_back(j);
            full.col.push_back(static_cast<I>(i));
            full.val.push_back(kind == Symmetry::skew_symmetric ? -v : kind == Symmetry::hermitian ? conj_if_complex(v) : v);
        }
    return coo_to_csr(full);
}

template <class V, class I>
Csr<V, I> extract_triangle(CsrView<V, I> a, Triangle part, bool with_diagonal) {
    Csr<V, I> t(a.nrows, a.ncols);
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const std::int64_t j = a.col_idx[k];
            const bool keep = j == i ? with_diagonal : (part == Triangle::lower ? j < i : j > i);
            if (!keep) continue;
            t.col_idx.push_back(a.col_idx[k]);
            t.values.push_back(a.values[k]);
        }
        t.row_ptr[i + 1] = static_cast<offset_t>(t.col_idx.size());
    }
    return t;
}

template <class V, class I>
std::vector<V> extract_diagonal(CsrView<V, I> a) {
    std::vector<V> d(static_cast<std::size_t>(std::min(a.nrows, a.ncols)), V(0));
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(d.size()); ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (a.col_idx[k] == i) d[i] += a.values[k];
    return d;
}

std::vector<std::int64_t> invert_permutation(std::span<const std::int64_t> perm) {
    const auto n = static_cast<std::int64_t>(perm.size());
    std::vector<std::int64_t> inv(perm.size(), -1);
    for (std::int64_t k = 0; k < n; ++k) {
        const std::int64_t p = perm[k];
        if (p < 0 || p >= n) throw InvalidArgument("permutation: entry " + std::to_string(k) + " = " + std::to_string(p) + " out of range");
        if (inv[p] != -1) throw InvalidArgument("permutation: value " + std::to_string(p) + " appears twice");
        inv[p] = k;
    }
    return inv;
}

template <class V, class I>
Csr<V, I> permute(CsrView<V, I> a, std::span<const std::int64_t> row_perm, std::span<const std::int64_t> col_perm) {
    if (!row_perm.empty() && static_cast<std::int64_t>(row_perm.size()) != a.nrows)
        throw DimensionMismatch("permute: row permutation length differs from nrows");
    if (!col_perm.empty() && static_cast<std::int64_t>(col_perm.size()) != a.ncols)
        throw DimensionMismatch("permute: column permutation length differs from ncols");
    std::vector<std::int64_t> col_inv = col_perm.empty() ? std::vector<std::int64_t>{} : invert_permutation(col_perm);
    if (!row_perm.empty()) invert_permutation(row_perm);  // validates
    Csr<V, I> b(a.nrows, a.ncols);
    b.col_idx.reserve(a.col_idx.size());
    b.values.reserve(a.values.size());
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        const std::int64_t src = row_perm.empty() ? i : row_perm[i];
        for (offset_t k = a.row_ptr[src]; k < a.row_ptr[src + 1]; ++k) {
            b.col_idx.push_back(col_inv.empty() ? a.col_idx[k] : static_cast<I>(col_inv[a.col_idx[k]]));
            b.values.push_back(a.values[k]);
        }
        b.row_ptr[i + 1] = static_cast<offset_t>(b.col_idx.size());
    }
    if (!col_inv.empty()) sort_rows(b, false);
    return b;
}

template <class V, class I>
Csr<V, I> permute_symmetric(CsrView<V, I> a, std::span<const std::int64_t> perm) {
    if (a.nrows != a.ncols) throw DimensionMismatch("permute_symmetric: matrix is not square");
    return permute(a, perm, perm);
}

template <class V, class I>
bool equal(CsrView<V, I> a, CsrView<V, I> b) {
    return a.nrows == b.nrows && a.ncols == b.ncols && std::equal(a.row_ptr.begin(), a.row_ptr.end(), b.row_ptr.begin(), b.row_ptr.end()) &&
           std::equal(a.col_idx.begin(), a.col_idx.end(), b.col_idx.begin(), b.col_idx.end()) &&
           std::equal(a.values.begin(), a.values.end(), b.values.begin(), b.values.end());
}

#define GIGASPARSE_INSTANTIATE(V, I)                                                                             \
    template Csr<V, I> coo_to_csr(const Coo<V, I>&);                                                            \
    template Coo<V, I> csr_to_coo(CsrView<V, I>);                                                               \
    template Csr<V, I> transpose(CsrView<V, I>, bool);                                                          \
    template void sort_rows(Csr<V, I>&, bool);                                                                  \
    template Csr<V, I> expand_symmetric(CsrView<V, I>, Symmetry);                                               \
    template Csr<V, I> extract_triangle(CsrView<V, I>, Triangle, bool);                                         \
    template std::vector<V> extract_diagonal(CsrView<V, I>);                                                    \
    template Csr<V, I> permute(CsrView<V, I>, std::span<const std::int64_t>, std::span<const std::int64_t>);    \
    template Csr<V, I> permute_symmetric(CsrView<V, I>, std::span<const std::int64_t>);                         \
    template bool equal(CsrView<V, I>, CsrView<V, I>);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse
