// tests/spgemm_cuda_host/gmagnus_emulation.hpp: sequential host emulation of the gMAGNUS CUDA pipeline built from gmagnus_math.hpp.
//
// Each step follows the corresponding kernel of src/spgemm/cuda/ block by block and thread by thread
// (flattened partitions, per-block binary search, excess handling, warp-private histograms,
// heavy-first chunk order, double buffering, binned hash / dense accumulation), with atomics
// replaced by plain updates. It checks the index arithmetic without a GPU; a CPU reference then
// checks the product.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gigasparse/core/matrix.hpp>

#include "spgemm/cuda/gmagnus_math.hpp"

namespace gigasparse::test::gmagnus_emu {

namespace gm = gigasparse::cuda::gmagnus;
using gm::count_t;

struct EmulationStats {
    count_t heavy_rows = 0, light_rows = 0, intermediate = 0, batches = 0;
    count_t outer_blocks = 0, levels_run = 0, multisplit_blocks = 0, max_block_rows = 0;
    count_t hash_segments = 0, dense_segments = 0;
};

struct Overrides {
    count_t outer_group_elems = 0;    // 0: from Params
    count_t intermediate_budget = 0;  // heavy intermediate elements per batch; 0: unlimited
};

inline void require(bool ok, const std::string& what) {
    if (!ok) throw std::logic_error("gmagnus emulation invariant violated: " + what);
}

// A run of (chunk-local) columns to accumulate into one row of C, columns base + [0, 2^span_log2).
struct Segment {
    int buffer = 0;  // which intermediate buffer (0/1)
    count_t begin = 0, end = 0, c_row = 0, base = 0;
    int span_log2 = 0;
    gm::AccumKind kind = gm::AccumKind::hash;
};

// Accumulates entries (col, val) with the hash (linear probing) or dense (bitmap) accumulator and
// returns them sorted by column, exactly as the accumulation kernels do.
template <class V>
std::vector<std::pair<count_t, V>> accumulate(const std::vector<std::pair<count_t, V>>& in, gm::AccumKind kind, int span_log2,
                                              const gm::Params& p, EmulationStats& st) {
    std::vector<std::pair<count_t, V>> out;
    if (kind == gm::AccumKind::hash) {
        ++st.hash_segments;
        require(static_cast<count_t>(in.size()) <= p.tau, "hash segment above tau");
        const count_t cap = gm::hash_bin_capacity(gm::hash_bin(static_cast<count_t>(in.size())));
        require(cap <= p.hash_capacity, "hash bin above capacity");
        std::vector<count_t> keys(cap, -1);
        std::vector<V> vals(cap, V(0));
        for (auto [c, v] : in) {
            std::uint32_t s = gm::hash_slot(c, cap);
            count_t probes = 0;
            while (keys[s] != -1 && keys[s] != c) {
                s = gm::next_probe(s, cap);
                require(++probes < cap, "hash table full");
            }
            keys[s] = c;
            vals[s] += v;
        }
        // bitonic sort of the whole table, empty slots (max key) last
        std::vector<std::pair<count_t, V>> t(cap);
        for (count_t i = 0; i < cap; ++i) t[i] = {keys[i] == -1 ? INT64_MAX : keys[i], vals[i]};
        for (count_t k = 2; k <= cap; k <<= 1)
            for (count_t j = k >> 1; j > 0; j >>= 1)
                for (count_t i = 0; i < cap; ++i) {
                    const count_t q = gm::bitonic_partner(i, j);
                    if (q <= i) continue;
                    const bool up = gm::bitonic_ascending(i, k);
                    if ((t[i].first > t[q].first) == up) std::swap(t[i], t[q]);
                }
        for (auto& e : t)
            if (e.first != INT64_MAX) out.push_back(e);
    } else {
        ++st.dense_segments;
        const count_t span = count_t(1) << span_log2;
        require(span <= p.dense_columns, "dense span above capacity");
        std::vector<V> acc(span, V(0));
        std::vector<std::uint32_t> bitmap((span + 31) / 32, 0);
        for (auto [c, v] : in) {
            require(c >= 0 && c < span, "dense column out of span");
            acc[c] += v;
            bitmap[c / 32] |= 1u << (c % 32);
        }
        for (count_t c = 0; c < span; ++c)
            if (bitmap[c / 32] >> (c % 32) & 1u) out.push_back({c, acc[c]});
    }
    return out;
}

template <class V, class I>
Csr<V, I> multiply(CsrView<V, I> a, CsrView<V, I> b, const gm::Params& p, const Overrides& ov, EmulationStats& st) {
    require(gm::params_feasible(p), "parameters infeasible");
    const count_t m = a.nrows;
    auto bnnz = [&](count_t k) { return static_cast<count_t>(b.row_ptr[k + 1] - b.row_ptr[k]); };
    // ---- setup: intermediate sizes, heavy/light partition (order-preserving, like DevicePartition::Flagged)
    std::vector<count_t> products(m, 0), heavy, light;
    for (count_t r = 0; r < m; ++r) {
        for (auto j = a.row_ptr[r]; j < a.row_ptr[r + 1]; ++j) products[r] += bnnz(a.col_idx[j]);
        (gm::accum_kind(products[r], p.span_log2, p) == gm::AccumKind::hash ? light : heavy).push_back(r);
    }
    st.heavy_rows = static_cast<count_t>(heavy.size());
    st.light_rows = static_cast<count_t>(light.size());
    // per-row result pieces: (c_row, base, sorted entries)
    struct Piece {
        count_t c_row, base;
        std::vector<std::pair<count_t, V>> entries;
    };
    std::vector<Piece> pieces;
    // ---- light rows: Gustavson products into the hash accumulator
    for (count_t r : light) {
        std::vector<std::pair<count_t, V>> in;
        for (auto j = a.row_ptr[r]; j < a.row_ptr[r + 1]; ++j) {
            const count_t k = a.col_idx[j];
            for (auto q = b.row_ptr[k]; q < b.row_ptr[k + 1]; ++q) in.push_back({static_cast<count_t>(b.col_idx[q]), a.values[j] * b.values[q]});
        }
        if (in.empty()) continue;
        pieces.push_back({r, 0, accumulate<V>(in, gm::AccumKind::hash, p.span_log2, p, st)});
    }
    // ---- heavy rows, in batches whose intermediate fits the budget
    std::vector<count_t> heavy_prefix(heavy.size());
    for (std::size_t h = 0; h < heavy.size(); ++h) heavy_prefix[h] = (h ? heavy_prefix[h - 1] : 0) + products[heavy[h]];
    const count_t nheavy = static_cast<count_t>(heavy.size());
    const count_t budget = ov.intermediate_budget > 0 ? ov.intermediate_budget : INT64_MAX / 4;
    for (count_t first = 0; first < nheavy;) {
        const count_t last = gm::batch_end(heavy_prefix.data(), nheavy, first, budget);
        ++st.batches;
        const count_t nh = last - first;
        // Ĉ.rowPtr of the batch
        std::vector<count_t> chat_ptr(nh + 1, 0);
        for (count_t h = 0; h < nh; ++h) chat_ptr[h + 1] = chat_ptr[h] + products[heavy[first + h]];
        const count_t chat_nnz = chat_ptr[nh];
        st.intermediate += chat_nnz;
        // ---- masked CSR->CSC of A's heavy rows (only entries whose B row is nonempty), stable by column
        const count_t ka = a.ncols;
        std::vector<count_t> col_ptr(ka + 1, 0);
        for (count_t h = 0; h < nh; ++h)
            for (auto j = a.row_ptr[heavy[first + h]]; j < a.row_ptr[heavy[first + h] + 1]; ++j)
                if (bnnz(a.col_idx[j]) > 0) ++col_ptr[a.col_idx[j] + 1];
        for (count_t k = 0; k < ka; ++k) col_ptr[k + 1] += col_ptr[k];
        std::vector<count_t> csc_row(col_ptr[ka]);
        std::vector<V> csc_val(col_ptr[ka]);
        {
            std::vector<count_t> fill(col_ptr.begin(), col_ptr.end() - 1);
            for (count_t h = 0; h < nh; ++h)
                for (auto j = a.row_ptr[heavy[first + h]]; j < a.row_ptr[heavy[first + h] + 1]; ++j)
                    if (bnnz(a.col_idx[j]) > 0) {
                        const count_t d = fill[a.col_idx[j]]++;
                        csc_row[d] = h;
                        csc_val[d] = a.values[j];
                    }
        }
        std::vector<count_t> slice_off(ka + 1, 0);
        for (count_t k = 0; k < ka; ++k) slice_off[k + 1] = slice_off[k] + (col_ptr[k + 1] - col_ptr[k]) * bnnz(k);
        require(slice_off[ka] == chat_nnz, "slice offsets disagree with intermediate sizes");
        // ---- outer product (Alg. 4), block by block
        std::vector<I> buf_col[2];
        std::vector<V> buf_val[2];
        buf_col[0].assign(chat_nnz, I(-1));
        buf_val[0].assign(chat_nnz, V(0));
        buf_col[1].assign(chat_nnz, I(-1));
        buf_val[1].assign(chat_nnz, V(0));
        {
            const count_t ge = ov.outer_group_elems > 0 ? ov.outer_group_elems : p.outer_group_elems;
            std::vector<count_t> cursor(chat_ptr.begin(), chat_ptr.end() - 1);
            const count_t blocks = gm::ceil_div(chat_nnz, ge);
            st.outer_blocks += blocks;
            std::vector<count_t> offsets_local(ge);
            for (count_t g = 0; g < blocks; ++g) {
                const gm::Range R = gm::group_range(g, ge, chat_nnz);
                const count_t s0 = gm::find_owner(slice_off.data(), ka, R.begin);
                const count_t s1 = gm::find_owner(slice_off.data(), ka, R.end - 1);
                require(bnnz(s0) > 0 && bnnz(s1) > 0, "owner slice is empty");
                const count_t a_begin = col_ptr[s0] + gm::get_ab_entry(R.begin, slice_off[s0], bnnz(s0)).a;
                const count_t a_end = col_ptr[s1] + gm::get_ab_entry(R.end - 1, slice_off[s1], bnnz(s1)).a + 1;
                require(a_end - a_begin <= ge, "more A entries than block elements");
                // step 2: reserve write ranges (atomics on the per-row cursor)
                count_t slice = s0;
                for (count_t ai = a_begin; ai < a_end; ++ai) {
                    slice = gm::advance_owner(col_ptr.data(), ka, slice, ai);
                    const count_t nb = bnnz(slice);
                    const count_t start = slice_off[slice] + (ai - col_ptr[slice]) * nb;
                    const gm::Excess ex = gm::get_excess(start, nb, R);
                    const count_t cnt = nb - ex.first - ex.last;
                    require(cnt > 0, "A entry without elements in its block");
                    offsets_local[ai - a_begin] = cursor[csc_row[ai]];
                    cursor[csc_row[ai]] += cnt;
                }
                // step 3: write Ĉ
                slice = s0;
                for (count_t i = R.begin; i < R.end; ++i) {
                    slice = gm::advance_owner(slice_off.data(), ka, slice, i);
                    const count_t nb = bnnz(slice);
                    const gm::ABEntry e = gm::get_ab_entry(i, slice_off[slice], nb);
                    const count_t ai = col_ptr[slice] + e.a;
                    const gm::Excess ex = gm::get_excess(slice_off[slice] + e.a * nb, nb, R);
                    const count_t dest = offsets_local[ai - a_begin] + e.b - ex.first;
                    require(dest >= chat_ptr[csc_row[ai]] && dest < chat_ptr[csc_row[ai] + 1], "outer product write outside its row");
                    require(buf_col[0][dest] == I(-1), "outer product writes a slot twice");
                    const auto q = b.row_ptr[slice] + e.b;
                    buf_col[0][dest] = b.col_idx[q];
                    buf_val[0][dest] = csc_val[ai] * b.values[q];
                }
            }
            for (count_t h = 0; h < nh; ++h) require(cursor[h] == chat_ptr[h + 1], "row cursor does not reach the row end");
        }
        // ---- hierarchical multisplit (Alg. 5) with double buffering
        std::vector<Segment> segments;
        struct RowMeta {
            count_t c_row, base;
        };
        std::vector<RowMeta> in_meta(nh);
        for (count_t h = 0; h < nh; ++h) in_meta[h] = {heavy[first + h], 0};
        std::vector<count_t> in_ptr = chat_ptr;
        int in_buf = 0;
        int span = p.span_log2;
        if (p.nlevels == 0)
            for (count_t h = 0; h < nh; ++h) segments.push_back({0, in_ptr[h], in_ptr[h + 1], in_meta[h].c_row, 0, span, gm::AccumKind::dense});
        for (int level = 0; level < p.nlevels && !in_meta.empty(); ++level) {
            ++st.levels_run;
            const int clog = p.chunks_log2[level];
            const count_t nchunks = count_t(1) << clog;
            const int sub = span - clog;
            const count_t n_in = static_cast<count_t>(in_meta.size());
            const count_t total = in_ptr[n_in];
            const count_t ge = p.multisplit_group_elems[level];
            const count_t grows = p.multisplit_group_rows[level];
            const int threads = p.multisplit_threads;
            const count_t warps = threads / gm::warp_size;
            const count_t slots = grows * nchunks;
            const count_t blocks = gm::ceil_div(total, ge);
            auto row_of = [&](count_t i, count_t r0) {
                count_t r = r0;
                while (i >= in_ptr[r + 1]) ++r;
                return r;
            };
            // histogram kernel: per-block warp-private histograms, flushed to global counts
            std::vector<count_t> counts(n_in * nchunks, 0);
            for (count_t g = 0; g < blocks; ++g) {
                const gm::Range R = gm::group_range(g, ge, total);
                const count_t r0 = gm::find_owner(in_ptr.data(), n_in, R.begin);
                std::vector<std::uint32_t> hist(slots * warps, 0);
                for (count_t i = R.begin; i < R.end; ++i) {
                    const int warp = static_cast<int>(((i - R.begin) % threads) / gm::warp_size);
                    const count_t lr = row_of(i, r0) - r0;
                    require(lr < grows, "block covers more rows than n_groupRows");
                    st.max_block_rows = std::max(st.max_block_rows, lr + 1);
                    const count_t c = gm::chunk_of(static_cast<count_t>(buf_col[in_buf][i]), sub);
                    require(c < nchunks, "chunk out of range");
                    ++hist[gm::warp_slot(warp, gm::local_slot(lr, c, clog), slots)];
                }
                for (count_t s = 0; s < slots; ++s) {
                    count_t t = 0;
                    for (count_t w = 0; w < warps; ++w) t += hist[w * slots + s];
                    const count_t lr = s >> clog;
                    if (t > 0) counts[gm::global_chunk(r0 + lr, s & (nchunks - 1), clog)] += t;
                }
            }
            // classify chunks, heavy (split) first, then the rest, both in order
            const bool last_level = level + 1 == p.nlevels;
            std::vector<count_t> order, pos(n_in * nchunks);
            std::vector<gm::AccumKind> kind(n_in * nchunks);
            count_t n_heavy_out = 0;
            for (count_t q = 0; q < n_in * nchunks; ++q) {
                kind[q] = gm::accum_kind(counts[q], sub, p);
                require(!last_level || kind[q] != gm::AccumKind::split, "last level leaves a chunk to split");
                if (kind[q] == gm::AccumKind::split) order.push_back(q);
            }
            n_heavy_out = static_cast<count_t>(order.size());
            for (count_t q = 0; q < n_in * nchunks; ++q)
                if (kind[q] != gm::AccumKind::split) order.push_back(q);
            std::vector<count_t> out_ptr(order.size() + 1, 0);
            for (std::size_t o = 0; o < order.size(); ++o) {
                pos[order[o]] = static_cast<count_t>(o);
                out_ptr[o + 1] = out_ptr[o] + counts[order[o]];
            }
            require(out_ptr.back() == total, "multisplit loses elements");
            // multisplit kernel: local histogram, global reservation, local permute, coalesced write
            const int out_buf = 1 - in_buf;
            std::vector<count_t> cursor(out_ptr.begin(), out_ptr.end() - 1);
            for (count_t g = 0; g < blocks; ++g) {
                ++st.multisplit_blocks;
                const gm::Range R = gm::group_range(g, ge, total);
                const count_t r0 = gm::find_owner(in_ptr.data(), n_in, R.begin);
                std::vector<std::uint32_t> hist(slots * warps + 1, 0);
                for (count_t i = R.begin; i < R.end; ++i) {
                    const int warp = static_cast<int>(((i - R.begin) % threads) / gm::warp_size);
                    const count_t lr = row_of(i, r0) - r0;
                    const count_t c = gm::chunk_of(static_cast<count_t>(buf_col[in_buf][i]), sub);
                    ++hist[gm::warp_slot(warp, gm::local_slot(lr, c, clog), slots)];
                }
                std::vector<count_t> offsets_global(slots, 0), slot_start(slots + 1, 0);
                for (count_t s = 0; s < slots; ++s) {
                    count_t t = 0;
                    for (count_t w = 0; w < warps; ++w) t += hist[w * slots + s];
                    slot_start[s + 1] = slot_start[s] + t;
                    const count_t lr = s >> clog;
                    if (t > 0) {
                        const count_t q = gm::global_chunk(r0 + lr, s & (nchunks - 1), clog);
                        offsets_global[s] = cursor[pos[q]];
                        cursor[pos[q]] += t;
                    }
                }
                // exclusive scan in slot-major order over the warp-major storage
                std::vector<count_t> wofs(slots * warps, 0);
                count_t run = 0;
                for (count_t v = 0; v < slots * warps; ++v) {
                    const count_t sidx = gm::scan_order_to_storage(v, warps, slots);
                    wofs[sidx] = run;
                    run += hist[sidx];
                }
                require(run == R.end - R.begin, "local scan total");
                std::vector<I> cbuf(R.end - R.begin);
                std::vector<V> vbuf(R.end - R.begin);
                for (count_t i = R.begin; i < R.end; ++i) {
                    const int warp = static_cast<int>(((i - R.begin) % threads) / gm::warp_size);
                    const count_t lr = row_of(i, r0) - r0;
                    const count_t c = gm::chunk_of(static_cast<count_t>(buf_col[in_buf][i]), sub);
                    const count_t d = wofs[gm::warp_slot(warp, gm::local_slot(lr, c, clog), slots)]++;
                    cbuf[d] = buf_col[in_buf][i];
                    vbuf[d] = buf_val[in_buf][i];
                }
                for (count_t i = R.begin; i < R.end; ++i) {
                    const count_t j = i - R.begin;
                    const count_t lr = row_of(i, r0) - r0;  // buffer keeps rows in place
                    const count_t c = gm::chunk_of(static_cast<count_t>(cbuf[j]), sub);
                    const count_t s = gm::local_slot(lr, c, clog);
                    require(j >= slot_start[s] && j < slot_start[s + 1], "buffer element outside its slot");
                    const count_t dest = offsets_global[s] + j - slot_start[s];
                    buf_col[out_buf][dest] = static_cast<I>(gm::col_in_chunk(static_cast<count_t>(cbuf[j]), sub));
                    buf_val[out_buf][dest] = vbuf[j];
                }
            }
            for (std::size_t o = 0; o < order.size(); ++o) require(cursor[o] == out_ptr[o + 1], "chunk cursor does not reach chunk end");
            // light (and, on the last level, dense) chunks become accumulation segments; heavy ones recurse
            std::vector<RowMeta> next_meta;
            for (std::size_t o = 0; o < order.size(); ++o) {
                const count_t q = order[o];
                const RowMeta parent = in_meta[q >> clog];
                const RowMeta meta{parent.c_row, parent.base + ((q & (nchunks - 1)) << sub)};
                if (static_cast<count_t>(o) < n_heavy_out) next_meta.push_back(meta);
                else if (counts[q] > 0) segments.push_back({out_buf, out_ptr[o], out_ptr[o + 1], meta.c_row, meta.base, sub, kind[q]});
            }
            // double buffering: the next level writes [0, out_ptr[n_heavy_out]) of the other buffer,
            // which only overlaps this level's input (already consumed), never its light segments
            in_meta = std::move(next_meta);
            in_ptr.assign(out_ptr.begin(), out_ptr.begin() + n_heavy_out + 1);
            in_buf = out_buf;
            span = sub;
            // poison the consumed input region below the next output to catch stale reads
            if (!in_meta.empty() && level + 1 < p.nlevels)
                for (count_t i = 0; i < in_ptr[n_heavy_out]; ++i) buf_col[1 - in_buf][i] = I(-1);
        }
        for (const Segment& s : segments) {
            std::vector<std::pair<count_t, V>> in;
            for (count_t i = s.begin; i < s.end; ++i) {
                require(buf_col[s.buffer][i] != I(-1), "segment reads an overwritten element");
                in.push_back({static_cast<count_t>(buf_col[s.buffer][i]), buf_val[s.buffer][i]});
            }
            auto acc = accumulate<V>(in, s.kind, s.span_log2, p, st);
            for (auto& e : acc) e.first += s.base;
            pieces.push_back({s.c_row, s.base, std::move(acc)});
        }
        first = last;
    }
    // ---- symbolic counts, row pointers, numeric writes in (row, base) order
    Csr<V, I> c(m, b.ncols);
    std::vector<count_t> nnz(m, 0);
    for (const Piece& pc : pieces) nnz[pc.c_row] += static_cast<count_t>(pc.entries.size());
    for (count_t r = 0; r < m; ++r) c.row_ptr[r + 1] = c.row_ptr[r] + nnz[r];
    c.col_idx.resize(c.row_ptr[m]);
    c.values.resize(c.row_ptr[m]);
    std::stable_sort(pieces.begin(), pieces.end(), [](const Piece& x, const Piece& y) { return x.c_row != y.c_row ? x.c_row < y.c_row : x.base < y.base; });
    std::vector<count_t> fill(c.row_ptr.begin(), c.row_ptr.end() - 1);
    for (const Piece& pc : pieces)
        for (auto [col, v] : pc.entries) {
            c.col_idx[fill[pc.c_row]] = static_cast<I>(col);
            c.values[fill[pc.c_row]++] = v;
        }
    return c;
}

}  // namespace gigasparse::test::gmagnus_emu
