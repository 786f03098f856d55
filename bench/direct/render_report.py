#!/usr/bin/env python3
# bench/direct/render_report.py: renders bench_direct JSON files (one or more runs, e.g. the main set and
# lap3d:80 alone) into the tables and target checks of docs/performance/direct-cpu.md.
#
#   python3 bench/direct/render_report.py run1.json [run2.json ...] > tables.md
#
# Runs of `bench_direct --structure symmetric` (LDLᵀ of symmetric indefinite input: no CHOLMOD) get their
# own table: times, pivoting (perturbed / delayed / 2×2 pivots), inertia and residuals. Runs with `--schur K`
# (any structure) get the Schur-complement table: factorization + extraction times and the agreement of the
# competitors' Schur diagonals with gigasparse's. Runs with `--batch C` get the batch table; runs with `--mixed`
# the mixed-precision table (gigasparse's single-precision factor refined in double against its double factor and
# PARDISO's double and single-precision modes).
import json
import math
import sys

SOLVERS = ("cholmod", "mumps", "pardiso")


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


def secs(x):
    return "—" if x is None else f"{fmt(x)} s"


def refactor_time(entry):
    """Best refactorization time of one solver's entry, None when absent or failed."""
    if not entry or entry.get("status") in ("not built", "failed"):
        return None
    t = entry.get("times", {}).get("refactorize")
    return t if t is not None and t < 1e299 else None


def cores(r):
    """CPU time / wall time of the best refactorization of each solver: about 2 when the solver had both
    cores, about 1 when another tenant of the VM held one (the VM's CPU is shared by cgroup)."""
    out = []
    for s in ("gigasparse",) + SOLVERS:
        e = r.get(s)
        t = refactor_time(e)
        c = e.get("times", {}).get("refactorize_cpu") if e else None
        out.append(f"{c / t:.1f}" if t and c and c < 1e299 else "—")
    return " / ".join(out)


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main(paths):
    runs = [json.load(open(p)) for p in paths]
    # A matrix measured in several runs (e.g. lap3d:80 with --solvers gigasparse,cholmod, then
    # --solvers mumps,pardiso, to keep each locked run short) becomes one row: solver entries merged.
    rows, seen = [], {}
    for run in runs:
        for r in run["results"]:
            if r["matrix"] in seen:
                for key, value in r.items():
                    seen[r["matrix"]][0].setdefault(key, value)
            else:
                seen[r["matrix"]] = (dict(r), run["context"])
                rows.append(seen[r["matrix"]])

    if all("gigasparse_single" in r for r, _ in rows):
        mixed_table(rows)
    elif all("batch" in r for r, _ in rows):
        batch_table(rows)
    elif all("schur_size" in r for r, _ in rows):
        schur_table(rows)
    elif all("nnz_LU" in r.get("gigasparse", {}) for r, _ in rows):
        indefinite_table(rows, lu=True)
    elif all("negative_pivots" in r.get("gigasparse", {}) for r, _ in rows):
        indefinite_table(rows)
    else:
        spd_table(rows)
    print()
    for path, run in zip(paths, runs):
        ctx = dict(run["context"])
        blas = ctx.pop("blas", {})
        print(f"Context of `{path.split('/')[-1]}`: " + ", ".join(f"{k} = {v}" for k, v in ctx.items()))
        if blas:
            print(f"  BLAS: " + ", ".join(f"{k} = {v}" for k, v in blas.items()))
        loads = [(r["matrix"], r.get("loadavg_before", "?").split()[0], r.get("loadavg_after", "?").split()[0])
                 for r in run["results"]]
        print("  load average before/after each matrix: "
              + ", ".join(f"{m.split('/')[-1].replace('.mtx.gz', '')} {a}/{b}" for m, a, b in loads))
        print()


def mixed_table(rows):
    """--mixed runs: factor (best refactorization) + one solve with refinement, double factor vs single factor
    (factor_precision = single: float panels, refinement in double), and PARDISO in double and in its
    single-precision mode (float throughout, no double refinement: float accuracy)."""
    print("| matrix | kind | n | factor bytes double / single | factorize gs double / single | solve gs double / single "
          "(steps) | factor + solve gs double / single | speedup | backward error gs double / single | "
          "PARDISO double: factor + solve (residual) | PARDISO single: factor + solve (residual) | gs single / PARDISO double |")
    print("|---|---|---:|---|---|---|---|---:|---|---|---|---:|")
    speed, vs_pardiso = [], []
    for r, _ in rows:
        g, gs1 = r.get("gigasparse", {}), r.get("gigasparse_single", {})
        p, p1 = r.get("pardiso", {}), r.get("pardiso_single", {})
        def total(e):
            t = refactor_time(e)
            return t + e["times"]["solve"] if t is not None else None
        tg, ts, tp, tp1 = total(g), total(gs1), total(p), total(p1)
        sp = tg / ts if tg and ts else None
        vp = ts / tp if ts and tp else None
        speed.append(sp)
        vs_pardiso.append(vp)
        used = "" if gs1.get("factor_precision") == "single" else " (full took over)"
        kind = "LU" if "nnz_LU" in g else "LDLᵀ" if "negative_pivots" in g else "LLᵀ"
        name = r["matrix"].split("/")[-1].replace(".mtx.gz", "")
        print(f"| {name} | {kind} | {r['n']:,} | {fmt(g.get('factor_bytes'))} / {fmt(gs1.get('factor_bytes'))}{used} "
              f"| {secs(refactor_time(g))} / {secs(refactor_time(gs1))} "
              f"| {secs(g.get('times', {}).get('solve'))} ({g.get('refinement_steps')}) / "
              f"{secs(gs1.get('times', {}).get('solve'))} ({gs1.get('refinement_steps')}) "
              f"| {secs(tg)} / {secs(ts)} | {fmt(sp, 2)} | {fmt(g.get('backward_error'))} / {fmt(gs1.get('backward_error'))} "
              f"| {secs(tp)} ({fmt(p.get('residual'))}) | {secs(tp1)} ({fmt(p1.get('residual'))}) | {fmt(vp, 2)} |")
    print()
    print(f"Geometric mean speedup of factor + solve, single over double factor: {fmt(geomean(speed), 3)}; "
          f"gigasparse single / PARDISO double: {fmt(geomean(vs_pardiso), 3)} ({len(rows)} inputs).")


def batch_table(rows):
    """--batch runs: C matrices on one pattern, one analysis; factorize and solve summed over the batch.
    gigasparse: BatchDirectSolver (best of the repeated batch factorizations) and one DirectSolver item by item;
    MUMPS and PARDISO item by item after one analysis."""
    print("| matrix | kind | n | C | flops / matrix | factorize batch gs | gs item by item | MUMPS | PARDISO "
          "| gs / mumps | gs / pardiso | solve gs / mumps / pardiso | max backward error gs |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    ratios = {"mumps": [], "pardiso": []}
    for r, _ in rows:
        g = r.get("gigasparse", {})
        tg = g.get("times", {}).get("factorize")
        loop = g.get("item_by_item", {}).get("factorize")
        t = {s: r.get(s, {}).get("times", {}).get("factorize") if r.get(s, {}).get("status") == "success" else None
             for s in ("mumps", "pardiso")}
        rat = {s: (tg / t[s] if tg and t[s] else None) for s in t}
        for s in rat:
            ratios[s].append(rat[s])
        solves = " / ".join(secs(x.get("times", {}).get("solve")) if x.get("status") == "success" else "—"
                            for x in (g, r.get("mumps", {}), r.get("pardiso", {})))
        name = r["matrix"].split("/")[-1].replace(".mtx.gz", "")
        kind = r.get("kind", "")
        print(f"| {name} | {kind} | {r['n']:,} | {r['batch']} | {fmt(g.get('flops_per_item'))} | {secs(tg)} | {secs(loop)} "
              f"| {secs(t['mumps'])} | {secs(t['pardiso'])} | {fmt(rat['mumps'], 2)} | {fmt(rat['pardiso'], 2)} | {solves} "
              f"| {fmt(g.get('max_backward_error'))} |")
    print()
    print(f"Geometric mean of the batch factorization time gigasparse / MUMPS {fmt(geomean(ratios['mumps']), 2)}, "
          f"gigasparse / PARDISO {fmt(geomean(ratios['pardiso']), 2)} ({len(rows)} inputs).")


def schur_table(rows):
    """--schur runs: the time to factor A11 and form the dense Schur complement (gigasparse: refactorize +
    schur_complement(); MUMPS ICNTL(19) = 1 and PARDISO iparm[35] = 2: their factorization), best of the repeats."""
    print("| matrix | structure | n | K | factor + S gs | MUMPS | PARDISO | gs / mumps | gs / pardiso "
          "| analyze gs / mumps / pardiso | max rel. diff. of diag(S) mumps / pardiso | cores used gs / mumps / pardiso |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|")
    ratios = {"mumps": [], "pardiso": []}
    for r, _ in rows:
        g = r.get("gigasparse", {})
        tg = refactor_time(g)
        t = {s: refactor_time(r.get(s)) for s in ("mumps", "pardiso")}
        rat = {s: (tg / t[s] if tg and t[s] else None) for s in t}
        for s in rat:
            ratios[s].append(rat[s])
        kind = "LU" if "nnz_LU" in g else "LDLᵀ" if "negative_pivots" in g else "LLᵀ"
        ana = " / ".join(secs(r.get(s, {}).get("times", {}).get("analyze")) for s in ("gigasparse", "mumps", "pardiso"))
        diag = " / ".join(fmt(r.get(s, {}).get("schur_diag_vs_gigasparse")) for s in ("mumps", "pardiso"))
        c = cores(r).split(" / ")
        print(f"| {r['matrix']} | {kind} | {r['n']:,} | {r['schur_size']:,} | {secs(tg)} | {secs(t['mumps'])} | "
              f"{secs(t['pardiso'])} | {fmt(rat['mumps'], 2)} | {fmt(rat['pardiso'], 2)} | {ana} | {diag} | "
              f"{c[0]} / {c[2]} / {c[3]} |")
    print()
    print(f"Geometric mean gigasparse / MUMPS {fmt(geomean(ratios['mumps']), 2)}, "
          f"gigasparse / PARDISO {fmt(geomean(ratios['pardiso']), 2)} ({len(rows)} inputs).")


def indefinite_table(rows, lu=False):
    """LDLᵀ runs: gigasparse vs MUMPS (SYM = 2, delayed pivots) and PARDISO (mtype -2, perturbation); LU runs
    (lu=True): MUMPS SYM = 0 and PARDISO mtype 11, factor entries of L + U, no 2×2 / inertia columns."""
    if lu:
        print("| matrix | n | nnz(L+U) gs / mumps / pardiso | factorize gs | MUMPS | PARDISO | gs / mumps | gs / pardiso | "
              "solve gs (steps) / mumps / pardiso | residual gs / mumps / pardiso | backward error gs | "
              "perturbed gs / pardiso, delayed gs / mumps | cores used gs / mumps / pardiso |")
        print("|---|---:|---|---:|---:|---:|---:|---:|---|---|---:|---|---|")
    else:
        print("| matrix | n | nnz(L) gs / mumps / pardiso | factorize gs | MUMPS | PARDISO | gs / mumps | gs / pardiso | "
              "solve gs (steps) / mumps / pardiso | residual gs / mumps / pardiso | backward error gs | "
              "perturbed gs / pardiso, delayed mumps | 2×2 gs | negative pivots gs / mumps / pardiso | cores used gs / mumps / pardiso |")
        print("|---|---:|---|---:|---:|---:|---:|---:|---|---|---:|---|---:|---|---|")
    ratios = {s: [] for s in ("mumps", "pardiso")}
    for r, _ in rows:
        g = r["gigasparse"]
        tg = refactor_time(g)
        t = {s: refactor_time(r.get(s)) for s in ("mumps", "pardiso")}
        ratio = {s: (tg / t[s] if tg and t[s] else None) for s in t}
        for s in t:
            ratios[s].append(ratio[s])
        ok = {s: r.get(s, {}).get("status") == "success" for s in ("gigasparse", "mumps", "pardiso")}
        def field(s, k):
            return fmt(r[s].get(k)) if ok[s] else r.get(s, {}).get("status", "—")
        solve = (f"{fmt(g['times']['solve'])} ({g['refinement_steps']}) / "
                 + " / ".join(fmt(r[s]['times']['solve']) if ok[s] else "—" for s in ("mumps", "pardiso")))
        cu = []
        for s in ("gigasparse", "mumps", "pardiso"):
            e, tt = r.get(s), refactor_time(r.get(s))
            c = e.get("times", {}).get("refactorize_cpu") if e else None
            cu.append(f"{c / tt:.1f}" if tt and c and c < 1e299 else "—")
        pert = (f"{fmt(g.get('perturbed_pivots'))} / "
                f"{fmt(r['pardiso'].get('perturbed_or_delayed_pivots')) if ok['pardiso'] else '—'}, "
                + (f"{fmt(g.get('delayed_pivots'))} / " if lu and 'delayed_pivots' in g else "")
                + f"{fmt(r['mumps'].get('perturbed_or_delayed_pivots')) if ok['mumps'] else '—'}")
        head = (f"| {r['matrix'].split('/')[-1].replace('.mtx.gz', '')} | {r['n']:,} | "
                f"{fmt(g['nnz_LU'] if lu else g['nnz_L'])} / {field('mumps', 'nnz_L')} / {field('pardiso', 'nnz_L')} | "
                f"{secs(tg)} | {secs(t['mumps'])} | {secs(t['pardiso'])} | "
                + " | ".join("—" if ratio[s] is None else f"{ratio[s]:.2f}" for s in ("mumps", "pardiso"))
                + f" | {solve} | {fmt(g['residual'])} / {field('mumps', 'residual')} / {field('pardiso', 'residual')} | "
                f"{fmt(g['backward_error'])} | {pert} | ")
        if lu:
            print(head + f"{' / '.join(cu)} |")
        else:
            print(head + f"{fmt(g.get('two_by_two_pivots'))} | "
                  f"{fmt(g.get('negative_pivots'))} / {field('mumps', 'negative_pivots')} / {field('pardiso', 'negative_pivots')} | "
                  f"{' / '.join(cu)} |")
    print()
    for s in ("mumps", "pardiso"):
        gm = geomean(ratios[s])
        n = len([x for x in ratios[s] if x])
        if gm is not None:
            print(f"- Geometric mean of the factorization time ratio gigasparse / {s}: **{gm:.2f}** over {n} matrices.")


def spd_table(rows):
    print("| matrix | n | ordering gs / cm / mumps | nnz(L) gs / cm | flops (gs) | factorize gs | CHOLMOD | MUMPS | "
          "PARDISO | gs / cm | gs / mumps | gs / pardiso | GF/s gs / cm | analyze gs / cm | backward error gs | "
          "residual cm / mumps / pardiso | cores used gs / cm / mumps / pardiso |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|---|")
    ratios = {s: [] for s in SOLVERS}
    poisson3d = []
    for r, _ in rows:
        g = r["gigasparse"]
        tg = refactor_time(g)
        t = {s: refactor_time(r.get(s)) for s in SOLVERS}
        ratio = {s: (tg / t[s] if tg and t[s] else None) for s in SOLVERS}
        for s in SOLVERS:
            ratios[s].append(ratio[s])
        if r["matrix"].startswith("lap3d"):
            poisson3d.append((r["matrix"], ratio["cholmod"]))
        c = r.get("cholmod", {})
        m = r.get("mumps", {})
        orders = " / ".join([g.get("ordering", "—"), c.get("ordering", "—"), m.get("ordering", "—")])
        gf_cm = c["flops"] / t["cholmod"] * 1e-9 if t["cholmod"] else None
        resid = " / ".join(fmt(r.get(s, {}).get("residual")) if r.get(s, {}).get("status", "success") == "success"
                           else r.get(s, {}).get("status", "—") for s in SOLVERS)
        print(f"| {r['matrix'].split('/')[-1].replace('.mtx.gz', '')} | {r['n']:,} | {orders} | "
              f"{fmt(g['nnz_L'])} / {fmt(c.get('nnz_L'))} | {fmt(g['flops'])} | {secs(tg)} | {secs(t['cholmod'])} | "
              f"{secs(t['mumps'])} | {secs(t['pardiso'])} | "
              + " | ".join("—" if ratio[s] is None else f"{ratio[s]:.2f}" for s in SOLVERS)
              + f" | {fmt(g['flops'] / tg * 1e-9 if tg else None)} / {fmt(gf_cm)} | "
              f"{fmt(g['times']['analyze'])} / {fmt(c.get('times', {}).get('analyze'))} s | "
              f"{fmt(g['backward_error'])} | {resid} | {cores(r)} |")
    print()
    for s in SOLVERS:
        gm = geomean(ratios[s])
        n = len([x for x in ratios[s] if x])
        if gm is not None:
            print(f"- Geometric mean of the factorization time ratio gigasparse / {s}: **{gm:.2f}** over {n} matrices.")
    print()
    print("Targets of issue 5 (2 threads, same run):")
    print()
    worst = max((x for _, x in poisson3d if x is not None), default=None)
    if worst is not None:
        ok = worst <= 1.0
        print(f"- factorize ≤ CHOLMOD on every 3D Poisson problem: ratios "
              + ", ".join(f"{name} {x:.2f}" for name, x in poisson3d if x is not None)
              + f" — **{'met' if ok else 'missed'}**")
    gm = geomean(ratios["cholmod"])
    if gm is not None:
        print(f"- geometric mean ≤ 0.9× CHOLMOD over the whole set: {gm:.2f} — **{'met' if gm <= 0.9 else 'missed'}**")
    for r, _ in rows:
        if r["matrix"] == "lap3d:80":
            tg = refactor_time(r["gigasparse"])
            gf = r["gigasparse"]["flops"] / tg * 1e-9
            print(f"- ≥ 60 GFLOP/s on lap3d:80 (flops = Σ c_j²): {gf:.1f} GFLOP/s — **{'met' if gf >= 60 else 'missed'}**")
    an = [(r["matrix"], r["gigasparse"]["times"]["analyze"] / r["cholmod"]["times"]["analyze"])
          for r, _ in rows if "cholmod" in r]
    if an:
        bad = [f"{n.split('/')[-1].replace('.mtx.gz', '')} {x:.2f}" for n, x in an if x > 1.5]
        print(f"- analysis ≤ 1.5× CHOLMOD: ratios {min(x for _, x in an):.2f}–{max(x for _, x in an):.2f}"
              + (f", over on {', '.join(bad)} — **missed there**" if bad else " — **met**"))
    nz = [(r["gigasparse_cholmod_ordering"]["nnz_L"] / r["cholmod"]["nnz_L"]) for r, _ in rows
          if "gigasparse_cholmod_ordering" in r and "cholmod" in r]
    if nz:
        dev = max(abs(x - 1) for x in nz)
        print(f"- nnz(L) within 5% of CHOLMOD's with the same ordering: largest deviation {dev * 100:.2f}% — "
              f"**{'met' if dev <= 0.05 else 'missed'}**")
    be = [(r["gigasparse"]["backward_error"], r["gigasparse"]["refinement_steps"]) for r, _ in rows]
    print(f"- backward error ≤ 1e-14 after ≤ 2 refinement steps: worst {max(b for b, _ in be):.1e}, "
          f"at most {max(s for _, s in be)} steps — **{'met' if all(b <= 1e-14 and s <= 2 for b, s in be) else 'missed'}**")


if __name__ == "__main__":
    main(sys.argv[1:])
