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


# --- the answer out of sight (helpers.exercises' protocol) -------------------------------------------------------
# What a learner sees under a question before acting is what the committed notebook stores: it was saved from a
# clean Run All with every stub untouched and every prediction None. So the stored outputs are the test.

from helpers.exercises import is_waiting_message  # noqa: E402

BOTH_EDITIONS = NOTEBOOKS + sorted((ROOT / "notebooks" / "zh").glob("*.ipynb"))
BOTH_IDS = [p.stem if p.parent.name == "notebooks" else f"zh-{p.stem}" for p in BOTH_EDITIONS]
CALLS_PROTOCOL = re.compile(r"(?<![\w.])(?:exercises\.)?(?:check|predict|reveal)\(")
HEADING = re.compile(r"^#{1,6}\s", re.MULTILINE)


def output_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append(out["text"] if isinstance(out["text"], str) else "".join(out["text"]))
        for key in ("text/plain", "text/html", "text/markdown"):
            value = out.get("data", {}).get(key)
            if value:
                parts.append(value if isinstance(value, str) else "".join(value))
        if out.get("output_type") == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
    return "\n".join(parts)


def is_checking_cell(cell) -> bool:
    return (
        cell.cell_type == "code"
        and not is_solution(cell)
        and not is_exercise(cell)
        and bool(CALLS_PROTOCOL.search(cell.source))
    )


@pytest.mark.parametrize("nb_path", BOTH_EDITIONS, ids=BOTH_IDS)
def test_solution_cells_are_hidden_in_jupyterlab_and_colab_and_print_nothing(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    problems = []
    for index, cell in enumerate(nb.cells):
        if not is_solution(cell):
            continue
        where = f"cell {index} (`{first_line(cell)[:50]}`)"
        jupyter = cell.metadata.get("jupyter", {})
        if not (jupyter.get("source_hidden") and jupyter.get("outputs_hidden")):
            problems.append(f"{where}: set metadata.jupyter.source_hidden and outputs_hidden to true")
        if cell.metadata.get("cellView") != "form" or not first_line(cell).startswith("#@title"):
            problems.append(f"{where}: Colab form view needs metadata.cellView = 'form' and a first line '#@title ...'")
        if output_text(cell).strip():
            problems.append(
                f"{where}: prints {output_text(cell).strip()[:80]!r}; a solution cell prints nothing "
                "(use exercises.verify, and exercises.reveal for a worked answer)"
            )
        if "exercise_answers" not in cell.metadata:
            problems.append(
                f"{where}: list the strings that would give its answer away in metadata.exercise_answers "
                "([] when the answer is only the code)"
            )
    assert not problems, f"{nb_path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("nb_path", BOTH_EDITIONS, ids=BOTH_IDS)
def test_checking_cells_show_only_a_waiting_line_before_the_learner_acts(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    problems = []
    for index, cell in enumerate(nb.cells):
        if not is_checking_cell(cell):
            continue
        for line in output_text(cell).splitlines():
            if line.strip() and not is_waiting_message(line):
                problems.append(f"cell {index} (`{first_line(cell)[:50]}`) shows {line.strip()[:90]!r}")
    assert not problems, (
        f"{nb_path.name}: before the learner acts a checking cell may show only helpers.exercises.WAITING lines:\n  "
        + "\n  ".join(problems)
    )


def _answer_region(cells, solution_index: int) -> range:
    """From the exercise cell before the solution to the next heading after it."""
    start = solution_index
    while (
        start > 0
        and not is_exercise(cells[start])
        and not (cells[start].cell_type == "markdown" and HEADING.search(cells[start].source))
    ):
        start -= 1
    end = solution_index + 1
    while end < len(cells) and not (cells[end].cell_type == "markdown" and HEADING.search(cells[end].source)):
        end += 1
    return range(start, end)


@pytest.mark.parametrize("nb_path", BOTH_EDITIONS, ids=BOTH_IDS)
def test_no_answer_shows_under_its_question(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    leaks = []
    for index, cell in enumerate(nb.cells):
        if not is_solution(cell):
            continue
        for answer in cell.metadata.get("exercise_answers", []):
            pattern = re.compile(rf"(?<![\w.]){re.escape(str(answer))}(?![\w])", re.IGNORECASE)
            for other in _answer_region(nb.cells, index):
                if other == index:
                    continue
                shown = nb.cells[other]
                text = output_text(shown) if shown.cell_type == "code" else shown.source
                if pattern.search(text):
                    leaks.append(f"answer {answer!r} of solution cell {index} shows in cell {other}")
    assert not leaks, f"{nb_path.name}:\n  " + "\n  ".join(leaks)
