// src/direct/numeric/omp/lu_front.hpp: partial LU of one front with partial pivoting restricted to its
// fully summed rows, and static pivot perturbation (no delayed pivots).
//
// Layout (per supernode, both f x w with ld f, at Symbolic::lx_ptr): the L panel `a` holds F11 in rows
// 0..w (full square: after the call U11 on and above the diagonal, the unit L11 below it) and F21 → L21
// in rows w..f; the U panel `u` holds F12ᵀ → U12ᵀ in rows w..f (rows 0..w unused). The contribution block
// is full (m x m, ld m): cb -= L21 U12. A pivot is chosen in column k among the rows k..w of the fully
// summed block (the largest magnitude); swapping two of those rows changes no row list, because all
// fully summed rows of a front share its structure. piv[j] is the pre-pivoting local row at position j.
// The matching and scaling of the analysis (matching.cpp) put large entries on the diagonal first, so
// the restricted choice rarely meets a tiny pivot; one with |d| <= tau becomes ±tau and is counted
// (refinement recovers the accuracy); tau = 0 makes it a failure.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include <gigasparse/core/types.hpp>

#include "direct/numeric/dense.hpp"
#include "direct/numeric/omp/small_front.hpp"
#include "direct/numeric/omp/task_pool.hpp"

namespace gigasparse::direct {

struct LuFrontParams {
    std::int64_t block = 64;       // panel width
    double tau = 0;                // absolute perturbation threshold (0: a zero pivot fails)
    std::int64_t small_rows = 64;  // fronts with fewer rows: everything in loops, no BLAS call
};

struct LuFrontResult {
    std::int64_t fail = 0;       // 0, or 1 + the local column of a zero or NaN pivot
    std::int64_t perturbed = 0;  // pivots set to ±tau
};

namespace lu_detail {

using small::abs1;

// Columns [k0, k1) of the front: pivot search over rows [k, w), row swaps over all w columns of `a` and
// the F12ᵀ columns of `u`, L columns and in-block right-looking updates on rows [k, rend).
template <class V>
[[gnu::always_inline]] inline std::int64_t pivot_block(std::int64_t f, std::int64_t w, std::int64_t rend, std::int64_t k0,
                                                       std::int64_t k1, V* a, V* u, std::int64_t* piv, double tau,
                                                       std::int64_t& perturbed) {
    using R = real_t<V>;
    for (std::int64_t k = k0; k < k1; ++k) {
        V* ak = a + k * f;
        std::int64_t p = k;
        double best = abs1(ak[k]);
        for (std::int64_t i = k + 1; i < w; ++i)
            if (const double v = abs1(ak[i]); v > best) best = v, p = i;
        if (p != k) {
            for (std::int64_t c = 0; c < w; ++c) std::swap(a[k + c * f], a[p + c * f]);
            for (std::int64_t i = w; i < f; ++i) std::swap(u[i + k * f], u[i + p * f]);
            std::swap(piv[k], piv[p]);
        }
        V d = ak[k];
        if constexpr (is_complex_v<V>) {
            if (!std::isfinite(d.real()) || !std::isfinite(d.imag())) return k + 1;
        } else {
            if (!std::isfinite(d)) return k + 1;
        }
        if (!(abs1(d) > tau) || d == V(0)) {
            if (tau <= 0) return k + 1;
            d = V(static_cast<R>(std::real(d) >= 0 ? tau : -tau));
            ++perturbed;
            ak[k] = d;
        }
        const V dinv = V(1) / d;
        for (std::int64_t i = k + 1; i < rend; ++i) ak[i] *= dinv;
        for (std::int64_t j = k + 1; j < k1; ++j) {
            V* aj = a + j * f;
            const V t = aj[k];
            if (t == V(0)) continue;
            for (std::int64_t i = k + 1; i < rend; ++i) aj[i] -= ak[i] * t;
        }
    }
    return 0;
}

// Small fronts without BLAS: the trailing fully summed columns (U rows of the block, then the rank-kb
// update), U12ᵀ of the block and the trailing F12ᵀ columns — all for one block [0, w) of the whole front,
// then cb -= L21 U12 (full square).
template <class V>
[[gnu::always_inline]] inline void small_rest(std::int64_t f, std::int64_t w, V* __restrict__ a, V* __restrict__ u,
                                              V* __restrict__ cb) {
    const std::int64_t m = f - w;
    // U12ᵀ = F12ᵀ L11⁻ᵀ: column c of u minus earlier columns times L(c, c').
    for (std::int64_t c = 0; c < w; ++c) {
        V* uc = u + c * f;
        for (std::int64_t c2 = 0; c2 < c; ++c2) {
            const V t = a[c + c2 * f];
            if (t == V(0)) continue;
            const V* u2 = u + c2 * f;
            for (std::int64_t i = w; i < f; ++i) uc[i] -= u2[i] * t;
        }
    }
    // cb(i, j) -= Σ_c L21(i, c) U12(c, j) = Σ_c a[w + i, c] u[w + j, c].
    for (std::int64_t j = 0; j < m; ++j) {
        V* cj = cb + j * m;
        for (std::int64_t c = 0; c < w; ++c) {
            const V t = u[w + j + c * f];
            if (t == V(0)) continue;
            const V* lc = a + w + c * f;
            for (std::int64_t i = 0; i < m; ++i) cj[i] -= lc[i] * t;
        }
    }
}

}  // namespace lu_detail

template <class V>
LuFrontResult lu_front(std::int64_t f, std::int64_t w, V* a, V* u, V* cb, std::int64_t* piv, const LuFrontParams& prm,
                       TaskPool& pool) {
    const std::int64_t m = f - w;
    LuFrontResult res;
    for (std::int64_t j = 0; j < w; ++j) piv[j] = j;
    if (f < prm.small_rows) {
        if (const std::int64_t bad = lu_pivot_block(f, w, f, 0, w, a, u, piv, prm.tau, res.perturbed)) {
            res.fail = bad;
            return res;
        }
        if (m > 0) lu_small_rest(f, w, a, u, cb);
        return res;
    }
    const std::int64_t nb = std::max<std::int64_t>(prm.block, 1);
    constexpr std::int64_t row_chunk = 512, col_tile = 128;
    const int F = static_cast<int>(f);
    for (std::int64_t k0 = 0; k0 < w; k0 += nb) {
        const std::int64_t k1 = std::min(k0 + nb, w), kb = k1 - k0;
        if (const std::int64_t bad = lu_pivot_block(f, w, w, k0, k1, a, u, piv, prm.tau, res.perturbed)) {
            res.fail = bad;
            return res;
        }
        const V* blk = a + k0 + k0 * f;  // L11 (unit lower) and U11 (upper) of the block
        // L21 rows of the block: F21 U11⁻¹ (row chunks), U12ᵀ of the block: F12ᵀ L11⁻ᵀ (row chunks).
        if (m > 0) {
            const std::int64_t nchunks = (m + row_chunk - 1) / row_chunk;
            pool.run(2 * nchunks, [&](std::int64_t t) {
                const std::int64_t r0 = w + (t % nchunks) * row_chunk, rn = std::min(row_chunk, f - r0);
                if (t < nchunks)
                    dense::trsm_general(CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, static_cast<int>(rn),
                                        static_cast<int>(kb), blk, F, a + r0 + k0 * f, F);
                else
                    dense::trsm_general(CblasRight, CblasLower, CblasTrans, CblasUnit, static_cast<int>(rn),
                                        static_cast<int>(kb), blk, F, u + r0 + k0 * f, F);
            });
        }
        if (k1 < w) {
            const std::int64_t nt = w - k1;
            // U rows of the block for the trailing fully summed columns: L11⁻¹ F(blk, k1:w).
            dense::trsm_general(CblasLeft, CblasLower, CblasNoTrans, CblasUnit, static_cast<int>(kb), static_cast<int>(nt),
                                blk, F, a + k0 + k1 * f, F);
            // F(k1:f, k1:w) -= L(k1:f, blk) U(blk, k1:w) and F12ᵀ(:, k1:w) -= U12ᵀ(:, blk) L(k1:w, blk)ᵀ, in tiles.
            const std::int64_t ntiles = (nt + col_tile - 1) / col_tile;
            const std::int64_t utiles = m > 0 ? ntiles : 0;
            pool.run(ntiles + utiles, [&](std::int64_t t) {
                const std::int64_t j0 = (t % ntiles) * col_tile, jn = std::min(col_tile, nt - j0);
                if (t < ntiles)
                    dense::gemm_nn(static_cast<int>(f - k1), static_cast<int>(jn), static_cast<int>(kb), V(-1),
                                   a + k1 + k0 * f, F, a + k0 + (k1 + j0) * f, F, V(1), a + k1 + (k1 + j0) * f, F);
                else
                    dense::gemm_nt(static_cast<int>(m), static_cast<int>(jn), static_cast<int>(kb), V(-1), u + w + k0 * f,
                                   F, a + k1 + j0 + k0 * f, F, V(1), u + w + (k1 + j0) * f, F, false);
            });
        }
    }
    // Contribution block: cb -= L21 U12 = a(w:f, 0:w) u(w:f, 0:w)ᵀ, column tiles.
    if (m > 0) {
        const std::int64_t ntiles = (m + col_tile - 1) / col_tile;
        pool.run(ntiles, [&](std::int64_t t) {
            const std::int64_t j0 = t * col_tile, jn = std::min(col_tile, m - j0);
            dense::gemm_nt(static_cast<int>(m), static_cast<int>(jn), static_cast<int>(w), V(-1), a + w, F, u + w + j0, F,
                           V(1), cb + j0 * m, static_cast<int>(m), false);
        });
    }
    return res;
}

// lu_front with the work below F11 handed to `rest` (the GPU's, FrontOffload::lu_update): the pivots are chosen
// among the fully summed rows and their updates never involve the rows below, so F11 is factored alone on a
// w x w copy (the same pivots and perturbations as lu_front on the whole front), copied back into the L panel's
// top w x w block, then rest(piv) turns rows w.. of the L panel (F21) into L21 and of the U panel (F12ᵀ, still
// in the analysis' row order of F12) into U12ᵀ, and updates cb. Nothing is called after a failed pivot.
template <class V, class Rest>
LuFrontResult lu_front_split(std::int64_t f, std::int64_t w, V* a, std::int64_t* piv, const LuFrontParams& prm, TaskPool& pool, Rest&& rest) {
    thread_local std::vector<V> f11, unused;
    f11.resize(static_cast<std::size_t>(w * w));
    unused.resize(static_cast<std::size_t>(std::max<std::int64_t>(w * w, 1)));  // the U panel of a w x w front: no rows below
    for (std::int64_t j = 0; j < w; ++j) std::copy(a + j * f, a + j * f + w, f11.data() + j * w);
    const LuFrontResult r = lu_front(w, w, f11.data(), unused.data(), static_cast<V*>(nullptr), piv, prm, pool);
    if (r.fail != 0) return r;
    for (std::int64_t j = 0; j < w; ++j) std::copy(f11.data() + j * w, f11.data() + (j + 1) * w, a + j * f);
    if (f > w) rest(static_cast<const std::int64_t*>(piv));
    return r;
}

}  // namespace gigasparse::direct
