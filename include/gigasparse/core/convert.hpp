// include/gigasparse/core/convert.hpp: validation and structural conversions of host matrices.
#pragma once

#include <limits>
#include <span>
#include <vector>

#include <gigasparse/core/error.hpp>
#include <gigasparse/core/matrix.hpp>

namespace gigasparse {

// What validate() checks beyond the basic shape invariants (which are always checked).
struct ValidateOptions {
    bool sorted = true;    // columns strictly increasing within each row (implies no duplicates)
    bool finite = false;   // no NaN or Inf among the values
};

// Throws InvalidStructure naming the row / entry that breaks an invariant; returns otherwise.
template <class V, class I>
void validate(CsrView<V, I> a, ValidateOptions options = {});

// True when every row has strictly increasing columns.
template <class V, class I>
bool rows_sorted(CsrView<V, I> a);

// COO -> CSR with sorted rows; duplicate (i, j) entries are summed. Validates index ranges.
template <class V, class I>
Csr<V, I> coo_to_csr(const Coo<V, I>& a);

template <class V, class I>
Coo<V, I> csr_to_coo(CsrView<V, I> a);

// Aᵀ (or Aᴴ when conjugate) in CSR; equivalently the CSC arrays of A. Output rows sorted.
template <class V, class I>
Csr<V, I> transpose(CsrView<V, I> a, bool conjugate = false);

// Sorts the columns of every row in place; when sum_duplicates, merges equal columns.
template <class V, class I>
void sort_rows(Csr<V, I>& a, bool sum_duplicates = true);

// From one stored triangle (as Matrix Market symmetric/skew/hermitian files hold) to the full
// matrix: A = T + op(T) - diag, op = transpose (symmetric), -transpose (skew), conj-transpose
// (hermitian). Entries in the other triangle of the input are an InvalidStructure error.
template <class V, class I>
Csr<V, I> expand_symmetric(CsrView<V, I> stored, Symmetry kind);

// The lower or upper triangle, with or without the diagonal.
template <class V, class I>
Csr<V, I> extract_triangle(CsrView<V, I> a, Triangle part, bool with_diagonal = true);

// The main diagonal (length min(nrows, ncols)); absent entries are zero.
template <class V, class I>
std::vector<V> extract_diagonal(CsrView<V, I> a);

// B = P A Pᵀ with perm[new] = old, i.e. B(i, j) = A(perm[i], perm[j]). perm must be a
// permutation of 0..n-1 (validated). Output rows sorted.
template <class V, class I>
Csr<V, I> permute_symmetric(CsrView<V, I> a, std::span<const std::int64_t> perm);

// B(i, j) = A(row_perm[i], col_perm[j]); either span may be empty for the identity.
template <class V, class I>
Csr<V, I> permute(CsrView<V, I> a, std::span<const std::int64_t> row_perm, std::span<const std::int64_t> col_perm);

// inverse[perm[k]] = k; throws InvalidArgument unless perm is a permutation of 0..n-1.
std::vector<std::int64_t> invert_permutation(std::span<const std::int64_t> perm);

// Exact structural and value equality (same shape, pattern and values, sorted rows assumed).
template <class V, class I>
bool equal(CsrView<V, I> a, CsrView<V, I> b);

// Converts the index type, throwing OutOfMemory if a dimension does not fit the target type.
template <class J, class V, class I>
Csr<V, J> convert_index(CsrView<V, I> a) {
    if (a.ncols > static_cast<std::int64_t>(std::numeric_limits<J>::max()) ||
        a.nrows > static_cast<std::int64_t>(std::numeric_limits<J>::max()))
        throw OutOfMemory("convert_index: matrix dimensions do not fit the target index type");
    Csr<V, J> b;
    b.nrows = a.nrows;
    b.ncols = a.ncols;
    b.row_ptr.assign(a.row_ptr.begin(), a.row_ptr.end());
    b.col_idx.assign(a.col_idx.begin(), a.col_idx.end());
    b.values.assign(a.values.begin(), a.values.end());
    return b;
}

// Converts the value type (real <-> real, real -> complex, complex<float> <-> complex<double>).
template <class W, class V, class I>
Csr<W, I> convert_value(CsrView<V, I> a) {
    Csr<W, I> b;
    b.nrows = a.nrows;
    b.ncols = a.ncols;
    b.row_ptr.assign(a.row_ptr.begin(), a.row_ptr.end());
    b.col_idx.assign(a.col_idx.begin(), a.col_idx.end());
    b.values.reserve(a.values.size());
    for (const V& v : a.values) b.values.push_back(static_cast<W>(v));
    return b;
}

}  // namespace gigasparse
