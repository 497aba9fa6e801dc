"""Exercise and solution cells are tagged, and no solution rebinds a name that a learner's exercise cell defines.

Convention (cell tags, in ``metadata.tags``):

* ``exercise``: a cell the learner edits: the stub of a function to write (``raise NotImplementedError  # your code
  here``, ``...  # your code``) or a prediction to enter (``my_x = None  # your prediction``). Its check, the cell
  that compares the learner's answer with hidden values, is not an exercise cell.
* ``solution``: a cell that shows the answer (collapsed). Solutions use their own names (``wavelength_solution``,
  ``prediction_solution``), never a name an exercise cell binds: Run All would otherwise overwrite the learner's
  function with the solution, and re-running an earlier cell that reads the name would see the solution's value.

A cell is taken as an exercise cell when it is tagged ``exercise`` *or* contains a placeholder (``# your code``,
``# your prediction``, ``raise NotImplementedError``), and as a solution cell when it is tagged ``solution`` *or*
its first line starts with ``# Solution``; the first test asks for the tags wherever only the text says so.

"Binds" means at the cell's top level (what lands in the notebook's global namespace): assignments (also unpacking,
augmented and annotated ones, ``for`` and ``with ... as`` targets, ``:=``), ``def``, ``class``, ``import``, ``except
... as``; not names local to a function, class body, lambda or comprehension. ``_`` is a throwaway and ignored.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from _cell_names import bound_names

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]
PLACEHOLDER = re.compile(r"#\s*your (code|prediction)\b|raise NotImplementedError", re.IGNORECASE)
SOLUTION_FIRST_LINE = re.compile(r"^#\s*Solution\b", re.IGNORECASE)


def tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def first_line(cell) -> str:
    return next((ln.strip() for ln in cell.source.splitlines() if ln.strip()), "")


def is_exercise(cell) -> bool:
    return cell.cell_type == "code" and ("exercise" in tags(cell) or bool(PLACEHOLDER.search(cell.source)))


def is_solution(cell) -> bool:
    return cell.cell_type == "code" and ("solution" in tags(cell) or bool(SOLUTION_FIRST_LINE.match(first_line(cell))))


def test_bound_names_on_examples():
    src = (
        "%matplotlib inline\nimport numpy as np, os.path\nfrom math import pi as PI\nx, (y, *z) = 1, (2, 3)\n"
        "w += 1\nv: int = 3\nfor i in range(2):\n    k = i\nwith open('f') as fh:\n    pass\n"
        "def f(a, b=(c := 1)):\n    inner = a\nclass C:\n    attr = 1\n"
        "squares = [n * n for n in range(3)]\nlast = [(t := n) for n in range(3)]\n"
        "try:\n    pass\nexcept ValueError as err:\n    pass\n_ = f(1)\nobj.attr = 2\nd['key'] = 3\n"
    )
    assert bound_names(src) == {
        "np", "os", "PI", "x", "y", "z", "w", "v", "i", "k", "fh", "f", "c", "C", "squares", "last", "t", "err",
    }  # fmt: skip


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=IDS)
def test_exercise_and_solution_cells_are_tagged(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    missing = []
    for index, cell in enumerate(nb.cells):
        if is_exercise(cell) and "exercise" not in tags(cell):
            missing.append(f"cell {index} (`{first_line(cell)[:60]}`): has a placeholder, tag it `exercise`")
        if is_solution(cell) and "solution" not in tags(cell):
            missing.append(f"cell {index} (`{first_line(cell)[:60]}`): starts with '# Solution', tag it `solution`")
        if is_exercise(cell) and is_solution(cell):
            missing.append(f"cell {index} (`{first_line(cell)[:60]}`): both exercise and solution; split it")
    assert not missing, f"{nb_path.name}: exercise/solution cells without their tag:\n  " + "\n  ".join(missing)


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=IDS)
def test_no_solution_rebinds_a_name_an_exercise_cell_defines(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    learner: dict[str, int] = {}
    for index, cell in enumerate(nb.cells):
        if is_exercise(cell):
            for name in bound_names(cell.source):
                learner.setdefault(name, index)
    clashes = []
    for index, cell in enumerate(nb.cells):
        if is_solution(cell):
            for name in sorted(bound_names(cell.source) & learner.keys()):
                clashes.append(
                    f"solution cell {index} (`{first_line(cell)[:50]}`) rebinds `{name}` from exercise cell "
                    f"{learner[name]}: name it e.g. `{name.lstrip('_')}_solution` or `solution_{name.lstrip('_')}`"
                )
    assert not clashes, f"{nb_path.name}:\n  " + "\n  ".join(clashes)
