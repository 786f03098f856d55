"""gigasparse: sparse linear algebra for giant, irregular systems, speaking scipy.sparse.

    import gigasparse as gs
    A = gs.generate.poisson2d(100)          # scipy.sparse.csr_array
    C = gs.spgemm(A, A)                     # == A @ A, MAGNUS on all cores
    B = gs.read_mtx("bcsstk08.mtx.gz")      # Matrix Market, .gz transparently

Errors raised by the C++ library arrive as subclasses of gigasparse.Error that also derive from
the matching built-in exception (ValueError, OSError, MemoryError, ...), with the C++ message.
"""

from __future__ import annotations

from . import _blas_env

_blas_env.choose()  # before the compiled core loads OpenBLAS

from . import _gigasparse  # noqa: E402
from . import generate, reference
from ._gigasparse import (BackendError, DimensionMismatch, Error, InvalidArgument, InvalidStructure, IoError,
                          NotSupported, OutOfMemory, ParseError, PhaseError)
from .io import MtxInfo, mminfo, read_mtx, write_mtx
from .spgemm import SpgemmPlan, spgemm
from .direct import AccuracyWarning, BatchDirectSolver, DirectSolver, cholesky, factorized, ldl, splu, spsolve
from .iterative import LuSgs, Preconditioner, SolveInfo, TriangularSolve, lusgs, bicgstab, cg, fgmres, gmres, ic0, ilu0, jacobi, minres, sgs, spmv

__version__: str = _gigasparse.__version__
#: True when the compiled core includes the CUDA backend (a GPU may still be absent at run time).
with_cuda: bool = _gigasparse.with_cuda


def cuda_device_count() -> int:
    """Number of usable CUDA devices (0 without the CUDA backend or a GPU)."""
    return _gigasparse.cuda_device_count()


def cuda_cached_memory_bytes(device: int = 0) -> int:
    """Device memory gigasparse keeps in its stream-ordered pool for the next GPU products (freed by
    earlier ones; other libraries see it as used). 0 without CUDA or a GPU."""
    return _gigasparse.cuda_cached_memory_bytes(device)


def cuda_release_memory(device: int = 0) -> None:
    """Returns the memory gigasparse's pool keeps on `device` to the driver (no-op without a GPU)."""
    _gigasparse.cuda_release_memory(device)


def blas_info() -> dict[str, str]:
    """The BLAS the compiled core runs: {"library", "core" (OpenBLAS kernel set), "forced_core"
    (OPENBLAS_CORETYPE), "cpu_isa", "kernel_isa", "recommended"}; "recommended" is non-empty when the
    kernels are narrower than the CPU's ISA (set OPENBLAS_CORETYPE to it before importing gigasparse)."""
    return dict(_gigasparse.blas_info())


def validate(a: object, *, sorted: bool = True, finite: bool = False) -> None:
    """Raises InvalidStructure naming the first row or entry of a CSR matrix that breaks the
    invariants (monotone indptr, indices in range, sorted unique columns, finite values)."""
    from ._sparse import VALUE_DTYPES, as_csr, parts, value_dtype
    import scipy.sparse as _sp

    m = a.tocsr() if _sp.issparse(a) and a.format != "csr" else a
    if not _sp.issparse(m):
        m = as_csr(m, "A")
    elif m.dtype not in VALUE_DTYPES:
        m = m.astype(value_dtype(m.dtype, "A"))
    _gigasparse.validate(parts(m), sorted, finite)


__all__ = [
    "AccuracyWarning", "BackendError", "bicgstab", "blas_info", "LuSgs", "lusgs", "TriangularSolve", "cg", "fgmres", "gmres", "ic0", "ilu0", "jacobi", "minres", "Preconditioner", "sgs",
    "SolveInfo", "DimensionMismatch", "BatchDirectSolver", "DirectSolver", "cholesky", "factorized", "ldl", "splu", "spsolve", "Error", "InvalidArgument", "InvalidStructure", "IoError", "MtxInfo",
    "NotSupported", "OutOfMemory", "ParseError", "PhaseError", "cuda_cached_memory_bytes", "cuda_device_count", "cuda_release_memory", "generate", "mminfo", "read_mtx",
    "reference", "SpgemmPlan", "spgemm", "spmv", "validate", "with_cuda", "write_mtx",
]
