// include/gigasparse/core/blas.hpp: which BLAS kernels this process runs, and whether they match the CPU.
//
// OpenBLAS picks its kernel set at load time from the CPU model. A release that does not know the
// model (OpenBLAS 0.3.21 and Intel family 6 model 207, for instance) falls back to its generic SSE3
// "Prescott" kernels: 12 GFLOP/s per core of DGEMM instead of 60 on an AVX-512 core, so every dense
// front of the direct solver runs 3-5x slower. The kernel set can only be chosen before the library
// loads (environment variable OPENBLAS_CORETYPE), so this header reports the situation and the fix;
// the command-line tool applies it by re-executing itself (tools/common/blas_kernels.hpp).
#pragma once

#include <string>

namespace gigasparse {

struct BlasInfo {
    std::string library;        // shared object that provides dgemm_ ("" if unknown)
    std::string core;           // OpenBLAS kernel set in use ("" when the BLAS is not OpenBLAS)
    std::string forced_core;    // value of OPENBLAS_CORETYPE in the environment ("" when unset)
    std::string cpu_isa;        // widest vector ISA of this CPU: "avx512", "avx2", "avx" or "sse"
    std::string kernel_isa;     // vector ISA of the kernel set in use (same scale; "" when unknown)
    std::string recommended;    // OPENBLAS_CORETYPE value that would use the CPU's ISA; "" when fine
};

// Reads the running process's BLAS (through dlsym/dladdr; no link-time dependency on OpenBLAS symbols).
BlasInfo blas_info();

// Vector ISA level of an OpenBLAS kernel-set name ("Prescott" -> "sse", "Haswell" -> "avx2",
// "SkylakeX" -> "avx512", ...), "" for an unknown name. Case-insensitive.
std::string openblas_core_isa(const std::string& core);

// OPENBLAS_CORETYPE value that uses `cpu_isa`'s kernels when `core` runs a narrower ISA ("" otherwise).
std::string recommended_openblas_core(const std::string& core, const std::string& cpu_isa);

}  // namespace gigasparse
