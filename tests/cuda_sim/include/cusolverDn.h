// tests/cuda_sim/include/cusolverDn.h: the simulator's cuSOLVER subset (potrf in float and double; see
// cuda_sim/blas_lapack.hpp).
#pragma once

#include "cuda_sim/blas_lapack.hpp"
