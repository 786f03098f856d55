#!/usr/bin/env python3
"""bench/spgemm_cuda/small_products.py: host-side count of the GPU benchmark's products that take
gMAGNUS's small-product path (GpuSpgemmOptions::small_products; no GPU needed).

A product takes it when its operands have at most 2^17 rows and entries each
(small_product_eligible in src/spgemm/cuda/gmagnus_math.hpp). A row of C = A·B takes a warp, or a
block when it is long (small_row_is_long): more than 4096 products (small_max_row_products), or,
with more products than its warp's table has entries (small_row_capacity: the power of two of twice
its products, at least 32, at most the region of small_region_entries: 1024 entries for float
values and int32 columns, 512 with a double or a 64-bit column), at least small_row_limit distinct
columns (the table's size less 32). A long row whose columns span more than 8 numeric windows
(small_long_window: 7936 columns for float values, 4032 for double; small_long_max_windows) sends
the product back to the binned path (GpuSpgemmStats::small_rows_back). For each product it prints
the rows, entries, products, the longest row's products, the rows that take a block
(GpuSpgemmStats::small_long_rows) and the path, then the count:

  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/small_products.py               # float, int32
  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/small_products.py --region 512  # double or int64
  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/small_products.py --row-products 1024  # small_row_products
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
MAX_WINDOWS = 8
WINDOW = {1024: 7936, 512: 4032}  # small_long_window's numeric windows for each region


def row_capacity(products, region):
    """small_row_capacity: the power of two of twice the products, at least 32, at most the region."""
    p = max(2 * products, WARP)
    return min(region, 1 << (p - 1).bit_length())


def classify(a, b, region, max_row_products=MAX_ROW_PRODUCTS):
    """(path, rows that take a block, rows sent back, longest row's products) of A·B; path is
    'small', or why it is not taken. max_row_products: GpuSpgemmOptions::small_row_products."""
    a, b = a.tocsr(), b.tocsr()
    if a.shape[0] > MAX_NNZ or a.nnz > MAX_NNZ or b.nnz > MAX_NNZ:
        return "operands over 2^17", 0, 0, -1
    blen = np.diff(b.indptr)
    run = np.concatenate(([0], np.cumsum(blen[a.indices], dtype=np.int64)))
    products = run[a.indptr[1:]] - run[a.indptr[:-1]]
    longest = int(products.max()) if products.size else 0
    caps = np.array([row_capacity(int(p), region) for p in products], dtype=np.int64)
    candidates = np.flatnonzero((products > max_row_products) | (products > caps))
    if candidates.size == 0:
        return "small", 0, 0, longest
    pat_a = a[candidates].copy()
    pat_a.data[:] = 1
    pat_b = b.copy()
    pat_b.data[:] = 1
    c = (pat_a @ pat_b).tocsr()
    c.sort_indices()
    distinct = np.diff(c.indptr)
    over = products[candidates] > max_row_products
    long_rows = over | (distinct >= caps[candidates] - WARP)
    back = 0
    window = WINDOW[region]
    for i in np.flatnonzero(long_rows):
        cols = c.indices[c.indptr[i]:c.indptr[i + 1]]
        span = int(cols[-1] - cols[0] + 1)
        back += -(-span // window) > MAX_WINDOWS
    n_long = int(long_rows.sum())
    if back:
        return f"{back} long rows over {MAX_WINDOWS} windows: binned", n_long, back, longest
    return "small", n_long, 0, longest


def self_check():
    import scipy.sparse as sp
    ok = True
    ok &= row_capacity(0, 1024) == 32 and row_capacity(17, 1024) == 64 and row_capacity(300, 1024) == 1024
    # one_long_row of SmallProductLimits: row 0 over all of B (k rows of `per` entries over ncols columns)
    for k, per, ncols, region, n_long, back in ((1000, 2, 500, 1024, 0, 0), (1000, 2, 1500, 1024, 1, 0), (4096, 1, 100, 1024, 0, 0),
                                                (4097, 1, 100, 1024, 1, 0), (3968, 16, 63488, 1024, 1, 0), (3969, 16, 63489, 1024, 1, 1),
                                                (600, 2, 490, 512, 1, 0), (2017, 16, 32257, 512, 1, 1)):
        rows = [0] * k + [1]
        cols = list(range(k)) + [0]
        a = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(3, k))
        br = np.repeat(np.arange(k), per)
        bc = (np.arange(k * per)) % ncols
        b = sp.csr_array((np.ones(k * per), (br, bc)), shape=(k, ncols))
        got = classify(a, b, region)[1:3]
        if (k, per, ncols) == (1000, 2, 500):
            got_lower = classify(a, b, region, 1024)[1:3]
            if got_lower != (1, 0):
                print(f"self-check: 2000 products with small_row_products 1024: (long, back) {got_lower}, expected (1, 0)")
                ok = False
        if got != (n_long, back):
            print(f"self-check: k={k} per={per} ncols={ncols}: (long, back) {got}, expected {(n_long, back)}")
            ok = False
    print("small_products.py self-check:", "passed" if ok else "FAILED")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--region", type=int, default=1024, choices=sorted(WINDOW), help="table entries of a warp (1024: float, int32; 512 otherwise)")
    ap.add_argument("--row-products", type=int, default=MAX_ROW_PRODUCTS,
                    help="rows of more products take a block (GpuSpgemmOptions::small_row_products; 4096)")
    ap.add_argument("--self-check", action="store_true")
    args = ap.parse_args()
    if args.self_check:
        return self_check()
    n_small = n_all = n_blocks = 0
    print(f"{'product':24} {'rows':>8} {'nnz(A)':>9} {'products':>11} {'longest':>8} {'blocks':>7}  path")
    for name, a, b in shared_squares():
        path, n_long, _, longest = classify(a, b, args.region, args.row_products)
        a = a.tocsr()
        blen = np.diff(b.tocsr().indptr)
        total = int(blen[a.indices].sum())
        n_all += 1
        n_small += path == "small"
        n_blocks += path == "small" and n_long > 0
        print(f"{name:24} {a.shape[0]:>8} {a.nnz:>9} {total:>11} {longest:>8} {n_long:>7}  {path}")
    print(f"{n_small} of {n_all} products take the small-product path (table region {args.region}), {n_blocks} of them with rows a block each "
          f"(rows of more than {args.row_products} products)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
