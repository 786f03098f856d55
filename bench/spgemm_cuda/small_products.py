#!/usr/bin/env python3
"""bench/spgemm_cuda/small_products.py: host-side count of the GPU benchmark's products that take
gMAGNUS's small-product path (GpuSpgemmOptions::small_products; no GPU needed).

A product takes it when its operands have at most 2^17 rows and entries each
(small_product_eligible in src/spgemm/cuda/gmagnus_math.hpp) and every row of C = A·B has at most
4096 products (small_max_row_products) and, when it has more products than its warp's table has
entries (small_row_capacity: the power of two of twice its products, at least 32, at most the
region of small_region_entries: 1024 entries for float values and int32 columns, 512 with a double
or a 64-bit column), fewer distinct columns than small_row_limit (the table's size less 32). Rows
past those limits send the product back to the binned path (GpuSpgemmStats::small_rows_back). For
each product it prints the rows, entries, products, the longest row's products and which limit
sends it back, then the count:

  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/small_products.py               # float, int32
  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/small_products.py --region 512  # double or int64
  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/small_products.py --self-check

The products are the benchmark's A² of the shared square matrices (bench_inputs.py).
"""

import argparse
import sys

import numpy as np

from bench_inputs import shared_squares

MAX_NNZ = 1 << 17
MAX_ROW_PRODUCTS = 4096
WARP = 32


def row_capacity(products, region):
    """small_row_capacity: the power of two of twice the products, at least 32, at most the region."""
    p = max(2 * products, WARP)
    return min(region, 1 << (p - 1).bit_length())


def classify(a, b, region):
    """('small' or the reason it goes back, rows sent back, longest row's products) of A·B."""
    a, b = a.tocsr(), b.tocsr()
    if a.shape[0] > MAX_NNZ or a.nnz > MAX_NNZ or b.nnz > MAX_NNZ:
        return "operands over 2^17", 0, -1
    blen = np.diff(b.indptr)
    run = np.concatenate(([0], np.cumsum(blen[a.indices], dtype=np.int64)))
    products = run[a.indptr[1:]] - run[a.indptr[:-1]]
    longest = int(products.max()) if products.size else 0
    back_long = int((products > MAX_ROW_PRODUCTS).sum())
    caps = np.array([row_capacity(int(p), region) for p in products], dtype=np.int64)
    bounded = (products > caps) & (products <= MAX_ROW_PRODUCTS)
    back_cols = 0
    if bounded.any():
        pat_a = a.copy()
        pat_a.data[:] = 1
        pat_b = b.copy()
        pat_b.data[:] = 1
        distinct = np.diff((pat_a[np.flatnonzero(bounded)] @ pat_b).tocsr().indptr)
        back_cols = int((distinct >= caps[bounded] - WARP).sum())
    if back_long or back_cols:
        what = []
        if back_long:
            what.append(f"{back_long} rows over {MAX_ROW_PRODUCTS} products")
        if back_cols:
            what.append(f"{back_cols} rows past their table's columns")
        return "; ".join(what), back_long + back_cols, longest
    return "small", 0, longest


def self_check():
    import scipy.sparse as sp
    ok = True
    ok &= row_capacity(0, 1024) == 32 and row_capacity(17, 1024) == 64 and row_capacity(300, 1024) == 1024
    # one_long_row of SmallProductLimits: row 0 over all of B (k rows of `per` entries over ncols columns)
    for k, per, ncols, small in ((1000, 2, 500, True), (1000, 2, 1500, False), (4096, 1, 100, True), (4097, 1, 100, False)):
        rows = [0] * k + [1]
        cols = list(range(k)) + [0]
        a = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(3, k))
        br = np.repeat(np.arange(k), per)
        bc = (np.arange(k * per)) % ncols
        b = sp.csr_array((np.ones(k * per), (br, bc)), shape=(k, ncols))
        got = classify(a, b, 1024)[0] == "small"
        if got != small:
            print(f"self-check: k={k} per={per} ncols={ncols}: small {got}, expected {small}")
            ok = False
    print("small_products.py self-check:", "passed" if ok else "FAILED")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--region", type=int, default=1024, help="table entries of a warp (1024: float, int32; 512 otherwise)")
    ap.add_argument("--self-check", action="store_true")
    args = ap.parse_args()
    if args.self_check:
        return self_check()
    n_small = n_all = 0
    print(f"{'product':24} {'rows':>8} {'nnz(A)':>9} {'products':>11} {'longest':>8}  path")
    for name, a, b in shared_squares():
        path, _, longest = classify(a, b, args.region)
        a = a.tocsr()
        blen = np.diff(b.tocsr().indptr)
        total = int(blen[a.indices].sum())
        n_all += 1
        n_small += path == "small"
        print(f"{name:24} {a.shape[0]:>8} {a.nnz:>9} {total:>11} {longest:>8}  {path}")
    print(f"{n_small} of {n_all} products take the small-product path (table region {args.region})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
