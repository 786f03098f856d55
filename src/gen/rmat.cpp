// src/gen/rmat.cpp: R-MAT / Graph500 Kronecker graphs, generated in parallel from per-chunk seeded streams.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <numeric>
#include <string>
#include <vector>

#include <gigasparse/gen/generators.hpp>

#include "gen/common.hpp"
#include "gen/random.hpp"

namespace gigasparse::gen {
namespace {

constexpr std::int64_t edges_per_chunk = std::int64_t{1} << 16;  // one random stream per chunk

void validate(const RmatOptions& o) {
    if (o.scale < 0 || o.scale > 40) throw InvalidArgument("rmat: scale must be in [0, 40], got " + std::to_string(o.scale));
    detail::require_finite_nonnegative("rmat", "edge_factor", o.edge_factor);
    detail::require_finite_nonnegative("rmat", "a", o.a);
    detail::require_finite_nonnegative("rmat", "b", o.b);
    detail::require_finite_nonnegative("rmat", "c", o.c);
    if (o.a + o.b + o.c > 1.0 + 1e-12)
        throw InvalidArgument("rmat: a + b + c must be <= 1 (d = 1 - a - b - c >= 0), got " + std::to_string(o.a + o.b + o.c));
    const double edges = std::round(o.edge_factor * std::ldexp(1.0, o.scale));
    if (edges > std::ldexp(1.0, 61)) throw OutOfMemory("rmat: edge_factor * 2^scale = " + std::to_string(edges) + " edges is too many");
}

// Quadrant thresholds on a 32-bit uniform r: r < t1 -> (0,0) [a], < t2 -> (0,1) [b], < t3 -> (1,0) [c], else (1,1) [d].
struct Thresholds {
    std::uint64_t t1, t2, t3;
    explicit Thresholds(const RmatOptions& o)
        : t1(to_fixed(o.a)), t2(to_fixed(o.a + o.b)), t3(to_fixed(o.a + o.b + o.c)) {}
    static std::uint64_t to_fixed(double p) { return static_cast<std::uint64_t>(std::min(p, 1.0) * 4294967296.0); }
};

// One edge: at each of `scale` levels (most significant bit first) pick a quadrant.
inline void draw_edge(detail::Rng& rng, const Thresholds& t, int scale, std::uint64_t& row, std::uint64_t& col) {
    row = 0;
    col = 0;
    std::uint64_t bits = 0;
    for (int level = 0; level < scale; ++level) {
        if ((level & 1) == 0) bits = rng.next();
        const std::uint64_t r = (level & 1) ? (bits >> 32) : (bits & 0xFFFFFFFFULL);
        const std::uint64_t rb = r >= t.t2;                            // bottom half: c or d
        const std::uint64_t cb = (r >= t.t1 && r < t.t2) | (r >= t.t3);  // right half: b or d
        row = (row << 1) | rb;
        col = (col << 1) | cb;
    }
}

// Random relabelling perm[old] = new (Fisher–Yates on its own stream).
std::vector<std::int64_t> vertex_permutation(std::int64_t n, std::uint64_t seed) {
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), std::int64_t{0});
    detail::Rng rng(seed, detail::Stream::rmat_permutation);
    for (std::int64_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(i) + 1))]);
    return perm;
}

// Edge list (src[k], dst[k]), k < m, independent of the thread count.
template <class I>
void generate_edges(const RmatOptions& o, std::int64_t m, const std::vector<std::int64_t>& perm, std::vector<I>& src, std::vector<I>& dst) {
    src.resize(static_cast<std::size_t>(m));
    dst.resize(static_cast<std::size_t>(m));
    const Thresholds t(o);
    const std::int64_t chunks = (m + edges_per_chunk - 1) / edges_per_chunk;
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t c = 0; c < chunks; ++c) {
        detail::Rng rng(o.seed, detail::Stream::rmat_edges, static_cast<std::uint64_t>(c));
        const std::int64_t end = std::min(m, (c + 1) * edges_per_chunk);
        for (std::int64_t k = c * edges_per_chunk; k < end; ++k) {
            std::uint64_t r = 0, q = 0;
            draw_edge(rng, t, o.scale, r, q);
            src[k] = static_cast<I>(perm.empty() ? static_cast<std::int64_t>(r) : perm[r]);
            dst[k] = static_cast<I>(perm.empty() ? static_cast<std::int64_t>(q) : perm[q]);
        }
    }
}

// Edges grouped by row block: block b holds rows [b << shift, (b + 1) << shift); order inside a
// block depends on the thread count, which the per-row sort in finish_block() removes.
template <class I>
struct Blocks {
    int shift = 0;
    std::vector<offset_t> start;  // start[b] .. start[b + 1]: entries of block b
    std::vector<I> row, col;
};

// Parallel counting sort of the (src, dst) pairs (and (dst, src) when symmetrizing) by row block:
// per-thread histograms over contiguous edge ranges, then an exclusive scan in (block, thread) order.
template <class I>
Blocks<I> group_by_block(int scale, const std::vector<I>& src, const std::vector<I>& dst, bool symmetrize) {
    Blocks<I> g;
    g.shift = std::max(0, scale - 12);  // at most 4096 blocks: histograms stay in cache
    const std::int64_t nblocks = (std::int64_t{1} << scale) >> g.shift;
    const auto m = static_cast<std::int64_t>(src.size());
    const offset_t total = symmetrize ? 2 * m : m;
    g.start.assign(static_cast<std::size_t>(nblocks) + 1, 0);
    g.row.resize(static_cast<std::size_t>(total));
    g.col.resize(static_cast<std::size_t>(total));
    std::vector<std::vector<offset_t>> hist;
#pragma omp parallel
    {
        const int nt = omp_get_num_threads(), t = omp_get_thread_num();
#pragma omp single
        hist.assign(static_cast<std::size_t>(nt), std::vector<offset_t>(static_cast<std::size_t>(nblocks), 0));
        const std::int64_t lo = m * t / nt, hi = m * (t + 1) / nt;
        auto& h = hist[t];
        for (std::int64_t k = lo; k < hi; ++k) {
            ++h[src[k] >> g.shift];
            if (symmetrize) ++h[dst[k] >> g.shift];
        }
#pragma omp barrier
#pragma omp single
        {
            offset_t sum = 0;
            for (std::int64_t b = 0; b < nblocks; ++b) {
                g.start[b] = sum;
                for (int u = 0; u < nt; ++u) {  // exclusive scan: thread u writes block b from here
                    const offset_t c = hist[u][b];
                    hist[u][b] = sum;
                    sum += c;
                }
            }
            g.start[nblocks] = sum;
        }
        for (std::int64_t k = lo; k < hi; ++k) {
            offset_t p = h[src[k] >> g.shift]++;
            g.row[p] = src[k];
            g.col[p] = dst[k];
            if (symmetrize) {
                p = h[dst[k] >> g.shift]++;
                g.row[p] = dst[k];
                g.col[p] = src[k];
            }
        }
    }
    return g;
}

// Block b: bucket its entries by row into `scratch`, sort each row, drop duplicates, and write
// the unique columns back to the front of the block; kept[i + 1] = unique entries of row i.
template <class I>
void finish_block(Blocks<I>& g, std::int64_t b, std::vector<offset_t>& kept, std::vector<offset_t>& count, std::vector<I>& scratch) {
    const std::int64_t rows = std::int64_t{1} << g.shift, first_row = b << g.shift;
    const offset_t begin = g.start[b], end = g.start[b + 1];
    count.assign(static_cast<std::size_t>(rows) + 1, 0);
    for (offset_t k = begin; k < end; ++k) ++count[g.row[k] - first_row + 1];
    for (std::int64_t r = 0; r < rows; ++r) count[r + 1] += count[r];
    scratch.resize(static_cast<std::size_t>(end - begin));
    for (offset_t k = begin; k < end; ++k) scratch[count[g.row[k] - first_row]++] = g.col[k];
    offset_t out = begin, row_start = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        const offset_t row_end = count[r];  // after the scatter count[r] is the end of row r
        std::sort(scratch.begin() + row_start, scratch.begin() + row_end);
        const auto last = std::unique(scratch.begin() + row_start, scratch.begin() + row_end);
        kept[first_row + r + 1] = last - (scratch.begin() + row_start);
        out = std::copy(scratch.begin() + row_start, last, g.col.begin() + out) - g.col.begin();
        row_start = row_end;
    }
}

// CSR with sorted, duplicate-free rows and values 1 from the grouped edges.
template <class V, class I>
Csr<V, I> assemble(std::int64_t n, Blocks<I>& g) {
    const auto nblocks = static_cast<std::int64_t>(g.start.size()) - 1;
    std::vector<offset_t> kept(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel
    {
        std::vector<offset_t> count;
        std::vector<I> scratch;
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t b = 0; b < nblocks; ++b) finish_block(g, b, kept, count, scratch);
    }
    for (std::int64_t i = 0; i < n; ++i) kept[i + 1] += kept[i];  // row pointers
    Csr<V, I> a(n, n);
    a.row_ptr = std::move(kept);
    a.col_idx.resize(static_cast<std::size_t>(a.row_ptr[n]));
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < nblocks; ++b) {
        const offset_t dst = a.row_ptr[b << g.shift], len = a.row_ptr[(b + 1) << g.shift] - dst;
        std::copy_n(g.col.begin() + g.start[b], len, a.col_idx.begin() + dst);
    }
    a.values.assign(a.col_idx.size(), V(1));
    return a;
}

}  // namespace

template <class V, class I>
Csr<V, I> rmat(const RmatOptions& options) {
    validate(options);
    const std::int64_t n = std::int64_t{1} << options.scale;
    detail::require_fits_index<I>("rmat", n, n);
    const auto m = static_cast<std::int64_t>(std::round(options.edge_factor * static_cast<double>(n)));
    try {
        std::vector<I> src, dst;
        const auto perm = options.permute_vertices ? vertex_permutation(n, options.seed) : std::vector<std::int64_t>{};
        generate_edges(options, m, perm, src, dst);
        Blocks<I> g = group_by_block(options.scale, src, dst, options.symmetrize);
        std::vector<I>().swap(src);
        std::vector<I>().swap(dst);
        return assemble<V, I>(n, g);
    } catch (const std::bad_alloc&) {
        throw OutOfMemory("rmat: cannot allocate the edge list of " + std::to_string(m) + " edges on 2^" + std::to_string(options.scale) +
                          " vertices");
    }
}

#define GIGASPARSE_INSTANTIATE(V, I) template Csr<V, I> rmat<V, I>(const RmatOptions&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse::gen
