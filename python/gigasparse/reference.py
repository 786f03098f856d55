"""The sequential reference kernels of gigasparse (the oracle every fast backend is tested against).

They are simple and slow by design; use them to check results, not for speed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _gigasparse as _core
from ._sparse import as_csr, common_dtype, from_parts, is_matrix, parts, same_index, vector

__all__ = ["spmv", "spgemm", "add", "spsolve_triangular"]


def spmv(a: Any, x: Any, *, alpha: complex = 1.0, beta: complex = 0.0, y: Any = None) -> np.ndarray:
    """alpha * A @ x + beta * y (a new vector; y is not modified)."""
    a = as_csr(a, "A")
    dt = common_dtype(a, np.asarray(x))
    a = as_csr(a, "A", dt)
    xv = vector(x, a.shape[1], dt, "x")
    yv = np.zeros(a.shape[0], dtype=dt) if y is None else np.array(vector(y, a.shape[0], dt, "y"), copy=True)
    _core.ref_spmv(parts(a), xv, yv, complex(alpha), complex(beta))
    return yv


def spgemm(a: Any, b: Any) -> sp.csr_array | sp.csr_matrix:
    """C = A @ B with Gustavson's algorithm; entries that cancel to zero are kept."""
    matrix = is_matrix(a, b)
    a, b = as_csr(a, "A"), as_csr(b, "B")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"spgemm: shapes {a.shape} and {b.shape} are not aligned")
    dt = common_dtype(a, b)
    a, b = same_index(as_csr(a, "A", dt), as_csr(b, "B", dt))
    return from_parts(_core.ref_spgemm(parts(a), parts(b)), matrix)


def add(a: Any, b: Any, alpha: complex = 1.0, beta: complex = 1.0) -> sp.csr_array | sp.csr_matrix:
    """C = alpha * A + beta * B (union of the patterns)."""
    matrix = is_matrix(a, b)
    a, b = as_csr(a, "A"), as_csr(b, "B")
    if a.shape != b.shape:
        raise ValueError(f"add: shapes {a.shape} and {b.shape} differ")
    dt = common_dtype(a, b, np.asarray(alpha), np.asarray(beta))
    a, b = same_index(as_csr(a, "A", dt), as_csr(b, "B", dt))
    return from_parts(_core.ref_add(parts(a), parts(b), complex(alpha), complex(beta)), matrix)


def spsolve_triangular(t: Any, b: Any, lower: bool = True, unit_diagonal: bool = False) -> np.ndarray:
    """Solves T x = b for a lower (or upper) triangular T; entries of the other triangle are
    ignored. Raises numpy.linalg.LinAlgError when a diagonal entry is zero or missing."""
    t = as_csr(t, "T")
    if t.shape[0] != t.shape[1]:
        raise ValueError(f"spsolve_triangular: T must be square, got shape {t.shape}")
    dt = common_dtype(t, np.asarray(b))
    t = as_csr(t, "T", dt)
    x = np.array(vector(b, t.shape[0], dt, "b"), copy=True)
    bad = _core.ref_triangular_solve(parts(t), x, bool(lower), bool(unit_diagonal))
    if bad >= 0:
        raise np.linalg.LinAlgError(f"spsolve_triangular: zero or missing diagonal entry in row {bad}")
    return x
