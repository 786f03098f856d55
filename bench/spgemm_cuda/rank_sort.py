#!/usr/bin/env python3
"""bench/spgemm_cuda/rank_sort.py: host-side count of the light rows of the GPU benchmark's products
whose hash tables GpuSpgemmOptions::rank_sort writes by rank instead of sorting them (no GPU needed).

A light row of C = A·B (1 to tau products) takes the hash bin of its products (hash_bin: a table of
the next power of two of twice its products, at least 32 entries; on the H200 with float values and
int32 columns the tables of 16384 and 8192 entries shrink to 12288 and 6144, hash_table_capacity).
With dense_light_rows (the default) a row whose products' column span fits its table's bytes as a
bitmap and a value per column (light_row_is_dense) accumulates densely and needs no sort. The others
are hashed; after compaction their n distinct columns (nnz of the row of C) are written by rank when
rank_sort_windows (src/spgemm/cuda/gmagnus_math.hpp) allows: the table's free part, cap - n slots of
8 bytes (packed tables: float values, int32 columns), holds the inverse map (2 bytes an entry), then
for each 32 columns of a window a bitmap word and its prefix (8 bytes), and the row's span may take
at most 8 such windows. For each product it prints the light rows, the dense
ones, the hashed ones written by rank (and by how many windows), and the share of the hashed rows'
entries that skip the bitonic sort:

  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/rank_sort.py --set rmat --scales 16,18
  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/rank_sort.py --self-check

The products are the benchmark's (bench_inputs.py): R-MAT at the given scales and A² of the shared
square matrices.
"""

import sys

import numpy as np

from bench_inputs import model_args, row_products, selected_products
from wide_dense_rows import dense_row_bytes

TAU = 8192
COL_BYTES = 4
VAL_BYTES = 4
MAX_WINDOWS = 8  # rank_sort_max_windows
SHRUNK = {16384: 12288, 8192: 6144}  # hash_table_capacity on the H200, float values and int32 columns


def table_capacity(products, shrunk=SHRUNK):
    """hash_bin_capacity of the row's bin (the next power of two of twice its products, at least 32),
    shrunk where the device's tables are."""
    want = np.maximum(products, 1) * 2
    cap = np.maximum(32, 2 ** np.ceil(np.log2(want)).astype(np.int64))
    for nominal, smaller in shrunk.items():
        cap = np.where(cap == nominal, smaller, cap)
    return cap


def window_words(cap, n):
    """rank_sort_window_words of a packed table: the bitmap words a window takes beside the inverse map."""
    return np.maximum((8 * (cap - n) - 2 * n) // 8, 0)


def rank_windows(span, cap, n, max_windows=MAX_WINDOWS):
    """rank_sort_windows: the windows of the span, 0 where more than max_windows or fewer than 32 words."""
    words = window_words(cap, n)
    w = -(-span // np.maximum(words * 32, 1))
    return np.where((words >= 32) & (span >= 1) & (w <= max_windows), w, 0)


def classify(a, b, tau=TAU, shrunk=SHRUNK, dense_light_rows=True):
    """(light rows, dense ones, {windows: hashed rows written by rank}, hashed rows, share of the hashed
    rows' entries written by rank) of C = A·B."""
    a, b = a.tocsr(), b.tocsr()
    products = row_products(a, b)
    c = (a @ b).tocsr()
    c.sort_indices()
    n = np.diff(c.indptr).astype(np.int64)
    light = np.nonzero((products > 0) & (products <= tau) & (n > 0))[0]
    lo = c.indices[c.indptr[light]].astype(np.int64)
    hi = c.indices[c.indptr[light + 1] - 1].astype(np.int64)
    span = hi - lo + 1
    cap = table_capacity(products[light], shrunk)
    dense = dense_row_bytes(span) <= cap * (COL_BYTES + VAL_BYTES) if dense_light_rows else np.zeros(len(light), bool)
    w = rank_windows(span, cap, n[light])
    hashed = ~dense
    ranked = hashed & (w > 0)
    counts = {int(k): int(((w == k) & ranked).sum()) for k in np.unique(w[ranked])}
    entries = n[light][hashed].sum()
    share = float(n[light][ranked].sum() / entries) if entries else 0.0
    return len(light), int(dense.sum()), counts, int(hashed.sum()), share


def brute_force(a, b, tau=TAU, shrunk=SHRUNK, dense_light_rows=True):
    """classify() by a loop over every row and product (the check of its vectorized counts)."""
    a, b = a.tocsr(), b.tocsr()
    nlight = ndense = nhashed = 0
    counts, ranked_entries, hashed_entries = {}, 0, 0
    for r in range(a.shape[0]):
        cols = [int(col) for k in a.indices[a.indptr[r]:a.indptr[r + 1]] for col in b.indices[b.indptr[k]:b.indptr[k + 1]]]
        if not cols or len(cols) > tau:
            continue
        distinct = len(set(cols))
        nlight += 1
        cap = 32
        while cap < 2 * len(cols):
            cap *= 2
        cap = shrunk.get(cap, cap)
        span = max(cols) - min(cols) + 1
        bitmap = (span + 31) // 32 * 4
        if dense_light_rows and (bitmap + 15) // 16 * 16 + span * VAL_BYTES <= cap * (COL_BYTES + VAL_BYTES):
            ndense += 1
            continue
        nhashed += 1
        hashed_entries += distinct
        free_bytes = (cap - distinct) * (COL_BYTES + VAL_BYTES)
        words = 0
        while 8 * (words + 1) + 2 * distinct <= free_bytes:  # bitmap word and prefix, beside the map
            words += 1
        if words < 32:
            continue
        windows = (span + words * 32 - 1) // (words * 32)
        if windows <= MAX_WINDOWS:
            counts[windows] = counts.get(windows, 0) + 1
            ranked_entries += distinct
    return nlight, ndense, counts, nhashed, (ranked_entries / hashed_entries if hashed_entries else 0.0)


def self_check():
    import scipy.sparse as sp
    assert list(table_capacity(np.array([1, 16, 17, 4096, 4097, 8192]))) == [32, 32, 64, 6144, 12288, 12288]
    assert list(table_capacity(np.array([4096]), {})) == [8192]
    # the host test's table (GmagnusMath.RankSortWindows): 2048 slots, 1126 entries, windows of 20480 columns
    assert list(rank_windows(np.array([20480, 20481, 8 * 20480, 8 * 20480 + 1]), 2048, 1126)) == [1, 2, 8, 0]
    assert list(rank_windows(np.array([1, 1]), 64, np.array([26, 25]))) == [0, 1]  # fewer than 32 words
    assert window_words(64, 60) == 0
    # one row: 100 products over columns 0, 1000, ..., 99000 (distinct): a table of 256 (200 wanted),
    # 156 free words, 25 of them the map, windows of 131 * 32 = 4192 columns: 24 windows, sorted; over columns 0..99 (span 100):
    # dense (4 words + 100 values = 416 bytes <= 2048), or with dense_light_rows off one window
    a = sp.csr_array((np.ones(100), (np.zeros(100, int), np.arange(100))), shape=(1, 100))
    wide = sp.csr_array((np.ones(100), (np.arange(100), np.arange(100) * 1000)), shape=(100, 100000))
    narrow = sp.csr_array((np.ones(100), (np.arange(100), np.arange(100))), shape=(100, 100))
    assert classify(a, wide)[:4] == (1, 0, {}, 1)
    assert classify(a, narrow)[:4] == (1, 1, {}, 0)
    assert classify(a, narrow, dense_light_rows=False) == (1, 0, {1: 1}, 1, 1.0)
    rng = np.random.default_rng(11)
    for case in range(6):
        a = sp.random(50, 70, density=0.1 + 0.05 * case, random_state=rng, format="csr")
        b = sp.random(70, 400 if case % 2 else 60000, density=0.05, random_state=rng, format="csr")
        for tau, dense in ((TAU, True), (40, True), (TAU, False)):
            got, want = classify(a, b, tau, dense_light_rows=dense), brute_force(a, b, tau, dense_light_rows=dense)
            assert got[:4] == want[:4] and abs(got[4] - want[4]) < 1e-12, (case, tau, dense, got, want)
    print("self-check passed")


def main():
    args = model_args(__doc__, "15,16", self_check)
    for name, a, b in selected_products(args, np.float32):
        light, dense, counts, hashed, share = classify(a, b)
        ranked = sum(counts.values())
        by_windows = ", ".join(f"{c} in {w}" for w, c in sorted(counts.items())) or "-"
        print(f"{name:24s} light rows {light:7d}  dense {dense:7d}  hashed {hashed:7d}, by rank {ranked:7d} ({by_windows}; "
              f"{100 * share:5.1f} % of the hashed rows' entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
