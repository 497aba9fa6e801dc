"""Collection rule for the Chinese notebooks (``notebooks/zh/``).

Their code cells and outputs are the English notebooks' own, byte for byte (tests/test_i18n.py checks it), so the
English notebooks' nbval run already covers them; only one Chinese notebook (01, the quickest) runs under nbval
again, to show that a notebook runs unchanged from ``notebooks/zh/``.
"""

from pathlib import Path

ZH_UNDER_NBVAL = "01_position_blindness.ipynb"

collect_ignore = [
    str(p.relative_to(Path(__file__).parent))
    for p in sorted((Path(__file__).parent / "notebooks" / "zh").glob("*.ipynb"))
    if p.name != ZH_UNDER_NBVAL
]
