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
