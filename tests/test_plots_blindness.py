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
from helpers.attention import scaled_dot_product_attention
from helpers.plots import blindness as bp
from helpers.plots._style import cjk_font
from helpers.sinusoidal import sinusoidal_table
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


def _np_attention(x, w_q, w_k, w_v, *, causal=False):
    """An independent NumPy attention head: softmax(x W_Q (x W_K)^T / sqrt(d_k)) x W_V."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    s = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones_like(s)) > 0, s, -np.inf)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    return a @ v, a


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
# Computations, against independent ones


def test_toy_head_is_the_documented_draw_order():
    gen = torch.Generator().manual_seed(3)
    table = torch.randn(len(attention.TOKENS), 6, generator=gen, dtype=torch.float64)
    w = [torch.randn(6, 4, generator=gen, dtype=torch.float64) / math.sqrt(6) for _ in range(3)]
    head = attention.toy_head(6, 4, seed=3)
    for i, token in enumerate(attention.TOKENS):
        assert torch.equal(head.embeddings[token], table[i])
    for got, want in zip((head.w_q, head.w_k, head.w_v), w, strict=True):
        assert torch.equal(got, want)
    scaled = attention.toy_head(6, 4, seed=3, weight_scale=2.0)
    torch.testing.assert_close(scaled.w_v, w[2] * math.sqrt(6) * 2.0)
    with pytest.raises(ValueError, match="tokens must come from"):
        head.embed(["狗"])


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("position", ["none", "sinusoidal"])
def test_attend_matches_numpy(position, causal):
    head = attention.toy_head()
    x = head.embed(FISH_EATS_CAT).numpy()
    if position == "sinusoidal":
        x = x + sinusoidal_table(3, x.shape[1])
    want_out, want_w = _np_attention(x, head.w_q.numpy(), head.w_k.numpy(), head.w_v.numpy(), causal=causal)
    out, w = attention.attend(head, FISH_EATS_CAT, position=position, causal=causal)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-10)
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-10, atol=1e-15)


def test_attend_equivariance_only_without_position_and_mask():
    head = attention.toy_head()
    p = attention.permutation_matrix([2, 1, 0])
    for position in attention.POSITION_METHODS:
        for causal in (False, True):
            out_a, _ = attention.attend(head, CAT_EATS_FISH, position=position, causal=causal)
            out_b, _ = attention.attend(head, FISH_EATS_CAT, position=position, causal=causal)
            blind = position == "none" and not causal
            assert torch.allclose(out_b, p @ out_a, atol=1e-12) == blind
            assert torch.allclose(out_a.mean(0), out_b.mean(0), atol=1e-12) == blind
    with pytest.raises(ValueError, match="position must be one of"):
        attention.attend(head, CAT_EATS_FISH, position="alibi")


def test_rope_option_rotates_q_and_k_only():
    head = attention.toy_head()
    x = head.embed(CAT_EATS_FISH)
    q, k, v = x @ head.w_q, x @ head.w_k, x @ head.w_v

    def rotate(z):  # interleaved RoPE written out: pair i of position m turned by m * 10000^(-2i/d)
        d = z.shape[-1]
        theta = 10000.0 ** (-np.arange(0, d, 2) / d)
        out = z.numpy().copy()
        for m in range(z.shape[0]):
            c, s = np.cos(m * theta), np.sin(m * theta)
            a, b = out[m, 0::2].copy(), out[m, 1::2].copy()
            out[m, 0::2], out[m, 1::2] = a * c - b * s, a * s + b * c
        return out

    qr, kr = rotate(q), rotate(k)
    s = qr @ kr.T / np.sqrt(q.shape[-1])
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    out, w = attention.attend(head, CAT_EATS_FISH, position="rope")
    np.testing.assert_allclose(w.numpy(), a, rtol=1e-12)  # Rotary keeps float64 tables for float64 inputs
    np.testing.assert_allclose(out.numpy(), a @ v.numpy(), rtol=1e-12, atol=1e-15)


def test_reference_order():
    assert attention.reference_order(("鱼", "猫", "吃")) == CAT_EATS_FISH
    assert attention.reference_order(("小红", "打了", "小明")) == ("小明", "打了", "小红")
    with pytest.raises(ValueError, match="reordering"):
        attention.reference_order(("猫", "猫", "鱼"))


def test_permutation_matrix_matches_fancy_indexing():
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.normal(size=(5, 3)))
    order = [3, 0, 4, 1, 2]
    p = attention.permutation_matrix(order)
    torch.testing.assert_close(p @ x, x[order])
    torch.testing.assert_close(p.T @ p, torch.eye(5, dtype=torch.float64))
    with pytest.raises(ValueError, match="permutation"):
        attention.permutation_matrix([0, 0, 1])


def test_row_entropy_matches_a_loop():
    rng = np.random.default_rng(1)
    a = rng.random((4, 6))
    a[0, :3] = 0.0
    a /= a.sum(-1, keepdims=True)
    want = [-sum(p * math.log(p) for p in row if p > 0) for row in a]
    np.testing.assert_allclose(attention.row_entropy(torch.from_numpy(a)).numpy(), want, rtol=1e-12)
    assert attention.row_entropy(torch.eye(3)).tolist() == [0.0, 0.0, 0.0]
    np.testing.assert_allclose(attention.row_entropy(torch.full((2, 8), 1 / 8)).numpy(), math.log(8), rtol=1e-6)


def test_chapter_projections_reproduce_the_chapter_code():
    # The chapter's precompute_rope_cache + apply_rope (interleaved, stack/flatten), written out independently.
    d, t = 16, 5
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(2, t, d, generator=gen)
    w_q, w_k, w_v = (torch.randn(d, d, generator=gen) for _ in range(3))
    theta = 10000 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    freqs = torch.outer(torch.arange(t, dtype=torch.float64), theta)
    cos, sin = freqs.cos().float(), freqs.sin().float()

    def apply_rope(z):
        z1, z2 = z[..., 0::2], z[..., 1::2]
        return torch.stack([z1 * cos - z2 * sin, z1 * sin + z2 * cos], dim=-1).flatten(-2)

    q, k, v = attention.chapter_projections(d_model=d, seq_len=t, batch=2, seed=4)
    torch.testing.assert_close(q, apply_rope(x @ w_q), rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(k, apply_rope(x @ w_k), rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(v, x @ w_v)


def test_chapter_weights_saturate_at_unit_scale_and_flatten_as_s_shrinks():
    w1 = attention.chapter_weights(1.0)
    assert w1.shape == (2, 10, 10)
    assert np.all(w1.max(-1) > 0.999)
    entropies = [
        attention.row_entropy(attention.chapter_weights(s)).mean().item() for s in (1.0, 0.1, 1 / math.sqrt(512), 0.01)
    ]
    assert all(a < b for a, b in zip(entropies, entropies[1:], strict=False))
    assert entropies[-1] == pytest.approx(math.log(10), abs=2e-3)  # s = 0.01, the slider minimum: uniform
    with pytest.raises(ValueError, match="weight_scale"):
        attention.chapter_weights(0.0)


@pytest.mark.parametrize("s", [1.0, 0.1, 1 / math.sqrt(512), 0.01])
def test_chapter_weights_match_the_attention_helper(s):
    # The slider's NumPy softmax of cached float64 logits against helpers.attention on the float32 projections.
    q, k, v = attention.chapter_projections()
    _, want = scaled_dot_product_attention(q * s, k * s, v)
    np.testing.assert_allclose(attention.chapter_weights(s), want.numpy(), rtol=1e-4, atol=1e-6)


def test_chapter_logits_scale_like_s_squared_d():
    logits = attention.chapter_logits()
    assert not logits.flags.writeable
    assert logits.std() == pytest.approx(512, rel=0.1)  # std of x·W ~ √d per entry: q·k/√d ~ d
    q, k, _ = attention.chapter_projections()
    np.testing.assert_allclose(logits, (q @ k.transpose(-2, -1)).numpy() / math.sqrt(512), rtol=1e-4, atol=1e-2)


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
    shown = []
    monkeypatch.setattr(C, "display", shown.append)
    plt.close("all")
    for build in (bw.explorer_panel, bw.weight_scale_panel):
        build()  # interactive_output draws once on creation
        assert plt.get_fignums() == []  # so plt.show() in the panel displays nothing a second time
    assert len(shown) == 2
    assert all(img.data[:8] == b"\x89PNG\r\n\x1a\n" for img in shown)
    assert all(img.width is None and img.height is None for img in shown)  # shown at the figure's own size


def test_explorer_panelpanel_controls():
    controls = panel_controls(bw.explorer_panel())
    order, position, causal = (
        controls["token order"],
        controls["position info"],
        controls[next(k for k in controls if k.startswith("causal"))],
    )
    assert isinstance(order, W.Dropdown) and len(order.options) == 12 and order.value == bw.DEFAULT_ORDER
    assert all(sorted(v) in (sorted(s) for s in attention.SENTENCES.values()) for _, v in order.options)
    assert isinstance(position, W.ToggleButtons) and [v for _, v in position.options] == list(
        attention.POSITION_METHODS
    )
    assert isinstance(causal, W.Checkbox) and causal.value is False


def test_weight_scale_panel_slider_range():
    (slider,) = panel_controls(bw.weight_scale_panel()).values()
    assert isinstance(slider, W.FloatLogSlider)
    assert (slider.base, slider.min, slider.max) == (10, -2.0, 0.0)  # s from 0.01 (uniform) to 1 (one-hot)
    assert slider.value == pytest.approx(1 / math.sqrt(512))
    assert "s" in slider.description and "W = s·randn" in slider.description


def test_explorer_panel_offers_only_the_requested_positions():
    panel = bw.explorer_panel(positions=("none", "sinusoidal"))
    toggles = [w for w in _all_widgets(panel) if w.__class__.__name__ == "ToggleButtons"]
    assert [value for _, value in toggles[0].options] == ["none", "sinusoidal"]
    with pytest.raises(ValueError, match=r"positions must be a non-empty tuple of options from .* got \('alibi',\)"):
        bw.explorer_panel(positions=("alibi",))
    with pytest.raises(ValueError, match=r"positions must include 'none'"):
        bw.explorer_panel(positions=("sinusoidal",))


def _all_widgets(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _all_widgets(child)
