"""Chooses OpenBLAS's kernel set before the compiled core loads it.

OpenBLAS picks its kernels from the CPU model when it loads; a release that does not know the model
(Debian's 0.3.21 on Intel family 6 model 207, for one) falls back to generic SSE3 kernels that run
DGEMM 4-5x slower than the CPU can, and the direct solver with it. The kernel set can only be chosen
through OPENBLAS_CORETYPE before the library loads, so when the variable is unset, no OpenBLAS is
loaded in this process yet and GIGASPARSE_KEEP_BLAS_CORE is unset, it is set here from the CPU's
vector ISA (SkylakeX for AVX-512, Haswell for AVX2+FMA) — the kernels OpenBLAS itself runs on the
CPUs it knows. gigasparse.blas_info() tells what was loaded.
"""

from __future__ import annotations

import os


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _openblas_loaded() -> bool:
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as f:
            return any("libopenblas" in line for line in f)
    except OSError:
        return True  # cannot tell: leave the environment alone


def kernel_set_for(flags: set[str]) -> str:
    """OPENBLAS_CORETYPE matching a CPU's flags ("" when none is needed)."""
    if {"avx512f", "avx512dq", "avx512bw", "avx512vl"} <= flags:
        return "SkylakeX"
    if {"avx2", "fma"} <= flags:
        return "Haswell"
    return ""


def choose() -> None:
    if "OPENBLAS_CORETYPE" in os.environ or os.environ.get("GIGASPARSE_KEEP_BLAS_CORE"):
        return
    core = kernel_set_for(_cpu_flags())
    if core and not _openblas_loaded():
        os.environ["OPENBLAS_CORETYPE"] = core
