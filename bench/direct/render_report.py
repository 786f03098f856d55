#!/usr/bin/env python3
# bench/direct/render_report.py: renders bench_direct JSON into docs/performance/direct-cpu.md tables.
import json
import math
import sys


def fmt(x, digits=3):
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    if x == 0:
        return "0"
    if abs(x) >= 1e5 or abs(x) < 1e-3:
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}g}"


def main(path):
    data = json.load(open(path))
    ctx = data["context"]
    rows = data["results"]
    print("| matrix | n | ordering (gs / cm) | nnz(L) gs | nnz(L) cm | nnz(L) gs, cm order | analyze gs | analyze cm | "
          "factor gs | factor cm | factor ratio | GF/s gs | solve gs | solve cm | residual gs | refinement |")
    print("|" + "---|" * 16)
    ratios = []
    for r in rows:
        g, c, s = r["gigasparse"], r["cholmod"], r["gigasparse_cholmod_ordering"]
        gt, ct = g["times"], c["times"]
        ratio = gt["refactorize"] / ct["refactorize"] if ct["refactorize"] > 0 else float("nan")
        ratios.append(ratio)
        print(f"| {r['matrix'].split('/')[-1]} | {r['n']} | {g['ordering']} / {c['ordering']} | {fmt(g['nnz_L'])} | "
              f"{fmt(c['nnz_L'])} | {fmt(s['nnz_L'])} | {fmt(gt['analyze'])} s | {fmt(ct['analyze'])} s | "
              f"{fmt(gt['refactorize'])} s | {fmt(ct['refactorize'])} s | {ratio:.2f} | {fmt(g['gflops_per_s'])} | "
              f"{fmt(gt['solve'])} s | {fmt(ct['solve'])} s | {fmt(g['residual'])} | {g['refinement_steps']} |")
    gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    print()
    print(f"Geometric mean of the factorization time ratio gigasparse / CHOLMOD: **{gm:.2f}** over {len(ratios)} matrices.")
    print()
    print("Context: " + ", ".join(f"{k} = {v}" for k, v in ctx.items()))


if __name__ == "__main__":
    main(sys.argv[1])
