// src/spgemm/analysis.cpp: setup phase: one parallel pass over the rows of A that counts each row's products,
// decides its category and keeps a record only for the rows of the dense, fine and coarse categories.
#include "spgemm/analysis.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

#include <gigasparse/core/error.hpp>

namespace gigasparse::spgemm {

void RowList::assign(const std::vector<std::vector<RowInfo>>& parts, bool narrow) {
    n_ = 0;
    for (const auto& p : parts) n_ += static_cast<std::int64_t>(p.size());
    narrow_ = narrow;
    std::vector<std::uint32_t>().swap(u32_);
    std::vector<std::int64_t>().swap(i64_);
    auto fill = [&](auto& out) {
        using T = typename std::decay_t<decltype(out)>::value_type;
        out.resize(static_cast<std::size_t>(4 * n_));
        std::size_t t = 0;
        for (const auto& part : parts)
            for (const RowInfo& r : part) {
                out[t++] = static_cast<T>(r.row);
                out[t++] = static_cast<T>(r.lo);
                out[t++] = static_cast<T>(r.hi);
                out[t++] = static_cast<T>(r.products);
            }
    };
    if (narrow) fill(u32_);
    else fill(i64_);
}

namespace {

void check_options(const SpgemmOptions& o) {
    if (o.sort_threshold < 0 || o.chunk_sort_threshold < 1 || o.sort_merge_target < 1 || o.dense_max_fill < 0 ||
        o.coarse_batch_products < 1 || o.wide_threshold < 1 || o.l2_bytes < 0 || o.cache_line_bytes < 0 || o.threads < 0 ||
        o.window_max_fill < 0 || o.spa_max_cols < -1 || o.spa_threshold < 0 || o.dense_l2_factor < 1)
        throw InvalidArgument("spgemm: an option is out of range (thresholds must be positive, sizes non-negative)");
}

// Column ranges of B's rows when they are not sorted: smallest and largest column per row (R = int32_t when
// the columns fit, else int64_t; an empty row has lo = max, hi = -1).
template <class R>
struct BRanges {
    std::vector<R> lo, hi;
    std::int64_t bytes() const { return static_cast<std::int64_t>((lo.capacity() + hi.capacity()) * sizeof(R)); }
};

template <class R, class V, class I>
void b_row_ranges(CsrView<V, I> b, BRanges<R>& r, int threads) {
    r.lo.resize(static_cast<std::size_t>(b.nrows));
    r.hi.resize(static_cast<std::size_t>(b.nrows));
#pragma omp parallel for schedule(static) num_threads(threads) if (b.nnz() + b.nrows > 100000)
    for (std::int64_t k = 0; k < b.nrows; ++k) {
        R lo = std::numeric_limits<R>::max(), hi = -1;
        for (offset_t p = b.row_ptr[k]; p < b.row_ptr[k + 1]; ++p) {
            lo = std::min<R>(lo, static_cast<R>(b.col_idx[p]));
            hi = std::max<R>(hi, static_cast<R>(b.col_idx[p]));
        }
        r.lo[static_cast<std::size_t>(k)] = lo;
        r.hi[static_cast<std::size_t>(k)] = hi;
    }
}

// Column range of row i's products (lo > hi when none): the union of the ranges of the rows of B it selects,
// from their first and last columns when B is sorted, else from the precomputed ranges.
template <class R, class V, class I>
void row_range(CsrView<V, I> a, CsrView<V, I> b, const BRanges<R>* br, std::int64_t i, std::int64_t& lo, std::int64_t& hi) {
    lo = std::numeric_limits<std::int64_t>::max();
    hi = -1;
    for (offset_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
        const std::int64_t k = a.col_idx[p];
        if (br) {
            if (br->hi[static_cast<std::size_t>(k)] < 0) continue;
            lo = std::min<std::int64_t>(lo, br->lo[static_cast<std::size_t>(k)]);
            hi = std::max<std::int64_t>(hi, br->hi[static_cast<std::size_t>(k)]);
        } else if (b.row_ptr[k] < b.row_ptr[k + 1]) {
            lo = std::min<std::int64_t>(lo, b.col_idx[b.row_ptr[k]]);
            hi = std::max<std::int64_t>(hi, b.col_idx[b.row_ptr[k + 1] - 1]);
        }
    }
}

// Per-thread results of the setup pass: sums for the stats and the records of the listed rows.
struct Part {
    std::array<std::int64_t, spgemm_category_count> rows{};
    std::array<offset_t, spgemm_category_count> products{};
    offset_t total = 0, max = 0, max_listed = 0;
    std::int64_t wide = 0, window = 0, spa = 0;
    std::vector<RowInfo> dense, fine;
    std::vector<std::int64_t> coarse_rows;
    std::vector<offset_t> coarse_products;
    std::int64_t bytes() const {
        return static_cast<std::int64_t>((dense.capacity() + fine.capacity()) * sizeof(RowInfo) +
                                         (coarse_rows.capacity() + coarse_products.capacity()) * sizeof(std::int64_t));
    }
};

// A row that needs a record (forced to a category, or at least `short_limit` products): its column range when
// the category needs it, then (MAGNUS) dense when the range fits the accumulator and is not much sparser than
// the products, fine when the fine level fits L2, coarse otherwise.
template <class R, class V, class I>
void setup_long_row(CsrView<V, I> a, CsrView<V, I> b, const BRanges<R>* br, const Analysis& an, const SpgemmOptions& o, std::int64_t i,
                    offset_t n, Part& part) {
    RowInfo info{i, 0, -1, n};
    SpgemmCategory c;
    if (o.force_category) {
        c = *o.force_category;
        if (c == SpgemmCategory::dense || c == SpgemmCategory::fine) row_range(a, b, br, i, info.lo, info.hi);
    } else {
        row_range(a, b, br, i, info.lo, info.hi);
        const std::int64_t range = info.hi - info.lo + 1;
        c = range <= an.numeric.dense_max_cols && range <= o.dense_max_fill * n ? SpgemmCategory::dense
            : an.numeric.coarse                                              ? SpgemmCategory::coarse
                                                                             : SpgemmCategory::fine;
    }
    const int k = static_cast<int>(c);
    ++part.rows[k];
    part.products[k] += n;
    if (c == SpgemmCategory::sort) {  // forced
        if (an.spa) ++part.spa;
        return;
    }
    part.max_listed = std::max(part.max_listed, n);
    if (c == SpgemmCategory::dense) {
        if (use_window(an, info)) ++part.window;
        part.dense.push_back(info);
    } else if (c == SpgemmCategory::fine) {
        part.fine.push_back(info);
    } else {
        part.coarse_rows.push_back(i);
        part.coarse_products.push_back(n);
    }
}

// The setup pass over rows [r0, r1): the product count of every row (the only work for a short row, counted
// in locals) and a record for the others.
template <class R, class V, class I>
void setup_rows(CsrView<V, I> a, CsrView<V, I> b, const BRanges<R>* br, const Analysis& an, const SpgemmOptions& o, std::int64_t r0,
                std::int64_t r1, Part& part) {
    const offset_t short_limit = std::max<offset_t>(1, o.force_category ? 1 : an.spa ? o.spa_threshold : o.sort_threshold);
    const offset_t* ap = a.row_ptr.data();
    const offset_t* bp = b.row_ptr.data();
    const I* ac = a.col_idx.data();
    const offset_t wide = an.wide_threshold;
    offset_t total = 0, max = 0, short_products = 0;
    std::int64_t short_rows = 0, nonempty_short = 0, wide_rows = 0;
    offset_t p = ap[r0];
    for (std::int64_t i = r0; i < r1; ++i) {
        offset_t n = 0;
        for (const offset_t pe = ap[i + 1]; p < pe; ++p) {
            const std::int64_t k = ac[p];
            n += bp[k + 1] - bp[k];
        }
        total += n;
        max = std::max(max, n);
        wide_rows += n >= wide ? 1 : 0;
        if (n < short_limit) {
            ++short_rows;
            short_products += n;
            nonempty_short += n > 0 ? 1 : 0;
        } else {
            setup_long_row(a, b, br, an, o, i, n, part);
        }
    }
    const int sort = static_cast<int>(SpgemmCategory::sort);
    part.rows[sort] += short_rows;
    part.products[sort] += short_products;
    part.total += total;
    part.max = std::max(part.max, max);
    part.wide += wide_rows;
    if (an.spa) part.spa += nonempty_short;
}

// First row r with row_ptr[r] + r >= target (rows weighted by one plus their entries).
template <class V, class I>
std::int64_t split_row(CsrView<V, I> a, offset_t target) {
    std::int64_t lo = 0, hi = a.nrows;
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (a.row_ptr[mid] + mid < target) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// Every row, in parallel: thread t takes a contiguous block of rows (balanced by rows + entries of A), so the
// concatenated per-thread lists stay ascending and do not depend on the thread count.
template <class R, class V, class I>
void setup_all_rows(CsrView<V, I> a, CsrView<V, I> b, const SpgemmOptions& o, int threads, Analysis& an) {
    BRanges<R> ranges;
    const BRanges<R>* br = nullptr;
    if (!an.b_sorted) {
        b_row_ranges(b, ranges, threads);
        br = &ranges;
    }
    const offset_t work = a.nnz() + a.nrows;
    const int nt = static_cast<int>(std::max<offset_t>(1, std::min<offset_t>(threads, work / 8192 + 1)));
    std::vector<Part> parts(static_cast<std::size_t>(nt));
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num();
        const std::int64_t r0 = t == 0 ? 0 : split_row(a, work * t / nt);
        const std::int64_t r1 = t == nt - 1 ? a.nrows : split_row(a, work * (t + 1) / nt);
        setup_rows<R>(a, b, br, an, o, r0, r1, parts[static_cast<std::size_t>(t)]);
    }
    std::int64_t part_bytes = 0;
    offset_t max_listed = 0;
    an.category_rows = {};
    an.category_products = {};
    an.products = an.max_row_products = 0;
    an.wide_rows = an.window_rows = an.spa_rows = 0;
    std::size_t ncoarse = 0;
    for (const Part& p : parts) {
        for (int k = 0; k < spgemm_category_count; ++k) {
            an.category_rows[k] += p.rows[k];
            an.category_products[k] += p.products[k];
        }
        an.products += p.total;
        an.max_row_products = std::max(an.max_row_products, p.max);
        max_listed = std::max(max_listed, p.max_listed);
        an.wide_rows += p.wide;
        an.window_rows += p.window;
        an.spa_rows += p.spa;
        part_bytes += p.bytes();
        ncoarse += p.coarse_rows.size();
    }
    // 32-bit records when rows, columns and listed product counts all stay below the wide threshold and 2^31.
    const std::int64_t limit = std::min<std::int64_t>(an.wide_threshold, std::numeric_limits<std::int32_t>::max());
    const bool narrow = a.nrows < limit && b.ncols < limit && max_listed < limit;
    std::vector<std::vector<RowInfo>> dense(parts.size()), fine(parts.size());
    an.coarse_rows.clear();
    an.coarse_products.clear();
    an.coarse_rows.reserve(ncoarse);
    an.coarse_products.reserve(ncoarse);
    for (std::size_t t = 0; t < parts.size(); ++t) {
        dense[t].swap(parts[t].dense);
        fine[t].swap(parts[t].fine);
        an.coarse_rows.insert(an.coarse_rows.end(), parts[t].coarse_rows.begin(), parts[t].coarse_rows.end());
        an.coarse_products.insert(an.coarse_products.end(), parts[t].coarse_products.begin(), parts[t].coarse_products.end());
    }
    an.dense.assign(dense, narrow);
    an.fine.assign(fine, narrow);
    // Transient peak: B's ranges, the per-thread records and the final lists, alive together at this point.
    an.setup_peak_bytes = ranges.bytes() + part_bytes + an.plan_bytes();
}

// Coarse rows grouped into batches: at most coarse_batch_products buffered products (a longer row is
// a batch alone) and an offsets table (rows x chunks) within half of L2.
void make_batches(Analysis& an, const SpgemmOptions& o) {
    an.coarse_batches.assign(1, 0);
    const std::int64_t table_rows = std::max<std::int64_t>(1, an.l2_bytes / 2 / (8 * (an.numeric.coarse_chunks + 1)));
    offset_t sum = 0;
    std::int64_t count = 0;
    for (std::size_t r = 0; r < an.coarse_rows.size(); ++r) {
        const offset_t n = an.coarse_products[r];
        if (count > 0 && (sum + n > o.coarse_batch_products || count >= table_rows)) {
            an.coarse_batches.push_back(static_cast<std::int64_t>(r));
            sum = 0;
            count = 0;
        }
        sum += n;
        ++count;
    }
    if (count > 0) an.coarse_batches.push_back(static_cast<std::int64_t>(an.coarse_rows.size()));
}

}  // namespace

// max |j - i| over the entries (i, j) of m (0 for none): one pass over the column indices, in parallel.
template <class V, class I>
std::int64_t bandwidth(CsrView<V, I> m, int threads) {
    std::int64_t bw = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(max : bw) if (m.nnz() > 100000)
    for (std::int64_t i = 0; i < m.nrows; ++i)
        for (offset_t p = m.row_ptr[i]; p < m.row_ptr[i + 1]; ++p) {
            const std::int64_t d = static_cast<std::int64_t>(m.col_idx[p]) - i;
            bw = std::max(bw, d < 0 ? -d : d);
        }
    return bw;
}

// The sparse accumulator beyond its cache budget of `cols` columns: worth it when A and B are banded so that every
// row's products fall in a window of at most `cols` columns (rows i and i + 1 then touch neighbouring windows: the
// accumulator's lines stay in cache, however wide C is), and its arrays (threads x ncols stamps and values) take no
// more memory than A and B do. Banded meshes: lap3d_80² 210 -> 97 ms (real), the measurement in docs/spgemm.md.
template <class V, class I>
bool banded_spa(CsrView<V, I> a, CsrView<V, I> b, std::int64_t cols, int threads) {
    const std::int64_t entry = static_cast<std::int64_t>(sizeof(I) + sizeof(V));
    const std::int64_t spa_bytes = static_cast<std::int64_t>(threads) * b.ncols * static_cast<std::int64_t>(4 + sizeof(V));
    if (spa_bytes > (a.nnz() + b.nnz()) * entry) return false;
    return 2 * (bandwidth(a, threads) + bandwidth(b, threads)) + 1 <= cols;
}

template <class V, class I>
void configure(CsrView<V, I> a, CsrView<V, I> b, bool b_sorted, const SpgemmOptions& o, Analysis& an) {
    check_options(o);
    const CacheInfo cache = detect_cache();
    an.nrows = a.nrows;
    an.ncols = b.ncols;
    an.b_sorted = b_sorted;
    an.copy_single = b_sorted && !o.force_category;
    an.l2_bytes = o.l2_bytes > 0 ? o.l2_bytes : cache.l2_bytes;
    an.line_bytes = o.cache_line_bytes > 0 ? o.cache_line_bytes : cache.line_bytes;
    an.sort_threshold = o.sort_threshold;
    an.chunk_sort_threshold = o.chunk_sort_threshold;
    an.sort_merge_target = o.sort_merge_target;
    an.wide_threshold = o.wide_threshold;
    an.window_max_fill = o.window_max_fill;
    const std::int64_t spa_cols =
        o.spa_max_cols >= 0 ? o.spa_max_cols : std::max<std::int64_t>(1, o.dense_l2_factor) * an.l2_bytes / static_cast<std::int64_t>(4 + sizeof(V));
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    an.spa = b.ncols <= std::numeric_limits<std::int32_t>::max() &&
             (b.ncols <= spa_cols || (o.spa_max_cols < 0 && banded_spa(a, b, spa_cols, threads)));
    const ChunkOverrides ov{o.fine_chunk_cols, o.coarse_chunk_cols};
    an.numeric = chunk_params(b.ncols, an.l2_bytes, an.line_bytes, static_cast<std::int64_t>(sizeof(V)) + 1, ov);
    an.symbolic = chunk_params(b.ncols, an.l2_bytes, an.line_bytes, 1, ov);
    an.numeric.dense_max_cols *= o.dense_l2_factor;
    if (o.force_category == SpgemmCategory::coarse && !an.numeric.coarse)
        throw InvalidArgument("spgemm: forcing the coarse category needs coarse_chunk_cols below the column count");
}

template <class V, class I>
void analyze(CsrView<V, I> a, CsrView<V, I> b, bool b_sorted, const SpgemmOptions& o, Analysis& an) {
    configure(a, b, b_sorted, o, an);
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    // B's ranges in 32 bits when its columns fit (and the wide threshold, lowered by tests, allows it).
    if (b.ncols < std::min<std::int64_t>(an.wide_threshold, std::numeric_limits<std::int32_t>::max()))
        setup_all_rows<std::int32_t>(a, b, o, threads, an);
    else
        setup_all_rows<std::int64_t>(a, b, o, threads, an);
    make_batches(an, o);
}

#define GIGASPARSE_INSTANTIATE_ANALYZE(V, I)                                                              \
    template void configure(CsrView<V, I>, CsrView<V, I>, bool, const SpgemmOptions&, Analysis&); \
    template void analyze(CsrView<V, I>, CsrView<V, I>, bool, const SpgemmOptions&, Analysis&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE_ANALYZE)
#undef GIGASPARSE_INSTANTIATE_ANALYZE

}  // namespace gigasparse::spgemm
