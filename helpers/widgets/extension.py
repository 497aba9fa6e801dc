"""Slider panels for notebook 05 (RoPE length extension).

Each ``draw_*`` is a plain module-level function (the tests call it) that draws one small figure with
:mod:`helpers.plots.extension` and returns it: on a new pyplot figure by default (the notebook's static cells), or on
the ``fig`` it is given. The panels keep one figure and show it as a PNG at its own size
(:func:`helpers.widgets._common.figure_panel`), which skips the inline backend's tight bounding box and the creation
of a new figure on every slider move. Fixed margins (no layout engine re-measuring every label) keep every label
inside the figure, so both routes give the same picture. Only ipywidgets APIs present in both 7.7 (Colab) and 8 are
used.

Redraw cost (kernel CPU time incl. the PNG, Agg, median of 8 redraws, on a shared 2-core machine, so noisy): the
two-panel YaRN and all-methods figures about 95–105 ms (a new pyplot figure with a tight bounding box took about
180–230 ms), the single panels 60–80 ms. What keeps it there: fixed margins and title positions (no layout engine
and no automatic title placement measuring tick labels), about four ticks per axis, no secondary axis, and one
legend per two-panel figure (legends are the costliest artists of a redraw).
"""

from __future__ import annotations

import ipywidgets as W
import matplotlib.pyplot as plt

from helpers import scaling
from helpers.methods import method_info
from helpers.plots import extension as P
from helpers.widgets._common import STYLE, figure_panel, float_slider, int_slider, log_slider

DPI = 100  # the inline backend's resolution, so a panel looks like the static figure next to it

#: Figure size (inches) and fixed margins (left, bottom, right, top, wspace) of each panel's figure.
SINGLE_LAYOUT = ((6.0, 3.2), (0.145, 0.15, 0.97, 0.9, 0.0))
YARN_LAYOUT = ((9.0, 3.4), (0.075, 0.21, 0.985, 0.91, 0.3))
METHODS_LAYOUT = ((9.0, 3.3), (0.075, 0.14, 0.985, 0.91, 0.3))


def _fixed_axes(layout, ncols: int = 1, fig=None):
    """Axes at fixed margins on ``fig`` (or on a new pyplot figure): no layout engine to measure every label."""
    figsize, (left, bottom, right, top, wspace) = layout
    if fig is None:
        fig = plt.figure(figsize=figsize)
    axes = fig.subplots(1, ncols)
    fig.subplots_adjust(left=left, bottom=bottom, right=right, top=top, wspace=wspace)
    return fig, axes


def _title(ax, text: str) -> None:
    """A 9-pt title at a fixed height: an automatic title position measures the axes' tick labels on every draw."""
    ax.set_title(text, fontsize=9, y=1.0, pad=4)


def _into(draw):
    """Adapt ``draw(**values, fig=...)`` to figure_panel's ``draw_into(fig, **values)``."""

    def draw_into(fig, **values):
        draw(**values, fig=fig)

    return draw_into


def _figure_panel(draw, controls, layout, columns: int = 2) -> W.VBox:
    return figure_panel(_into(draw), controls, figsize=layout[0], dpi=DPI, columns=columns)


# --------------------------------------------------------------------------- section 1
def draw_problem(train_len: int = 2048, target_len: int = 8192, base: float = 10000.0, dim: int = 128, *, fig=None):
    """Largest trained angle L·θ_i against the angle needed at L′, per pair (:func:`plots.extension.plot_angle_range`)."""
    fig, ax = _fixed_axes(SINGLE_LAYOUT, fig=fig)
    P.plot_angle_range(dim, base, train_len, target_len, ax=ax)
    _title(ax, ax.get_title())
    return fig


def problem_panel() -> W.VBox:
    """Sliders: training length L, target length L′, base b, head dimension D."""
    controls = {
        "train_len": int_slider("training length L (tokens)", 2048, 128, 8192, 128),
        "target_len": int_slider("target length L′ (tokens)", 8192, 256, 65536, 256),
        "base": log_slider("base b", 10000.0, 2, 7, 0.1),
        "dim": int_slider("head dimension D", 128, 8, 256, 8),
    }
    return _figure_panel(draw_problem, controls, SINGLE_LAYOUT)


# --------------------------------------------------------------------------- section 3
def draw_ntk(factor: float = 4.0, dim: int = 128, base: float = 10000.0, *, fig=None):
    """Per-pair slowdown under PI, NTK-aware and the chapter's b·s (:func:`plots.extension.plot_slowdown`)."""
    fig, ax = _fixed_axes(SINGLE_LAYOUT, fig=fig)
    P.plot_slowdown(dim, base, factor, ax=ax)
    _title(ax, ax.get_title())
    return fig


def ntk_panel() -> W.VBox:
    """Sliders: scale factor s, head dimension D (from 4: NTK needs D ≥ 4)."""
    controls = {
        "factor": float_slider("scale factor s (×)", 4.0, 1.0, 32.0, 0.5, fmt=".1f"),
        "dim": int_slider("head dimension D", 128, 4, 256, 2),
    }
    return _figure_panel(draw_ntk, controls, SINGLE_LAYOUT)


# --------------------------------------------------------------------------- section 5
def draw_yarn(
    factor: float = 8.0,
    train_len: int = 4096,
    beta_fast: float = 32.0,
    dim: int = 128,
    base: float = 10000.0,
    *,
    fig=None,
):
    """Left: YaRN's ramp (code and paper). Right: θ′_i/θ_i for YaRN against PI and NTK-aware at the same s.

    One legend (right) names the curves of both panels; the left title says which ramp is which.
    """
    fig, (ax0, ax1) = _fixed_axes(YARN_LAYOUT, 2, fig=fig)
    # One legend (right) serves both panels: the ramps have the colours of "YaRN" (code) and "YaRN (paper ramp)".
    P.plot_yarn_ramp(dim, base, train_len, beta_fast=beta_fast, beta_slow=1.0, legend=False, ax=ax0)
    _title(ax0, "YaRN's ramp: code (solid, linear in i), paper (dashed, in r)")

    theta = scaling.default_inv_freq(dim, base)[0]  # (D/2,)
    curves = {
        "linear": scaling.linear_inv_freq(dim, base, factor)[0],
        "ntk": scaling.ntk_inv_freq(dim, base, factor)[0],
        "yarn": scaling.yarn_inv_freq(dim, base, factor, train_len, beta_fast=beta_fast)[0],
        "yarn_paper": scaling.yarn_paper_inv_freq(dim, base, factor, train_len, beta=beta_fast)[0],
    }  # {method key: (D/2,)}
    P.plot_frequency_ratios(curves, theta, factor=factor, highlight="yarn", ax=ax1)
    _title(ax1, f"θ′/θ at s = {factor:g}, L = {train_len}, β_fast = {beta_fast:g}")
    return fig


def yarn_panel() -> W.VBox:
    """Sliders: scale factor s, original context L, β_fast (turns above which a pair is left alone).

    Two panels per redraw, so the sliders redraw on release (``heavy``) rather than on every step of a drag.
    """
    controls = {
        "factor": float_slider("scale factor s (×)", 8.0, 1.0, 64.0, 1.0, fmt=".0f", heavy=True),
        "train_len": int_slider("original context L (tokens)", 4096, 512, 32768, 512, heavy=True),
        "beta_fast": float_slider("β_fast (turns)", 32.0, 2.0, 128.0, 2.0, fmt=".0f", heavy=True),
    }
    return _figure_panel(draw_yarn, controls, YARN_LAYOUT)


# --------------------------------------------------------------------------- section 7
#: The methods of section 7, by registry key (labels and colours from :data:`helpers.methods.SCALING_METHODS`).
METHODS_SHOWN = ("default", "linear", "ntk", "ntk_chapter", "yarn", "yarn_paper", "llama3")


def draw_methods(
    factor: float = 4.0,
    highlight: str = "yarn",
    dim: int = 64,
    base: float = 10000.0,
    train_len: int = 1024,
    *,
    fig=None,
):
    """Left: θ′_i/θ_i for every method. Right: score of q = k = 1 against distance up to s·L under each method."""
    fig, (ax0, ax1) = _fixed_axes(METHODS_LAYOUT, 2, fig=fig)
    methods = scaling.extension_frequencies(dim, base, factor, train_len, methods=METHODS_SHOWN)
    theta = methods["default"][0]  # (D/2,)
    P.plot_frequency_ratios(
        {k: v[0] for k, v in methods.items() if k != "default"}, theta, factor=factor, highlight=highlight, ax=ax0
    )
    _title(ax0, f"θ′/θ per pair, s = {factor:g}")
    shown = {k: methods[k] for k in ("default", "linear", "ntk", "yarn")}
    if highlight not in shown:
        shown[highlight] = methods[highlight]
    # One legend (left) names every method; the right panel uses the same colours, so it needs none (legends are
    # the costliest artists of a redraw). Black is plain RoPE, dotted past L.
    P.plot_score_vs_distance(
        shown, train_len, max(int(factor * train_len), 2), highlight=highlight, legend=False, ax=ax1
    )
    _title(ax1, f"Score vs distance, L = {train_len} (black: plain RoPE)")
    return fig


def methods_panel() -> W.VBox:
    """Slider: scale factor s (redraws on release: two panels). Dropdown: the method drawn thick in both panels."""
    controls = {
        "factor": float_slider("scale factor s (×)", 4.0, 1.0, 32.0, 0.5, fmt=".1f", heavy=True),
        "highlight": W.Dropdown(
            options=[(method_info(m).label, m) for m in METHODS_SHOWN if m != "default"],
            value="yarn",
            description="highlight",
            style=STYLE,
        ),
    }
    return _figure_panel(draw_methods, controls, METHODS_LAYOUT)
