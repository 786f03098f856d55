// src/spgemm/analysis.cpp: setup phase: per-row counts and ranges (OpenMP), categories, coarse batches.
#include "spgemm/analysis.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>
#include <string>

#include <gigasparse/core/error.hpp>

namespace gigasparse::spgemm {
namespace {

void check_options(const SpgemmOptions& o) {
    if (o.sort_threshold < 0 || o.chunk_sort_threshold < 1 || o.sort_merge_target < 1 || o.dense_max_fill < 0 ||
        o.coarse_batch_products < 1 || o.wide_threshold < 1 || o.l2_bytes < 0 || o.cache_line_bytes < 0 || o.threads < 0 ||
        o.window_max_fill < 0 || o.spa_max_cols < -1 || o.spa_threshold < 0 || o.dense_l2_factor < 1)
        throw InvalidArgument("spgemm: an option is out of range (thresholds must be positive, sizes non-negative)");
}

// Per row k of B: smallest and largest column (any order of the row's entries).
template <class V, class I>
void b_row_ranges(CsrView<V, I> b, std::vector<std::int64_t>& lo, std::vector<std::int64_t>& hi, int threads) {
    lo.assign(static_cast<std::size_t>(b.nrows), std::numeric_limits<std::int64_t>::max());
    hi.assign(static_cast<std::size_t>(b.nrows), -1);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t k = 0; k < b.nrows; ++k)
        for (offset_t p = b.row_ptr[k]; p < b.row_ptr[k + 1]; ++p) {
            lo[k] = std::min<std::int64_t>(lo[k], b.col_idx[p]);
            hi[k] = std::max<std::int64_t>(hi[k], b.col_idx[p]);
        }
}

// row_products[i] = sum over k in A(i,:) of nnz(B(k,:)); row range = union of the B rows' ranges. Every entry
// is written below, so the arrays are only resized (no fill).
template <class V, class I>
void row_counts(CsrView<V, I> a, CsrView<V, I> b, Analysis& an, int threads) {
    std::vector<std::int64_t> blo, bhi;
    b_row_ranges(b, blo, bhi, threads);
    an.b_range_bytes = static_cast<std::int64_t>((blo.capacity() + bhi.capacity()) * sizeof(std::int64_t));
    an.row_products.resize(static_cast<std::size_t>(a.nrows));
    an.row_lo.resize(static_cast<std::size_t>(a.nrows));
    an.row_hi.resize(static_cast<std::size_t>(a.nrows));
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads)
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        offset_t n = 0;
        std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -1;
        for (offset_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            const std::int64_t k = a.col_idx[p];
            n += b.row_ptr[k + 1] - b.row_ptr[k];
            lo = std::min(lo, blo[k]);
            hi = std::max(hi, bhi[k]);
        }
        an.row_products[i] = n;
        an.row_lo[i] = lo;
        an.row_hi[i] = hi;
    }
}

// MAGNUS categories: sort below the threshold, dense when the row range fits L2 (and is not much
// sparser than the products), fine when the fine level fits L2, coarse otherwise.
SpgemmCategory categorize(const Analysis& an, std::int64_t i, const SpgemmOptions& o) {
    const offset_t n = an.row_products[i];
    if (n == 0) return SpgemmCategory::sort;
    if (o.force_category) return *o.force_category;
    if (n < (an.spa ? o.spa_threshold : o.sort_threshold)) return SpgemmCategory::sort;
    const std::int64_t range = an.row_hi[i] - an.row_lo[i] + 1;
    if (range <= an.numeric.dense_max_cols && range <= o.dense_max_fill * n) return SpgemmCategory::dense;
    return an.numeric.coarse ? SpgemmCategory::coarse : SpgemmCategory::fine;
}

// Categories of every row, in parallel: each thread takes a contiguous block of rows, counts its rows per
// category, then (after the offsets are known) writes them in place, so every list stays ascending.
void categorize_rows(Analysis& an, const SpgemmOptions& o, int threads) {
    const std::int64_t m = an.nrows;
    const int nt = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, m / 4096 + 1)));
    std::vector<std::array<std::int64_t, spgemm_category_count>> count(static_cast<std::size_t>(nt));
    struct Sums {
        std::array<offset_t, spgemm_category_count> products{};
        offset_t total = 0, max = 0;
        std::int64_t wide = 0, window = 0, spa = 0;
    };
    std::vector<Sums> sums(static_cast<std::size_t>(nt));
    std::vector<std::uint8_t> cat(static_cast<std::size_t>(m));
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num();
        const std::int64_t r0 = m * t / nt, r1 = m * (t + 1) / nt;
        auto& cnt = count[static_cast<std::size_t>(t)];
        cnt = {};
        Sums& su = sums[static_cast<std::size_t>(t)];
        for (std::int64_t i = r0; i < r1; ++i) {
            const SpgemmCategory c = categorize(an, i, o);
            const int k = static_cast<int>(c);
            const offset_t n = an.row_products[i];
            cat[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(k);
            ++cnt[k];
            su.products[k] += n;
            su.total += n;
            su.max = std::max(su.max, n);
            if (n > 0 && use_wide(an, n, 0)) ++su.wide;
            if (n > 0 && c == SpgemmCategory::dense && use_window(an, i)) ++su.window;
            if (n > 0 && c == SpgemmCategory::sort && an.spa) ++su.spa;
        }
#pragma omp barrier
#pragma omp single
        {
            for (int k = 0; k < spgemm_category_count; ++k) {
                std::int64_t run = 0;
                for (int u = 0; u < nt; ++u) {
                    const std::int64_t c = count[static_cast<std::size_t>(u)][k];
                    count[static_cast<std::size_t>(u)][k] = run;  // this thread's first slot
                    run += c;
                }
                an.rows[k].resize(static_cast<std::size_t>(run));
            }
        }
        auto pos = count[static_cast<std::size_t>(t)];
        for (std::int64_t i = r0; i < r1; ++i) {
            const int k = cat[static_cast<std::size_t>(i)];
            an.rows[k][static_cast<std::size_t>(pos[k]++)] = i;
        }
    }
    an.category_products = {};
    an.products = 0;
    an.max_row_products = 0;
    an.wide_rows = an.window_rows = an.spa_rows = 0;
    for (const Sums& su : sums) {
        for (int k = 0; k < spgemm_category_count; ++k) an.category_products[k] += su.products[k];
        an.products += su.total;
        an.max_row_products = std::max(an.max_row_products, su.max);
        an.wide_rows += su.wide;
        an.window_rows += su.window;
        an.spa_rows += su.spa;
    }
}

// Coarse rows grouped into batches: at most coarse_batch_products buffered products (a longer row is
// a batch alone) and an offsets table (rows x chunks) within half of L2.
void make_batches(Analysis& an, const SpgemmOptions& o) {
    const auto& rows = an.rows[static_cast<int>(SpgemmCategory::coarse)];
    an.coarse_batches.assign(1, 0);
    const std::int64_t table_rows = std::max<std::int64_t>(1, an.l2_bytes / 2 / (8 * (an.numeric.coarse_chunks + 1)));
    offset_t sum = 0;
    std::int64_t count = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const offset_t n = an.row_products[rows[r]];
        if (count > 0 && (sum + n > o.coarse_batch_products || count >= table_rows)) {
            an.coarse_batches.push_back(static_cast<std::int64_t>(r));
            sum = 0;
            count = 0;
        }
        sum += n;
        ++count;
    }
    if (count > 0) an.coarse_batches.push_back(static_cast<std::int64_t>(rows.size()));
}

}  // namespace

template <class V, class I>
void analyze(CsrView<V, I> a, CsrView<V, I> b, const SpgemmOptions& o, Analysis& an) {
    check_options(o);
    const CacheInfo cache = detect_cache();
    an.nrows = a.nrows;
    an.ncols = b.ncols;
    an.l2_bytes = o.l2_bytes > 0 ? o.l2_bytes : cache.l2_bytes;
    an.line_bytes = o.cache_line_bytes > 0 ? o.cache_line_bytes : cache.line_bytes;
    an.sort_threshold = o.sort_threshold;
    an.chunk_sort_threshold = o.chunk_sort_threshold;
    an.sort_merge_target = o.sort_merge_target;
    an.wide_threshold = o.wide_threshold;
    an.window_max_fill = o.window_max_fill;
    const std::int64_t spa_cols =
        o.spa_max_cols >= 0 ? o.spa_max_cols : std::max<std::int64_t>(1, o.dense_l2_factor) * an.l2_bytes / static_cast<std::int64_t>(4 + sizeof(V));
    an.spa = b.ncols <= spa_cols && b.ncols <= std::numeric_limits<std::int32_t>::max();
    const ChunkOverrides ov{o.fine_chunk_cols, o.coarse_chunk_cols};
    an.numeric = chunk_params(b.ncols, an.l2_bytes, an.line_bytes, static_cast<std::int64_t>(sizeof(V)) + 1, ov);
    an.symbolic = chunk_params(b.ncols, an.l2_bytes, an.line_bytes, 1, ov);
    an.numeric.dense_max_cols *= o.dense_l2_factor;
    if (o.force_category == SpgemmCategory::coarse && !an.numeric.coarse)
        throw InvalidArgument("spgemm: forcing the coarse category needs coarse_chunk_cols below the column count");
    row_counts(a, b, an, o.threads > 0 ? o.threads : omp_get_max_threads());
    categorize_rows(an, o, o.threads > 0 ? o.threads : omp_get_max_threads());
    make_batches(an, o);
}

#define GIGASPARSE_INSTANTIATE_ANALYZE(V, I) template void analyze(CsrView<V, I>, CsrView<V, I>, const SpgemmOptions&, Analysis&);
GIGASPARSE_FOR_EACH_REAL_VALUE_INDEX(GIGASPARSE_INSTANTIATE_ANALYZE)
#undef GIGASPARSE_INSTANTIATE_ANALYZE

}  // namespace gigasparse::spgemm
