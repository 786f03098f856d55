"""spgemm and SpgemmPlan against scipy on generated and shared matrices, every backend and code path."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gigasparse as gs
from conftest import assert_sparse_close, shared_matrix, small_shared, tol


def rand(m, n, density, dtype=np.float64, seed=0):
    return sp.random_array((m, n), density=density, format="csr", dtype=dtype, rng=np.random.default_rng(seed))


@pytest.mark.parametrize("backend", ["auto", "cpu", "reference"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_random(backend, dtype, index_dtype):
    a, b = rand(80, 120, 0.05, dtype, 1), rand(120, 60, 0.05, dtype, 2)
    for m in (a, b):
        m.indices, m.indptr = m.indices.astype(index_dtype), m.indptr.astype(index_dtype)
    c = gs.spgemm(a, b, backend=backend)
    assert isinstance(c, sp.csr_array) and c.dtype == dtype and c.has_canonical_format
    assert_sparse_close(c, a @ b, tol(dtype))


@pytest.mark.parametrize("threads", [1, 2])
def test_fused_small_product(threads):
    """Small products take the fused one-pass path (no symbolic phase) unless fused_products forbids it."""
    a = gs.generate.poisson2d(40)  # 1600 rows, 5 entries each: 40,000 products
    c, stats = gs.spgemm(a, a, backend="cpu", return_stats=True, threads=threads, serial_products=0)
    assert stats["fused"] and stats["symbolic_seconds"] == 0 and stats["threads"] == threads
    assert_sparse_close(c, a @ a, 1e-12)
    c2, stats2 = gs.spgemm(a, a, backend="cpu", return_stats=True, threads=threads, fused_products=0)
    assert not stats2["fused"] and stats2["products"] == stats["products"]
    assert_sparse_close(c2, a @ a, 1e-12)


@pytest.mark.parametrize("category", ["sort", "dense", "fine", "coarse"])
def test_every_category_path(category):
    a = gs.generate.rmat(11, 8, seed=3)
    opts = {"force_category": category, "fine_chunk_cols": 64}
    if category == "coarse":
        opts["coarse_chunk_cols"] = 512
    c, stats = gs.spgemm(a, a, backend="cpu", return_stats=True, **opts)
    assert_sparse_close(c, a @ a, 0)
    assert stats["category_rows"][category] > 0
    assert stats["nnz_c"] == c.nnz and stats["flops"] == 2 * stats["products"]


@pytest.mark.parametrize("accumulator", ["window", "bitmap", "spa", "esc"])
def test_accumulator_options(accumulator):
    """The accumulators inside the sort and dense categories, chosen through the options by name."""
    a = gs.generate.poisson2d(60)  # banded: narrow dense rows and short sort rows
    opts = {"serial_products": 0}  # two threads even for this small product
    if accumulator in ("window", "bitmap"):
        opts.update(force_category="dense", window_max_fill=1 << 20 if accumulator == "window" else 0)
    else:
        opts.update(force_category="sort", spa_threshold=1 << 20, spa_max_cols=-1 if accumulator == "spa" else 0)
    c, stats = gs.spgemm(a, a, backend="cpu", return_stats=True, **opts)
    assert_sparse_close(c, a @ a, 1e-12)
    key = "window_rows" if accumulator in ("window", "bitmap") else "spa_rows"
    if accumulator in ("window", "spa"):
        assert stats[key] == a.shape[0], stats
    else:
        assert stats[key] == 0, stats
    assert stats["workspace_bytes"] > 0 and stats["plan_bytes"] > 0


@pytest.mark.parametrize("name", small_shared("graph", 60000)[:4] or ["Erdos971"])
def test_shared_graphs_square(name):
    a = gs.read_mtx(shared_matrix(name))
    assert_sparse_close(gs.spgemm(a, a), a @ a, 1e-14)


@pytest.mark.parametrize("name", (small_shared("unsym", 20000)[:2] or ["west0479"]))
def test_shared_unsym_times_transpose(name):
    a = gs.read_mtx(shared_matrix(name))
    at = sp.csr_array(a.T)
    assert_sparse_close(gs.spgemm(a, at), a @ at, 1e-13)


def test_plan_reuse_with_new_values():
    a = gs.generate.poisson3d(8)
    b = gs.generate.erdos_renyi(512, 300, 4, seed=1)
    plan = gs.SpgemmPlan(a, b)
    assert plan.nnz == (a @ b).nnz
    c1 = plan.numeric(a, b)
    assert_sparse_close(c1, a @ b, 1e-14)
    a2 = a.copy()
    a2.data = np.random.default_rng(0).standard_normal(a.nnz)
    c2 = plan(a2, b)
    assert_sparse_close(c2, a2 @ b, 1e-13)
    st = plan.stats
    assert st["backend"] == "cpu" and st["symbolic_seconds"] >= 0
    assert "nnz=" in repr(plan)


def test_plan_errors():
    a = gs.generate.poisson2d(6)
    plan = gs.SpgemmPlan()
    with pytest.raises(gs.PhaseError):
        plan.numeric(a, a)
    with pytest.raises(gs.PhaseError):
        plan.nnz
    plan.symbolic(a, a)
    other = gs.generate.poisson2d(6, points=9)  # same shape, different pattern
    with pytest.raises(gs.Error):
        plan.numeric(other, other)
    with pytest.raises(gs.DimensionMismatch):
        plan.numeric(gs.generate.poisson2d(5), gs.generate.poisson2d(5))
    with pytest.raises(gs.Error):
        plan.numeric(a.astype(np.float32), a.astype(np.float32))  # other types than planned


def test_mixed_and_converted_inputs():
    a = gs.generate.poisson2d(5)
    b = sp.coo_array(gs.generate.poisson2d(5).astype(np.float32))
    c = gs.spgemm(a, b)  # float64 x float32 -> float64, COO converted
    assert c.dtype == np.float64
    assert_sparse_close(c, a @ b.tocsr(), 1e-14)
    ci = gs.spgemm(sp.csr_array(np.eye(3, dtype=np.int64)), np.ones((3, 2)))
    np.testing.assert_array_equal(ci.toarray(), np.ones((3, 2)))
    m = gs.spgemm(sp.csr_matrix(a), a)
    assert isinstance(m, sp.csr_matrix)
    w = a.copy()
    w.indices, w.indptr = w.indices.astype(np.int64), w.indptr.astype(np.int64)
    assert_sparse_close(gs.spgemm(a, w), a @ a, 0)  # int32 x int64 indices


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_products_on_the_cpu(dtype):
    # MAGNUS in complex arithmetic: every category (sort, dense, fine, coarse) against scipy
    a = sp.csr_array(rand(300, 400, 0.05, seed=4) * (1 + 2j) + rand(300, 400, 0.05, seed=5) * 0.5j).astype(dtype)
    b = sp.csr_array(rand(400, 250, 0.05, seed=6) * (2 - 1j)).astype(dtype)
    tol = 1e-5 if dtype == np.complex64 else 1e-13
    for category in (None, "sort", "dense", "fine", "coarse"):
        opts = {} if category is None else {"force_category": category, "fine_chunk_cols": 64, "coarse_chunk_cols": 128}
        c, stats = gs.spgemm(a, b, backend="cpu", return_stats=True, **opts)
        assert c.dtype == dtype
        assert_sparse_close(c, a @ b, tol)
        if category is not None:
            assert stats["category_rows"][category] == a.shape[0]
    assert_sparse_close(gs.spgemm(a, b), a @ b, tol)  # auto: the cpu backend (the GPU takes real values)
    plan = gs.SpgemmPlan(a, b, backend="cpu")
    assert_sparse_close(plan.numeric(a, b), a @ b, tol)
    a2 = a.copy()
    a2.data *= 1j
    assert_sparse_close(plan.numeric(a2, b), a2 @ b, tol)
    with pytest.raises(gs.NotSupported, match="real values"):
        gs.spgemm(a, b, backend="cuda")


def test_bad_inputs():
    a = gs.generate.poisson2d(4)
    with pytest.raises(ValueError, match="not aligned"):
        gs.spgemm(a, sp.csr_array((5, 5)))
    with pytest.raises(gs.InvalidArgument):
        gs.spgemm(a, a, backend="gpu9000")
    with pytest.raises(gs.InvalidArgument, match="unknown option"):
        gs.spgemm(a, a, tile_size=3)
    with pytest.raises(TypeError):
        gs.spgemm(a, [1, 2, 3])
    with pytest.raises(ValueError):
        gs.SpgemmPlan(a)
    bad = a.copy()
    bad.indices[3] = 99
    with pytest.raises(gs.InvalidStructure):
        gs.spgemm(bad, a, backend="cpu")


def test_empty_and_nan():
    z = sp.csr_array((0, 4))
    c = gs.spgemm(z, sp.csr_array((4, 3)))
    assert c.shape == (0, 3) and c.nnz == 0
    e = gs.spgemm(sp.csr_array((3, 4)), sp.csr_array((4, 5)))
    assert e.shape == (3, 5) and e.nnz == 0
    a = gs.generate.poisson2d(3)
    a.data[0] = np.nan  # IEEE semantics, like scipy: NaN propagates, no exception
    c = gs.spgemm(a, a)
    assert np.isnan(c.toarray()[0]).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cuda_backend_or_not_supported(dtype):
    a = gs.generate.rmat(10, 8, seed=2, dtype=dtype)
    b = rand(1024, 300, 0.01, dtype, 6)
    tuning = dict(time_phases=0, dense_light_rows=0, dense_wide_rows=0, warp_sort_steps=0, rank_sort=1, packed_tables=0, heavy_threshold=64,
                  dense_wide_windows=2, dense_wide_walk=1 << 20, dense_wide_walk_adaptive=0, small_products=0,
                  small_row_products=1024)  # known keywords
    if gs.cuda_device_count() == 0:
        with pytest.raises(gs.NotSupported, match="cuda"):
            gs.spgemm(a, b, backend="cuda")
        with pytest.raises(gs.NotSupported, match="cuda"):
            gs.spgemm(a, b, backend="cuda", **tuning)
        assert gs.cuda_cached_memory_bytes() == 0
        gs.cuda_release_memory()  # nothing to release
        return
    c, stats = gs.spgemm(a, b, backend="cuda", return_stats=True, shared_memory_bytes=8192, small_products=0)
    assert gs.cuda_cached_memory_bytes() > 0  # kept for the next product
    gs.cuda_release_memory()
    assert gs.cuda_cached_memory_bytes() == 0
    assert_sparse_close(c, a @ b, tol(dtype))
    assert stats["backend"] == "cuda"
    assert stats["gpu"]["heavy_rows"] + stats["gpu"]["light_rows"] == a.shape[0]
    assert 0 <= stats["gpu"]["wide_dense_rows"] <= stats["gpu"]["light_rows"]
    assert stats["gpu"]["wide_walk_cap"] >= 1 << 19  # the adaptive cap's floor
    assert not stats["gpu"]["small_product"]
    assert stats["gpu"]["total_ms"] > 0
    small, small_stats = gs.spgemm(b.T @ b, b.T, backend="cuda", return_stats=True)  # 300 rows of few products
    assert_sparse_close(small, (b.T @ b) @ b.T, tol(dtype))
    assert small_stats["gpu"]["small_product"] and small_stats["gpu"]["small_rows_back"] == 0
    assert small_stats["gpu"]["small_long_rows"] == 0
    c2, stats2 = gs.spgemm(a, b, backend="cuda", return_stats=True, **tuning)
    assert_sparse_close(c2, a @ b, tol(dtype))
    assert stats2["gpu"]["total_ms"] == 0  # no phase-time events
    assert stats2["gpu"]["tau"] == 64
    plan = gs.SpgemmPlan(a, b, backend="cuda")
    assert_sparse_close(plan.numeric(a, b), a @ b, tol(dtype))
    a2, b2 = a.copy(), b.copy()  # same patterns, new values: the plan's device-side pattern is reused
    a2.data[:] = 2 * a.data - 0.5
    b2.data[:] = -b.data
    assert_sparse_close(plan.numeric(a2, b2), a2 @ b2, tol(dtype))
    assert plan.stats()["gpu"]["numeric_ms"] > 0
