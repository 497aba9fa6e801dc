"""Figures for notebook 03: learned absolute position embeddings (a trainable max_seq_len × d_model table).

Every plotting function takes ``ax=None`` (or ``axes=None``), draws and returns the axes. Tables come in as
arrays of shape (max_seq_len, d_model) (numpy or torch; torch tensors are detached and converted here).
The two small computations the figures share, :func:`cosine_similarity_matrix` and :func:`row_distance`,
are public so that the notebook and the tests can check them.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch

from helpers.plots._style import label, new_axes

USED = "tab:blue"
UNUSED = "tab:gray"
LEARNED = "tab:orange"
SINUSOIDAL = "tab:blue"


def _as_table(table, name: str = "table") -> np.ndarray:
    """A (T, d) float64 array from a numpy array or a torch tensor (detached)."""
    if isinstance(table, torch.Tensor):
        table = table.detach().cpu().numpy()
    arr = np.asarray(table, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must have shape (max_seq_len, d_model), got shape {arr.shape}")
    return arr


def cosine_similarity_matrix(table) -> np.ndarray:
    """S[p, q] = ⟨t_p, t_q⟩ / (‖t_p‖·‖t_q‖) for the rows t_p of ``table`` (T, d). Returns (T, T), float64.

    A zero row has no direction: its similarities are set to 0 (its diagonal entry too).
    """
    t = _as_table(table)
    norms = np.linalg.norm(t, axis=1, keepdims=True)  # (T, 1)
    unit = np.divide(t, norms, out=np.zeros_like(t), where=norms > 0)  # (T, d)
    return unit @ unit.T  # (T, T)


def row_distance(table, init) -> np.ndarray:
    """‖table[p] − init[p]‖₂ for every row p: how far training moved each position's vector. Shape (T,)."""
    t, t0 = _as_table(table), _as_table(init, "init")
    if t.shape != t0.shape:
        raise ValueError(f"table and init must have the same shape, got {t.shape} and {t0.shape}")
    return np.linalg.norm(t - t0, axis=1)  # (T,)


def _mark_training_length(ax, train_len: int | None, *, horizontal: bool = False) -> None:
    """A dashed line between position L−1 and L: the last row that training reached."""
    if train_len is None:
        return
    kw = {"color": "k", "ls": "--", "lw": 1.0}
    if horizontal:
        ax.axhline(train_len - 0.5, **kw)
    ax.axvline(train_len - 0.5, label=f"training length L = {train_len}", **kw)


def plot_row_gradients(grad, used: Sequence[int] | None = None, ax=None):
    """Bar chart of ‖∂loss/∂table[p]‖ for every row p of a table's gradient (T, d).

    Rows whose position appeared in the forward pass (``used``) are coloured; every other row's bar is
    zero, because a lookup only routes gradient to the rows it read.
    """
    g = _as_table(grad, "grad")
    norms = np.linalg.norm(g, axis=1)  # (T,)
    positions = np.arange(len(norms))
    used_set = set(int(p) for p in used) if used is not None else set(np.flatnonzero(norms > 0).tolist())
    colors = [USED if p in used_set else UNUSED for p in positions]
    ax = new_axes(ax)
    ax.bar(positions, norms, color=colors, width=0.8)
    ax.scatter(positions[norms == 0], np.zeros(int((norms == 0).sum())), marker="x", color=UNUSED, zorder=3)
    handles = [
        plt.Rectangle((0, 0), 1, 1, color=USED, label="row read in the forward pass"),
        plt.Line2D([], [], marker="x", ls="", color=UNUSED, label="gradient exactly 0"),
    ]
    ax.legend(handles=handles, loc="upper right", fontsize=8)
    ax.set_xticks(positions if len(positions) <= 32 else positions[:: max(1, len(positions) // 16)])
    ax.set_ylim(0, max(float(norms.max()), 1e-12) * 1.35)
    return label(
        ax,
        xlabel="table row = position p (tokens)",
        ylabel="‖∂loss/∂table[p]‖",
        title=f"Gradient per row after one backward pass ({len(used_set)} of {len(norms)} rows used)",
    )


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


def plot_position_comparison(position: int, learned, sinusoidal, *, train_len: int | None = None, axes=None):
    """One position p: its learned and sinusoidal vectors (left) and their similarity rows S[p, :] (right).

    Left: both vectors divided by their norms, so that a learned row (scale ~0.02 at init) and a sinusoidal
    row (entries in [−1, 1]) share one axis. Right: cos(t_p, t_q) for every q, for both tables.
    """
    ln, sn = _as_table(learned, "learned"), _as_table(sinusoidal, "sinusoidal")
    if ln.shape[0] != sn.shape[0]:
        raise ValueError(
            f"learned and sinusoidal need the same number of positions, got {ln.shape[0]} and {sn.shape[0]}"
        )
    p = int(position)
    if not 0 <= p < ln.shape[0]:
        raise IndexError(f"position must be in 0..{ln.shape[0] - 1}, got {position}")
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(9.0, 3.2), layout="constrained")

    def unit(v):
        n = np.linalg.norm(v)
        return v / n if n > 0 else v

    ax0, ax1 = axes
    ax0.plot(unit(sn[p]), color=SINUSOIDAL, lw=1.2, label="sinusoidal")
    ax0.plot(unit(ln[p]), color=LEARNED, lw=1.2, label="learned")
    ax0.legend(loc="upper right", fontsize=8)
    label(ax0, xlabel="dimension j", ylabel="t_p[j] / ‖t_p‖", title=f"Position vectors at p = {p}")

    ls_row = cosine_similarity_matrix(ln)[p]  # (T,)
    ss_row = cosine_similarity_matrix(sn)[p]  # (T,)
    q = np.arange(ln.shape[0])
    ax1.plot(q, ss_row, color=SINUSOIDAL, lw=1.2, label="sinusoidal")
    ax1.plot(q, ls_row, color=LEARNED, lw=1.2, label="learned")
    ax1.axvline(p, color="0.4", lw=0.8, ls=":")
    _mark_training_length(ax1, train_len)
    ax1.set_ylim(-1.05, 1.05)
    ax1.legend(loc="lower left", fontsize=7)
    label(ax1, xlabel="position q (tokens)", ylabel="cos(t_p, t_q)", title=f"Similarity row S[{p}, :]")
    return axes
