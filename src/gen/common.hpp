// src/gen/common.hpp: shared checks and the parallel two-pass CSR builder used by every generator.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gigasparse/core/error.hpp>
#include <gigasparse/core/matrix.hpp>
#include <gigasparse/core/types.hpp>

namespace gigasparse::gen::detail {

// Throws InvalidArgument unless x >= 0.
inline void require_nonnegative(const char* where, const char* what, std::int64_t x) {
    if (x < 0) throw InvalidArgument(std::string(where) + ": " + what + " must be >= 0, got " + std::to_string(x));
}

// Throws InvalidArgument unless x is finite and >= 0.
inline void require_finite_nonnegative(const char* where, const char* what, double x) {
    if (!std::isfinite(x) || x < 0)
        throw InvalidArgument(std::string(where) + ": " + what + " must be finite and >= 0, got " + std::to_string(x));
}

// Throws OutOfMemory unless every row and column index of an nrows x ncols matrix fits I.
template <class I>
void require_fits_index(const char* where, std::int64_t nrows, std::int64_t ncols) {
    const auto max_i = static_cast<std::int64_t>(std::numeric_limits<I>::max());
    if (nrows > max_i || ncols > max_i)
        throw OutOfMemory(std::string(where) + ": a " + std::to_string(nrows) + " x " + std::to_string(ncols) +
                          " matrix does not fit the index type " + type_name<I>() + " (max " + std::to_string(max_i) + ")");
}

// a * b * c without overflow of int64; throws OutOfMemory naming `where` when it would overflow.
inline std::int64_t checked_product(const char* where, std::int64_t a, std::int64_t b, std::int64_t c = 1) {
    std::int64_t ab = 0, abc = 0;
    if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc))
        throw OutOfMemory(std::string(where) + ": grid size " + std::to_string(a) + " x " + std::to_string(b) + " x " +
                          std::to_string(c) + " overflows 64-bit counts");
    return abc;
}

// A real number as a value of type V (real part for complex types).
template <class V>
V from_real(double x) {
    return V(static_cast<real_t<V>>(x));
}

// Builds CSR in two parallel passes: count(i) gives the length of row i, then fill(i, cols, vals)
// writes that many sorted entries. Both callbacks must be pure functions of i (determinism).
template <class V, class I, class Count, class Fill>
Csr<V, I> build_csr(std::int64_t nrows, std::int64_t ncols, Count count, Fill fill) {
    Csr<V, I> a(nrows, ncols);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < nrows; ++i) a.row_ptr[i + 1] = count(i);
    for (std::int64_t i = 0; i < nrows; ++i) a.row_ptr[i + 1] += a.row_ptr[i];  // exclusive scan
    a.col_idx.resize(static_cast<std::size_t>(a.row_ptr[nrows]));
    a.values.resize(static_cast<std::size_t>(a.row_ptr[nrows]));
#pragma omp parallel for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < nrows; ++i) fill(i, a.col_idx.data() + a.row_ptr[i], a.values.data() + a.row_ptr[i]);
    return a;
}

}  // namespace gigasparse::gen::detail
