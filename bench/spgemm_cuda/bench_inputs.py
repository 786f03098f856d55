"""bench/spgemm_cuda/bench_inputs.py: the GPU SpGEMM benchmark's products (bench_spgemm_cuda.cu) for the
host-side models beside it (light_row_rounds.py, wide_dense_rows.py, rank_sort.py), as scipy CSR arrays.

R-MAT: A with 4, 8, 16, 32 edges per row (seed 2000 + 100 scale + epr), B with 8 (seed 1000 + scale),
from gigasparse.generate (PYTHONPATH=build/release/python). Shared: A² of the shared square real
matrices with at most 3 M stored entries (GIGASPARSE_MATRIX_DIR or ../shared/matrices).
"""

import argparse
import csv
import gzip
import os
import sys

import numpy as np


def rmat_products(scales, dtype=np.float64):
    """(name, A, B) of the R-MAT set at the given scales."""
    import gigasparse.generate as gen
    for scale in scales:
        b = gen.rmat(scale, 8, seed=1000 + scale, dtype=dtype)
        for epr in (4, 8, 16, 32):
            yield f"rmat{scale}_a{epr}_b8", gen.rmat(scale, epr, seed=2000 + 100 * scale + epr, dtype=dtype), b


def shared_squares(max_nnz=3_000_000):
    """(name, A, A) of the shared set, duplicates summed."""
    import scipy.io
    import scipy.sparse as sp
    here = os.path.dirname(os.path.abspath(__file__))
    mdir = os.environ.get("GIGASPARSE_MATRIX_DIR") or os.path.join(here, "..", "..", "..", "shared", "matrices")
    with open(os.path.join(mdir, "MANIFEST.tsv")) as f:
        for m in csv.DictReader(f, delimiter="\t"):
            if int(m["nnz_stored"]) > max_nnz or m["rows"] != m["cols"] or m["field"] == "complex":
                continue
            a = sp.csr_array(scipy.io.mmread(gzip.open(os.path.join(mdir, m["file"]))))
            a.sum_duplicates()
            yield m["name"], a, a


def row_products(a, b):
    """Each row of A·B's products (its A entries' B row lengths summed), int64; A and B CSR."""
    blen = np.diff(b.indptr).astype(np.int64)
    rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
    return np.bincount(rows, weights=blen[a.indices], minlength=a.shape[0]).astype(np.int64)


def selected_products(args, dtype=np.float64):
    """(name, A, B) of the products --set names: the R-MAT set at --scales, then the shared set."""
    if args.set in ("rmat", "both"):
        yield from rmat_products(args.scales, dtype)
    if args.set in ("shared", "both"):
        yield from shared_squares()


def model_args(doc, scales, self_check, more=None):
    """The models' command line: --self-check (runs self_check() and exits), --set rmat|shared|both,
    --scales (default `scales`), and what more(parser) adds."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--self-check", action="store_true", help="check the counting on hand-worked cases and exit")
    ap.add_argument("--set", choices=["rmat", "shared", "both"], default="both")
    ap.add_argument("--scales", default=scales, help="R-MAT scales (comma-separated)")
    if more is not None:
        more(ap)
    args = ap.parse_args()
    if args.self_check:
        self_check()
        sys.exit(0)
    args.scales = [int(x) for x in args.scales.split(",")]
    return args
