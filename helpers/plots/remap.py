"""Figures of position remapping (Dual Chunk Attention): the remapped relative positions r(m, n), and r against the
true distance m − n. The numbers come from :mod:`helpers.dca` (``dca_relative_positions``, ``dca_chunk_len``); these
functions only draw them.

Typical call (T = 24 tokens, chunk size S = 8, local window W = 2, so chunks of c = 6)::

    r = dca.dca_relative_positions(24, 8, 2)                       # (T, T), −1 above the diagonal
    remap_plots.plot_remapped_positions(r, chunk_len=dca.dca_chunk_len(8, 2), ax=ax)
    remap_plots.plot_remapped_distance(r, max_distance=8, ax=ax2)
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from helpers.i18n import pgettext, pN_
from helpers.plots._style import as_array, label, new_axes

__all__ = ["plot_remapped_distance", "plot_remapped_positions"]


def _relative(relative) -> np.ndarray:
    """``relative`` as a square float array with NaN above the diagonal (its −1 entries: future keys)."""
    mat = as_array(relative, "relative")
    if mat.ndim != 2 or mat.shape[0] != mat.shape[1]:
        raise ValueError(f"relative must be a square (T, T) matrix, got shape {mat.shape}")
    future = np.triu(np.ones(mat.shape, dtype=bool), 1)  # (T, T)
    if np.any(mat[~future] < 0):
        raise ValueError("relative must be >= 0 on and below the diagonal (keys n <= query m)")
    return np.where(future, np.nan, mat)  # (T, T)


def plot_remapped_positions(
    relative,
    *,
    chunk_len: int | None = None,
    ax=None,
    title: str = pN_("figure", "relative position the model sees, r(m, n)"),
    cbar_label: str = "r(m, n)",
):
    """Heatmap of r(m, n) (T, T) for keys n <= query m (blank above the diagonal); ``chunk_len`` c draws the chunk
    boundaries (every c tokens) as thin lines. Returns the axes."""
    mat = _relative(relative)
    ax = new_axes(ax, figsize=(4.4, 3.6))
    im = ax.imshow(mat, cmap="viridis", interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, label=cbar_label)
    if chunk_len is not None:
        if not isinstance(chunk_len, int) or chunk_len < 1:
            raise ValueError(f"chunk_len must be a positive int, got {chunk_len!r}")
        for edge in range(chunk_len, mat.shape[0], chunk_len):
            ax.axhline(edge - 0.5, color="white", lw=0.6)
            ax.axvline(edge - 0.5, color="white", lw=0.6)
    ax.xaxis.set_major_locator(MaxNLocator(5, integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(5, integer=True))
    return label(
        ax,
        xlabel=pgettext("figure", "key position n"),
        ylabel=pgettext("figure", "query position m"),
        title=pgettext("figure", title),
    )


def plot_remapped_distance(
    relative,
    *,
    max_distance: int | None = None,
    ax=None,
    title: str = pN_("figure", "remapped against true distance (last query)"),
    remapped_label: str = pN_("figure", "remapped r(m, n)"),
    true_label: str = pN_("figure", "true distance m − n"),
    limit_label: str = pN_("figure", "largest trained distance"),
):
    """The last query's row: r(T−1, n) and the true distance T−1−n against the true distance; ``max_distance`` draws
    a horizontal line there (the largest relative position seen in training, L − 1). Returns the axes."""
    mat = _relative(relative)
    row = mat[-1]  # (T,)
    distance = np.arange(mat.shape[0])[::-1].astype(np.float64)  # (T,): T−1−n
    ax = new_axes(ax)
    ax.plot(distance, distance, color="0.6", ls="--", lw=1, label=pgettext("figure", true_label))
    ax.plot(distance, row, color="tab:green", lw=1.5, label=pgettext("figure", remapped_label))
    if max_distance is not None:
        ax.axhline(max_distance, color="tab:red", lw=0.8, ls=":", label=pgettext("figure", limit_label))
    ax.legend(fontsize=8, loc="upper left")
    return label(
        ax,
        xlabel=pgettext("figure", "true distance m − n"),
        ylabel=pgettext("figure", "relative position"),
        title=pgettext("figure", title),
    )
