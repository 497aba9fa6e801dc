"""Figures for notebook 06: position in the scores (T5 relative buckets, ALiBi, no encoding at all).

Pure drawing: NumPy arrays in, matplotlib axes out (no torch here; the notebook and :mod:`helpers.widgets.
score_biases` compute buckets, slopes and biases with :mod:`helpers.score_biases` and pass arrays). Every ``plot_*``
function takes ``ax=None`` (or ``axes=None``), draws and returns the axes.

The two slider figures are split into a part that is drawn once (:func:`frame_buckets`, :func:`frame_alibi`: axes
labels, fixed artists) and the data of one setting (:func:`bucket_parts`, :func:`alibi_parts`), so the panels can
update their artists in place; :func:`plot_buckets` and :func:`plot_alibi` draw the same figures in one call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import TwoSlopeNorm
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator, NullLocator

from helpers.i18n import pgettext, pN_
from helpers.methods import method_style
from helpers.plots._style import label, new_axes

PAST, FUTURE = "tab:blue", "tab:orange"
#: Most heads the ALiBi figure draws (its slider goes to 64).
MAX_HEADS = 64


def _title(ax, text: str) -> None:
    """A title at a fixed height (y=1.0): matplotlib then does not measure the tick labels to place it."""
    ax.set_title(text, y=1.0, fontsize=10)


def _matrix(x, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (T_q, T_k), got shape {arr.shape}")
    return arr


# --------------------------------------------------------------------------- section 1: scores + bias
def plot_score_decomposition(content, bias, *, causal: bool = True, axes=None, titles: Sequence[str] | None = None):
    """Three heatmaps over (query m, key n): content scores q·k/√d, the bias B, and their sum (masked if causal).

    ``content`` and ``bias``: (T, T) arrays. Masked entries (key after query) are left blank. Returns the 3 axes.
    """
    content, bias = _matrix(content, "content"), _matrix(bias, "bias")
    if content.shape != bias.shape:
        raise ValueError(f"content and bias must have the same shape, got {content.shape} and {bias.shape}")
    if axes is None:
        _fig, axes = plt.subplots(1, 3, figsize=(9.6, 3.2), layout="constrained")
    total = content + bias  # (T, T)
    if causal:
        future = np.triu(np.ones(total.shape, dtype=bool), 1)  # (T, T)
        total = np.where(future, np.nan, total)
    titles = titles or (
        pgettext("figure", "content: q·k/√d"),
        pgettext("figure", "bias B[m, n]"),
        pgettext("figure", "score = content + B (masked)") if causal else pgettext("figure", "score = content + B"),
    )
    lim = float(np.nanmax(np.abs(np.concatenate([content.ravel(), bias.ravel(), total.ravel()]))))
    norm = TwoSlopeNorm(0.0, -lim, lim) if lim > 0 else None
    for ax, mat, title in zip(axes, (content, bias, total), titles, strict=True):
        im = ax.imshow(mat, cmap="RdBu_r", norm=norm)
        label(
            ax, xlabel=pgettext("figure", "key position n"), ylabel=pgettext("figure", "query position m"), title=title
        )
        ax.xaxis.set_major_locator(MaxNLocator(5, integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(5, integer=True))
    axes[-1].figure.colorbar(im, ax=list(axes), shrink=0.8, label=pgettext("figure", "logit"))
    return axes


def plot_bias_matrix(
    bias,
    ax=None,
    *,
    title: str = pN_("figure", "bias B[m, n]"),
    causal: bool = True,
    cbar_label: str = pN_("figure", "bias"),
):
    """Heatmap of one head's bias (T_q, T_k); with ``causal`` the entries above the diagonal are left blank."""
    mat = _matrix(bias, "bias").copy()
    if causal:
        mat[np.triu(np.ones(mat.shape, dtype=bool), 1 + mat.shape[1] - mat.shape[0])] = np.nan
    ax = new_axes(ax, figsize=(4.2, 3.4))
    im = ax.imshow(mat, cmap="viridis")
    ax.figure.colorbar(im, ax=ax, label=pgettext("figure", cbar_label))
    return label(
        ax,
        xlabel=pgettext("figure", "key position n"),
        ylabel=pgettext("figure", "query position m"),
        title=pgettext("figure", title),
    )


# --------------------------------------------------------------------------- section 2: T5 buckets
#: Distances the bucket figure covers (0..BUCKET_SPAN−1), on a symlog axis so that log-spaced buckets look even.
BUCKET_SPAN = 2048
BUCKET_TICKS = (0, 1, 4, 16, 64, 256, 1024)


def bucket_parts(distance, past, future=None, *, num_buckets: int, exact: int, max_distance: int) -> dict:
    """What the bucket figure shows for one setting (arrays from :func:`helpers.score_biases.t5_relative_bucket`).

    ``distance``: (R,) integer distances 0..R−1; ``past``: (R,) bucket of a key ``distance`` tokens *before* the
    query; ``future``: (R,) bucket of a key that far *after* it (bidirectional), or None (causal). ``exact``: the
    number of distances with their own bucket per direction; ``max_distance``: where the shared last bucket starts.
    """
    distance = np.asarray(distance, dtype=np.float64)
    past = np.asarray(past, dtype=np.float64)
    if past.shape != distance.shape or (future is not None and np.shape(future) != distance.shape):
        raise ValueError(f"past (and future) must have the shape of distance {distance.shape}")
    mode = "bidirectional" if future is not None else "causal"
    n_past = len(np.unique(past))
    legend = [pgettext("figure", "key before the query: {n} buckets").format(n=n_past)]
    if future is not None:
        legend.append(pgettext("figure", "key after the query: {n} buckets").format(n=len(np.unique(future[1:]))))
    return {
        "distance": distance,
        "past": past,
        "future": None if future is None else np.asarray(future, dtype=np.float64),
        "exact": float(exact),
        "max_distance": float(max_distance),
        "xlim": (0.0, float(distance[-1])),
        "ylim": (-0.5, num_buckets - 0.5),
        "title": f"T5 buckets, {mode}: {num_buckets} buckets, max_distance {max_distance}",
        "legend": legend,
    }


def frame_buckets(ax) -> dict:
    """Labels and the artists of the bucket figure, created once (empty); :func:`update_buckets` fills them."""
    label(
        ax,
        xlabel=pgettext("figure", "distance |m − n| (tokens, symlog scale)"),
        ylabel=pgettext("figure", "bucket index"),
    )
    ax.set_xscale("symlog", linthresh=1.0, linscale=0.5)
    ax.xaxis.set_major_locator(FixedLocator(BUCKET_TICKS))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_locator(MaxNLocator(6, integer=True))
    band = {"transform": ax.get_xaxis_transform(), "lw": 0}
    artists = {
        "exact_band": ax.add_patch(Rectangle((0, 0), 0, 1, color="0.9", **band)),
        "far_band": ax.add_patch(Rectangle((0, 0), 0, 1, color="mistyrose", **band)),
        "past": ax.plot([], [], drawstyle="steps-post", color=PAST, lw=1.5)[0],
        "future": ax.plot([], [], drawstyle="steps-post", color=FUTURE, lw=1.5, ls="--")[0],
        "exact_text": ax.text(0.05, 0.97, "", transform=ax.get_xaxis_transform(), fontsize=8, va="top"),
        "far_text": ax.text(0.99, 0.03, "", transform=ax.transAxes, fontsize=8, ha="right"),
        "message": ax.text(0.5, 0.5, "", transform=ax.transAxes, ha="center", va="center", fontsize=9, color="C3"),
        "legend": None,
    }
    return artists


def update_buckets(ax, artists: dict, parts: dict | None, *, message: str = ""):
    """Set the bucket figure's artists to ``parts`` (:func:`bucket_parts`), or show only ``message`` if None."""
    artists["message"].set_text(message)
    shown = parts is not None
    for key in ("past", "future", "exact_band", "far_band", "exact_text", "far_text"):
        artists[key].set_visible(shown)
    if artists["legend"] is not None:
        artists["legend"].set_visible(shown)
    if not shown:
        ax.set_xlim(0.0, BUCKET_SPAN - 1.0)
        ax.set_ylim(0.0, 1.0)
        _title(ax, pgettext("figure", "T5 buckets: a setting T5's bucketing refuses"))
        return ax
    d = parts["distance"]
    artists["past"].set_data(d, parts["past"])
    fut = parts["future"]
    artists["future"].set_visible(fut is not None)
    artists["future"].set_data(d, parts["past"] if fut is None else fut)
    exact, far = parts["exact"], parts["max_distance"]
    artists["exact_band"].set_width(exact - 0.5)
    artists["exact_text"].set_text(pgettext("figure", "exact: 0..{last_exact:g}").format(last_exact=exact - 1))
    artists["far_band"].set_x(far)
    artists["far_band"].set_width(max(parts["xlim"][1] - far, 0.0))
    artists["far_text"].set_text(pgettext("figure", "red: every distance ≥ {far:g} shares one bucket").format(far=far))
    ax.set_xlim(*parts["xlim"])
    ax.set_ylim(*parts["ylim"])
    _title(ax, parts["title"])
    handles = [artists["past"]] + ([artists["future"]] if fut is not None else [])
    for line, text in zip(handles, parts["legend"], strict=True):
        line.set_label(text)
    legend = artists["legend"]
    if legend is None or len(legend.get_texts()) != len(handles):
        if legend is not None:
            legend.remove()
        artists["legend"] = ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, 0.9), fontsize=8)
    else:  # same entries: change their texts only
        for t, text in zip(legend.get_texts(), parts["legend"], strict=True):
            t.set_text(text)
    return ax


def plot_buckets(distance, past, future=None, *, num_buckets: int, exact: int, max_distance: int, ax=None):
    """T5's bucket index against distance: exact steps (grey), log-spaced steps, one shared bucket (red band)."""
    ax = new_axes(ax)
    parts = bucket_parts(distance, past, future, num_buckets=num_buckets, exact=exact, max_distance=max_distance)
    return update_buckets(ax, frame_buckets(ax), parts)


# --------------------------------------------------------------------------- section 3: ALiBi
def alibi_parts(slopes, max_distance: int, threshold: float) -> dict:
    """What the ALiBi figure shows: each head's penalty −slope·d for d = 0..max_distance, and its window.

    ``slopes``: (H,) ALiBi slopes (:func:`helpers.score_biases.alibi_slopes`), H ≤ :data:`MAX_HEADS`;
    ``threshold``: in nats; a head's window is threshold / slope (tokens).
    """
    slopes = np.asarray(slopes, dtype=np.float64)
    if slopes.ndim != 1 or not 1 <= len(slopes) <= MAX_HEADS or np.any(slopes <= 0):
        raise ValueError(f"slopes must be 1..{MAX_HEADS} positive numbers, got shape {slopes.shape}")
    d = np.array([0.0, float(max_distance)])  # a penalty is a straight line: two points suffice
    windows = threshold / slopes  # (H,)
    order = np.argsort(-slopes, kind="stable")  # steepest first: head numbers as in the paper's order
    heads = np.arange(1, len(slopes) + 1, dtype=np.float64)
    inside = windows <= max_distance
    return {
        "d": d,
        "penalties": [-s * d for s in slopes],  # H × (2,)
        "threshold": float(threshold),
        "windows": windows,
        "heads": heads,
        "order": order,
        "xlim": (0.0, float(max_distance)),
        "ylim": (-2.0 * threshold, 0.1 * threshold),
        "title_left": pgettext("figure", "ALiBi penalty −slope·d, H = {n_heads} heads (darkest: head 1)").format(
            n_heads=len(slopes)
        ),
        "title_right": pgettext("figure", "window = {threshold:.3g} / slope (tokens)").format(threshold=threshold),
        "caption": pgettext("figure", "{n_inside} of {n_heads} windows within {max_distance} tokens").format(
            n_inside=int(inside.sum()), n_heads=len(slopes), max_distance=max_distance
        ),
        "wlim": (0.5 * float(windows.min()), 2.0 * float(windows.max())),
    }


def frame_alibi(axes) -> dict:
    """Labels and artists of the two-panel ALiBi figure (penalty lines; window per head), created once."""
    ax_p, ax_w = axes
    label(
        ax_p, xlabel=pgettext("figure", "distance m − n (tokens)"), ylabel=pgettext("figure", "bias added to the logit")
    )
    label(ax_w, xlabel=pgettext("figure", "head h"), ylabel=pgettext("figure", "window (tokens)"))
    ax_w.set_yscale("log")
    ax_w.yaxis.set_major_locator(LogLocator(base=10, numticks=6))
    ax_w.yaxis.set_minor_locator(NullLocator())  # minor ticks on a log axis cost more to draw than the data
    ax_w.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # plain text: no mathtext to parse
    ax_w.xaxis.set_major_locator(MaxNLocator(6, integer=True))
    ax_p.xaxis.set_major_locator(MaxNLocator(5))
    ax_p.yaxis.set_major_locator(MaxNLocator(5))
    cmap = plt.get_cmap("viridis")
    artists = {
        "lines": [ax_p.plot([], [], lw=1.0, color=cmap(i / (MAX_HEADS - 1)))[0] for i in range(MAX_HEADS)],
        "threshold": ax_p.axhline(0.0, color="k", ls="--", lw=1.0),
        "threshold_text": ax_p.text(0.98, 0.0, "", ha="right", va="bottom", fontsize=8, transform=ax_p.transData),
        "stems": ax_w.plot([], [], color="goldenrod", lw=1.0)[0],
        "dots": ax_w.plot([], [], "o", color="goldenrod", ms=3)[0],
        "reach": ax_w.axhline(1.0, color="k", ls=":", lw=1.0),
        "caption": ax_w.text(0.02, 0.97, "", transform=ax_w.transAxes, fontsize=8, va="top"),
    }
    return artists


def update_alibi(axes, artists: dict, parts: dict):
    """Set the ALiBi figure's artists to ``parts`` (:func:`alibi_parts`)."""
    ax_p, ax_w = axes
    n = len(parts["penalties"])
    for i, line in enumerate(artists["lines"]):
        line.set_visible(i < n)
        if i < n:
            line.set_data(parts["d"], parts["penalties"][i])
            line.set_color(plt.get_cmap("viridis")(i / max(n - 1, 1)))
    tau = parts["threshold"]
    artists["threshold"].set_ydata([-tau, -tau])
    text = artists["threshold_text"]
    text.set_position((0.98 * parts["xlim"][1], -tau))
    text.set_text(
        pgettext("figure", "threshold −{tau:.3g} (weight × {weight:.2g})").format(tau=tau, weight=np.exp(-tau))
    )
    ax_p.set_xlim(*parts["xlim"])
    ax_p.set_ylim(*parts["ylim"])
    _title(ax_p, parts["title_left"])
    h, w = parts["heads"], parts["windows"]
    stem_x = np.repeat(h, 3)
    stem_y = np.stack([np.full_like(w, parts["wlim"][0]), w, np.full_like(w, np.nan)], axis=1).ravel()
    artists["stems"].set_data(stem_x, stem_y)
    artists["dots"].set_data(h, w)
    artists["reach"].set_ydata([parts["xlim"][1]] * 2)
    artists["caption"].set_text(pgettext("figure", "{caption} (dotted)").format(caption=parts["caption"]))
    ax_w.set_xlim(0.3, len(h) + 0.7)
    ax_w.set_ylim(*parts["wlim"])
    _title(ax_w, parts["title_right"])
    return axes


def plot_alibi(slopes, max_distance: int, threshold: float, axes=None):
    """Two panels: each head's penalty against distance with the threshold, and each head's window (log scale)."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(9.0, 3.2), layout="constrained")
    return update_alibi(axes, frame_alibi(axes), alibi_parts(slopes, max_distance, threshold))


def plot_alibi_slopes(slopes, ax=None):
    """Each head's slope on a log2 axis (the geometric sequence is a straight line for a power of two)."""
    slopes = np.asarray(slopes, dtype=np.float64)
    ax = new_axes(ax, figsize=(5.0, 3.0))
    heads = np.arange(1, len(slopes) + 1)
    ax.plot(heads, slopes, "o", color="goldenrod")
    ax.set_yscale("log", base=2)
    ax.xaxis.set_major_locator(MaxNLocator(8, integer=True))
    return label(
        ax,
        xlabel=pgettext("figure", "head h"),
        ylabel=pgettext("figure", "slope (log₂ scale)"),
        title=pgettext("figure", "ALiBi slopes, H = {n_heads}").format(n_heads=len(slopes)),
    )


# --------------------------------------------------------------------------- section 4: NoPE
def plot_mean_norms(positions, causal, bidirectional, predicted, ax=None):
    """‖output‖ of uniform attention by position, with and without the causal mask, and the 1/√(t+1) law."""
    ax = new_axes(ax)
    ax.plot(positions, causal, ".", ms=4, color=PAST, label=pgettext("figure", "causal mask (averages t + 1 tokens)"))
    ax.plot(positions, predicted, "-", lw=1.0, color="k", label=pgettext("figure", "prediction √(d/(t+1))"))
    ax.plot(
        positions, bidirectional, ".", ms=4, color=FUTURE, label=pgettext("figure", "no mask (averages all T tokens)")
    )
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    return label(
        ax,
        xlabel=pgettext("figure", "position t (tokens)"),
        ylabel=pgettext("figure", "‖attention output‖"),
        title=pgettext("figure", "uniform attention, random embeddings"),
    )


def plot_probe(positions, predictions: Mapping[str, np.ndarray], ax=None, *, train_len: int | None = None):
    """A linear probe's predicted position against the true one, one series per layer (mean over sequences)."""
    ax = new_axes(ax)
    positions = np.asarray(positions, dtype=np.float64)
    ax.plot(positions, positions, color="0.6", lw=1.0, ls=":", label=pgettext("figure", "perfect"))
    for name, pred in predictions.items():
        ax.plot(positions, np.asarray(pred, dtype=np.float64), lw=1.2, label=name)
    if train_len is not None:
        ax.axvline(
            train_len - 0.5,
            color="k",
            ls="--",
            lw=1.0,
            label=pgettext("figure", "training length L = {train_len}").format(train_len=train_len),
        )
    ax.legend(fontsize=8)
    return label(
        ax,
        xlabel=pgettext("figure", "true position t (tokens)"),
        ylabel=pgettext("figure", "probe's position (tokens)"),
        title=pgettext("figure", "linear probe for position"),
    )


# --------------------------------------------------------------------------- section 5: families side by side
def plot_family_curves(
    x, curves: Mapping[str, np.ndarray], ax=None, *, spread: Mapping[str, np.ndarray] | None = None, **labels
):
    """One line per positional family (styles from :mod:`helpers.methods`), with an optional min–max band."""
    ax = new_axes(ax)
    x = np.asarray(x, dtype=np.float64)
    for name, y in curves.items():
        style = method_style(name)
        ax.plot(x, np.asarray(y, dtype=np.float64), marker="o", ms=3, **style)
        if spread is not None and name in spread:
            lo, hi = np.asarray(spread[name], dtype=np.float64)
            ax.fill_between(x, lo, hi, color=style["color"], alpha=0.15, lw=0)
    ax.legend(fontsize=8)
    return label(ax, **labels)
