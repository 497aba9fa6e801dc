"""Shared figure conventions: small figures (fast inline redraws), labelled axes."""

from __future__ import annotations

import matplotlib.pyplot as plt

FIGSIZE = (6.0, 3.2)


def new_axes(ax=None, *, figsize=FIGSIZE):
    """Return ``ax`` or a fresh axes on a new figure of ``figsize`` inches."""
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def label(ax, *, xlabel: str, ylabel: str, title: str | None = None):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    return ax
