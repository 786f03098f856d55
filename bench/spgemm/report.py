#!/usr/bin/env python3
# bench/spgemm/report.py: renders bench_spgemm JSON into the Markdown table of docs/performance/spgemm-cpu.md.
# usage: report.py RESULTS.json [MORE.json ...] > table.md   (several files: results concatenated in order)
import json
import math
import sys


def gflops(r, who):
    return r.get("gflops", {}).get(who)


def cell(v, fmt="{:.3f}"):
    return "–" if v is None else fmt.format(v)


def main(paths):
    results, context = [], None
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        context = context or d.get("context")
        results += d["results"]
    print("| input | rows | nnz(A) | products | nnz(C) | gigasparse GFLOP/s | reference | GraphBLAS | MKL | × GraphBLAS | × MKL "
          "| setup / symbolic / numeric (ms) | × bandwidth bound | checks |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|")
    logs = {"graphblas": [], "mkl": []}
    for r in results:
        if "times" not in r:
            print(f"| {r['input']} | {r['nrows']} | {r['nnz_a']} | {r['products']:.0f} | skipped: {r.get('skipped', '')} |||||||||")
            continue
        t = r["times"]
        sp = {}
        for who in logs:
            if who in t:
                sp[who] = t[who] / t["gigasparse"]
                logs[who].append(math.log(sp[who]))
        ph = r["phases"]
        phases = "{:.1f} / {:.1f} / {:.1f}".format(ph["setup"] * 1e3, ph["symbolic"] * 1e3, ph["numeric"] * 1e3)
        checks = ", ".join(f"{k}: {v}" for k, v in r["checks"].items())
        print(f"| {r['input']} | {r['nrows']} | {r['nnz_a']} | {r['products']:.0f} | {r['nnz_c']} | {cell(gflops(r, 'gigasparse'))} "
              f"| {cell(gflops(r, 'reference'))} | {cell(gflops(r, 'graphblas'))} | {cell(gflops(r, 'mkl'))} "
              f"| {cell(sp.get('graphblas'), '{:.2f}')} | {cell(sp.get('mkl'), '{:.2f}')} | {phases} | {r['times_bound']:.1f} | {checks} |")
    print()
    for who, l in logs.items():
        if l:
            print(f"- geometric-mean speedup over {who}: **{math.exp(sum(l) / len(l)):.2f}×** on {len(l)} inputs")
    if context:
        print("\nrun context: " + ", ".join(f"{k} = {v}" for k, v in context.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
