// src/cuda_off/device.cpp: the CUDA device queries when the library is built without CUDA.
#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/device.hpp>

namespace gigasparse::cuda {

int device_count() { return 0; }

std::string device_summary(int) { return "no CUDA device (gigasparse was built without the CUDA backend)"; }

std::int64_t cached_memory_bytes(int) { return 0; }

void release_cached_memory(int) {}

double smoke_axpy(long long) { throw NotSupported("smoke_axpy: gigasparse was built without the CUDA backend"); }

}  // namespace gigasparse::cuda
