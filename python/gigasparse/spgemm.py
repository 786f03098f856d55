"""Sparse matrix-matrix product C = A @ B: MAGNUS on CPU threads (gMAGNUS on the GPU when built
with CUDA), the one-call ``spgemm`` and the reusable two-phase ``SpgemmPlan``.

Backends: "cpu" (OpenMP MAGNUS), "reference" (sequential oracle), "cuda" (gMAGNUS on the GPU;
NotSupported without the CUDA backend or a device), "auto" (cuda when a GPU backend and device
exist, else cpu).
Values float32/float64 (complex products use the reference kernel under "auto"); the result keeps
entries that cancel to exactly zero (a structural product), rows sorted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _gigasparse as _core
from ._sparse import as_csr, common_dtype, from_parts, is_matrix, parts, same_index

__all__ = ["spgemm", "SpgemmPlan"]


def _operands(a: Any, b: Any) -> tuple[Any, Any]:
    a, b = as_csr(a, "A"), as_csr(b, "B")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"spgemm: shapes {a.shape} and {b.shape} are not aligned")
    dt = common_dtype(a, b)
    return same_index(as_csr(a, "A", dt), as_csr(b, "B", dt))


def _backends(backend: str) -> list[str]:
    if backend != "auto":
        return [backend]
    if _core.with_cuda and _core.cuda_device_count() > 0:
        return ["cuda", "cpu"]
    return ["cpu"]


def spgemm(a: Any, b: Any, backend: str = "auto", *, return_stats: bool = False,
           **options: Any) -> Any:
    """C = A @ B as a csr_array (csr_matrix when an operand is a csr_matrix).

    options: threads, l2_bytes, cache_line_bytes, sort_threshold, dense_max_fill, fine_chunk_cols,
    coarse_chunk_cols, force_category ("sort", "dense", "fine", "coarse"), serial_products, fused_products,
    dense_l2_factor, window_max_fill, spa_max_cols, spa_threshold, ... (SpgemmOptions); for "cuda":
    device, shared_memory_bytes, intermediate_budget_bytes, multisplit_threads, outer_threads,
    warp_light_rows, warp_row_products, light_streams, fit_hash_blocks, resident_blocks, one_pass_light_rows, light_stage_budget_bytes, keep_c_pattern,
    light_product_map, warp_sort_steps, rank_sort, packed_tables, dense_light_rows, dense_wide_rows, dense_wide_windows, dense_wide_walk, dense_wide_walk_adaptive, heavy_threshold, time_phases, small_products,
    small_row_products (GpuSpgemmOptions).
    With return_stats=True returns (C, stats) where stats is a dict (times per phase, products,
    row categories, accumulators used, chunk sizes, workspace and plan bytes, whether the product
    took the fused one-pass path; with "cuda", stats["gpu"] holds the device's phase times in
    milliseconds, heavy/light rows, multisplit levels, batches and device memory peak).
    """
    matrix = is_matrix(a, b)
    a, b = _operands(a, b)
    last: Exception | None = None
    for be in _backends(backend):
        try:
            result, stats = _core.spgemm(parts(a), parts(b), be, options)
            c = from_parts(result, matrix)
            return (c, stats) if return_stats else c
        except _core.NotSupported as e:  # "auto" falls back from cuda to cpu
            last = e
    assert last is not None
    raise last


class SpgemmPlan:
    """Two-phase product for one pair of sparsity patterns: ``symbolic(A, B)`` once (pattern of C),
    then ``numeric(A, B)`` as often as wanted with new values (same patterns; checked).

        plan = SpgemmPlan(A, B)          # runs symbolic
        C = plan.numeric(A, B)
        A.data *= 2; C2 = plan.numeric(A, B)

    With backend="cuda" the plan keeps A's and B's patterns and the pattern work of gMAGNUS on the
    GPU: numeric() uploads the values only and runs the numeric kernels.
    """

    def __init__(self, a: Any = None, b: Any = None, backend: str = "auto", **options: Any) -> None:
        self._backend = backend
        self._options = options
        self._core: Any = None
        self._shapes: tuple[Any, Any] | None = None
        self._matrix = False
        if a is not None or b is not None:
            if a is None or b is None:
                raise ValueError("SpgemmPlan: give both A and B (or neither)")
            self.symbolic(a, b)

    def symbolic(self, a: Any, b: Any) -> "SpgemmPlan":
        """Validates A and B, plans, and computes the row pointers of C."""
        self._matrix = is_matrix(a, b)
        a, b = _operands(a, b)
        last: Exception | None = None
        for be in _backends(self._backend):
            try:
                plan = _core.SpgemmPlanCore(be, self._options)
                plan.symbolic(parts(a), parts(b))
                self._core, self._shapes = plan, (a.shape, b.shape)
                return self
            except _core.NotSupported as e:
                last = e
        assert last is not None
        raise last

    def numeric(self, a: Any, b: Any) -> Any:
        """C = A @ B with the current values of A and B (the patterns given to symbolic())."""
        if self._core is None:
            raise _core.PhaseError("SpgemmPlan.numeric: call symbolic() first")
        a, b = _operands(a, b)
        if (a.shape, b.shape) != self._shapes:
            raise _core.DimensionMismatch(f"SpgemmPlan.numeric: shapes {a.shape} and {b.shape} differ from the planned "
                                          f"{self._shapes[0]} and {self._shapes[1]}")
        return from_parts(self._core.numeric(parts(a), parts(b)), self._matrix)

    __call__ = numeric

    @property
    def nnz(self) -> int:
        """nnz(C), known after symbolic()."""
        if self._core is None:
            raise _core.PhaseError("SpgemmPlan.nnz: call symbolic() first")
        return int(self._core.nnz)

    @property
    def stats(self) -> dict[str, Any]:
        """Times per phase, products (flops = 2 * products), row categories, chunk parameters."""
        if self._core is None:
            raise _core.PhaseError("SpgemmPlan.stats: call symbolic() first")
        return dict(self._core.stats)

    @property
    def backend(self) -> str:
        """The backend in use ("cpu", "reference", "cuda"), or the requested one before symbolic()."""
        return self._core.backend if self._core is not None else self._backend

    def __repr__(self) -> str:
        state = f"nnz={self.nnz}" if self._core is not None else "not planned"
        return f"SpgemmPlan(backend={self.backend!r}, {state})"
