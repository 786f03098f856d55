"""read_mtx / write_mtx / mminfo against scipy.io on generated, shared and malformed files."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import gigasparse as gs
from conftest import MATRIX_DIR, assert_sparse_close, manifest, shared_matrix, small_shared


def scipy_read(path) -> sp.csr_array:
    return sp.csr_array(scipy.io.mmread(str(path)))


@pytest.mark.parametrize("name", small_shared(max_nnz=60000)[:12] or ["bcsstk08"])
def test_shared_matrix_matches_scipy(name):
    path = shared_matrix(name)
    a = gs.read_mtx(path)
    b = scipy_read(path)
    assert isinstance(a, sp.csr_array)
    assert a.has_sorted_indices
    assert_sparse_close(a, b.astype(a.dtype), 1e-15)
    info = gs.mminfo(path)
    ref = scipy.io.mminfo(str(path))
    assert (info.rows, info.cols, info.entries, info.format, info.field, info.symmetry) == ref


def test_manifest_shapes():
    rows = manifest()
    if not rows:
        pytest.skip(f"no MANIFEST.tsv in {MATRIX_DIR}")
    for r in rows[:8]:
        info = gs.mminfo(MATRIX_DIR / r["file"])
        assert (info.rows, info.cols, info.entries) == (int(r["rows"]), int(r["cols"]), int(r["nnz_stored"]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_roundtrip_dtypes(tmp_path, dtype, index_dtype):
    a = gs.generate.random_sparse(40, 30, 5, seed=3, dtype=dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * gs.generate.random_sparse(40, 30, 5, seed=4, dtype=dtype)
    path = tmp_path / "a.mtx"
    gs.write_mtx(path, a)
    b = gs.read_mtx(path, dtype=dtype, index_dtype=index_dtype)
    assert b.dtype == dtype and b.indices.dtype == index_dtype and b.indptr.dtype == index_dtype
    assert_sparse_close(b, a, 0)
    c = scipy_read(path)
    assert_sparse_close(c.astype(dtype), a, 0)


def test_write_symmetric_gz_and_scipy_reads_it(tmp_path):
    a = gs.generate.poisson2d(7)
    path = tmp_path / "p.mtx.gz"
    gs.write_mtx(path, a, symmetry="symmetric", comment="poisson 7x7")
    with gzip.open(path, "rt") as f:
        head = f.read(200)
    assert head.startswith("%%MatrixMarket matrix coordinate real symmetric")
    assert "poisson 7x7" in head
    assert gs.mminfo(path).entries == (a.nnz + a.shape[0]) // 2
    assert_sparse_close(gs.read_mtx(path), a, 0)
    assert_sparse_close(scipy_read(path), a, 0)


def test_pattern_and_other_formats(tmp_path):
    a = sp.random_array((20, 25), density=0.2, format="coo", rng=np.random.default_rng(1))
    path = tmp_path / "pat.mtx"
    gs.write_mtx(path, a, pattern=True)
    b = gs.read_mtx(path)
    assert gs.mminfo(path).field == "pattern"
    assert_sparse_close(b, (a != 0).astype(np.float64).tocsr(), 0)


def test_csr_matrix_in_and_out(tmp_path):
    a = sp.csr_matrix(gs.generate.poisson2d(4))
    path = tmp_path / "m.mtx"
    gs.write_mtx(path, a)
    b = gs.read_mtx(path, matrix=True)
    assert isinstance(b, sp.csr_matrix)
    assert abs(b - a).max() == 0


def test_dense_roundtrip(tmp_path, rng):
    x = rng.standard_normal((6, 3))
    path = tmp_path / "x.mtx"
    gs.write_mtx(path, x)
    assert gs.mminfo(path).format == "array"
    y = gs.read_mtx(path)
    assert isinstance(y, np.ndarray) and y.shape == (6, 3)
    np.testing.assert_array_equal(y, x)
    np.testing.assert_array_equal(scipy.io.mmread(str(path)), x)
    v = rng.standard_normal(5) + 1j * rng.standard_normal(5)
    gs.write_mtx(tmp_path / "v.mtx", v)
    np.testing.assert_array_equal(gs.read_mtx(tmp_path / "v.mtx")[:, 0], v)


def test_integer_values_are_converted(tmp_path):
    a = sp.csr_array(np.array([[1, 0], [0, 2]], dtype=np.int64))
    gs.write_mtx(tmp_path / "i.mtx", a)
    np.testing.assert_array_equal(gs.read_mtx(tmp_path / "i.mtx").toarray(), [[1.0, 0], [0, 2.0]])


def test_missing_file_raises_ioerror():
    with pytest.raises(gs.IoError, match="cannot open") as e:
        gs.read_mtx("/nonexistent/dir/x.mtx")
    assert isinstance(e.value, OSError) and isinstance(e.value, gs.Error)


@pytest.mark.parametrize("content, line, what", [
    ("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n", 3, "out of range"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n", None, None),
    ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n", 3, None),
    ("%%MatrixMarket matrix banana real general\n2 2 1\n1 1 1\n", 1, None),
    ("not a matrix market file\n", 1, None),
])
def test_malformed_files_raise_parse_error(tmp_path, content, line, what):
    path = tmp_path / "bad.mtx"
    path.write_text(content)
    with pytest.raises(gs.ParseError, match=what) as e:
        gs.read_mtx(path)
    err = e.value
    assert isinstance(err, ValueError) and isinstance(err, OSError) and isinstance(err, gs.IoError)
    assert str(err).startswith(f"{path}:")
    assert err.file == str(path)
    if line is not None:
        assert err.line == line


def test_complex_file_into_real_dtype_is_an_error(tmp_path):
    path = tmp_path / "c.mtx"
    path.write_text("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1.0 2.0\n")
    assert gs.read_mtx(path).dtype == np.complex128
    with pytest.raises(gs.Error):
        gs.read_mtx(path, dtype=np.float64)


def test_write_failure_leaves_no_file(tmp_path):
    with pytest.raises(gs.IoError):
        gs.write_mtx(tmp_path / "no" / "such" / "dir.mtx", gs.generate.poisson2d(3))


def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError):
        gs.read_mtx(shared_or_generated(tmp_path), dtype=np.int8)
    with pytest.raises(TypeError):
        gs.read_mtx(shared_or_generated(tmp_path), index_dtype=np.int16)
    with pytest.raises(ValueError, match="symmetry"):
        gs.write_mtx(tmp_path / "x.mtx", gs.generate.poisson2d(3), symmetry="diagonal")
    with pytest.raises(ValueError):
        gs.write_mtx(tmp_path / "x.mtx", np.zeros((2, 2, 2)))
    with pytest.raises(TypeError):
        gs.write_mtx(tmp_path / "x.mtx", sp.csr_array(np.ones((2, 2), dtype=np.longdouble)))


def shared_or_generated(tmp_path):
    path = tmp_path / "g.mtx"
    gs.write_mtx(path, gs.generate.poisson2d(3))
    return path
