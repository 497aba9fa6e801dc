"""The Chinese edition's figure font (helpers.cjk_font): every Chinese string the course prints or draws has its
glyphs in it, and the check sees a missing glyph (matplotlib's "Glyph ... missing from font(s)" warning).

The font is read from the pinned mplfonts wheel into the course's cache the first time (about 85 MB downloaded
once); the tests are skipped only when the package index cannot be reached.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import matplotlib
import polib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from helpers import cjk_font  # noqa: E402
from helpers.plots._style import use_cjk_font  # noqa: E402
from helpers.real import fetch  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = ROOT / "i18n" / "zh_CN"


@pytest.fixture(scope="module")
def font_name():
    try:
        cjk_font.cjk_font_path()
    except fetch.FetchError as err:  # no package index: nothing to test against
        pytest.skip(f"the CJK font's wheel cannot be fetched: {err}")
    with matplotlib.rc_context():
        yield use_cjk_font()


def _missing_glyphs(texts: list[str]) -> list[str]:
    """The "missing from font" warnings of drawing ``texts`` on one figure."""
    fig = plt.figure(figsize=(4, 4))
    for i, text in enumerate(texts):
        fig.text(0.01, i / max(1, len(texts)), text, fontsize=6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.canvas.draw()
    plt.close(fig)
    return sorted({str(w.message) for w in caught if "missing from font" in str(w.message)})


def _translated_strings() -> list[str]:
    """Every Chinese string of the package's and the printed lines' catalogs, and the glossary's terms."""
    out = [e.msgstr for name in ("helpers.po", "outputs.po") for e in polib.pofile(str(CATALOGS / name)) if e.msgstr]
    rows = (CATALOGS / "glossary.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return out + [r.split("\t")[1] for r in rows if r.strip()]


def test_every_translated_string_has_its_glyphs(font_name):
    """Each distinct character of the translations is drawn once (a glyph missing from every font of the fallback
    list is warned about): the same check as drawing every string, in a fraction of the time."""
    assert font_name == "Noto Sans CJK SC"
    chars = sorted({c for s in _translated_strings() for c in s if not c.isspace()})
    assert len(chars) > 500
    strings = ["".join(chars[i : i + 60]) for i in range(0, len(chars), 60)]
    assert matplotlib.rcParams["font.family"][-1] == font_name
    assert _missing_glyphs(strings) == []


def test_the_check_sees_a_missing_glyph():
    with matplotlib.rc_context({"font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"]}):
        assert any("missing from font" in m for m in _missing_glyphs(["猫 吃 鱼"]))


def test_the_font_comes_from_the_pinned_wheel_only(font_name):
    w = fetch.WHEELS[cjk_font.WHEEL_KEY]
    assert (w.name, w.version, w.member) == ("mplfonts", "0.0.11", "mplfonts/fonts/NotoSansCJKsc-Regular.otf")
    assert "Open Font License" in w.licence
    assert "mplfonts" not in sys.modules  # the wheel is read, never installed or imported
