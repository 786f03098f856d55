// tests/cuda_sim/include/cuda_runtime.h: the CUDA simulator stands in for the CUDA runtime header.
#pragma once
#include "cuda_sim/runtime.hpp"
