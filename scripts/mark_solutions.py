"""Hide every solution cell (tag ``solution``) in JupyterLab and Colab, as the exercise protocol asks.

    python scripts/mark_solutions.py notebooks/02_sinusoidal.ipynb [...]   # rewrite where needed
    python scripts/mark_solutions.py --check notebooks/*.ipynb             # exit 1 if a notebook differs

JupyterLab: ``metadata.jupyter.source_hidden`` and ``outputs_hidden``. Colab: ``metadata.cellView = "form"`` with a
first line ``#@title ...`` (a cell without one gets ``#@title Solution (hidden: double-click to show)``). Nothing else
of the cell changes, so a re-run is not needed. ``tests/test_exercise_cells.py`` checks the result.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

TITLE = "#@title Solution (hidden: double-click to show)"


def mark(cell: nbformat.NotebookNode) -> bool:
    """Set the hiding metadata of one solution cell; True when something changed."""
    before = (dict(cell.metadata.get("jupyter", {})), cell.metadata.get("cellView"), cell.source)
    cell.metadata.setdefault("jupyter", {}).update(source_hidden=True, outputs_hidden=True)
    cell.metadata["cellView"] = "form"
    first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
    if not first.startswith("#@title"):
        cell.source = f"{TITLE}\n{cell.source}"
    return before != (dict(cell.metadata["jupyter"]), cell.metadata["cellView"], cell.source)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path, help="notebooks to mark")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook needs marking")
    args = parser.parse_args(argv)
    differs = []
    for path in args.notebooks:
        if not path.is_file():
            parser.error(f"notebooks: {path} is not a file")
        nb = nbformat.read(path, as_version=4)
        changed = [mark(cell) for cell in nb.cells if "solution" in cell.metadata.get("tags", [])]
        if any(changed):
            differs.append(path)
            if not args.check:
                nbformat.write(nb, path)
    for path in differs:
        print(f"{path}: {'needs marking' if args.check else 'marked'}")
    return 1 if args.check and differs else 0


if __name__ == "__main__":
    sys.exit(main())
