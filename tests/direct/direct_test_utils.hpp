// tests/direct/direct_test_utils.hpp: generators and brute-force oracles for the direct-solver tests.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/matrix.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/direct/symbolic.hpp>

#include "utils/test_utils.hpp"

namespace gigasparse::direct::test {

// Sets the stored diagonal entry of column `col` to `v` (e.g. -1: a negative pivot that makes every
// elimination order fail at that column).
template <class V, class I>
void set_diagonal(Csr<V, I>& a, std::int64_t col, V v) {
    for (offset_t k = a.row_ptr[col]; k < a.row_ptr[col + 1]; ++k)
        if (a.col_idx[k] == col) a.values[k] = v;
}

// Random symmetric pattern with about `per_row` off-diagonal entries per row; values make the
// matrix Hermitian and strictly diagonally dominant (so HPD): full storage, sorted rows.
template <class V, class I>
Csr<V, I> random_hpd(std::int64_t n, double per_row, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> col(0, std::max<std::int64_t>(n - 1, 0));
    std::uniform_real_distribution<double> val(-1.0, 1.0);
    std::vector<std::vector<std::pair<std::int64_t, V>>> rows(static_cast<std::size_t>(n));
    std::int64_t m = static_cast<std::int64_t>(per_row * static_cast<double>(n) / 2);
    for (std::int64_t t = 0; t < m; ++t) {
        std::int64_t i = col(rng), j = col(rng);
        if (i == j) continue;
        V v;
        if constexpr (is_complex_v<V>) v = V(static_cast<real_t<V>>(val(rng)), static_cast<real_t<V>>(val(rng)));
        else v = static_cast<V>(val(rng));
        rows[i].push_back({j, v});
        rows[j].push_back({i, conj_if_complex(v)});
    }
    Csr<V, I> a(n, n);
    a.row_ptr.assign(static_cast<std::size_t>(n + 1), 0);
    for (std::int64_t i = 0; i < n; ++i) {
        auto& r = rows[i];
        std::sort(r.begin(), r.end(), [](auto& x, auto& y) { return x.first < y.first; });
        std::vector<std::pair<std::int64_t, V>> merged;
        for (auto& e : r)
            if (!merged.empty() && merged.back().first == e.first) merged.back().second += e.second;
            else merged.push_back(e);
        double sum = 0;
        for (auto& e : merged) sum += std::abs(e.second);
        merged.push_back({i, V(static_cast<real_t<V>>(sum + 1.0))});
        std::sort(merged.begin(), merged.end(), [](auto& x, auto& y) { return x.first < y.first; });
        for (auto& e : merged) {
            a.col_idx.push_back(static_cast<I>(e.first));
            a.values.push_back(e.second);
        }
        a.row_ptr[i + 1] = static_cast<offset_t>(a.col_idx.size());
    }
    return a;
}

// Random symmetric (herm: Hermitian; else A = Aᵀ, complex symmetric for complex V) indefinite matrix:
// off-diagonal entries as random_hpd, diagonal uniform in [-1, 1] (real when Hermitian), a fraction
// `zero_diag` of the diagonal entries stored as exact zeros. Full storage, sorted rows.
template <class V, class I>
Csr<V, I> random_indefinite(std::int64_t n, double per_row, std::uint64_t seed, bool herm, double zero_diag = 0) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> col(0, std::max<std::int64_t>(n - 1, 0));
    std::uniform_real_distribution<double> val(-1.0, 1.0), u01(0.0, 1.0);
    auto rnd = [&](bool real_only) {
        if constexpr (is_complex_v<V>)
            return real_only ? V(static_cast<real_t<V>>(val(rng))) : V(static_cast<real_t<V>>(val(rng)), static_cast<real_t<V>>(val(rng)));
        else
            return static_cast<V>(val(rng));
    };
    std::vector<std::vector<std::pair<std::int64_t, V>>> rows(static_cast<std::size_t>(n));
    const std::int64_t m = static_cast<std::int64_t>(per_row * static_cast<double>(n) / 2);
    for (std::int64_t t = 0; t < m; ++t) {
        std::int64_t i = col(rng), j = col(rng);
        if (i == j) continue;
        V v = rnd(false);
        rows[i].push_back({j, v});
        rows[j].push_back({i, herm ? conj_if_complex(v) : v});
    }
    for (std::int64_t i = 0; i < n; ++i) rows[i].push_back({i, u01(rng) < zero_diag ? V(0) : rnd(herm)});
    Csr<V, I> a(n, n);
    a.row_ptr.assign(static_cast<std::size_t>(n + 1), 0);
    for (std::int64_t i = 0; i < n; ++i) {
        auto& r = rows[i];
        std::stable_sort(r.begin(), r.end(), [](auto& x, auto& y) { return x.first < y.first; });
        std::vector<std::pair<std::int64_t, V>> merged;
        for (auto& e : r)
            if (!merged.empty() && merged.back().first == e.first) merged.back().second += e.second;
            else merged.push_back(e);
        for (auto& e : merged) {
            a.col_idx.push_back(static_cast<I>(e.first));
            a.values.push_back(e.second);
        }
        a.row_ptr[i + 1] = static_cast<offset_t>(a.col_idx.size());
    }
    return a;
}

// Random n x n with `per_row` entries per row, values in [-1, 1], a fraction of the diagonal left out
// (zero) so the matching has to permute rows; a random permutation diagonal keeps it nonsingular.
template <class V>
Csr<V, std::int32_t> random_general(std::int64_t n, int per_row, std::uint64_t seed, double zero_diag = 0.3) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> col(0, n - 1);
    std::uniform_real_distribution<double> val(-1.0, 1.0), u01(0, 1);
    auto rnd = [&] {
        if constexpr (is_complex_v<V>)
            return V(static_cast<real_t<V>>(val(rng)), static_cast<real_t<V>>(val(rng)));
        else
            return static_cast<V>(val(rng));
    };
    std::vector<std::int64_t> sigma(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) sigma[i] = i;
    std::shuffle(sigma.begin(), sigma.end(), rng);
    Coo<V, std::int32_t> c;
    c.nrows = c.ncols = n;
    for (std::int64_t i = 0; i < n; ++i) {
        if (u01(rng) >= zero_diag) c.row.push_back(static_cast<std::int32_t>(i)), c.col.push_back(static_cast<std::int32_t>(i)), c.val.push_back(rnd());
        c.row.push_back(static_cast<std::int32_t>(i)), c.col.push_back(static_cast<std::int32_t>(sigma[i])), c.val.push_back(V(3) + rnd());
        for (int t = 0; t < per_row; ++t) {
            const std::int64_t j = col(rng);
            c.row.push_back(static_cast<std::int32_t>(i)), c.col.push_back(static_cast<std::int32_t>(j)), c.val.push_back(rnd());
        }
    }
    return coo_to_csr(c);
}

template <class V>
V conj_of(V v) {
    if constexpr (is_complex_v<V>) return std::conj(v);
    else return v;
}

// Normwise backward error of x for op(A) x = b (nrhs columns), op(A) applied entry by entry from the full
// CSR storage of A: max_k ||b - op(A) x||_inf / (||op(A)||_inf ||x||_inf + ||b||_inf).
template <class V, class I>
double backward_error(const Csr<V, I>& a, Transpose op, const std::vector<V>& b, const std::vector<V>& x, std::int64_t nrhs) {
    const std::int64_t n = a.nrows;
    std::vector<V> r(b);
    std::vector<double> rowsum(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t i = 0; i < n; ++i)
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const std::int64_t j = a.col_idx[k];
            const V v = a.values[k];
            for (std::int64_t c = 0; c < nrhs; ++c) {
                if (op == Transpose::none) r[i + c * n] -= v * x[j + c * n];
                else r[j + c * n] -= (op == Transpose::transpose ? v : conj_of(v)) * x[i + c * n];
            }
            rowsum[op == Transpose::none ? i : j] += std::abs(v);
        }
    const double anorm = *std::max_element(rowsum.begin(), rowsum.end());
    double worst = 0;
    for (std::int64_t c = 0; c < nrhs; ++c) {
        double rinf = 0, xinf = 0, binf = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            rinf = std::max(rinf, static_cast<double>(std::abs(r[i + c * n])));
            xinf = std::max(xinf, static_cast<double>(std::abs(x[i + c * n])));
            binf = std::max(binf, static_cast<double>(std::abs(b[i + c * n])));
        }
        worst = std::max(worst, rinf / (anorm * xinf + binf));
    }
    return worst;
}

// Dense column-major copy of a CSR matrix (duplicates summed).
template <class V, class I>
std::vector<V> dense_of(const Csr<V, I>& a) {
    const std::int64_t n = a.nrows;
    std::vector<V> d(static_cast<std::size_t>(n * a.ncols), V(0));
    for (std::int64_t i = 0; i < n; ++i)
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) d[i + static_cast<std::int64_t>(a.col_idx[k]) * n] += a.values[k];
    return d;
}

// The factor is bitwise the same analysed and factored (then refactored with `values`) on 1 and 2 threads
// (fixed tiles); the one-RHS solve of one analysis is bitwise the same on 1, 2 and 3 solve threads and
// goes through the parallel subtree sweeps (factor of at least 2^20 entries); op: the system solved.
template <class I>
void expect_thread_independent(const Csr<double, I>& a, Structure st, const std::vector<double>& values, double be_tol,
                               Transpose op = Transpose::none) {
    std::vector<double> lx, ux;
    for (const char* threads : {"1", "2"}) {
        DirectSolver<double, I> s(st);
        s.set_option("threads", threads);
        s.set_option("ordering", "nd");
        s.analyze(a);
        ASSERT_EQ(s.factorize(a), Status::success);
        ASSERT_EQ(s.refactorize(values), Status::success);
        if (lx.empty()) {
            lx = s.numeric().lx, ux = s.numeric().ux;
        } else {
            EXPECT_TRUE(lx == s.numeric().lx);
            EXPECT_TRUE(ux == s.numeric().ux);
        }
    }
    DirectSolver<double, I> s(st);
    s.set_option("threads", "2");
    s.set_option("ordering", "nd");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    ASSERT_GT(s.symbolic().subtree_root.size(), 1u);
    ASSERT_GE(s.result("factor_entries"), 1 << 20);
    auto b = gigasparse::test::random_vector<double>(a.nrows, 3);
    std::vector<double> first;
    for (const char* threads : {"1", "2", "3"}) {
        SCOPED_TRACE(std::string("solve threads ") + threads);
        s.set_option("threads", threads);
        std::vector<double> x(b.size());
        SolveInfo info = s.solve(b, x, 1, op);
        EXPECT_LE(info.backward_error, be_tol);
        if (first.empty()) first = x;
        EXPECT_TRUE(first == x);
    }
    // Two right-hand sides (BLAS per node over the same subtrees, for every structure and op), without
    // refinement: the same bits for any thread count, and each column the one-right-hand-side solution to rounding.
    s.set_option("refinement_steps", "0");
    std::vector<double> b2 = gigasparse::test::random_vector<double>(2 * a.nrows, 5), x1(b.size()), x2_first;
    std::copy(b.begin(), b.end(), b2.begin());
    s.solve(b, x1, 1, op);
    for (const char* threads : {"1", "2", "3"}) {
        SCOPED_TRACE(std::string("two right-hand sides, threads ") + threads);
        s.set_option("threads", threads);
        std::vector<double> x2(b2.size());
        s.solve(b2, x2, 2, op);
        if (x2_first.empty()) x2_first = x2;
        EXPECT_TRUE(x2_first == x2);
        double diff = 0, norm = 0;
        for (std::size_t i = 0; i < x1.size(); ++i) diff = std::max(diff, std::abs(x1[i] - x2[i])), norm = std::max(norm, std::abs(x1[i]));
        EXPECT_LE(diff, 1e-10 * norm);
    }
}

// Dense boolean symbolic Cholesky of P A Pᵀ (pattern p already permuted): L(i, j) for i >= j.
inline std::vector<std::vector<char>> brute_force_L(const SymmetricPattern& p) {
    const idx n = p.n;
    std::vector<std::vector<char>> l(static_cast<std::size_t>(n), std::vector<char>(static_cast<std::size_t>(n), 0));
    for (idx j = 0; j < n; ++j) {
        l[j][j] = 1;
        for (idx q = p.col_ptr[j]; q < p.col_ptr[j + 1]; ++q) {
            idx i = p.row_idx[q];
            if (i > j) l[i][j] = 1;
        }
    }
    for (idx k = 0; k < n; ++k)  // eliminating k connects all its later neighbours
        for (idx i = k + 1; i < n; ++i)
            if (l[i][k])
                for (idx j = k + 1; j <= i; ++j)
                    if (l[j][k]) l[i][j] = 1;
    return l;
}

// Dense column-major reference Cholesky (the oracle): A = L Lᴴ, returns -1 or the failing column.
template <class V>
idx dense_cholesky(std::vector<V>& a, idx n) {
    for (idx j = 0; j < n; ++j) {
        double d = std::real(a[j + j * n]);
        for (idx k = 0; k < j; ++k) d -= std::norm(a[j + k * n]);
        if (!(d > 0)) return j;
        const real_t<V> ljj = static_cast<real_t<V>>(std::sqrt(d));
        a[j + j * n] = V(ljj);
        for (idx i = j + 1; i < n; ++i) {
            V s = a[i + j * n];
            for (idx k = 0; k < j; ++k) s -= a[i + k * n] * conj_if_complex(a[j + k * n]);
            a[i + j * n] = s / ljj;
        }
        for (idx i = 0; i < j; ++i) a[i + j * n] = V(0);
    }
    return -1;
}

}  // namespace gigasparse::direct::test
