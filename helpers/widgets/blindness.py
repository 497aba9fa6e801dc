"""Panels for notebook 01 (position blindness).

* :func:`explorer_panel`: reorder the chapter's tokens, switch position information (none / X + PE /
  RoPE) and the causal mask; redraws the attention heatmap and the mean-pooled output next to the
  original order's (redraw function :func:`explorer_figure`).
* :func:`weight_scale_panel`: the chapter's d = 512 example with W = s·randn(d, d); a log slider for s
  takes the softmax from one-hot (s = 1, the chapter's code) to uniform (redraw function
  :func:`weight_scale_figure`).

Only ipywidgets APIs present in both 7.7 (Colab) and 8 are used.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

import ipywidgets as W
import matplotlib.pyplot as plt

from helpers.plots import blindness as bp
from helpers.widgets._common import LAYOUT, STYLE, log_slider, panel

#: Every reordering of both sentences, as (dropdown label, token tuple).
ORDER_OPTIONS: list[tuple[str, tuple[str, ...]]] = [
    (f"{' '.join(p)}  ({' '.join(bp.TOKENS[t][0] for t in p)})", p)
    for sentence in bp.SENTENCES.values()
    for p in itertools.permutations(sentence)
]
POSITION_OPTIONS = [("none", "none"), ("X + PE (sinusoidal)", "sinusoidal"), ("RoPE on q, k", "rope")]
DEFAULT_ORDER = ("鱼", "吃", "猫")

#: The d = 512 example: the slider's default is 1/√d, the scale that keeps logits of order 1.
D_MODEL = 512
DEFAULT_SCALE = 1.0 / math.sqrt(D_MODEL)
SCALE_EXP_RANGE = (-3.0, 0.0)  # s from 10^-3 to 10^0 = the chapter's randn


@functools.lru_cache(maxsize=1)
def _head() -> bp.ToyHead:
    return bp.toy_head()


def explorer_figure(order: Sequence[str] = DEFAULT_ORDER, position: str = "none", causal: bool = False):
    """Attention heatmap for ``order`` and its mean-pooled output beside the original order's. Returns the figure.

    ``position``: "none", "sinusoidal" or "rope" (see :func:`helpers.plots.blindness.attend`).
    """
    order = tuple(order)
    head = _head()
    out, weights = bp.attend(head, order, position=position, causal=causal)  # (T, d), (T, T)
    ref_out, _ = bp.attend(head, bp.reference_order(order), position=position, causal=causal)
    pooled, reference = out.mean(0), ref_out.mean(0)  # (d,), (d,)
    gap = float((pooled - reference).abs().max())
    # A fixed layout (no constrained layout) keeps the redraw fast: the layout solver costs ~0.1 s per figure.
    fig, (ax_w, ax_p) = plt.subplots(
        1,
        2,
        figsize=(6.6, 3.3),
        width_ratios=(1, 1.25),
        gridspec_kw={"left": 0.15, "right": 0.98, "bottom": 0.2, "top": 0.88, "wspace": 0.4},
    )
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
    return panel(explorer_figure, controls)


def weight_scale_figure(weight_scale: float = DEFAULT_SCALE):
    """Heatmap and row entropies of the chapter's first sequence (T = 10, d = 512) with W = s·randn(d, d)."""
    weights = bp.chapter_weights(weight_scale, d_model=D_MODEL)[0]  # (T, T)
    fig, axes = plt.subplots(
        1,
        2,
        figsize=(6.4, 3.2),
        width_ratios=(1, 1.3),
        gridspec_kw={"left": 0.1, "right": 0.98, "bottom": 0.15, "top": 0.9, "wspace": 0.3},
    )
    bp.plot_weight_scale(weights, axes, weight_scale=weight_scale)
    axes[1].title.set_fontsize(9)
    return fig


def weight_scale_panel() -> W.VBox:
    """A log slider for s (10^-3 … 1; default 1/√512 ≈ 0.0442) → weight_scale_figure."""
    lo, hi = SCALE_EXP_RANGE
    # heavy: a drag redraws once, on release (a redraw with its PNG takes ~0.1-0.2 s on a busy 2-core machine).
    slider = log_slider(
        "weight scale s (W = s·randn, no unit)", DEFAULT_SCALE, lo, hi, step=0.05, fmt=".3g", heavy=True
    )
    return panel(weight_scale_figure, {"weight_scale": slider})
