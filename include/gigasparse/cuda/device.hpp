// include/gigasparse/cuda/device.hpp: what the host can ask about CUDA devices (no CUDA headers here).
#pragma once

#include <cstdint>
#include <string>

namespace gigasparse::cuda {

// Number of usable CUDA devices; 0 when the library was built without CUDA or no GPU/driver exists.
int device_count();

// "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)" or an explanation of why there is none.
std::string device_summary(int device = 0);

// Device memory gigasparse's stream-ordered pool on `device` holds without using it: what earlier
// GPU computations freed, kept so that the next ones allocate without going back to the driver
// (it still counts as used for cudaMemGetInfo and other libraries). 0 without CUDA.
std::int64_t cached_memory_bytes(int device = 0);
// Waits for the device and returns that memory to the driver. No-op without CUDA.
void release_cached_memory(int device = 0);

// Smoke test of the toolchain path: y = a*x + y on the device for n elements, compared with the
// host result. Returns the maximum absolute difference. Throws NotSupported without CUDA and
// BackendError when a CUDA call fails.
double smoke_axpy(long long n);

}  // namespace gigasparse::cuda
