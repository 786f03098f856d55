# cmake/GigasparseWarnings.cmake: warning flags for host (g++) and device (nvcc) code.
add_library(gigasparse_warnings INTERFACE)
target_compile_options(gigasparse_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror cross-execution-space-call>)
