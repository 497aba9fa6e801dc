"""Render the lab's stored results: the figures and RESULTS.md in ``helpers/lab/results/`` and the overview page
``docs/lab-results.md``, all generated from ``results.json`` (run after ``python -m helpers.lab evaluate``)::

    python scripts/update_lab_results.py                  # the shipped results: figures, RESULTS.md, docs page,
                                                          # the README's lab item, checkpoints/README.md
    python scripts/update_lab_results.py --results DIR    # another results directory: its figures and RESULTS.md

Nothing is measured here: every number comes from the records (``helpers.lab.records``), every sentence from
``helpers.lab.tables``, ``helpers.lab.findings``, ``helpers.lab.results_md`` and ``helpers.lab.overview``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from helpers.lab.records import PLOTS, RESULTS_DIR, RESULTS_MD, load_results  # noqa: E402

LAB_DOC = ROOT / "docs" / "lab-results.md"
README = ROOT / "README.md"


def learned_arrays(results: dict) -> tuple | None:
    """The learned table's figure data (table, rows reached, its row similarities, the sinusoidal table's), or None
    when the learned family was not evaluated."""
    if "learned" not in results["methods"]:
        return None
    from helpers.lab import learned_table, load_model, position_similarity
    from helpers.lab.positional import SinusoidalTable
    from helpers.sinusoidal import sinusoidal_table

    model = load_model("learned", 0)
    table, reached = learned_table(model)  # (N, D)
    base = SinusoidalTable.defaults["sinusoidal_base"]  # the lab's sinusoidal model's base
    sin_table = sinusoidal_table(len(table), table.shape[1], base)  # (N, D)
    return table, reached, position_similarity(table), position_similarity(sin_table)


def write_figures(results: dict, directory: Path) -> list[Path]:
    """Save :func:`helpers.plots.lab.results_figures` as PNGs (100 dpi) into ``directory``."""
    from helpers.plots.lab import results_figures

    written = []
    for key, fig in results_figures(results, learned_arrays(results)).items():
        path = directory / PLOTS[key].name
        fig.savefig(path, dpi=100)
        written.append(path)
    return written


def update_lab_results(directory: Path = RESULTS_DIR) -> list[Path]:
    """Refresh the figures and RESULTS.md of ``directory`` (and, for the shipped results, ``docs/lab-results.md``)
    from its ``results.json``; returns the paths written."""
    from helpers.lab.overview import overview_markdown
    from helpers.lab.results_md import results_md

    directory = Path(directory)
    results = load_results(directory / "results.json")
    written = write_figures(results, directory)
    md = directory / RESULTS_MD.name
    md.write_text(results_md(results, md.read_text() if md.exists() else None))
    written.append(md)
    if directory.resolve() == RESULTS_DIR.resolve():
        from helpers.lab.checkpoints import write_checkpoint_index
        from helpers.lab.overview import README_BEGIN, README_END, readme_lab_item
        from helpers.lab.results_md import replace_block

        LAB_DOC.write_text(overview_markdown(results))
        README.write_text(replace_block(README.read_text(), README_BEGIN, README_END, readme_lab_item(results)))
        written += [LAB_DOC, README, write_checkpoint_index()]
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS_DIR, help="results directory (default: shipped)")
    args = parser.parse_args(argv)
    if not (args.results / "results.json").exists():
        parser.error(f"--results: no results.json in {args.results}; run `python -m helpers.lab evaluate` first")
    for path in update_lab_results(args.results):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
