"""Sparse direct solver: multifrontal Cholesky (LDLᵀ/LDLᴴ and LU as the C++ pillar grows), with
the phases of a cuDSS-class solver — analyze (ordering + symbolic), factorize, refactorize (new
values, same pattern, no allocation), solve (with iterative refinement).

    solver = DirectSolver(A, structure="spd", ordering="nd")
    x = solver.solve(b)                  # analyzes and factorizes on first use
    solver.nnz_L, solver.flops, solver.inertia, solver.memory_estimate
    solver.refactorize(A2)               # same pattern, new values

    batch = BatchDirectSolver(A, "spd")  # many matrices with A's pattern: one analysis, a factor each
    batch.factorize([A1, A2, A3])        # or an array (count, nnz) of values in A's CSR order
    X = batch.solve(B)                   # B: (count, n) or (count, n, k)
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from . import _gigasparse as _core
from ._sparse import as_csr, parts, value_dtype


class AccuracyWarning(RuntimeWarning):
    """A direct solve whose backward error stayed above √ε after refinement (``last_solve["status"]`` is
    "not_converged"): the solution is returned but inaccurate (perturbed pivots the refinement could not
    recover; more ``refinement_steps``, ``refinement="gmres"``, or ``matching=0`` for LU, may help)."""


def _warn_inaccurate(info: dict, where: str) -> None:
    if info["status"] == "not_converged":
        warnings.warn(f"{where}: backward error {info['backward_error']:.1e} after {info['refinement_steps']} refinement "
                      "steps: the solution is inaccurate (see last_solve)", AccuracyWarning, stacklevel=3)

__all__ = ["BatchDirectSolver", "DirectSolver", "cholesky", "factorized", "ldl", "splu", "spsolve"]

_STRUCTURES = {"spd": "spd", "hpd": "hpd", "sym": "symmetric", "symmetric": "symmetric", "herm": "hermitian",
               "hermitian": "hermitian", "gen": "general", "general": "general"}


def _setup(solver: Any, a: Any, structure: str, view: str, core: Any, options: dict[str, Any]) -> None:
    """The common construction of DirectSolver and BatchDirectSolver: structure, square CSR copy, core, options."""
    name = type(solver).__name__
    if structure not in _STRUCTURES:
        raise ValueError(f"{name}: unknown structure {structure!r} (expected one of {sorted(_STRUCTURES)})")
    solver.structure = _STRUCTURES[structure]
    a = as_csr(a, "A")
    if a.shape[0] != a.shape[1]:
        raise _core.DimensionMismatch(f"{name}: the matrix must be square, got shape {a.shape}")
    solver._a = a
    solver.shape = (int(a.shape[0]), int(a.shape[1]))
    solver.dtype = a.dtype
    solver._core = core(solver.structure, view, a.dtype.name, a.indices.dtype.name)
    for key, value in options.items():
        solver._core.set_option(key, str(int(value) if isinstance(value, bool) else value))


class DirectSolver:
    """Direct solver for one sparse matrix A (any scipy.sparse format; square).

    structure: "spd" (LLᵀ), "hpd" (LLᴴ), "sym" (LDLᵀ: real symmetric indefinite, or complex symmetric),
    "herm" (LDLᴴ: Hermitian indefinite), "gen" (LU). LDLᵀ/LDLᴴ pivot (Bunch–Kaufman) inside each front,
    pair weak diagonals with a strong neighbour in the analysis, scale symmetrically and perturb the
    pivots that stay tiny (``pivot_stats``); refinement in solve() recovers the accuracy. "gen" (LU)
    permutes and scales the rows by a maximum-product matching, pivots partially inside each front's fully
    summed rows and perturbs tiny pivots (``pivot_stats["perturbed"]``).
    view: which stored entries are read for symmetric structures: "full" (the lower triangle of a
    full matrix), "lower" or "upper".
    ordering: "auto" (AMD or nested dissection by a cost model), "amd", "nd" (METIS), "natural",
    or a permutation array (perm[new] = old).
    schur: variables (0-based, distinct) whose Schur complement S = A22 - A21 A11⁻¹ A12 the factorization
    leaves unfactored: ``schur_complement()`` (dense, in the order given), ``schur_condense(b)`` and
    ``schur_expand(b, x2)`` for the partial solves; ``solve`` still solves with A (through a dense LU of S).
    options: refinement_steps, refinement_tolerance, threads, amalgamation_max_width, ... (set_option);
    ``factor_precision="single"`` (float64 / complex128 input) computes and stores the factor in float32 /
    complex64 — half the memory, faster — and refines each solve in double to full accuracy (``factor_precision``
    tells whether full precision had to take over).
    """

    def __init__(self, a: Any, structure: str = "spd", *, view: str = "full", ordering: Any = "auto",
                 schur: Any = None, **options: Any) -> None:
        _setup(self, a, structure, view, _core.DirectCore, options)
        if isinstance(ordering, str):
            self._core.set_option("ordering", ordering)
        else:
            perm = np.ascontiguousarray(ordering, dtype=np.int64)
            if perm.ndim != 1 or perm.shape[0] != self.shape[0]:
                raise ValueError(f"DirectSolver: a permutation of length {self.shape[0]} expected")
            self._core.set_user_permutation(perm)
        self.schur: np.ndarray | None = None
        if schur is not None:
            idx = np.asarray(schur)
            if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
                raise TypeError("DirectSolver: schur must be a 1-D array of integer indices")
            self.schur = np.ascontiguousarray(idx, dtype=np.int64)
            self._core.set_schur_indices(self.schur)
        self.status: str | None = None
        self.last_solve: dict[str, Any] | None = None

    # ---- phases ----
    def analyze(self) -> "DirectSolver":
        """Ordering and symbolic factorization of the pattern of A."""
        self._core.analyze(parts(self._a))
        return self

    def factorize(self) -> str:
        """Numeric factorization; returns the status ("success", "not_positive_definite", ...),
        never raises for a numerical failure (see failing_column)."""
        if not self._core.analyzed:
            self.analyze()
        self.status = self._core.factorize(parts(self._a))
        return self.status

    def refactorize(self, values: Any) -> str:
        """New values with the pattern given at construction: a sparse matrix with exactly that
        pattern, or the array of its values in CSR order (A.data). No allocation, no re-analysis."""
        if hasattr(values, "tocsr") or hasattr(values, "format"):
            m = as_csr(values, "A", self.dtype)
            if m.shape != self.shape or m.nnz != self._a.nnz or not (
                    np.array_equal(m.indptr, self._a.indptr) and np.array_equal(m.indices, self._a.indices)):
                raise _core.InvalidArgument("refactorize: the matrix does not have the analyzed pattern")
            vals = m.data
        else:
            vals = np.asarray(values)
            if vals.dtype.kind == "c" and self.dtype.kind != "c":
                raise TypeError("refactorize: complex values for a real solver")
            vals = np.ascontiguousarray(vals, dtype=self.dtype)
            if vals.ndim != 1:
                raise ValueError("refactorize: values must be a 1-D array")
        if not self._core.factorized and self.status is None:
            raise _core.PhaseError("refactorize: call factorize() first")
        self.status = self._core.refactorize(vals)
        self._a = self._a.copy()
        self._a.data = np.array(vals, copy=True)
        return self.status

    def solve(self, b: Any, trans: str = "N") -> np.ndarray:
        """x = A⁻¹ b for b of shape (n,) or (n, k), with iterative refinement (last_solve holds
        status, refinement_steps, krylov_iterations (GMRES-based refinement of a single factor), backward_error, residual; an AccuracyWarning when the status is "not_converged").
        ``trans`` as scipy's SuperLU.solve: "N" (A x = b),
        "T" (Aᵀ x = b) or "H" (Aᴴ x = b), all from the one factorization. Raises LinAlgError when the
        factorization failed."""
        self._factored("DirectSolver.solve")
        arr = np.asarray(b)
        if arr.dtype.kind not in "biufc":
            raise TypeError(f"solve: unsupported dtype {arr.dtype}")
        if arr.dtype.kind == "c" and self.dtype.kind != "c":
            raise TypeError("solve: b is complex but the matrix is real")
        if arr.ndim not in (1, 2) or arr.shape[0] != self.shape[0]:
            raise ValueError(f"solve: b has shape {arr.shape}, expected ({self.shape[0]},) or ({self.shape[0]}, k)")
        nrhs = 1 if arr.ndim == 1 else arr.shape[1]
        flat = np.ascontiguousarray(arr.astype(self.dtype, copy=False).reshape(-1, order="F"))
        x, info = self._core.solve(flat, nrhs, _trans(trans))
        self.last_solve = info
        _warn_inaccurate(info, "DirectSolver.solve")
        return x if arr.ndim == 1 else x.reshape(arr.shape, order="F")

    __call__ = solve

    def slogdet(self) -> tuple[Any, float]:
        """(sign, log |det A|) as numpy.linalg.slogdet, from the factors (factorizes first if needed): sign ±1.0,
        or a complex of modulus 1; (0, -inf) for a singular Schur complement. With perturbed pivots
        (``pivot_stats``) it is the determinant of the perturbed matrix."""
        self._factored("slogdet")
        sign, log_abs = self._core.log_determinant()
        return sign, float(log_abs)

    def condest(self) -> float:
        """Estimate of the 1-norm condition number ‖A‖₁‖A⁻¹‖₁ (as MATLAB's condest: Higham and Tisseur's block
        estimator, two columns, through a few solves with A and Aᴴ on the factors; a lower bound, usually within a factor of 3). Factorizes first if
        needed."""
        self._factored("condest")
        return self._core.condition_estimate()

    def inverse_diagonal(self) -> np.ndarray:
        """diag(A⁻¹) without forming A⁻¹ (selected inversion on the LLᴴ, LDLᵀ/LDLᴴ or LU factor; for "gen" a
        diagonal entry off the factor's pattern, where A's diagonal entry is not stored, takes a solve). With
        perturbed pivots (``pivot_stats``) it is that of the perturbed matrix. Factorizes first if needed."""
        self._factored("inverse_diagonal")
        return self._core.inverse_diagonal()

    def selected_inverse(self) -> Any:
        """The entries of A⁻¹ on the pattern of the factor L + Lᴴ (for "gen": L + U through the matching; it
        contains Aᵀ's) as a scipy.sparse CSR array (selected inversion, Takahashi's equations). E.g. trace(A⁻¹ B)
        for B with A's pattern is (selected_inverse().multiply(B.T)).sum(). Factorizes first if needed."""
        from ._sparse import from_parts
        self._factored("selected_inverse")
        return from_parts(self._core.selected_inverse())

    def _factored(self, what: str) -> None:
        if self.status is None:
            self.factorize()
        if self.status != "success":
            raise np.linalg.LinAlgError(f"{what}: factorization failed ({self.status} at column {self.failing_column})")

    # ---- Schur complement ----
    def _factored_for_schur(self, what: str) -> int:
        if self.schur is None or self.schur.size == 0:
            raise _core.PhaseError(f"{what}: no Schur variables were given (DirectSolver(..., schur=[...]))")
        self._factored(what)
        return int(self.schur.size)

    def schur_complement(self) -> np.ndarray:
        """The dense k x k Schur complement S = A22 - A21 A11⁻¹ A12, rows and columns in the order of ``schur``."""
        k = self._factored_for_schur("schur_complement")
        return self._core.schur_complement().reshape((k, k), order="F")

    def _rhs(self, b: Any, rows: int, what: str) -> tuple[np.ndarray, int]:
        arr = np.asarray(b)
        if arr.dtype.kind not in "biufc":
            raise TypeError(f"{what}: unsupported dtype {arr.dtype}")
        if arr.dtype.kind == "c" and self.dtype.kind != "c":
            raise TypeError(f"{what}: complex values for a real matrix")
        if arr.ndim not in (1, 2) or arr.shape[0] != rows:
            raise ValueError(f"{what}: shape {arr.shape}, expected ({rows},) or ({rows}, k)")
        nrhs = 1 if arr.ndim == 1 else arr.shape[1]
        return np.ascontiguousarray(arr.astype(self.dtype, copy=False).reshape(-1, order="F")), nrhs

    def schur_condense(self, b: Any) -> np.ndarray:
        """The reduced right-hand side c = b2 - A21 A11⁻¹ b1 of the Schur system S x2 = c (b: (n,) or (n, m))."""
        k = self._factored_for_schur("schur_condense")
        flat, nrhs = self._rhs(b, self.shape[0], "schur_condense")
        c = self._core.schur_condense(flat, nrhs)
        return c if np.ndim(b) == 1 else c.reshape((k, nrhs), order="F")

    def schur_expand(self, b: Any, x2: Any) -> np.ndarray:
        """The full solution [A11⁻¹ (b1 - A12 x2); x2] from b and the Schur variables' values x2."""
        k = self._factored_for_schur("schur_expand")
        flat, nrhs = self._rhs(b, self.shape[0], "schur_expand")
        x2flat, nrhs2 = self._rhs(x2, k, "schur_expand")
        if nrhs2 != nrhs or np.ndim(x2) != np.ndim(b):
            raise ValueError("schur_expand: b and x2 need the same number of columns")
        x = self._core.schur_expand(flat, x2flat, nrhs)
        return x if np.ndim(b) == 1 else x.reshape((self.shape[0], nrhs), order="F")

    # ---- statistics ----
    def _result(self, name: str) -> float:
        if not self._core.analyzed:
            self.analyze()
        return self._core.result(name)

    @property
    def nnz_L(self) -> int:
        """Entries of the factor L (diagonal included)."""
        return int(self._result("nnz_L"))

    @property
    def flops(self) -> float:
        """Factorization flop count of the analysis."""
        return self._result("flops")

    @property
    def supernodes(self) -> int:
        return int(self._result("supernodes"))

    @property
    def levels(self) -> int:
        """Levels of the supernodal elimination tree (the parallel depth)."""
        return int(self._result("levels"))

    @property
    def memory_estimate(self) -> int:
        """Bytes the numeric phase needs (factor + contribution stacks)."""
        return int(self._result("memory_estimate"))

    @property
    def factor_precision(self) -> str:
        """Precision of the current factor: "single" (float / complex64 panels; solve() refines in double) or
        "full". With ``factor_precision="single"`` requested it is "full" where single could not deliver full
        accuracy (values beyond float's range, a breakdown of the rounded matrix, a stalled refinement)."""
        return "single" if self._core.result("single_factor") else "full"

    @property
    def factor_bytes(self) -> int:
        """Bytes of the factor's panels (L, and U for LU) in the factor's precision."""
        return int(self._result("factor_bytes"))

    @property
    def failing_column(self) -> int:
        """-1, or the original column where the factorization failed."""
        return int(self._core.result("failing_column")) if self._core.analyzed else -1

    @property
    def ordering(self) -> str:
        """The fill-reducing ordering used ("amd", "nd", ...)."""
        if not self._core.analyzed:
            self.analyze()
        return self._core.ordering_used()

    @property
    def perm(self) -> np.ndarray:
        """The permutation (perm[new] = old)."""
        if not self._core.analyzed:
            self.analyze()
        return self._core.permutation()

    @property
    def inertia(self) -> tuple[int, int, int] | None:
        """(positive, negative, zero) eigenvalue counts where the factorization defines them:
        (n, 0, 0) after a successful Cholesky, the signs of D's eigenvalues after LDLᵀ/LDLᴴ of real or
        Hermitian values (those of A when no pivot was perturbed, Sylvester); None before factorize()
        or for complex symmetric values."""
        if self.status != "success":
            return None
        if self.structure in ("spd", "hpd"):
            return (self.shape[0], 0, 0)
        if self.structure == "symmetric" and self.dtype.kind == "c":
            return None
        return (int(self._result("positive_pivots")), int(self._result("negative_pivots")),
                int(self._result("zero_pivots")))

    @property
    def pivot_stats(self) -> dict[str, int] | None:
        """After a successful factorize(): LDLᵀ/LDLᴴ {"pairs": weak-diagonal pairs of the analysis,
        "two_by_two": 2×2 pivots, "perturbed": pivots set to ±pivot_perturbation}; LU {"perturbed", "delayed": columns
        moved into an ancestor's front (option delayed_pivots), "delay_rounds": the extra analyses and
        factorizations that took, "unmatched": columns the matching could not match};
        None for Cholesky."""
        if self.status != "success" or self.structure not in ("symmetric", "hermitian", "general"):
            return None
        if self.structure == "general":
            return {"perturbed": int(self._result("perturbed_pivots")), "delayed": int(self._result("delayed_pivots")),
                    "delay_rounds": int(self._result("delay_rounds")), "unmatched": int(self._result("unmatched_columns"))}
        return {"pairs": int(self._result("pivot_pairs")), "two_by_two": int(self._result("two_by_two_pivots")),
                "perturbed": int(self._result("perturbed_pivots"))}

    def factor_L(self) -> Any:
        """L as a csr_array: of P A Pᵀ = L Lᴴ for Cholesky (lower triangle, explicit zeros kept), or the unit
        lower L of Q S A S Qᵀ = L D Lᴴ for LDLᵀ/LDLᴴ (Q: ``factor_perm``, S: ``scaling``)."""
        from ._sparse import from_parts
        return from_parts(self._core.factor_L())

    def factor_D(self) -> Any:
        """D of LDLᵀ/LDLᴴ (1×1 and 2×2 blocks) as a csr_array in the order of ``factor_perm``; the identity for LLᴴ."""
        from ._sparse import from_parts
        return from_parts(self._core.factor_D())

    def factor_U(self) -> Any:
        """U of the LU (upper, diagonal included) as a csr_array: (Dr A Dc)[p][:, q] = L U with p = ``row_perm``,
        q = ``factor_perm``, Dr = ``row_scaling``, Dc = ``scaling``."""
        from ._sparse import from_parts
        return from_parts(self._core.factor_U())

    @property
    def row_perm(self) -> np.ndarray:
        """LU: p (p[new] = original row): the matching, the ordering and the pivoting; factor_perm otherwise."""
        return self._core.row_permutation()

    @property
    def row_scaling(self) -> np.ndarray | None:
        """LU: the row scaling Dr of the matching (None when not scaled)."""
        s = self._core.row_scaling()
        return s if s.size else None

    @property
    def factor_perm(self) -> np.ndarray:
        """q (q[new] = old) of the factor's columns: the ordering followed by the pivoting inside the supernodes
        (LDLᵀ); the ordering alone for LLᴴ and LU."""
        return self._core.factor_permutation()

    @property
    def scaling(self) -> np.ndarray | None:
        """The diagonal S of the factored S A S (LDLᵀ/LDLᴴ) or the column scaling Dc of the LU, None when not scaled."""
        s = self._core.scaling()
        return s if s.size else None

    def stats(self) -> dict[str, Any]:
        """Every statistic of the C++ solver by name."""
        names = ["n", "nnz_L", "flops", "supernodes", "levels", "column_levels", "memory_estimate", "factor_bytes",
                 "stack_bytes", "failing_column", "explicit_zeros", "ordering_cost", "factor_entries", "pivot_pairs",
                 "unmatched_columns", "single_factor"]
        out: dict[str, Any] = {n: self._result(n) for n in names}
        if self.pivot_stats is not None:
            out.update(self.pivot_stats)
        if self._core.get_option("backend") == "cuda":
            out["gpu"] = {k: self._result("gpu_" + k) for k in ("fronts", "flops", "bytes", "seconds", "host_f11", "kept_blocks", "kept_bytes", "peak_bytes", "device_assembled", "too_large")}
        out["ordering"] = self.ordering
        out["status"] = self.status
        return out

    def __repr__(self) -> str:
        return (f"DirectSolver(shape={self.shape}, dtype={self.dtype}, structure={self.structure!r}, "
                f"status={self.status!r})")


def cholesky(a: Any, *, ordering: Any = "auto", **options: Any) -> DirectSolver:
    """Factorizes a symmetric (Hermitian) positive definite matrix; raises LinAlgError when it is not."""
    a = as_csr(a, "A")
    solver = DirectSolver(a, "hpd" if a.dtype.kind == "c" else "spd", ordering=ordering, **options)
    status = solver.factorize()
    if status != "success":
        raise np.linalg.LinAlgError(f"cholesky: {status} at column {solver.failing_column}")
    return solver


def factorized(a: Any, structure: str = "spd", **kwargs: Any) -> Callable[[Any], np.ndarray]:
    """Like scipy.sparse.linalg.factorized: returns a function b -> A⁻¹ b (factorizes now)."""
    solver = DirectSolver(a, structure, **kwargs)
    status = solver.factorize()
    if status != "success":
        raise np.linalg.LinAlgError(f"factorized: {status} at column {solver.failing_column}")
    return solver.solve


def spsolve(a: Any, b: Any, structure: str = "spd", **kwargs: Any) -> np.ndarray:
    """Like scipy.sparse.linalg.spsolve for the structures the direct solver supports."""
    return DirectSolver(a, structure, **kwargs).solve(b)


def ldl(a: Any, *, hermitian: bool | None = None, ordering: Any = "auto", **options: Any) -> DirectSolver:
    """Factorizes a symmetric indefinite matrix (LDLᵀ; LDLᴴ when ``hermitian``, the default for complex
    values); raises LinAlgError on a zero pivot (only with pivot_perturbation=0, or NaN/Inf values)."""
    a = as_csr(a, "A")
    herm = a.dtype.kind == "c" if hermitian is None else hermitian
    solver = DirectSolver(a, "herm" if herm else "sym", ordering=ordering, **options)
    status = solver.factorize()
    if status != "success":
        raise np.linalg.LinAlgError(f"ldl: {status} at column {solver.failing_column}")
    return solver


def _trans(trans: str) -> str:
    if trans not in ("N", "T", "H"):
        raise ValueError(f"solve: trans must be 'N', 'T' or 'H', not {trans!r}")
    return trans


def splu(a: Any, *, ordering: Any = "auto", **options: Any) -> DirectSolver:
    """Like scipy.sparse.linalg.splu: an LU factorization of a general square matrix (``.solve(b)``,
    ``factor_L()``, ``factor_U()``, ``row_perm``, ``factor_perm``); raises LinAlgError on a zero pivot (only with
    pivot_perturbation=0, or NaN/Inf values)."""
    solver = DirectSolver(a, "gen", ordering=ordering, **options)
    status = solver.factorize()
    if status != "success":
        raise np.linalg.LinAlgError(f"splu: {status} at column {solver.failing_column}")
    return solver


class BatchDirectSolver:
    """Direct solver for a uniform batch: many square matrices with one sparsity pattern (cuDSS's batch).

    ``a`` gives the pattern (and the values the LDLᵀ pivot pairs and the LU matching are chosen from, e.g. the
    first matrix); the analysis runs once, each matrix gets a factor of its own, and small matrices are
    factored and solved side by side, one per thread (``parallel_item_flops`` option). Every item's factor and
    solution are those a DirectSolver would compute for that matrix alone.

        batch = BatchDirectSolver(A, "spd")
        statuses = batch.factorize([A1, A2, ...])      # or values of shape (count, nnz) in A's CSR order
        X = batch.solve(B)                              # B (count, n) or (count, n, k)
    """

    def __init__(self, a: Any, structure: str = "spd", *, view: str = "full", **options: Any) -> None:
        _setup(self, a, structure, view, _core.BatchDirectCore, options)
        self._core.analyze(parts(a))
        self.statuses: list[str] | None = None
        self.last_solve: list[dict[str, Any]] | None = None

    def _values(self, values: Any) -> tuple[np.ndarray, int]:
        if isinstance(values, (list, tuple)):
            rows = []
            for k, m in enumerate(values):
                m = as_csr(m, f"matrix {k}", self.dtype)
                if m.shape != self.shape or m.nnz != self._a.nnz or not (
                        np.array_equal(m.indptr, self._a.indptr) and np.array_equal(m.indices, self._a.indices)):
                    raise _core.InvalidArgument(f"BatchDirectSolver.factorize: matrix {k} does not have the pattern of A")
                rows.append(m.data)
            arr = np.array(rows, dtype=self.dtype).reshape(len(rows), self._a.nnz)
        else:
            arr = np.asarray(values)
            if arr.dtype.kind == "c" and self.dtype.kind != "c":
                raise TypeError("BatchDirectSolver.factorize: complex values for a real solver")
            if arr.ndim != 2 or arr.shape[1] != self._a.nnz:
                raise ValueError(f"BatchDirectSolver.factorize: values of shape (count, {self._a.nnz}) expected, got {arr.shape}")
            arr = arr.astype(self.dtype, copy=False)
        return np.ascontiguousarray(arr.reshape(-1)), int(arr.shape[0])

    def factorize(self, values: Any) -> list[str]:
        """Factor every matrix of the batch; returns the statuses (numerical failures are statuses)."""
        flat, count = self._values(values)
        self.statuses = list(self._core.factorize(flat, count))
        self.count = count
        return self.statuses

    def solve(self, b: Any, trans: str = "N") -> np.ndarray:
        """X[t] = A_t⁻¹ B[t] for B of shape (count, n) or (count, n, k) (``trans`` "T": A_tᵀ, "H": A_tᴴ); last_solve
        holds each item's status, refinement steps, backward error and residual. Raises LinAlgError when a
        factorization failed."""
        if self.statuses is None:
            raise _core.PhaseError("BatchDirectSolver.solve: call factorize() first")
        bad = [k for k, s in enumerate(self.statuses) if s != "success"]
        if bad:
            raise np.linalg.LinAlgError(f"BatchDirectSolver.solve: factorization failed for items {bad[:10]}")
        arr = np.asarray(b)
        if arr.dtype.kind not in "biufc":
            raise TypeError(f"solve: unsupported dtype {arr.dtype}")
        if arr.dtype.kind == "c" and self.dtype.kind != "c":
            raise TypeError("solve: b is complex but the matrices are real")
        n = self.shape[0]
        if arr.ndim not in (2, 3) or arr.shape[0] != self.count or arr.shape[1] != n:
            raise ValueError(f"solve: b has shape {arr.shape}, expected ({self.count}, {n}) or ({self.count}, {n}, k)")
        nrhs = 1 if arr.ndim == 2 else arr.shape[2]
        # Item t's block is its n x nrhs right-hand side in column-major order.
        flat = np.ascontiguousarray(arr.astype(self.dtype, copy=False).reshape(self.count, n, nrhs).transpose(0, 2, 1)).reshape(-1)
        x, info = self._core.solve(flat, nrhs, _trans(trans))
        self.last_solve = list(info)
        for t, i in enumerate(self.last_solve):
            _warn_inaccurate(i, f"BatchDirectSolver.solve (item {t})")
        x = x.reshape(self.count, nrhs, n).transpose(0, 2, 1)
        return np.ascontiguousarray(x.reshape(arr.shape))

    @property
    def side_by_side(self) -> bool:
        """Whether the last factorize / solve ran the matrices one per thread."""
        return bool(self._core.ran_in_parallel)

    @property
    def flops(self) -> float:
        """Factorization flops of one matrix."""
        return self._core.result("flops")
