"""Slider panels for notebook 05 (RoPE length extension).

Each ``draw_*`` is a plain module-level function (the tests call it) that draws one small figure with
:mod:`helpers.plots.extension`'s drawings and returns it: on a new pyplot figure by default (the notebook's static
cells), or on the ``fig`` it is given. The panels keep one figure (:func:`helpers.widgets._common.panel`) whose
artists are created once (the ``*View`` classes) and updated in place on every slider move; fixed margins and title
positions keep every label inside the figure, so both routes give the same picture. Methods are named by their
registry keys. Only ipywidgets APIs present in both 7.7 (Colab) and 8 are used.
"""

from __future__ import annotations

import math

import ipywidgets as W
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from helpers import scaling
from helpers.i18n import _, pgettext
from helpers.methods import method_info
from helpers.plots import extension as P
from helpers.plots._style import log_limits, plain_number
from helpers.widgets._common import STYLE, Layout, View, float_slider, int_slider, log_slider, panel, view_on

SINGLE_LAYOUT = Layout((6.0, 3.2), left=0.145, bottom=0.15, right=0.97, top=0.9)
YARN_LAYOUT = Layout((9.0, 3.4), left=0.075, bottom=0.21, right=0.985, top=0.91, ncols=2, wspace=0.3)
METHODS_LAYOUT = Layout((9.0, 3.3), left=0.075, bottom=0.14, right=0.985, top=0.91, ncols=2, wspace=0.3)


def _title(ax, text: str) -> None:
    """A 9-pt title at a fixed height: an automatic title position measures the axes' tick labels on every draw."""
    ax.set_title(text, fontsize=9, y=1.0, pad=4)


# Fixed axes: each panel's limits cover its sliders' whole range, so the axes stay put while a slider moves (and a
# move redraws only the curves and texts, see helpers.widgets._common). The sliders below use these ranges.
DIM_MAX = 256  # head dimension D: every panel's slider ends there
BASE_EXP = (2, 7)  # base b from 10^2 to 10^7
TRAIN_LEN = (128, 8192)  # section 1's L (tokens)
TARGET_LEN = (256, 65536)  # section 1's L′ (tokens)
NTK_FACTOR_MAX = 32.0
YARN_FACTOR_MAX = 64.0
METHODS_FACTOR_MAX = 32.0


def _pair_xlim(dim_max: int = DIM_MAX) -> tuple[float, float]:
    """Pair-index limits for every D up to ``dim_max`` (autoscaling's 5 % margins at D = ``dim_max``)."""
    top = dim_max // 2 - 1
    return -0.05 * top, 1.05 * top


def _angle_ylim() -> tuple[float, float]:
    """Section 1's log limits: every L·θ_i and L′·θ_i over the sliders' ranges (θ_0 = 1; the slowest θ at D_max,
    the largest base) and one turn, 2π."""
    slowest = scaling.default_inv_freq(DIM_MAX, 10.0 ** BASE_EXP[1])[0][-1]
    return log_limits([TRAIN_LEN[0] * slowest, TARGET_LEN[1] * 1.0, 2 * math.pi])


def _slowdown_axis(ax, factor_max: float) -> None:
    """Slowdown 1 … s_max on a log axis with ticks 1, 2, 4, …: every s fits and the axis stays put."""
    ax.set_yscale("log")
    ticks = [2.0**k for k in range(math.ceil(math.log2(factor_max)) + 1)]
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(plain_number))
    ax.set_ylim(1 / 1.15, factor_max * 1.15)


# --------------------------------------------------------------------------- section 1
class ProblemView(View):
    layout = SINGLE_LAYOUT

    def setup(self, ax):
        self.drawing = P.AngleRange(ax)

    def update(self, train_len, target_len, base, dim):
        ax = self.drawing.update(dim, base, train_len, target_len)
        _title(ax, ax.get_title())
        ax.set_xlim(*_pair_xlim())
        ax.set_ylim(*_angle_ylim())
        return self.fig

    def moving_artists(self):
        d = self.drawing
        return [d.trained, d.needed, d.span, self.axes.title]


def draw_problem(train_len: int = 2048, target_len: int = 8192, base: float = 10000.0, dim: int = 128, *, fig=None):
    """Largest trained angle L·θ_i against the angle needed at L′, per pair (:class:`plots.extension.AngleRange`)."""
    return view_on(ProblemView, fig).update(train_len, target_len, base, dim)


def problem_panel() -> W.VBox:
    """Sliders: training length L, target length L′, base b, head dimension D."""
    controls = {
        "train_len": int_slider(_("training length L (tokens)"), 2048, *TRAIN_LEN, 128),
        "target_len": int_slider(_("target length L′ (tokens)"), 8192, *TARGET_LEN, 256),
        "base": log_slider(_("base b"), 10000.0, *BASE_EXP, 0.1),
        "dim": int_slider(_("head dimension D"), 128, 8, DIM_MAX, 8),
    }
    return panel(draw_problem, controls, layout=SINGLE_LAYOUT, columns=2)


# --------------------------------------------------------------------------- section 3
class NtkView(View):
    layout = SINGLE_LAYOUT

    def setup(self, ax):
        self.drawing = P.Slowdown(ax)
        _slowdown_axis(ax, NTK_FACTOR_MAX)

    def update(self, factor, dim, base):
        ax = self.drawing.update(dim, base, factor)
        _title(ax, ax.get_title())
        ax.set_xlim(*_pair_xlim())
        ax.set_ylim(1 / 1.15, NTK_FACTOR_MAX * 1.15)
        return self.fig

    def moving_artists(self):
        return [*self.drawing.lines.values(), self.drawing.factor_line, self.axes.title]


def draw_ntk(factor: float = 4.0, dim: int = 128, base: float = 10000.0, *, fig=None):
    """Per-pair slowdown under PI, NTK-aware and the chapter's b·s (:class:`plots.extension.Slowdown`)."""
    return view_on(NtkView, fig).update(factor, dim, base)


def ntk_panel() -> W.VBox:
    """Sliders: scale factor s, head dimension D (from 4: NTK needs D ≥ 4)."""
    controls = {
        "factor": float_slider(_("scale factor s (×)"), 4.0, 1.0, NTK_FACTOR_MAX, 0.5, fmt=".1f"),
        "dim": int_slider(_("head dimension D"), 128, 4, DIM_MAX, 2),
    }
    return panel(draw_ntk, controls, layout=SINGLE_LAYOUT, columns=2)


# --------------------------------------------------------------------------- section 5
#: The methods of section 5's right panel: the registry's methods shown in panel ``"yarn"`` (β_fast goes to each
#: method with that knob).
YARN_COMPARED = scaling.methods_in("yarn")


class YarnView(View):
    """Left: YaRN's ramp (code and paper). Right: θ′_i/θ_i for YaRN against PI and NTK-aware at the same s.

    One legend (right) names the curves of both panels: the ramps have the colours of ``"yarn"`` (code) and
    ``"yarn_paper"``; the left title says which ramp is which.
    """

    layout = YARN_LAYOUT
    keeps_unchanged_axes = True  # a move of s changes only the right axes: the ramp's is kept from the last frame

    def setup(self, axes):
        self.ramp = P.YarnRamp(axes[0], legend=False)
        _title(axes[0], pgettext("figure", "YaRN's ramp: code (solid, linear in i), paper (dashed, in r)"))
        self.ramp_shown = None  # (D, b, L, β_fast) the ramp shows
        self.ratios = P.FrequencyRatios(axes[1], axis_factor=YARN_FACTOR_MAX)

    def update(self, factor, train_len, beta_fast, dim, base):
        ramp = (dim, base, train_len, beta_fast)
        if ramp != self.ramp_shown:  # s leaves the ramp as it is: its artists stay unchanged
            self.ramp.update(dim, base, train_len, beta_fast=beta_fast, beta_slow=1.0)
            self.ramp_shown = ramp
        theta = scaling.default_inv_freq(dim, base)[0]  # (D/2,)
        freqs = scaling.extension_frequencies(
            dim, base, factor, train_len, methods=YARN_COMPARED, knobs={"beta_fast": beta_fast}
        )
        curves = {k: inv for k, (inv, _) in freqs.items()}  # {method key: (D/2,)}
        ax1 = self.ratios.update(curves, theta, factor=factor, highlight="yarn")
        _title(
            ax1,
            pgettext("figure", "θ′/θ at s = {factor:g}, L = {train_len}, β_fast = {beta_fast:g}").format(
                factor=factor, train_len=train_len, beta_fast=beta_fast
            ),
        )
        return self.fig

    def moving_artists(self):
        ramp, ratios = self.ramp, self.ratios
        texts = [*ramp.texts, *ramp.marks, self.axes[1].title]
        ramp_ticks = self.axes[0].xaxis  # its tick labels show r = L/λ_i: they change with L and D
        return [ramp.code, ramp.paper, ramp_ticks, *texts, *ratios.lines.values(), ratios.factor_line]


def draw_yarn(
    factor: float = 4.0,
    train_len: int = 2048,
    beta_fast: float = 32.0,
    dim: int = 128,
    base: float = 10000.0,
    *,
    fig=None,
):
    """Left: YaRN's ramp (code and paper). Right: θ′_i/θ_i for YaRN against PI and NTK-aware at the same s.
    Defaults: notebook 05's running example (D = 128, b = 10⁴, L = 2048, s = 4)."""
    return view_on(YarnView, fig).update(factor, train_len, beta_fast, dim, base)


def yarn_panel() -> W.VBox:
    """Sliders: scale factor s, original context L, β_fast (turns above which a pair is left alone)."""
    controls = {
        "factor": float_slider(_("scale factor s (×)"), 4.0, 1.0, YARN_FACTOR_MAX, 1.0, fmt=".0f"),
        "train_len": int_slider(_("original context L (tokens)"), 2048, 512, 32768, 512),
        "beta_fast": float_slider(_("β_fast (turns)"), 32.0, 2.0, 128.0, 2.0, fmt=".0f"),
    }
    return panel(draw_yarn, controls, layout=YARN_LAYOUT, columns=2)


# --------------------------------------------------------------------------- section 7
#: The right panel's score axis: every method's score at every s up to the slider's end (measured range -0.34 … 1.76 at
#: D = 128, b = 10⁴, L = 2048, with autoscaling's 5 % margins); tests/test_panels.py checks that the curves fit.
SCORE_YLIM = (-0.45, 1.87)

#: The methods of section 7: the registry's methods shown in panel ``"compare"`` (labels and colours from
#: :data:`helpers.methods.SCALING_METHODS`).
METHODS_SHOWN = scaling.methods_in("compare")


class MethodsView(View):
    """Left: θ′_i/θ_i for every method, the selected one thick. Right: score of q = k = 1 against distance up to s·L
    for the selected method only, against plain RoPE (black, dotted past L): two curves, not seven.

    One legend (left) names every method; the right panel uses the same colours, so it needs none (legends are the
    costliest artists of a redraw). The static overview of all methods side by side is
    :func:`helpers.plots.extension.plot_methods_grid` (small multiples).
    """

    layout = METHODS_LAYOUT

    def setup(self, axes):
        self.ratios = P.FrequencyRatios(axes[0], axis_factor=METHODS_FACTOR_MAX)
        self.scores = P.ScoreVsDistance(axes[1], legend=False)

    def update(self, factor, highlight, dim, base, train_len):
        methods = scaling.extension_frequencies(dim, base, factor, train_len, methods=METHODS_SHOWN)
        theta = methods["default"][0]  # (D/2,)
        curves = {k: v[0] for k, v in methods.items() if k != "default"}
        ax0 = self.ratios.update(curves, theta, factor=factor, highlight=highlight)
        _title(ax0, pgettext("figure", "θ′/θ per pair, s = {factor:g}").format(factor=factor))
        shown = {"default": methods["default"], highlight: methods[highlight]}  # plain RoPE and the selected method
        farthest = int(METHODS_FACTOR_MAX * train_len)  # the axes cover the slider's whole range
        ax1 = self.scores.update(
            shown, train_len, max(int(factor * train_len), 2), highlight=highlight, frame=(farthest, SCORE_YLIM)
        )
        _title(
            ax1,
            pgettext("figure", "{method} vs plain RoPE (black), L = {train_len}").format(
                method=method_info(highlight).label, train_len=train_len
            ),
        )
        return self.fig

    def moving_artists(self):
        lines = [line for lines in self.scores.lines.values() for line in lines]
        axes = self.axes
        return [*self.ratios.lines.values(), self.ratios.factor_line, *lines, axes[0].title, axes[1].title]


def draw_methods(
    factor: float = 4.0,
    highlight: str = "yarn",
    dim: int = 128,
    base: float = 10000.0,
    train_len: int = 2048,
    *,
    fig=None,
):
    """Left: θ′_i/θ_i for every method, ``highlight`` thick. Right: score of q = k = 1 against distance up to s·L for
    ``highlight`` against plain RoPE. Defaults: notebook 05's running example (D = 128, b = 10⁴, L = 2048, s = 4)."""
    return view_on(MethodsView, fig).update(factor, highlight, dim, base, train_len)


def methods_panel() -> W.VBox:
    """Slider: scale factor s. Dropdown: the method drawn thick on the left and alone against plain RoPE on the right."""
    controls = {
        "factor": float_slider(_("scale factor s (×)"), 4.0, 1.0, METHODS_FACTOR_MAX, 0.5, fmt=".1f"),
        "highlight": W.Dropdown(
            options=[(method_info(m).label, m) for m in METHODS_SHOWN if m != "default"],
            value="yarn",
            description=_("method"),
            style=STYLE,
        ),
    }
    return panel(draw_methods, controls, layout=METHODS_LAYOUT, columns=2)
