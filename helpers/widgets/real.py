"""Chapter 07's "try it" panel: pick a scaling method, a scale s and a length you can afford on a CPU (<= 512
tokens live, 128 by default), see the loss by position against plain RoPE and one passkey trial.

The drawing function :func:`draw_try_it` is plain (tests and the notebook's static figure call it directly); the
expensive part, :func:`try_it_data`, is memoised (plain RoPE once per length, each method and passkey trial per
(method, s, length)), so a new setting costs two forward passes and moving back to a setting is instant.
ipywidgets 7.7 and 8: only Dropdown, FloatSlider and interactive_output (via the course's one panel builder,
:func:`helpers.widgets._common.panel`). A redraw clears and redraws the panel's one axes: its cost is the model's
forward passes (seconds), not the drawing. Used by notebook 07.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from helpers.methods import method_info
from helpers.plots.real import plot_loss_by_position
from helpers.widgets._common import LAYOUT, STYLE, Layout, View, float_slider, panel, view_on

__all__ = ["LENGTHS", "TRY_IT_LAYOUT", "draw_try_it", "try_it_data", "try_it_panel"]

TRY_IT_LAYOUT = Layout((6.4, 3.4), left=0.1, bottom=0.15, right=0.98, top=0.84)

#: Live lengths (tokens): short enough for about a second per setting on 2 CPU cores (128 is the default).
LENGTHS = (128, 256, 512)
BLOCK = 32  # tokens per plotted point


_CACHE: dict = {}


def _memo(key, compute):
    if key not in _CACHE:
        _CACHE[key] = compute()
    return _CACHE[key]


def try_it_data(model, tokenizer, ids, method: str, factor: float, n_tokens: int, *, key: int = 51937) -> dict:
    """Block-mean losses of ``method`` and of plain RoPE on ``ids[:n_tokens]``, and a passkey trial (depth 0.5).

    Memoised in three parts, so that a new setting costs at most two forward passes of ``n_tokens`` tokens: the
    method's losses per (method, s, length, tokens), plain RoPE's losses per (length, tokens) (shared by every
    method), the passkey trial per (method, s, length, key). Plain RoPE ignores s (it is stored with s = 1).
    """
    from helpers.real.evaluate import block_means, passkey_trial

    ids = list(ids[:n_tokens])
    factor = 1.0 if method == "default" else float(factor)
    tokens = (id(model), int(n_tokens), hash(tuple(ids)))
    plain = _memo(("loss", "default", 1.0, *tokens), lambda: model.token_losses(ids, method="default"))  # (T-1,)
    ours = _memo(
        ("loss", method, factor, *tokens), lambda: model.token_losses(ids, method=method, factor=factor)
    )  # (T-1,)
    trial = _memo(
        ("passkey", id(model), id(tokenizer), method, factor, int(n_tokens), int(key)),
        lambda: passkey_trial(model, tokenizer, n_tokens, 0.5, key, method=method, factor=factor),
    )
    return {
        "x": np.arange(0, ours.size, BLOCK) + BLOCK / 2,
        "method": np.array(block_means(ours, BLOCK)),
        "default": np.array(block_means(plain, BLOCK)),
        "mean_diff": float(ours.mean() - plain.mean()),
        "passkey": trial,
        "key": key,
    }


class TryItView(View):
    layout = TRY_IT_LAYOUT

    def setup(self, axes) -> None:
        pass  # drawn by update: the curves' number changes with the method

    def update(self, data: dict, method: str, factor: float, n_tokens: int, context_length: int):
        ax = self.axes
        ax.cla()
        curves = {"default": (data["x"], data["default"])}
        if method != "default":
            curves[method] = (data["x"], data["method"])
        plot_loss_by_position(curves, context_length, ax=ax)
        ax.set_xlim(0, n_tokens)
        p = data["passkey"]
        verdict = "found" if p["correct"] else f"missed (said{p['predicted']!r})"
        ax.set_title(
            f"{method_info(method).label}, s = {factor:g}, {n_tokens} tokens: loss {data['mean_diff']:+.3f} nats vs "
            f"plain\npasskey {data['key']} at depth 50 %: {verdict}",
            fontsize=9,
        )
        return ax


def draw_try_it(data: dict, method: str, factor: float, n_tokens: int, context_length: int = 8192, *, fig=None):
    """Draw the panel's figure from :func:`try_it_data`'s result; ``fig``: the panel's figure or None (a new one)."""
    return view_on(TryItView, fig).update(data, method, factor, n_tokens, context_length)


def try_it_panel(model, tokenizer, ids, methods, *, method: str = "yarn", factor: float = 2.0, n_tokens: int = 128):
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

    def draw(method, factor, n_tokens, *, fig):
        data = try_it_data(model, tokenizer, ids, method, factor, n_tokens)
        return draw_try_it(data, method, factor, n_tokens, L, fig=fig)

    return panel(draw, controls, layout=TRY_IT_LAYOUT)
