"""Each notebook's title cell states the reading time that ``scripts/reading_time.py`` counts, within 10 %.

The title cell (the first markdown cell) carries one line of the form

    **Time:** about 85 min (+20 optional)

``about N min`` is the core time, ``(+M optional)`` the optional appendices (only when the notebook has some);
"minutes" may be written for "min" and text may follow ("**Time:** about 85 min (+20 optional). The notebook itself
runs in about ten seconds."). The counting method is the script's docstring (prose at 100 words a minute, +1 per
visible code cell, +2 per figure or slider panel, +5 per exercise, appendices apart); the README states it once, so
the title cell states only the result. A stated time passes when it is within 10 % of the unrounded count, or equal to
the count rounded to 5 minutes (what the script prints). Printed outputs a learner reads count like prose.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import reading_time  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]
TOLERANCE = 0.10
STATED = re.compile(
    r"\*\*Time:?\*\*:?\s*about\s+(?P<core>\d+)\s*min(?:utes)?\b"
    r"(?:\s*\(\+\s*(?P<optional>\d+)\s*(?:min(?:utes)?\s+)?optional\b[^)]*\))?",
    re.IGNORECASE,
)


def stated_time(nb_path: Path) -> tuple[int, int | None] | None:
    """(core, optional or None) as the title cell states them, or None when it has no '**Time:** about N min'."""
    nb = nbformat.read(nb_path, as_version=4)
    title = next((c.source for c in nb.cells if c.cell_type == "markdown"), "")
    match = STATED.search(title)
    if match is None:
        return None
    optional = match.group("optional")
    return int(match.group("core")), None if optional is None else int(optional)


def agrees(stated: int, counted: float) -> bool:
    return abs(stated - counted) <= TOLERANCE * counted or stated == reading_time.round_to_5(counted)


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=IDS)
def test_title_cell_states_the_counted_time(nb_path):
    counted = reading_time.count_notebook(nb_path)
    write = reading_time.stated_format(counted)
    how = (
        f"{nb_path.name}: write `{write}` in the title cell (the first markdown cell); counted by "
        f"`python scripts/reading_time.py {nb_path.relative_to(ROOT)}`: core {counted.core.minutes:.0f} min "
        f"({counted.core.words:.0f} words, {counted.core.code_cells} visible code cells, {counted.core.figures} "
        f"figures/panels, {counted.core.exercises} exercises), optional {counted.optional.minutes:.0f} min. The title cell's own words count: run the script again after editing it"
    )
    stated = stated_time(nb_path)
    assert stated is not None, f"no '**Time:** about N min' line found. {how}"
    core, optional = stated
    assert agrees(core, counted.core.minutes), f"states {core} min for the core. {how}"
    if counted.optional.rounded:
        assert optional is not None, f"states no optional time. {how}"
        assert agrees(optional, counted.optional.minutes), f"states {optional} min optional. {how}"
    else:
        assert not optional, f"states {optional} min optional, but has no Appendix/optional section. {how}"


def test_counting_rules_on_a_toy_notebook(tmp_path):
    """Words (CJK at half a word), visible code, figures, exercises and the optional part, counted by hand."""
    nb = nbformat.v4.new_notebook()
    figure = nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"})
    printed = nbformat.v4.new_output("stream", name="stdout", text="loss 2.31 nats\n")  # 3 words
    table = nbformat.v4.new_output(
        "display_data", data={"text/markdown": "| a | b |\n|---|---|\n| 1 | x |", "text/plain": "<Markdown>"}
    )  # a, b, 1, x = 4 words
    repr_only = nbformat.v4.new_output("execute_result", data={"text/plain": "<IPython.core.display.Markdown object>"})
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title\n\n**Time:** about 20 min (+5 optional)\n\n猫 吃 鱼 | — $x$"),
        nbformat.v4.new_code_cell("plot()", outputs=[figure]),
        nbformat.v4.new_code_cell("show()", outputs=[printed, table, repr_only]),
        nbformat.v4.new_code_cell(
            "#@title Solution", outputs=[printed], metadata={"jupyter": {"source_hidden": True, "outputs_hidden": True}}
        ),
        nbformat.v4.new_code_cell("assert True", metadata={"jupyter": {"source_hidden": True}}),
        nbformat.v4.new_markdown_cell("## Exercises\n\n### Exercise 1: one\n\ntext\n\n**2.** two"),
        nbformat.v4.new_code_cell("def f():\n    raise NotImplementedError  # your code here"),
        nbformat.v4.new_markdown_cell("## Appendix A (optional): more\n\n" + "word " * 200),
        nbformat.v4.new_code_cell("x = 1"),
    ]
    path = tmp_path / "toy.ipynb"
    nbformat.write(nb, path)
    r = reading_time.count_notebook(path)
    # core words: Title, **Time:**, about, 20, min, (+5, optional), $x$ = 8 tokens, 猫吃鱼 = 1.5; Exercises, Exercise,
    # 1:, one, text, **2.**, two = 7
    assert r.core.words == pytest.approx(8 + 1.5 + 7)
    assert r.core.output_words == 3 + 4  # the hidden solution's print and the bare repr are not read
    assert (r.core.code_cells, r.core.figures, r.core.exercises) == (3, 1, 2)
    assert r.core.minutes == pytest.approx(23.5 / 100 + 3 + 2 + 10)
    # optional: header "Appendix, A, (optional):, more" = 4 words + 200, one code cell
    assert (r.optional.words, r.optional.code_cells, r.optional.figures, r.optional.exercises) == (204, 1, 0, 0)
    assert reading_time.stated_format(r) == "**Time:** about 15 min (+5 optional)"
    assert stated_time(path) == (20, 5)


#: Issue 34: no notebook states more than about 110 minutes of core reading (longer material is split or marked
#: optional, stated apart as "(+M optional)").
CORE_CAP_MINUTES = 110


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=IDS)
def test_no_notebook_states_more_than_the_core_cap(nb_path):
    stated = stated_time(nb_path)
    counted = reading_time.count_notebook(nb_path).core.minutes
    assert stated is not None and stated[0] <= CORE_CAP_MINUTES, (
        f"{nb_path.name} states {stated}: cap {CORE_CAP_MINUTES}"
    )
    assert reading_time.round_to_5(counted) <= CORE_CAP_MINUTES, (
        f"{nb_path.name}: counted core {counted:.1f} min rounds above the cap of {CORE_CAP_MINUTES}: cut or mark "
        "a part optional"
    )
