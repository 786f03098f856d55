#!/usr/bin/env python3
# bench/spgemm_cuda/ncu_summary.py: one table per kernel from Nsight Compute's per-kernel summary
# (`ncu --print-summary per-kernel --metrics gpu__time_duration.sum,dram__bytes.sum,
# launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active ...`, as
# scripts/device-check runs it on one SpGEMM case): kernels of the same name (launch shapes summed),
# by total time, with their share, DRAM bytes and rate, the fraction of a copy bandwidth, block sizes,
# registers and the active warps (% of the SM's slots). gigasparse's kernels are marked; cuSPARSE's
# (the benchmark runs both) are listed too, since they are what ours is measured against.
#
# usage: ncu_summary.py NCU_OUTPUT.txt [--bandwidth GBPS] [--top N]
#        ncu_summary.py --self-test
import argparse
import re
import sys
from collections import defaultdict

HEAD = re.compile(r"^  (\S.*?) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\), .*Invocations (\d+)\s*$")
UNITS = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6,
         "byte": 1e-9, "Kbyte": 1e-6, "Mbyte": 1e-3, "Gbyte": 1.0, "Tbyte": 1e3}


def short_name(full):
    name = re.sub(r"\(.*$", "", full)             # parameters
    name = re.sub(r"CUB_\w+?_NS::", "cub::", name)  # CUB's versioned namespace
    name = re.sub(r"^void ", "", name)
    return name


def parse(text):
    """{kernel: {'us','gb','inv','blocks','regs','warps'}} from ncu's per-kernel summary."""
    start = text.find("==PROF== Disconnected")
    lines = text[start:].splitlines() if start >= 0 else text.splitlines()
    k = defaultdict(lambda: {"us": 0.0, "gb": 0.0, "inv": 0, "blocks": set(), "regs": set(), "warps": []})
    cur, inv = None, 0
    for line in lines:
        m = HEAD.match(line)
        if m:
            cur = short_name(m.group(1))
            inv = int(m.group(8))
            k[cur]["inv"] += inv
            k[cur]["blocks"].add(int(m.group(5)) * int(m.group(6)) * int(m.group(7)))
            continue
        p = line.split()
        if cur is None or len(p) < 5 or p[1] not in UNITS and p[0] not in ("launch__registers_per_thread",
                                                                                 "sm__warps_active.avg.pct_of_peak_sustained_active"):
            continue
        avg = float(p[-1].replace(",", ""))
        if p[0] == "gpu__time_duration.sum":
            k[cur]["us"] += avg * UNITS[p[1]] * inv
        elif p[0] == "dram__bytes.sum":
            k[cur]["gb"] += avg * UNITS[p[1]] * inv
        elif p[0] == "launch__registers_per_thread":
            k[cur]["regs"].add(int(avg))
        elif p[0] == "sm__warps_active.avg.pct_of_peak_sustained_active":
            k[cur]["warps"].append(avg)
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
    for f in fails:
        print("FAILED:", f)
    print(f"ncu_summary.py self-test: {'failed' if fails else 'passed'}")
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("file", nargs="?")
    ap.add_argument("--bandwidth", type=float, help="copy bandwidth in GB/s (read + write) for the fraction column")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.file:
        ap.error("NCU_OUTPUT.txt required")
    print(table(parse(open(a.file, errors="replace").read()), a.bandwidth, a.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
