"""Notebook outputs that do not depend on the machine, and a Run All that never stops.

* No committed notebook has an error output or a ``raises-exception`` tag: Colab, VS Code and
  ``jupyter nbconvert --execute`` stop a Run All at the first error whatever its tags say, so every lesson that shows
  an error catches it and prints its type and message.
* Every notebook is run a second time, under nbval, on *another numerical machine*: one thread for OpenMP, MKL and
  OpenBLAS, and the widest SIMD kernels of this CPU switched off in NumPy (``NPY_DISABLE_CPU_FEATURES``), PyTorch
  (``ATEN_CPU_CAPABILITY``), MKL (``MKL_ENABLE_INSTRUCTIONS``) and oneDNN (``ONEDNN_MAX_CPU_ISA``). Its compared
  outputs must still equal the committed ones. This is what an AVX2-only CPU (for example an older AMD EPYC) does:
  NumPy's float64 ``sin``/``cos`` use SVML kernels on AVX-512 CPUs and libm elsewhere, which differ in the last bit;
  a tie broken by ``argmin`` then picks another pair (the bug that made chapter 02 red on another machine; with these
  settings it reproduces here).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]

# NumPy dispatch targets above x86-64-v3 (AVX2); switched off when this CPU has them.
_NUMPY_WIDE_TARGETS = ("X86_V4", "AVX512_SKX", "AVX512_CLX", "AVX512_CNL", "AVX512_ICL", "AVX512_SPR")


def other_numerics_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment whose numerical kernels differ from this machine's defaults (see the module docstring).

    On an AVX-512 CPU it emulates an AVX2 one; on an AVX2 CPU it falls back to the next narrower kernels. Thread
    counts are set to 1 everywhere. Variables that select a CPU model for OpenBLAS are left alone on purpose.
    """
    import numpy as np  # noqa: F401  (imported for its CPU-feature table)
    import torch
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    env = dict(os.environ if base is None else base)
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    wide = [t for t in _NUMPY_WIDE_TARGETS if t in __cpu_dispatch__ and __cpu_features__.get(t)]
    if not wide and __cpu_features__.get("X86_V3") and "X86_V3" in __cpu_dispatch__:
        wide = ["X86_V3"]
    if wide:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(wide)
    capability = torch.backends.cpu.get_cpu_capability()  # "AVX512", "AVX2", "DEFAULT", ...
    if capability == "AVX512":
        env.update(ATEN_CPU_CAPABILITY="avx2", MKL_ENABLE_INSTRUCTIONS="AVX2", ONEDNN_MAX_CPU_ISA="AVX2")
    elif capability == "AVX2":
        env.update(ATEN_CPU_CAPABILITY="default", MKL_ENABLE_INSTRUCTIONS="SSE4_2", ONEDNN_MAX_CPU_ISA="SSE41")
    return env


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=IDS)
def test_no_error_output_and_no_raises_exception_tag(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    for index, cell in enumerate(nb.cells):
        tags = cell.get("metadata", {}).get("tags", [])
        assert "raises-exception" not in tags, (
            f"{nb_path.name} cell {index}: tagged raises-exception; Run All stops there outside JupyterLab. "
            "Catch the error and print its type and message instead."
        )
        if cell.cell_type == "code":
            errors = [out for out in cell.get("outputs", []) if out.get("output_type") == "error"]
            assert not errors, f"{nb_path.name} cell {index}: committed error output {errors[0].get('ename')}"


def test_other_numerics_env_changes_the_kernels():
    env = other_numerics_env({})
    assert env["OMP_NUM_THREADS"] == "1" and env["MKL_NUM_THREADS"] == "1"
    assert "OPENBLAS_CORETYPE" not in env  # never chosen by the tests
    # On every x86-64 machine CI runs on, at least NumPy's or PyTorch's kernels must change.
    import platform

    if platform.machine() in ("x86_64", "AMD64"):
        assert "NPY_DISABLE_CPU_FEATURES" in env or "ATEN_CPU_CAPABILITY" in env


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=IDS)
def test_outputs_match_on_other_numerics(nb_path):
    """nbval on this notebook again, in a subprocess on the other numerical machine: outputs must not change."""
    env = other_numerics_env()
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    cmd = [sys.executable, "-m", "pytest", str(nb_path.relative_to(ROOT)), "-q"]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    flags = {k: env[k] for k in sorted(env) if k.endswith(("_THREADS", "_FEATURES", "_CAPABILITY", "_ISA", "TIONS"))}
    assert proc.returncode == 0, (
        f"{nb_path.name}: outputs differ from the committed ones under {flags}\n"
        f"{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}"
    )
