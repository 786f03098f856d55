// src/direct/analysis/assembly_map.cpp: where every stored entry of A lands in the supernodal panels.
#include <algorithm>

#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {

template <class I>
void build_assembly_map(Symbolic& s, std::span<const std::int64_t> row_ptr, std::span<const I> col_idx,
                        MatrixView view, idx base) {
    // Entry (i, j) read by the view goes to L(r, c), r = max(p_i, p_j), c = min(p_i, p_j) in the final
    // numbering; it is conjugated when it was mirrored from the upper triangle (p_i < p_j).
    const idx n = s.n;
    const idx nnz = row_ptr[n] - base;
    s.amap.assign(static_cast<std::size_t>(nnz), -1);
    s.amap_conj.assign(static_cast<std::size_t>(nnz), 0);
    for (idx i = 0; i < n; ++i)
        for (idx k = row_ptr[i] - base; k < row_ptr[i + 1] - base; ++k) {
            idx j = static_cast<idx>(col_idx[k]) - base;
            bool used = s.structure == Structure::general || (view == MatrixView::upper ? i <= j : i >= j);
            if (!used) continue;
            idx pi = s.iperm[i], pj = s.iperm[j];
            idx r = std::max(pi, pj), c = std::min(pi, pj);
            idx sn = s.col_to_sn[c];
            auto b = s.rows.begin() + s.rows_ptr[sn], e = s.rows.begin() + s.rows_ptr[sn + 1];
            auto it = std::lower_bound(b, e, r);
            if (it == e || *it != r) throw InvalidStructure("direct: entry outside the symbolic pattern (internal)");
            s.amap[k] = s.lx_ptr[sn] + (c - s.super_ptr[sn]) * s.front_rows(sn) + (it - b);
            s.amap_conj[k] = pi < pj ? 1 : 0;
        }
}

template void build_assembly_map<std::int32_t>(Symbolic&, std::span<const std::int64_t>, std::span<const std::int32_t>,
                                               MatrixView, idx);
template void build_assembly_map<std::int64_t>(Symbolic&, std::span<const std::int64_t>, std::span<const std::int64_t>,
                                               MatrixView, idx);

}  // namespace gigasparse::direct
