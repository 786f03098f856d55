#!/usr/bin/env python3
# bench/spgemm/report.py: renders bench_spgemm JSON into the Markdown tables of docs/performance/spgemm-cpu.md
# and, with --plot, a PNG (GFLOP/s of every library per input, and our speedup over the best competitor).
# usage: report.py [--plot FILE.png] [--title TEXT] RESULTS.json [MORE.json ...] > tables.md
#        (several files: results concatenated in order; the run context of each file is listed)
import argparse
import json
import math

LIBS = ["graphblas", "mkl", "eigen"]
NAMES = {"gigasparse": "gigasparse", "reference": "reference", "graphblas": "GraphBLAS", "mkl": "MKL", "eigen": "Eigen"}


def cell(v, fmt="{:.3f}"):
    return "–" if v is None else fmt.format(v)


def speedups(r):
    t = r["times"]
    return {who: t[who] / t["gigasparse"] for who in LIBS if who in t}


def best_competitor(r):
    """Our speedup over the fastest competitor that ran (None when none ran)."""
    sp = speedups(r)
    return (min(sp.values()), min(sp, key=sp.get)) if sp else (None, None)


def set_of(r):
    name = r["input"]
    if name.startswith("rmat"):
        return "R-MAT"
    if name.startswith("poisson"):
        return "generated"
    return "shared matrices"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def mib(b):
    return "–" if b is None or b < 0 else f"{b / 2**20:.1f}"


def checks_cell(r):
    if not r["checks"]:
        return "not checked (no competitor run, reference too large)"
    bad = {k: v for k, v in r["checks"].items() if v != "ok" and not v.startswith("skipped")}
    if bad:
        return ", ".join(f"{k}: {v}" for k, v in bad.items())
    return "ok (" + ", ".join(k.replace("gigasparse_vs_", "") for k, v in r["checks"].items() if v == "ok") + ")"


def main_table(results):
    print("| input | rows | nnz(A) | products | nnz(C) | gigasparse GFLOP/s | reference | GraphBLAS | MKL | Eigen | × GraphBLAS | × MKL "
          "| × Eigen | × best | setup / symbolic / numeric (ms) | × bandwidth bound (STREAM / + first touch of C) | checks |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|")
    for r in results:
        if "times" not in r:
            print(f"| {r['input']} | {r['nrows']} | {r['nnz_a']} | {r['products']:.0f} | skipped: {r.get('skipped', '')} ||||||||||||")
            continue
        g = r.get("gflops", {})
        sp = speedups(r)
        best, who = best_competitor(r)
        ph = r["phases"]
        phases = "{:.1f} / {:.1f} / {:.1f}".format(ph["setup"] * 1e3, ph["symbolic"] * 1e3, ph["numeric"] * 1e3)
        best_cell = "–" if best is None else (f"**{best:.2f}**" if best < 0.8 else f"{best:.2f}") + f" ({NAMES[who]})"
        print(f"| {r['input']} | {r['nrows']} | {r['nnz_a']} | {r['products']:.0f} | {r['nnz_c']} | {cell(g.get('gigasparse'))} "
              f"| {cell(g.get('reference'))} | {cell(g.get('graphblas'))} | {cell(g.get('mkl'))} | {cell(g.get('eigen'))} "
              f"| {cell(sp.get('graphblas'), '{:.2f}')} | {cell(sp.get('mkl'), '{:.2f}')} | {cell(sp.get('eigen'), '{:.2f}')} | {best_cell} "
              f"| {phases} | {r['times_bound']:.1f} / {cell(r.get('times_bound_first_touch'), '{:.1f}')} | {checks_cell(r)} |")


def memory_table(results):
    rows = [r for r in results if "memory" in r]
    if not rows:
        return
    print("\n| input | C (MiB) | our extra heap (MiB) | of which per-thread buffers | plan arrays | extra beyond buffers, % of C "
          "| RSS peak of the first call (MiB): gigasparse / GraphBLAS / MKL / Eigen |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for r in rows:
        m = r["memory"]
        c = m["c_bytes"]
        beyond = m["gigasparse_extra_heap"] - m.get("gigasparse_workspace", 0)
        rss = " / ".join(mib(m.get("rss_peak_" + k)) for k in ["gigasparse"] + LIBS)
        print(f"| {r['input']} | {mib(c)} | {mib(m['gigasparse_extra_heap'])} | {mib(m.get('gigasparse_workspace'))} "
              f"| {mib(m.get('gigasparse_plan'))} | {100.0 * beyond / max(c, 1):.1f} | {rss} |")


def summary(results):
    sets = {}
    for r in results:
        if "times" in r:
            sets.setdefault(set_of(r), []).append(r)
            sets.setdefault("all", []).append(r)
    print("\n| set | inputs | × GraphBLAS (geo. mean) | × MKL (geo. mean) | × Eigen (geo. mean) | inputs below 0.8× the best competitor |")
    print("|---|---:|---:|---:|---:|---|")
    for name in ["R-MAT", "shared matrices", "generated", "all"]:
        rs = sets.get(name)
        if not rs:
            continue
        gm = {who: geomean([speedups(r)[who] for r in rs if who in speedups(r)]) for who in LIBS}
        low = [f"{r['input']} {best_competitor(r)[0]:.2f} ({NAMES[best_competitor(r)[1]]})" for r in rs
               if best_competitor(r)[0] is not None and best_competitor(r)[0] < 0.8]
        n = sum(1 for r in rs if speedups(r))
        alone = f" (+{len(rs) - n} without competitors)" if n < len(rs) else ""
        print(f"| {name} | {n}{alone} | {cell(gm['graphblas'], '{:.2f}')} | {cell(gm['mkl'], '{:.2f}')} | {cell(gm['eigen'], '{:.2f}')} "
              f"| {', '.join(low) if low else 'none'} |")


def plot(results, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = [r for r in results if "times" in r]
    names = [r["input"] for r in rs]
    libs = ["gigasparse"] + LIBS
    colors = {"gigasparse": "#1f77b4", "graphblas": "#2ca02c", "mkl": "#d62728", "eigen": "#9467bd"}
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(max(10, 0.55 * len(rs) + 3), 9), sharex=True,
                                   gridspec_kw={"height_ratios": [3, 2]})
    w = 0.8 / len(libs)
    for k, lib in enumerate(libs):
        xs = [i + (k - (len(libs) - 1) / 2) * w for i in range(len(rs))]
        ys = [r["gflops"].get(lib, 0) for r in rs]
        ax1.bar(xs, ys, w, label=NAMES[lib], color=colors[lib])
    ax1.set_yscale("log")
    ax1.set_ylabel("GFLOP/s (2 × multiplications / total time)")
    ax1.legend(ncol=4, fontsize=9)
    ax1.grid(axis="y", alpha=0.3)
    ax1.set_title(title)
    best = [best_competitor(r)[0] or float("nan") for r in rs]
    ax2.bar(range(len(rs)), best, 0.6, color=["#d62728" if b < 0.8 else "#1f77b4" for b in best])
    ax2.axhline(1.0, color="black", lw=0.8)
    ax2.axhline(0.8, color="#d62728", lw=0.8, ls="--", label="0.8× (target floor)")
    ax2.set_yscale("log")
    ax2.set_ylabel("speedup over the best competitor")
    ax2.legend(fontsize=9)
    ax2.grid(axis="y", alpha=0.3)
    ax2.set_xticks(range(len(rs)))
    ax2.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def merge_best(results):
    """Inputs measured in several runs (files): every library keeps its best time over the runs (the same rule for
    all, as within a run); our phases and memory come from the run of our best time; a check that failed in any
    run is shown."""
    merged, order = {}, []
    for r in results:
        name = r["input"]
        if name not in merged:
            merged[name] = json.loads(json.dumps(r))
            merged[name]["runs"] = 1
            order.append(name)
            continue
        m = merged[name]
        m["runs"] += 1
        if "times" not in r:
            continue
        if "times" not in m:
            merged[name] = r
            continue
        if r["times"]["gigasparse"] < m["times"]["gigasparse"]:
            for k in ("phases", "memory", "categories", "nnz_c"):
                if k in r:
                    m[k] = r[k]
        for who, t in r["times"].items():
            if who not in m["times"] or t < m["times"][who]:
                m["times"][who] = t
        for who, v in r["checks"].items():
            if v != "ok" and not v.startswith("skipped"):
                m["checks"][who] = v
            m["checks"].setdefault(who, v)
    out = []
    for name in order:
        m = merged[name]
        if "times" in m:
            flops = 2.0 * m["products"]
            m["gflops"] = {who: flops / t * 1e-9 for who, t in m["times"].items()}
            t = m["times"]["gigasparse"]
            m["times_bound"] = t / m["bound_seconds"]
            if "bound_first_touch_seconds" in m:
                m["times_bound_first_touch"] = t / m["bound_first_touch_seconds"]
        out.append(m)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--plot", help="write a PNG here")
    ap.add_argument("--title", default="SpGEMM C = A·B, 2 threads")
    ap.add_argument("--best-of-runs", action="store_true", help="merge inputs measured in several files (best time per library)")
    args = ap.parse_args()
    results, contexts = [], []
    for p in args.files:
        with open(p) as f:
            d = json.load(f)
        ctx = dict(d.get("context", {}))
        for k in ("loadavg_start", "loadavg_end", "stream_gbs", "first_touch_gbs"):
            if k in d:
                ctx[k] = d[k]
        contexts.append((p, ctx))
        results += d["results"]
    if args.best_of_runs:
        results = merge_best(results)
    main_table(results)
    summary(results)
    memory_table(results)
    print()
    for p, ctx in contexts:
        print(f"- `{p}`: " + ", ".join(f"{k} = {v}" for k, v in ctx.items()))
    if args.plot:
        plot(results, args.plot, args.title)


if __name__ == "__main__":
    main()
