"""Repeated one-right-hand-side solves with one factorization: best and median time per solve.

Usage: PYTHONPATH=build/release/python OMP_NUM_THREADS=2 python3 bench/direct/solve_repeat.py MATRIX [REPEATS]
           [--structure spd|sym|herm|gen] [--trans N,T,H] [--superlu] [--nrhs K [--one-at-a-time]] [--upper-scale S]
MATRIX: lap2d:N, lap3d:N, convdiff2d:N, convdiff3d:N (convection-diffusion, b = (5, 1[, 0.5])) or a Matrix
Market file. Each solve includes what DirectSolver.solve does by default: permutation, forward and backward
sweeps, the residual and the backward-error check (and a refinement step where one is needed). --trans lists
the systems to time (A x = b, Aᵀ x = b, Aᴴ x = b), each from the one factorization; --superlu also times
scipy's SuperLU (sequential, its own factorization) on the same systems, as a reference. --nrhs K solves K
right-hand sides at once (b = columns of ones scaled 1..K); --one-at-a-time then times K one-column solves instead,
for comparison. --upper-scale S multiplies the strict upper triangle by S (an unsymmetric matrix for
--structure gen from a symmetric generator).
"""
import argparse
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import gigasparse as gs


def load(name):
    kind, _, size = name.partition(":")
    if kind == "lap3d":
        return gs.generate.poisson3d(int(size))
    if kind == "lap2d":
        return gs.generate.poisson2d(int(size))
    if kind == "convdiff2d":
        return gs.generate.convection_diffusion(int(size), b=(5.0, 1.0))
    if kind == "convdiff3d":
        k = int(size)
        return gs.generate.convection_diffusion(k, k, k, b=(5.0, 1.0, 0.5))
    return gs.read_mtx(name)


def timed(solve, b, reps):
    solve(b)  # the first solve also computes ||A|| for the backward error
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        solve(b)
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[0], times[len(times) // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("matrix")
    p.add_argument("repeats", nargs="?", type=int, default=60)
    p.add_argument("--structure", default="spd")
    p.add_argument("--trans", default="N")
    p.add_argument("--superlu", action="store_true")
    p.add_argument("--refine", type=int, default=2, help="refinement_steps (2: the default)")
    p.add_argument("--nrhs", type=int, default=1, help="right-hand sides per solve")
    p.add_argument("--one-at-a-time", action="store_true", help="with --nrhs: one column per solve call")
    p.add_argument("--upper-scale", type=float, default=1.0, help="scale of the strict upper triangle")
    args = p.parse_args()
    a = sp.csr_array(load(args.matrix))
    if args.upper_scale != 1.0:
        a = sp.csr_array(sp.tril(a) + args.upper_scale * sp.triu(a, 1))
    s = gs.DirectSolver(a, structure=args.structure, refinement_steps=args.refine)
    s.factorize()
    b = np.ones(a.shape[0]) if args.nrhs == 1 else np.outer(np.ones(a.shape[0]), np.arange(1.0, args.nrhs + 1))
    lu = spla.splu(sp.csc_array(a)) if args.superlu else None
    for trans in args.trans.split(","):
        if args.nrhs > 1 and args.one_at_a_time:
            solve = lambda v: [s.solve(v[:, k], trans=trans) for k in range(v.shape[1])]  # noqa: E731
        else:
            solve = lambda v: s.solve(v, trans=trans)  # noqa: E731
        best, median = timed(solve, b, args.repeats)
        cols = "" if args.nrhs == 1 else f", {args.nrhs} right-hand sides{' one at a time' if args.one_at_a_time else ''}"
        line = (f"{args.matrix} {trans}: n = {a.shape[0]}{cols}, solve best {best * 1e3:.3f} ms, median {median * 1e3:.3f} ms "
                f"({args.repeats} solves, {s.last_solve['refinement_steps']} refinement steps, backward error "
                f"{s.last_solve['backward_error']:.1e})")
        if lu is not None:
            lbest, _ = timed(lambda v: lu.solve(v, trans=trans), b, args.repeats)
            line += f"; SuperLU best {lbest * 1e3:.3f} ms"
        print(line, flush=True)


if __name__ == "__main__":
    main()
