"""Figures for notebook 05 that put the methods side by side (sections 6–8): θ′_i/θ_i and the score against
distance per method, the small multiples of the main methods, pasted configs' wavelengths, the lab's measured curves.

The one-method-at-a-time figures of sections 1–5 are in :mod:`helpers.plots.extension`, which also re-exports
everything here. Methods are named by their registry keys and drawn with the label, colour and line style of
:data:`helpers.methods.SCALING_METHODS`; the numbers come from :mod:`helpers.scaling` and :mod:`helpers.rope`.

Symbols: D rotary dimension, b base, θ_i = b^(−2i/D), s scale factor, L training length, L′ target length.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.ticker import MaxNLocator, NullLocator

from helpers import scaling
from helpers.i18n import pgettext
from helpers.methods import method_info, method_style
from helpers.plots._style import LiveLegend, fixed_ticks, log_limits, new_axes, pair_ticks, plain_log_axis
from helpers.plots._style import label as _label
from helpers.rope import rope_score_curve

__all__ = [
    "GRID_METHODS",
    "FrequencyRatios",
    "ScoreVsDistance",
    "plot_config_wavelengths",
    "plot_frequency_ratios",
    "plot_methods_grid",
    "plot_metric_curves",
    "plot_score_vs_distance",
]

TWO_PI = 2 * math.pi


# --------------------------------------------------------------------------- sections 6 and 7: all methods
def ratio_ticks(ax, factor: float) -> None:
    """Readable ticks on a log θ′/θ axis: 1, 1/2, 1/4, … down to 1/s (no minor-tick clutter), limits just past them.

    A panel passes its slider's largest s: the axis then covers every s and stays put while the slider moves."""
    k = max(1, math.ceil(math.log2(factor)))
    step = 1 if k <= 6 else 2
    vals = [2.0**-j for j in range(0, k + 1, step)]
    fixed_ticks(ax.yaxis, vals, ["1" if v == 1 else f"1/{round(1 / v)}" for v in vals])
    if not isinstance(ax.yaxis.get_minor_locator(), NullLocator):
        ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylim(1 / factor / 1.25, 1.2)


class FrequencyRatios:
    """θ′_i/θ_i per pair (log scale) for each method's frequencies against the plain θ_i; :meth:`update` redraws.

    ``curves``: {method key (:data:`helpers.scaling.ROPE_SCALING`): inv_freq (D/2,)}, drawn with the method's label,
    colour and line style (:func:`helpers.methods.method_style`; an unknown key raises). 1 means untouched
    (extrapolated), 1/s means divided by s (interpolated, as PI). ``highlight``: a key drawn thick, the others thin.
    ``axis_factor``: the largest s the y axis must show (a panel passes its slider's end, so the axis stays put while
    s moves); None: the axis follows each update's s.
    """

    def __init__(self, ax, *, axis_factor: float | None = None):
        self.ax = ax
        self.axis_factor = axis_factor
        self.lines: dict[str, object] = {}
        self.factor_line = ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set_yscale("log")
        self.legend = LiveLegend(ax, fontsize=7, loc="center left")
        _label(
            ax,
            xlabel=pgettext("figure", "pair index i (0 = fastest)"),
            ylabel="θ′_i / θ_i",
            title=pgettext("figure", "Frequency change per pair"),
        )

    def update(self, curves: Mapping[str, np.ndarray], reference, *, factor: float | None = None, highlight=None):
        reference = np.asarray(reference, dtype=np.float64)  # (D/2,)
        i = np.arange(reference.size)
        if list(curves) != list(self.lines):
            for line in self.lines.values():
                line.remove()
            self.lines = {name: self.ax.plot([], [], **method_style(name))[0] for name in curves}
        for name, inv in curves.items():
            lw, alpha = (2.6, 1.0) if highlight in (None, name) else (1.0, 0.45)
            line = self.lines[name]
            line.set_data(i, np.asarray(inv) / reference)
            line.set_linewidth(lw)
            line.set_alpha(alpha)
        scaled = factor is not None and factor > 1
        self.factor_line.set_visible(scaled)
        if scaled:
            self.factor_line.set_ydata([1 / factor, 1 / factor])
        if self.axis_factor is not None or scaled:
            ratio_ticks(self.ax, self.axis_factor or factor)
        else:  # back to the default log ticks, as on a fresh axes
            self.ax.set_yscale("log")
            ratios = [line.get_ydata() for line in self.lines.values()]
            self.ax.set_ylim(*log_limits(np.concatenate([*ratios, [1.0]])))
        self.ax.set_xlim(-0.05 * (reference.size - 1), 1.05 * (reference.size - 1))
        fixed_ticks(self.ax.xaxis, pair_ticks(reference.size))
        handles = list(self.lines.values())
        self.legend.update(handles, [h.get_label() for h in handles], key=highlight)
        return self.ax


def plot_frequency_ratios(
    curves: Mapping[str, np.ndarray],
    reference: np.ndarray,
    *,
    factor: float | None = None,
    highlight: str | None = None,
    ax=None,
):
    """θ′_i/θ_i per pair (log scale) for each method in ``curves`` against ``reference`` θ_i (:class:`FrequencyRatios`)."""
    return FrequencyRatios(new_axes(ax)).update(curves, reference, factor=factor, highlight=highlight)


class ScoreVsDistance:
    """Score of q = k = 1 (a²·mean cos(Δθ′_i)) against distance Δ for each method, log-spaced Δ from 1 to max.

    ``methods``: {method key: (inv_freq, attention_factor)}, as returned by
    :func:`helpers.scaling.extension_frequencies`. Plain RoPE (``"default"``) is solid up to L (trained) and dotted
    after (extrapolated). The YaRN curves include the attention factor a² (:func:`helpers.rope.rope_score_curve`).
    ``legend=False`` leaves the legend to the caller (e.g. a neighbouring panel that already names every method in
    the same colours). Drawn once on ``ax``; :meth:`update` sets the data.
    """

    def __init__(self, ax, *, legend: bool = True):
        self.ax = ax
        self.lines: dict[str, list] = {}
        self.train_line = ax.axvline(1, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.yaxis.set_major_locator(MaxNLocator(4))
        plain_log_axis(ax.xaxis)
        # a fixed place: "best" searches every line's 300 points
        self.legend = LiveLegend(ax, fontsize=7, ncol=2, loc="upper right") if legend else None
        _label(
            ax,
            xlabel=pgettext("figure", "relative distance Δ (tokens)"),
            ylabel=pgettext("figure", "score of q = k = 1 (× a²)"),
            title=pgettext("figure", "Attention score against distance"),
        )

    def _make_lines(self, names) -> None:
        names = list(names)
        if [n == "default" for n in self.lines] == [n == "default" for n in names]:
            # the same kinds of lines (e.g. another highlighted method): restyle them in place, so that a panel
            # keeps its artists (and redraws only them)
            restyled = {}
            for (old, lines), name in zip(self.lines.items(), names, strict=True):
                if name != old:
                    lines[0].set(**method_style(name))
                restyled[name] = lines
            self.lines = restyled
            return
        for lines in self.lines.values():
            for line in lines:
                line.remove()
        self.lines = {}
        for name in names:
            st = method_style(name)
            if name == "default":
                text = st.pop("label")
                inside = self.ax.plot([], [], label=f"{text} (Δ ≤ L)", **st)[0]
                st["ls"] = ":"
                self.lines[name] = [inside, self.ax.plot([], [], label=f"{text} (Δ > L)", **st)[0]]
            else:
                self.lines[name] = [self.ax.plot([], [], **st)[0]]

    def update(
        self,
        methods,
        train_len: int,
        max_distance: int,
        *,
        highlight: str | None = None,
        frame: tuple[int, tuple[float, float]] | None = None,
    ):
        """``frame``: (farthest distance, y limits) the axes show instead of fitting these curves (a panel passes
        its sliders' whole range, so the axes stay put and nothing is fitted on a move)."""
        if list(methods) != list(self.lines):
            self._make_lines(methods)
        dist = np.unique(np.geomspace(1, max_distance, 300).astype(int))  # (N,)
        for name, (inv, a) in methods.items():
            y = rope_score_curve(inv, dist, a)  # (N,)
            lw, alpha = (2.0, 1.0) if highlight in (None, name) else (0.9, 0.35)
            if name == "default":
                inside = dist <= train_len
                parts = [(dist[inside], y[inside]), (dist[~inside], y[~inside])]
            else:
                parts = [(dist, y)]
            for line, (x, yy) in zip(self.lines[name], parts, strict=True):
                line.set_data(x, yy)
                line.set_linewidth(lw)
                line.set_alpha(alpha)
        if list(self.train_line.get_xdata()) != [train_len, train_len]:  # unchanged: left alone (not redrawn)
            self.train_line.set_xdata([train_len, train_len])
        farthest = dist[-1] if frame is None else frame[0]
        self.ax.set_xlim(*log_limits([1, farthest, train_len]))
        if frame is None:
            self.ax.relim()
            self.ax.autoscale_view(scalex=False)
        else:
            self.ax.set_ylim(*frame[1])
        fixed_ticks(self.ax.xaxis, [10.0**k for k in range(int(math.log10(farthest)) + 1)])  # the decades in view
        if self.legend is not None:
            handles = [line for lines in self.lines.values() for line in lines]
            self.legend.update(handles, [h.get_label() for h in handles], key=highlight)
        return self.ax


def plot_score_vs_distance(
    methods: Mapping[str, tuple[np.ndarray, float]],
    train_len: int,
    max_distance: int,
    *,
    highlight: str | None = None,
    legend: bool = True,
    ax=None,
):
    """Score of q = k = 1 against distance for each method (:class:`ScoreVsDistance`)."""
    return ScoreVsDistance(new_axes(ax), legend=legend).update(methods, train_len, max_distance, highlight=highlight)


#: The methods of :func:`plot_methods_grid`, one column each: the registry's methods shown in panel ``"grid"``.
GRID_METHODS = scaling.methods_in("grid")


def plot_methods_grid(
    dim: int = 128,
    base: float = 10000.0,
    train_len: int = 2048,
    factor: float = 4.0,
    *,
    methods: Sequence[str] = GRID_METHODS,
    axes=None,
):
    """Small multiples: one column per method, two curves per axes, so no colour has to be told apart from six others.

    Top row: θ′_i/θ_i per pair (log scale) in the method's colour, with grey dotted lines at 1 (untouched) and 1/s
    (divided by s, as PI); the pairs that meet unseen angles at s·L without scaling (r_i < 1) are shaded, and the
    title says how many still do with the method (:func:`helpers.scaling.still_out_of_range`). Bottom row: the score
    of q = k = 1 against distance up to s·L (:func:`helpers.rope.rope_score_curve`, YaRN's including a²), against
    plain RoPE in black (solid up to L, dotted past it). ``axes``: a (2, len(methods)) array of axes, or None for a
    new figure. Returns the axes array.
    """
    names = [m for m in methods]
    for name in names:
        method_info(name)  # an unknown key raises, naming the known ones
    if axes is None:
        import matplotlib.pyplot as plt

        _fig, axes = plt.subplots(
            2, len(names), figsize=(2.75 * len(names), 5.4), layout="constrained", sharey="row", squeeze=False
        )
    axes = np.asarray(axes, dtype=object)
    if axes.shape != (2, len(names)):
        raise ValueError(f"axes must have shape (2, {len(names)}) for methods {names}, got {axes.shape}")
    target_len = max(int(round(factor * train_len)), train_len + 1)
    freqs = scaling.extension_frequencies(dim, base, factor, train_len, methods=["default", *names])
    theta = freqs["default"][0]  # (D/2,)
    slow = scaling.out_of_range_pairs(dim, base, train_len, target_len)  # (D/2,)
    i = np.arange(theta.size)
    dist = np.unique(np.geomspace(1, target_len, 300).astype(int))  # (N,)
    plain = rope_score_curve(theta, dist)  # (N,)
    inside = dist <= train_len
    for col, name in enumerate(names):
        inv, a = freqs[name]
        style = method_style(name)
        top, bottom = axes[0, col], axes[1, col]
        if slow.any():
            top.axvspan(i[slow][0] - 0.5, i[slow][-1] + 0.5, color="tab:red", alpha=0.1, lw=0)
        for level in (1.0, 1.0 / factor):
            top.axhline(level, color="grey", lw=0.8, ls=":")
        top.plot(i, inv / theta, lw=2, color=style["color"], ls=style["ls"])
        top.set_yscale("log")
        ratio_ticks(top, factor)
        still = int(scaling.still_out_of_range(theta, inv, train_len, target_len).sum())
        top.set_title(
            pgettext("figure", "{label}\n{still} of {n_slow} shaded pairs still unseen").format(
                label=style["label"], still=still, n_slow=int(slow.sum())
            ),
            fontsize=9,
        )
        top.set_xticks(pair_ticks(theta.size))
        _label(top, xlabel=pgettext("figure", "pair index i"), ylabel="θ′_i / θ_i" if col == 0 else "")
        bottom.plot(dist[inside], plain[inside], color="black", lw=1, label=pgettext("figure", "plain RoPE (Δ ≤ L)"))
        bottom.plot(
            dist[~inside], plain[~inside], color="black", lw=1, ls=":", label=pgettext("figure", "plain RoPE (Δ > L)")
        )
        bottom.plot(
            dist,
            rope_score_curve(inv, dist, a),
            lw=1.8,
            color=style["color"],
            ls=style["ls"],
            label=style["label"] + (f" (× a² = {a * a:.3f})" if a != 1 else ""),
        )
        bottom.axvline(train_len, color="grey", lw=0.8, ls=":")
        bottom.set_xscale("log")
        plain_log_axis(bottom.xaxis)
        bottom.set_xticks([10.0**k for k in range(int(math.log10(dist[-1])) + 1)])
        bottom.legend(fontsize=6.5, loc="upper right")
        _label(
            bottom, xlabel=pgettext("figure", "distance Δ (tokens)"), ylabel="score of q = k = 1" if col == 0 else ""
        )
    return axes


def plot_config_wavelengths(configs: Mapping[str, tuple[np.ndarray, np.ndarray, float]], *, ax=None):
    """Wavelength λ_i = 2π/θ_i per pair before (thin) and after (thick) scaling, for each pasted model config.

    ``configs``: {label: (original inv_freq, scaled inv_freq, original context L)}; a dotted line marks each L.
    """
    ax = new_axes(ax)
    for k, (name, (orig, scaled, length)) in enumerate(configs.items()):
        color = f"C{k}"
        i = np.arange(len(orig))
        ax.semilogy(i, TWO_PI / np.asarray(orig), color=color, lw=0.9, ls="--", alpha=0.7)
        ax.semilogy(
            i,
            TWO_PI / np.asarray(scaled),
            color=color,
            lw=2,
            label=pgettext("figure", "{name} (dashed: unscaled)").format(name=name),
        )
        ax.axhline(length, color=color, lw=0.8, ls=":")
    ax.legend(fontsize=7)
    plain_log_axis(ax.yaxis)
    return _label(
        ax,
        xlabel=pgettext("figure", "pair index i"),
        ylabel=pgettext("figure", "wavelength λ_i (positions)"),
        title=pgettext("figure", "Pasted configs: wavelengths (dotted: original context L)"),
    )


# --------------------------------------------------------------------------- section 8: the tiny-model lab
def plot_metric_curves(
    curves: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    *,
    styles: Mapping[str, Mapping] | None = None,
    train_len: int | None = None,
    xlabel: str,
    ylabel: str,
    title: str,
    logy: bool = False,
    legend: bool = True,
    ax=None,
):
    """One line per curve for a measured quantity (loss against position, passkey accuracy against length, …).

    ``curves``: {legend label: (x values, y values)}. ``styles``: {legend label: matplotlib line keywords}, e.g.
    ``{"PI": {"color": ..., "ls": ...}}`` from :func:`helpers.methods.method_style` (minus its label); a curve without
    a style takes the next colour of the cycle. A dotted vertical line marks the training length L. ``legend=False``
    leaves the legend to the caller (e.g. one shared figure legend for two panels).
    """
    ax = new_axes(ax)
    styles = {} if styles is None else styles
    for name, (x, y) in curves.items():
        style = {k: v for k, v in styles.get(name, {}).items() if k != "label"}
        ax.plot(np.asarray(x), np.asarray(y), marker="o", ms=3, label=name, **style)
    if train_len is not None:
        ax.axvline(train_len, color="grey", lw=0.8, ls=":")
    if logy:
        ax.set_yscale("log")
    if legend:
        ax.legend(fontsize=7, ncol=2)
    return _label(ax, xlabel=xlabel, ylabel=ylabel, title=title)
