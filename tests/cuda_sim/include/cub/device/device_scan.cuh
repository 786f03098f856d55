// tests/cuda_sim/include/cub/device/device_scan.cuh: the CUDA simulator's CUB subset stands in for CUB.
#pragma once
#include "cuda_sim/cub.hpp"
