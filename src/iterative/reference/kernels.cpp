// src/iterative/reference/kernels.cpp: sequential SpMV (CSR, BSR) and vector kernels, the oracle of the omp backend.
#include <cmath>
#include <complex>

#include "iterative/backend_kernels.hpp"

namespace gigasparse::iterative {

template <class V, class I>
void spmv(ReferenceTag, CsrView<V, I> a, const V* x, V* y, V alpha, V beta) {
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        V sum(0);
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) sum += a.values[k] * x[a.col_idx[k]];  // (A x)_i
        y[i] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[i];
    }
}

template <class V, class I>
void bsr_spmv(ReferenceTag, const Bsr<V, I>& a, const V* x, V* y, V alpha, V beta) {
    const int b = a.block;
    for (std::int64_t ib = 0; ib < a.nbrows; ++ib)
        for (int r = 0; r < b; ++r) {
            V sum(0);
            for (offset_t k = a.row_ptr[ib]; k < a.row_ptr[ib + 1]; ++k) {
                const V* blk = a.values.data() + k * b * b + r * b;  // row r of block k
                const V* xb = x + static_cast<std::int64_t>(a.col_idx[k]) * b;
                for (int c = 0; c < b; ++c) sum += blk[c] * xb[c];
            }
            const std::int64_t i = ib * b + r;
            y[i] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[i];
        }
}

template <class V>
V dot(ReferenceTag, std::int64_t n, const V* x, const V* y) {
    V s(0);
    for (std::int64_t i = 0; i < n; ++i) s += conj_if_complex(x[i]) * y[i];
    return s;
}

template <class V>
V nrm_inf(ReferenceTag, std::int64_t n, const V* x) {
    real_t<V> m(0);
    for (std::int64_t i = 0; i < n; ++i) m = std::abs(x[i]) > m || std::isnan(std::abs(x[i])) ? std::abs(x[i]) : m;
    return V(m);
}

template <class V>
void axpby(ReferenceTag, std::int64_t n, V alpha, const V* x, V beta, V* y) {
    for (std::int64_t i = 0; i < n; ++i) y[i] = beta == V(0) ? alpha * x[i] : alpha * x[i] + beta * y[i];
}

template <class V>
void pointwise_mult(ReferenceTag, std::int64_t n, const V* d, const V* x, V* y) {
    for (std::int64_t i = 0; i < n; ++i) y[i] = d[i] * x[i];
}

template <class V>
bool all_finite(ReferenceTag, std::int64_t n, const V* x) {
    for (std::int64_t i = 0; i < n; ++i)
        if (!finite_value(x[i])) return false;
    return true;
}

#define GS_INST_VI(V, I)                                                                              \
    template void spmv<V, I>(ReferenceTag, CsrView<V, I>, const V*, V*, V, V);                       \
    template void bsr_spmv<V, I>(ReferenceTag, const Bsr<V, I>&, const V*, V*, V, V);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GS_INST_VI)
#undef GS_INST_VI
#define GS_INST_V(V)                                                                \
    template V dot<V>(ReferenceTag, std::int64_t, const V*, const V*);             \
    template V nrm_inf<V>(ReferenceTag, std::int64_t, const V*);                   \
    template void axpby<V>(ReferenceTag, std::int64_t, V, const V*, V, V*);        \
    template void pointwise_mult<V>(ReferenceTag, std::int64_t, const V*, const V*, V*); \
    template bool all_finite<V>(ReferenceTag, std::int64_t, const V*);
GIGASPARSE_FOR_EACH_VALUE(GS_INST_V)
#undef GS_INST_V

}  // namespace gigasparse::iterative
