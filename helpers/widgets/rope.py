"""Slider panels for notebook 04 (RoPE). Each ``draw_*`` is a plain function that the tests call directly.

* :func:`rotation_panel`: one rotary pair as arrows; sliders for positions m, n and the speed θ.
* :func:`wavelength_panel`: wavelength of every pair; sliders for the head dimension D and the base.
* :func:`decay_panel`: "long-range decay" examined; sliders for D, the base and the distance a chosen key peaks at.

Every ``draw_*`` draws on a new pyplot figure by default (the notebook's static cells), or on the ``fig`` it is
given: the panels keep one figure (:func:`helpers.widgets._common.panel`) whose artists are created once (the
``*View`` classes, wrapping :mod:`helpers.plots.rope`'s drawings) and updated in place on every slider move. Fixed
margins keep every label inside the figure, so both routes give the same picture.
"""

from __future__ import annotations

import numpy as np

from helpers.i18n import _
from helpers.plots import rope as rope_plots
from helpers.plots._style import log_limits
from helpers.rope import rope_inv_freq, rope_wavelengths
from helpers.widgets._common import Layout, View, float_slider, int_slider, log_slider, panel, view_on

ROTATION_LAYOUT = Layout((4.6, 4.0), left=0.15, bottom=0.12, right=0.97, top=0.92)
WAVELENGTH_LAYOUT = Layout((6.0, 3.2), left=0.17, bottom=0.14, right=0.97, top=0.9)
DECAY_LAYOUT = Layout((6.0, 4.6), left=0.13, bottom=0.1, right=0.96, top=0.93, nrows=2, hspace=0.12, sharex=True)

#: The wavelength panel's sliders (head dimension D, base b = 10^exponent) and its fixed axes, which cover every
#: setting (pair index up to D_max/2 − 1; wavelengths from 2π up to the slowest pair's at D_max and the largest base),
#: so the axes stay put while a slider moves.
WAVELENGTH_DIM = (8, 256)
WAVELENGTH_BASE_EXP = (2, 7)
WAVELENGTH_XLIM = (-0.05 * (WAVELENGTH_DIM[1] // 2 - 1), 1.05 * (WAVELENGTH_DIM[1] // 2 - 1))
WAVELENGTH_YLIM = log_limits(
    [2 * np.pi, rope_wavelengths(rope_inv_freq(WAVELENGTH_DIM[1], 10.0 ** WAVELENGTH_BASE_EXP[1]))[-1]]
)

#: The pair used by the 2-D rotation panel (any two vectors work; these are easy to see).
Q_PAIR = np.array([1.0, 0.3])
K_PAIR = np.array([0.6, 0.8])


class RotationView(View):
    layout = ROTATION_LAYOUT

    def setup(self, ax):
        self.drawing = rope_plots.Rotation2D(ax)

    def update(self, m, n, theta):
        return self.drawing.update(Q_PAIR, K_PAIR, m, n, theta)

    def moving_artists(self):
        return [self.drawing.quiver, self.drawing.legend, self.axes.title]


class WavelengthView(View):
    layout = WAVELENGTH_LAYOUT

    def setup(self, ax):
        self.drawing = rope_plots.Wavelengths(ax)

    def update(self, dim, base):
        ax = self.drawing.update(dim, base, reference_base=10000.0)
        ax.set_xlim(*WAVELENGTH_XLIM)
        ax.set_ylim(*WAVELENGTH_YLIM)
        return ax

    def moving_artists(self):
        d = self.drawing
        return [d.line, d.reference, self.axes.title, d.legend.legend]


class DecayView(View):
    layout = DECAY_LAYOUT

    def setup(self, axes):
        self.drawing = rope_plots.LongRangeDecay(axes)

    def update(self, dim, base, peak):
        return self.drawing.update(dim, base, peak, n_samples=64)

    def moving_artists(self):
        # the top y axis follows the bound (its height grows with D), so it is drawn on every frame with the bound
        d, top = self.drawing, self.axes[0]
        return [d.bound, top.yaxis, top.title, d.same, d.peaked, d.band, d.mean, d.peak_line, d.legend]


def draw_rotation(m: int = 2, n: int = 0, theta: float = 0.5, *, fig=None):
    """Draw q rotated by m·θ and k rotated by n·θ (θ in rad per position); the title shows q_m·k_n."""
    return view_on(RotationView, fig).update(m, n, theta)


def rotation_panel():
    """Sliders: position m, position n (tokens), θ (rad per position). Move m and n together: the score stays."""
    controls = {
        "m": int_slider(_("query position m (tokens)"), 2, 0, 12),
        "n": int_slider(_("key position n (tokens)"), 0, 0, 12),
        "theta": float_slider(_("θ (rad per position)"), 0.5, 0.05, 1.5, 0.05),
    }
    return panel(draw_rotation, controls, layout=ROTATION_LAYOUT)


def draw_wavelengths(dim: int = 128, base: float = 10000.0, *, fig=None):
    """Wavelengths of all D/2 pairs for this base, with base 10,000 dashed for comparison."""
    return view_on(WavelengthView, fig).update(dim, base)


def wavelength_panel():
    """Sliders: head dimension D (even, 8 … 256) and base (10² … 10⁷, log scale)."""
    controls = {
        "dim": int_slider(_("head dim D (dimensions)"), 128, *WAVELENGTH_DIM, 8),
        "base": log_slider(_("base (log scale)"), 500000.0, *WAVELENGTH_BASE_EXP, 0.1),
    }
    return panel(draw_wavelengths, controls, layout=WAVELENGTH_LAYOUT)


def draw_decay(dim: int = 128, base: float = 10000.0, peak: int = 300, *, fig=None):
    """RoFormer's bound factor and real score curves (q = k, a key peaking at ``peak``, random q/k)."""
    return view_on(DecayView, fig).update(dim, base, peak)


def decay_panel():
    """Sliders: head dimension D (8 … 256), base (10² … 10⁷, log scale), the distance a chosen key peaks at."""
    controls = {
        "dim": int_slider(_("head dim D (dimensions)"), 128, 8, 256, 8),
        "base": log_slider(_("base (log scale)"), 10000.0, 2, 7, 0.1),
        "peak": int_slider(_("peak of chosen k (positions)"), 300, 0, 1000, 10),
    }
    return panel(draw_decay, controls, layout=DECAY_LAYOUT)
