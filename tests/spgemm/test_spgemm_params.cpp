// tests/spgemm/test_spgemm_params.cpp: the MAGNUS parameter formulas and cache detection (notes/spgemm.md §1.5).
#include <gtest/gtest.h>

#include <gigasparse/core/error.hpp>

#include "spgemm/params.hpp"

namespace gigasparse::spgemm {
namespace {

constexpr std::int64_t MiB = std::int64_t(1) << 20;

TEST(SpgemmParams, PowersOfTwo) {
    EXPECT_EQ(next_pow2(0), 1);
    EXPECT_EQ(next_pow2(1), 1);
    EXPECT_EQ(next_pow2(5), 8);
    EXPECT_EQ(next_pow2(1024), 1024);
    EXPECT_EQ(floor_pow2(1023), 512);
    EXPECT_EQ(floor_pow2(1024), 1024);
    EXPECT_EQ(log2_exact(4096), 12);
}

// The worked table of the notes: 1 MB L2, fp32 numeric (5 B/column): m_CmaxL2 = 2^28, 256 fine chunks
// at m_C = 2^20; symbolic (1 B/column): m_CmaxL2 = 2^30, 64 chunks.
TEST(SpgemmParams, WorkedNumbersFromThePaper) {
    const ChunkParams num = chunk_params(std::int64_t(1) << 20, MiB, 64, 5);
    EXPECT_EQ(num.chunk_bytes, 136);
    EXPECT_EQ(num.max_l2_cols, std::int64_t(1) << 28);
    EXPECT_EQ(num.fine_chunks, 256);
    EXPECT_EQ(num.fine_chunk_cols, 4096);
    EXPECT_FALSE(num.coarse);
    const ChunkParams sym = chunk_params(std::int64_t(1) << 20, MiB, 64, 1);
    EXPECT_EQ(sym.max_l2_cols, std::int64_t(1) << 30);
    EXPECT_EQ(sym.fine_chunks, 64);
    const ChunkParams spr = chunk_params(std::int64_t(1) << 20, 2 * MiB, 64, 1);
    EXPECT_EQ(spr.max_l2_cols, std::int64_t(1) << 32);
}

TEST(SpgemmParams, CoarseLevelBeyondTheL2Limit) {
    // 2 MB, fp64 numeric: m_CmaxL2 = 2^29 (notes table); m_C = 2^31 needs 4 coarse chunks.
    const ChunkParams p = chunk_params(std::int64_t(1) << 31, 2 * MiB, 64, 9);
    EXPECT_EQ(p.max_l2_cols, std::int64_t(1) << 29);
    EXPECT_TRUE(p.coarse);
    EXPECT_EQ(p.coarse_chunks, 4);
    EXPECT_EQ(p.coarse_chunk_cols, std::int64_t(1) << 29);
    EXPECT_EQ(p.fine_chunks, 8192);
    EXPECT_EQ(p.fine_chunk_cols * p.fine_chunks, p.coarse_chunk_cols);
}

TEST(SpgemmParams, OverridesAndSmallShapes) {
    const ChunkParams p = chunk_params(1000, MiB, 64, 9, {16, 256});
    EXPECT_EQ(p.ncols_pow2, 1024);
    EXPECT_TRUE(p.coarse);
    EXPECT_EQ(p.coarse_chunks, 4);
    EXPECT_EQ(p.fine_chunk_cols, 16);
    EXPECT_EQ(p.fine_shift, 4);
    const ChunkParams empty = chunk_params(0, MiB, 64, 9);
    EXPECT_EQ(empty.ncols_pow2, 1);
    EXPECT_EQ(empty.fine_chunk_cols, 1);
    EXPECT_THROW(chunk_params(1000, MiB, 64, 9, {12, 0}), InvalidArgument);
}

TEST(SpgemmParams, CacheDetectionGivesPlausibleSizes) {
    const CacheInfo c = detect_cache();
    EXPECT_GE(c.l2_bytes, 64 * 1024);
    EXPECT_GE(c.line_bytes, 16);
    EXPECT_LE(c.line_bytes, 512);
}

}  // namespace
}  // namespace gigasparse::spgemm
