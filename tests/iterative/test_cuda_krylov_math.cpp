// tests/iterative/test_cuda_krylov_math.cpp: the launch decisions of the GPU iterative backend
// (src/iterative/cuda/krylov_math.hpp), checked with g++ on machines without a GPU.
#include <gtest/gtest.h>

#include <cstdint>

#include "iterative/cuda/krylov_math.hpp"

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
