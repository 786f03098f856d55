"""Krylov solvers with scipy.sparse.linalg signatures, and the preconditioners of gigasparse.

    x, info = gs.cg(A, b, rtol=1e-8, M=gs.ic0(A, ordering="dc"))
    info == 0                      # converged (scipy semantics); info.iterations,
    info.residual_history          # info.residual, info.reason, info.seconds as attributes

Preconditioners (``jacobi``, ``ilu0``, ``ic0``, ``sgs``) are objects usable as ``M`` here and in
scipy.sparse.linalg (they have ``shape``, ``dtype`` and ``matvec``). ``A`` may also be matrix-free
(a scipy LinearOperator) and ``M`` a LinearOperator or a callable: they are called back (with the
GIL) from the C++ iteration. Their triangular sweeps run
over an ordering — "natural", "rcm", "mc", "abmc", "dc" (divide and conquer), "auto" (probed) —
with parallel schedules. Values are float32, float64, complex64 or complex128: complex systems use
conjugating inner products (CG and ``ic0`` need A Hermitian positive definite; ``ic0`` is L Lᴴ), on the
CPU and with ``backend="cuda"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _gigasparse as _core
from ._sparse import as_csr, common_dtype, parts, value_dtype, vector

__all__ = ["spmv", "TriangularSolve", "LuSgs", "lusgs", "Preconditioner", "SolveInfo", "jacobi", "ilu0", "ic0", "sgs", "cg", "bicgstab", "gmres", "fgmres", "minres"]

_REASON_CODE = {"converged": 0, "breakdown": -1, "non_finite": -2, "preconditioner_failed": -3}


def spmv(a: Any, x: Any, *, alpha: float = 1.0, beta: float = 0.0, y: Any = None, backend: str = "omp") -> np.ndarray:
    """alpha * A @ x + beta * y with the library's threaded SpMV (a new vector; y is not modified).
    Real values use the "omp" (or "reference") backend; complex values the reference kernel."""
    if sp.issparse(a) and a.format == "bsr":
        yv = _bsr_spmv(a, x, alpha, beta, y, backend)
        if yv is not None:
            return yv
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


def _bsr_parts(a: Any, dt: np.dtype) -> tuple[Any, ...] | None:
    """(nbrows, nbcols, block, indptr, indices, data) of a BSR matrix with square blocks of size
    1..5 and real values, converted to ``dt``; None when the block kernels do not apply."""
    r, c = a.blocksize
    if r != c or not 1 <= r <= 5 or dt.kind not in "f":
        return None
    indices = np.ascontiguousarray(a.indices)
    if indices.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        indices = indices.astype(np.int64)
    indptr = np.ascontiguousarray(a.indptr)
    if indptr.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        indptr = indptr.astype(np.int64)
    data = np.ascontiguousarray(a.data, dtype=dt).reshape(-1)
    return (int(a.shape[0]) // r, int(a.shape[1]) // r, int(r), indptr, indices, data)


def _bsr_spmv(a: Any, x: Any, alpha: Any, beta: Any, y: Any, backend: str) -> np.ndarray | None:
    """The block SpMV for a scipy BSR matrix, or None when it does not apply (the CSR path then)."""
    xarr = np.asarray(x)
    if isinstance(alpha, complex) or isinstance(beta, complex) or xarr.dtype.kind not in "biuf":
        return None
    dt = value_dtype(np.result_type(a.dtype, xarr.dtype), "A")
    p = _bsr_parts(a, dt)
    if p is None:
        return None
    xv = vector(x, a.shape[1], dt, "x")
    yv = np.zeros(a.shape[0], dtype=dt) if y is None else np.array(vector(y, a.shape[0], dt, "y"), copy=True)
    _core.bsr_spmv(*p, xv, yv, float(alpha), float(beta), backend)
    return yv


class TriangularSolve:
    """A reusable plan for T x = b with T the lower (``lower=True``) or upper triangle of a sparse
    matrix (entries of the other triangle are ignored), like scipy's ``spsolve_triangular``: the
    dependency analysis runs once, ``solve(b)`` many times in parallel.

    sync: "p2p" (point-to-point waits), "barrier" or "sequential". backend: "omp" or "reference".
    threads: 0 = OpenMP default. block_ptr: optional increasing row boundaries [0, ..., n] of
    subgraphs that one thread solves in order (by default each row is its own subgraph).
    ``stats`` (and the attributes depth, row_depth, subgraphs, critical_path, parallelism) describe
    the schedule. The plan keeps the matrix; a zero or missing diagonal raises at ``solve``.
    """

    def __init__(self, a: Any, lower: bool = True, *, unit_diagonal: bool = False, sync: str = "p2p",
                 backend: str = "omp", threads: int = 0, min_task_weight: int = 512, block_ptr: Any = None) -> None:
        a = as_csr(a, "A")
        if a.shape[0] != a.shape[1]:
            raise _core.DimensionMismatch(f"TriangularSolve: the matrix must be square, got shape {a.shape}")
        n = int(a.shape[0])
        if block_ptr is None:
            bp = np.zeros(0, dtype=np.int64)
        else:
            bp = np.ascontiguousarray(block_ptr, dtype=np.int64).reshape(-1)
            if bp.size < 1 or bp[0] != 0 or bp[-1] != n or np.any(np.diff(bp) < 0):
                raise ValueError(f"TriangularSolve: block_ptr must increase from 0 to n = {n}")
        self._a = a
        self.lower = bool(lower)
        self.unit_diagonal = bool(unit_diagonal)
        self.shape: tuple[int, int] = (n, n)
        self.dtype = a.dtype
        self._core = _core.TriangularSolveCore(parts(a), self.lower, self.unit_diagonal, backend, sync, int(threads),
                                               int(min_task_weight), bp)

    def solve(self, b: Any) -> np.ndarray:
        """x with T x = b (b a vector of length n; a new array). A complex b with a real T is solved as its real
        and imaginary parts."""
        barr = np.asarray(b)
        if barr.dtype.kind == "c" and self.dtype.kind != "c":
            bv = vector(barr, self.shape[0], np.result_type(self.dtype, np.complex64), "b")
            return self._core.solve(vector(bv.real, self.shape[0], self.dtype, "b")) + 1j * self._core.solve(
                vector(bv.imag, self.shape[0], self.dtype, "b"))
        return self._core.solve(vector(b, self.shape[0], self.dtype, "b"))

    __call__ = solve

    @property
    def stats(self) -> dict[str, Any]:
        """rows, nnz, depth, row_depth, subgraphs, tasks, waits, critical_path, parallelism, threads, sync."""
        return dict(self._core.stats)

    depth = property(lambda self: int(self._core.stats["depth"]))
    row_depth = property(lambda self: int(self._core.stats["row_depth"]))
    subgraphs = property(lambda self: int(self._core.stats["subgraphs"]))
    critical_path = property(lambda self: int(self._core.stats["critical_path"]))
    parallelism = property(lambda self: float(self._core.stats["parallelism"]))

    def __repr__(self) -> str:
        return (f"TriangularSolve({'lower' if self.lower else 'upper'}, shape={self.shape}, depth={self.depth}, "
                f"subgraphs={self.subgraphs})")


class _AppliesInverse:
    """z = M⁻¹ r through a C++ core object: usable as ``M`` here and in scipy (matvec, call, @)."""

    _core: Any
    shape: tuple[int, int]
    dtype: np.dtype

    def matvec(self, r: Any) -> np.ndarray:
        """z = M⁻¹ r."""
        return self._core.apply(vector(r, self.shape[0], self.dtype, "r"))

    __call__ = matvec
    __matmul__ = matvec

    def solve(self, r: Any) -> np.ndarray:
        return self.matvec(r)


class LuSgs(_AppliesInverse):
    """LU-SGS on a block matrix: M = (D + L) D⁻¹ (D + U) with D, L, U the block diagonal, strictly
    lower and strictly upper block parts (after the ordering); one application = a forward and a
    backward block sweep. Usable as ``M`` in gs.gmres/bicgstab and in scipy.sparse.linalg (it has
    ``shape``, ``dtype`` and ``matvec``), or as a stationary iteration (``iterate``).

    a: a scipy BSR matrix with square blocks of size 1..5 (gs.generate.cfd_proxy makes one; other
    sparse formats are converted with ``blocksize``). ordering: "natural", "rcm", "mc", "abmc",
    "dc". sync: "p2p", "barrier" or "sequential". backend: "omp" or "reference".
    """

    def __init__(self, a: Any, *, blocksize: int | None = None, ordering: str = "natural", backend: str = "omp",
                 sync: str = "p2p", threads: int = 0) -> None:
        if not sp.issparse(a):
            raise TypeError(f"LuSgs: A must be a scipy.sparse matrix or array, got {type(a).__name__}")
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise _core.DimensionMismatch(f"LuSgs: the matrix must be square, got shape {a.shape}")
        if a.format != "bsr" or (blocksize is not None and a.blocksize != (blocksize, blocksize)):
            if blocksize is None:
                raise ValueError("LuSgs: A is not in BSR format; pass blocksize= or a scipy bsr_array")
            if a.shape[0] % blocksize:
                raise ValueError(f"LuSgs: the size {a.shape[0]} is not a multiple of blocksize {blocksize}")
            a = sp.bsr_array(a, blocksize=(blocksize, blocksize))
        if a.dtype.kind == "c":
            raise _core.NotSupported("LuSgs supports real values only (float32 or float64)")
        dt = value_dtype(a.dtype, "A")
        if not a.has_canonical_format:
            a = a.copy()
            a.sort_indices()
            a.sum_duplicates()
        p = _bsr_parts(a, dt)
        if p is None:
            raise _core.NotSupported(f"LuSgs: blocks must be square of size 1..5, got {a.blocksize}")
        self.shape: tuple[int, int] = (int(a.shape[0]), int(a.shape[1]))
        self.dtype = dt
        self.blocksize = int(a.blocksize[0])
        self.ordering = ordering
        self._core = _core.LuSgsCore(*p, ordering, backend, sync, int(threads))

    def iterate(self, b: Any, x0: Any = None, sweeps: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``sweeps`` stationary steps x += M⁻¹ (b - A x) from x0 (zeros by default); returns x and
        ||b - A x|| / ||b|| before the first and after each step."""
        n = self.shape[0]
        bv = vector(b, n, self.dtype, "b")
        x = np.zeros(n, dtype=self.dtype) if x0 is None else np.array(vector(x0, n, self.dtype, "x0"), copy=True)
        drop = self._core.iterate(bv, x, int(sweeps))
        return x, drop

    def __repr__(self) -> str:
        return f"LuSgs(shape={self.shape}, blocksize={self.blocksize}, ordering={self.ordering!r})"


def lusgs(a: Any, **kwargs: Any) -> LuSgs:
    """LU-SGS block preconditioner (see LuSgs)."""
    return LuSgs(a, **kwargs)


class Preconditioner(_AppliesInverse):
    """z = M⁻¹ r for a sparse matrix A: kind "jacobi", "ilu0", "ic0" or "sgs" (or "none").

    ordering: "natural", "rcm", "mc", "abmc", "dc", "auto". backend: "omp" or "reference".
    sync: "p2p" (point-to-point waits), "barrier" or "sequential". threads: 0 = OpenMP default.
    options: abmc_block_rows, dc_levels, dc_relax_from_level, dc_min_leaf, dc_split ("auto", "index",
    "metis"), dc_twisted, dc_leaf_rcm, min_task_weight, probe_iterations, probe_tol, probe_rows.
    A numerical failure of the setup (zero pivot, ...) does not raise: ``ok`` is False,
    ``info["message"]`` says why, and applying it copies r.
    """

    def __init__(self, a: Any, kind: str, *, ordering: str = "natural", backend: str = "omp", sync: str = "p2p",
                 threads: int = 0, **options: Any) -> None:
        a = as_csr(a, "A")
        if a.shape[0] != a.shape[1]:
            raise _core.DimensionMismatch(f"{kind}: the matrix must be square, got shape {a.shape}")
        self._a = a
        self.kind = kind
        self.shape: tuple[int, int] = (int(a.shape[0]), int(a.shape[1]))
        self.dtype = a.dtype
        self._core = _core.PrecondCore(parts(a), kind, ordering, backend, sync, int(threads), options)

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
    """Incomplete Cholesky with zero fill (A symmetric positive definite; complex: Hermitian, A ≈ L Lᴴ)."""
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
    if not operator:
        a = as_csr(a, "A", dt)
    bv = vector(b, n, dt, "b")
    x = np.zeros(n, dtype=dt) if x0 is None else np.array(vector(x0, n, dt, "x0"), copy=True)
    if not np.all(np.isfinite(bv)):
        raise _core.InvalidArgument(f"{method}: b contains NaN or Inf")
    bnorm = float(np.linalg.norm(bv))
    tol = max(float(rtol), float(atol) / bnorm if bnorm > 0 else 0.0)
    maxit = 10 * n if maxiter is None else int(maxiter)
    if maxit < 0 or tol < 0 or restart < 1:
        raise ValueError(f"{method}: maxiter, rtol and atol must be >= 0 and restart >= 1")
    if backend == "cuda":
        return _solve_cuda(method, a, bv, x, tol, maxit, M, ordering, history, operator, int(restart))
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
    a_arg = _python_callable(a, n, dt) if operator else parts(a)
    result = _core.krylov(method, a_arg, n, dt.name, bv, x, m_arg, tol, maxit, int(restart), backend, history)
    return x, SolveInfo(result)


def _solve_cuda(method: str, a: Any, bv: np.ndarray, x: np.ndarray, tol: float, maxit: int,
                M: Any, ordering: str | None, history: bool, operator: bool, restart: int) -> tuple[np.ndarray, SolveInfo]:
    """backend="cuda": the whole iteration on the GPU (CG, BiCGStab, GMRES, FGMRES, MINRES); M is None or a name."""
    if operator:
        raise ValueError(f"{method}: backend='cuda' needs A as a sparse matrix")
    if M is not None and not isinstance(M, str):
        raise ValueError(f"{method}: backend='cuda' takes M as a name ('jacobi', 'ilu0', 'ic0', 'sgs'), "
                         "built on the device")
    result = _core.krylov_cuda(method, parts(a), bv, x, M or "none", ordering or "", tol, maxit, history, 0, restart)
    return x, SolveInfo(result)


def cg(A: Any, b: Any, x0: Any = None, *, rtol: float = 1e-5, atol: float = 0.0, maxiter: int | None = None,
       M: Any = None, ordering: str | None = None, backend: str = "omp",
       history: bool = True) -> tuple[np.ndarray, SolveInfo]:
    """Conjugate gradients (A symmetric positive definite; complex: Hermitian positive definite). Stops when ||b - A x|| <= max(rtol ||b||, atol).
    M: a preconditioner object or a name ("jacobi", "ilu0", "ic0", "sgs") built with ``ordering``.
    backend="cuda" runs the iteration on the GPU (M a name or None; the sweeps' ordering defaults to
    multicolor there); the result then has a ``gpu`` dict (device, SpMV shape, sweep levels, device ms)."""
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


def minres(A: Any, b: Any, x0: Any = None, *, rtol: float = 1e-5, atol: float = 0.0, maxiter: int | None = None,
           M: Any = None, ordering: str | None = None, backend: str = "omp",
           history: bool = True) -> tuple[np.ndarray, SolveInfo]:
    """MINRES for symmetric (complex: Hermitian) A, indefinite allowed. M must be symmetric positive definite
    (``jacobi`` of a positive diagonal, ``ic0``); with M the residual tested is in the M⁻¹ norm, scaled to ||b||
    (without M: the 2-norm, as GMRES without restarts). backend="cuda": M None, "jacobi", "ic0" or "sgs"."""
    return _solve("minres", A, b, x0, rtol, atol, maxiter, M, ordering, 30, backend, history)
