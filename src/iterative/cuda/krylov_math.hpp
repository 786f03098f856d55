// src/iterative/cuda/krylov_math.hpp: the launch decisions of the GPU iterative backend (SpMV shape,
// long-row threshold, reduction grid), shared by the CUDA dispatch code and g++ unit tests.
//
// Pure integer functions (no CUDA headers): tests/iterative/test_cuda_krylov_math.cpp checks them on
// machines without a GPU, and the kernels that use them run on the CPU simulator (tests/cuda_sim).
#pragma once

#include <gigasparse/cuda/abi.hpp>

#include <cstdint>

#ifdef __CUDACC__
#define GIGASPARSE_KRYLOV_HD __host__ __device__
#else
#define GIGASPARSE_KRYLOV_HD
#endif

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {
namespace krylov {

inline constexpr int block_threads = 256;          // every kernel of the backend
inline constexpr std::int64_t max_reduce_blocks = 1024;  // partial sums per reduction (one finishing block reads them)
inline constexpr int max_threads_per_row = 32;     // a warp

// CSR-vector SpMV: T lanes of a warp share a row, T the smallest power of two >= the mean row length
// (1..32): a Poisson row of 7 gets 8 lanes, a graph row of 16 gets 16; the lanes of a row read its
// columns and values contiguously, and a shuffle tree of log2 T steps sums them.
GIGASPARSE_KRYLOV_HD constexpr int spmv_threads_per_row(std::int64_t nrows, std::int64_t nnz) {
    if (nrows <= 0 || nnz <= 0) return 1;
    const std::int64_t mean = (nnz + nrows - 1) / nrows;  // rounded up
    int t = 1;
    while (t < max_threads_per_row && t < mean) t *= 2;
    return t;
}

// Rows longer than this leave the CSR-vector kernel for one block each (256 threads and a block
// reduction): on a power-law matrix a row of 10^5 entries would otherwise hold its warp, and the
// warp's block, for 10^5 / T steps while the rest of the grid has finished. Thirty-two times the
// lanes per row (at least one block's width): below it a row costs its group at most 32 steps.
// `requested` > 0 overrides it (tests force both kernels on small matrices).
GIGASPARSE_KRYLOV_HD constexpr std::int64_t spmv_long_row_threshold(int threads_per_row, std::int64_t requested) {
    if (requested > 0) return requested;
    const std::int64_t t = 32 * static_cast<std::int64_t>(threads_per_row);
    return t < block_threads ? block_threads : t;
}

// An upper bound on the rows longer than `threshold` (their entries alone exceed threshold each).
GIGASPARSE_KRYLOV_HD constexpr std::int64_t spmv_long_row_capacity(std::int64_t nrows, std::int64_t nnz, std::int64_t threshold) {
    const std::int64_t by_nnz = nnz / (threshold + 1);
    return by_nnz < nrows ? by_nnz : nrows;
}

// Blocks of the CSR-vector kernel: one row per T lanes, capped at `max_blocks` (the kernel strides
// over the rest).
GIGASPARSE_KRYLOV_HD constexpr std::int64_t spmv_vector_blocks(std::int64_t nrows, int threads_per_row, std::int64_t max_blocks) {
    const std::int64_t rows_per_block = block_threads / threads_per_row;
    std::int64_t b = (nrows + rows_per_block - 1) / rows_per_block;
    if (b > max_blocks) b = max_blocks;
    return b < 1 ? 1 : b;
}

// Blocks of a reduction over n entries: each thread sums at least 4 entries, at most
// max_reduce_blocks blocks. A function of n alone, so a reduction's rounding is the same on every
// call (and GPU) for the same length.
GIGASPARSE_KRYLOV_HD constexpr std::int64_t reduce_blocks(std::int64_t n) {
    const std::int64_t per_block = 4 * static_cast<std::int64_t>(block_threads);
    std::int64_t b = (n + per_block - 1) / per_block;
    if (b > max_reduce_blocks) b = max_reduce_blocks;
    return b < 1 ? 1 : b;
}

// Blocks of an elementwise kernel over n entries (grid-stride beyond `max_blocks`).
GIGASPARSE_KRYLOV_HD constexpr std::int64_t elementwise_blocks(std::int64_t n, std::int64_t max_blocks) {
    std::int64_t b = (n + block_threads - 1) / block_threads;
    if (b > max_blocks) b = max_blocks;
    return b < 1 ? 1 : b;
}

}  // namespace krylov
}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
