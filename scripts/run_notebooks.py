"""Regenerate notebook outputs: a clean kernel runs each notebook top to bottom, then volatile data is stripped.

    python scripts/run_notebooks.py                 # every notebook in notebooks/
    python scripts/run_notebooks.py notebooks/02_sinusoidal.ipynb

This is the "restart and run all" the committed notebooks come from. It strips what changes from run to
run or is useless without a kernel (saved widget state in ``metadata.widgets``, execution timestamps),
and prints each notebook's run time.

No notebook cell may raise: any error output fails the run (a cell that raises, whatever its tags, and an
error a widget callback printed), naming the notebook and the cell, and that notebook is left unchanged.
Each notebook runs in its own child process (``scripts/nbexec.py``, which also removes the cause of the
stalls seen with nbclient and ipywidgets) with a watchdog: a cell that still stalls (its request or its reply
lost, or the kernel blocked) fails within 30-90 s, naming the cell, instead of hanging; a cell still busy after
``--timeout`` seconds fails too. Exit status: 0 if every notebook ran, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbexec import NotebookRunError, error_outputs, run_notebook  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def clean(nb: nbformat.NotebookNode) -> None:
    nb.metadata.pop("widgets", None)
    nb.metadata.pop("execution", None)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.get("outputs", []))
            for out in cell.outputs:
                # Widget views are meaningless without a kernel's model; keep their text/plain repr.
                data = out.get("data")
                if data:
                    data.pop("application/vnd.jupyter.widget-state+json", None)


def merge_streams(outputs: list) -> list:
    """Join consecutive stdout (or stderr) chunks: how a kernel splits prints varies run to run, the text does not."""
    merged: list = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (
            out.get("output_type") == "stream"
            and prev is not None
            and prev.get("output_type") == "stream"
            and prev.get("name") == out.get("name")
        ):
            prev["text"] = "".join(prev["text"]) + "".join(out["text"])
        else:
            merged.append(out)
    return merged


def run(path: Path, timeout: int = 300) -> float:
    """Run ``path`` in a fresh kernel and write it back cleaned; NotebookRunError (file untouched) on any error."""
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    nb = run_notebook(nb, name=path.name, cwd=path.parent, cell_timeout=timeout)
    elapsed = time.perf_counter() - t0
    errors = error_outputs(nb)  # also errors that did not fail their cell (printed by a widget callback)
    if errors:
        raise NotebookRunError(f"{path.name}: error output in " + "; ".join(errors), kind="error", cell=None)
    clean(nb)
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks to run (default: notebooks/*.ipynb)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds a cell may run (default: 300)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    failed = []
    for p in paths:
        try:
            print(f"{p.name}: {run(p, args.timeout):.1f} s", flush=True)
        except NotebookRunError as e:
            print(f"FAILED {e}", file=sys.stderr, flush=True)
            failed.append(p.name)
    if failed:
        print(f"{len(failed)} of {len(paths)} notebooks failed (left unchanged): {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
