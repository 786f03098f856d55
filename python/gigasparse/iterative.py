"""Krylov solvers with scipy.sparse.linalg signatures, and the preconditioners of gigasparse.

    x, info = gs.cg(A, b, rtol=1e-8, M=gs.ic0(A, ordering="dc"))
    info == 0                      # converged (scipy semantics); info.iterations,
    info.residual_history          # info.residual, info.reason, info.seconds as attributes

Preconditioners (``jacobi``, ``ilu0``, ``ic0``, ``sgs``) are objects usable as ``M`` here and in
scipy.sparse.linalg (they have ``shape``, ``dtype`` and ``matvec``). ``A`` may also be matrix-free
(a scipy LinearOperator) and ``M`` a LinearOperator or a callable: they are called back (with the
GIL) from the C++ iteration. Their triangular sweeps run
over an ordering — "natural", "rcm", "mc", "abmc", "dc" (divide and conquer), "auto" (probed) —
with parallel schedules. Values are float32/float64.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _gigasparse as _core
from ._sparse import as_csr, common_dtype, parts, value_dtype, vector

__all__ = ["spmv", "Preconditioner", "SolveInfo", "jacobi", "ilu0", "ic0", "sgs", "cg", "bicgstab", "gmres", "fgmres"]

_REASON_CODE = {"converged": 0, "breakdown": -1, "non_finite": -2, "preconditioner_failed": -3}


def spmv(a: Any, x: Any, *, alpha: float = 1.0, beta: float = 0.0, y: Any = None, backend: str = "omp") -> np.ndarray:
    """alpha * A @ x + beta * y with the library's threaded SpMV (a new vector; y is not modified).
    Real values use the "omp" (or "reference") backend; complex values the reference kernel."""
    a = as_csr(a, "A")
    xarr = np.asarray(x)
    dt = common_dtype(a, xarr) if xarr.dtype.kind in "biufc" else a.dtype
    a = as_csr(a, "A", dt)
    xv = vector(x, a.shape[1], dt, "x")
    yv = np.zeros(a.shape[0], dtype=dt) if y is None else np.array(vector(y, a.shape[0], dt, "y"), copy=True)
    if dt.kind == "c" or isinstance(alpha, complex) or isinstance(beta, complex):
        from . import reference
        return reference.spmv(a, xv, alpha=alpha, beta=beta, y=yv)
    _core.spmv(parts(a), xv, yv, float(alpha), float(beta), backend)
    return yv


class Preconditioner:
    """z = M⁻¹ r for a sparse matrix A: kind "jacobi", "ilu0", "ic0" or "sgs" (or "none").

    ordering: "natural", "rcm", "mc", "abmc", "dc", "auto". backend: "omp" or "reference".
    sync: "p2p" (point-to-point waits), "barrier" or "sequential". threads: 0 = OpenMP default.
    options: abmc_block_rows, dc_levels, dc_relax_from_level, dc_min_leaf, min_task_weight,
    probe_iterations, probe_tol.
    A numerical failure of the setup (zero pivot, ...) does not raise: ``ok`` is False,
    ``info["message"]`` says why, and applying it copies r.
    """

    def __init__(self, a: Any, kind: str, *, ordering: str = "natural", backend: str = "omp", sync: str = "p2p",
                 threads: int = 0, **options: Any) -> None:
        a = as_csr(a, "A")
        if a.dtype.kind == "c":
            raise _core.NotSupported("preconditioners support real values only (float32 or float64)")
        if a.shape[0] != a.shape[1]:
            raise _core.DimensionMismatch(f"{kind}: the matrix must be square, got shape {a.shape}")
        self._a = a
        self.kind = kind
        self.shape: tuple[int, int] = (int(a.shape[0]), int(a.shape[1]))
        self.dtype = a.dtype
        self._core = _core.PrecondCore(parts(a), kind, ordering, backend, sync, int(threads), options)

    def matvec(self, r: Any) -> np.ndarray:
        """z = M⁻¹ r."""
        return self._core.apply(vector(r, self.shape[0], self.dtype, "r"))

    __call__ = matvec
    __matmul__ = matvec

    def solve(self, r: Any) -> np.ndarray:
        return self.matvec(r)

    @property
    def info(self) -> dict[str, Any]:
        """Kind, ordering (and why, for "auto"), sweep schedules (depth, parallelism), setup time, status."""
        return dict(self._core.info)

    @property
    def ok(self) -> bool:
        return bool(self._core.info["ok"])

    def __repr__(self) -> str:
        i = self._core.info
        return f"Preconditioner({i['kind']!r}, ordering={i['ordering']!r}, shape={self.shape}, ok={i['ok']})"


def jacobi(a: Any, **kwargs: Any) -> Preconditioner:
    """Diagonal (Jacobi) preconditioner."""
    return Preconditioner(a, "jacobi", **kwargs)


def ilu0(a: Any, **kwargs: Any) -> Preconditioner:
    """Incomplete LU with zero fill on the pattern of A (P A Pᵀ for the ordering)."""
    return Preconditioner(a, "ilu0", **kwargs)


def ic0(a: Any, **kwargs: Any) -> Preconditioner:
    """Incomplete Cholesky with zero fill (A symmetric positive definite)."""
    return Preconditioner(a, "ic0", **kwargs)


def sgs(a: Any, **kwargs: Any) -> Preconditioner:
    """Symmetric Gauss–Seidel."""
    return Preconditioner(a, "sgs", **kwargs)


class SolveInfo(int):
    """scipy's ``info`` (0: converged, > 0: iterations done without converging, < 0: breakdown,
    non-finite values or a failed preconditioner) with the whole result as attributes."""

    converged: bool
    reason: str
    iterations: int
    residual: float
    residual_history: np.ndarray
    seconds: float
    message: str

    def __new__(cls, result: dict[str, Any]) -> "SolveInfo":
        code = _REASON_CODE.get(result["reason"], max(int(result["iterations"]), 1))
        self = super().__new__(cls, code)
        for k, v in result.items():
            setattr(self, k, v)
        return self

    def __repr__(self) -> str:
        return (f"SolveInfo({int(self)}, reason={self.reason!r}, iterations={self.iterations}, "
                f"residual={self.residual:.3e})")


def _is_operator(a: Any) -> bool:
    """A matrix-free operator: a scipy LinearOperator or anything with shape and matvec."""
    return not sp.issparse(a) and not isinstance(a, np.ndarray) and hasattr(a, "shape") and hasattr(a, "matvec")


def _python_callable(f: Any, n: int, dt: np.dtype) -> Any:
    """f as v -> contiguous 1-D array of dt (what the compiled core reads back)."""
    apply = f.matvec if hasattr(f, "matvec") else f
    return lambda v: np.ascontiguousarray(apply(v), dtype=dt).reshape(-1)


def _solve(method: str, a: Any, b: Any, x0: Any, rtol: float, atol: float, maxiter: int | None, M: Any,
           ordering: str | None, restart: int, backend: str, history: bool) -> tuple[np.ndarray, SolveInfo]:
    operator = _is_operator(a)
    if not operator:
        a = as_csr(a, "A")
    if len(a.shape) != 2 or a.shape[0] != a.shape[1]:
        raise _core.DimensionMismatch(f"{method}: the matrix must be square, got shape {a.shape}")
    n = int(a.shape[0])
    barr = np.asarray(b)
    a_dtype = getattr(a, "dtype", None)
    adt = value_dtype(np.float64 if a_dtype is None else a_dtype, "A")
    dt = value_dtype(np.result_type(adt, barr.dtype), "b") if barr.dtype.kind in "biufc" else adt
    if dt.kind == "c":
        raise _core.NotSupported(f"{method}: complex systems are not supported (real float32/float64 only)")
    if not operator:
        a = as_csr(a, "A", dt)
    bv = vector(b, n, dt, "b")
    x = np.zeros(n, dtype=dt) if x0 is None else np.array(vector(x0, n, dt, "x0"), copy=True)
    if not np.all(np.isfinite(bv)):
        raise _core.InvalidArgument(f"{method}: b contains NaN or Inf")
    if isinstance(M, str):
        if operator:
            raise ValueError(f"{method}: M={M!r} needs A as a sparse matrix (a preconditioner is built from its entries)")
        M = Preconditioner(a, M, ordering=ordering or "natural", backend=backend)
    elif ordering is not None:
        raise ValueError(f"{method}: ordering= applies to a preconditioner given by name (M='ilu0', ...); "
                         "pass ordering to the preconditioner object instead")
    if isinstance(M, Preconditioner):
        if M.dtype != dt:
            M = Preconditioner(M._a.astype(dt), M.kind, ordering=M.info["ordering"])  # rebuilt in the system's precision
        if M.shape != (n, n):
            raise _core.DimensionMismatch(f"{method}: M has shape {M.shape}, A has {(n, n)}")
        m_arg: Any = M._core
    elif M is None:
        m_arg = None
    elif hasattr(M, "matvec") or callable(M):
        if hasattr(M, "shape") and tuple(M.shape) != (n, n):
            raise _core.DimensionMismatch(f"{method}: M has shape {tuple(M.shape)}, A has {(n, n)}")
        m_arg = _python_callable(M, n, dt)
    else:
        raise TypeError(f"{method}: M must be a preconditioner (gigasparse jacobi/ilu0/ic0/sgs, their name, a scipy "
                        f"LinearOperator or a callable), got {type(M).__name__}")
    bnorm = float(np.linalg.norm(bv))
    tol = max(float(rtol), float(atol) / bnorm if bnorm > 0 else 0.0)
    maxit = 10 * n if maxiter is None else int(maxiter)
    if maxit < 0 or tol < 0 or restart < 1:
        raise ValueError(f"{method}: maxiter, rtol and atol must be >= 0 and restart >= 1")
    a_arg = _python_callable(a, n, dt) if operator else parts(a)
    result = _core.krylov(method, a_arg, n, dt.name, bv, x, m_arg, tol, maxit, int(restart), backend, history)
    return x, SolveInfo(result)


def cg(A: Any, b: Any, x0: Any = None, *, rtol: float = 1e-5, atol: float = 0.0, maxiter: int | None = None,
       M: Any = None, ordering: str | None = None, backend: str = "omp",
       history: bool = True) -> tuple[np.ndarray, SolveInfo]:
    """Conjugate gradients (A symmetric positive definite). Stops when ||b - A x|| <= max(rtol ||b||, atol).
    M: a preconditioner object or a name ("jacobi", "ilu0", "ic0", "sgs") built with ``ordering``."""
    return _solve("cg", A, b, x0, rtol, atol, maxiter, M, ordering, 30, backend, history)


def bicgstab(A: Any, b: Any, x0: Any = None, *, rtol: float = 1e-5, atol: float = 0.0, maxiter: int | None = None,
             M: Any = None, ordering: str | None = None, backend: str = "omp",
             history: bool = True) -> tuple[np.ndarray, SolveInfo]:
    """BiCGStab for general square systems (right preconditioning)."""
    return _solve("bicgstab", A, b, x0, rtol, atol, maxiter, M, ordering, 30, backend, history)


def gmres(A: Any, b: Any, x0: Any = None, *, rtol: float = 1e-5, atol: float = 0.0, restart: int = 30,
          maxiter: int | None = None, M: Any = None, ordering: str | None = None, backend: str = "omp",
          history: bool = True) -> tuple[np.ndarray, SolveInfo]:
    """Restarted GMRES(restart). maxiter counts inner steps in total (scipy counts restart cycles)."""
    return _solve("gmres", A, b, x0, rtol, atol, maxiter, M, ordering, restart, backend, history)


def fgmres(A: Any, b: Any, x0: Any = None, *, rtol: float = 1e-5, atol: float = 0.0, restart: int = 30,
           maxiter: int | None = None, M: Any = None, ordering: str | None = None, backend: str = "omp",
           history: bool = True) -> tuple[np.ndarray, SolveInfo]:
    """Flexible GMRES(restart): the preconditioner may change between steps."""
    return _solve("fgmres", A, b, x0, rtol, atol, maxiter, M, ordering, restart, backend, history)
