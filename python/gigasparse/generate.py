"""Deterministic generators of test and benchmark matrices (the same streams as the C++ library
and the `gigasparse` command-line tool: a seed gives the same matrix everywhere).

Every function returns a ``scipy.sparse.csr_array`` with sorted rows; ``dtype`` (float32, float64,
complex64, complex128) and ``index_dtype`` (int32, int64) choose its types.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _gigasparse as _core
from ._sparse import from_parts, index_dtype as _index_dtype, value_dtype

__all__ = ["rmat", "erdos_renyi", "poisson2d", "poisson3d", "anisotropic2d", "convection_diffusion", "kkt",
           "random_sparse", "cfd_proxy"]


def _types(dtype: Any, index_dtype: Any) -> tuple[str, str]:
    return value_dtype(dtype, "dtype", strict=True).name, _index_dtype(index_dtype).name


def rmat(scale: int, edge_factor: float = 16, seed: int = 1, *, a: float = 0.57, b: float = 0.19, c: float = 0.19,
         permute: bool = False, symmetrize: bool = False, dtype: Any = np.float64,
         index_dtype: Any = np.int32) -> sp.csr_array:
    """R-MAT power-law graph on 2**scale vertices with edge_factor * 2**scale generated edges
    (Graph500 parameters a, b, c); values 1, duplicates removed, self-loops kept.
    symmetrize gives the A + Aᵀ pattern (an undirected graph)."""
    return from_parts(_core.gen_rmat(int(scale), float(edge_factor), float(a), float(b), float(c), bool(permute),
                                     bool(symmetrize), int(seed), *_types(dtype, index_dtype)))


def erdos_renyi(nrows: int, ncols: int | None = None, nnz_per_row: float = 8, seed: int = 1, *,
                dtype: Any = np.float64, index_dtype: Any = np.int32) -> sp.csr_array:
    """Random pattern: every row gets nnz_per_row distinct uniformly random columns (values 1)."""
    ncols = nrows if ncols is None else ncols
    return from_parts(_core.gen_erdos_renyi(int(nrows), int(ncols), float(nnz_per_row), int(seed),
                                            *_types(dtype, index_dtype)))


def poisson2d(n: int, ny: int | None = None, points: int = 5, *, dtype: Any = np.float64,
              index_dtype: Any = np.int32) -> sp.csr_array:
    """2-D Poisson matrix on an n x ny grid (ny defaults to n): 5-point (4 / -1) or 9-point stencil."""
    ny = n if ny is None else ny
    return from_parts(_core.gen_poisson2d(int(n), int(ny), int(points), *_types(dtype, index_dtype)))


def poisson3d(n: int, ny: int | None = None, nz: int | None = None, points: int = 7, *, dtype: Any = np.float64,
              index_dtype: Any = np.int32) -> sp.csr_array:
    """3-D Poisson matrix on an n x ny x nz grid: 7-point (6 / -1) or 27-point (26 / -1) stencil."""
    ny = n if ny is None else ny
    nz = n if nz is None else nz
    return from_parts(_core.gen_poisson3d(int(n), int(ny), int(nz), int(points), *_types(dtype, index_dtype)))


def anisotropic2d(n: int, ny: int | None = None, eps: float = 1e-3, *, dtype: Any = np.float64,
                  index_dtype: Any = np.int32) -> sp.csr_array:
    """Anisotropic diffusion -eps*u_xx - u_yy on an n x ny grid, 5-point."""
    ny = n if ny is None else ny
    return from_parts(_core.gen_anisotropic2d(int(n), int(ny), float(eps), *_types(dtype, index_dtype)))


def convection_diffusion(n: int, ny: int | None = None, nz: int = 0, b: tuple[float, ...] = (1.0, 1.0, 0.0), *,
                         dtype: Any = np.float64, index_dtype: Any = np.int32) -> sp.csr_array:
    """Convection-diffusion -Δu + b·∇u with first-order upwind differences (unsymmetric M-matrix)
    on an n x ny grid, or n x ny x nz when nz > 0."""
    ny = n if ny is None else ny
    bx, by, bz = (tuple(float(v) for v in b) + (0.0, 0.0, 0.0))[:3]
    return from_parts(_core.gen_convection_diffusion(int(n), int(ny), int(nz), bx, by, bz,
                                                     *_types(dtype, index_dtype)))


def kkt(n: int = 1000, m: int = 300, *, h_nnz_per_row: float = 5, a_nnz_per_row: float = 4, delta: float = 1e-8,
        seed: int = 1, dtype: Any = np.float64, index_dtype: Any = np.int32) -> sp.csr_array:
    """Symmetric indefinite saddle-point matrix [[H, Aᵀ], [A, -delta*I]] of order n + m (full storage)."""
    return from_parts(_core.gen_kkt(int(n), int(m), float(h_nnz_per_row), float(a_nnz_per_row), float(delta), int(seed),
                                    *_types(dtype, index_dtype)))


def random_sparse(nrows: int, ncols: int | None = None, nnz_per_row: float = 8, seed: int = 1, *,
                  dtype: Any = np.float64, index_dtype: Any = np.int32) -> sp.csr_array:
    """Random sparse matrix with values uniform in [-1, 1]."""
    ncols = nrows if ncols is None else ncols
    return from_parts(_core.gen_random_sparse(int(nrows), int(ncols), float(nnz_per_row), int(seed),
                                              *_types(dtype, index_dtype)))


def cfd_proxy(nx: int = 16, ny: int | None = None, nz: int | None = None, *, block: int = 5, sigma: float = 1.0,
              renumber: bool = False, seed: int = 1, dtype: Any = np.float64,
              index_dtype: Any = np.int32) -> sp.bsr_array:
    """Block operator shaped like an implicit finite-volume Jacobian (the LU-SGS test case): the cell
    graph of an nx x ny x nz hexahedral mesh with ``block`` unknowns per cell, returned as a
    ``scipy.sparse.bsr_array`` with (block, block) blocks. sigma is the pseudo-time term (smaller =
    stiffer); renumber shuffles the cells (unstructured-like numbering). Real dtypes only."""
    ny = nx if ny is None else ny
    nz = nx if nz is None else nz
    vdt, idt = _types(dtype, index_dtype)
    nbrows, nbcols, b, indptr, indices, data = _core.cfd_proxy(int(nx), int(ny), int(nz), int(block), float(sigma),
                                                               bool(renumber), int(seed), vdt, idt)
    if indptr.dtype != indices.dtype and (indptr.size == 0 or int(indptr[-1]) <= np.iinfo(indices.dtype).max):
        indptr = indptr.astype(indices.dtype)
    return sp.bsr_array((data.reshape(-1, b, b), indices, indptr), shape=(nbrows * b, nbcols * b), blocksize=(b, b))
