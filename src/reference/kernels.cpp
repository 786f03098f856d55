// src/reference/kernels.cpp: sequential reference SpMV, SpGEMM, add and triangular solve (the oracle).
#include <algorithm>
#include <string>
#include <vector>

#include <gigasparse/core/error.hpp>
#include <gigasparse/reference/kernels.hpp>

namespace gigasparse::reference {

template <class V, class I>
void spmv(CsrView<V, I> a, std::span<const V> x, std::span<V> y, V alpha, V beta) {
    if (static_cast<std::int64_t>(x.size()) != a.ncols || static_cast<std::int64_t>(y.size()) != a.nrows)
        throw DimensionMismatch("spmv: x has " + std::to_string(x.size()) + " entries (need " + std::to_string(a.ncols) + "), y has " +
                                std::to_string(y.size()) + " (need " + std::to_string(a.nrows) + ")");
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        V sum(0);
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) sum += a.values[k] * x[a.col_idx[k]];  // (A x)_i
        y[i] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[i];
    }
}

// Gustavson: row i of C = sum over k in row i of A of A(i,k) * row k of B, gathered in a dense
// accumulator `acc`; `mark[j] == i` flags columns already present in row i, `cols` lists them.
template <class V, class I>
Csr<V, I> spgemm(CsrView<V, I> a, CsrView<V, I> b) {
    if (a.ncols != b.nrows)
        throw DimensionMismatch("spgemm: A is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) + " but B is " +
                                std::to_string(b.nrows) + " x " + std::to_string(b.ncols));
    Csr<V, I> c(a.nrows, b.ncols);
    std::vector<V> acc(static_cast<std::size_t>(b.ncols), V(0));
    std::vector<std::int64_t> mark(static_cast<std::size_t>(b.ncols), -1);
    std::vector<I> cols;
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        cols.clear();
        for (offset_t ka = a.row_ptr[i]; ka < a.row_ptr[i + 1]; ++ka) {
            const std::int64_t k = a.col_idx[ka];
            for (offset_t kb = b.row_ptr[k]; kb < b.row_ptr[k + 1]; ++kb) {
                const I j = b.col_idx[kb];
                if (mark[j] != i) {
                    mark[j] = i;
                    acc[j] = V(0);
                    cols.push_back(j);
                }
                acc[j] += a.values[ka] * b.values[kb];
            }
        }
        std::sort(cols.begin(), cols.end());  // emit row i in column order
        for (const I j : cols) {
            c.col_idx.push_back(j);
            c.values.push_back(acc[j]);
        }
        c.row_ptr[i + 1] = static_cast<offset_t>(c.col_idx.size());
    }
    return c;
}

template <class V, class I>
Csr<V, I> add(CsrView<V, I> a, CsrView<V, I> b, V alpha, V beta) {
    if (a.nrows != b.nrows || a.ncols != b.ncols) throw DimensionMismatch("add: A and B differ in shape");
    Csr<V, I> c(a.nrows, a.ncols);
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        offset_t p = a.row_ptr[i], q = b.row_ptr[i];
        const offset_t pe = a.row_ptr[i + 1], qe = b.row_ptr[i + 1];
        while (p < pe || q < qe) {  // merge of two sorted rows
            const bool take_a = q == qe || (p < pe && a.col_idx[p] <= b.col_idx[q]);
            const bool take_b = p == pe || (q < qe && b.col_idx[q] <= a.col_idx[p]);
            const I j = take_a ? a.col_idx[p] : b.col_idx[q];
            V v(0);
            if (take_a) v += alpha * a.values[p++];
            if (take_b) v += beta * b.values[q++];
            c.col_idx.push_back(j);
            c.values.push_back(v);
        }
        c.row_ptr[i + 1] = static_cast<offset_t>(c.col_idx.size());
    }
    return c;
}

// Forward (lower) or backward (upper) substitution: x_i = (b_i - sum_{j in tri, j != i} T_ij x_j) / T_ii.
template <class V, class I>
std::int64_t triangular_solve(CsrView<V, I> t, Triangle part, std::span<V> x, bool unit_diagonal) {
    if (t.nrows != t.ncols) throw DimensionMismatch("triangular_solve: matrix is not square");
    if (static_cast<std::int64_t>(x.size()) != t.nrows) throw DimensionMismatch("triangular_solve: vector length differs from n");
    const std::int64_t n = t.nrows;
    for (std::int64_t s = 0; s < n; ++s) {
        const std::int64_t i = part == Triangle::lower ? s : n - 1 - s;
        V sum = x[i], diag(0);
        for (offset_t k = t.row_ptr[i]; k < t.row_ptr[i + 1]; ++k) {
            const std::int64_t j = t.col_idx[k];
            if (j == i) diag += t.values[k];
            else if (part == Triangle::lower ? j < i : j > i) sum -= t.values[k] * x[j];
        }
        if (unit_diagonal) {
            x[i] = sum;
        } else {
            if (diag == V(0)) return i;
            x[i] = sum / diag;
        }
    }
    return -1;
}

#define GIGASPARSE_INSTANTIATE(V, I)                                                     \
    template void spmv(CsrView<V, I>, std::span<const V>, std::span<V>, V, V);           \
    template Csr<V, I> spgemm(CsrView<V, I>, CsrView<V, I>);                             \
    template Csr<V, I> add(CsrView<V, I>, CsrView<V, I>, V, V);                          \
    template std::int64_t triangular_solve(CsrView<V, I>, Triangle, std::span<V>, bool);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse::reference
