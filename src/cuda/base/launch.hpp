// src/cuda/base/launch.hpp: the one way kernels are launched (cudaLaunchKernelEx, checked), so the
// same dispatch code compiles with nvcc for the GPU and with g++ for the CPU simulator (tests/cuda_sim).
#pragma once

#include <cstddef>
#include <utility>

#include <cuda_runtime.h>

#include <gigasparse/cuda/abi.hpp>
#include "cuda/base/check.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

// Launches kernel<<<grid, block, smem_bytes, stream>>>(args...) and throws BackendError (naming the
// kernel) on an invalid configuration or an earlier asynchronous fault.
template <class... Params, class... Args>
void launch(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem_bytes, cudaStream_t stream, Args&&... args) {
#ifdef GIGASPARSE_CUDA_SIM
    cuda_sim::name_next_launch(name);
#endif
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem_bytes;
    cfg.stream = stream;
    check(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...), name);
    check_launch(name);
}

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
