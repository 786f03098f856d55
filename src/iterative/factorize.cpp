// src/iterative/factorize.cpp: ILU(0) and IC(0) factorizations row by row over a sweep schedule (parallel when it is).
#include <atomic>
#include <cmath>
#include <limits>

#include <gigasparse/iterative/preconditioner.hpp>

namespace gigasparse::iterative {

namespace {

// Position of the diagonal in each (sorted) row, -1 when absent.
template <class V, class I>
std::vector<offset_t> diagonal_positions(const Csr<V, I>& a) {
    std::vector<offset_t> d(static_cast<std::size_t>(a.nrows), -1);
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1] && a.col_idx[k] <= i; ++k)
            if (a.col_idx[k] == i) d[i] = k;
    return d;
}

// Keeps the smallest row that failed.
void record_failure(std::atomic<std::int64_t>& bad, std::int64_t row) {
    std::int64_t cur = bad.load(std::memory_order_relaxed);
    while (row < cur && !bad.compare_exchange_weak(cur, row)) {
    }
}

}  // namespace

template <class V, class I>
std::int64_t ilu0_factorize(Csr<V, I>& lu, const TriangularSolve<V, I>& lower_plan) {
    const auto diag = diagonal_positions(lu);
    std::atomic<std::int64_t> bad{std::numeric_limits<std::int64_t>::max()};
    const offset_t* rp = lu.row_ptr.data();
    const I* col = lu.col_idx.data();
    V* val = lu.values.data();
    lower_plan.for_each_row([&](std::int64_t i) {
        for (offset_t e = rp[i]; e < rp[i + 1] && col[e] < i; ++e) {
            const std::int64_t k = col[e];
            if (diag[k] < 0 || val[diag[k]] == V(0)) {
                record_failure(bad, k);
                return;
            }
            const V l = val[e] / val[diag[k]];  // l_ik = a_ik / u_kk
            val[e] = l;
            offset_t p = e + 1, q = diag[k] + 1;  // merge row i (cols > k) with row k of U (cols > k)
            while (p < rp[i + 1] && q < rp[k + 1]) {
                if (col[p] < col[q]) ++p;
                else if (col[q] < col[p]) ++q;
                else val[p++] -= l * val[q++];  // a_ij -= l_ik u_kj
            }
        }
        if (diag[i] < 0 || val[diag[i]] == V(0)) record_failure(bad, i);
    });
    const std::int64_t b = bad.load();
    return b == std::numeric_limits<std::int64_t>::max() ? -1 : b;
}

template <class V, class I>
std::int64_t ic0_factorize(Csr<V, I>& l, const TriangularSolve<V, I>& lower_plan) {
    const auto diag = diagonal_positions(l);
    std::atomic<std::int64_t> bad{std::numeric_limits<std::int64_t>::max()};
    const offset_t* rp = l.row_ptr.data();
    const I* col = l.col_idx.data();
    V* val = l.values.data();
    lower_plan.for_each_row([&](std::int64_t i) {
        real_t<V> sq(0);
        for (offset_t e = rp[i]; e < rp[i + 1] && col[e] < i; ++e) {
            const std::int64_t k = col[e];
            if (diag[k] < 0 || !(std::real(val[diag[k]]) > 0)) {
                record_failure(bad, k);
                return;
            }
            V s = val[e];
            offset_t p = rp[i], q = rp[k];  // s -= sum_{j<k} l_ij conj(l_kj)
            while (p < e && q < diag[k]) {
                if (col[p] < col[q]) ++p;
                else if (col[q] < col[p]) ++q;
                else s -= val[p++] * conj_if_complex(val[q++]);
            }
            val[e] = s / val[diag[k]];
            sq += std::norm(val[e]);  // |l_ik|²
        }
        // l_ii² = a_ii - sum_j |l_ij|² (a Hermitian matrix's diagonal is real: its imaginary part is not read)
        const real_t<V> d = diag[i] < 0 ? real_t<V>(0) : std::real(val[diag[i]]) - sq;
        if (!(d > 0)) {
            record_failure(bad, i);
            return;
        }
        val[diag[i]] = V(std::sqrt(d));
    });
    const std::int64_t b = bad.load();
    return b == std::numeric_limits<std::int64_t>::max() ? -1 : b;
}

#define GS_INST(V, I)                                                                  \
    template std::int64_t ilu0_factorize<V, I>(Csr<V, I>&, const TriangularSolve<V, I>&); \
    template std::int64_t ic0_factorize<V, I>(Csr<V, I>&, const TriangularSolve<V, I>&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GS_INST)
#undef GS_INST

}  // namespace gigasparse::iterative
