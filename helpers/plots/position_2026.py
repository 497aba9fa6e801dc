"""Figures for notebook 09 (position in 2026 models): query temperature against position, attention entropy by
context length, axial 2-D RoPE next to M-RoPE on an image grid, and what a copying head receives when RoPE is on the
values.

Drawing class behind the slider panel (built once on its axes, ``update(...)`` sets data in place):
:class:`TemperatureLaws`. Static figures: :func:`plot_entropy_by_length`, :func:`plot_grid_scores`,
:func:`plot_copy_similarity`. The numbers come from the maths modules (:mod:`helpers.temperature`,
:mod:`helpers.axial_rope`, :mod:`helpers.mrope`, :mod:`helpers.rope_values`); no torch here. Used by notebook 09 and
:mod:`helpers.widgets.position_2026`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.colors import LogNorm

from helpers.i18n import pgettext, pN_
from helpers.plots._style import as_array, label, new_axes, plain_log_axis
from helpers.temperature import (
    learned_log_temperature,
    llama4_attn_temperature,
    llama_4_scaling_temperature,
    ssmax_temperature,
    yarn_logit_factor,
)

__all__ = [
    "TEMPERATURE_POSITIONS",
    "TemperatureLaws",
    "plot_copy_similarity",
    "plot_entropy_by_length",
    "plot_grid_scores",
    "temperature_curves",
]

#: Positions drawn: log-spaced from 1 to 2^20, plus every multiple k of 2,048 and k − 1, so that the step laws'
#: steps (Llama 4 at p + 1 = k·8,192, Ministral 3 at p = k·16,384) are drawn exactly.
_MULTIPLES = np.arange(2048, 2**20 + 1, 2048)
TEMPERATURE_POSITIONS = np.unique(
    np.concatenate([np.geomspace(1, 2**20, 300).astype(np.int64), _MULTIPLES - 1, _MULTIPLES])
)

#: (key, label, short name for the title, colour, line style) of the five laws, in the legend's order.
LAWS = (
    ("llama4", pN_("figure", "Llama 4 (NoPE layers), F = 8,192"), "Llama 4", "tab:blue", "-"),
    ("ministral3", pN_("figure", "Ministral 3 (every layer), L = 16,384"), "Ministral 3", "tab:orange", "-"),
    ("large4", pN_("figure", "Mistral Large 4, learned (illustrative a, b = 1)"), "Large 4", "tab:green", "-"),
    ("ssmax", "SSMax s·ln(p + 1)", "SSMax", "tab:purple", "--"),
    ("yarn", pN_("figure", "YaRN's constant a² (plain mscale)"), "YaRN", "tab:gray", ":"),
)


def temperature_curves(
    positions, *, llama4_alpha: float, ministral_beta: float, large4_scale: float, ssmax_s: float, yarn_factor: float
) -> dict[str, np.ndarray]:
    """{law key: τ(p)} at ``positions`` for the five laws of :data:`LAWS` (released constants where they exist:
    Llama 4's F = 8,192, Ministral 3's L = 16,384, Mistral Large 4's b = 1). Shapes: (T,) each."""
    return {
        "llama4": llama4_attn_temperature(positions, attn_scale=llama4_alpha, floor_scale=8192),
        "ministral3": llama_4_scaling_temperature(
            positions, beta=ministral_beta, original_max_position_embeddings=16384
        ),
        "large4": learned_log_temperature(positions, scale=large4_scale, bias=1.0),
        "ssmax": ssmax_temperature(positions, s=ssmax_s),
        "yarn": yarn_logit_factor(positions, factor=yarn_factor),
    }


class TemperatureLaws:
    """τ(p), the factor every logit of the query at position p is multiplied by, for the five laws, p from 1 to
    2^20 on a log axis. Fixed limits (τ from 0 to 3) and fixed legend: a move changes only the curves and the title."""

    def __init__(self, ax):
        self.ax = ax
        self.lines = {}
        for key, text, _short, color, style in LAWS:
            (self.lines[key],) = ax.plot(TEMPERATURE_POSITIONS, np.ones(TEMPERATURE_POSITIONS.size), style, color=color,
                                         label=pgettext("figure", text), lw=1.6)  # fmt: skip
        ax.axhline(1.0, color="k", lw=0.6)
        ax.set_xscale("log")
        ax.set_xlim(1, 2**20)
        ax.set_ylim(0.0, 3.0)
        plain_log_axis(ax.xaxis)
        label(
            ax,
            xlabel=pgettext("figure", "query position p (tokens, log scale)"),
            ylabel=pgettext("figure", "logit factor τ(p)"),
        )
        ax.legend(fontsize=7, frameon=False, loc="upper left")

    def moving_artists(self):
        return [*self.lines.values(), self.ax.title]

    def update(self, **controls):
        curves = temperature_curves(TEMPERATURE_POSITIONS, **controls)
        for key, line in self.lines.items():
            line.set_ydata(curves[key])
        at = int(np.searchsorted(TEMPERATURE_POSITIONS, 131071))
        self.ax.set_title(
            pgettext("figure", "τ at p = 131,071:")
            + "  "
            + ",  ".join(f"{short} {curves[k][at]:.2f}" for k, _, short, *_ in LAWS),
            fontsize=8,
        )
        return curves


def plot_entropy_by_length(
    lengths: Sequence[int],
    curves: Mapping[str, np.ndarray],
    uniform,
    *,
    train_len: int,
    ax=None,
):
    """Mean attention entropy (nats) against the context length, one line per temperature law.

    ``curves``: {label: (n_seeds, n_lengths)}: the line is the mean over seeds, the band the lowest to the highest
    seed. ``uniform``: (n_lengths,) ln of the keys seen (the flattest possible). ``train_len``: a dotted line at L.
    """
    ax = new_axes(ax, figsize=(6.4, 3.4))
    x = as_array(lengths, "lengths")
    for (name, values), color in zip(curves.items(), ("k", "tab:orange", "tab:purple", "tab:green"), strict=False):
        v = as_array(values, name)  # (n_seeds, n_lengths)
        ax.plot(x, v.mean(0), "o-", color=color, ms=3, label=name)
        ax.fill_between(x, v.min(0), v.max(0), color=color, alpha=0.15, lw=0)
    ax.plot(
        x, as_array(uniform, "uniform"), "--", color="0.5", label=pgettext("figure", "uniform over the keys (ln n)")
    )
    ax.axvline(train_len, color="0.3", ls=":", lw=1)
    ax.set_xscale("log", base=2)
    plain_log_axis(ax.xaxis)
    label(
        ax,
        xlabel=pgettext("figure", "context length n (tokens, log scale)"),
        ylabel=pgettext("figure", "attention entropy (nats)"),
    )
    ax.legend(fontsize=7, frameon=False, loc="upper left")
    return ax


def plot_grid_scores(panels: Mapping[str, np.ndarray], *, axes=None):
    """1 − score of the centre patch's query against every patch, one image per design (log colour scale):
    dark where the head cannot tell a patch from the query's own. ``panels``: {title: (h, w) scores}."""
    if axes is None:
        import matplotlib.pyplot as plt

        _fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), layout="constrained")
    axes = np.atleast_1d(axes)
    image = None
    for ax, (title, scores) in zip(axes, panels.items(), strict=True):
        s = as_array(scores, title)
        c = (s.shape[0] // 2, s.shape[1] // 2)
        image = ax.imshow(np.clip(1.0 - s, 1e-8, 1.0), norm=LogNorm(1e-8, 1.0), cmap="magma", interpolation="nearest")
        ax.set_title(
            pgettext("figure", "{title}\ndown 1: {down:.1e}   right 1: {right:.1e}").format(
                title=title, down=1 - s[c[0] + 1, c[1]], right=1 - s[c[0], c[1] + 1]
            ),
            fontsize=8,
        )
        label(ax, xlabel=pgettext("figure", "column (patches)"), ylabel=pgettext("figure", "row (patches)"))
    axes[0].figure.colorbar(image, ax=list(axes), label=pgettext("figure", "1 − score"))
    return axes


def plot_copy_similarity(distances, curves: Mapping[str, np.ndarray], *, ax=None):
    """Expected cosine between what a copying head delivers and the copied value, against the copy distance."""
    ax = new_axes(ax, figsize=(6.4, 3.2))
    d = as_array(distances, "distances")
    for name, values in curves.items():
        ax.plot(d, as_array(values, name), label=name)
    ax.axhline(0.0, color="k", lw=0.6)
    ax.set_xscale("log")
    ax.set_ylim(-0.2, 1.05)
    plain_log_axis(ax.xaxis)
    label(
        ax,
        xlabel=pgettext("figure", "copy distance i − j (tokens, log scale)"),
        ylabel=pgettext("figure", "cosine(output, copied value)"),
    )
    ax.legend(fontsize=7, frameon=False, loc="lower left")
    return ax
