// src/direct/numeric/cuda/gpu_fronts.cu: make_gpu_front_offload, the GPU's large fronts (backend = cuda).
#include <cstdint>
#include <memory>

#include <gigasparse/cuda/device.hpp>

#include "direct/numeric/cuda/gpu_fronts.cuh"

namespace gigasparse::direct {

std::unique_ptr<FrontOffload> make_gpu_front_offload(int device, std::int64_t budget_bytes) {
    if (cuda::device_count() <= device)
        throw NotSupported("direct: backend cuda needs a CUDA device: " + cuda::device_summary(device));
    return std::make_unique<cuda::GpuFrontOffload>(device, budget_bytes);
}

}  // namespace gigasparse::direct
