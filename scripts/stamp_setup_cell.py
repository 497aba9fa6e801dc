"""Stamp the Colab setup cell (built from helpers/_colab.py) into every notebook's first code cell.

    python scripts/stamp_setup_cell.py            # rewrite notebooks/[0-9]*.ipynb where needed
    python scripts/stamp_setup_cell.py --check    # exit 1 if a notebook differs (changes nothing)
    python scripts/stamp_setup_cell.py --links    # print the README's "Open in Colab" table rows
    python scripts/stamp_setup_cell.py --readme   # print the README's chapter section (links + screenshots)
    python scripts/stamp_setup_cell.py notebooks/04_rope.ipynb

The repository URL is written once, in ``helpers/_colab.py`` (``REPO_URL``). If a notebook's first code
cell is a setup cell (it starts with "# Colab setup"), only its source is replaced: its execution count
and (empty) outputs stay, so the committed notebook keeps passing nbval. If a notebook has no setup cell,
one is inserted before its first code cell; that shifts the execution counts, so re-run the notebook
afterwards (``python scripts/run_notebooks.py <notebook>``); the script says so.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers._colab import SETUP_CELL, colab_badge  # noqa: E402

MARKER = "# Colab setup"


def first_code_cell(nb: nbformat.NotebookNode) -> tuple[int, nbformat.NotebookNode | None]:
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            return i, cell
    return len(nb.cells), None


def stamp(path: Path, *, check: bool = False) -> str:
    """Return "ok", "stamped", "inserted" (or, with check=True, "differs") for one notebook."""
    nb = nbformat.read(path, as_version=4)
    i, cell = first_code_cell(nb)
    if cell is not None and cell.source == SETUP_CELL:
        return "ok"
    if check:
        return "differs"
    if cell is not None and cell.source.lstrip().startswith(MARKER):
        cell.source = SETUP_CELL
        status = "stamped"
    else:
        new = nbformat.v4.new_code_cell(SETUP_CELL)
        new.pop("id", None)
        if nb.nbformat_minor >= 5:
            new["id"] = "colab-setup"
        nb.cells.insert(i, new)
        status = "inserted"
    nbformat.write(nb, path)
    return status


def readme_section(paths: list[Path]) -> str:
    """One block per chapter: its title (first Markdown heading), Open-in-Colab badge, screenshot if any."""
    out = []
    for p in paths:
        rel = p.resolve().relative_to(ROOT).as_posix()
        nb = nbformat.read(p, as_version=4)
        heads = [
            ln for c in nb.cells if c.cell_type == "markdown" for ln in c.source.splitlines() if ln.startswith("# ")
        ]
        title = heads[0][2:].strip() if heads else p.stem
        out += [f"### {title}", "", f"{colab_badge(rel)} · [notebook]({rel})", ""]
        shot = ROOT / "docs" / "img" / f"{p.stem}.png"
        if shot.exists():
            out += [f"![{p.stem}: main interactive figure](docs/img/{shot.name})", ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/[0-9]*.ipynb")
    parser.add_argument("--check", action="store_true", help="report notebooks that differ; change nothing")
    parser.add_argument("--links", action="store_true", help="print one 'Open in Colab' Markdown line per notebook")
    parser.add_argument("--readme", action="store_true", help="print the README chapter section (links, screenshots)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    if args.readme:
        print(readme_section(paths))
        return 0
    if args.links:
        for p in paths:
            rel = p.resolve().relative_to(ROOT).as_posix()
            print(f"| [{p.stem}]({rel}) | {colab_badge(rel)} |")
        return 0
    bad = 0
    for p in paths:
        status = stamp(p, check=args.check)
        bad += status == "differs"
        note = " (execution counts shifted: re-run it with scripts/run_notebooks.py)" if status == "inserted" else ""
        print(f"{p.name}: {status}{note}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
