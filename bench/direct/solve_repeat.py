"""Repeated one-right-hand-side solves with one factorization: best and median time per solve.

Usage: PYTHONPATH=build/release/python OMP_NUM_THREADS=2 python3 bench/direct/solve_repeat.py MATRIX [REPEATS]
MATRIX: lap2d:N, lap3d:N or a Matrix Market file (SPD). Each solve includes what DirectSolver.solve
does by default: permutation, forward and backward sweeps, the residual and the backward-error check
(no refinement step is needed on these inputs).
"""
import sys
import time

import numpy as np
import scipy.sparse as sp

import gigasparse as gs


def load(name):
    if name.startswith("lap3d:"):
        return gs.generate.poisson3d(int(name.split(":")[1]))
    if name.startswith("lap2d:"):
        return gs.generate.poisson2d(int(name.split(":")[1]))
    return gs.read_mtx(name)


def main():
    name = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    a = sp.csr_array(load(name))
    s = gs.DirectSolver(a, structure="spd")
    s.factorize()
    b = np.ones(a.shape[0])
    s.solve(b)  # the first solve also computes ||A|| for the backward error
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        s.solve(b)
        times.append(time.perf_counter() - t0)
    times.sort()
    print(f"{name}: n = {a.shape[0]}, solve best {times[0] * 1e3:.3f} ms, median {times[len(times) // 2] * 1e3:.3f} ms ({reps} solves)")


if __name__ == "__main__":
    main()
