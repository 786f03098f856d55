// src/cuda/base/memory_pool.hpp: gigasparse's stream-ordered memory pool on each device.
//
// DeviceBuffer allocates from it with cudaMallocFromPoolAsync and frees with cudaFreeAsync. cudaMalloc
// and cudaFree synchronize the device: each one between the heavy and the light stream's work
// serializes the two, and a product makes dozens of them. Stream-ordered allocation does not, and a
// freed block is reused by the next allocation instead of being mapped again. The pool keeps what it
// has reserved (release threshold: unlimited) so that repeated products do not go back to the
// driver; release_cached_memory() returns it. A device without memory pools gets a null pool, and
// DeviceBuffer falls back to cudaMalloc/cudaFree.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

#include <cuda_runtime.h>

#include <gigasparse/cuda/abi.hpp>
#include "cuda/base/check.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

// The pool of `device`, created on first use (null without memory-pool support; asked each time,
// a host-side attribute read, so the CPU simulator can play devices with and without pools).
inline cudaMemPool_t memory_pool(int device) {
    int supported = 0;
    check(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device), "cudaDeviceGetAttribute(MemoryPoolsSupported)");
    if (!supported) return nullptr;
    static std::mutex mutex;
    // never destroyed (nor the pools: the driver releases them at exit; kernels may run during
    // static destruction)
    static auto* const pools = new std::map<int, cudaMemPool_t>;
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = pools->find(device); it != pools->end()) return it->second;
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    std::uint64_t keep = UINT64_MAX;
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute(ReleaseThreshold)");
    pools->emplace(device, pool);
    return pool;
}

// The pool of the current device.
inline cudaMemPool_t current_memory_pool() {
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    return memory_pool(device);
}

// Bytes the pool holds without a live allocation in them (free for gigasparse, not for others).
inline std::int64_t pool_cached_bytes(cudaMemPool_t pool) {
    if (!pool) return 0;
    std::uint64_t reserved = 0, used = 0;
    check(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved), "cudaMemPoolGetAttribute(ReservedMemCurrent)");
    check(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used), "cudaMemPoolGetAttribute(UsedMemCurrent)");
    return reserved > used ? static_cast<std::int64_t>(reserved - used) : 0;
}

// Waits for the device (frees still queued complete), then returns the pool's unused memory.
inline void trim_memory_pool(cudaMemPool_t pool) {
    if (!pool) return;
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    check(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo");
}

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
