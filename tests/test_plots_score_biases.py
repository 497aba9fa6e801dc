"""Notebook 06's figures and panels: what they draw, the data behind them, and the panels' in-place redraws."""

import io
import math
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import ipywidgets as W  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from PIL import Image  # noqa: E402

from helpers.plots import score_biases as P  # noqa: E402
from helpers.score_biases import alibi_bias, alibi_effective_window, alibi_slopes, t5_relative_bucket  # noqa: E402
from helpers.widgets import score_biases as WS  # noqa: E402
from helpers.widgets._common import DPI, png_bytes  # noqa: E402
from tests._figure_checks import assert_text_inside  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labelled(ax):
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()


def test_plots_module_does_not_import_torch():
    code = "import sys, helpers.plots.score_biases; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# --------------------------------------------------------------------------- data behind the figures
@pytest.mark.parametrize(("nb", "md", "bi"), [(32, 128, False), (32, 128, True), (8, 20, False), (64, 1024, True)])
def test_bucket_curves_come_from_the_bucket_function(nb, md, bi):
    parts = WS.bucket_curves(nb, md, bi)
    d = torch.arange(P.BUCKET_SPAN)
    kw = {"bidirectional": bi, "num_buckets": nb, "max_distance": md}
    np.testing.assert_array_equal(parts["past"], t5_relative_bucket(-d, **kw).numpy())
    if bi:
        np.testing.assert_array_equal(parts["future"], t5_relative_bucket(d, **kw).numpy())
    else:
        assert parts["future"] is None
    per_dir = nb // 2 if bi else nb
    assert parts["exact"] == per_dir // 2 and parts["max_distance"] == md
    assert parts["legend"][0] == f"key before the query: {len(np.unique(parts['past']))} buckets"


def test_bucket_curves_refuse_what_t5_refuses():
    with pytest.raises(ValueError, match="max_distance must be > the exact range"):
        WS.bucket_curves(64, 16, False)


def test_alibi_parts_lines_and_windows():
    slopes = alibi_slopes(12).numpy()
    parts = P.alibi_parts(slopes, 300, math.log(100))
    np.testing.assert_allclose(parts["windows"], alibi_effective_window(12, math.log(100)).numpy())
    bias = alibi_bias(12, 301, dtype=torch.float64).numpy()  # row 300: distances 300..0
    for h, line in enumerate(parts["penalties"]):
        np.testing.assert_allclose(line, [bias[h, 300, 300], bias[h, 300, 0]])  # d = 0 and d = 300
    assert parts["caption"].startswith(f"{int((parts['windows'] <= 300).sum())} of 12 windows")
    with pytest.raises(ValueError, match="slopes must be 1..64 positive numbers"):
        P.alibi_parts(np.ones(65), 10, 1.0)


# --------------------------------------------------------------------------- static figures
def test_plot_buckets_draws_the_curves_and_bands():
    parts = WS.bucket_curves(32, 128, True)
    ax = P.plot_buckets(parts["distance"], parts["past"], parts["future"], num_buckets=32, exact=8, max_distance=128)
    _labelled(ax)
    visible = [line for line in ax.get_lines() if line.get_visible()]
    assert len(visible) == 2
    np.testing.assert_array_equal(visible[0].get_ydata(), parts["past"])
    np.testing.assert_array_equal(visible[1].get_ydata(), parts["future"])
    assert ax.get_xscale() == "symlog" and len(ax.get_legend().get_texts()) == 2
    far = [p for p in ax.patches if p.get_x() == 128]
    assert len(far) == 1 and far[0].get_width() == pytest.approx(P.BUCKET_SPAN - 1 - 128)


def test_plot_alibi_penalties_follow_the_slopes():
    slopes = alibi_slopes(8).numpy()
    ax_p, ax_w = P.plot_alibi(slopes, 256, 4.6)
    _labelled(ax_p)
    _labelled(ax_w)
    lines = [line for line in ax_p.get_lines() if line.get_visible() and len(line.get_xdata()) == 2]
    lines = [line for line in lines if line.get_xdata()[1] == 256]
    assert len(lines) == 8
    for line, s in zip(lines, slopes, strict=True):
        assert line.get_ydata()[1] == pytest.approx(-s * 256)
    dots = [line for line in ax_w.get_lines() if line.get_marker() == "o"][0]
    np.testing.assert_allclose(dots.get_ydata(), 4.6 / slopes)
    assert ax_w.get_yscale() == "log"


def test_plot_score_decomposition_sums_and_masks():
    rng = np.random.default_rng(0)
    content, bias = rng.normal(size=(6, 6)), alibi_bias(1, 6)[0].numpy()
    axes = P.plot_score_decomposition(content, bias)
    imgs = [ax.get_images()[0].get_array() for ax in axes]
    np.testing.assert_allclose(imgs[0], content)
    np.testing.assert_allclose(imgs[1], bias, rtol=1e-6)
    total = np.asarray(imgs[2].filled(np.nan) if np.ma.isMaskedArray(imgs[2]) else imgs[2])
    assert np.isnan(total[0, 1]) and total[3, 1] == pytest.approx(content[3, 1] + bias[3, 1])
    with pytest.raises(ValueError, match="same shape"):
        P.plot_score_decomposition(content, bias[:5, :5])


def test_plot_bias_matrix_blanks_the_future():
    ax = P.plot_bias_matrix(alibi_bias(2, 5)[1].numpy(), title="head 2")
    arr = ax.get_images()[0].get_array()
    arr = arr.filled(np.nan) if np.ma.isMaskedArray(arr) else arr
    assert np.isnan(arr[0, 4]) and arr[4, 0] == pytest.approx(-4 * alibi_slopes(2)[1].item())


def test_other_figures_are_labelled():
    t = np.arange(10)
    _labelled(P.plot_alibi_slopes(alibi_slopes(12).numpy()))
    _labelled(P.plot_mean_norms(t, 1 / np.sqrt(t + 1), np.full(10, 0.3), 1 / np.sqrt(t + 1)))
    ax = P.plot_probe(t, {"layer 0": t + 0.5}, train_len=8)
    _labelled(ax)
    assert len(ax.get_legend().get_texts()) == 3
    ax = P.plot_family_curves(
        [1, 2],
        {"alibi": [1.0, 1.1], "nope": [1.0, 3.0]},
        spread={"alibi": [[0.9, 1.0], [1.1, 1.2]]},
        xlabel="length (× L)",
        ylabel="loss (nats)",
        title="t",
    )
    _labelled(ax)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["ALiBi", "no encoding (NoPE)"]


# --------------------------------------------------------------------------- panels
def _controls(panel):
    return {w.description: w for row in panel.children if isinstance(row, W.HBox) for w in row.children}


KEYS = {
    "number of buckets": "num_buckets",
    "max_distance (tokens)": "max_distance",
    "bidirectional (encoder)": "bidirectional",
    "heads H": "num_heads",
    "distance shown (tokens)": "distance",
    "threshold (nats)": "threshold",
}

PANELS = [
    (
        WS.bucket_panel,
        WS.draw_buckets,
        WS.BUCKET_LAYOUT,
        WS.BUCKET_DEFAULTS,
        [
            {"num_buckets": 64, "max_distance": 1024, "bidirectional": True},
            {"num_buckets": 4, "max_distance": 4, "bidirectional": False},
            {"num_buckets": 64, "max_distance": 4, "bidirectional": False},  # refused: the message is shown
        ],
    ),
    (
        WS.alibi_panel,
        WS.draw_alibi,
        WS.ALIBI_LAYOUT,
        WS.ALIBI_DEFAULTS,
        [{"num_heads": 64, "distance": 4096, "threshold": 10.0}, {"num_heads": 1, "distance": 16, "threshold": 0.5}],
    ),
]


def _png(draw, layout, **values):
    fig = Figure(figsize=layout.figsize, dpi=DPI)
    FigureCanvasAgg(fig)
    draw(**values, fig=fig)
    return fig, png_bytes(fig, dpi=DPI)


@pytest.mark.parametrize(("make_panel", "draw", "layout", "defaults", "extremes"), PANELS)
def test_every_control_changes_the_panel_image_once(make_panel, draw, layout, defaults, extremes, shown):
    controls = _controls(make_panel())
    assert len(shown) == 1 and shown[0][:8] == b"\x89PNG\r\n\x1a\n"
    assert shown[0] == _png(draw, layout, **defaults)[1]  # the panel opens at the documented defaults
    assert {KEYS[d] for d in controls} == set(defaults)
    for desc, control in controls.items():
        n_shown = len(shown)
        if isinstance(control, W.Checkbox):
            control.value = not control.value
        else:
            control.value = control.max if control.value != control.max else control.min
        assert len(shown) == n_shown + 1, f"moving {desc!r} drew {len(shown) - n_shown} times"
        assert shown[-1] != shown[-2], f"moving {desc!r} did not change the picture"
    values = {KEYS[d]: c.value for d, c in controls.items()}
    assert shown[-1] == _png(draw, layout, **values)[1]  # in-place updates end where a fresh figure starts


@pytest.mark.parametrize(("make_panel", "draw", "layout", "defaults", "extremes"), PANELS)
def test_in_place_redraws_equal_fresh_figures(make_panel, draw, layout, defaults, extremes):
    fig = Figure(figsize=layout.figsize, dpi=DPI)
    FigureCanvasAgg(fig)
    for values in [*extremes, defaults, *extremes[::-1]]:
        draw(**values, fig=fig)
        assert png_bytes(fig, dpi=DPI) == _png(draw, layout, **values)[1], values


@pytest.mark.parametrize(("make_panel", "draw", "layout", "defaults", "extremes"), PANELS)
def test_panel_text_stays_inside_the_figure(make_panel, draw, layout, defaults, extremes):
    for values in [defaults, *extremes]:
        fig, png = _png(draw, layout, **values)
        width, height = Image.open(io.BytesIO(png)).size
        assert (width, height) == (round(layout.figsize[0] * DPI), round(layout.figsize[1] * DPI))
        assert_text_inside(fig, (draw.__name__, values))


def test_refused_bucket_setting_is_explained_in_the_figure():
    ax = WS.draw_buckets(num_buckets=64, max_distance=8, bidirectional=False, fig=Figure())
    texts = [t.get_text() for t in ax.texts if t.get_visible()]
    assert any("max_distance must be > the exact range" in t.replace("\n", " ") for t in texts)
    assert not any(line.get_visible() for line in ax.get_lines())


def test_panel_controls_and_ranges():
    b = _controls(WS.bucket_panel())
    assert (b["number of buckets"].min, b["number of buckets"].max, b["number of buckets"].step) == (4, 64, 2)
    assert (b["max_distance (tokens)"].min, b["max_distance (tokens)"].max) == (4, 1024)
    assert isinstance(b["bidirectional (encoder)"], W.Checkbox)
    a = _controls(WS.alibi_panel())
    assert (a["heads H"].min, a["heads H"].max, a["heads H"].value) == (1, 64, 8)
    assert (a["threshold (nats)"].min, a["threshold (nats)"].max) == (0.5, 10.0)
    with pytest.raises(ValueError, match="not a BucketView"):
        fig = Figure()
        WS.draw_alibi(**WS.ALIBI_DEFAULTS, fig=fig)
        WS.draw_buckets(**WS.BUCKET_DEFAULTS, fig=fig)
