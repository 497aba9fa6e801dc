"""Figures for notebook 07 (a real pretrained model): pure matplotlib + NumPy in, axes out (no torch).

Method names are the registry keys of :data:`helpers.scaling.ROPE_SCALING`; labels, colours and line styles come
from :mod:`helpers.methods`. Used by notebook 07 and :mod:`helpers.widgets.real`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

import helpers.scaling  # noqa: F401  registers the scaling methods' labels and colours that method_style reads
from helpers.i18n import WideText, current_language, pgettext, pN_
from helpers.methods import method_style
from helpers.plots._style import label as _label
from helpers.plots._style import mark_trained_length, new_axes

__all__ = [
    "curve_label",
    "plot_attention_by_distance",
    "plot_loss_by_position",
    "plot_pair_norms",
    "plot_passkey_accuracy",
    "plot_wavelengths",
]

#: Style of the sliding-window baseline (not a scaling method, so not in helpers.methods).
SLIDING_STYLE = {"color": "tab:gray", "ls": ":", "label": pN_("figure", "plain RoPE, 8k sliding window")}


def _style(name: str) -> dict:
    """Line style of a curve key: a scaling-method key, "sliding" (the baseline), "kv_cache" (dynamic NTK fed
    through a KV cache: dynamic's colour, dash-dot) or "<method>_windowed" (that method re-reading the text with a
    sliding window: its colour, dotted)."""
    if name == "sliding":
        return {**SLIDING_STYLE, "label": pgettext("figure", SLIDING_STYLE["label"])}
    if name.endswith("_windowed"):
        base = method_style(name.removesuffix("_windowed"))
        return {
            **base,
            "ls": ":",
            "label": pgettext("figure", "{label}, same scale, sliding window of L").format(label=base["label"]),
        }
    if name == "kv_cache":
        return {
            **method_style("dynamic"),
            "ls": "-.",
            "label": pgettext("figure", "dynamic NTK, KV cache (keys keep their rotation)"),
        }
    return method_style(name)


def curve_label(name: str) -> str:
    """The legend label of a curve key (a scaling-method key, "sliding", "kv_cache" or "<method>_windowed"). In a
    language other than English it is a :class:`helpers.i18n.WideText`: a table that pads it (``f"{label:50s}"``)
    pads it by display width, so the columns after a Chinese label stay in line."""
    label = _style(name)["label"]
    return label if current_language() == "en" else WideText(label)


def plot_wavelengths(inv_freq, context_length: int, *, ax=None):
    """Wavelength λ_i = 2π/θ_i of every rotary pair (tokens per full turn, log scale) against the trained length L.

    ``inv_freq``: (D/2,) radians per token. Pairs with λ_i > L never completed a turn in training (shaded).
    """
    ax = new_axes(ax)
    theta = np.asarray(inv_freq, dtype=np.float64)  # (D/2,)
    lam = 2 * np.pi / theta  # (D/2,)
    i = np.arange(lam.size)
    slow = lam > context_length
    ax.semilogy(
        i[~slow], lam[~slow], "o", ms=3, color="tab:blue", label=pgettext("figure", "completes a turn within L")
    )
    ax.semilogy(i[slow], lam[slow], "o", ms=3, color="tab:red", label=pgettext("figure", "never completes a turn in L"))
    ax.axhline(
        context_length,
        color="grey",
        ls="--",
        lw=1,
        label=pgettext("figure", "trained length L = {context_length}").format(context_length=context_length),
    )
    ax.legend(fontsize=7, loc="upper left")
    return _label(
        ax,
        xlabel=pgettext("figure", "pair index i (0 = fastest)"),
        ylabel=pgettext("figure", "wavelength λ_i (tokens)"),
        title=pgettext("figure", "{n_slow} of {n_pairs} pairs never complete a turn in {context_length} tokens").format(
            n_slow=int(slow.sum()), n_pairs=lam.size, context_length=context_length
        ),
    )


def plot_pair_norms(norms: Mapping[str, np.ndarray], *, ax=None, title: str | None = None):
    """Mean norm of each rotary pair (‖(x_2i, x_2i+1)‖, averaged over heads and positions) against the pair index.

    ``norms``: label -> (D/2,) array, e.g. {"q": ..., "k": ...}. Slow pairs (large i) carrying large values is
    the "massive values" pattern (Jin et al. 2025, arXiv 2502.01563; Barbero et al. 2024, arXiv 2410.06205).
    """
    ax = new_axes(ax)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
    for (name, v), c in zip(norms.items(), colors, strict=False):
        v = np.asarray(v, dtype=np.float64)  # (D/2,)
        ax.plot(np.arange(v.size), v, "o-", ms=2.5, color=c, label=name)
    ax.legend(fontsize=7)
    return _label(
        ax,
        xlabel=pgettext("figure", "pair index i (0 = fastest)"),
        ylabel=pgettext("figure", "mean pair norm"),
        title=title,
    )


def plot_attention_by_distance(curves: Mapping[str, np.ndarray], *, ax=None, title: str | None = None):
    """Mean attention weight against distance n − m (log-log): ``curves`` label -> (T,) weights at distance 0..T−1."""
    ax = new_axes(ax)
    for name, w in curves.items():
        w = np.asarray(w, dtype=np.float64)  # (T,)
        d = np.arange(w.size)
        ax.loglog(d[1:] + 0.0, np.maximum(w[1:], 1e-12), lw=1, label=name)
    ax.legend(fontsize=7)
    return _label(
        ax,
        xlabel=pgettext("figure", "distance n − m (tokens)"),
        ylabel=pgettext("figure", "mean attention weight"),
        title=title,
    )


def plot_loss_by_position(
    curves: Mapping[str, tuple[np.ndarray, np.ndarray]],
    context_length: int,
    *,
    ax=None,
    title: str | None = None,
    ylim: tuple[float, float] | None = None,
):
    """Loss (nats per token) against the query position for each method, with the trained length L marked.

    ``curves``: method key (or "sliding") -> (positions (K,), losses (K,)); NaN/None values are gaps.
    """
    ax = new_axes(ax)
    for name, (x, y) in curves.items():
        y = np.array([np.nan if v is None else v for v in y], dtype=np.float64)  # (K,)
        ax.plot(np.asarray(x, dtype=np.float64), y, lw=1.2, **_style(name))
    x_max = max((float(np.nanmax(np.asarray(x, dtype=np.float64))) for x, _ in curves.values() if len(x)), default=0.0)
    if context_length <= x_max:  # mark L only where the curves reach it (a text outside the axes grows the figure)
        mark_trained_length(ax, context_length)
    if ylim is not None:
        ax.set_ylim(*ylim)
    if curves:
        ax.legend(fontsize=7, loc="upper left")
    return _label(
        ax,
        xlabel=pgettext("figure", "query position (tokens)"),
        ylabel=pgettext("figure", "loss (nats per token)"),
        title=title,
    )


def plot_passkey_accuracy(
    lengths: Sequence[int], accuracy: Mapping[str, Sequence[float | None]], *, ax=None, title: str | None = None
):
    """Passkey accuracy (fraction of trials, 0..1) against the prompt length for each method (log-2 x axis).

    ``accuracy``: method key -> one value per length (None where not measured). Markers are offset a little
    per method so that equal values stay visible.
    """
    ax = new_axes(ax)
    lengths = np.asarray(lengths, dtype=np.float64)  # (N,)
    n = len(accuracy)
    for k, (name, acc) in enumerate(accuracy.items()):
        a = np.array([np.nan if v is None else v for v in acc], dtype=np.float64)  # (N,)
        shift = 2 ** ((k - (n - 1) / 2) * 0.03)
        ax.plot(lengths * shift, a, marker="o", ms=4, lw=1, **_style(name))
    ax.set_xscale("log", base=2)
    ax.set_xticks(lengths, [f"{int(v) // 1024}k" for v in lengths])
    ax.set_ylim(-0.05, 1.05)
    if accuracy:
        ax.legend(fontsize=7, loc="lower left")
    return _label(
        ax,
        xlabel=pgettext("figure", "prompt length (tokens)"),
        ylabel=pgettext("figure", "passkey accuracy"),
        title=title,
    )
