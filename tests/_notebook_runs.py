"""One execution per notebook, shared by ``test_colab_ready.py`` and ``test_notebook_rerun.py`` (the suite's time).

Both tests used to run every notebook on their own: the Colab test top to bottom under ipywidgets 7.7.1 (then every
control moved), the re-run test top to bottom under this environment's ipywidgets (then every cell once more). Each
was about one more execution of every notebook. Now one kernel per notebook runs one plan that serves both:

1. ``KERNEL_PRELUDE`` (traitlets' "unrecognized arguments" warning, an 8-only keyword or style key, becomes an error);
2. the notebook, top to bottom (Run All), on *another numerical machine* (``other_numerics_env``); its outputs are
   compared with the committed ones by nbval's own rules (``stored_output_mismatches``: the English notebooks'
   nbval check, read by ``test_notebook_portability.py``);
3. ``SNAPSHOT``: a shallow copy of the kernel's global namespace, the state after Run All;
4. ``KERNEL_MOVE_ALL``: every control a panel listens to is moved (the Colab check), its report printed;
5. for each code cell to re-run: ``RESTORE`` (the namespace back to the snapshot), then the cell once more.

The controls are moved after the snapshot and before any re-run: they are the widgets Run All made (a re-run of a
panel cell makes new ones), and every re-run starts from the namespace of Run All, as before. The kernel's ipywidgets
is 7.7.1 (``ensure_overlay``); if it cannot be installed (offline), ``test_colab_ready`` skips (fails in CI with
``PE_REQUIRE_IPYWIDGETS7=1``) and the re-run test runs steps 2, 3 and 5 alone under this environment's ipywidgets.
Which test reads what: the Colab test the outputs of steps 1, 2 and 4 (errors, stderr, the report), the re-run test
the errors of step 5 (``rerun_errors``), the portability test the outputs of step 2 against the committed ones. An error in steps 1-4 stops the run and fails the Colab test; the re-run
test then runs steps 2, 3 and 5 alone under this environment's ipywidgets (``NotebookRuns.rerun_alone``), so a
Colab-only defect does not hide a re-run defect, and a notebook that fails there too fails both.

``NotebookRuns`` (the session fixture ``notebook_runs`` in conftest.py) runs each notebook at most once per session,
and on its first use all the notebooks the selected tests need, two at a time (the machine has 2 cores).
"""

from __future__ import annotations

import copy
import inspect
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbval.plugin import (
    coalesce_streams,
    find_comment_markers,
    find_metadata_tags,
    get_sanitize_patterns,
    transform_streams_for_comparison,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from _cell_names import bound_names, read_names  # noqa: E402
from nbexec import NotebookRunError, cell_label, run_notebook  # noqa: E402

IPYWIDGETS7 = "7.7.1"  # what Colab preinstalls (googlecolab/backend-info, 2023-02 .. 2026-08)
OVERLAY_PKGS = [f"ipywidgets=={IPYWIDGETS7}", "ipython_genutils==0.2.0"]  # 7.x imports ipython_genutils
RESULT_MARK = "@@probe-result@@"
ROLE = "notebook_runs_role"  # cell metadata: which step of the plan a cell is (absent: a cell of the notebook)


# ----------------------------------------------------------------------------- ipywidgets 7.7.1 (Colab's)
def overlay_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pe-course"
    return Path(os.environ.get("PE_IPYWIDGETS7_DIR", base / f"ipywidgets-{IPYWIDGETS7}"))


_overlay_lock = threading.Lock()


def ensure_overlay() -> tuple[Path | None, str]:
    """(directory, "") with ipywidgets 7.7.1 installed with --target (once; cached), or (None, why not)."""
    with _overlay_lock:
        d = overlay_dir()
        if (d / "ipywidgets" / "__init__.py").exists():
            return d, ""
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=d.name + ".", dir=d.parent))
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
               "--target", str(tmp), *OVERLAY_PKGS]  # fmt: skip
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        except subprocess.TimeoutExpired:
            p = None
        if p is None or p.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            return None, (
                f"cannot install ipywidgets=={IPYWIDGETS7} for the Colab-compatibility check (offline?): "
                f"{(p.stderr.strip().splitlines() or ['timeout'])[-1] if p else 'timeout'}. "
                f"To run it: `pip install --no-deps --target {d} {' '.join(OVERLAY_PKGS)}`"
            )
        try:
            tmp.rename(d)
        except OSError:  # another process won the race
            shutil.rmtree(tmp, ignore_errors=True)
        return d, ""


KERNEL_PRELUDE = """\
import warnings as _w
_w.filterwarnings("error", message=".*unrecognized arguments.*")  # 8-only keyword / style key -> error
"""

KERNEL_MOVE_ALL = """\
import json as _json, inspect as _inspect
import ipywidgets as _W
import matplotlib.backend_bases as _bb
_ip = get_ipython()
_errors, _renders = [], [0]
_show_tb = _ip.showtraceback
def _record_tb(exc_tuple=None, *a, **k):  # Output widgets show (and swallow) callback errors with this
    _errors.append(repr(exc_tuple[1]) if exc_tuple else "error")
    return _show_tb(exc_tuple, *a, **k)
_ip.showtraceback = _record_tb
_print_figure = _bb.FigureCanvasBase.print_figure
def _counting_print_figure(self, *a, **k):
    _renders[0] += 1
    return _print_figure(self, *a, **k)
_bb.FigureCanvasBase.print_figure = _counting_print_figure
try:  # the course's panels show a frame without print_figure (helpers.widgets._common blits): count those too
    from helpers.widgets import _common as _pc
    _pc_publish = _pc._publish
    def _counting_publish(*a, **k):
        _renders[0] += 1
        return _pc_publish(*a, **k)
    _pc._publish = _counting_publish
except ImportError:
    _pc = None
{other_value}
_report = {{"version": _W.__version__, "moved": 0, "problems": []}}
for _wid in list(_W.Widget.widgets.values()):
    if not isinstance(_wid, _W.ValueWidget) or isinstance(_wid, _W.Output) or not _wid._trait_notifiers.get("value"):
        continue  # only controls something listens to
    _new = other_value(_W, _wid)
    if _new is None:
        _report["problems"].append(f"cannot move {{type(_wid).__name__}} {{getattr(_wid, 'description', '')!r}}")
        continue
    _n0, _e0 = _renders[0], len(_errors)
    try:
        _wid.value = _new
    except Exception as _e:
        _errors.append(repr(_e))
    _report["moved"] += 1
    if len(_errors) > _e0:
        _report["problems"].append(f"moving {{type(_wid).__name__}} {{getattr(_wid, 'description', '')!r}} raised {{_errors[-1]}}")
    elif _renders[0] == _n0:
        _report["problems"].append(f"moving {{type(_wid).__name__}} {{getattr(_wid, 'description', '')!r}} drew no figure")
_ip.showtraceback = _show_tb
_bb.FigureCanvasBase.print_figure = _print_figure
if _pc is not None:
    _pc._publish = _pc_publish
print("{mark}" + _json.dumps(_report))
"""


def other_value(W, c):
    """Another valid value for control ``c`` (ipywidgets module ``W``), or None. Shared with the kernel cell."""
    if isinstance(c, W.widgets.widget_selection._Selection):
        opts = list(c._options_values)
        return next((o for o in opts if o != c.value), c.value)
    if isinstance(c, W.Checkbox | W.ToggleButton):
        return not c.value
    if isinstance(c, W.FloatLogSlider):
        lo, hi = c.min, c.max
        e = min(hi, max(lo, (lo + hi) / 2))
        return c.base**e if abs(c.base**e - c.value) > 1e-12 else c.base**hi
    if hasattr(c, "min") and hasattr(c, "max"):
        step = getattr(c, "step", 1) or 1
        if isinstance(c.value, tuple):  # range slider: move the upper end
            lo, hi = c.value
            return (lo, hi + step) if hi + step <= c.max else (lo - step, hi) if lo - step >= c.min else None
        return c.value + step if c.value + step <= c.max else c.value - step
    return None


# ----------------------------------------------------------------------------- another numerical machine
# NumPy dispatch targets above x86-64-v3 (AVX2); switched off when this CPU has them.
_NUMPY_WIDE_TARGETS = ("X86_V4", "AVX512_SKX", "AVX512_CLX", "AVX512_CNL", "AVX512_ICL", "AVX512_SPR")


def other_numerics_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment whose numerical kernels differ from this machine's defaults (test_notebook_portability.py).

    One thread for OpenMP, MKL and OpenBLAS; on an AVX-512 CPU the AVX-512 kernels of NumPy, PyTorch, MKL and oneDNN
    switched off (an AVX2 CPU); on an AVX2 CPU the next narrower ones. Variables that select a CPU model for OpenBLAS
    are left alone on purpose.
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


def numerics_flags(env: dict[str, str]) -> dict[str, str]:
    """The variables of ``other_numerics_env`` that select threads and kernels (for failure messages)."""
    return {k: env[k] for k in sorted(env) if k.endswith(("_THREADS", "_FEATURES", "_CAPABILITY", "_ISA", "TIONS"))}


# ----------------------------------------------------------------------------- outputs compared as nbval does
SANITIZE_FILE = ROOT / "tests" / "nbval_sanitize.cfg"  # the file pyproject's addopts give nbval
#: nbval's keys never compared (``IPyNbFile.skip_compare`` without --nbdime: images are not compared either).
NBVAL_SKIP_COMPARE = ("metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
                      "application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg")  # fmt: skip
#: Not compared here although nbval compares it: a widget's text/plain repr (shown only where no widget manager
#: runs) lists the ipywidgets version's own traits, and this run is under ipywidgets 7.7.1, the stored outputs
#: under 8. A widget output is recognised by its widget-view data.
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _sanitizer():
    patterns = get_sanitize_patterns(SANITIZE_FILE.read_text())

    def sanitize(value):
        if not isinstance(value, str):
            return value
        for regex, replace in patterns:
            value = re.sub(regex, replace, value)
        return value

    return sanitize


def _compared(outputs, sanitize) -> dict[str, list]:
    """nbval's reading of a cell's outputs: streams merged per name (``\r``/``\b`` applied), then every key not
    skipped, with each output's ``data`` flattened into its MIME types, to the list of its sanitized values."""
    found: dict[str, list] = {}
    for out in transform_streams_for_comparison(coalesce_streams([nbformat.from_dict(o) for o in outputs])):
        for key, value in out.items():
            if key in NBVAL_SKIP_COMPARE:
                continue
            if key == "data":
                widget = WIDGET_VIEW in value
                for mime, item in value.items():
                    if mime not in NBVAL_SKIP_COMPARE and not (widget and mime == "text/plain"):
                        found.setdefault(mime, []).append(sanitize(item))
            else:
                found.setdefault(key, []).append(sanitize(value))
    return found


def _first_difference(a: str, b: str) -> str:
    if not (isinstance(a, str) and isinstance(b, str)):
        return f"stored {a!r:.300}, now {b!r:.300}"
    al, bl = a.splitlines(), b.splitlines()
    i = next((k for k, (x, y) in enumerate(zip(al, bl, strict=False)) if x != y), min(len(al), len(bl)))
    x = al[i] if i < len(al) else "<end>"
    y = bl[i] if i < len(bl) else "<end>"
    return f"line {i + 1}: stored {x!r:.300}, now {y!r:.300}"


def stored_output_mismatches(nb: nbformat.NotebookNode, executed_cells: list) -> list[str]:
    """Each code cell of ``nb`` whose outputs in ``executed_cells`` (the same cells, run) differ from the stored ones
    by nbval's rules, as 'cell i (`first line`): what differs'.

    nbval's rules: cells tagged ``nbval-skip`` (or ``# NBVAL_SKIP``) or ``nbval-ignore-output`` (``# NBVAL_IGNORE_OUTPUT``)
    are not compared, nor a stored cell that never ran; streams are merged per name; the patterns of
    ``tests/nbval_sanitize.cfg`` are applied; images, metadata, tracebacks and widget views are not compared; the same
    MIME types must be there, each with the same number of outputs and the same values in order. One addition:
    ``WIDGET_VIEW``'s note.
    """
    sanitize = _sanitizer()
    found = []
    for index, (cell, ran) in enumerate(zip(nb.cells, executed_cells, strict=True)):
        if cell.cell_type != "code" or cell.get("execution_count") is None:
            continue
        options = dict(find_metadata_tags(cell.get("metadata", {})) or ())
        options.update(dict(find_comment_markers(cell.source)))
        if options.get("skip") or options.get("check", True) is False:
            continue
        stored, now = _compared(cell.get("outputs", []), sanitize), _compared(ran.get("outputs", []), sanitize)
        where = cell_label(nb, index)
        if stored.keys() != now.keys():
            found.append(f"{where}: output kinds differ: stored {sorted(stored)}, now {sorted(now)}")
            continue
        for key, values in stored.items():
            if len(values) != len(now[key]):
                found.append(f"{where}: {len(values)} stored {key} output(s), {len(now[key])} now")
                break
            diff = next((_first_difference(a, b) for a, b in zip(values, now[key], strict=True) if a != b), None)
            if diff:
                found.append(f"{where}: {key} differs at {diff}")
                break
    return found


# ----------------------------------------------------------------------------- re-run after Run All
# Notebook stem -> (reason, pattern): cells whose source matches the pattern are not re-run (test_notebook_rerun.py's
# docstring: cost).
LIVE_MODEL_RUN = re.compile(r"\bmodel\.token_losses\(|\bpasskey_trial\(")
SUBSET: dict[str, tuple[str, re.Pattern]] = {
    "07_real_model": ("cells that run the model live (token_losses, passkey_trial) are not re-run", LIVE_MODEL_RUN),
}

SNAPSHOT = "get_ipython()._rerun_snapshot = dict(get_ipython().user_ns)"
RESTORE = "(lambda ip: (ip.user_ns.clear(), ip.user_ns.update(ip._rerun_snapshot)))(get_ipython());"
RERUN_KEY = "rerun_of"


def keep_for(stem: str):
    """The re-run predicate on a cell's source for a notebook (None: re-run every cell)."""
    if stem not in SUBSET:
        return None
    pattern = SUBSET[stem][1]
    return lambda source: not pattern.search(source)


def _harness(source: str, role: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source, metadata={"tags": ["rerun-harness"], ROLE: role})


def rerun_cells(nb: nbformat.NotebookNode, keep=None) -> list[nbformat.NotebookNode]:
    """(restore, cell i again) for every code cell i to re-run; each copy's metadata ``rerun_of`` is i.

    ``keep(source) -> bool`` selects the cells re-run (default: all). Cells tagged ``skip-execution`` and empty cells
    are not re-run (they did not run the first time either).
    """
    out = []
    for index, cell in enumerate(nb.cells):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type != "code" or not cell.source.strip() or "skip-execution" in tags:
            continue
        if keep is not None and not keep(cell.source):
            continue
        again = nbformat.v4.new_code_cell(cell.source, metadata={"tags": ["raises-exception"], RERUN_KEY: index})
        out.extend([_harness(RESTORE, "restore"), again])
    return out


def rerun_plan(nb: nbformat.NotebookNode, keep=None) -> nbformat.NotebookNode:
    """The notebook, then a snapshot cell, then (restore, cell i again) for every code cell i to re-run."""
    plan = copy.deepcopy(nb)
    plan.cells.append(_harness(SNAPSHOT, "snapshot"))
    plan.cells.extend(rerun_cells(nb, keep))
    return plan


def shared_plan(nb: nbformat.NotebookNode, keep=None, *, colab: bool = True) -> nbformat.NotebookNode:
    """The one plan of the module docstring: prelude, notebook, snapshot, move every control, re-runs.

    ``colab=False`` leaves out the prelude and the moves (no ipywidgets 7.7.1 to run them under).
    """
    plan = copy.deepcopy(nb)
    if colab:
        plan.cells.insert(0, nbformat.v4.new_code_cell(KERNEL_PRELUDE, metadata={ROLE: "prelude"}))
    plan.cells.append(_harness(SNAPSHOT, "snapshot"))
    if colab:
        move_all = KERNEL_MOVE_ALL.format(other_value=inspect.getsource(other_value), mark=RESULT_MARK)
        plan.cells.append(nbformat.v4.new_code_cell(move_all, metadata={ROLE: "move_all"}))
    plan.cells.extend(rerun_cells(nb, keep))
    for c in plan.cells:
        c.pop("id", None)
    plan.nbformat_minor = min(plan.nbformat_minor, 4)
    return plan


def rerun_errors(nb: nbformat.NotebookNode, executed: nbformat.NotebookNode) -> list[str]:
    """Each error output of a re-run copy, as 'cell i (`first line`): Name: value' about the original cell i."""
    found = []
    for cell in executed.cells:
        index = cell.metadata.get(RERUN_KEY)
        if index is None:
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                line = f"{cell_label(nb, index)}: {out.get('ename')}: {str(out.get('evalue'))[:300]}"
                found.append(line + later_rebindings(nb, index))
    return found


def later_rebindings(nb: nbformat.NotebookNode, index: int) -> str:
    """A diagnosis for a failing re-run: the names cell ``index`` reads that a later cell rebinds (the last one)."""
    try:
        reads = read_names(nb.cells[index].source)
        last = {}
        for j in range(index + 1, len(nb.cells)):
            if nb.cells[j].cell_type == "code":
                last.update({name: j for name in reads & bound_names(nb.cells[j].source)})
    except SyntaxError:
        return ""
    return "; reads " + ", ".join(f"`{n}` (rebound in cell {j})" for n, j in sorted(last.items())) if last else ""


# ----------------------------------------------------------------------------- one run, both readings
@dataclass
class NotebookRun:
    """What one shared run of a notebook tells each test.

    ``failed``: why the run stopped before its re-runs (an error, stall or timeout in the prelude, the notebook, the
    snapshot or the moves), or "". ``colab``: the Colab reading (``version``, ``moved``, ``problems``, ``stderr`` as
    (notebook cell index, text)), or None when the run had no ipywidgets 7.7.1 (``overlay_missing`` says why).
    ``rerun_errors``: each re-run copy's error (``rerun_errors``). ``rerun_stalled``: the re-run copy (original cell
    index) during which the run stopped, or None. ``output_mismatches``: the notebook's cells whose outputs differ from
    the committed ones (``stored_output_mismatches``), or None when Run All did not finish; ``numerics``: the
    kernel's thread and CPU-kernel variables (``other_numerics_env``).
    """

    failed: str = ""
    under_ipywidgets7: bool = False
    colab: dict | None = None
    overlay_missing: str = ""
    rerun_errors: list[str] = field(default_factory=list)
    rerun_stalled: int | None = None
    output_mismatches: list[str] | None = None
    numerics: dict[str, str] = field(default_factory=dict)


def run_shared(nb_path: Path, overlay: Path | None, overlay_missing: str = "") -> NotebookRun:
    """Run ``nb_path``'s shared plan in one kernel (a child process, ``scripts/nbexec.py``) on the other numerical
    machine, and read it for the three tests."""
    import json

    nb = nbformat.read(nb_path, as_version=4)
    colab = overlay is not None
    plan = shared_plan(nb, keep_for(nb_path.stem), colab=colab)
    offset = 1 if colab else 0  # the prelude shifts the notebook's cells by one
    path = [str(overlay)] if colab else []
    env = other_numerics_env(
        dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [*path, str(ROOT), os.environ.get("PYTHONPATH")])))
    )
    result = NotebookRun(overlay_missing=overlay_missing, under_ipywidgets7=colab, numerics=numerics_flags(env))
    try:
        executed = run_notebook(plan, name=nb_path.name, cwd=nb_path.parent, kernel_env=env, allow_tagged_errors=True)
    except NotebookRunError as e:
        where = e.cell
        meta = plan.cells[where].metadata if where is not None and 0 <= where < len(plan.cells) else {}
        if RERUN_KEY in meta or meta.get(ROLE) == "restore":  # Run All and the moves finished: the Colab reading holds
            result.rerun_stalled = meta.get(RERUN_KEY)
            what = f"re-running {cell_label(nb, meta[RERUN_KEY])}" if RERUN_KEY in meta else "the re-run harness"
            result.failed = f"{what} after Run All did not finish: {e}"
            executed = e.notebook
        else:
            index = None if where is None else where - offset
            at = f" ({cell_label(nb, index)})" if index is not None and 0 <= index < len(nb.cells) else ""
            ipw = f" under ipywidgets {IPYWIDGETS7}" if colab else ""
            result.failed = f"Run All{ipw} failed before any re-run{at}: {e} (plan cell {where})"
            return result
    else:
        result.rerun_errors = rerun_errors(nb, executed)
    if executed is not None:  # Run All finished (a stall in a re-run keeps what ran before it)
        result.output_mismatches = stored_output_mismatches(nb, executed.cells[offset : offset + len(nb.cells)])
    if colab and executed is not None:
        move = next(c for c in executed.cells if c.metadata.get(ROLE) == "move_all")
        text = "".join(o.get("text", "") for o in move.outputs if o.get("name") == "stdout")
        r = json.loads(text.rsplit(RESULT_MARK, 1)[1])
        r["stderr"] = [  # the notebook's cells and the moves (reported as the cell after the last one)
            (i - offset, o["text"][:400])
            for i, c in enumerate(executed.cells)
            if c.metadata.get(ROLE) in (None, "prelude", "move_all") and RERUN_KEY not in c.metadata
            for o in c.get("outputs", [])
            if o.get("name") == "stderr"
        ]
        result.colab = r
    return result


LONGEST_FIRST = ("07_real_model",)  # about 4 min with its re-runs, the others 0.5-1.5 min


class NotebookRuns:
    """Each notebook's shared run, made at most once per session; the first request runs every notebook the
    session's selected tests ask for (``wanted``), two at a time."""

    def __init__(self, wanted: list[Path]):
        self.wanted = wanted
        self._runs: dict[Path, NotebookRun] = {}
        self._alone: dict[Path, NotebookRun] = {}
        self._lock = threading.Lock()

    def get(self, nb_path: Path) -> NotebookRun:
        from concurrent.futures import ThreadPoolExecutor

        nb_path = Path(nb_path).resolve()
        with self._lock:
            if nb_path not in self._runs:
                todo = [p for p in dict.fromkeys([nb_path, *self.wanted]) if p not in self._runs]
                todo.sort(key=lambda p: p.stem not in LONGEST_FIRST)  # the longest first: less time alone at the end
                overlay, why = ensure_overlay()
                with ThreadPoolExecutor(max_workers=2) as pool:  # the threads only wait for their child processes
                    futures = {p: pool.submit(run_shared, p, overlay, why) for p in todo}
                    self._runs.update({p: f.result() for p, f in futures.items()})
            return self._runs[nb_path]

    def rerun_alone(self, nb_path: Path) -> NotebookRun:
        """The notebook's re-run plan alone under this environment's ipywidgets (once): for the re-run test when Run
        All failed under ipywidgets 7.7.1 (a Colab defect, which test_colab_ready reports), so that the re-runs are
        still tested."""
        nb_path = Path(nb_path).resolve()
        with self._lock:
            if nb_path not in self._alone:
                self._alone[nb_path] = run_shared(nb_path, None)
            return self._alone[nb_path]
