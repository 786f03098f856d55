// src/gen/rmat.cpp: R-MAT / Graph500 Kronecker graphs, generated in parallel from per-chunk seeded streams.
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

// Buckets the edges by source (and by target too when symmetrizing) into CSR with unsorted,
// duplicated rows; the order inside a row may depend on threads, it is sorted afterwards.
template <class V, class I>
Csr<V, I> bucket(std::int64_t n, const std::vector<I>& src, const std::vector<I>& dst, bool symmetrize) {
    Csr<V, I> a(n, n);
    const auto m = static_cast<std::int64_t>(src.size());
    std::vector<offset_t> count(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < m; ++k) {
#pragma omp atomic
        ++count[src[k] + 1];
        if (symmetrize) {
#pragma omp atomic
            ++count[dst[k] + 1];
        }
    }
    for (std::int64_t i = 0; i < n; ++i) count[i + 1] += count[i];  // row starts
    a.row_ptr = count;
    a.col_idx.resize(static_cast<std::size_t>(count[n]));
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < m; ++k) {
        offset_t p = 0;
#pragma omp atomic capture
        p = count[src[k]]++;
        a.col_idx[p] = dst[k];
        if (symmetrize) {
#pragma omp atomic capture
            p = count[dst[k]]++;
            a.col_idx[p] = src[k];
        }
    }
    return a;
}

// Sorts every row, drops duplicate columns and compacts; values become 1.
template <class V, class I>
void sort_unique_rows(Csr<V, I>& a) {
    const std::int64_t n = a.nrows;
    std::vector<offset_t> kept(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(dynamic, 512)
    for (std::int64_t i = 0; i < n; ++i) {
        I* first = a.col_idx.data() + a.row_ptr[i];
        I* last = a.col_idx.data() + a.row_ptr[i + 1];
        std::sort(first, last);
        kept[i + 1] = std::unique(first, last) - first;
    }
    for (std::int64_t i = 0; i < n; ++i) kept[i + 1] += kept[i];
    std::vector<I> cols(static_cast<std::size_t>(kept[n]));
#pragma omp parallel for schedule(dynamic, 512)
    for (std::int64_t i = 0; i < n; ++i) std::copy_n(a.col_idx.data() + a.row_ptr[i], kept[i + 1] - kept[i], cols.data() + kept[i]);
    a.row_ptr = std::move(kept);
    a.col_idx = std::move(cols);
    a.values.assign(a.col_idx.size(), V(1));
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
        Csr<V, I> a = bucket<V, I>(n, src, dst, options.symmetrize);
        std::vector<I>().swap(src);
        std::vector<I>().swap(dst);
        sort_unique_rows(a);
        return a;
    } catch (const std::bad_alloc&) {
        throw OutOfMemory("rmat: cannot allocate the edge list of " + std::to_string(m) + " edges on 2^" + std::to_string(options.scale) +
                          " vertices");
    }
}

#define GIGASPARSE_INSTANTIATE(V, I) template Csr<V, I> rmat<V, I>(const RmatOptions&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse::gen
