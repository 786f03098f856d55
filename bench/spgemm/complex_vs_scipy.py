#!/usr/bin/env python3
"""bench/spgemm/complex_vs_scipy.py: complex SpGEMM C = A·A, gigasparse (MAGNUS, the cpu backend) against scipy.sparse
(`A @ A`, SciPy's sequential SMMP) and against gigasparse's own real product of the same pattern, in one run.

Inputs: R-MAT (Graph500 a=0.57, b=c=0.19, edge factor 16) at the scales given, values 1 + i·(a second R-MAT draw's
values); and the 7-point 3D Laplacian on n³ grids shifted by (0.3 + 0.03 i). Every result is compared with scipy's
(pattern and values, relative 1e-12). Times are best of --repeat; gigasparse on OMP_NUM_THREADS threads, scipy on one.

  python3 bench/spgemm/complex_vs_scipy.py [--rmat 14 16] [--grid 40] [--repeat 3] [--json out.json] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp

import gigasparse as gs


def best(f, repeat: int) -> tuple[float, object]:
    t, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        t = min(t, time.perf_counter() - t0)
    return t, out


def inputs(rmat_scales: list[int], grids: list[int]) -> dict[str, sp.csr_array]:
    cases = {}
    for s in rmat_scales:
        a = gs.generate.rmat(s, 16, seed=1)
        rng = np.random.default_rng(s)
        z = a.astype(np.complex128)
        z.data = z.data * (1 + 1j * rng.uniform(-1, 1, z.nnz))
        cases[f"rmat{s}"] = sp.csr_array(z)
    for n in grids:
        p = gs.generate.poisson3d(n)
        cases[f"lap3d_{n}"] = sp.csr_array(p.astype(np.complex128) - (0.3 + 0.03j) * sp.identity(p.shape[0], format="csr"))
    return cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rmat", type=int, nargs="*", default=[14, 16])
    ap.add_argument("--grid", type=int, nargs="*", default=[40])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    rows = []
    for name, a in inputs(args.rmat, args.grid).items():
        ar = sp.csr_array(a.real)  # the same pattern, real values (explicit zeros kept: the same products)
        ar.data = np.abs(a.data)
        print(f"{name}: n {a.shape[0]:,}, nnz {a.nnz:,}", file=sys.stderr)
        t_gs, c = best(lambda: gs.spgemm(a, a, backend="cpu"), args.repeat)
        t_sp, ref = best(lambda: a @ a, args.repeat)
        t_real, cr = best(lambda: gs.spgemm(ar, ar, backend="cpu"), args.repeat)
        _, stats = gs.spgemm(a, a, backend="cpu", return_stats=True)
        ref = sp.csr_array(ref)
        ref.sort_indices()
        same_pattern = bool(np.array_equal(c.indptr, ref.indptr) and np.array_equal(c.indices, ref.indices))
        err = float(abs(c - ref).max() / max(abs(ref).max(), 1e-300))
        rows.append({"case": name, "n": int(a.shape[0]), "nnz_a": int(a.nnz), "nnz_c": int(c.nnz), "products": int(stats["products"]),
                     "gigasparse_s": t_gs, "scipy_s": t_sp, "gigasparse_real_s": t_real, "speedup_vs_scipy": t_sp / t_gs,
                     "complex_over_real": t_gs / t_real, "same_pattern": same_pattern, "max_rel_diff": err})
        print(f"  gigasparse {t_gs * 1e3:.1f} ms, scipy {t_sp * 1e3:.1f} ms ({t_sp / t_gs:.2f}x), real {t_real * 1e3:.1f} ms; "
              f"pattern {'same' if same_pattern else 'DIFFERS'}, max rel diff {err:.1e}", file=sys.stderr)
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    meta = {"commit": commit, "threads": os.environ.get("OMP_NUM_THREADS", str(os.cpu_count())), "scipy": scipy.__version__,
            "machine": platform.machine(), "loadavg": list(os.getloadavg()), "repeat": args.repeat}
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
    if args.markdown:
        print("| case | n | nnz(A) | nnz(C) | products | gigasparse | scipy | vs scipy | real, same pattern | complex / real | check |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in rows:
            print(f"| {r['case']} | {r['n']:,} | {r['nnz_a']:,} | {r['nnz_c']:,} | {r['products']:,} | {r['gigasparse_s'] * 1e3:.1f} ms | "
                  f"{r['scipy_s'] * 1e3:.1f} ms | {r['speedup_vs_scipy']:.2f}x | {r['gigasparse_real_s'] * 1e3:.1f} ms | {r['complex_over_real']:.2f} | "
                  f"{'same pattern' if r['same_pattern'] else 'PATTERN DIFFERS'}, {r['max_rel_diff']:.0e} |")
    return 0 if all(r["same_pattern"] and r["max_rel_diff"] < 1e-12 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
