"""Slider panels for notebook 04 (RoPE). Each ``draw_*`` is a plain function that the tests call directly.

* :func:`rotation_panel`: one rotary pair as arrows; sliders for positions m, n and the speed θ.
* :func:`wavelength_panel`: wavelength of every pair; sliders for the head dimension D and the base.
* :func:`decay_panel`: "long-range decay" examined; sliders for D, the base and the distance a chosen key peaks at.
"""

from __future__ import annotations

import numpy as np

from helpers.plots import rope as plots
from helpers.widgets._common import float_slider, int_slider, log_slider, panel

#: The pair used by the 2-D rotation panel (any two vectors work; these are easy to see).
Q_PAIR = np.array([1.0, 0.3])
K_PAIR = np.array([0.6, 0.8])


def draw_rotation(m: int = 2, n: int = 0, theta: float = 0.5):
    """Draw q rotated by m·θ and k rotated by n·θ (θ in rad per position); the title shows q_m·k_n."""
    return plots.plot_rotation_2d(Q_PAIR, K_PAIR, m, n, theta)


def rotation_panel():
    """Sliders: position m, position n (tokens), θ (rad per position). Move m and n together: the score stays."""
    return panel(
        draw_rotation,
        {
            "m": int_slider("query position m (tokens)", 2, 0, 12),
            "n": int_slider("key position n (tokens)", 0, 0, 12),
            "theta": float_slider("θ (rad per position)", 0.5, 0.05, 1.5, 0.05),
        },
    )


def draw_wavelengths(dim: int = 128, base: float = 10000.0):
    """Wavelengths of all D/2 pairs for this base, with base 10,000 dashed for comparison."""
    return plots.plot_wavelengths(dim, base, reference_base=10000.0)


def wavelength_panel():
    """Sliders: head dimension D (even, 8 … 256) and base (10² … 10⁷, log scale)."""
    return panel(
        draw_wavelengths,
        {
            "dim": int_slider("head dim D (dimensions)", 128, 8, 256, 8),
            "base": log_slider("base (log scale)", 500000.0, 2, 7, 0.1),
        },
    )


def draw_decay(dim: int = 128, base: float = 10000.0, peak: int = 300):
    """RoFormer's bound factor and real score curves (q = k, a key peaking at ``peak``, random q/k)."""
    return plots.plot_long_range_decay(dim, base, peak, n_samples=64)


def decay_panel():
    """Sliders: head dimension D (8 … 256), base (10² … 10⁷, log scale), the distance a chosen key peaks at.

    Redraws on release (``heavy``): two panels and a few thousand points take longer than a tenth of a second.
    """
    return panel(
        draw_decay,
        {
            "dim": int_slider("head dim D (dimensions)", 128, 8, 256, 8, heavy=True),
            "base": log_slider("base (log scale)", 10000.0, 2, 7, 0.1, heavy=True),
            "peak": int_slider("peak of chosen k (positions)", 300, 0, 1000, 10, heavy=True),
        },
    )
