"""Shared fixtures of the gigasparse Python tests: the shared real matrices and tolerances."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
MATRIX_DIR = Path(os.environ.get("GIGASPARSE_MATRIX_DIR", REPO.parent / "shared" / "matrices"))


def manifest() -> list[dict[str, str]]:
    """Rows of the shared matrices' MANIFEST.tsv (empty when the folder is absent)."""
    path = MATRIX_DIR / "MANIFEST.tsv"
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def shared_matrix(name: str) -> Path:
    """Path of a shared matrix; skips the test with a message when it is absent."""
    path = MATRIX_DIR / f"{name}.mtx.gz"
    if not path.is_file():
        pytest.skip(f"shared matrix {path} not present (set GIGASPARSE_MATRIX_DIR)")
    return path


def small_shared(kind: str | None = None, max_nnz: int = 60000) -> list[str]:
    """Names of the shared matrices of a kind (graph, spd, unsym, ...) with at most max_nnz stored entries."""
    return [r["name"] for r in manifest()
            if (kind is None or r["kind"] == kind) and int(r["nnz_stored"]) <= max_nnz]


def tol(dtype: np.dtype) -> float:
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12


def assert_sparse_close(actual, expected, rtol: float = 1e-12) -> None:
    assert actual.shape == expected.shape
    diff = abs(actual - expected)
    scale = max(abs(expected).max(), 1.0) if expected.nnz else 1.0
    assert (diff.max() if diff.nnz else 0.0) <= rtol * scale


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)
