#!/usr/bin/env python3
"""bench/spgemm_cuda/sass_summary.py: what ptxas made of gigasparse's CUDA kernels, without a GPU.

Disassembles CUDA objects with cuobjdump and nvdisasm (NVIDIA's PyPI wheels nvidia-cuda-cuobjdump and
nvidia-cuda-nvdisasm, installed by scripts/bootstrap, or a toolkit's on PATH) and counts, per kernel and architecture, the instructions that
decide a kernel's cost where the CPU simulator cannot see it: shared-memory atomics by kind — a
float or double atomicAdd on shared memory is a compare-and-swap loop (ATOMS.CAST.SPIN), an
integer one ATOMS.ADD, a count of lanes ATOMS.POPC.INC (one instruction for the warp) — shared and
global loads and stores, global atomics (RED/ATOMG), barriers and shuffles.

    sass_summary.py [--cuobjdump PATH] [--out FILE] [--check] OBJECT|'OBJ1|OBJ2|...' ...
    sass_summary.py --self-test

Objects may come joined by '|' (CMake's $<JOIN:$<TARGET_OBJECTS:gigasparse>,|>); those not ending
in .cu.o are skipped.

--out writes the table (gigasparse's kernels, SpGEMM, Krylov and direct; CUB's are left out). --check fails (exit 1) unless
what the design relies on holds:
  * every hash kernel that counts a table's new keys (symbolic and one-pass phases) adds its count
    with ATOMS.POPC.INC, one instruction a warp (a per-lane ATOMS.ADD on one word would serialize
    up to 32 lanes);
  * the product map's numeric kernels (mapped_rows_kernel, mapped_rows_warp_kernel) make no global
    atomics and no compare-and-swap on keys: a product is one shared add;
  * the hash kernels that insert values (numeric and one-pass phases) hold the packed tables' insert,
    a 64-bit compare-and-swap (ATOMS.CAS.64), for float values with int32 columns, and none for
    double values with int32 columns (GpuSpgemmOptions::packed_tables applies to float only);
  * every gigasparse kernel was found for every architecture the objects hold.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

CLASSES = [
    ("atoms_cas_loop", re.compile(r"^ATOMS\.CAST\.SPIN")),
    ("atoms_cas64", re.compile(r"^ATOMS\.CAS\.64")),
    ("atoms_cas", re.compile(r"^ATOMS\.CAS(\.|$)")),
    ("atoms_popc_inc", re.compile(r"^ATOMS\.POPC\.INC")),
    ("atoms_add", re.compile(r"^ATOMS\.ADD")),
    ("atoms_other", re.compile(r"^ATOMS")),
    ("lds", re.compile(r"^LDS")),
    ("sts", re.compile(r"^STS")),
    ("ldg", re.compile(r"^LDG")),
    ("stg", re.compile(r"^STG")),
    ("global_atomic", re.compile(r"^(RED|ATOMG|REDG)")),
    ("bar", re.compile(r"^BAR")),
    ("shfl", re.compile(r"^SHFL")),
]
INSTR = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9_.]*)")
HASH_COUNTING = ("hash_rows_kernel", "hash_rows_warp_kernel", "hash_segments_kernel", "small_rows_kernel")


def find_cuobjdump(given):
    if given:
        return given
    try:
        import nvidia  # the wheel's namespace package
        for root in nvidia.__path__:
            for sub in sorted(os.listdir(root), reverse=True):
                cand = os.path.join(root, sub, "bin", "cuobjdump")
                if os.access(cand, os.X_OK):
                    return cand
    except ImportError:
        pass
    return shutil.which("cuobjdump")


def demangle(names):
    if not names:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout.splitlines()
    return dict(zip(names, out))


def parse(text):
    """{(arch, mangled name): Counter of classes and 'instructions'} from cuobjdump -sass output."""
    funcs = {}
    arch, cur = "?", None
    for line in text.splitlines():
        m = re.match(r"\s*code for (sm_[0-9a-z]+)", line)
        if m:
            arch = m.group(1)
            continue
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            cur = funcs.setdefault((arch, m.group(1)), collections.Counter())
            continue
        m = INSTR.match(line)
        if m and cur is not None:
            op = m.group(1)
            cur["instructions"] += 1
            for name, rx in CLASSES:
                if rx.match(op):
                    cur[name] += 1
                    break
    return funcs


def kernel_key(pretty):
    """('hash_rows_kernel', 'Phase 2, float, int') from a demangled gigasparse kernel (any of its CUDA
    namespaces), else None (CUB's)."""
    m = re.match(r"(?:void )?gigasparse::cuda::(?:[A-Za-z_0-9]+::)*([A-Za-z_0-9]+)(?:<(.*)>)?\(", pretty)  # (no return type: not a template)
    if not m:
        return None
    args = re.sub(r"\(gigasparse::[A-Za-z_0-9:]*::Phase\)", "Phase ", m.group(2) or "")
    return m.group(1), args


def summarize(objects, cuobjdump):
    # cuobjdump runs nvdisasm (the wheel nvidia-cuda-nvdisasm puts it beside cuobjdump)
    os.environ["PATH"] = os.path.dirname(os.path.abspath(cuobjdump)) + os.pathsep + os.environ.get("PATH", "")
    rows = []
    for obj in objects:
        # one architecture at a time (a whole-object -sass also walks the PTX, and fails on it)
        elves = subprocess.run([cuobjdump, "-lelf", obj], capture_output=True, text=True, check=True).stdout
        funcs = {}
        for arch in sorted(set(re.findall(r"\.(sm_[0-9a-z]+)\.cubin", elves))):
            text = subprocess.run([cuobjdump, "-sass", "-arch", arch, obj], capture_output=True, text=True, check=True).stdout
            funcs.update(parse(text))
        names = demangle(sorted({n for _, n in funcs}))
        for (arch, name), counts in funcs.items():
            key = kernel_key(names.get(name, name))
            if key:
                rows.append((os.path.basename(obj).split(".")[0], arch, key[0], key[1], counts))
    rows.sort(key=lambda r: (r[0], r[1], r[2], r[3]))
    return rows


def table(rows):
    cols = [c for c, _ in CLASSES] + ["instructions"]
    lines = ["object | arch | kernel | template | " + " | ".join(cols)]
    for obj, arch, kernel, args, counts in rows:
        lines.append(f"{obj} | {arch} | {kernel} | {args} | " + " | ".join(str(counts[c]) for c in cols))
    return "\n".join(lines) + "\n"


def check(rows):
    failures = []
    archs = {(r[0], r[1]) for r in rows}
    kernels = collections.defaultdict(set)
    for obj, arch, kernel, args, counts in rows:
        kernels[(obj, kernel, args)].add(arch)
        phase = re.match(r"Phase (\d)", args)
        counting = kernel in HASH_COUNTING and (phase is None or phase.group(1) in ("0", "2"))
        where = f"{obj} {arch} {kernel}<{args}>"
        if counting:
            if counts["atoms_popc_inc"] == 0:
                failures.append(f"{where}: the new keys' count is not one ATOMS.POPC.INC a warp")
        inserting = kernel in HASH_COUNTING and phase is not None and phase.group(1) in ("1", "2")
        if inserting and args.endswith("float, int") and counts["atoms_cas64"] == 0:
            failures.append(f"{where}: no packed insert (ATOMS.CAS.64) in a float hash kernel")
        if inserting and args.endswith("double, int") and counts["atoms_cas64"] > 0:
            failures.append(f"{where}: a 64-bit CAS in a double hash kernel with int32 columns")
        if kernel in ("mapped_rows_kernel", "mapped_rows_warp_kernel") and args.startswith("false"):
            if counts["global_atomic"] > 0 or counts["atoms_cas"] > 0:
                failures.append(f"{where}: global atomics or key CAS in the product map's numeric kernel")
            if counts["atoms_cas_loop"] == 0:
                failures.append(f"{where}: no shared add of a product's value found")
    for (obj, kernel, args), found in kernels.items():
        missing = {a for o, a in archs if o == obj} - found
        if missing:
            failures.append(f"{obj} {kernel}<{args}>: missing for {sorted(missing)}")
    if not any(r[2] == "mapped_rows_kernel" for r in rows):
        failures.append("no mapped_rows_kernel among the objects")
    if not any(r[2] in HASH_COUNTING for r in rows):
        failures.append("no hash kernel among the objects")
    return failures


def self_test():
    """The parser and the checks on a hand-written listing."""
    listing = """
	code for sm_90
		Function : k1
        /*0000*/                   LDS R1, [R2] ;
        /*0010*/              @!P0 ATOMS.POPC.INC.32 RZ, [UR4] ;
        /*0020*/                   ATOMS.CAST.SPIN R15, [R25], R14, R15 ;
        /*0030*/                   ATOMS.CAS R24, [R15], R28, R29 ;
        /*0040*/                   REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R5 ;
		Function : k2
        /*0000*/                   SHFL.UP PT, R3, R2, 0x1, RZ ;
        /*0010*/                   ATOMS.CAS.64 R4, [R15], R6, R8 ;
"""
    f = parse(listing)
    k1, k2 = f[("sm_90", "k1")], f[("sm_90", "k2")]
    failures = []
    expect = lambda cond, what: None if cond else failures.append(what)
    expect(k1["instructions"] == 5 and k1["lds"] == 1 and k1["atoms_popc_inc"] == 1 and k1["atoms_cas_loop"] == 1, "k1's classes")
    expect(k1["atoms_cas"] == 1 and k1["global_atomic"] == 1 and k2["shfl"] == 1 and k2["instructions"] == 2, "k1's CAS and RED, k2's shuffle")
    expect(k2["atoms_cas64"] == 1 and k2["atoms_cas"] == 0, "k2's 64-bit CAS")
    c = lambda **kw: collections.Counter(kw)
    good = [("o", "sm_90", "hash_rows_kernel", "Phase 2, float, int", c(atoms_popc_inc=1, atoms_cas64=2)),
            ("o", "sm_90", "hash_rows_kernel", "Phase 2, double, int", c(atoms_popc_inc=1, atoms_cas=2)),
            ("o", "sm_90", "mapped_rows_kernel", "false, float, int", c(atoms_cas_loop=4))]
    expect(check(good) == [], "a good build passes")
    bad = [("o", "sm_90", "hash_rows_kernel", "Phase 0, float, int", c()), ("o", "sm_80", "hash_rows_kernel", "Phase 0, float, int", c(atoms_popc_inc=1)),
           ("o", "sm_90", "mapped_rows_kernel", "false, float, int", c(atoms_cas_loop=4, global_atomic=1)),
           ("o", "sm_90", "mapped_rows_warp_kernel", "false, float, int", c(atoms_cas_loop=1)),
           ("o", "sm_90", "hash_segments_kernel", "Phase 1, float, int", c(atoms_cas=2)),
           ("o", "sm_90", "small_rows_kernel", "Phase 1, double, int", c(atoms_cas64=1))]
    got = check(bad)
    expect(any("ATOMS.POPC.INC" in g for g in got), "a count without ATOMS.POPC.INC fails")
    expect(any("global atomics" in g for g in got), "the map's numeric kernel with a global atomic fails")
    expect(any("missing for ['sm_80']" in g for g in got), "a kernel absent for one architecture fails")
    expect(any("no packed insert" in g for g in got), "a float hash kernel without the packed insert fails")
    expect(any("double hash kernel" in g for g in got), "a double hash kernel with a 64-bit CAS fails")
    expect(kernel_key("void gigasparse::cuda::gpu::gmagnus::hash_rows_kernel<(gigasparse::cuda::gpu::gmagnus::Phase)2, float, int>(long const*)")
           == ("hash_rows_kernel", "Phase 2, float, int"), "the kernel's name and template")
    expect(kernel_key("void cub::DeviceScanKernel<int>(int)") is None, "CUB's kernels are not gigasparse's")
    expect(kernel_key("gigasparse::cuda::gpu::gmagnus::row_classes_kernel(long, long const*)") == ("row_classes_kernel", ""),
           "a kernel that is not a template (demangled without its return type)")
    for f_ in failures:
        print("sass_summary self-test: " + f_, file=sys.stderr)
    print(f"sass_summary self-test: {len(failures)} failures", file=sys.stderr)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("objects", nargs="*")
    ap.add_argument("--cuobjdump")
    ap.add_argument("--out")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    args.objects = [o for arg in args.objects for o in arg.split("|") if o]
    if not args.objects:
        ap.error("no objects")
    tool = find_cuobjdump(args.cuobjdump)
    if not tool:
        print("sass_summary: no cuobjdump (scripts/bootstrap installs the PyPI wheels nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm)", file=sys.stderr)
        return 1
    rows = summarize([o for o in args.objects if o.endswith(".cu.o")], tool)
    text = table(rows)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if args.check:
        failures = check(rows)
        for f in failures:
            print("sass_summary: " + f, file=sys.stderr)
        print(f"sass_summary: {len(rows)} kernel builds checked ({len({r[2] for r in rows})} kernels), {len(failures)} failures", file=sys.stderr)
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
