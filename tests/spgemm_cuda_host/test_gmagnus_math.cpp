// tests/spgemm_cuda_host/test_gmagnus_math.cpp: hand-checked cases of the gMAGNUS parameter and index functions.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "spgemm/cuda/gmagnus_math.hpp"
#include "spgemm_cuda_host/power_law.hpp"

namespace gm = gigasparse::cuda::gmagnus;
using gm::count_t;

TEST(GmagnusMath, Log2AndPowers) {
    EXPECT_EQ(gm::floor_log2(1), 0);
    EXPECT_EQ(gm::floor_log2(1023), 9);
    EXPECT_EQ(gm::ceil_log2(1), 0);
    EXPECT_EQ(gm::ceil_log2(1025), 11);
    EXPECT_EQ(gm::ceil_log2(count_t(1) << 40), 40);
    EXPECT_EQ(gm::floor_pow2(1365), 1024);
    EXPECT_EQ(gm::ceil_pow2(1000), 1024);
    EXPECT_EQ(gm::ceil_div(10, 3), 4);
}

// H200-like budget (227 KiB opt-in), float values / int32 columns, C with 2^20 columns.
TEST(GmagnusMath, ParamsH200Float) {
    const gm::ElementSizes s{4, 4, 8, 4};
    const count_t smem = 227 * 1024;
    const gm::Params p = gm::make_params(count_t(1) << 20, smem, s);
    EXPECT_EQ(p.hash_capacity, 16384);  // floor_pow2(232448 / 8 = 29056)
    EXPECT_EQ(p.tau, 8192);
    EXPECT_EQ(p.dense_columns, 32768);  // floor_pow2((232448-16)*8/33 = 56347)
    EXPECT_EQ(p.span_log2, 20);
    EXPECT_EQ(p.chunks_required, 32);
    EXPECT_EQ(p.min_group_elems, 232448 / 16);
    // group rows = ceil((14527)/8192)+1 = 3; chunks_max = floor_pow2((232448 - 14528*8 - 4) / (3*8*4 + 8)) = floor_pow2(1117) = 1024
    EXPECT_EQ(p.chunks_max, 1024);
    EXPECT_EQ(p.nlevels, 1);
    EXPECT_EQ(p.chunks_log2[0], 5);
    EXPECT_EQ(gm::chunk_span_log2(p, 1), 15);
    EXPECT_EQ(p.outer_group_elems, 232448 / 18 / 256 * 256);  // 8 + 8 bytes per Ã entry, 2 per element
    EXPECT_TRUE(gm::params_feasible(p));
    EXPECT_EQ(p.multisplit_group_elems[0] % 256, 0);
    EXPECT_LE(gm::multisplit_smem_bytes(p.multisplit_group_elems[0], p.multisplit_group_rows[0], 32, 256, s), smem);
    EXPECT_GT(gm::multisplit_smem_bytes(p.multisplit_group_elems[0] + 256, gm::group_rows_bound(p.multisplit_group_elems[0] + 256, p.tau), 32,
                                        256, s),
              smem);
}

TEST(GmagnusMath, NarrowMatrixNeedsNoMultisplit) {
    const gm::Params p = gm::make_params(1000, 227 * 1024, {4, 8, 8, 4});
    EXPECT_EQ(p.chunks_required, 1);
    EXPECT_EQ(p.nlevels, 0);
    EXPECT_TRUE(gm::params_feasible(p));
}

// A lowered budget forces several levels; the product of chunks per level is chunks_required.
TEST(GmagnusMath, LowBudgetGivesSeveralLevels) {
    for (count_t smem : {2048, 4096, 16384, 49152}) {
        for (count_t ncols : {count_t(100000), count_t(1) << 24, count_t(3) << 30}) {
            const gm::Params p = gm::make_params(ncols, smem, {8, 8, 8, 4}, 32, 32);
            SCOPED_TRACE("smem " + std::to_string(smem) + " ncols " + std::to_string(ncols));
            ASSERT_TRUE(gm::params_feasible(p));
            int total = 0;
            for (int l = 0; l < p.nlevels; ++l) {
                EXPECT_GE(p.chunks_log2[l], 1);
                EXPECT_LE(count_t(1) << p.chunks_log2[l], p.chunks_max);
                total += p.chunks_log2[l];
            }
            EXPECT_EQ(count_t(1) << total, p.chunks_required);
            EXPECT_EQ(count_t(1) << gm::chunk_span_log2(p, p.nlevels), std::min(p.dense_columns, count_t(1) << p.span_log2));
            if (p.nlevels > 1) {
                EXPECT_EQ(count_t(1) << p.chunks_log2[0], p.chunks_max);  // fullest level first (filter)
            }
        }
    }
    const gm::Params p = gm::make_params(count_t(1) << 24, 2048, {8, 8, 8, 4}, 32, 32);
    EXPECT_GE(p.nlevels, 3);
}

TEST(GmagnusMath, FindOwnerSkipsEmptySlices) {
    const std::vector<count_t> off{0, 0, 3, 3, 3, 7, 8};  // slices 0, 2, 3 empty
    const count_t n = 6;
    EXPECT_EQ(gm::find_owner(off.data(), n, 0), 1);
    EXPECT_EQ(gm::find_owner(off.data(), n, 2), 1);
    EXPECT_EQ(gm::find_owner(off.data(), n, 3), 4);
    EXPECT_EQ(gm::find_owner(off.data(), n, 6), 4);
    EXPECT_EQ(gm::find_owner(off.data(), n, 7), 5);
    const std::vector<count_t> one{0, 5};
    EXPECT_EQ(gm::find_owner(one.data(), 1, 4), 0);
}

// Figure 2 style: slice with 2 A entries and B row of 3, split by a block boundary at 4.
TEST(GmagnusMath, AbEntriesAndExcess) {
    // slice offset 0, nb = 3: elements 0..5; block 0 = [0,4), block 1 = [4,8)
    EXPECT_EQ(gm::get_ab_entry(4, 0, 3).a, 1);
    EXPECT_EQ(gm::get_ab_entry(4, 0, 3).b, 1);
    const gm::Range b0{0, 4}, b1{4, 8};
    // A entry 1 starts at flattened 3: block 0 reads 1 of its 3 B elements, block 1 the other 2
    EXPECT_EQ(gm::get_excess(3, 3, b0).first, 0);
    EXPECT_EQ(gm::get_excess(3, 3, b0).last, 2);
    EXPECT_EQ(gm::get_excess(3, 3, b1).first, 1);
    EXPECT_EQ(gm::get_excess(3, 3, b1).last, 0);
    // entry wholly inside, and an entry longer than the block on both sides
    EXPECT_EQ(gm::get_excess(0, 3, b0).first + gm::get_excess(0, 3, b0).last, 0);
    const gm::Excess both = gm::get_excess(2, 10, gm::Range{4, 8});
    EXPECT_EQ(both.first, 2);
    EXPECT_EQ(both.last, 4);
    EXPECT_EQ(gm::group_range(2, 4, 10).begin, 8);
    EXPECT_EQ(gm::group_range(2, 4, 10).end, 10);
}

// get_ab_entry divides in 32 bits when it can: both paths, and the boundary between them, against
// plain 64-bit division and modulo.
TEST(GmagnusMath, AbEntriesAcrossThe32BitBoundary) {
    const count_t two32 = count_t(1) << 32;
    const std::vector<std::pair<count_t, count_t>> cases{
        {0, 1}, {7, 7}, {two32 - 1, 1}, {two32 - 1, 3}, {two32 - 1, two32 - 1}, {two32, 1}, {two32, 3}, {two32 + 5, two32 - 1},
        {3 * two32 + 17, 1000003}, {(count_t(1) << 62) + 12345, 7}, {123, two32}, {two32 * 5 + 1, two32 + 2}, {4000000000LL, 65536}};
    for (const auto& [local, nb] : cases) {
        for (const count_t off : {count_t(0), count_t(1000), two32 + 9}) {
            const gm::ABEntry e = gm::get_ab_entry(off + local, off, nb);
            EXPECT_EQ(e.a, local / nb) << local << " / " << nb;
            EXPECT_EQ(e.b, local % nb) << local << " % " << nb;
        }
    }
}

TEST(GmagnusMath, ChunkMappingAndSlots) {
    EXPECT_EQ(gm::chunk_of(0b1011'0110, 4), 0b1011);
    EXPECT_EQ(gm::col_in_chunk(0b1011'0110, 4), 0b0110);
    EXPECT_EQ(gm::local_slot(2, 3, 3), 19);
    EXPECT_EQ(gm::warp_slot(3, 5, 16), 53);
    EXPECT_EQ(gm::global_chunk(7, 1, 2), 29);
    // slot-major scan order over warp-major storage visits every slot once
    const count_t warps = 4, slots = 6;
    std::vector<int> seen(warps * slots, 0);
    for (count_t v = 0; v < warps * slots; ++v) ++seen[gm::scan_order_to_storage(v, warps, slots)];
    for (int x : seen) EXPECT_EQ(x, 1);
    EXPECT_EQ(gm::scan_order_to_storage(1, warps, slots), slots);  // slot 0 of warp 1 follows slot 0 of warp 0
    EXPECT_EQ(gm::group_rows_bound(1, 10), 1);
    EXPECT_EQ(gm::group_rows_bound(21, 10), 3);
}

TEST(GmagnusMath, HashBinsAndKinds) {
    EXPECT_EQ(gm::hash_bin(1), 0);
    EXPECT_EQ(gm::hash_bin(16), 0);
    EXPECT_EQ(gm::hash_bin(17), 1);
    EXPECT_EQ(gm::hash_bin_capacity(gm::hash_bin(1000)), 2048);
    EXPECT_EQ(gm::hash_bin_threads(0), 32);
    EXPECT_EQ(gm::hash_bin_threads(10), 1024);
    const gm::Params p = gm::make_params(count_t(1) << 20, 227 * 1024, {4, 4, 8, 4});
    EXPECT_EQ(gm::hash_bin_capacity(gm::hash_bin(p.tau)), p.hash_capacity);
    EXPECT_EQ(gm::hash_bin_count(p), 10);
    EXPECT_EQ(gm::accum_kind(p.tau, 20, p), gm::AccumKind::hash);
    EXPECT_EQ(gm::accum_kind(p.tau + 1, 20, p), gm::AccumKind::split);
    EXPECT_EQ(gm::accum_kind(p.tau + 1, 15, p), gm::AccumKind::dense);
    // chunks: dense from 1/8 of their span on when the span fits the dense accumulator, hash below it or when
    // it does not fit; over τ always dense (the multisplit leaves those only with a span that fits)
    const int fit = gm::floor_log2(p.dense_columns);
    const count_t span = count_t(1) << fit;
    EXPECT_TRUE(gm::chunk_is_dense(span / 8, fit, p));
    EXPECT_FALSE(gm::chunk_is_dense(span / 8 - 1, fit, p));
    EXPECT_TRUE(gm::chunk_is_dense(p.tau, fit, p));
    EXPECT_TRUE(gm::chunk_is_dense(p.tau + 1, fit, p));
    EXPECT_FALSE(gm::chunk_is_dense(p.tau, fit + 1, p));
    EXPECT_FALSE(gm::chunk_is_dense(1, 5, p));
    EXPECT_TRUE(gm::chunk_is_dense(4, 5, p));
    for (count_t key : {0, 1, 77, 1 << 30}) EXPECT_LT(gm::hash_slot(key, 64), 64u);
    for (count_t key : {count_t(0), count_t(12345), count_t(1) << 40}) EXPECT_LT(gm::hash_slot(key, 32), 32u);
    // keys that share their low bits (columns k * 1024, as R-MAT's biased bits make common) spread over
    // the table: a hash of the low bits alone would put all 256 in one slot
    std::vector<int> hits(512, 0);
    for (count_t k = 0; k < 256; ++k) ++hits[gm::hash_slot(k * 1024, 512)];
    EXPECT_LE(*std::max_element(hits.begin(), hits.end()), 4);
    EXPECT_GE(std::count_if(hits.begin(), hits.end(), [](int h) { return h > 0; }), 180);
    EXPECT_EQ(gm::next_probe(63, 64), 0u);
    // tables of 3/4 of a power of two: slots below the capacity, spread over all of it, the probe wraps
    std::vector<int> hits3(3072, 0);
    for (count_t k = 0; k < 3072; ++k) {
        const std::uint32_t s = gm::hash_slot(k * 977 + 5, 3072);
        ASSERT_LT(s, 3072u);
        ++hits3[s];
    }
    EXPECT_GE(std::count_if(hits3.begin(), hits3.end(), [](int h) { return h > 0; }), 1800);  // random: 1 - 1/e of 3072 ≈ 1942
    EXPECT_GT(std::count_if(hits3.begin() + 2048, hits3.end(), [](int h) { return h > 0; }), 500);  // the last quarter is used
    EXPECT_EQ(gm::next_probe(3071, 3072), 0u);
    EXPECT_EQ(gm::next_probe(2047, 3072), 2048u);
    // for a power of two the multiply-high is the top bits of the product, as before
    for (count_t key : {count_t(0), count_t(3), count_t(123456789), count_t(1) << 35})
        for (int lg : {5, 10, 14}) {
            const auto folded = static_cast<std::uint32_t>(key) ^ static_cast<std::uint32_t>(static_cast<std::uint64_t>(key) >> 32);
            EXPECT_EQ(gm::hash_slot(key, count_t(1) << lg), (folded * gm::hash_multiplier) >> (32 - lg));
        }
}

// Rows per block of the warp-per-row hash kernel: 8 when their tables fit the budget, fewer under a
// small one, never 0; the bins it serves are the one-warp ones (tables of 32 and 64 entries).
TEST(GmagnusMath, WarpRowsPerBlock) {
    const gm::ElementSizes dbl{4, 8, 8, 4}, flt64{8, 4, 8, 4};
    EXPECT_EQ(gm::warp_rows_per_block(64, dbl, true, 227 * 1024), 8);
    EXPECT_EQ(gm::warp_rows_per_block(64, dbl, true, 4096), 5);    // 768-byte tables
    EXPECT_EQ(gm::warp_rows_per_block(64, flt64, false, 1024), 2);  // symbolic: keys only (512 bytes)
    EXPECT_EQ(gm::warp_rows_per_block(64, dbl, true, 100), 1);
    int warp_bins = 0;
    for (int bin = 0; bin < 10; ++bin) warp_bins += gm::hash_bin_threads(bin) == 32;
    EXPECT_EQ(warp_bins, 2);
    EXPECT_EQ(gm::hash_bin_capacity(1), 64);
}

// Residency of a block on an H200 SM (233472 bytes of shared memory, 1 KiB reserved a block), and
// the hash kernels' block sizes it gives: float values, int32 columns (8 bytes an entry), 45
// registers, 5264 bytes of static shared memory (hash_rows_kernel's walk), as ptxas reports them.
// A light row accumulates densely when a bitmap of its span (16-byte aligned) and, numeric, a value
// per column (whole groups of 32 columns: dense_slot) fit its hash table's bytes.
TEST(GmagnusMath, DenseLightRowsFitTheirTable) {
    const gm::ElementSizes f{4, 4, 8, 4};  // int32 columns, float values
    const gm::count_t cap = 4096, numeric_table = gm::hash_smem_bytes(cap, f, true), symbolic_table = gm::hash_smem_bytes(cap, f, false);
    EXPECT_EQ(numeric_table, 32768);
    EXPECT_EQ(gm::dense_row_bytes(1, 4, true), 16 + 32 * 4);
    EXPECT_EQ(gm::dense_row_bytes(7936, 4, true), 992 + 31744);          // 248 words
    EXPECT_EQ(gm::dense_row_bytes(7937, 4, true), 1008 + 249 * 32 * 4);  // 249 words -> 996 bytes -> 1008, 249 groups
    EXPECT_TRUE(gm::light_row_is_dense(7936, numeric_table, 4, true));     // 1.94 times the entries
    EXPECT_FALSE(gm::light_row_is_dense(7937, numeric_table, 4, true));
    EXPECT_TRUE(gm::light_row_is_dense(32 * cap, symbolic_table, 4, false));  // a bit a column
    EXPECT_FALSE(gm::light_row_is_dense(32 * cap + 1, symbolic_table, 4, false));
    EXPECT_FALSE(gm::light_row_is_dense(0, numeric_table, 4, true)) << "no span: no products";
    const gm::ElementSizes d{8, 8, 8, 4};  // int64 columns, double values: 16 bytes an entry, 8 + 1/8 a column
    EXPECT_TRUE(gm::light_row_is_dense(8064, gm::hash_smem_bytes(cap, d, true), 8, true));
    EXPECT_FALSE(gm::light_row_is_dense(8065, gm::hash_smem_bytes(cap, d, true), 8, true));
}

// dense_slot: a permutation of each 32-column group onto its own slots (dense_row_bytes gives a
// last partial group all 32); a warp's 32 aligned consecutive columns take 32 banks, and so do 32
// columns 32 apart (one bank before) and groups repeating the same few low-bit patterns (R-MAT's
// favoured columns).
TEST(GmagnusMath, DenseSlotsSpreadBanks) {
    for (std::uint32_t span : {1u, 31u, 32u, 33u, 95u, 1024u, 1055u, 7936u, 56320u}) {
        const std::uint32_t slots = (span + 31) / 32 * 32;
        ASSERT_EQ(gm::dense_row_bytes(span, 4, true) - gm::dense_row_bytes(span, 4, false), slots * 4) << span;
        std::vector<char> hit(slots, 0);
        for (std::uint32_t c = 0; c < slots; ++c) {
            const std::uint32_t s = gm::dense_slot(c);
            ASSERT_EQ(s / 32, c / 32) << "stays in its group: span " << span << ", column " << c;
            ASSERT_FALSE(hit[s]) << "span " << span << ", slot " << s;
            hit[s] = 1;
        }
    }
    const auto banks = [](auto column) {
        std::set<std::uint32_t> b;
        for (std::uint32_t lane = 0; lane < 32; ++lane) b.insert(gm::dense_slot(column(lane)) % 32);
        return b.size();
    };
    EXPECT_EQ(banks([](std::uint32_t l) { return 64 * 32 + l; }), 32u) << "an aligned word's columns";
    EXPECT_EQ(banks([](std::uint32_t l) { return 7 + 32 * l; }), 32u) << "columns 32 apart: one bank without the slots";
    EXPECT_EQ(banks([](std::uint32_t l) { return 32 * (l >> 3) + 4 * (l & 7); }), 32u) << "4 groups of 8 columns 4 apart: 4-way without";
}

// Wide dense rows (row_is_dense_wide, row_key, dense_wide_window): above τ, in at most 4 windows
// of B's columns that fit the budget (227 KiB, float and int32: 29056 entries of 8 bytes, a span of
// 56320 columns, 1760 groups of 32; the largest hash table, 16384 entries, held 31744), with at most the walk cap of
// products walked (products times windows: 2^19, or an adaptive cap above it). A launch's windows (the narrower of its phase's window and the
// widest span among its rows) fit its bytes, and no row takes more windows than the setup counted.
TEST(GmagnusMath, DenseWideRowsFitTheBudgetInWindows) {
    const gm::Params p = gm::make_params(count_t(1) << 20, 227 * 1024, {4, 4, 8, 4});
    ASSERT_EQ(p.hash_capacity, 16384);
    ASSERT_EQ(p.tau, 8192);
    ASSERT_EQ(gm::dense_wide_capacity(p), 227 * 1024 / 8);
    EXPECT_EQ(gm::dense_span_limit(227 * 1024, 4, true), 56320);
    EXPECT_EQ(gm::dense_row_bytes(56320, 4, true), 1760 * 4 + 56320 * 4);  // 128 bytes short of the budget
    EXPECT_GT(gm::dense_row_bytes(56321, 4, true), 227 * 1024);            // a bitmap word and a group more
    EXPECT_EQ(gm::dense_span_limit(227 * 1024 / 2, 4, false), 227 * 1024 / 2 * 8) << "a bit a column";
    EXPECT_EQ(gm::dense_span_limit(143, 4, true), 0) << "not one group: 16 bytes of bitmap and 32 slots";
    EXPECT_EQ(gm::dense_span_limit(144, 4, true), 32);
    // windows: B's columns when they fit, else the fewest equal windows that do
    EXPECT_EQ(gm::dense_wide_window(p, 1, true), 1);
    EXPECT_EQ(gm::dense_wide_window(p, 32768, true), 32768) << "R-MAT 15: one window";
    EXPECT_EQ(gm::dense_wide_window(p, 56320, true), 56320);
    EXPECT_EQ(gm::dense_wide_window(p, 56321, true), 28161);
    EXPECT_EQ(gm::dense_wide_window(p, 65536, true), 32768) << "R-MAT 16: two";
    EXPECT_EQ(gm::dense_wide_window(p, 131072, true), 43691) << "R-MAT 17: three";
    EXPECT_EQ(gm::dense_wide_window(p, 262144, true), 52429) << "R-MAT 18: five";
    EXPECT_EQ(gm::dense_wide_window(p, 262144, false), 262144) << "symbolic: a bit a column, one window";
    const int nbins = gm::hash_bin_count(p);
    const count_t w16 = gm::dense_wide_window(p, 65536, true);
    EXPECT_TRUE(gm::row_is_dense_wide(8193, 32768, p, w16, gm::dense_wide_max_walk));
    EXPECT_TRUE(gm::row_is_dense_wide(8193, 65536, p, w16, gm::dense_wide_max_walk)) << "two windows";
    EXPECT_TRUE(gm::row_is_dense_wide(8193, 4 * w16, p, w16, gm::dense_wide_max_walk)) << "four windows";
    EXPECT_FALSE(gm::row_is_dense_wide(8193, 4 * w16 + 1, p, w16, gm::dense_wide_max_walk)) << "five windows";
    EXPECT_FALSE(gm::row_is_dense_wide(8193, 262144, p, gm::dense_wide_window(p, 262144, true), gm::dense_wide_max_walk)) << "R-MAT 18 spans 5 windows";
    gm::Params p5 = p;
    p5.wide_max_windows = 5;  // GpuSpgemmOptions::dense_wide_windows
    EXPECT_TRUE(gm::row_is_dense_wide(8193, 262144, p5, gm::dense_wide_window(p, 262144, true), gm::dense_wide_max_walk)) << "up to 5 windows: R-MAT 18";
    EXPECT_FALSE(gm::row_is_dense_wide(8193, 5 * 52429 + 1, p5, gm::dense_wide_window(p, 262144, true), gm::dense_wide_max_walk)) << "6 windows";
    EXPECT_TRUE(gm::row_is_dense_wide(count_t(1) << 18, 65536, p, w16, gm::dense_wide_max_walk)) << "2^19 products walked";
    EXPECT_FALSE(gm::row_is_dense_wide((count_t(1) << 18) + 1, 65536, p, w16, gm::dense_wide_max_walk)) << "more than 2^19 walked";
    EXPECT_TRUE(gm::row_is_dense_wide(count_t(1) << 19, 100, p, w16, gm::dense_wide_max_walk));
    EXPECT_FALSE(gm::row_is_dense_wide((count_t(1) << 19) + 1, 100, p, w16, gm::dense_wide_max_walk));
    EXPECT_FALSE(gm::row_is_dense_wide(8192, 100, p, w16, gm::dense_wide_max_walk)) << "at most τ: a light row of a hash bin";
    EXPECT_FALSE(gm::row_is_dense_wide(9000, 0, p, w16, gm::dense_wide_max_walk)) << "no span known";
    EXPECT_FALSE(gm::row_is_dense_wide(9000, 100, p, 0, gm::dense_wide_max_walk)) << "no wide dense rows";
    EXPECT_EQ(gm::row_key(0, 0, p, nbins, w16, gm::dense_wide_max_walk), unsigned(nbins + 1));
    EXPECT_EQ(gm::row_key(5, 3, p, nbins, w16, gm::dense_wide_max_walk), unsigned(gm::hash_bin(5)));
    EXPECT_EQ(gm::row_key(8192, 300000, p, nbins, w16, gm::dense_wide_max_walk), unsigned(gm::hash_bin(8192))) << "light whatever its span";
    EXPECT_EQ(gm::row_key(8193, 300000, p, nbins, w16, gm::dense_wide_max_walk), unsigned(nbins + 2));
    EXPECT_EQ(gm::row_key(8193, 400, p, nbins, w16, gm::dense_wide_max_walk), unsigned(nbins));
    EXPECT_EQ(gm::row_key(8193, 400, p, nbins, 0, gm::dense_wide_max_walk), unsigned(nbins + 2));
    EXPECT_LT(gm::row_tally_count(nbins), gm::max_tallies);
    // every key within the tallies; every wide dense row within the windows and the walk, and in
    // every phase's launch no more windows than counted, each fitting the launch's bytes and those
    // the budget
    for (const gm::ElementSizes s : {gm::ElementSizes{4, 4, 8, 4}, gm::ElementSizes{4, 8, 8, 4}, gm::ElementSizes{8, 8, 8, 4}})
        for (const count_t smem : {count_t(4096), count_t(8192), count_t(16384), count_t(48 * 1024), count_t(227 * 1024)}) {
            const gm::Params q = gm::make_params(count_t(1) << 20, smem, s);
            if (!gm::params_feasible(q)) continue;
            const int nb = gm::hash_bin_count(q);
            const count_t cap = gm::dense_wide_capacity(q);
            ASSERT_GE(cap, q.hash_capacity) << "at least the largest table";
            int wide = 0, several = 0, beyond = 0;
            // the fixed cap, and an adaptive one of some 4 x 2^19
            for (const count_t walk_cap : {gm::dense_wide_max_walk, gm::dense_wide_walk_cap(q, count_t(1) << 28, 132)})
            for (const count_t ncols : {count_t(700), count_t(5000), count_t(65536), count_t(1) << 20}) {
                const count_t window = gm::dense_wide_window(q, ncols, true);
                ASSERT_GE(window, 1);
                for (count_t pr = 1; pr <= (count_t(1) << 20); pr = pr * 3 / 2 + 1)
                    for (count_t span = 1; span <= ncols; span = span * 5 / 4 + 1) {
                        const unsigned key = gm::row_key(pr, span, q, nb, window, walk_cap);
                        ASSERT_LT(key, unsigned(nb + 3));
                        if (key != unsigned(nb)) continue;
                        ++wide;
                        const count_t windows = gm::ceil_div(span, window);
                        several += windows > 1;
                        EXPECT_GT(pr, q.tau);
                        EXPECT_LE(windows, q.wide_max_windows);
                        EXPECT_LE(pr * windows, walk_cap);
                        EXPECT_EQ(gm::dense_wide_walk(pr, span, q, window), pr * windows);
                        beyond += pr * windows > gm::dense_wide_max_walk;
                        for (const bool values : {false, true})
                            for (const count_t widest : {span, span * 2, ncols}) {  // the widest span of the launch's rows
                                const count_t lw = std::min(gm::dense_wide_window(q, ncols, values), widest);
                                EXPECT_LE(gm::ceil_div(span, lw), windows) << "symbolic or a narrower launch: no more windows";
                                const count_t bytes = gm::dense_wide_launch(q, lw, values, 1, 0, 32, 233472, 1024, 132, true).bytes;
                                EXPECT_LE(gm::dense_row_bytes(std::min(lw, span), s.val, values), bytes);
                                EXPECT_LE(bytes, gm::hash_smem_bytes(cap, s, values));
                                EXPECT_LE(bytes, q.smem_bytes);
                            }
                    }
            }
            EXPECT_GT(wide, 0) << "smem " << smem;
            EXPECT_GT(several, 0) << "smem " << smem;
            EXPECT_GT(beyond, 0) << "smem " << smem << ": rows past 2^19 under the adaptive cap";
        }
}

// The adaptive walk cap (dense_wide_walk_cap): the candidates' walk over the SMs when that passes the
// floor (Params::wide_max_walk), never above 2^31; the fixed cap when not adaptive. dense_wide_walk:
// a candidate's products times its windows, 0 for a light row, a row of too many windows or no span.
TEST(GmagnusMath, DenseWideWalkCapAdapts) {
    gm::Params p = gm::make_params(count_t(1) << 20, 227 * 1024, {4, 4, 8, 4});
    ASSERT_EQ(p.tau, 8192);
    ASSERT_TRUE(p.wide_walk_adaptive);
    ASSERT_EQ(p.wide_max_walk, gm::dense_wide_max_walk);
    const count_t w = gm::dense_wide_window(p, 131072, true);  // R-MAT 17: 3 windows of 43691
    EXPECT_EQ(gm::dense_wide_walk(8193, 131072, p, w), 3 * 8193);
    EXPECT_EQ(gm::dense_wide_walk(8193, 100, p, w), 8193);
    EXPECT_EQ(gm::dense_wide_walk(8192, 100, p, w), 0) << "light";
    EXPECT_EQ(gm::dense_wide_walk(8193, 4 * w + 1, p, w), 0) << "5 windows";
    EXPECT_EQ(gm::dense_wide_walk(8193, 0, p, w), 0) << "no span";
    EXPECT_EQ(gm::dense_wide_walk(8193, 100, p, 0), 0) << "no wide dense rows";
    EXPECT_EQ(gm::dense_wide_walk_cap(p, 0, 132), count_t(1) << 19);
    EXPECT_EQ(gm::dense_wide_walk_cap(p, 132 * (count_t(1) << 19), 132), count_t(1) << 19);
    EXPECT_EQ(gm::dense_wide_walk_cap(p, 132 * (count_t(1) << 19) + 132, 132), (count_t(1) << 19) + 1);
    // boyd1's A² (host count, float, int32): 93279 rows of 427,100 products on average, 2 windows
    // each: some 8·10^10 walked, over 132 SMs some 6·10^8 a row
    const count_t boyd1 = 2 * count_t(39839155665);
    EXPECT_EQ(gm::dense_wide_walk_cap(p, boyd1, 132), boyd1 / 132);
    EXPECT_EQ(gm::dense_wide_walk_cap(p, count_t(1) << 50, 132), gm::dense_wide_walk_ceiling) << "the block walk's 32-bit sums";
    EXPECT_EQ(gm::dense_wide_walk_cap(p, count_t(1) << 30, 0), count_t(1) << 19) << "no SMs known";
    gm::Params fixed = p;
    fixed.wide_walk_adaptive = false;
    EXPECT_EQ(gm::dense_wide_walk_cap(fixed, boyd1, 132), count_t(1) << 19);
    fixed.wide_max_walk = count_t(1) << 21;  // GpuSpgemmOptions::dense_wide_walk
    EXPECT_EQ(gm::dense_wide_walk_cap(fixed, boyd1, 132), count_t(1) << 21);
    p.wide_max_walk = count_t(1) << 40;  // above the ceiling
    EXPECT_EQ(gm::dense_wide_walk_cap(p, 0, 132), gm::dense_wide_walk_ceiling);
    // the classification follows the cap
    const int nbins = gm::hash_bin_count(p);
    EXPECT_EQ(gm::row_key(300000, 131072, p, nbins, w, count_t(1) << 19), unsigned(nbins + 2)) << "900000 walked";
    EXPECT_EQ(gm::row_key(300000, 131072, p, nbins, w, 900000), unsigned(nbins));
    EXPECT_FALSE(gm::row_is_dense_wide(300000, 131072, p, w, 899999));
}

// The wide dense rows' launch on an H200 (float, int32; hash_rows_kernel with 45 registers and
// 5264 bytes of static shared memory): the bytes of its window; the widest block for a few rows,
// the most rows in flight for a bin that fills every SM.
TEST(GmagnusMath, DenseWideLaunchTakesItsWindow) {
    const gm::Params p = gm::make_params(count_t(1) << 20, 227 * 1024, {4, 4, 8, 4});
    constexpr count_t sm = 233472, reserved = 1024, stat = 5264;
    const auto launch = [&](count_t window, bool values, count_t rows, bool fit) {
        return gm::dense_wide_launch(p, window, values, rows, stat, 45, sm, reserved, 132, fit);
    };
    // hangGlider_2: 1647 columns, one wide dense row
    EXPECT_EQ(launch(1647, true, 1, true).bytes, 208 + 52 * 32 * 4);  // 52 groups of 32 columns
    EXPECT_EQ(launch(1647, true, 1, true).threads, 1024);
    EXPECT_EQ(launch(1647, false, 1, true).bytes, 208) << "the count needs the bitmap only";
    // enough rows for 10 of 128 threads on each of 132 SMs (registers: 1280 threads)
    EXPECT_EQ(launch(1647, true, 1319, true).threads, 1024);
    EXPECT_EQ(launch(1647, true, 1320, true).threads, 128);
    EXPECT_EQ(launch(1647, true, 1320, false).threads, 1024) << "fit_hash_blocks off: the widest";
    // MIT8: 6440 columns, 3065 wide dense rows: 5 of 256 an SM (shared memory 26576 + 5264 bytes a row)
    EXPECT_EQ(launch(6440, true, 3065, true).bytes, 816 + 202 * 32 * 4);  // 202 groups
    EXPECT_EQ(launch(6440, true, 3065, true).threads, 256);
    // R-MAT 15 (one window of 32768 columns) and 16 (two): a bitmap of 4 KiB and 128 KiB of values, one row an SM
    EXPECT_EQ(launch(gm::dense_wide_window(p, 32768, true), true, 4565, true).bytes, 4096 + 32768 * 4);
    EXPECT_EQ(launch(gm::dense_wide_window(p, 65536, true), true, 10049, true).bytes, 4096 + 32768 * 4);
    EXPECT_EQ(launch(gm::dense_wide_window(p, 65536, true), true, 10049, true).threads, 1024);
    // the budget's widest window: the whole budget but the 128 bytes short of a group
    EXPECT_EQ(launch(gm::dense_wide_window(p, 56320, true), true, 1, true).bytes, 227 * 1024 - 128);
}

TEST(GmagnusMath, HashBlockThreadsKeepTheMostThreadsResident) {
    constexpr count_t sm = 233472, reserved = 1024, stat = 5264;
    EXPECT_EQ(gm::resident_blocks_per_sm(1024, 45, 0, sm, reserved), 1);   // registers: 1536 a warp
    EXPECT_EQ(gm::resident_blocks_per_sm(512, 45, 0, sm, reserved), 2);
    EXPECT_EQ(gm::resident_blocks_per_sm(256, 32, 0, sm, reserved), 8);    // threads
    EXPECT_EQ(gm::resident_blocks_per_sm(32, 0, 0, sm, reserved), 32);     // blocks (no register count: no limit)
    EXPECT_EQ(gm::resident_blocks_per_sm(64, 0, 65536, sm, reserved), 3);  // shared memory
    const auto threads = [&](count_t capacity) {
        return gm::hash_block_threads(gm::hash_bin(capacity / 2), capacity * 8, stat, 45, sm, reserved);
    };
    EXPECT_EQ(threads(16384), 1024);  // one table an SM: the widest block
    EXPECT_EQ(threads(8192), 512);    // 2 of 512 threads (registers), as many threads as one of 1024
    EXPECT_EQ(threads(4096), 256);    // 5 of 256 (registers and shared memory): 1280 threads
    EXPECT_EQ(threads(2048), 128);    // 10 of 128 (shared memory): 1280
    EXPECT_EQ(threads(64), 32);       // the one-warp bins stay at a warp
    for (int bin = 0; bin < 10; ++bin) {  // never above half the table, always a power of two
        const int t = gm::hash_block_threads(bin, gm::hash_bin_capacity(bin) * 8, stat, 45, sm, reserved);
        EXPECT_LE(t, gm::hash_bin_threads(bin));
        EXPECT_EQ(t & (t - 1), 0);
        EXPECT_GE(t, 32);
    }
}

// A bin's table shrinks to 3/4 of its entries only where that keeps more rows in flight an SM
// (float/int32 on the H200, 45 registers): 16384 entries -> 12288 (one row an SM -> two), 8192 -> 6144
// (2 -> 4); 4096 and below keep theirs (registers decide, or too small to shrink); never fewer rows.
// The product map (mapped_rows_kernel): every light row of a hash bin fits its shared memory — its
// C row (at most half the bin's entries, hash_bin) in columns or values — and its ranks fit a map
// word on the H200's budget for every element size; a warp per row up to mapped_warp_products,
// else a block of about 4 products a thread.
TEST(GmagnusMath, ProductMapRowsFitTheirLaunch) {
    for (const gm::ElementSizes s : {gm::ElementSizes{4, 4, 8, 4}, gm::ElementSizes{4, 8, 8, 4}, gm::ElementSizes{8, 4, 8, 4}, gm::ElementSizes{8, 8, 8, 4}}) {
        const gm::Params p = gm::make_params(count_t(1) << 20, 227824, s);
        EXPECT_TRUE(gm::product_map_fits(p));
        for (int bn = 0; bn < gm::hash_bin_count(p); ++bn) {
            const count_t cap = gm::hash_bin_capacity(bn);
            const count_t most = cap / 2;  // a row's products, so its C row's entries
            EXPECT_EQ(gm::hash_bin(most), bn);
            EXPECT_EQ(gm::map_row_bytes(cap, s) % 16, 0);
            EXPECT_GE(gm::map_row_bytes(cap, s), most * std::max(s.col, s.val));
            EXPECT_LE(most - 1, count_t(std::numeric_limits<gm::map_word>::max()));
            if (gm::mapped_rows_take_warps(cap)) {
                EXPECT_LE(most, gm::mapped_warp_products);
                EXPECT_LE(gm::mapped_warps_per_block * gm::map_row_bytes(cap, s), 48 * 1024) << "within the default dynamic shared memory";
            } else {
                const int t = gm::mapped_block_threads(cap);
                EXPECT_EQ(t & (t - 1), 0);
                EXPECT_GE(t, 64);
                EXPECT_LE(t, 1024);
                EXPECT_TRUE(most <= 4 * count_t(t) || t == 1024) << "about 4 products a thread below the largest block";
                EXPECT_LE(gm::map_row_bytes(cap, s), p.smem_bytes);
            }
        }
    }
    // a budget whose largest table's rows would rank past a map word: no map
    const gm::Params big = gm::make_params(count_t(1) << 20, count_t(1) << 21, gm::ElementSizes{4, 4, 8, 4});
    EXPECT_FALSE(gm::product_map_fits(big));
    EXPECT_EQ(gm::product_map_bytes(3, 100), 3 * 8 + 100 * 2);
}

TEST(GmagnusMath, HashTablesShrinkOnlyForMoreRowsInFlight) {
    constexpr count_t sm = 233472, reserved = 1024, stat = 5264;
    const gm::ElementSizes s{4, 4, 8, 4};
    const auto cap = [&](count_t nominal, bool values) { return gm::hash_table_capacity(gm::hash_bin(nominal / 2), s, values, stat, 45, sm, reserved); };
    EXPECT_EQ(cap(16384, true), 12288);
    EXPECT_EQ(gm::hash_rows_in_flight(gm::hash_bin(8192), 16384, s, true, stat, 45, sm, reserved), 1);
    EXPECT_EQ(gm::hash_rows_in_flight(gm::hash_bin(8192), 12288, s, true, stat, 45, sm, reserved), 2);
    EXPECT_EQ(cap(8192, true), 6144);
    EXPECT_EQ(cap(4096, true), 4096);
    EXPECT_EQ(cap(2048, true), 2048);
    EXPECT_EQ(cap(64, true), 64);
    for (const gm::ElementSizes sz : {gm::ElementSizes{4, 4, 8, 4}, gm::ElementSizes{8, 8, 8, 4}, gm::ElementSizes{4, 8, 8, 4}})
        for (bool values : {false, true})
            for (int regs : {0, 32, 45, 64})
                for (int bin = 0; bin <= 9; ++bin) {
                    const count_t nominal = gm::hash_bin_capacity(bin), c = gm::hash_table_capacity(bin, sz, values, stat, regs, sm, reserved);
                    ASSERT_TRUE(c == nominal || (nominal >= gm::min_shrunk_table && c == nominal / 4 * 3)) << bin;
                    EXPECT_GE(c, nominal / 2);  // a row's products (and the sort's span) fit
                    EXPECT_GE(gm::hash_rows_in_flight(bin, c, sz, values, stat, regs, sm, reserved),
                              gm::hash_rows_in_flight(bin, nominal, sz, values, stat, regs, sm, reserved));
                }
}

// clear_table (gmagnus_kernels.cuh) stores 16 bytes at a time from the table's values and from its
// keys at vals + cap, and the warp kernels' tables start at multiples of their bytes: every
// capacity a kernel gets is a multiple of 4 entries, so each start is 16-byte aligned.
TEST(GmagnusMath, TableCapacitiesAlign16) {
    constexpr count_t sm = 233472, reserved = 1024, stat = 5264;
    for (const gm::ElementSizes sz : {gm::ElementSizes{4, 4, 8, 4}, gm::ElementSizes{8, 8, 8, 4}, gm::ElementSizes{4, 8, 8, 4}, gm::ElementSizes{8, 4, 8, 4}})
        for (bool values : {false, true}) {
            const auto aligned = [&](count_t cap) {
                return cap % 4 == 0 && (cap * sz.val) % 16 == 0 && gm::hash_smem_bytes(cap, sz, values) % 16 == 0;
            };
            for (int regs : {0, 32, 45, 64})
                for (int bin = 0; bin <= 26; ++bin)  // a 2^31-byte budget's bins
                    ASSERT_TRUE(aligned(gm::hash_table_capacity(bin, sz, values, stat, regs, sm, reserved))) << bin;
            const count_t region = gm::small_region_entries(sz);
            ASSERT_TRUE(aligned(region));
            for (count_t p = 0; p <= 2 * region; ++p) ASSERT_TRUE(aligned(gm::small_row_capacity(p, region))) << p;
        }
}

// Which light-row bins take a warp per row: the one-warp tables always; larger ones up to the
// capacity of rows of GpuSpgemmOptions::warp_row_products when the bin holds a block of rows for every SM.
TEST(GmagnusMath, LightBinsTakeWarps) {
    EXPECT_EQ(gm::warp_rows_max_capacity(512), 1024);  // the default: 512 products, tables of 1024
    EXPECT_EQ(gm::warp_rows_max_capacity(513), 2048);
    EXPECT_EQ(gm::warp_rows_max_capacity(32), 64);     // only the one-warp bins
    EXPECT_EQ(gm::warp_rows_max_capacity(1), 32);
    for (count_t cap : {32, 64}) {  // a block would be one warp: always a warp, however few rows
        EXPECT_TRUE(gm::light_bin_takes_warps(cap, 1, 32, 8, 132));
        EXPECT_TRUE(gm::light_bin_takes_warps(cap, 1, 1024, 8, 132));
    }
    EXPECT_TRUE(gm::light_bin_takes_warps(1024, 8 * 132, 1024, 8, 132));  // a block of rows per SM
    EXPECT_FALSE(gm::light_bin_takes_warps(1024, 8 * 132 - 1, 1024, 8, 132));
    EXPECT_TRUE(gm::light_bin_takes_warps(1024, 3 * 132, 1024, 3, 132));  // smaller blocks (larger tables)
    EXPECT_FALSE(gm::light_bin_takes_warps(2048, 1 << 20, 1024, 8, 132));  // past the capacity: a block per row
    EXPECT_FALSE(gm::light_bin_takes_warps(128, 1 << 20, 64, 8, 132));   // warp_row_products 32
    EXPECT_TRUE(gm::light_bin_takes_warps(128, 8, 1024, 8, 1));           // one SM (the tests' simulator setting)
}

// The pair mapping visits each (i, i + j) with bit j of i clear once, and the network it drives
// (as the hash kernels run it: one pair per thread and step) sorts.
TEST(GmagnusMath, BitonicPairsCoverTheNetworkAndSort) {
    for (count_t n = 2; n <= 256; n <<= 1)
        for (count_t j = 1; j < n; j <<= 1) {
            std::vector<int> seen(static_cast<std::size_t>(n), 0);
            for (count_t t = 0; t < n / 2; ++t) {
                const count_t i = gm::bitonic_pair_low(t, j);
                ASSERT_LT(i + j, n);
                ASSERT_EQ(i & j, 0) << "n " << n << " j " << j << " t " << t;
                ++seen[static_cast<std::size_t>(i)];
            }
            for (count_t i = 0; i < n; ++i) EXPECT_EQ(seen[static_cast<std::size_t>(i)], (i & j) == 0 ? 1 : 0);
        }
    std::mt19937_64 rng(5);
    for (count_t n : {2, 8, 64, 1024}) {
        std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
        for (auto& k : keys) k = static_cast<std::uint32_t>(rng() % 100);
        for (count_t k = 2; k <= n; k <<= 1)
            for (count_t j = k >> 1; j > 0; j >>= 1)
                for (count_t t = 0; t < n / 2; ++t) {
                    const count_t i = gm::bitonic_pair_low(t, j);
                    auto& a = keys[static_cast<std::size_t>(i)];
                    auto& b = keys[static_cast<std::size_t>(i + j)];
                    if ((a > b) == gm::bitonic_ascending(i, k)) std::swap(a, b);
                }
        EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end())) << n;
    }
}

// The schedule of sort_and_write: steps with j < 32 taken by each element alone
// (bitonic_takes_partner, from the keys before the step, as a warp's shuffle sees them), the others
// by pairs; the sizes up to 32 first, whole, over 32-element runs: a network of fewer elements
// leaves the rest of its run (stale table entries) out. It sorts, ties (the empty slots' all-ones
// keys) included.
TEST(GmagnusMath, BitonicWarpStepsSort) {
    std::mt19937_64 rng(6);
    const auto warp_steps = [](std::vector<std::uint32_t>& keys, count_t k_first, count_t k_last) {
        for (count_t k = k_first; k <= k_last; k <<= 1)
            for (count_t j = std::min<count_t>(k >> 1, 16); j > 0; j >>= 1) {
                const std::vector<std::uint32_t> before = keys;
                for (count_t i = 0; i < static_cast<count_t>(keys.size()); ++i) {
                    const std::uint32_t partner = before[static_cast<std::size_t>(i ^ j)];
                    if (gm::bitonic_takes_partner(i, j, k, before[static_cast<std::size_t>(i)], partner)) keys[static_cast<std::size_t>(i)] = partner;
                }
            }
    };
    for (count_t n : {1, 2, 5, 16, 17, 31, 32, 33, 100, 1000, 4096}) {
        const count_t len = gm::ceil_pow2(n), run = std::max<count_t>(len, 32);
        std::vector<std::uint32_t> keys(static_cast<std::size_t>(run));
        for (count_t i = 0; i < run; ++i) keys[static_cast<std::size_t>(i)] = i < n || i >= len ? static_cast<std::uint32_t>(rng() % 5000) : 0xffffffffu;
        const std::vector<std::uint32_t> stale(keys.begin() + len, keys.end());
        warp_steps(keys, 2, std::min<count_t>(len, 32));
        const auto order = [&](count_t x, count_t y, bool ascending) {
            auto& a = keys[static_cast<std::size_t>(x)];
            auto& b = keys[static_cast<std::size_t>(y)];
            if ((a > b) == ascending) std::swap(a, b);
        };
        for (count_t k = 64; k <= len; k <<= 1) {  // as sort_and_write: steps j >= 32 two at a time (quads), then an odd one
            count_t j = k >> 1;
            for (; j >= 64; j >>= 2) {
                std::vector<int> seen(static_cast<std::size_t>(len), 0);
                for (count_t g = 0; g < len / 4; ++g) {
                    const count_t i = gm::bitonic_quad_low(g, j), h = j / 2;
                    ASSERT_EQ(i & (j | h), 0);
                    for (count_t x : {i, i + h, i + j, i + j + h}) ++seen[static_cast<std::size_t>(x)];
                    const bool asc = gm::bitonic_ascending(i, k);
                    order(i, i + j, asc);
                    order(i + h, i + j + h, asc);
                    order(i, i + h, asc);
                    order(i + j, i + j + h, asc);
                }
                EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), len) << "the quads cover the network once";
            }
            if (j >= 32)
                for (count_t t = 0; t < len / 2; ++t) {
                    const count_t i = gm::bitonic_pair_low(t, j);
                    order(i, i + j, gm::bitonic_ascending(i, k));
                }
            warp_steps(keys, k, k);
        }
        EXPECT_TRUE(std::is_sorted(keys.begin(), keys.begin() + len)) << n;
        EXPECT_EQ(std::count(keys.begin(), keys.begin() + len, 0xffffffffu), len - n) << n;
        std::vector<std::uint32_t> rest(keys.begin() + len, keys.end());
        std::vector<std::uint32_t> before = stale;
        std::sort(rest.begin(), rest.end());
        std::sort(before.begin(), before.end());
        EXPECT_EQ(rest, before) << n << ": the entries past the network stay among themselves";
    }
}

TEST(GmagnusMath, BatchesCoverRowsAndRespectBudget) {
    const std::vector<count_t> prefix{5, 9, 30, 31, 40};  // sizes 5 4 21 1 9
    EXPECT_EQ(gm::batch_end(prefix.data(), 5, 0, 10), 2);
    EXPECT_EQ(gm::batch_end(prefix.data(), 5, 2, 10), 3);  // oversize row alone
    EXPECT_EQ(gm::batch_end(prefix.data(), 5, 3, 10), 5);
    EXPECT_EQ(gm::batch_end(prefix.data(), 5, 0, 1000), 5);
}

// One pass over the light rows stages them only within its budget and when the heavy rows keep
// their number of batches under the automatic intermediate budget (2/5 of what is available).
TEST(GmagnusMath, LightRowStagingFitsItsBudgetAndKeepsTheBatches) {
    const count_t avail = 1000;
    EXPECT_EQ(gm::intermediate_budget_bytes(avail), 400);
    EXPECT_EQ(gm::batches_for(0, 400), 0);
    EXPECT_EQ(gm::batches_for(400, 400), 1);
    EXPECT_EQ(gm::batches_for(401, 400), 2);
    EXPECT_TRUE(gm::stage_light_rows_fits(200, 0, avail, 0, false));  // a fifth, no heavy rows
    EXPECT_FALSE(gm::stage_light_rows_fits(201, 0, avail, 0, false));
    EXPECT_TRUE(gm::stage_light_rows_fits(600, 0, avail, 700, false));  // an explicit budget replaces the fifth
    EXPECT_FALSE(gm::stage_light_rows_fits(1000, 0, avail, 5000, false)) << "never all of the device";
    // heavy rows of 320 bytes: one batch of 400 without the staging; with 100 staged, 360: still one
    EXPECT_TRUE(gm::stage_light_rows_fits(100, 320, avail, 0, false));
    // 380 bytes: one batch without, two with 100 staged (budget 360): two passes instead
    EXPECT_FALSE(gm::stage_light_rows_fits(100, 380, avail, 0, false));
    EXPECT_TRUE(gm::stage_light_rows_fits(100, 380, avail, 0, true)) << "an explicit intermediate budget does not move";
    // already batched: 2000 bytes take 5 batches of 400 and 6 of 360 (staging refused), 5 of 480 and of 440
    EXPECT_FALSE(gm::stage_light_rows_fits(100, 2000, avail, 0, false));
    EXPECT_TRUE(gm::stage_light_rows_fits(100, 2000, 1200, 0, false));
}

// The shared-memory budgets the GPU tests (tests/cuda) force are feasible with the device's
// 256-thread multisplit blocks and give the level counts those tests expect.
TEST(GmagnusMath, DeviceTestBudgetsAreFeasible) {
    struct Case {
        count_t ncols, smem;
        int col, val, min_levels;
    };
    const Case cases[] = {{count_t(1) << 14, 3072, 4, 4, 2}, {count_t(1) << 20, 8192, 4, 8, 2}, {90001, 4096, 4, 8, 2},
                          {count_t(1) << 12, 8192, 8, 8, 0},  {count_t(1) << 12, 4096, 8, 4, 0},  {count_t(1) << 16, 4096, 4, 8, 2},
                          {4097, 8192, 4, 8, 0},              {5000, 4096, 4, 8, 1},              {count_t(1) << 24, 227 * 1024 - 2048, 8, 8, 1}};
    for (const Case& c : cases) {
        SCOPED_TRACE("ncols " + std::to_string(c.ncols) + " smem " + std::to_string(c.smem));
        const gm::Params p = gm::make_params(c.ncols, c.smem, {c.col, c.val, 8, 4}, 256, 1024);  // the dispatch's block sizes
        EXPECT_TRUE(gm::params_feasible(p));
        EXPECT_LE(gm::outer_smem_bytes(p.outer_group_elems, p.sizes), c.smem);
        EXPECT_EQ(p.outer_group_elems % p.outer_threads, 0);
        EXPECT_GE(p.nlevels, c.min_levels);
        for (int l = 0; l < p.nlevels; ++l)
            EXPECT_LE(gm::multisplit_smem_bytes(p.multisplit_group_elems[l], p.multisplit_group_rows[l], count_t(1) << p.chunks_log2[l], 256,
                                                p.sizes),
                      c.smem);
    }
    // CudaSpgemm.RandomOptionCombinations' draws: 4 KiB for elements of up to 12 bytes, 8 KiB with
    // 256 threads, 16 and 32 KiB with 256, 512 or 1024 (1024 with 16-byte elements from 32 KiB; at
    // most 2^16 columns; outer blocks lowered to the budget)
    for (const int col : {4, 8})
        for (const int val : {4, 8})
            for (const count_t smem : {count_t(4096), count_t(8192), count_t(16384), count_t(32768)})
                for (const int ms : {256, 512, 1024})
                    for (const int outer : {32, 128, 1024})
                        for (const count_t ncols : {count_t(1), count_t(100), count_t(700), count_t(40000), count_t(1) << 16}) {
                            if ((smem == 4096 && col + val > 12) || (smem < 16384 && ms > 256) || (smem < 32768 && ms == 1024 && col + val > 12))
                                continue;
                            SCOPED_TRACE("col " + std::to_string(col) + " val " + std::to_string(val) + " smem " + std::to_string(smem) + " ms " +
                                         std::to_string(ms) + " ncols " + std::to_string(ncols));
                            EXPECT_TRUE(gm::params_feasible(gm::make_params(ncols, smem, {col, val, 8, 4}, ms, outer)));
                        }
}

// The outer product's per-block and per-entry arithmetic, run as the kernel runs it (each block's
// Ã entries from outer_block_entries; per entry outer_entry, one reservation, a mark in the owner
// map; the map filled forward), against the paper's per-element GetAEntry/GetBEntry/GetExcess:
// every element reads the Ã and B entries the paper's mapping gives, and each Ã entry's elements
// land on consecutive positions of its reservation, in element order. Random CSC columns of Ã
// (some empty), B rows of 0–12 entries (empty ones are masked out of the CSC: a slice is empty when
// either is) and block sizes from 1 element up.
TEST(GmagnusMath, OuterProductOwnerMapMatchesThePaperMapping) {
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 300; ++trial) {
        const count_t ncols = 1 + static_cast<count_t>(rng() % 40);
        std::vector<count_t> b_ptr(ncols + 1, 0), col_ptr(ncols + 1, 0), slice_off(ncols + 1, 0), csc_col;
        for (count_t k = 0; k < ncols; ++k) {
            const count_t nb = rng() % 4 == 0 ? 0 : static_cast<count_t>(rng() % 13);
            const count_t na = nb == 0 || rng() % 3 == 0 ? 0 : 1 + static_cast<count_t>(rng() % 6);
            b_ptr[k + 1] = b_ptr[k] + nb;
            col_ptr[k + 1] = col_ptr[k] + na;
            slice_off[k + 1] = slice_off[k] + na * nb;
            for (count_t j = 0; j < na; ++j) csc_col.push_back(k);
        }
        const count_t total = slice_off[ncols];
        if (total == 0) continue;
        const count_t group = 1 + static_cast<count_t>(rng() % 50);
        count_t next_free = 0;  // the reservations (made in block order here; any order on the GPU)
        std::vector<count_t> ref_entry(total), ref_b(total), dest(total, -1);
        for (count_t k = 0; k < ncols; ++k)
            for (count_t i = slice_off[k]; i < slice_off[k + 1]; ++i) {
                const gm::ABEntry e = gm::get_ab_entry(i, slice_off[k], b_ptr[k + 1] - b_ptr[k]);
                ref_entry[i] = col_ptr[k] + e.a;
                ref_b[i] = b_ptr[k] + e.b;
            }
        for (count_t g = 0; g * group < total; ++g) {
            const gm::Range R = gm::group_range(g, group, total);
            const gm::Range ents = gm::outer_block_entries(R, slice_off.data(), col_ptr.data(), b_ptr.data(), ncols);
            ASSERT_EQ(ents.begin, ref_entry[R.begin]) << "trial " << trial << " block " << g;
            ASSERT_EQ(ents.end, ref_entry[R.end - 1] + 1);
            const count_t n = R.end - R.begin;
            std::vector<unsigned> owner(n, 0);
            std::vector<count_t> dest_base(ents.end - ents.begin), b_base(ents.end - ents.begin);
            count_t covered = 0;
            for (count_t ai = ents.begin; ai < ents.end; ++ai) {
                const count_t k = csc_col[ai], nb = b_ptr[k + 1] - b_ptr[k];
                const gm::OuterEntry e = gm::outer_entry(slice_off[k] + (ai - col_ptr[k]) * nb, nb, b_ptr[k], R);
                ASSERT_GE(e.count, 1);
                ASSERT_GE(e.first, R.begin);
                ASSERT_LE(e.first + e.count, R.end);
                const count_t reserved = next_free;
                next_free += e.count;
                covered += e.count;
                dest_base[ai - ents.begin] = reserved - e.first;
                b_base[ai - ents.begin] = e.b_base;
                owner[e.first - R.begin] = static_cast<unsigned>(ai - ents.begin);
            }
            ASSERT_EQ(covered, n);  // the block's entries cover its elements exactly
            unsigned run = 0;
            for (count_t p = 0; p < n; ++p) owner[p] = run = std::max(run, owner[p]);
            for (count_t i = R.begin; i < R.end; ++i) {
                const unsigned a = owner[i - R.begin];
                ASSERT_EQ(ents.begin + a, ref_entry[i]) << "trial " << trial << " element " << i;
                ASSERT_EQ(b_base[a] + i, ref_b[i]);
                dest[i] = dest_base[a] + i;
            }
        }
        // every position of Ĉ written once, and an entry's elements in order on consecutive positions
        std::vector<count_t> sorted = dest;
        std::sort(sorted.begin(), sorted.end());
        for (count_t x = 0; x < total; ++x) ASSERT_EQ(sorted[x], x);
        for (count_t i = 1; i < total; ++i)
            if (ref_entry[i] == ref_entry[i - 1] && i / group == (i - 1) / group) {
                ASSERT_EQ(dest[i], dest[i - 1] + 1);
            }
    }
}

// rank_sort_windows: the windows a compacted table's free slots give rank_write — a bitmap word and
// its prefix (4 bytes each) for 32 columns, beside the inverse map's 2 bytes an entry — or 0 (the
// bitonic sort) past rank_sort_max_windows, under 32 words, or past the map's 16-bit indices.
TEST(GmagnusMath, RankSortWindows) {
    // a packed table (float values, int32 columns) of 2048 slots holding 1126 entries: 922 free
    // 8-byte words, 2252 bytes of them the map, 640 words of bitmap and prefixes: windows of 20480 columns
    EXPECT_EQ(gm::rank_sort_window_words(2048, 1126, 4, 4, true), 640);
    EXPECT_EQ(gm::rank_sort_windows(1, 2048, 1126, 4, 4, true), 1);
    EXPECT_EQ(gm::rank_sort_windows(20480, 2048, 1126, 4, 4, true), 1);
    EXPECT_EQ(gm::rank_sort_windows(20481, 2048, 1126, 4, 4, true), 2);
    EXPECT_EQ(gm::rank_sort_windows(8 * 20480, 2048, 1126, 4, 4, true), 8);
    EXPECT_EQ(gm::rank_sort_windows(8 * 20480 + 1, 2048, 1126, 4, 4, true), 0);  // R-MAT 18's 2^18 columns: 13 windows, sorted
    // split tables: the bitmap in the free key slots, the prefixes in the free value slots, the map
    // after the larger part (the values when equal): float and int32 split lose half the prefixes'
    // 3688 bytes to it; int64 columns with float values, double with int32, both 8 bytes
    EXPECT_EQ(gm::rank_sort_window_words(2048, 1126, 4, 4, false), (3688 - 2252) / 4);
    EXPECT_EQ(gm::rank_sort_window_words(2048, 1126, 8, 4, false), 922);
    EXPECT_EQ(gm::rank_sort_window_words(2048, 1126, 4, 8, false), 922);
    EXPECT_EQ(gm::rank_sort_window_words(2048, 1126, 8, 8, false), (7376 - 2252) / 4);
    // fewer than 32 words: never (a packed table of 64 slots: 26 entries leave 31 words, 25 leave 32)
    EXPECT_EQ(gm::rank_sort_window_words(64, 26, 4, 4, true), 31);
    EXPECT_EQ(gm::rank_sort_windows(1, 64, 26, 4, 4, true), 0);
    EXPECT_EQ(gm::rank_sort_windows(1, 64, 25, 4, 4, true), 1);
    EXPECT_EQ(gm::rank_sort_windows(0, 64, 0, 4, 4, true), 0);
    EXPECT_EQ(gm::rank_sort_window_words(64, 60, 4, 4, true), 0);  // the map alone overfills the free words: none, not negative
    EXPECT_EQ(gm::rank_sort_window_words(64, 60, 4, 4, false), 0);
    EXPECT_EQ(gm::rank_sort_windows(count_t(1) << 40, 16384, 100, 8, 8, false), 0);  // int64 columns over a huge span
    // more entries than the map's 16-bit indices: sorted, however wide the windows
    EXPECT_EQ(gm::rank_sort_windows(1, count_t(1) << 18, gm::rank_sort_max_entries, 8, 8, false), 1);
    EXPECT_EQ(gm::rank_sort_windows(1, count_t(1) << 18, gm::rank_sort_max_entries + 1, 8, 8, false), 0);
}

TEST(GmagnusMath, DenseChunksPerBlock) {
    // 132 SMs, two blocks each: 264 slots; a block a chunk until four waves of blocks fill them
    EXPECT_EQ(gm::dense_chunks_per_block(0, 264), 1);
    EXPECT_EQ(gm::dense_chunks_per_block(1, 264), 1);
    EXPECT_EQ(gm::dense_chunks_per_block(4 * 264 * 2 - 1, 264), 1);
    EXPECT_EQ(gm::dense_chunks_per_block(4 * 264 * 2, 264), 2);
    EXPECT_EQ(gm::dense_chunks_per_block(4 * 264 * 5 + 7, 264), 5);
    EXPECT_EQ(gm::dense_chunks_per_block(4 * 264 * 8, 264), gm::dense_chunks_per_block_max);
    EXPECT_EQ(gm::dense_chunks_per_block(count_t(1) << 40, 264), gm::dense_chunks_per_block_max);
    EXPECT_EQ(gm::dense_chunks_per_block(20, 0), 5);  // no slots known: counted as one
    for (count_t n : {count_t(1), count_t(999), count_t(123457)}) {  // the launch covers every chunk
        const count_t per = gm::dense_chunks_per_block(n, 264);
        EXPECT_GE(gm::ceil_div(n, per) * per, n);
        EXPECT_LT((gm::ceil_div(n, per) - 1) * per, n);
    }
}

TEST(GmagnusMath, DenseWriteSelects) {
    EXPECT_FALSE(gm::dense_write_selects(1, 1));     // a word of one entry: its store
    EXPECT_FALSE(gm::dense_write_selects(32, 4));    // four words: four stores against a round
    EXPECT_TRUE(gm::dense_write_selects(32, 5));     // five: one round (a tie: fewer sectors)
    EXPECT_TRUE(gm::dense_write_selects(64, 32));    // two entries a word: two rounds for 32 words
    EXPECT_FALSE(gm::dense_write_selects(224, 32));  // seven a word: seven rounds cost more
    EXPECT_FALSE(gm::dense_write_selects(1024, 32));  // full words
}

// nth_set_bit (the sparse batches of dense_accumulate's write): every set bit of random words, of
// full and single-bit words, found in order.
TEST(GmagnusMath, NthSetBit) {
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 20000; ++trial) {
        std::uint32_t bits = static_cast<std::uint32_t>(rng());
        if (trial % 3 == 1) bits &= static_cast<std::uint32_t>(rng());  // sparser
        if (trial == 0) bits = 0xffffffffu;
        if (trial == 1) bits = 0x80000000u;
        if (trial == 2) bits = 1u;
        ASSERT_EQ(gm::popcount32(bits), static_cast<unsigned>(std::popcount(bits)));
        unsigned r = 0;
        for (unsigned b = 0; b < 32; ++b) {
            if ((bits >> b) & 1u) {
                ASSERT_EQ(gm::nth_set_bit(bits, r), b) << std::hex << bits << std::dec << " r " << r;
                ++r;
            }
        }
    }
}

// lane_run (warp_run_add's runs of equal slots): from the run heads of a warp, every lane's run
// is the lanes from the last head at or before it to the next head (or the warp's end), checked
// against a walk over the lanes for random heads, one run, and a run a lane.
TEST(GmagnusMath, LaneRunsFromHeads) {
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 20000; ++trial) {
        std::uint32_t heads = static_cast<std::uint32_t>(rng());
        if (trial % 3 == 1) heads &= static_cast<std::uint32_t>(rng()) & static_cast<std::uint32_t>(rng());  // longer runs
        if (trial == 0) heads = 0;
        if (trial == 1) heads = 0xffffffffu;
        if (trial == 2) heads = 0x80000000u;
        heads |= 1u;  // lane 0 starts a run
        for (unsigned lane = 0; lane < 32; ++lane) {
            unsigned start = lane, end = lane + 1;
            while (!((heads >> start) & 1u)) --start;
            while (end < 32 && !((heads >> end) & 1u)) ++end;
            const gm::LaneRun r = gm::lane_run(heads, lane);
            ASSERT_EQ(r.start, start) << std::hex << heads << std::dec << " lane " << lane;
            ASSERT_EQ(r.end, end) << std::hex << heads << std::dec << " lane " << lane;
        }
    }
}

// The owner map's run a thread: a warp's lanes touch halfwords `run` apart; runs of 4j halfwords put
// two or more lanes in one bank (12 on the H200's 12288 elements over 1024 threads), runs of 1, 2
// and 4j + 2 none; outer_owner_run widens the run by at most 3 to the cheapest.
TEST(GmagnusMath, OwnerRunAvoidsBankConflicts) {
    for (count_t j = 0; j < 12; ++j) EXPECT_EQ(gm::owner_run_wavefronts(12, j), 2) << j;
    for (count_t j = 0; j < 14; ++j) EXPECT_EQ(gm::owner_run_wavefronts(14, j), 1) << j;
    EXPECT_EQ(gm::owner_run_wavefronts(8, 0), 4);
    EXPECT_EQ(gm::owner_run_wavefronts(16, 3), 8);
    EXPECT_EQ(gm::owner_run_wavefronts(64, 0), 32);  // every lane in bank 0
    EXPECT_EQ(gm::owner_run_wavefronts(1, 0), 1);
    EXPECT_EQ(gm::owner_run_wavefronts(2, 1), 1);
    static_assert(gm::outer_owner_run(12288, 1024) == 14);
    static_assert(gm::outer_owner_run(1024, 1024) == 1);
    static_assert(gm::outer_owner_run(2048, 1024) == 2);
    static_assert(gm::outer_owner_run(0, 256) == 0);
    for (count_t run = 1; run < 40; ++run)  // the period of two halfwords outer_owner_run relies on
        for (count_t j = 0; j + 2 < run; ++j) ASSERT_EQ(gm::owner_run_wavefronts(run, j), gm::owner_run_wavefronts(run, j + 2)) << run << " " << j;
    for (const count_t threads : {32, 64, 128, 256, 512, 1024})
        for (count_t elems = 1; elems <= 65536; elems += elems < 4096 ? 1 : 97) {
            const count_t need = (elems + threads - 1) / threads, run = gm::outer_owner_run(elems, threads);
            ASSERT_GE(run, need);
            ASSERT_LT(run, need + 4);
            const auto cost = [](count_t r) {
                count_t c = 0;
                for (count_t j = 0; j < r; ++j) c += gm::owner_run_wavefronts(r, j);
                return c;
            };
            ASSERT_LE(cost(run), cost(need)) << elems << " over " << threads;
            if (need % 4 == 2 || need <= 2) ASSERT_EQ(run, need);
            else ASSERT_LE(cost(run), need + 3) << elems << " over " << threads;  // a conflict-free run is within reach
        }
}

// Several resident blocks of the outer product and multisplit: their groups fit the SM's shared memory over
// the count (less the runtime's reserve and static shared memory per block); the accumulators keep the
// whole budget; one block is the one-block budget.
TEST(GmagnusMath, StreamBudgetForResidentBlocks) {
    const count_t budget = 232448 - 2048, per_sm = 233472, reserved = 1024, stat = 2048;
    EXPECT_EQ(gm::stream_budget(budget, per_sm, reserved, stat, 1), budget);
    EXPECT_EQ(gm::stream_budget(budget, per_sm, reserved, stat, 0), budget);
    const count_t two = gm::stream_budget(budget, per_sm, reserved, stat, 2);
    EXPECT_EQ(two, (233472 / 2 - 1024 - 2048) / 128 * 128);
    EXPECT_LE(2 * (two + reserved + stat), per_sm);
    EXPECT_EQ(gm::stream_budget(4096, per_sm, reserved, stat, 2), 4096);  // never above the one-block budget
    for (int val : {4, 8})
        for (int k : {2, 3, 4}) {
            SCOPED_TRACE("val " + std::to_string(val) + " resident " + std::to_string(k));
            const gm::ElementSizes sz{4, val, 8, 4};
            const count_t sb = gm::stream_budget(budget, per_sm, reserved, stat, k);
            const gm::Params one = gm::make_params(count_t(1) << 24, budget, sz, 256, 1024 / k);
            const gm::Params p = gm::make_params(count_t(1) << 24, budget, sz, 256, 1024 / k, sb);
            EXPECT_TRUE(gm::params_feasible(p));
            EXPECT_EQ(p.stream_smem_bytes, sb);
            EXPECT_EQ(p.tau, one.tau);
            EXPECT_EQ(p.hash_capacity, one.hash_capacity);
            EXPECT_EQ(p.dense_columns, one.dense_columns);
            EXPECT_LE(gm::outer_smem_bytes(p.outer_group_elems, p.sizes), sb);
            EXPECT_LT(p.outer_group_elems, one.outer_group_elems);
            EXPECT_LE(p.chunks_max, one.chunks_max);
            for (int l = 0; l < p.nlevels; ++l) {
                EXPECT_LE(gm::multisplit_smem_bytes(p.multisplit_group_elems[l], p.multisplit_group_rows[l], count_t(1) << p.chunks_log2[l], 256, p.sizes), sb);
                EXPECT_GE(p.multisplit_group_elems[l], 256);
            }
        }
}

// GpuSpgemmOptions::heavy_threshold: τ lowered to it (never raised), the rest derived from that τ
// (more rows touch a multisplit group, so its histograms hold fewer chunks), still feasible.
TEST(GmagnusMath, HeavyThresholdLowersTau) {
    const gm::ElementSizes s{4, 4, 8, 4};
    const gm::Params paper = gm::make_params(count_t(1) << 20, 232448, s, 256, 1024);
    EXPECT_EQ(paper.tau, 8192);
    EXPECT_EQ(gm::make_params(count_t(1) << 20, 232448, s, 256, 1024, 0, count_t(1) << 20).tau, 8192);
    for (count_t cap : {4096, 1024, 256, 32}) {
        SCOPED_TRACE("cap " + std::to_string(cap));
        const gm::Params p = gm::make_params(count_t(1) << 20, 232448, s, 256, 1024, 0, cap);
        EXPECT_EQ(p.tau, cap);
        EXPECT_EQ(p.hash_capacity, paper.hash_capacity);
        EXPECT_EQ(p.dense_columns, paper.dense_columns);
        EXPECT_TRUE(gm::params_feasible(p));
        EXPECT_LE(p.chunks_max, paper.chunks_max);
        for (int l = 0; l < p.nlevels; ++l) EXPECT_GE(p.multisplit_group_rows[l], paper.multisplit_group_rows[0]);
        EXPECT_EQ(gm::accum_kind(cap + 1, 10, p), gm::AccumKind::dense);
        EXPECT_EQ(gm::accum_kind(cap, 30, p), gm::AccumKind::hash);
    }
}

// A heavy threshold too small for the budget is raised to the smallest feasible τ (never lowered,
// and left alone where it is feasible); a budget too small at the paper's τ stays infeasible.
TEST(GmagnusMath, HeavyThresholdRaisedToFeasible) {
    int raised = 0;
    for (const int col : {4, 8})
        for (const int val : {4, 8})
            for (const count_t smem : {count_t(4096), count_t(8192), count_t(16384), count_t(32768), count_t(227 * 1024 - 2304)})
                for (const int ms : {256, 512, 1024})
                    for (const count_t ncols : {count_t(300), count_t(40000), count_t(1) << 16, count_t(1) << 24})
                        for (const count_t cap : {count_t(1), count_t(16), count_t(64), count_t(300), count_t(512)}) {
                            SCOPED_TRACE("col " + std::to_string(col) + " val " + std::to_string(val) + " smem " + std::to_string(smem) + " ms " +
                                         std::to_string(ms) + " ncols " + std::to_string(ncols) + " cap " + std::to_string(cap));
                            const gm::ElementSizes s{col, val, 8, 4};
                            const gm::Params paper = gm::make_params(ncols, smem, s, ms, 1024);
                            const gm::Params asked = gm::make_params(ncols, smem, s, ms, 1024, 0, cap);
                            const gm::Params p = gm::make_feasible_params(ncols, smem, s, ms, 1024, 0, cap);
                            EXPECT_EQ(gm::params_feasible(p), gm::params_feasible(paper));
                            if (!gm::params_feasible(paper)) continue;
                            EXPECT_GE(p.tau, std::min(cap, paper.tau));
                            EXPECT_LE(p.tau, paper.tau);
                            if (gm::params_feasible(asked)) {
                                EXPECT_EQ(p.tau, asked.tau);
                            } else {
                                ++raised;
                                EXPECT_GT(p.tau, cap);
                                EXPECT_FALSE(gm::params_feasible(gm::make_params(ncols, smem, s, ms, 1024, 0, p.tau - 1))) << "the smallest";
                            }
                        }
    EXPECT_GT(raised, 0) << "no threshold needed raising: the search is untested";
    // the H200's float/int32 budget with 1024-thread multisplit blocks: τ = 1 raised
    const gm::Params h = gm::make_feasible_params(count_t(1) << 20, 227 * 1024 - 2304, {4, 4, 8, 4}, 1024, 1024, 0, 1);
    EXPECT_TRUE(gm::params_feasible(h));
    EXPECT_GT(h.tau, 1);
}

// The outer product's default block for `resident` blocks an SM: registers and thread slots decide.
TEST(GmagnusMath, OuterBlockThreadsForResidentBlocks) {
    EXPECT_EQ(gm::outer_block_threads(1, 32), 1024);
    EXPECT_EQ(gm::outer_block_threads(2, 32), 1024);  // 2 x 1024 x 32 = the SM's 65536 registers
    EXPECT_EQ(gm::outer_block_threads(4, 32), 512);   // thread slots: 2048
    EXPECT_EQ(gm::outer_block_threads(1, 60), 1024);
    EXPECT_EQ(gm::outer_block_threads(2, 60), 512);  // 60 registers: 2048 a warp, 32 warps an SM
    EXPECT_EQ(gm::outer_block_threads(8, 64), 128);  // 8 x 128 x 64 = 65536
    EXPECT_EQ(gm::outer_block_threads(2, 0), 1024);  // registers unknown: thread slots only
    EXPECT_EQ(gm::outer_block_threads(64, 255), 32);  // never below a warp
    for (int resident = 1; resident <= 8; ++resident)
        for (int regs : {16, 32, 40, 64, 128}) {
            const int t = gm::outer_block_threads(resident, regs);
            if (t > 32) {
                EXPECT_GE(gm::resident_blocks_per_sm(t, regs, 0, count_t(1) << 40, 0), resident) << resident << " " << regs;
            }
            if (t < 1024) {
                EXPECT_LT(gm::resident_blocks_per_sm(2 * t, regs, 0, count_t(1) << 40, 0), resident) << resident << " " << regs;
            }
        }
}

// The dispatch asks for 1024 outer-product threads; small budgets get fewer, and every kernel's
// dynamic shared memory fits the budget (else the launch fails on the device).
TEST(GmagnusMath, OuterThreadsAndSharedMemoryFit) {
    const gm::Params big = gm::make_params(count_t(1) << 20, 232448 - 2048, {4, 4, 8, 4}, 256, 1024);
    EXPECT_EQ(big.outer_threads, 1024);
    EXPECT_EQ(big.outer_group_elems, 12288);  // 230400 / 18 = 12800, a multiple of 1024
    EXPECT_TRUE(gm::params_feasible(big));
    const gm::Params small = gm::make_params(count_t(1) << 14, 3072, {4, 4, 8, 4}, 256, 1024);
    EXPECT_EQ(small.outer_threads, 128);  // 3072 / 18 = 170 elements
    EXPECT_EQ(small.outer_group_elems, 128);
    EXPECT_TRUE(gm::params_feasible(small));
    for (count_t smem : {2048, 3072, 4096, 8192, 49152, 230400})
        for (int val : {4, 8}) {
            const gm::ElementSizes sz{4, val, 8, 4};
            const gm::Params p = gm::make_params(count_t(1) << 20, smem, sz, 256, 1024);
            if (!gm::params_feasible(p)) continue;
            EXPECT_LE(gm::hash_smem_bytes(p.hash_capacity, sz, true), smem);
            EXPECT_LE(gm::dense_smem_bytes(gm::chunk_span_log2(p, p.nlevels), sz, true), smem);
            EXPECT_LE(gm::outer_smem_bytes(p.outer_group_elems, p.sizes), smem);
        }
    // too small for the 32-entry hash bin: rejected instead of launching with too much shared memory
    EXPECT_FALSE(gm::params_feasible(gm::make_params(1000, 300, {4, 8, 8, 4}, 256, 1024)));
    EXPECT_EQ(gm::dense_smem_bytes(5, {4, 8, 8, 4}, true), 16 + 32 * 8);
    EXPECT_EQ(gm::dense_smem_bytes(15, {4, 8, 8, 4}, false), 4096);
}

// H200: 232448 bytes opt-in; the 512-thread dense kernel holds 2208 bytes of static CUB storage
// (nvcc 13, sm_90), more than the fixed 2 KiB that was reserved before (cudaFuncSetAttribute then
// fails for every default-budget product).
TEST(GmagnusMath, SharedMemoryBudgetLeavesTheStaticPart) {
    const count_t optin = 232448, stat = 2208;
    const count_t b = gm::shared_memory_budget(optin, stat, 0);
    EXPECT_LE(b + stat, optin);
    EXPECT_EQ(b % 128, 0);
    EXPECT_GT(b, optin - stat - 128);
    EXPECT_EQ(gm::shared_memory_budget(optin, stat, 4096), 4096);
    EXPECT_EQ(gm::shared_memory_budget(optin, stat, 1 << 20), b);
    const gm::Params p = gm::make_params(count_t(1) << 20, b, {4, 8, 8, 4}, 256, 1024);
    EXPECT_TRUE(gm::params_feasible(p));
    EXPECT_LE(gm::dense_smem_bytes(gm::chunk_span_log2(p, p.nlevels), p.sizes, true) + stat, optin);
}

// The GPU test CudaSpgemm.RmatHeavyRowsAndLevels runs rmat14^2 at a 3 KiB budget on the device
// (the simulator runs a smaller case): it expects heavy rows and a level-0 chunk above tau, so a
// second level runs. Counted here from the parameters, without running the product.
TEST(GmagnusMath, GpuSizedTestReachesTwoLevels) {
    const auto r14 = gigasparse::test::rmat_like<float, std::int32_t>(14, 14, 16, 3);
    const gm::Params p = gm::make_params(r14.ncols, 3072, {4, 4, 8, 4}, 256, 1024);
    ASSERT_TRUE(gm::params_feasible(p));
    ASSERT_GE(p.nlevels, 2);
    const int sub = gm::chunk_span_log2(p, 1);
    count_t heavy = 0, split_chunks = 0;
    for (count_t r = 0; r < r14.nrows; ++r) {
        count_t products = 0;
        std::vector<count_t> per_chunk(count_t(1) << p.chunks_log2[0], 0);
        for (auto j = r14.row_ptr[r]; j < r14.row_ptr[r + 1]; ++j)
            for (auto q = r14.row_ptr[r14.col_idx[j]]; q < r14.row_ptr[r14.col_idx[j] + 1]; ++q) {
                ++products;
                ++per_chunk[gm::chunk_of(r14.col_idx[q], sub)];
            }
        if (gm::accum_kind(products, p.span_log2, p) == gm::AccumKind::hash) continue;
        ++heavy;
        for (count_t c : per_chunk) split_chunks += gm::accum_kind(c, sub, p) == gm::AccumKind::split;
    }
    EXPECT_GT(heavy, 0);
    EXPECT_GT(split_chunks, 0) << "the GPU test expects levels_run >= 2";
}

// The small-product path (small_rows_kernel): which products try it, each warp's region, each row's
// table, and the bound of a row with more products than its table's entries.
TEST(GmagnusMath, SmallProductTables) {
    EXPECT_TRUE(gm::small_product_eligible(494, 1666, 1666)) << "494_bus";
    EXPECT_TRUE(gm::small_product_eligible(0, 0, 0));
    EXPECT_TRUE(gm::small_product_eligible(count_t(1) << 17, count_t(1) << 17, count_t(1) << 17));
    EXPECT_FALSE(gm::small_product_eligible((count_t(1) << 17) + 1, 10, 10)) << "rows";
    EXPECT_FALSE(gm::small_product_eligible(16706, 242502, 242502)) << "astro-ph";
    EXPECT_FALSE(gm::small_product_eligible(100, 100, (count_t(1) << 17) + 1)) << "B";
    // regions of 8 KB: float/int32 1024 entries, double/int32 512 (682 fit), double/int64 512
    EXPECT_EQ(gm::small_region_entries({4, 4, 8, 4}), 1024);
    EXPECT_EQ(gm::small_region_entries({4, 8, 8, 4}), 512);
    EXPECT_EQ(gm::small_region_entries({8, 8, 8, 4}), 512);
    EXPECT_EQ(gm::small_region_entries({8, 4, 8, 4}), 512);
    EXPECT_LE(gm::small_warps * gm::small_region_entries({4, 4, 8, 4}) * 8, 48 * 1024) << "no opt-in shared memory";
    // tables: at least 32 entries (the sort's runs), twice the products, at most the region
    const count_t region = 1024;
    EXPECT_EQ(gm::small_row_capacity(0, region), 32);
    EXPECT_EQ(gm::small_row_capacity(1, region), 32);
    EXPECT_EQ(gm::small_row_capacity(16, region), 32);
    EXPECT_EQ(gm::small_row_capacity(17, region), 64);
    EXPECT_EQ(gm::small_row_capacity(300, region), 1024);
    EXPECT_EQ(gm::small_row_capacity(512, region), 1024);
    EXPECT_EQ(gm::small_row_capacity(513, region), 1024);
    EXPECT_EQ(gm::small_row_capacity(4096, region), 1024);
    for (count_t p = 0; p <= gm::small_max_row_products; ++p) {
        const count_t cap = gm::small_row_capacity(p, region);
        ASSERT_EQ(cap & (cap - 1), 0) << "a power of two, for p = " << p;
        ASSERT_GE(cap, gm::warp_size);
        if (!gm::small_row_bounded(p, cap)) ASSERT_GE(cap, p) << "every product's column fits, p = " << p;
        else ASSERT_EQ(cap, region);
    }
    // the numeric phase's table, sized by the row's distinct columns: every kept row's columns fit,
    // never more than the products' table
    for (count_t p = 1; p <= gm::small_max_row_products; p += (p < 2048 ? 1 : 7))
        for (count_t d = 1; d <= std::min(p, region); d += (d < 64 ? 1 : 13)) {
            if (gm::small_row_is_long(p, d, region)) continue;
            const count_t cap = gm::small_row_capacity(d, region);
            ASSERT_GE(cap, d) << p << " products, " << d << " columns";
            ASSERT_LE(cap, gm::small_row_capacity(p, region));
        }
    EXPECT_EQ(gm::small_row_capacity(33, region), 128) << "the profile's band: 289 products over 33 columns";
    EXPECT_FALSE(gm::small_row_bounded(1024, 1024));
    EXPECT_TRUE(gm::small_row_bounded(1025, 1024));
    // a bounded row: lanes pass the check while fewer than the limit are in, each adds at most one
    // column, so the table holds at most cap - 1 and always has an empty slot for a probe
    EXPECT_EQ(gm::small_row_limit(1024), 992);
    EXPECT_LE(gm::small_row_limit(1024) - 1 + gm::warp_size, 1024 - 1);
    EXPECT_LE(gm::small_max_row_products / gm::warp_size, 128) << "a warp's walk";
    // long rows (a block each): more products than a warp walks, or a bounded row's columns at
    // the limit; the numeric phase decides from C's row length as the count did from its columns
    EXPECT_FALSE(gm::small_row_is_long(4096, 100, region));
    EXPECT_TRUE(gm::small_row_is_long(4097, 1, region));
    EXPECT_FALSE(gm::small_row_is_long(1024, 1024, region)) << "not bounded: its table holds every product";
    EXPECT_FALSE(gm::small_row_is_long(2000, 991, region));
    EXPECT_TRUE(gm::small_row_is_long(2000, 992, region));
    EXPECT_TRUE(gm::small_row_is_long(1200, 480, 512)) << "double: a region of 512";
    EXPECT_FALSE(gm::small_row_is_long(1200, 479, 512));
    // their windows in the 32 KB of a small_rows_kernel block: bitmap and values (numeric), bitmap
    // alone (symbolic); at most 8 numeric windows, else the product goes to the binned path
    EXPECT_EQ(gm::small_long_bytes, gm::small_warps * gm::small_region_bytes);
    for (const auto& [sizes, window] : {std::pair{gm::ElementSizes{4, 4}, count_t(7936)}, std::pair{gm::ElementSizes{8, 8}, count_t(4032)},
                                       std::pair{gm::ElementSizes{4, 8}, count_t(4032)}}) {
        const count_t w = gm::small_long_window(sizes, true);
        EXPECT_EQ(w, window);
        EXPECT_LE(gm::dense_row_bytes(w, sizes.val, true), gm::small_long_bytes);
        EXPECT_GT(gm::dense_row_bytes(w + 1, sizes.val, true), gm::small_long_bytes);
        EXPECT_EQ(gm::small_long_window(sizes, false), 262144);
        EXPECT_GE(gm::small_long_window(sizes, false), gm::small_long_max_windows * w) << "a span that fits counts in one symbolic window";
        EXPECT_TRUE(gm::small_long_row_fits(1, w));
        EXPECT_TRUE(gm::small_long_row_fits(8 * w, w));
        EXPECT_FALSE(gm::small_long_row_fits(8 * w + 1, w));
        EXPECT_FALSE(gm::small_long_row_fits(0, w));
    }
    EXPECT_LE(gm::small_long_bytes + 8 * 1024, 48 * 1024) << "no opt-in shared memory (the block walk and counts beside)";
}
