#!/usr/bin/env python3
"""bench/spgemm_cuda/wide_dense_rows.py: host-side count of the rows of the GPU benchmark's products
that gMAGNUS accumulates as wide dense rows instead of through the heavy path (no GPU needed).

A row of C = A·B with more than tau products is heavy (CSR->CSC, outer product, multisplit,
chunked accumulation) unless it is a wide dense row (row_is_dense_wide and dense_wide_window in
src/spgemm/cuda/gmagnus_math.hpp): its products' columns span at most 4 windows, each a bitmap and
a value per column in the shared-memory budget, and it walks its products (once a window) at most
the walk cap: the larger of 2^19 and the walk of all rows that meet the windows' limit over the
device's SMs (132 on the H200; dense_wide_walk_cap: a long row takes one SM, and rows of at most
the SMs' average share do not hold the rest back), at most 2^31 (--sm-count 0: 2^19 alone, the
cap before 2026-12-06's second change). The windows: B's columns when a bitmap and values of them fit the budget, else B's
columns in the fewest equal windows that do. Defaults: float values and int32 columns on the
H200's budget (s_LM = 227824 bytes: 232448 opt-in less the kernels' largest static shared memory,
4624 bytes; tau = 8192: windows of up to 55200 columns). --table-bytes 131072 --max-windows 1
--max-walk 131072 --sm-count 0 counts with the limit before 2026-12-06 (one window of the largest
hash table, 2^17 products). For each product with heavy rows it prints the heavy rows, how many of them are
wide dense rows (and in how many windows), the share of the heavy products they hold, and whether
the product keeps any heavy row:

  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/wide_dense_rows.py            # both sets
  PYTHONPATH=build/release/python python3 bench/spgemm_cuda/wide_dense_rows.py --self-check

The products are the benchmark's (bench_inputs.py): R-MAT at the given scales and A² of the shared
square matrices.
"""

import sys

import numpy as np

from bench_inputs import model_args, rmat_products, row_products, shared_squares

TAU = 8192
BUDGET_BYTES = 227824 // 8 * 8  # dense_wide_capacity entries of 8 bytes (float values, int32 columns)
VAL_BYTES = 4
MAX_WINDOWS = 4
MAX_WALK = 1 << 19
WALK_CEILING = 1 << 31  # dense_wide_walk_ceiling: the block walk's 32-bit sums
SM_COUNT = 132


def dense_row_bytes(span, val_bytes=VAL_BYTES):
    """A bitmap of the span (16-byte aligned) and a value slot per column of whole 32-column groups
    (dense_row_bytes, numeric)."""
    groups = -(-span // 32)
    return -(-(groups * 4) // 16) * 16 + groups * 32 * val_bytes


def max_dense_span(table_bytes=BUDGET_BYTES, val_bytes=VAL_BYTES):
    """dense_span_limit: the widest span whose bitmap and values fit table_bytes."""
    lo, hi = 0, table_bytes * 8
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if dense_row_bytes(mid, val_bytes) <= table_bytes:
            lo = mid
        else:
            hi = mid - 1
    return lo


def window_width(ncols, limit):
    """dense_wide_window: B's ncols columns in the fewest equal windows of at most `limit` columns."""
    n = max(ncols, 1)
    return -(-n // -(-n // limit))


def walk_cap(candidate_walk, max_walk=MAX_WALK, sm_count=SM_COUNT):
    """dense_wide_walk_cap: max_walk, or with sm_count > 0 the larger of it and the candidates' walk
    over the SMs, at most WALK_CEILING."""
    if sm_count < 1:
        return max_walk
    return min(max(max_walk, candidate_walk // sm_count), WALK_CEILING)


def classify(a, b, tau=TAU, limit=None, max_windows=MAX_WINDOWS, max_walk=MAX_WALK, sm_count=0):
    """(heavy rows, {windows: wide dense rows}, share of the heavy products in wide dense rows, the walk
    cap, the longest walk of a wide dense row) of C = A·B; sm_count > 0: the walk cap adapts (walk_cap)."""
    limit = max_dense_span() if limit is None else limit
    a, b = a.tocsr(), b.tocsr()
    window = window_width(b.shape[1], limit)
    blen = np.diff(b.indptr)
    nonempty = blen > 0
    lo = np.full(b.shape[0], np.iinfo(np.int64).max)
    hi = np.full(b.shape[0], -1)
    if b.nnz:
        starts = b.indptr[:-1][nonempty]
        lo[nonempty] = np.minimum.reduceat(b.indices, starts)
        hi[nonempty] = np.maximum.reduceat(b.indices, starts)
    rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
    products = row_products(a, b)
    heavy = np.nonzero(products > tau)[0]
    ok = nonempty[a.indices]
    row_lo = np.full(a.shape[0], np.iinfo(np.int64).max)
    row_hi = np.full(a.shape[0], -1)
    np.minimum.at(row_lo, rows[ok], lo[a.indices[ok]])
    np.maximum.at(row_hi, rows[ok], hi[a.indices[ok]])
    windows = -(-(row_hi[heavy] - row_lo[heavy] + 1) // window)
    walk = products[heavy] * windows
    cap = walk_cap(int(walk[windows <= max_windows].sum()), max_walk, sm_count)
    wide = (windows <= max_windows) & (walk <= cap)
    counts = {int(w): int(((windows == w) & wide).sum()) for w in np.unique(windows[wide])}
    share = float(products[heavy][wide].sum() / products[heavy].sum()) if len(heavy) else 0.0
    return len(heavy), counts, share, cap, int(walk[wide].max()) if wide.any() else 0


def brute_force(a, b, tau, limit, max_windows, max_walk, sm_count=0):
    """classify() by a loop over every product (the check of its vectorized spans, sums and windows)."""
    a, b = a.tocsr(), b.tocsr()
    window = window_width(b.shape[1], limit)
    heavy, counts, wide_products, heavy_products = 0, {}, 0, 0
    rows = []
    for r in range(a.shape[0]):
        cols = [int(c) for k in a.indices[a.indptr[r]:a.indptr[r + 1]] for c in b.indices[b.indptr[k]:b.indptr[k + 1]]]
        if len(cols) <= tau:
            continue
        heavy += 1
        heavy_products += len(cols)
        rows.append((len(cols), -(-(max(cols) - min(cols) + 1) // window)))
    candidates = sum(n * w for n, w in rows if w <= max_windows)
    cap = max_walk if sm_count < 1 else min(max(max_walk, candidates // sm_count), WALK_CEILING)
    for n, w in rows:
        if w <= max_windows and n * w <= cap:
            counts[w] = counts.get(w, 0) + 1
            wide_products += n
    return heavy, counts, (wide_products / heavy_products if heavy else 0.0)


def self_check():
    import scipy.sparse as sp
    assert max_dense_span() == 55200
    assert max_dense_span(16384 * 8) == 31744  # the largest hash table's bytes (the limit before)
    assert max_dense_span(1024 * 12, 8) == 1504  # double values, int32 columns, a 1024-entry table
    assert window_width(32768, 55200) == 32768 and window_width(65536, 55200) == 32768
    assert window_width(131072, 55200) == 43691 and window_width(262144, 55200) == 52429
    # a band of 25 entries a row: up to 625 products a row over up to 49 columns; rows 11 to n - 12
    # have more than 512 products (row 11: 13 + ... + 24 + 12 x 25 = 522)
    n = 300
    band = sp.diags([np.ones(n - abs(k)) for k in range(-12, 13)], list(range(-12, 13)), format="csr")
    assert classify(band, band, tau=512, limit=1504)[:3] == (n - 22, {1: n - 22}, 1.0)
    # windows of 30 columns (300 in 10): every span (36-49 columns) takes 2
    assert classify(band, band, tau=512, limit=30, max_windows=1)[1] == {}
    assert classify(band, band, tau=512, limit=30)[1] == {2: n - 22}
    # at most 1200 walked: rows 11-17 and their mirror (522, 547, 559, 570, 580, 589, 597 products)
    assert classify(band, band, tau=512, limit=30, max_walk=1200)[1] == {2: 14}
    assert brute_force(band, band, 512, 30, 4, 1200)[1] == {2: 14}
    # adaptive: the 278 rows walk 345,632 products in all (2 windows each); over 100 SMs 3456, over 300 SMs 1152
    # (the floor 1200 stays)
    assert classify(band, band, tau=512, limit=30, max_walk=1200, sm_count=100)[1] == {2: n - 22}
    assert classify(band, band, tau=512, limit=30, max_walk=1200, sm_count=300)[1] == {2: 14}
    assert brute_force(band, band, 512, 30, 4, 1200, 100)[1] == {2: n - 22}
    assert walk_cap(1 << 40) == WALK_CEILING and walk_cap(100) == MAX_WALK and walk_cap(100, sm_count=0) == MAX_WALK
    assert classify(band, band, tau=1000)[:3] == (0, {}, 0.0)
    rng = np.random.default_rng(7)
    for case in range(4):
        a = sp.random(60, 80, density=0.15, random_state=rng, format="lil")
        a[55:, :] = 0  # empty last rows
        a = a.tocsr()
        b = sp.random(80, 300 if case % 2 else 70, density=0.2, random_state=rng, format="csr")
        a.data[:] = 1
        b.data[:] = 1
        for tau, limit, mw, walk, sms in ((20, 100, 4, 1 << 19, 0), (10, 60, 2, 200, 0), (0, 1 << 20, 4, 1 << 19, 132), (10, 25, 4, 300, 0),
                                          (10, 25, 4, 300, 4), (10, 60, 2, 200, 2)):
            got, want = classify(a, b, tau, limit, mw, walk, sms), brute_force(a, b, tau, limit, mw, walk, sms)
            assert got[:2] == want[:2] and abs(got[2] - want[2]) < 1e-12, (case, tau, limit, sms, got, want)
    print("self-check passed")


def main():
    def more(ap):
        ap.add_argument("--table-bytes", type=int, default=BUDGET_BYTES, help="bytes a window may take (default: the H200's budget)")
        ap.add_argument("--max-windows", type=int, default=MAX_WINDOWS, help="most windows of a wide dense row")
        ap.add_argument("--max-walk", type=int, default=MAX_WALK, help="most products walked (products times windows), or the floor of the adaptive cap")
        ap.add_argument("--sm-count", type=int, default=SM_COUNT, help="SMs the adaptive walk cap divides by (0: the fixed cap --max-walk)")

    args = model_args(__doc__, "15,16", self_check, more)
    limit = max_dense_span(args.table_bytes)
    totals = {}
    if args.set in ("rmat", "both"):
        for name, a, b in rmat_products(args.scales, np.float32):
            totals[name] = classify(a, b, limit=limit, max_windows=args.max_windows, max_walk=args.max_walk, sm_count=args.sm_count)
    if args.set in ("shared", "both"):
        for name, a, b in shared_squares():
            totals[name] = classify(a, b, limit=limit, max_windows=args.max_windows, max_walk=args.max_walk, sm_count=args.sm_count)
    with_heavy = {k: v for k, v in totals.items() if v[0] > 0}
    for name, (heavy, counts, share, cap, longest) in with_heavy.items():
        wide = sum(counts.values())
        by_windows = ", ".join(f"{c} in {w}" for w, c in sorted(counts.items())) or "-"
        print(f"{name:24s} heavy rows {heavy:7d}  wide dense {wide:7d} ({by_windows}; {100 * share:5.1f} % of the heavy products; "
              f"walk cap {cap}, longest {longest})  " + ("no heavy row left" if heavy == wide else f"{heavy - wide} heavy"))
    lost = sum(1 for h, c, *_ in with_heavy.values() if h == sum(c.values()))
    print(f"{len(totals)} products, {len(with_heavy)} with heavy rows, {lost} of them without any left")
    return 0


if __name__ == "__main__":
    sys.exit(main())
