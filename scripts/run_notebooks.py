"""Regenerate notebook outputs: a clean kernel runs each notebook top to bottom, then volatile data is stripped.

    python scripts/run_notebooks.py                 # every notebook in notebooks/
    python scripts/run_notebooks.py notebooks/02_sinusoidal.ipynb

This is the "restart and run all" the committed notebooks come from. It strips what changes from run to
run or is useless without a kernel (saved widget state in ``metadata.widgets``, execution timestamps),
and prints each notebook's run time. Cells tagged ``raises-exception`` may raise; any other error fails.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

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
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
    )
    t0 = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - t0
    clean(nb)
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks to run (default: notebooks/*.ipynb)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    for p in paths:
        print(f"{p.name}: {run(p):.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
