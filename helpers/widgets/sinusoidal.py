"""Slider panels for notebook 02 (sinusoidal position encoding).

* :func:`waves_panel`: chosen columns of the table against position (d_model, base, two dimensions, range).
* :func:`clock_panel`: the clock analogy, one dial per pair whose hand turns by ω_i per position.

The redraw functions :func:`draw_waves` and :func:`draw_clocks` are plain functions (tests call them with Agg).
"""

from __future__ import annotations

import ipywidgets as W
import matplotlib.pyplot as plt

from helpers.plots.sinusoidal import plot_clocks, plot_waves
from helpers.widgets._common import int_slider, log_slider, panel

WAVES_DEFAULTS = {"d_model": 64, "base": 10000.0, "dim_a": 0, "dim_b": 20, "n_positions": 100}
CLOCK_DEFAULTS = {"position": 10, "d_model": 8, "base": 10000.0}


def _fixed_axes(figsize, left, bottom, right, top):
    """A figure with fixed margins: unlike constrained layout it needs no text measuring, so a redraw is faster."""
    fig, ax = plt.subplots(figsize=figsize)
    fig.subplots_adjust(left=left, bottom=bottom, right=right, top=top)
    return ax


def draw_waves(d_model: int, base: float, dim_a: int, dim_b: int, n_positions: int):
    """Redraw of :func:`waves_panel`: columns ``dim_a`` and ``dim_b`` (clamped to d_model − 1) against position."""
    dims = sorted({min(dim_a, d_model - 1), min(dim_b, d_model - 1)})
    ax = _fixed_axes((6.0, 3.2), 0.11, 0.14, 0.98, 0.91)
    return plot_waves(d_model=d_model, base=base, dims=dims, n_positions=n_positions, ax=ax)


def waves_panel() -> W.VBox:
    """d_model (4..128), base (10..10^6, log), two dimensions (0..d_model−1) and the positions shown (20..2000)."""
    d = WAVES_DEFAULTS
    controls = {
        "d_model": int_slider("d_model (dims)", d["d_model"], 4, 128, 2),
        "base": log_slider("base", d["base"], 1, 6, 0.1),
        "dim_a": int_slider("dimension a (index)", d["dim_a"], 0, d["d_model"] - 1),
        "dim_b": int_slider("dimension b (index)", d["dim_b"], 0, d["d_model"] - 1),
        # Long ranges draw up to 2000-point waves (~0.1 s with the PNG): redraw when the slider is released.
        "n_positions": int_slider("positions shown (tokens)", d["n_positions"], 20, 2000, 20, heavy=True),
    }

    def _limit_dims(change):
        # The dimension sliders can only pick existing columns; ipywidgets clamps a value above the new max.
        for key in ("dim_a", "dim_b"):
            controls[key].max = change["new"] - 1

    controls["d_model"].observe(_limit_dims, names="value")
    return panel(draw_waves, controls, columns=2)


def draw_clocks(position: int, d_model: int, base: float):
    """Redraw of :func:`clock_panel`: one dial per pair at ``position``."""
    ax = _fixed_axes((6.4, 2.2), 0.01, 0.1, 0.99, 0.88)
    return plot_clocks(position=position, d_model=d_model, base=base, ax=ax)


def clock_panel() -> W.VBox:
    """position (0..1000 tokens), d_model (2..16, so 1..8 dials) and base (10..10^6, log)."""
    d = CLOCK_DEFAULTS
    controls = {
        "position": int_slider("position pos (tokens)", d["position"], 0, 1000),
        "d_model": int_slider("d_model (dims)", d["d_model"], 2, 16, 2),
        "base": log_slider("base", d["base"], 1, 6, 0.1),
    }
    return panel(draw_clocks, controls)
