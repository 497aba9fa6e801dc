"""Slider panels for notebook 03 (learned absolute position embeddings).

Each panel's redraw function is a plain module-level function (tests call it without a browser):
* :func:`draw_row_gradients`: which rows of a small learned table get gradient from a sequence of T tokens.
* :func:`draw_position`: a learned position vector next to the sinusoidal one, and their similarity rows.

Speed: the panels use :func:`helpers.widgets._common.panel` (one reused figure, shown as a PNG at its own size, no
tight bounding box). Everything that does not depend on the slider is computed once when the panel is built (the
gradients for every T; unit rows and similarity matrices of both tables), and the figure's artists are created once
(:class:`GradientView`, :class:`PositionView`) and updated in place. The static cells call the same functions
without ``fig`` (a new pyplot figure of the same size and margins), so the committed notebook shows what the panel
shows at its default value.
"""

from __future__ import annotations

from functools import partial

import ipywidgets as W
import numpy as np

from helpers.i18n import _
from helpers.learned import all_row_gradients, position_tables
from helpers.plots import learned as P
from helpers.widgets._common import Layout, View, int_slider, panel, view_on

GRADIENT_LAYOUT = Layout((6.0, 3.2), left=0.1, bottom=0.15, right=0.98, top=0.9)
POSITION_LAYOUT = Layout((9.0, 3.2), left=0.085, bottom=0.155, right=0.985, top=0.9, ncols=2, wspace=0.25)


# --------------------------------------------------------------------------- gradient per row


def gradient_ymax(grads: np.ndarray) -> float:
    """One y-axis top for every frame of the gradient panel: the tallest bar over all T, plus room for the legend."""
    return float(np.linalg.norm(grads, axis=-1).max()) * 1.35


class GradientView(View):
    layout = GRADIENT_LAYOUT

    def setup(self, ax, *, grads):
        self.drawing = P.RowGradients(ax)
        self.ymax = gradient_ymax(grads)

    def update(self, seq_len):
        grads = self.data["grads"]
        return self.drawing.update(grads[seq_len - 1], used=range(seq_len), ymax=self.ymax)


def draw_row_gradients(seq_len: int, max_seq_len: int = 16, d_model: int = 8, *, grads=None, fig=None):
    """Bars of ‖∂loss/∂table[p]‖ after reading positions 0..seq_len−1 (the gradient panel's redraw).

    ``grads``: :func:`helpers.learned.all_row_gradients` (max_seq_len, max_seq_len, d_model), computed here when
    not given (a panel computes it once). ``fig``: the panel's figure (updated in place) or None (a new pyplot
    figure, the static cell). Returns the axes.
    """
    if grads is None:
        grads = all_row_gradients(max_seq_len, d_model)
    return view_on(GradientView, fig, grads=grads).update(seq_len)


def gradient_panel(max_seq_len: int = 16, d_model: int = 8, seq_len: int = 5) -> W.VBox:
    """A slider "sequence length T (tokens)" from 1 to max_seq_len: which table rows receive gradient.

    The gradients for every T are computed when the panel is built; a redraw only updates the bars and encodes the
    PNG, fast enough to follow the slider while it moves (``continuous_update`` on).
    """
    grads = all_row_gradients(max_seq_len, d_model)
    controls = {"seq_len": int_slider(_("sequence length T (tokens)"), seq_len, 1, max_seq_len)}
    return panel(partial(draw_row_gradients, grads=grads), controls, layout=GRADIENT_LAYOUT)


# --------------------------------------------------------------------------- one position: learned vs sinusoidal


class PositionView(View):
    layout = POSITION_LAYOUT

    def setup(self, axes, *, tables):
        self.drawing = P.PositionComparison(axes, tables)

    def update(self, position):
        return self.drawing.update(position)


def draw_position(position: int, learned=None, sinusoidal=None, train_len: int | None = None, *, tables=None, fig=None):
    """Both vectors at ``position`` and their similarity rows (the position panel's redraw). Returns the two axes.

    Give the tables (``learned`` (T, d), ``sinusoidal`` (T, d'), ``train_len``) or ``tables``, a
    :class:`helpers.learned.PositionTables` computed once (what the panel does). ``fig`` as in
    :func:`draw_row_gradients`.
    """
    if tables is None:
        tables = position_tables(learned, sinusoidal, train_len)
    return view_on(PositionView, fig, tables=tables).update(position)


def position_panel(learned, sinusoidal, train_len: int | None = None, position: int = 8) -> W.VBox:
    """A slider "position p (tokens)" over every row of the tables (0 .. max_seq_len − 1).

    Unit rows and both similarity matrices are computed once (:func:`helpers.learned.position_tables`); a
    redraw picks rows of them, updates four lines and encodes the PNG, fast enough to follow the slider while it
    moves (``continuous_update`` on).
    """
    tables = position_tables(learned, sinusoidal, train_len)
    hi = tables.n_positions - 1
    controls = {"position": int_slider(_("position p (tokens)"), int(np.clip(position, 0, hi)), 0, hi)}
    return panel(partial(draw_position, tables=tables), controls, layout=POSITION_LAYOUT)
