"""Matrix Market I/O: sparse coordinate files as scipy CSR arrays, array files as numpy arrays.

Files ending in ``.gz`` are read and written gzip-compressed; writes are atomic (a temporary file
beside the target, then a rename).
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from . import _gigasparse as _core
from ._sparse import as_csr, from_parts, parts, value_dtype
from ._sparse import index_dtype as _index_dtype

__all__ = ["MtxInfo", "mminfo", "read_mtx", "write_mtx"]

_INT32_MAX = 2**31 - 1


class MtxInfo(NamedTuple):
    """Banner and size line of a Matrix Market file (the fields of scipy.io.mminfo)."""

    rows: int
    cols: int
    entries: int
    format: str  # "coordinate" | "array"
    field: str  # "real" | "integer" | "complex" | "pattern"
    symmetry: str  # "general" | "symmetric" | "skew-symmetric" | "hermitian"


def mminfo(path: str | os.PathLike[str]) -> MtxInfo:
    """Reads only the header of a Matrix Market file (cheap)."""
    return MtxInfo(*_core.mtx_header(os.fspath(path)))


def read_mtx(path: str | os.PathLike[str], dtype: Any = None, index_dtype: Any = None, *,
             matrix: bool = False) -> sp.csr_array | sp.csr_matrix | np.ndarray:
    """Reads a Matrix Market file.

    Coordinate files give a ``scipy.sparse.csr_array`` (``csr_matrix`` with ``matrix=True``) holding
    the full matrix: symmetric, skew-symmetric and hermitian files are expanded, pattern entries
    are 1, duplicates are summed. Array files give a 2-D numpy array (Fortran order).

    dtype: float32, float64, complex64 or complex128; default float64 (complex128 for complex files).
    index_dtype: int32 or int64 for the indices; default int32 when the dimensions fit, else int64.
    """
    p = os.fspath(path)
    info = mminfo(p)
    if dtype is None:
        dtype = np.complex128 if info.field == "complex" else np.float64
    v = value_dtype(dtype, "read_mtx", strict=True)
    if info.format == "array":
        return _core.read_mtx_dense(p, v.name)
    if index_dtype is None:
        index_dtype = np.int32 if max(info.rows, info.cols) <= _INT32_MAX else np.int64
    i = _index_dtype(index_dtype)
    result = _core.read_mtx(p, v.name, i.name)
    return from_parts(result, matrix=matrix)


def write_mtx(path: str | os.PathLike[str], a: Any, *, symmetry: str = "general", pattern: bool = False,
              precision: int = 17, comment: str = "") -> None:
    """Writes a sparse matrix (any scipy.sparse format) as a coordinate file, or a dense numpy
    array (1-D or 2-D) as an array file.

    symmetry: "general", or "symmetric" / "skew-symmetric" / "hermitian" to store only the lower
    triangle (the matrix is assumed to have that symmetry). pattern: write the structure only.
    """
    p = os.fspath(path)
    if sp.issparse(a):
        a = as_csr(a, "A")
        _core.write_mtx(p, parts(a), symmetry, pattern, int(precision), comment)
        return
    arr = np.asarray(a)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise ValueError(f"write_mtx: a dense array must be 1-D or 2-D, got shape {arr.shape}")
    if pattern:
        raise ValueError("write_mtx: pattern=True needs a sparse matrix")
    arr = np.asfortranarray(arr, dtype=value_dtype(arr.dtype, "write_mtx"))
    _core.write_mtx_dense(p, arr, symmetry, int(precision), comment)
