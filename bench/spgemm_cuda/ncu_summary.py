#!/usr/bin/env python3
# bench/spgemm_cuda/ncu_summary.py: one table per kernel from Nsight Compute's per-kernel summary
# (`ncu --print-summary per-kernel --metrics gpu__time_duration.sum,dram__bytes.sum,
# launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active ...`, as
# scripts/device-check runs it on one SpGEMM case): kernels of the same name (launch shapes summed),
# by total time, with their share, DRAM bytes and rate, the fraction of a copy bandwidth, block sizes,
# registers and the active warps (% of the SM's slots). gigasparse's kernels are marked; cuSPARSE's
# (the benchmark runs both) are listed too, since they are what ours is measured against. Template
# instances stay apart (a name's parameter list is the group its last ')' closes; casts such as
# (gigasparse::...::Phase)2 shorten to (Phase)2).
# --stalls: the warp-stall table of the ncu_stalls stage (metrics: --metrics prints them) — per kernel
# the issue slots used, active warps, cycles between a warp's instructions and the top four stall
# reasons (long_scoreboard: global memory; short_scoreboard: shared memory and other MIO results;
# barrier: __syncthreads; mio_throttle / lg_throttle: shared / global instruction queues full; wait:
# fixed latencies; not_selected: eligible, another warp issued).
#
# usage: ncu_summary.py NCU_OUTPUT.txt [--bandwidth GBPS] [--top N] [--stalls]
#        ncu_summary.py --metrics | --self-test
import argparse
import re
import sys
from collections import defaultdict

HEAD = re.compile(r"^  (\S.*?) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\), .*Invocations (\d+)\s*$")
UNITS = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6,
         "byte": 1e-9, "Kbyte": 1e-6, "Mbyte": 1e-3, "Gbyte": 1.0, "Tbyte": 1e3}


def short_name(full):
    name = full.rstrip()
    if name.endswith(")"):  # the parameter list: the group the last ')' closes (template arguments hold casts like (Phase)2)
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i]
                break
    name = re.sub(r"CUB_\w+?_NS::", "cub::", name)  # CUB's versioned namespace
    name = re.sub(r"\((?:\w+::)+(\w+)\)", r"(\1)", name)  # casts in template arguments: (Phase)2
    name = name.replace("gigasparse::cuda::gpu::", "gigasparse::")
    name = re.sub(r"^void ", "", name)
    return name


# The warp-stall reasons the ncu_stalls stage asks for (metric smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio:
# warps stalled for that reason per issued instruction; over all reasons they add up to
# smsp__average_warp_latency_per_inst_issued.ratio, the cycles between a warp's instructions).
STALLS = ("long_scoreboard", "short_scoreboard", "barrier", "wait", "mio_throttle", "lg_throttle", "math_pipe_throttle",
          "not_selected", "selected", "branch_resolving", "no_instruction", "dispatch_stall", "membar", "drain")
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
LATENCY = "smsp__average_warp_latency_per_inst_issued.ratio"
ISSUE = "smsp__issue_active.avg.pct_of_peak_sustained_active"
STALL_METRICS = ",".join(["gpu__time_duration.sum", "sm__warps_active.avg.pct_of_peak_sustained_active", ISSUE, LATENCY,
                          "smsp__inst_executed.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"]
                         + [STALL_METRIC.format(r) for r in STALLS])


def parse(text):
    """{kernel: {'us','gb','inv','blocks','regs','warps','m'}} from ncu's per-kernel summary: every
    launch shape of a kernel merged; 'm' holds each other metric's average over the shapes weighted
    by their time (a .sum metric: its total)."""
    start = text.find("==PROF== Disconnected")
    lines = text[start:].splitlines() if start >= 0 else text.splitlines()
    k = defaultdict(lambda: {"us": 0.0, "gb": 0.0, "inv": 0, "blocks": set(), "regs": set(), "warps": [], "m": {}, "mw": defaultdict(float)})
    shape = {}

    def fold(cur, inv, metrics):
        if cur is None:
            return
        v = k[cur]
        us = metrics.get("gpu__time_duration.sum", (None, 0.0))
        us = us[1] * UNITS.get(us[0], 1.0) * inv if us[0] is not None else 0.0
        v["us"] += us
        for name, (unit, avg) in metrics.items():
            if name == "gpu__time_duration.sum":
                continue
            if name == "dram__bytes.sum":
                v["gb"] += avg * UNITS.get(unit, 1.0) * inv
            elif name == "launch__registers_per_thread":
                v["regs"].add(int(avg))
            elif name == "sm__warps_active.avg.pct_of_peak_sustained_active":
                v["warps"].append(avg)
            if name.endswith(".sum") and name != "dram__bytes.sum":
                v["m"][name] = v["m"].get(name, 0.0) + avg * inv
            elif not name.endswith(".sum"):  # weighted by the shape's time (or evenly when untimed)
                w = us if us > 0 else 1.0
                v["m"][name] = (v["m"].get(name, 0.0) * v["mw"][name] + avg * w) / (v["mw"][name] + w)
                v["mw"][name] += w

    cur, inv = None, 0
    for line in lines:
        m = HEAD.match(line)
        if m:
            fold(cur, inv, shape)
            cur, shape = short_name(m.group(1)), {}
            inv = int(m.group(8))
            k[cur]["inv"] += inv
            k[cur]["blocks"].add(int(m.group(5)) * int(m.group(6)) * int(m.group(7)))
            continue
        p = line.split()
        if cur is None or len(p) < 4 or "__" not in p[0]:
            continue
        try:
            avg = float(p[-1].replace(",", ""))
            float(p[-2].replace(",", ""))
            float(p[-3].replace(",", ""))
        except ValueError:
            continue
        shape[p[0]] = (p[1] if len(p) >= 5 else "", avg)
    fold(cur, inv, shape)
    for v in k.values():
        del v["mw"]
    return dict(k)


def table(kernels, bandwidth=None, top=30):
    total = sum(v["us"] for v in kernels.values()) or 1.0
    out = [f"all kernels: {total / 1e3:.3f} ms over {sum(v['inv'] for v in kernels.values())} launches (ncu serializes them)",
           "| kernel | ms | share | launches | DRAM GB | GB/s | of copy bw | block | regs | active warps % |",
           "|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for name, v in sorted(kernels.items(), key=lambda kv: -kv[1]["us"])[:top]:
        rate = v["gb"] / (v["us"] * 1e-6) if v["us"] > 0 else 0.0
        frac = f"{rate / bandwidth:.2f}" if bandwidth else "–"
        warps = f"{min(v['warps']):.0f}–{max(v['warps']):.0f}" if v["warps"] else "–"
        mark = "**" if name.startswith("gigasparse::") or "gigasparse::" in name[:40] else ""
        out.append(f"| {mark}{name[:90]}{mark} | {v['us'] / 1e3:.3f} | {100 * v['us'] / total:.1f}% | {v['inv']} | {v['gb']:.3f} | "
                   f"{rate:.0f} | {frac} | {'/'.join(map(str, sorted(v['blocks'])))} | {'/'.join(map(str, sorted(v['regs'])))} | {warps} |")
    return "\n".join(out)


def stall_table(kernels, top=15):
    """Per kernel (by time): issue slots used, active warps, the cycles between a warp's instructions and
    the reasons its warps were stalled (warps per issued instruction; their share of those cycles)."""
    rows = [(n, v) for n, v in kernels.items() if LATENCY in v["m"]]
    total = sum(v["us"] for _, v in rows) or 1.0
    out = [f"warp stalls: {len(rows)} kernels, {total / 1e3:.3f} ms (ncu serializes them); stalls: warps stalled for the reason per "
           "issued instruction (share of the cycles between a warp's instructions)",
           "| kernel | ms | share | issue active % | warps active % | cycles/inst | instructions (M) | shared wavefronts (M) | top stalls |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, v in sorted(rows, key=lambda kv: -kv[1]["us"])[:top]:
        m = v["m"]
        lat = m[LATENCY]
        stalls = sorted(((m.get(STALL_METRIC.format(r), 0.0), r) for r in STALLS), reverse=True)
        tops = ", ".join(f"{r} {x:.1f} ({100 * x / lat:.0f}%)" if lat > 0 else f"{r} {x:.1f}" for x, r in stalls[:4] if x > 0)
        warps = f"{sum(v['warps']) / len(v['warps']):.0f}" if v["warps"] else "–"
        fmt = lambda key, scale=1.0: f"{m[key] * scale:.1f}" if key in m else "–"
        mark = "**" if "gigasparse::" in name[:40] else ""
        out.append(f"| {mark}{name[:80]}{mark} | {v['us'] / 1e3:.3f} | {100 * v['us'] / total:.1f}% | {fmt(ISSUE)} | {warps} | {lat:.1f} | "
                   f"{fmt('smsp__inst_executed.sum', 1e-6)} | {fmt('l1tex__data_pipe_lsu_wavefronts_mem_shared.sum', 1e-6)} | {tops} |")
    return "\n".join(out)


SAMPLE_STALLS = """==PROF== Disconnected from process 7
  void gigasparse::cuda::gpu::gmagnus::hash_rows_kernel<(gigasparse::cuda::gpu::gmagnus::Phase)2, float, int>(const long *) (100, 1, 1)x(256, 1, 1), Device 0, CC 9.0, Invocations 2
    Section: Command line profiler metrics
    gpu__time_duration.sum                                         ms    3.00    3.00    3.00
    l1tex__data_pipe_lsu_wavefronts_mem_shared.sum                        4000000  4000000  4000000
    sm__warps_active.avg.pct_of_peak_sustained_active               %   40.00   40.00   40.00
    smsp__average_warp_latency_per_inst_issued.ratio                     20.00   20.00   20.00
    smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio      2.00    2.00    2.00
    smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio   10.00   10.00   10.00
    smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio   5.00    5.00    5.00
    smsp__inst_executed.sum                                       inst  1500000  1500000  1500000
    smsp__issue_active.avg.pct_of_peak_sustained_active             %   25.00   25.00   25.00

  void gigasparse::cuda::gpu::gmagnus::hash_rows_kernel<(gigasparse::cuda::gpu::gmagnus::Phase)2, float, int>(const long *) (50, 1, 1)x(1024, 1, 1), Device 0, CC 9.0, Invocations 1
    gpu__time_duration.sum                                         ms    6.00    6.00    6.00
    smsp__average_warp_latency_per_inst_issued.ratio                     50.00   50.00   50.00
    smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio     30.00   30.00   30.00
    smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio   10.00   10.00   10.00
    smsp__inst_executed.sum                                       inst  1000000  1000000  1000000
    smsp__issue_active.avg.pct_of_peak_sustained_active             %   10.00   10.00   10.00
"""


SAMPLE = """==PROF== Disconnected from process 1
  void gigasparse::hash_rows_kernel<1, float, int>(const long *, long) (2114, 1, 1)x(1024, 1, 1), Device 0, CC 9.0, Invocations 4
    Section: Command line profiler metrics
    dram__bytes.sum                                             Mbyte   47.83   48.34   48.00
    gpu__time_duration.sum                                         ms    2.82    2.83    2.50
    launch__registers_per_thread                      register/thread   44.00   44.00   44.00
    sm__warps_active.avg.pct_of_peak_sustained_active               %   49.97   49.97   49.97

  void gigasparse::hash_rows_kernel<1, float, int>(const long *, long) (1627, 1, 1)x(64, 1, 1), Device 0, CC 9.0, Invocations 4
    dram__bytes.sum                                             Kbyte  1000.00  1000.00  1000.00
    gpu__time_duration.sum                                         us   16.67   16.96   500.00
    launch__registers_per_thread                      register/thread   44.00   44.00   44.00
    sm__warps_active.avg.pct_of_peak_sustained_active               %   40.00   40.00   40.00

  void CUB_200101_750_800_860_890_900_1000_1030_1200_NS::DeviceScanKernel<int>(int) (10, 1, 1)x(128, 1, 1), Device 0, CC 9.0, Invocations 2
    dram__bytes.sum                                             Gbyte    1.00    1.00    1.00
    gpu__time_duration.sum                                         ms    1.00    1.00    1.00
    launch__registers_per_thread                      register/thread   40.00   40.00   40.00
    sm__warps_active.avg.pct_of_peak_sustained_active               %    6.00    6.00    6.00
"""


def self_test():
    k = parse(SAMPLE)
    fails = []
    hr = k.get("gigasparse::hash_rows_kernel<1, float, int>")
    if hr is None:
        fails.append("the two launch shapes of hash_rows_kernel<1> merge under one name")
    else:
        if abs(hr["us"] - (2500 * 4 + 500 * 4)) > 1e-6:
            fails.append(f"time: 4 x 2.5 ms + 4 x 500 us = 12000 us, got {hr['us']}")
        if abs(hr["gb"] - (0.048 * 4 + 0.001 * 4)) > 1e-9:
            fails.append(f"DRAM: 4 x 48 MB + 4 x 1 MB = 0.196 GB, got {hr['gb']}")
        if hr["inv"] != 8 or hr["blocks"] != {64, 1024} or hr["regs"] != {44}:
            fails.append(f"launches 8, blocks 64/1024, 44 registers: got {hr['inv']}, {hr['blocks']}, {hr['regs']}")
    if "cub::DeviceScanKernel<int>" not in k:
        fails.append("CUB's versioned namespace shortened to cub::")
    t = table(k, bandwidth=4000.0)
    if "| **gigasparse::hash_rows_kernel<1, float, int>** | 12.000 | 85.7% | 8 | 0.196 | 16 | 0.00 | 64/1024 | 44 | 40–50 |" not in t:
        fails.append("the hash_rows row of the table:\n" + t)
    # the stall table: hash_rows_kernel's two shapes, 6 ms at 20 cycles and 6 ms at 50, weighted evenly
    k = parse(SAMPLE_STALLS)
    hr = k.get("gigasparse::gmagnus::hash_rows_kernel<(Phase)2, float, int>")
    if hr is None:
        fails.append("the stall sample's kernel")
    else:
        m = hr["m"]
        want = {LATENCY: 35.0, STALL_METRIC.format("barrier"): 16.0, STALL_METRIC.format("long_scoreboard"): 10.0,
                STALL_METRIC.format("short_scoreboard"): 5.0, ISSUE: 17.5, "smsp__inst_executed.sum": 4e6,
                "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum": 8e6}
        for key, x in want.items():
            if abs(m.get(key, -1.0) - x) > 1e-6:
                fails.append(f"{key}: {x} expected, got {m.get(key)}")
        if abs(hr["us"] - 12000.0) > 1e-6:
            fails.append(f"stall sample time 12000 us, got {hr['us']}")
        t = stall_table(k)
        row = ("| **gigasparse::gmagnus::hash_rows_kernel<(Phase)2, float, int>** | 12.000 | "
               "100.0% | 17.5 | 40 | 35.0 | 4.0 | 8.0 | barrier 16.0 (46%), long_scoreboard 10.0 (29%), short_scoreboard 5.0 (14%) |")
        if row not in t:
            fails.append("the stall table's row:\n" + t)
    for f in fails:
        print("FAILED:", f)
    print(f"ncu_summary.py self-test: {'failed' if fails else 'passed'}")
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("file", nargs="?")
    ap.add_argument("--bandwidth", type=float, help="copy bandwidth in GB/s (read + write) for the fraction column")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--stalls", action="store_true", help="the warp-stall table (the ncu_stalls stage's metrics) instead")
    ap.add_argument("--metrics", action="store_true", help="print the metrics the ncu_stalls stage asks ncu for, and exit")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if a.metrics:
        print(STALL_METRICS)
        return 0
    if not a.file:
        ap.error("NCU_OUTPUT.txt required")
    kernels = parse(open(a.file, errors="replace").read())
    print(stall_table(kernels, a.top) if a.stalls else table(kernels, a.bandwidth, a.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
