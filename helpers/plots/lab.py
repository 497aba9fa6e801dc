"""Figures of the lab's stored results, notebooks 03 and 05b (pure matplotlib + NumPy; each ``plot_*`` takes ``ax``
and returns it).

Every series is read from the records of ``results.json`` through :mod:`helpers.lab.records` (mean over seeds, and
the min–max range over seeds as a band); names, labels and colours come from :mod:`helpers.lab.methods`, i.e. from
:mod:`helpers.methods`. Used by ``scripts/update_lab_results.py`` for the PNGs in ``helpers/lab/results/`` (:func:`write_figures`) and by
notebook 05b to redraw in well under a second.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import PowerNorm
from matplotlib.figure import Figure

from helpers.i18n import pgettext
from helpers.lab.methods import FINE_TUNED, HYBRIDS, OTHER_FAMILIES, ZERO_SHOT, lab_method
from helpers.lab.records import at_scale, record, seed_values, seeds_of


def _new_axes(ax: Axes | None, figsize: tuple[float, float] = (6.0, 3.2)) -> Axes:
    if ax is not None:
        return ax
    return Figure(figsize=figsize, layout="constrained").add_subplot()


def loss_by_position(results: dict, method: str, length: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(bucket centres (n_buckets,), loss (n_seeds, n_buckets)) of ``method`` at T, or None if it cannot run."""
    rows = []
    centres = None
    for seed in seeds_of(results, method):
        r = record(results, method, seed, "lm", length)
        if r["status"] != "ok":
            return None
        centres = np.asarray(r["metrics"]["bucket_starts"]) + results["meta"]["bucket"] / 2  # (n_buckets,)
        rows.append(r["metrics"]["loss_by_bucket"])
    return centres, np.asarray(rows, dtype=np.float64)  # (n_buckets,), (n_seeds, n_buckets)


def plot_loss_by_position(results: dict, methods, *, length: int | None = None, ax: Axes | None = None) -> Axes:
    """Copy-LM loss (nats) against position at evaluation length T (default: the longest): the mean over seeds as a
    line, the range over seeds as a band; dashed verticals at L and 4L. Methods that cannot run at T are listed in
    the legend as "cannot run"."""
    ax = _new_axes(ax)
    meta = results["meta"]
    length = max(meta["lengths"]) if length is None else length
    train_len = meta["train_len"]
    for m in methods:
        style = lab_method(m).style()
        series = loss_by_position(results, m, length)
        if series is None:
            ax.plot(
                [],
                [],
                ls="none",
                label=pgettext("figure", "{label}: cannot run at {length}").format(label=style["label"], length=length),
            )
            continue
        centres, losses = series
        ax.plot(centres, losses.mean(0), lw=1.3, **style)
        ax.fill_between(centres, losses.min(0), losses.max(0), color=style["color"], alpha=0.15, lw=0)
    for x, text in ((train_len, "L"), (4 * train_len, "4L")):
        if x < length:
            ax.axvline(x, color="0.5", ls="--", lw=0.8)
            ax.text(x, 1.0, f" {text}", transform=ax.get_xaxis_transform(), va="top", fontsize=8, color="0.4")
    ax.set_xlabel(pgettext("figure", "position (tokens)"))
    ax.set_ylabel(pgettext("figure", "next-token loss (nats)"))
    ax.set_title(pgettext("figure", "Copy-LM loss by position, T = {length}").format(length=length))
    ax.legend(fontsize=7, loc="best", framealpha=0.9)
    return ax


def plot_passkey_by_length(results: dict, methods, *, ax: Axes | None = None) -> Axes:
    """Passkey accuracy against evaluation length T (log₂ axis): mean over seeds, range over seeds as a band and
    error bar. A method that cannot run at some T stops there."""
    ax = _new_axes(ax)
    lengths = np.asarray(results["meta"]["lengths"])
    for m in methods:
        style = lab_method(m).style()
        values = np.stack([seed_values(results, m, "accuracy", t) for t in lengths], axis=1)  # (n_seeds, n_T)
        ok = ~np.isnan(values).any(0)  # (n_T,)
        mean, lo, hi = values.mean(0), values.min(0), values.max(0)
        ax.plot(lengths[ok], mean[ok], marker="o", ms=3, lw=1.3, **style)
        ax.fill_between(lengths[ok], lo[ok], hi[ok], color=style["color"], alpha=0.15, lw=0)
    ax.set_xscale("log", base=2)
    ax.set_xticks(lengths, [str(t) for t in lengths])
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel(pgettext("figure", "context length T (tokens)"))
    ax.set_ylabel(pgettext("figure", "passkey accuracy (5 digits right)"))
    ax.set_title(pgettext("figure", "Passkey retrieval against length"))
    ax.legend(fontsize=7, loc="best", framealpha=0.9)
    return ax


def _groups(results: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    present = set(results["methods"])
    zero_shot = tuple(m for m in (*ZERO_SHOT, "rope+default_window") if m in present)
    others = tuple(m for m in (*OTHER_FAMILIES, *HYBRIDS, "rope+default", *FINE_TUNED) if m in present)
    return zero_shot, others


def _two_panels(results: dict, plot, height: float, title: str) -> Figure:
    """``plot`` (a ``plot_*`` of this module) twice side by side: zero-shot RoPE methods (and the window baseline);
    the other families, plain RoPE and the fine-tunes."""
    fig = Figure(figsize=(11.0, height), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True)
    zero_shot, others = _groups(results)
    plot(results, zero_shot, ax=left)
    plot(results, others, ax=right)
    left.set_title(pgettext("figure", "zero-shot RoPE scaling (s = T/L)"))
    right.set_title(pgettext("figure", "every family, and fine-tuned RoPE"))
    fig.suptitle(title)
    return fig


def loss_figure(results: dict) -> Figure:
    """Loss by position at the longest length, in the two panels of :func:`_two_panels`."""
    meta = results["meta"]
    title = pgettext(
        "figure",
        "Copy-LM loss by position at T = {length} (buckets of {bucket} positions; line = mean over seeds, "
        "band = range over seeds)",
    ).format(length=max(meta["lengths"]), bucket=meta["bucket"])
    return _two_panels(results, plot_loss_by_position, 3.8, title)


def passkey_figure(results: dict) -> Figure:
    """Passkey accuracy against length, in the two panels of :func:`_two_panels`."""
    title = pgettext(
        "figure", "Passkey retrieval (line = mean over seeds, band = range over seeds; L = {train_len})"
    ).format(train_len=results["meta"]["train_len"])
    return _two_panels(results, plot_passkey_by_length, 3.6, title)


def learned_table_figure(table: np.ndarray, rows_reached: int, learned_sim: np.ndarray, sin_sim: np.ndarray) -> Figure:
    """Notebook 03's picture: the learned table (N, D), its row similarities (N, N), the sinusoidal table's (N, N)."""
    fig = Figure(figsize=(11.0, 3.3), layout="constrained")
    a, b, c = fig.subplots(1, 3, width_ratios=[1.6, 1, 1])
    plot_learned_table(table, rows_reached, ax=a)
    plot_similarity(learned_sim, title=pgettext("figure", "learned: cosine similarity of rows"), ax=b)
    plot_similarity(sin_sim, title=pgettext("figure", "sinusoidal: cosine similarity of rows"), ax=c)
    return fig


def results_figures(results: dict, learned: tuple | None = None) -> dict[str, Figure]:
    """The figures saved beside ``results.json`` (keys of :data:`helpers.lab.records.PLOTS`): loss by position and
    passkey by length (tiny; and small when evaluated), and the learned table's figure when ``learned`` =
    (table (N, D), rows_reached, its row similarities (N, N), the sinusoidal table's (N, N)) is given."""
    figures = {"loss_by_position": loss_figure(results), "passkey_by_length": passkey_figure(results)}
    if "small" in results.get("scales", {}):
        figures["passkey_by_length_small"] = passkey_figure(at_scale(results, "small"))
    if learned is not None:
        figures["learned_table"] = learned_table_figure(*learned)
    return figures


def plot_learned_table(table: np.ndarray, rows_reached: int, *, ax: Axes | None = None) -> Axes:
    """The learned position table as an image (rows = positions); a line where training stopped reaching rows."""
    ax = _new_axes(ax)
    limit = float(np.abs(table).max())
    ax.imshow(table.T, aspect="auto", cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
    ax.axvline(rows_reached - 0.5, color="k", lw=1)
    ax.set_xlabel(pgettext("figure", "position (row of the table)"))
    ax.set_ylabel(pgettext("figure", "dimension"))
    ax.set_title(
        pgettext("figure", "learned table: rows ≥ {rows_reached} never trained").format(rows_reached=rows_reached)
    )
    return ax


def plot_similarity(similarity: np.ndarray, *, title: str, ax: Axes | None = None) -> Axes:
    """A (T, T) cosine-similarity matrix of position vectors."""
    ax = _new_axes(ax, (3.2, 3.0))
    ax.imshow(similarity, cmap="RdBu_r", vmin=-1, vmax=1, origin="lower")
    ax.set_xlabel(pgettext("figure", "position q"))
    ax.set_ylabel(pgettext("figure", "position p"))
    ax.set_title(title, fontsize=9)
    return ax


# --------------------------------------------------------------------------- notebook 05b §1: one live run
class LiveRun:
    """Two axes updated in place: left, loss by position (nats) of one run, smoothed over ``L/4``-token buckets (as the stored results),
    with the training length L marked; right, the layer-0 attention map of its sharpest previous-token head
    (block max, colour on a square-root scale so weak weights stay visible)."""

    def __init__(self, axes):
        self.loss_ax, self.map_ax = axes
        (self.line,) = self.loss_ax.plot([], [], lw=1.4)
        self.train_line = self.loss_ax.axvline(0, color="0.5", ls="--", lw=0.8)
        self.train_text = self.loss_ax.text(
            0, 0.97, " L", transform=self.loss_ax.get_xaxis_transform(), va="top", fontsize=8, color="0.4"
        )
        self.note = self.loss_ax.text(0.5, 0.5, "", transform=self.loss_ax.transAxes, ha="center", fontsize=9)
        self.loss_ax.set_xlabel(pgettext("figure", "position (tokens)"))
        self.loss_ax.set_ylabel(pgettext("figure", "next-token loss (nats)"))
        self.loss_ax.set_ylim(0.0, 7.0)
        self.loss_ax.axhline(np.log(107), color="0.7", lw=0.8, ls=":")
        self.image = self.map_ax.imshow(
            np.zeros((2, 2)),
            cmap="magma",
            norm=PowerNorm(0.5, vmin=0.0, vmax=1.0),
            origin="upper",
            interpolation="nearest",
        )
        self.map_ax.set_xlabel(pgettext("figure", "key position (tokens)"))
        self.map_ax.set_ylabel(pgettext("figure", "query position (tokens)"))

    def update(self, run: dict, *, label: str, length: int, color: str = "C0"):
        if run["status"] != "ok":  # every property a run sets, back to a fresh drawing's (no run, no L to mark)
            self.line.set_data([], [])
            self.note.set_text(run["message"][:60] + "…")
            self.train_line.set_visible(False)
            self.train_text.set_visible(False)
            self.image.set_data(np.zeros((2, 2)))
            self.image.set_extent((-0.5, 1.5, 1.5, -0.5))  # imshow's own extent of a 2 × 2 image
            self.loss_ax.set_xlim(0, length)
            self.map_ax.set_title(pgettext("figure", "cannot run"), fontsize=9, pad=4)
            self.loss_ax.set_title(label, fontsize=9, pad=4)
            return
        self.note.set_text("")
        self.train_line.set_visible(True)
        self.train_text.set_visible(True)
        losses = run["loss_by_position"]
        train_len = run["train_len"]
        bucket = max(train_len // 4, 1)
        n = len(losses) // bucket
        centres = np.arange(n) * bucket + bucket / 2
        self.line.set_data(centres, losses[: n * bucket].reshape(n, bucket).mean(1))
        self.line.set_color(color)
        self.loss_ax.set_xlim(0, len(losses))
        self.train_line.set_xdata([train_len, train_len])
        self.train_text.set_x(train_len)
        self.loss_ax.set_title(
            pgettext("figure", "{label}: mean loss {loss:.2f} nats").format(label=label, loss=run["loss"]),
            fontsize=9,
            pad=4,
        )
        extent = (0, run["map_length"], run["map_length"], 0)
        self.image.set_data(run["attention"])
        self.image.set_extent(extent)
        self.map_ax.set_title(
            pgettext("figure", "layer 0, head {head}: previous-token weight {previous_token:.2f}").format(
                head=run["head"], previous_token=run["previous_token"]
            ),
            fontsize=9,
            pad=4,
        )
