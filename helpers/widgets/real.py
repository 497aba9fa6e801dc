"""Notebook 07's "try it" panel: pick a scaling method, a scale s and a length (128, 256 or 512 tokens), see the
loss by position against plain RoPE and one passkey trial.

Every setting the controls offer is precomputed (:func:`helpers.real.evaluate.try_it_table`, shipped in
``helpers/real/results/try_it.json``; ``python -m helpers.real try-it`` rebuilds it in about a minute), so a change
only redraws: a live forward pass per change took 0.5–1.9 s in the browser, long enough to look frozen.
:func:`try_it_data` computes one setting live (the notebook checks the table against it).
The drawing function :func:`draw_try_it` is plain (tests and the notebook's static figure call it directly).
ipywidgets 7.7 and 8: only Dropdown, FloatSlider and interactive_output (via the course's one panel builder,
:func:`helpers.widgets._common.panel`). Used by notebook 07.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from helpers.i18n import _, pgettext
from helpers.methods import method_info
from helpers.plots.real import plot_loss_by_position
from helpers.widgets._common import LAYOUT, STYLE, Layout, View, float_slider, panel, view_on

__all__ = ["LENGTHS", "TRY_IT_LAYOUT", "draw_try_it", "load_try_it", "try_it_data", "try_it_entry", "try_it_panel"]

TRY_IT_LAYOUT = Layout((6.4, 3.4), left=0.1, bottom=0.15, right=0.98, top=0.84)

#: The panel's lengths (tokens; 128 is the default).
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
        "context_length": model.config.context_length,
    }


def load_try_it(path=None) -> dict:
    """The precomputed table (:func:`helpers.real.evaluate.try_it_table`) from ``path`` (default: the shipped one)."""
    import json

    from helpers.real.evaluate import TRY_IT_FILE

    with open(TRY_IT_FILE if path is None else path, encoding="utf-8") as f:
        return json.load(f)


def try_it_entry(table: dict, method: str, factor: float, n_tokens: int) -> dict:
    """One precomputed setting in :func:`try_it_data`'s format (plain RoPE ignores s)."""
    factor = 1.0 if method == "default" else float(factor)
    name = f"{method}/{factor:g}/{int(n_tokens)}"
    if name not in table["table"]:
        raise ValueError(f"the try-it table has no setting {name!r} (lengths {table['lengths']}, s {table['factors']})")
    e = table["table"][name]
    block = table["block"]
    to_array = lambda v: np.array([np.nan if x is None else x for x in v], dtype=np.float64)  # noqa: E731
    y = to_array(e["method"])  # (K,)
    return {
        "x": np.arange(y.size) * block + block / 2,
        "method": y,
        "default": to_array(e["default"]),
        "mean_diff": e["mean_diff"],
        "passkey": e["passkey"],
        "key": table["key"],
        "context_length": table["context_length"],
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
        verdict = (
            pgettext("figure", "found")
            if p["correct"]
            else pgettext("figure", "missed (said{predicted!r})").format(predicted=p["predicted"])
        )
        ax.set_title(
            pgettext(
                "figure",
                "{method}, s = {factor:g}, {n_tokens} tokens: loss {diff:+.3f} nats vs plain\n"
                "passkey {key} at depth 50 %: {verdict}",
            ).format(
                method=method_info(method).label,
                factor=factor,
                n_tokens=n_tokens,
                diff=data["mean_diff"],
                key=data["key"],
                verdict=verdict,
            ),
            fontsize=9,
        )
        return ax


def draw_try_it(data: dict, method: str, factor: float, n_tokens: int, *, fig=None):
    """Draw the panel's figure from :func:`try_it_data`'s or :func:`try_it_entry`'s result (it carries the trained
    context L to mark); ``fig``: the panel's figure or None (a new one)."""
    return view_on(TryItView, fig).update(data, method, factor, n_tokens, data["context_length"])


def try_it_panel(table: dict, methods, *, method: str = "yarn", factor: float = 2.0, n_tokens: int = 128):
    """Dropdowns for method and length, a slider for s; each change redraws one figure from ``table``
    (:func:`load_try_it`): no model runs, so the figure follows the controls at once."""
    controls = {
        "method": W.Dropdown(
            options=[(method_info(m).label, m) for m in methods], value=method, description=_("method"),
            style=STYLE, layout=LAYOUT,
        ),
        "factor": float_slider(_("scale s"), factor, min(table["factors"]), max(table["factors"]), 0.5, fmt=".1f"),
        "n_tokens": W.Dropdown(options=list(table["lengths"]), value=n_tokens, description=_("length (tokens)"),
                               style=STYLE, layout=LAYOUT),
    }  # fmt: skip

    def draw(method, factor, n_tokens, *, fig):
        return draw_try_it(try_it_entry(table, method, factor, n_tokens), method, factor, n_tokens, fig=fig)

    return panel(draw, controls, layout=TRY_IT_LAYOUT)
