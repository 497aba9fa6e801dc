"""Tests for helpers.plots.extension and helpers.widgets.extension (notebook 05, length extension)."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import ipywidgets as W  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from _figure_checks import assert_text_inside

from helpers import rope, scaling  # noqa: E402
from helpers.plots import extension as P  # noqa: E402
from helpers.widgets import extension as WX  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labelled(ax) -> None:
    assert ax.get_xlabel().strip() and ax.get_ylabel().strip()


def _ydata(ax) -> list[np.ndarray]:
    return [np.asarray(line.get_ydata(), dtype=float) for line in ax.get_lines()]


# --------------------------------------------------------------------------- computations
def test_extension_methods_match_scaling():
    m = P.extension_methods(64, 1e4, 4.0, 1024)
    assert list(m) == list(P.METHOD_STYLE)
    theta = scaling.default_inv_freq(64, 1e4)[0]
    np.testing.assert_allclose(m["original"][0], theta)
    np.testing.assert_allclose(m["PI"][0], theta / 4)
    np.testing.assert_allclose(m["NTK-aware"][0], (1e4 * 4 ** (64 / 62)) ** (-np.arange(0, 64, 2) / 64))
    np.testing.assert_allclose(m["dynamic NTK"][0], m["NTK-aware"][0], rtol=1e-12)  # paper scale l/L at l = sL
    assert m["YaRN"][1] == pytest.approx(0.1 * math.log(4) + 1)
    assert m["Llama 3.1"][1] == 1.0
    sub = P.extension_methods(16, 1e4, 2.0, 64, methods=["PI"])
    assert list(sub) == ["PI"]
    with pytest.raises(ValueError, match="methods"):
        P.extension_methods(16, 1e4, 2.0, 64, methods=["bogus"])


def test_out_of_range_pairs_matches_brute_force():
    """Independent check: a pair meets unseen angles iff the angles m·θ mod 2π for m < L leave a gap that
    the angles for L ≤ m < L′ fall into, i.e. iff it did not complete a turn within L."""
    dim, base, length, target = 32, 1e4, 256, 1024
    theta = rope.rope_inv_freq(dim, base)
    brute = np.array([length * t < 2 * np.pi and target * t > length * t for t in theta])
    np.testing.assert_array_equal(P.out_of_range_pairs(dim, base, length, target), brute)
    assert not P.out_of_range_pairs(dim, base, length, length).any()  # nothing new without extension
    assert P.out_of_range_pairs(dim, base, length, target)[-1]  # the slowest pair is always the first to fail


def test_rope_score_curve_matches_rotated_vectors():
    """a²·mean cos(Δθ_i) equals ⟨R_m q, R_n k⟩/D for q = k = 1, computed by rotating with helpers.rope."""
    dim = 16
    inv, a = scaling.yarn_inv_freq(dim, 1e4, 4.0, 64)
    positions = np.arange(40)
    cos, sin = rope.rope_cos_sin(positions, inv, attention_factor=a, dtype=torch.float64)
    ones = torch.ones(len(positions), dim, dtype=torch.float64)
    rot = rope.apply_rope(ones, cos, sin)  # (T, D)
    scores = (rot[-1] @ rot.T).numpy() / dim  # query at 39, keys at 0..39
    distances = positions[-1] - positions
    np.testing.assert_allclose(P.rope_score_curve(inv, distances, a), scores, rtol=1e-10)


def test_toy_attention_entropy_matches_direct_softmax():
    inv = scaling.default_inv_freq(32, 1e4)[0]
    lengths = np.array([1, 7, 100, 333])
    got = P.toy_attention_entropy(inv, lengths, attention_factor=1.2, peak_logit=5.0)
    for n, h in zip(lengths, got, strict=True):
        logits = 5.0 * 1.44 * np.array([np.mean(np.cos(d * inv)) for d in range(n)])
        p = np.exp(logits - logits.max())
        p /= p.sum()
        assert h == pytest.approx(-(p * np.log(p)).sum(), rel=1e-9, abs=1e-12)
    assert got[0] == pytest.approx(0.0, abs=1e-12)  # one key: no uncertainty
    assert np.all(got <= np.log(lengths) + 1e-12)  # never above a uniform row
    with pytest.raises(ValueError, match="lengths"):
        P.toy_attention_entropy(inv, [0])


# --------------------------------------------------------------------------- plots
def test_plot_angle_range_reflects_arguments():
    ax = P.plot_angle_range(64, 1e4, 512, 2048)
    _labelled(ax)
    trained, needed = _ydata(ax)[:2]
    theta = rope.rope_inv_freq(64, 1e4)
    np.testing.assert_allclose(trained, 512 * theta)
    np.testing.assert_allclose(needed, 2048 * theta)
    assert f"{int(P.out_of_range_pairs(64, 1e4, 512, 2048).sum())} of 32" in ax.get_title()
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
    np.testing.assert_allclose(ax.get_lines()[2].get_ydata(), P.rope_score_curve(rope.rope_inv_freq(32, 1e4), x_pi))


def test_plot_slowdown_endpoints():
    ax = P.plot_slowdown(128, 1e4, 4.0)
    _labelled(ax)
    pi, ntk, chapter = _ydata(ax)[:3]
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
    m = P.extension_methods(32, 1e4, 4.0, 256)
    theta = m["original"][0]
    ax = P.plot_frequency_ratios(
        {k: v[0] for k, v in m.items() if k != "original"}, theta, factor=4.0, highlight="YaRN"
    )
    _labelled(ax)
    assert len(ax.get_legend().get_texts()) == len(m) - 1
    ax = P.plot_score_vs_distance({k: m[k] for k in ("original", "PI", "YaRN")}, 256, 1024)
    _labelled(ax)
    assert len(ax.get_lines()) >= 4  # original split at L, PI, YaRN (+ the L marker)
    ax = P.plot_config_wavelengths({"a": (theta, m["PI"][0], 256)})
    _labelled(ax)
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), 2 * np.pi / m["PI"][0])


def test_plot_metric_curves():
    ax = P.plot_metric_curves(
        {"PI": ([64, 128], [1.0, 2.0]), "YaRN fine-tune": ([64, 128], [0.5, 0.6])},
        train_len=64,
        xlabel="length (tokens)",
        ylabel="loss (nats)",
        title="t",
        logy=True,
    )
    _labelled(ax)
    lines = ax.get_lines()
    assert lines[0].get_color() == P.METHOD_STYLE["PI"]["color"] and lines[1].get_linestyle() == "--"
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
        (WX.draw_methods, [{"factor": 8.0}, {"highlight": "PI"}]),
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


def test_still_out_of_range_against_interval_check():
    """Independent check with explicit angle intervals: trained [0, L·θ] (or the whole circle), needed [0, L′·θ′]."""
    dim, base, length, target = 64, 1e4, 512, 2048
    theta = rope.rope_inv_freq(dim, base)
    for name, (inv, _) in P.extension_methods(dim, base, 4.0, length).items():
        expected = []
        for t, t_new in zip(theta, inv, strict=True):
            full_circle = length * t >= 2 * np.pi
            expected.append(not full_circle and target * t_new > length * t * (1 + 1e-12))
        np.testing.assert_array_equal(P.still_out_of_range(theta, inv, length, target), expected, err_msg=name)
    assert not P.still_out_of_range(theta, theta / 4, length, target).any()  # PI: nothing new
    assert (
        P.still_out_of_range(theta, theta, length, target).sum()
        == P.out_of_range_pairs(dim, base, length, target).sum()
    )
    with pytest.raises(ValueError, match="same shape"):
        P.still_out_of_range(theta, theta[:-1], length, target)


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
        {"scale factor s (×)": "factor", "highlight": "highlight"},
        [{"factor": 32.0, "highlight": "Llama 3.1"}, {"factor": 1.0, "highlight": "PI"}],
    ),
]


def _panel_png(draw, layout, **values):
    """What a panel shows: ``draw`` on the panel's reused Figure, rendered at the panel's size and resolution."""
    from matplotlib.figure import Figure

    from helpers.widgets._common import png_bytes

    fig = Figure(figsize=layout[0], dpi=WX.DPI)
    draw(**values, fig=fig)
    return fig, png_bytes(fig, dpi=WX.DPI)


@pytest.mark.parametrize(("make_panel", "draw", "layout", "keywords", "extremes"), PANELS)
def test_every_control_changes_the_panel_image(make_panel, draw, layout, keywords, extremes):
    controls = {c.description: c for c in _controls(make_panel())}
    assert set(controls) == set(keywords)
    defaults = {keywords[d]: c.value for d, c in controls.items()}
    _, base_png = _panel_png(draw, layout, **defaults)
    for desc, c in controls.items():
        if isinstance(c, W.Dropdown):
            moved = next(o for o in c.options if o != c.value)
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

    fig = Figure(figsize=WX.YARN_LAYOUT[0])
    assert WX.draw_yarn(fig=fig) is fig and len(fig.axes) == 2
    fig = Figure(figsize=WX.METHODS_LAYOUT[0])
    assert WX.draw_methods(fig=fig) is fig and len(fig.axes) == 2
    assert WX.draw_problem(fig=Figure()).axes and WX.draw_ntk(fig=Figure()).axes
    # one legend names every method on the left; the right panel reuses its colours
    fig = WX.draw_methods(8.0, "Llama 3.1", fig=Figure(figsize=WX.METHODS_LAYOUT[0]))
    left, right = fig.axes
    assert len(left.get_legend().get_texts()) == len(WX.METHODS_SHOWN) - 1 and right.get_legend() is None
    colours = {line.get_color() for line in right.get_lines()}
    assert P.METHOD_STYLE["Llama 3.1"]["color"] in colours
