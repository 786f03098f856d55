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
// LU (M = L̃ U, M the matched, scaled and ordered matrix): each supernode's rows are pivoted among its own
// w rows only, so L̃ = Πᵀ L is block lower triangular with diagonal blocks L̃11 = Pᵀ L11 (P: the node's
// pivoting) and U block upper triangular, and Takahashi's equations hold block by block: with R the rows
// below the node's columns J and Z22 = Z(R, R), Z(R, J) = -Z22 L21 L̃11⁻¹, Z(J, R) = -U11⁻¹ U12 Z22 and
// Z(J, J) = U11⁻¹ (L̃11⁻¹ - U12 Z(R, J)), where L̃11⁻¹ = L11⁻¹ P. Z(R, J) and Z(J, J) take the layout of the L
// panels, Z(J, R) that of the U panels transposed (zu(q, j) = Z(c0 + j, r[q]); its rows 0..w repeat Z(J, J)
// transposed, so Z22's upper half is gathered as its lower half is).
#include <algorithm>
#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/solver.hpp>

#include "direct/numeric/dense.hpp"
#include "direct/numeric/numeric.hpp"

namespace gigasparse::direct {

namespace {

// Gathers Z22 = Z(R, R) (m x m) for the rows R = r[w..f) of a node from the ancestors' Z panels (analysis
// order): column R[b] lives in supernode K, whose ascending row list holds every R[a], a >= b; lower(v) is
// Z(R[a], R[b]) from zl, upper the entry at the same place of zu (LU) or lower's op (symmetric structures).
template <class V, class Op>
void gather_z22(const Symbolic& s, const idx* r, idx w, idx m, const std::vector<V>& zl, const std::vector<V>* zu, Op&& op,
                std::vector<V>& z22) {
    z22.resize(static_cast<std::size_t>(m * m));
    for (idx b = 0; b < m; ++b) {
        const idx c = r[w + b], k = s.col_to_sn[c], fk = s.front_rows(k);
        const idx* rk = s.rows.data() + s.rows_ptr[k];
        const std::size_t at = static_cast<std::size_t>(s.lx_ptr[k] + (c - s.super_ptr[k]) * fk);
        idx q = static_cast<idx>(std::lower_bound(rk, rk + fk, c) - rk);
        for (idx a = b; a < m; ++a) {
            while (rk[q] < r[w + a]) ++q;
            z22[a + b * m] = zl[at + q];
            z22[b + a * m] = zu ? (*zu)[at + q] : op(zl[at + q]);
        }
    }
}

}  // namespace

template <class V, class I>
std::vector<V> DirectSolver<V, I>::lu_selected_inverse_panels(std::vector<V>& zu) const {
    const Symbolic& s = *sym_;
    std::vector<V> zl(num_.lx.size());
    zu.assign(num_.lx.size(), V(0));
    auto node = [&](idx sn) {
        thread_local std::vector<V> t, x, z22, z21, u12, y, v1;
        const idx f = s.front_rows(sn), w = s.width(sn), m = f - w, c0 = s.super_ptr[sn];
        const V* panel = num_.lx.data() + s.lx_ptr[sn];   // U11 on and above the diagonal, unit L11 below; L21
        const V* upanel = num_.ux.data() + s.lx_ptr[sn];  // U12ᵀ in rows w..f
        const std::int64_t* pv = num_.piv.data() + c0;    // pivoted position -> the node's local row
        V* zlp = zl.data() + s.lx_ptr[sn];
        V* zup = zu.data() + s.lx_ptr[sn];
        const idx* r = s.rows.data() + s.rows_ptr[sn];
        // L̃11⁻¹ = L11⁻¹ P: column pv[j] of it is column j of L11⁻¹
        t.assign(static_cast<std::size_t>(w * w), V(0));
        for (idx j = 0; j < w; ++j) t[j + j * w] = V(1);
        dense::trsm_general(CblasLeft, CblasLower, CblasNoTrans, CblasUnit, static_cast<int>(w), static_cast<int>(w), panel,
                            static_cast<int>(f), t.data(), static_cast<int>(w));
        v1.resize(static_cast<std::size_t>(w * w));
        for (idx j = 0; j < w; ++j) std::copy(t.begin() + j * w, t.begin() + (j + 1) * w, v1.begin() + pv[j] * w);
        if (m > 0) {
            gather_z22(s, r, w, m, zl, &zu, [](V v) { return v; }, z22);
            // X = L21 L̃11⁻¹ (m x w): L21 L11⁻¹, its columns through P
            t.resize(static_cast<std::size_t>(m * w));
            for (idx j = 0; j < w; ++j) std::copy(panel + j * f + w, panel + (j + 1) * f, t.begin() + j * m);
            dense::trsm_general(CblasRight, CblasLower, CblasNoTrans, CblasUnit, static_cast<int>(m), static_cast<int>(w), panel,
                                static_cast<int>(f), t.data(), static_cast<int>(m));
            x.resize(static_cast<std::size_t>(m * w));
            for (idx j = 0; j < w; ++j) std::copy(t.begin() + j * m, t.begin() + (j + 1) * m, x.begin() + pv[j] * m);
            // Z(R, J) = -Z22 X
            z21.resize(static_cast<std::size_t>(m * w));
            dense::gemm_nn(static_cast<int>(m), static_cast<int>(w), static_cast<int>(m), V(-1), z22.data(), static_cast<int>(m), x.data(),
                           static_cast<int>(m), V(0), z21.data(), static_cast<int>(m));
            for (idx j = 0; j < w; ++j) std::copy(z21.begin() + j * m, z21.begin() + (j + 1) * m, zlp + j * f + w);
            // U12 (w x m) and Y = U11⁻¹ U12; Z(J, R) = -Y Z22, stored transposed in zu's rows w..f
            u12.resize(static_cast<std::size_t>(w * m));
            for (idx b = 0; b < m; ++b)
                for (idx j = 0; j < w; ++j) u12[j + b * w] = upanel[w + b + j * f];
            y = u12;
            dense::trsm_general(CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, static_cast<int>(w), static_cast<int>(m), panel,
                                static_cast<int>(f), y.data(), static_cast<int>(w));
            t.resize(static_cast<std::size_t>(w * m));
            dense::gemm_nn(static_cast<int>(w), static_cast<int>(m), static_cast<int>(m), V(-1), y.data(), static_cast<int>(w), z22.data(),
                           static_cast<int>(m), V(0), t.data(), static_cast<int>(w));
            for (idx b = 0; b < m; ++b)
                for (idx j = 0; j < w; ++j) zup[w + b + j * f] = t[j + b * w];
            // L̃11⁻¹ - U12 Z(R, J)
            dense::gemm_nn(static_cast<int>(w), static_cast<int>(w), static_cast<int>(m), V(-1), u12.data(), static_cast<int>(w), z21.data(),
                           static_cast<int>(m), V(1), v1.data(), static_cast<int>(w));
        }
        // Z(J, J) = U11⁻¹ (...): into zl's rows 0..w, and transposed into zu's
        dense::trsm_general(CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, static_cast<int>(w), static_cast<int>(w), panel,
                            static_cast<int>(f), v1.data(), static_cast<int>(w));
        for (idx j = 0; j < w; ++j)
            for (idx i = 0; i < w; ++i) {
                zlp[i + j * f] = v1[i + j * w];
                zup[j + i * f] = v1[i + j * w];
            }
    };
    for_each_node_root_first(node);
    return zl;
}

template <class V, class I>
template <class F>
void DirectSolver<V, I>::for_each_node_root_first(F&& node) const {
    const Symbolic& s = *sym_;
    const int threads = thread_count();
    if (threads <= 1 || s.subtree_root.size() <= 1) {
        for (idx sn = s.nsuper - 1; sn >= 0; --sn) node(sn);
        return;
    }
    // The nodes above the parallel subtrees first (root first, the BLAS on its threads), then the subtrees side
    // by side, each from its root down (a node reads only its ancestors' Z panels; the BLAS on one thread).
    for (auto it = s.top_nodes.rbegin(); it != s.top_nodes.rend(); ++it) node(*it);
    const dense::OneBlasThread one;
    const idx nsub = static_cast<idx>(s.subtree_root.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (idx q = 0; q < nsub; ++q)
        for (idx k = s.subtree_ptr[q + 1] - 1; k >= s.subtree_ptr[q]; --k) node(s.subtree_nodes[k]);
}

template <class V, class I>
std::vector<V> DirectSolver<V, I>::selected_inverse_panels(std::vector<V>* zu) const {
    if (!factorized_) throw PhaseError("direct: the selected inverse needs a successful factorize");
    no_schur("the selected inverse");
    no_single("the selected inverse");
    if (lu()) {
        std::vector<V> own;
        return lu_selected_inverse_panels(zu ? *zu : own);
    }
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
            gather_z22(s, r, w, m, zx, static_cast<const std::vector<V>*>(nullptr), cj, z22);
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
    for_each_node_root_first(node);
    return zx;
}

template <class V, class I>
std::vector<V> DirectSolver<V, I>::inverse_diagonal() const {
    std::vector<V> zu;
    const std::vector<V> zx = selected_inverse_panels(&zu);
    const Symbolic& s = *sym_;
    std::vector<V> d(static_cast<std::size_t>(s.n));
    if (!lu()) {
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
    // LU: A⁻¹(a, a) is M⁻¹(j, i) with perm[j] = a and i the row of M taken from A's row a (the matching moves
    // it off M's diagonal). It lies on the pattern of L + U when A(a, a) is a stored entry (or fill).
    const std::vector<idx>& iperm = s.iperm;
    std::vector<idx> row_at(static_cast<std::size_t>(s.n));
    for (idx k = 0; k < s.n; ++k) row_at[row_source(k)] = k;
    std::vector<idx> missing;  // original a
    for (idx a = 0; a < s.n; ++a) {
        const idx j = iperm[a], i = row_at[a];
        const idx lo = std::min(i, j), hi = std::max(i, j), k = s.col_to_sn[lo], fk = s.front_rows(k);
        const idx* rk = s.rows.data() + s.rows_ptr[k];
        const idx* q = std::lower_bound(rk, rk + fk, hi);
        if (q == rk + fk || *q != hi) {
            missing.push_back(a);
            continue;
        }
        // Z(j, i): j >= i lower (zl at column i), j < i upper (zu at column j); both at row position of max(i, j)
        const std::size_t at = static_cast<std::size_t>(s.lx_ptr[k] + (lo - s.super_ptr[k]) * fk + (q - rk));
        const V z = j >= i ? zx[at] : zu[at];
        d[static_cast<std::size_t>(a)] = z * static_cast<real_t<V>>(col_factor(a) * row_factor(a));
    }
    // the rest by solves pruned to the elimination tree (M⁻¹(j, i): forward from i's supernode, backward to j's)
    if (missing.empty()) return d;
    const int threads = static_cast<int>(std::min<idx>(thread_count(), static_cast<idx>(missing.size())));
#pragma omp parallel num_threads(threads)
    {
        std::vector<V> y(static_cast<std::size_t>(s.n), V(0));
        std::vector<idx> path;
#pragma omp for schedule(dynamic, 16)
        for (std::size_t k = 0; k < missing.size(); ++k) {
            const idx a = missing[k];
            d[static_cast<std::size_t>(a)] = lu_inverse_entry(s, num_, iperm[a], row_at[a], y.data(), path) *
                                             static_cast<real_t<V>>(col_factor(a) * row_factor(a));
        }
    }
    return d;
}

template <class V, class I>
Csr<V, std::int64_t> DirectSolver<V, I>::selected_inverse() const {
    std::vector<V> zu;
    const std::vector<V> zx = selected_inverse_panels(&zu);
    const Symbolic& s = *sym_;
    const bool herm = structure_ != Structure::symmetric;  // A⁻¹ is Hermitian, or complex symmetric
    Coo<V, std::int64_t> c;
    c.nrows = c.ncols = s.n;
    // M⁻¹(i, j) is A⁻¹(perm[i], row_source(j)), scaled by the column factor of the one and the row factor of the other
    auto add = [&](idx i, idx j, V v) {
        const idx row = s.perm[i], col = row_source(j);
        c.row.push_back(row), c.col.push_back(col), c.val.push_back(v * static_cast<real_t<V>>(col_factor(row) * row_factor(col)));
    };
    for (idx sn = 0; sn < s.nsuper; ++sn) {
        const idx f = s.front_rows(sn), w = s.width(sn), c0 = s.super_ptr[sn];
        const idx* r = s.rows.data() + s.rows_ptr[sn];
        const V* z = zx.data() + s.lx_ptr[sn];
        for (idx j = 0; j < w; ++j) {
            if (lu()) {  // Z(r[i], c0 + j) for every row (the diagonal block whole), Z(c0 + j, r[i]) below it
                for (idx i = 0; i < f; ++i) add(r[i], c0 + j, z[i + j * f]);
                for (idx i = w; i < f; ++i) add(c0 + j, r[i], zu[s.lx_ptr[sn] + i + j * f]);
                continue;
            }
            for (idx i = j; i < f; ++i) {
                const V v = z[i + j * f];
                add(r[i], c0 + j, v);
                if (i != j) add(c0 + j, r[i], herm ? conj_if_complex(v) : v);
            }
        }
    }
    return coo_to_csr(c);
}

#define GIGASPARSE_DIRECT_SELINV(V, I)                                              \
    template std::vector<V> DirectSolver<V, I>::selected_inverse_panels(std::vector<V>*) const; \
    template std::vector<V> DirectSolver<V, I>::inverse_diagonal() const;           \
    template Csr<V, std::int64_t> DirectSolver<V, I>::selected_inverse() const;
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_DIRECT_SELINV)
#undef GIGASPARSE_DIRECT_SELINV

}  // namespace gigasparse::direct
