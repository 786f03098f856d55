// tests/direct/front_split_test_utils.hpp: dense fronts for the tests of lu_front_split (tests/direct: the host's
// rows below F11) and of the GPU's FrontOffload::ldlt_factor / lu_update (tests/cuda, simulator and device): the
// device's or the split front against the host's whole one.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "direct/numeric/dense.hpp"
#include "direct/numeric/omp/lu_front.hpp"
#include "direct/numeric/omp/task_pool.hpp"

namespace gigasparse::test {

// A random symmetric indefinite front of f rows, w fully summed columns: panel (f x w, ld f, lower triangle of
// F11 above F21) and contribution block (m x m, lower). Every third diagonal entry of F11 is zero and the
// others small, so Bunch–Kaufman takes 2×2 pivots.
template <class V>
void random_indefinite_front(std::int64_t f, std::int64_t w, std::uint64_t seed, std::vector<V>& panel, std::vector<V>& cb) {
    const std::int64_t m = f - w;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    panel.assign(static_cast<std::size_t>(f * w), V(0));
    for (std::int64_t j = 0; j < w; ++j)
        for (std::int64_t i = j; i < f; ++i) panel[i + j * f] = static_cast<V>(i == j ? (j % 3 == 0 ? 0.0 : 0.1 * u(rng)) : u(rng));
    cb.assign(static_cast<std::size_t>(std::max<std::int64_t>(m * m, 1)), V(0));
    for (std::int64_t j = 0; j < m; ++j)
        for (std::int64_t i = j; i < m; ++i) cb[i + j * m] = static_cast<V>(u(rng));
}

inline std::int64_t two_by_two_pivots(const std::vector<std::int8_t>& psize) { return std::count(psize.begin(), psize.end(), std::int8_t(2)); }

// max |x - y| / max |y| over the lower triangle of rows x cols (ld rows)
template <class V>
double lower_rel_diff(const std::vector<V>& x, const std::vector<V>& y, std::int64_t rows, std::int64_t cols) {
    double d = 0, s = 0;
    for (std::int64_t j = 0; j < cols; ++j)
        for (std::int64_t i = j; i < rows; ++i) {
            d = std::max(d, std::abs(static_cast<double>(x[i + j * rows]) - static_cast<double>(y[i + j * rows])));
            s = std::max(s, std::abs(static_cast<double>(y[i + j * rows])));
        }
    return d / std::max(s, 1e-300);
}

// A random unsymmetric front (lu_front.hpp's layout): L panel (f x w: F11 full square above F21), U panel (f x w:
// F12ᵀ in rows w..), contribution block (m x m, full). Row pivoting happens (random magnitudes).
template <class V>
void random_lu_front(std::int64_t f, std::int64_t w, std::uint64_t seed, std::vector<V>& panel, std::vector<V>& upanel, std::vector<V>& cb) {
    const std::int64_t m = f - w;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    panel.assign(static_cast<std::size_t>(f * w), V(0));
    upanel.assign(static_cast<std::size_t>(f * w), V(0));
    for (auto& v : panel) v = static_cast<V>(u(rng));
    for (std::int64_t j = 0; j < w; ++j)
        for (std::int64_t i = w; i < f; ++i) upanel[i + j * f] = static_cast<V>(u(rng));
    cb.assign(static_cast<std::size_t>(std::max<std::int64_t>(m * m, 1)), V(0));
    for (std::int64_t k = 0; k < m * m; ++k) cb[static_cast<std::size_t>(k)] = static_cast<V>(u(rng));
}

// The host's rows below F11 of a split LU (what FrontOffload::lu_update computes): L21 = F21 U11⁻¹,
// U12ᵀ = (P F12)ᵀ L11⁻ᵀ, cb -= L21 U12.
template <class V>
void host_lu_rest(std::int64_t f, std::int64_t w, const std::int64_t* piv, V* panel, V* upanel, V* cb) {
    const std::int64_t m = f - w;
    const int mi = static_cast<int>(m), wi = static_cast<int>(w), fi = static_cast<int>(f);
    std::vector<V> wk(static_cast<std::size_t>(m * w));
    for (std::int64_t j = 0; j < w; ++j)
        for (std::int64_t i = 0; i < m; ++i) wk[i + j * m] = upanel[w + i + piv[j] * f];
    direct::dense::trsm_general(CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, mi, wi, panel, fi, panel + w, fi);
    direct::dense::trsm_general(CblasRight, CblasLower, CblasTrans, CblasUnit, mi, wi, panel, fi, wk.data(), mi);
    for (std::int64_t j = 0; j < w; ++j)
        for (std::int64_t i = 0; i < m; ++i) upanel[w + i + j * f] = wk[i + j * m];
    direct::dense::gemm_nt(mi, mi, wi, V(-1), panel + w, fi, upanel + w, fi, V(1), cb, mi, false);
}

// max |x - y| / max |y| over rows [r0, rows) of a rows x cols array (ld rows)
template <class V>
double rows_rel_diff(const std::vector<V>& x, const std::vector<V>& y, std::int64_t rows, std::int64_t cols, std::int64_t r0 = 0) {
    double d = 0, s = 0;
    for (std::int64_t j = 0; j < cols; ++j)
        for (std::int64_t i = r0; i < rows; ++i) {
            d = std::max(d, std::abs(static_cast<double>(x[i + j * rows]) - static_cast<double>(y[i + j * rows])));
            s = std::max(s, std::abs(static_cast<double>(y[i + j * rows])));
        }
    return d / std::max(s, 1e-300);
}

// One random front factored whole by lu_front and split by lu_front_split with rest(f, w, piv, panel, upanel,
// cb): the same pivots and the same L panel, U12ᵀ and contribution block within tol. Returns the calls of rest.
template <class V, class Rest>
int expect_lu_split_matches_whole(std::int64_t f, std::int64_t w, std::uint64_t seed, double tol, const direct::LuFrontParams& lp,
                                  direct::TaskPool& pool, Rest&& rest) {
    SCOPED_TRACE("LU f " + std::to_string(f) + " w " + std::to_string(w) + (sizeof(V) == 4 ? " float" : " double"));
    const std::int64_t m = f - w;
    std::vector<V> p1, u1, c1;
    random_lu_front(f, w, seed, p1, u1, c1);
    auto p2 = p1, u2 = u1, c2 = c1;
    std::vector<std::int64_t> piv1(static_cast<std::size_t>(w)), piv2(piv1.size());
    const auto r1 = direct::lu_front(f, w, p1.data(), u1.data(), c1.data(), piv1.data(), lp, pool);
    int calls = 0;
    const auto r2 = direct::lu_front_split(f, w, p2.data(), piv2.data(), lp, pool, [&](const std::int64_t* pv) {
        ++calls;
        rest(f, w, pv, p2.data(), u2.data(), c2.data());
    });
    EXPECT_EQ(r1.fail, 0);
    EXPECT_EQ(r2.fail, 0);
    EXPECT_EQ(calls, m > 0 ? 1 : 0);
    EXPECT_EQ(r2.perturbed, r1.perturbed);
    EXPECT_EQ(piv2, piv1);
    std::int64_t moved = 0;
    for (std::int64_t j = 0; j < w; ++j) moved += piv1[static_cast<std::size_t>(j)] != j;
    EXPECT_GT(moved, 0) << "no row pivoting";
    EXPECT_LE(rows_rel_diff(p2, p1, f, w), tol);
    if (m > 0) {
        EXPECT_LE(rows_rel_diff(u2, u1, f, w, w), tol);
        EXPECT_LE(rows_rel_diff(c2, c1, m, m), tol);
    }
    return calls;
}

}  // namespace gigasparse::test
