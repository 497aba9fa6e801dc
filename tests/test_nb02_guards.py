"""Structure guards for notebook 02 (issue 15): short teaching cells, one collapsed checks cell per section that has
code, every wrong-answer demonstration ends with ``else: raise``."""

from __future__ import annotations

import json
import re
from pathlib import Path

NB = Path(__file__).resolve().parent.parent / "notebooks" / "02_sinusoidal.ipynb"


def _cells():
    return json.loads(NB.read_text(encoding="utf-8"))["cells"]


def _src(cell) -> str:
    return "".join(cell["source"])


def _hidden(cell) -> bool:
    return cell.get("metadata", {}).get("jupyter", {}).get("source_hidden", False)


def sections(cells):
    """(header, cells) for every '## ' section (numbered sections and appendices), in order."""
    out = []
    for c in cells:
        if c["cell_type"] == "markdown" and re.match(r"## ", _src(c)):
            out.append((_src(c).splitlines()[0], []))
        elif out:
            out[-1][1].append(c)
    return out


def test_nb02_visible_code_cells_are_short():
    lengths = [
        len([ln for ln in _src(c).splitlines() if ln.strip()])
        for c in _cells()
        if c["cell_type"] == "code" and not _hidden(c)
    ]
    assert max(lengths) <= 25, lengths


def test_nb02_each_section_with_code_ends_with_one_checks_cell():
    for header, cells in sections(_cells()):
        if not re.match(r"## (\d+\.|Appendix)", header):
            continue
        code = [c for c in cells if c["cell_type"] == "code"]
        if not code:  # a section of prose only (e.g. a verdict table)
            continue
        checks = [c for c in code if "checks" in c.get("metadata", {}).get("tags", [])]
        assert len(checks) == 1, (header, len(checks))
        assert _hidden(checks[0]) and _src(checks[0]).startswith("# Checks for this"), header
        assert code[-1] is checks[0], f"{header}: the checks cell must be the section's last code cell"


def test_nb02_wrong_answer_demonstrations_raise_if_accepted():
    for c in _cells():
        src = _src(c)
        if c["cell_type"] == "code" and "except AssertionError" in src:
            assert re.search(r"\nelse:\n\s+raise ", src), src[:200]


def test_nb02_title_states_a_time():
    assert re.search(r"\*\*Time:\*\* about \d+ minutes", _src(_cells()[0]))
