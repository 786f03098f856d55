// tests/iterative/test_cuda_krylov_math.cpp: the launch decisions of the GPU iterative backend
// (src/iterative/cuda/krylov_math.hpp), checked with g++ on machines without a GPU.
#include <gtest/gtest.h>

#include <cstdint>

#include <gigasparse/gen/generators.hpp>

#include "iterative/cuda/krylov_math.hpp"
#include "iterative/cuda/level_sets.hpp"

namespace k = gigasparse::cuda::krylov;

TEST(CudaKrylovMath, LanesPerRowFollowTheMeanRowLength) {
    EXPECT_EQ(k::spmv_threads_per_row(0, 0), 1);
    EXPECT_EQ(k::spmv_threads_per_row(100, 0), 1);
    EXPECT_EQ(k::spmv_threads_per_row(100, 100), 1);   // one entry per row
    EXPECT_EQ(k::spmv_threads_per_row(100, 101), 2);   // the mean rounds up
    EXPECT_EQ(k::spmv_threads_per_row(1000, 7000), 8);  // 7-point stencil
    EXPECT_EQ(k::spmv_threads_per_row(1000, 16000), 16);
    EXPECT_EQ(k::spmv_threads_per_row(1000, 17000), 32);
    EXPECT_EQ(k::spmv_threads_per_row(10, 100000), 32);  // capped at a warp
    for (std::int64_t nnz = 1; nnz < 5000; nnz += 37) {
        const int t = k::spmv_threads_per_row(100, nnz);
        EXPECT_EQ(t & (t - 1), 0) << "a power of two";
        EXPECT_GE(t, 1);
        EXPECT_LE(t, 32);
    }
}

TEST(CudaKrylovMath, LongRowThresholdAndCapacity) {
    EXPECT_EQ(k::spmv_long_row_threshold(1, 0), 256);   // at least a block's width
    EXPECT_EQ(k::spmv_long_row_threshold(8, 0), 256);
    EXPECT_EQ(k::spmv_long_row_threshold(16, 0), 512);
    EXPECT_EQ(k::spmv_long_row_threshold(32, 0), 1024);
    EXPECT_EQ(k::spmv_long_row_threshold(32, 5), 5);     // forced
    // no more rows can be longer than t than nnz / (t + 1), nor than the rows
    EXPECT_EQ(k::spmv_long_row_capacity(1000, 10000, 256), 10000 / 257);
    EXPECT_EQ(k::spmv_long_row_capacity(10, 1000000, 4), 10);
    EXPECT_EQ(k::spmv_long_row_capacity(10, 100, 256), 0);
}

TEST(CudaKrylovMath, GridShapes) {
    // one row per T lanes: 256 / T rows per block
    EXPECT_EQ(k::spmv_vector_blocks(1, 1, 1 << 30), 1);
    EXPECT_EQ(k::spmv_vector_blocks(256, 1, 1 << 30), 1);
    EXPECT_EQ(k::spmv_vector_blocks(257, 1, 1 << 30), 2);
    EXPECT_EQ(k::spmv_vector_blocks(8, 32, 1 << 30), 1);
    EXPECT_EQ(k::spmv_vector_blocks(9, 32, 1 << 30), 2);
    EXPECT_EQ(k::spmv_vector_blocks(std::int64_t(1) << 40, 32, 1000), 1000);  // the kernel strides beyond
    EXPECT_EQ(k::spmv_vector_blocks(0, 4, 1000), 1);
    // reductions: >= 4 entries per thread, at most max_reduce_blocks partials, a function of n alone
    EXPECT_EQ(k::reduce_blocks(0), 1);
    EXPECT_EQ(k::reduce_blocks(1024), 1);
    EXPECT_EQ(k::reduce_blocks(1025), 2);
    EXPECT_EQ(k::reduce_blocks(std::int64_t(1) << 40), k::max_reduce_blocks);
    EXPECT_EQ(k::elementwise_blocks(256, 1 << 30), 1);
    EXPECT_EQ(k::elementwise_blocks(257, 1 << 30), 2);
    EXPECT_EQ(k::elementwise_blocks(std::int64_t(1) << 40, 77), 77);
}

// Every row after all the rows it depends on, levels as deep as the longest chain.
TEST(CudaKrylovMath, LevelSetsOfBothSweeps) {
    const std::int64_t m = 9;
    const auto a = gigasparse::gen::poisson2d<double, std::int32_t>(m, m);
    for (const bool lower : {true, false}) {
        const auto s = k::level_sets(a.view(), lower);
        EXPECT_EQ(s.levels(), 2 * m - 1) << "a 2D grid sweeps along its anti-diagonals";
        ASSERT_EQ(static_cast<std::int64_t>(s.order.size()), a.nrows);
        std::vector<std::int64_t> level(static_cast<std::size_t>(a.nrows), -1);
        for (std::int64_t l = 0; l < s.levels(); ++l)
            for (std::int64_t q = s.level_ptr[l]; q < s.level_ptr[l + 1]; ++q) level[s.order[q]] = l;
        for (std::int64_t i = 0; i < a.nrows; ++i) {
            ASSERT_GE(level[i], 0) << "row " << i << " in no level";
            for (auto e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e) {
                const std::int64_t j = a.col_idx[e];
                if (lower ? j < i : j > i) {
                    EXPECT_LT(level[j], level[i]) << "row " << i << " before its dependency " << j;
                }
            }
        }
    }
    // a diagonal matrix: one level
    gigasparse::Csr<double, std::int32_t> d(3, 3);
    d.row_ptr = {0, 1, 2, 3};
    d.col_idx = {0, 1, 2};
    d.values = {1, 2, 3};
    EXPECT_EQ(k::level_sets(d.view(), true).levels(), 1);
    EXPECT_EQ(k::level_sets(gigasparse::Csr<double, std::int32_t>(0, 0).view(), false).levels(), 0);
}
