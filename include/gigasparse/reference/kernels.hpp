// include/gigasparse/reference/kernels.hpp: the sequential reference backend, the oracle of every test.
#pragma once

#include <span>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::reference {

// y = alpha * A * x + beta * y  (beta == 0 ignores the old y, even NaN).
template <class V, class I>
void spmv(CsrView<V, I> a, std::span<const V> x, std::span<V> y, V alpha = V(1), V beta = V(0));

// C = A * B (Gustavson with a dense accumulator); output rows sorted; entries produced by the
// product are kept even when they cancel to zero (structural result).
template <class V, class I>
Csr<V, I> spgemm(CsrView<V, I> a, CsrView<V, I> b);

// C = alpha * A + beta * B (same shape); union of patterns, rows sorted.
template <class V, class I>
Csr<V, I> add(CsrView<V, I> a, CsrView<V, I> b, V alpha = V(1), V beta = V(1));

// Solves T x = b in place (x holds b on entry). T is lower or upper triangular: entries of
// the other triangle are ignored. unit_diagonal ignores stored diagonal entries and uses 1.
// Returns -1 on success or the first row whose diagonal is zero or missing (x unspecified then).
template <class V, class I>
std::int64_t triangular_solve(CsrView<V, I> t, Triangle part, std::span<V> x, bool unit_diagonal = false);

}  // namespace gigasparse::reference
