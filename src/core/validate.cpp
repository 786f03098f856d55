// src/core/validate.cpp: checks of the CSR invariants with messages that name the failing row/entry.
#include <cmath>
#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>

namespace gigasparse {
namespace {

std::string at_row(std::int64_t i) { return " (row " + std::to_string(i) + ")"; }

}  // namespace

template <class V, class I>
void validate(CsrView<V, I> a, ValidateOptions options) {
    if (a.nrows < 0 || a.ncols < 0) throw InvalidStructure("csr: negative dimensions");
    if (static_cast<std::int64_t>(a.row_ptr.size()) != a.nrows + 1)
        throw InvalidStructure("csr: row_ptr has " + std::to_string(a.row_ptr.size()) + " entries, expected nrows+1 = " +
                               std::to_string(a.nrows + 1));
    if (a.row_ptr[0] != 0) throw InvalidStructure("csr: row_ptr[0] = " + std::to_string(a.row_ptr[0]) + ", expected 0");
    const offset_t nnz = a.row_ptr[a.nrows];
    if (static_cast<offset_t>(a.col_idx.size()) != nnz || static_cast<offset_t>(a.values.size()) != nnz)
        throw InvalidStructure("csr: row_ptr[nrows] = " + std::to_string(nnz) + " but col_idx has " + std::to_string(a.col_idx.size()) +
                               " and values " + std::to_string(a.values.size()) + " entries");
    // Offsets first: with monotone offsets ending at nnz, every row range below is in bounds.
    for (std::int64_t i = 0; i < a.nrows; ++i)
        if (a.row_ptr[i + 1] < a.row_ptr[i]) throw InvalidStructure("csr: row_ptr decreases" + at_row(i));
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const std::int64_t j = a.col_idx[k];
            if (j < 0 || j >= a.ncols)
                throw InvalidStructure("csr: column index " + std::to_string(j) + " out of range [0, " + std::to_string(a.ncols) + ")" +
                                       at_row(i));
            if (options.sorted && k > a.row_ptr[i] && a.col_idx[k - 1] >= a.col_idx[k])
                throw InvalidStructure(std::string("csr: columns ") + (a.col_idx[k - 1] == a.col_idx[k] ? "duplicated" : "not sorted") +
                                       " at column " + std::to_string(j) + at_row(i));
            if (options.finite && !finite_value(a.values[k]))
                throw InvalidStructure("csr: non-finite value at column " + std::to_string(j) + at_row(i));
        }
    }
}

template <class V, class I>
bool rows_sorted(CsrView<V, I> a) {
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (offset_t k = a.row_ptr[i] + 1; k < a.row_ptr[i + 1]; ++k)
            if (a.col_idx[k - 1] >= a.col_idx[k]) return false;
    return true;
}

#define GIGASPARSE_INSTANTIATE(V, I)                              \
    template void validate(CsrView<V, I>, ValidateOptions);       \
    template bool rows_sorted(CsrView<V, I>);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse
