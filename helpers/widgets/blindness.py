"""Panels for notebook 01 (position blindness).

* :func:`explorer_panel`: reorder the chapter's tokens, switch position information (none / X + PE /
  RoPE) and the causal mask; redraws the attention heatmap and the mean-pooled output next to the
  original order's (redraw function :func:`explorer_figure`).
* :func:`weight_scale_panel`: the chapter's d = 512 example with W = s·randn(d, d); a log slider for s
  takes the softmax from one-hot (s = 1, the chapter's code) to uniform (redraw function
  :func:`weight_scale_figure`).

Speed (target: a redraw in at most 0.1 s of kernel time on a busy 2-core machine). Each panel keeps one
figure and redraws into it: :func:`clear_figure` removes the last drawing but keeps the axes and their
ticks, whose rebuilding is the slow part of a fresh figure, and text measurements stay cached. The
figures have fixed margins, so :func:`show_png` renders one PNG at the figure's own size instead of the
inline backend's ``bbox_inches="tight"``, which lays a figure out twice. The numbers behind the plots are
cached (the explorer's attention per order/method/mask; the d = 512 logits, see
:func:`helpers.attention.chapter_logits`), so no torch work happens on a redraw.

Only ipywidgets APIs present in both 7.7 (Colab) and 8 are used.
"""

from __future__ import annotations

import functools
import io
import itertools
import math
from collections.abc import Sequence

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Image, display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from helpers import attention
from helpers.plots import blindness as bp
from helpers.widgets._common import LAYOUT, STYLE, log_slider, panel

#: Every reordering of both sentences, as (dropdown label, token tuple).
ORDER_OPTIONS: list[tuple[str, tuple[str, ...]]] = [
    (f"{' '.join(p)}  ({' '.join(attention.TOKENS[t][0] for t in p)})", p)
    for sentence in attention.SENTENCES.values()
    for p in itertools.permutations(sentence)
]
POSITION_OPTIONS = [("none", "none"), ("X + PE (sinusoidal)", "sinusoidal"), ("RoPE on q, k", "rope")]
DEFAULT_ORDER = ("鱼", "吃", "猫")

#: The d = 512 example: the slider's default is 1/√d, the scale that keeps logits of order 1.
D_MODEL = 512
DEFAULT_SCALE = 1.0 / math.sqrt(D_MODEL)
SCALE_EXP_RANGE = (-2.0, 0.0)  # s from 0.01 (rows already uniform) to 1 (the chapter's randn: one-hot)

# Fixed layouts (figure size in inches, then subplot parameters): no layout engine, no tight bounding box.
_EXPLORER_LAYOUT = (
    (6.6, 3.3),
    {"width_ratios": (1, 1.25), "left": 0.15, "right": 0.98, "bottom": 0.2, "top": 0.88, "wspace": 0.4},
)
_SCALE_LAYOUT = (
    (6.4, 3.2),
    {"width_ratios": (1, 1.3), "left": 0.1, "right": 0.98, "bottom": 0.15, "top": 0.9, "wspace": 0.3},
)


@functools.lru_cache(maxsize=1)
def _head() -> attention.ToyHead:
    return attention.toy_head()


@functools.cache
def _attention(order: tuple[str, ...], position: str, causal: bool) -> tuple[np.ndarray, np.ndarray]:
    """(weights (T, T), mean-pooled output (d,)) of the toy head, cached: 12 orders × 3 methods × 2 masks at most."""
    out, weights = attention.attend(_head(), order, position=position, causal=causal)  # (T, d), (T, T)
    return weights.numpy(), out.mean(0).numpy()


def _new_figure(layout, *, pyplot: bool = True):
    """A two-panel figure with a fixed layout. ``pyplot=False``: not registered with pyplot, so only
    :func:`show_png` displays it (a panel's figure must not also be shown by ``plt.show``)."""
    figsize, grid = layout
    fig = plt.figure(figsize=figsize) if pyplot else Figure(figsize=figsize)
    if not pyplot:
        FigureCanvasAgg(fig)
    fig.subplots(1, 2, gridspec_kw=grid)
    return fig


def clear_figure(fig) -> None:
    """Remove everything the last redraw drew (images, lines, bars, texts, legends) but keep the axes and
    their ticks, so that the next redraw into ``fig`` skips rebuilding them."""
    for ax in fig.axes:
        for artist in [*ax.images, *ax.collections, *ax.lines, *ax.texts, *ax.patches]:
            artist.remove()
        if ax.get_legend() is not None:
            ax.get_legend().remove()


def show_png(fig) -> None:
    """Display ``fig`` as one PNG at its own size (what the panels show on every redraw).

    The inline backend's ``bbox_inches="tight"`` draws a figure twice to find its bounding box; these
    figures have fixed margins, so one draw suffices. zlib level 1 encodes several times faster than the
    default level 6, for a slightly larger image.
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", pil_kwargs={"compress_level": 1})
    display(Image(data=buf.getvalue(), format="png"))


def explorer_figure(order: Sequence[str] = DEFAULT_ORDER, position: str = "none", causal: bool = False, *, fig=None):
    """Attention heatmap for ``order`` and its mean-pooled output beside the original order's. Returns the figure.

    ``position``: "none", "sinusoidal" or "rope" (see :func:`helpers.attention.attend`).
    ``fig``: a figure from an earlier call to draw into again (what the panel does); default a new figure.
    """
    order = tuple(order)
    weights, pooled = _attention(order, position, bool(causal))  # (T, T), (d,)
    _, reference = _attention(attention.reference_order(order), position, bool(causal))  # (d,)
    gap = float(np.abs(pooled - reference).max())
    if fig is None:
        fig = _new_figure(_EXPLORER_LAYOUT)
    else:
        clear_figure(fig)
    ax_w, ax_p = fig.axes
    mask = "causal mask" if causal else "no mask"
    bp.plot_attention(weights, order, ax=ax_w, title=f"position: {position}, {mask}")
    verdict = "same as original order (max |Δ| < 1e-9)" if gap < 1e-9 else f"differs: max |Δ| = {gap:.3f}"
    bp.plot_pooled(pooled, ax=ax_p, reference=reference, reference_label="original order", title=verdict)
    ax_p.title.set_fontsize(10)
    return fig


def explorer_panel() -> W.VBox:
    """Dropdown (token order), ToggleButtons (position information), Checkbox (causal mask) → explorer_figure."""
    controls = {
        "order": W.Dropdown(
            options=ORDER_OPTIONS, value=DEFAULT_ORDER, description="token order", style=STYLE, layout=LAYOUT
        ),
        "position": W.ToggleButtons(options=POSITION_OPTIONS, value="none", description="position info", style=STYLE),
        "causal": W.Checkbox(
            value=False, description="causal mask (token t sees tokens ≤ t)", style=STYLE, layout=LAYOUT
        ),
    }
    fig = _new_figure(_EXPLORER_LAYOUT, pyplot=False)

    def render(**values) -> None:
        show_png(explorer_figure(**values, fig=fig))

    return panel(render, controls)


def weight_scale_figure(weight_scale: float = DEFAULT_SCALE, *, fig=None):
    """Heatmap and row entropies of the chapter's first sequence (T = 10, d = 512) with W = s·randn(d, d).

    ``fig``: a figure from an earlier call to draw into again (what the panel does); default a new figure.
    """
    weights = attention.chapter_weights(weight_scale, d_model=D_MODEL)[0]  # (T, T)
    if fig is None:
        fig = _new_figure(_SCALE_LAYOUT)
    else:
        clear_figure(fig)
    axes = fig.axes
    entropy = attention.row_entropy(weights).numpy()  # (T,)
    bp.plot_weight_scale(weights, entropy, axes, weight_scale=weight_scale)
    axes[1].title.set_fontsize(9)
    return fig


def weight_scale_panel() -> W.VBox:
    """A log slider for s (10^-2 … 1; default 1/√512 ≈ 0.0442) → weight_scale_figure."""
    lo, hi = SCALE_EXP_RANGE
    slider = log_slider("weight scale s (W = s·randn, no unit)", DEFAULT_SCALE, lo, hi, step=0.05, fmt=".3g")
    fig = _new_figure(_SCALE_LAYOUT, pyplot=False)

    def render(**values) -> None:
        show_png(weight_scale_figure(**values, fig=fig))

    return panel(render, {"weight_scale": slider})
