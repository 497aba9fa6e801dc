"""Slider panels for notebook 05 (RoPE length extension).

Each panel is built from :mod:`helpers.widgets._common`; its redraw function (``draw_*``) is a plain module-level
function that draws one small figure with :mod:`helpers.plots.extension` and returns it, so tests can call it
without a browser. Only ipywidgets APIs present in both 7.7 (Colab) and 8 are used.
"""

from __future__ import annotations

import ipywidgets as W
import matplotlib.pyplot as plt

from helpers import scaling
from helpers.plots import extension as P
from helpers.widgets._common import STYLE, float_slider, int_slider, log_slider, panel

_FIG = (6.0, 3.2)
_FIG_WIDE = (9.0, 3.3)


def _fig(size=_FIG, ncols: int = 1):
    """A small figure with fixed margins: constrained layout would re-measure every tick label on each redraw
    (about half of the redraw time), and the panels' labels do not change size much."""
    fig, axes = plt.subplots(1, ncols, figsize=size)
    fig.subplots_adjust(left=0.11 if ncols == 1 else 0.08, right=0.98, bottom=0.15, top=0.86, wspace=0.28)
    return fig, axes


# --------------------------------------------------------------------------- section 1
def draw_problem(train_len: int = 2048, target_len: int = 8192, base: float = 10000.0, dim: int = 128):
    """Largest trained angle L·θ_i against the angle needed at L′, per pair (:func:`plots.extension.plot_angle_range`)."""
    fig, ax = _fig()
    P.plot_angle_range(dim, base, train_len, target_len, ax=ax)
    return fig


def problem_panel() -> W.VBox:
    """Sliders: training length L, target length L′, base b, head dimension D."""
    controls = {
        "train_len": int_slider("training length L (tokens)", 2048, 128, 8192, 128),
        "target_len": int_slider("target length L′ (tokens)", 8192, 256, 65536, 256),
        "base": log_slider("base b", 10000.0, 2, 7, 0.1),
        "dim": int_slider("head dimension D", 128, 8, 256, 8),
    }
    return panel(draw_problem, controls, columns=2)


# --------------------------------------------------------------------------- section 3
def draw_ntk(factor: float = 4.0, dim: int = 128, base: float = 10000.0):
    """Per-pair slowdown under PI, NTK-aware and the chapter's b·s (:func:`plots.extension.plot_slowdown`)."""
    fig, ax = _fig()
    P.plot_slowdown(dim, base, factor, ax=ax)
    return fig


def ntk_panel() -> W.VBox:
    """Sliders: scale factor s, head dimension D (from 4: NTK needs D ≥ 4)."""
    controls = {
        "factor": float_slider("scale factor s (×)", 4.0, 1.0, 32.0, 0.5, fmt=".1f"),
        "dim": int_slider("head dimension D", 128, 4, 256, 2),
    }
    return panel(draw_ntk, controls, columns=2)


# --------------------------------------------------------------------------- section 5
def draw_yarn(
    factor: float = 8.0, train_len: int = 4096, beta_fast: float = 32.0, dim: int = 128, base: float = 10000.0
):
    """Left: YaRN's ramp (code and paper). Right: θ′_i/θ_i for YaRN against PI and NTK-aware at the same s."""
    fig, (ax0, ax1) = _fig(_FIG_WIDE, 2)
    P.plot_yarn_ramp(dim, base, train_len, beta_fast=beta_fast, beta_slow=1.0, ax=ax0)
    ax0.set_title(f"Ramp, L = {train_len}, β_fast = {beta_fast:g}", fontsize=9)

    theta = scaling.default_inv_freq(dim, base)[0]
    curves = {
        "PI": scaling.linear_inv_freq(dim, base, factor)[0],
        "NTK-aware": scaling.ntk_inv_freq(dim, base, factor)[0],
        "YaRN": scaling.yarn_inv_freq(dim, base, factor, train_len, beta_fast=beta_fast)[0],
        "YaRN (paper ramp)": scaling.yarn_paper_inv_freq(dim, base, factor, train_len, beta=beta_fast)[0],
    }
    P.plot_frequency_ratios(curves, theta, factor=factor, highlight="YaRN", ax=ax1)
    ax1.set_title(f"θ′/θ at s = {factor:g}", fontsize=9)
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
    return panel(draw_yarn, controls, columns=2)


# --------------------------------------------------------------------------- section 7
METHODS_SHOWN = ("original", "PI", "NTK-aware", "chapter's NTK (b·s)", "YaRN", "YaRN (paper ramp)", "Llama 3.1")


def draw_methods(
    factor: float = 4.0, highlight: str = "YaRN", dim: int = 64, base: float = 10000.0, train_len: int = 1024
):
    """Left: θ′_i/θ_i for every method. Right: score of q = k = 1 against distance up to s·L under each method."""
    fig, (ax0, ax1) = _fig(_FIG_WIDE, 2)
    methods = P.extension_methods(dim, base, factor, train_len, methods=METHODS_SHOWN)
    theta = methods["original"][0]
    P.plot_frequency_ratios(
        {k: v[0] for k, v in methods.items() if k != "original"}, theta, factor=factor, highlight=highlight, ax=ax0
    )
    ax0.set_title(f"θ′/θ per pair, s = {factor:g}", fontsize=9)
    shown = {k: methods[k] for k in ("original", "PI", "NTK-aware", "YaRN") if k in methods}
    if highlight not in shown:
        shown[highlight] = methods[highlight]
    P.plot_score_vs_distance(shown, train_len, max(int(factor * train_len), 2), highlight=highlight, ax=ax1)
    ax1.set_title(f"Score vs distance, L = {train_len}, D = {dim}", fontsize=9)
    return fig


def methods_panel() -> W.VBox:
    """Slider: scale factor s (redraws on release: two panels). Dropdown: the method drawn thick in both panels."""
    controls = {
        "factor": float_slider("scale factor s (×)", 4.0, 1.0, 32.0, 0.5, fmt=".1f", heavy=True),
        "highlight": W.Dropdown(
            options=[m for m in METHODS_SHOWN if m != "original"], value="YaRN", description="highlight", style=STYLE
        ),
    }
    return panel(draw_methods, controls, columns=2)
