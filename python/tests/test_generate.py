"""Generators against matrices built independently with scipy (kron sums) and structural properties."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gigasparse as gs
from conftest import assert_sparse_close


def tridiag(n: int, d: float, o: float) -> sp.csr_array:
    return sp.diags_array([np.full(n - 1, o), np.full(n, d), np.full(n - 1, o)], offsets=[-1, 0, 1], format="csr")


def scipy_poisson2d(nx: int, ny: int) -> sp.csr_array:
    # x fastest: A = I_ny ⊗ T_nx + T_ny ⊗ I_nx with T = tridiag(-1, 2, -1)
    t = lambda n: tridiag(n, 2.0, -1.0)
    return sp.csr_array(sp.kron(sp.eye_array(ny), t(nx)) + sp.kron(t(ny), sp.eye_array(nx)))


def scipy_poisson3d(n: int) -> sp.csr_array:
    t, i = tridiag(n, 2.0, -1.0), sp.eye_array(n)
    return sp.csr_array(sp.kron(sp.kron(i, i), t) + sp.kron(sp.kron(i, t), i) + sp.kron(sp.kron(t, i), i))


@pytest.mark.parametrize("nx, ny", [(1, 1), (5, 5), (7, 3), (30, 30)])
def test_poisson2d_matches_kron(nx, ny):
    a = gs.generate.poisson2d(nx, ny)
    assert isinstance(a, sp.csr_array) and a.shape == (nx * ny, nx * ny)
    assert_sparse_close(a, scipy_poisson2d(nx, ny), 0)
    assert a.has_canonical_format


@pytest.mark.parametrize("n", [1, 4, 9])
def test_poisson3d_matches_kron(n):
    assert_sparse_close(gs.generate.poisson3d(n), scipy_poisson3d(n), 0)


def test_nine_and_27_point():
    a = gs.generate.poisson2d(6, points=9).toarray()
    assert np.all(np.diag(a) == 8) and a[7, 0] == -1 and a[7, 14] == -1  # diagonal neighbours
    b = gs.generate.poisson3d(4, points=27)
    assert b.diagonal().tolist() == [26.0] * 64
    assert b[[21], :].nnz == 27  # an interior point couples to all 26 neighbours
    assert abs(b - b.T).max() == 0


def test_anisotropic():
    eps = 1e-2
    t = lambda n, w: tridiag(n, 2.0 * w, -w)
    ref = sp.kron(sp.eye_array(5), t(6, eps)) + sp.kron(t(5, 1.0), sp.eye_array(6))
    assert_sparse_close(gs.generate.anisotropic2d(6, 5, eps), sp.csr_array(ref), 1e-15)


def test_convection_diffusion_is_upwind_m_matrix():
    assert_sparse_close(gs.generate.convection_diffusion(8, b=(0, 0)), scipy_poisson2d(8, 8), 0)
    a = gs.generate.convection_diffusion(10, b=(50.0, -20.0))
    d = a.diagonal()
    off = a - sp.diags_array(d)
    assert np.all(d > 0) and off.max() <= 0
    assert np.all(a.sum(axis=1) >= -1e-12)  # weakly diagonally dominant rows
    assert abs(a - a.T).max() > 0  # unsymmetric
    a3 = gs.generate.convection_diffusion(4, 4, 4, b=(1, 2, 3))
    assert a3.shape == (64, 64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_dtypes(dtype, index_dtype):
    a = gs.generate.poisson2d(5, dtype=dtype, index_dtype=index_dtype)
    assert a.dtype == dtype and a.indices.dtype == index_dtype and a.indptr.dtype == index_dtype
    assert_sparse_close(a, scipy_poisson2d(5, 5).astype(dtype), 0)


def test_rmat_properties():
    a = gs.generate.rmat(10, 8, seed=7)
    assert a.shape == (1024, 1024)
    assert 0 < a.nnz <= 8 * 1024
    assert np.all(a.data == 1.0) and a.has_canonical_format
    b = gs.generate.rmat(10, 8, seed=7)
    assert (a != b).nnz == 0  # deterministic
    c = gs.generate.rmat(10, 8, seed=8)
    assert (a != c).nnz > 0
    s = gs.generate.rmat(9, 4, seed=1, symmetrize=True)
    assert ((s != 0) != (s.T != 0)).nnz == 0
    # power law: the heaviest row holds far more than the average
    deg = np.diff(a.indptr)
    assert deg.max() > 8 * deg.mean()


def test_erdos_renyi_row_counts():
    a = gs.generate.erdos_renyi(500, 800, 6, seed=3)
    assert a.shape == (500, 800)
    assert np.all(np.diff(a.indptr) == 6)
    assert a.has_canonical_format and np.all(a.data == 1)
    assert (a != gs.generate.erdos_renyi(500, 800, 6, seed=3)).nnz == 0


def test_kkt_structure():
    n, m, delta = 60, 20, 1e-6
    k = gs.generate.kkt(n, m, delta=delta, seed=2)
    assert k.shape == (n + m, n + m)
    assert abs(k - k.T).max() == 0
    h = k[:n, :n].toarray()
    assert np.all(np.linalg.eigvalsh(h) > 0)  # H is SPD
    np.testing.assert_array_equal(k[n:, n:].toarray(), -delta * np.eye(m))
    ev = np.linalg.eigvalsh(k.toarray())
    assert (ev > 0).sum() == n and (ev < 0).sum() == m  # saddle point inertia (n, m, 0)


def test_random_sparse_values():
    a = gs.generate.random_sparse(100, 50, 5, seed=9)
    assert a.shape == (100, 50) and a.nnz > 0
    assert np.all(np.abs(a.data) <= 1)


@pytest.mark.parametrize("call", [
    lambda: gs.generate.poisson2d(-1),
    lambda: gs.generate.poisson2d(4, points=7),
    lambda: gs.generate.poisson3d(3, points=9),
    lambda: gs.generate.anisotropic2d(4, eps=0),
    lambda: gs.generate.convection_diffusion(4, b=(float("nan"), 0)),
    lambda: gs.generate.rmat(-1),
])
def test_bad_arguments_raise_invalid_argument(call):
    with pytest.raises(gs.InvalidArgument) as e:
        call()
    assert isinstance(e.value, ValueError) and str(e.value)


def test_bad_dtype():
    with pytest.raises(TypeError):
        gs.generate.poisson2d(3, dtype=object)
    with pytest.raises(TypeError):
        gs.generate.poisson2d(3, index_dtype=np.int16)
