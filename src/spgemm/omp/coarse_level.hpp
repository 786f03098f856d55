// src/spgemm/omp/coarse_level.hpp: MAGNUS coarse level: batched outer product of a batch of rows into coarse
// column chunks (histogram -> prefix over rows x chunks -> reorder), then the fine level in each coarse chunk.
#pragma once

#include <algorithm>
#include <cstdint>

#include <gigasparse/core/matrix.hpp>

#include "spgemm/analysis.hpp"
#include "spgemm/omp/accumulators.hpp"
#include "spgemm/omp/fine_level.hpp"
#include "spgemm/omp/workspace.hpp"

namespace gigasparse::spgemm::omp {

// The batch's rows of A as a column-ordered list (the thread-local CSC of Â).
template <class V, class I>
CoarseEntry<V>* gather_columns(CsrView<V, I> a, const std::int64_t* rows, std::int64_t m, Workspace<V>& ws, std::size_t& ne) {
    ne = 0;
    for (std::int64_t r = 0; r < m; ++r) ne += static_cast<std::size_t>(a.row_ptr[rows[r] + 1] - a.row_ptr[rows[r]]);
    CoarseEntry<V>* e = ensure(ws.entries, ne);
    std::size_t t = 0;
    for (std::int64_t r = 0; r < m; ++r)
        for (offset_t p = a.row_ptr[rows[r]]; p < a.row_ptr[rows[r] + 1]; ++p) e[t++] = {static_cast<std::int64_t>(a.col_idx[p]), r, a.values[p]};
    std::sort(e, e + ne, [](const CoarseEntry<V>& x, const CoarseEntry<V>& y) { return x.k < y.k; });
    return e;
}

// Outer product over Â's columns: each needed row of B is read once per batch. Fills tab[r*ncc + chunk]
// with slice ends and writes chunk-local columns (and values) of every product in slice order.
template <bool Numeric, class L, class V, class I>
void coarse_reorder(CsrView<V, I> b, const CoarseEntry<V>* e, std::size_t ne, std::int64_t m, const ChunkParams& P, offset_t total,
                    Workspace<V>& ws, offset_t*& tab_out, L*& col_out, V*& val_out) {
    const std::int64_t ncc = P.coarse_chunks, nt = m * ncc;
    const int cs = P.coarse_shift;
    const std::int64_t cmask = P.coarse_chunk_cols - 1;
    offset_t* tab = ensure(ws.table, static_cast<std::size_t>(nt));
    std::fill(tab, tab + nt, offset_t(0));
    for (std::size_t t = 0; t < ne; ++t)
        for (offset_t q = b.row_ptr[e[t].k]; q < b.row_ptr[e[t].k + 1]; ++q) ++tab[e[t].row * ncc + (static_cast<std::int64_t>(b.col_idx[q]) >> cs)];
    offset_t run = 0;
    for (std::int64_t x = 0; x < nt; ++x) {
        const offset_t n = tab[x];
        tab[x] = run;
        run += n;
    }
    L* col = ensure(ws.template ccol<L>(), static_cast<std::size_t>(total));
    V* val = Numeric ? ensure(ws.cval, static_cast<std::size_t>(total)) : nullptr;
    for (std::size_t t = 0; t < ne; ++t) {
        const V av = e[t].a;
        const std::int64_t rowbase = e[t].row * ncc;
        for (offset_t q = b.row_ptr[e[t].k]; q < b.row_ptr[e[t].k + 1]; ++q) {
            const std::int64_t c = b.col_idx[q];
            const offset_t p = tab[rowbase + (c >> cs)]++;
            col[p] = static_cast<L>(c & cmask);
            if constexpr (Numeric) val[p] = av * b.values[q];
        }
    }
    tab_out = tab;
    col_out = col;
    val_out = val;
}

// One coarse slice (row r, coarse chunk c) of n products: sorted directly when small, else the fine level.
template <bool Numeric, class L, class V, class I>
offset_t coarse_slice(const L* col, const V* val, offset_t begin, offset_t end, std::int64_t base, const Analysis& an,
                      Workspace<V>& ws, I* oc, V* ov) {
    const offset_t n = end - begin;
    auto gen = [&](auto&& f) {
        for (offset_t p = begin; p < end; ++p) f(static_cast<std::int64_t>(col[p]), Numeric ? val[p] : V(0));
    };
    if (n < an.chunk_sort_threshold) {
        if constexpr (Numeric) {
            auto* pr = ensure(ws.pairs, static_cast<std::size_t>(n));
            std::int64_t t = 0;
            gen([&](std::int64_t c, V v) { pr[t++] = {c, v}; });
            return sort_accumulate(pr, n, base, oc, ov);
        } else {
            auto* k = ensure(ws.keys, static_cast<std::size_t>(n));
            std::int64_t t = 0;
            gen([&](std::int64_t c, V) { k[t++] = c; });
            return sort_count(k, n);
        }
    }
    const ChunkParams& P = an.numeric;
    const FineRange r{0, (P.coarse_chunk_cols >> P.fine_shift) - 1, P.fine_shift, base};
    return fine_level<Numeric, L>(gen, n, r, an, ws, oc, ov);
}

// A batch of m coarse rows with `total` products. Symbolic: row_nnz[row] = count. Numeric: writes row `row` of C at row_ptr[row].
template <bool Numeric, class L, class V, class I>
void coarse_batch(CsrView<V, I> a, CsrView<V, I> b, const Analysis& an, const std::int64_t* rows, std::int64_t m, offset_t total,
                  Workspace<V>& ws, offset_t* row_nnz, const offset_t* row_ptr, I* c_col, V* c_val) {
    const ChunkParams& P = an.numeric;
    std::size_t ne = 0;
    const CoarseEntry<V>* e = gather_columns(a, rows, m, ws, ne);
    offset_t* tab = nullptr;
    L* col = nullptr;
    V* val = nullptr;
    coarse_reorder<Numeric, L>(b, e, ne, m, P, total, ws, tab, col, val);
    offset_t begin = 0;
    for (std::int64_t r = 0; r < m; ++r) {
        const std::int64_t row = rows[r];
        I* oc = Numeric ? c_col + row_ptr[row] : nullptr;
        V* ov = Numeric ? c_val + row_ptr[row] : nullptr;
        offset_t w = 0;
        for (std::int64_t c = 0; c < P.coarse_chunks; ++c) {
            const offset_t end = tab[r * P.coarse_chunks + c];
            if (end > begin)
                w += coarse_slice<Numeric, L>(col, val, begin, end, c << P.coarse_shift, an, ws, oc ? oc + w : oc, ov ? ov + w : ov);
            begin = end;
        }
        if constexpr (!Numeric) row_nnz[row] = w;
    }
}

}  // namespace gigasparse::spgemm::omp
