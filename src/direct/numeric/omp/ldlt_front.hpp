// src/direct/numeric/omp/ldlt_front.hpp: partial LDLᵀ / LDLᴴ of one front with Bunch–Kaufman pivoting
// restricted to its fully summed block, and static pivot perturbation (no delayed pivots).
//
// The symbolic structure stays that of the analysis: a pivot is chosen only among the front's own
// (fully summed) columns, so swapping two of them changes neither the front's row list nor any other
// front. Within a block of `block` columns the kernel runs the Bunch–Kaufman test (α = (1 + √17)/8)
// on that block's rows: a 1×1 pivot on the diagonal, a 1×1 pivot on another diagonal entry of the
// block, or a 2×2 pivot. A 1×1 pivot with |d| ≤ tau becomes ±tau (PARDISO's pivot perturbation;
// iterative refinement in the solve recovers the accuracy) and is counted; with tau = 0 a zero pivot
// is a failure at its column. After each block, the remaining fully summed columns take the block's
// update in one gemm; the contribution block takes the update of all pivot columns at the end, in
// gemm tiles on the front's TaskPool.
//
// Layout after the call (panel f x w, ld f): for a 1×1 pivot at j, panel(j, j) = d_j and rows j+1.. of
// column j hold L (unit diagonal implied); for a 2×2 pivot at (j, j+1), panel(j, j), panel(j+1, j),
// panel(j+1, j+1) hold D's block (L(j+1, j) = 0 is implied) and rows j+2.. hold L. The strict upper
// triangle of the panel's top w x w block is zero. piv[j] is the pre-pivoting local column whose
// variable sits at local position j; psize[j] is 1 (1×1), 2 (first of a 2×2) or 0 (second of a 2×2).
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

struct LdltFrontParams {
    std::int64_t block = 64;    // pivot search block and panel update width
    std::int64_t cb_chunk = 256;  // pivot columns per contribution-block update pass
    std::int64_t small_rows = 64;  // fronts with fewer rows update their contribution block in loops
    double tau = 0;             // absolute perturbation threshold (0: a zero pivot fails)
    bool herm = true;           // LDLᴴ (Hermitian, real D) or LDLᵀ (complex symmetric); the same for real
};

struct LdltFrontResult {
    std::int64_t fail = 0;       // 0, or 1 + the local column of a zero or NaN pivot
    std::int64_t perturbed = 0;  // pivots set to ±tau
};

namespace ldlt_detail {

template <class V>
inline V cj(V x, bool herm) {
    if constexpr (is_complex_v<V>)
        return herm ? std::conj(x) : x;
    else
        return x;
}
using small::abs1;

// Symmetric swap of local indices p < q (neither factored yet) of the front held in lower storage: rows
// p, q of the columns before p (the factored ones and the pivot column), the entries between them (mirrored,
// conjugated for Hermitian), the diagonal, and rows q+1.. of columns p and q.
template <class V>
[[gnu::always_inline]] inline void swap_sym(std::int64_t f, V* a, std::int64_t p, std::int64_t q, bool herm) {
    auto A = [&](std::int64_t i, std::int64_t j) -> V& { return a[i + j * f]; };
    for (std::int64_t c = 0; c < p; ++c) std::swap(A(p, c), A(q, c));  // columns < p: factored, or the pivot column
    std::swap(A(p, p), A(q, q));
    for (std::int64_t c = p + 1; c < q; ++c) {
        V t = A(c, p);
        A(c, p) = cj(A(q, c), herm);
        A(q, c) = cj(t, herm);
    }
    A(q, p) = cj(A(q, p), herm);
    for (std::int64_t i = q + 1; i < f; ++i) std::swap(A(i, p), A(i, q));
}

}  // namespace ldlt_detail

// D times the L columns [c0, c1) of rows [r0, f): out (f - r0) x (c1 - c0), ld f - r0. 2×2 blocks must not be split.
template <class V>
void ldlt_times_d(std::int64_t f, const V* a, const std::int8_t* psize, std::int64_t c0, std::int64_t c1, std::int64_t r0, V* out,
                  bool herm) {
    using ldlt_detail::cj;
    const std::int64_t ld = f - r0;
    for (std::int64_t c = c0; c < c1;) {
        const V* lc = a + c * f;
        V* oc = out + (c - c0) * ld - r0;
        if (psize[c] == 2) {
            const V* lc2 = lc + f;
            V* oc2 = oc + ld;
            const V d11 = lc[c], d21 = lc[c + 1], d22 = lc2[c + 1], d12 = cj(d21, herm);
            for (std::int64_t i = r0; i < f; ++i) {
                const V x = lc[i], y = lc2[i];
                oc[i] = x * d11 + y * d21;
                oc2[i] = x * d12 + y * d22;
            }
            c += 2;
        } else {
            const V d = lc[c];
            for (std::int64_t i = r0; i < f; ++i) oc[i] = lc[i] * d;
            c += 1;
        }
    }
}

namespace ldlt_detail {

// Bunch–Kaufman pivots of block columns [k0, k1) of the front: the block's columns are up to date with
// every earlier column; right-looking updates inside the block, on rows [k0, rend) only (the pivot tests
// read rows [k0, k1) only, so rows from rend on can be finished afterwards by a triangular solve); the
// symmetric swaps cover all f rows. Returns 0 or 1 + the column of a zero / NaN pivot; counts perturbed
// pivots. (Pure loops: compiled per instruction set in
// small_front.cpp.)
template <class V>
[[gnu::always_inline]] inline std::int64_t pivot_block(std::int64_t f, std::int64_t rend, std::int64_t k0, std::int64_t k1, V* a,
                                                       std::int64_t* piv, std::int8_t* psize, double tau, bool herm,
                                                       std::int64_t& perturbed) {
    using R = real_t<V>;
    const double alpha = (1.0 + std::sqrt(17.0)) / 8.0;
    auto A = [&](std::int64_t i, std::int64_t j) -> V& { return a[i + j * f]; };
    thread_local std::vector<V> wrow;
    std::int64_t k = k0;
    while (k < k1) {
        if (herm) A(k, k) = V(static_cast<R>(std::real(A(k, k))));
        const double akk = abs1(A(k, k));
        std::int64_t r = -1;
        double lam = 0;
        for (std::int64_t i = k + 1; i < k1; ++i)
            if (const double v = abs1(A(i, k)); v > lam) lam = v, r = i;
        int size = 1;
        if (!(akk >= alpha * lam) && lam > 0) {
            double sig = 0;
            for (std::int64_t j = k; j < r; ++j) sig = std::max(sig, abs1(A(r, j)));
            for (std::int64_t i = r + 1; i < k1; ++i) sig = std::max(sig, abs1(A(i, r)));
            if (akk * sig >= alpha * lam * lam) {
                size = 1;
            } else if (abs1(A(r, r)) >= alpha * sig) {
                ldlt_detail::swap_sym(f, a, k, r, herm);
                std::swap(piv[k], piv[r]);
            } else {
                size = 2;
                if (r != k + 1) {
                    ldlt_detail::swap_sym(f, a, k + 1, r, herm);
                    std::swap(piv[k + 1], piv[r]);
                }
            }
        }
        if (size == 1) {
            V d = A(k, k);
            if (herm) d = V(static_cast<R>(std::real(d)));
            if (!finite_value(d)) {
                return k + 1;
            }
            if (!(abs1(d) > tau) || d == V(0)) {
                if (tau <= 0) {
                    return k + 1;
                }
                d = V(static_cast<R>(std::real(d) >= 0 ? tau : -tau));
                ++perturbed;
            }
            A(k, k) = d;
            const V dinv = V(1) / d;
            V* lk = a + k * f;
            for (std::int64_t j = k + 1; j < k1; ++j) {
                const V t = dinv * cj(lk[j], herm);
                V* aj = a + j * f;
                for (std::int64_t i = j; i < rend; ++i) aj[i] -= lk[i] * t;
            }
            for (std::int64_t i = k + 1; i < rend; ++i) lk[i] *= dinv;
            psize[k] = 1;
            k += 1;
        } else {
            if (herm) A(k + 1, k + 1) = V(static_cast<R>(std::real(A(k + 1, k + 1))));
            const V d11 = A(k, k), d21 = A(k + 1, k), d22 = A(k + 1, k + 1);
            const V det = d11 * d22 - d21 * cj(d21, herm);
            if (!finite_value(det) || det == V(0)) {
                return k + 1;
            }
            // D⁻¹ = [e11 e12; e21 e22]; L(i, k:k+1) = A(i, k:k+1) D⁻¹.
            const V e11 = d22 / det, e12 = -cj(d21, herm) / det, e21 = -d21 / det, e22 = d11 / det;
            V* l1 = a + k * f;
            V* l2 = l1 + f;
            const std::int64_t nr = k1 - (k + 2);
            wrow.resize(static_cast<std::size_t>(2 * std::max<std::int64_t>(nr, 0)));
            for (std::int64_t j = k + 2; j < k1; ++j) wrow[2 * (j - k - 2)] = l1[j], wrow[2 * (j - k - 2) + 1] = l2[j];
            for (std::int64_t i = k + 2; i < rend; ++i) {
                const V x = l1[i], y = l2[i];
                l1[i] = x * e11 + y * e21;
                l2[i] = x * e12 + y * e22;
            }
            for (std::int64_t j = k + 2; j < k1; ++j) {
                const V t1 = cj(wrow[2 * (j - k - 2)], herm), t2 = cj(wrow[2 * (j - k - 2) + 1], herm);
                V* aj = a + j * f;
                for (std::int64_t i = j; i < rend; ++i) aj[i] -= l1[i] * t1 + l2[i] * t2;
            }
            psize[k] = 2;
            psize[k + 1] = 0;
            k += 2;
        }
    }
    return 0;
}

// cb (m x m, ld m, lower triangle) -= wd op(l21)ᵀ over w columns (wd: m x w, ld m; l21: ld ldl; op: conj
// when herm): the contribution-block update of small fronts in loops, four columns of L at a time.
template <class V>
[[gnu::always_inline]] inline void cb_update_loops(std::int64_t m, std::int64_t w, const V* __restrict__ wd, const V* __restrict__ l21, std::int64_t ldl,
                     V* __restrict__ cb, bool herm) {
    for (std::int64_t j = 0; j < m; ++j) {
        V* __restrict__ cj_ = cb + j * m;
        std::int64_t c = 0;
        for (; c + 4 <= w; c += 4) {
            const V t0 = cj(l21[j + c * ldl], herm), t1 = cj(l21[j + (c + 1) * ldl], herm),
                    t2 = cj(l21[j + (c + 2) * ldl], herm), t3 = cj(l21[j + (c + 3) * ldl], herm);
            const V *w0 = wd + c * m, *w1 = w0 + m, *w2 = w1 + m, *w3 = w2 + m;
            for (std::int64_t i = j; i < m; ++i) cj_[i] -= w0[i] * t0 + w1[i] * t1 + w2[i] * t2 + w3[i] * t3;
        }
        for (; c < w; ++c) {
            const V t = cj(l21[j + c * ldl], herm);
            const V* w0 = wd + c * m;
            for (std::int64_t i = j; i < m; ++i) cj_[i] -= w0[i] * t;
        }
    }
}

}  // namespace ldlt_detail

// out (rows x cols, ld ldo) = w (ld ldw) D⁻¹ for the block diagonal D of pivot columns with sizes psize,
// read from d (the diagonal block of the panel, ld ldd).
template <class V>
void ldlt_solve_d(std::int64_t rows, std::int64_t cols, const V* w, std::int64_t ldw, const std::int8_t* psize, const V* d,
                  std::int64_t ldd, V* out, std::int64_t ldo, bool herm) {
    using ldlt_detail::cj;
    for (std::int64_t c = 0; c < cols;) {
        if (psize[c] == 2) {
            const V d11 = d[c + c * ldd], d21 = d[c + 1 + c * ldd], d22 = d[c + 1 + (c + 1) * ldd], d12 = cj(d21, herm);
            const V det = d11 * d22 - d21 * d12;
            const V e11 = d22 / det, e12 = -d12 / det, e21 = -d21 / det, e22 = d11 / det;
            const V *w1 = w + c * ldw, *w2 = w1 + ldw;
            V *o1 = out + c * ldo, *o2 = o1 + ldo;
            for (std::int64_t i = 0; i < rows; ++i) {
                const V x = w1[i], y = w2[i];
                o1[i] = x * e11 + y * e21;
                o2[i] = x * e12 + y * e22;
            }
            c += 2;
        } else {
            const V dinv = V(1) / d[c + c * ldd];
            const V* w1 = w + c * ldw;
            V* o1 = out + c * ldo;
            for (std::int64_t i = 0; i < rows; ++i) o1[i] = w1[i] * dinv;
            c += 1;
        }
    }
}

template <class V>
LdltFrontResult ldlt_front(std::int64_t f, std::int64_t w, V* a, V* cb, std::int64_t* piv, std::int8_t* psize,
                           const std::uint8_t* pair_next, const LdltFrontParams& prm, TaskPool& pool) {
    const bool herm = prm.herm;
    const std::int64_t m = f - w, nb = std::max<std::int64_t>(prm.block, 2);
    LdltFrontResult res;
    for (std::int64_t j = 0; j < w; ++j) piv[j] = j, psize[j] = 1;
    thread_local std::vector<V> work, l11;
    constexpr std::int64_t row_chunk = 512, col_tile = 128;
    for (std::int64_t k0 = 0, k1 = 0; k0 < w; k0 = k1) {
        // A block never ends between the two columns of an analysis pivot pair (positions k0.. are not
        // yet swapped, so they are still the analysis columns).
        k1 = std::min(k0 + nb, w);
        if (pair_next && k1 < w && pair_next[k1 - 1]) ++k1;
        // Small fronts: the whole block height in the loops. Larger ones: the loops on the diagonal block
        // only, then the rows below in one triangular solve, W = A21 L11⁻ᴴ (= L21 D1), L21 = W D1⁻¹.
        const bool tall = f >= prm.small_rows && f > k1;
        if (const std::int64_t bad = ldlt_pivot_block(f, tall ? k1 : f, k0, k1, a, piv, psize, prm.tau, herm, res.perturbed)) {
            res.fail = bad;
            return res;
        }
        const std::int64_t kb = k1 - k0, ld = f - k1;
        if (tall) {
            // W in the work buffer (rows k1..f), from a copy of the unit L11 (its 2×2 slots hold D).
            l11.assign(static_cast<std::size_t>(kb * kb), V(0));
            for (std::int64_t j = 0; j < kb; ++j) {
                l11[j + j * kb] = V(1);
                for (std::int64_t i = j + 1 + (psize[k0 + j] == 2 ? 1 : 0); i < kb; ++i) l11[i + j * kb] = a[k0 + i + (k0 + j) * f];
            }
            work.resize(static_cast<std::size_t>(ld * kb));
            // Row chunks of a fixed size (the same bits for any pool size), on the front's pool.
            const std::int64_t nchunks = (ld + row_chunk - 1) / row_chunk;
            V* wk = work.data();
            const V* l11p = l11.data();
            pool.run(nchunks, [&](std::int64_t t) {
                const std::int64_t r0 = t * row_chunk, rn = std::min(row_chunk, ld - r0);
                for (std::int64_t j = 0; j < kb; ++j)
                    std::copy(a + k1 + r0 + (k0 + j) * f, a + k1 + r0 + rn + (k0 + j) * f, wk + r0 + j * ld);
                dense::trsm_unit_right(static_cast<int>(rn), static_cast<int>(kb), l11p, static_cast<int>(kb), wk + r0,
                                       static_cast<int>(ld), herm);
                ldlt_solve_d(rn, kb, wk + r0, ld, psize + k0, a + k0 + k0 * f, f, a + k1 + r0 + k0 * f, f, herm);
            });
        } else if (k1 < w) {
            work.resize(static_cast<std::size_t>(ld * kb));
            ldlt_times_d(f, a, psize, k0, k1, k1, work.data(), herm);
        }
        // The rest of the fully summed columns: A(k1:f, k1:w) -= (L D)(k1:f, blk) L(k1:w, blk)ᴴ, lower part (the
        // tiles also write the strict upper part of their diagonal blocks: zeroed at the end).
        if (k1 < w) {
            // Column tiles of the remaining fully summed columns (rows from the tile's first column down).
            const std::int64_t ncols = w - k1, ntiles = (ncols + col_tile - 1) / col_tile;
            const V* wk = work.data();
            pool.run(ntiles, [&](std::int64_t t) {
                const std::int64_t j0 = t * col_tile, jn = std::min(col_tile, ncols - j0);
                dense::gemm_nt(static_cast<int>(ld - j0), static_cast<int>(jn), static_cast<int>(kb), V(-1), wk + j0,
                               static_cast<int>(ld), a + k1 + j0 + k0 * f, static_cast<int>(f), V(1),
                               a + k1 + j0 + (k1 + j0) * f, static_cast<int>(f), herm);
            });
        }
    }
    for (std::int64_t j = 1; j < w; ++j) std::fill(a + j * f, a + j * f + j, V(0));
    // Contribution block: cb -= (L21 D) L21ᴴ, in chunks of pivot columns (never splitting a 2×2 block) and
    // column tiles of the lower triangle (the gemm writes the upper part of the diagonal tiles; only the
    // lower triangle of a contribution block is ever read).
    if (m > 0 && f < prm.small_rows) {  // small front: no BLAS call (small_front.hpp explains why)
        work.resize(static_cast<std::size_t>(m * w));
        ldlt_times_d(f, a, psize, 0, w, w, work.data(), herm);
        ldlt_cb_update(m, w, work.data(), a + w, f, cb, herm);
    } else if (m > 0) {
        const std::int64_t tile = 128;
        const std::int64_t ntiles = (m + tile - 1) / tile;
        for (std::int64_t c0 = 0; c0 < w;) {
            std::int64_t c1 = std::min(c0 + prm.cb_chunk, w);
            if (c1 < w && psize[c1] == 0) ++c1;
            const std::int64_t kc = c1 - c0;
            work.resize(static_cast<std::size_t>(m * kc));
            ldlt_times_d(f, a, psize, c0, c1, w, work.data(), herm);
            const V* wd = work.data();
            pool.run(ntiles, [&](std::int64_t t) {
                const std::int64_t j0 = t * tile, jn = std::min(tile, m - j0);
                dense::gemm_nt(static_cast<int>(m - j0), static_cast<int>(jn), static_cast<int>(kc), V(-1), wd + j0,
                               static_cast<int>(m), a + w + j0 + c0 * f, static_cast<int>(f), V(1), cb + j0 + j0 * m,
                               static_cast<int>(m), herm);
            });
            c0 = c1;
        }
    }
    return res;
}

}  // namespace gigasparse::direct
