// tools/common/blas_kernels.hpp: run the executables on the CPU's own BLAS kernels.
#pragma once

namespace gigasparse::tools {

// When OpenBLAS fell back to kernels narrower than the CPU's ISA (see gigasparse/core/blas.hpp) and
// neither OPENBLAS_CORETYPE nor GIGASPARSE_KEEP_BLAS_CORE is set, sets OPENBLAS_CORETYPE to the
// matching kernel set and re-executes the program (/proc/self/exe, same argv) so that OpenBLAS loads
// with it; the variable being set afterwards stops any loop. Returns normally when nothing needs
// doing or the re-execution fails (the program then runs on the fallback kernels). Call first in main.
void use_native_blas_kernels(char** argv);

}  // namespace gigasparse::tools
