// src/gen/random_sparse.cpp: Erdős–Rényi patterns and random sparse matrices with uniform values.
#include <string>
#include <vector>

#include <gigasparse/gen/generators.hpp>

#include "gen/common.hpp"
#include "gen/random.hpp"

namespace gigasparse::gen {
namespace {

// Row i draws its length and columns from stream (seed, er_rows, i); values (when `random_values`)
// from (seed, values, i), uniform in [-1, 1] (real and imaginary parts for complex V).
template <class V, class I>
Csr<V, I> random_rows(const char* where, std::int64_t nrows, std::int64_t ncols, double per_row, std::uint64_t seed, bool random_values) {
    detail::require_nonnegative(where, "nrows", nrows);
    detail::require_nonnegative(where, "ncols", ncols);
    detail::require_finite_nonnegative(where, "nnz_per_row", per_row);
    detail::require_fits_index<I>(where, nrows, ncols);
    auto count = [&](std::int64_t i) {
        detail::Rng rng(seed, detail::Stream::er_rows, static_cast<std::uint64_t>(i));
        return static_cast<offset_t>(detail::row_length(rng, per_row, ncols));
    };
    auto fill = [&](std::int64_t i, I* cols, V* vals) {
        detail::Rng rng(seed, detail::Stream::er_rows, static_cast<std::uint64_t>(i));
        detail::Rng vrng(seed, detail::Stream::values, static_cast<std::uint64_t>(i));
        std::vector<std::int64_t> picked;
        detail::sample_distinct(rng, ncols, detail::row_length(rng, per_row, ncols), picked);
        for (const std::int64_t j : picked) {
            *cols++ = static_cast<I>(j);
            if (!random_values) *vals++ = V(1);
            else if constexpr (is_complex_v<V>) *vals++ = V(static_cast<real_t<V>>(vrng.uniform(-1, 1)), static_cast<real_t<V>>(vrng.uniform(-1, 1)));
            else *vals++ = static_cast<V>(vrng.uniform(-1, 1));
        }
    };
    return detail::build_csr<V, I>(nrows, ncols, count, fill);
}

}  // namespace

template <class V, class I>
Csr<V, I> erdos_renyi(std::int64_t nrows, std::int64_t ncols, double nnz_per_row, std::uint64_t seed) {
    return random_rows<V, I>("erdos_renyi", nrows, ncols, nnz_per_row, seed, false);
}

template <class V, class I>
Csr<V, I> random_sparse(std::int64_t nrows, std::int64_t ncols, double nnz_per_row, std::uint64_t seed) {
    return random_rows<V, I>("random_sparse", nrows, ncols, nnz_per_row, seed, true);
}

#define GIGASPARSE_INSTANTIATE(V, I)                                                                   \
    template Csr<V, I> erdos_renyi<V, I>(std::int64_t, std::int64_t, double, std::uint64_t);   \
    template Csr<V, I> random_sparse<V, I>(std::int64_t, std::int64_t, double, std::uint64_t);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse::gen
