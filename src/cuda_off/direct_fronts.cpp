// src/cuda_off/direct_fronts.cpp: the direct solver's GPU fronts when gigasparse is built without CUDA (NotSupported).
#include <cstdint>
#include <memory>

#include <gigasparse/core/error.hpp>

#include "direct/numeric/front_offload.hpp"

namespace gigasparse::direct {

std::unique_ptr<FrontOffload> make_gpu_front_offload(int, std::int64_t) {
    throw NotSupported("direct: backend cuda: gigasparse was built without the CUDA backend");
}

}  // namespace gigasparse::direct
