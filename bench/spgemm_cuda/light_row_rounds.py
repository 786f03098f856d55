#!/usr/bin/env python3
"""bench/spgemm_cuda/light_row_rounds.py: host-side count of the warp rounds gMAGNUS's light-row
kernels spend walking products (no GPU needed), for the GPU benchmark's inputs.

A warp round is one step of a warp over up to 32 products (each lane loads one B entry and inserts
one product into the shared hash table). Two walks are counted over the light rows of C = A·B
(rows with 0 < products <= tau, tau = 8192 for double / int32 on an H200-sized budget):

  entry:  before for_each_row_product — each warp walks its A entries one at a time with the lanes
          over one B row: ceil(len / 32) rounds per A entry;
  hybrid: for_each_row_product (src/spgemm/cuda/gmagnus_kernels.cuh) — a warp takes `per`
          consecutive A entries (the row's entries over the block's warps, at most 32) and walks
          them entry by entry or flattened over the lanes, whichever takes fewer rounds.

It prints, per product, the lane use (products / (32 x rounds)) of both walks and how many times
fewer rounds the hybrid takes, then the geometric mean per set:

  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/light_row_rounds.py            # both sets
  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/light_row_rounds.py --self-check

The products are the benchmark's (bench_inputs.py): R-MAT at the given scales and A² of the shared
square matrices.
"""

import math
import sys

import numpy as np

from bench_inputs import model_args, rmat_products, shared_squares

TAU = 8192


def block_warps(products):
    """Warps of the block of a light row's hash bin (hash_bin_threads: half the 2^k >= 2 products table)."""
    lg = max(5, math.ceil(math.log2(max(products, 1) * 2)))
    return min(max((1 << lg) // 2, 32), 1024) // 32


def row_rounds(lens, nwarps):
    """(entry, hybrid) warp rounds of one light row whose A entries have B rows of these lengths."""
    lens = np.asarray(lens, dtype=np.int64)
    per_entry = -(-lens // 32)
    entry = int(per_entry.sum())
    per = min(max(-(-len(lens) // nwarps), 1), 32)
    hybrid = 0
    for i in range(0, len(lens), per):
        group = lens[i:i + per]
        hybrid += min(-(-int(group.sum()) // 32), int(per_entry[i:i + per].sum()))
    return entry, hybrid


def product_rounds(a, b, tau=TAU):
    """(light products, entry rounds, hybrid rounds) of C = A·B (scipy CSR, sorted or not)."""
    blen = np.diff(b.indptr)
    prods = entry = hybrid = 0
    for r in range(a.shape[0]):
        lens = blen[a.indices[a.indptr[r]:a.indptr[r + 1]]]
        p = int(lens.sum())
        if p == 0 or p > tau:
            continue
        e, h = row_rounds(lens, block_warps(p))
        prods += p
        entry += e
        hybrid += h
    return prods, entry, hybrid


def report(name, a, b):
    prods, entry, hybrid = product_rounds(a, b)
    if prods == 0:
        return None
    print(f"{name:24s} light products {prods:>11d}  lane use {prods / (32 * entry):.2f} -> {prods / (32 * hybrid):.2f}"
          f"  rounds {entry / hybrid:.2f}x fewer", flush=True)
    return entry / hybrid


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def self_check():
    # four A entries whose B rows hold 8 entries: 4 rounds entry by entry, 1 flattened
    assert row_rounds([8, 8, 8, 8], 1) == (4, 1)
    # long B rows: entry by entry is already full (2 + 2 rounds), flattening cannot do better
    assert row_rounds([64, 64], 1) == (4, 4)
    # 40 entries of 3 over 2 warps: groups of 20 (60 products: 2 rounds) instead of 20 rounds each
    assert row_rounds([3] * 40, 2) == (40, 4)
    assert block_warps(32) == 1 and block_warps(33) == 2 and block_warps(8192) == 32
    import scipy.sparse as sp
    a = sp.csr_array(np.array([[1, 1, 0], [0, 0, 0], [1, 0, 1]], dtype=float))
    b = sp.csr_array(np.ones((3, 5)))
    assert product_rounds(a, b) == (20, 4, 2)
    print("light_row_rounds self-check passed")


def main():
    args = model_args(__doc__, "16,18", self_check)
    if args.set in ("rmat", "both"):
        ratios = [r for name, a, b in rmat_products(args.scales) if (r := report(name, a, b))]
        print(f"R-MAT: {geomean(ratios):.2f}x fewer rounds (geomean of {len(ratios)})")
    if args.set in ("shared", "both"):
        ratios = [r for name, a, b in shared_squares() if (r := report(name, a, b))]
        print(f"shared A²: {geomean(ratios):.2f}x fewer rounds (geomean of {len(ratios)}), "
              f"from {min(ratios):.2f}x to {max(ratios):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
