// tests/direct/ldlt_front_test_utils.hpp: dense indefinite fronts for the tests of ldlt_front_split (tests/direct,
// the host's rows below F11) and of the GPU's FrontOffload::ldlt_update (tests/cuda, simulator and device).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "direct/numeric/dense.hpp"
#include "direct/numeric/omp/ldlt_front.hpp"
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

// The host's rows below F11 of a split LDLᵀ (what FrontOffload::ldlt_update computes): W = F21 P L11⁻ᵀ,
// L21 = W D⁻¹, cb -= L21 Wᵀ (lower triangle).
template <class V>
void host_ldlt_rest(std::int64_t f, std::int64_t w, const std::int64_t* piv, const std::int8_t* psize, V* panel, V* cb) {
    const std::int64_t m = f - w;
    std::vector<V> wk(static_cast<std::size_t>(m * w)), l11(static_cast<std::size_t>(w * w), V(0));
    for (std::int64_t j = 0; j < w; ++j)
        for (std::int64_t i = 0; i < m; ++i) wk[i + j * m] = panel[w + i + piv[j] * f];
    for (std::int64_t j = 0; j < w; ++j) {
        l11[j + j * w] = V(1);
        for (std::int64_t i = j + 1 + (psize[j] == 2 ? 1 : 0); i < w; ++i) l11[i + j * w] = panel[i + j * f];
    }
    direct::dense::trsm_unit_right(static_cast<int>(m), static_cast<int>(w), l11.data(), static_cast<int>(w), wk.data(), static_cast<int>(m), true);
    direct::ldlt_solve_d(m, w, wk.data(), m, psize, panel, f, panel + w, f, true);
    for (std::int64_t j = 0; j < m; ++j)
        for (std::int64_t k = 0; k < w; ++k) {
            const V t = wk[j + k * m];
            for (std::int64_t i = j; i < m; ++i) cb[i + j * m] -= panel[w + i + k * f] * t;
        }
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

// One random indefinite front (f x w, seed) factored whole by ldlt_front and split by ldlt_front_split with
// rest(f, w, piv, psize, panel, cb) below F11: the same pivots, 2×2 blocks and perturbations, and the same
// panel and contribution block within tol (relative). Returns the calls of rest (1 with rows below F11, else 0).
template <class V, class Rest>
int expect_split_matches_whole(std::int64_t f, std::int64_t w, std::uint64_t seed, double tol, const direct::LdltFrontParams& lp,
                               direct::TaskPool& pool, Rest&& rest) {
    SCOPED_TRACE("f " + std::to_string(f) + " w " + std::to_string(w) + (sizeof(V) == 4 ? " float" : " double"));
    const std::int64_t m = f - w;
    std::vector<V> p1, c1;
    random_indefinite_front(f, w, seed, p1, c1);
    auto p2 = p1, c2 = c1;
    std::vector<std::int64_t> piv1(static_cast<std::size_t>(w)), piv2(piv1.size());
    std::vector<std::int8_t> ps1(piv1.size()), ps2(piv1.size());
    const auto r1 = direct::ldlt_front(f, w, p1.data(), c1.data(), piv1.data(), ps1.data(), nullptr, lp, pool);
    int calls = 0;
    const auto r2 = direct::ldlt_front_split(f, w, p2.data(), piv2.data(), ps2.data(), nullptr, lp, pool, [&](const std::int64_t* pv, const std::int8_t* ps) {
        ++calls;
        rest(f, w, pv, ps, p2.data(), c2.data());
    });
    EXPECT_EQ(r1.fail, 0);
    EXPECT_EQ(r2.fail, 0);
    EXPECT_EQ(calls, m > 0 ? 1 : 0);
    EXPECT_EQ(r2.perturbed, r1.perturbed);
    EXPECT_EQ(piv2, piv1);
    EXPECT_EQ(ps2, ps1);
    EXPECT_GT(two_by_two_pivots(ps1), 0) << "the fronts are made to need 2x2 pivots";
    EXPECT_LE(lower_rel_diff(p2, p1, f, w), tol);
    if (m > 0) {
        EXPECT_LE(lower_rel_diff(c2, c1, m, m), tol);
    }
    return calls;
}

}  // namespace gigasparse::test
