"""Imports point one way: widgets -> plots -> maths modules (scaling -> rope -> _checks), no cycle anywhere.

The graph is read from the source (AST of every module under ``helpers/``, imports inside functions included), so a
lazy import cannot hide a cycle. Each module has a layer; a module may import only from a lower layer, or from its
own subpackage (``helpers.plots._style`` inside ``helpers.plots``). A new module must be given a layer here.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "helpers"

#: Layer of every module (by prefix: the longest matching prefix wins). Lower layers never import higher ones.
LAYERS: dict[str, int] = {
    "helpers": 0,  # the package itself: seed_everything
    "helpers._checks": 0,
    "helpers.methods": 0,  # the vocabulary: plain data, imported by anyone
    "helpers.exercises": 0,
    "helpers._colab": 0,
    "helpers.rope": 1,
    "helpers.sinusoidal": 1,
    "helpers.learned": 1,
    "helpers.temperature": 1,  # query temperatures as functions of position (numpy)
    "helpers.scaling": 2,
    "helpers.attention": 2,
    "helpers.score_biases": 1,  # ALiBi and T5 biases: maths on torch, below the lab
    "helpers.model_gallery": 0,  # real models' position fields: plain data
    "helpers.layer_schedules": 2,  # proportional/partial RoPE, NoPE layers, Llama 4 temperature (rope only)
    "helpers.mrope": 2,
    "helpers.axial_rope": 2,  # 2-D axial RoPE for image patches (rope only)
    "helpers.rope_values": 2,  # RoPE on the values, undone at the query (rope only)
    "helpers.dca": 2,  # Dual Chunk Attention: remapped positions (numpy) and its attention (torch, helpers.rope)
    "helpers.sinks": 2,
    "helpers.mla": 3,  # uses helpers.scaling's YaRN mscale
    "helpers.model_types": 0,  # which layers rotate, per HF model type: plain data
    "helpers._model_types_all": -1,  # generated part of that table (below helpers.model_types)
    "helpers.i18n": -2,  # the course's language and its translations (stdlib gettext): below everything that prints
    "helpers.model_coverage": 3.5,  # the config reader against HF transformers, model type by model type
    "helpers.model_configs": 3,  # reads configs with helpers.scaling and helpers.layer_schedules
    "helpers.lab": 3,  # the tiny-model lab (03, 05, 06): may import any maths module
    "helpers.real": 3,  # notebook 07's real model: loading, forward pass, evaluation (maths modules below it)
    "helpers.attention_entropy": 3.5,  # entropy of a lab model's attention by length (reads helpers.lab)
    "helpers.real.gemma3": 3.5,  # Gemma 3's forward pass reads its per-layer-type RoPE with helpers.model_configs
    "helpers.real.__main__": 6,
    "helpers.real.report": 6,  # writes docs/real-model.md's text for the command line, with the figures' labels  # command-line entry points may use the figures too
    "helpers.lab.__main__": 6,
    "helpers.plots": 4,
    "helpers.cjk_font": 3.5,  # the zh figures' CJK font file, from the pinned wheel through helpers.real.fetch
    "helpers.widgets": 5,
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> int | None:
    matches = [k for k in LAYERS if module == k or module.startswith(k + ".")]
    return LAYERS[max(matches, key=len)] if matches else None


def _package_of(module: str) -> str:
    """The subpackage a module belongs to (helpers.plots.rope -> helpers.plots), or the module itself."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else module


def _is_module(name: str) -> bool:
    path = ROOT / name.replace(".", "/")
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _imports(path: Path, module: str) -> set[str]:
    """Every helpers module that ``path`` imports, anywhere in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module
            # "from helpers import scaling" imports the module helpers.scaling; "from helpers.rope import Rotary"
            # imports helpers.rope
            submodules = {f"{target}.{a.name}" for a in node.names if _is_module(f"{target}.{a.name}")}
            found.update(submodules)
            if len(submodules) < len(node.names):
                found.add(target)
    return {m for m in found if m == "helpers" or m.startswith("helpers.")}


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    graph = {}
    for name, path in modules.items():
        # importing helpers.a.b also imports helpers and helpers.a: count only the module actually named
        graph[name] = {m for m in _imports(path, name) if m != name and m in modules}
    return graph


def test_every_module_has_a_layer():
    missing = sorted(m for m in _graph() if _layer(m) is None)
    assert not missing, f"give these modules a layer in tests/test_imports.py LAYERS: {missing}"


def test_no_upward_import():
    upward = []
    for module, targets in _graph().items():
        for target in targets:
            lm, lt = _layer(module), _layer(target)
            if lm is None or lt is None or target == "helpers":
                continue
            same_package = _package_of(module) == _package_of(target)
            if lt >= lm and not same_package:
                upward.append(f"{module} (layer {lm}) imports {target} (layer {lt})")
    assert not upward, "imports must point down (widgets -> plots -> maths):\n" + "\n".join(sorted(upward))


def test_no_import_cycle():
    graph = _graph()
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []
    cycles = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*path[path.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_checker_sees_a_cycle_and_an_upward_import(tmp_path, monkeypatch):
    """The walk itself is tested: a lazy import inside a function counts, and rope -> scaling is upward."""
    src = "def f():\n    from helpers.scaling import ROPE_SCALING\n    return ROPE_SCALING\n"
    assert "helpers.scaling" in _imports(_write(tmp_path, "rope.py", src), "helpers.rope")
    assert _layer("helpers.scaling") > _layer("helpers.rope")
    assert "helpers.scaling" in _imports(_write(tmp_path, "x.py", "from helpers import scaling\n"), "helpers.x")


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


PLOT_MODULES = sorted(_module_name(p) for p in (PACKAGE / "plots").glob("*.py"))


@pytest.mark.parametrize("module", PLOT_MODULES)
def test_plots_never_import_torch(module):
    """plots/ is pure drawing: NumPy arrays in, axes out. No plots module imports torch (checked in the source)."""
    path = ROOT / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = ROOT / module.replace(".", "/") / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [n for n in names if n == "torch" or n.startswith("torch.")], f"{module} imports torch"


#: Drawing and widget libraries, and the lowest layer allowed to import each (command-line entry points, layer 6, may).
GUI_LIBRARIES = {"matplotlib": LAYERS["helpers.plots"], "ipywidgets": LAYERS["helpers.widgets"]}


def _third_party_imports(path: Path) -> set[str]:
    """The top-level names of every module ``path`` imports, anywhere in the file (absolute imports only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    return {name.split(".")[0] for name in names}


def test_no_drawing_or_widgets_below_their_layer():
    """matplotlib only from plots up, ipywidgets only from widgets up: the lab, the real model and the maths
    modules compute numbers; their figures live in helpers.plots (checked in the source, lazy imports included)."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        for library, lowest in GUI_LIBRARIES.items():
            if library in _third_party_imports(path) and _layer(module) < lowest:
                wrong.append(f"{module} (layer {_layer(module)}) imports {library} (allowed from layer {lowest})")
    assert not wrong, "\n".join(wrong)


def test_the_gui_check_sees_a_lazy_matplotlib_import(tmp_path):
    src = "def f():\n    import matplotlib.pyplot as plt\n    return plt\n"
    assert "matplotlib" in _third_party_imports(_write(tmp_path, "m.py", src))


def _reaches(graph: dict[str, set[str]], start: str, target: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node == target:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return False


#: Modules that look up positional families only (never a scaling method), so they need not import the registry.
FAMILY_STYLES_ONLY = {"helpers.plots.score_biases"}  # draws nope / sinusoidal / ... / t5_bias lines (notebook 06)


def test_every_module_that_looks_up_a_scaling_method_imports_the_registry():
    """helpers.methods.SCALING_METHODS is filled when helpers.scaling.registry is imported (each spec registers its
    entry; the vocabulary never imports up). A module that looks a method up (``method_info`` / ``method_style``)
    reaches the registry through its own imports, so importing it alone never leaves the table empty."""
    graph = _graph()
    users = [
        _module_name(p)
        for p in sorted(PACKAGE.rglob("*.py"))
        if any(f"{f}(" in p.read_text(encoding="utf-8") for f in ("method_info", "method_style"))
    ]
    users = [m for m in users if m != "helpers.methods"]
    assert "helpers.plots.extension" in users  # the scan sees the users
    missing = [m for m in users if m not in FAMILY_STYLES_ONLY and not _reaches(graph, m, "helpers.scaling.registry")]
    assert not missing, f"these modules look up method styles but do not import helpers.scaling: {missing}"


def test_methods_table_imports_neither_torch_nor_matplotlib():
    code = "import sys, helpers.methods; print(sorted(m for m in ('torch', 'matplotlib') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


PACKAGES = sorted(p.parent for p in PACKAGE.rglob("__init__.py") if "checkpoints" not in p.parts)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: _module_name(p / "__init__.py"))
def test_package_docstring_names_every_module(package):
    """Each package's docstring lists its modules (``helpers``: every module and subpackage; ``helpers.lab``,
    ``helpers.plots``, ``helpers.widgets``, ``helpers.real``: theirs), so a reader finds each chapter's code there."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    names = [p.stem for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")]
    names += [p.name for p in package.iterdir() if (p / "__init__.py").exists()]
    missing = sorted(n for n in names if n not in doc)
    assert not missing, f"{_module_name(package / '__init__.py')}'s docstring does not mention {missing}"
