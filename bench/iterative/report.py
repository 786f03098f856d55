#!/usr/bin/env python3
# bench/iterative/report.py: turns bench_iterative JSON files into the markdown tables of docs/performance/iterative-cpu.md.
import json
import sys


def fmt(v, digits=3):
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def tables(doc):
    ctx = doc["context"]
    out = [f"Run: commit `{ctx.get('commit', '?')}`, {ctx.get('date', '?')}, host `{ctx.get('host', '?')}`, "
           f"{ctx.get('cpu', '?')}, {ctx.get('cores', '?')} cores, {ctx.get('threads', '?')} threads, {ctx.get('compiler', '?')}.", ""]
    solves = [r for r in doc["records"] if r["kind"] == "solve"]
    if solves:
        out += ["| problem | solver | ordering (chosen) | iterations | depth | setup s | solve s | total s | converged |",
                "|---|---|---|---|---|---|---|---|---|"]
        for r in solves:
            order = f"{r.get('requested', '')} ({r.get('ordering', '')})" if r["solver"] == "gigasparse" else "—"
            out.append(f"| {r['problem']} | {r['solver']} {r['method']} | {order} | {r['iterations']} | {r.get('depth', '—')} | "
                       f"{fmt(r['setup'])} | {fmt(r['solve'])} | {fmt(r['total'])} | {r['converged']} |")
        out.append("")
    sweeps = [r for r in doc["records"] if r["kind"] == "sweep"]
    if sweeps:
        base = next((r["seconds"] for r in sweeps if r["sync"] == "sequential"), None)
        out += ["| problem | ordering | sync | threads | depth | subgraphs | parallelism | ms per sweep | speed-up vs sequential |",
                "|---|---|---|---|---|---|---|---|---|"]
        for r in sweeps:
            sp = f"{base / r['seconds']:.2f}x" if base else "—"
            out.append(f"| {r['problem']} | {r['ordering']} | {r['sync']} | {r['threads']} | {r['depth']} | {r['subgraphs']} | "
                       f"{r['parallelism']:.1f} | {r['seconds'] * 1e3:.3f} | {sp} |")
        out.append("")
    lusgs = [r for r in doc["records"] if r["kind"] == "lusgs"]
    if lusgs:
        out += ["| problem | ordering | depth | residual after 10 sweeps | ms per sweep pair |", "|---|---|---|---|---|"]
        for r in lusgs:
            out.append(f"| {r['problem']} | {r['ordering']} | {r['depth']} | {r['residual_after_10']:.3e} | {r['sweep_seconds'] * 1e3:.3f} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        with open(path) as f:
            print(f"### {path}\n")
            print(tables(json.load(f)))
