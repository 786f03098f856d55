// tests/utils/test_utils.hpp: shared test helpers — seeded random matrices, comparisons, data paths.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::test {

// Folder of the shared real matrices (../shared/matrices); empty string when it does not exist.
std::string matrix_dir();

// One row of ../shared/matrices/MANIFEST.tsv.
struct ManifestEntry {
    std::string file, name, symmetry, field, kind;
    std::int64_t nrows = 0, ncols = 0, nnz_stored = 0;
};
std::vector<ManifestEntry> read_manifest();

// Random m x n matrix, about `per_row` entries per row (some rows may be empty when
// empty_row_fraction > 0), values uniform in [-1, 1]; sorted rows, no duplicates.
template <class V, class I>
Csr<V, I> random_csr(std::int64_t m, std::int64_t n, double per_row, std::uint64_t seed, double empty_row_fraction = 0.0);

// Vector of n values uniform in [-1, 1] (real and imaginary parts for complex V).
template <class V>
std::vector<V> random_vector(std::int64_t n, std::uint64_t seed);

// The pattern and values of p (a real matrix, every diagonal entry stored) with diag_add(i) added to row i's diagonal
// and, for complex V, i·coupling on each row's coupling to the next row and −i·coupling to the previous one: Hermitian
// when diag_add is real (positive definite when p + diag_add is so by more than 2·coupling); complex symmetric with a
// complex diag_add and no coupling.
template <class V, class I, class F>
Csr<V, I> coupled(const Csr<double, I>& p, F diag_add, double coupling = 0.0) {
    Csr<V, I> a(p.nrows, p.ncols);
    a.row_ptr = p.row_ptr;
    a.col_idx = p.col_idx;
    a.values.resize(p.values.size());
    for (std::int64_t i = 0; i < p.nrows; ++i)
        for (offset_t k = p.row_ptr[i]; k < p.row_ptr[i + 1]; ++k) {
            const std::int64_t j = p.col_idx[k];
            V v = V(static_cast<real_t<V>>(p.values[k]));
            if (j == i) v += V(diag_add(i));
            if constexpr (is_complex_v<V>) {
                if (j == i + 1) v += V(0, static_cast<real_t<V>>(coupling));
                if (j == i - 1) v -= V(0, static_cast<real_t<V>>(coupling));
            }
            a.values[k] = v;
        }
    return a;
}

// n x n band matrix with half-bandwidth w, values uniform in [-1, 1]; sorted rows.
template <class V, class I>
Csr<V, I> banded(std::int64_t n, std::int64_t w, std::uint64_t seed);

// The same matrix with the entries of each row shuffled (for unsorted-input tests).
template <class V, class I>
Csr<V, I> unsort_rows(const Csr<V, I>& a, std::uint64_t seed);

// Dense copy (row-major, for small hand checks).
template <class V, class I>
std::vector<std::vector<V>> to_dense(CsrView<V, I> a);

// Same shape and pattern exactly, values within rtol relative to the row's max magnitude.
template <class V, class I>
::testing::AssertionResult csr_near(CsrView<V, I> expected, CsrView<V, I> actual, double rtol);

// SCOPED_TRACE text that prints the seed on failure.
inline std::string seed_trace(std::uint64_t seed) { return "seed = " + std::to_string(seed); }

}  // namespace gigasparse::test
