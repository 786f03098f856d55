// src/cuda/base/check.hpp: checked CUDA runtime calls and post-launch checks (throw BackendError).
#pragma once

#include <gigasparse/cuda/abi.hpp>

#include <source_location>
#include <string>

#include <cuda_runtime.h>

#include <gigasparse/core/error.hpp>

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

inline void check(cudaError_t status, const char* what, std::source_location where = std::source_location::current()) {
    if (status != cudaSuccess)
        throw BackendError(std::string("CUDA error in ") + what + " at " + where.file_name() + ":" + std::to_string(where.line()) + ": " +
                           cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

// Call after every kernel launch: reports invalid configurations and asynchronous faults seen so far.
inline void check_launch(const char* kernel, std::source_location where = std::source_location::current()) {
    check(cudaGetLastError(), kernel, where);
}

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
