// src/spgemm/omp/fine_level.hpp: MAGNUS fine level: histogram -> prefix sum -> reorder into column chunks
// (chunk-local columns) -> per-chunk accumulation (merged small chunks sorted, large chunks dense).
#pragma once

#include <cstdint>

#include "spgemm/analysis.hpp"
#include "spgemm/omp/accumulators.hpp"
#include "spgemm/omp/workspace.hpp"

namespace gigasparse::spgemm::omp {

// A stream `gen(f)` calls f(col, value) for every intermediate product, col relative to the stream's
// column origin; the stream is generated twice (histogram, then reorder), as MAGNUS regenerates it.
struct FineRange {
    std::int64_t chunk_lo = 0, chunk_hi = 0;  // chunks (col >> shift) the stream touches, inclusive
    int shift = 0;
    std::int64_t base = 0;  // output column = base + stream column
};

// Histogram and exclusive prefix sum of the chunk counts: off[j] = first slot of chunk j.
template <class L, class Gen>
L* fine_histogram(Gen&& gen, const FineRange& r, std::vector<L>& offv) {
    const std::int64_t nch = r.chunk_hi - r.chunk_lo + 1;
    L* off = ensure(offv, static_cast<std::size_t>(nch));
    std::fill(off, off + nch, L(0));
    gen([&](std::int64_t c, auto) { ++off[(c >> r.shift) - r.chunk_lo]; });
    L run = 0;
    for (std::int64_t j = 0; j < nch; ++j) {
        const L n = off[j];
        off[j] = run;
        run += n;
    }
    return off;
}

// Reorder: product goes to slot off[chunk]++ with its chunk-local column (off[j] ends as chunk j's end).
template <bool Numeric, class L, class V, class Gen>
void fine_reorder(Gen&& gen, const FineRange& r, L* off, L* col, V* val) {
    const std::int64_t mask = (std::int64_t(1) << r.shift) - 1;
    gen([&](std::int64_t c, V v) {
        const L p = off[(c >> r.shift) - r.chunk_lo]++;
        col[p] = static_cast<L>(c & mask);
        if constexpr (Numeric) val[p] = v;
    });
}

// Accumulates chunk j alone with the dense accumulator (>= chunk_sort_threshold products).
template <bool Numeric, class L, class V, class I>
offset_t fine_dense_chunk(const L* col, const V* val, L begin, L end, std::int64_t len, std::int64_t base, Workspace<V>& ws, I* oc,
                          V* ov) {
    std::uint64_t* bits = ensure(ws.bits, static_cast<std::size_t>(bitmap_words(len)));
    if constexpr (Numeric) {
        V* acc = ensure(ws.acc, static_cast<std::size_t>(len));
        for (L p = begin; p < end; ++p) dense_add(acc, bits, static_cast<std::int64_t>(col[p]), val[p]);
        return dense_emit(acc, bits, len, base, oc, ov);
    } else {
        offset_t n = 0;
        for (L p = begin; p < end; ++p) n += dense_mark(bits, static_cast<std::int64_t>(col[p]));
        dense_clear(bits, len);
        return n;
    }
}

// Sorts chunks j0..j1 together (keys (j - j0) << shift | local column) and compresses them.
template <bool Numeric, class L, class V, class I>
offset_t fine_sort_group(const L* col, const V* val, const L* off, L begin, std::int64_t j0, std::int64_t j1, const FineRange& r,
                         Workspace<V>& ws, I* oc, V* ov) {
    const std::int64_t n = static_cast<std::int64_t>(off[j1] - begin);
    const std::int64_t base = r.base + ((r.chunk_lo + j0) << r.shift);
    std::int64_t t = 0;
    if constexpr (Numeric) {
        auto* p = ensure(ws.pairs, static_cast<std::size_t>(n));
        for (std::int64_t j = j0; j <= j1; ++j)
            for (L q = (j == j0 ? begin : off[j - 1]); q < off[j]; ++q) p[t++] = {((j - j0) << r.shift) | static_cast<std::int64_t>(col[q]), val[q]};
        return sort_accumulate(p, n, base, oc, ov);
    } else {
        auto* k = ensure(ws.keys, static_cast<std::size_t>(n));
        for (std::int64_t j = j0; j <= j1; ++j)
            for (L q = (j == j0 ? begin : off[j - 1]); q < off[j]; ++q) k[t++] = ((j - j0) << r.shift) | static_cast<std::int64_t>(col[q]);
        return sort_count(k, n);
    }
}

// The whole fine level for one stream of n products. Output columns come out sorted (chunk order, then
// sorted or scanned in order inside a chunk). Returns the number of entries written (or counted).
template <bool Numeric, class L, class V, class I, class Gen>
offset_t fine_level(Gen&& gen, offset_t n, const FineRange& r, const Analysis& an, Workspace<V>& ws, I* oc, V* ov) {
    L* off = fine_histogram<L>(gen, r, ws.template off<L>());
    L* col = ensure(ws.template col<L>(), static_cast<std::size_t>(n));
    V* val = Numeric ? ensure(ws.val, static_cast<std::size_t>(n)) : nullptr;
    fine_reorder<Numeric>(gen, r, off, col, val);
    const std::int64_t nch = r.chunk_hi - r.chunk_lo + 1;
    const std::int64_t len = std::int64_t(1) << r.shift;
    offset_t w = 0;
    L begin = 0;
    for (std::int64_t j = 0; j < nch;) {
        const std::int64_t cnt = static_cast<std::int64_t>(off[j] - begin);
        if (cnt == 0) {
            ++j;
            continue;
        }
        if (cnt >= an.chunk_sort_threshold) {
            const std::int64_t base = r.base + ((r.chunk_lo + j) << r.shift);
            w += fine_dense_chunk<Numeric>(col, val, begin, off[j], len, base, ws, oc ? oc + w : oc, ov ? ov + w : ov);
            begin = off[j++];
            continue;
        }
        std::int64_t j1 = j;  // merge following small chunks while the group stays near the sort target
        while (j1 + 1 < nch) {
            const std::int64_t next = static_cast<std::int64_t>(off[j1 + 1] - off[j1]);
            if (next >= an.chunk_sort_threshold || static_cast<std::int64_t>(off[j1] - begin) + next > an.sort_merge_target) break;
            ++j1;
        }
        w += fine_sort_group<Numeric>(col, val, off, begin, j, j1, r, ws, oc ? oc + w : oc, ov ? ov + w : ov);
        begin = off[j1];
        j = j1 + 1;
    }
    return w;
}

}  // namespace gigasparse::spgemm::omp
