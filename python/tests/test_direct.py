"""DirectSolver and its shortcuts against scipy.sparse.linalg on generated and shared SPD matrices."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import gigasparse as gs
from conftest import shared_matrix, small_shared


def rel_residual(a, x, b):
    return np.linalg.norm(b - a @ x) / np.linalg.norm(b)


@pytest.mark.parametrize("ordering", ["auto", "amd", "nd", "natural"])
def test_poisson_matches_scipy(ordering, rng):
    a = gs.generate.poisson2d(25)
    b = rng.standard_normal(a.shape[0])
    solver = gs.DirectSolver(a, "spd", ordering=ordering)
    x = solver.solve(b)
    np.testing.assert_allclose(x, spla.spsolve(sp.csc_array(a), b), rtol=1e-10, atol=1e-12)
    assert solver.status == "success"
    assert solver.last_solve["backward_error"] < 1e-14
    assert solver.nnz_L >= (a.nnz + a.shape[0]) // 2  # at least the lower triangle
    assert solver.flops > 0 and solver.supernodes > 0 and solver.levels > 0 and solver.memory_estimate > 0
    assert solver.inertia == (a.shape[0], 0, 0)
    if ordering != "auto":
        assert solver.ordering == ordering
    assert sorted(solver.perm) == list(range(a.shape[0]))


def test_factor_reproduces_matrix():
    a = gs.generate.poisson3d(5)
    solver = gs.DirectSolver(a, "spd")
    assert solver.factorize() == "success"
    l = solver.factor_L().toarray()
    p = solver.perm
    pa = a.toarray()[np.ix_(p, p)]
    np.testing.assert_allclose(l @ l.T, pa, atol=1e-12)
    assert solver.factor_L().nnz == solver.nnz_L + solver.stats()["explicit_zeros"]  # amalgamation zeros kept


@pytest.mark.parametrize("name", small_shared("spd", 25000)[:4] or ["bcsstk08"])
def test_shared_spd(name, rng):
    a = gs.read_mtx(shared_matrix(name))
    b = rng.standard_normal(a.shape[0])
    x = gs.DirectSolver(a).solve(b)
    ref = spla.spsolve(sp.csc_array(a), b)
    assert rel_residual(a, x, b) < 1e-8
    np.testing.assert_allclose(a @ x, a @ ref, rtol=1e-6, atol=1e-8 * np.abs(b).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_dtypes_and_multiple_rhs(dtype, index_dtype, rng):
    a = gs.generate.poisson2d(12, dtype=dtype, index_dtype=index_dtype)
    structure = "hpd" if np.dtype(dtype).kind == "c" else "spd"
    b = rng.standard_normal((a.shape[0], 3)).astype(dtype)
    x = gs.DirectSolver(a, structure).solve(b)
    assert x.shape == b.shape and x.dtype == dtype
    ref = spla.spsolve(sp.csc_array(a.astype(np.complex128)), b.astype(np.complex128))
    np.testing.assert_allclose(x, ref, rtol=1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10,
                               atol=1e-5)


def test_hermitian_complex(rng):
    n = 40
    m = sp.random_array((n, n), density=0.1, rng=rng) * (1 + 1j)
    a = sp.csr_array(m @ m.conj().T + 10 * sp.eye_array(n))
    b = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    x = gs.DirectSolver(a, "hpd").solve(b)
    assert rel_residual(a, x, b) < 1e-12


def test_refactorize_same_pattern(rng):
    a = gs.generate.poisson2d(15)
    b = rng.standard_normal(a.shape[0])
    solver = gs.DirectSolver(a, "spd")
    solver.factorize()
    a2 = a.copy()
    a2.data = a.data * 3.0
    assert solver.refactorize(a2) == "success"
    np.testing.assert_allclose(solver.solve(b), spla.spsolve(sp.csc_array(a2), b), rtol=1e-10)
    assert solver.refactorize(a.data * 2.0) == "success"
    np.testing.assert_allclose(solver(b), spla.spsolve(sp.csc_array(a * 2.0), b), rtol=1e-10)
    with pytest.raises(gs.InvalidArgument):
        solver.refactorize(gs.generate.poisson2d(15, points=9))
    with pytest.raises(gs.DimensionMismatch):
        solver.refactorize(np.ones(3))


def test_not_positive_definite_is_a_status():
    a = gs.generate.kkt(40, 10)  # indefinite
    solver = gs.DirectSolver(a, "spd")
    assert solver.factorize() == "not_positive_definite"
    assert solver.failing_column >= 0
    assert solver.inertia is None
    with pytest.raises(np.linalg.LinAlgError, match="not_positive_definite"):
        solver.solve(np.ones(50))
    with pytest.raises(np.linalg.LinAlgError):
        gs.cholesky(a)


def test_shortcuts(rng):
    a = gs.generate.poisson2d(10)
    b = rng.standard_normal(100)
    ref = spla.spsolve(sp.csc_array(a), b)
    np.testing.assert_allclose(gs.factorized(a)(b), ref, rtol=1e-10)
    np.testing.assert_allclose(gs.spsolve(a, b), ref, rtol=1e-10)
    np.testing.assert_allclose(gs.cholesky(a).solve(b), ref, rtol=1e-10)


@pytest.mark.parametrize("structure", ["sym", "herm", "gen"])
def test_every_structure_solves(structure, rng):
    a = gs.generate.convection_diffusion(8, b=(5.0, 1.0)) if structure == "gen" else gs.generate.kkt(30, 10)
    if structure == "herm":
        a = a.astype(np.complex128)
    b = rng.standard_normal(a.shape[0])
    solver = gs.DirectSolver(a, structure)
    assert solver.nnz_L > 0 and solver.flops > 0  # the analysis works for every structure
    x = solver.solve(b)
    np.testing.assert_allclose(x, spla.spsolve(sp.csc_array(a), b), rtol=1e-8)


def test_splu_shortcut(rng):
    a = gs.generate.convection_diffusion(8, b=(5.0, 1.0))
    b = rng.standard_normal(a.shape[0])
    lu = gs.splu(a)
    np.testing.assert_allclose(lu.solve(b), spla.spsolve(sp.csc_array(a), b), rtol=1e-8)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_splu_reconstructs_with_matching(dtype, rng):
    # Zero diagonal and a random permutation carrying the large entries: the matching has to move rows.
    n = 150
    m = sp.random_array((n, n), density=0.03, random_state=np.random.default_rng(2))
    perm = rng.permutation(n)
    big = sp.csr_array((3.0 + rng.random(n), (np.arange(n), perm)), shape=(n, n))
    a = sp.csr_array((m + big).astype(dtype))
    a.setdiag(0)
    a.eliminate_zeros()
    lu = gs.splu(a, pivot_perturbation=0)
    p, q = lu.row_perm, lu.factor_perm
    dr, dc = lu.row_scaling, lu.scaling
    scaled = (dr[:, None] * a.toarray() * dc[None, :])[np.ix_(p, q)]
    np.testing.assert_allclose(lu.factor_L().toarray() @ lu.factor_U().toarray(), scaled, atol=1e-12)
    assert lu.pivot_stats == {"perturbed": 0, "delayed": 0, "delay_rounds": 0, "unmatched": 0}
    b = rng.standard_normal(n)
    np.testing.assert_allclose(a @ lu.solve(b), b, atol=1e-10)


def test_splu_delayed_pivots_solve_what_static_pivoting_cannot():
    # nnc1374: the fronts' own rows hold only zeros for some pivots; perturbed, the refinement stalls (said by an
    # AccuracyWarning); delayed into ancestor fronts, no pivot is perturbed and the solve is accurate.
    a = gs.read_mtx(shared_matrix("nnc1374"))
    b = a @ np.ones(a.shape[0])
    static = gs.splu(a, delayed_pivots=0)
    assert static.pivot_stats["perturbed"] > 0 and static.pivot_stats["delayed"] == 0
    with pytest.warns(gs.AccuracyWarning):
        static.solve(b)
    lu = gs.splu(a)
    assert lu.pivot_stats["perturbed"] == 0 and lu.pivot_stats["delayed"] > 0 and lu.pivot_stats["delay_rounds"] > 0
    x = lu.solve(b)
    assert lu.last_solve["backward_error"] < 1e-14
    assert np.abs(a @ x - b).max() < 1e-12 * np.abs(b).max()


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_splu_solves_transposed_systems_like_scipy(dtype, rng):
    # The matching has to move rows (zero diagonal): the transposed sweeps undo it and the pivoting.
    n = 150
    m = sp.random_array((n, n), density=0.03, random_state=np.random.default_rng(3))
    big = sp.csr_array((3.0 + rng.random(n), (np.arange(n), rng.permutation(n))), shape=(n, n))
    a = sp.csr_array((m + big).astype(dtype))
    if dtype == np.complex128:
        a = sp.csr_array(a + 0.5j * sp.random_array((n, n), density=0.02, random_state=np.random.default_rng(4)))
    a.setdiag(0)
    a.eliminate_zeros()
    b = (rng.standard_normal((n, 2)) + (1j * rng.standard_normal((n, 2)) if dtype == np.complex128 else 0)).astype(dtype)
    lu = gs.splu(a)
    ref = spla.splu(sp.csc_array(a))
    d = a.toarray()
    for trans, op in (("N", d), ("T", d.T), ("H", d.conj().T)):
        x = lu.solve(b, trans=trans)
        np.testing.assert_allclose(op @ x, b, atol=1e-11)
        np.testing.assert_allclose(x, ref.solve(b, trans=trans), rtol=1e-9, atol=1e-12)
        assert lu.last_solve["backward_error"] < 1e-15
    with pytest.raises(ValueError):
        lu.solve(b, trans="X")


@pytest.mark.parametrize("structure,dtype", [("spd", np.float64), ("sym", np.float64), ("herm", np.complex128),
                                             ("gen", np.float64), ("gen", np.complex128)])
def test_condest_matches_numpy_cond(structure, dtype):
    a = structured_example(structure, dtype, 7, 12, (60, 20))
    s = gs.DirectSolver(a, structure)
    exact = np.linalg.cond(a.toarray(), 1)
    est = s.condest()
    assert exact / 10 <= est <= exact * (1 + 1e-8)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_selected_inverse_and_inverse_diagonal(dtype, rng):
    a = sp.csr_array(gs.generate.poisson2d(15).astype(dtype))
    if dtype == np.complex128:  # Hermitian positive definite
        off = sp.triu(a, 1) * (0.9 + 0.3j)  # |0.9 + 0.3i| < 1: still diagonally dominant
        a = sp.csr_array(sp.diags_array(a.diagonal()) + off + off.conj().T)
    s = gs.DirectSolver(a, "hpd" if dtype == np.complex128 else "spd")
    inv = np.linalg.inv(a.toarray())
    np.testing.assert_allclose(s.inverse_diagonal(), np.diag(inv), rtol=1e-12)
    z = s.selected_inverse()
    assert z.shape == a.shape and z.nnz >= a.nnz
    rows, cols = z.nonzero()
    np.testing.assert_allclose(z.toarray()[rows, cols], inv[rows, cols], atol=1e-12)
    b = sp.csr_array(a.copy())  # trace(A⁻¹ B) for B with A's pattern, without A⁻¹
    assert np.isclose(z.multiply(b.T).sum(), np.trace(inv @ b.toarray()))
    k = gs.generate.kkt(30, 10)  # symmetric indefinite: LDLᵀ with pivoting
    np.testing.assert_allclose(gs.DirectSolver(k, "sym").inverse_diagonal(), np.diag(np.linalg.inv(k.toarray())),
                               rtol=1e-10, atol=1e-12)
    g = sp.csr_array(gs.generate.convection_diffusion(6, b=(5.0, 1.0)))  # LU
    g = sp.csr_array(g[rng.permutation(g.shape[0])])  # rows shuffled: zero diagonals, the matching undoes it
    ginv = np.linalg.inv(g.toarray())
    sg = gs.DirectSolver(g, "gen")
    np.testing.assert_allclose(sg.inverse_diagonal(), np.diag(ginv), rtol=1e-10, atol=1e-13)
    zg = sg.selected_inverse()
    rows, cols = zg.nonzero()
    np.testing.assert_allclose(zg.toarray()[rows, cols], ginv[rows, cols], rtol=1e-10, atol=1e-13)
    assert set(zip(*g.T.nonzero())) <= set(zip(rows, cols))  # Aᵀ's pattern is inside


def test_inaccurate_solve_warns():
    # diag(0.005, 1) with the first pivot perturbed to 0.01 and no refinement: backward error ~0.3.
    a = sp.csr_array(sp.diags_array([0.005, 1.0]))
    s = gs.DirectSolver(a, "gen", matching=0, pivot_perturbation=0.01, refinement_steps=0)
    with pytest.warns(gs.AccuracyWarning, match="backward error"):
        s.solve(np.ones(2))
    assert s.last_solve["status"] == "not_converged"
    s = gs.DirectSolver(a, "gen", matching=0, pivot_perturbation=0.01, refinement_steps=80)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(s.solve(np.ones(2)), [200.0, 1.0])
    assert s.last_solve["status"] == "success"


def test_transposed_solves_of_symmetric_structures(rng):
    a = sp.csr_array(gs.generate.kkt(60, 20).astype(np.complex128))
    a = sp.csr_array(a + 0.3j * sp.diags_array(rng.random(a.shape[0])))  # complex symmetric, not Hermitian
    s = gs.DirectSolver(a, "sym")
    b = rng.standard_normal(a.shape[0]) + 1j * rng.standard_normal(a.shape[0])
    d = a.toarray()
    np.testing.assert_array_equal(s.solve(b, trans="T"), s.solve(b))  # Aᵀ = A
    np.testing.assert_allclose(d.conj().T @ s.solve(b, trans="H"), b, atol=1e-10)
    batch = gs.BatchDirectSolver(sp.csr_array(gs.generate.convection_diffusion(6, b=(5.0, 1.0))), "gen")
    mats = [batch_m for batch_m in [sp.csr_array(gs.generate.convection_diffusion(6, b=(5.0, 1.0)))] * 2]
    batch.factorize(mats)
    bb = rng.standard_normal((2, mats[0].shape[0]))
    xb = batch.solve(bb, trans="T")
    for t in range(2):
        np.testing.assert_allclose(mats[t].toarray().T @ xb[t], bb[t], atol=1e-11)


def test_user_ordering_and_options(rng):
    a = gs.generate.poisson2d(8)
    perm = rng.permutation(64)
    solver = gs.DirectSolver(a, ordering=perm, refinement_steps=0, threads=1)
    b = rng.standard_normal(64)
    x = solver.solve(b)
    assert solver.ordering == "user"
    assert rel_residual(a, x, b) < 1e-12
    assert solver.last_solve["refinement_steps"] == 0
    st = solver.stats()
    assert st["n"] == 64 and st["status"] == "success"


def test_bad_inputs():
    a = gs.generate.poisson2d(4)
    with pytest.raises(gs.DimensionMismatch, match="square"):
        gs.DirectSolver(sp.csr_array((3, 4)))
    with pytest.raises(ValueError, match="structure"):
        gs.DirectSolver(a, "triangular")
    with pytest.raises(gs.InvalidArgument, match="ordering"):
        gs.DirectSolver(a, ordering="best")
    with pytest.raises(gs.InvalidArgument, match="unknown option"):
        gs.DirectSolver(a, magic=1)
    with pytest.raises(gs.InvalidArgument):
        gs.DirectSolver(a, ordering=np.zeros(16, dtype=int)).analyze()  # not a permutation
    solver = gs.DirectSolver(a)
    with pytest.raises(ValueError, match="shape"):
        solver.solve(np.ones(5))
    with pytest.raises(TypeError, match="complex"):
        solver.solve(np.ones(16) * 1j)
    with pytest.raises(gs.InvalidArgument, match="NaN"):
        solver.solve(np.full(16, np.nan))
    bad = a.copy()
    bad.data[3] = np.nan
    with pytest.raises(gs.InvalidStructure):
        gs.DirectSolver(bad).factorize()
    with pytest.raises(gs.PhaseError):
        gs.DirectSolver(a).refactorize(a.data)


@pytest.mark.parametrize("view, part", [("lower", sp.tril), ("upper", sp.triu)])
def test_one_triangle_views(view, part, rng):
    a = gs.generate.poisson2d(12)
    b = rng.standard_normal(a.shape[0])
    x = gs.DirectSolver(sp.csr_array(part(a)), "spd", view=view).solve(b)
    assert rel_residual(a, x, b) < 1e-12


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_reference_backend_matches_multifrontal(dtype, rng):
    a = gs.generate.poisson3d(8, dtype=dtype)
    structure = "hpd" if np.dtype(dtype).kind == "c" else "spd"
    b = rng.standard_normal(a.shape[0]).astype(dtype)
    fast = gs.DirectSolver(a, structure)
    ref = gs.DirectSolver(a, structure, backend="reference")
    assert ref.factorize() == "success" and fast.factorize() == "success"
    l_fast, l_ref = fast.factor_L(), ref.factor_L()
    assert abs(l_fast - l_ref).max() <= 1e-13 * abs(l_fast).max()
    np.testing.assert_allclose(ref.solve(b), fast.solve(b), rtol=1e-12, atol=1e-14)


def test_reference_backend_reports_the_same_failing_column():
    a = gs.generate.kkt(40, 10)  # indefinite
    fast, ref = gs.DirectSolver(a, "spd"), gs.DirectSolver(a, "spd", backend="reference")
    assert fast.factorize() == ref.factorize() == "not_positive_definite"
    assert fast.failing_column == ref.failing_column >= 0
    with pytest.raises(gs.InvalidArgument):
        gs.DirectSolver(a, "spd", backend="gpu-of-the-future")


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_ldl_reconstructs_and_counts_inertia(dtype, rng):
    # Symmetric (Hermitian) indefinite with exact zeros on part of the diagonal: pairs and 2×2 pivots.
    n = 120
    m = sp.random_array((n, n), density=0.04, random_state=np.random.default_rng(4), dtype=np.float64)
    if dtype == np.complex128:
        m = m + 1j * sp.random_array((n, n), density=0.04, random_state=np.random.default_rng(5))
    a = m + m.conj().T
    d = rng.uniform(-1, 1, n)
    d[::5] = 0.0
    a = sp.csr_array(a + sp.diags_array(d))
    solver = gs.ldl(a, pivot_perturbation=0)
    assert solver.structure == ("hermitian" if dtype == np.complex128 else "symmetric")
    q, s = solver.factor_perm, solver.scaling
    dense = a.toarray() * np.outer(s, s)
    l, dd = solver.factor_L().toarray(), solver.factor_D().toarray()
    np.testing.assert_allclose(l @ dd @ l.conj().T, dense[np.ix_(q, q)], atol=1e-10 * np.abs(dense).max())
    w = np.linalg.eigvalsh(a.toarray())
    assert solver.inertia == (int((w > 0).sum()), int((w < 0).sum()), 0)
    assert solver.pivot_stats["perturbed"] == 0 and solver.pivot_stats["pairs"] > 0
    b = rng.standard_normal(n)
    np.testing.assert_allclose(a @ solver.solve(b), b, atol=1e-9)


def test_ldl_complex_symmetric_and_kkt(rng):
    kkt = gs.generate.kkt(200, 60)
    solver = gs.DirectSolver(kkt, "sym")
    b = rng.standard_normal(260)
    np.testing.assert_allclose(solver.solve(b), spla.spsolve(sp.csc_array(kkt), b), rtol=1e-8)
    assert solver.inertia == (200, 60, 0)
    # Complex symmetric (A = Aᵀ, not Hermitian): no inertia, but the solve.
    c = sp.csr_array(kkt.astype(np.complex128) + 0.5j * sp.eye_array(260))
    cs = gs.ldl(c, hermitian=False)
    assert cs.inertia is None
    np.testing.assert_allclose(c @ cs.solve(b), b, atol=1e-9)


def structured_example(structure, dtype, k_convdiff, k_poisson, kkt_sizes):
    """A test matrix for a structure: convection–diffusion (gen), 2D Poisson (spd) or KKT (sym, herm)."""
    if structure == "gen":
        a = gs.generate.convection_diffusion(k_convdiff, b=(5.0, 1.0))
    elif structure == "spd":
        a = gs.generate.poisson2d(k_poisson)
    else:
        a = gs.generate.kkt(*kkt_sizes)
    return sp.csr_array(a.astype(dtype))


def dense_schur(a, schur):
    """S = A22 - A21 A11⁻¹ A12 with NumPy, rows and columns in the order of `schur`."""
    d = a.toarray()
    interior = np.setdiff1d(np.arange(d.shape[0]), schur)
    a11, a12 = d[np.ix_(interior, interior)], d[np.ix_(interior, schur)]
    a21, a22 = d[np.ix_(schur, interior)], d[np.ix_(schur, schur)]
    return a22 - a21 @ np.linalg.solve(a11, a12), interior


@pytest.mark.parametrize("structure,dtype", [("spd", np.float64), ("sym", np.float64), ("herm", np.complex128),
                                             ("gen", np.float64), ("gen", np.complex64)])
def test_schur_complement_and_partial_solves(structure, dtype, rng):
    a = structured_example(structure, dtype, 9, 12, (90, 30))
    n = a.shape[0]
    schur = rng.choice(n, size=17, replace=False)
    solver = gs.DirectSolver(a, structure, schur=schur)
    S = solver.schur_complement()
    ref, interior = dense_schur(a, schur)
    assert S.shape == (17, 17) and S.dtype == dtype
    tol = 1e-4 if dtype == np.complex64 else 1e-10
    np.testing.assert_allclose(S, ref, rtol=tol, atol=tol * np.abs(ref).max())
    b = rng.standard_normal((n, 2)).astype(dtype)
    c = solver.schur_condense(b)
    d = a.toarray()
    c_ref = b[schur] - d[np.ix_(schur, interior)] @ np.linalg.solve(d[np.ix_(interior, interior)], b[interior])
    np.testing.assert_allclose(c, c_ref, rtol=tol, atol=tol * np.abs(c_ref).max())
    x2 = np.linalg.solve(S, c)
    x = solver.schur_expand(b, x2)
    np.testing.assert_allclose(x, np.linalg.solve(d, b), rtol=100 * tol, atol=100 * tol * np.abs(x).max())
    x_full = solver.solve(b[:, 0])  # solve still solves with A
    assert rel_residual(a, x_full, b[:, 0]) < (1e-5 if dtype == np.complex64 else 1e-12)


def test_schur_errors(rng):
    a = gs.generate.poisson2d(6)
    with pytest.raises(gs.InvalidArgument):
        gs.DirectSolver(a, schur=[0, 0]).factorize()
    with pytest.raises(gs.InvalidArgument):
        gs.DirectSolver(a, schur=[36]).factorize()
    with pytest.raises(TypeError):
        gs.DirectSolver(a, schur=[0.5])
    with pytest.raises(gs.PhaseError):
        gs.DirectSolver(a).schur_complement()
    s = gs.DirectSolver(a, schur=[3, 4])
    assert s.factorize() == "success"
    with pytest.raises(ValueError):
        s.schur_expand(np.ones(36), np.ones(3))
    with pytest.raises(gs.NotSupported):
        s.factor_L()


@pytest.mark.parametrize("structure,dtype", [("spd", np.float64), ("sym", np.float32), ("herm", np.complex128),
                                             ("gen", np.float64)])
def test_batch_solver_matches_lone_solvers(structure, dtype, rng):
    a = structured_example(structure, dtype, 7, 15, (60, 20))
    mats = []
    for t in range(6):
        m = a.copy()
        off = m.indices != np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
        m.data[off] *= (0.6 + 0.05 * t)
        mats.append(m)
    batch = gs.BatchDirectSolver(a, structure, threads=2)
    assert batch.factorize(mats) == ["success"] * 6
    assert batch.side_by_side  # small matrices: one per thread
    b = rng.standard_normal((6, a.shape[0], 2)).astype(dtype)
    x = batch.solve(b)
    assert x.shape == b.shape
    tol = 1e-4 if dtype == np.float32 else 1e-11
    for t, m in enumerate(mats):
        np.testing.assert_allclose(x[t], np.linalg.solve(m.toarray(), b[t]), rtol=tol, atol=tol * np.abs(x[t]).max())
        lone = gs.DirectSolver(m, structure)
        np.testing.assert_array_equal(lone.solve(b[t][:, 0]), batch.solve(b[:, :, 0])[t])  # bitwise the lone solver's
    assert len(batch.last_solve) == 6 and all(i["status"] == "success" for i in batch.last_solve)
    values = np.stack([m.data for m in mats])  # the same batch as an array of values
    assert batch.factorize(values) == ["success"] * 6
    np.testing.assert_array_equal(batch.solve(b), x)


def test_batch_solver_errors():
    a = gs.generate.poisson2d(5)
    batch = gs.BatchDirectSolver(a)
    with pytest.raises(gs.PhaseError):
        batch.solve(np.ones((1, 25)))
    with pytest.raises(ValueError):
        batch.factorize(np.ones((2, a.nnz + 1)))
    with pytest.raises(gs.InvalidArgument):
        batch.factorize([gs.generate.poisson2d(6)])
    neg = a.copy()
    neg.data = -neg.data
    assert batch.factorize([a, neg]) == ["success", "not_positive_definite"]
    with pytest.raises(np.linalg.LinAlgError):
        batch.solve(np.ones((2, 25)))
    assert batch.factorize([a, a]) == ["success", "success"]
    with pytest.raises(ValueError):
        batch.solve(np.ones((3, 25)))


@pytest.mark.parametrize("structure,dtype", [("spd", np.float64), ("sym", np.float64), ("herm", np.complex128),
                                             ("gen", np.float64), ("gen", np.complex128), ("sym", np.complex128)])
def test_slogdet_matches_numpy(structure, dtype):
    a = structured_example(structure, dtype, 6, 9, (50, 20))
    if structure == "sym" and dtype == np.complex128:  # complex symmetric A = Aᵀ
        a = sp.csr_array(sp.tril(a) + sp.tril(a, -1).T * (1 + 0.5j) + sp.triu(a, 1) * 0)
        a = sp.csr_array((a + a.T) / 2)
    sign, logabs = gs.DirectSolver(a, structure).slogdet()
    ref_sign, ref_log = np.linalg.slogdet(a.toarray())
    assert abs(logabs - ref_log) <= 1e-10 * max(1.0, abs(ref_log))
    assert abs(sign - ref_sign) <= 1e-10
    with_schur = gs.DirectSolver(a, structure, schur=[0, 3, a.shape[0] - 1]).slogdet()
    assert abs(with_schur[1] - ref_log) <= 1e-10 * max(1.0, abs(ref_log))
    assert abs(with_schur[0] - ref_sign) <= 1e-10


@pytest.mark.parametrize("structure,dtype", [("spd", np.float64), ("gen", np.float64), ("gen", np.complex128),
                                             ("herm", np.complex128)])
def test_single_precision_factor_refines_to_double_accuracy(structure, dtype, rng):
    a = gs.generate.convection_diffusion(12, nz=10, b=(30.0, -20.0, 5.0)) if structure == "gen" else gs.generate.poisson3d(10)
    a = sp.csr_array(a, dtype=dtype)
    if structure == "herm":  # Hermitian indefinite: shifted Laplacian plus i times a skew-symmetric part
        low = sp.tril(a, -1)
        a = sp.csr_array(a - 2.0 * sp.eye(a.shape[0]) + 0.3j * (low - low.T))
    elif dtype == np.complex128:
        a = a + 0.3j * sp.csr_array(a.T)
    b = rng.standard_normal(a.shape[0]).astype(dtype)
    full = gs.DirectSolver(a, structure)
    single = gs.DirectSolver(a, structure, factor_precision="single")
    xf, xs = full.solve(b), single.solve(b)
    assert single.factor_precision == "single" and full.factor_precision == "full"
    assert single.stats()["single_factor"] == 1 and full.stats()["single_factor"] == 0
    assert 2 * single.factor_bytes == full.factor_bytes
    assert single.last_solve["status"] == "success"
    assert single.last_solve["refinement_steps"] >= 1
    assert single.last_solve["backward_error"] < 1e-15
    np.testing.assert_allclose(xs, xf, rtol=1e-10, atol=1e-12 * np.abs(xf).max())
    # no refinement: float accuracy (the factor really is single precision)
    raw = gs.DirectSolver(a, structure, factor_precision="single", refinement_steps=0)
    raw.solve(b)
    assert 1e-12 < raw.last_solve["backward_error"] < 1e-4


def test_single_precision_factor_falls_back_and_refuses():
    # values beyond float's range: factored in full precision, still accurate
    a = sp.csr_array(gs.generate.poisson2d(20)) * 1e35
    s = gs.DirectSolver(a, "spd", factor_precision="single")
    x = s.solve(np.ones(a.shape[0]))
    assert s.factor_precision == "full"
    assert np.linalg.norm(a @ x - 1) / np.linalg.norm(np.ones(a.shape[0])) < 1e-13
    s2 = gs.DirectSolver(sp.csr_array(gs.generate.poisson2d(20)), "spd", factor_precision="single")
    s2.factorize()
    with pytest.raises(gs.NotSupported):
        s2.inverse_diagonal()
    with pytest.raises(gs.InvalidArgument):
        gs.DirectSolver(a, "spd", factor_precision="half")


def test_cuda_backend_or_not_supported(rng):
    a = gs.generate.poisson3d(16)
    b = rng.standard_normal(a.shape[0])
    with pytest.raises(gs.NotSupported, match="complex values run on backend 'cpu'"):
        gs.DirectSolver(a.astype(np.complex128), "hpd", backend="cuda").factorize()
    with pytest.raises(gs.InvalidArgument, match="gpu_assembly"):
        gs.DirectSolver(a, "spd", backend="cuda", gpu_assembly="gpu")
    s = gs.DirectSolver(a, "spd", backend="cuda", gpu_front_rows=64)
    if gs.cuda_device_count() == 0:
        with pytest.raises(gs.NotSupported, match="backend cuda"):
            s.factorize()
        return
    assert s.factorize() == "success"
    x = s.solve(b)
    assert rel_residual(a, x, b) < 1e-12
    g = s.stats()["gpu"]
    assert g["fronts"] > 0 and g["flops"] > 0 and g["bytes"] > 0
    assert g["device_assembled"] > 0 and g["too_large"] == 0
    # every front assembled on the host instead: the same solution, more bytes up
    sh = gs.DirectSolver(a, "spd", backend="cuda", gpu_front_rows=64, gpu_assembly="host")
    assert sh.factorize() == "success"
    assert sh.stats()["gpu"]["device_assembled"] == 0
    assert sh.stats()["gpu"]["bytes"] >= g["bytes"]
    np.testing.assert_allclose(sh.solve(b), x, rtol=1e-10, atol=1e-12)
    # LDLᵀ of an indefinite matrix: the large fronts on the GPU in blocks of pivot columns
    ind = (a - 0.5 * sp.identity(a.shape[0], format="csr")).tocsr()
    si = gs.DirectSolver(ind, "sym", backend="cuda", gpu_front_rows=64)
    assert si.factorize() == "success"
    assert rel_residual(ind, si.solve(b), b) < 1e-11
    assert si.stats()["gpu"]["fronts"] > 0
    # LU of an unsymmetric matrix
    un = (a + sp.triu(a, 1) * 0.5).tocsr()
    su = gs.DirectSolver(un, "gen", backend="cuda", gpu_front_rows=64)
    assert su.factorize() == "success"
    assert rel_residual(un, su.solve(b), b) < 1e-11
    assert su.stats()["gpu"]["fronts"] > 0

