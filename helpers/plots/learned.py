"""Figures for notebook 03: learned absolute position embeddings (a trainable max_seq_len × d_model table).

Every plotting function takes ``ax=None`` (or ``axes=None``), draws and returns the axes. The numbers they draw
(:func:`helpers.learned.cosine_similarity_matrix`, :func:`helpers.learned.position_tables`) come from
:mod:`helpers.learned`; tables come in as arrays of shape (max_seq_len, d_model).

Speed: the figures behind sliders (:func:`plot_row_gradients`, :func:`plot_position_comparison`) set their titles at
a fixed height (``y=1.0``: matplotlib then skips measuring the tick labels to place them) and keep few ticks, so a
redraw stays near a tenth of a second (:mod:`helpers.widgets.learned`).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FixedLocator, MaxNLocator

from helpers.i18n import pgettext, pN_
from helpers.learned import PositionTables, cosine_similarity_matrix, position_tables
from helpers.plots._style import as_array, label, new_axes

USED = "tab:blue"
UNUSED = "tab:gray"
LEARNED = "tab:orange"
SINUSOIDAL = "tab:blue"


def _mark_training_length(ax, train_len: int | None, *, horizontal: bool = False) -> None:
    """A dashed line between position L−1 and L: the last row that training reached."""
    if train_len is None:
        return
    kw = {"color": "k", "ls": "--", "lw": 1.0}
    if horizontal:
        ax.axhline(train_len - 0.5, **kw)
    ax.axvline(
        train_len - 0.5, label=pgettext("figure", "training length L = {train_len}").format(train_len=train_len), **kw
    )


def _title(ax, text: str) -> None:
    """A title at a fixed height (y=1.0): matplotlib then does not measure the tick labels to place it."""
    ax.set_title(text, y=1.0)


class RowGradients:
    """Bar chart of ‖∂loss/∂table[p]‖ for every row p of a table's gradient (T, d); :meth:`update` redraws in place.

    Rows whose position appeared in the forward pass (``used``) are coloured; every other row's bar is
    zero, because a lookup only routes gradient to the rows it read, and is marked by a gray cross.
    ``ymax`` fixes the top of the y axis (a slider panel passes one value for all its frames, so the scale does
    not jump); by default it leaves room above the tallest bar for the legend.
    """

    def __init__(self, ax):
        self.ax = ax
        self.bars = None
        # a Line2D of markers (cheaper than a scatter); not clipped, so the crosses on the axis show whole
        (self.crosses,) = ax.plot([], [], ls="", marker="x", color=UNUSED, clip_on=False, zorder=3)
        handles = [
            plt.Rectangle((0, 0), 1, 1, color=USED, label=pgettext("figure", "row read in the forward pass")),
            plt.Line2D([], [], marker="x", ls="", color=UNUSED, label=pgettext("figure", "gradient exactly 0")),
        ]
        ax.legend(handles=handles, loc="upper right", fontsize=8)
        ax.yaxis.set_major_locator(MaxNLocator(5, steps=[1, 2, 5, 10]))
        label(ax, xlabel=pgettext("figure", "table row = position p (tokens)"), ylabel="‖∂loss/∂table[p]‖")

    def update(self, grad, used: Sequence[int] | None = None, *, ymax: float | None = None):
        g = as_array(grad, "grad")  # (T, d)
        if g.ndim != 2:
            raise ValueError(f"grad must have shape (max_seq_len, d_model), got shape {g.shape}")
        norms = np.linalg.norm(g, axis=1)  # (T,)
        positions = np.arange(len(norms))
        used_set = set(int(p) for p in used) if used is not None else set(np.flatnonzero(norms > 0).tolist())
        if self.bars is None or len(self.bars) != len(norms):
            if self.bars is not None:
                self.bars.remove()
            self.bars = self.ax.bar(positions, norms, width=0.8)
            lo, hi = -0.4, len(norms) - 0.6  # the bars' outer edges
            self.ax.set_xlim(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo))  # autoscaling's 5 % margins, fixed
            self.ax.set_xticks(positions if len(positions) <= 32 else positions[:: max(1, len(positions) // 16)])
        for p, (bar, height) in enumerate(zip(self.bars, norms, strict=True)):
            bar.set_height(height)
            bar.set_color(USED if p in used_set else UNUSED)
        zero = norms == 0
        self.crosses.set_data(positions[zero], norms[zero])
        self.crosses.set_visible(bool(zero.any()))  # an empty unclipped line would still count in the layout
        self.ax.set_ylim(0, ymax if ymax is not None else max(float(norms.max()), 1e-12) * 1.35)
        _title(
            self.ax,
            pgettext("figure", "Gradient per row after one backward pass ({used} of {rows} rows used)").format(
                used=len(used_set), rows=len(norms)
            ),
        )
        return self.ax


def plot_row_gradients(grad, used: Sequence[int] | None = None, ax=None, *, ymax: float | None = None):
    """Bar chart of ‖∂loss/∂table[p]‖ for every row p of a table's gradient (T, d) (:class:`RowGradients`)."""
    return RowGradients(new_axes(ax)).update(grad, used, ymax=ymax)


def plot_parameter_share(names: Sequence[str], table_params: Sequence[int], total_params: Sequence[int], ax=None):
    """Horizontal bars: the position table's share of each model's parameters, in percent, labelled with counts."""
    if not (len(names) == len(table_params) == len(total_params)):
        raise ValueError("names, table_params and total_params must have the same length")
    share = 100.0 * np.asarray(table_params, dtype=float) / np.asarray(total_params, dtype=float)  # (n,)
    ax = new_axes(ax)
    y = np.arange(len(names))
    ax.barh(y, share, color=LEARNED, height=0.5)
    for yi, s, tp, tot in zip(y, share, table_params, total_params, strict=True):
        ax.text(
            s,
            yi,
            pgettext("figure", "  {tp:,} of {tot:,} ({s:.2f} %)").format(tp=tp, tot=tot, s=s),
            va="center",
            fontsize=8,
        )
    ax.set_yticks(y, list(names))
    ax.invert_yaxis()
    ax.set_xlim(0, float(share.max()) * 2.2)
    return label(
        ax,
        xlabel=pgettext("figure", "position table / all parameters (%)"),
        ylabel=pgettext("figure", "model"),
        title=pgettext("figure", "What the learned position table costs"),
    )


def plot_similarity_matrix(
    table, ax=None, *, title: str = pN_("figure", "cosine similarity"), train_len: int | None = None
):
    """Image of the cosine-similarity matrix S[p, q] of the rows of ``table`` (colour scale fixed to [−1, 1])."""
    s = cosine_similarity_matrix(table)  # (T, T)
    ax = new_axes(ax)
    im = ax.imshow(s, cmap="RdBu_r", vmin=-1.0, vmax=1.0, origin="upper", interpolation="nearest")
    _mark_training_length(ax, train_len, horizontal=True)
    if train_len is not None:
        ax.legend(loc="lower left", fontsize=7)
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label="cos(t_p, t_q)")
    return label(
        ax,
        xlabel=pgettext("figure", "position q (tokens)"),
        ylabel=pgettext("figure", "position p (tokens)"),
        title=pgettext("figure", title),
    )


def plot_similarity_pair(learned, sinusoidal, *, train_len: int | None = None, axes=None):
    """Two similarity matrices side by side: a learned table (left) and the sinusoidal table (right)."""
    if axes is None:
        _fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.8), layout="constrained")
    plot_similarity_matrix(learned, axes[0], title=pgettext("figure", "learned table (trained)"), train_len=train_len)
    plot_similarity_matrix(sinusoidal, axes[1], title=pgettext("figure", "sinusoidal table (fixed)"))
    return axes


def plot_distance_from_init(distances, train_len: int | None = None, ax=None):
    """‖table[p] − init[p]‖ against position p, with the training length marked.

    Rows at or past the training length were never read during training, so they never received a
    gradient and their distance from the initial values is 0.
    """
    d = np.asarray(distances, dtype=np.float64)  # (T,)
    positions = np.arange(len(d))
    ax = new_axes(ax)
    ax.plot(
        positions, d, marker=".", ms=3, lw=1.0, color=LEARNED, label=pgettext("figure", "distance from initial row")
    )
    _mark_training_length(ax, train_len)
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper right", fontsize=8)
    return label(
        ax,
        xlabel=pgettext("figure", "position p (tokens)"),
        ylabel="‖table[p] − init[p]‖",
        title=pgettext("figure", "How far training moved each row"),
    )


class PositionComparison:
    """One position p: its learned and sinusoidal vectors (left) and their similarity rows S[p, :] (right).

    Drawn once on two axes from a :class:`helpers.learned.PositionTables`; :meth:`update` moves to another p.
    Left: both vectors divided by their norms, so that a learned row (scale ~0.02 at init) and a sinusoidal row
    (entries in [−1, 1]) share one axis, whose range fits every row of both tables (so it does not jump when a
    slider moves p). Right: cos(t_p, t_q) for every q, for both tables; the dotted line marks q = p, the dashed
    one the training length.
    """

    def __init__(self, axes, tables: PositionTables):
        self.axes, self.tables = axes, tables
        ax0, ax1 = axes
        (self.sin_vec,) = ax0.plot([], [], color=SINUSOIDAL, lw=1.2, label=pgettext("figure", "sinusoidal"))
        (self.learned_vec,) = ax0.plot([], [], color=LEARNED, lw=1.2, label=pgettext("figure", "learned"))
        ax0.legend(loc="upper right", fontsize=8)
        ax0.set_ylim(-tables.unit_limit, tables.unit_limit)  # one scale for every p
        ax0.set_xlim(-0.05 * (tables.learned_unit.shape[1] - 1), 1.05 * (tables.learned_unit.shape[1] - 1))
        ax0.xaxis.set_major_locator(MaxNLocator(5, integer=True))
        ax0.yaxis.set_major_locator(MaxNLocator(5, steps=[1, 2, 5, 10]))
        label(ax0, xlabel=pgettext("figure", "dimension index j"), ylabel="t_p[j] / ‖t_p‖")
        q = np.arange(tables.n_positions)
        (self.sin_row,) = ax1.plot(q, tables.sinusoidal_similarity[0], color=SINUSOIDAL, lw=1.2)
        (self.learned_row,) = ax1.plot(q, tables.learned_similarity[0], color=LEARNED, lw=1.2)
        self.here = ax1.axvline(0, color="0.4", lw=0.8, ls=":")
        if tables.train_len is not None:
            _mark_training_length(ax1, tables.train_len)
            ax1.text(tables.train_len + 1, -0.93, f"L = {tables.train_len}", fontsize=8)
        ax1.set_xlim(-0.05 * (tables.n_positions - 1), 1.05 * (tables.n_positions - 1))
        ax1.set_ylim(-1.05, 1.05)
        ax1.xaxis.set_major_locator(MaxNLocator(5, integer=True))
        ax1.yaxis.set_major_locator(FixedLocator([-1.0, -0.5, 0.0, 0.5, 1.0]))
        label(ax1, xlabel=pgettext("figure", "position q (tokens)"), ylabel="cos(t_p, t_q)")

    def update(self, position: int):
        tables = self.tables
        p = int(position)
        if not 0 <= p < tables.n_positions:
            raise IndexError(f"position must be in 0..{tables.n_positions - 1}, got {position}")
        self.sin_vec.set_data(np.arange(tables.sinusoidal_unit.shape[1]), tables.sinusoidal_unit[p])
        self.learned_vec.set_data(np.arange(tables.learned_unit.shape[1]), tables.learned_unit[p])
        _title(self.axes[0], pgettext("figure", "Position vectors at p = {p}").format(p=p))
        self.sin_row.set_ydata(tables.sinusoidal_similarity[p])
        self.learned_row.set_ydata(tables.learned_similarity[p])
        self.here.set_xdata([p, p])
        _title(self.axes[1], pgettext("figure", "Similarity row S[{p}, :] (dotted: q = p)").format(p=p))
        return self.axes


def plot_position_comparison(
    position: int, learned, sinusoidal=None, *, train_len: int | None = None, axes=None
) -> Sequence:
    """One position p: its learned and sinusoidal vectors and their similarity rows (:class:`PositionComparison`).

    ``learned``: the learned table (T, d), with ``sinusoidal`` (T, d') and ``train_len``; or a
    :class:`helpers.learned.PositionTables` from :func:`helpers.learned.position_tables` (then the other two are
    taken from it), which a slider computes once. Returns the two axes.
    """
    if isinstance(learned, PositionTables):
        tables = learned
    else:
        if sinusoidal is None:
            raise TypeError("plot_position_comparison needs the sinusoidal table (or a PositionTables)")
        tables = position_tables(learned, sinusoidal, train_len)
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(9.0, 3.2), layout="constrained")
    return PositionComparison(axes, tables).update(position)
