// tests/cuda_sim/include/cublas_v2.h: the simulator's cuBLAS subset (what gigasparse calls: handles, streams,
// trsm and syrk in float and double). Each call is device work queued on the handle's stream and run there by
// the host's OpenBLAS (simulated device memory is host memory); the pointers must be device memory.
#pragma once

#include <cblas.h>

#include "cuda_sim/blas_lapack.hpp"
