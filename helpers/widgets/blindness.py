"""Panels for notebook 01 (position blindness), and the weight-scale panel of notebook 04 (RoPE), Appendix C.

* :func:`explorer_panel`: reorder the chapter's tokens, switch position information (none / X + PE /
  RoPE) and the causal mask; redraws the attention heatmap and the mean-pooled output next to the
  original order's (redraw function :func:`explorer_figure`).
* :func:`weight_scale_panel`: the chapter's d = 512 example with W = s·randn(d, d); a log slider for s
  takes the softmax from one-hot (s = 1, the chapter's code) to uniform (redraw function
  :func:`weight_scale_figure`).

Speed: both panels use :func:`helpers.widgets._common.panel` (one kept figure at fixed margins, one PNG at its
own size per change); the figure's artists are created once (:class:`ExplorerView`, :class:`WeightScaleView`,
wrapping :mod:`helpers.plots.blindness`'s drawings) and updated in place. The numbers behind the plots are
cached (the explorer's attention per order/method/mask; the d = 512 logits, see
:func:`helpers.attention.chapter_logits`), so no torch work happens on a redraw except one 10 × 10 entropy.

Only ipywidgets APIs present in both 7.7 (Colab) and 8 are used.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

import ipywidgets as W
import numpy as np

from helpers import attention
from helpers.i18n import N_, _, pgettext, pN_
from helpers.plots import blindness as bp
from helpers.widgets._common import LAYOUT, STYLE, Layout, View, log_slider, panel, view_on

#: Every reordering of both sentences, as (dropdown label, token tuple).
ORDER_OPTIONS: list[tuple[str, tuple[str, ...]]] = [
    (f"{' '.join(p)}  ({' '.join(attention.TOKENS[t][0] for t in p)})", p)
    for sentence in attention.SENTENCES.values()
    for p in itertools.permutations(sentence)
]
POSITION_OPTIONS = [(N_("none"), "none"), (N_("X + PE (sinusoidal)"), "sinusoidal"), (N_("RoPE on q, k"), "rope")]
#: The position method's name in the heatmap's title (the English title shows the method's key).
POSITION_TITLE_NAMES = {
    "none": pN_("figure", "none"),
    "sinusoidal": pN_("figure", "sinusoidal"),
    "rope": pN_("figure", "rope"),
}
DEFAULT_ORDER = ("鱼", "吃", "猫")

#: The d = 512 example: the slider's default is 1/√d, the scale that keeps logits of order 1.
D_MODEL = 512
DEFAULT_SCALE = 1.0 / math.sqrt(D_MODEL)
SCALE_EXP_RANGE = (-2.0, 0.0)  # s from 0.01 (rows already uniform) to 1 (the chapter's randn: one-hot)

EXPLORER_LAYOUT = Layout(
    (6.6, 3.3), left=0.15, bottom=0.2, right=0.98, top=0.88, ncols=2, wspace=0.4, width_ratios=(1, 1.25)
)
SCALE_LAYOUT = Layout(
    (6.4, 3.2), left=0.1, bottom=0.15, right=0.98, top=0.9, ncols=2, wspace=0.3, width_ratios=(1, 1.3)
)


@functools.lru_cache(maxsize=1)
def _head() -> attention.ToyHead:
    return attention.toy_head()


@functools.cache
def _attention(order: tuple[str, ...], position: str, causal: bool) -> tuple[np.ndarray, np.ndarray]:
    """(weights (T, T), mean-pooled output (d,)) of the toy head, cached: 12 orders × 3 methods × 2 masks at most."""
    out, weights = attention.attend(_head(), order, position=position, causal=causal)  # (T, d), (T, T)
    return weights.numpy(), out.mean(0).numpy()


class ExplorerView(View):
    layout = EXPLORER_LAYOUT

    def setup(self, axes):
        self.heatmap = bp.AttentionMap(axes[0])
        self.bars = bp.PooledBars(axes[1], reference_label=pN_("figure", "original order"))

    def update(self, order, position, causal):
        order = tuple(order)
        weights, pooled = _attention(order, position, bool(causal))  # (T, T), (d,)
        _weights, reference = _attention(attention.reference_order(order), position, bool(causal))  # (d,)
        gap = float(np.abs(pooled - reference).max())
        mask = pgettext("figure", "causal mask") if causal else pgettext("figure", "no mask")
        self.heatmap.update(
            weights,
            order,
            title=pgettext("figure", "position: {position}, {mask}").format(
                position=pgettext("figure", POSITION_TITLE_NAMES[position]), mask=mask
            ),
        )
        verdict = (
            pgettext("figure", "same as original order (max |Δ| < 1e-9)")
            if gap < 1e-9
            else pgettext("figure", "differs: max |Δ| = {gap:.3f}").format(gap=gap)
        )
        ax_p = self.bars.update(pooled, reference=reference, title=verdict)
        top = _bar_top(position, bool(causal))
        ax_p.set_ylim(-top, 1.7 * top)  # as PooledBars sets it, over every order: the axis stays while orders change
        ax_p.title.set_fontsize(10)
        return self.fig

    def moving_artists(self):
        heatmap, bars = self.heatmap, self.bars
        ax_map, ax_bars = self.axes
        # the heatmap's tick labels are the tokens, the bars' y axis follows the position method and the mask
        return [
            heatmap.image,
            *heatmap.cells,
            ax_map.xaxis,
            ax_map.yaxis,
            ax_map.title,
            bars.zero,
            bars.bars,
            bars.outlines,
            ax_bars.yaxis,
            ax_bars.title,
        ]


@functools.cache
def _bar_top(position: str, causal: bool) -> float:
    """The bars' y range (as :class:`helpers.plots.blindness.PooledBars` computes it for one order) over every
    order: 1.1 × the largest |pooled output| of any order and of its original order, with this position method and
    mask."""
    largest = 0.0
    for _label, order in ORDER_OPTIONS:
        for shown in (order, attention.reference_order(order)):
            largest = max(largest, float(np.abs(_attention(shown, position, causal)[1]).max()))
    return 1.1 * max(largest, 1e-12)


def explorer_figure(order: Sequence[str] = DEFAULT_ORDER, position: str = "none", causal: bool = False, *, fig=None):
    """Attention heatmap for ``order`` and its mean-pooled output beside the original order's. Returns the figure.

    ``position``: "none", "sinusoidal" or "rope" (see :func:`helpers.attention.attend`).
    ``fig``: the panel's figure (its artists are updated in place); default a new pyplot figure.
    """
    return view_on(ExplorerView, fig).update(order, position, causal)


def explorer_panel(positions: tuple[str, ...] = ("none", "sinusoidal", "rope")) -> W.VBox:
    """Dropdowns (token order, position information), Checkbox (causal mask) → explorer_figure.

    ``positions``: which position options the toggle offers, from "none", "sinusoidal", "rope" (chapter 01 offers
    the first two: RoPE is taught in chapter 04).
    """
    known = [value for _, value in POSITION_OPTIONS]
    if isinstance(positions, str) or not positions or any(p not in known for p in positions):
        raise ValueError(f"positions must be a non-empty tuple of options from {known}, got {positions!r}")
    if "none" not in positions:
        raise ValueError(f"positions must include 'none' (the panel's starting value), got {positions!r}")
    options = [(_(label), value) for label, value in POSITION_OPTIONS if value in positions]
    controls = {
        "order": W.Dropdown(
            options=ORDER_OPTIONS, value=DEFAULT_ORDER, description=_("token order"), style=STYLE, layout=LAYOUT
        ),
        "position": W.Dropdown(options=options, value="none", description=_("position info"), style=STYLE),
        "causal": W.Checkbox(
            value=False, description=_("causal mask (token t sees tokens ≤ t)"), style=STYLE, layout=LAYOUT
        ),
    }
    return panel(explorer_figure, controls, layout=EXPLORER_LAYOUT)


class WeightScaleView(View):
    layout = SCALE_LAYOUT

    def setup(self, axes):
        self.drawing = bp.WeightScale(axes)

    def update(self, weight_scale):
        weights = attention.chapter_weights(weight_scale, d_model=D_MODEL)[0]  # (T, T)
        entropy = attention.row_entropy(weights).numpy()  # (T,)
        ax_h = self.drawing.update(weights, entropy, weight_scale=weight_scale)
        ax_h.title.set_fontsize(9)
        return self.fig


def weight_scale_figure(weight_scale: float = DEFAULT_SCALE, *, fig=None):
    """Heatmap and row entropies of the chapter's first sequence (T = 10, d = 512) with W = s·randn(d, d).

    ``fig``: the panel's figure (its artists are updated in place); default a new pyplot figure.
    """
    return view_on(WeightScaleView, fig).update(weight_scale)


def weight_scale_panel() -> W.VBox:
    """A log slider for s (10^-2 … 1; default 1/√512 ≈ 0.0442) → weight_scale_figure."""
    lo, hi = SCALE_EXP_RANGE
    slider = log_slider(_("weight scale s (W = s·randn, no unit)"), DEFAULT_SCALE, lo, hi, step=0.05, fmt=".3g")
    return panel(weight_scale_figure, {"weight_scale": slider}, layout=SCALE_LAYOUT)
