"""Tests for helpers.plots.sinusoidal and helpers.widgets.sinusoidal (notebook 02), Agg backend only."""

import matplotlib

matplotlib.use("Agg")

import ipywidgets as W  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from helpers.plots import sinusoidal as psn  # noqa: E402
from helpers.sinusoidal import closest_distinct_positions, sinusoidal_frequencies, sinusoidal_table  # noqa: E402
from helpers.widgets import sinusoidal as wsn  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labelled(ax):
    assert ax.get_xlabel() and ax.get_title()


def _line_data(ax):
    return [np.asarray(line.get_ydata(), dtype=float).copy() for line in ax.get_lines()]


def _controls(panel):
    """Every control of a panel built by helpers.widgets._common.panel, keyed by description."""
    return {w.description: w for row in panel.children if isinstance(row, W.HBox) for w in row.children}


# ---------------------------------------------------------------------------------------------------------------
# The two computations of the module, against independent ones


def test_sign_changes_matches_a_loop():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(60, 5))
    table[::7, 2] = 0.0  # exact zeros count as positive
    expected = []
    for j in range(table.shape[1]):
        signs = [1 if v >= 0 else -1 for v in table[:, j]]
        expected.append(sum(a != b for a, b in zip(signs[:-1], signs[1:], strict=True)))
    np.testing.assert_array_equal(psn.sign_changes(table), expected)


def test_sign_changes_of_a_sine_is_about_n_over_pi():
    col = np.sin(np.arange(2048.0))[:, None]
    assert abs(2047 / psn.sign_changes(col)[0] - np.pi) < 0.01
    assert psn.sign_changes(np.cos(np.arange(100) * 1e-4)[:, None])[0] == 0


def test_nearest_row_distance_matches_brute_force():
    rng = np.random.default_rng(1)
    rows, ref = rng.normal(size=(30, 6)), rng.normal(size=(17, 6))
    brute = np.array([min(np.linalg.norm(r - q) for q in ref) for r in rows])
    np.testing.assert_allclose(psn.nearest_row_distance(rows, ref), brute, rtol=1e-10)
    np.testing.assert_allclose(psn.nearest_row_distance(ref[:4], ref), 0.0, atol=1e-6)


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
    np.testing.assert_array_equal(measured, psn.sign_changes(sinusoidal_table(500, 32)))
    assert measured[0] > 100 and measured[-1] == 0
    assert np.all(np.abs(measured - expected) <= 2)  # the wave formula predicts the count to within a crossing or two


def test_plot_clocks_hands_point_at_pos_times_omega():
    ax = psn.plot_clocks(position=37, d_model=6, base=100.0)
    assert ax.get_title()
    lines = ax.get_lines()
    assert len(lines) == 4 * 3  # circle, zero tick, trail, hand per pair
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


@pytest.mark.parametrize("change", [{"d_model": 32}, {"base": 100.0}, {"dim_a": 3}, {"dim_b": 7}, {"n_positions": 300}])
def test_every_waves_control_changes_the_figure(change):
    before = _line_data(wsn.draw_waves(**wsn.WAVES_DEFAULTS))
    after_ax = wsn.draw_waves(**{**wsn.WAVES_DEFAULTS, **change})
    after = _line_data(after_ax)
    assert len(before) != len(after) or any(
        a.shape != b.shape or not np.allclose(a, b) for a, b in zip(before, after, strict=True)
    )
    _labelled(after_ax)


def test_draw_waves_clamps_dimensions_to_d_model():
    ax = wsn.draw_waves(d_model=8, base=1e4, dim_a=0, dim_b=50, n_positions=40)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[1].startswith("dim 7 ")


@pytest.mark.parametrize("change", [{"position": 11}, {"d_model": 10}, {"base": 50.0}])
def test_every_clock_control_changes_the_figure(change):
    before = _line_data(wsn.draw_clocks(**wsn.CLOCK_DEFAULTS))
    after = _line_data(wsn.draw_clocks(**{**wsn.CLOCK_DEFAULTS, **change}))
    assert len(before) != len(after) or any(
        a.shape != b.shape or not np.allclose(a, b) for a, b in zip(before, after, strict=True)
    )


def test_waves_panel_controls_and_ranges():
    controls = _controls(wsn.waves_panel())
    d = controls["d_model (dims)"]
    assert (d.min, d.max, d.step, d.value) == (4, 128, 2, 64)
    base = controls["base"]
    assert isinstance(base, W.FloatLogSlider) and (base.min, base.max, base.value) == (1, 6, 10000.0)
    assert (controls["dimension a (index)"].max, controls["dimension b (index)"].value) == (63, 20)
    assert (controls["positions shown (tokens)"].min, controls["positions shown (tokens)"].max) == (20, 2000)
    assert not controls["positions shown (tokens)"].continuous_update and d.continuous_update
    d.value = 10  # the dimension sliders follow d_model, and a value past the end is clamped
    assert controls["dimension b (index)"].max == 9 and controls["dimension b (index)"].value == 9


def test_clock_panel_controls_and_ranges():
    controls = _controls(wsn.clock_panel())
    assert set(controls) == {"position pos (tokens)", "d_model (dims)", "base"}
    pos = controls["position pos (tokens)"]
    assert (pos.min, pos.max, pos.value) == (0, 1000, 10)
    d = controls["d_model (dims)"]
    assert (d.min, d.max, d.step) == (2, 16, 2)
