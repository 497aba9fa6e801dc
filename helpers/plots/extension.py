"""Figures for notebook 05 (RoPE length extension): PI, NTK-aware, dynamic NTK, YaRN, Llama 3.1, LongRoPE.

Every plotting function takes ``ax=None`` (or ``axes=None``), draws, and returns the axes. The frequencies come
from :mod:`helpers.scaling`; the small computations here (the score of q = k = 1 against distance, the entropy of a
toy attention row) are tested against independent computations in ``tests/test_plots_extension.py``.

Symbols: D rotary dimension, b base, θ_i = b^(−2i/D), s scale factor, L training length, L′ target length.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullLocator

from helpers import scaling
from helpers._checks import check_dim, check_int, check_positive
from helpers.plots._style import label as _label
from helpers.plots._style import new_axes

TWO_PI = 2 * math.pi

#: Colour and line style per method, shared by every figure of the chapter so a method looks the same everywhere.
METHOD_STYLE: dict[str, dict] = {
    "original": {"color": "black", "ls": "-"},
    "PI": {"color": "tab:blue", "ls": "-"},
    "NTK-aware": {"color": "tab:orange", "ls": "-"},
    "chapter's NTK (b·s)": {"color": "tab:red", "ls": ":"},
    "dynamic NTK": {"color": "tab:brown", "ls": "--"},
    "YaRN": {"color": "tab:green", "ls": "-"},
    "YaRN (paper ramp)": {"color": "tab:olive", "ls": "--"},
    "Llama 3.1": {"color": "tab:purple", "ls": "-."},
}


def _plain_log_axis(axis) -> None:
    """A log axis with plain tick labels ("1", "100", "10,000", "0.01") and no minor ticks.

    Matplotlib's default log labels are mathtext (10^k), whose parsing plus dozens of minor ticks take most of a slider
    panel's redraw time; plain labels are also easier to read.
    """
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(FuncFormatter(_plain_number))


def _plain_number(value: float, _pos=None) -> str:
    return f"{value:,.0f}" if value >= 1 else f"{value:.3g}"


def _pair_ticks(n_pairs: int) -> np.ndarray:
    """About four round pair indices (0, 16, 32, 48 for 64 pairs): few tick labels to build on each redraw."""
    step = 2 ** max(0, math.floor(math.log2(max(n_pairs, 1) / 4)))
    return np.arange(0, n_pairs, step)


def _style(name: str) -> dict:
    return METHOD_STYLE.get(name, {"color": None, "ls": "-"})


# --------------------------------------------------------------------------- computations
def extension_methods(
    dim: int, base: float, factor: float, train_len: int, *, methods: Sequence[str] | None = None
) -> dict[str, tuple[np.ndarray, float]]:
    """Every method's frequencies for extending a model trained on L = ``train_len`` positions by s = ``factor``.

    Returns {name: (inv_freq (D/2,), attention_factor)} computed with :mod:`helpers.scaling`:
    "original" (θ_i), "PI" (θ_i/s), "NTK-aware" (b·s^(D/(D−2))), "chapter's NTK (b·s)", "dynamic NTK" (evaluated at
    the current length l = s·L with the paper's scale l/L, i.e. HF ``dynamic`` with factor 1), "YaRN" (HF's code
    ramp, β_fast = 32, β_slow = 1), "YaRN (paper ramp)" (α = 1, β = 32) and "Llama 3.1" (low = 1, high = 4).
    ``methods`` selects a subset by name. Used by notebook 05 (sections 7 and 9).
    """
    dim = check_dim("dim", dim)
    train_len = check_int("train_len", train_len, minimum=1)
    factor = check_positive("factor", factor, minimum=1.0, inclusive=True)
    makers = {
        "original": lambda: scaling.default_inv_freq(dim, base),
        "PI": lambda: scaling.linear_inv_freq(dim, base, factor),
        "NTK-aware": lambda: scaling.ntk_inv_freq(dim, base, factor),
        "chapter's NTK (b·s)": lambda: scaling.ntk_chapter_inv_freq(dim, base, factor),
        "dynamic NTK": lambda: scaling.dynamic_ntk_inv_freq(dim, base, 1.0, round(factor * train_len), train_len),
        "YaRN": lambda: scaling.yarn_inv_freq(dim, base, factor, train_len),
        "YaRN (paper ramp)": lambda: scaling.yarn_paper_inv_freq(dim, base, factor, train_len),
        "Llama 3.1": lambda: scaling.llama3_inv_freq(dim, base, factor, train_len),
    }
    names = list(makers) if methods is None else list(methods)
    unknown = [n for n in names if n not in makers]
    if unknown:
        raise ValueError(f"methods must be names from {list(makers)}, got unknown {unknown}")
    return {n: makers[n]() for n in names}


def out_of_range_pairs(dim: int, base: float, train_len: int, target_len: int) -> np.ndarray:
    """Boolean (D/2,): pairs whose angles at positions up to L′ include angles never seen up to L.

    Pair i sees the angles [0, L·θ_i] during training. If L·θ_i ≥ 2π it has made a full turn, so every angle
    (mod 2π) has been seen; otherwise the angles in (L·θ_i, min(L′·θ_i, 2π)) are new whenever L′ > L.
    The condition L·θ_i < 2π is r_i = L/λ_i < 1: YaRN's α = 1 boundary. Used by notebook 05 (section 1).
    """
    theta = scaling.default_inv_freq(dim, base)[0]  # (D/2,)
    train_len = check_int("train_len", train_len, minimum=1)
    target_len = check_int("target_len", target_len, minimum=1)
    return (train_len * theta < TWO_PI) & (target_len > train_len)  # (D/2,)


def still_out_of_range(inv_freq, scaled_inv_freq, train_len: int, target_len: int) -> np.ndarray:
    """Boolean (D/2,): pairs that, with the scaled frequencies θ′, still meet angles unseen in training at L′.

    Pair i saw [0, L·θ_i] in training (the whole circle if L·θ_i ≥ 2π). At L′ with θ′ it needs [0, L′·θ′_i]; it
    meets new angles iff L·θ_i < 2π and L′·θ′_i > L·θ_i (up to a 1e-12 relative rounding margin).
    PI (θ′ = θ·L/L′) gives none; NTK-aware leaves the slow pairs but the last partly out of range.
    Used by notebook 05 (sections 3 and 9).
    """
    theta = np.asarray(inv_freq, dtype=np.float64)  # (D/2,)
    scaled = np.asarray(scaled_inv_freq, dtype=np.float64)  # (D/2,)
    if theta.shape != scaled.shape:
        raise ValueError(f"inv_freq and scaled_inv_freq must have the same shape, got {theta.shape} and {scaled.shape}")
    train_len = check_int("train_len", train_len, minimum=1)
    target_len = check_int("target_len", target_len, minimum=1)
    return (train_len * theta < TWO_PI) & (target_len * scaled > train_len * theta * (1 + 1e-12))  # (D/2,)


def rope_score_curve(inv_freq, distances, attention_factor: float = 1.0) -> np.ndarray:
    """Score of q = k = (1, 1, …, 1) at relative distance Δ, averaged over pairs: a²·mean_i cos(Δ·θ_i).

    For pair i, ⟨R_m q, R_n k⟩ with q_i = k_i = (1, 1) is 2·cos((m − n)θ_i); dividing by D gives the mean of the
    cosines, 1 at Δ = 0 (times a², the attention factor applied to q and k alike). The classic RoFormer decay curve
    (arXiv 2104.09864 §3.4.3, Fig. 2 shows a bound on it). ``distances``: (N,), returns (N,) float64.
    Used by notebook 05 (sections 2 and 7).
    """
    inv_freq = np.asarray(inv_freq, dtype=np.float64)  # (D/2,)
    a = check_positive("attention_factor", attention_factor)
    delta = np.asarray(distances, dtype=np.float64)  # (N,)
    return a * a * np.cos(np.outer(delta, inv_freq)).mean(axis=1)  # (N,)


def toy_attention_entropy(inv_freq, lengths, *, attention_factor: float = 1.0, peak_logit: float = 8.0) -> np.ndarray:
    """Entropy (nats) of the last query's attention over the n most recent keys, for each n in ``lengths``.

    Toy model: every token has the same content, so the logit at distance Δ is
    c·a²·mean_i cos(Δ·θ_i) (c = ``peak_logit``, the logit at Δ = 0 without temperature; a = attention factor).
    H(n) = −Σ_{Δ<n} p_Δ ln p_Δ with p = softmax over Δ = 0..n−1, computed for all n at once with running sums.
    A uniform row would have H = ln n. Shapes: ``lengths`` (K,) of ints >= 1; returns (K,).
    Used by notebook 05 (section 5).
    """
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or lengths.min() < 1:
        raise ValueError(f"lengths must be a 1-D array of integers >= 1, got {lengths!r}")
    c = check_positive("peak_logit", peak_logit)
    n_max = int(lengths.max())
    x = c * rope_score_curve(inv_freq, np.arange(n_max), attention_factor)  # (n_max,)
    w = np.exp(x - x.max())  # (n_max,) stable: a common shift cancels in p
    z = np.cumsum(w)  # (n_max,)  Z_n (shifted)
    wx = np.cumsum(w * (x - x.max()))  # (n_max,)
    idx = lengths.astype(int) - 1
    # H = ln Z − E_p[x]  (both with the same shift)
    return np.log(z[idx]) - wx[idx] / z[idx]  # (K,)


# --------------------------------------------------------------------------- section 1: the problem
def plot_angle_range(dim: int = 128, base: float = 10000.0, train_len: int = 2048, target_len: int = 8192, ax=None):
    """Per pair: the largest angle seen in training (L·θ_i) and the largest angle needed at L′ (L′·θ_i), log scale.

    A horizontal line marks one full turn (2π). Pairs below it in training have seen only part of the circle:
    they are shaded, and at L′ they meet angles they were never trained on.
    """
    ax = new_axes(ax)
    theta = scaling.default_inv_freq(dim, base)[0]  # (D/2,)
    i = np.arange(theta.size)
    bad = out_of_range_pairs(dim, base, train_len, target_len)
    ax.semilogy(i, train_len * theta, "o-", ms=2.5, color="tab:blue", label=f"trained: L·θ_i (L = {train_len})")
    ax.semilogy(i, target_len * theta, "s-", ms=2.5, color="tab:red", label=f"needed: L′·θ_i (L′ = {target_len})")
    ax.axhline(TWO_PI, color="grey", ls="--", lw=1, label="one full turn (2π)")
    if bad.any():
        ax.axvspan(i[bad][0] - 0.5, i[bad][-1] + 0.5, color="tab:red", alpha=0.12, label="new angles at L′")
    ax.legend(fontsize=7, loc="lower left")
    _plain_log_axis(ax.yaxis)
    return _label(
        ax,
        xlabel="pair index i (0 = fastest)",
        ylabel="largest angle (rad)",
        title=f"D = {dim}, b = {base:g}: {int(bad.sum())} of {theta.size} pairs leave their trained range",
    )


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
    ax.semilogy(i, np.degrees(theta), color="black", label="original θ_i")
    ax.semilogy(i, np.degrees(pi), color=_style("PI")["color"], label=f"PI θ_i/s (s = {factor:g})")
    ax.legend(fontsize=8)
    _plain_log_axis(ax.yaxis)
    return _label(
        ax,
        xlabel="pair index i",
        ylabel="angle per token step (degrees)",
        title=f"Neighbours under PI: pair 0 turns {np.degrees(pi[0]):.1f}° instead of {np.degrees(theta[0]):.1f}°",
    )


def plot_pi_distances(dim: int = 128, base: float = 10000.0, factor: float = 4.0, max_distance: int = 8, ax=None):
    """Score of q = k = 1 against distance: where PI puts neighbouring tokens on the curve the model was trained on.

    The trained model saw the score only at integer distances (black dots). Under PI a token distance Δ is rotated
    like the distance Δ/s (blue crosses, drawn at x = Δ/s): every cross lies on the original curve (interpolation,
    no unseen angle), but s crosses crowd into each unit step, at fractional distances never seen in training.
    """
    ax = new_axes(ax)
    theta = scaling.default_inv_freq(dim, base)[0]
    pi = scaling.linear_inv_freq(dim, base, factor)[0]
    fine = np.linspace(0, max_distance, 40 * max_distance + 1)  # (N,)
    ints = np.arange(max_distance + 1)
    pi_tokens = np.arange(int(factor * max_distance) + 1)  # token distances Δ whose PI angle is ≤ max_distance·θ
    ax.plot(fine, rope_score_curve(theta, fine), color="0.6", lw=1, label="original score at any real distance")
    ax.plot(ints, rope_score_curve(theta, ints), "o", color="black", ms=5, label="trained: integer distances")
    ax.plot(
        pi_tokens / factor,
        rope_score_curve(pi, pi_tokens),
        "x",
        color=_style("PI")["color"],
        ms=5,
        label=f"PI: token distance Δ drawn at Δ/{factor:g}",
    )
    ax.legend(fontsize=7)
    return _label(
        ax,
        xlabel="distance on the trained scale (tokens)",
        ylabel="score of q = k = 1 (mean cos)",
        title=f"PI (s = {factor:g}) interpolates between trained distances",
    )


# --------------------------------------------------------------------------- section 3: NTK-aware
def plot_slowdown(dim: int = 128, base: float = 10000.0, factor: float = 4.0, ax=None):
    """Per-pair slowdown θ_i/θ′_i for PI (s everywhere), NTK-aware (1 → s) and the chapter's b·s (1 → s^((D−2)/D)).

    Dotted horizontal lines at 1 (untouched) and s. Errata E4: only PI slows every pair by s.
    """
    ax = new_axes(ax)
    theta = scaling.default_inv_freq(dim, base)[0]
    i = np.arange(theta.size)
    for name in ("PI", "NTK-aware", "chapter's NTK (b·s)"):
        inv = extension_methods(dim, base, factor, 1, methods=[name])[name][0]
        st = _style(name)
        ax.plot(i, theta / inv, color=st["color"], ls=st["ls"], lw=1.8, label=name)
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.axhline(factor, color="grey", lw=0.8, ls=":")
    ax.legend(fontsize=8)
    return _label(
        ax,
        xlabel="pair index i (0 = fastest)",
        ylabel="slowdown θ_i / θ′_i (×)",
        title=f"D = {dim}, s = {factor:g}: NTK base {scaling.ntk_scaled_base(dim, base, factor):,.0f}, chapter {base * factor:,.0f}",
    )


# --------------------------------------------------------------------------- section 4: dynamic NTK
def plot_dynamic_scale(train_len: int = 2048, factor: float = 2.0, max_len: int | None = None, ax=None):
    """Effective NTK scale against the current length l: HF's s·l/L − (s − 1) and the YaRN paper's max(1, l/L).

    Both are 1 up to l = L (no change while the text is short); they grow linearly after it, with different slopes
    unless s = 1.
    """
    ax = new_axes(ax)
    train_len = check_int("train_len", train_len, minimum=1)
    max_len = 4 * train_len if max_len is None else max_len
    lengths = np.linspace(1, max_len, 400)
    ell = np.maximum(lengths, train_len)
    ax.plot(
        lengths, factor * ell / train_len - (factor - 1), color="tab:brown", label=f"HF dynamic, factor = {factor:g}"
    )
    ax.plot(lengths, ell / train_len, color="tab:brown", ls="--", label="YaRN paper §3.3: max(1, l/L)")
    ax.axvline(train_len, color="grey", lw=0.8, ls=":")
    ax.legend(fontsize=8)
    return _label(
        ax,
        xlabel="current sequence length l (tokens)",
        ylabel="effective NTK scale",
        title=f"Dynamic NTK: the scale follows the length (L = {train_len})",
    )


# --------------------------------------------------------------------------- section 5: YaRN
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
    """YaRN's extrapolation weight γ_i per pair: the released code's ramp (linear in i) and the paper's (linear in r).

    γ = 1: the pair is kept (it turns more than β_fast times within L); γ = 0: divided by s like PI (fewer than
    β_slow turns). Each x tick label also shows r_i = L/λ_i, the pair's turns within L (one axis instead of a
    secondary top axis: half the ticks to build on every slider move). The code ramp has YaRN's colour and the paper
    ramp the colour of "YaRN (paper ramp)" in :data:`METHOD_STYLE`, so ``legend=False`` can leave the naming to a
    neighbouring panel's legend.
    """
    ax = new_axes(ax)
    code = scaling.yarn_ramp(dim, base, train_len, kind="code", beta_fast=beta_fast, beta_slow=beta_slow)
    paper = scaling.yarn_ramp(dim, base, train_len, kind="paper", beta_fast=beta_fast, beta_slow=beta_slow)
    r = scaling.rotations_in_context(dim, base, train_len)
    i = np.arange(code.size)
    ax.plot(i, code, "o-", ms=2.5, color=_style("YaRN")["color"], label="code (HF, jquesnelle): linear in i")
    ax.plot(i, paper, "s--", ms=2.5, color=_style("YaRN (paper ramp)")["color"], label="paper: linear in r = L/λ")
    for n_rot, txt in ((beta_fast, "β_fast"), (beta_slow, "β_slow")):
        x = scaling.yarn_correction_dim(n_rot, dim, base, train_len)
        if 0 <= x <= code.size - 1:
            ax.axvline(x, color="grey", lw=0.8, ls=":")
            ax.text(x, 0.5, f" r = {n_rot:g}\n ({txt})", fontsize=7, color="grey")
    ax.set_ylim(-0.05, 1.05)
    ax.set_yticks([0.0, 0.5, 1.0])
    if legend:
        ax.legend(fontsize=7, loc="lower left")
    ticks = _pair_ticks(code.size)
    ax.set_xticks(ticks, [f"{k}\nr={v:.3g}" for k, v in zip(ticks, r[ticks], strict=True)], fontsize=7)
    return _label(ax, xlabel="pair index i  (r = L/λ_i: turns within L)", ylabel="extrapolation weight γ_i", title=None)


def plot_yarn_entropy(
    dim: int = 64, base: float = 10000.0, train_len: int = 512, factor: float = 8.0, *, peak_logit: float = 8.0, ax=None
):
    """Toy attention entropy against the number of keys n: original RoPE, YaRN without and with its temperature.

    Same-content tokens (:func:`toy_attention_entropy`): the logit at distance Δ is c·a²·mean_i cos(Δθ′_i). The grey
    line is ln n (a uniform row). Vertical lines at L and s·L.
    """
    ax = new_axes(ax)
    lengths = np.unique(np.geomspace(8, factor * train_len, 60).astype(int))
    theta = scaling.default_inv_freq(dim, base)[0]
    inv, a = scaling.yarn_inv_freq(dim, base, factor, train_len)
    ax.semilogx(lengths, np.log(lengths), color="0.7", lw=1, label="uniform: ln n")
    ax.semilogx(lengths, toy_attention_entropy(theta, lengths, peak_logit=peak_logit), color="black", label="original")
    ax.semilogx(
        lengths,
        toy_attention_entropy(inv, lengths, peak_logit=peak_logit),
        color="tab:green",
        ls="--",
        label="YaRN, no temperature",
    )
    ax.semilogx(
        lengths,
        toy_attention_entropy(inv, lengths, attention_factor=a, peak_logit=peak_logit),
        color="tab:green",
        label=f"YaRN, logits × {a * a:.3f}",
    )
    for x in (train_len, factor * train_len):
        ax.axvline(x, color="grey", lw=0.8, ls=":")
    ax.legend(fontsize=7)
    _plain_log_axis(ax.xaxis)
    return _label(
        ax,
        xlabel="keys attended n (tokens)",
        ylabel="attention entropy (nats)",
        title=f"Toy: same-content tokens, D = {dim}, L = {train_len}, s = {factor:g}",
    )


# --------------------------------------------------------------------------- sections 6 and 7: all methods
def _ratio_ticks(ax, factor: float) -> None:
    """Readable ticks on a log θ′/θ axis: 1, 1/2, 1/4, … down to 1/s (no minor-tick clutter)."""
    k = max(1, math.ceil(math.log2(factor)))
    step = 1 if k <= 6 else 2
    vals = [2.0**-j for j in range(0, k + 1, step)]
    ax.set_yticks(vals, ["1" if v == 1 else f"1/{round(1 / v)}" for v in vals])
    ax.set_yticks([], minor=True)
    ax.set_ylim(1 / factor / 1.25, 1.2)


def plot_frequency_ratios(
    curves: Mapping[str, np.ndarray],
    reference: np.ndarray,
    *,
    factor: float | None = None,
    highlight: str | None = None,
    ax=None,
):
    """θ′_i/θ_i per pair (log scale) for each named frequency array in ``curves`` against ``reference`` θ_i.

    1 means untouched (extrapolated), 1/s means divided by s (interpolated, as PI). ``highlight`` draws one method
    thick and the others thin. Names found in :data:`METHOD_STYLE` get the chapter's colours.
    """
    ax = new_axes(ax)
    reference = np.asarray(reference, dtype=np.float64)
    i = np.arange(reference.size)
    for name, inv in curves.items():
        st = _style(name)
        lw, alpha = (2.6, 1.0) if highlight in (None, name) else (1.0, 0.45)
        ax.semilogy(i, np.asarray(inv) / reference, color=st["color"], ls=st["ls"], lw=lw, alpha=alpha, label=name)
    if factor is not None and factor > 1:
        ax.axhline(1 / factor, color="grey", lw=0.8, ls=":")
        _ratio_ticks(ax, factor)
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_xticks(_pair_ticks(reference.size))
    ax.legend(fontsize=7, loc="center left")
    return _label(ax, xlabel="pair index i (0 = fastest)", ylabel="θ′_i / θ_i", title="Frequency change per pair")


def plot_score_vs_distance(
    methods: Mapping[str, tuple[np.ndarray, float]],
    train_len: int,
    max_distance: int,
    *,
    highlight: str | None = None,
    legend: bool = True,
    ax=None,
):
    """Score of q = k = 1 (a²·mean cos(Δθ′_i)) against distance Δ for each method, log-spaced Δ from 1 to max.

    The original curve is solid up to L (trained) and dotted after (extrapolated). ``methods``: as returned by
    :func:`extension_methods`. The YaRN curves include the attention factor a². ``legend=False`` leaves the legend
    to the caller (e.g. a neighbouring panel that already names every method in the same colours).
    """
    ax = new_axes(ax)
    dist = np.unique(np.geomspace(1, max_distance, 300).astype(int))  # (N,)
    for name, (inv, a) in methods.items():
        st = _style(name)
        y = rope_score_curve(inv, dist, a)
        lw, alpha = (2.0, 1.0) if highlight in (None, name) else (0.9, 0.35)
        if name == "original":
            inside = dist <= train_len
            ax.semilogx(dist[inside], y[inside], color="black", lw=lw, alpha=alpha, label="original (Δ ≤ L)")
            ax.semilogx(dist[~inside], y[~inside], color="black", ls=":", lw=lw, alpha=alpha, label="original (Δ > L)")
        else:
            ax.semilogx(dist, y, color=st["color"], ls=st["ls"], lw=lw, alpha=alpha, label=name)
    ax.axvline(train_len, color="grey", lw=0.8, ls=":")
    ax.yaxis.set_major_locator(MaxNLocator(4))
    ax.set_xticks([10.0**k for k in range(int(math.log10(dist[-1])) + 1)])  # the decades in view, nothing more
    if legend:
        ax.legend(fontsize=7, ncol=2, loc="upper right")  # a fixed place: "best" searches every line's 300 points
    _plain_log_axis(ax.xaxis)
    return _label(
        ax,
        xlabel="relative distance Δ (tokens)",
        ylabel="score of q = k = 1 (× a²)",
        title="Attention score against distance",
    )


def plot_config_wavelengths(configs: Mapping[str, tuple[np.ndarray, np.ndarray, float]], *, ax=None):
    """Wavelength λ_i = 2π/θ_i per pair before (thin) and after (thick) scaling, for each pasted model config.

    ``configs``: {label: (original inv_freq, scaled inv_freq, original context L)}; a dotted line marks each L.
    """
    ax = new_axes(ax)
    for k, (name, (orig, scaled, length)) in enumerate(configs.items()):
        color = f"C{k}"
        i = np.arange(len(orig))
        ax.semilogy(i, TWO_PI / np.asarray(orig), color=color, lw=0.9, ls="--", alpha=0.7)
        ax.semilogy(i, TWO_PI / np.asarray(scaled), color=color, lw=2, label=f"{name} (dashed: unscaled)")
        ax.axhline(length, color=color, lw=0.8, ls=":")
    ax.legend(fontsize=7)
    _plain_log_axis(ax.yaxis)
    return _label(
        ax,
        xlabel="pair index i",
        ylabel="wavelength λ_i (positions)",
        title="Pasted configs: wavelengths (dotted: original context L)",
    )


# --------------------------------------------------------------------------- section 8: the tiny-model lab
def plot_metric_curves(
    curves: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    *,
    train_len: int | None = None,
    xlabel: str,
    ylabel: str,
    title: str,
    logy: bool = False,
    legend: bool = True,
    ax=None,
):
    """One line per method for a measured quantity (loss against position, passkey accuracy against length, …).

    ``curves``: {method name: (x values, y values)}; names found in :data:`METHOD_STYLE` (or starting with one of
    them, e.g. "YaRN + fine-tune") get the chapter's colours; names containing "fine-tune" are drawn dashed.
    A dotted vertical line marks the training length L. ``legend=False`` leaves the legend to the caller (e.g. one
    shared figure legend for two panels).
    """
    ax = new_axes(ax)
    for name, (x, y) in curves.items():
        base_name = next((m for m in METHOD_STYLE if name.startswith(m)), name)
        st = _style(base_name)
        ls = "--" if "fine-tune" in name else "-"
        ax.plot(np.asarray(x), np.asarray(y), marker="o", ms=3, color=st["color"], ls=ls, label=name)
    if train_len is not None:
        ax.axvline(train_len, color="grey", lw=0.8, ls=":")
    if logy:
        ax.set_yscale("log")
    if legend:
        ax.legend(fontsize=7, ncol=2)
    return _label(ax, xlabel=xlabel, ylabel=ylabel, title=title)
