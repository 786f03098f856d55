"""Reference kernels (spmv, spgemm, add, triangular solve) against scipy, plus the zero-copy and
conversion rules of the CSR boundary."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import gigasparse as gs
from conftest import assert_sparse_close, shared_matrix, small_shared, tol

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def rand(m, n, density, dtype, seed):
    rng = np.random.default_rng(seed)
    a = sp.random_array((m, n), density=density, format="csr", dtype=np.float64, rng=rng)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * sp.random_array((m, n), density=density, format="csr", rng=rng)
    return sp.csr_array(a.astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_spmv(dtype, index_dtype, rng):
    a = rand(60, 40, 0.1, dtype, 1)
    a.indices, a.indptr = a.indices.astype(index_dtype), a.indptr.astype(index_dtype)
    x = rng.standard_normal(40).astype(dtype)
    y0 = rng.standard_normal(60).astype(dtype)
    np.testing.assert_allclose(gs.reference.spmv(a, x), a @ x, rtol=tol(dtype), atol=tol(dtype))
    got = gs.reference.spmv(a, x, alpha=2.0, beta=-0.5, y=y0)
    np.testing.assert_allclose(got, 2.0 * (a @ x) - 0.5 * y0, rtol=tol(dtype), atol=tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_spgemm_random(dtype):
    a, b = rand(50, 70, 0.08, dtype, 2), rand(70, 30, 0.1, dtype, 3)
    c = gs.reference.spgemm(a, b)
    assert isinstance(c, sp.csr_array) and c.dtype == dtype
    assert_sparse_close(c, a @ b, tol(dtype))


@pytest.mark.parametrize("name", small_shared("graph", 30000)[:3] or ["Erdos971"])
def test_spgemm_shared_graph(name):
    a = gs.read_mtx(shared_matrix(name))
    assert_sparse_close(gs.reference.spgemm(a, a), a @ a, 1e-14)


def test_spgemm_generated_graph_and_csr_matrix():
    a = sp.csr_matrix(gs.generate.rmat(8, 4, seed=5))
    c = gs.reference.spgemm(a, a)
    assert isinstance(c, sp.csr_matrix)
    assert_sparse_close(c, a @ a, 0)


def test_add(rng):
    a, b = rand(30, 20, 0.2, np.float64, 4), rand(30, 20, 0.2, np.float64, 5)
    assert_sparse_close(gs.reference.add(a, b, 2.0, -3.0), 2 * a - 3 * b, 1e-15)
    with pytest.raises(ValueError, match="shapes"):
        gs.reference.add(a, b.T)


@pytest.mark.parametrize("lower", [True, False])
def test_triangular_solve(lower, rng):
    a = gs.generate.poisson2d(10)
    t = sp.csr_array(sp.tril(a) if lower else sp.triu(a))
    b = rng.standard_normal(100)
    x = gs.reference.spsolve_triangular(a, b, lower=lower)  # other triangle ignored
    np.testing.assert_allclose(x, spla.spsolve_triangular(t, b, lower=lower), rtol=1e-12)
    xu = gs.reference.spsolve_triangular(t, b, lower=lower, unit_diagonal=True)
    np.testing.assert_allclose(xu, spla.spsolve_triangular(t, b, lower=lower, unit_diagonal=True), rtol=1e-12)


def test_triangular_zero_diagonal():
    t = sp.csr_array(np.array([[1.0, 0], [1.0, 0.0]]))
    with pytest.raises(np.linalg.LinAlgError, match="row 1"):
        gs.reference.spsolve_triangular(t, np.ones(2))


def test_conversions_of_inputs(rng):
    dense = rng.standard_normal((5, 4))
    x = rng.standard_normal(4)
    # dense arrays, COO, integer values, unsorted duplicates: all converted
    np.testing.assert_allclose(gs.reference.spmv(dense, x), dense @ x)
    np.testing.assert_allclose(gs.reference.spmv(sp.coo_array(dense), x), dense @ x)
    ai = sp.csr_array(np.array([[1, 2], [0, 3]], dtype=np.int64))
    np.testing.assert_allclose(gs.reference.spmv(ai, np.array([1, 1])), [3.0, 3.0])
    dup = sp.csr_array((np.array([1.0, 2.0, 3.0]), np.array([1, 0, 1]), np.array([0, 3, 3])), shape=(2, 2))
    np.testing.assert_allclose(gs.reference.spmv(dup, np.array([1.0, 10.0])), [42.0, 0.0])
    # real matrix times complex vector: computed in complex
    xc = x + 1j
    np.testing.assert_allclose(gs.reference.spmv(sp.csr_array(dense), xc), dense @ xc)


def test_zero_copy_results_are_owned_by_numpy():
    c = gs.reference.spgemm(gs.generate.poisson2d(20), gs.generate.poisson2d(20))
    # the result's buffers are the C++ vectors (not writeable copies made by scipy), and stay alive
    assert c.data.base is not None
    del c  # releasing must not crash
    d = gs.generate.poisson2d(3)
    d.data[0] = 99.0  # results are writeable
    assert d[0, 0] == 99.0


def test_bad_inputs():
    a = gs.generate.poisson2d(4)
    with pytest.raises(ValueError, match="length"):
        gs.reference.spmv(a, np.ones(3))
    with pytest.raises(ValueError, match="vector"):
        gs.reference.spmv(a, np.ones((16, 2)))
    with pytest.raises(ValueError, match="not aligned"):
        gs.reference.spgemm(a, sp.csr_array((3, 3)))
    with pytest.raises(TypeError):
        gs.reference.spgemm(a, "not a matrix")
    with pytest.raises(TypeError):
        gs.reference.spmv(a, np.array(["a"] * 16))
    with pytest.raises(ValueError, match="square"):
        gs.reference.spsolve_triangular(sp.csr_array((3, 4)), np.ones(3))
    # a corrupt CSR (column out of range) is caught by validation, never read out of bounds
    bad = sp.csr_array((np.ones(2), np.array([0, 1]), np.array([0, 1, 2])), shape=(2, 2))
    bad.indices[1] = 7
    with pytest.raises(gs.InvalidStructure):
        gs.reference.spmv(bad, np.ones(2))
    with pytest.raises(gs.InvalidStructure):
        gs.validate(bad)


def test_validate_finite():
    a = gs.generate.poisson2d(3)
    gs.validate(a, finite=True)
    a.data[4] = np.nan
    gs.validate(a)
    with pytest.raises(gs.InvalidStructure):
        gs.validate(a, finite=True)
