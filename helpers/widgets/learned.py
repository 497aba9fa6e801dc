"""Slider panels for notebook 03 (learned absolute position embeddings).

Each panel's redraw function is a plain module-level function (tests call it without a browser):
* :func:`draw_row_gradients_into`: which rows of a small learned table get gradient from a sequence of T tokens.
* :func:`draw_position_into`: a learned position vector next to the sinusoidal one, and their similarity rows.

Speed: the panels use :func:`helpers.widgets._common.figure_panel` (one reused figure, shown as a PNG at its own
size, no tight bounding box). Everything that does not depend on the slider is computed once when the panel is
built (the gradients for every T; unit rows and similarity matrices of both tables), the axes sit at fixed margins,
titles at a fixed height and ticks are few, so a redraw is mostly matplotlib drawing the figure and encoding the PNG.
The static cells draw the same figures with :func:`draw_row_gradients` / :func:`draw_position`, on a pyplot figure
with the same size and margins, so the committed notebook shows what the panel shows at its default value.
"""

from __future__ import annotations

from functools import partial

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np

from helpers.learned import PositionTables, all_row_gradients, position_tables
from helpers.plots import learned as P
from helpers.widgets._common import figure_panel, int_slider

DPI = 100  # the inline backend's resolution, so a panel looks like the static figure next to it

#: Figure size (inches) and fixed margins (left, bottom, right, top) of each panel's figure.
GRADIENT_LAYOUT = ((6.0, 3.2), (0.1, 0.15, 0.98, 0.9))
POSITION_LAYOUT = ((9.0, 3.2), (0.085, 0.155, 0.985, 0.9))


def _fixed_axes(layout, ncols: int = 1, fig=None):
    """Axes at fixed margins on ``fig`` (or on a new pyplot figure): no layout engine measuring every label."""
    figsize, (left, bottom, right, top) = layout
    if fig is None:
        fig = plt.figure(figsize=figsize)
    axes = fig.subplots(1, ncols)
    fig.subplots_adjust(left=left, bottom=bottom, right=right, top=top, wspace=0.25)
    return axes


# --------------------------------------------------------------------------- gradient per row


def gradient_ymax(grads: np.ndarray) -> float:
    """One y-axis top for every frame of the gradient panel: the tallest bar over all T, plus room for the legend."""
    return float(np.linalg.norm(grads, axis=-1).max()) * 1.35


def draw_row_gradients_into(fig, seq_len: int, *, grads: np.ndarray, ymax: float | None = None):
    """The gradient panel's redraw: bars of ‖∂loss/∂table[p]‖ for T = ``seq_len``, from precomputed ``grads``."""
    ax = _fixed_axes(GRADIENT_LAYOUT, fig=fig)
    return P.plot_row_gradients(grads[seq_len - 1], used=range(seq_len), ax=ax, ymax=ymax)


def draw_row_gradients(seq_len: int, max_seq_len: int = 16, d_model: int = 8, *, fig=None):
    """The gradient figure for a sequence of ``seq_len`` tokens, on a new pyplot figure (the static cell)."""
    grads = all_row_gradients(max_seq_len, d_model)
    if fig is None:
        fig = plt.figure(figsize=GRADIENT_LAYOUT[0])
    return draw_row_gradients_into(fig, seq_len, grads=grads, ymax=gradient_ymax(grads))


def gradient_panel(max_seq_len: int = 16, d_model: int = 8, seq_len: int = 5) -> W.VBox:
    """A slider "sequence length T (tokens)" from 1 to max_seq_len: which table rows receive gradient.

    The gradients for every T are computed when the panel is built; a redraw only draws the bars and encodes the
    PNG, fast enough to follow the slider while it moves (``continuous_update`` on).
    """
    grads = all_row_gradients(max_seq_len, d_model)
    draw = partial(draw_row_gradients_into, grads=grads, ymax=gradient_ymax(grads))
    return figure_panel(
        draw,
        {"seq_len": int_slider("sequence length T (tokens)", seq_len, 1, max_seq_len)},
        figsize=GRADIENT_LAYOUT[0],
        dpi=DPI,
    )


# --------------------------------------------------------------------------- one position: learned vs sinusoidal


def draw_position_into(fig, position: int, *, tables: PositionTables):
    """The position panel's redraw: both vectors at ``position`` and their similarity rows, from precomputed tables."""
    axes = _fixed_axes(POSITION_LAYOUT, ncols=2, fig=fig)
    return P.plot_position_comparison(position, tables, axes=axes)


def draw_position(position: int, learned, sinusoidal, train_len: int | None = None, *, fig=None):
    """The position figure on a new pyplot figure (the static cell): same size and margins as the panel."""
    tables = position_tables(learned, sinusoidal, train_len)
    if fig is None:
        fig = plt.figure(figsize=POSITION_LAYOUT[0])
    return draw_position_into(fig, position, tables=tables)


def position_panel(learned, sinusoidal, train_len: int | None = None, position: int = 8) -> W.VBox:
    """A slider "position p (tokens)" over every row of the tables (0 .. max_seq_len − 1).

    Unit rows and both similarity matrices are computed once (:func:`helpers.plots.position_tables`); a
    redraw picks rows of them, draws two small axes and encodes the PNG, fast enough to follow the slider while it
    moves (``continuous_update`` on).
    """
    tables = position_tables(learned, sinusoidal, train_len)
    hi = tables.n_positions - 1
    return figure_panel(
        partial(draw_position_into, tables=tables),
        {"position": int_slider("position p (tokens)", int(np.clip(position, 0, hi)), 0, hi)},
        figsize=POSITION_LAYOUT[0],
        dpi=DPI,
    )
