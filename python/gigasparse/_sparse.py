"""Conversions between scipy.sparse / numpy objects and the arrays the compiled core reads.

Zero-copy rules: a canonical CSR array (sorted rows, no duplicates) whose values are float32,
float64, complex64 or complex128 and whose indices are int32 or int64 is passed to C++ without a
copy (an int32 row pointer is widened, O(nrows)). Anything else is converted once, here.
Results come back as csr_array objects built on the C++ buffers without a copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

#: value dtypes of the compiled core
VALUE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64), np.dtype(np.complex128))
#: index dtypes of the compiled core
INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))

CsrTuple = tuple  # (nrows, ncols, indptr, indices, data)


def value_dtype(dtype: Any, what: str = "dtype", strict: bool = False) -> np.dtype:
    """The supported value dtype that holds ``dtype`` (bool/int -> float64, float16 -> float32).
    With ``strict`` (a dtype the caller asked for as output) only the supported ones are accepted."""
    d = np.dtype(dtype)
    if d in VALUE_DTYPES:
        return d
    if strict:
        raise TypeError(f"{what}: unsupported dtype {d} (expected float32, float64, complex64 or complex128)")
    if d.kind in "biu":
        return np.dtype(np.float64)
    if d == np.float16:
        return np.dtype(np.float32)
    raise TypeError(f"{what}: unsupported dtype {d} (gigasparse computes in float32, float64, complex64 or complex128)")


def index_dtype(dtype: Any) -> np.dtype:
    d = np.dtype(dtype)
    if d not in INDEX_DTYPES:
        raise TypeError(f"unsupported index dtype {d} (expected int32 or int64)")
    return d


def as_csr(a: Any, name: str = "A", dtype: Any = None) -> sp.csr_array | sp.csr_matrix:
    """``a`` as a canonical CSR array or matrix with a supported dtype (no copy when it already is)."""
    if isinstance(a, np.ndarray) or (not sp.issparse(a) and hasattr(a, "__array__")):
        arr = np.asarray(a)
        if arr.ndim != 2:
            raise ValueError(f"{name} must be a 2-D sparse matrix or array, got an array of shape {arr.shape}")
        a = sp.csr_array(arr)
    elif not sp.issparse(a):
        raise TypeError(f"{name} must be a scipy.sparse matrix or array, got {type(a).__name__}")
    if a.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {a.shape}")
    if a.format != "csr":
        a = a.tocsr()
    want = value_dtype(a.dtype if dtype is None else dtype, name)
    if a.dtype != want:
        a = a.astype(want)
    if not a.has_canonical_format:
        a = a.copy()
        a.sum_duplicates()
    if not (a.indices.flags.c_contiguous and a.indptr.flags.c_contiguous and a.data.flags.c_contiguous):
        a = a.copy()
    return a


def parts(a: sp.csr_array | sp.csr_matrix) -> CsrTuple:
    """The tuple the compiled core reads: (nrows, ncols, indptr, indices, data)."""
    return (int(a.shape[0]), int(a.shape[1]), a.indptr, a.indices, a.data)


def is_matrix(*mats: Any) -> bool:
    """True when any operand is an old-style scipy.sparse matrix (results then are csr_matrix)."""
    return any(isinstance(m, sp.spmatrix) for m in mats)


def common_dtype(*mats: Any) -> np.dtype:
    return value_dtype(np.result_type(*[m.dtype for m in mats]))


def same_index(a: Any, b: Any) -> tuple[Any, Any]:
    """Gives two CSR matrices one index dtype (int64 when either has it)."""
    if a.indices.dtype == b.indices.dtype:
        return a, b
    def widen(m: Any) -> Any:
        m = m.copy()
        m.indices = m.indices.astype(np.int64)
        m.indptr = m.indptr.astype(np.int64)
        return m
    return (widen(a) if a.indices.dtype != np.int64 else a, widen(b) if b.indices.dtype != np.int64 else b)


def from_parts(result: tuple, matrix: bool = False) -> sp.csr_array | sp.csr_matrix:
    """A csr_array (csr_matrix when ``matrix``) over the C++ result buffers, without a copy."""
    data, indices, indptr, shape = result
    cls = sp.csr_matrix if matrix else sp.csr_array
    m = cls((data, indices, indptr), shape=tuple(shape), copy=False)
    m.has_sorted_indices = True  # the C++ producers emit sorted rows without duplicates
    m.has_canonical_format = True
    return m


def vector(x: Any, n: int, dtype: np.dtype, name: str) -> np.ndarray:
    """A contiguous 1-D vector of length n in ``dtype`` (no copy when it already is one)."""
    arr = np.asarray(x)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a vector, got an array of shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has length {arr.shape[0]}, expected {n}")
    if arr.dtype.kind not in "biufc":
        raise TypeError(f"{name}: unsupported dtype {arr.dtype}")
    if arr.dtype.kind == "c" and dtype.kind != "c":
        raise TypeError(f"{name} is complex but the matrix is real ({dtype})")
    return np.ascontiguousarray(arr, dtype=dtype)

