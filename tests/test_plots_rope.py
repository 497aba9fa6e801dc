"""Notebook 04's figures and panels: what they draw, and the computations behind them."""

import warnings

import ipywidgets as W
import numpy as np
import pytest
from _figure_checks import assert_text_inside, panel_controls
from matplotlib.figure import Figure

from helpers import rope as R
from helpers.plots import rope as P
from helpers.widgets import rope as WR
from helpers.widgets._common import DPI, png_bytes


def _labels_present(ax):
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()


def test_token_labels_fallback_and_length_check(monkeypatch):
    monkeypatch.setattr(P, "cjk_font", lambda *text: None)
    labels = P.token_labels(["我", "猫"], [("wǒ", "I"), ("māo", "cat")])
    assert labels == ["wǒ\n(I)", "māo\n(cat)"]
    monkeypatch.setattr(P, "cjk_font", lambda *text: "Some CJK")
    assert P.token_labels(["我"], [("wǒ", "I")]) == ["我\n(I)"]
    with pytest.raises(ValueError, match="one \\(pinyin, English\\) pair per token"):
        P.token_labels(["我", "猫"], [("wǒ", "I")])


# ---- figures ---------------------------------------------------------------------------------------------------


def test_plot_rotation_2d_title_shows_the_live_score_and_arrows_move():
    q, k = np.array([1.0, 0.3]), np.array([0.6, 0.8])
    ax = P.plot_rotation_2d(q, k, 2, 0, 0.5)
    _labels_present(ax)
    arrows = ax.collections[0]  # the quiver: q, k, then the rotated q and k
    np.testing.assert_allclose(np.c_[arrows.U, arrows.V][:2], [q, k])
    np.testing.assert_allclose(np.c_[arrows.U, arrows.V][2], R.rotation_matrix(2, 2, inv_freq=[0.5]) @ q)
    # the title's score is the rotated dot product; moving m and n together keeps it
    s = (R.rotation_matrix(2, 2, inv_freq=[0.5]) @ q) @ (R.rotation_matrix(0, 2, inv_freq=[0.5]) @ k)
    assert f"{s:+.3f}" in ax.get_title()
    ax2 = P.plot_rotation_2d(q, k, 7, 5, 0.5)
    assert ax.get_title().split(":")[-1] == ax2.get_title().split(":")[-1]
    assert not np.allclose(ax2.collections[0].U[2], arrows.U[2])  # the rotated q moved


def test_plot_rotation_matrix_and_score_grid_draw_images():
    r = R.rotation_matrix(3, 8)
    ax = P.plot_rotation_matrix(r)
    _labels_present(ax)
    np.testing.assert_array_equal(ax.images[0].get_array(), r)
    s = np.arange(16.0).reshape(4, 4)
    ax = P.plot_score_grid(s)
    _labels_present(ax)
    np.testing.assert_array_equal(ax.images[0].get_array(), s)


def test_plot_wavelengths_reflects_dim_base_and_reference():
    ax = P.plot_wavelengths(16, 500000.0, context=8192)
    _labels_present(ax)
    main, ref = ax.lines[0], ax.lines[1]
    np.testing.assert_allclose(main.get_ydata(), R.rope_wavelengths(R.rope_inv_freq(16, 500000.0)))
    np.testing.assert_allclose(ref.get_ydata(), R.rope_wavelengths(R.rope_inv_freq(16, 10000.0)))
    assert any("8,192" in t.get_text() for t in ax.get_legend().get_texts())
    assert any(t.get_text().startswith("2π") for t in ax.get_legend().get_texts())  # the pair-0 reference line
    two_pi = [ln for ln in ax.lines if ln.get_label().startswith("2π")][0]
    np.testing.assert_allclose(two_pi.get_ydata(), [2 * np.pi, 2 * np.pi])
    ax = P.plot_wavelengths(16, 10000.0)  # same base as the reference: no dashed copy
    assert len([ln for ln in ax.lines if ln.get_linestyle() == "--" and ln.get_visible()]) == 0  # hidden, not drawn


def test_plot_long_range_decay_curves():
    top, bottom = P.plot_long_range_decay(32, 10000.0, 120, max_distance=400, n_samples=16)
    assert top.get_ylabel() and top.get_title() and bottom.get_xlabel() and bottom.get_ylabel()
    np.testing.assert_allclose(top.lines[0].get_ydata(), R.roformer_bound_factor(np.arange(401), 32))
    peaked = [ln for ln in bottom.lines if "peak" in ln.get_label()][0]
    assert np.argmax(peaked.get_ydata()) == 120
    same = [ln for ln in bottom.lines if ln.get_label() == "q = k (all ones)"][0]
    np.testing.assert_allclose(same.get_ydata(), R.pair_score_curve(np.ones(32), np.ones(32), np.arange(401)) / 32)
    mean, std = R.random_score_stats(np.arange(401), 32, n_samples=16, seed=0)
    random_line = [ln for ln in bottom.lines if ln.get_label().startswith("random")][0]
    np.testing.assert_allclose(random_line.get_ydata(), mean)
    assert len(bottom.collections) == 1  # the ±1 std band
    band = bottom.collections[0].get_paths()[0].vertices[:, 1]
    np.testing.assert_allclose([band.min(), band.max()], [(mean - std).min(), (mean + std).max()], atol=1e-12)
    legend = [t.get_text() for t in bottom.get_legend().get_texts()]
    assert legend == ["q = k (all ones)", "k chosen to peak at 120", "random q, k: mean ± 1 std (16 draws)"]
    assert bottom.get_xlim() == (0, 400)


def test_plot_attention_weights_labels_and_no_glyph_warnings():
    w = np.array([[0.2, 0.8], [0.5, 0.5]])
    labels = P.token_labels(["我", "猫"], [("wǒ", "I"), ("māo", "cat")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a "Glyph … missing" warning would fail here
        ax = P.plot_attention_weights(w, labels)
        ax.figure.canvas.draw()
    _labels_present(ax)
    assert [t.get_text() for t in ax.get_xticklabels()] == labels
    assert [t.get_text() for t in ax.texts] == ["0.20", "0.80", "0.50", "0.50"]


def test_plot_layout_pairs_colours_pairs():
    ax = P.plot_layout_pairs(8)
    assert ax.get_xlabel() and ax.get_title()
    rows = ax.images[0].get_array()
    np.testing.assert_array_equal(rows[0], [0, 0, 1, 1, 2, 2, 3, 3])
    np.testing.assert_array_equal(rows[1], [0, 1, 2, 3, 0, 1, 2, 3])


def test_plot_layout_mismatch_and_precision():
    left, right = P.plot_layout_mismatch(np.arange(5), np.arange(5.0), np.arange(5), np.ones(5), title="bug")
    _labels_present(left)
    _labels_present(right)
    np.testing.assert_array_equal(left.lines[0].get_ydata(), np.arange(5.0))
    np.testing.assert_array_equal(right.lines[0].get_ydata(), np.ones(5))
    assert left.figure.get_suptitle() == "bug"
    ax = P.plot_angle_precision([1e4, 1e5], {"a": [1e-4, 1e-3], "b": [0.0, 2.0]}, title="t")
    _labels_present(ax)
    assert len(ax.lines) == 3 and ax.get_yscale() == "log"  # two error curves and the π ceiling
    assert ax.lines[1].get_ydata()[0] > 0  # zeros are clipped so the log axis can show them
    np.testing.assert_allclose(ax.lines[2].get_ydata(), [np.pi, np.pi])


# ---- panels ----------------------------------------------------------------------------------------------------


def test_draw_rotation_reflects_every_slider():
    base = WR.draw_rotation(2, 0, 0.5)
    for kwargs in ({"m": 3, "n": 0, "theta": 0.5}, {"m": 2, "n": 1, "theta": 0.5}, {"m": 2, "n": 0, "theta": 0.9}):
        other = WR.draw_rotation(**kwargs)
        assert other.get_title() != base.get_title()


def test_draw_wavelengths_reflects_dim_and_base():
    a = WR.draw_wavelengths(128, 500000.0).lines[0].get_ydata()
    assert len(WR.draw_wavelengths(64, 500000.0).lines[0].get_ydata()) == 32
    assert not np.allclose(WR.draw_wavelengths(128, 1e6).lines[0].get_ydata(), a)


def test_draw_decay_reflects_dim_base_and_peak():
    def data(**kw):
        top, bottom = WR.draw_decay(**kw)
        return top.lines[0].get_ydata(), [ln for ln in bottom.lines if "peak" in ln.get_label()][0].get_ydata()

    b0, p0 = data(dim=64, base=10000.0, peak=300)
    b1, _ = data(dim=32, base=10000.0, peak=300)
    b2, _ = data(dim=64, base=1e6, peak=300)
    _, p3 = data(dim=64, base=10000.0, peak=500)
    assert not np.allclose(b0, b1) and not np.allclose(b0, b2)
    assert np.argmax(p0) == 300 and np.argmax(p3) == 500


PANELS = [  # (panel, draw function, figure layout, extreme settings of its sliders)
    (WR.rotation_panel, WR.draw_rotation, WR.ROTATION_LAYOUT, [{"m": 12, "n": 12, "theta": 1.5}, {"m": 0, "n": 12}]),
    (
        WR.wavelength_panel,
        WR.draw_wavelengths,
        WR.WAVELENGTH_LAYOUT,
        [{"dim": 256, "base": 1e7}, {"dim": 8, "base": 100}],
    ),
    (
        WR.decay_panel,
        WR.draw_decay,
        WR.DECAY_LAYOUT,
        [{"dim": 256, "base": 1e7, "peak": 1000}, {"dim": 8, "base": 100}],
    ),
]


def _panel_png(draw, layout, **values):
    """What a panel shows: ``draw`` on the panel's reused Figure, rendered at the panel's size and resolution."""
    fig = Figure(figsize=layout.figsize, dpi=DPI)
    draw(**values, fig=fig)
    return fig, png_bytes(fig)


@pytest.mark.parametrize(("make_panel", "draw", "layout", "extremes"), PANELS)
def test_every_control_changes_the_panel_image(make_panel, draw, layout, extremes):
    controls = {c.description: c for c in panel_controls(make_panel()).values()}
    names = list(controls)
    defaults = {_kw(draw, d): c.value for d, c in controls.items()}
    _, base_png = _panel_png(draw, layout, **defaults)
    for desc in names:
        c = controls[desc]
        moved = c.max if c.value != c.max else c.min
        _, png = _panel_png(draw, layout, **{**defaults, _kw(draw, desc): moved})
        assert png != base_png, f"moving {desc!r} to {moved} did not change the picture"


@pytest.mark.parametrize(("make_panel", "draw", "layout", "extremes"), PANELS)
def test_panel_text_stays_inside_the_figure(make_panel, draw, layout, extremes):
    """Panels are shown at their own size (no tight bounding box): labels must fit the fixed margins."""
    for values in [{}, *extremes]:
        fig, _ = _panel_png(draw, layout, **values)
        assert_text_inside(fig, (draw.__name__, values))


def test_draw_functions_draw_on_the_figure_they_are_given():
    fig = Figure(figsize=WR.DECAY_LAYOUT.figsize)
    top, bottom = WR.draw_decay(64, 1e4, 100, fig=fig)
    assert top.figure is fig and bottom.figure is fig and len(fig.axes) == 2
    fig = Figure()
    assert WR.draw_rotation(fig=fig).figure is fig and WR.draw_wavelengths(fig=Figure()).figure is not fig


def _kw(draw, description):
    """The keyword of ``draw`` that a slider with this description sets."""
    return {
        "query position m (tokens)": "m",
        "key position n (tokens)": "n",
        "θ (rad per position)": "theta",
        "head dim D (dimensions)": "dim",
        "base (log scale)": "base",
        "peak of chosen k (positions)": "peak",
    }[description]


def test_panels_build_with_documented_ranges():
    rot = panel_controls(WR.rotation_panel())
    assert (rot["query position m (tokens)"].min, rot["query position m (tokens)"].max) == (0, 12)
    assert (rot["key position n (tokens)"].min, rot["key position n (tokens)"].max) == (0, 12)
    assert (rot["θ (rad per position)"].min, rot["θ (rad per position)"].max) == (0.05, 1.5)

    wav = panel_controls(WR.wavelength_panel())
    d, b = wav["head dim D (dimensions)"], wav["base (log scale)"]
    assert (d.min, d.max, d.step, d.value) == (8, 256, 8, 128)
    assert (b.min, b.max, b.value) == (2, 7, 500000.0)

    dec = panel_controls(WR.decay_panel())
    assert (dec["peak of chosen k (positions)"].min, dec["peak of chosen k (positions)"].max) == (0, 1000)
    assert (dec["head dim D (dimensions)"].min, dec["head dim D (dimensions)"].max) == (8, 256)
    assert (dec["base (log scale)"].min, dec["base (log scale)"].max, dec["base (log scale)"].value) == (2, 7, 10000.0)
    assert all(c.continuous_update for c in dec.values())  # the figure follows a drag
    for panel in (WR.rotation_panel(), WR.wavelength_panel(), WR.decay_panel()):
        assert isinstance(panel.children[-1], W.Output)
