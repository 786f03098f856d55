// src/direct/solve/selected_inverse.cpp: selected inversion — the entries of A⁻¹ on the pattern of the
// factor (Takahashi's equations, supernode by supernode from the root), and the diagonal of A⁻¹.
//
// With A = L D Lᴴ (D = I for Cholesky; Lᵀ for complex symmetric) and Z = A⁻¹, Z L = L⁻ᴴ D⁻¹ is block upper
// triangular; for a supernode with panel [L11; L21] (rows R below its own columns) that gives Z21 = -Z22 U and
// Z11 = (L11 D1 L11ᴴ)⁻¹ - Z21ᴴ U with U = L21 L11⁻¹, where Z22 = Z(R, R) lies on the pattern of the
// ancestors' panels (R is a clique of the filled graph). LDLᵀ pivots inside the supernode (P: its pivoting),
// so L11 is P L11' and U = L21 L11'⁻¹ P, Z11 = Pᵀ (L11' D1 L11'ᴴ)⁻¹ P - Z21ᴴ U: Z stays in the analysis order,
// where the rows of the descendants' panels point. The supernodes are visited root first, each gathers Z22
// from the Z panels already computed, and the Z panels take the layout of the L panels (f x w, ld f).
#include <algorithm>
#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/solver.hpp>

#include "direct/numeric/dense.hpp"

namespace gigasparse::direct {

template <class V, class I>
std::vector<V> DirectSolver<V, I>::selected_inverse_panels() const {
    if (!factorized_) throw PhaseError("direct: the selected inverse needs a successful factorize");
    if (lu()) throw NotSupported("direct: selected inversion is implemented for LLᴴ and LDLᵀ/LDLᴴ factorizations, not LU");
    no_schur("the selected inverse");
    no_single("the selected inverse");
    const Symbolic& s = *sym_;
    const bool herm = structure_ != Structure::symmetric;  // complex symmetric: transposes, no conjugates
    auto cj = [herm](V v) { return herm ? conj_if_complex(v) : v; };
    // op(X) = Xᴴ (Xᵀ for complex symmetric) of an r x c column-major block, into out (c x r)
    auto op = [&](const V* x, idx r, idx c, std::vector<V>& out) {
        out.resize(static_cast<std::size_t>(r * c));
        for (idx j = 0; j < c; ++j)
            for (idx i = 0; i < r; ++i) out[j + i * c] = cj(x[i + j * r]);
    };
    std::vector<V> zx(num_.lx.size());
    auto node = [&](idx sn) {
        thread_local std::vector<V> l11, t, dt, core, ot, u, wb, z22, z21, oz, y;
        const idx f = s.front_rows(sn), w = s.width(sn), m = f - w, c0 = s.super_ptr[sn];
        const V* panel = num_.lx.data() + s.lx_ptr[sn];
        V* z = zx.data() + s.lx_ptr[sn];
        const idx* r = s.rows.data() + s.rows_ptr[sn];
        const std::int64_t* pv = ldlt() ? num_.piv.data() + c0 : nullptr;        // pivoted position -> local variable
        const std::int8_t* ps = ldlt() ? num_.pivot_size.data() + c0 : nullptr;  // 1, 2 (first of a 2×2), 0
        auto at = [&](idx j) { return pv ? static_cast<idx>(pv[j]) : j; };
        // L11 (w x w; LDLᵀ: unit, and L(j + 1, j) = 0 under the first column of a 2×2 pivot, where D is stored)
        l11.assign(static_cast<std::size_t>(w * w), V(0));
        for (idx j = 0; j < w; ++j) {
            for (idx i = j; i < w; ++i) l11[i + j * w] = panel[i + j * f];
            if (ps) {
                l11[j + j * w] = V(1);
                if (ps[j] == 2) l11[j + 1 + j * w] = V(0);
            }
        }
        // T = L11⁻¹, D⁻¹ T (LLᴴ: D = I), core = op(T) D⁻¹ T = (L11 D1 op(L11))⁻¹ in pivoted order
        t.assign(static_cast<std::size_t>(w * w), V(0));
        for (idx j = 0; j < w; ++j) t[j + j * w] = V(1);
        dense::trsm_general(CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, static_cast<int>(w), static_cast<int>(w), l11.data(),
                            static_cast<int>(w), t.data(), static_cast<int>(w));
        dt = t;
        for (idx j = 0; ps && j < w;) {
            if (ps[j] == 2) {
                const V d11 = panel[j + j * f], d21 = panel[j + 1 + j * f], d22 = panel[j + 1 + (j + 1) * f];
                const V d12 = cj(d21), det = d11 * d22 - d21 * d12;
                for (idx c = 0; c < w; ++c) {
                    const V b1 = dt[j + c * w], b2 = dt[j + 1 + c * w];
                    dt[j + c * w] = (d22 * b1 - d12 * b2) / det;
                    dt[j + 1 + c * w] = (d11 * b2 - d21 * b1) / det;
                }
                j += 2;
            } else {
                for (idx c = 0; c < w; ++c) dt[j + c * w] /= panel[j + j * f];
                j += 1;
            }
        }
        op(t.data(), w, w, ot);
        core.resize(static_cast<std::size_t>(w * w));
        dense::gemm_nn(static_cast<int>(w), static_cast<int>(w), static_cast<int>(w), V(1), ot.data(), static_cast<int>(w), dt.data(),
                       static_cast<int>(w), V(0), core.data(), static_cast<int>(w));
        y.assign(static_cast<std::size_t>(w * w), V(0));  // op(Z21) U, analysis order
        if (m > 0) {
            // U = L21 L11⁻¹, its columns taken back to the analysis order of the node's variables
            wb.resize(static_cast<std::size_t>(m * w));
            for (idx j = 0; j < w; ++j) std::copy(panel + j * f + w, panel + (j + 1) * f, wb.begin() + j * m);
            dense::trsm_general(CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, static_cast<int>(m), static_cast<int>(w), l11.data(),
                                static_cast<int>(w), wb.data(), static_cast<int>(m));
            u.resize(static_cast<std::size_t>(m * w));
            for (idx j = 0; j < w; ++j) std::copy(wb.begin() + j * m, wb.begin() + (j + 1) * m, u.begin() + at(j) * m);
            // Z22 = Z(R, R), both triangles, from the ancestors' Z panels (analysis order): column R[b] lives in
            // supernode K, whose ascending row list holds every R[a], a >= b.
            z22.resize(static_cast<std::size_t>(m * m));
            for (idx b = 0; b < m; ++b) {
                const idx c = r[w + b], k = s.col_to_sn[c], fk = s.front_rows(k);
                const idx* rk = s.rows.data() + s.rows_ptr[k];
                const V* zk = zx.data() + s.lx_ptr[k] + (c - s.super_ptr[k]) * fk;
                idx q = static_cast<idx>(std::lower_bound(rk, rk + fk, c) - rk);
                for (idx a = b; a < m; ++a) {
                    while (rk[q] < r[w + a]) ++q;
                    const V v = zk[q];
                    z22[a + b * m] = v;
                    z22[b + a * m] = cj(v);
                }
            }
            // Z21 = -Z22 U, into the Z panel's rows w..f; y = op(Z21) U
            z21.resize(static_cast<std::size_t>(m * w));
            dense::gemm_nn(static_cast<int>(m), static_cast<int>(w), static_cast<int>(m), V(-1), z22.data(), static_cast<int>(m), u.data(),
                           static_cast<int>(m), V(0), z21.data(), static_cast<int>(m));
            for (idx j = 0; j < w; ++j) std::copy(z21.begin() + j * m, z21.begin() + (j + 1) * m, z + j * f + w);
            op(z21.data(), m, w, oz);
            dense::gemm_nn(static_cast<int>(w), static_cast<int>(w), static_cast<int>(m), V(1), oz.data(), static_cast<int>(w), u.data(),
                           static_cast<int>(m), V(0), y.data(), static_cast<int>(w));
        }
        // Z11 = Pᵀ core P - op(Z21) U, in the analysis order of the node's variables
        for (idx j = 0; j < w; ++j)
            for (idx i = 0; i < w; ++i) z[at(i) + at(j) * f] = core[i + j * w] - y[at(i) + at(j) * w];
    };
    const int threads = thread_count();
    if (threads <= 1 || s.subtree_root.size() <= 1) {
        for (idx sn = s.nsuper - 1; sn >= 0; --sn) node(sn);
        return zx;
    }
    // The nodes above the parallel subtrees first (root first, the BLAS on its threads), then the subtrees side
    // by side, each from its root down (a node reads only its ancestors' Z panels; the BLAS on one thread).
    for (auto it = s.top_nodes.rbegin(); it != s.top_nodes.rend(); ++it) node(*it);
    const int blas_threads = openblas_get_num_threads();
    openblas_set_num_threads(1);
    const idx nsub = static_cast<idx>(s.subtree_root.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (idx q = 0; q < nsub; ++q)
        for (idx k = s.subtree_ptr[q + 1] - 1; k >= s.subtree_ptr[q]; --k) node(s.subtree_nodes[k]);
    openblas_set_num_threads(blas_threads);
    return zx;
}

template <class V, class I>
std::vector<V> DirectSolver<V, I>::inverse_diagonal() const {
    const std::vector<V> zx = selected_inverse_panels();
    const Symbolic& s = *sym_;
    std::vector<V> d(static_cast<std::size_t>(s.n));
    for (idx sn = 0; sn < s.nsuper; ++sn) {
        const idx f = s.front_rows(sn), c0 = s.super_ptr[sn];
        for (idx j = 0; j < s.width(sn); ++j) {
            const idx c = s.perm[c0 + j];  // original variable
            const double sc = scale_.empty() ? 1.0 : scale_[c] * scale_[c];
            d[static_cast<std::size_t>(c)] = zx[s.lx_ptr[sn] + j * f + j] * static_cast<real_t<V>>(sc);
        }
    }
    return d;
}

template <class V, class I>
Csr<V, std::int64_t> DirectSolver<V, I>::selected_inverse() const {
    const std::vector<V> zx = selected_inverse_panels();
    const Symbolic& s = *sym_;
    const bool herm = structure_ != Structure::symmetric;  // A⁻¹ is Hermitian, or complex symmetric
    Coo<V, std::int64_t> c;
    c.nrows = c.ncols = s.n;
    auto scaled = [&](idx i, idx j, V v) {
        return scale_.empty() ? v : v * static_cast<real_t<V>>(scale_[i] * scale_[j]);
    };
    for (idx sn = 0; sn < s.nsuper; ++sn) {
        const idx f = s.front_rows(sn), w = s.width(sn), c0 = s.super_ptr[sn];
        const idx* r = s.rows.data() + s.rows_ptr[sn];
        for (idx j = 0; j < w; ++j) {
            const idx col = s.perm[c0 + j];
            for (idx i = j; i < f; ++i) {
                const idx row = s.perm[r[i]];
                const V v = scaled(row, col, zx[s.lx_ptr[sn] + j * f + i]);
                c.row.push_back(row), c.col.push_back(col), c.val.push_back(v);
                if (i != j) c.row.push_back(col), c.col.push_back(row), c.val.push_back(herm ? conj_if_complex(v) : v);
            }
        }
    }
    return coo_to_csr(c);
}

#define GIGASPARSE_DIRECT_SELINV(V, I)                                              \
    template std::vector<V> DirectSolver<V, I>::selected_inverse_panels() const;    \
    template std::vector<V> DirectSolver<V, I>::inverse_diagonal() const;           \
    template Csr<V, std::int64_t> DirectSolver<V, I>::selected_inverse() const;
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_DIRECT_SELINV)
#undef GIGASPARSE_DIRECT_SELINV

}  // namespace gigasparse::direct
