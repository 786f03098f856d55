// include/gigasparse/cuda/abi.hpp: the inline namespace of all CUDA-side code (src/cuda/base, src/spgemm/cuda,
// and the device-resident public types of include/gigasparse/cuda).
// Built for the GPU it is `gpu`; built for the CPU simulator (tests/cuda_sim defines
// GIGASPARSE_CUDA_SIM) it is `sim`. Names in code stay gigasparse::cuda::..., while the two builds'
// inline functions and templates get different symbols: a test binary links both without mixing them.
#pragma once

#ifdef GIGASPARSE_CUDA_SIM
#define GIGASPARSE_CUDA_ABI sim
#else
#define GIGASPARSE_CUDA_ABI gpu
#endif
