"""Figures for notebook 01 (position blindness), and the weight-scale figure of notebook 04 (RoPE), Appendix C.

Self-attention without position information is permutation-equivariant: reorder the tokens and the
outputs are the same rows, reordered (errata E9). A causal mask breaks that symmetry, and weights drawn
as ``torch.randn(d, d)`` saturate the softmax (errata E10). The numbers (the chapter's toy sentences run
through a seeded head, the d = 512 example) come from :mod:`helpers.attention`; this module only draws them.
Plotting functions take ``ax=None`` (or ``axes=None``), draw, and return the axes.

Chinese tick labels need a CJK font. :func:`helpers.plots._style.cjk_font` looks for one that really has the
glyphs; without one, :func:`token_label` falls back to English + pinyin, so matplotlib never warns "Glyph … missing".
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.ticker import MaxNLocator

from helpers.attention import TOKENS
from helpers.i18n import pgettext, pN_
from helpers.plots._style import LiveLegend, as_array, cjk_font, label, new_axes


def token_label(token: str, *, chinese: bool | None = None, multiline: bool = False) -> str:
    """Tick label for a token: "猫 (cat)" when Chinese can be drawn, else "cat (māo)".

    ``chinese``: force one style (None: use Chinese exactly when :func:`cjk_font` finds a font).
    ``multiline``: put the translation (or the pinyin) on a second line, for narrow axes.
    """
    if token not in TOKENS:
        raise ValueError(f"token must be one of {list(TOKENS)}, got {token!r}")
    english, pinyin = TOKENS[token]
    if token == "<s>":
        return "<s>"
    if chinese is None:
        chinese = cjk_font() is not None
    first, second = (token, english) if chinese else (english, pinyin)
    return f"{first}\n{second}" if multiline else f"{first} ({second})"


def _tick_font() -> dict:
    name = cjk_font()
    return {"fontfamily": [name, "DejaVu Sans"]} if name else {}


# --------------------------------------------------------------------------- plots
class AttentionMap:
    """Heatmap of attention weights: row = query token (who attends), column = key token (attended to).

    Drawn once on ``ax``; :meth:`update` sets the weights, the token tick labels and the cell annotations (when
    ``annotate`` and the matrix has at most 64 cells), so a panel redraw creates no image or text artist.
    """

    def __init__(self, ax, *, annotate: bool = True):
        self.ax, self.annotate = ax, annotate
        self.image = ax.imshow(np.zeros((1, 1)), vmin=0.0, vmax=1.0, cmap="viridis")
        self.cells: list = []
        self.shape = None
        label(ax, xlabel=pgettext("figure", "key (attended to)"), ylabel=pgettext("figure", "query (attending)"))

    def update(self, weights, tokens: Sequence[str], *, title: str | None = None, query_tokens=None):
        w = as_array(weights, "weights")
        if w.ndim != 2:
            raise ValueError(f"weights must be 2-D (T_q, T_k), got shape {w.shape}")
        query_tokens = tokens if query_tokens is None else query_tokens
        if (len(query_tokens), len(tokens)) != w.shape:
            raise ValueError(f"weights shape {w.shape} does not match {len(query_tokens)} queries × {len(tokens)} keys")
        if w.shape != self.shape:
            self.shape = w.shape
            self.image.set_extent((-0.5, w.shape[1] - 0.5, w.shape[0] - 0.5, -0.5))
            self.ax.set_xlim(-0.5, w.shape[1] - 0.5)
            self.ax.set_ylim(w.shape[0] - 0.5, -0.5)
            for text in self.cells:
                text.remove()
            shown = self.annotate and w.size <= 64
            self.cells = (
                [self.ax.text(j, i, "", ha="center", va="center", fontsize=8) for (i, j), _ in np.ndenumerate(w)]
                if shown
                else []
            )
        self.image.set_data(w)
        font = _tick_font()
        self.ax.set_xticks(range(len(tokens)), [token_label(t, multiline=True) for t in tokens], **font)
        self.ax.set_yticks(range(len(query_tokens)), [token_label(t, multiline=True) for t in query_tokens], **font)
        for text, a in zip(self.cells, w.ravel(), strict=False):
            text.set_text(f"{a:.2f}")
            text.set_color("black" if a > 0.6 else "white")
        self.ax.set_title(title or "")
        return self.ax


def plot_attention(
    weights, tokens: Sequence[str], ax=None, *, title: str | None = None, annotate: bool = True, query_tokens=None
):
    """Heatmap of attention weights (T_q, T_k) in [0, 1] with token tick labels (:class:`AttentionMap`).

    ``tokens`` label the keys (and the queries unless ``query_tokens``). Cells are annotated with their weight when
    ``annotate`` and the matrix is small.
    """
    drawing = AttentionMap(new_axes(ax, figsize=(3.4, 3.2)), annotate=annotate)
    return drawing.update(weights, tokens, title=title, query_tokens=query_tokens)


def bar_heights(collection: PolyCollection) -> np.ndarray:
    """The heights of bars drawn by this module (for tests and checks): the non-zero y of each bar."""
    return np.array([path.vertices[2, 1] for path in collection.get_paths()])


def _bar_verts(heights: np.ndarray, width: float = 0.8) -> list:
    half = width / 2
    return [[(x - half, 0.0), (x + half, 0.0), (x + half, h), (x - half, h)] for x, h in enumerate(heights)]


class PooledBars:
    """Bars of a mean-pooled output vector (one bar per dimension), with an optional reference as black outlines.

    Equal vectors put the outlines exactly on the bar edges. The bars are PolyCollections (:func:`bar_heights`
    reads them back) created once and updated in place; the y range leaves headroom for the legend.
    """

    def __init__(
        self, ax, *, pooled_label: str = pN_("figure", "this order"), reference_label: str = pN_("figure", "reference")
    ):
        self.ax = ax
        self.bars = ax.add_collection(
            PolyCollection([], facecolor="tab:blue", label=pgettext("figure", pooled_label)), autolim=False
        )
        self.outlines = PolyCollection(
            [], facecolor="none", edgecolor="black", linewidth=1.5, label=pgettext("figure", reference_label)
        )
        ax.add_collection(self.outlines, autolim=False)
        self.zero = ax.axhline(0.0, color="grey", linewidth=0.8)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=4))  # few tick labels: text layout dominates the redraw time
        self.legend = LiveLegend(ax, fontsize=8, loc="upper center", ncol=2)
        self.size = None
        label(ax, xlabel=pgettext("figure", "output dimension j"), ylabel=pgettext("figure", "mean over tokens (a.u.)"))

    def update(self, pooled, *, reference=None, title: str | None = None):
        p = as_array(pooled, "pooled").ravel()
        r = None
        if reference is not None:
            r = as_array(reference, "reference").ravel()
            if r.shape != p.shape:
                raise ValueError(f"reference shape {r.shape} must match pooled shape {p.shape}")
        self.bars.set_verts(_bar_verts(p))
        self.outlines.set_visible(r is not None)
        self.outlines.set_verts(_bar_verts(r) if r is not None else [])
        if p.size != self.size:
            self.size = p.size
            self.ax.set_xlim(-0.6, p.size - 0.4)
            self.ax.set_xticks(np.arange(p.size))
        top = 1.1 * max(float(np.abs(p).max()), float(np.abs(r).max()) if r is not None else 0.0, 1e-12)
        self.ax.set_ylim(-top, 1.7 * top)  # headroom for the legend, so it never hides a bar
        shown = [self.bars] if r is None else [self.bars, self.outlines]
        self.legend.update(shown, [c.get_label() for c in shown])
        self.ax.set_title(title or "")
        return self.ax


def plot_pooled(
    pooled,
    ax=None,
    *,
    reference=None,
    title: str | None = None,
    pooled_label: str = pN_("figure", "this order"),
    reference_label: str = pN_("figure", "reference"),
):
    """Bars of a mean-pooled output vector (d,), with an optional reference (d,) as outlines (:class:`PooledBars`)."""
    drawing = PooledBars(new_axes(ax), pooled_label=pooled_label, reference_label=reference_label)
    return drawing.update(pooled, reference=reference, title=title)


class WeightScale:
    """Left: one attention matrix (T, T) as a heatmap (colour 0 = dark purple … 1 = yellow); right: the entropy
    of each row in nats (:func:`helpers.attention.row_entropy`), as stems, so that a one-hot row (H = 0) still shows
    as a dot on the axis. The right panel marks ln T (uniform rows). Drawn once; :meth:`update` sets the data.
    """

    def __init__(self, axes):
        self.axes = axes
        ax_map, ax_h = axes
        self.image = ax_map.imshow(np.zeros((1, 1)), vmin=0.0, vmax=1.0, cmap="viridis")
        label(
            ax_map,
            xlabel=pgettext("figure", "key position n (tokens)"),
            ylabel=pgettext("figure", "query position m (tokens)"),
        )
        self.stems = ax_h.vlines([], [], [], color="tab:orange", linewidth=2)
        (self.dots,) = ax_h.plot([], [], "o", color="tab:orange", label=pgettext("figure", "row entropy"))
        self.uniform = ax_h.axhline(1.0, color="black", linestyle="--", linewidth=1)
        ax_h.yaxis.set_major_locator(MaxNLocator(nbins=4))
        self.legend = LiveLegend(ax_h, fontsize=8, loc="upper right")  # one column: two would overhang the axes
        self.size = None
        label(
            ax_h,
            xlabel=pgettext("figure", "query position m (tokens)"),
            ylabel=pgettext("figure", "row entropy H (nats)"),
        )

    def update(self, weights, entropy, *, weight_scale: float | None = None):
        w = as_array(weights, "weights")  # (T, T)
        if w.ndim != 2 or w.shape[0] != w.shape[1]:
            raise ValueError(f"weights must be a square (T, T) matrix, got shape {tuple(w.shape)}")
        h = as_array(entropy, "entropy")  # (T,)
        if h.shape != (w.shape[0],):
            raise ValueError(f"entropy must have shape (T,) = ({w.shape[0]},), one value per row, got {h.shape}")
        ax_map, ax_h = self.axes
        t = w.shape[0]
        if t != self.size:
            self.size = t
            ticks = np.arange(0, t, 3 if t > 6 else 1)
            self.image.set_extent((-0.5, t - 0.5, t - 0.5, -0.5))
            ax_map.set_xlim(-0.5, t - 0.5)
            ax_map.set_ylim(t - 0.5, -0.5)
            for ax in self.axes:
                ax.set_xticks(ticks)
            ax_map.set_yticks(ticks)
            self.uniform.set_ydata([math.log(t), math.log(t)])
            self.uniform.set_label(pgettext("figure", "uniform: ln {t} = {ln_t:.2f}").format(t=t, ln_t=math.log(t)))
            ax_h.set_xlim(-0.05 * (t - 1), 1.05 * (t - 1))  # autoscaling's 5 % margins, fixed
            ax_h.set_ylim(-0.08 * math.log(t), 1.35 * math.log(t))
        self.image.set_data(w)
        scale = (
            pgettext("figure", "attention weights")
            if weight_scale is None
            else pgettext("figure", "weights at s = {s:.3g}").format(s=weight_scale)
        )
        ax_map.set_title(scale)
        pos = np.arange(t)
        self.stems.set_segments([[(x, 0.0), (x, y)] for x, y in zip(pos, h, strict=True)])
        self.dots.set_data(pos, h)
        self.legend.update([self.dots, self.uniform], [self.dots.get_label(), self.uniform.get_label()])
        ax_h.set_title(
            pgettext("figure", "mean max weight {max_weight:.3f}, mean H {mean_h:.2f} nats").format(
                max_weight=w.max(-1).mean(), mean_h=h.mean()
            )
        )
        return ax_h


def plot_weight_scale(weights, entropy, axes=None, *, weight_scale: float | None = None):
    """An attention matrix (T, T) and the entropy of each of its rows (T,) (:class:`WeightScale`)."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(6.0, 3.2), layout="constrained", width_ratios=(1, 1.3))
    return WeightScale(axes).update(weights, entropy, weight_scale=weight_scale)


def _causal_and_full(ax, causal, full) -> np.ndarray:
    """One value per position with a causal mask (circles) and without (squares, dashed); returns the positions."""
    causal, full = as_array(causal, "causal").ravel(), as_array(full, "full").ravel()
    pos = np.arange(causal.size)
    ax.plot(pos, causal, "o-", label=pgettext("figure", "causal mask"))
    ax.plot(pos, full, "s--", label=pgettext("figure", "no mask"))
    return pos


def plot_first_token_weight(weight_causal, weight_full, ax=None):
    """Weight each query puts on the sequence's first token, by query position, with and without a causal mask."""
    ax = new_axes(ax)
    _causal_and_full(ax, weight_causal, weight_full)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8)
    return label(
        ax,
        xlabel=pgettext("figure", "query position t (tokens)"),
        ylabel=pgettext("figure", "weight on token 0"),
        title=pgettext("figure", "weight on the first token"),
    )


def plot_output_variance(var_causal, var_full, ax=None, *, value_variance: float | None = None):
    """Variance of the attention output at each position, over random sequences: causal vs no mask.

    ``value_variance``: if given, also draw σ_v²/(t+1), what uniform causal weights would give.
    """
    ax = new_axes(ax)
    pos = _causal_and_full(ax, var_causal, var_full)
    if value_variance is not None:
        ax.plot(pos, value_variance / (pos + 1), ":", color="black", label="σ_v²/(t+1)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    return label(
        ax,
        xlabel=pgettext("figure", "position t (tokens)"),
        ylabel=pgettext("figure", "variance across sequences"),
        title=pgettext("figure", "output variance by position"),
    )
