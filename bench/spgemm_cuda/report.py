#!/usr/bin/env python3
# bench/spgemm_cuda/report.py: renders bench_spgemm_cuda's JSON (scripts/device-check writes it) into
# docs/performance/spgemm-gpu.md: the run, the issue-4 targets against what was measured, the
# products table, gigasparse's phase breakdown and the variants. Files run with the first file's
# options (multisplit and outer-product block sizes, light-row kernel) are parts of one run — a
# follow-up call's cases (DEVICE_CHECK_BENCH_ARGS) are added to the first's, a case already there
# is kept from the earlier file; files with other options (the block-size sweep of
# scripts/device-check, in its logs.tar.gz as sweep-<T>/spgemm_cuda.json) are variants, each
# compared with the run. --plot writes a PNG: speedup over cuSPARSE per case, and time against work.
#
# usage: report.py [--plot FILE.png] [--title TEXT] RESULTS.json [VARIANT.json ...] > spgemm-gpu.md
#        report.py --self-test SAMPLE_WRITER   (the spgemm_cuda.report test: renders the labelled
#        synthetic output of tests/spgemm_cuda_host/bench_output_sample.cpp, written by the
#        benchmark's own writer, and checks the figures)
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

# Issue 4's targets (H200, one run)
TARGET_RMAT = 2.0
TARGET_SHARED = 1.8
TARGET_OUTER_BW = 0.70
TARGET_MULTISPLIT_BW = 0.50
BW_MIN_SCALE = 18


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def ok(v):
    return v is not None and v > 0


def speedup(c):
    return c["cusparse_ms"] / c["gigasparse_ms"] if ok(c["cusparse_ms"]) and ok(c["gigasparse_ms"]) else None


def reuse_speedup(c):
    return c["cusparse_reuse_ms"] / c["gigasparse_reuse_ms"] if ok(c["cusparse_reuse_ms"]) and ok(c["gigasparse_reuse_ms"]) else None


def map_speedup(c):
    """The plan's numeric phase with the light rows' product map over without it (runs before 2026-12-07 have no such field)."""
    t = c.get("gigasparse_reuse_tables_ms", -1)
    return t / c["gigasparse_reuse_ms"] if ok(t) and ok(c["gigasparse_reuse_ms"]) else None


def rmat_scale(c):
    m = re.match(r"rmat(\d+)_", c["name"])
    return int(m.group(1)) if m and c["set"] == "rmat" else None


def ours_failed(c):
    return c["gigasparse_status"] != "ok"


def cusparse_failed(c):
    return not ok(c["cusparse_ms"])


def fmt(v, f="{:.3f}", none="–"):
    return none if v is None or (isinstance(v, (int, float)) and v < 0) else f.format(v)


def cell(s):
    return str(s).replace("|", "\\|")


def options_of(run):
    ms = run.get("multisplit_threads", 0) or 256
    outer = run.get("outer_threads", 0) or "default"
    light = "block per light row"
    if run.get("warp_light_rows", True):
        # runs before warp_row_products existed: a warp per row of at most 32 products
        most = run.get("warp_row_products", 32) or 512
        light = f"warp per light row of at most {most} products" + (" (past 32: in bins of a block of rows an SM)" if most > 32 else "")
    resident = run.get("resident_blocks", 0) or 1
    # runs before light_streams existed: the bins one after the other on one stream
    streams = run.get("light_streams", 1) or 3
    light += f", light bins on {streams} stream{'s' if streams > 1 else ''}"
    # runs before fit_hash_blocks existed: half the table, at most 1024 threads
    light += ", hash blocks sized for residency" if run.get("fit_hash_blocks", False) else ", hash blocks of half the table"
    passes = "light rows in one pass" if run.get("one_pass_light_rows", False) else "light rows in two passes"
    sort = "sort steps within a warp by shuffles" if run.get("warp_sort_steps", False) else "sort steps in shared memory"
    # runs before rank_sort existed: every hash table sorted
    if run.get("rank_sort", False):
        sort = "hash tables written by rank where their span allows, else " + sort
    # runs before packed_tables existed: keys and values in two arrays
    if run.get("packed_tables", False):
        sort = "float hash tables of packed (column, value) words, " + sort
    # runs before dense_light_rows existed: every light row hashed
    if run.get("dense_light_rows", False):
        sort = "light rows of short spans dense, " + sort
    # runs before dense_wide_rows existed: every row above the threshold heavy
    if run.get("dense_wide_rows", False):
        walk = run.get("dense_wide_walk", 0) or 2 ** 19
        # runs before dense_wide_walk_adaptive existed: the fixed cap of 2^19
        walk = f"walk cap {'adaptive, at least ' if run.get('dense_wide_walk_adaptive', False) else ''}{walk}"
        sort = f"rows above τ of short spans dense (up to {run.get('dense_wide_windows', 0) or 4} windows, {walk}), " + sort
    heavy = run.get("heavy_threshold", 0)
    # runs before small_products existed: every product binned
    small = ", every product binned"
    if run.get("small_products", False):
        small = f", small products in 3 launches (rows of more than {run.get('small_row_products', 0) or 4096} products a block)"
    return (f"multisplit {ms} threads, outer product {outer} threads, {light}, {passes}, {sort}" + (f", {resident} resident blocks" if resident > 1 else "")
            + (f", rows of more than {heavy} products heavy" if heavy else "") + small
            + ("; gigasparse only (no cuSPARSE: its times from the run)" if run.get("gigasparse_only", False) else ""))


def options_key(run):
    return (run.get("multisplit_threads", 0) or 256, run.get("outer_threads", 0), run.get("warp_light_rows", True),
            run.get("warp_row_products", 32) or 512, run.get("light_streams", 1) or 3, run.get("fit_hash_blocks", False),
            run.get("resident_blocks", 0) or 1,
            run.get("one_pass_light_rows", False), run.get("warp_sort_steps", False), run.get("heavy_threshold", 0), run.get("dense_light_rows", False),
            run.get("dense_wide_rows", False), run.get("dense_wide_windows", 0) or 4, run.get("dense_wide_walk", 0) or 2 ** 19,
            run.get("dense_wide_walk_adaptive", False), run.get("small_products", False), run.get("small_row_products", 0) or 4096,
            run.get("rank_sort", False), run.get("packed_tables", False))


def merge(runs, names):
    """(run, variants, variant names): the files with the first file's options as one run, then the others."""
    main = dict(runs[0])
    main["cases"] = list(runs[0]["cases"])
    main["parts"] = [(names[0], runs[0].get("date", "?"))]
    seen = {c["name"] for c in main["cases"]}
    variants, vnames = [], []
    for r, n in zip(runs[1:], names[1:]):
        if options_key(r) != options_key(runs[0]):
            variants.append(r)
            vnames.append(n)
            continue
        main["parts"].append((n, r.get("date", "?")))
        main["cases"] += [c for c in r["cases"] if c["name"] not in seen]
        seen |= {c["name"] for c in r["cases"]}
        main["finished"] = main.get("finished", True) and r.get("finished", True)
        main["skipped_cases"] = r.get("skipped_cases", 0)  # the last part's: what is still missing
    return main, variants, vnames


def targets(cases):
    """Rows (target, measured, required, met) of issue 4's targets."""
    rows = []
    for set_name, label, need in (("rmat", "R-MAT set", TARGET_RMAT), ("shared", "A² of the shared matrices", TARGET_SHARED)):
        sp = [speedup(c) for c in cases if c["set"] == set_name and speedup(c)]
        g = geomean(sp)
        rows.append((f"geomean speedup over the best cuSPARSE algorithm, {label}", f"{fmt(g, '{:.2f}×')} over {len(sp)} cases",
                     f"≥ {need:.1f}×", "–" if g is None else ("met" if g >= need else "not met")))
    for key, label in (("cusparse_check", "outputs differing from cuSPARSE's"), ("reuse_check", "plan outputs differing from the one-call product")):
        bad = [c["name"] for c in cases if c[key] != "match" and not c[key].startswith("n/a") and not c[key].startswith("failed")]
        unchecked = sum(1 for c in cases if c[key].startswith("n/a") and not ours_failed(c))
        rows.append((label, f"{len(bad)}" + (f" ({', '.join(bad)})" if bad else "") + (f"; {unchecked} not checked" if unchecked else ""), "0",
                     "met" if not bad else "not met"))
    plan_lost = [c["name"] for c in cases if c["reuse_check"].startswith("failed") and not ours_failed(c)]
    rows.append(("numeric-reuse plans that failed where the one-call product succeeded",
                 f"{len(plan_lost)}" + (f" ({', '.join(plan_lost)})" if plan_lost else ""), "0", "met" if not plan_lost else "not met"))
    lost = [c["name"] for c in cases if ours_failed(c) and not cusparse_failed(c)]
    rows.append(("inputs where cuSPARSE succeeded and gigasparse failed", f"{len(lost)}" + (f" ({', '.join(lost)})" if lost else ""), "0",
                 "met" if not lost else "not met"))
    for key, label, need in (("outer_bw_fraction", "outer-product kernel", TARGET_OUTER_BW),
                             ("multisplit_bw_fraction", "multisplit kernels", TARGET_MULTISPLIT_BW)):
        fr = [c[key] for c in cases if (rmat_scale(c) or 0) >= BW_MIN_SCALE and c.get(key, 0) > 0]
        if fr:
            rows.append((f"{label}, fraction of the copy bandwidth, R-MAT scale ≥ {BW_MIN_SCALE} (every case)",
                         f"min {min(fr):.2f}, median {statistics.median(fr):.2f} over {len(fr)} cases", f"≥ {need:.2f}",
                         "met" if min(fr) >= need else "not met"))
        else:
            rows.append((f"{label}, fraction of the copy bandwidth, R-MAT scale ≥ {BW_MIN_SCALE}", "no case with heavy rows at that scale",
                         f"≥ {need:.2f}", "–"))
    return rows


def render(runs, names, title):
    run, variants, vnames = merge(runs, names)
    cases = run["cases"]
    out = []
    p = out.append
    p(f"# {title}\n")
    p(f"Run: {run.get('date', '?')}, git `{run.get('git', '') or '?'}`; device: {run['device']}; CUDA driver {run['driver']}; "
      f"copy bandwidth {run['copy_bandwidth_gbs']:.0f} GB/s (read + write, 1 GiB device-to-device copy); "
      f"{run['value_type']} values, {run['index_type']} indices; best of {run['repeats']} after a warm-up; {options_of(run)}."
      + ("" if run.get("finished", True) else " **The run stopped before its end (partial results).**")
      + (f" {run['skipped_cases']} cases skipped (time budget)." if run.get("skipped_cases") else "")
      + (" Parts: " + "; ".join(f"`{n}` ({d})" for n, d in run["parts"]) + "." if len(run["parts"]) > 1 else "") + "\n")
    p("Times: by the host's clock from the call to the device's end, inputs and output in device memory (parameters, "
      "allocations, host waits and launches included); cuSPARSE: the best of ALG1, ALG2 and ALG3 (chunk fractions 0.2, 0.5), "
      "its work buffers and C allocated in the timed region from a memory pool kept between its runs (as gigasparse's is), its "
      "output checked against ours. Device columns: " +
      ("CUDA events, cuSPARSE's in the same runs, gigasparse's in one more product with its phases timed (its timed runs record "
       "no phase-time events: their records are host work).\n" if any("gigasparse_phases_ms" in c for c in cases) else
       "the same runs timed by CUDA events.\n"))
    p("## Targets (issue 4)\n")
    p("| target | measured | required | |")
    p("|---|---|---|---|")
    for t in targets(cases):
        p("| " + " | ".join(cell(x) for x in t) + " |")
    rs = [reuse_speedup(c) for c in cases if reuse_speedup(c)]
    p("")
    ms = [map_speedup(c) for c in cases if map_speedup(c)]
    p(f"Numeric reuse (pattern planned, values on the device): `GpuSpgemmPlan::numeric` against `cusparseSpGEMMreuse_compute`, "
      f"geomean {fmt(geomean(rs), '{:.2f}×')} over {len(rs)} cases" +
      (f"; the light rows' product map against their known tables (`light_product_map = false`), geomean "
       f"{fmt(geomean(ms), '{:.2f}×')} over {len(ms)} cases" if ms else "") + ".\n")
    p("## Products\n")
    p("| case | rows | nnz(A) | products | nnz(C) | gigasparse ms | cuSPARSE ms | best | × | device ms (ours / cuSPARSE) | check "
      "| reuse ms (ours / cuSPARSE) | reuse × | levels | batches | peak MiB | status |")
    p("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---|")
    for c in cases:
        status = c["gigasparse_status"] + (f"; cuSPARSE: {c['cusparse_failures']}" if c.get("cusparse_failures") else "")
        if c.get("small_product"):
            status += "; small-product path"
            if c.get("small_long_rows", 0) > 0:
                status += f" ({c['small_long_rows']} rows a block)"
        elif c.get("small_rows_back", 0) > 0:
            status += f"; binned ({c['small_rows_back']} long rows too wide for the small-product path)"
        p("| " + " | ".join(cell(x) for x in (
            c["name"], c["m"], c["nnz_a"], c["products"], c["nnz_c"], fmt(c["gigasparse_ms"]), fmt(c["cusparse_ms"]), c["cusparse_best"],
            fmt(speedup(c), "{:.2f}"), f"{fmt(c.get('gigasparse_device_ms'))} / {fmt(c.get('cusparse_device_ms'))}", c["cusparse_check"],
            f"{fmt(c['gigasparse_reuse_ms'])} / {fmt(c['cusparse_reuse_ms'])}", fmt(reuse_speedup(c), "{:.2f}"), c["levels"], c["batches"],
            fmt(c["device_bytes_peak"] / 2**20 if c["device_bytes_peak"] > 0 else None, "{:.1f}"), status)) + " |")
    p("")
    p("## gigasparse's phases (ms, CUDA events)\n")
    p("setup, then the symbolic and numeric phases, which contain CSR→CSC (heavy rows of A), the outer product, the multisplit "
      "(phase; its histogram and multisplit kernels alone in brackets) and, on their own stream beside the heavy rows, the light "
      "rows. Host overhead: that product's host clock minus its device total. Bandwidth: the kernels' minimal DRAM bytes over their time, as a "
      "fraction of the copy bandwidth.\n")
    p("| case | setup | CSR→CSC | outer | multisplit (kernels) | light rows | symbolic | numeric | device total | host overhead | outer bw | multisplit bw |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in cases:
        if ours_failed(c):
            continue
        ph = c["phases_ms"]
        host_ms = c.get("gigasparse_phases_ms", c["gigasparse_ms"])  # runs before 2026-12-06 timed their phases in every run
        host = host_ms - ph["total"] if ok(host_ms) and ph["total"] > 0 else None
        p("| " + " | ".join(cell(x) for x in (
            c["name"], fmt(ph["setup"]), fmt(ph["csc"]), fmt(ph["outer"]), f"{fmt(ph['multisplit'])} ({fmt(ph['multisplit_kernels'])})",
            fmt(ph["light"]), fmt(ph["symbolic"]), fmt(ph["numeric"]), fmt(ph["total"]), fmt(host),
            fmt(c["outer_bw_fraction"] or None, "{:.2f}"), fmt(c["multisplit_bw_fraction"] or None, "{:.2f}"))) + " |")
    if variants:
        p("")
        p("## Variants against the run\n")
        p("gigasparse's time ratio (variant / run; below 1: the variant is faster) on the cases both ran, and the geomean "
          "speedup over cuSPARSE of each on those cases (a variant run without cuSPARSE, `--gigasparse-only`: over the run's "
          "cuSPARSE times).\n")
        p("| file | options | cases in common | time ratio (geomean) | speedup over cuSPARSE, run | speedup, variant |")
        p("|---|---|---:|---:|---:|---:|")
        first = {c["name"]: c for c in cases if ok(c["gigasparse_ms"])}
        for name, r in zip(vnames, variants):
            common = [(first[c["name"]], c) for c in r["cases"] if c["name"] in first and ok(c["gigasparse_ms"])]
            ratio = geomean([v["gigasparse_ms"] / f["gigasparse_ms"] for f, v in common])

            def vs(f, v):  # the variant's speedup; without its own cuSPARSE time, over the run's
                return speedup(v) if ok(v["cusparse_ms"]) else speedup(dict(v, cusparse_ms=f["cusparse_ms"]))
            s0 = geomean([speedup(f) for f, v in common if speedup(f) and vs(f, v)])
            s1 = geomean([vs(f, v) for f, v in common if speedup(f) and vs(f, v)])
            p("| " + " | ".join(cell(x) for x in (name, options_of(r), len(common), fmt(ratio), fmt(s0, "{:.2f}×"), fmt(s1, "{:.2f}×"))) + " |")
    return "\n".join(out) + "\n"


def plot(run, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

    # the cases with a speedup, and those gigasparse failed where cuSPARSE succeeded (a red cross at 1)
    cases = [c for c in run["cases"] if speedup(c) or (ours_failed(c) and not cusparse_failed(c))]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(15, 5.5), gridspec_kw={"width_ratios": [3, 2]})
    colors = {"rmat": "tab:blue", "shared": "tab:orange"}
    ax1.bar(range(len(cases)), [speedup(c) or 0 for c in cases], bottom=0, color=[colors.get(c["set"], "gray") for c in cases])
    lost = [i for i, c in enumerate(cases) if not speedup(c)]
    if lost:
        ax1.plot(lost, [1.0] * len(lost), "x", color="red", ms=9, mew=2, label="gigasparse failed, cuSPARSE did not")
    ax1.set_xticks(range(len(cases)))
    ax1.set_xticklabels([c["name"] for c in cases], rotation=90, fontsize=6)
    ax1.set_yscale("log")
    ax1.axhline(1.0, color="black", lw=0.8)
    ax1.axhline(TARGET_RMAT, color="tab:blue", ls="--", lw=0.8, label=f"target R-MAT {TARGET_RMAT}×")
    ax1.axhline(TARGET_SHARED, color="tab:orange", ls="--", lw=0.8, label=f"target shared {TARGET_SHARED}×")
    ax1.set_ylabel("speedup over the best cuSPARSE algorithm")
    ax1.set_title("gMAGNUS vs cuSPARSE (blue: R-MAT, orange: A² of shared matrices)")
    ax1.legend(fontsize=8)
    done = [c for c in run["cases"] if c["products"] > 0]
    ax2.loglog([c["products"] for c in done if ok(c["gigasparse_ms"])], [c["gigasparse_ms"] for c in done if ok(c["gigasparse_ms"])], "o",
               ms=4, label="gigasparse")
    ax2.loglog([c["products"] for c in done if ok(c["cusparse_ms"])], [c["cusparse_ms"] for c in done if ok(c["cusparse_ms"])], "s",
               ms=4, mfc="none", label="cuSPARSE (best)")
    ax2.set_xlabel("intermediate products")
    ax2.set_ylabel("ms (host clock, device-resident)")
    ax2.set_title("time against work")
    ax2.legend(fontsize=8)
    for ax in (ax1, ax2):
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(NullFormatter())
    fig.suptitle(f"{run['device']}, driver {run['driver']}, {run.get('date', '')}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def load(path):
    with open(path) as f:
        return json.load(f)


def self_test(writer):
    """Renders the labelled synthetic sample written by the benchmark's own writer; checks the figures."""
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "a"), os.path.join(d, "b")
        os.makedirs(a)
        os.makedirs(b)
        subprocess.run([writer, a], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([writer, b, "--multisplit-threads", "512", "--scale-ours", "2"], check=True, stdout=subprocess.DEVNULL)
        g = os.path.join(d, "g")
        os.makedirs(g)
        subprocess.run([writer, g, "--multisplit-threads", "1024", "--scale-ours", "0.5", "--gigasparse-only"], check=True, stdout=subprocess.DEVNULL)
        runs = [load(os.path.join(a, "spgemm_cuda.json")), load(os.path.join(b, "spgemm_cuda.json"))]
        md = render(runs, ["a.json", "b.json"], "sample")
        gonly = load(os.path.join(g, "spgemm_cuda.json"))
        md3 = render([runs[0], gonly], ["a.json", "g.json"], "sample")
        gsummary = open(os.path.join(g, "spgemm_cuda_summary.txt")).read()
        # a follow-up part of run a: same options, one case already there (kept from a) and a new one
        part = json.loads(json.dumps(runs[0]))
        part["cases"] = [dict(part["cases"][0], gigasparse_ms=100.0), dict(part["cases"][1], name="rmat19_a4_b8")]
        md2 = render([runs[0], runs[1], part], ["a.json", "b.json", "part.json"], "sample")
        summary = open(os.path.join(a, "spgemm_cuda_summary.txt")).read()
        png = os.path.join(d, "sample.png")
        plot(runs[0], png)
        failures, checked = [], []

        def expect(cond, what):
            checked.append(what)
            if not cond:
                failures.append(what)

        expect("not a measurement" in runs[0]["device"], "the sample is labelled as synthetic")
        expect(runs[0]["cases"][2]["name"] == 'sample "quoted"/matrix', "names with quotes survive the JSON")
        expect(re.search(r"geomean speedup rmat\s+2\.828 over 2 cases", summary) is not None, "the writer's own R-MAT geomean (2.828 over 2)")
        expect("| 2.83× over 2 cases | ≥ 2.0× | met |" in md, "R-MAT geomean 2.83 over 2 cases, met")
        expect("| 1.50× over 1 cases | ≥ 1.8× | not met |" in md, "shared geomean 1.50, not met")
        expect("| 1 (rmat17_a32_b8) | 0 | not met |" in md, "the case gigasparse lost")
        expect("| min 0.80, median 0.80 over 1 cases | ≥ 0.70 | met |" in md, "outer-product bandwidth 0.80 at scale 18")
        expect("| min 0.60, median 0.60 over 1 cases | ≥ 0.50 | met |" in md, "multisplit bandwidth 0.60 at scale 18")
        expect("geomean 2.00× over 3 cases" in md, "numeric reuse geomean 2.0 (0.8 / 0.4) over the 3 cases both ran")
        expect("known tables (`light_product_map = false`), geomean 1.50× over 3 cases" in md, "the product map's geomean 1.5 (0.6 / 0.4)")
        expect(re.search(r"product map \(reuse_tbl / reuse_ms\) 1\.500 over 3 cases", summary) is not None, "the writer's product-map geomean")
        expect("| b.json | multisplit 512 threads" in md and "| 4 | 2.000 |" in md, "the variant table: time ratio 2 on 4 common cases")
        expect("| rmat16_a8_b8 | 65536 | 524288 | 10485760 | 5242880 | 1.000 | 2.000 | ALG1 | 2.00 | 0.900 / 1.900 | columns differ in row 3 |" in md,
               "the products row of rmat16_a8_b8")
        expect("outputs differing from cuSPARSE: 1; plan outputs differing from the one-call product: 0" in summary,
               "the writer counts the mismatch, not the checks that did not run")
        expect("| outputs differing from cuSPARSE's | 1 (rmat16_a8_b8); 1 not checked | 0 | not met |" in md, "the mismatch and the unchecked case")
        expect("| plan outputs differing from the one-call product | 0; 1 not checked | 0 | met |" in md, "a check that did not run is no mismatch")
        expect("plans that failed where the one-call product succeeded: 1" in summary, "the writer counts the failed plan apart")
        expect("| numeric-reuse plans that failed where the one-call product succeeded | 1 (rmat17_a4_b8) | 0 | not met |" in md,
               "a plan that threw is a failure, not a differing output")
        expect("| 3.17× over 3 cases | ≥ 2.0× | met |" in md2 and "Parts: `a.json`" in md2 and "| rmat19_a4_b8 |" in md2
               and "| rmat16_a8_b8 | 65536 | 524288 | 10485760 | 5242880 | 1.000 |" in md2, "a follow-up part joins the run; its duplicate is dropped")
        expect("| b.json | multisplit 512 threads" in md2, "the variant stays a variant beside a part")
        # a --gigasparse-only variant at half the time: ratio 0.5 on the 4 cases gigasparse ran; its speedups over the run's
        # cuSPARSE times on the 3 cases with them: 4, 8 and 3 (geomean 4.58) against the run's 2, 4 and 1.5 (2.29)
        expect(re.search(r"\| g\.json \| multisplit 1024 threads[^|]*gigasparse only[^|]*\| 4 \| 0\.500 \| 2\.29× \| 4\.58× \|", md3) is not None,
               "a --gigasparse-only variant: its speedups over the run's cuSPARSE")
        expect(re.search(r"geomean gigasparse_ms rmat\s+0\.630 over 3 cases \(--gigasparse-only", gsummary) is not None
               and re.search(r"geomean speedup rmat\s+0\.000 over 0 cases", gsummary) is not None,
               "the writer's own-time geomean (0.5, 1, 0.5 ms: 0.630) without cuSPARSE")
        expect(re.search(r"\| sample \\?\"quoted\\?\"/matrix \|[^\n]*\| ok; small-product path \|", md) is not None,
               "the small-product path in the status column")
        expect("every product binned" not in md and ", small products in 3 launches" in md, "the options: small products on")
        expect(os.path.getsize(png) > 10000, "the plot was written")
        if failures:
            print(md)
            print(summary)
            for f in failures:
                print("FAILED:", f)
            return 1
        print(f"report.py self-test: {len(checked)} checks passed")
        return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--plot")
    ap.add_argument("--title")
    ap.add_argument("--self-test", metavar="SAMPLE_WRITER")
    args = ap.parse_args()
    if args.self_test:
        return self_test(args.self_test)
    if not args.files:
        ap.error("no RESULTS.json given")
    runs = [load(f) for f in args.files]
    title = args.title or f"SpGEMM on the GPU: gMAGNUS vs cuSPARSE, {runs[0]['device'].split(' (')[0]}"
    sys.stdout.write(render(runs, args.files, title))
    if args.plot:
        plot(merge(runs, args.files)[0], args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
