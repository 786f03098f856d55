// tests/gen/checks.hpp: small structural helpers shared by the generator tests.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <vector>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/matrix.hpp>

namespace gigasparse::test {

// A == Aᵀ exactly (pattern and values).
template <class V, class I>
bool exactly_symmetric(const Csr<V, I>& a) {
    const auto t = transpose(a.view());
    return equal(a.view(), t.view());
}

// Length of every row.
template <class V, class I>
std::vector<std::int64_t> row_lengths(const Csr<V, I>& a) {
    std::vector<std::int64_t> len(static_cast<std::size_t>(a.nrows));
    for (std::int64_t i = 0; i < a.nrows; ++i) len[i] = a.row_ptr[i + 1] - a.row_ptr[i];
    return len;
}

// Sum of row i's values.
template <class V, class I>
V row_sum(const Csr<V, I>& a, std::int64_t i) {
    V s(0);
    for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) s += a.values[k];
    return s;
}

// A(i, j), zero when absent (rows sorted).
template <class V, class I>
V entry(const Csr<V, I>& a, std::int64_t i, std::int64_t j) {
    const auto first = a.col_idx.begin() + a.row_ptr[i], last = a.col_idx.begin() + a.row_ptr[i + 1];
    const auto it = std::lower_bound(first, last, static_cast<I>(j));
    return it != last && *it == static_cast<I>(j) ? a.values[it - a.col_idx.begin()] : V(0);
}

}  // namespace gigasparse::test
