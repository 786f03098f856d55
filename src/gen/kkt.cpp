// src/gen/kkt.cpp: random symmetric indefinite saddle-point (KKT) matrices [H Aᵀ; A -δI].
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/gen/generators.hpp>

#include "gen/common.hpp"
#include "gen/random.hpp"

namespace gigasparse::gen {
namespace {

void validate(const KktOptions& o) {
    detail::require_nonnegative("kkt", "n", o.n);
    detail::require_nonnegative("kkt", "m", o.m);
    detail::require_finite_nonnegative("kkt", "h_nnz_per_row", o.h_nnz_per_row);
    detail::require_finite_nonnegative("kkt", "a_nnz_per_row", o.a_nnz_per_row);
    detail::require_finite_nonnegative("kkt", "delta", o.delta);
    if (o.m > 0 && o.n == 0) throw InvalidArgument("kkt: m > 0 constraints need n > 0 primal variables");
}

template <class V, class I>
void push(Coo<V, I>& t, std::int64_t i, std::int64_t j, double v) {
    t.row.push_back(static_cast<I>(i));
    t.col.push_back(static_cast<I>(j));
    t.val.push_back(detail::from_real<V>(v));
}

// H = L + Lᵀ + D: row i of the strict lower part L has ~h_nnz_per_row/2 entries uniform in [-1, 1];
// D_ii = 1 + sum_{j != i} |H_ij|, so H is strictly diagonally dominant with positive diagonal: SPD.
template <class V, class I>
void add_h(Coo<V, I>& t, const KktOptions& o) {
    std::vector<double> diag(static_cast<std::size_t>(o.n), 1.0);
    std::vector<std::int64_t> cols;
    for (std::int64_t i = 1; i < o.n; ++i) {
        detail::Rng rng(o.seed, detail::Stream::kkt_h, static_cast<std::uint64_t>(i));
        detail::sample_distinct(rng, i, detail::row_length(rng, o.h_nnz_per_row / 2, i), cols);
        for (const std::int64_t j : cols) {
            const double v = rng.uniform(-1, 1);
            push(t, i, j, v);
            push(t, j, i, v);
            diag[i] += std::abs(v);
            diag[j] += std::abs(v);
        }
    }
    for (std::int64_t i = 0; i < o.n; ++i) push(t, i, i, diag[i]);
}

// A (m x n) in rows n.., Aᵀ in columns n..: constraint k has max(1, ~a_nnz_per_row) entries in [-1, 1].
template <class V, class I>
void add_a(Coo<V, I>& t, const KktOptions& o) {
    std::vector<std::int64_t> cols;
    for (std::int64_t k = 0; k < o.m; ++k) {
        detail::Rng rng(o.seed, detail::Stream::kkt_a, static_cast<std::uint64_t>(k));
        const std::int64_t len = std::max<std::int64_t>(1, detail::row_length(rng, o.a_nnz_per_row, o.n));
        detail::sample_distinct(rng, o.n, len, cols);
        for (const std::int64_t j : cols) {
            const double v = rng.uniform(-1, 1);
            push(t, o.n + k, j, v);
            push(t, j, o.n + k, v);
        }
        push(t, o.n + k, o.n + k, -o.delta);  // (2,2) block -δI, stored even when δ = 0
    }
}

}  // namespace

// Real values (so the matrix is both symmetric and Hermitian for complex V); quasi-definite for δ > 0,
// hence inertia (n, m, 0).
template <class V, class I>
Csr<V, I> kkt(const KktOptions& options) {
    validate(options);
    std::int64_t size = 0;
    if (__builtin_add_overflow(options.n, options.m, &size)) throw OutOfMemory("kkt: n + m overflows");
    detail::require_fits_index<I>("kkt", size, size);
    Coo<V, I> t{size, size, {}, {}, {}};
    add_h(t, options);
    add_a(t, options);
    return coo_to_csr(t);
}

#define GIGASPARSE_INSTANTIATE(V, I) template Csr<V, I> kkt<V, I>(const KktOptions&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse::gen
