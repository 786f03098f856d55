#!/usr/bin/env python3
"""bench/iterative/complex_flag_ab.py: what -fcx-fortran-rules changes in complex solves (run it once per build:
PYTHONPATH=<build>/python, one build configured with -DGIGASPARSE_HAVE_CX_FORTRAN_RULES=OFF). Complex 36³ problems:
hpd = P + 0.1 I + 0.05 i S (Cholesky LLᴴ), gen = P − (0.3 + 0.03 i) I + 0.2 triu(P) (LU); each the direct solver's
factorize and solve (best of 3) and ILU(0)-BiCGStab on the DC ordering (best of 3)."""
import sys, time, numpy as np, scipy.sparse as sp, gigasparse as gs
n = 36
p = sp.csr_array(gs.generate.poisson3d(n)).astype(np.complex128)
N = p.shape[0]
up = np.ones(N - 1); up[np.arange(1, N) % n == 0] = 0.0
skew = sp.diags([-up, up], [-1, 1], shape=p.shape)
cases = {"hpd": sp.csr_array(p + 0.1 * sp.identity(N) + 0.05j * skew),
         "gen": sp.csr_array(p - (0.3 + 0.03j) * sp.identity(N) + 0.2 * sp.triu(p, 1))}
# iterative too: complex ILU(0)-BiCGStab, the sweeps and SpMV in complex arithmetic
for name, a in cases.items():
    b = a @ np.ones(N, dtype=np.complex128)
    best = {}
    for rep in range(3):
        s = gs.DirectSolver(a, structure=name)
        t = time.perf_counter(); s.analyze(); t1 = time.perf_counter(); s.factorize(); t2 = time.perf_counter(); x = s.solve(b); t3 = time.perf_counter()
        for k, v in (("factorize", t2 - t1), ("solve", t3 - t2)):
            best[k] = min(best.get(k, 1e9), v)
    it = 1e9
    for rep in range(3):
        t = time.perf_counter(); xi, info = gs.bicgstab(a, b, rtol=1e-8, M="ilu0", ordering="dc", maxiter=3000); it = min(it, time.perf_counter() - t)
    print(name, "factorize %.3f s, solve %.4f s, ilu0-bicgstab %.3f s (%d it), err %.1e" % (best["factorize"], best["solve"], it, info.iterations, np.abs(x - 1).max()))
