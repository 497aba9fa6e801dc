"""Tests for helpers.plots.extension and helpers.widgets.extension (notebook 05, length extension)."""

from __future__ import annotations

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
import pytest
from _figure_checks import assert_text_inside

from helpers import rope, scaling
from helpers.methods import method_info, method_style
from helpers.plots import extension as P
from helpers.widgets import extension as WX


def _labelled(ax) -> None:
    assert ax.get_xlabel().strip() and ax.get_ylabel().strip()


def _ydata(ax) -> list[np.ndarray]:
    return [np.asarray(line.get_ydata(), dtype=float) for line in ax.get_lines()]


# --------------------------------------------------------------------------- plots
def test_plot_angle_range_reflects_arguments():
    ax = P.plot_angle_range(64, 1e4, 512, 2048)
    _labelled(ax)
    trained, needed = _ydata(ax)[:2]
    theta = rope.rope_inv_freq(64, 1e4)
    np.testing.assert_allclose(trained, 512 * theta)
    np.testing.assert_allclose(needed, 2048 * theta)
    assert f"{int(scaling.out_of_range_pairs(64, 1e4, 512, 2048).sum())} of 32" in ax.get_title()
    ax2 = P.plot_angle_range(64, 1e4, 512, 8192)
    assert not np.allclose(_ydata(ax2)[1], needed)


def test_plot_step_angles_and_pi_distances():
    ax = P.plot_step_angles(32, 1e4, 4.0)
    _labelled(ax)
    orig, pi = _ydata(ax)
    np.testing.assert_allclose(orig / pi, 4.0)
    ax = P.plot_pi_distances(32, 1e4, 4.0, max_distance=5)
    _labelled(ax)
    x_pi = np.asarray(ax.get_lines()[2].get_xdata())
    np.testing.assert_allclose(x_pi, np.arange(21) / 4)  # 4 PI tokens per trained unit
    np.testing.assert_allclose(ax.get_lines()[2].get_ydata(), rope.rope_score_curve(rope.rope_inv_freq(32, 1e4), x_pi))


def test_plot_slowdown_endpoints():
    ax = P.plot_slowdown(128, 1e4, 4.0)
    _labelled(ax)
    by_label = {line.get_label(): np.asarray(line.get_ydata(), dtype=float) for line in ax.get_lines()}
    pi, ntk, chapter = (by_label[method_info(key).label] for key in ("linear", "ntk", "ntk_chapter"))
    np.testing.assert_allclose(pi, 4.0)
    assert ntk[0] == pytest.approx(1.0) and ntk[-1] == pytest.approx(4.0)
    assert chapter[-1] == pytest.approx(4.0 ** (126 / 128))
    assert "40,890" in ax.get_title()


def test_plot_dynamic_scale():
    ax = P.plot_dynamic_scale(100, factor=2.0, max_len=400)
    _labelled(ax)
    hf, paper = _ydata(ax)[:2]
    assert hf[0] == pytest.approx(1.0) and hf[-1] == pytest.approx(2 * 4 - 1)
    assert paper[-1] == pytest.approx(4.0)


def test_plot_yarn_ramp_and_entropy():
    ax = P.plot_yarn_ramp(128, 1e4, 4096)
    _labelled(ax)
    code, paper = _ydata(ax)[:2]
    np.testing.assert_allclose(code, scaling.yarn_ramp(128, 1e4, 4096, kind="code"))
    np.testing.assert_allclose(paper, scaling.yarn_ramp(128, 1e4, 4096, kind="paper"))
    ax = P.plot_yarn_entropy(32, 1e4, 64, 4.0)
    _labelled(ax)
    assert len(ax.get_lines()) >= 4


def test_plot_frequency_ratios_score_and_configs():
    m = scaling.extension_frequencies(32, 1e4, 4.0, 256)
    theta = m["default"][0]
    ax = P.plot_frequency_ratios({k: v[0] for k, v in m.items() if k != "default"}, theta, factor=4.0, highlight="yarn")
    _labelled(ax)
    # every method drawn with its label, colour and line style from helpers.methods
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [method_info(k).label for k in m if k != "default"]
    by_label = {line.get_label(): line for line in ax.get_lines()}
    for key in [k for k in m if k != "default"]:
        line = by_label[method_info(key).label]
        assert line.get_color() == method_info(key).color and line.get_linestyle() == method_info(key).linestyle
    with pytest.raises(ValueError, match="unknown method 'PI'"):
        P.plot_frequency_ratios({"PI": theta / 4}, theta)
    ax = P.plot_score_vs_distance({k: m[k] for k in ("default", "linear", "yarn")}, 256, 1024)
    _labelled(ax)
    assert len(ax.get_lines()) >= 4  # plain RoPE split at L, PI, YaRN (+ the L marker)
    by_label = {line.get_label(): line for line in ax.get_lines()}
    assert (
        by_label["plain RoPE (Δ ≤ L)"].get_linestyle() == "-" and by_label["plain RoPE (Δ > L)"].get_linestyle() == ":"
    )
    assert np.all(by_label["plain RoPE (Δ > L)"].get_xdata() > 256)  # dotted past L
    ax = P.plot_config_wavelengths({"a": (theta, m["linear"][0], 256)})
    _labelled(ax)
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), 2 * np.pi / m["linear"][0])


def test_plot_methods_grid_is_small_multiples_with_two_curves_each():
    axes = P.plot_methods_grid(128, 1e4, 2048, 4.0)
    assert axes.shape == (2, len(P.GRID_METHODS))
    theta = rope.rope_inv_freq(128, 1e4)
    m = scaling.extension_frequencies(128, 1e4, 4.0, 2048)
    for col, key in enumerate(P.GRID_METHODS):
        top, bottom = axes[:, col]
        drawn = [line for line in top.get_lines() if line.get_color() == method_info(key).color]
        assert len(drawn) == 1  # one method per axes (plus the grey 1 and 1/s levels)
        np.testing.assert_allclose(drawn[0].get_ydata(), m[key][0] / theta)
        assert method_info(key).label in top.get_title()
        still = int(scaling.still_out_of_range(theta, m[key][0], 2048, 8192).sum())
        assert f"{still} of 23 shaded pairs" in top.get_title()
        coloured = {line.get_color() for line in bottom.get_lines()} - {"grey"}
        assert coloured == {"black", method_info(key).color}  # plain RoPE and the method, nothing else
        assert top.get_xlabel() and bottom.get_xlabel()  # y labels: first column only (rows share their y axis)
    _labelled(axes[0, 0])
    _labelled(axes[1, 0])
    col = {key: i for i, key in enumerate(P.GRID_METHODS)}
    assert "0 of 23" in axes[0, col["linear"]].get_title() and "22 of 23" in axes[0, col["ntk"]].get_title()
    with pytest.raises(ValueError, match="unknown method 'PI'"):
        P.plot_methods_grid(methods=["PI"])
    with pytest.raises(ValueError, match="axes must have shape"):
        P.plot_methods_grid(axes=np.empty((1, 4), dtype=object))
    plt.close("all")


def test_plot_metric_curves():
    pi_style = method_style("linear")
    ax = P.plot_metric_curves(
        {"PI": ([64, 128], [1.0, 2.0]), "YaRN fine-tune": ([64, 128], [0.5, 0.6])},
        styles={"PI": pi_style, "YaRN fine-tune": {"color": "tab:purple", "ls": "--"}},
        train_len=64,
        xlabel="length (tokens)",
        ylabel="loss (nats)",
        title="t",
        logy=True,
    )
    _labelled(ax)
    lines = ax.get_lines()
    assert lines[0].get_color() == pi_style["color"] and lines[1].get_linestyle() == "--"
    assert [line.get_label() for line in lines[:2]] == ["PI", "YaRN fine-tune"]
    assert ax.get_yscale() == "log"


# --------------------------------------------------------------------------- widgets
def _controls(panel: W.VBox) -> list[W.Widget]:
    return [c for row in panel.children[:-1] for c in row.children]


@pytest.mark.parametrize(
    ("make", "draw", "ranges"),
    [
        (
            WX.problem_panel,
            WX.draw_problem,
            {
                "training length L (tokens)": (128, 8192),
                "target length L′ (tokens)": (256, 65536),
                "head dimension D": (8, 256),
            },
        ),
        (WX.ntk_panel, WX.draw_ntk, {"scale factor s (×)": (1.0, 32.0), "head dimension D": (4, 256)}),
        (WX.yarn_panel, WX.draw_yarn, {"scale factor s (×)": (1.0, 64.0), "original context L (tokens)": (512, 32768)}),
        (WX.methods_panel, WX.draw_methods, {"scale factor s (×)": (1.0, 32.0)}),
    ],
)
def test_panels_build_with_documented_ranges(make, draw, ranges):
    panel = make()
    assert isinstance(panel, W.VBox) and isinstance(panel.children[-1], W.Output)
    by_name = {c.description: c for c in _controls(panel)}
    for name, (lo, hi) in ranges.items():
        assert (by_name[name].min, by_name[name].max) == (lo, hi)
    fig = draw()
    assert fig.axes and all(ax.get_xlabel() for ax in fig.axes)
    plt.close("all")


def _all_y(fig) -> list[np.ndarray]:
    return [y for ax in fig.axes for y in _ydata(ax)]


def _differs(fig_a, fig_b) -> bool:
    a, b = _all_y(fig_a), _all_y(fig_b)
    titles_a = [ax.get_title() for ax in fig_a.axes]
    titles_b = [ax.get_title() for ax in fig_b.axes]
    if len(a) != len(b) or titles_a != titles_b:
        return True
    return any(x.shape != y.shape or not np.allclose(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(
    ("draw", "changes"),
    [
        (WX.draw_problem, [{"train_len": 1024}, {"target_len": 16384}, {"base": 1e5}, {"dim": 64}]),
        (WX.draw_ntk, [{"factor": 8.0}, {"dim": 8}]),
        (WX.draw_yarn, [{"factor": 16.0}, {"train_len": 16384}, {"beta_fast": 64.0}]),
        (WX.draw_methods, [{"factor": 8.0}, {"highlight": "linear"}]),
    ],
)
def test_every_control_changes_the_figure(draw, changes):
    base_fig = draw()
    for change in changes:
        fig = draw(**change)
        assert _differs(base_fig, fig) or _linewidths(base_fig) != _linewidths(fig), change
        plt.close(fig)


def _linewidths(fig) -> list[float]:
    return [line.get_linewidth() for ax in fig.axes for line in ax.get_lines()]


# --------------------------------------------------------------------------- panels as shown (figure_panel)
PANELS = [  # (panel, draw function, figure layout, {slider description: keyword}, extreme settings)
    (
        WX.problem_panel,
        WX.draw_problem,
        WX.SINGLE_LAYOUT,
        {
            "training length L (tokens)": "train_len",
            "target length L′ (tokens)": "target_len",
            "base b": "base",
            "head dimension D": "dim",
        },
        [{"train_len": 8192, "target_len": 256, "base": 1e7, "dim": 256}, {"train_len": 128, "target_len": 65536}],
    ),
    (
        WX.ntk_panel,
        WX.draw_ntk,
        WX.SINGLE_LAYOUT,
        {"scale factor s (×)": "factor", "head dimension D": "dim"},
        [{"factor": 32.0, "dim": 4}, {"factor": 1.0, "dim": 256}],
    ),
    (
        WX.yarn_panel,
        WX.draw_yarn,
        WX.YARN_LAYOUT,
        {"scale factor s (×)": "factor", "original context L (tokens)": "train_len", "β_fast (turns)": "beta_fast"},
        [{"factor": 64.0, "train_len": 32768, "beta_fast": 128.0}, {"factor": 1.0, "train_len": 512, "beta_fast": 2.0}],
    ),
    (
        WX.methods_panel,
        WX.draw_methods,
        WX.METHODS_LAYOUT,
        {"scale factor s (×)": "factor", "method": "highlight"},
        [{"factor": 32.0, "highlight": "llama3"}, {"factor": 1.0, "highlight": "linear"}],
    ),
]


def _panel_png(draw, layout, **values):
    """What a panel shows: ``draw`` on the panel's reused Figure, rendered at the panel's size and resolution."""
    from matplotlib.figure import Figure

    from helpers.widgets._common import DPI, png_bytes

    fig = Figure(figsize=layout.figsize, dpi=DPI)
    draw(**values, fig=fig)
    return fig, png_bytes(fig)


@pytest.mark.parametrize(("make_panel", "draw", "layout", "keywords", "extremes"), PANELS)
def test_every_control_changes_the_panel_image(make_panel, draw, layout, keywords, extremes):
    controls = {c.description: c for c in _controls(make_panel())}
    assert set(controls) == set(keywords)
    defaults = {keywords[d]: c.value for d, c in controls.items()}
    _, base_png = _panel_png(draw, layout, **defaults)
    for desc, c in controls.items():
        if isinstance(c, W.Dropdown):
            moved = next(value for _, value in c.options if value != c.value)  # options are (label, key)
        else:
            moved = c.max if c.value != c.max else c.min
        _, png = _panel_png(draw, layout, **{**defaults, keywords[desc]: moved})
        assert png != base_png, f"moving {desc!r} to {moved} did not change the picture"


@pytest.mark.parametrize(("make_panel", "draw", "layout", "keywords", "extremes"), PANELS)
def test_panel_text_stays_inside_the_figure(make_panel, draw, layout, keywords, extremes):
    """Panels are shown at their own size (no tight bounding box): labels must fit the fixed margins."""
    for values in [{}, *extremes]:
        fig, _ = _panel_png(draw, layout, **values)
        assert_text_inside(fig, (draw.__name__, values))


def test_draw_functions_draw_on_the_figure_they_are_given():
    from matplotlib.figure import Figure

    fig = Figure(figsize=WX.YARN_LAYOUT.figsize)
    assert WX.draw_yarn(fig=fig) is fig and len(fig.axes) == 2
    fig = Figure(figsize=WX.METHODS_LAYOUT.figsize)
    assert WX.draw_methods(fig=fig) is fig and len(fig.axes) == 2
    assert WX.draw_problem(fig=Figure()).axes and WX.draw_ntk(fig=Figure()).axes
    # one legend names every method on the left; the right panel reuses its colours
    fig = WX.draw_methods(factor=8.0, highlight="llama3", fig=Figure(figsize=WX.METHODS_LAYOUT.figsize))
    left, right = fig.axes
    assert len(left.get_legend().get_texts()) == len(WX.METHODS_SHOWN) - 1 and right.get_legend() is None
    colours = {line.get_color() for line in right.get_lines()}
    assert method_info("llama3").color in colours
