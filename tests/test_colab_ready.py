"""Colab readiness: one setup cell everywhere, one URL, and nothing that needs ipywidgets 8 or ipympl.

* Every notebook's first code cell is exactly ``helpers._colab.SETUP_CELL`` (stamped by
  ``scripts/stamp_setup_cell.py``) and has no output.
* The cell is silent outside Colab and, with a fake ``google.colab`` module, calls ``%pip install`` with a
  requirement whose name is this project's distribution name and whose URL is ``REPO_URL``.
* The repository URL is written in helpers/_colab.py only (README Colab links must agree with it).
* No notebook or helper uses ipympl / ``%matplotlib widget`` (Colab has no ipympl).
* ipywidgets 7.7.1 (Colab's version): a real import in a side environment (``pip install --target``
  of ipywidgets 7.7.1 put first on ``sys.path`` of this interpreter, cached under
  ``~/.cache/pe-course/``). There, every panel of helpers/widgets that can be built without arguments is
  built and every control moved (traitlets' "unrecognized arguments" warning, i.e. an 8-only keyword or
  style key, is turned into an error), and an AST scan checks every ipywidgets name, constructor keyword,
  style key and attribute assignment in helpers/widgets/*.py and in the notebooks against the classes
  of 7.7.1. Skips with a message if the install is impossible (offline); ``PE_REQUIRE_IPYWIDGETS7=1``
  makes that a failure (set in CI).
* Every notebook runs there top to bottom (two at a time), each in its own child process
  (``scripts/nbexec.py``), and every control a panel listens to is moved in that kernel. The runner removes
  the cause of the stalls these runs used to have (a reply's ZeroMQ wake-up lost while nbclient's
  Output-widget mimic sent on the same socket); a cell that still stalls fails within 30-90 s with the
  notebook and the cell named (tests/test_nbexec.py), never a silent 300 s wait. That run is shared with
  ``test_notebook_rerun.py``, whose re-runs follow the moves in the same kernel (``tests/_notebook_runs.py``,
  the session fixture ``notebook_runs``): one execution per notebook for both tests.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
WIDGET_MODULES = sorted(p for p in (ROOT / "helpers" / "widgets").glob("*.py") if p.name != "__init__.py")

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # nbexec: the stall-proof notebook runner
sys.path.insert(0, str(ROOT / "tests"))  # also when this file runs as the probe's script
from _notebook_runs import IPYWIDGETS7, RESULT_MARK, ensure_overlay, other_value  # noqa: E402

from helpers._colab import PACKAGE, REPO_URL, SETUP_CELL, colab_url, github_path  # noqa: E402


def code_cells(path: Path) -> list[nbformat.NotebookNode]:
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


# ----------------------------------------------------------------------------- setup cell and URL
def test_setup_cell_is_built_from_the_one_url():
    name = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
    assert name == PACKAGE, "helpers/_colab.PACKAGE must be pyproject's [project] name"
    assert f'"{PACKAGE} @ git+{REPO_URL}"' in SETUP_CELL
    assert SETUP_CELL.splitlines()[0].startswith("# Colab setup: ")
    assert colab_url("notebooks/04_rope.ipynb") == (
        f"https://colab.research.google.com/github/{github_path()}/blob/main/notebooks/04_rope.ipynb"
    )


@pytest.mark.skipif(not NOTEBOOKS, reason="no notebooks yet")
@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_first_code_cell_is_the_setup_cell(nb_path):
    cells = code_cells(nb_path)
    assert cells, f"{nb_path.name} has no code cell"
    first = cells[0]
    assert first.source == SETUP_CELL, (
        f"{nb_path.name}: first code cell differs from helpers/_colab.SETUP_CELL; "
        "run `python scripts/stamp_setup_cell.py`"
    )
    assert first.get("outputs", []) == [], f"{nb_path.name}: the setup cell must print nothing, it has outputs"


def _run_setup_cell(in_colab: bool) -> dict:
    """Run SETUP_CELL in a real IPython shell (subprocess); %pip is replaced by a recorder."""
    code = f"""
import io, json, sys, types, contextlib
from IPython.core.interactiveshell import InteractiveShell
calls = []
if {in_colab!r}:
    sys.modules["google.colab"] = types.ModuleType("google.colab")
sh = InteractiveShell.instance()
sh.register_magic_function(lambda line: calls.append(line), "line", "pip")
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    r = sh.run_cell({SETUP_CELL!r}, store_history=True)
print(json.dumps({{"ok": r.success, "calls": calls, "out": out.getvalue(), "err": err.getvalue(),
                  "result": repr(r.result)}}))
"""
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tempfile.gettempdir()
    )
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_setup_cell_does_nothing_outside_colab():
    r = _run_setup_cell(in_colab=False)
    assert r == {"ok": True, "calls": [], "out": "", "err": "", "result": "None"}


def test_setup_cell_installs_the_package_in_colab():
    from packaging.requirements import Requirement

    r = _run_setup_cell(in_colab=True)
    assert r["ok"] and r["err"] == "", r
    assert len(r["calls"]) == 1, r
    args = r["calls"][0].split(maxsplit=1)
    assert args[0] == "install" and "-q" in args[1]
    req = Requirement(args[1].replace("-q", "", 1).strip().strip('"'))
    assert req.name == PACKAGE and req.url == f"git+{REPO_URL}", req


def test_repository_url_is_written_in_one_place():
    """The URL literal lives in helpers/_colab.py and in the stamped setup cells, nowhere else."""
    needle = github_path()
    offenders = []
    for p in [*ROOT.glob("helpers/**/*.py"), *ROOT.glob("scripts/*.py"), *ROOT.glob("tests/**/*.py"),
              *ROOT.glob("docs/**/*.md"), ROOT / "pyproject.toml", *ROOT.glob("requirements*.txt")]:  # fmt: skip
        if p.is_file() and p.resolve() != (ROOT / "helpers" / "_colab.py") and needle in p.read_text(errors="ignore"):
            offenders.append(str(p.relative_to(ROOT)))
    for nb in NOTEBOOKS:
        if any(needle in c.source for c in code_cells(nb)[1:]) or any(
            needle in c.source for c in nbformat.read(nb, as_version=4).cells if c.cell_type != "code"
        ):
            offenders.append(f"{nb.relative_to(ROOT)} (outside its setup cell)")
    assert not offenders, f"{needle} written outside helpers/_colab.py: {offenders}"


def test_readme_colab_links_agree_with_the_url():
    readme = ROOT / "README.md"
    text = readme.read_text() if readme.exists() else ""
    links = set(re.findall(r"https://colab\.research\.google\.com/github/[^\s)\"'>]+", text))
    if not links:
        pytest.skip("README.md has no Open-in-Colab links yet (print them: python scripts/stamp_setup_cell.py --links)")
    expected = {colab_url(nb.relative_to(ROOT).as_posix()) for nb in NOTEBOOKS}
    assert links <= expected, f"README Colab links not built from helpers/_colab.py: {sorted(links - expected)}"
    assert expected <= links, f"chapters without an Open-in-Colab link in README: {sorted(expected - links)}"


# ----------------------------------------------------------------------------- no ipympl
def test_no_ipympl_anywhere():
    pattern = re.compile(r"ipympl|%matplotlib\s+(widget|ipympl|notebook)|enable_custom_widget_manager")
    hits = []
    for p in [*ROOT.glob("helpers/**/*.py")]:
        if pattern.search(p.read_text()):
            hits.append(str(p.relative_to(ROOT)))
    for nb in NOTEBOOKS:
        hits += [f"{nb.name} cell {i}" for i, c in enumerate(code_cells(nb)) if pattern.search(c.source)]
    assert not hits, f"Colab has no ipympl; use the inline backend: {hits}"


# ----------------------------------------------------------------------------- ipywidgets 7.7
def _ensure_overlay() -> Path:
    """ipywidgets 7.7.1 installed with --target (once; cached). Skip (or fail in CI) if pip cannot get it."""
    d, why = ensure_overlay()
    if d is None:
        if os.environ.get("PE_REQUIRE_IPYWIDGETS7") == "1":
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    return d


def _notebook_sources() -> dict[str, str]:
    """Code of every notebook cell as plain Python (IPython turns magics into get_ipython() calls)."""
    from IPython.core.inputtransformer2 import TransformerManager

    tm = TransformerManager()
    return {
        f"{nb.name} code cell {i}": tm.transform_cell(c.source)
        for nb in NOTEBOOKS
        for i, c in enumerate(code_cells(nb))
    }


def test_widgets_work_with_ipywidgets_7():
    overlay = _ensure_overlay()
    sources = {str(p.relative_to(ROOT)): p.read_text() for p in WIDGET_MODULES}
    sources.update(_notebook_sources())
    import ipywidgets

    traits_here = sorted(  # this environment's (ipywidgets 8) trait names: the probe flags those 7.7.1 lacks
        {t for c in vars(ipywidgets).values() if isinstance(c, type) and issubclass(c, ipywidgets.Widget)
         for t in c.class_trait_names()}
    )  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(overlay), str(ROOT)]), "MPLBACKEND": "Agg",
           "PE_TRAITS8": json.dumps(traits_here)}  # fmt: skip
    p = subprocess.run(
        [sys.executable, __file__, "--probe-ipywidgets7"],
        input=json.dumps(sources), capture_output=True, text=True, timeout=300, env=env, cwd=ROOT,
    )  # fmt: skip
    assert p.returncode == 0, f"probe crashed:\n{p.stderr[-3000:]}"
    r = json.loads(p.stdout.rsplit(RESULT_MARK, 1)[1])
    assert r["version"] == IPYWIDGETS7 and r["file"].startswith(str(overlay)), r
    assert r["panels"], "no panel was built: is helpers/widgets empty?"
    problems = r["errors"] + r["ast"]
    assert not problems, "not compatible with ipywidgets 7.7.1 (Colab):\n- " + "\n- ".join(problems)


@pytest.mark.skipif(not NOTEBOOKS, reason="no notebooks yet")
@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_with_ipywidgets_7(nb_path, notebook_runs):
    """Every cell runs under ipywidgets 7.7.1 (8-only keywords raise there), and every control a panel
    listens to can be moved in that kernel: no error, and each move renders a figure."""
    _ensure_overlay()  # skip (or fail in CI) when 7.7.1 cannot be installed
    run = notebook_runs.get(nb_path)  # the run shared with test_notebook_rerun.py
    r = run.colab
    assert r is not None, f"{nb_path.name} fails with ipywidgets {IPYWIDGETS7}:\n{run.failed}"
    assert r["version"] == IPYWIDGETS7, r
    assert not r["problems"], f"{nb_path.name} with ipywidgets {IPYWIDGETS7}: {r['problems']}"
    assert not r["stderr"], f"{nb_path.name} printed to stderr under ipywidgets {IPYWIDGETS7}: {r['stderr']}"


# ----------------------------------------------------------------------------- the probe (child process)
def _probe_ipywidgets7(sources: dict[str, str]) -> dict:  # pragma: no cover - runs under ipywidgets 7.7.1
    import importlib
    import inspect
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    # traitlets only *warns* about unknown keyword arguments (an 8-only trait, style key, ...): make it fail.
    warnings.filterwarnings("error", message=".*unrecognized arguments.*")
    import ipywidgets as W
    import matplotlib.pyplot as plt

    res = {"version": W.__version__, "file": W.__file__, "panels": [], "errors": [], "ast": [], "skipped": []}

    # --- 1. build every argument-free panel and move each of its controls
    # a redraw = a figure rendered to an image (inline backend, savefig, figure_panel's PNG) or plt.show()
    import matplotlib.backend_bases as bb

    shows = []
    plt.show = lambda *a, **k: (shows.append(1), plt.close("all"))
    _print_figure = bb.FigureCanvasBase.print_figure

    def counting_print_figure(self, *a, **k):
        shows.append(1)
        return _print_figure(self, *a, **k)

    bb.FigureCanvasBase.print_figure = counting_print_figure
    from helpers.widgets import _common as toolkit  # its panels show frames without print_figure (blitting)

    publish = toolkit._publish
    toolkit._publish = lambda target, png: (shows.append(1), publish(target, png))

    def controls_of(w):
        for ch in getattr(w, "children", ()):
            yield from controls_of(ch)
        # a control = a value widget something listens to (not an Image/HTML/Label the panel writes into)
        if isinstance(w, W.ValueWidget) and not isinstance(w, W.Output) and w._trait_notifiers.get("value"):
            yield w

    for path in sorted(k for k in sources if k.startswith("helpers/widgets/") and not k.endswith("_common.py")):
        mod = importlib.import_module(path[:-3].replace("/", "."))
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if fn.__module__ != mod.__name__ or name.startswith("_") or not name.endswith("panel"):
                continue
            required = [p for p in inspect.signature(fn).parameters.values()
                        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]  # fmt: skip
            if required:
                res["skipped"].append(f"{mod.__name__}.{name} (needs {[p.name for p in required]}; AST-checked)")
                continue
            where = f"{mod.__name__}.{name}()"
            try:
                panel = fn()
            except Exception as e:  # noqa: BLE001
                res["errors"].append(f"{where}: building it raised {type(e).__name__}: {e}")
                continue
            ctls = list(controls_of(panel))
            res["panels"].append({"panel": where, "controls": len(ctls)})
            for c in ctls:
                new = other_value(W, c)
                if new is None:
                    res["errors"].append(f"{where}: cannot move {type(c).__name__} {getattr(c, 'description', '')!r}")
                    continue
                before = len(shows)
                try:
                    c.value = new
                except Exception as e:  # noqa: BLE001
                    res["errors"].append(f"{where}: moving {c.description!r} raised {type(e).__name__}: {e}")
                    continue
                if len(shows) == before:
                    res["errors"].append(f"{where}: moving {c.description!r} to {new!r} did not redraw")
            plt.close("all")

    # --- 2. AST scan of widget modules and notebook cells against the 7.7.1 classes
    widget_classes = {n: getattr(W, n) for n in dir(W) if inspect.isclass(getattr(W, n))}
    all7 = set()
    for cls in widget_classes.values():
        if issubclass(cls, W.Widget):
            all7 |= set(cls.class_trait_names())
    eight_only = set(json.loads(os.environ.get("PE_TRAITS8", "[]"))) - all7

    def accepted(cls) -> set[str]:
        names = set(cls.class_trait_names()) if issubclass(cls, W.Widget) else set()
        try:
            names |= set(inspect.signature(cls).parameters)
        except (TypeError, ValueError):
            pass
        return names

    for where, src in sources.items():
        try:
            tree = ast.parse(src)
        except SyntaxError as e:
            res["ast"].append(f"{where}: cannot parse ({e.msg})")
            continue
        aliases = {"ipywidgets"}  # names bound to the ipywidgets module
        direct = {}  # names imported from it
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in ("ipywidgets", "ipywidgets.widgets"):
                        aliases.add(a.asname or a.name)
            elif isinstance(node, ast.ImportFrom) and node.module in ("ipywidgets", "ipywidgets.widgets"):
                for a in node.names:
                    if a.name == "widgets":
                        aliases.add(a.asname or "widgets")
                    elif not hasattr(W, a.name):
                        res["ast"].append(f"{where}: `from {node.module} import {a.name}`: no such name in 7.7.1")
                    else:
                        direct[a.asname or a.name] = a.name

        def resolve(func, aliases=aliases, direct=direct):
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in aliases:
                return func.attr
            if isinstance(func, ast.Name) and func.id in direct:
                return direct[func.id]
            return None

        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                if not hasattr(W, node.attr):
                    res["ast"].append(f"{where}, line {node.lineno}: ipywidgets.{node.attr} does not exist in 7.7.1")
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and node.attr in eight_only:
                res["ast"].append(f"{where}, line {node.lineno}: `.{node.attr} = ...` is an ipywidgets-8-only trait")
            if isinstance(node, ast.Call):
                name = resolve(node.func)
                cls = widget_classes.get(name) if name else None
                if cls is None:
                    continue
                ok = accepted(cls)
                for kw in node.keywords:
                    if kw.arg is None:
                        continue
                    if kw.arg not in ok:
                        res["ast"].append(f"{where}, line {node.lineno}: {name}({kw.arg}=...) is not accepted by 7.7.1")
                    elif kw.arg == "style" and isinstance(kw.value, ast.Dict) and issubclass(cls, W.Widget):
                        style_cls = getattr(cls.class_traits()["style"], "klass", None)
                        if inspect.isclass(style_cls):
                            for k in kw.value.keys:
                                if isinstance(k, ast.Constant) and k.value not in style_cls.class_trait_names():
                                    res["ast"].append(
                                        f"{where}, line {node.lineno}: {name} style key {k.value!r} is 8-only"
                                    )
    return res


if __name__ == "__main__" and sys.argv[1:] == ["--probe-ipywidgets7"]:
    print("\n" + RESULT_MARK + json.dumps(_probe_ipywidgets7(json.loads(sys.stdin.read()))))
