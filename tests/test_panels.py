"""Every widget panel of every chapter, through the one panel builder (helpers.widgets._common.panel).

For each panel: it opens showing one PNG of its default values; moving any control redraws exactly once and changes
the picture; after every move the panel shows, pixel for pixel, what a fresh figure fully drawn for the same values
shows (the panel redraws only its moving artists on a cached background, :class:`helpers.widgets._common.Frames`: no
stale pixels may survive); the panels the course drags most do blit; every label stays inside the figure at the
default and at the extreme settings.
"""

from __future__ import annotations

import io

import ipywidgets as W
import numpy as np
import pytest
from _figure_checks import assert_text_inside, moved_value, panel_controls
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from helpers.sinusoidal import sinusoidal_table
from helpers.widgets import _common as C
from helpers.widgets import blindness as WB
from helpers.widgets import extension as WX
from helpers.widgets import lab as WLab
from helpers.widgets import learned as WL
from helpers.widgets import modern as WM
from helpers.widgets import rope as WR
from helpers.widgets import score_biases as WSB
from helpers.widgets import sinusoidal as WS

TABLE = np.random.default_rng(0).normal(scale=0.02, size=(24, 8))  # (max_seq_len, d_model) a learned table
SIN = sinusoidal_table(24, 8)  # (max_seq_len, d_model)

#: (name, make the panel, draw on a fresh figure, {control description: keyword of the draw function}, layout)
PANELS = [
    (
        "01 explorer",
        WB.explorer_panel,
        WB.explorer_figure,
        {"token order": "order", "position info": "position", "causal mask (token t sees tokens ≤ t)": "causal"},
        WB.EXPLORER_LAYOUT,
    ),
    (
        "01 weight scale",
        WB.weight_scale_panel,
        WB.weight_scale_figure,
        {"weight scale s (W = s·randn, no unit)": "weight_scale"},
        WB.SCALE_LAYOUT,
    ),
    (
        "02 waves",
        WS.waves_panel,
        WS.draw_waves,
        {
            "d_model (dims)": "d_model",
            "base": "base",
            "dimension a (index)": "dim_a",
            "dimension b (index)": "dim_b",
            "positions shown (tokens)": "n_positions",
        },
        WS.WAVES_LAYOUT,
    ),
    (
        "02 clocks",
        WS.clock_panel,
        WS.draw_clocks,
        {"position pos (tokens)": "position", "d_model (dims)": "d_model", "base": "base"},
        WS.CLOCK_LAYOUT,
    ),
    (
        "03 gradient",
        WL.gradient_panel,
        WL.draw_row_gradients,
        {"sequence length T (tokens)": "seq_len"},
        WL.GRADIENT_LAYOUT,
    ),
    (
        "03 position",
        lambda: WL.position_panel(TABLE, SIN, train_len=10),
        lambda fig, **v: WL.draw_position(**v, learned=TABLE, sinusoidal=SIN, train_len=10, fig=fig),
        {"position p (tokens)": "position"},
        WL.POSITION_LAYOUT,
    ),
    (
        "04 rotation",
        WR.rotation_panel,
        WR.draw_rotation,
        {"query position m (tokens)": "m", "key position n (tokens)": "n", "θ (rad per position)": "theta"},
        WR.ROTATION_LAYOUT,
    ),
    (
        "04 wavelength",
        WR.wavelength_panel,
        WR.draw_wavelengths,
        {"head dim D (dimensions)": "dim", "base (log scale)": "base"},
        WR.WAVELENGTH_LAYOUT,
    ),
    (
        "04 decay",
        WR.decay_panel,
        WR.draw_decay,
        {"head dim D (dimensions)": "dim", "base (log scale)": "base", "peak of chosen k (positions)": "peak"},
        WR.DECAY_LAYOUT,
    ),
    (
        "05 problem",
        WX.problem_panel,
        WX.draw_problem,
        {
            "training length L (tokens)": "train_len",
            "target length L′ (tokens)": "target_len",
            "base b": "base",
            "head dimension D": "dim",
        },
        WX.SINGLE_LAYOUT,
    ),
    (
        "05 ntk",
        WX.ntk_panel,
        WX.draw_ntk,
        {"scale factor s (×)": "factor", "head dimension D": "dim"},
        WX.SINGLE_LAYOUT,
    ),
    (
        "05 yarn",
        WX.yarn_panel,
        WX.draw_yarn,
        {"scale factor s (×)": "factor", "original context L (tokens)": "train_len", "β_fast (turns)": "beta_fast"},
        WX.YARN_LAYOUT,
    ),
    (
        "05 methods",
        WX.methods_panel,
        WX.draw_methods,
        {"scale factor s (×)": "factor", "method": "highlight"},
        WX.METHODS_LAYOUT,
    ),
    (
        "05 lab run",
        WLab.lab_panel,
        WLab.draw_lab_run,
        {"scale": "scale", "method": "method", "seed": "seed", "length T": "multiple"},
        WLab.LAB_LAYOUT,
    ),
    (
        "06 buckets",
        WSB.bucket_panel,
        WSB.draw_buckets,
        {
            "number of buckets": "num_buckets",
            "max_distance (tokens)": "max_distance",
            "bidirectional (encoder)": "bidirectional",
        },
        WSB.BUCKET_LAYOUT,
    ),
    (
        "06 alibi",
        WSB.alibi_panel,
        WSB.draw_alibi,
        {"heads H": "num_heads", "distance shown (tokens)": "distance", "threshold (nats)": "threshold"},
        WSB.ALIBI_LAYOUT,
    ),
    (
        "08 fraction",
        WM.fraction_panel,
        WM.draw_fraction,
        {"fraction rotated p": "fraction", "base b (log scale)": "base"},
        WM.FRACTION_LAYOUT,
    ),
    (
        "08 bases",
        WM.bases_panel,
        WM.draw_bases,
        {
            "sliding layers' base (log scale)": "local_base",
            "full layers' base (log scale)": "global_base",
            "window W (tokens)": "window",
        },
        WM.BASES_LAYOUT,
    ),
    (
        "08 mrope",
        WM.mrope_panel,
        WM.draw_mrope,
        {"temporal slots t (of 64)": "temporal_slots", "layout": "interleaved"},
        WM.MROPE_LAYOUT,
    ),
    ("08 sink", WM.sink_panel, WM.draw_sink, {"sink logit z": "sink_logit"}, WM.SINK_LAYOUT),
    ("08 attention", WM.attention_panel, WM.draw_attention, {"layer": "layer"}, WM.ATTENTION_LAYOUT),
    (
        "08 loss",
        WM.loss_panel,
        WM.draw_loss,
        {"scaled": "layers", "blocks of 256 positions per point": "smooth", "show": "relative"},
        WM.LOSS_LAYOUT,
    ),
]
IDS = [p[0] for p in PANELS]
#: Panels whose text at the extremes another test file checks already (tests/test_plots_score_biases.py).
TEXT_CHECKED_ELSEWHERE = {"06 buckets", "06 alibi"}
TEXT_PANELS = [p for p in PANELS if p[0] not in TEXT_CHECKED_ELSEWHERE]

#: Panels whose moves must redraw only what moved (issue 36: the sliders learners drag most); the others may redraw
#: the whole figure on some moves (a limit, a tick label or a legend's entries change), never show stale pixels.
MUST_BLIT = {"04 rotation", "04 wavelength", "05 problem", "05 ntk", "05 yarn", "05 methods"}

#: Panels not held to blitting every move (none now: 05b's lab panel, whose axes follow the run's length and scale,
#: draws those axes with every frame instead of redrawing the whole figure).
LIVE_MODEL: set[str] = set()

#: The moves that still redraw the whole figure once every artist has moved (the second round below): the set of
#: artists or the axes' box changes. Every other move of every panel redraws only what moved.
FULL_MOVES = {
    ("02 waves", "dimension a (index)"),  # a = b (both at d_model − 1 here) leaves one curve and one legend entry
    ("02 waves", "dimension b (index)"),
    ("05 problem", "training length L (tokens)"),  # at L = L′ no pair leaves its range: a legend entry goes
    ("06 buckets", "bidirectional (encoder)"),  # the legend gains or loses the second direction's entry
}


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))  # (H, W, 4)


def assert_same_picture(shown_png: bytes, fresh_png: bytes, what: str) -> None:
    a, b = _pixels(shown_png), _pixels(fresh_png)
    assert a.shape == b.shape, f"{what}: size {a.shape} vs a fresh drawing's {b.shape}"
    differ = (a != b).any(axis=-1)  # (H, W)
    if differ.any():
        rows, cols = np.nonzero(differ)
        raise AssertionError(
            f"{what}: {differ.sum()} pixels differ from a fresh full drawing of the same values "
            f"(rows {rows.min()}-{rows.max()}, columns {cols.min()}-{cols.max()}): stale or mis-layered pixels"
        )


def _fresh(draw, layout, values):
    """What a panel shows for ``values`` when drawn on a fresh figure, and that figure."""
    fig = Figure(figsize=layout.figsize, dpi=C.DPI)
    FigureCanvasAgg(fig)
    if getattr(draw, "__name__", "") == "<lambda>":
        draw(fig, **values)
    else:
        draw(**values, fig=fig)
    return fig, C.png_bytes(fig)


@pytest.mark.parametrize(("name", "make", "draw", "keywords", "layout"), PANELS, ids=IDS)
def test_every_control_redraws_once_and_the_panel_equals_a_fresh_draw(name, make, draw, keywords, layout, shown):
    controls = panel_controls(make())
    assert set(controls) == set(keywords), name
    sliders = [d for d, c in controls.items() if isinstance(c, (W.IntSlider, W.FloatSlider, W.FloatLogSlider))]
    assert all(controls[d].continuous_update for d in sliders), f"{name}: a slider that does not follow a drag"
    assert len(shown) == 1 and shown[0][:8] == b"\x89PNG\r\n\x1a\n"  # the panel opens with one picture
    values = {keywords[d]: c.value for d, c in controls.items()}
    assert shown[0] == _fresh(draw, layout, values)[1], f"{name}: the first picture is not a fresh draw"
    frames = list(C._FRAMES.values())[-1]  # the panel's frames (the figure it made last)
    for round_ in range(2):  # twice: the second round updates artists that the first already moved
        for desc, control in controls.items():
            n = len(shown)
            control.value = moved_value(control)
            assert len(shown) == n + 1, f"{name}: moving {desc!r} drew {len(shown) - n} times"
            # (in the second round a move can be a true no-op: θ at m = n = 0 rotates nothing)
            assert round_ or shown[-1] != shown[-2], f"{name}: moving {desc!r} did not change the picture"
            values = {keywords[d]: c.value for d, c in controls.items()}
            kind = frames.last
            assert_same_picture(shown[-1], _fresh(draw, layout, values)[1], f"{name}, {desc!r} moved ({kind} frame)")
            if round_ and (name, desc) not in FULL_MOVES and name not in LIVE_MODEL:
                assert kind == "blit", f"{name}: moving {desc!r} redrew the whole figure ({frames.counts})"
    assert shown[-1] == _fresh(draw, layout, values)[1], f"{name}: after many moves the panel differs from a fresh draw"
    if name in MUST_BLIT:
        assert frames.counts["blit"] >= 1, f"{name}: {frames.counts} (never redrew only what moved)"


@pytest.mark.parametrize(("name", "make", "draw", "keywords", "layout"), TEXT_PANELS, ids=[p[0] for p in TEXT_PANELS])
def test_text_stays_inside_the_figure_at_every_extreme(name, make, draw, keywords, layout):
    controls = panel_controls(make())
    values = {keywords[d]: c.value for d, c in controls.items()}
    fig, png = _fresh(draw, layout, values)
    assert_text_inside(fig, (name, values))
    assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (
        round(layout.figsize[0] * C.DPI),
        round(layout.figsize[1] * C.DPI),
    )
    for desc, control in controls.items():  # each control at its other extreme, the others at their defaults
        fig, _ = _fresh(draw, layout, {**values, keywords[desc]: moved_value(control)})
        assert_text_inside(fig, (name, desc))


def test_a_move_of_yarn_s_keeps_the_ramp_from_the_last_frame(shown):
    """05's YaRN panel: the scale factor changes only the right axes, so the left one (the ramp, its r tick labels and
    markers) is copied from the last frame (helpers.widgets._common.Strips), and the picture is still a fresh draw."""
    controls = panel_controls(WX.yarn_panel())
    frames = list(C._FRAMES.values())[-1]
    view = list(C._VIEWS.values())[-1]
    factor = controls["scale factor s (×)"]
    for value in (5.0, 6.0):
        factor.value = value
        assert frames.kept == {view.axes[0]}, f"s = {value}: kept {frames.kept}"
    values = {"factor": 6.0, "train_len": 2048, "beta_fast": 32.0}
    assert shown[-1] == _fresh(WX.draw_yarn, WX.YARN_LAYOUT, values)[1]
    controls["original context L (tokens)"].value = 4096  # both axes change: nothing kept
    assert frames.kept == set()


def test_the_lab_panel_after_a_run_shows_a_setting_that_cannot_run_as_a_fresh_draw_does(shown):
    """05b: the learned table ends at the tiny scale's 2·L positions, so learned at 4·L cannot run; the panel then shows
    what a fresh figure shows for it (no L mark, no image extent or limits left from the run before)."""
    controls = panel_controls(WLab.lab_panel())
    controls["length T"].value = 4
    controls["method"].value = "sinusoidal"  # a run that works at 4·L
    controls["method"].value = "learned"  # and one that cannot run there
    values = {"scale": "tiny", "method": "learned", "seed": 0, "multiple": 4}
    assert WLab.panel_run("tiny", "learned", 0, 4 * 64)["status"] == "cannot run"
    assert_same_picture(shown[-1], _fresh(WLab.draw_lab_run, WLab.LAB_LAYOUT, values)[1], "05b, learned at 4·L")
