#!/usr/bin/env python3
"""gigasparse from Python, notebook style: square a graph's adjacency matrix (SpGEMM) and solve a
Poisson problem (direct and iterative), timing each step against scipy.

    python python/examples/demo.py               # R-MAT graph of 2^14 vertices, 200x200 Poisson grid
    python python/examples/demo.py --scale 16 --grid 400
    python python/examples/demo.py --graph ../shared/matrices/email-Enron.mtx.gz
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import gigasparse as gs


def timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=int, default=14, help="R-MAT scale (2^scale vertices)")
    p.add_argument("--edge-factor", type=float, default=8)
    p.add_argument("--graph", help="a Matrix Market graph instead of R-MAT")
    p.add_argument("--grid", type=int, default=200, help="Poisson grid side (n x n unknowns)")
    args = p.parse_args()
    print(f"gigasparse {gs.__version__} (CUDA backend: {gs.with_cuda}, GPUs: {gs.cuda_device_count()})")

    # --- 1. a graph, squared: paths of length two -------------------------------------------
    if args.graph:
        a, t = timed(gs.read_mtx, args.graph)
        print(f"\n[graph] read {args.graph}: {a.shape[0]} vertices, {a.nnz} edges in {t:.3f} s")
    else:
        a, t = timed(gs.generate.rmat, args.scale, args.edge_factor, seed=1, symmetrize=True)
        print(f"\n[graph] R-MAT scale {args.scale}: {a.shape[0]} vertices, {a.nnz} edges in {t:.3f} s")
    (c, stats), t_gs = timed(gs.spgemm, a, a, return_stats=True)
    c_sp, t_sp = timed(lambda: a @ a)
    same = c.shape == c_sp.shape and abs(c - c_sp).max() == 0
    print(f"[spgemm] C = A @ A: nnz(C) = {c.nnz}, {stats['flops'] / 1e6:.1f} Mflop")
    print(f"  gigasparse ({stats['backend']}, {stats['threads']} threads): {t_gs:.3f} s   scipy: {t_sp:.3f} s   "
          f"speedup {t_sp / t_gs:.1f}x   identical: {same}")
    plan = gs.SpgemmPlan(a, a)
    _, t_num = timed(plan.numeric, a, a)
    print(f"  reusing a SpgemmPlan (numeric phase only): {t_num:.3f} s")

    # --- 2. a Poisson problem -Δu = 1 on the unit square --------------------------------------
    n = args.grid
    A = gs.generate.poisson2d(n)
    b = np.ones(A.shape[0]) / (n + 1) ** 2
    print(f"\n[poisson] {n} x {n} grid: {A.shape[0]} unknowns, {A.nnz} nonzeros")
    solver = gs.DirectSolver(A, "spd")
    x, t_gs = timed(solver.solve, b)
    x_sp, t_sp = timed(spla.spsolve, sp.csc_array(A), b)
    print(f"[direct] Cholesky ({solver.ordering} ordering, nnz(L) = {solver.nnz_L}, {solver.flops / 1e6:.1f} Mflop):")
    print(f"  gigasparse analyze+factorize+solve: {t_gs:.3f} s   scipy spsolve (SuperLU): {t_sp:.3f} s   "
          f"max |x - x_scipy| = {np.abs(x - x_sp).max():.2e}")
    x2, t2 = timed(solver.solve, b)
    print(f"  gigasparse solve with the factor kept: {t2:.4f} s  (backward error {solver.last_solve['backward_error']:.1e})")

    M, t_setup = timed(gs.ic0, A, ordering="dc")
    (x, info), t_gs = timed(gs.cg, A, b, rtol=1e-8, M=M)
    count = [0]
    jacobi = spla.LinearOperator(A.shape, lambda r: r / 4.0)
    (x_sp, info_sp), t_sp = timed(spla.cg, A, b, rtol=1e-8, M=jacobi, callback=lambda _: count.__setitem__(0, count[0] + 1))
    print(f"[iterative] PCG, IC(0) on a divide-and-conquer ordering (setup {t_setup:.3f} s, sweep depth "
          f"{M.info['depth']}): {info.iterations} iterations, residual {info.residual:.1e}, {t_gs:.3f} s")
    print(f"  scipy cg with Jacobi: {count[0]} iterations, {t_sp:.3f} s (info {info_sp})   "
          f"max |x - x_scipy| = {np.abs(x - x_sp).max():.1e}")
    print(f"  residual history (every 10th): {np.array2string(info.residual_history[::10][:8], precision=1)}")


if __name__ == "__main__":
    main()
