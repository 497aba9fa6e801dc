"""Every notebook survives a learner re-running any single cell after Run All.

A learner runs everything, then goes back and runs one cell again (to look at it, or after editing an exercise).
That must not fail: a cell must not depend on a name that a later cell rebinds (issue 22: 03's check cell asserted
``rows_with_gradient == [0, 1, 2]``, a list, after its exercise solution had made ``rows_with_gradient`` a function).

How it is run (one kernel per notebook, through ``scripts/nbexec.py``, which avoids the nbclient/ipywidgets stalls):

1. the notebook top to bottom (Run All; any error there fails too);
2. one hidden cell that takes a shallow copy of the kernel's global namespace (the state after Run All);
3. for each code cell in order (not empty, not tagged ``skip-execution``): a hidden cell that puts the namespace
   back to that copy, then the cell itself once more. Restoring the namespace makes each re-run see the bindings of
   Run All, as a learner re-running that single cell would. Without it, re-running in order would first re-run the
   cell that binds a name and so hide exactly the failure above. (Objects are not deep-copied: a re-run that
   mutates one, say appends to a list, leaves it mutated for the next; that is also what a learner would see after
   two re-runs.)

Every error of step 3 is reported, naming the notebook and the original cell (index and first line), not only the
first. The re-run copies carry the ``raises-exception`` tag only so that the runner goes on past them; their errors
are collected and fail the test.

Cost of steps 1-3 per notebook, measured with one torch thread at a load average of about 10 on 2 cores: 01 14 s,
02 31 s, 03 23 s, 04 44 s, 05 73 s, 06 54 s, 07 263 s with every cell re-run (its Run All alone: 139 s); about 8 min
for all seven. 07 re-runs a subset (``SUBSET``): not its four cells that run the model live on 256-1024 tokens (11,
39, 10 and 13 s in Run All); measured with the subset: 232 s at a load of 12, where its slowest cell took 1.2 times as
long as in the full run, so about a minute saved. What those cells read is checked instead: no later cell rebinds a
name they read (``test_cells_left_out_of_a_rerun_read_no_name_a_later_cell_rebinds``), so re-running them could fail
only through a mutated object, and they assign into no object (no ``x.attr = ...`` or ``x[i] = ...``; calls that
mutate, such as a cache inside the model, are not seen by this check).
"""

from __future__ import annotations

import ast
import copy
import os
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from _cell_names import bound_names, parse_cell, read_names  # noqa: E402
from nbexec import NotebookRunError, cell_label, run_notebook  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]

# Notebook stem -> (reason, pattern): cells whose source matches the pattern are not re-run (module docstring: cost).
LIVE_MODEL_RUN = re.compile(r"\bmodel\.token_losses\(|\bpasskey_trial\(")
SUBSET: dict[str, tuple[str, re.Pattern]] = {
    "07_real_model": ("cells that run the model live (token_losses, passkey_trial) are not re-run", LIVE_MODEL_RUN),
}


def _keep(stem: str):
    """The re-run predicate on a cell's source for a notebook (None: re-run every cell)."""
    if stem not in SUBSET:
        return None
    pattern = SUBSET[stem][1]
    return lambda source: not pattern.search(source)


SNAPSHOT = "get_ipython()._rerun_snapshot = dict(get_ipython().user_ns)"
RESTORE = "(lambda ip: (ip.user_ns.clear(), ip.user_ns.update(ip._rerun_snapshot)))(get_ipython());"
RERUN_KEY = "rerun_of"


def _hidden(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source, metadata={"tags": ["rerun-harness"]})


def rerun_plan(nb: nbformat.NotebookNode, keep=None) -> nbformat.NotebookNode:
    """The notebook, then a snapshot cell, then (restore, cell i again) for every code cell i to re-run.

    ``keep(source) -> bool`` selects the cells re-run (default: all). Cells tagged ``skip-execution`` and empty cells
    are not re-run (they did not run the first time either). Each copy's metadata ``rerun_of`` is i.
    """
    plan = copy.deepcopy(nb)
    plan.cells.append(_hidden(SNAPSHOT))
    for index, cell in enumerate(nb.cells):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type != "code" or not cell.source.strip() or "skip-execution" in tags:
            continue
        if keep is not None and not keep(cell.source):
            continue
        again = nbformat.v4.new_code_cell(cell.source, metadata={"tags": ["raises-exception"], RERUN_KEY: index})
        plan.cells.extend([_hidden(RESTORE), again])
    return plan


def rerun_errors(nb: nbformat.NotebookNode, executed: nbformat.NotebookNode) -> list[str]:
    """Each error output of a re-run copy, as 'cell i (`first line`): Name: value' about the original cell i."""
    found = []
    for cell in executed.cells[len(nb.cells) :]:
        index = cell.metadata.get(RERUN_KEY)
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


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=IDS)
def test_every_cell_can_be_rerun_after_run_all(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    reason = SUBSET.get(nb_path.stem, ("",))[0]
    plan = rerun_plan(nb, _keep(nb_path.stem))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    try:
        executed = run_notebook(plan, name=nb_path.name, cwd=nb_path.parent, kernel_env=env, allow_tagged_errors=True)
    except NotebookRunError as e:
        where = e.cell
        if where is not None and where >= len(nb.cells):
            original = plan.cells[where].metadata.get(RERUN_KEY)
            pytest.fail(f"{nb_path.name}: re-running {cell_label(nb, original)} after Run All did not finish: {e}")
        pytest.fail(f"{nb_path.name}: Run All failed before any re-run: {e}")
    errors = rerun_errors(nb, executed)
    assert not errors, (
        f"{nb_path.name}: {len(errors)} cell(s) fail when re-run after Run All"
        + (f" (subset re-run: {reason})" if reason else "")
        + ":\n  "
        + "\n  ".join(errors)
        + "\nUsually a later cell rebinds a name this cell reads (give the later binding its own name, e.g. "
        "`solution_...`), or this cell mutates state it also depends on (make it build what it reads)."
    )


@pytest.mark.parametrize("stem", sorted(SUBSET))
def test_cells_left_out_of_a_rerun_read_no_name_a_later_cell_rebinds(stem):
    """A cell the re-run test leaves out must not be able to fail it by a rebinding: checked on its syntax tree."""
    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    keep = _keep(stem)
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]
    left_out = [(i, c) for i, c in code if not keep(c.source)]
    assert left_out, f"{stem}: SUBSET's pattern matches no cell any more: remove the entry"
    binds = {j: bound_names(c.source) for j, c in code}
    clashes = [
        f"{cell_label(nb, i)} reads `{name}`, which cell {j} rebinds"
        for i, cell in left_out
        for name in sorted(read_names(cell.source))
        for j in binds
        if j > i and name in binds[j]
    ]
    clashes += [
        f"{cell_label(nb, i)} assigns into an object (line {node.lineno})"
        for i, cell in left_out
        for node in ast.walk(parse_cell(cell.source))
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store)
    ]
    assert not clashes, f"{stem}: a cell left out of the re-run could fail it:\n  " + "\n  ".join(clashes)


def test_rerun_plan_restores_the_namespace_before_each_cell():
    """The harness on a two-cell toy: cell 1 reads x, a later cell rebinds it; in-order re-runs would hide that."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("x = [0, 1]"),
        nbformat.v4.new_code_cell("assert x == [0, 1]"),
        nbformat.v4.new_markdown_cell("text"),
        nbformat.v4.new_code_cell("def x():\n    return 1"),
        nbformat.v4.new_code_cell("raise SystemExit('never')", metadata={"tags": ["skip-execution"]}),
    ]
    plan = rerun_plan(nb)
    reruns = [c.metadata[RERUN_KEY] for c in plan.cells if RERUN_KEY in c.metadata]
    assert reruns == [0, 1, 3]
    assert [c.source for c in plan.cells[len(nb.cells) :]][:3] == [SNAPSHOT, RESTORE, "x = [0, 1]"]
    executed = run_notebook(plan, name="toy.ipynb", cwd=ROOT, allow_tagged_errors=True)
    errors = rerun_errors(nb, executed)
    assert len(errors) == 1 and errors[0].startswith("cell 1 (`assert x == [0, 1]`): AssertionError"), errors
    assert errors[0].endswith("; reads `x` (rebound in cell 3)"), errors
