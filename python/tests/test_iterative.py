"""Krylov solvers and preconditioners against scipy.sparse.linalg on generated and shared matrices."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import gigasparse as gs
from conftest import shared_matrix, small_shared


def rel_residual(a, x, b):
    return np.linalg.norm(b - a @ x) / np.linalg.norm(b)


SOLVERS = {"cg": gs.cg, "bicgstab": gs.bicgstab, "gmres": gs.gmres, "fgmres": gs.fgmres}


@pytest.mark.parametrize("method", list(SOLVERS))
@pytest.mark.parametrize("precond", [None, "jacobi", "ilu0", "ic0", "sgs"])
def test_poisson_all_methods_and_preconditioners(method, precond, rng):
    a = gs.generate.poisson2d(20)
    b = rng.standard_normal(a.shape[0])
    x, info = SOLVERS[method](a, b, rtol=1e-10, maxiter=2000, M=precond)
    assert info == 0, info.message
    assert info.converged and info.reason == "converged"
    assert rel_residual(a, x, b) < 1e-8
    np.testing.assert_allclose(x, spla.spsolve(sp.csc_array(a), b), rtol=1e-6, atol=1e-8)
    assert len(info.residual_history) == info.iterations + 1
    assert info.residual_history[0] == pytest.approx(1.0) and info.residual_history[-1] <= 1e-10


def test_iterations_against_scipy_cg(rng):
    a = gs.generate.poisson2d(30)
    b = rng.standard_normal(a.shape[0])
    count = [0]
    xs, info_s = spla.cg(a, b, rtol=1e-8, callback=lambda _: count.__setitem__(0, count[0] + 1))
    x, info = gs.cg(a, b, rtol=1e-8)
    assert info_s == 0 and info == 0
    assert abs(info.iterations - count[0]) <= 2  # same algorithm, same stopping test
    np.testing.assert_allclose(x, xs, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("ordering", ["natural", "rcm", "mc", "abmc", "dc", "auto"])
def test_orderings_ic0(ordering, rng):
    a = gs.generate.poisson3d(10)
    b = rng.standard_normal(a.shape[0])
    m = gs.ic0(a, ordering=ordering)
    assert m.ok and m.info["kind"] == "ic0"
    x, info = gs.cg(a, b, rtol=1e-10, M=m)
    assert info == 0 and rel_residual(a, x, b) < 1e-8
    _, plain = gs.cg(a, b, rtol=1e-10)
    assert info.iterations < plain.iterations  # the preconditioner helps
    x2, info2 = gs.cg(a, b, rtol=1e-10, M="ic0", ordering=ordering)  # by name
    assert info2 == 0


def test_preconditioner_is_usable_by_scipy(rng):
    a = gs.generate.convection_diffusion(20, b=(20.0, 5.0))
    b = rng.standard_normal(a.shape[0])
    m = gs.ilu0(a)
    assert m.shape == a.shape and m.dtype == np.float64
    z = m.matvec(b)
    assert z.shape == b.shape and np.all(np.isfinite(z))
    x, info = spla.gmres(a, b, M=m, rtol=1e-10, restart=30, maxiter=200)
    assert info == 0 and rel_residual(a, x, b) < 1e-8
    # ILU(0) of a matrix whose pattern is closed under elimination is exact: M⁻¹ = A⁻¹ for a tridiagonal A
    t = sp.csr_array(sp.diags_array([-np.ones(9), 3 * np.ones(10), -np.ones(9)], offsets=[-1, 0, 1]))
    np.testing.assert_allclose(gs.ilu0(t) @ np.ones(10), spla.spsolve(sp.csc_array(t), np.ones(10)), rtol=1e-12)


@pytest.mark.parametrize("name", small_shared("spd", 25000)[:3] or ["bcsstk08"])
def test_shared_spd_pcg(name, rng):
    a = gs.read_mtx(shared_matrix(name))
    b = a @ np.ones(a.shape[0])
    x, info = gs.cg(a, b, rtol=1e-8, maxiter=20000, M=gs.ic0(a))
    if not gs.ic0(a).ok:
        pytest.skip(f"IC(0) breaks down on {name}")
    assert info == 0, info.message
    assert rel_residual(a, x, b) < 1e-6


# unsymmetric shared matrices on which ILU(0) exists and GMRES(50) converges
@pytest.mark.parametrize("name", ["arc130", "cage8", "olm1000", "pde900", "sherman1", "sherman4"])
def test_shared_unsym_gmres_vs_scipy(name):
    a = gs.read_mtx(shared_matrix(name))
    b = a @ np.ones(a.shape[0])
    m = gs.ilu0(a)
    assert m.ok, m.info["message"]
    x, info = gs.gmres(a, b, rtol=1e-8, restart=50, maxiter=5000, M=m)
    assert info == 0, info.message
    assert rel_residual(a, x, b) < 1e-6
    xs, info_s = spla.gmres(a, b, rtol=1e-8, restart=50, maxiter=100, M=m)  # our M inside scipy
    assert info_s == 0
    np.testing.assert_allclose(a @ x, a @ xs, rtol=1e-5, atol=1e-6 * np.abs(b).max())


@pytest.mark.parametrize("name", ["west0479", "bp_1200"])
def test_shared_ilu0_breakdown_is_reported(name):
    a = gs.read_mtx(shared_matrix(name))
    m = gs.ilu0(a)  # zero pivots: reported, not raised
    assert not m.ok and m.info["failed_row"] >= 0 and "pivot" in m.info["message"]
    x, info = gs.gmres(a, a @ np.ones(a.shape[0]), M=m, maxiter=10)
    assert info == -3 and info.reason == "preconditioner_failed"


def test_not_converged_and_x0(rng):
    a = gs.generate.poisson2d(30)
    b = rng.standard_normal(a.shape[0])
    x, info = gs.cg(a, b, rtol=1e-12, maxiter=5)
    assert info == 5 and not info.converged and info.reason == "max_iterations"
    x2, info2 = gs.cg(a, b, x0=x, rtol=1e-10)
    assert info2 == 0
    x3, info3 = gs.cg(a, b, x0=x2, rtol=1e-8)
    assert info3.iterations <= 1  # already converged start


def test_atol_and_float32(rng):
    a = gs.generate.poisson2d(10, dtype=np.float32)
    b = rng.standard_normal(100).astype(np.float32)
    x, info = gs.bicgstab(a, b, rtol=0.0, atol=1e-3 * np.linalg.norm(b))
    assert info == 0 and x.dtype == np.float32
    assert rel_residual(a.astype(np.float64), x.astype(np.float64), b.astype(np.float64)) < 2e-3
    # a float64 preconditioner is rebuilt for a float32 system
    x, info = gs.cg(a, b, rtol=1e-5, M=gs.jacobi(a.astype(np.float64)))
    assert info == 0


def test_preconditioner_failure_is_reported():
    a = sp.csr_array(np.array([[0.0, 1.0], [1.0, 2.0]]))
    m = gs.ilu0(a)
    assert not m.ok and m.info["failed_row"] == 0 and m.info["message"]
    np.testing.assert_array_equal(m @ np.array([1.0, 2.0]), [1.0, 2.0])  # applies as identity


def test_bad_inputs():
    a = gs.generate.poisson2d(4)
    with pytest.raises(gs.DimensionMismatch, match="square"):
        gs.cg(sp.csr_array((3, 4)), np.ones(3))
    with pytest.raises(ValueError, match="length"):
        gs.cg(a, np.ones(5))
    with pytest.raises(gs.InvalidArgument, match="NaN"):
        gs.cg(a, np.full(16, np.nan))
    bad = a.copy()
    bad.data[2] = np.inf
    with pytest.raises(gs.InvalidStructure):
        gs.cg(bad, np.ones(16))
    with pytest.raises(gs.InvalidStructure):
        gs.ic0(bad)
    with pytest.raises(gs.InvalidArgument, match="NaN"):
        gs.gmres(a.astype(np.complex128), np.ones(16) * complex(0, np.nan))
    with pytest.raises(gs.InvalidArgument, match="ordering"):
        gs.ilu0(a, ordering="zigzag")
    with pytest.raises(gs.InvalidArgument):
        gs.Preconditioner(a, "amg")
    with pytest.raises(gs.InvalidArgument):
        gs.ilu0(a, colour_count=3)
    with pytest.raises(TypeError, match="preconditioner"):
        gs.cg(a, np.ones(16), M=42)
    with pytest.raises(ValueError, match="ordering"):
        gs.cg(a, np.ones(16), ordering="rcm")
    with pytest.raises(gs.DimensionMismatch):
        gs.cg(a, np.ones(16), M=gs.jacobi(gs.generate.poisson2d(3)))
    with pytest.raises(ValueError):
        gs.gmres(a, np.ones(16), restart=0)
    with pytest.raises(ValueError, match="length"):
        gs.jacobi(a).matvec(np.ones(3))


def _hermitian(n, dtype=np.complex128):
    """A 2D Laplacian + 0.5 I with an imaginary skew-symmetric coupling: Hermitian positive definite."""
    lap = gs.generate.poisson2d(n).astype(np.float64)
    skew = sp.diags([0.2, -0.2], [-1, 1], shape=lap.shape)
    return sp.csr_array(lap + 0.5 * sp.identity(lap.shape[0]) + 1j * skew).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_systems(dtype, rng):
    h = _hermitian(20, dtype)
    n = h.shape[0]
    x_true = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    b = h @ x_true
    tol = 1e-4 if dtype == np.complex64 else 1e-9
    for M in [None, "jacobi", "ic0", "sgs"]:
        for ordering in ([None] if M in (None, "jacobi") else ["natural", "mc", "dc", "auto"]):
            x, info = gs.cg(h, b, rtol=tol, M=M, ordering=ordering)
            assert info == 0, (M, ordering, info.message)
            assert x.dtype == dtype
            assert np.linalg.norm(b - h @ x) <= 5 * tol * np.linalg.norm(b), (M, ordering)
    # IC(0) needs Lᴴ: with the conjugates dropped it is a worse preconditioner than none
    _, plain = gs.cg(h, b, rtol=tol)
    _, ic = gs.cg(h, b, rtol=tol, M="ic0")
    assert ic.iterations < plain.iterations / 2
    # a complex non-Hermitian system (a shifted Laplacian with loss): BiCGStab, GMRES and FGMRES with ILU(0)
    lap = gs.generate.poisson2d(20).astype(np.float64)
    a = sp.csr_array(lap - (0.5 + 0.05j) * sp.identity(n)).astype(dtype)
    b = a @ x_true
    for solve in (gs.bicgstab, gs.gmres, gs.fgmres):
        x, info = solve(a, b, rtol=tol, M="ilu0", maxiter=2000)
        assert info == 0, (solve.__name__, info.message)
        assert np.linalg.norm(b - a @ x) <= 5 * tol * np.linalg.norm(b), solve.__name__
    # GMRES terminates within n steps on a small dense-ish system (the complex Givens rotations)
    small = sp.csr_array(rng.standard_normal((12, 12)) + 1j * rng.standard_normal((12, 12)) + 8 * np.eye(12)).astype(dtype)
    bs = small @ x_true[:12]
    x, info = gs.gmres(small, bs, rtol=tol, restart=12, maxiter=12)
    assert info == 0 and info.iterations <= 12, info.message
    np.testing.assert_allclose(x, x_true[:12], rtol=0, atol=50 * tol * np.abs(x_true[:12]).max())


def test_complex_right_hand_side_matrix_free_and_band_ic0(rng):
    # a real A with a complex b is a complex system
    a = gs.generate.poisson2d(16)
    b = rng.standard_normal(a.shape[0]) + 1j * rng.standard_normal(a.shape[0])
    x, info = gs.cg(a, b, rtol=1e-10, M="ic0")
    assert info == 0 and x.dtype == np.complex128
    np.testing.assert_allclose(a @ x, b, atol=1e-8 * np.linalg.norm(b))
    # matrix-free A and a callable M in complex values
    h = _hermitian(12)
    d = h.diagonal()
    op = spla.LinearOperator(h.shape, matvec=lambda v: h @ v, dtype=np.complex128)
    bh = h @ np.ones(h.shape[0], dtype=np.complex128)
    x, info = gs.gmres(op, bh, rtol=1e-10, M=lambda r: r / d)
    assert info == 0, info.message
    np.testing.assert_allclose(x, np.ones(h.shape[0]), atol=1e-8)
    # the Cholesky factor of a Hermitian band matrix has no fill outside the band, so IC(0) is exact and CG converges
    # in one step (a bandwidth of 2, so that each entry of L sums a product of earlier entries, conjugated); ILU(0) too
    n = 50
    o1, o2 = 0.3 + 0.4j, -0.2 + 0.25j
    t = sp.csr_array(sp.diags([np.full(n - 2, np.conj(o2)), np.full(n - 1, np.conj(o1)), np.full(n, 2.5 + 0j), np.full(n - 1, o1),
                               np.full(n - 2, o2)], [-2, -1, 0, 1, 2]))
    bt = t @ (np.arange(n) + 1j)
    x, info = gs.cg(t, bt, rtol=1e-12, M="ic0")
    assert info == 0 and info.iterations == 1, (info.iterations, info.message)
    x, info = gs.bicgstab(t, bt, rtol=1e-12, M="ilu0")
    assert info == 0 and info.iterations == 1, (info.iterations, info.message)
    # IC(0) of a Hermitian matrix that is not positive definite: a status, not an exception
    m = gs.ic0(sp.csr_array(t - 3 * sp.identity(n)))
    assert not m.ok and "pivot" in m.info["message"]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_minres_on_indefinite_systems(dtype, rng):
    a = _hermitian(20)
    a = sp.csr_array(a - 1.2 * sp.identity(a.shape[0]))  # shifted into the spectrum: indefinite
    if dtype == np.float64:
        a = sp.csr_array(a.real)  # the symmetric real part
    b = a @ np.ones(a.shape[0], dtype=dtype)
    x, info = gs.minres(a, b, rtol=1e-10, maxiter=3000)
    assert info == 0, info.message
    np.testing.assert_allclose(a @ x, b, atol=1e-8 * np.linalg.norm(b))
    _, g = gs.gmres(a, b, rtol=1e-10, restart=3000, maxiter=3000)
    assert g.iterations - 2 <= info.iterations <= 1.2 * g.iterations + 2  # GMRES is optimal; MINRES's short recurrence
    np.testing.assert_allclose(info.residual_history[:20], g.residual_history[:20], rtol=1e-6)
    x, info = gs.minres(a, b, rtol=1e-10, maxiter=3000, M="jacobi")
    assert info == 0, info.message
    with pytest.raises(gs.InvalidArgument, match="symmetric positive definite"):
        gs.minres(a, b, M="ilu0")
    with pytest.raises(gs.InvalidArgument, match="symmetric positive definite"):
        gs.minres(sp.csr_array(a.real), b.real, M="ilu0", backend="cuda")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("backend", ["omp", "reference"])
def test_spmv(dtype, index_dtype, backend, rng):
    a = gs.generate.rmat(10, 8, seed=4, dtype=dtype, index_dtype=index_dtype)
    x = rng.standard_normal(a.shape[1]).astype(dtype)
    y = rng.standard_normal(a.shape[0]).astype(dtype)
    t = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(gs.spmv(a, x, backend=backend), a @ x, rtol=t, atol=t)
    np.testing.assert_allclose(gs.spmv(a, x, alpha=-2.0, beta=0.5, y=y, backend=backend), -2.0 * (a @ x) + 0.5 * y,
                               rtol=t, atol=t)


def test_spmv_bad_inputs():
    a = gs.generate.poisson2d(4)
    with pytest.raises(ValueError, match="length"):
        gs.spmv(a, np.ones(3))
    with pytest.raises(gs.InvalidArgument, match="backend"):
        gs.spmv(a, np.ones(16), backend="fpga")
    bad = a.copy()
    bad.indices[0] = 40
    with pytest.raises(gs.InvalidStructure):
        gs.spmv(bad, np.ones(16))


def test_matrix_free_operator_and_callable_preconditioner(rng):
    a = gs.generate.poisson2d(20)
    b = rng.standard_normal(a.shape[0])
    op = spla.aslinearoperator(a)  # matrix-free A, called back from C++
    x, info = gs.cg(op, b, rtol=1e-10)
    assert info == 0 and rel_residual(a, x, b) < 1e-8
    _, info_csr = gs.cg(a, b, rtol=1e-10)
    assert info.iterations == info_csr.iterations
    d = a.diagonal()
    x, info = gs.gmres(op, b, rtol=1e-10, M=lambda r: r / d)  # callable M
    assert info == 0 and rel_residual(a, x, b) < 1e-8
    ilu = spla.spilu(sp.csc_array(a))
    m = spla.LinearOperator(a.shape, ilu.solve)  # scipy's ILU as M for the CSR path
    x, info = gs.bicgstab(a, b, rtol=1e-10, M=m)
    assert info == 0 and rel_residual(a, x, b) < 1e-8


def test_callback_errors_propagate():
    a = gs.generate.poisson2d(5)

    def broken(r):
        raise RuntimeError("preconditioner exploded")

    with pytest.raises(RuntimeError, match="exploded"):
        gs.cg(a, np.ones(25), M=broken)
    with pytest.raises(gs.DimensionMismatch, match="returned 3 entries"):
        gs.cg(a, np.ones(25), M=lambda r: r[:3])
    with pytest.raises(ValueError, match="needs A as a sparse matrix"):
        gs.cg(spla.aslinearoperator(a), np.ones(25), M="ilu0")
    with pytest.raises(gs.DimensionMismatch, match="square"):
        gs.cg(spla.aslinearoperator(sp.csr_array((3, 4))), np.ones(3))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("method", list(SOLVERS) + ["minres"])
@pytest.mark.parametrize("precond", [None, "jacobi", "ic0"])
def test_cuda_backend_or_not_supported(method, precond, dtype, rng):
    a = gs.generate.poisson3d(12)
    b = rng.standard_normal(a.shape[0])
    if dtype == np.complex128:  # + an imaginary coupling of each row to the next: Hermitian positive definite
        a = sp.csr_array(a + 0.05j * sp.diags([-1.0, 1.0], [-1, 1], shape=a.shape))
        b = b + 1j * rng.standard_normal(a.shape[0])
    solver = {**SOLVERS, "minres": gs.minres}[method]
    with pytest.raises(ValueError, match="as a name"):
        solver(a, b, backend="cuda", M=gs.jacobi(a))
    if gs.cuda_device_count() == 0:
        with pytest.raises(gs.NotSupported, match="needs a CUDA device"):
            solver(a, b, backend="cuda", M=precond)
        return
    x, info = solver(a, b, backend="cuda", M=precond, rtol=1e-10)
    assert info == 0, info.message
    assert x.dtype == dtype
    assert rel_residual(a, x, b) < 1e-9
    if dtype == np.complex128:  # single precision too
        x32, info32 = solver(a.astype(np.complex64), b.astype(np.complex64), backend="cuda", M=precond, rtol=1e-5)
        assert info32 == 0 and x32.dtype == np.complex64, info32.message
    xh, infoh = solver(a, b, M=precond, rtol=1e-10, ordering="mc" if precond == "ic0" else None)
    assert abs(info.iterations - infoh.iterations) <= 2 + infoh.iterations // 10
    assert info.gpu["spmv_calls"] >= info.iterations
    assert (info.gpu["sweep_levels"] > 0) == (precond == "ic0")
    if method not in ("gmres", "fgmres"):
        assert info.gpu["graph_launches"] == -(-info.iterations // 8)  # every batch of check_every = 8 one CUDA graph
    else:  # a cycle's steps in batches of 8, each one graph launch; restart 5 gives the cycles' residuals
        assert info.gpu["graph_launches"] >= -(-info.iterations // 8)
        x5, info5 = solver(a, b, backend="cuda", M=precond, rtol=1e-10, restart=5)
        assert info5 == 0, info5.message
        assert rel_residual(a, x5, b) < 1e-9
        assert info5.gpu["spmv_calls"] >= info5.iterations + 1 + (info5.iterations - 1) // 5
