// src/direct/numeric/omp/small_front.hpp: partial Cholesky of a small front in plain loops, no BLAS call;
// the one-right-hand-side sweeps through a supernode in the same style.
//
// Why: most fronts of a sparse factorization are small (lap2d_300 with AMD: 52,029 supernodes for
// 90,000 columns), and each took three BLAS/LAPACK calls (potrf, trsm, herk). For such sizes OpenBLAS
// 0.3.21 spends its time around the arithmetic: every call takes a global mutex for its buffer
// (blas_memory_alloc), packs its operands and dispatches; perf on lap2d_300 (2 threads) put 12% of the
// factorization in pthread_mutex_lock/unlock alone, 5% in the packing copies. Here each pivot column
// and each column of the contribution block takes its updates four columns of L at a time
// (left-looking), in the caller's thread and in cache. small_front.cpp compiles the loops once per
// value type in three instruction sets (AVX-512F, AVX2, baseline x86-64), chosen by CPU features when
// the program loads (not "arch=" clones: those match only CPU models the compiler knows; GCC 12 does
// not know this VM's Xeon, and the baseline clone ran).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>

#include <gigasparse/core/types.hpp>

namespace gigasparse::direct {

// Partial factorization of a front of f rows and w pivot columns: the panel (f x w, ld f, assembled)
// becomes [L11; L21] and the contribution block cb (m x m, ld m, m = f - w, lower triangle assembled)
// becomes cb - L21 L21ᴴ (lower triangle). Returns 0, or 1 + the local column whose pivot was not
// positive (NaN included), as the BLAS path does.
std::int64_t small_front(std::int64_t f, std::int64_t w, float* panel, float* cb);
std::int64_t small_front(std::int64_t f, std::int64_t w, double* panel, double* cb);
std::int64_t small_front(std::int64_t f, std::int64_t w, std::complex<float>* panel, std::complex<float>* cb);
std::int64_t small_front(std::int64_t f, std::int64_t w, std::complex<double>* panel, std::complex<double>* cb);
// LDLᵀ / LDLᴴ loops of ldlt_front.hpp (ldlt_detail::pivot_block, cb_update_loops) in the same clones:
// Bunch–Kaufman pivots of block columns [k0, k1) (returns 0 or 1 + the column of a failed pivot), and the
// contribution-block update of a small front, cb -= wd op(l21)ᵀ.
#define GIGASPARSE_LDLT_LOOPS_DECL(V)                                                                       \
    std::int64_t ldlt_pivot_block(std::int64_t f, std::int64_t rend, std::int64_t k0, std::int64_t k1, V* a,   \
                                  std::int64_t* piv, std::int8_t* psize, double tau, bool herm,              \
                                  std::int64_t& perturbed);                                                  \
    void ldlt_cb_update(std::int64_t m, std::int64_t w, const V* wd, const V* l21, std::int64_t ldl, V* cb, bool herm);
// LU loops of lu_front.hpp (lu_detail::pivot_block, small_rest) in the same clones.
#define GIGASPARSE_LU_LOOPS_DECL(V)                                                                          \
    std::int64_t lu_pivot_block(std::int64_t f, std::int64_t w, std::int64_t rend, std::int64_t k0, std::int64_t k1, \
                                V* a, V* u, std::int64_t* piv, double tau, std::int64_t& perturbed);            \
    void lu_small_rest(std::int64_t f, std::int64_t w, V* a, V* u, V* cb);                                  \
    void lu_backward_one(std::int64_t f, std::int64_t w, const V* panel, const V* upanel, V* z);             \
    void lu_forward_transposed_one(std::int64_t f, std::int64_t w, const V* panel, const V* upanel, V* z, bool conj);
GIGASPARSE_LU_LOOPS_DECL(float)
GIGASPARSE_LU_LOOPS_DECL(double)
GIGASPARSE_LU_LOOPS_DECL(std::complex<float>)
GIGASPARSE_LU_LOOPS_DECL(std::complex<double>)
#undef GIGASPARSE_LU_LOOPS_DECL
GIGASPARSE_LDLT_LOOPS_DECL(float)
GIGASPARSE_LDLT_LOOPS_DECL(double)
GIGASPARSE_LDLT_LOOPS_DECL(std::complex<float>)
GIGASPARSE_LDLT_LOOPS_DECL(std::complex<double>)
#undef GIGASPARSE_LDLT_LOOPS_DECL

// One right-hand side through one supernode's panel (f x w, ld f) on z, its rows gathered (length f):
// forward z[0..w) ← L11⁻¹ z[0..w), z[w..f) -= L21 z[0..w); backward z[0..w) ← L11⁻ᴴ (z[0..w) - L21ᴴ z[w..f)).
// With psize (LDLᵀ, ldlt_front.hpp layout): L11 has a unit diagonal and L(j + 1, j) = 0 below the first
// column of a 2×2 pivot (psize[j] == 2; that position holds D); backward with conj = false uses Lᵀ
// (complex symmetric).
void forward_one(std::int64_t f, std::int64_t w, const float* panel, float* z, const std::int8_t* psize = nullptr);
void forward_one(std::int64_t f, std::int64_t w, const double* panel, double* z, const std::int8_t* psize = nullptr);
void forward_one(std::int64_t f, std::int64_t w, const std::complex<float>* panel, std::complex<float>* z,
                 const std::int8_t* psize = nullptr);
void forward_one(std::int64_t f, std::int64_t w, const std::complex<double>* panel, std::complex<double>* z,
                 const std::int8_t* psize = nullptr);
void backward_one(std::int64_t f, std::int64_t w, const float* panel, float* z, const std::int8_t* psize = nullptr,
                  bool conj = true);
void backward_one(std::int64_t f, std::int64_t w, const double* panel, double* z, const std::int8_t* psize = nullptr,
                  bool conj = true);
void backward_one(std::int64_t f, std::int64_t w, const std::complex<float>* panel, std::complex<float>* z,
                  const std::int8_t* psize = nullptr, bool conj = true);
void backward_one(std::int64_t f, std::int64_t w, const std::complex<double>* panel, std::complex<double>* z,
                  const std::int8_t* psize = nullptr, bool conj = true);

// The same sweeps in column blocks, for one large supernode shared by several threads (multifrontal.cpp,
// sweep_team): the caller splits the w columns into blocks [j0, j1) that keep 2×2 pivots whole, and the
// rows or columns outside a block into chunks, each chunk's arithmetic the same whichever thread runs it.
// forward_triangle: z[j0..j1) ← L(j0..j1, j0..j1)⁻¹ z[j0..j1) (after the blocks before it reached them);
// forward_rows: z[t] -= Σ_{j0 ≤ j < j1} L(t, j) z[j] for rows t in [r0, r1) outside [j0, j1) (conj: conj(L(t, j))).
// backward_triangle: z[j] ← (z[j] - Σ_{i in the block, below j} L(i, j)^H z[i]) / L(j, j)^H for j = j1-1 .. j0
// (op(L) as backward_one); backward_columns: z[j] -= Σ_{r0 ≤ i < r1} L(i, j)^H z[i] for columns j in [c0, c1)
// outside [r0, r1). LU's U11 blocks: lu_upper_triangle, lu_upper_t_triangle (below).
#define GIGASPARSE_SWEEP_BLOCKS_DECL(V)                                                                               \
    void forward_triangle(std::int64_t f, const V* panel, V* z, std::int64_t j0, std::int64_t j1, const std::int8_t* psize); \
    void forward_rows(std::int64_t f, const V* panel, V* z, std::int64_t j0, std::int64_t j1, std::int64_t r0, std::int64_t r1,  \
                      bool conj = false);                                                                               \
    void lu_upper_triangle(std::int64_t f, const V* panel, V* z, std::int64_t j0, std::int64_t j1);                     \
    void lu_upper_t_triangle(std::int64_t f, const V* panel, V* z, std::int64_t j0, std::int64_t j1, bool conj);        \
    void backward_triangle(std::int64_t f, const V* panel, V* z, std::int64_t j0, std::int64_t j1, const std::int8_t* psize,   \
                           bool conj);                                                                                  \
    void backward_columns(std::int64_t f, const V* panel, V* z, std::int64_t c0, std::int64_t c1, std::int64_t r0,          \
                          std::int64_t r1, bool conj);
GIGASPARSE_SWEEP_BLOCKS_DECL(float)
GIGASPARSE_SWEEP_BLOCKS_DECL(double)
GIGASPARSE_SWEEP_BLOCKS_DECL(std::complex<float>)
GIGASPARSE_SWEEP_BLOCKS_DECL(std::complex<double>)
#undef GIGASPARSE_SWEEP_BLOCKS_DECL

// The panel part alone ([L11; L21] from the assembled panel), same return value.
std::int64_t small_panel(std::int64_t f, std::int64_t w, float* panel);
std::int64_t small_panel(std::int64_t f, std::int64_t w, double* panel);
std::int64_t small_panel(std::int64_t f, std::int64_t w, std::complex<float>* panel);
std::int64_t small_panel(std::int64_t f, std::int64_t w, std::complex<double>* panel);

namespace small {

// dst[t] -= Σ_{j<k} src[j ld + t] conj(coef[j ld]) for t in [0, len): a column minus k columns of L times
// the conjugates of one row of L, four columns at a time (the target is loaded and stored once per four).
template <class V>
[[gnu::always_inline]] inline void sub_columns(V* __restrict__ dst, std::int64_t len, const V* __restrict__ src, std::int64_t ld,
                                               std::int64_t k, const V* __restrict__ coef) {
    std::int64_t j = 0;
    for (; j + 4 <= k; j += 4) {
        const V* __restrict__ s0 = src + j * ld;
        const V* __restrict__ s1 = s0 + ld;
        const V* __restrict__ s2 = s1 + ld;
        const V* __restrict__ s3 = s2 + ld;
        const V a0 = conj_if_complex(coef[j * ld]), a1 = conj_if_complex(coef[(j + 1) * ld]), a2 = conj_if_complex(coef[(j + 2) * ld]),
                a3 = conj_if_complex(coef[(j + 3) * ld]);
        for (std::int64_t t = 0; t < len; ++t) dst[t] -= (s0[t] * a0 + s1[t] * a1) + (s2[t] * a2 + s3[t] * a3);
    }
    for (; j < k; ++j) {
        const V* __restrict__ s0 = src + j * ld;
        const V a0 = conj_if_complex(coef[j * ld]);
        for (std::int64_t t = 0; t < len; ++t) dst[t] -= s0[t] * a0;
    }
}

// The loops of small_front, inlined into each of its instruction-set clones: left-looking over the
// pivot columns (column k takes the updates of columns 0..k-1, then its pivot and scaling), then each
// column of the contribution block takes the update of all w columns of L21.
template <class V>
[[gnu::always_inline]] inline std::int64_t panel_loops(std::int64_t f, std::int64_t w, V* __restrict__ panel) {
    using R = real_t<V>;
    for (std::int64_t k = 0; k < w; ++k) {
        V* __restrict__ ck = panel + k * f;
        sub_columns(ck + k, f - k, panel + k, f, k, panel + k);  // A[k:f, k] -= L[k:f, 0:k] L[k, 0:k]ᴴ
        const R d = std::real(ck[k]);
        if (!(d > R(0))) return k + 1;
        const R s = std::sqrt(d), inv = R(1) / s;
        ck[k] = V(s);
        for (std::int64_t i = k + 1; i < f; ++i) ck[i] *= inv;
    }
    return 0;
}

template <class V>
[[gnu::always_inline]] inline std::int64_t front_loops(std::int64_t f, std::int64_t w, V* __restrict__ panel, V* __restrict__ cb) {
    if (const std::int64_t bad = panel_loops(f, w, panel)) return bad;
    const std::int64_t m = f - w;
    for (std::int64_t c = 0; c < m; ++c)  // C[c:m, c] -= L21[c:m, :] L21[c, :]ᴴ
        sub_columns(cb + c * m + c, m - c, panel + w + c, f, w, panel + w + c);
    return 0;
}

// One right-hand side through one supernode (f rows, w columns, panel ld f), on z: the supernode's rows
// gathered (z[i] belongs to row i of the front; z[0..w) are its own columns).
// Forward: z[0..w) ← L11⁻¹ z[0..w) and z[w..f) ← z[w..f) - L21 z[0..w) (column axpys).
template <class V>
[[gnu::always_inline]] inline void forward_loops(std::int64_t f, std::int64_t w, const V* __restrict__ panel, V* __restrict__ z,
                                                 const std::int8_t* __restrict__ psize) {
    for (std::int64_t j = 0; j < w; ++j) {
        const V* __restrict__ col = panel + j * f;
        const V xj = psize ? z[j] : z[j] / col[j];
        z[j] = xj;
        for (std::int64_t i = j + 1 + (psize && psize[j] == 2 ? 1 : 0); i < f; ++i) z[i] -= col[i] * xj;
    }
}

// |x| for real, |re| + |im| for complex (LAPACK's cabs1: pivot searches need no square root).
template <class V>
inline double abs1(V x) {
    if constexpr (is_complex_v<V>)
        return std::abs(static_cast<double>(x.real())) + std::abs(static_cast<double>(x.imag()));
    else
        return std::abs(static_cast<double>(x));
}

// Σ_{i<n} conj(a[i]) b[i], or Σ a[i] b[i] without conj (real types: an OpenMP simd reduction, so the sum
// is vectorized).
template <class V>
[[gnu::always_inline]] inline V dot_conj(std::int64_t n, const V* __restrict__ a, const V* __restrict__ b, bool conj = true) {
    if constexpr (is_complex_v<V>) {
        V acc(0);
        if (conj)
            for (std::int64_t i = 0; i < n; ++i) acc += std::conj(a[i]) * b[i];
        else
            for (std::int64_t i = 0; i < n; ++i) acc += a[i] * b[i];
        return acc;
    } else {
        (void)conj;
        V acc(0);
#pragma omp simd reduction(+ : acc)
        for (std::int64_t i = 0; i < n; ++i) acc += a[i] * b[i];
        return acc;
    }
}

// Backward: z[0..w) ← L11⁻ᴴ (z[0..w) - L21ᴴ z[w..f)) (column dot products, last column first).
template <class V>
[[gnu::always_inline]] inline void backward_loops(std::int64_t f, std::int64_t w, const V* __restrict__ panel, V* __restrict__ z,
                                                  const std::int8_t* __restrict__ psize, bool conj) {
    for (std::int64_t j = w - 1; j >= 0; --j) {
        const V* __restrict__ col = panel + j * f;
        const std::int64_t i0 = j + 1 + (psize && psize[j] == 2 ? 1 : 0);
        const V acc = z[j] - dot_conj(f - i0, col + i0, z + i0, conj);
        z[j] = psize ? acc : acc / conj_if_complex(col[j]);
    }
}

// Column blocks of forward_loops / backward_loops (see forward_triangle and the others above).
template <class V>
[[gnu::always_inline]] inline void forward_triangle_loops(std::int64_t f, const V* __restrict__ panel, V* __restrict__ z, std::int64_t j0,
                                                          std::int64_t j1, const std::int8_t* __restrict__ psize) {
    for (std::int64_t j = j0; j < j1; ++j) {
        const V* __restrict__ col = panel + j * f;
        const V xj = psize ? z[j] : z[j] / col[j];
        z[j] = xj;
        for (std::int64_t i = j + 1 + (psize && psize[j] == 2 ? 1 : 0); i < j1; ++i) z[i] -= col[i] * xj;
    }
}
// (Conj: the conjugates of the panel's entries, for the U12ᵀ rows of an LU factor's Aᴴ sweep.)
template <bool Conj, class V>
[[gnu::always_inline]] inline void forward_rows_loops_t(std::int64_t f, const V* __restrict__ panel, V* __restrict__ z, std::int64_t j0,
                                                        std::int64_t j1, std::int64_t r0, std::int64_t r1) {
    V* __restrict__ dst = z + r0;
    const std::int64_t len = r1 - r0;
    auto e = [](V v) { return Conj ? conj_if_complex(v) : v; };
    std::int64_t j = j0;
    for (; j + 4 <= j1; j += 4) {
        const V* __restrict__ s0 = panel + j * f + r0;
        const V* __restrict__ s1 = s0 + f;
        const V* __restrict__ s2 = s1 + f;
        const V* __restrict__ s3 = s2 + f;
        const V a0 = z[j], a1 = z[j + 1], a2 = z[j + 2], a3 = z[j + 3];
        for (std::int64_t t = 0; t < len; ++t) dst[t] -= (e(s0[t]) * a0 + e(s1[t]) * a1) + (e(s2[t]) * a2 + e(s3[t]) * a3);
    }
    for (; j < j1; ++j) {
        const V* __restrict__ s0 = panel + j * f + r0;
        const V a0 = z[j];
        for (std::int64_t t = 0; t < len; ++t) dst[t] -= e(s0[t]) * a0;
    }
}
template <class V>
[[gnu::always_inline]] inline void forward_rows_loops(std::int64_t f, const V* __restrict__ panel, V* __restrict__ z, std::int64_t j0,
                                                      std::int64_t j1, std::int64_t r0, std::int64_t r1, bool conj = false) {
    if (is_complex_v<V> && conj) forward_rows_loops_t<true>(f, panel, z, j0, j1, r0, r1);
    else forward_rows_loops_t<false>(f, panel, z, j0, j1, r0, r1);
}
template <class V>
[[gnu::always_inline]] inline void backward_triangle_loops(std::int64_t f, const V* __restrict__ panel, V* __restrict__ z, std::int64_t j0,
                                                           std::int64_t j1, const std::int8_t* __restrict__ psize, bool conj) {
    for (std::int64_t j = j1 - 1; j >= j0; --j) {
        const V* __restrict__ col = panel + j * f;
        const std::int64_t i0 = j + 1 + (psize && psize[j] == 2 ? 1 : 0);
        const V acc = z[j] - dot_conj(std::max<std::int64_t>(j1 - i0, 0), col + i0, z + i0, conj);
        z[j] = psize ? acc : acc / conj_if_complex(col[j]);
    }
}
template <class V>
[[gnu::always_inline]] inline void backward_columns_loops(std::int64_t f, const V* __restrict__ panel, V* __restrict__ z, std::int64_t c0,
                                                          std::int64_t c1, std::int64_t r0, std::int64_t r1, bool conj) {
    for (std::int64_t j = c0; j < c1; ++j) z[j] -= dot_conj(r1 - r0, panel + j * f + r0, z + r0, conj);
}

// LU, column blocks of U11 (the upper triangle of the panel, non-unit) for a team node (multifrontal.cpp):
// lu_upper_triangle: z[c] ← z[c] / U(c, c), then z[j0..c) -= U(j0..c, c) z[c], for c = j1-1 .. j0 (A x = b);
// lu_upper_t_triangle: z[j] ← (z[j] - Σ_{j0 ≤ i < j} op(U(i, j)) z[i]) / op(U(j, j)) for j = j0 .. j1-1 (op(A) x = b,
// op = conj for Aᴴ). The rows above a block take its columns through forward_rows, the columns after it through
// backward_columns.
template <class V>
[[gnu::always_inline]] inline void lu_upper_triangle_loops(std::int64_t f, const V* __restrict__ panel, V* __restrict__ z, std::int64_t j0,
                                                           std::int64_t j1) {
    for (std::int64_t c = j1 - 1; c >= j0; --c) {
        const V* __restrict__ col = panel + c * f;
        const V xc = z[c] / col[c];
        z[c] = xc;
        for (std::int64_t i = j0; i < c; ++i) z[i] -= col[i] * xc;
    }
}
template <class V>
[[gnu::always_inline]] inline void lu_upper_t_triangle_loops(std::int64_t f, const V* __restrict__ panel, V* __restrict__ z, std::int64_t j0,
                                                             std::int64_t j1, bool conj) {
    for (std::int64_t j = j0; j < j1; ++j) {
        const V* __restrict__ col = panel + j * f;
        const V acc = z[j] - dot_conj(j - j0, col + j0, z + j0, conj);
        z[j] = acc / (conj ? conj_if_complex(col[j]) : col[j]);
    }
}

// LU backward through one supernode on z (rows gathered; z[0..w) in pivoted order, z[w..f) the solution
// of later columns): z[0..w) ← U11⁻¹ (z[0..w) - U12 z[w..f)), U12ᵀ in the U panel's rows w..f.
template <class V>
[[gnu::always_inline]] inline void lu_backward_loops(std::int64_t f, std::int64_t w, const V* __restrict__ panel,
                                                     const V* __restrict__ upanel, V* __restrict__ z) {
    for (std::int64_t j = 0; j < w; ++j) z[j] -= dot_conj(f - w, upanel + j * f + w, z + w, false);
    for (std::int64_t c = w - 1; c >= 0; --c) {
        const V* __restrict__ col = panel + c * f;
        const V xc = z[c] / col[c];
        z[c] = xc;
        for (std::int64_t j = 0; j < c; ++j) z[j] -= col[j] * xc;
    }
}

// LU, transposed systems, forward through one supernode on z (rows gathered, z[w..f) zero on entry):
// z[0..w) ← U11⁻ᵀ z[0..w) (U11 upper, non-unit, in the top of the L panel; column dot products), then
// z[w..f) -= U12ᵀ z[0..w) (U12ᵀ in the U panel's rows w..f; column axpys); conj: Uᴴ.
template <class V>
[[gnu::always_inline]] inline void lu_forward_transposed_loops(std::int64_t f, std::int64_t w, const V* __restrict__ panel,
                                                               const V* __restrict__ upanel, V* __restrict__ z, bool conj) {
    for (std::int64_t j = 0; j < w; ++j) {
        const V* __restrict__ col = panel + j * f;
        const V acc = z[j] - dot_conj(j, col, z, conj);
        z[j] = acc / (conj ? conj_if_complex(col[j]) : col[j]);
    }
    for (std::int64_t j = 0; j < w; ++j) {
        const V* __restrict__ ucol = upanel + j * f;
        const V t = z[j];
        if (conj)
            for (std::int64_t i = w; i < f; ++i) z[i] -= conj_if_complex(ucol[i]) * t;
        else
            for (std::int64_t i = w; i < f; ++i) z[i] -= ucol[i] * t;
    }
}

}  // namespace small

}  // namespace gigasparse::direct
