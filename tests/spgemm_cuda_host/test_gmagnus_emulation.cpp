// tests/spgemm_cuda_host/test_gmagnus_emulation.cpp: the host emulation of the gMAGNUS pipeline against reference::spgemm.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include <gigasparse/reference/kernels.hpp>

#include "spgemm_cuda_host/gmagnus_emulation.hpp"
#include "spgemm_cuda_host/power_law.hpp"
#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace gm = gigasparse::cuda::gmagnus;
namespace emu = gigasparse::test::gmagnus_emu;
using gm::count_t;

namespace {

struct Config {
    count_t smem;
    int threads;
    count_t outer_elems;  // 0: from Params
    count_t budget;       // 0: unlimited
};

template <class V, class I>
emu::EmulationStats check(const gs::Csr<V, I>& a, const gs::Csr<V, I>& b, const Config& cfg, const std::string& what) {
    SCOPED_TRACE(what + " smem=" + std::to_string(cfg.smem) + " threads=" + std::to_string(cfg.threads));
    const gm::ElementSizes sizes{static_cast<int>(sizeof(I)), static_cast<int>(sizeof(V)), 8, 4};
    const gm::Params p = gm::make_params(b.ncols, cfg.smem, sizes, cfg.threads, cfg.threads);
    emu::EmulationStats st;
    const auto expected = gs::reference::spgemm(a.view(), b.view());
    const auto actual = emu::multiply(a.view(), b.view(), p, {cfg.outer_elems, cfg.budget}, st);
    EXPECT_TRUE(gs::test::csr_near(expected.view(), actual.view(), 1e-5));
    return st;
}

const Config small_budget{4096, 32, 0, 0};     // tau 128 (double/int32) -> many heavy rows
const Config tiny_budget{2048, 32, 37, 0};     // odd outer block size, several levels
const Config medium_budget{16384, 64, 0, 0};

}  // namespace

TEST(GmagnusEmulation, RandomSquare) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE(gs::test::seed_trace(seed));
        const auto a = gs::test::random_csr<double, std::int32_t>(300, 300, 12, seed);
        check(a, a, small_budget, "random A*A");
        check(a, a, tiny_budget, "random A*A");
    }
}

TEST(GmagnusEmulation, PowerLawForcesSeveralLevels) {
    const auto a = gs::test::rmat_like<double, std::int32_t>(10, 16, 8, 7);
    const auto b = gs::test::rmat_like<double, std::int32_t>(16, 16, 4, 8);
    const auto st = check(a, b, tiny_budget, "rmat 2^10 x 2^16 times 2^16 x 2^16");
    EXPECT_GT(st.heavy_rows, 0);
    EXPECT_GE(st.levels_run, 2);
    EXPECT_GT(st.dense_segments, 0);
    EXPECT_GT(st.hash_segments, 0);
    EXPECT_GT(st.outer_blocks, 1);
    const auto st2 = check(a, b, medium_budget, "rmat medium");
    EXPECT_GT(st2.heavy_rows, 0);
}

TEST(GmagnusEmulation, RmatSquared) {
    const auto a = gs::test::rmat_like<float, std::int32_t>(11, 11, 8, 11);
    const auto st = check(a, a, small_budget, "rmat^2 float");
    EXPECT_GT(st.heavy_rows, 0);
    check(a, a, tiny_budget, "rmat^2 float tiny");
}

TEST(GmagnusEmulation, RectangularAndEmptyRows) {
    const auto a = gs::test::random_csr<double, std::int64_t>(257, 513, 20, 5, 0.3);
    const auto b = gs::test::random_csr<double, std::int64_t>(513, 70001, 30, 6, 0.2);
    const auto st = check(a, b, tiny_budget, "rectangular with empty rows, int64");
    EXPECT_GT(st.heavy_rows, 0);
    EXPECT_GT(st.light_rows, 0);
    check(a, b, small_budget, "rectangular small budget");
}

TEST(GmagnusEmulation, EmptyAndDegenerate) {
    const gs::Csr<double, std::int32_t> z(0, 0);
    check(z, z, small_budget, "0x0");
    const gs::Csr<double, std::int32_t> e(17, 33);
    const auto b = gs::test::random_csr<double, std::int32_t>(33, 40, 3, 1);
    check(e, b, small_budget, "empty A");
    const auto a1 = gs::test::random_csr<double, std::int32_t>(1, 33, 33, 2);
    check(a1, b, tiny_budget, "single row");
}

TEST(GmagnusEmulation, BandedMatchesAcrossBlockBoundaries) {
    const auto a = gs::test::banded<double, std::int32_t>(1000, 9, 3);
    for (count_t outer : {count_t(31), count_t(32), count_t(33), count_t(1000)}) check(a, a, {2048, 32, outer, 0}, "banded");
}

TEST(GmagnusEmulation, BatchedHeavyRowsGiveTheSameProduct) {
    const auto a = gs::test::rmat_like<double, std::int32_t>(10, 14, 10, 21);
    const auto b = gs::test::rmat_like<double, std::int32_t>(14, 14, 6, 22);
    const auto st = check(a, b, {2048, 32, 0, 700}, "batched, budget 700 elements");
    EXPECT_GT(st.batches, 1);
    const auto st1 = check(a, b, {2048, 32, 0, 1}, "one heavy row per batch");
    EXPECT_EQ(st1.batches, st1.heavy_rows);
}

// The exact configuration of the GPU test CudaSpgemm.SanitizerSmall (256-thread blocks, 4 KiB
// budget, 32 KiB intermediate budget = 1365 double/int32 elements per batch): the emulation
// reaches the paths that test expects (heavy and light rows, >= 2 levels, several batches).
TEST(GmagnusEmulation, SanitizerCaseOfTheGpuTests) {
    const auto a = gs::test::rmat_like<double, std::int32_t>(8, 16, 12, 31);
    const auto b = gs::test::rmat_like<double, std::int32_t>(16, 16, 3, 32);
    const auto st = check(a, b, {4096, 256, 0, (1 << 15) / (2 * 12)}, "sanitizer case");
    EXPECT_GT(st.heavy_rows, 0);
    EXPECT_GT(st.light_rows, 0);
    EXPECT_GE(st.levels_run, 2);
    EXPECT_GT(st.batches, 1);
    EXPECT_GT(st.dense_segments, 0);
}

TEST(GmagnusEmulation, UnsortedRowsWithDuplicates) {
    auto a = gs::test::unsort_rows(gs::test::rmat_like<double, std::int32_t>(9, 9, 12, 41), 7);
    a.col_idx.push_back(a.col_idx.back());  // a duplicate entry at the end of the last row
    a.values.push_back(0.25);
    a.row_ptr.back() += 1;
    const auto b = gs::test::unsort_rows(gs::test::rmat_like<double, std::int32_t>(9, 9, 6, 42), 8);
    const auto st = check(a, b, small_budget, "unsorted with duplicates");
    EXPECT_GT(st.heavy_rows, 0);
    check(a, b, tiny_budget, "unsorted with duplicates, tiny budget");
}

// The statistics the GPU tests (tests/cuda) assert, with the dispatch's block sizes (256-thread
// multisplit, up to 1024-thread outer product) and its batch budget (bytes / (2 (s_col + s_val))):
// a failed expectation there should mean a GPU bug, not a wrong expectation.
TEST(GmagnusEmulation, GpuTestExpectationsHold) {
    auto run = [](const auto& a, const auto& b, count_t smem, count_t budget_bytes, const std::string& what) {
        using V = typename std::decay_t<decltype(a)>::value_type;
        using I = typename std::decay_t<decltype(a)>::index_type;
        SCOPED_TRACE(what);
        const gm::ElementSizes sizes{static_cast<int>(sizeof(I)), static_cast<int>(sizeof(V)), 8, 4};
        const gm::Params p = gm::make_params(b.ncols, smem, sizes, 256, 1024);
        EXPECT_TRUE(gm::params_feasible(p));
        emu::EmulationStats st;
        const count_t budget = budget_bytes > 0 ? budget_bytes / (2 * static_cast<count_t>(sizeof(I) + sizeof(V))) : 0;
        const auto actual = emu::multiply(a.view(), b.view(), p, {0, budget}, st);
        EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), actual.view(), std::is_same_v<V, float> ? 1e-4 : 1e-10));
        return st;
    };
    // RmatHeavyRowsAndLevels (rmat14^2 at 3 KiB): heavy rows, and a level-0 chunk above tau, so a
    // second level runs. Counted directly (the full emulation of this case takes ~15 s).
    {
        const auto r14 = gs::test::rmat_like<float, std::int32_t>(14, 14, 16, 3);
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
    const auto r12 = gs::test::rmat_like<double, std::int64_t>(12, 12, 16, 8);
    EXPECT_GT(run(r12, r12, 8192, 1 << 16, "Int64IndicesAndBatches: int64 batched").batches, 1);
    const auto f12 = gs::test::rmat_like<float, std::int64_t>(12, 12, 8, 9);
    run(f12, f12, 4096, 1 << 14, "float int64 batched low smem");
}
