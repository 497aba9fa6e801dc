"""Figures for notebook 05 (RoPE length extension): PI, NTK-aware, dynamic NTK, YaRN, Llama 3.1, LongRoPE.

Two modules, one idea each, both importable from here: this one draws one method at a time (sections 1–5: the
problem, PI, NTK-aware, dynamic NTK, YaRN); :mod:`helpers.plots.extension_compared` draws the methods side by side
(sections 6–8: θ′/θ and the score per method, the small multiples, pasted configs, the lab's measured curves).

Every plotting function takes ``ax=None`` (or ``axes=None``), draws, and returns the axes. The numbers come from
:mod:`helpers.scaling` (frequencies, :func:`~helpers.scaling.extension_frequencies`, the out-of-range pairs, the toy
entropy) and :mod:`helpers.rope` (:func:`~helpers.rope.rope_score_curve`); nothing is computed here. Methods are
named by their registry keys (``"linear"``, ``"yarn"``, …) and drawn with the label, colour and line style of
:data:`helpers.methods.SCALING_METHODS`.

Symbols: D rotary dimension, b base, θ_i = b^(−2i/D), s scale factor, L training length, L′ target length.
"""

from __future__ import annotations

import math

import numpy as np

from helpers import scaling
from helpers.i18n import pgettext
from helpers.methods import method_info, method_style
from helpers.plots._style import LiveLegend, fixed_ticks, log_limits, new_axes, pair_ticks, plain_log_axis
from helpers.plots._style import label as _label
from helpers.plots.extension_compared import (
    GRID_METHODS,
    FrequencyRatios,
    ScoreVsDistance,
    plot_config_wavelengths,
    plot_frequency_ratios,
    plot_methods_grid,
    plot_metric_curves,
    plot_score_vs_distance,
    ratio_ticks,
)
from helpers.rope import rope_score_curve

__all__ = [
    "GRID_METHODS",
    "AngleRange",
    "FrequencyRatios",
    "ScoreVsDistance",
    "Slowdown",
    "YarnRamp",
    "plot_angle_range",
    "plot_config_wavelengths",
    "plot_dynamic_scale",
    "plot_frequency_ratios",
    "plot_methods_grid",
    "plot_metric_curves",
    "plot_pi_distances",
    "plot_score_vs_distance",
    "plot_slowdown",
    "plot_step_angles",
    "plot_yarn_entropy",
    "plot_yarn_ramp",
    "ratio_ticks",
]

TWO_PI = 2 * math.pi


# --------------------------------------------------------------------------- section 1: the problem
class AngleRange:
    """Per pair: the largest angle seen in training (L·θ_i) and the largest angle needed at L′ (L′·θ_i), log scale.

    A horizontal line marks one full turn (2π). Pairs below it in training have seen only part of the circle:
    they are shaded, and at L′ they meet angles they were never trained on. Drawn once on ``ax``;
    :meth:`update` sets the data.
    """

    def __init__(self, ax):
        self.ax = ax
        (self.trained,) = ax.semilogy([1], [1], "o-", ms=2.5, color="tab:blue")
        (self.needed,) = ax.semilogy([1], [1], "s-", ms=2.5, color="tab:red")
        self.turn = ax.axhline(TWO_PI, color="grey", ls="--", lw=1, label=pgettext("figure", "one full turn (2π)"))
        self.span = ax.axvspan(0, 1, color="tab:red", alpha=0.12, label=pgettext("figure", "new angles at L′"))
        self.legend = LiveLegend(ax, fontsize=7, loc="lower left")
        plain_log_axis(ax.yaxis)
        _label(
            ax,
            xlabel=pgettext("figure", "pair index i (0 = fastest)"),
            ylabel=pgettext("figure", "largest angle (rad)"),
        )

    def update(self, dim: int = 128, base: float = 10000.0, train_len: int = 2048, target_len: int = 8192):
        theta = scaling.default_inv_freq(dim, base)[0]  # (D/2,)
        i = np.arange(theta.size)
        bad = scaling.out_of_range_pairs(dim, base, train_len, target_len)  # (D/2,)
        self.trained.set_data(i, train_len * theta)
        self.trained.set_label(pgettext("figure", "trained: L·θ_i (L = {train_len})").format(train_len=train_len))
        self.needed.set_data(i, target_len * theta)
        self.needed.set_label(pgettext("figure", "needed: L′·θ_i (L′ = {target_len})").format(target_len=target_len))
        self.span.set_visible(bool(bad.any()))
        if bad.any():
            self.span.set_x(i[bad][0] - 0.5)
            self.span.set_width(i[bad][-1] - i[bad][0] + 1.0)
        shown = [a for a in (self.trained, self.needed, self.turn, self.span) if a.get_visible()]
        self.legend.update(shown, [a.get_label() for a in shown])
        self.ax.set_ylim(*log_limits(np.concatenate([train_len * theta, target_len * theta, [TWO_PI]])))
        self.ax.set_xlim(-0.05 * (i.size - 1), 1.05 * (i.size - 1))  # autoscaling's 5 % margins
        self.ax.set_title(
            pgettext("figure", "D = {dim}, b = {base:g}: {n_bad} of {n_pairs} pairs leave their trained range").format(
                dim=dim, base=base, n_bad=int(bad.sum()), n_pairs=theta.size
            )
        )
        return self.ax


def plot_angle_range(dim: int = 128, base: float = 10000.0, train_len: int = 2048, target_len: int = 8192, ax=None):
    """Largest trained angle L·θ_i against the angle needed at L′, per pair (:class:`AngleRange`)."""
    return AngleRange(new_axes(ax)).update(dim, base, train_len, target_len)


# --------------------------------------------------------------------------- section 2: PI
def plot_step_angles(dim: int = 128, base: float = 10000.0, factor: float = 4.0, ax=None):
    """Rotation of each pair between neighbouring tokens (degrees, log scale): θ_i originally, θ_i/s under PI.

    Under PI, neighbouring tokens rotate s times less in every pair, including the fastest pairs, which never
    needed it (they had turned many times within L).
    """
    ax = new_axes(ax)
    theta = scaling.default_inv_freq(dim, base)[0]  # (D/2,)
    pi = scaling.linear_inv_freq(dim, base, factor)[0]  # (D/2,)
    i = np.arange(theta.size)
    ax.semilogy(i, np.degrees(theta), color=method_info("default").color, label=pgettext("figure", "plain RoPE θ_i"))
    ax.semilogy(
        i,
        np.degrees(pi),
        color=method_info("linear").color,
        label=pgettext("figure", "PI θ_i/s (s = {factor:g})").format(factor=factor),
    )
    ax.legend(fontsize=8)
    plain_log_axis(ax.yaxis)
    return _label(
        ax,
        xlabel=pgettext("figure", "pair index i"),
        ylabel=pgettext("figure", "angle per token step (degrees)"),
        title=pgettext("figure", "Neighbours under PI: pair 0 turns {pi_turn:.1f}° instead of {turn:.1f}°").format(
            pi_turn=np.degrees(pi[0]), turn=np.degrees(theta[0])
        ),
    )


def plot_pi_distances(dim: int = 128, base: float = 10000.0, factor: float = 4.0, max_distance: int = 8, ax=None):
    """Score of q = k = 1 against distance: where PI puts neighbouring tokens on the curve the model was trained on.

    The trained model saw the score only at integer distances (black dots). Under PI a token distance Δ is rotated
    like the distance Δ/s (crosses in PI's colour, drawn at x = Δ/s): every cross lies on the original curve (interpolation,
    no unseen angle), but s crosses crowd into each unit step, at fractional distances never seen in training.
    """
    ax = new_axes(ax)
    theta = scaling.default_inv_freq(dim, base)[0]
    pi = scaling.linear_inv_freq(dim, base, factor)[0]
    fine = np.linspace(0, max_distance, 40 * max_distance + 1)  # (N,)
    ints = np.arange(max_distance + 1)
    pi_tokens = np.arange(int(factor * max_distance) + 1)  # token distances Δ whose PI angle is ≤ max_distance·θ
    ax.plot(
        fine,
        rope_score_curve(theta, fine),
        color="0.6",
        lw=1,
        label=pgettext("figure", "original score at any real distance"),
    )
    ax.plot(
        ints,
        rope_score_curve(theta, ints),
        "o",
        color="black",
        ms=5,
        label=pgettext("figure", "trained: integer distances"),
    )
    ax.plot(
        pi_tokens / factor,
        rope_score_curve(pi, pi_tokens),
        "x",
        color=method_info("linear").color,
        ms=5,
        label=pgettext("figure", "PI: token distance Δ drawn at Δ/{factor:g}").format(factor=factor),
    )
    ax.legend(fontsize=7)
    return _label(
        ax,
        xlabel=pgettext("figure", "distance on the trained scale (tokens)"),
        ylabel=pgettext("figure", "score of q = k = 1 (mean cos)"),
        title=pgettext("figure", "PI (s = {factor:g}) interpolates between trained distances").format(factor=factor),
    )


# --------------------------------------------------------------------------- section 3: NTK-aware
class Slowdown:
    """Per-pair slowdown θ_i/θ′_i for PI (s everywhere), NTK-aware (1 → s) and the chapter's b·s (1 → s^((D−2)/D)).

    Dotted horizontal lines at 1 (untouched) and s. Errata E4: only PI slows every pair by s. Drawn once on ``ax``;
    :meth:`update` sets the data.
    """

    METHODS = scaling.methods_in("slowdown")  # registry keys, in the registry's order

    def __init__(self, ax):
        self.ax = ax
        self.lines = {name: ax.plot([], [], lw=1.8, **method_style(name))[0] for name in self.METHODS}
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        self.factor_line = ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.legend(fontsize=8)
        _label(
            ax,
            xlabel=pgettext("figure", "pair index i (0 = fastest)"),
            ylabel=pgettext("figure", "slowdown θ_i / θ′_i (×)"),
        )

    def update(self, dim: int = 128, base: float = 10000.0, factor: float = 4.0):
        freqs = scaling.extension_frequencies(dim, base, factor, 1, methods=["default", *self.METHODS])
        theta = freqs.pop("default")[0]  # (D/2,)
        i = np.arange(theta.size)
        for name, (inv, _scaling) in freqs.items():
            self.lines[name].set_data(i, theta / inv)
        self.factor_line.set_ydata([factor, factor])
        self.ax.relim()
        self.ax.autoscale_view()
        ntk_base = scaling.ntk_scaled_base(dim, base, factor)
        self.ax.set_title(
            pgettext(
                "figure", "D = {dim}, s = {factor:g}: NTK base {ntk_base:,.0f}, chapter {chapter_base:,.0f}"
            ).format(dim=dim, factor=factor, ntk_base=ntk_base, chapter_base=base * factor)
        )
        return self.ax


def plot_slowdown(dim: int = 128, base: float = 10000.0, factor: float = 4.0, ax=None):
    """Per-pair slowdown under PI, NTK-aware and the chapter's b·s (:class:`Slowdown`)."""
    return Slowdown(new_axes(ax)).update(dim, base, factor)


# --------------------------------------------------------------------------- section 4: dynamic NTK
def plot_dynamic_scale(train_len: int = 2048, factor: float = 2.0, max_len: int | None = None, ax=None):
    """Effective NTK scale against the current length l: HF's s·l/L − (s − 1) and the YaRN paper's max(1, l/L).

    Both are 1 up to l = L (no change while the text is short); they grow linearly after it, with different slopes
    unless s = 1.
    """
    ax = new_axes(ax)
    max_len = 4 * train_len if max_len is None else max_len
    lengths = np.linspace(1, max_len, 400)  # (K,)
    color = method_info("dynamic").color
    hf = scaling.dynamic_ntk_scale(lengths, factor, train_len)  # (K,)
    ax.plot(lengths, hf, color=color, label=pgettext("figure", "HF dynamic, factor = {factor:g}").format(factor=factor))
    paper = scaling.dynamic_ntk_scale(lengths, 1.0, train_len)  # (K,)
    ax.plot(lengths, paper, color=color, ls="--", label=pgettext("figure", "YaRN paper §3.3: max(1, l/L)"))
    ax.axvline(train_len, color="grey", lw=0.8, ls=":")
    ax.legend(fontsize=8)
    return _label(
        ax,
        xlabel=pgettext("figure", "current sequence length l (tokens)"),
        ylabel=pgettext("figure", "effective NTK scale"),
        title=pgettext("figure", "Dynamic NTK: the scale follows the length (L = {train_len})").format(
            train_len=train_len
        ),
    )


# --------------------------------------------------------------------------- section 5: YaRN
class YarnRamp:
    """YaRN's extrapolation weight γ_i per pair: the released code's ramp (linear in i) and the paper's (linear in r).

    γ = 1: the pair is kept (it turns more than β_fast times within L); γ = 0: divided by s like PI (fewer than
    β_slow turns). Each x tick label also shows r_i = L/λ_i, the pair's turns within L (one axis instead of a
    secondary top axis: half the ticks to build on every slider move). The code ramp has the colour of ``"yarn"``
    and the paper ramp that of ``"yarn_paper"`` (:data:`helpers.methods.SCALING_METHODS`), so ``legend=False`` can
    leave the naming to a neighbouring panel's legend. Drawn once on ``ax``; :meth:`update` sets the data.
    """

    def __init__(self, ax, *, legend: bool = True):
        self.ax = ax
        (self.code,) = ax.plot([], [], "o-", ms=2.5, color=method_info("yarn").color)
        self.code.set_label(pgettext("figure", "code (HF, jquesnelle): linear in i"))
        (self.paper,) = ax.plot([], [], "s--", ms=2.5, color=method_info("yarn_paper").color)
        self.paper.set_label(pgettext("figure", "paper: linear in r = L/λ"))
        self.marks = [ax.axvline(0, color="grey", lw=0.8, ls=":") for _ in range(2)]
        self.texts = [ax.text(0, 0.5, "", fontsize=7, color="grey") for _ in range(2)]
        ax.set_ylim(-0.05, 1.05)
        ax.set_yticks([0.0, 0.5, 1.0])
        if legend:
            ax.legend(fontsize=7, loc="lower left")
        _label(
            ax,
            xlabel=pgettext("figure", "pair index i  (r = L/λ_i: turns within L)"),
            ylabel=pgettext("figure", "extrapolation weight γ_i"),
            title=None,
        )

    def update(
        self,
        dim: int = 128,
        base: float = 10000.0,
        train_len: int = 4096,
        *,
        beta_fast: float = 32.0,
        beta_slow: float = 1.0,
    ):
        code = scaling.yarn_ramp(dim, base, train_len, kind="code", beta_fast=beta_fast, beta_slow=beta_slow)
        paper = scaling.yarn_ramp(dim, base, train_len, kind="paper", beta_fast=beta_fast, beta_slow=beta_slow)
        r = scaling.rotations_in_context(dim, base, train_len)  # (D/2,)
        i = np.arange(code.size)
        self.code.set_data(i, code)
        self.paper.set_data(i, paper)
        for mark, text, (n_rot, name) in zip(
            self.marks, self.texts, ((beta_fast, "β_fast"), (beta_slow, "β_slow")), strict=True
        ):
            x = scaling.yarn_correction_dim(n_rot, dim, base, train_len)
            inside = 0 <= x <= code.size - 1
            mark.set_visible(inside)
            text.set_visible(inside)
            if inside:
                mark.set_xdata([x, x])
                text.set_x(x)
                text.set_text(f" r = {n_rot:g}\n ({name})")
        self.ax.set_xlim(-0.05 * (code.size - 1), 1.05 * (code.size - 1))  # autoscaling's 5 % margins
        ticks = pair_ticks(code.size)
        fixed_ticks(self.ax.xaxis, ticks, [f"{k}\nr={v:.3g}" for k, v in zip(ticks, r[ticks], strict=True)], fontsize=7)
        return self.ax


def plot_yarn_ramp(
    dim: int = 128,
    base: float = 10000.0,
    train_len: int = 4096,
    *,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    legend: bool = True,
    ax=None,
):
    """YaRN's extrapolation weight γ_i per pair, code ramp and paper ramp (:class:`YarnRamp`)."""
    ramp = YarnRamp(new_axes(ax), legend=legend)
    return ramp.update(dim, base, train_len, beta_fast=beta_fast, beta_slow=beta_slow)


def plot_yarn_entropy(
    dim: int = 64, base: float = 10000.0, train_len: int = 512, factor: float = 8.0, *, peak_logit: float = 8.0, ax=None
):
    """Toy attention entropy against the number of keys n: original RoPE, YaRN without and with its temperature.

    Same-content tokens (:func:`helpers.scaling.toy_attention_entropy`): the logit at distance Δ is c·a²·mean_i cos(Δθ′_i). The grey
    line is ln n (a uniform row). Vertical lines at L and s·L.
    """
    ax = new_axes(ax)
    lengths = np.unique(np.geomspace(8, factor * train_len, 60).astype(int))
    theta = scaling.default_inv_freq(dim, base)[0]
    inv, a = scaling.yarn_inv_freq(dim, base, factor, train_len)
    ax.semilogx(lengths, np.log(lengths), color="0.7", lw=1, label=pgettext("figure", "uniform: ln n"))
    entropy = scaling.toy_attention_entropy
    plain, yarn = method_info("default"), method_info("yarn")
    ax.semilogx(lengths, entropy(theta, lengths, peak_logit=peak_logit), color=plain.color, label=plain.label)
    no_temperature = entropy(inv, lengths, peak_logit=peak_logit)  # (K,)
    ax.semilogx(lengths, no_temperature, color=yarn.color, ls="--", label=pgettext("figure", "YaRN, no temperature"))
    with_temperature = entropy(inv, lengths, attention_factor=a, peak_logit=peak_logit)  # (K,)
    ax.semilogx(
        lengths,
        with_temperature,
        color=yarn.color,
        label=pgettext("figure", "YaRN, logits × {a2:.3f}").format(a2=a * a),
    )
    for x in (train_len, factor * train_len):
        ax.axvline(x, color="grey", lw=0.8, ls=":")
    ax.legend(fontsize=7)
    plain_log_axis(ax.xaxis)
    return _label(
        ax,
        xlabel=pgettext("figure", "keys attended n (tokens)"),
        ylabel=pgettext("figure", "attention entropy (nats)"),
        title=pgettext("figure", "Toy: same-content tokens, D = {dim}, L = {train_len}, s = {factor:g}").format(
            dim=dim, train_len=train_len, factor=factor
        ),
    )
