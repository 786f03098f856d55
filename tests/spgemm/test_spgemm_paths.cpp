// tests/spgemm/test_spgemm_paths.cpp: every MAGNUS code path forced on small inputs: each category, the coarse
// level (and its batching), chunk-sort/dense switch and merging, 64-bit local indices, thresholds and chunk
// boundaries, thread counts 1 and 2, numeric reuse with new values.
#include <omp.h>

#include <algorithm>
#include <map>
#include <optional>

#include <gtest/gtest.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/gen/generators.hpp>

#include "spgemm_test_utils.hpp"

namespace gigasparse::test {
namespace {

constexpr int cat(SpgemmCategory c) { return static_cast<int>(c); }

template <class T>
class SpgemmPaths : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmPaths, SpgemmTypes);

// Rows with many products over a wide column range, plus short and empty rows.
template <class V, class I>
std::pair<Csr<V, I>, Csr<V, I>> mixed_operands(std::uint64_t seed) {
    return {power_law<V, I>(400, 900, 120, seed), random_csr<V, I>(900, 1500, 12, seed + 1, 0.1)};
}

TYPED_TEST(SpgemmPaths, EachCategoryForced) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto [a, b] = mixed_operands<V, I>(3);
    for (auto c : {SpgemmCategory::sort, SpgemmCategory::dense, SpgemmCategory::fine, SpgemmCategory::coarse}) {
        SCOPED_TRACE(to_string(c));
        SpgemmOptions o;
        o.force_category = c;
        if (c == SpgemmCategory::coarse) {
            o.coarse_chunk_cols = 256;
            o.fine_chunk_cols = 32;
        }
        const auto s = expect_matches_reference(a, b, o);
        for (int k = 0; k < spgemm_category_count; ++k)
            if (k != cat(c) && k != cat(SpgemmCategory::sort)) {
                EXPECT_EQ(s.category_rows[k], 0);
            }
        EXPECT_EQ(s.category_products[cat(c)], s.products);
    }
}

TYPED_TEST(SpgemmPaths, CoarseLevelWithBatches) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto [a, b] = mixed_operands<V, I>(5);
    for (std::int64_t batch : {std::int64_t(1), std::int64_t(3000), std::int64_t(1) << 22}) {
        SCOPED_TRACE("batch products " + std::to_string(batch));
        SpgemmOptions o;
        o.coarse_chunk_cols = 512;  // 1500 columns -> 2048 -> 4 coarse chunks
        o.fine_chunk_cols = 64;
        o.coarse_batch_products = batch;
        o.dense_max_fill = 0;  // no dense rows: everything above the sort threshold is coarse
        const auto s = expect_matches_reference(a, b, o);
        EXPECT_EQ(s.coarse_chunks, 4);
        EXPECT_GT(s.category_rows[cat(SpgemmCategory::coarse)], 0);
        EXPECT_GE(s.coarse_batches, 1);
        if (batch == 1) {
            EXPECT_EQ(s.coarse_batches, s.category_rows[cat(SpgemmCategory::coarse)]);
        }
    }
}

TYPED_TEST(SpgemmPaths, ChunkAccumulatorSwitchAndMerging) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto [a, b] = mixed_operands<V, I>(7);
    for (std::int64_t chunk_sort : {1, 2, 16, 256, 100000})
        for (std::int64_t merge : {1, 32, 1000}) {
            SCOPED_TRACE("chunk_sort_threshold " + std::to_string(chunk_sort) + " merge " + std::to_string(merge));
            SpgemmOptions o;
            o.force_category = SpgemmCategory::fine;
            o.fine_chunk_cols = 64;
            o.chunk_sort_threshold = chunk_sort;
            o.sort_merge_target = merge;
            expect_matches_reference(a, b, o);
        }
}

TYPED_TEST(SpgemmPaths, WideLocalIndices) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto [a, b] = mixed_operands<V, I>(9);
    for (auto force : {SpgemmCategory::fine, SpgemmCategory::coarse}) {
        SpgemmOptions o;
        o.wide_threshold = 8;  // every row (and batch) with >= 8 products uses 64-bit chunk-local indices
        o.force_category = force;
        o.coarse_chunk_cols = force == SpgemmCategory::coarse ? 256 : 0;
        const auto s = expect_matches_reference(a, b, o);
        EXPECT_GT(s.wide_rows, 0);
    }
}

// Row i of A hits one row of B with exactly len[i] entries: products around the sort thresholds (32 and 256).
TYPED_TEST(SpgemmPaths, SortThresholdBoundary) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const std::vector<std::int64_t> lens = {1, 31, 32, 33, 255, 256, 257, 511, 512, 513, 1000};
    const std::int64_t n = 1200;
    Csr<V, I> b(static_cast<std::int64_t>(lens.size()), n);
    std::mt19937_64 rng(17);
    for (std::size_t r = 0; r < lens.size(); ++r) {
        std::vector<std::int64_t> cols(n);
        for (std::int64_t j = 0; j < n; ++j) cols[j] = j;
        std::shuffle(cols.begin(), cols.end(), rng);
        for (std::int64_t t = 0; t < lens[r]; ++t) {
            b.col_idx.push_back(static_cast<I>(cols[t]));
            b.values.push_back(static_cast<V>(t + 1));
        }
        b.row_ptr[r + 1] = static_cast<offset_t>(b.col_idx.size());
    }
    Csr<V, I> a(static_cast<std::int64_t>(lens.size()), b.nrows);
    for (std::size_t r = 0; r < lens.size(); ++r) {
        a.col_idx.push_back(static_cast<I>(r));
        a.values.push_back(V(2));
        a.row_ptr[r + 1] = static_cast<offset_t>(r + 1);
    }
    for (const auto& [threshold, sorted] : {std::pair<std::int64_t, std::int64_t>{32, 2}, {256, 5}})  // 1, 31 | 1, 31, 32, 33, 255
        for (bool spa : {false, true}) {  // sort_threshold without the SPA, spa_threshold with it
            SCOPED_TRACE(std::string("spa ") + (spa ? "on" : "off"));
            SpgemmOptions o;
            o.dense_max_fill = 0;
            o.sort_threshold = spa ? 1000 : threshold;
            o.spa_threshold = spa ? threshold : 1000;
            o.spa_max_cols = spa ? -1 : 0;
            const auto s = expect_matches_reference(a, b, o);
            EXPECT_EQ(s.category_rows[cat(SpgemmCategory::sort)], sorted);
            EXPECT_EQ(s.spa_rows, spa ? sorted : 0);
            o.fine_chunk_cols = 256;
            o.chunk_sort_threshold = 256;
            expect_matches_reference(a, b, o);
        }
}

// Columns at every multiple of the chunk length (and one below), ncols not a power of two, last column hit.
TYPED_TEST(SpgemmPaths, ChunkBoundaries) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const std::int64_t n = 1000, len = 64;
    Csr<V, I> b(4, n);
    for (std::int64_t r = 0; r < 4; ++r) {
        for (std::int64_t j = r % 2; j < n; j += len) {
            if (j > 0 && r < 2) {
                b.col_idx.push_back(static_cast<I>(j - 1));
                b.values.push_back(V(1));
            }
            b.col_idx.push_back(static_cast<I>(j));
            b.values.push_back(static_cast<V>(r + 1));
        }
        b.col_idx.push_back(static_cast<I>(n - 1 - r));
        b.values.push_back(V(3));
        b.row_ptr[r + 1] = static_cast<offset_t>(b.col_idx.size());
    }
    const auto a = random_csr<V, I>(300, 4, 3, 19);
    for (auto force : {SpgemmCategory::fine, SpgemmCategory::coarse, SpgemmCategory::dense, SpgemmCategory::sort}) {
        SpgemmOptions o;
        o.force_category = force;
        o.fine_chunk_cols = len;
        o.coarse_chunk_cols = force == SpgemmCategory::coarse ? 4 * len : 0;
        o.chunk_sort_threshold = 8;
        expect_matches_reference(a, b, o);
    }
}

TYPED_TEST(SpgemmPaths, ThreadCountsOneAndTwo) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto [a, b] = mixed_operands<V, I>(23);
    const int saved = omp_get_max_threads();
    std::vector<Csr<V, I>> results;
    for (int t : {1, 2}) {
        omp_set_num_threads(t);
        SpgemmOptions o;
        o.serial_products = 0;  // these small products would otherwise run on one thread
        const auto s = expect_matches_reference(a, b, o);
        EXPECT_EQ(s.threads, t);
        o.threads = 3 - t;  // the option overrides the OpenMP default
        o.coarse_chunk_cols = 256;
        EXPECT_EQ(expect_matches_reference(a, b, o).threads, 3 - t);
        results.push_back(multiply<V, I>(a, b, o));
    }
    omp_set_num_threads(saved);
    EXPECT_TRUE(same_csr(results[0], results[1]));  // deterministic: no order dependence on threads
}

TYPED_TEST(SpgemmPaths, NumericReuseWithNewValues) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto [a, b] = mixed_operands<V, I>(29);
    for (std::int64_t coarse : {std::int64_t(0), std::int64_t(256)}) {
        SpgemmOptions o;
        o.coarse_chunk_cols = coarse;
        SpgemmPlan<V, I> plan(o);
        plan.symbolic(a, b);
        Csr<V, I> c;
        for (std::uint64_t round = 0; round < 3; ++round) {
            const auto a2 = revalue(a, 100 + round), b2 = revalue(b, 200 + round);
            plan.numeric(a2, b2, c);  // reuses c's storage after the first round
            EXPECT_TRUE(spgemm_near(reference::spgemm<V, I>(a2, b2), c));
            EXPECT_EQ(c.nnz(), plan.nnz());
        }
        const auto b3 = random_csr<V, I>(900, 700, 20, 31);
        plan.symbolic(a, b3);  // a new symbolic phase replans for another pattern
        EXPECT_TRUE(spgemm_near(reference::spgemm<V, I>(a, b3), plan.numeric(a, b3)));
        EXPECT_THROW(plan.numeric(a, b), InvalidArgument);
    }
}

// The numeric phase sizes C itself, block by block (about 256 KiB of C each) as it writes the rows: an R-MAT
// product of many blocks, with 1 and 2 threads, into a fresh C, into the same C again, into a C left by a larger
// product and by a smaller one, and into a C whose two arrays differ in size; trailing rows without entries and
// an empty product end at the right size too.
TYPED_TEST(SpgemmPaths, OutputGrowsBlockByBlock) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto a = rmat_csr<V, I>(11, 8, 71);
    const auto b = revalue(a, 72);
    Csr<V, I> tail = a;  // a copy whose last 100 rows are empty
    for (std::int64_t i = tail.nrows - 100; i <= tail.nrows; ++i) tail.row_ptr[static_cast<std::size_t>(i)] = tail.row_ptr[static_cast<std::size_t>(tail.nrows - 100)];
    tail.col_idx.resize(static_cast<std::size_t>(tail.row_ptr.back()));
    tail.values.resize(static_cast<std::size_t>(tail.row_ptr.back()));
    const Csr<V, I> none(a.nrows, a.ncols);
    const auto ref_ab = reference::spgemm<V, I>(a, b), ref_tail = reference::spgemm<V, I>(tail, b);
    ASSERT_GT(ref_ab.nnz(), 8 * (offset_t(256) << 10) / static_cast<offset_t>(sizeof(V) + sizeof(I)));  // several blocks
    for (int threads : {1, 2}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        SpgemmOptions o;
        o.threads = threads;
        o.serial_products = 0;
        expect_matches_reference(a, b, o);
        expect_matches_reference(tail, b, o);
        expect_matches_reference(none, b, o);
        SpgemmPlan<V, I> big(o), small(o);
        big.symbolic(a, b);
        small.symbolic(tail, b);
        Csr<V, I> c;
        for (int round = 0; round < 2; ++round) {  // fresh, then the same C again
            big.numeric(a, b, c);
            EXPECT_TRUE(spgemm_near(ref_ab, c));
        }
        small.numeric(tail, b, c);  // a C longer than the result
        EXPECT_TRUE(spgemm_near(ref_tail, c));
        EXPECT_EQ(c.col_idx.size(), static_cast<std::size_t>(ref_tail.nnz()));
        EXPECT_EQ(c.values.size(), static_cast<std::size_t>(ref_tail.nnz()));
        big.numeric(a, b, c);  // a C shorter than the result
        EXPECT_TRUE(spgemm_near(ref_ab, c));
        c.col_idx.resize(5);  // arrays of different sizes (not a C this library made)
        c.values.assign(ref_ab.values.size() + 7, V(3));
        big.numeric(a, b, c);
        EXPECT_TRUE(spgemm_near(ref_ab, c));
        SpgemmPlan<V, I> empty(o);
        empty.symbolic(none, b);
        empty.numeric(none, b, c);  // an empty product into a full C
        EXPECT_EQ(c.nnz(), 0);
        EXPECT_TRUE(c.col_idx.empty());
        EXPECT_TRUE(c.values.empty());
    }
}

// Dense rows on the window accumulator (flag bytes) and on the bitmap, sort rows on the sparse accumulator
// (SPA) and on expand-sort-compress: each choice forced in turn, on banded (narrow ranges, neighbouring
// columns) and mixed operands, with 1 and 2 threads and numeric reuse (the SPA's stamps persist in the plan).
TYPED_TEST(SpgemmPaths, WindowAndSparseAccumulatorsForced) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto [ma, mb] = mixed_operands<V, I>(41);
    const auto band = banded<V, I>(300, 9, 43);
    const std::vector<std::pair<Csr<V, I>, Csr<V, I>>> operands = {{ma, mb}, {band, band}};
    for (std::size_t k = 0; k < operands.size(); ++k)
        for (int threads : {1, 2}) {
            const auto& [a, b] = operands[k];
            for (std::int64_t fill : {std::int64_t(0), std::int64_t(8), std::int64_t(1) << 40}) {
                SCOPED_TRACE("operands " + std::to_string(k) + " threads " + std::to_string(threads) + " window_max_fill " + std::to_string(fill));
                SpgemmOptions o;
                o.threads = threads;
                o.force_category = SpgemmCategory::dense;
                o.window_max_fill = fill;
                const auto s = expect_matches_reference(a, b, o);
                const std::int64_t dense = s.category_rows[cat(SpgemmCategory::dense)];
                if (fill == 0) {
                    EXPECT_EQ(s.window_rows, 0);
                } else if (fill == std::int64_t(1) << 40 || k == 1) {  // banded rows are narrow
                    EXPECT_EQ(s.window_rows, dense);
                }
            }
            for (std::int64_t spa : {std::int64_t(0), std::int64_t(-1), b.ncols - 1, b.ncols}) {
                SCOPED_TRACE("operands " + std::to_string(k) + " threads " + std::to_string(threads) + " spa_max_cols " + std::to_string(spa));
                SpgemmOptions o;
                o.threads = threads;
                o.force_category = SpgemmCategory::sort;
                o.spa_max_cols = spa;
                const auto s = expect_matches_reference(a, b, o);
                const bool on = spa == -1 || spa >= b.ncols;
                EXPECT_EQ(s.spa_rows > 0, on);
                expect_numeric_reuse(a, b, o, 300);  // stamps of earlier rows must not leak into later ones
            }
        }
}

// The sparse accumulator past its cache budget: on for banded operands (every row's products within a window the
// budget holds), off for random ones of the same width. A tiny L2 model (16 KiB: 2 x 16 KiB / (4 + sizeof(V)) columns,
// 1,365-2,730) below the 8,000 columns of a 20³ Laplacian, whose window is 2 (400 + 400) + 1 = 1,601 columns.
TYPED_TEST(SpgemmPaths, SparseAccumulatorForBandedOperandsPastItsBudget) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto p = gen::poisson3d<double, I>(20, 20, 20);
    const auto lap = coupled<V>(p, [](std::int64_t) { return 0.5; });
    const auto rnd = random_csr<V, I>(p.nrows, p.ncols, 7, 61);
    SpgemmOptions o;
    o.l2_bytes = 16 << 10;
    o.threads = 2;
    const std::int64_t budget = 2 * o.l2_bytes / static_cast<std::int64_t>(4 + sizeof(V));
    const bool fits = 1601 <= budget;
    const auto banded = expect_matches_reference(lap, lap, o);
    EXPECT_EQ(banded.spa_rows > 0, fits) << "budget " << budget << " columns";
    const auto random = expect_matches_reference(rnd, rnd, o);
    EXPECT_EQ(random.spa_rows, 0);
    o.spa_max_cols = 1000;  // an explicit limit is a limit
    EXPECT_EQ(expect_matches_reference(lap, lap, o).spa_rows, 0);
}

// dense_l2_factor: rows whose range lies between one and two L2s of accumulator are dense with the factor 2,
// fine-level rows with 1 (MAGNUS). A tiny L2 model makes the limit 256 columns (x factor).
TYPED_TEST(SpgemmPaths, DenseL2Factor) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto a = random_csr<V, I>(60, 80, 20, 51), b = random_csr<V, I>(80, 400, 20, 52);  // ~400 products over ~400 columns
    for (std::int64_t factor : {1, 2}) {
        SCOPED_TRACE("dense_l2_factor " + std::to_string(factor));
        SpgemmOptions o;
        o.l2_bytes = static_cast<std::int64_t>(sizeof(V) + 1) * 256;
        o.dense_l2_factor = factor;
        o.spa_max_cols = 0;
        const auto s = expect_matches_reference(a, b, o);
        EXPECT_EQ(s.dense_max_cols, 256 * factor);
        if (factor == 1) {
            EXPECT_EQ(s.category_rows[cat(SpgemmCategory::dense)], 0);
        } else {
            EXPECT_GT(s.category_rows[cat(SpgemmCategory::dense)], 0);
        }
    }
}

// Dense rows on the bitmap accumulator in column blocks of a quarter of L2 (B's rows sorted): a tiny L2 model
// makes the blocks 64 columns, so the rows (~900 columns wide) span many blocks; with 1 and 2 threads, wide and
// narrow rows, R-MAT rows, and B's rows unsorted (the unblocked accumulator) for comparison.
TYPED_TEST(SpgemmPaths, DenseRowsInColumnBlocks) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto [a, b] = mixed_operands<V, I>(81);
    Csr<V, I> b_unsorted = b;
    for (std::int64_t k = 0; k < b_unsorted.nrows; ++k) {
        const auto q0 = static_cast<std::size_t>(b_unsorted.row_ptr[k]), q1 = static_cast<std::size_t>(b_unsorted.row_ptr[k + 1]);
        std::reverse(b_unsorted.col_idx.begin() + q0, b_unsorted.col_idx.begin() + q1);
        std::reverse(b_unsorted.values.begin() + q0, b_unsorted.values.begin() + q1);
    }
    const auto r = rmat_csr<V, I>(10, 8, 82);  // R-MAT rows: wide ranges, skewed towards the first columns
    for (int threads : {1, 2})
        for (std::int64_t l2 : {std::int64_t(0), static_cast<std::int64_t>(4 * sizeof(V) * 64)}) {
            SCOPED_TRACE("threads " + std::to_string(threads) + " l2_bytes " + std::to_string(l2));
            SpgemmOptions o;
            o.threads = threads;
            o.l2_bytes = l2;
            o.force_category = SpgemmCategory::dense;
            o.window_max_fill = 0;
            expect_matches_reference(a, b, o);
            expect_matches_reference(a, b_unsorted, o);
            expect_matches_reference(r, revalue(r, 83), o);
        }
}

// serial_products: a product below it runs on one thread whatever the thread option; at 0 the option rules.
TYPED_TEST(SpgemmPaths, SmallProductsRunOnOneThread) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto [a, b] = mixed_operands<V, I>(61);
    for (std::int64_t serial : {std::int64_t(0), std::int64_t(1) << 40}) {
        SpgemmOptions o;
        o.threads = 2;
        o.serial_products = serial;
        EXPECT_EQ(expect_matches_reference(a, b, o).threads, serial == 0 ? 2 : 1);
    }
    SpgemmOptions bad;
    bad.serial_products = -1;
    EXPECT_THROW((multiply<V, I>(a, b, bad)), InvalidArgument);
}

// Column ranges from unsorted B rows: the plan takes a row's range from its first and last entries only when
// validation found every row of B sorted; otherwise from B's per-row minima and maxima, kept in 32 bits, or in
// 64 bits when the wide threshold is lowered. Each range-dependent category is forced (dense and fine index
// their accumulators by the range), with 1 and 2 threads, for A·B and A·A.
TYPED_TEST(SpgemmPaths, RangesOfUnsortedRows) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto a = power_law<V, I>(300, 700, 90, 71);
    const auto b = random_csr<V, I>(700, 900, 14, 72, 0.1);
    // B sorted but for one row whose smallest and largest columns sit inside it, and a sorted B whose only
    // descents are at row starts (not a reason to fall back).
    auto one_unsorted = b;
    for (std::int64_t k = 0; k < b.nrows; ++k)
        if (b.row_ptr[k + 1] - b.row_ptr[k] >= 3) {
            const offset_t p = b.row_ptr[k];
            std::swap(one_unsorted.col_idx[p], one_unsorted.col_idx[p + 1]);  // the minimum moves inside
            const offset_t q = b.row_ptr[k + 1] - 1;
            std::swap(one_unsorted.col_idx[q], one_unsorted.col_idx[q - 1]);  // and so does the maximum
            break;
        }
    const std::vector<std::pair<const char*, Csr<V, I>>> bs = {{"sorted", b}, {"one unsorted row", one_unsorted}, {"shuffled", unsort_rows(b, 73)}};
    for (const auto& [name, bb] : bs)
        for (std::int64_t wide : {std::int64_t(8), std::int64_t(1) << 31})
            for (int threads : {1, 2})
                for (auto force : {std::optional<SpgemmCategory>{}, std::optional{SpgemmCategory::dense}, std::optional{SpgemmCategory::fine}}) {
                    SCOPED_TRACE(std::string(name) + " wide_threshold " + std::to_string(wide) + " threads " + std::to_string(threads) +
                                 " force " + (force ? to_string(*force) : "none"));
                    SpgemmOptions o;
                    o.threads = threads;
                    o.wide_threshold = wide;
                    o.force_category = force;
                    o.window_max_fill = 0;  // the bitmap accumulator spans exactly [lo, hi]
                    o.spa_threshold = 40;
                    expect_matches_reference(a, bb, o);
                    const auto sq = unsort_rows(random_csr<V, I>(400, 400, 9, 74), 75);  // A·A: the operand is checked once
                    expect_matches_reference(sq, sq, o);
                }
}

// Sort rows are not listed in the plan: the kernels walk the rows between the listed (dense, fine, coarse) rows
// in blocks. Long, short and empty rows interleave here, with every listed category present, more rows than
// one block, 1 and 2 threads; the row lists in 32 and 64 bits (lowered wide threshold) give the same result
// and the 32-bit lists take less plan memory.
TYPED_TEST(SpgemmPaths, SortRowsBetweenListedRows) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const std::int64_t m = 3000, n = 2000;
    Coo<V, I> coo{m, n, {}, {}, {}};
    std::mt19937_64 rng(81);
    for (std::int64_t i = 0; i < m; ++i) {
        const std::int64_t kind = (i * 7 + i / 11) % 5;  // 0 empty, 1-2 short, 3 long and banded, 4 long and spread
        const std::int64_t len = kind == 0 ? 0 : kind <= 2 ? 1 + i % 3 : 12;
        for (std::int64_t t = 0; t < len; ++t) {
            coo.row.push_back(static_cast<I>(i));
            const std::int64_t j = kind == 3 ? (i % (n - 40)) + static_cast<std::int64_t>(rng() % 40) : static_cast<std::int64_t>(rng() % n);
            coo.col.push_back(static_cast<I>(j));
            coo.val.push_back(static_cast<V>(1 + rng() % 5));
        }
    }
    const auto a = coo_to_csr(coo);
    Coo<V, I> cb{n, n, {}, {}, {}};  // B banded: row k has 10 entries in [k, k + 30)
    for (std::int64_t k = 0; k < n; ++k)
        for (int t = 0; t < 10; ++t) {
            cb.row.push_back(static_cast<I>(k));
            cb.col.push_back(static_cast<I>(std::min(n - 1, k + static_cast<std::int64_t>(rng() % 30))));
            cb.val.push_back(static_cast<V>(1 + rng() % 3));
        }
    const auto b = coo_to_csr(cb);
    for (int threads : {1, 2}) {
        std::vector<std::int64_t> plan_bytes;
        for (std::int64_t wide : {std::int64_t(1) << 31, std::int64_t(64)}) {
            SCOPED_TRACE("threads " + std::to_string(threads) + " wide_threshold " + std::to_string(wide));
            SpgemmOptions o;
            o.threads = threads;
            o.wide_threshold = wide;
            o.spa_threshold = 60;
            o.sort_threshold = 60;
            o.dense_max_fill = 2;  // banded long rows are dense, spread ones fine (or coarse)
            const auto s = expect_matches_reference(a, b, o);
            EXPECT_GT(s.category_rows[cat(SpgemmCategory::sort)], m / 2);
            EXPECT_GT(s.category_rows[cat(SpgemmCategory::dense)], 100);
            EXPECT_GT(s.category_rows[cat(SpgemmCategory::fine)], 100);
            plan_bytes.push_back(s.plan_bytes);
            o.coarse_chunk_cols = 512;
            o.fine_chunk_cols = 64;
            const auto sc = expect_matches_reference(a, b, o);
            EXPECT_GT(sc.category_rows[cat(SpgemmCategory::coarse)], 100);
            EXPECT_GT(sc.category_rows[cat(SpgemmCategory::dense)], 100);
        }
        EXPECT_LT(plan_bytes[0], plan_bytes[1]);
    }
}

// Narrow sort rows (16+ products, B sorted) take the window accumulator in the numeric phase, the others the
// SPA or expand-sort-compress; window_max_fill = 0 turns the window off. Banded rows (narrow), mixed rows and an
// unsorted copy of B (no window), 1 and 2 threads, numeric reuse with new values (the window's flags and values
// must be zero again after each row, also for the dense rows sharing them).
TYPED_TEST(SpgemmPaths, NarrowSortRowsOnTheWindow) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto band = banded<V, I>(700, 3, 91);  // 7 entries per row: 49 products over 13 columns
    const auto wide_band = banded<V, I>(700, 12, 92);  // dense rows next to the sort rows
    const std::vector<std::pair<Csr<V, I>, Csr<V, I>>> operands = {{band, band}, {band, unsort_rows(band, 93)}, {wide_band, band},
                                                                   {power_law<V, I>(300, 700, 40, 94), band}};
    for (std::size_t k = 0; k < operands.size(); ++k)
        for (int threads : {1, 2})
            for (std::int64_t fill : {std::int64_t(0), std::int64_t(8)})
                for (std::int64_t spa : {std::int64_t(-1), std::int64_t(0)}) {
                    SCOPED_TRACE("operands " + std::to_string(k) + " threads " + std::to_string(threads) + " window_max_fill " +
                                 std::to_string(fill) + " spa_max_cols " + std::to_string(spa));
                    const auto& [a, b] = operands[k];
                    SpgemmOptions o;
                    o.threads = threads;
                    o.window_max_fill = fill;
                    o.spa_max_cols = spa;
                    o.sort_threshold = 128;  // the same sort rows with and without the SPA
                    const auto s = expect_matches_reference(a, b, o);
                    EXPECT_GT(s.category_rows[cat(SpgemmCategory::sort)], 0);
                    expect_numeric_reuse(a, b, o, 500);
                }
}

// A row of A with one entry is a scaled copy of one row of B when B's rows are sorted without duplicates (and no
// category is forced). A with rows of 0, 1 and 2 entries (short and long rows of B: sort and listed rows) against
// B sorted, B sorted with repeated columns (no copy: they must be summed) and B unsorted; A·A too; 1 and 2 threads.
TYPED_TEST(SpgemmPaths, SingleEntryRowsOfA) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const std::int64_t m = 900, n = 600;
    std::mt19937_64 rng(101);
    Coo<V, I> ca{m, n, {}, {}, {}};
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t t = 0; t < i % 3; ++t) {
            ca.row.push_back(static_cast<I>(i));
            ca.col.push_back(static_cast<I>(rng() % n));
            ca.val.push_back(static_cast<V>(static_cast<double>(rng() % 7) - 3.0));
        }
    const auto a = coo_to_csr(ca);
    auto b = power_law<V, I>(n, 800, 300, 102);  // long head rows (listed), short tail rows
    auto repeated = b;  // sorted, with the first column of every row of 2+ entries repeated
    for (std::int64_t k = 0; k < b.nrows; ++k)
        if (b.row_ptr[k + 1] - b.row_ptr[k] >= 2) repeated.col_idx[b.row_ptr[k] + 1] = repeated.col_idx[b.row_ptr[k]];
    ASSERT_TRUE(sorted_rows(b));
    const std::vector<std::pair<const char*, Csr<V, I>>> bs = {{"sorted", b}, {"repeated columns", repeated}, {"unsorted", unsort_rows(b, 103)}};
    for (const auto& [name, bb] : bs)
        for (int threads : {1, 2}) {
            SCOPED_TRACE(std::string(name) + " threads " + std::to_string(threads));
            SpgemmOptions o;
            o.threads = threads;
            const auto s = expect_matches_reference(a, bb, o);
            EXPECT_GT(s.category_rows[cat(SpgemmCategory::sort)], 0);
            EXPECT_GT(s.category_rows[cat(SpgemmCategory::dense)] + s.category_rows[cat(SpgemmCategory::fine)], 0);
            const auto sq = coo_to_csr(ca);  // square A·A: 900 x 600 is not square, so take its leading block
            Csr<V, I> sub(n, n);
            for (std::int64_t i = 0; i < n; ++i) {
                for (offset_t p = sq.row_ptr[i]; p < sq.row_ptr[i + 1]; ++p) {
                    sub.col_idx.push_back(sq.col_idx[p]);
                    sub.values.push_back(sq.values[p]);
                }
                sub.row_ptr[i + 1] = static_cast<offset_t>(sub.col_idx.size());
            }
            expect_matches_reference(sub, sub, o);
            // numeric reuse with new values through a plan
            SpgemmPlan<V, I> plan(o);
            plan.symbolic(a, bb);
            const auto a2 = revalue(a, 104), b2 = revalue(bb, 105);
            EXPECT_TRUE(spgemm_near(reference::spgemm<V, I>(a2, b2), plan.numeric(a2, b2)));
        }
}

TEST(SpgemmPathsNonFinite, NanAndInfPropagate) {
    Csr<double, std::int32_t> a(1, 2), b(2, 2);
    a.row_ptr = {0, 2};
    a.col_idx = {0, 1};
    a.values = {std::numeric_limits<double>::quiet_NaN(), 1.0};
    b.row_ptr = {0, 1, 2};
    b.col_idx = {0, 1};
    b.values = {1.0, std::numeric_limits<double>::infinity()};
    for (auto force : {SpgemmCategory::sort, SpgemmCategory::dense, SpgemmCategory::fine})
        for (std::int64_t alt : {0, 1}) {  // the sort and dense categories on both of their accumulators
            SpgemmOptions o;
            o.force_category = force;
            o.spa_max_cols = alt ? -1 : 0;
            o.window_max_fill = alt ? 8 : 0;
            const auto c = multiply<double, std::int32_t>(a, b, o);
            ASSERT_EQ(c.nnz(), 2);
            EXPECT_TRUE(std::isnan(c.values[0]));
            EXPECT_TRUE(std::isinf(c.values[1]));
        }
}

}  // namespace
}  // namespace gigasparse::test

namespace gigasparse::test {
namespace {

// B with 2^33 columns (int64 indices): m_C passes the L2 limit of the cache model, so the coarse level
// engages by itself (no forcing) and chunk-local columns stay 32-bit below 2^32. Checked against a map.
TEST(SpgemmHugeColumns, CoarseLevelEngagesNaturally) {
    const std::int64_t ncols = std::int64_t(1) << 33;
    std::mt19937_64 rng(77);
    Coo<double, std::int64_t> cb{100, ncols, {}, {}, {}}, ca{60, 100, {}, {}, {}};
    for (std::int64_t k = 0; k < 100; ++k)
        for (int t = 0; t < 12; ++t) {
            cb.row.push_back(k);
            cb.col.push_back(t < 4 ? static_cast<std::int64_t>(rng() % 64) * 1000 : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(ncols)));
            cb.val.push_back(static_cast<double>(rng() % 7) - 3.0);
        }
    for (std::int64_t i = 0; i < 60; ++i)
        for (int t = 0; t < 1 + (i % 15); ++t) {
            ca.row.push_back(i);
            ca.col.push_back(static_cast<std::int64_t>(rng() % 100));
            ca.val.push_back(static_cast<double>(rng() % 5) + 1.0);
        }
    const auto a = coo_to_csr(ca), b = coo_to_csr(cb);
    SpgemmOptions o;
    o.l2_bytes = std::int64_t(2) << 20;
    o.sort_threshold = 16;
    SpgemmStats s;
    const auto c = multiply<double, std::int64_t>(a, b, o, &s);
    EXPECT_EQ(s.coarse_chunks, 16);  // 2^33 / m_CmaxL2 = 2^29 (2 MiB, fp64)
    EXPECT_GT(s.category_rows[static_cast<int>(SpgemmCategory::coarse)], 0);
    ASSERT_TRUE(sorted_rows(c));
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        std::map<std::int64_t, double> row;
        for (offset_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
            for (offset_t q = b.row_ptr[a.col_idx[p]]; q < b.row_ptr[a.col_idx[p] + 1]; ++q) row[b.col_idx[q]] += a.values[p] * b.values[q];
        ASSERT_EQ(c.row_ptr[i + 1] - c.row_ptr[i], static_cast<offset_t>(row.size())) << "row " << i;
        offset_t p = c.row_ptr[i];
        for (const auto& [j, v] : row) {
            EXPECT_EQ(c.col_idx[p], j);
            EXPECT_DOUBLE_EQ(c.values[p], v);
            ++p;
        }
    }
}

}  // namespace
}  // namespace gigasparse::test
