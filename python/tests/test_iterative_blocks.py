"""BSR SpMV, the TriangularSolve plan and LU-SGS, compared against scipy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import gigasparse as gs


def _tol(dtype):
    return 1e-4 if np.dtype(dtype) == np.float32 else 1e-11


@pytest.mark.parametrize("block", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("backend", ["omp", "reference"])
def test_bsr_spmv_matches_scipy(block, dtype, backend, rng):
    nb = 13
    a = sp.random_array((nb * block, nb * block), density=0.15, random_state=rng, dtype=np.float64)
    a = sp.bsr_array(a.astype(dtype), blocksize=(block, block))
    x = rng.standard_normal(a.shape[1]).astype(dtype)
    y0 = rng.standard_normal(a.shape[0]).astype(dtype)
    scale = max(1.0, float(np.abs(a.toarray()).sum(axis=1).max()))
    np.testing.assert_allclose(gs.spmv(a, x, backend=backend), a @ x, rtol=0, atol=_tol(dtype) * scale * 10)
    got = gs.spmv(a, x, alpha=2.0, beta=-0.5, y=y0, backend=backend)
    np.testing.assert_allclose(got, 2.0 * (a @ x) - 0.5 * y0, rtol=0, atol=_tol(dtype) * scale * 30)


def test_bsr_spmv_rectangular_int64_and_fallback(rng):
    a = sp.random_array((12, 18), density=0.3, random_state=rng)
    b = sp.bsr_array(a, blocksize=(3, 3))
    b.indices = b.indices.astype(np.int64)
    b.indptr = b.indptr.astype(np.int64)
    x = rng.standard_normal(18)
    np.testing.assert_allclose(gs.spmv(b, x), a @ x, atol=1e-12)
    # non-square blocks go through the CSR kernel
    c = sp.bsr_array(a, blocksize=(2, 3))
    np.testing.assert_allclose(gs.spmv(c, x), a @ x, atol=1e-12)


def test_bsr_spmv_bad_inputs():
    a = gs.generate.cfd_proxy(2, block=3)
    with pytest.raises(ValueError, match="length"):
        gs.spmv(a, np.ones(5))
    with pytest.raises(gs.InvalidArgument, match="backend"):
        gs.spmv(a, np.ones(a.shape[1]), backend="fpga")
    bad = a.copy()
    bad.indices[0] = 99
    with pytest.raises(gs.InvalidStructure):
        gs.spmv(bad, np.ones(a.shape[1]))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("sync", ["p2p", "barrier", "sequential"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_triangular_solve_matches_scipy(lower, sync, dtype, rng):
    a = gs.generate.convection_diffusion(24).astype(dtype)
    t = sp.csr_array(sp.tril(a) if lower else sp.triu(a))
    plan = gs.TriangularSolve(t, lower=lower, sync=sync)
    assert plan.shape == t.shape and plan.lower == lower
    for _ in range(2):  # analyze once, solve many times
        b = rng.standard_normal(t.shape[0]).astype(dtype)
        want = spla.spsolve_triangular(t.astype(np.float64), b.astype(np.float64), lower=lower)
        got = plan.solve(b)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == np.float32 else 1e-10,
                                   atol=1e-4 if dtype == np.float32 else 1e-10)
    s = plan.stats
    assert s["rows"] == t.shape[0] and s["nnz"] == t.nnz
    assert plan.depth >= 1 and plan.row_depth >= 1
    assert plan.subgraphs == t.shape[0] and plan.critical_path > 0 and plan.parallelism >= 1.0


def test_triangular_solve_full_matrix_unit_diagonal_block_ptr(rng):
    a = gs.generate.poisson2d(10)
    n = a.shape[0]
    b = rng.standard_normal(n)
    # the other triangle is ignored
    np.testing.assert_allclose(gs.TriangularSolve(a).solve(b), spla.spsolve_triangular(sp.tril(a, format="csr"), b),
                               atol=1e-12)
    want = spla.spsolve_triangular(sp.tril(a, format="csr"), b, unit_diagonal=True)
    np.testing.assert_allclose(gs.TriangularSolve(a, unit_diagonal=True).solve(b), want, atol=1e-10)
    plan = gs.TriangularSolve(a, block_ptr=np.arange(0, n + 1, 10))
    assert plan.subgraphs == n // 10
    np.testing.assert_allclose(plan.solve(b), spla.spsolve_triangular(sp.tril(a, format="csr"), b), atol=1e-12)


@pytest.mark.parametrize("sync", ["p2p", "sequential"])
def test_triangular_solve_complex(sync, rng):
    a = gs.generate.convection_diffusion(20).astype(np.float64)
    n = a.shape[0]
    t = sp.csr_array(sp.tril(a) + 1j * sp.tril(a, k=-1) * 0.3)  # complex strictly lower part, real diagonal
    plan = gs.TriangularSolve(t, sync=sync)
    b = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    got = plan.solve(b)
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, spla.spsolve_triangular(t, b, lower=True), rtol=1e-10, atol=1e-10)
    # a real triangle with a complex b: its real and imaginary parts solved apart
    real = gs.TriangularSolve(sp.csr_array(sp.triu(a)), lower=False, sync=sync)
    np.testing.assert_allclose(real.solve(b), spla.spsolve_triangular(sp.csr_array(sp.triu(a)), b, lower=False), rtol=1e-10,
                               atol=1e-10)


def test_triangular_solve_bad_inputs():
    a = gs.generate.poisson2d(4)
    with pytest.raises(gs.DimensionMismatch, match="square"):
        gs.TriangularSolve(sp.csr_array(np.ones((3, 4))))
    plan = gs.TriangularSolve(a)
    with pytest.raises(ValueError, match="length"):
        plan.solve(np.ones(3))
    with pytest.raises(gs.InvalidArgument, match="sync"):
        gs.TriangularSolve(a, sync="nope")
    with pytest.raises(ValueError, match="block_ptr"):
        gs.TriangularSolve(a, block_ptr=[0, 5])
    singular = sp.csr_array(sp.tril(a, k=-1))
    with pytest.raises(gs.InvalidArgument, match="singular"):
        gs.TriangularSolve(singular).solve(np.ones(16))


def test_cfd_proxy_shape_and_blocks():
    a = gs.generate.cfd_proxy(3, 4, 2)
    assert isinstance(a, sp.bsr_array)
    assert a.blocksize == (5, 5) and a.shape == (3 * 4 * 2 * 5,) * 2
    nb = a.shape[0] // 5
    diag = [a.indices[a.indptr[i]:a.indptr[i + 1]] for i in range(nb)]
    assert all(i in d for i, d in enumerate(diag))
    # 7-point cell graph: interior faces appear in both directions
    faces = 2 * ((3 - 1) * 4 * 2 + 3 * (4 - 1) * 2 + 3 * 4 * (2 - 1))
    assert a.indptr[-1] == nb + faces
    s = sp.csr_array(a)
    assert abs(s - s.T).max() > 0  # nonsymmetric like a convective Jacobian
    b3 = gs.generate.cfd_proxy(2, block=3, dtype=np.float32, index_dtype=np.int64)
    assert b3.blocksize == (3, 3) and b3.dtype == np.float32
    r = gs.generate.cfd_proxy(3, renumber=True, seed=7)
    assert r.shape == gs.generate.cfd_proxy(3).shape


@pytest.mark.parametrize("method", ["gmres", "bicgstab"])
@pytest.mark.parametrize("ordering", ["natural", "rcm", "mc"])
def test_lusgs_preconditioned_krylov(method, ordering, rng):
    a = gs.generate.cfd_proxy(5, sigma=0.5)
    b = rng.standard_normal(a.shape[0])
    solve = getattr(gs, method)
    x0, info0 = solve(a, b, rtol=1e-10, maxiter=5000)
    m = gs.lusgs(a, ordering=ordering)
    assert m.shape == a.shape and m.blocksize == 5
    x1, info1 = solve(a, b, rtol=1e-10, maxiter=5000, M=m)
    assert info1 == 0 and info0 == 0
    assert info1.iterations < info0.iterations
    want = spla.spsolve(sp.csc_array(a), b)
    np.testing.assert_allclose(x1, want, rtol=0, atol=1e-7 * np.abs(want).max())


def test_lusgs_scipy_and_stationary(rng):
    a = gs.generate.cfd_proxy(4, block=4)
    b = rng.standard_normal(a.shape[0])
    m = gs.LuSgs(a)
    x, info = spla.gmres(a, b, M=spla.aslinearoperator(m), rtol=1e-10, atol=0)
    assert info == 0
    np.testing.assert_allclose(a @ x, b, atol=1e-7 * np.abs(b).max())
    x, drop = m.iterate(b, sweeps=6)
    assert drop[0] == pytest.approx(1.0) and len(drop) == 7
    assert np.all(np.diff(drop) < 0)
    # from another format with blocksize=
    m2 = gs.LuSgs(sp.csr_array(a), blocksize=4)
    np.testing.assert_allclose(m2.matvec(b), m.matvec(b), atol=1e-12)


def test_lusgs_bad_inputs():
    a = gs.generate.cfd_proxy(2)
    m = gs.lusgs(a)
    with pytest.raises(ValueError, match="length"):
        m.matvec(np.ones(3))
    with pytest.raises(gs.DimensionMismatch, match="square"):
        gs.LuSgs(sp.bsr_array(np.ones((10, 20)), blocksize=(5, 5)))
    with pytest.raises(ValueError, match="blocksize"):
        gs.LuSgs(sp.csr_array(a))
    with pytest.raises(gs.NotSupported, match="1..5"):
        gs.LuSgs(sp.csr_array(np.eye(12)), blocksize=6)
    with pytest.raises(gs.InvalidArgument, match="ordering"):
        gs.LuSgs(a, ordering="bogus")
    with pytest.raises(TypeError):
        gs.LuSgs(np.eye(10))
    with pytest.raises(gs.DimensionMismatch):
        gs.gmres(gs.generate.cfd_proxy(3), np.ones(135), M=m)
