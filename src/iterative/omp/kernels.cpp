// src/iterative/omp/kernels.cpp: OpenMP SpMV balanced by nonzeros (CSR, BSR) and vector kernels.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "iterative/backend_kernels.hpp"

namespace gigasparse::iterative {

namespace {

// First row of part t when rows are split into `parts` ranges holding about nnz/parts entries each.
std::int64_t balanced_row_begin(std::span<const offset_t> row_ptr, std::int64_t nrows, int t, int parts) {
    if (t == 0) return 0;
    if (t == parts) return nrows;
    if (row_ptr[nrows] == 0) return nrows * t / parts;
    const offset_t target = row_ptr[nrows] * t / parts;
    return std::lower_bound(row_ptr.begin(), row_ptr.begin() + nrows, target) - row_ptr.begin();
}

}  // namespace

template <class V, class I>
void spmv(OmpTag, CsrView<V, I> a, const V* x, V* y, V alpha, V beta) {
#pragma omp parallel if (a.nnz() > omp_min_length)
    {
        const int parts = omp_get_num_threads(), t = omp_get_thread_num();
        const std::int64_t r0 = balanced_row_begin(a.row_ptr, a.nrows, t, parts);
        const std::int64_t r1 = balanced_row_begin(a.row_ptr, a.nrows, t + 1, parts);
        for (std::int64_t i = r0; i < r1; ++i) {
            V sum(0);
            for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) sum += a.values[k] * x[a.col_idx[k]];
            y[i] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[i];
        }
    }
}

namespace {

template <int B, class V, class I>
void bsr_rows(const Bsr<V, I>& a, const V* x, V* y, V alpha, V beta, std::int64_t b0, std::int64_t b1) {
    for (std::int64_t ib = b0; ib < b1; ++ib) {
        V sum[B] = {};
        for (offset_t k = a.row_ptr[ib]; k < a.row_ptr[ib + 1]; ++k) {
            const V* blk = a.values.data() + k * B * B;
            const V* xb = x + static_cast<std::int64_t>(a.col_idx[k]) * B;
            for (int r = 0; r < B; ++r)
                for (int c = 0; c < B; ++c) sum[r] += blk[r * B + c] * xb[c];
        }
        for (int r = 0; r < B; ++r) {
            V& yi = y[ib * B + r];
            yi = beta == V(0) ? alpha * sum[r] : alpha * sum[r] + beta * yi;
        }
    }
}

template <int B, class V, class I>
void bsr_spmv_fixed(const Bsr<V, I>& a, const V* x, V* y, V alpha, V beta) {
#pragma omp parallel if (a.nnzb() * B * B > omp_min_length)
    {
        const int parts = omp_get_num_threads(), t = omp_get_thread_num();
        const std::span<const offset_t> rp(a.row_ptr);
        bsr_rows<B>(a, x, y, alpha, beta, balanced_row_begin(rp, a.nbrows, t, parts), balanced_row_begin(rp, a.nbrows, t + 1, parts));
    }
}

}  // namespace

template <class V, class I>
void bsr_spmv(OmpTag, const Bsr<V, I>& a, const V* x, V* y, V alpha, V beta) {
    switch (a.block) {
        case 1: return bsr_spmv_fixed<1>(a, x, y, alpha, beta);
        case 2: return bsr_spmv_fixed<2>(a, x, y, alpha, beta);
        case 3: return bsr_spmv_fixed<3>(a, x, y, alpha, beta);
        case 4: return bsr_spmv_fixed<4>(a, x, y, alpha, beta);
        default: return bsr_spmv_fixed<5>(a, x, y, alpha, beta);
    }
}

template <class V>
V dot(OmpTag, std::int64_t n, const V* x, const V* y) {
    if constexpr (is_complex_v<V>) {  // xᴴ y, its two parts reduced apart (OpenMP reduces arithmetic types only)
        real_t<V> re = 0, im = 0;
#pragma omp parallel for schedule(static) reduction(+ : re, im) if (n > omp_min_length)
        for (std::int64_t i = 0; i < n; ++i) {
            const V p = std::conj(x[i]) * y[i];
            re += p.real();
            im += p.imag();
        }
        return V(re, im);
    } else {
        V s(0);
#pragma omp parallel for schedule(static) reduction(+ : s) if (n > omp_min_length)
        for (std::int64_t i = 0; i < n; ++i) s += x[i] * y[i];
        return s;
    }
}

template <class V>
V nrm_inf(OmpTag, std::int64_t n, const V* x) {
    using R = real_t<V>;
    R m(0);
    bool nan = false;
#pragma omp parallel for schedule(static) reduction(max : m) reduction(|| : nan) if (n > omp_min_length)
    for (std::int64_t i = 0; i < n; ++i) {
        const R a = std::abs(x[i]);
        m = std::max(m, a);
        nan = nan || std::isnan(a);
    }
    return V(nan ? std::abs(R(NAN)) : m);
}

template <class V>
void axpby(OmpTag, std::int64_t n, V alpha, const V* x, V beta, V* y) {
    if (beta == V(0)) {
#pragma omp parallel for schedule(static) if (n > omp_min_length)
        for (std::int64_t i = 0; i < n; ++i) y[i] = alpha * x[i];
    } else {
#pragma omp parallel for schedule(static) if (n > omp_min_length)
        for (std::int64_t i = 0; i < n; ++i) y[i] = alpha * x[i] + beta * y[i];
    }
}

template <class V>
void pointwise_mult(OmpTag, std::int64_t n, const V* d, const V* x, V* y) {
#pragma omp parallel for schedule(static) if (n > omp_min_length)
    for (std::int64_t i = 0; i < n; ++i) y[i] = d[i] * x[i];
}

template <class V>
bool all_finite(OmpTag, std::int64_t n, const V* x) {
    bool ok = true;
#pragma omp parallel for schedule(static) reduction(&& : ok) if (n > omp_min_length)
    for (std::int64_t i = 0; i < n; ++i) ok = ok && finite_value(x[i]);
    return ok;
}

#define GS_INST_VI(V, I)                                                                 \
    template void spmv<V, I>(OmpTag, CsrView<V, I>, const V*, V*, V, V);                \
    template void bsr_spmv<V, I>(OmpTag, const Bsr<V, I>&, const V*, V*, V, V);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GS_INST_VI)
#undef GS_INST_VI
#define GS_INST_V(V)                                                                 \
    template V dot<V>(OmpTag, std::int64_t, const V*, const V*);                    \
    template V nrm_inf<V>(OmpTag, std::int64_t, const V*);                          \
    template void axpby<V>(OmpTag, std::int64_t, V, const V*, V, V*);               \
    template void pointwise_mult<V>(OmpTag, std::int64_t, const V*, const V*, V*);  \
    template bool all_finite<V>(OmpTag, std::int64_t, const V*);
GIGASPARSE_FOR_EACH_VALUE(GS_INST_V)
#undef GS_INST_V

}  // namespace gigasparse::iterative
