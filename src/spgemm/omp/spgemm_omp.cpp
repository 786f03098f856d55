// src/spgemm/omp/spgemm_omp.cpp: the OpenMP MAGNUS backend: per-category row kernels (sort, dense, fine,
// coarse) run category by category with dynamic scheduling and no barrier between categories.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <exception>
#include <mutex>
#include <vector>

#include "spgemm/kernels.hpp"
#include "spgemm/omp/accumulators.hpp"
#include "spgemm/omp/coarse_level.hpp"
#include "spgemm/omp/fine_level.hpp"

namespace gigasparse::spgemm::omp {
namespace {

// The intermediate products of row i of C: A(i,k) * B(k,j) for k in A(i,:), j in B(k,:).
template <class V, class I>
struct RowStream {
    CsrView<V, I> a, b;
    std::int64_t i;
    template <class F>
    void operator()(F&& f) const {
        const I* bc = b.col_idx.data();
        const V* bv = b.values.data();
        for (offset_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            const std::int64_t k = a.col_idx[p];
            const V av = a.values[p];
            for (offset_t q = b.row_ptr[k]; q < b.row_ptr[k + 1]; ++q) f(static_cast<std::int64_t>(bc[q]), av * bv[q]);
        }
    }
};

// Sort category: expand, sort, compress (ESC).
template <bool Numeric, class V, class I>
offset_t sort_row(const RowStream<V, I>& s, offset_t n, Workspace<V>& ws, I* oc, V* ov) {
    std::int64_t t = 0;
    if constexpr (Numeric) {
        auto* p = ensure(ws.pairs, static_cast<std::size_t>(n));
        s([&](std::int64_t c, V v) { p[t++] = {c, v}; });
        return sort_accumulate(p, n, 0, oc, ov);
    } else {
        auto* k = ensure(ws.keys, static_cast<std::size_t>(n));
        s([&](std::int64_t c, V) { k[t++] = c; });
        return sort_count(k, n);
    }
}

// Sort category with the sparse accumulator (SPA): a per-thread stamp per column of C marks the columns this
// row has touched (no clearing between rows: the stamp is the row's generation); values accumulate in place;
// only the distinct columns are sorted. The symbolic phase only counts fresh stamps (no sort at all).
template <bool Numeric, class V, class I>
offset_t spa_row(const RowStream<V, I>& s, offset_t n, std::int64_t ncols, Workspace<V>& ws, I* oc, V* ov) {
    std::uint32_t* stamp = ensure(ws.spa_stamp, static_cast<std::size_t>(ncols));
    if (++ws.spa_gen == 0) {  // wrap-around: forget every old stamp
        std::fill(ws.spa_stamp.begin(), ws.spa_stamp.end(), 0u);
        ws.spa_gen = 1;
    }
    const std::uint32_t g = ws.spa_gen;
    std::int64_t t = 0;
    if constexpr (Numeric) {
        V* val = ensure(ws.spa_val, static_cast<std::size_t>(ncols));
        std::int32_t* list = ensure(ws.spa_list, static_cast<std::size_t>(n));  // ncols < 2^31 (analysis)
        s([&](std::int64_t c, V v) {
            const bool fresh = stamp[c] != g;
            stamp[c] = g;
            list[t] = static_cast<std::int32_t>(c);
            t += fresh ? 1 : 0;
            val[c] = keep_if(val[c], !fresh) + v;  // branch-free: fresh and repeated columns are equally likely
        });
        if (t <= 4) {
            // A few distinct columns (most rows of the very sparse products): insertion sort, then emit.
            for (std::int64_t q = 1; q < t; ++q) {
                const std::int32_t key = list[q];
                std::int64_t r = q - 1;
                for (; r >= 0 && list[r] > key; --r) list[r + 1] = list[r];
                list[r + 1] = key;
            }
            for (std::int64_t q = 0; q < t; ++q) {
                oc[q] = static_cast<I>(list[q]);
                ov[q] = val[list[q]];
            }
        } else if (t <= 64) {
            // Rank sort of the distinct columns: branch-free, O(t^2) vectorizable compares; for the short rows of
            // this category it beats an insertion sort whose branches mispredict on random keys.
            for (std::int64_t q = 0; q < t; ++q) {
                const std::int32_t key = list[q];
                std::int32_t rank = 0;
                for (std::int64_t r = 0; r < t; ++r) rank += list[r] < key ? 1 : 0;
                oc[rank] = static_cast<I>(key);
                ov[rank] = val[key];
            }
        } else {
            std::sort(list, list + t);
            for (std::int64_t q = 0; q < t; ++q) {
                oc[q] = static_cast<I>(list[q]);
                ov[q] = val[list[q]];
            }
        }
    } else {
        s([&](std::int64_t c, V) {
            t += stamp[c] != g ? 1 : 0;
            stamp[c] = g;
        });
    }
    return t;
}

// Dense category with the window accumulator (narrow range): flag bytes and values over [lo, hi].
template <bool Numeric, class V, class I>
offset_t window_row(const RowStream<V, I>& s, std::int64_t lo, std::int64_t hi, Workspace<V>& ws, I* oc, V* ov) {
    const std::int64_t len = hi - lo + 1;
    std::uint8_t* flag = ensure(ws.wflag, static_cast<std::size_t>(window_bytes(len)));
    if constexpr (Numeric) {
        V* acc = ensure(ws.wacc, static_cast<std::size_t>(len));
        s([&](std::int64_t c, V v) { window_add(acc, flag, c - lo, v); });
        return window_emit(acc, flag, len, lo, oc, ov);
    } else {
        s([&](std::int64_t c, V) { flag[c - lo] = 1; });
        return window_count(flag, len);
    }
}

// Dense category: one dense accumulator over the row's column range [lo, hi].
template <bool Numeric, class V, class I>
offset_t dense_row(const RowStream<V, I>& s, std::int64_t lo, std::int64_t hi, Workspace<V>& ws, I* oc, V* ov) {
    const std::int64_t len = hi - lo + 1;
    std::uint64_t* bits = ensure(ws.bits, static_cast<std::size_t>(bitmap_words(len)));
    if constexpr (Numeric) {
        V* acc = ensure(ws.acc, static_cast<std::size_t>(len));
        s([&](std::int64_t c, V v) { dense_add(acc, bits, c - lo, v); });
        return dense_emit(acc, bits, len, lo, oc, ov);
    } else {
        offset_t n = 0;
        s([&](std::int64_t c, V) { n += dense_mark(bits, c - lo); });
        dense_clear(bits, len);
        return n;
    }
}

// Numeric dense row on the bitmap when its range spans several blocks of W = a quarter of L2 of values and
// B's rows are sorted: the row is accumulated and emitted one column block at a time, each entry of A's row
// keeping a cursor in its row of B (an entry leaves the list when its row is done). The accumulator then stays
// in L2 next to the streamed rows of B instead of spilling to L3 (R-MAT scale 18: 262,144 columns = 2 MiB of
// values; dense rows 4.2 -> 3.9 s on one core).
template <class V, class I>
offset_t dense_row_blocked(CsrView<V, I> a, CsrView<V, I> b, std::int64_t i, std::int64_t lo, std::int64_t hi, int wshift, Workspace<V>& ws,
                           I* oc, V* ov) {
    const offset_t p0 = a.row_ptr[i], p1 = a.row_ptr[i + 1];
    offset_t* cur = ensure(ws.cursors, static_cast<std::size_t>(2 * (p1 - p0)));
    V* av = ensure(ws.cursor_values, static_cast<std::size_t>(p1 - p0));
    std::int64_t na = 0;
    for (offset_t p = p0; p < p1; ++p) {
        const std::int64_t k = a.col_idx[p];
        if (b.row_ptr[k] == b.row_ptr[k + 1]) continue;
        cur[2 * na] = b.row_ptr[k];
        cur[2 * na + 1] = b.row_ptr[k + 1];
        av[na++] = a.values[p];
    }
    const std::int64_t W = std::int64_t(1) << wshift;
    V* acc = ensure(ws.acc, static_cast<std::size_t>(W));
    std::uint64_t* bits = ensure(ws.bits, static_cast<std::size_t>(bitmap_words(W)));
    const I* bc = b.col_idx.data();
    const V* bv = b.values.data();
    offset_t w = 0;
    for (std::int64_t base = lo & ~(W - 1); base <= hi && na > 0; base += W) {
        const std::int64_t lim = base + W;
        for (std::int64_t t = 0; t < na;) {
            offset_t q = cur[2 * t];
            const offset_t e = cur[2 * t + 1];
            const V x = av[t];
            for (; q < e && bc[q] < lim; ++q) dense_add(acc, bits, static_cast<std::int64_t>(bc[q]) - base, x * bv[q]);
            if (q == e) {  // this row of B is done: the last entry takes its place
                --na;
                cur[2 * t] = cur[2 * na];
                cur[2 * t + 1] = cur[2 * na + 1];
                av[t] = av[na];
            } else {
                cur[2 * t] = q;
                ++t;
            }
        }
        w += dense_emit(acc, bits, std::min(W, hi - base + 1), base, oc + w, ov + w);
    }
    return w;
}

// log2 of the column block of dense_row_blocked: a quarter of L2 of values (at least 64 columns).
template <class V>
int dense_block_shift(const Analysis& an) {
    return log2_exact(floor_pow2(std::max<std::int64_t>(64, an.l2_bytes / (4 * static_cast<std::int64_t>(sizeof(V))))));
}

// Fine category: the fine level over the chunks the row's range touches; 64-bit local indices when wide.
template <bool Numeric, class V, class I>
offset_t fine_row(const RowStream<V, I>& s, const RowInfo& info, const Analysis& an, const ChunkParams& P, Workspace<V>& ws, I* oc, V* ov) {
    const offset_t n = info.products;
    const FineRange r{info.lo >> P.fine_shift, info.hi >> P.fine_shift, P.fine_shift, 0};
    if (use_wide(an, n, P.fine_chunk_cols)) return fine_level<Numeric, std::uint64_t>(s, n, r, an, ws, oc, ov);
    return fine_level<Numeric, std::uint32_t>(s, n, r, an, ws, oc, ov);
}

// Row i of A has one entry A(i,k) and B's rows are sorted without duplicates: row i of C is A(i,k) times row k
// of B (the same columns; 0 + a*b as every accumulator computes it, so that -0 comes out as +0 there too).
template <bool Numeric, class V, class I>
offset_t copy_row(CsrView<V, I> a, CsrView<V, I> b, offset_t p, I* oc, V* ov) {
    const std::int64_t k = a.col_idx[p];
    const offset_t q0 = b.row_ptr[k], q1 = b.row_ptr[k + 1];
    if constexpr (Numeric) {
        const V av = a.values[p];
        for (offset_t q = q0; q < q1; ++q) {
            oc[q - q0] = b.col_idx[q];
            ov[q - q0] = V(0) + av * b.values[q];
        }
    }
    return q1 - q0;
}

// The numeric phase knows each row's entries (from the symbolic phase), and a narrow row (use_window) keeps the
// window accumulator only when its emit, which tests every 8 flag bytes of the range with a branch, is cheap
// next to the adds: the range is at most window_max_span x its products, or its entries fill at least
// 1/window_min_density of it. Else the bitmap (one word per 64 columns): R-MAT hub rows (range about 3x their
// products, 1/8 of it filled) run twice as fast on it (rmat18² hub rows: 2.6 s -> 1.4 s on one core), while
// FEM rows (many products per column: bcsstk33², range ~0.4x products) keep the window, whose adds do not
// chain through a shared bitmap word.
constexpr std::int64_t window_max_span = 2, window_min_density = 4;
inline bool window_fits(const RowInfo& r, offset_t out) {
    const std::int64_t range = r.hi - r.lo + 1;
    return range <= window_max_span * r.products || range <= window_min_density * out;
}

// A listed row: dense (window or bitmap accumulator) or fine. `out` is the row's number of entries in the
// numeric phase (row_ptr), unused in the symbolic one.
template <bool Numeric, class V, class I>
offset_t listed_row(bool dense, CsrView<V, I> a, CsrView<V, I> b, const RowInfo& info, const Analysis& an, Workspace<V>& ws, I* oc, V* ov,
                    offset_t out = 0) {
    const RowStream<V, I> s{a, b, info.row};
    if (info.products == 0) return 0;
    if (an.copy_single && a.row_ptr[info.row + 1] - a.row_ptr[info.row] == 1) return copy_row<Numeric>(a, b, a.row_ptr[info.row], oc, ov);
    if (dense) {
        if (use_window(an, info) && (!Numeric || window_fits(info, out))) return window_row<Numeric>(s, info.lo, info.hi, ws, oc, ov);
        if constexpr (Numeric) {
            const int shift = dense_block_shift<V>(an);
            if (an.b_sorted && info.hi - info.lo + 1 > (std::int64_t(2) << shift))
                return dense_row_blocked(a, b, info.row, info.lo, info.hi, shift, ws, oc, ov);
        }
        return dense_row<Numeric>(s, info.lo, info.hi, ws, oc, ov);
    }
    return fine_row<Numeric>(s, info, an, Numeric ? an.numeric : an.symbolic, ws, oc, ov);
}

// A sort row (not listed in the plan): its product count comes from A's row and B's row pointers. In the
// numeric phase, when B's rows are sorted, a row of at least 16 products takes its column range from the first
// and last columns of its rows of B: a narrow row (range <= window_max_fill x products, as for dense rows) is
// accumulated in the window (flag bytes over the range, emitted in order, so nothing is sorted). Banded and FEM
// products are mostly such rows (pde900²: numeric 76 -> 57 us); below 16 products the range costs more than
// it saves (measured on USpowerGrid², whose graph rows are wide).
template <bool Numeric, class V, class I>
offset_t sort_row_any(CsrView<V, I> a, CsrView<V, I> b, std::int64_t i, const Analysis& an, Workspace<V>& ws, I* oc, V* ov) {
    const RowStream<V, I> s{a, b, i};
    if (an.copy_single && a.row_ptr[i + 1] - a.row_ptr[i] == 1) return copy_row<Numeric>(a, b, a.row_ptr[i], oc, ov);
    const offset_t n = row_products(a, b, i);
    if (n == 0) return 0;
    if (Numeric && an.b_sorted && n >= 16 && an.window_max_fill > 0) {
        std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -1;
        const I* bc = b.col_idx.data();
        for (offset_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            const std::int64_t k = a.col_idx[p];
            const offset_t q0 = b.row_ptr[k], q1 = b.row_ptr[k + 1];
            if (q0 == q1) continue;
            lo = std::min<std::int64_t>(lo, bc[q0]);
            hi = std::max<std::int64_t>(hi, bc[q1 - 1]);
        }
        const std::int64_t range = hi - lo + 1;
        if (range <= an.window_max_fill * n && range <= an.numeric.dense_max_cols) return window_row<Numeric>(s, lo, hi, ws, oc, ov);
    }
    return an.spa ? spa_row<Numeric>(s, n, an.ncols, ws, oc, ov) : sort_row<Numeric>(s, n, ws, oc, ov);
}

template <bool Numeric, class V, class I>
void coarse_one_batch(CsrView<V, I> a, CsrView<V, I> b, const Analysis& an, std::int64_t bi, Workspace<V>& ws, offset_t* row_nnz,
                      const offset_t* row_ptr, I* c_col, V* c_val) {
    const std::int64_t r0 = an.coarse_batches[bi], r1 = an.coarse_batches[bi + 1];
    offset_t total = 0;
    for (std::int64_t r = r0; r < r1; ++r) total += an.coarse_products[static_cast<std::size_t>(r)];
    const std::int64_t* rows = an.coarse_rows.data() + r0;
    if (use_wide(an, total, an.numeric.coarse_chunk_cols))
        coarse_batch<Numeric, std::uint64_t>(a, b, an, rows, r1 - r0, total, ws, row_nnz, row_ptr, c_col, c_val);
    else
        coarse_batch<Numeric, std::uint32_t>(a, b, an, rows, r1 - r0, total, ws, row_nnz, row_ptr, c_col, c_val);
}

// C's columns and values grow to their final size block by block during the numeric phase, so that each
// block is value-initialized (std::vector cannot skip it) just before its rows are written: the zeroing runs
// interleaved with the products (one thread zeroes a block while the other computes) instead of as a separate
// pass over the whole of C, and the writes of the rows then find their lines in cache. (The pages are faulted
// in before, by all threads in parallel: plan.cpp, reserve_output.)
// Precondition: capacity >= n >= size for both arrays (data() stays put: no reallocation).
template <class V, class I>
class OutputGrowth {
public:
    explicit OutputGrowth(Csr<V, I>& c) : c_(c), ready_(static_cast<offset_t>(c.values.size())) {}

    // Elements [0, end) exist after the call (value-initialized unless they already did).
    void make_ready(offset_t end) {
        if (ready_.load(std::memory_order_acquire) >= end) return;
        std::lock_guard<std::mutex> lock(mu_);
        if (static_cast<offset_t>(c_.values.size()) < end) {
            c_.col_idx.resize(static_cast<std::size_t>(end));  // within capacity: no allocation, cannot throw
            c_.values.resize(static_cast<std::size_t>(end));
        }
        ready_.store(static_cast<offset_t>(c_.values.size()), std::memory_order_release);
    }

private:
    Csr<V, I>& c_;
    std::mutex mu_;
    std::atomic<offset_t> ready_;
};

// Every category in one parallel region: coarse batches, then fine and dense rows, then the sort rows (the
// rows absent from those lists, in blocks), heaviest first, each an `omp for schedule(dynamic) nowait` so
// threads flow on without a barrier.
// The numeric phase (with `grow`) runs the non-coarse rows instead in blocks of consecutive rows, about
// out_block entries of C each, in C's order: each block's part of C is made ready just before it is written.
template <bool Numeric, class V, class I>
void run_phase(const Analysis& an, CsrView<V, I> a, CsrView<V, I> b, Workspaces<V>& wss, int threads, offset_t* row_nnz,
               const offset_t* row_ptr, I* c_col, V* c_val, OutputGrowth<V, I>* grow = nullptr) {
    // At most 256 KiB of C per block, and at least 8 blocks per thread (a small C in one or two blocks ran on
    // one thread: Pd² numeric 98 -> 170 us).
    constexpr offset_t max_block = (offset_t(256) << 10) / static_cast<offset_t>(sizeof(V) + sizeof(I));
    const offset_t nnz = grow ? row_ptr[an.nrows] : 0;
    const offset_t out_block = std::clamp<offset_t>(nnz / (8 * threads), 256, max_block);
    const std::int64_t out_blocks = static_cast<std::int64_t>((nnz + out_block - 1) / out_block);
    const std::int64_t nb = static_cast<std::int64_t>(an.coarse_batches.size()) - 1;
    const std::int64_t m = an.nrows;
    const std::int64_t block = std::clamp<std::int64_t>(m / (16 * threads), 16, 256);  // sort rows per scheduled block
    const std::int64_t nblocks = (m + block - 1) / block;
    if (static_cast<int>(wss.size()) < threads) wss.resize(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
    {
        Workspace<V>& ws = wss[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 1) nowait
        for (std::int64_t bi = 0; bi < nb; ++bi) coarse_one_batch<Numeric>(a, b, an, bi, ws, row_nnz, row_ptr, c_col, c_val);
        if (Numeric && grow) {  // compile-time false in the symbolic phase: its row loops stay inlined
            // Block k: the rows whose first entry lies in [k, k+1) * out_block (rows are never split).
#pragma omp for schedule(dynamic, 1) nowait
            for (std::int64_t k = 0; k < out_blocks; ++k) {
                const offset_t* rp_end = row_ptr + an.nrows;
                const std::int64_t r0 = std::lower_bound(row_ptr, rp_end, k * out_block) - row_ptr;
                const std::int64_t r1 = std::lower_bound(row_ptr + r0, rp_end, (k + 1) * out_block) - row_ptr;
                if (r1 <= r0) continue;
                grow->make_ready(row_ptr[r1]);
                for (const bool dense : {false, true}) {
                    const RowList& rows = dense ? an.dense : an.fine;
                    for (std::int64_t t = rows.lower_bound(r0), te = rows.lower_bound(r1); t < te; ++t) {
                        const RowInfo info = rows[t];
                        const std::int64_t i = info.row;
                        listed_row<Numeric>(dense, a, b, info, an, ws, c_col + row_ptr[i], c_val + row_ptr[i], row_ptr[i + 1] - row_ptr[i]);
                    }
                }
                for_each_sort_row(an, r0, r1, [&](std::int64_t i) { sort_row_any<Numeric>(a, b, i, an, ws, c_col + row_ptr[i], c_val + row_ptr[i]); });
            }
        } else {
            for (const bool dense : {false, true}) {
                const RowList& rows = dense ? an.dense : an.fine;
                const std::int64_t nr = rows.size();
#pragma omp for schedule(dynamic, dense ? 4 : 1) nowait
                for (std::int64_t t = 0; t < nr; ++t) {
                    const RowInfo info = rows[t];
                    const std::int64_t i = info.row;
                    I* oc = Numeric ? c_col + row_ptr[i] : nullptr;
                    V* ov = Numeric ? c_val + row_ptr[i] : nullptr;
                    const offset_t w = listed_row<Numeric>(dense, a, b, info, an, ws, oc, ov, Numeric ? row_ptr[i + 1] - row_ptr[i] : 0);
                    if constexpr (!Numeric) row_nnz[i] = w;
                }
            }
#pragma omp for schedule(dynamic, 1) nowait
            for (std::int64_t blk = 0; blk < nblocks; ++blk)
                for_each_sort_row(an, blk * block, std::min(m, (blk + 1) * block), [&](std::int64_t i) {
                    I* oc = Numeric ? c_col + row_ptr[i] : nullptr;
                    V* ov = Numeric ? c_val + row_ptr[i] : nullptr;
                    const offset_t w = sort_row_any<Numeric>(a, b, i, an, ws, oc, ov);
                    if constexpr (!Numeric) row_nnz[i] = w;
                });
        }
    }
}

}  // namespace
}  // namespace gigasparse::spgemm::omp

namespace gigasparse::spgemm {

template <class V, class I>
void symbolic(OmpBackend, const Analysis& an, CsrView<V, I> a, CsrView<V, I> b, omp::Workspaces<V>& ws, int threads,
              std::span<offset_t> row_ptr) {
    row_ptr[0] = 0;
    omp::run_phase<false, V, I>(an, a, b, ws, threads, row_ptr.data() + 1, nullptr, nullptr, nullptr);
    for (std::int64_t i = 0; i < an.nrows; ++i) row_ptr[i + 1] += row_ptr[i];
}

template <class V, class I>
void numeric(OmpBackend, const Analysis& an, CsrView<V, I> a, CsrView<V, I> b, omp::Workspaces<V>& ws, int threads, Csr<V, I>& c) {
    const auto n = static_cast<std::size_t>(c.row_ptr.back());
    if (c.col_idx.size() > n) c.col_idx.resize(n);
    if (c.values.size() > n) c.values.resize(n);
    if (c.col_idx.size() != c.values.size()) {  // not a C this library made: size both alike first
        c.col_idx.clear();
        c.values.clear();
    }
    c.col_idx.reserve(n);
    c.values.reserve(n);
    omp::OutputGrowth<V, I> grow(c);
    // Coarse batches write rows anywhere in C: then all of C is made ready first.
    if (!an.coarse_rows.empty()) grow.make_ready(static_cast<offset_t>(n));
    omp::run_phase<true, V, I>(an, a, b, ws, threads, nullptr, c.row_ptr.data(), c.col_idx.data(), c.values.data(), &grow);
    grow.make_ready(static_cast<offset_t>(n));  // C with no entries, or trailing empty rows: the final size
}

// One pass for small products: each thread takes a contiguous block of rows (split by A's entries) and writes
// them with the sort-row kernels into its own buffers (sized by its rows' products, an upper bound of their
// entries); then the row pointers are summed, C is allocated to its exact size and each thread copies its block.
// No setup pass over the rows, no symbolic phase: for products of 10^4-10^5 multiplications these fixed costs
// were as large as the numeric phase itself.
template <class V, class I>
std::int64_t multiply_fused(OmpBackend, const Analysis& an, CsrView<V, I> a, CsrView<V, I> b, omp::Workspaces<V>& wss, int threads,
                            Csr<V, I>& c) {
    const std::int64_t m = a.nrows;
    c.nrows = m;
    c.ncols = b.ncols;
    c.row_ptr.assign(static_cast<std::size_t>(m + 1), 0);
    c.col_idx.clear();
    c.values.clear();
    if (static_cast<int>(wss.size()) < threads) wss.resize(static_cast<std::size_t>(threads));
    std::int64_t buffer_bytes = 0;
    std::exception_ptr failure;
    const offset_t nnz_a = a.row_ptr[m];
#pragma omp parallel num_threads(threads) reduction(+ : buffer_bytes)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        // Rows [r0, r1): the first row whose entries start at or after t/nt of A's entries.
        auto split = [&](int k) {
            if (k == 0) return std::int64_t(0);
            if (k == nt) return m;
            const offset_t target = nnz_a / nt * k + nnz_a % nt * k / nt;
            return static_cast<std::int64_t>(std::lower_bound(a.row_ptr.begin(), a.row_ptr.end() - 1, target) - a.row_ptr.begin());
        };
        const std::int64_t r0 = split(t), r1 = split(t + 1);
        std::unique_ptr<I[]> col;  // default-initialized: every slot read back was written by this thread
        std::unique_ptr<V[]> val;
        offset_t w = 0;
        try {  // an exception must not leave the parallel region: the first one is rethrown after it
            offset_t bound = 0;
            for (std::int64_t i = r0; i < r1; ++i) bound += row_products(a, b, i);
            col.reset(new I[static_cast<std::size_t>(bound)]);
            val.reset(new V[static_cast<std::size_t>(bound)]);
            buffer_bytes += static_cast<std::int64_t>(bound) * static_cast<std::int64_t>(sizeof(I) + sizeof(V));
            omp::Workspace<V>& ws = wss[static_cast<std::size_t>(t)];
            for (std::int64_t i = r0; i < r1; ++i) {
                const offset_t n = omp::sort_row_any<true>(a, b, i, an, ws, col.get() + w, val.get() + w);
                c.row_ptr[static_cast<std::size_t>(i + 1)] = n;
                w += n;
            }
        } catch (...) {
#pragma omp critical(gigasparse_spgemm_fused)
            if (!failure) failure = std::current_exception();
        }
#pragma omp barrier
#pragma omp single
        {
            if (!failure) {
                try {
                    for (std::int64_t i = 0; i < m; ++i) c.row_ptr[static_cast<std::size_t>(i + 1)] += c.row_ptr[static_cast<std::size_t>(i)];
                    c.col_idx.resize(static_cast<std::size_t>(c.row_ptr.back()));
                    c.values.resize(static_cast<std::size_t>(c.row_ptr.back()));
                } catch (...) {
                    failure = std::current_exception();
                }
            }
        }
        if (!failure) {
            const auto at = static_cast<std::ptrdiff_t>(c.row_ptr[static_cast<std::size_t>(r0)]);
            std::copy(col.get(), col.get() + w, c.col_idx.begin() + at);
            std::copy(val.get(), val.get() + w, c.values.begin() + at);
        }
    }
    if (failure) std::rethrow_exception(failure);
    return buffer_bytes;
}

#define GIGASPARSE_INSTANTIATE_SPGEMM_OMP(V, I)                                                                                     \
    template void symbolic(OmpBackend, const Analysis&, CsrView<V, I>, CsrView<V, I>, omp::Workspaces<V>&, int, std::span<offset_t>); \
    template void numeric(OmpBackend, const Analysis&, CsrView<V, I>, CsrView<V, I>, omp::Workspaces<V>&, int, Csr<V, I>&);          \
    template std::int64_t multiply_fused(OmpBackend, const Analysis&, CsrView<V, I>, CsrView<V, I>, omp::Workspaces<V>&, int, Csr<V, I>&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE_SPGEMM_OMP)
#undef GIGASPARSE_INSTANTIATE_SPGEMM_OMP

}  // namespace gigasparse::spgemm
