#!/usr/bin/env bash
# cmake/nvcc-resource-report.sh: the CUDA compiler launcher of gigasparse's own .cu files (src/CMakeLists.txt).
# Runs the nvcc command it is given (compiled with --resource-usage) and keeps ptxas' per-kernel report
# (registers, shared memory, stack frame, spills, for every architecture built) beside the object as
# <object>.resources.txt, which the test cuda_kernel_resources judges (tests/cuda/check_kernel_resources.cmake)
# without compiling anything again. The report is not echoed; every other line of nvcc's output is.
set -uo pipefail
obj=""
prev=""
for a in "$@"; do
  if [ "$prev" = "-o" ]; then obj=$a; fi
  prev=$a
done
log=$(mktemp)
"$@" 2>"$log"
rc=$?
if [ -n "$obj" ] && [ "$rc" -eq 0 ]; then
  cp "$log" "$obj.resources.txt"
fi
grep -v -E "^ptxas info *:|^ +[0-9]+ bytes stack frame" "$log" >&2
rm -f "$log"
exit "$rc"
