// tools/common/blas_kernels.cpp: re-execution with OPENBLAS_CORETYPE (see blas_kernels.hpp).
#include "common/blas_kernels.hpp"

#include <unistd.h>

#include <cstdlib>

#include <gigasparse/core/blas.hpp>

namespace gigasparse::tools {

void use_native_blas_kernels(char** argv) {
    if (std::getenv("OPENBLAS_CORETYPE") || std::getenv("GIGASPARSE_KEEP_BLAS_CORE")) return;
    const BlasInfo info = blas_info();
    if (info.recommended.empty()) return;
    if (setenv("OPENBLAS_CORETYPE", info.recommended.c_str(), 1) != 0) return;
    execv("/proc/self/exe", argv);
    unsetenv("OPENBLAS_CORETYPE");  // exec failed: carry on with the kernels already loaded
}

}  // namespace gigasparse::tools
