// include/gigasparse/core/matrix.hpp: owning host CSR/COO/dense types and their non-owning views.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <gigasparse/core/types.hpp>

namespace gigasparse {

// Which part of a square matrix is stored or wanted.
enum class Triangle { lower, upper };

// How the stored entries relate to the full matrix (Matrix Market symmetry kinds).
enum class Symmetry { general, symmetric, skew_symmetric, hermitian };

const char* to_string(Symmetry s);

// Read-only view of a CSR matrix. Row offsets are 64-bit always: nnz may pass 2^31.
// Invariants (checked by validate()): row_ptr has nrows+1 monotone entries starting at 0,
// col_idx/values have row_ptr[nrows] entries, columns in [0, ncols).
template <class V, class I>
struct CsrView {
    std::int64_t nrows = 0;
    std::int64_t ncols = 0;
    std::span<const offset_t> row_ptr;
    std::span<const I> col_idx;
    std::span<const V> values;

    offset_t nnz() const { return nrows == 0 || row_ptr.empty() ? 0 : row_ptr[nrows]; }
    offset_t row_begin(std::int64_t i) const { return row_ptr[i]; }
    offset_t row_end(std::int64_t i) const { return row_ptr[i + 1]; }
    // The same matrix: same shape and the very same arrays (A·A passed as (a, a)).
    bool same_storage(const CsrView& o) const {
        return nrows == o.nrows && ncols == o.ncols && row_ptr.data() == o.row_ptr.data() && row_ptr.size() == o.row_ptr.size() &&
               col_idx.data() == o.col_idx.data() && col_idx.size() == o.col_idx.size() && values.data() == o.values.data() &&
               values.size() == o.values.size();
    }
};

// Owning host CSR matrix. An aggregate with public members, CSparse style: the invariants are
// those of CsrView; functions that produce a Csr produce sorted rows without duplicates unless
// documented otherwise.
template <class V, class I>
struct Csr {
    using value_type = V;
    using index_type = I;

    std::int64_t nrows = 0;
    std::int64_t ncols = 0;
    std::vector<offset_t> row_ptr{0};
    std::vector<I> col_idx;
    std::vector<V> values;

    Csr() = default;
    // An nrows x ncols matrix with no stored entries.
    Csr(std::int64_t rows, std::int64_t cols);

    offset_t nnz() const { return row_ptr.empty() ? 0 : row_ptr.back(); }
    CsrView<V, I> view() const { return {nrows, ncols, row_ptr, col_idx, values}; }
    operator CsrView<V, I>() const { return view(); }
};

// Coordinate (triplet) matrix; entries in any order, duplicates allowed (summed on conversion).
template <class V, class I>
struct Coo {
    std::int64_t nrows = 0;
    std::int64_t ncols = 0;
    std::vector<I> row;
    std::vector<I> col;
    std::vector<V> val;

    offset_t nnz() const { return static_cast<offset_t>(val.size()); }
};

// Column-major dense matrix (also a multivector: one column per right-hand side).
template <class V>
struct DenseMatrix {
    std::int64_t nrows = 0;
    std::int64_t ncols = 0;
    std::vector<V> data;  // leading dimension == nrows

    DenseMatrix() = default;
    DenseMatrix(std::int64_t rows, std::int64_t cols) : nrows(rows), ncols(cols), data(static_cast<std::size_t>(rows * cols)) {}

    V& operator()(std::int64_t i, std::int64_t j) { return data[static_cast<std::size_t>(i + j * nrows)]; }
    const V& operator()(std::int64_t i, std::int64_t j) const { return data[static_cast<std::size_t>(i + j * nrows)]; }
    std::span<V> column(std::int64_t j) { return {data.data() + j * nrows, static_cast<std::size_t>(nrows)}; }
    std::span<const V> column(std::int64_t j) const { return {data.data() + j * nrows, static_cast<std::size_t>(nrows)}; }
};

// Non-owning column-major view with an explicit leading dimension.
template <class V>
struct DenseView {
    std::int64_t nrows = 0;
    std::int64_t ncols = 0;
    std::int64_t ld = 0;
    V* data = nullptr;

    V& operator()(std::int64_t i, std::int64_t j) const { return data[i + j * ld]; }
};

}  // namespace gigasparse
