"""Which code cells the browser test runs in a notebook: all of them (Run All), or, for the notebooks listed in
``PANEL_CELLS_ONLY``, only the cells its widget panels need.

The browser test checks the panels (every control moved, a new figure each time); the cells' outputs are executed
and compared by nbval elsewhere in the suite. For a notebook whose other cells are slow and feed no panel, the test
runs, in notebook order:

* the setup cell (the first code cell);
* every code cell with a widget panel (its committed outputs hold a widget view);
* transitively, every earlier code cell that binds a name one of the cells already chosen reads
  (``tests/_cell_names.py``: ``read_names`` over-approximates what a cell reads, ``bound_names`` what it binds).

What the syntax tree cannot see (a name looked up by string, state changed without binding a name) shows up in the
browser as an error in a chosen cell; ``left_out_problems`` then names the left-out cells that bind the missing name.
"""

from __future__ import annotations

import re
import sys

import nbformat
from browser_config import ROOT

if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))
from _cell_names import bound_names, read_names  # noqa: E402

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

#: Notebooks whose browser run executes only the cells their panels need: {notebook stem: reason}.
PANEL_CELLS_ONLY: dict[str, str] = {
    "07_real_model": (
        "a real 135M model: its cells that run the model (token_losses, passkey_trial, long passes) take most of "
        "Run All and no panel reads what they bind; nbval executes them and compares their outputs"
    ),
}


_stale = [stem for stem in PANEL_CELLS_ONLY if not (ROOT / "notebooks" / f"{stem}.ipynb").exists()]
if _stale:
    raise ValueError(f"PANEL_CELLS_ONLY: no notebook notebooks/<stem>.ipynb for {_stale}; remove the entry")


def has_panel(cell: nbformat.NotebookNode) -> bool:
    """Does a code cell's committed output hold a widget view (a panel)?"""
    return cell.cell_type == "code" and any(WIDGET_VIEW in o.get("data", {}) for o in cell.get("outputs", []))


def runnable(cell: nbformat.NotebookNode) -> bool:
    """A code cell with source (an empty one gets no execution count from Run All either)."""
    return cell.cell_type == "code" and bool(cell.source.strip())


def panel_cells(nb: nbformat.NotebookNode) -> list[int]:
    """Indices (into ``nb.cells``, notebook order) of the setup cell, every panel cell, and every earlier code cell
    binding a name that a chosen cell reads, transitively."""
    code = [i for i, c in enumerate(nb.cells) if runnable(c)]
    if not code:
        return []
    binds = {i: bound_names(nb.cells[i].source) for i in code}
    chosen = {code[0]} | {i for i in code if has_panel(nb.cells[i])}
    todo = sorted(chosen)
    while todo:
        i = todo.pop()
        wanted = read_names(nb.cells[i].source)
        for j in code:
            if j < i and j not in chosen and binds[j] & wanted:
                chosen.add(j)
                todo.append(j)
    return sorted(chosen)


def cells_to_run(nb_path, nb: nbformat.NotebookNode) -> list[int] | None:
    """The code cells the browser test runs in this notebook, or None for all of them (Run All)."""
    if nb_path.stem not in PANEL_CELLS_ONLY:
        return None
    if not any(has_panel(c) for c in nb.cells):
        raise ValueError(
            f"{nb_path}: listed in PANEL_CELLS_ONLY (run only the cells its panels need), but none of its cells "
            "stored a widget panel: remove the entry (Run All) or re-run the notebook"
        )
    return panel_cells(nb)


_MISSING_NAME = re.compile(r"NameError: (?:free variable |name )'(\w+)'")


def left_out_problems(nb: nbformat.NotebookNode, chosen: list[int], census: list[dict]) -> list[str]:
    """For a chosen cell that shows an error: which left-out cells bind the name it lacks (or, when the error names
    none, that a left-out cell may be needed), so the failure says which cell to add."""
    left_out = [i for i, c in enumerate(nb.cells) if runnable(c) and i not in chosen]
    out = []
    for c in census:
        if c["i"] not in chosen or not c["stderr"]:
            continue
        text = " ".join(c["stderr"])
        m = _MISSING_NAME.search(text)
        if m:
            binders = [j for j in left_out if j < c["i"] and m.group(1) in bound_names(nb.cells[j].source)]
            where = f"bound by left-out cell(s) {binders}" if binders else "bound by no earlier left-out cell"
            out.append(
                f"cell {c['i']} needs {m.group(1)!r}, {where}: the browser run of this notebook runs only the "
                f"cells its panels need (tests/browser/cell_selection.py, PANEL_CELLS_ONLY); cells run: {chosen}"
            )
        else:
            out.append(
                f"cell {c['i']} shows an error in a run of the panel cells only: if it needs state a left-out cell "
                f"makes, add that cell (cells run: {chosen}; earlier cells left out: "
                f"{[j for j in left_out if j < c['i']]})"
            )
    return out
