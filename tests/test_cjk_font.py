"""The Chinese edition's figure font (helpers.cjk_font): every Chinese string the course prints or draws has its
glyphs in it, and the check sees a missing glyph (matplotlib's "Glyph ... missing from font(s)" warning).

The font is read from the pinned mplfonts wheel into the course's cache the first time (about 85 MB downloaded
once); the tests are skipped only when the package index cannot be reached.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import matplotlib
import numpy as np
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
    """Every Chinese string of the package's, the printed lines' and the figure texts' catalogs, and the glossary's
    terms."""
    out = [
        e.msgstr
        for name in ("helpers.po", "outputs.po", "figures.po")
        for e in polib.pofile(str(CATALOGS / name))
        if e.msgstr
    ]
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


def _mathtext_glyph_warnings(texts: list[str], caplog) -> list[str]:
    """The "does not have a glyph" messages mathtext logs (logging, not warnings) when ``texts`` are drawn."""
    fig = plt.figure(figsize=(4, 4))
    for i, text in enumerate(texts):
        fig.text(0.01, i / max(1, len(texts)), text, fontsize=6)
    caplog.clear()
    with caplog.at_level("WARNING", logger="matplotlib"):
        fig.canvas.draw()
    plt.close(fig)
    return [r.getMessage() for r in caplog.records if "glyph" in r.getMessage()]


def test_chinese_figure_text_is_never_inside_mathtext(font_name, caplog):
    """A figure text with $...$ is drawn by mathtext, whose font has no Chinese glyphs (not even as a fallback): every
    translated figure text with math (the package's "figure" context, the figures catalog) draws without a missing
    glyph; and the check sees one."""
    with_math = [
        e.msgstr
        for name in ("helpers.po", "figures.po")
        for e in polib.pofile(str(CATALOGS / name))
        if e.msgstr and e.msgstr.count("$") >= 2
    ]
    assert with_math and _mathtext_glyph_warnings(with_math, caplog) == []
    assert _mathtext_glyph_warnings(["$q_m$：猫在 m"], caplog)


def test_the_check_sees_a_missing_glyph():
    with matplotlib.rc_context({"font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"]}):
        assert any("missing from font" in m for m in _missing_glyphs(["猫 吃 鱼"]))


def test_the_font_comes_from_the_pinned_wheel_only(font_name):
    w = fetch.WHEELS[cjk_font.WHEEL_KEY]
    assert (w.name, w.version, w.member) == ("mplfonts", "0.0.11", "mplfonts/fonts/NotoSansCJKsc-Regular.otf")
    assert "Open Font License" in w.licence
    assert "mplfonts" not in sys.modules  # the wheel is read, never installed or imported


# ----------------------------------------------------------------------------- the figures in Chinese
def _one_figure_per_plots_module():
    """A small figure of each plots module (drawn with its figure text: titles, axes, legends, colorbars)."""
    from helpers.plots import (
        blindness,
        extension,
        extension_compared,
        lab,
        learned,
        modern,
        position_2026,
        real,
        remap,
        rope,
        score_biases,
        sinusoidal,
    )

    x = np.arange(1.0, 9.0)  # (8,)
    square = np.tril(np.ones((4, 4)))  # (4, 4)
    return {
        "blindness": lambda: blindness.plot_first_token_weight(x, x),
        "extension": lambda: extension.plot_slowdown(dim=16),
        "extension_compared": lambda: extension_compared.plot_config_wavelengths({"a": (1 / x, 1 / x, 4.0)}),
        "lab": lambda: lab.plot_learned_table(np.zeros((8, 4)), 4),
        "learned": lambda: learned.plot_distance_from_init(x, train_len=4),
        "modern": lambda: modern.plot_query_temperature(x, x, floor_scale=4, attn_scale=0.1),
        "position_2026": lambda: position_2026.plot_copy_similarity(x, {"a": x}),
        "real": lambda: real.plot_wavelengths(1 / x, 16),
        "remap": lambda: remap.plot_remapped_distance(square, max_distance=2),
        "rope": lambda: rope.plot_layout_pairs(8),
        "score_biases": lambda: score_biases.plot_bias_matrix(square),
        "sinusoidal": lambda: sinusoidal.plot_pe_heatmap(n_positions=8, d_model=8),
    }


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]


def test_zh_figures_draw_their_translated_text_with_every_glyph(font_name):
    """In Chinese the course registers the font itself (helpers.plots._style.follow_language): each plots module's
    figure shows Chinese text, and drawing that text (mathtext included) warns of no missing glyph. The texts of the
    twelve figures are drawn once, together (:func:`_missing_glyphs`): a fraction of the time of twelve draws."""
    from helpers import i18n

    i18n.set_language("zh_CN")
    try:
        assert font_name in matplotlib.rcParams["font.family"]
        texts = []
        for module, draw in _one_figure_per_plots_module().items():
            drawn = draw()
            fig = (drawn.flat[0] if isinstance(drawn, np.ndarray) else drawn).figure
            shown = _texts(fig)
            plt.close(fig)
            assert any(re.search("[\u4e00-\u9fff]", t) for t in shown), f"{module}: no Chinese figure text"
            texts += [t for t in shown if not t.isascii()]  # an ASCII string is drawn by the default font
        assert _missing_glyphs(sorted(set(texts))) == []
    finally:
        i18n.set_language("en")


def test_english_never_fetches_nor_registers_the_font(monkeypatch):
    from helpers import i18n
    from helpers.plots import _style, sinusoidal

    def fetch_font(**_kw):
        raise AssertionError("English mode fetched the CJK font")

    monkeypatch.setattr(_style, "cjk_font_path", fetch_font)
    i18n.set_language("en")
    assert cjk_font.FONT_FAMILY not in matplotlib.rcParams["font.family"]
    ax = sinusoidal.plot_frequencies(d_model=16)[0]
    assert "frequency per pair" in _texts(ax.figure)  # English text, drawn without the font
    plt.close(ax.figure)


def test_a_panel_in_chinese_shows_what_a_fresh_drawing_shows(font_name, shown):
    """Chinese text goes through the panels' glyph, layout and string caches too (fallback fonts, runs of glyphs
    blended at once, helpers/widgets/_common.py): every frame of 05's YaRN panel and 08's M-RoPE panel in Chinese
    equals a fresh drawing on a plain Agg canvas."""
    from _figure_checks import moved_value, panel_controls
    from test_panels import PANELS, _fresh, assert_same_picture

    from helpers import i18n

    i18n.set_language("zh_CN")
    try:
        for name, make, draw, keywords, layout in (p for p in PANELS if p[0] in ("05 yarn", "08 mrope")):
            controls = panel_controls(make())
            keyword = {i18n._(d): k for d, k in keywords.items()}  # the descriptions as the panel shows them
            assert set(controls) == set(keyword), f"{name}: {sorted(controls)} against {sorted(keyword)}"
            assert any(re.search("[\u4e00-\u9fff]", d) for d in controls), f"{name}: no Chinese description"
            for description, control in controls.items():
                control.value = moved_value(control)
                values = {keyword[d]: c.value for d, c in controls.items()}
                assert_same_picture(shown[-1], _fresh(draw, layout, values)[1], f"{name} in Chinese, {description!r}")
    finally:
        i18n.set_language("en")
