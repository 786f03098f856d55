// src/cuda/base/launch.hpp: the one way kernels are launched (cudaLaunchKernelEx, checked), so the
// same dispatch code compiles with nvcc for the GPU and with g++ for the CPU simulator (tests/cuda_sim).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <cuda_runtime.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/abi.hpp>
#include "cuda/base/check.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

// The most blocks of a one-dimensional grid (gridDim.x).
inline constexpr std::int64_t max_grid_blocks = 2147483647;

// Launches kernel<<<blocks, block, smem_bytes, stream>>>(args...) on a one-dimensional grid of
// `blocks` blocks (64-bit: counted in the callers' 64-bit sizes) and throws BackendError (naming
// the kernel) on an invalid configuration or an earlier asynchronous fault; NotSupported when
// `blocks` exceeds the hardware's grid, where a narrowing cast would launch too few blocks.
template <class... Params, class... Args>
void launch(const char* name, void (*kernel)(Params...), std::int64_t blocks, dim3 block, std::size_t smem_bytes, cudaStream_t stream,
            Args&&... args) {
    if (blocks < 1 || blocks > max_grid_blocks)
        throw NotSupported(std::string(name) + ": a grid of " + std::to_string(blocks) + " blocks (a CUDA grid holds 1 to " +
                           std::to_string(max_grid_blocks) + ")");
#ifdef GIGASPARSE_CUDA_SIM
    cuda_sim::name_next_launch(name);
#endif
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(static_cast<unsigned>(blocks));
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem_bytes;
    cfg.stream = stream;
    check(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...), name);
    check_launch(name);
}

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
