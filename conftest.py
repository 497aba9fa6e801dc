"""Collection rule for the Chinese notebooks (``notebooks/zh/``).

Their code cells and outputs are the English notebooks' own, byte for byte, except the setup cell's one line that
switches the language and the printed lines that helpers.i18n.translate_line translates (tests/test_i18n.py checks
it), so the English notebooks' nbval run covers their code; one Chinese notebook (01, the quickest) runs under nbval
again, to show that a notebook runs from ``notebooks/zh/`` in Chinese and prints what its stored outputs say.
"""

from pathlib import Path

ZH_UNDER_NBVAL = "01_position_blindness.ipynb"

collect_ignore = [
    str(p.relative_to(Path(__file__).parent))
    for p in sorted((Path(__file__).parent / "notebooks" / "zh").glob("*.ipynb"))
    if p.name != ZH_UNDER_NBVAL
]
