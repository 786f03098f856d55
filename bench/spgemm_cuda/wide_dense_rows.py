#!/usr/bin/env python3
"""bench/spgemm_cuda/wide_dense_rows.py: host-side count of the rows of the GPU benchmark's products
that gMAGNUS accumulates as wide dense rows instead of through the heavy path (no GPU needed).

A row of C = A·B with more than tau products is heavy (CSR->CSC, outer product, multisplit,
chunked accumulation) unless its products' columns span few enough columns for a bitmap and a
value per column in the shared-memory budget, and it has at most 2^18 products (row_is_dense_wide
and dense_wide_capacity in src/spgemm/cuda/gmagnus_math.hpp). Defaults: float values and int32
columns on the H200's budget (s_LM = 227824 bytes: 232448 opt-in less the kernels' largest static
shared memory, 4624 bytes; tau = 8192: spans up to 55228 columns). --table-bytes 131072 counts
with the largest hash table's bytes instead, the limit before 2026-12-06 (with --max-products
131072). For each product with heavy rows it prints the heavy rows, how many of them are wide dense
rows, and whether the product keeps any heavy row:

  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/wide_dense_rows.py            # both sets
  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/wide_dense_rows.py --self-check

The products are the benchmark's (bench_inputs.py): R-MAT at the given scales and A² of the shared
square matrices.
"""

import sys

import numpy as np

from bench_inputs import model_args, rmat_products, shared_squares

TAU = 8192
BUDGET_BYTES = 227824 // 8 * 8  # dense_wide_capacity entries of 8 bytes (float values, int32 columns)
VAL_BYTES = 4
MAX_PRODUCTS = 1 << 18


def dense_row_bytes(span, val_bytes=VAL_BYTES):
    """A bitmap of the span (16-byte aligned) and a value per column (dense_row_bytes, numeric)."""
    return -(-(-(-span // 32) * 4) // 16) * 16 + span * val_bytes


def max_dense_span(table_bytes=BUDGET_BYTES, val_bytes=VAL_BYTES):
    lo, hi = 0, table_bytes * 8
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if dense_row_bytes(mid, val_bytes) <= table_bytes:
            lo = mid
        else:
            hi = mid - 1
    return lo


def classify(a, b, tau=TAU, max_span=None, max_products=MAX_PRODUCTS):
    """(heavy rows, wide dense rows among them, their products) of C = A·B (CSR arrays)."""
    max_span = max_dense_span() if max_span is None else max_span
    a, b = a.tocsr(), b.tocsr()
    blen = np.diff(b.indptr)
    nonempty = blen > 0
    lo = np.full(b.shape[0], np.iinfo(np.int64).max)
    hi = np.full(b.shape[0], -1)
    if b.nnz:
        starts = b.indptr[:-1][nonempty]
        lo[nonempty] = np.minimum.reduceat(b.indices, starts)
        hi[nonempty] = np.maximum.reduceat(b.indices, starts)
    per_entry = blen[a.indices].astype(np.int64)
    rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
    products = np.bincount(rows, weights=per_entry, minlength=a.shape[0]).astype(np.int64)
    heavy = np.nonzero(products > tau)[0]
    wide = 0
    for r in heavy:
        cols = a.indices[a.indptr[r]:a.indptr[r + 1]]
        cols = cols[nonempty[cols]]
        span = int(hi[cols].max() - lo[cols].min() + 1)
        if span <= max_span and products[r] <= max_products:
            wide += 1
    return len(heavy), wide


def brute_force(a, b, tau, max_span, max_products):
    """classify() by a loop over every product (the check of its vectorized spans and sums)."""
    a, b = a.tocsr(), b.tocsr()
    heavy = wide = 0
    for r in range(a.shape[0]):
        cols = [int(c) for k in a.indices[a.indptr[r]:a.indptr[r + 1]] for c in b.indices[b.indptr[k]:b.indptr[k + 1]]]
        if len(cols) <= tau:
            continue
        heavy += 1
        wide += max(cols) - min(cols) + 1 <= max_span and len(cols) <= max_products
    return heavy, wide


def self_check():
    import scipy.sparse as sp
    assert max_dense_span() == 55228
    assert max_dense_span(16384 * 8) == 31772  # the largest hash table's bytes (the limit before)
    assert max_dense_span(1024 * 12, 8) == 1512  # double values, int32 columns, a 1024-entry table
    # a band of 25 entries a row: up to 625 products a row over up to 49 columns; rows 11 to n - 12
    # have more than 512 products (row 11: 13 + ... + 24 + 12 x 25 = 522)
    n = 300
    band = sp.diags([np.ones(n - abs(k)) for k in range(-12, 13)], list(range(-12, 13)), format="csr")
    assert classify(band, band, tau=512, max_span=1512) == (n - 22, n - 22)
    assert classify(band, band, tau=512, max_span=40) == (n - 22, 10)  # rows 11-15 and their mirror: spans of 36-40
    assert classify(band, band, tau=1000) == (0, 0)
    rng = np.random.default_rng(7)
    for case in range(4):
        a = sp.random(60, 80, density=0.15, random_state=rng, format="lil")
        a[55:, :] = 0  # empty last rows
        a = a.tocsr()
        b = sp.random(80, 300 if case % 2 else 70, density=0.2, random_state=rng, format="csr")
        a.data[:] = 1
        b.data[:] = 1
        for tau, span, most in ((20, 100, 1 << 17), (10, 60, 50), (0, 1 << 20, 1 << 17)):
            assert classify(a, b, tau, span, most) == brute_force(a, b, tau, span, most), (case, tau, span, most)
    print("self-check passed")


def main():
    def more(ap):
        ap.add_argument("--table-bytes", type=int, default=BUDGET_BYTES, help="bytes a wide dense row may take (default: the H200's budget)")
        ap.add_argument("--max-products", type=int, default=MAX_PRODUCTS, help="most products of a wide dense row")

    args = model_args(__doc__, "15,16", more)
    span = max_dense_span(args.table_bytes)
    if args.self_check:
        self_check()
        return 0
    totals = {}
    if args.set in ("rmat", "both"):
        for name, a, b in rmat_products(args.scales, np.float32):
            totals[name] = classify(a, b, max_span=span, max_products=args.max_products)
    if args.set in ("shared", "both"):
        for name, a, b in shared_squares():
            totals[name] = classify(a, b, max_span=span, max_products=args.max_products)
    with_heavy = {k: v for k, v in totals.items() if v[0] > 0}
    for name, (heavy, wide) in with_heavy.items():
        print(f"{name:24s} heavy rows {heavy:7d}  wide dense {wide:7d}  " + ("no heavy row left" if heavy == wide else f"{heavy - wide} heavy"))
    lost = sum(1 for h, w in with_heavy.values() if h == w)
    print(f"{len(totals)} products, {len(with_heavy)} with heavy rows, {lost} of them without any left")
    return 0


if __name__ == "__main__":
    sys.exit(main())
