"""Every notebook survives a learner re-running any single cell after Run All.

A learner runs everything, then goes back and runs one cell again (to look at it, or after editing an exercise).
That must not fail: a cell must not depend on a name that a later cell rebinds (issue 22: 03's check cell asserted
``rows_with_gradient == [0, 1, 2]``, a list, after its exercise solution had made ``rows_with_gradient`` a function).

How it is run (one kernel per notebook, through ``scripts/nbexec.py``, which avoids the nbclient/ipywidgets stalls;
the kernel is the one ``test_colab_ready.py`` runs the notebook in under ipywidgets 7.7.1, so the two tests share one
execution per notebook: ``tests/_notebook_runs.py``, the session fixture ``notebook_runs``; without ipywidgets 7.7.1,
offline, the steps below run alone under this environment's ipywidgets):

1. the notebook top to bottom (Run All; any error there fails too);
2. one hidden cell that takes a shallow copy of the kernel's global namespace (the state after Run All);
3. (shared run only) every control moved, the Colab test's check; then,
4. for each code cell in order (not empty, not tagged ``skip-execution``): a hidden cell that puts the namespace
   back to that copy, then the cell itself once more. Restoring the namespace makes each re-run see the bindings of
   Run All, as a learner re-running that single cell would. Without it, re-running in order would first re-run the
   cell that binds a name and so hide exactly the failure above. (Objects are not deep-copied: a re-run that
   mutates one, say appends to a list, leaves it mutated for the next; that is also what a learner would see after
   two re-runs.)

Every error of step 4 is reported, naming the notebook and the original cell (index and first line), not only the
first. The re-run copies carry the ``raises-exception`` tag only so that the runner goes on past them; their errors
are collected and fail the test.

Cost of steps 1, 2 and 4 per notebook (before the run was shared), measured with one torch thread at a load average of about 10 on 2 cores: 01 14 s,
02 31 s, 03 23 s, 04 44 s, 05 73 s, 06 54 s, 07 263 s with every cell re-run (its Run All alone: 139 s); about 8 min
for all seven, on top of the Colab test's own run of every notebook. Sharing that run (above) took the two files
together from 606 s to 295 s (``pytest tests/test_notebook_rerun.py tests/test_colab_ready.py``, nice'd, load average
about 7 before and 10 after; CPU time 292 s to 161 s). 07 re-runs a subset (``SUBSET``): not its four cells that run the model live on 256-1024 tokens (11,
39, 10 and 13 s in Run All); measured with the subset: 232 s at a load of 12, where its slowest cell took 1.2 times as
long as in the full run, so about a minute saved. What those cells read is checked instead: no later cell rebinds a
name they read (``test_cells_left_out_of_a_rerun_read_no_name_a_later_cell_rebinds``), so re-running them could fail
only through a mutated object, and they assign into no object (no ``x.attr = ...`` or ``x[i] = ...``; calls that
mutate, such as a cache inside the model, are not seen by this check).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from _cell_names import bound_names, parse_cell, read_names  # noqa: E402
from _notebook_runs import RERUN_KEY, RESTORE, SNAPSHOT, SUBSET, rerun_errors, rerun_plan  # noqa: E402
from _notebook_runs import keep_for as _keep  # noqa: E402
from nbexec import cell_label, run_notebook  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=IDS)
def test_every_cell_can_be_rerun_after_run_all(nb_path, notebook_runs):
    reason = SUBSET.get(nb_path.stem, ("",))[0]
    run = notebook_runs.get(nb_path)  # shared with test_colab_ready.py (tests/_notebook_runs.py)
    if run.failed and run.under_ipywidgets7 and run.colab is None:  # Run All failed under 7.7.1: test_colab_ready
        run = notebook_runs.rerun_alone(nb_path)  # reports that; the re-runs are tested under this ipywidgets
    if run.failed:
        pytest.fail(f"{nb_path.name}: {run.failed}")
    errors = run.rerun_errors
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
