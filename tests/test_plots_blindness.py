"""Tests for helpers.plots.blindness and helpers.widgets.blindness (notebook 01), Agg backend only."""

import math
import warnings

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from _figure_checks import panel_controls
from matplotlib import ft2font
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import fontManager

from helpers import attention
from helpers.plots import blindness as bp
from helpers.plots._style import cjk_font
from helpers.widgets import _common as C
from helpers.widgets import blindness as bw

CAT_EATS_FISH = ("猫", "吃", "鱼")
FISH_EATS_CAT = ("鱼", "吃", "猫")


def _image(ax):
    (img,) = ax.get_images()
    return np.asarray(img.get_array(), dtype=float)


def _bars(ax):
    """Bar heights drawn by plot_pooled, keyed by legend label (the bars are PolyCollections)."""
    return {c.get_label(): bp.bar_heights(c) for c in ax.collections if c.get_label() and c.get_paths()}


def _entropy_dots(ax):
    (dots,) = [line for line in ax.get_lines() if line.get_marker() == "o"]
    return np.asarray(dots.get_ydata(), dtype=float)


# ---------------------------------------------------------------------------------------------------------------
# Fonts and labels


def test_cjk_font_really_has_the_glyphs_or_is_none():
    name = cjk_font()
    if name is None:
        return
    assert not name.startswith("Last Resort")
    paths = [e.fname for e in fontManager.ttflist if e.name == name]
    charmap = ft2font.FT2Font(paths[0]).get_charmap()
    assert all(ord(c) in charmap for c in "猫吃鱼小明打了红")


def test_last_resort_font_is_never_taken_for_a_cjk_font():
    # matplotlib ships a "Last Resort" font whose character map covers everything (as placeholder boxes).
    assert cjk_font("猫") is None or not cjk_font("猫").startswith("Last Resort")
    assert cjk_font("\U0010fffd") is None  # a private-use character no real font maps


def test_token_label_forms():
    assert bp.token_label("猫", chinese=True) == "猫 (cat)"
    assert bp.token_label("猫", chinese=False) == "cat (māo)"
    assert bp.token_label("小明", chinese=False, multiline=True) == "Xiaoming\nXiǎomíng"
    assert bp.token_label("<s>", chinese=True) == bp.token_label("<s>", chinese=False) == "<s>"
    assert bp.token_label("鱼") == bp.token_label("鱼", chinese=cjk_font() is not None)
    with pytest.raises(ValueError, match="token must be one of"):
        bp.token_label("狗")


def test_heatmap_labels_draw_without_glyph_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a "Glyph … missing from font(s)" UserWarning would fail here
        ax = bp.plot_attention(torch.eye(3), ("小明", "打了", "小红"))
        ax.figure.canvas.draw()
        fig = bw.explorer_figure(("小红", "打了", "小明"), "rope", True)
        fig.canvas.draw()


# ---------------------------------------------------------------------------------------------------------------
# Plotting functions


def test_plot_attention_draws_the_weights_with_token_ticks():
    w = torch.tensor([[1.0, 0.0, 0.0], [0.3, 0.7, 0.0], [0.2, 0.3, 0.5]])
    ax = bp.plot_attention(w, CAT_EATS_FISH, title="t")
    np.testing.assert_allclose(_image(ax), w.numpy())
    assert [t.get_text() for t in ax.get_xticklabels()] == [bp.token_label(t, multiline=True) for t in CAT_EATS_FISH]
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title() == "t"
    assert [t.get_text() for t in ax.texts] == [f"{v:.2f}" for v in w.flatten().tolist()]
    with pytest.raises(ValueError, match="does not match"):
        bp.plot_attention(w, CAT_EATS_FISH[:2])


def test_plot_pooled_bars_and_reference_outlines():
    p, r = torch.tensor([0.5, -1.0, 2.0]), torch.tensor([0.5, -0.5, 1.0])
    ax = bp.plot_pooled(p, reference=r, title="x")
    bars = _bars(ax)
    np.testing.assert_allclose(bars["this order"], p.numpy())
    np.testing.assert_allclose(bars["reference"], r.numpy())
    (filled,) = [c for c in ax.collections if c.get_label() == "this order"]
    (outline,) = [c for c in ax.collections if c.get_label() == "reference"]
    assert filled.get_facecolor()[0][3] > 0 and outline.get_facecolor().size == 0  # outlines are unfilled
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title() == "x"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["this order", "reference"]
    assert ax.get_ylim()[1] > 2.0 and ax.get_ylim()[0] < -1.0  # every bar fits
    assert ax.get_xlim()[0] < -0.4 and ax.get_xlim()[1] > 2.4
    with pytest.raises(ValueError, match="must match"):
        bp.plot_pooled(p, reference=r[:2])


def test_bar_heights_reads_back_what_bars_drew():
    ax = bp.plot_pooled(np.array([1.0, -2.0, 0.0, 3.5]))
    np.testing.assert_allclose(bp.bar_heights(ax.collections[0]), [1.0, -2.0, 0.0, 3.5])


def test_plot_weight_scale_entropy_stems():
    w = attention.chapter_weights(0.05)[0]
    h = attention.row_entropy(w).numpy()  # (T,)
    ax_map, ax_h = bp.plot_weight_scale(w, h, weight_scale=0.05).figure.axes
    np.testing.assert_allclose(_image(ax_map), w, rtol=1e-12)
    np.testing.assert_allclose(_entropy_dots(ax_h), h, rtol=1e-12)
    with pytest.raises(ValueError, match=r"entropy must have shape \(T,\) = \(10,\)"):
        bp.plot_weight_scale(w, h[:-1])
    assert "0.05" in ax_map.get_title() and ax_h.get_ylabel() and ax_h.get_xlabel()
    assert "(tokens)" in ax_map.get_xlabel() and "(tokens)" in ax_h.get_xlabel()
    assert any(line.get_ydata()[0] == pytest.approx(math.log(10)) for line in ax_h.get_lines())
    assert ax_h.get_ylim()[0] < 0  # a one-hot row's dot at H = 0 stays visible above the axis edge


def test_causal_leak_plots():
    ax = bp.plot_first_token_weight([1.0, 0.5, 0.3], [0.2, 0.2, 0.2])
    assert len(ax.get_lines()) == 2 and ax.get_xlabel() and ax.get_title()
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), [1.0, 0.5, 0.3])
    ax = bp.plot_output_variance([1.0, 0.5, 0.33, 0.25], [0.25] * 4, value_variance=1.0)
    assert len(ax.get_lines()) == 3 and ax.get_ylabel()
    np.testing.assert_allclose(ax.get_lines()[2].get_ydata(), [1.0, 0.5, 1 / 3, 0.25])


# ---------------------------------------------------------------------------------------------------------------
# Widgets: redraw functions and panels


def test_explorer_figure_reflects_every_control():
    base = bw.explorer_figure()
    ax_w, ax_p = base.axes[:2]
    _, w = attention.attend(bw._head(), bw.DEFAULT_ORDER)
    np.testing.assert_allclose(_image(ax_w), w.numpy())
    assert "same as original order" in ax_p.get_title()
    bars = _bars(ax_p)
    np.testing.assert_allclose(bars["this order"], bars["original order"], atol=1e-12)

    other_order = bw.explorer_figure(("吃", "猫", "鱼"))
    assert [t.get_text() for t in other_order.axes[0].get_xticklabels()][0] == bp.token_label("吃", multiline=True)
    assert "same as original order" in other_order.axes[1].get_title()  # blind: pooled output unchanged

    for position, causal in (("sinusoidal", False), ("rope", False), ("none", True)):
        fig = bw.explorer_figure(bw.DEFAULT_ORDER, position, causal)
        assert "differs" in fig.axes[1].get_title()
        assert not np.allclose(_image(fig.axes[0]), _image(ax_w))
        assert position in fig.axes[0].get_title()
    causal = bw.explorer_figure(bw.DEFAULT_ORDER, "none", True)
    np.testing.assert_allclose(_image(causal.axes[0])[0], [1.0, 0.0, 0.0])  # the first token sees only itself


def _panel_figure(layout):
    """A figure like the one a panel keeps: not registered with pyplot."""
    fig = Figure(figsize=layout.figsize, dpi=C.DPI)
    FigureCanvasAgg(fig)
    return fig


def test_explorer_blind_only_without_position_and_mask_for_every_order():
    fig = _panel_figure(bw.EXPLORER_LAYOUT)  # one figure redrawn 72 times, as the panel does
    for label, order in bw.ORDER_OPTIONS:
        reordered = order != attention.reference_order(order)
        for position in attention.POSITION_METHODS:
            for causal in (False, True):
                bars = _bars(bw.explorer_figure(order, position, causal, fig=fig).axes[1])
                same = np.allclose(bars["this order"], bars["original order"], atol=1e-9)
                assert same == (not reordered or (position == "none" and not causal)), (label, position, causal)
                assert ("same as original order" in fig.axes[1].get_title()) == same


def test_redrawing_into_a_figure_replaces_the_drawing():
    fresh = bw.explorer_figure(("小红", "打了", "小明"), "rope", True)
    reused = _panel_figure(bw.EXPLORER_LAYOUT)
    for order, position, causal in [(bw.DEFAULT_ORDER, "none", False), (("猫", "鱼", "吃"), "sinusoidal", False)] * 2:
        assert bw.explorer_figure(order, position, causal, fig=reused) is reused
    bw.explorer_figure(("小红", "打了", "小明"), "rope", True, fig=reused)
    for a, b in zip(fresh.axes, reused.axes, strict=True):  # nothing left over from earlier drawings
        assert len(a.images) == len(b.images) and len(a.texts) == len(b.texts)
        assert len(a.collections) == len(b.collections) and len(a.lines) == len(b.lines)
        assert a.get_title() == b.get_title()
        assert [t.get_text() for t in a.get_xticklabels()] == [t.get_text() for t in b.get_xticklabels()]
    np.testing.assert_allclose(_image(reused.axes[0]), _image(fresh.axes[0]))
    assert _bars(reused.axes[1]).keys() == _bars(fresh.axes[1]).keys()
    for key, heights in _bars(fresh.axes[1]).items():
        np.testing.assert_allclose(_bars(reused.axes[1])[key], heights)

    fresh_s = bw.weight_scale_figure(0.3)
    reused_s = _panel_figure(bw.SCALE_LAYOUT)
    for s in (1.0, 0.01, 0.3):
        bw.weight_scale_figure(s, fig=reused_s)
    np.testing.assert_allclose(_entropy_dots(reused_s.axes[1]), _entropy_dots(fresh_s.axes[1]))
    assert len(reused_s.axes[1].lines) == len(fresh_s.axes[1].lines)
    assert reused_s.axes[0].get_title() == fresh_s.axes[0].get_title() == "weights at s = 0.3"


def test_weight_scale_figure_follows_the_slider():
    a, b = bw.weight_scale_figure(1.0), bw.weight_scale_figure(0.01)
    ha, hb = _entropy_dots(a.axes[1]), _entropy_dots(b.axes[1])
    assert ha.max() < 1e-3 and hb.min() > 2.2  # one-hot vs nearly uniform
    assert not np.allclose(_image(a.axes[0]), _image(b.axes[0]))
    assert "s = 1" in a.axes[0].get_title() and "s = 0.01" in b.axes[0].get_title()


def test_panels_display_one_png_and_leave_no_pyplot_figures(monkeypatch):
    shown, publish = [], C._publish
    monkeypatch.setattr(C, "_publish", lambda target, png: (publish(target, png), shown.append(target)))
    plt.close("all")
    for build in (bw.explorer_panel, bw.weight_scale_panel):
        build()  # the panel draws once on creation
        assert plt.get_fignums() == []  # so plt.show() in the panel displays nothing a second time
    assert len(shown) == 2
    assert all(img.value[:8] == b"\x89PNG\r\n\x1a\n" for img in shown)
    assert all(not img.layout.width and not img.layout.height for img in shown)  # shown at the figure's own size


def test_explorer_panelpanel_controls():
    controls = panel_controls(bw.explorer_panel())
    order, position, causal = (
        controls["token order"],
        controls["position info"],
        controls[next(k for k in controls if k.startswith("causal"))],
    )
    assert isinstance(order, W.Dropdown) and len(order.options) == 12 and order.value == bw.DEFAULT_ORDER
    assert all(sorted(v) in (sorted(s) for s in attention.SENTENCES.values()) for _, v in order.options)
    assert isinstance(position, W.Dropdown) and [v for _, v in position.options] == list(attention.POSITION_METHODS)
    assert isinstance(causal, W.Checkbox) and causal.value is False


def test_weight_scale_panel_slider_range():
    (slider,) = panel_controls(bw.weight_scale_panel()).values()
    assert isinstance(slider, W.FloatLogSlider)
    assert (slider.base, slider.min, slider.max) == (10, -2.0, 0.0)  # s from 0.01 (uniform) to 1 (one-hot)
    assert slider.value == pytest.approx(1 / math.sqrt(512))
    assert "s" in slider.description and "W = s·randn" in slider.description


def test_explorer_panel_offers_only_the_requested_positions():
    panel = bw.explorer_panel(positions=("none", "sinusoidal"))
    position = [w for w in _all_widgets(panel) if getattr(w, "description", "") == "position info"]
    assert [value for _, value in position[0].options] == ["none", "sinusoidal"]
    with pytest.raises(ValueError, match=r"positions must be a non-empty tuple of options from .* got \('alibi',\)"):
        bw.explorer_panel(positions=("alibi",))
    with pytest.raises(ValueError, match=r"positions must include 'none'"):
        bw.explorer_panel(positions=("sinusoidal",))


def _all_widgets(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _all_widgets(child)


@pytest.mark.parametrize("scale", [1.0, 1 / math.sqrt(512), 0.01])
def test_weight_scale_legend_stays_inside_its_axes_above_the_dots(scale):
    """The entropy panel's legend neither overhangs its axes (it hid the y tick label 3 when it had two columns)
    nor covers a dot, in the panel's figure and in plot_weight_scale's own."""
    w = attention.chapter_weights(scale)[0]  # (T, T)
    h = attention.row_entropy(w).numpy()  # (T,)
    for fig in (bw.weight_scale_figure(scale), bp.plot_weight_scale(w, h).figure):
        ax_h = fig.axes[1]
        renderer = fig.canvas.get_renderer()
        legend, box = ax_h.get_legend().get_window_extent(renderer), ax_h.get_window_extent(renderer)
        assert box.x0 <= legend.x0 and legend.x1 <= box.x1 and legend.y1 <= box.y1, (legend, box)
        highest = ax_h.transData.transform((0.0, max(h.max(), math.log(len(h)))))[1]  # display y of the top dot
        assert legend.y0 > highest, (legend, highest)
        plt.close(fig)
