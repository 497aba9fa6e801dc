"""Figures of the lab's stored results (pure matplotlib; each function takes ``ax``/``axes`` and returns it).

Used by :func:`helpers.lab.evaluate.write_results` to write the PNGs in ``results/``, and available to notebooks that
want to redraw from ``load_results()`` (e.g. another evaluation length) in well under a second.
"""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.figure import Figure

ZERO_SHOT = ("rope", "pi", "ntk", "dynamic", "yarn")
BASELINES = ("window", "none", "sinusoidal", "learned", "rope", "pi_ft", "yarn_ft")
#: One colour per method, the same in every panel.
COLORS = {
    "rope": "tab:red",
    "pi": "tab:orange",
    "ntk": "tab:green",
    "dynamic": "tab:olive",
    "yarn": "tab:purple",
    "none": "tab:blue",
    "sinusoidal": "tab:cyan",
    "learned": "tab:gray",
    "pi_ft": "tab:brown",
    "yarn_ft": "tab:pink",
    "window": "0.5",
}


def _new_axes(ax: Axes | None, figsize: tuple[float, float] = (6.0, 3.2)) -> Axes:
    if ax is not None:
        return ax
    return Figure(figsize=figsize, layout="constrained").add_subplot()


def plot_loss_by_position(
    results: dict, methods: tuple[str, ...] = ZERO_SHOT, *, length: int | None = None, ax: Axes | None = None
) -> Axes:
    """Language-modelling loss (nats) against position at evaluation length T (default: the longest), one line per
    method; dashed verticals at L (training length) and at the fine-tune length 4L. Methods that cannot run at T
    are listed in the legend as "cannot run"."""
    ax = _new_axes(ax)
    meta = results["meta"]
    length = max(meta["lengths"]) if length is None else length
    train_len = meta["train_len"]
    for m in methods:
        cell = results["lm"].get(m, {}).get(str(length))
        label = results["methods"][m]["label"]
        if cell is None:
            continue
        if cell["status"] != "ok":
            ax.plot([], [], ls="none", label=f"{label}: cannot run at {length}")
            continue
        centers = np.asarray(cell["bucket_starts"]) + meta["bucket"] / 2
        style = {"ls": ":", "lw": 1.0} if m == "window" else {"marker": ".", "ms": 3, "lw": 1.2}
        style["color"] = COLORS.get(m)
        ax.plot(centers, cell["loss_by_bucket"], label=label, **style)
    for x, text in ((train_len, "L"), (4 * train_len, "4L")):
        if x < length:
            ax.axvline(x, color="0.5", ls="--", lw=0.8)
            ax.text(x, 1.0, f" {text}", transform=ax.get_xaxis_transform(), va="top", fontsize=8, color="0.4")
    ax.set_xlabel("position (tokens)")
    ax.set_ylabel("next-token loss (nats)")
    ax.set_title(f"Copy-LM loss by position, evaluated at T = {length}")
    ax.legend(fontsize=7, loc="best", framealpha=0.9)
    return ax


def passkey_grid(results: dict, method: str) -> np.ndarray:
    """Accuracy (depths, lengths) for ``method``; NaN where the method cannot run."""
    meta = results["meta"]
    cols = []
    for t in meta["lengths"]:
        cell = results["passkey"][method][str(t)]
        cols.append(cell["accuracy_by_depth"] if cell["status"] == "ok" else [np.nan] * len(meta["passkey_depths"]))
    return np.asarray(cols, dtype=np.float64).T  # (depths, lengths)


def plot_passkey_heatmap(results: dict, method: str, *, ax: Axes | None = None, colorbar: bool = False) -> Axes:
    """Passkey accuracy over evaluation length (x) × key depth (y) for ``method``; grey "n/a" where it cannot run."""
    ax = _new_axes(ax, (3.0, 2.6))
    meta = results["meta"]
    grid = passkey_grid(results, method)  # (depths, lengths)
    cmap = colormaps["viridis"].with_extremes(bad="0.85")  # grey where the method cannot run
    image = ax.imshow(np.ma.masked_invalid(grid), vmin=0, vmax=1, cmap=cmap, origin="lower", aspect="auto")
    for (i, j), value in np.ndenumerate(grid):
        text = "n/a" if np.isnan(value) else f"{value:.2f}"
        ax.text(j, i, text, ha="center", va="center", fontsize=6, color="k" if np.isnan(value) or value > 0.5 else "w")
    ax.set_xticks(range(len(meta["lengths"])), [str(t) for t in meta["lengths"]])
    ax.set_yticks(range(len(meta["passkey_depths"])), [f"{d:.2f}" for d in meta["passkey_depths"]])
    ax.set_xlabel("context length T (tokens)")
    ax.set_ylabel("key depth (0 = start)")
    ax.set_title(results["methods"][method]["label"], fontsize=9)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label="passkey accuracy")
    return ax


def passkey_figure(results: dict) -> Figure:
    """All methods' passkey heatmaps on one figure (2 rows × 5)."""
    methods = list(results["methods"])
    n_cols = 5
    n_rows = -(-len(methods) // n_cols)
    fig = Figure(figsize=(2.6 * n_cols, 2.3 * n_rows), layout="constrained")
    axes = fig.subplots(n_rows, n_cols, squeeze=False)
    for ax, method in zip(axes.flat, methods, strict=False):
        plot_passkey_heatmap(results, method, ax=ax)
    for ax in list(axes.flat)[len(methods) :]:
        ax.set_visible(False)
    fig.suptitle(f"Passkey retrieval accuracy: context length × key depth (L = {results['meta']['train_len']})")
    return fig


def loss_figure(results: dict) -> Figure:
    """Two panels at the longest length: zero-shot RoPE methods, and the other encodings plus the fine-tunes."""
    fig = Figure(figsize=(11.0, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True)
    plot_loss_by_position(results, tuple(m for m in ZERO_SHOT if m in results["methods"]), ax=left)
    plot_loss_by_position(results, tuple(m for m in BASELINES if m in results["methods"]), ax=right)
    left.set_title("zero-shot RoPE scaling (s = T/L)")
    right.set_title("other encodings, and fine-tuned RoPE")
    fig.suptitle(
        f"Copy-LM loss by position at T = {max(results['meta']['lengths'])} (buckets of "
        f"{results['meta']['bucket']} positions)"
    )
    return fig


def plot_learned_table(table: np.ndarray, rows_reached: int, *, ax: Axes | None = None) -> Axes:
    """The learned position table as an image (rows = positions); a line where training stopped reaching rows."""
    ax = _new_axes(ax)
    limit = float(np.abs(table).max())
    ax.imshow(table.T, aspect="auto", cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
    ax.axvline(rows_reached - 0.5, color="k", lw=1)
    ax.set_xlabel("position (row of the table)")
    ax.set_ylabel("dimension")
    ax.set_title(f"learned table: rows ≥ {rows_reached} never trained")
    return ax


def plot_similarity(similarity: np.ndarray, *, title: str, ax: Axes | None = None) -> Axes:
    """A (T, T) cosine-similarity matrix of position vectors."""
    ax = _new_axes(ax, (3.2, 3.0))
    ax.imshow(similarity, cmap="RdBu_r", vmin=-1, vmax=1, origin="lower")
    ax.set_xlabel("position q")
    ax.set_ylabel("position p")
    ax.set_title(title, fontsize=9)
    return ax
