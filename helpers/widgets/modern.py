"""Slider panels for notebook 08 (position in 2025–26 models). Each ``draw_*`` is a plain function the tests call.

* :func:`fraction_panel`: the fraction p of a head that rotates, proportional vs partial ``default`` (and the base).
* :func:`bases_panel`: the base of sliding and of full layers, and the window, against what each layer sees.
* :func:`mrope_panel`: M-RoPE's temporal slots and layout (sectioned / interleaved) on an image grid.
* :func:`sink_panel`: the learned sink's logit z and the share of attention it takes from one query's keys.
* :func:`attention_panel`: Gemma 3 270M's attention by distance, one layer at a time (shipped measurements).
* :func:`loss_panel`: Gemma 3 270M's loss by position past its context, RoPE scaled on the global layers only or on
  every layer, with the curves averaged over more or fewer positions (shipped measurements).

Every ``draw_*`` draws on a new pyplot figure by default (the notebook's static cells) or on the ``fig`` it is
given (the panel's one kept figure, :func:`helpers.widgets._common.panel`), through the ``*View`` classes wrapping
:mod:`helpers.plots.modern`'s drawings.
"""

from __future__ import annotations

import functools

import ipywidgets as W
import numpy as np
import torch

from helpers.i18n import _, pgettext
from helpers.plots import modern as modern_plots
from helpers.real import gemma3_tables
from helpers.real.gemma3 import SCALED_LAYERS
from helpers.rope import rope_inv_freq, rope_wavelengths
from helpers.sinks import sink_attention
from helpers.widgets._common import (
    STYLE,
    Layout,
    View,
    dropdown,
    float_slider,
    int_slider,
    log_slider,
    panel,
    view_on,
)

FRACTION_LAYOUT = Layout((6.4, 3.4), left=0.13, bottom=0.14, right=0.97, top=0.9)
BASES_LAYOUT = Layout((6.4, 3.4), left=0.13, bottom=0.14, right=0.97, top=0.9)
MROPE_LAYOUT = Layout(
    (9.0, 3.4), left=0.09, bottom=0.15, right=0.95, top=0.84, ncols=2, wspace=0.25, width_ratios=(1.3, 1.0)
)
SINK_LAYOUT = Layout((6.0, 3.2), left=0.12, bottom=0.15, right=0.97, top=0.9)
ATTENTION_LAYOUT = Layout((6.4, 3.4), left=0.11, bottom=0.3, right=0.97, top=0.9)
LOSS_LAYOUT = Layout((7.0, 3.4), left=0.1, bottom=0.14, right=0.97, top=0.9)

#: The sink panel's query: scores of one query against 16 keys, none of them standing out (seeded, fixed).
SINK_SCORES = np.random.default_rng(0).normal(scale=0.5, size=16)


#: The sliders' ranges (fraction p, the bases as powers of ten, the window W) and the fixed y axes they give: each
#: covers every setting of its panel (as :class:`helpers.plots.modern.RotaryFraction` and ``LayerTypeBases`` set it
#: for one setting: whole decades around every wavelength shown), so the axes stay put while a slider moves.
FRACTION_RANGE = (0.0625, 1.0)
FRACTION_BASE_EXP = (3, 7)
BASES_BASE_EXP = (3, 8)
WINDOW_RANGE = (128, 4096)
SINK_LOGIT_RANGE = (-4.0, 8.0)
FRACTION_YLIM = modern_plots._log_limits(rope_wavelengths(rope_inv_freq(512, 10.0 ** FRACTION_BASE_EXP[1])))
BASES_YLIM = modern_plots._log_limits(
    [*rope_wavelengths(rope_inv_freq(256, 10.0 ** BASES_BASE_EXP[1])), WINDOW_RANGE[0], 32768]
)


class FractionView(View):
    layout = FRACTION_LAYOUT

    def setup(self, ax):
        self.drawing = modern_plots.RotaryFraction(ax)

    def update(self, fraction, base):
        ax = self.drawing.update(512, base, fraction)
        ax.set_ylim(*FRACTION_YLIM)  # over every base and fraction: the wavelengths move, the axis stays
        return ax


class BasesView(View):
    layout = BASES_LAYOUT

    def setup(self, ax):
        self.drawing = modern_plots.LayerTypeBases(ax)

    def update(self, local_base, global_base, window):
        ax = self.drawing.update(256, local_base, global_base, window, 32768)
        ax.set_ylim(*BASES_YLIM)  # over every base and window: the wavelengths move, the axis stays
        return ax


class MropeView(View):
    layout = MROPE_LAYOUT

    def setup(self, axes):
        self.drawing = modern_plots.MropeGrid(axes)

    def update(self, temporal_slots, interleaved):
        return self.drawing.update(temporal_slots, interleaved)


class SinkView(View):
    layout = SINK_LAYOUT

    def setup(self, ax):
        self.drawing = modern_plots.SinkWeights(ax, SINK_SCORES.size)

    def update(self, sink_logit):
        weights, plain = sink_weights(sink_logit)
        ax = self.drawing.update(weights, plain, sink_logit)
        ax.set_ylim(*SINK_YLIM)  # over every z: the bars move, the axis stays
        return ax


def _sink_ylim() -> tuple[float, float]:
    """The sink panel's y range over every z of the slider (as SinkWeights sets it for one z: 1.1 × the tallest bar)."""
    tallest = 0.2
    for z in np.linspace(*SINK_LOGIT_RANGE, 25):  # the slider's steps of 0.5
        w, p = sink_weights(float(z))
        tallest = max(tallest, 1.1 * max(1.0 - w.sum(), p.max(), w.max()))
    return 0.0, float(tallest)


def sink_weights(sink_logit: float) -> tuple[np.ndarray, np.ndarray]:
    """The sink panel's query's weights over its 16 keys with a sink of logit z, and without a sink (softmax).

    Scores s_n = :data:`SINK_SCORES` (set as q·k with k the identity and scale 1); computed by
    :func:`helpers.sinks.sink_attention` in float64. Shapes: two arrays (16,).
    """
    n = SINK_SCORES.size
    q = torch.from_numpy(SINK_SCORES).reshape(1, 1, 1, n)  # (1, 1, 1, n): q·k_n = s_n
    k = torch.eye(n, dtype=torch.float64).reshape(1, 1, n, n)  # (1, 1, n, n)
    _, w = sink_attention(q, k, k, torch.tensor([float(sink_logit)], dtype=torch.float64), scale=1.0)  # (1,1,1,n)
    plain = torch.softmax(torch.from_numpy(SINK_SCORES), dim=-1)  # (n,)
    return w.reshape(n).numpy(), plain.numpy()


def draw_fraction(fraction: float = 0.25, base: float = 1e6, *, fig=None):
    """Wavelengths of a 512-wide head when a fraction p rotates: proportional vs partial ``default``."""
    return view_on(FractionView, fig).update(fraction, base)


def fraction_panel():
    """Sliders: the fraction p rotated (1/16 … 1) and the base (10³ … 10⁷, log scale)."""
    controls = {
        "fraction": float_slider(_("fraction rotated p"), 0.25, *FRACTION_RANGE, 0.0625, fmt=".4g"),
        "base": log_slider(_("base b (log scale)"), 1e6, *FRACTION_BASE_EXP, 0.5),
    }
    return panel(draw_fraction, controls, layout=FRACTION_LAYOUT)


def draw_bases(local_base: float = 1e4, global_base: float = 1e6, window: int = 512, *, fig=None):
    """Gemma 3 270M's two layer types (D = 256, L = 32,768): wavelengths of each base against W and L."""
    return view_on(BasesView, fig).update(local_base, global_base, window)


def bases_panel():
    """Sliders: base of the sliding layers, base of the full layers (10³ … 10⁸, log scale), window W (tokens)."""
    controls = {
        "local_base": log_slider(_("sliding layers' base (log scale)"), 1e4, *BASES_BASE_EXP, 0.5),
        "global_base": log_slider(_("full layers' base (log scale)"), 1e6, *BASES_BASE_EXP, 0.5),
        "window": int_slider(_("window W (tokens)"), 512, *WINDOW_RANGE, 128),
    }
    return panel(draw_bases, controls, layout=BASES_LAYOUT)


def draw_mrope(temporal_slots: int = 16, interleaved: bool = False, *, fig=None):
    """M-RoPE on a 16 × 16 image grid (D = 128, base 1e6): slot axes and the centre query's score drop."""
    return view_on(MropeView, fig).update(temporal_slots, interleaved)


def mrope_panel():
    """Controls: temporal slots t (0 … 64; height and width share the rest) and the layout."""
    controls = {
        "temporal_slots": int_slider(_("temporal slots t (of 64)"), 16, 0, 64, 4),
        "interleaved": dropdown(
            _("layout"), [(_("sectioned (Qwen2/2.5-VL)"), False), (_("interleaved (Qwen3-VL)"), True)], False
        ),
    }
    return panel(draw_mrope, controls, layout=MROPE_LAYOUT)


def draw_sink(sink_logit: float = 2.0, *, fig=None):
    """One query's weights over 16 keys with a learned sink of logit z (gpt-oss), against plain softmax."""
    return view_on(SinkView, fig).update(sink_logit)


def sink_panel():
    """Slider: the sink's logit z (−4 … 8)."""
    controls = {"sink_logit": float_slider(_("sink logit z"), 2.0, *SINK_LOGIT_RANGE, 0.5, fmt=".1f")}
    return panel(draw_sink, controls, layout=SINK_LAYOUT)


# ------------------------------------------------------------------ Gemma 3 270M's shipped measurements
@functools.cache
def shipped_gemma3_results() -> dict:
    """The shipped ``gemma3_results.json`` (read once; the panels' data)."""
    from helpers.real.gemma3_measure import RESULTS_FILE
    from helpers.real.results import load_results

    return load_results(RESULTS_FILE)


#: The attention run the panel draws.
ATTENTION_TOKENS = 4096


def loss_tokens(results: dict) -> int:
    """The longest length of ``results`` with a finished plain-RoPE loss run (the loss panel's length)."""
    runs = gemma3_tables.runs_of(results, "loss", method="default")
    if not runs:
        raise ValueError("the results hold no finished plain-RoPE loss run")
    return max(r["n_tokens"] for r in runs)


SINK_YLIM = _sink_ylim()


class AttentionView(View):
    layout = ATTENTION_LAYOUT

    def setup(self, ax, *, results):
        self.edges, self.layers = gemma3_tables.attention_layers(results, ATTENTION_TOKENS)
        self.drawing = modern_plots.AttentionByDistance(ax, self.edges, results["meta"]["sliding_window"])

    def update(self, layer):
        if isinstance(layer, bool) or not isinstance(layer, int | np.integer) or not 0 <= layer < len(self.layers):
            raise ValueError(f"layer must be an int in 0..{len(self.layers) - 1}, got {layer!r}")
        return self.drawing.update(self.layers[layer], int(layer))


def draw_attention(layer: int = 5, *, results: dict | None = None, fig=None):
    """One layer's attention by distance: Gemma 3 270M on 4,096 tokens of the World English Bible."""
    return view_on(AttentionView, fig, results=results or shipped_gemma3_results()).update(layer)


def attention_panel(results: dict | None = None):
    """Slider: the layer (0 … 17; global layers are 5, 11 and 17)."""
    results = results or shipped_gemma3_results()
    n = len(gemma3_tables.attention_layers(results, ATTENTION_TOKENS)[1])
    controls = {"layer": int_slider(_("layer"), 5, 0, n - 1)}
    return panel(lambda layer, fig: draw_attention(layer, results=results, fig=fig), controls, layout=ATTENTION_LAYOUT)


class LossView(View):
    layout = LOSS_LAYOUT

    def setup(self, ax, *, results):
        self.results = results
        self.n_tokens = loss_tokens(results)
        self.keys = list(gemma3_tables.loss_curves(results, self.n_tokens))
        self.drawing = modern_plots.LossByPosition(
            ax,
            self.keys,
            styles=gemma3_tables.METHOD_STYLES,
            labels=gemma3_tables.METHOD_LABELS,
            context_length=results["meta"]["context_length"],
        )

    def update(self, layers, smooth, relative):
        if layers not in SCALED_LAYERS:
            raise ValueError(f"layers must be one of {list(SCALED_LAYERS)}, got {layers!r}")
        if not isinstance(relative, bool):
            raise ValueError(f"relative must be True or False, got {relative!r}")
        curves = gemma3_tables.loss_curves(self.results, self.n_tokens, smooth=smooth)
        if relative:  # every curve minus plain RoPE's at the same positions: what the text itself adds cancels
            base = curves["default"][1]
            curves = {k: (x, y - base) for k, (x, y) in curves.items()}
        bold = ["default", *(k for k in self.keys if k.endswith("/" + layers))]
        where = (
            pgettext("figure", "the global layers only") if layers == "global" else pgettext("figure", "every layer")
        )
        return self.drawing.update(
            curves,
            bold,
            title=pgettext("figure", "s = 2 on {where}; each point: the mean over {n:,} positions").format(
                where=where, n=smooth * 256
            ),
            ylabel=pgettext("figure", "loss − plain RoPE's (nats per token)")
            if relative
            else pgettext("figure", "loss (nats per token)"),
        )

    def moving_artists(self):
        # both axes fit the curves shown (the smoothing, the bold runs and the difference or the loss itself change
        # them, and the y label): drawn on every frame with the curves, over the cached spines and figure
        d, ax = self.drawing, self.axes
        return [*d.lines.values(), d.context, d.context_text, ax.xaxis, ax.yaxis, ax.title]


def draw_loss(layers: str = "global", smooth: int = 8, relative: bool = True, *, results: dict | None = None, fig=None):
    """Gemma 3 270M's loss by position on the World English Bible past its 32,768-token context; ``relative``:
    each method's loss minus plain RoPE's at the same positions."""
    return view_on(LossView, fig, results=results or shipped_gemma3_results()).update(layers, smooth, relative)


def loss_panel(results: dict | None = None):
    """Controls: which layers the scaled runs change (bold; the others faint), the positions per point, and the
    loss itself or its difference from plain RoPE's."""
    results = results or shipped_gemma3_results()
    controls = {
        "layers": W.ToggleButtons(
            options=[(_("global layers only"), "global"), (_("every layer"), "all")],
            value="global",
            description=_("scaled"),
            style=STYLE,
        ),
        "smooth": int_slider(_("blocks of 256 positions per point"), 8, 1, 32),
        "relative": dropdown(_("show"), [(_("loss − plain RoPE's"), True), (_("loss"), False)], True),
    }
    return panel(
        lambda layers, smooth, relative, fig: draw_loss(layers, smooth, relative, results=results, fig=fig),
        controls,
        layout=LOSS_LAYOUT,
    )
