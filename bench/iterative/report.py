#!/usr/bin/env python3
# bench/iterative/report.py: turns bench_iterative JSON files into docs/performance/iterative-cpu.md (targets, tables).
# usage: report.py [--notes NOTES.md] RUN.json...   (markdown on stdout; NOTES.md is copied in after the targets)
import json
import sys


def fmt(v, digits=3):
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def context_line(doc, path):
    ctx = doc["context"]
    load = f"load average {doc['loadavg_start']} at start, {doc['loadavg_end']} at end" if doc.get("loadavg_start") else "load average not recorded"
    return (f"`{path}` — part `{doc.get('only', 'all')}`{' (--full)' if doc.get('full') else ''}: commit `{ctx.get('commit', '?')}`, "
            f"{ctx.get('date', '?')}, {ctx.get('cpu', '?')}, {ctx.get('cores', '?')} cores, {ctx.get('threads', '?')} threads, "
            f"{ctx.get('compiler', '?')}; best of {doc.get('repeats', 1)} per solve; {load}.")


def solves_table(recs):
    out = ["| problem | solver | ordering (chosen) | sweeps | iterations | depth | setup s | solve s | total s | converged |",
           "|---|---|---|---|---:|---:|---:|---:|---:|---|"]
    for r in recs:
        if r["solver"] == "gigasparse":
            order = f"{r.get('requested', '')} ({r.get('ordering', '')})"
            if r.get("variant"):
                order = r["variant"]
        else:
            order = "—"
        out.append(f"| {r['problem']} | {r['solver']} {r['method']} | {order} | {r.get('sync', '—')} | {r['iterations']} | {r.get('depth', '—')} | "
                   f"{fmt(r['setup'])} | {fmt(r['solve'])} | {fmt(r['total'])} | {r['converged']} |")
    return out


def tables(doc, path):
    out = [context_line(doc, path), ""]
    recs = doc["records"]
    solves = [r for r in recs if r["kind"] == "solve" and not r.get("variant")]
    if solves:
        out += solves_table(solves) + [""]
    variants = [r for r in recs if r["kind"] == "solve" and r.get("variant")]
    if variants:
        out += ["DC variants (iterations against depth):", ""] + solves_table(variants) + [""]
    sweeps = [r for r in recs if r["kind"] == "sweep"]
    if sweeps:
        base = next((r["seconds"] for r in sweeps if r["sync"] == "sequential" and r["ordering"] == "natural"), None)
        out += ["| problem | ordering | sync | threads | depth | subgraphs | parallelism | ms per sweep | speed-up vs sequential |",
                "|---|---|---|---:|---:|---:|---:|---:|---:|"]
        for r in sweeps:
            sp = f"{base / r['seconds']:.2f}x" if base else "—"
            out.append(f"| {r['problem']} | {r['ordering']} | {r['sync']} | {r['threads']} | {r['depth']} | {r['subgraphs']} | "
                       f"{r['parallelism']:.1f} | {r['seconds'] * 1e3:.3f} | {sp} |")
        out.append("")
    lusgs = [r for r in recs if r["kind"] == "lusgs"]
    if lusgs:
        out += ["| problem | ordering | depth | residual after 10 sweeps | ms per sweep pair |", "|---|---|---:|---:|---:|"]
        for r in lusgs:
            out.append(f"| {r['problem']} | {r['ordering']} | {r['depth']} | {r['residual_after_10']:.3e} | {r['sweep_seconds'] * 1e3:.3f} |")
        out.append("")
    autos = [r for r in recs if r["kind"] == "solve" and r.get("auto_reason")]
    if autos:
        out += ["Why `auto` chose (auto_reason):", ""]
        for r in autos:
            out.append(f"* {r['problem']}: {r['auto_reason']}")
        out.append("")
    return out


def targets(docs):
    """The issue's targets, from whichever runs hold the needed records (each row names its run)."""
    out = ["| target | problem | measured | run | verdict |", "|---|---|---|---|---|"]
    for path, doc in docs:
        recs = doc["records"]
        probs = sorted({r["problem"] for r in recs if r["kind"] == "solve"})
        for p in probs:
            g = [r for r in recs if r["kind"] == "solve" and r["problem"] == p and r["solver"] == "gigasparse" and not r.get("variant")]
            conv = [r for r in g if r["converged"]]
            fixed = [r for r in conv if r.get("requested") != "auto"]
            eig = [r for r in recs if r["kind"] == "solve" and r["problem"] == p and r["solver"] == "eigen" and r["converged"]]
            if (p.startswith("poisson3d-100") or p.startswith("poisson2d-512")) and fixed and eig:
                best = min(fixed, key=lambda r: r["total"])
                ratio = best["total"] / eig[0]["total"]
                out.append(f"| ILU(0)/IC(0) time to solution <= 0.5x Eigen | {p} | best fixed {best['requested']} {best['total']:.3f} s vs Eigen "
                           f"{eig[0]['total']:.3f} s = {ratio:.2f}x | `{path}` | {'met' if ratio <= 0.5 else 'missed'} |")
            nat = next((r for r in conv if r.get("requested") == "natural"), None)
            dc = next((r for r in conv if r.get("requested") == "dc"), None)
            if p.startswith("poisson3d-100") and nat and dc:
                pen = dc["iterations"] / nat["iterations"] - 1
                out.append(f"| DC iterations within 15% of natural | {p} | dc {dc['iterations']} vs natural {nat['iterations']} ({pen * 100:+.0f}%) "
                           f"| `{path}` | {'met' if pen <= 0.15 else 'missed'} |")
            au = next((r for r in conv if r.get("requested") == "auto"), None)
            if au and fixed and (p.startswith("aniso") or p.startswith("convdiff")):
                best = min(fixed, key=lambda r: r["total"])
                ratio = au["total"] / best["total"]
                out.append(f"| auto <= 1.1x best fixed ordering (time to solution incl. probes) | {p} | auto ({au['ordering']}) {au['total']:.3f} s "
                           f"vs best fixed {best['requested']} {best['total']:.3f} s = {ratio:.2f}x | `{path}` | {'met' if ratio <= 1.10 else 'missed'} |")
        sweeps = [r for r in recs if r["kind"] == "sweep" and r["problem"].startswith("poisson3d-100")]
        seq = next((r for r in sweeps if r["sync"] == "sequential" and r["ordering"] == "natural"), None)
        dcs = [r for r in sweeps if r["ordering"] == "dc" and r["sync"] != "sequential"]
        if seq and dcs:
            best = min(dcs, key=lambda r: r["seconds"])
            sp = seq["seconds"] / best["seconds"]
            out.append(f"| DC sweep >= 1.7x sequential on 2 threads | {best['problem']} | dc {best['sync']} {best['seconds'] * 1e3:.2f} ms vs "
                       f"sequential {seq['seconds'] * 1e3:.2f} ms = {sp:.2f}x | `{path}` | {'met' if sp >= 1.7 else 'missed'} |")
    return out


HEADER = """<!-- docs/performance/iterative-cpu.md: generated by bench/iterative/report.py from bench/iterative/results/*.json; do not edit by hand. -->
# Iterative solvers on CPU: measured figures

Commands (build dir `build/iter`, Release, GCC 12.2; every run under `flock /tmp/gs-bench.lock`, `OMP_WAIT_POLICY=passive`):

```
cmake -S . -B build/iter -G Ninja -DCMAKE_BUILD_TYPE=Release -DGIGASPARSE_CUDA=OFF
cmake --build build/iter --target bench_iterative
OMP_WAIT_POLICY=passive build/iter/bench/iterative/bench_iterative --only-3d 100 --out R.json        # 3D Poisson 100³: sweeps, solves, Eigen, hypre
OMP_WAIT_POLICY=passive build/iter/bench/iterative/bench_iterative --full --only PARTS [--repeat R] --out R.json
    # PARTS from poisson2d,poisson3d,aniso,convdiff,bcsstk13,cage8,sweeps,dcvariants,lusgs
python3 bench/iterative/report.py --notes bench/iterative/results/notes.md R1.json R2.json ... > docs/performance/iterative-cpu.md
```

Setup of every solve: b = 1, x0 = 0, relative residual 1e-8; SPD problems IC(0)-PCG, the others ILU(0)-BiCGStab.
Eigen: `ConjugateGradient<Lower|Upper, IncompleteCholesky>` (AMD ordering, diagonal shift: not IC(0)) and
`BiCGSTAB<IncompleteLUT>` (fill-in: much stronger than ILU(0)). hypre 2.26 (Debian, one MPI rank, built without
OpenMP): PCG/BiCGSTAB with `HYPRE_ILU` type 0 level 0 (= ILU(0) in natural order) and, as the reference of a
scalable preconditioner, BoomerAMG (defaults, one V-cycle). `auto` includes its probes and model in "setup". `--repeat R` runs every solve R times and keeps the
fastest (the machine is shared: see the load averages). The driver fixes glibc's mmap threshold (128 KiB): with
the default dynamic threshold, large arrays allocated late in a run came from the heap instead of fresh mappings
and the same solve ran 10–25% slower than early in the run.
"sweeps" says how the chosen preconditioner runs its triangular sweeps (an auto choice of natural runs them sequentially).
The DC-sweep target row takes the faster of DC's p2p and barrier schedules.
"""


if __name__ == "__main__":
    args = sys.argv[1:]
    notes = None
    if args[:1] == ["--notes"]:
        notes, args = args[1], args[2:]
    docs = []
    for path in args:
        with open(path) as f:
            docs.append((path, json.load(f)))
    print(HEADER)
    print("## Targets of issue 6 (2 threads, this machine)\n")
    print("\n".join(targets(docs)))
    print()
    if notes:
        with open(notes) as f:
            print(f.read())
    for path, doc in docs:
        print(f"## Run: {path}\n")
        print("\n".join(tables(doc, path)))
