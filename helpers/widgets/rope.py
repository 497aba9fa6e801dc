"""Slider panels for notebook 04 (RoPE). Each ``draw_*`` is a plain function that the tests call directly.

* :func:`rotation_panel`: one rotary pair as arrows; sliders for positions m, n and the speed θ.
* :func:`wavelength_panel`: wavelength of every pair; sliders for the head dimension D and the base.
* :func:`decay_panel`: "long-range decay" examined; sliders for D, the base and the distance a chosen key peaks at.

Every ``draw_*`` draws on a new pyplot figure by default (the notebook's static cells), or on the ``fig`` it is
given: the panels keep one figure and show it as a PNG at its own size (:func:`helpers.widgets._common.figure_panel`),
which skips the inline backend's tight bounding box and the creation of a new figure on every slider move. Fixed
margins keep every label inside the figure, so both routes give the same picture.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from helpers.plots import rope as plots
from helpers.widgets._common import figure_panel, float_slider, int_slider, log_slider

DPI = 100  # the inline backend's resolution, so a panel looks like the static figure above it

#: Figure size (inches) and fixed margins (left, bottom, right, top) of each panel's figure.
ROTATION_LAYOUT = ((4.6, 4.0), (0.15, 0.12, 0.97, 0.92))
WAVELENGTH_LAYOUT = ((6.0, 3.2), (0.17, 0.14, 0.97, 0.9))
DECAY_LAYOUT = ((6.0, 4.6), (0.13, 0.1, 0.96, 0.93))


def _fixed_axes(layout, nrows=1, fig=None):
    """Axes at fixed margins on ``fig`` (or on a new pyplot figure): no layout engine to measure every label."""
    figsize, (left, bottom, right, top) = layout
    if fig is None:
        fig = plt.figure(figsize=figsize)
    axes = fig.subplots(nrows, 1, sharex=nrows > 1)
    fig.subplots_adjust(left=left, bottom=bottom, right=right, top=top, hspace=0.12)
    return axes


def _into(draw):
    """Adapt ``draw(**values, fig=...)`` to figure_panel's ``draw_into(fig, **values)``."""

    def draw_into(fig, **values):
        draw(**values, fig=fig)

    return draw_into


#: The pair used by the 2-D rotation panel (any two vectors work; these are easy to see).
Q_PAIR = np.array([1.0, 0.3])
K_PAIR = np.array([0.6, 0.8])


def draw_rotation(m: int = 2, n: int = 0, theta: float = 0.5, *, fig=None):
    """Draw q rotated by m·θ and k rotated by n·θ (θ in rad per position); the title shows q_m·k_n."""
    ax = _fixed_axes(ROTATION_LAYOUT, fig=fig)
    return plots.plot_rotation_2d(Q_PAIR, K_PAIR, m, n, theta, ax=ax)


def rotation_panel():
    """Sliders: position m, position n (tokens), θ (rad per position). Move m and n together: the score stays."""
    return figure_panel(
        _into(draw_rotation),
        {
            "m": int_slider("query position m (tokens)", 2, 0, 12),
            "n": int_slider("key position n (tokens)", 0, 0, 12),
            "theta": float_slider("θ (rad per position)", 0.5, 0.05, 1.5, 0.05),
        },
        figsize=ROTATION_LAYOUT[0],
        dpi=DPI,
    )


def draw_wavelengths(dim: int = 128, base: float = 10000.0, *, fig=None):
    """Wavelengths of all D/2 pairs for this base, with base 10,000 dashed for comparison."""
    ax = _fixed_axes(WAVELENGTH_LAYOUT, fig=fig)
    return plots.plot_wavelengths(dim, base, reference_base=10000.0, ax=ax)


def wavelength_panel():
    """Sliders: head dimension D (even, 8 … 256) and base (10² … 10⁷, log scale)."""
    return figure_panel(
        _into(draw_wavelengths),
        {
            "dim": int_slider("head dim D (dimensions)", 128, 8, 256, 8),
            "base": log_slider("base (log scale)", 500000.0, 2, 7, 0.1),
        },
        figsize=WAVELENGTH_LAYOUT[0],
        dpi=DPI,
    )


def draw_decay(dim: int = 128, base: float = 10000.0, peak: int = 300, *, fig=None):
    """RoFormer's bound factor and real score curves (q = k, a key peaking at ``peak``, random q/k)."""
    axes = _fixed_axes(DECAY_LAYOUT, nrows=2, fig=fig)
    return plots.plot_long_range_decay(dim, base, peak, n_samples=64, axes=axes)


def decay_panel():
    """Sliders: head dimension D (8 … 256), base (10² … 10⁷, log scale), the distance a chosen key peaks at.

    Redraws on release (``heavy``): a redraw (drawing the two panels and rendering the PNG) takes about 0.09 s of
    kernel time on an idle core, more when the machine is busy, so intermediate slider values are skipped.
    """
    return figure_panel(
        _into(draw_decay),
        {
            "dim": int_slider("head dim D (dimensions)", 128, 8, 256, 8, heavy=True),
            "base": log_slider("base (log scale)", 10000.0, 2, 7, 0.1, heavy=True),
            "peak": int_slider("peak of chosen k (positions)", 300, 0, 1000, 10, heavy=True),
        },
        figsize=DECAY_LAYOUT[0],
        dpi=DPI,
    )
