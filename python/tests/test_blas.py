"""The BLAS kernel set: gigasparse.blas_info() and the OPENBLAS_CORETYPE choice made at import."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import gigasparse as gs
from gigasparse import _blas_env


def test_kernel_set_for_cpu_flags():
    assert _blas_env.kernel_set_for({"avx512f", "avx512dq", "avx512bw", "avx512vl", "avx2", "fma"}) == "SkylakeX"
    assert _blas_env.kernel_set_for({"avx512f", "avx2", "fma"}) == "Haswell"  # AVX-512 without DQ/BW/VL
    assert _blas_env.kernel_set_for({"avx2", "fma"}) == "Haswell"
    assert _blas_env.kernel_set_for({"avx", "sse3"}) == ""
    assert _blas_env.kernel_set_for(set()) == ""


def test_blas_info_fields():
    info = gs.blas_info()
    assert set(info) == {"library", "core", "forced_core", "cpu_isa", "kernel_isa", "recommended"}
    assert info["library"]  # the compiled core links a BLAS


def _import_in_fresh_process(env: dict[str, str]) -> dict[str, str]:
    code = "import json, gigasparse as gs; print(json.dumps(gs.blas_info()))"
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_import_runs_kernels_as_wide_as_the_cpu():
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "GIGASPARSE_KEEP_BLAS_CORE")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    info = _import_in_fresh_process(env)
    assert info["recommended"] == "", info


def test_keep_blas_core_leaves_the_environment_alone():
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env["GIGASPARSE_KEEP_BLAS_CORE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    info = _import_in_fresh_process(env)
    assert info["forced_core"] == "", info
