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
    ax.axvline(train_len - 0.5, label=f"training length L = {train_len}", **kw)


def _title(ax, text: str) -> None:
    """A title at a fixed height (y=1.0): matplotlib then does not measure the tick labels to place it."""
    ax.set_title(text, y=1.0)


def plot_row_gradients(grad, used: Sequence[int] | None = None, ax=None, *, ymax: float | None = None):
    """Bar chart of ‖∂loss/∂table[p]‖ for every row p of a table's gradient (T, d).

    Rows whose position appeared in the forward pass (``used``) are coloured; every other row's bar is
    zero, because a lookup only routes gradient to the rows it read, and is marked by a gray cross.
    ``ymax`` fixes the top of the y axis (a slider panel passes one value for all its frames, so the scale does
    not jump); by default it leaves room above the tallest bar for the legend.
    """
    g = as_array(grad, "grad")  # (T, d)
    if g.ndim != 2:
        raise ValueError(f"grad must have shape (max_seq_len, d_model), got shape {g.shape}")
    norms = np.linalg.norm(g, axis=1)  # (T,)
    positions = np.arange(len(norms))
    used_set = set(int(p) for p in used) if used is not None else set(np.flatnonzero(norms > 0).tolist())
    colors = [USED if p in used_set else UNUSED for p in positions]
    ax = new_axes(ax)
    ax.bar(positions, norms, color=colors, width=0.8)
    zero = norms == 0
    # a Line2D of markers (cheaper than a scatter); not clipped, so the crosses on the axis show whole
    ax.plot(positions[zero], norms[zero], ls="", marker="x", color=UNUSED, clip_on=False, zorder=3)
    handles = [
        plt.Rectangle((0, 0), 1, 1, color=USED, label="row read in the forward pass"),
        plt.Line2D([], [], marker="x", ls="", color=UNUSED, label="gradient exactly 0"),
    ]
    ax.legend(handles=handles, loc="upper right", fontsize=8)
    ax.set_xticks(positions if len(positions) <= 32 else positions[:: max(1, len(positions) // 16)])
    ax.set_ylim(0, ymax if ymax is not None else max(float(norms.max()), 1e-12) * 1.35)
    ax.yaxis.set_major_locator(MaxNLocator(5, steps=[1, 2, 5, 10]))
    label(ax, xlabel="table row = position p (tokens)", ylabel="‖∂loss/∂table[p]‖")
    _title(ax, f"Gradient per row after one backward pass ({len(used_set)} of {len(norms)} rows used)")
    return ax


def plot_parameter_share(names: Sequence[str], table_params: Sequence[int], total_params: Sequence[int], ax=None):
    """Horizontal bars: the position table's share of each model's parameters, in percent, labelled with counts."""
    if not (len(names) == len(table_params) == len(total_params)):
        raise ValueError("names, table_params and total_params must have the same length")
    share = 100.0 * np.asarray(table_params, dtype=float) / np.asarray(total_params, dtype=float)  # (n,)
    ax = new_axes(ax)
    y = np.arange(len(names))
    ax.barh(y, share, color=LEARNED, height=0.5)
    for yi, s, tp, tot in zip(y, share, table_params, total_params, strict=True):
        ax.text(s, yi, f"  {tp:,} of {tot:,} ({s:.2f} %)", va="center", fontsize=8)
    ax.set_yticks(y, list(names))
    ax.invert_yaxis()
    ax.set_xlim(0, float(share.max()) * 2.2)
    return label(
        ax,
        xlabel="position table / all parameters (%)",
        ylabel="model",
        title="What the learned position table costs",
    )


def plot_similarity_matrix(table, ax=None, *, title: str = "cosine similarity", train_len: int | None = None):
    """Image of the cosine-similarity matrix S[p, q] of the rows of ``table`` (colour scale fixed to [−1, 1])."""
    s = cosine_similarity_matrix(table)  # (T, T)
    ax = new_axes(ax)
    im = ax.imshow(s, cmap="RdBu_r", vmin=-1.0, vmax=1.0, origin="upper", interpolation="nearest")
    _mark_training_length(ax, train_len, horizontal=True)
    if train_len is not None:
        ax.legend(loc="lower left", fontsize=7)
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label="cos(t_p, t_q)")
    return label(ax, xlabel="position q (tokens)", ylabel="position p (tokens)", title=title)


def plot_similarity_pair(learned, sinusoidal, *, train_len: int | None = None, axes=None):
    """Two similarity matrices side by side: a learned table (left) and the sinusoidal table (right)."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(9.0, 3.8), layout="constrained")
    plot_similarity_matrix(learned, axes[0], title="learned table (trained)", train_len=train_len)
    plot_similarity_matrix(sinusoidal, axes[1], title="sinusoidal table (fixed)")
    return axes


def plot_distance_from_init(distances, train_len: int | None = None, ax=None):
    """‖table[p] − init[p]‖ against position p, with the training length marked.

    Rows at or past the training length were never read during training, so they never received a
    gradient and their distance from the initial values is 0.
    """
    d = np.asarray(distances, dtype=np.float64)  # (T,)
    positions = np.arange(len(d))
    ax = new_axes(ax)
    ax.plot(positions, d, marker=".", ms=3, lw=1.0, color=LEARNED, label="distance from initial row")
    _mark_training_length(ax, train_len)
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper right", fontsize=8)
    return label(
        ax,
        xlabel="position p (tokens)",
        ylabel="‖table[p] − init[p]‖",
        title="How far training moved each row",
    )


def plot_position_comparison(
    position: int, learned, sinusoidal=None, *, train_len: int | None = None, axes=None
) -> Sequence:
    """One position p: its learned and sinusoidal vectors (left) and their similarity rows S[p, :] (right).

    ``learned``: the learned table (T, d), with ``sinusoidal`` (T, d') and ``train_len``; or a
    :class:`PositionTables` from :func:`position_tables` (then the other two are taken from it), which a slider
    computes once. Left: both vectors divided by their norms, so that a learned row (scale ~0.02 at init) and a
    sinusoidal row (entries in [−1, 1]) share one axis, whose range fits every row of both tables (so it does not
    jump when a slider moves p). Right: cos(t_p, t_q) for every q, for both tables; the dotted line marks q = p, the
    dashed one the training length. Returns the two axes.
    """
    if isinstance(learned, PositionTables):
        tables = learned
    else:
        if sinusoidal is None:
            raise TypeError("plot_position_comparison needs the sinusoidal table (or a PositionTables)")
        tables = position_tables(learned, sinusoidal, train_len)
    p = int(position)
    if not 0 <= p < tables.n_positions:
        raise IndexError(f"position must be in 0..{tables.n_positions - 1}, got {position}")
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(9.0, 3.2), layout="constrained")

    ax0, ax1 = axes
    ax0.plot(tables.sinusoidal_unit[p], color=SINUSOIDAL, lw=1.2, label="sinusoidal")
    ax0.plot(tables.learned_unit[p], color=LEARNED, lw=1.2, label="learned")
    ax0.legend(loc="upper right", fontsize=8)
    ax0.set_ylim(-tables.unit_limit, tables.unit_limit)  # one scale for every p
    ax0.xaxis.set_major_locator(MaxNLocator(5, integer=True))
    ax0.yaxis.set_major_locator(MaxNLocator(5, steps=[1, 2, 5, 10]))
    label(ax0, xlabel="dimension index j", ylabel="t_p[j] / ‖t_p‖")
    _title(ax0, f"Position vectors at p = {p}")

    q = np.arange(tables.n_positions)
    ax1.plot(q, tables.sinusoidal_similarity[p], color=SINUSOIDAL, lw=1.2)
    ax1.plot(q, tables.learned_similarity[p], color=LEARNED, lw=1.2)
    ax1.axvline(p, color="0.4", lw=0.8, ls=":")
    if tables.train_len is not None:
        _mark_training_length(ax1, tables.train_len)
        ax1.text(tables.train_len + 1, -0.93, f"L = {tables.train_len}", fontsize=8)
    ax1.set_ylim(-1.05, 1.05)
    ax1.xaxis.set_major_locator(MaxNLocator(5, integer=True))
    ax1.yaxis.set_major_locator(FixedLocator([-1.0, -0.5, 0.0, 0.5, 1.0]))
    label(ax1, xlabel="position q (tokens)", ylabel="cos(t_p, t_q)")
    _title(ax1, f"Similarity row S[{p}, :] (dotted: q = p)")
    return axes
