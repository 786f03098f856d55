// src/direct/analysis/assembly_map.cpp: where every stored entry of A lands in the supernodal panels.
#include <algorithm>

#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {

template <class I>
void build_assembly_map(Symbolic& s, std::span<const std::int64_t> row_ptr, std::span<const I> col_idx,
                        MatrixView view, idx base, std::span<const idx> row_map) {
    // Entry (i, j) read by the view goes to L(r, c), r = max(p_i, p_j), c = min(p_i, p_j) in the final
    // numbering; it is conjugated when it was mirrored from the upper triangle (p_i < p_j), except for the
    // complex symmetric structure (A = Aᵀ). General (LU): row i is row row_map[i] of the matched matrix;
    // an entry above the diagonal goes to U11 in the L panel or, with amap_conj = 1, to the U panel.
    // Entries are bucketed by the supernode of c; each supernode then scatters the positions of its rows
    // once, so every entry is placed in O(1) (no search in the row lists).
    const idx n = s.n, ns = s.nsuper;
    const idx nnz = row_ptr[n] - base;
    s.amap.assign(static_cast<std::size_t>(nnz), -1);
    s.amap_conj.assign(static_cast<std::size_t>(nnz), 0);
    std::vector<idx> rr(static_cast<std::size_t>(nnz)), cc(static_cast<std::size_t>(nnz));
    const bool general = s.structure == Structure::general;
    std::vector<char> upper(general ? static_cast<std::size_t>(nnz) : 0, 0);
    std::vector<idx>& bucket_ptr = s.amap_sn_ptr;  // entries by supernode, kept for the numeric phase
    bucket_ptr.assign(static_cast<std::size_t>(ns + 1), 0);
    for (idx i = 0; i < n; ++i)
        for (idx k = row_ptr[i] - base; k < row_ptr[i + 1] - base; ++k) {
            idx j = static_cast<idx>(col_idx[k]) - base;
            bool used = s.structure == Structure::general || (view == MatrixView::upper ? i <= j : i >= j);
            if (!used) {
                cc[k] = -1;
                continue;
            }
            idx pi = s.iperm[row_map.empty() ? i : row_map[i]], pj = s.iperm[j];
            rr[k] = std::max(pi, pj);
            cc[k] = std::min(pi, pj);
            if (general) upper[k] = pi < pj;  // LU: a row of U (the U panel unless inside the diagonal block)
            else s.amap_conj[k] = pi < pj && s.structure != Structure::symmetric ? 1 : 0;  // complex symmetric: no conjugate
            ++bucket_ptr[s.col_to_sn[cc[k]] + 1];
        }
    for (idx sn = 0; sn < ns; ++sn) bucket_ptr[sn + 1] += bucket_ptr[sn];
    std::vector<idx>& bucket = s.amap_sn_entries;  // increasing k within each supernode
    bucket.assign(static_cast<std::size_t>(bucket_ptr[ns]), 0);
    std::vector<idx> next(bucket_ptr.begin(), bucket_ptr.end() - 1);
    for (idx k = 0; k < nnz; ++k)
        if (cc[k] >= 0) bucket[next[s.col_to_sn[cc[k]]]++] = k;
    std::vector<idx> pos(static_cast<std::size_t>(n), 0), mark(static_cast<std::size_t>(n), -1);
    for (idx sn = 0; sn < ns; ++sn) {
        const idx* rows = s.rows.data() + s.rows_ptr[sn];
        const idx f = s.front_rows(sn), c0 = s.super_ptr[sn];
        for (idx t = 0; t < f; ++t) pos[rows[t]] = t, mark[rows[t]] = sn;
        for (idx q = bucket_ptr[sn]; q < bucket_ptr[sn + 1]; ++q) {
            const idx k = bucket[q], r = rr[k];
            if (mark[r] != sn) throw InvalidStructure("direct: entry outside the symbolic pattern (internal)");
            if (general && upper[k]) {
                // (c, r) with c < r: U11 (upper part of the diagonal block of the L panel) or U12 (the U panel, U12ᵀ).
                const idx il = cc[k] - c0;
                if (pos[r] < s.width(sn)) {
                    s.amap[k] = s.lx_ptr[sn] + pos[r] * f + il;
                } else {
                    s.amap[k] = s.lx_ptr[sn] + il * f + pos[r];
                    s.amap_conj[k] = 1;
                }
                continue;
            }
            s.amap[k] = s.lx_ptr[sn] + (cc[k] - c0) * f + pos[r];
        }
    }
}

template void build_assembly_map<std::int32_t>(Symbolic&, std::span<const std::int64_t>, std::span<const std::int32_t>,
                                               MatrixView, idx, std::span<const idx>);
template void build_assembly_map<std::int64_t>(Symbolic&, std::span<const std::int64_t>, std::span<const std::int64_t>,
                                               MatrixView, idx, std::span<const idx>);

}  // namespace gigasparse::direct
