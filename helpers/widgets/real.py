"""Chapter 07's "try it" panel: pick a scaling method, a scale s and a length you can afford on a CPU (<= 512
tokens live), see the loss by position against plain RoPE and one passkey trial.

The drawing function :func:`draw_try_it` is plain (tests and the notebook's static figure call it directly); the
expensive part, :func:`try_it_data`, is memoised per (method, s, length), so moving back to a setting is instant.
ipywidgets 7.7 and 8: only Dropdown, FloatSlider and interactive_output (via :func:`figure_panel`).
Used by notebook 07.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from helpers.methods import method_info
from helpers.plots.real import plot_loss_by_position
from helpers.widgets._common import LAYOUT, STYLE, figure_panel, float_slider

__all__ = ["LENGTHS", "draw_try_it", "try_it_data", "try_it_panel"]

#: Live lengths (tokens): short enough for a few seconds per setting on 2 CPU cores.
LENGTHS = (128, 256, 512)
BLOCK = 32  # tokens per plotted point


_CACHE: dict = {}


def try_it_data(model, tokenizer, ids, method: str, factor: float, n_tokens: int, *, key: int = 51937) -> dict:
    """Block-mean losses of ``method`` and of plain RoPE on ``ids[:n_tokens]``, and a passkey trial (depth 0.5).

    Memoised per (model, method, s, length, key, tokens); plain RoPE ignores s.
    """
    from helpers.real.evaluate import block_means, passkey_trial

    ids = list(ids[:n_tokens])
    factor = 1.0 if method == "default" else float(factor)
    cache_key = (id(model), id(tokenizer), method, factor, int(n_tokens), int(key), hash(tuple(ids)))
    if cache_key in _CACHE:
        return _CACHE[cache_key]
    ours = model.token_losses(ids, method=method, factor=factor)  # (T-1,)
    plain = ours if method == "default" else model.token_losses(ids, method="default")  # (T-1,)
    data = {
        "x": np.arange(0, ours.size, BLOCK) + BLOCK / 2,
        "method": np.array(block_means(ours, BLOCK)),
        "default": np.array(block_means(plain, BLOCK)),
        "mean_diff": float(ours.mean() - plain.mean()),
        "passkey": passkey_trial(model, tokenizer, n_tokens, 0.5, key, method=method, factor=factor),
        "key": key,
    }
    _CACHE[cache_key] = data
    return data


def draw_try_it(fig, data: dict, method: str, factor: float, n_tokens: int, context_length: int = 8192):
    """Draw the panel's figure into ``fig`` (a matplotlib Figure) from :func:`try_it_data`'s result."""
    ax = fig.add_subplot(1, 1, 1)
    fig.subplots_adjust(left=0.1, right=0.98, top=0.84, bottom=0.15)
    curves = {"default": (data["x"], data["default"])}
    if method != "default":
        curves[method] = (data["x"], data["method"])
    plot_loss_by_position(curves, context_length, ax=ax)
    ax.set_xlim(0, n_tokens)
    p = data["passkey"]
    verdict = "found" if p["correct"] else f"missed (said{p['predicted']!r})"
    ax.set_title(
        f"{method_info(method).label}, s = {factor:g}, {n_tokens} tokens: loss {data['mean_diff']:+.3f} nats vs plain\n"
        f"passkey {data['key']} at depth 50 %: {verdict}",
        fontsize=9,
    )
    return ax


def try_it_panel(model, tokenizer, ids, methods, *, method: str = "yarn", factor: float = 2.0, n_tokens: int = 256):
    """Dropdowns for method and length, a slider for s; redraws one figure (continuous_update off)."""
    controls = {
        "method": W.Dropdown(
            options=[(method_info(m).label, m) for m in methods], value=method, description="method",
            style=STYLE, layout=LAYOUT,
        ),
        "factor": float_slider("scale s", factor, 1.0, 4.0, 0.5, heavy=True, fmt=".1f"),
        "n_tokens": W.Dropdown(options=list(LENGTHS), value=n_tokens, description="length (tokens)", style=STYLE,
                               layout=LAYOUT),
    }  # fmt: skip
    L = model.config.context_length

    def draw_into(fig, method, factor, n_tokens):
        draw_try_it(fig, try_it_data(model, tokenizer, ids, method, factor, n_tokens), method, factor, n_tokens, L)

    return figure_panel(draw_into, controls, figsize=(6.4, 3.4))
