#!/usr/bin/env python3
"""bench/iterative/krylov_vs_scipy.py: complex and indefinite Krylov solves, gigasparse against scipy.sparse.linalg, in one run.

Two complex systems from the 7-point Laplacian P of an n³ grid (b = A · (1 + i), x0 = 0, relative residual tol):
  herm   A = P + 0.1 I + 0.05 i S (S the real skew-symmetric ±1 of the x-neighbours): Hermitian positive definite
  helm   A = P − (0.3 + 0.03 i) I: a lossy shifted Laplacian (complex symmetric, not Hermitian, indefinite real part)
herm: CG (gigasparse: none, Jacobi, IC(0) = L Lᴴ on natural, dc, auto orderings; scipy: none, Jacobi as a
LinearOperator). helm: GMRES(30) and BiCGStab (gigasparse: none, ILU(0) natural / dc; scipy: none, and spilu with
fill_factor 1 as its nearest ILU). And a real symmetric indefinite one, indef = P − 0.3 I: MINRES (gigasparse: none,
Jacobi; scipy: none). Each solve is timed whole (preconditioner setup + iterations), best of --repeat;
the true residual ||b − A x|| / ||b|| of every result is checked. Threads: OMP_NUM_THREADS (gigasparse); scipy's
solvers run on one core (its SpMV is sequential).

  python3 bench/iterative/krylov_vs_scipy.py [--n 64] [--tol 1e-8] [--repeat 3] [--json out.json] [--markdown]
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
import scipy.sparse.linalg as spla

import gigasparse as gs


def problems(n: int) -> dict[str, sp.csr_array]:
    p = sp.csr_array(gs.generate.poisson3d(n)).astype(np.complex128)
    size = p.shape[0]
    # x-neighbours i, i+1 in the same grid line (the generator numbers x fastest)
    up = np.ones(size - 1)
    up[np.arange(1, size) % n == 0] = 0.0
    skew = sp.diags([-up, up], [-1, 1], shape=p.shape)
    return {
        "herm": sp.csr_array(p + 0.1 * sp.identity(size) + 0.05j * skew),
        "helm": sp.csr_array(p - (0.3 + 0.03j) * sp.identity(size)),
        "indef": sp.csr_array((p - 0.3 * sp.identity(size)).real),
    }


class Counter:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self, *_: object) -> None:
        self.n += 1


def timed(run, repeat: int):
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        x, its, ok = run()
        dt = time.perf_counter() - t
        if best is None or dt < best[0]:
            best = (dt, x, its, ok)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--maxiter", type=int, default=5000)
    ap.add_argument("--json")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args()
    tol, maxit = args.tol, args.maxiter
    mats = problems(args.n)
    rows = []

    def record(problem: str, solver: str, run) -> None:
        a = mats[problem]
        b = a @ np.full(a.shape[0], 1 + 1j if a.dtype.kind == "c" else 1.0)
        dt, x, its, ok = timed(lambda: run(a, b), args.repeat)
        res = float(np.linalg.norm(b - a @ x) / np.linalg.norm(b))
        rows.append({"problem": problem, "solver": solver, "seconds": dt, "iterations": int(its), "converged": bool(ok),
                     "true_residual": res})
        print(f"  {problem:5s} {solver:34s} {dt:8.3f} s {its:6d} it  residual {res:.1e}{'' if ok else '  NOT converged'}",
              file=sys.stderr, flush=True)

    def gs_run(method, M=None, ordering=None):
        def run(a, b):
            x, info = method(a, b, rtol=tol, maxiter=maxit, M=M, ordering=ordering)
            return x, info.iterations, info == 0
        return run

    def sp_cg(M=None):
        def run(a, b):
            c = Counter()
            m = None
            if M == "jacobi":
                d = 1.0 / a.diagonal()
                m = spla.LinearOperator(a.shape, matvec=lambda v: d * v, dtype=a.dtype)
            x, info = spla.cg(a, b, rtol=tol, maxiter=maxit, M=m, callback=c)
            return x, c.n, info == 0
        return run

    def sp_krylov(kind, ilu=False):
        def run(a, b):
            c = Counter()
            m = None
            if ilu:
                f = spla.spilu(sp.csc_array(a), fill_factor=1.0, drop_tol=0.0)
                m = spla.LinearOperator(a.shape, matvec=f.solve, dtype=a.dtype)
            if kind == "gmres":
                x, info = spla.gmres(a, b, rtol=tol, restart=30, maxiter=maxit // 30 + 1, M=m, callback=c,
                                     callback_type="pr_norm")
            else:
                x, info = spla.bicgstab(a, b, rtol=tol, maxiter=maxit, M=m, callback=c)
            return x, c.n, info == 0
        return run

    print(f"complex Krylov solves, n = {args.n} ({mats['herm'].shape[0]:,} unknowns), tol {tol}", file=sys.stderr)
    record("herm", "gigasparse cg", gs_run(gs.cg))
    record("herm", "gigasparse cg jacobi", gs_run(gs.cg, "jacobi"))
    for o in ("natural", "dc", "auto"):
        record("herm", f"gigasparse cg ic0 {o}", gs_run(gs.cg, "ic0", o))
    record("herm", "scipy cg", sp_cg())
    record("herm", "scipy cg jacobi", sp_cg("jacobi"))
    for kind, method in (("gmres", gs.gmres), ("bicgstab", gs.bicgstab)):
        record("helm", f"gigasparse {kind}", gs_run(method))
        for o in ("natural", "dc"):
            record("helm", f"gigasparse {kind} ilu0 {o}", gs_run(method, "ilu0", o))
        record("helm", f"scipy {kind}", sp_krylov(kind))
        record("helm", f"scipy {kind} spilu(fill 1)", sp_krylov(kind, ilu=True))

    def sp_minres(a, b):
        c = Counter()
        x, info = spla.minres(a, b, rtol=tol, maxiter=maxit, callback=c)
        return x, c.n, info == 0

    record("indef", "gigasparse minres", gs_run(gs.minres))
    record("indef", "gigasparse minres jacobi", gs_run(gs.minres, "jacobi"))
    record("indef", "scipy minres", sp_minres)

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    meta = {"n": args.n, "unknowns": int(mats["herm"].shape[0]), "tol": tol, "repeat": args.repeat, "commit": commit,
            "threads": os.environ.get("OMP_NUM_THREADS", str(os.cpu_count())), "scipy": scipy.__version__,
            "gigasparse": gs.__version__, "machine": platform.processor() or platform.machine(),
            "loadavg": os.getloadavg()}
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
    fastest = {}
    for r in rows:
        if r["converged"] and r["solver"].startswith("scipy"):
            fastest[r["problem"]] = min(fastest.get(r["problem"], np.inf), r["seconds"])
    sep = " | " if args.markdown else "  "
    head = ["problem", "solver", "seconds", "iterations", "true residual", "vs fastest scipy"]
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * 2 + "---:|" * 4)
    else:
        print(sep.join(head))
    for r in rows:
        speed = f"{fastest[r['problem']] / r['seconds']:.2f}x" if r["converged"] and r["problem"] in fastest else "—"
        cells = [r["problem"], r["solver"], f"{r['seconds']:.3f}", str(r["iterations"]) + ("" if r["converged"] else " (not converged)"),
                 f"{r['true_residual']:.1e}", speed]
        print(("| " + " | ".join(cells) + " |") if args.markdown else sep.join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
