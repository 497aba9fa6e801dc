"""Tests for helpers.plots.sinusoidal and helpers.widgets.sinusoidal (notebook 02), Agg backend only."""

import io

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
import pytest
from _figure_checks import panel_controls
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from helpers import sinusoidal as sn
from helpers.plots import sinusoidal as psn
from helpers.sinusoidal import closest_distinct_positions, sinusoidal_frequencies, sinusoidal_table
from helpers.widgets import _common as C
from helpers.widgets import sinusoidal as wsn


def _labelled(ax):
    assert ax.get_xlabel() and ax.get_title()


def _line_data(ax):
    return [np.asarray(line.get_ydata(), dtype=float).copy() for line in ax.get_lines()]


# ---------------------------------------------------------------------------------------------------------------
# The data behind the figures, against independent computations


@pytest.mark.parametrize(
    ("d_model", "base", "dims", "n"), [(64, 1e4, (0, 20), 100), (8, 10.0, (7, 2, 3), 20), (128, 1e6, (127,), 2000)]
)
def test_wave_columns_are_the_tables_columns(d_model, base, dims, n):
    fine, fine_cols, ints, int_cols = psn.wave_columns(d_model, base, dims, n)
    assert fine[0] == 0 and fine[-1] == n - 1 and len(fine) == min(20 * n, 2000)
    np.testing.assert_array_equal(ints, np.arange(n))
    np.testing.assert_array_equal(fine_cols, sinusoidal_table(fine, d_model, base)[:, list(dims)])  # bit for bit
    np.testing.assert_array_equal(int_cols, sinusoidal_table(n, d_model, base)[:, list(dims)])
    with pytest.raises(ValueError, match="dims"):
        psn.wave_columns(d_model, base, (d_model,), n)


def test_clock_parts_match_the_table():
    parts = psn.clock_parts(position=37, d_model=6, base=100.0, trail=5)
    row = sinusoidal_table([37], 6, 100.0)[0]  # (6,) = sin ω_0 p, cos ω_0 p, sin ω_1 p, ...
    centres = psn.CLOCK_SPACING * np.arange(3)
    np.testing.assert_array_equal(parts["centres"], centres)
    for i, (x, y) in enumerate(parts["hands"]):  # centre -> tip (cx + cos, sin) = (cx + PE[p, 2i+1], PE[p, 2i])
        np.testing.assert_allclose([x[0], y[0], x[1] - x[0], y[1]], [centres[i], 0, row[2 * i + 1], row[2 * i]])
    x, y = parts["dials"]  # three unit circles, separated by NaN gaps
    gaps = np.flatnonzero(np.isnan(x))
    assert len(gaps) == 2 and np.array_equal(gaps, np.flatnonzero(np.isnan(y)))
    for i, (cx, cy) in enumerate(zip(np.split(x, gaps), np.split(y, gaps), strict=True)):
        ok = ~np.isnan(cx)
        np.testing.assert_allclose(np.hypot(cx[ok] - centres[i], cy[ok]), 1.0)
    tx, ty = parts["trail"]  # positions 32..37 of every pair, at radius 0.85
    omega = sinusoidal_frequencies(6, 100.0)
    expected = centres[:, None] + 0.85 * np.exp(1j * np.arange(32, 38)[None, :] * omega[:, None])
    np.testing.assert_allclose(tx + 1j * ty, expected.ravel())
    turns = 37 * omega[1] / (2 * np.pi)
    assert parts["captions"][1] == f"pair 1\nλ = {2 * np.pi * 100 ** (2 / 6):.3g}\n{turns:.2f} turns"
    assert (parts["xlim"], parts["ylim"], parts["fontsize"]) == ((-1.3, 2 * 2.6 + 1.3), (-2.6, 1.3), 8)
    assert psn.clock_parts(0, 16, 1e4)["ylim"][0] == -3.1 and psn.clock_parts(0, 16)["fontsize"] == 7


# ---------------------------------------------------------------------------------------------------------------
# Plotting functions


def test_plot_waves_draws_the_table_columns():
    ax = psn.plot_waves(d_model=16, base=100.0, dims=(0, 5), n_positions=50)
    _labelled(ax)
    lines = ax.get_lines()
    assert len(lines) == 4  # a thin line and integer dots per dimension
    table = sinusoidal_table(50, 16, 100.0)
    np.testing.assert_allclose(lines[1].get_ydata(), table[:, 0])
    np.testing.assert_allclose(lines[3].get_ydata(), table[:, 5])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(legend) == 2
    assert legend[0] == "dim 0 = sin, pair 0 (λ ≈ 6.28)"  # λ_0 = 2π for every base
    assert legend[1] == f"dim 5 = cos, pair 2 (λ ≈ {2 * np.pi * 100.0 ** (4 / 16):.3g})"
    with pytest.raises(ValueError, match="dims"):
        psn.plot_waves(d_model=8, dims=(8,))


def test_plot_waves_skips_dots_for_long_ranges():
    ax = psn.plot_waves(d_model=8, dims=(1, 7), n_positions=1000)
    assert len(ax.get_lines()) == 2
    assert ax.get_lines()[0].get_xdata()[-1] == pytest.approx(999)
    assert ax.get_legend().get_texts()[1].get_text().endswith("(λ ≈ 6,283)")  # 2π·10000^(6/8), long form


def test_plot_pe_heatmap_shows_the_table():
    ax = psn.plot_pe_heatmap(n_positions=30, d_model=12, base=50.0)
    _labelled(ax)
    (image,) = ax.get_images()
    np.testing.assert_allclose(image.get_array(), sinusoidal_table(30, 12, 50.0))


def test_plot_frequencies_two_log_panels_one_line_per_base():
    axes = psn.plot_frequencies(d_model=64, bases=(100.0, 10000.0))
    ax_w, ax_l = axes
    for ax in axes:
        _labelled(ax)
        assert ax.get_yscale() == "log"
        assert ax.get_legend() is not None
    assert len(ax_w.get_lines()) == 2
    assert ax_l.get_lines()[-1].get_ydata()[0] == pytest.approx(2 * np.pi)  # the 2π reference line
    np.testing.assert_allclose(ax_w.get_lines()[1].get_ydata(), sinusoidal_frequencies(64))
    np.testing.assert_allclose(ax_l.get_lines()[0].get_ydata(), 2 * np.pi / sinusoidal_frequencies(64, 100.0))


def test_plot_sign_changes_measured_and_expected():
    ax = psn.plot_sign_changes(d_model=32, n_positions=500)
    _labelled(ax)
    measured, expected = _line_data(ax)
    np.testing.assert_array_equal(measured, sn.sign_changes(sinusoidal_table(500, 32)))
    assert measured[0] > 100 and measured[-1] == 0
    assert np.all(np.abs(measured - expected) <= 2)  # the wave formula predicts the count to within a crossing or two


def test_plot_clocks_hands_point_at_pos_times_omega():
    ax = psn.plot_clocks(position=37, d_model=6, base=100.0)
    assert ax.get_title()
    lines = ax.get_lines()
    assert len(lines) == 3 + 3  # all circles, all zero ticks, all trail dots (one line each), a hand per pair
    hands = {line.get_gid(): line for line in lines if line.get_gid()}
    assert set(hands) == {"hand0", "hand1", "hand2"}
    omega = sinusoidal_frequencies(6, 100.0)
    for i in range(3):
        x, y = hands[f"hand{i}"].get_xdata(), hands[f"hand{i}"].get_ydata()
        assert x[1] - x[0] == pytest.approx(np.cos(37 * omega[i]))
        assert y[1] - y[0] == pytest.approx(np.sin(37 * omega[i]))
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == 3 and texts[0] == f"pair 0\nλ = 6.28\n{37 / (2 * np.pi):.2f} turns"
    many = psn.plot_clocks(position=1000, d_model=16, base=1e6)  # eight dials: long wavelengths in short form
    assert [t.get_text().splitlines()[1] for t in many.texts][-2:] == ["λ = 1.99e5", "λ = 1.12e6"]
    slow = psn.plot_clocks(position=3, d_model=8, base=1e4)  # the slowest hand has made 3·0.001/2π turns
    assert slow.texts[3].get_text().endswith("0.00048 turns")


def test_plot_distance_profile_marks_the_closest_pair():
    ax = psn.plot_distance_profile(d_model=4, n_positions=300)
    _labelled(ax)
    curve, _, marker = ax.get_lines()
    _, q, dist = closest_distinct_positions(300, 4)
    assert marker.get_xdata()[0] == q and marker.get_ydata()[0] == pytest.approx(dist)
    assert np.min(curve.get_ydata()) == pytest.approx(dist)


def test_plot_position_matrix_shows_the_matrix():
    mat = np.arange(12.0).reshape(3, 4) - 5
    ax = psn.plot_position_matrix(mat, title="t")
    _labelled(ax)
    np.testing.assert_array_equal(ax.get_images()[0].get_array(), mat)


def test_plot_unseen_rows_zero_inside_training_range():
    ax = psn.plot_unseen_rows(d_model=32, train_len=64, n_positions=200)
    _labelled(ax)
    y = ax.get_lines()[0].get_ydata()
    assert len(y) == 200
    np.testing.assert_allclose(y[:64], 0.0, atol=1e-5)
    assert y[64] == pytest.approx(1.0) and y[150] > 1.0


# ---------------------------------------------------------------------------------------------------------------
# Widget redraws and panels


def _shown(ax):
    """What a redraw shows: the data of every visible line, the title and the legend's texts."""
    data = [np.asarray(line.get_ydata(), dtype=float).copy() for line in ax.get_lines() if line.get_visible()]
    texts = [ax.get_title()] + ([t.get_text() for t in ax.get_legend().get_texts()] if ax.get_legend() else [])
    texts += [t.get_text() for t in ax.texts if t.get_visible()]
    return data, texts


def _differs(before, after):
    (data0, texts0), (data1, texts1) = before, after
    return (
        texts0 != texts1
        or len(data0) != len(data1)
        or any(a.shape != b.shape or not np.allclose(a, b) for a, b in zip(data0, data1, strict=True))
    )


WAVES_MOVES = [{"d_model": 32}, {"base": 100.0}, {"dim_a": 3}, {"dim_b": 7}, {"n_positions": 300}]
CLOCK_MOVES = [{"position": 11}, {"d_model": 10}, {"base": 50.0}]


@pytest.mark.parametrize("change", WAVES_MOVES)
def test_every_waves_control_changes_the_drawn_data(change):
    fig = Figure(figsize=wsn.WAVES_LAYOUT.figsize)  # as the panel does: one figure, redrawn in place
    before = _shown(wsn.draw_waves(**wsn.WAVES_DEFAULTS, fig=fig))
    ax = wsn.draw_waves(**{**wsn.WAVES_DEFAULTS, **change}, fig=fig)
    assert ax.figure is fig and len(fig.axes) == 1
    assert _differs(before, _shown(ax))
    _labelled(ax)


@pytest.mark.parametrize("change", CLOCK_MOVES)
def test_every_clock_control_changes_the_drawn_data(change):
    fig = Figure(figsize=wsn.CLOCK_LAYOUT.figsize)
    before = _shown(wsn.draw_clocks(**wsn.CLOCK_DEFAULTS, fig=fig))
    ax = wsn.draw_clocks(**{**wsn.CLOCK_DEFAULTS, **change}, fig=fig)
    assert ax.figure is fig and len(fig.axes) == 1
    assert _differs(before, _shown(ax))


def test_draw_waves_shows_what_plot_waves_draws():
    ax = wsn.draw_waves(d_model=16, base=100.0, dim_a=5, dim_b=0, n_positions=50)  # a new pyplot figure
    assert ax.figure in map(plt.figure, plt.get_fignums())
    ref = psn.plot_waves(d_model=16, base=100.0, dims=(0, 5), n_positions=50)
    for got, want in zip(_shown(ax)[0], _line_data(ref), strict=True):
        np.testing.assert_array_equal(got, want)
    assert _shown(ax)[1] == _shown(ref)[1]
    assert ax.get_xlim() == pytest.approx(ref.get_xlim()) and ax.get_ylim() == ref.get_ylim()


def test_draw_waves_clamps_dimensions_to_d_model_and_merges_equal_ones():
    fig = Figure()
    ax = wsn.draw_waves(d_model=8, base=1e4, dim_a=0, dim_b=50, n_positions=40, fig=fig)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[1].startswith("dim 7 ")
    ax = wsn.draw_waves(d_model=8, base=1e4, dim_a=7, dim_b=50, n_positions=300, fig=fig)  # one column, no dots
    assert [t.get_text()[:6] for t in ax.get_legend().get_texts()] == ["dim 7 "]
    assert len(_shown(ax)[0]) == 1
    ax = wsn.draw_waves(d_model=8, base=1e4, dim_a=1, dim_b=2, n_positions=40, fig=fig)  # two columns again
    assert len(ax.get_legend().get_texts()) == 2 and len(_shown(ax)[0]) == 4


def test_draw_clocks_shows_what_plot_clocks_draws_and_limits_the_dials():
    fig = Figure()
    for values in [{"position": 1000, "d_model": 16, "base": 1e6}, {"position": 37, "d_model": 6, "base": 100.0}]:
        ax = wsn.draw_clocks(**values, fig=fig)  # 8 dials, then 3 on the same figure
        ref = psn.plot_clocks(**values)
        assert _shown(ax)[1] == _shown(ref)[1]
        for got, want in zip(_shown(ax)[0], _line_data(ref), strict=True):
            np.testing.assert_allclose(got, want)
        # plot_clocks' limits, widened about their centre for equal units on x and y (the panel's box stays put)
        (x0, x1), (y0, y1), (rx0, rx1), (ry0, ry1) = ax.get_xlim(), ax.get_ylim(), ref.get_xlim(), ref.get_ylim()
        assert x0 <= rx0 and x1 >= rx1 and y0 <= ry0 and y1 >= ry1
        assert x0 + x1 == pytest.approx(rx0 + rx1) and y0 + y1 == pytest.approx(ry0 + ry1)
    hands = [line for line in ax.get_lines() if (line.get_gid() or "").startswith("hand") and line.get_visible()]
    assert len(hands) == 3
    with pytest.raises(ValueError, match="dials"):
        wsn.draw_clocks(position=1, d_model=18, base=1e4, fig=Figure())
    with pytest.raises(ValueError, match="this figure shows a ClocksView, not a WavesView"):
        wsn.draw_waves(**wsn.WAVES_DEFAULTS, fig=fig)


PANELS = [  # (panel, draw function, layout, defaults, extreme settings)
    (
        wsn.waves_panel,
        wsn.draw_waves,
        wsn.WAVES_LAYOUT,
        wsn.WAVES_DEFAULTS,
        [
            {"d_model": 128, "base": 1e6, "dim_a": 127, "dim_b": 126, "n_positions": 2000},
            {"d_model": 4, "base": 10.0, "dim_a": 0, "dim_b": 3, "n_positions": 20},
            {"d_model": 100, "base": 10**5.3, "dim_a": 99, "dim_b": 98, "n_positions": 1980},
        ],
    ),
    (
        wsn.clock_panel,
        wsn.draw_clocks,
        wsn.CLOCK_LAYOUT,
        wsn.CLOCK_DEFAULTS,
        [{"position": 1000, "d_model": 16, "base": 1e6}, {"position": 999, "d_model": 2, "base": 10**1.1}],
    ),
]
KEYS = {  # slider description -> keyword of the draw function
    "d_model (dims)": "d_model",
    "base": "base",
    "dimension a (index)": "dim_a",
    "dimension b (index)": "dim_b",
    "positions shown (tokens)": "n_positions",
    "position pos (tokens)": "position",
}


def _png(draw, layout, **values):
    """What a panel shows for ``values`` when drawn on a fresh figure."""
    fig = Figure(figsize=layout.figsize, dpi=C.DPI)
    FigureCanvasAgg(fig)
    draw(**values, fig=fig)
    return fig, C.png_bytes(fig)


@pytest.mark.parametrize(("make_panel", "draw", "layout", "defaults", "extremes"), PANELS)
def test_every_control_changes_the_panel_image_once(make_panel, draw, layout, defaults, extremes, shown):
    controls = panel_controls(make_panel())
    assert len(shown) == 1 and shown[0][:8] == b"\x89PNG\r\n\x1a\n"
    assert shown[0] == _png(draw, layout, **defaults)[1]  # the panel opens at the documented defaults
    assert {KEYS[d] for d in controls} == set(defaults)
    for desc, control in controls.items():
        n_shown = len(shown)
        control.value = control.max if control.value != control.max else control.min
        assert len(shown) == n_shown + 1, f"moving {desc!r} drew {len(shown) - n_shown} times"
        assert shown[-1] != shown[-2], f"moving {desc!r} did not change the picture"
    # after all those in-place updates, the panel shows exactly what a fresh figure shows for the same values
    values = {KEYS[d]: c.value for d, c in controls.items()}
    assert shown[-1] == _png(draw, layout, **values)[1]


def test_waves_panel_dimension_sliders_follow_d_model_with_one_redraw(shown):
    controls = panel_controls(wsn.waves_panel())
    d, a, b = controls["d_model (dims)"], controls["dimension a (index)"], controls["dimension b (index)"]
    b.value = 63
    n = len(shown)
    d.value = 10  # both limits drop to 9 and b is clamped: one redraw, with every new value
    assert (a.max, b.max, a.value, b.value) == (9, 9, 0, 9)
    assert len(shown) == n + 1
    values = {KEYS[k]: c.value for k, c in controls.items()}
    assert values["d_model"] == 10 and shown[-1] == _png(wsn.draw_waves, wsn.WAVES_LAYOUT, **values)[1]
    d.value = 128  # growing: the limits follow, the values stay
    assert (a.max, b.max, b.value) == (127, 127, 9) and len(shown) == n + 2


@pytest.mark.parametrize(("make_panel", "draw", "layout", "defaults", "extremes"), PANELS)
def test_panel_text_stays_inside_the_figure(make_panel, draw, layout, defaults, extremes):
    """Panels are shown at their own size (no tight bounding box): every label must fit the fixed margins."""
    for values in [defaults, *extremes]:
        fig, png = _png(draw, layout, **values)
        width, height = Image.open(io.BytesIO(png)).size
        assert (width, height) == (round(layout.figsize[0] * C.DPI), round(layout.figsize[1] * C.DPI))
        renderer = fig.canvas.get_renderer()
        box = fig.axes[0].get_tightbbox(renderer)
        assert box.x0 >= 0 and box.y0 >= 0, (draw.__name__, values, box)
        assert box.x1 <= fig.bbox.x1 and box.y1 <= fig.bbox.y1, (draw.__name__, values, box)


def test_waves_panel_controls_and_ranges():
    controls = panel_controls(wsn.waves_panel())
    d = controls["d_model (dims)"]
    assert (d.min, d.max, d.step, d.value) == (4, 128, 2, 64)
    base = controls["base"]
    assert isinstance(base, W.FloatLogSlider) and (base.min, base.max, base.value) == (1, 6, 10000.0)
    assert (controls["dimension a (index)"].max, controls["dimension b (index)"].value) == (63, 20)
    assert (controls["positions shown (tokens)"].min, controls["positions shown (tokens)"].max) == (20, 2000)
    assert controls["positions shown (tokens)"].continuous_update and d.continuous_update


def test_clock_panel_controls_and_ranges():
    controls = panel_controls(wsn.clock_panel())
    assert set(controls) == {"position pos (tokens)", "d_model (dims)", "base"}
    pos = controls["position pos (tokens)"]
    assert (pos.min, pos.max, pos.value) == (0, 1000, 10)
    d = controls["d_model (dims)"]
    assert (d.min, d.max, d.step) == (2, 16, 2)
    assert d.max // 2 == wsn.MAX_DIALS
